//! `koanscope game ...`: set up a game and play it from a script, keeping the books in the
//! session store. Also home of what the session commands share (the store's location, reading
//! koans written in a line, koanscope's own search for koans).

pub mod finder;
pub mod koan_text;
pub mod script;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::Subcommand;
use koanscope_game::master::{draw_rule, master_move};
use koanscope_game::narrate::{event_line, note_lines};
use koanscope_game::{
    Event, Game, Mode, RuleSource, Secret, SessionId, Setup, Stones, Store, StoreError, Vocabulary,
};
use koanscope_rules::{Difficulty, Library, parse_rule};
use koanscope_scene::Mark;

use finder::Finder;
use koan_text::koan_from_text;
use script::{Action, Line};

/// Where the sessions are kept.
#[derive(clap::Args, Clone)]
pub struct DbArg {
    /// The session store (SQLite). Default: $XDG_DATA_HOME/koanscope/sessions.sqlite.
    #[arg(long)]
    pub db: Option<PathBuf>,
}

impl DbArg {
    pub fn path(&self) -> anyhow::Result<PathBuf> {
        if let Some(p) = &self.db {
            return Ok(p.clone());
        }
        let data = std::env::var_os("XDG_DATA_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
            .context("no --db given and neither XDG_DATA_HOME nor HOME is set")?;
        Ok(data.join("koanscope").join("sessions.sqlite"))
    }

    pub fn open(&self) -> anyhow::Result<Store> {
        let path = self.path()?;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("creating the folder {}", dir.display()))?;
        }
        Store::open(&path).with_context(|| format!("opening the session store {}", path.display()))
    }
}

#[derive(Subcommand)]
pub enum GameCommand {
    /// Set up a game: players, mode, the secret rule (committed as a salted hash).
    New(NewArgs),
    /// Play moves from a script (a new game, or one already in the store).
    #[command(after_long_help = script::HELP)]
    Play(PlayArgs),
}

#[derive(clap::Args)]
pub struct NewArgs {
    /// The Master's name ("koanscope" makes koanscope the Master).
    #[arg(long)]
    pub master: String,
    /// The students in turn order, comma-separated.
    #[arg(long, value_delimiter = ',', required = true)]
    pub students: Vec<String>,
    /// The secret rule, typed.
    #[arg(long, conflicts_with = "library")]
    pub rule: Option<String>,
    /// Draw the secret rule from the library at this difficulty (easy, medium, hard).
    #[arg(long)]
    pub library: Option<Difficulty>,
    /// Seed for the library draw.
    #[arg(long)]
    pub seed: Option<u64>,
    #[arg(long, default_value = "standard")]
    pub mode: Mode,
    /// Words to show: zen (Master, Mondo, stones) or modern (Moderator, Tell/Quiz, tokens).
    #[arg(long, default_value = "zen")]
    pub vocab: Vocabulary,
    /// A name to find the session by.
    #[arg(long)]
    pub name: Option<String>,
    /// Marking stones of each colour (default: 20 less one per student).
    #[arg(long)]
    pub marking: Option<u32>,
    /// Guessing stones in front of the Master (default 20).
    #[arg(long)]
    pub guessing: Option<u32>,
    /// Guessing stones each student starts with (default 0).
    #[arg(long)]
    pub initial_guessing: Option<u32>,
    /// Show the secret rule (the Master's eyes only).
    #[arg(long)]
    pub show_rule: bool,
    #[command(flatten)]
    pub db: DbArg,
}

#[derive(clap::Args)]
pub struct PlayArgs {
    /// The script (see --help for the language).
    #[arg(long)]
    pub script: PathBuf,
    /// Continue this session (number or name) instead of starting one with a `new` line.
    #[arg(long)]
    pub session: Option<String>,
    /// Words to show (default: the session's).
    #[arg(long)]
    pub vocab: Option<Vocabulary>,
    /// Also show what the secret rule says of each koan (the Master's console).
    #[arg(long)]
    pub master_view: bool,
    #[command(flatten)]
    pub db: DbArg,
}

pub fn run(cmd: GameCommand) -> anyhow::Result<()> {
    match cmd {
        GameCommand::New(args) => new(args),
        GameCommand::Play(args) => play(args),
    }
}

/// What a new game needs, from the command line or a script's `new` line.
struct NewSpec {
    name: Option<String>,
    master: String,
    students: Vec<String>,
    mode: Mode,
    vocab: Vocabulary,
    rule: Option<String>,
    library: Option<Difficulty>,
    seed: Option<u64>,
    salt: Option<String>,
    marking: Option<u32>,
    guessing: Option<u32>,
    initial_guessing: Option<u32>,
}

impl NewSpec {
    fn from_pairs(kv: &BTreeMap<String, String>) -> anyhow::Result<NewSpec> {
        const KNOWN: &[&str] = &[
            "name",
            "master",
            "students",
            "mode",
            "vocab",
            "rule",
            "library",
            "seed",
            "salt",
            "marking",
            "guessing",
            "initial-guessing",
        ];
        if let Some(k) = kv.keys().find(|k| !KNOWN.contains(&k.as_str())) {
            bail!("{k:?} is not a set-up key ({})", KNOWN.join(", "));
        }
        let num = |k: &str| -> anyhow::Result<Option<u32>> {
            kv.get(k)
                .map(|v| {
                    v.parse()
                        .with_context(|| format!("{k}={v:?} is not a number"))
                })
                .transpose()
        };
        Ok(NewSpec {
            name: kv.get("name").cloned(),
            master: kv
                .get("master")
                .cloned()
                .context("the set-up needs master=NAME")?,
            students: kv
                .get("students")
                .context("the set-up needs students=A,B,...")?
                .split(',')
                .map(|s| s.trim().to_string())
                .collect(),
            mode: kv
                .get("mode")
                .map(|m| m.parse().map_err(anyhow::Error::msg))
                .transpose()?
                .unwrap_or(Mode::Standard),
            vocab: kv
                .get("vocab")
                .map(|m| m.parse().map_err(anyhow::Error::msg))
                .transpose()?
                .unwrap_or_default(),
            rule: kv.get("rule").cloned(),
            library: kv
                .get("library")
                .map(|m| m.parse().map_err(anyhow::Error::msg))
                .transpose()?,
            seed: kv
                .get("seed")
                .map(|v| v.parse().with_context(|| format!("seed={v:?}")))
                .transpose()?,
            salt: kv.get("salt").cloned(),
            marking: num("marking")?,
            guessing: num("guessing")?,
            initial_guessing: num("initial-guessing")?,
        })
    }
}

/// The secret (typed or drawn) and where it came from; the rule must be one the engine reads.
fn choose_rule(
    rule: Option<&str>,
    library: Option<Difficulty>,
    seed: Option<u64>,
    salt: Option<&str>,
) -> anyhow::Result<(Secret, RuleSource)> {
    let (text, source) = match (rule, library) {
        (Some(_), Some(_)) => bail!("give the rule or a library difficulty, not both"),
        (Some(text), None) => (text.to_string(), RuleSource::Typed),
        (None, Some(difficulty)) => {
            let library = Library::builtin().context("loading the rule library")?;
            let drawn = draw_rule(&library, difficulty, seed)
                .with_context(|| format!("the library has no {difficulty} rule"))?;
            (drawn.text.clone(), RuleSource::Library { difficulty })
        }
        (None, None) => {
            bail!("the game needs a secret rule: rule=\"...\" or library=easy|medium|hard")
        }
    };
    parse_rule(&text).with_context(|| format!("reading the secret rule {text:?}"))?;
    let secret = match salt {
        Some(s) => Secret::with_salt(text, s),
        None => Secret::new(text),
    };
    Ok((secret, source))
}

/// A session being played: the store, the game, and how to show it.
struct Table {
    store: Store,
    session: Option<SessionId>,
    game: Game,
    vocab: Vocabulary,
    master_view: bool,
    finder: Finder,
    base_dir: PathBuf,
}

impl Table {
    fn session(&self) -> anyhow::Result<SessionId> {
        self.session
            .context("no game yet: start the script with a `new` line, or pass --session")
    }

    fn show(&self, seq: u64, event: &Event, outcome: &koanscope_game::Outcome) {
        println!("[{seq}] {}", event_line(event, outcome, self.vocab));
        for line in note_lines(outcome, self.vocab, self.master_view) {
            println!("      {line}");
        }
    }

    /// Plays one event; a refusal comes back as `StoreError::Refused`.
    fn play(&mut self, event: Event) -> Result<(), StoreError> {
        let session = self
            .session
            .ok_or_else(|| StoreError::NoSession("(none started)".into()))?;
        let outcome = self.store.play(session, &mut self.game, &event)?;
        self.show(self.game.events_applied() - 1, &event, &outcome);
        Ok(())
    }

    /// When koanscope is the Master, it makes every move that is the Master's.
    fn master_moves(&mut self) -> anyhow::Result<()> {
        let koanscope = self.game.setup().is_some_and(|s| s.koanscope_master);
        if !koanscope {
            return Ok(());
        }
        if matches!(self.game.phase(), koanscope_game::Phase::Initial) {
            let rule = self
                .game
                .secret_rule()
                .cloned()
                .context("the secret rule is unknown")?;
            for mark in [Mark::White, Mark::Black] {
                if self.game.koans().iter().any(|k| k.mark == Some(mark)) {
                    continue;
                }
                let scene = self.finder.koan_marked(&rule, mark).with_context(|| {
                    format!("koanscope found no small koan the rule marks {mark}")
                })?;
                self.play(Event::InitialKoan {
                    mark,
                    scene,
                    judgment: false,
                })?;
            }
        }
        while let Some(event) = master_move(&self.game, &self.finder)? {
            self.play(event)?;
        }
        if matches!(self.game.phase(), koanscope_game::Phase::Over)
            && !self
                .game
                .revealed()
                .iter()
                .any(|r| r.round == self.game.round())
        {
            self.reveal(None)?;
        }
        Ok(())
    }

    fn start(&mut self, spec: NewSpec) -> anyhow::Result<()> {
        if self.session.is_some() {
            bail!("a game is already being played; one `new` per script");
        }
        let (secret, rule_source) = choose_rule(
            spec.rule.as_deref(),
            spec.library,
            spec.seed,
            spec.salt.as_deref(),
        )?;
        let standard = Stones::standard(spec.students.len());
        let setup = Setup {
            mode: spec.mode,
            koanscope_master: spec.master == "koanscope",
            master: spec.master,
            stones: Stones {
                marking: spec.marking.unwrap_or(standard.marking),
                guessing: spec.guessing.unwrap_or(standard.guessing),
                initial_guessing: spec.initial_guessing.unwrap_or(standard.initial_guessing),
            },
            students: spec.students,
            vocabulary: spec.vocab,
            rule_source,
            commitment: secret.commitment(),
        };
        let (id, game) = self
            .store
            .start(spec.name.as_deref(), &setup, &secret)
            .context("starting the session")?;
        self.session = Some(id);
        self.game = game;
        self.vocab = spec.vocab;
        let name = spec.name.map(|n| format!(" ({n})")).unwrap_or_default();
        println!("Session {id}{name}");
        let created = Event::Created(setup);
        self.show(0, &created, &koanscope_game::Outcome::default());
        Ok(())
    }

    fn scene(&self, koan: &str) -> anyhow::Result<koanscope_scene::Scene> {
        koan_from_text(koan, &self.base_dir)
    }

    fn reveal(&mut self, text: Option<String>) -> anyhow::Result<()> {
        let session = self.session()?;
        let round = self.game.round();
        let (_, secret) = self
            .store
            .secrets(session)?
            .into_iter()
            .find(|(r, _)| *r == round)
            .context("the store holds no secret for this round")?;
        self.play(Event::Reveal {
            text: text.unwrap_or(secret.text),
            salt: secret.salt,
        })?;
        Ok(())
    }

    fn next_round(&mut self, kv: &BTreeMap<String, String>) -> anyhow::Result<()> {
        let session = self.session()?;
        let library = kv
            .get("library")
            .map(|m| m.parse().map_err(anyhow::Error::msg))
            .transpose()?;
        let seed = kv
            .get("seed")
            .map(|v| v.parse())
            .transpose()
            .context("seed")?;
        let (secret, rule_source) = choose_rule(
            kv.get("rule").map(String::as_str),
            library,
            seed,
            kv.get("salt").map(String::as_str),
        )?;
        let event = Event::NextRound {
            rule_source,
            commitment: secret.commitment(),
        };
        let outcome =
            self.store
                .play_with_secret(session, &mut self.game, &event, Some((1, &secret)))?;
        self.show(self.game.events_applied() - 1, &event, &outcome);
        Ok(())
    }

    /// One script line. A refused move comes back as `StoreError::Refused` inside the error.
    fn line(&mut self, action: &Action) -> anyhow::Result<()> {
        let event = match action {
            Action::New(kv) => return self.start(NewSpec::from_pairs(kv)?),
            Action::NextRound(kv) => return self.next_round(kv),
            Action::Reveal { text } => return self.reveal(text.clone()),
            Action::CounterAuto => {
                let event = master_move(&self.game, &self.finder)?
                    .filter(|e| matches!(e, Event::CounterExample { .. } | Event::GuessStands))
                    .context("there is no official guess to answer")?;
                return Ok(self.play(event)?);
            }
            Action::Initial {
                mark,
                koan,
                judgment,
            } => Event::InitialKoan {
                mark: *mark,
                scene: self.scene(koan)?,
                judgment: *judgment,
            },
            Action::Build { student, koan } => Event::Built {
                student: student.clone(),
                scene: self.scene(koan)?,
            },
            Action::CallMaster { student } => Event::CallMaster {
                student: student.clone(),
            },
            Action::CallMondo { student } => Event::CallMondo {
                student: student.clone(),
            },
            Action::Answer { student, mark } => Event::Answer {
                student: student.clone(),
                answer: *mark,
            },
            Action::Mark { mark, judgment } => {
                let mark = match mark {
                    Some(m) => *m,
                    None => {
                        let koanscope_game::Phase::Marking { koan, .. } = self.game.phase() else {
                            bail!(
                                "no koan is waiting for its mark ({})",
                                self.game.describe_phase()
                            );
                        };
                        let k = self
                            .game
                            .koan(*koan)
                            .context("the koan is not in the books")?;
                        self.game.rule_mark(&k.scene)?.0
                    }
                };
                Event::Marked {
                    mark,
                    judgment: *judgment,
                }
            }
            Action::Guess { student, text } => Event::Guess {
                student: student.clone(),
                text: text.clone(),
            },
            Action::Change { text } => Event::ChangeGuess { text: text.clone() },
            Action::Retract => Event::Retract,
            Action::Official => Event::Official,
            Action::Counter {
                mark,
                koan,
                judgment,
            } => Event::CounterExample {
                mark: *mark,
                scene: self.scene(koan)?,
                judgment: *judgment,
            },
            Action::Stands => Event::GuessStands,
            Action::Pass { student } => Event::Pass {
                student: student.clone(),
            },
            Action::Break { koans } => Event::BreakDown {
                koans: koans.clone(),
            },
            Action::Katsu { koan, scene } => Event::Katsu {
                koan: *koan,
                disturbed: scene.as_deref().map(|s| self.scene(s)).transpose()?,
            },
            Action::Restore { koan, scene } => Event::Restored {
                koan: *koan,
                scene: scene.as_deref().map(|s| self.scene(s)).transpose()?,
            },
            Action::Correct {
                koan,
                mark,
                judgment,
            } => Event::Corrected {
                koan: *koan,
                mark: *mark,
                judgment: *judgment,
            },
            Action::Guidance => Event::Guidance,
            Action::Guide { mark, koan } => Event::GuidanceKoan {
                mark: *mark,
                scene: self.scene(koan)?,
                judgment: false,
            },
            Action::Surrender { student } => Event::Surrender {
                student: student.clone(),
            },
        };
        self.session()?;
        Ok(self.play(event)?)
    }
}

fn new(args: NewArgs) -> anyhow::Result<()> {
    let store = args.db.open()?;
    let mut table = Table {
        store,
        session: None,
        game: Game::new(),
        vocab: args.vocab,
        master_view: false,
        finder: Finder::default(),
        base_dir: PathBuf::from("."),
    };
    let drawn_by_person = args.library.is_some() && args.master != "koanscope";
    table.start(NewSpec {
        name: args.name,
        master: args.master,
        students: args.students,
        mode: args.mode,
        vocab: args.vocab,
        rule: args.rule,
        library: args.library,
        seed: args.seed,
        salt: None,
        marking: args.marking,
        guessing: args.guessing,
        initial_guessing: args.initial_guessing,
    })?;
    if args.show_rule || drawn_by_person {
        if let Some(s) = table.game.secret() {
            println!("Secret rule (the Master's eyes only): {}", s.text);
        }
    }
    table.master_moves()
}

fn refused(err: &anyhow::Error) -> Option<&koanscope_game::GameError> {
    err.chain()
        .find_map(|e| match e.downcast_ref::<StoreError>() {
            Some(StoreError::Refused(g)) => Some(g),
            _ => e.downcast_ref::<koanscope_game::GameError>(),
        })
}

fn play(args: PlayArgs) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(&args.script)
        .with_context(|| format!("reading the script {}", args.script.display()))?;
    let lines =
        script::parse(&text).with_context(|| format!("in the script {}", args.script.display()))?;
    let store = args.db.open()?;
    let (session, game) = match &args.session {
        Some(key) => {
            let id = store.find(key)?;
            let game = store
                .resume(id)
                .with_context(|| format!("resuming session {key}"))?;
            (Some(id), game)
        }
        None => (None, Game::new()),
    };
    let vocab = args
        .vocab
        .or_else(|| game.setup().map(|s| s.vocabulary))
        .unwrap_or_default();
    let mut table = Table {
        store,
        session,
        game,
        vocab,
        master_view: args.master_view,
        finder: Finder::default(),
        base_dir: args
            .script
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default(),
    };
    if let Some(id) = session {
        println!(
            "Session {id} resumed after {} events: {}",
            table.game.events_applied(),
            table.game.describe_phase()
        );
    }
    for Line {
        number,
        text,
        refused: expect_refusal,
        action,
    } in &lines
    {
        let result = table.line(action);
        if args.vocab.is_none()
            && let Some(setup) = table.game.setup()
            && matches!(action, Action::New(_))
        {
            table.vocab = setup.vocabulary;
        }
        match (result, expect_refusal) {
            (Ok(()), false) => {}
            (Ok(()), true) => bail!(
                "line {number}: {text}\nthis move was expected to be refused, but it was accepted"
            ),
            (Err(e), true) if refused(&e).is_some() => {
                if let Some(g) = refused(&e) {
                    println!("      refused, as expected: {}", g.describe(table.vocab));
                }
            }
            (Err(e), _) => {
                let at = format!("line {number} of {}: {text}", args.script.display());
                // A refused move is told in the game's words; anything else keeps its chain.
                return Err(match refused(&e) {
                    Some(g) => anyhow::anyhow!("{at}: {}", g.describe(table.vocab)),
                    None => e.context(at),
                });
            }
        }
        table
            .master_moves()
            .with_context(|| format!("koanscope's move after line {number}"))?;
    }
    if let Some(id) = table.session {
        println!(
            "Session {id}: {}",
            table.game.describe_phase_in(table.vocab)
        );
        print_stones(&table.game, table.vocab);
    }
    Ok(())
}

/// The stones in front of each student.
pub fn print_stones(game: &Game, vocab: Vocabulary) {
    if game.mode() != Mode::Standard {
        return;
    }
    let w = vocab.words();
    let list: Vec<String> = game
        .students()
        .iter()
        .map(|s| {
            let out = if s.surrendered { " (surrendered)" } else { "" };
            format!("{} {}{out}", s.name, s.guessing_stones)
        })
        .collect();
    println!("{}: {}", w.guessing_stones, list.join(", "));
}
