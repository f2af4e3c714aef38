//! The table as the window sees it: the latest feed from the camera, the game's books, which
//! koan on the table is which koan in the books, and the Master's corrections. Every button of
//! the console is a method here, so the whole of a game can be played (and tested) without
//! drawing anything. A refused move changes nothing and says why.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::time::{SystemTime, UNIX_EPOCH};

use koanscope_game::{
    Event, Game, KoanNo, LoggedCorrection, Note, Phase, SessionId, Store, StoreError, fingerprint,
    narrate,
};
use koanscope_geometry::HiddenPiece;
use koanscope_scene::{JudgmentCall, Mark, PieceId, Scene};

use crate::correct::Correction;
use crate::feed::{FeedUpdate, KoanState, Picture, PictureUpdate, TableFeed, TrackedKoan};

/// What the window needs from layers it does not link (the rule engine's counter-example
/// search, the geometry engine): the app provides it.
pub trait Services {
    /// A koan that the secret rule and the official guess mark differently, to suggest to the
    /// Master, or `None` when the search finds none.
    fn counterexample(&self, game: &Game) -> Result<Option<Suggestion>, String>;

    /// The document's relations derived again, keeping the koans it lists (after the Master
    /// merged or split koans). The default keeps the relations it has (none between the parts).
    fn regroup(&self, scene: &Scene) -> Result<Scene, String> {
        Ok(scene.clone())
    }

    /// Every way one piece could hide in the document where the camera cannot see it (see
    /// `Engine::hidden_pieces`). The default has no geometry and finds none.
    fn hidden_pieces(&self, _scene: &Scene) -> Vec<HiddenPiece> {
        Vec::new()
    }
}

/// A counter-example to build: instructions in words, and the koan to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct Suggestion {
    pub words: String,
    pub scene: Scene,
    /// What the secret rule says of it.
    pub mark: Mark,
}

/// Services for a table without a counter-example search.
pub struct NoServices;

impl Services for NoServices {
    fn counterexample(&self, _: &Game) -> Result<Option<Suggestion>, String> {
        Err("no counter-example search in this window".into())
    }
}

/// A line in the console's log.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub text: String,
    /// A refused move or a problem, shown in red.
    pub problem: bool,
}

/// Corrections of one koan, kept while the camera sees it as it was when corrected.
#[derive(Debug, Clone, PartialEq)]
struct Corrected {
    seen_fingerprint: String,
    corrections: Vec<Correction>,
}

/// The Master's regrouping of koans the camera grouped otherwise.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Regroup {
    /// Koan `from` is part of koan `into`.
    Merge { into: u64, from: u64 },
    /// Piece `piece` of koan `koan` is a koan of its own.
    Split { koan: u64, piece: PieceId },
}

/// A regrouping, kept while the koans it concerns are seen as they were.
#[derive(Debug, Clone, PartialEq)]
struct Regrouped {
    regroup: Regroup,
    seen: BTreeMap<u64, String>,
}

/// The id of the koan a piece split off from a tracked koan makes.
pub fn split_id(koan: u64, piece: PieceId) -> u64 {
    (1 << 48) + (koan << 16) + u64::from(piece)
}

/// Pieces of both documents as one koan (relations as they were, within each part).
fn union(a: &Scene, b: &Scene) -> Option<Scene> {
    if b.pieces.iter().any(|p| a.piece(p.id).is_some()) {
        return None;
    }
    let mut scene = a.clone();
    let koan_id = a.koans.first().map_or(0, |k| k.id);
    scene.pieces.extend(b.pieces.iter().cloned().map(|mut p| {
        p.koan = Some(koan_id);
        p
    }));
    if let (Some(into), Some(from)) = (scene.koans.first_mut(), b.koans.first()) {
        into.pieces.extend(&from.pieces);
        into.touching.extend(&from.touching);
        into.pointing.extend(&from.pointing);
        into.inserted.extend(&from.inserted);
        into.fully_inserted.extend(&from.fully_inserted);
        into.towers.extend(from.towers.iter().cloned());
        into.nests.extend(from.nests.iter().cloned());
        into.same_direction.extend(&from.same_direction);
        into.opposite_direction.extend(&from.opposite_direction);
        into.judgment_calls
            .extend(from.judgment_calls.iter().cloned());
        into.relations_detail = None;
    }
    Some(scene)
}

/// The document without one piece (and the relations it was part of), and that piece alone.
fn split(scene: &Scene, piece: PieceId) -> Option<(Scene, Scene)> {
    let alone = scene.piece(piece)?.clone();
    if scene.pieces.len() < 2 {
        return None;
    }
    let mut rest = scene.clone();
    rest.pieces.retain(|p| p.id != piece);
    let mut single = Scene {
        source: scene.source.clone(),
        image_size: scene.image_size,
        pieces: vec![alone],
        koans: Vec::new(),
    };
    if let Some(k) = rest.koans.first_mut() {
        let pair = |v: &mut Vec<[PieceId; 2]>| v.retain(|[a, b]| *a != piece && *b != piece);
        k.pieces.retain(|p| *p != piece);
        pair(&mut k.touching);
        pair(&mut k.pointing);
        pair(&mut k.inserted);
        pair(&mut k.fully_inserted);
        pair(&mut k.same_direction);
        pair(&mut k.opposite_direction);
        k.towers.retain(|t| !t.contains(&piece));
        k.nests.retain(|t| !t.contains(&piece));
        k.judgment_calls.retain(|c| !c.pieces.contains(&piece));
        k.relations_detail = None;
        single.koans.push(koanscope_scene::Koan {
            id: k.id,
            pieces: vec![piece],
            ..koanscope_scene::Koan::default()
        });
    }
    Some((rest, single))
}

/// One koan on the table, as the Master's console shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct KoanView {
    pub tracked: u64,
    pub state: KoanState,
    /// The koan as seen, with the Master's corrections applied.
    pub scene: Scene,
    pub corrections: Vec<String>,
    /// Its number in the books, once logged.
    pub no: Option<KoanNo>,
    pub mark: Option<Mark>,
    /// What the secret rule says, with the reason.
    pub suggested: Option<(Mark, String)>,
    pub judgment_calls: Vec<JudgmentCall>,
    /// Where a piece hidden under one of the koan's would change the rule's mark: which piece
    /// to lift, and why (the camera cannot see under a piece standing on the table).
    pub hidden: Option<String>,
    pub disturbed: bool,
    /// The tracked koans whose pieces it holds (more than one after a merge; for a piece split
    /// off, the koan it came from).
    pub sources: Vec<u64>,
}

/// The live table.
pub struct LiveTable {
    store: Store,
    session: SessionId,
    game: Game,
    services: Box<dyn Services + Send>,
    feed: TableFeed,
    corrected: BTreeMap<u64, Corrected>,
    regroups: Vec<Regrouped>,
    links: BTreeMap<u64, KoanNo>,
    messages: Vec<Message>,
    suggestion: Option<Suggestion>,
    /// Log koans, marks and break-downs as the rule says, without waiting for clicks (the
    /// demo, and koanscope as the Master).
    auto_master: bool,
    /// What a hidden piece would change, by koan document and rule ([`LiveTable::hidden_change`]
    /// derives up to ten koans a piece; the console asks every frame).
    hidden_changes: RefCell<HashMap<u64, Option<String>>>,
}

/// The hidden-piece answers kept before they are all dropped (a koan moved, a new rule).
const HIDDEN_CHANGES_KEPT: usize = 256;

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// A tracked koan's document with the corrections applied (those that no longer fit are
/// skipped: the koan changed under them).
fn corrected_scene(koan: &TrackedKoan, corrected: Option<&Corrected>) -> Scene {
    let mut scene = koan.scene.clone();
    if let Some(c) = corrected {
        for correction in &c.corrections {
            let _ = correction.apply(&mut scene);
        }
    }
    scene
}

impl LiveTable {
    pub fn new(
        store: Store,
        session: SessionId,
        game: Game,
        services: Box<dyn Services + Send>,
    ) -> LiveTable {
        LiveTable {
            store,
            session,
            game,
            services,
            feed: TableFeed::default(),
            corrected: BTreeMap::new(),
            regroups: Vec::new(),
            links: BTreeMap::new(),
            messages: Vec::new(),
            suggestion: None,
            auto_master: false,
            hidden_changes: RefCell::default(),
        }
    }

    /// Lets koanscope log and mark koans itself as the secret rule says.
    pub fn set_auto_master(&mut self, on: bool) {
        self.auto_master = on;
    }

    pub fn auto_master(&self) -> bool {
        self.auto_master
    }

    pub fn game(&self) -> &Game {
        &self.game
    }

    pub fn session(&self) -> SessionId {
        self.session
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn feed(&self) -> &TableFeed {
        &self.feed
    }

    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    pub fn suggestion(&self) -> Option<&Suggestion> {
        self.suggestion.as_ref()
    }

    /// The game's number of a koan on the table, once logged.
    pub fn koan_no(&self, tracked: u64) -> Option<KoanNo> {
        self.links.get(&tracked).copied()
    }

    /// The koans on the table (tracker ids) that carry a mark in the books.
    pub fn marked_tracked(&self) -> Vec<u64> {
        self.links
            .iter()
            .filter(|(_, no)| {
                self.game
                    .koan(**no)
                    .is_some_and(|k| k.in_play && k.mark.is_some())
            })
            .map(|(t, _)| *t)
            .collect()
    }

    /// The tracked koan showing a logged koan, if it is on the table.
    pub fn tracked_of(&self, no: KoanNo) -> Option<u64> {
        self.links.iter().find(|(_, n)| **n == no).map(|(t, _)| *t)
    }

    fn say(&mut self, text: impl Into<String>) {
        self.messages.push(Message {
            text: text.into(),
            problem: false,
        });
        self.trim_messages();
    }

    /// Shows a problem in the console's log and returns it as the refusal.
    fn problem<T>(&mut self, text: impl Into<String>) -> Result<T, String> {
        let text = text.into();
        self.messages.push(Message {
            text: text.clone(),
            problem: true,
        });
        self.trim_messages();
        Err(text)
    }

    fn trim_messages(&mut self) {
        let excess = self.messages.len().saturating_sub(200);
        self.messages.drain(..excess);
    }

    /// Plays one move: logged, or refused with the reason in the console.
    fn play(&mut self, event: Event) -> Result<Vec<Note>, String> {
        match self.store.play(self.session, &mut self.game, &event) {
            Ok(outcome) => {
                let v = self.game.setup().map(|s| s.vocabulary).unwrap_or_default();
                self.say(narrate::event_line(&event, &outcome, v));
                for line in narrate::note_lines(&outcome, v, true) {
                    self.say(line);
                }
                Ok(outcome.notes)
            }
            Err(StoreError::Refused(e)) => self.problem(format!("refused: {e}")),
            Err(e) => self.problem(format!("the session log failed: {e}")),
        }
    }

    // ---- the feed ----

    /// Takes what the pipeline sent: a picture only, or an analysed frame.
    pub fn receive(&mut self, update: FeedUpdate) {
        match update {
            FeedUpdate::Picture(picture) => self.show_picture(picture),
            FeedUpdate::Analysed(feed) => self.update(feed),
        }
    }

    /// Takes a new camera picture: the koans, the books and the corrections stay as they are.
    pub fn show_picture(&mut self, update: PictureUpdate) {
        self.feed.show_picture(update);
    }

    /// Takes a new analysed frame: drops corrections of koans that changed, follows koans that
    /// left the table or were disturbed, and (auto Master) logs and marks new koans. A newer
    /// picture already shown stays (vision is behind the camera).
    pub fn update(&mut self, mut feed: TableFeed) {
        if let Some(shown) = &self.feed.picture
            && (feed.picture.is_none() || feed.picture_index < self.feed.picture_index)
        {
            feed.picture = Some(shown.clone());
            feed.picture_index = self.feed.picture_index;
        }
        self.feed = feed;
        let seen: BTreeMap<u64, String> = self
            .feed
            .koans
            .iter()
            .map(|k| (k.id, fingerprint(&k.scene)))
            .collect();
        let stale: Vec<u64> = self
            .corrected
            .iter()
            .filter(|(id, c)| seen.get(id) != Some(&c.seen_fingerprint))
            .map(|(id, _)| *id)
            .collect();
        for id in stale {
            self.corrected.remove(&id);
            self.say(format!(
                "koan on the table #{id} changed: its corrections no longer apply"
            ));
        }
        let before = self.regroups.len();
        self.regroups
            .retain(|r| r.seen.iter().all(|(id, f)| seen.get(id) == Some(f)));
        if self.regroups.len() < before {
            self.say("a regrouped koan changed: the camera's grouping applies again");
        }
        if self.feed.paused.is_some() {
            return;
        }
        self.follow_logged_koans();
        if self.auto_master {
            self.auto_step();
        }
    }

    /// Katsu when a marked koan changes, restored when it is back as logged, break-down when
    /// a logged koan leaves the table.
    fn follow_logged_koans(&mut self) {
        let links: Vec<(u64, KoanNo)> = self.links.iter().map(|(t, n)| (*t, *n)).collect();
        for (tracked, no) in links {
            let Some(logged) = self.game.koan(no).cloned() else {
                continue;
            };
            if !logged.in_play {
                self.links.remove(&tracked);
                continue;
            }
            let Some(view) = self.koan_view(tracked) else {
                if self.game.phase() != &Phase::Initial || logged.mark.is_some() {
                    let _ = self.play(Event::BreakDown { koans: vec![no] });
                }
                self.links.remove(&tracked);
                continue;
            };
            if view.state != KoanState::Built || logged.mark.is_none() {
                continue;
            }
            let same = fingerprint(&view.scene) == fingerprint(&logged.scene);
            if !same && !logged.disturbed {
                let _ = self.play(Event::Katsu {
                    koan: no,
                    disturbed: Some(view.scene.clone()),
                });
            } else if same && logged.disturbed {
                let _ = self.play(Event::Restored {
                    koan: no,
                    scene: Some(view.scene.clone()),
                });
            }
        }
    }

    /// koanscope as the Master: every built koan is logged, called, marked as the rule says
    /// and the turn passed, so the books follow the table with nobody at the console.
    fn auto_step(&mut self) {
        let fresh: Vec<u64> = self
            .feed
            .koans
            .iter()
            .filter(|k| k.state == KoanState::Built && !self.links.contains_key(&k.id))
            .map(|k| k.id)
            .collect();
        for tracked in fresh {
            let Some(view) = self.koan_view(tracked) else {
                continue;
            };
            let Some((mark, _)) = view.suggested.clone() else {
                continue;
            };
            let built = match self.game.phase().clone() {
                Phase::Initial => {
                    // One white and one black initial koan: a second koan of the same mark
                    // waits for a turn.
                    let has = self.game.koans().iter().any(|k| k.mark == Some(mark));
                    if !has {
                        let _ = self.initial_koan(tracked, mark);
                    }
                    false
                }
                Phase::Guessing { student } => {
                    self.play(Event::Pass { student }).is_ok() && self.build(tracked).is_ok()
                }
                Phase::Build { .. } => self.build(tracked).is_ok(),
                _ => false,
            };
            if built {
                let _ = self.call_master();
                let _ = self.mark(mark);
            }
        }
    }

    // ---- reading ----

    /// Every koan on the table, as the console shows it: the camera's koans with the Master's
    /// corrections, then the Master's merges and splits.
    pub fn koan_views(&self) -> Vec<KoanView> {
        let mut views: Vec<KoanView> = self
            .feed
            .koans
            .iter()
            .filter_map(|k| self.seen_view(k.id))
            .collect();
        for r in &self.regroups {
            self.apply_regroup(&mut views, r.regroup);
        }
        views
    }

    /// A view's document changed: read it again (relations, the rule's mark, near calls).
    fn refresh(&self, view: &mut KoanView) {
        if let Ok(scene) = self.services.regroup(&view.scene) {
            view.scene = scene;
        }
        view.suggested = self.game.rule_mark(&view.scene).ok();
        view.hidden = self.hidden_change(&view.scene, view.suggested.as_ref());
        view.judgment_calls = view
            .scene
            .koans
            .first()
            .map(|k| k.judgment_calls.clone())
            .unwrap_or_default();
        view.no = self.links.get(&view.tracked).copied();
        let logged = view.no.and_then(|n| self.game.koan(n));
        view.mark = logged.and_then(|k| k.mark);
        view.disturbed = logged.is_some_and(|k| k.disturbed);
    }

    fn apply_regroup(&self, views: &mut Vec<KoanView>, regroup: Regroup) {
        let at = |views: &Vec<KoanView>, id: u64| views.iter().position(|v| v.tracked == id);
        match regroup {
            Regroup::Merge { into, from } => {
                let (Some(i), Some(f)) = (at(views, into), at(views, from)) else {
                    return;
                };
                let Some(scene) = union(&views[i].scene, &views[f].scene) else {
                    return;
                };
                let from_view = views.remove(f);
                let i = if f < i { i - 1 } else { i };
                let view = &mut views[i];
                view.scene = scene;
                view.sources.extend(from_view.sources);
                view.corrections.extend(from_view.corrections);
                view.corrections
                    .push(format!("koan #{from} is part of this koan"));
                if from_view.state != KoanState::Built {
                    view.state = from_view.state;
                }
                let mut view = views[i].clone();
                self.refresh(&mut view);
                views[i] = view;
            }
            Regroup::Split { koan, piece } => {
                let Some(i) = at(views, koan) else {
                    return;
                };
                let Some((rest, single)) = split(&views[i].scene, piece) else {
                    return;
                };
                let mut alone = views[i].clone();
                alone.tracked = split_id(koan, piece);
                alone.scene = single;
                alone.corrections = vec![format!("piece {piece} split off koan #{koan}")];
                self.refresh(&mut alone);
                let mut view = views[i].clone();
                view.scene = rest;
                view.corrections
                    .push(format!("piece {piece} is a koan of its own"));
                self.refresh(&mut view);
                views[i] = view;
                views.insert(i + 1, alone);
            }
        }
    }

    /// Where a piece hidden under one of the koan's pieces would make the secret rule mark it
    /// otherwise than `suggested`: the first such piece, size and colour, in words for the
    /// Master. Remembered by document and rule.
    fn hidden_change(&self, scene: &Scene, suggested: Option<&(Mark, String)>) -> Option<String> {
        let (mark, _) = suggested?;
        let key = {
            let mut h = DefaultHasher::new();
            self.game.secret_rule().hash(&mut h);
            for p in &scene.pieces {
                (p.id, p.koan, p.color, p.size).hash(&mut h);
                let (t, q) = (
                    &p.table_from_piece.translation,
                    &p.table_from_piece.rotation,
                );
                t.vector
                    .iter()
                    .chain(q.coords.iter())
                    .for_each(|v| v.to_bits().hash(&mut h));
            }
            h.finish()
        };
        if let Some(known) = self.hidden_changes.borrow().get(&key) {
            return known.clone();
        }
        let change = self
            .services
            .hidden_pieces(scene)
            .into_iter()
            .find_map(|h| {
                let (other, reason) = self.game.rule_mark(&h.scene).ok()?;
                let outer = scene.piece(h.under)?;
                (other != *mark).then(|| {
                    format!(
                        "lift #{} {} {}: a {} {} hidden under it would make it {} ({reason})",
                        outer.id,
                        outer.color.word(),
                        outer.size.word(),
                        h.color.word(),
                        h.size.word(),
                        other.word(),
                    )
                })
            });
        let mut known = self.hidden_changes.borrow_mut();
        if known.len() >= HIDDEN_CHANGES_KEPT {
            known.clear();
        }
        known.insert(key, change.clone());
        change
    }

    /// The koan whose view shows tracked koan `tracked` after a merge, if it was merged.
    pub fn merged_into(&self, tracked: u64) -> Option<u64> {
        self.regroups.iter().find_map(|r| match r.regroup {
            Regroup::Merge { into, from } if from == tracked => Some(into),
            _ => None,
        })
    }

    pub fn koan_view(&self, tracked: u64) -> Option<KoanView> {
        self.koan_views().into_iter().find(|v| v.tracked == tracked)
    }

    /// One tracked koan as the camera saw it, with the Master's corrections.
    fn seen_view(&self, tracked: u64) -> Option<KoanView> {
        let koan = self.feed.koan(tracked)?;
        let corrected = self.corrected.get(&tracked);
        let scene = corrected_scene(koan, corrected);
        let no = self.links.get(&tracked).copied();
        let logged = no.and_then(|n| self.game.koan(n));
        let suggested = self.game.rule_mark(&scene).ok();
        let hidden = self.hidden_change(&scene, suggested.as_ref());
        let judgment_calls = scene
            .koans
            .first()
            .map(|k| k.judgment_calls.clone())
            .unwrap_or_default();
        Some(KoanView {
            tracked,
            state: koan.state,
            corrections: corrected
                .map(|c| {
                    let mut seen = koan.scene.clone();
                    c.corrections
                        .iter()
                        .map(|x| {
                            let text = x.describe(&seen);
                            let _ = x.apply(&mut seen);
                            text
                        })
                        .collect()
                })
                .unwrap_or_default(),
            scene,
            no,
            mark: logged.and_then(|k| k.mark),
            suggested,
            judgment_calls,
            hidden,
            disturbed: logged.is_some_and(|k| k.disturbed),
            sources: vec![tracked],
        })
    }

    // ---- the Master's moves ----

    fn scene_of(&self, tracked: u64) -> Result<Scene, String> {
        self.koan_view(tracked)
            .map(|v| v.scene)
            .ok_or_else(|| format!("koan #{tracked} is no longer on the table"))
    }

    fn link(&mut self, tracked: u64) {
        let no = self.game.koans().len() as KoanNo;
        self.links.insert(tracked, no);
    }

    fn unlogged(&self, tracked: u64) -> Result<(), String> {
        match self.links.get(&tracked) {
            Some(no) => Err(format!("that koan is already koan {no} in the books")),
            None => Ok(()),
        }
    }

    /// One of the two initial koans, built by the Master, with its mark.
    pub fn initial_koan(&mut self, tracked: u64, mark: Mark) -> Result<(), String> {
        self.unlogged(tracked)?;
        let scene = self.scene_of(tracked)?;
        let judgment = self.against_rule(&scene, mark);
        self.play(Event::InitialKoan {
            mark,
            scene,
            judgment,
        })?;
        self.link(tracked);
        Ok(())
    }

    /// The koan the student whose turn it is has built.
    pub fn build(&mut self, tracked: u64) -> Result<(), String> {
        self.unlogged(tracked)?;
        let scene = self.scene_of(tracked)?;
        let student = self
            .game
            .turn()
            .map(str::to_string)
            .ok_or_else(|| format!("nobody is to build now: {}", self.game.describe_phase()))?;
        self.play(Event::Built { student, scene })?;
        self.link(tracked);
        Ok(())
    }

    fn turn_student(&self) -> Result<String, String> {
        self.game
            .turn()
            .map(str::to_string)
            .ok_or_else(|| self.game.describe_phase())
    }

    pub fn call_master(&mut self) -> Result<(), String> {
        let student = self.turn_student()?;
        self.play(Event::CallMaster { student }).map(|_| ())
    }

    pub fn call_mondo(&mut self) -> Result<(), String> {
        let student = self.turn_student()?;
        self.play(Event::CallMondo { student }).map(|_| ())
    }

    /// A student's hidden Mondo answer.
    pub fn answer(&mut self, student: &str, answer: Mark) -> Result<(), String> {
        self.play(Event::Answer {
            student: student.into(),
            answer,
        })
        .map(|_| ())
    }

    fn against_rule(&self, scene: &Scene, mark: Mark) -> bool {
        self.game
            .rule_mark(scene)
            .is_ok_and(|(rule_says, _)| rule_says != mark)
    }

    /// The Master marks the koan waiting for its mark. Against the rule's reading it is logged
    /// as the Master's judgment call.
    pub fn mark(&mut self, mark: Mark) -> Result<(), String> {
        let judgment = match self.game.phase() {
            Phase::Marking { koan, .. } => self
                .game
                .koan(*koan)
                .is_some_and(|k| self.against_rule(&k.scene, mark)),
            _ => false,
        };
        self.play(Event::Marked { mark, judgment }).map(|_| ())
    }

    pub fn guess(&mut self, student: &str, text: &str) -> Result<(), String> {
        self.suggestion = None;
        self.play(Event::Guess {
            student: student.into(),
            text: text.into(),
        })
        .map(|_| ())
    }

    pub fn change_guess(&mut self, text: &str) -> Result<(), String> {
        self.play(Event::ChangeGuess { text: text.into() })
            .map(|_| ())
    }

    pub fn retract(&mut self) -> Result<(), String> {
        self.suggestion = None;
        self.play(Event::Retract).map(|_| ())
    }

    pub fn official(&mut self) -> Result<(), String> {
        self.play(Event::Official).map(|_| ())
    }

    pub fn pass(&mut self) -> Result<(), String> {
        let student = self.turn_student()?;
        self.play(Event::Pass { student }).map(|_| ())
    }

    pub fn guess_stands(&mut self) -> Result<(), String> {
        self.suggestion = None;
        self.play(Event::GuessStands).map(|_| ())
    }

    /// Asks the rule engine for a counter-example to the official guess, to show the Master.
    pub fn suggest_counterexample(&mut self) -> Result<(), String> {
        match self.services.counterexample(&self.game) {
            Ok(Some(s)) => {
                self.say(format!(
                    "counter-example to build ({}): {}",
                    s.mark, s.words
                ));
                self.suggestion = Some(s);
                Ok(())
            }
            Ok(None) => {
                self.suggestion = None;
                let text = "no counter-example found: the guess may be right".to_string();
                self.say(text);
                Ok(())
            }
            Err(e) => self.problem(format!("counter-example search failed: {e}")),
        }
    }

    /// The Master built a counter-example on the table: it is logged with its mark.
    pub fn counter_example(&mut self, tracked: u64, mark: Mark) -> Result<(), String> {
        self.unlogged(tracked)?;
        let scene = self.scene_of(tracked)?;
        let judgment = self.against_rule(&scene, mark);
        self.play(Event::CounterExample {
            mark,
            scene,
            judgment,
        })?;
        self.link(tracked);
        self.suggestion = None;
        Ok(())
    }

    /// A koan leaves the table (its stones go back to the Master).
    pub fn break_down(&mut self, no: KoanNo) -> Result<(), String> {
        self.play(Event::BreakDown { koans: vec![no] })?;
        self.links.retain(|_, n| *n != no);
        Ok(())
    }

    /// Fixes a koan marked by mistake.
    pub fn correct_mark(&mut self, no: KoanNo, mark: Mark) -> Result<(), String> {
        let judgment = self
            .game
            .koan(no)
            .is_some_and(|k| self.against_rule(&k.scene, mark));
        self.play(Event::Corrected {
            koan: no,
            mark,
            judgment,
        })
        .map(|_| ())
    }

    /// Takes back the last move.
    pub fn undo(&mut self) -> Result<(), String> {
        match self.store.undo_last(self.session) {
            Ok(game) => {
                self.game = game;
                let known = self.game.koans().len() as KoanNo;
                self.links.retain(|_, no| *no <= known);
                self.say("the last move was taken back");
                Ok(())
            }
            Err(e) => self.problem(format!("cannot undo: {e}")),
        }
    }

    /// The Master regroups koans: two koans are one, or a piece is a koan of its own. It stays
    /// while the koans concerned are seen unchanged, and is logged with the frame.
    pub fn regroup(&mut self, regroup: Regroup, frame_png: Option<Vec<u8>>) -> Result<(), String> {
        let before = self.koan_views();
        let (what, involved) = match regroup {
            Regroup::Merge { into, from } => (
                format!("koans #{into} and #{from} are one koan"),
                vec![into, from],
            ),
            Regroup::Split { koan, piece } => (
                format!("piece {piece} of koan #{koan} is a koan of its own"),
                vec![koan],
            ),
        };
        let seen_before: Vec<&KoanView> = before
            .iter()
            .filter(|v| involved.contains(&v.tracked))
            .collect();
        if seen_before.len() != involved.len() {
            return self.problem(format!(
                "cannot regroup: {what}: a koan is not on the table"
            ));
        }
        if let Some(v) = seen_before.iter().find(|v| v.no.is_some()) {
            return self.problem(format!(
                "cannot regroup koan #{}: it is already in the books; break it down first",
                v.tracked
            ));
        }
        let mut after = before.clone();
        self.apply_regroup(&mut after, regroup);
        if after == before {
            return self.problem(format!(
                "cannot regroup: {what}: the pieces do not allow it"
            ));
        }
        let sources: Vec<u64> = seen_before.iter().flat_map(|v| v.sources.clone()).collect();
        let seen: BTreeMap<u64, String> = sources
            .iter()
            .filter_map(|id| self.feed.koan(*id).map(|k| (*id, fingerprint(&k.scene))))
            .collect();
        let scenes = |views: &[KoanView]| {
            let mut all = Scene::default();
            for v in views
                .iter()
                .filter(|v| v.sources.iter().any(|s| sources.contains(s)))
            {
                // Numbered afresh: a piece split off keeps its koan's id in its own document.
                let id = all.koans.len() as u32;
                all.pieces
                    .extend(v.scene.pieces.iter().cloned().map(|mut p| {
                        p.koan = Some(id);
                        p
                    }));
                all.koans.extend(v.scene.koans.iter().cloned().map(|mut k| {
                    k.id = id;
                    k
                }));
            }
            all
        };
        let logged = LoggedCorrection {
            at_ms: now_ms(),
            koan: involved[0],
            what: what.clone(),
            seen: scenes(&before),
            corrected: scenes(&after),
            frame_png,
        };
        if let Err(e) = self.store.log_correction(self.session, &logged) {
            return self.problem(format!("the session log failed: {e}"));
        }
        self.regroups.push(Regrouped { regroup, seen });
        self.say(format!("regrouping logged with its frame: {what}"));
        Ok(())
    }

    /// Forgets the Master's regroupings of a koan: the camera's grouping applies again.
    pub fn ungroup(&mut self, view: u64) {
        let before = self.regroups.len();
        self.regroups.retain(|r| match r.regroup {
            Regroup::Merge { into, from } => into != view && from != view,
            Regroup::Split { koan, piece } => koan != view && split_id(koan, piece) != view,
        });
        if self.regroups.len() < before {
            self.say(format!("koan #{view}: the camera's grouping applies again"));
        }
    }

    /// The Master corrects what the camera saw of a koan. It stays with the koan while the
    /// camera sees it unchanged, and is logged with the frame (PNG) it was made on.
    pub fn correct(
        &mut self,
        tracked: u64,
        correction: Correction,
        frame_png: Option<Vec<u8>>,
    ) -> Result<(), String> {
        // A merged or split koan's piece is corrected in the koan the camera saw it in.
        let piece = match &correction {
            Correction::Color { piece, .. }
            | Correction::Size { piece, .. }
            | Correction::Orientation { piece, .. }
            | Correction::Grounded { piece, .. } => Some(*piece),
            Correction::Touching { a, .. } | Correction::Pointing { a, .. } => Some(*a),
        };
        let tracked = self
            .koan_view(tracked)
            .and_then(|v| {
                v.sources.into_iter().find(|s| {
                    self.feed
                        .koan(*s)
                        .is_some_and(|k| piece.is_some_and(|p| k.scene.piece(p).is_some()))
                })
            })
            .unwrap_or(tracked);
        let koan = self
            .feed
            .koan(tracked)
            .ok_or_else(|| format!("koan #{tracked} is no longer on the table"))?
            .clone();
        let seen_fingerprint = fingerprint(&koan.scene);
        let before = corrected_scene(&koan, self.corrected.get(&tracked));
        let mut after = before.clone();
        if let Err(e) = correction.apply(&mut after) {
            return self.problem(format!("correction refused: {e}"));
        }
        let what = correction.describe(&before);
        let logged = LoggedCorrection {
            at_ms: now_ms(),
            koan: tracked,
            what: what.clone(),
            seen: koan.scene.clone(),
            corrected: after,
            frame_png,
        };
        if let Err(e) = self.store.log_correction(self.session, &logged) {
            return self.problem(format!("the session log failed: {e}"));
        }
        self.corrected
            .entry(tracked)
            .or_insert_with(|| Corrected {
                seen_fingerprint,
                corrections: Vec::new(),
            })
            .corrections
            .push(correction);
        self.say(format!("correction logged with its frame: {what}"));
        Ok(())
    }

    /// The current picture, for logging a correction with its frame.
    pub fn picture(&self) -> Option<&Picture> {
        self.feed.picture.as_deref()
    }
}
