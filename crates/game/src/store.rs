//! The session store: every game's events in one SQLite file per install.
//!
//! WAL journal, each event its own transaction. A committed event is in the WAL file before
//! [`Store::play`] returns, so killing the process at any moment loses nothing that was
//! committed ([`Durability::Process`], `synchronous = NORMAL`, the default). Surviving a power
//! cut as well needs an fsync per event ([`Durability::PowerLoss`], `synchronous = FULL`), which
//! costs several milliseconds a move on this machine's disk. The state of a game is never
//! stored, only its events (each with the scene documents of the koans it concerns);
//! [`Store::resume`] folds them again.

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use koanscope_scene::Scene;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use crate::commit::Secret;
use crate::error::GameError;
use crate::event::{Event, Setup};
use crate::game::{Ending, Game, Outcome};
use crate::koan::KoanNo;

/// A session's number in the store.
pub type SessionId = i64;

/// The schema, one migration per version; `PRAGMA user_version` says how many have run.
const MIGRATIONS: &[&str] = &[
    // 1: sessions, their events, the scene documents each event concerns, the Master's secrets.
    "CREATE TABLE sessions (
        id INTEGER PRIMARY KEY,
        name TEXT UNIQUE,
        created_ms INTEGER NOT NULL,
        updated_ms INTEGER NOT NULL,
        mode TEXT NOT NULL,
        master TEXT NOT NULL,
        students TEXT NOT NULL,
        status TEXT NOT NULL,
        events INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE events (
        session INTEGER NOT NULL REFERENCES sessions(id),
        seq INTEGER NOT NULL,
        at_ms INTEGER NOT NULL,
        kind TEXT NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (session, seq)
    ) WITHOUT ROWID;
    CREATE TABLE event_koans (
        session INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        koan INTEGER NOT NULL,
        scene TEXT NOT NULL,
        PRIMARY KEY (session, seq, koan),
        FOREIGN KEY (session, seq) REFERENCES events(session, seq)
    ) WITHOUT ROWID;
    -- The Master's private books: the rule stays here until the Reveal event puts it in the log.
    CREATE TABLE secrets (
        session INTEGER NOT NULL REFERENCES sessions(id),
        round INTEGER NOT NULL,
        text TEXT NOT NULL,
        salt TEXT NOT NULL,
        PRIMARY KEY (session, round)
    );",
    // 2: the winner, so `sessions list` need not replay every game.
    "ALTER TABLE sessions ADD COLUMN winner TEXT;",
    // 3: the Master's corrections of what the camera saw, each with its frame (a table's own
    // labelled data), and moves taken back with undo (kept, never deleted).
    "CREATE TABLE corrections (
        id INTEGER PRIMARY KEY,
        session INTEGER NOT NULL REFERENCES sessions(id),
        at_ms INTEGER NOT NULL,
        koan INTEGER NOT NULL,
        what TEXT NOT NULL,
        seen TEXT NOT NULL,
        corrected TEXT NOT NULL,
        frame_png BLOB
    );
    CREATE TABLE undone (
        session INTEGER NOT NULL REFERENCES sessions(id),
        seq INTEGER NOT NULL,
        at_ms INTEGER NOT NULL,
        undone_ms INTEGER NOT NULL,
        kind TEXT NOT NULL,
        body TEXT NOT NULL
    );",
];

/// Why the store could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("session store: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("an event could not be (de)serialised: {0}")]
    Json(#[from] serde_json::Error),
    /// The move was refused; nothing was written.
    #[error(transparent)]
    Refused(#[from] GameError),
    #[error("session {session}: logged event {seq} does not replay: {error}")]
    Corrupt {
        session: SessionId,
        seq: u64,
        error: GameError,
    },
    #[error("no session {0:?} in the store")]
    NoSession(String),
    #[error("there is already a session named {0:?}")]
    NameTaken(String),
    #[error("the store was written by a newer koanscope (schema {found}, this one knows {known})")]
    NewerSchema { found: u32, known: u32 },
    #[error("nothing to undo: only the set-up is logged")]
    NothingToUndo,
    #[error("a stored scene document is unreadable: {0}")]
    Scene(#[from] koanscope_scene::SceneError),
}

/// One line of `sessions list`.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionInfo {
    pub id: SessionId,
    pub name: Option<String>,
    pub created_ms: i64,
    pub updated_ms: i64,
    pub mode: String,
    pub master: String,
    pub students: Vec<String>,
    pub status: String,
    pub winner: Option<String>,
    pub events: u64,
}

/// An event as logged.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredEvent {
    pub seq: u64,
    pub at_ms: i64,
    pub event: Event,
}

/// A correction the Master made to what the camera saw, as logged.
#[derive(Debug, Clone, PartialEq)]
pub struct LoggedCorrection {
    pub at_ms: i64,
    /// The tracker's id of the koan corrected.
    pub koan: u64,
    /// The correction in words ("piece 3 is blue, not green").
    pub what: String,
    /// The koan as the camera saw it, and as the Master corrected it.
    pub seen: Scene,
    pub corrected: Scene,
    /// The frame the correction was made on, as PNG, when the table keeps frames.
    pub frame_png: Option<Vec<u8>>,
}

/// What a committed event survives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// The process being killed at any moment (`synchronous = NORMAL` in WAL mode).
    #[default]
    Process,
    /// A power cut too: every commit is synced to the disk (`synchronous = FULL`).
    PowerLoss,
}

/// The session store.
pub struct Store {
    conn: Connection,
}

impl Drop for Store {
    fn drop(&mut self) {
        self.checkpoint();
    }
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

impl Store {
    /// Opens (creating if needed) the store at `path` and brings its schema up to date.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        Store::open_with(path, Durability::default())
    }

    /// The same, choosing what a committed event survives.
    pub fn open_with(path: &Path, durability: Durability) -> Result<Store, StoreError> {
        let conn = Connection::open(path)?;
        Store::init(conn, durability)
    }

    /// A store in memory (tests).
    pub fn open_in_memory() -> Result<Store, StoreError> {
        Store::init(Connection::open_in_memory()?, Durability::default())
    }

    fn init(conn: Connection, durability: Durability) -> Result<Store, StoreError> {
        // First: another process (a viewer, a crashed game's successor) may hold the lock.
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        // WAL lets a viewer read while the table writes.
        conn.pragma_update(None, "journal_mode", "WAL")?;
        let sync = match durability {
            Durability::Process => "NORMAL",
            Durability::PowerLoss => "FULL",
        };
        conn.pragma_update(None, "synchronous", sync)?;
        // A checkpoint syncs the disk twice (about 8 ms here): with SQLite's default (every
        // 1000 pages, about every hundred moves) it set the 99th percentile of an append.
        // Checkpoint rarely on the move path, and fully when a store is opened or closed.
        conn.pragma_update(None, "wal_autocheckpoint", 10_000)?;
        conn.pragma_update(None, "journal_size_limit", 64 * 1024 * 1024)?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        let mut store = Store { conn };
        store.migrate(MIGRATIONS.len() as u32)?;
        store.checkpoint();
        Ok(store)
    }

    /// Moves the WAL into the database when nobody is in the middle of a move. Best effort: a
    /// busy store is checkpointed next time.
    fn checkpoint(&self) {
        let _ = self
            .conn
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
    }

    /// The schema version of the open file.
    pub fn schema_version(&self) -> Result<u32, StoreError> {
        Ok(self
            .conn
            .pragma_query_value(None, "user_version", |r| r.get::<_, u32>(0))?)
    }

    /// Runs the migrations up to `target`, each in its own transaction. The version is read
    /// inside the transaction, so two processes opening a new file do not both migrate it.
    fn migrate(&mut self, target: u32) -> Result<(), StoreError> {
        let known = MIGRATIONS.len() as u32;
        loop {
            let tx = self
                .conn
                .transaction_with_behavior(TransactionBehavior::Immediate)?;
            let found: u32 = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
            if found > known {
                return Err(StoreError::NewerSchema { found, known });
            }
            if found >= target.min(known) {
                return Ok(());
            }
            tx.execute_batch(MIGRATIONS[found as usize])?;
            tx.pragma_update(None, "user_version", found + 1)?;
            tx.commit()?;
        }
    }

    /// Starts a session: the session, the Master's secret and the `Created` event, in one
    /// transaction. Returns the session and the game with the secret learned.
    pub fn start(
        &mut self,
        name: Option<&str>,
        setup: &Setup,
        secret: &Secret,
    ) -> Result<(SessionId, Game), StoreError> {
        let mut game = Game::new();
        game.learn_secret(0, secret.clone())?;
        let event = Event::Created(setup.clone());
        let outcome = game.apply(&event)?;
        let now = now_ms();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        if let Some(name) = name {
            let taken: Option<i64> = tx
                .query_row("SELECT id FROM sessions WHERE name = ?1", [name], |r| {
                    r.get(0)
                })
                .optional()?;
            if taken.is_some() {
                return Err(StoreError::NameTaken(name.to_string()));
            }
        }
        tx.execute(
            "INSERT INTO sessions (name, created_ms, updated_ms, mode, master, students, status)
             VALUES (?1, ?2, ?2, ?3, ?4, ?5, ?6)",
            params![
                name,
                now,
                setup.mode.word(),
                setup.master,
                serde_json::to_string(&setup.students)?,
                game.describe_phase()
            ],
        )?;
        let session = tx.last_insert_rowid();
        tx.execute(
            "INSERT INTO secrets (session, round, text, salt) VALUES (?1, 0, ?2, ?3)",
            params![session, secret.text, secret.salt],
        )?;
        Store::insert_event(&tx, session, 0, now, &event, &game, &outcome)?;
        tx.commit()?;
        Ok((session, game))
    }

    /// Plays one event: the game checks it (a refused move writes nothing and leaves `game` as
    /// it was), then it is logged in its own transaction, then `game` moves on.
    pub fn play(
        &mut self,
        session: SessionId,
        game: &mut Game,
        event: &Event,
    ) -> Result<Outcome, StoreError> {
        self.play_with_secret(session, game, event, None)
    }

    /// The same, for an event that brings a new secret (Head-to-Head's second round): the secret
    /// is stored in the same transaction as the event.
    pub fn play_with_secret(
        &mut self,
        session: SessionId,
        game: &mut Game,
        event: &Event,
        secret: Option<(u32, &Secret)>,
    ) -> Result<Outcome, StoreError> {
        let mut next = game.clone();
        if let Some((round, s)) = secret {
            next.learn_secret(round, s.clone())?;
        }
        let outcome = next.apply(event)?;
        let seq = next.events_applied() - 1;
        let now = now_ms();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        Store::insert_event(&tx, session, seq, now, event, &next, &outcome)?;
        if let Some((round, s)) = secret {
            tx.execute(
                "INSERT INTO secrets (session, round, text, salt) VALUES (?1, ?2, ?3, ?4)",
                params![session, round, s.text, s.salt],
            )?;
        }
        tx.commit()?;
        *game = next;
        Ok(outcome)
    }

    fn insert_event(
        tx: &rusqlite::Transaction<'_>,
        session: SessionId,
        seq: u64,
        at_ms: i64,
        event: &Event,
        after: &Game,
        outcome: &Outcome,
    ) -> Result<(), StoreError> {
        tx.prepare_cached(
            "INSERT INTO events (session, seq, at_ms, kind, body) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?
        .execute(params![
            session,
            seq as i64,
            at_ms,
            event.kind(),
            serde_json::to_string(event)?
        ])?;
        {
            let mut insert = tx.prepare_cached(
                "INSERT INTO event_koans (session, seq, koan, scene) VALUES (?1, ?2, ?3, ?4)",
            )?;
            for no in &outcome.koans {
                if let Some(k) = after.koan(*no) {
                    insert.execute(params![
                        session,
                        seq as i64,
                        no,
                        k.scene.to_json_string(false)
                    ])?;
                }
            }
        }
        let winner = match after.ending() {
            Some(Ending::Won { student, .. }) => Some(student.clone()),
            _ => None,
        };
        let updated = tx
            .prepare_cached(
                "UPDATE sessions SET updated_ms = ?2, status = ?3, events = ?4, winner = ?5 WHERE id = ?1",
            )?
            .execute(params![
                session,
                at_ms,
                after.describe_phase(),
                seq as i64 + 1,
                winner
            ])?;
        if updated == 0 {
            return Err(StoreError::NoSession(session.to_string()));
        }
        Ok(())
    }

    /// The events of a session, in order.
    pub fn events(&self, session: SessionId) -> Result<Vec<StoredEvent>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT seq, at_ms, body FROM events WHERE session = ?1 ORDER BY seq",
        )?;
        let rows = stmt.query_map([session], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, String>(2)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (seq, at_ms, body) = row?;
            out.push(StoredEvent {
                seq: seq as u64,
                at_ms,
                event: serde_json::from_str(&body)?,
            });
        }
        if out.is_empty() {
            return Err(StoreError::NoSession(session.to_string()));
        }
        Ok(out)
    }

    /// The scene documents stored with one event (koan number, document).
    pub fn event_koans(
        &self,
        session: SessionId,
        seq: u64,
    ) -> Result<Vec<(KoanNo, Scene)>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT koan, scene FROM event_koans WHERE session = ?1 AND seq = ?2 ORDER BY koan",
        )?;
        let rows = stmt.query_map(params![session, seq as i64], |r| {
            Ok((r.get::<_, u32>(0)?, r.get::<_, String>(1)?))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (koan, text) = row?;
            out.push((koan, Scene::from_json_str(&text)?));
        }
        Ok(out)
    }

    /// The Master's secrets of a session, by round.
    pub fn secrets(&self, session: SessionId) -> Result<Vec<(u32, Secret)>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT round, text, salt FROM secrets WHERE session = ?1 ORDER BY round",
        )?;
        let rows = stmt.query_map([session], |r| {
            Ok((
                r.get::<_, u32>(0)?,
                Secret::with_salt(r.get::<_, String>(1)?, r.get::<_, String>(2)?),
            ))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The game where it was: the fold of its logged events, with the Master's secrets.
    pub fn resume(&self, session: SessionId) -> Result<Game, StoreError> {
        let events = self.events(session)?;
        let secrets = self.secrets(session)?;
        Game::replay(events.iter().map(|e| &e.event), secrets).map_err(|(seq, error)| {
            StoreError::Corrupt {
                session,
                seq,
                error,
            }
        })
    }

    /// Every session, newest first.
    pub fn sessions(&self) -> Result<Vec<SessionInfo>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT id, name, created_ms, updated_ms, mode, master, students, status, winner, events
             FROM sessions ORDER BY id DESC",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok((
                SessionInfo {
                    id: r.get(0)?,
                    name: r.get(1)?,
                    created_ms: r.get(2)?,
                    updated_ms: r.get(3)?,
                    mode: r.get(4)?,
                    master: r.get(5)?,
                    students: Vec::new(),
                    status: r.get(7)?,
                    winner: r.get(8)?,
                    events: r.get::<_, i64>(9)? as u64,
                },
                r.get::<_, String>(6)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (mut info, students) = row?;
            info.students = serde_json::from_str(&students)?;
            out.push(info);
        }
        Ok(out)
    }

    /// Logs a correction of what the camera saw, with the frame it was made on.
    pub fn log_correction(
        &mut self,
        session: SessionId,
        correction: &LoggedCorrection,
    ) -> Result<(), StoreError> {
        self.conn
            .prepare_cached(
                "INSERT INTO corrections (session, at_ms, koan, what, seen, corrected, frame_png)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![
                session,
                correction.at_ms,
                correction.koan as i64,
                correction.what,
                correction.seen.to_json_string(false),
                correction.corrected.to_json_string(false),
                correction.frame_png
            ])?;
        Ok(())
    }

    /// The corrections logged in a session, oldest first.
    pub fn corrections(&self, session: SessionId) -> Result<Vec<LoggedCorrection>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT at_ms, koan, what, seen, corrected, frame_png FROM corrections
             WHERE session = ?1 ORDER BY id",
        )?;
        let rows = stmt.query_map([session], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, Option<Vec<u8>>>(5)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (at_ms, koan, what, seen, corrected, frame_png) = row?;
            out.push(LoggedCorrection {
                at_ms,
                koan: koan as u64,
                what,
                seen: Scene::from_json_str(&seen)?,
                corrected: Scene::from_json_str(&corrected)?,
                frame_png,
            });
        }
        Ok(out)
    }

    /// Takes back the session's last move (not its set-up): the event moves to the `undone`
    /// table, so nothing logged is lost, and the game is folded again without it.
    pub fn undo_last(&mut self, session: SessionId) -> Result<Game, StoreError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let last: Option<(i64, i64, String, String)> = tx
            .query_row(
                "SELECT seq, at_ms, kind, body FROM events WHERE session = ?1
                 ORDER BY seq DESC LIMIT 1",
                [session],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .optional()?;
        let Some((seq, at_ms, kind, body)) = last else {
            return Err(StoreError::NoSession(session.to_string()));
        };
        if seq == 0 {
            return Err(StoreError::NothingToUndo);
        }
        tx.execute(
            "INSERT INTO undone (session, seq, at_ms, undone_ms, kind, body)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![session, seq, at_ms, now_ms(), kind, body],
        )?;
        tx.execute(
            "DELETE FROM event_koans WHERE session = ?1 AND seq = ?2",
            params![session, seq],
        )?;
        tx.execute(
            "DELETE FROM events WHERE session = ?1 AND seq = ?2",
            params![session, seq],
        )?;
        tx.execute(
            "UPDATE sessions SET events = ?2, updated_ms = ?3 WHERE id = ?1",
            params![session, seq, now_ms()],
        )?;
        tx.commit()?;
        let game = self.resume(session)?;
        self.conn.execute(
            "UPDATE sessions SET status = ?2 WHERE id = ?1",
            params![session, game.describe_phase()],
        )?;
        Ok(game)
    }

    /// A session by number or by name.
    pub fn find(&self, key: &str) -> Result<SessionId, StoreError> {
        let by_name: Option<SessionId> = self
            .conn
            .query_row("SELECT id FROM sessions WHERE name = ?1", [key], |r| {
                r.get(0)
            })
            .optional()?;
        if let Some(id) = by_name {
            return Ok(id);
        }
        if let Ok(id) = key.trim_start_matches('#').parse::<SessionId>() {
            let found: Option<SessionId> = self
                .conn
                .query_row("SELECT id FROM sessions WHERE id = ?1", [id], |r| r.get(0))
                .optional()?;
            if let Some(id) = found {
                return Ok(id);
            }
        }
        Err(StoreError::NoSession(key.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_old_store_is_migrated_and_keeps_its_rows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sqlite");
        {
            let conn = Connection::open(&path).unwrap();
            let mut store = Store { conn };
            store.migrate(1).unwrap();
            store
                .conn
                .execute(
                    "INSERT INTO sessions (name, created_ms, updated_ms, mode, master, students, status)
                     VALUES ('old', 1, 1, 'standard', 'Ann', '[\"Bob\",\"Cat\"]', 'in play')",
                    [],
                )
                .unwrap();
            assert_eq!(store.schema_version().unwrap(), 1);
        }
        let store = Store::open(&path).unwrap();
        assert_eq!(store.schema_version().unwrap(), MIGRATIONS.len() as u32);
        let sessions = store.sessions().unwrap();
        assert_eq!(sessions[0].name.as_deref(), Some("old"));
        assert_eq!(sessions[0].winner, None);
    }

    #[test]
    fn a_store_from_a_newer_koanscope_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sqlite");
        {
            let conn = Connection::open(&path).unwrap();
            conn.pragma_update(None, "user_version", 99).unwrap();
        }
        assert!(matches!(
            Store::open(&path),
            Err(StoreError::NewerSchema { found: 99, .. })
        ));
    }
}
