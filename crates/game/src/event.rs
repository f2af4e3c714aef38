//! The events of a game: what the books record, one line each, in order. The state of a game is
//! the fold of its events ([`crate::Game::apply`]), so a log is the whole game.

use koanscope_rules::Difficulty;
use koanscope_scene::{Mark, Scene};
use serde::{Deserialize, Serialize};

use crate::koan::{opt_scene_doc, scene_doc};
use crate::vocab::Vocabulary;

/// How the game is played.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// A Master and two or more students, with Mondo and guessing stones.
    Standard,
    /// Two players (2017 text): one marks, one solves; no quizzes, no guessing stones.
    Puzzle,
    /// Two rounds of Puzzle Mode with the roles swapped; the lower score wins (2017 text).
    HeadToHead,
}

impl Mode {
    pub fn word(self) -> &'static str {
        match self {
            Mode::Standard => "standard",
            Mode::Puzzle => "puzzle",
            Mode::HeadToHead => "head-to-head",
        }
    }
}

impl std::str::FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Mode, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "standard" => Ok(Mode::Standard),
            "puzzle" => Ok(Mode::Puzzle),
            "head-to-head" | "headtohead" | "h2h" => Ok(Mode::HeadToHead),
            other => Err(format!(
                "unknown mode {other:?} (standard, puzzle or head-to-head)"
            )),
        }
    }
}

/// Stones at the start. The booklet's set has 20 white, 20 black and 20 guessing stones; each
/// student takes one white and one black as answering stones, the rest are marking stones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stones {
    /// Marking stones of each colour in front of the Master.
    pub marking: u32,
    /// Guessing stones in front of the Master.
    pub guessing: u32,
    /// Guessing stones each student starts with (0 in the rules; a house rule may give one).
    pub initial_guessing: u32,
}

impl Stones {
    /// The booklet's counts for this many students.
    pub fn standard(students: usize) -> Stones {
        Stones {
            marking: 20u32.saturating_sub(students as u32),
            guessing: 20,
            initial_guessing: 0,
        }
    }
}

/// Where the secret rule came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum RuleSource {
    /// Typed by the Master.
    Typed,
    /// Drawn from the rule library at a difficulty (the name stays secret until the reveal).
    Library {
        #[serde(with = "difficulty_word")]
        difficulty: Difficulty,
    },
}

/// Difficulty as its word ("easy", "medium", "hard").
mod difficulty_word {
    use super::*;
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(d: &Difficulty, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(d.word())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Difficulty, D::Error> {
        Difficulty::deserialize(d)
    }
}

/// Everything fixed when the game starts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Setup {
    pub mode: Mode,
    pub master: String,
    /// In turn order; the first goes first.
    pub students: Vec<String>,
    pub stones: Stones,
    pub vocabulary: Vocabulary,
    /// koanscope is the Master: it marks koans and builds counter-examples itself.
    #[serde(default)]
    pub koanscope_master: bool,
    pub rule_source: RuleSource,
    /// The salted hash of the secret rule, shown to everyone.
    pub commitment: String,
}

/// One thing that happened at the table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum Event {
    /// The game is set up and the rule committed.
    Created(Setup),
    /// The Master builds and marks one of the two initial koans.
    InitialKoan {
        mark: Mark,
        #[serde(with = "scene_doc")]
        scene: Scene,
        #[serde(default)]
        judgment: bool,
    },
    /// The student whose turn it is builds a koan.
    Built {
        student: String,
        #[serde(with = "scene_doc")]
        scene: Scene,
    },
    /// "Master" ("Tell"): the Master marks the new koan at once.
    CallMaster { student: String },
    /// "Mondo" ("Quiz"): every student answers in a closed fist.
    CallMondo { student: String },
    /// One student's hidden Mondo answer.
    Answer { student: String, answer: Mark },
    /// The Master marks the new koan (and, after a Mondo, the answers are revealed). `judgment`:
    /// the Master's call stands even where the rule engine reads the koan otherwise.
    Marked {
        mark: Mark,
        #[serde(default)]
        judgment: bool,
    },
    /// A student spends a guessing stone (none in Puzzle and Guidance Mode) and states a guess.
    Guess { student: String, text: String },
    /// The guess is reworded before it is official.
    ChangeGuess { text: String },
    /// The guess is taken back before it is official; its stone is returned.
    Retract,
    /// Guesser and Master agree the guess is official.
    Official,
    /// The Master's counter-example to the official guess, built and marked.
    CounterExample {
        mark: Mark,
        #[serde(with = "scene_doc")]
        scene: Scene,
        #[serde(default)]
        judgment: bool,
    },
    /// The Master cannot disprove the official guess: the guesser wins.
    GuessStands,
    /// The student ends the turn without (another) guess.
    Pass { student: String },
    /// Koans leave the table (their marking stones go back to the Master); they stay in the books.
    BreakDown { koans: Vec<u32> },
    /// A koan was disturbed; play stops until it is restored.
    Katsu {
        koan: u32,
        #[serde(
            default,
            with = "opt_scene_doc",
            skip_serializing_if = "Option::is_none"
        )]
        disturbed: Option<Scene>,
    },
    /// The Master restored a disturbed koan (as seen again, when a scene is given).
    Restored {
        koan: u32,
        #[serde(
            default,
            with = "opt_scene_doc",
            skip_serializing_if = "Option::is_none"
        )]
        scene: Option<Scene>,
    },
    /// The Master fixes a mismarked koan.
    Corrected {
        koan: u32,
        mark: Mark,
        #[serde(default)]
        judgment: bool,
    },
    /// The Master switches to Guidance Mode: the Master builds every koan, guesses are free.
    Guidance,
    /// The Master builds and marks a koan in Guidance Mode.
    GuidanceKoan {
        mark: Mark,
        #[serde(with = "scene_doc")]
        scene: Scene,
        #[serde(default)]
        judgment: bool,
    },
    /// A student gives up; when every student has, the game ends.
    Surrender { student: String },
    /// The Master reveals the rule and its salt; they must match the commitment.
    Reveal { text: String, salt: String },
    /// Head-to-Head: the second round, roles swapped, a new rule committed.
    NextRound {
        rule_source: RuleSource,
        commitment: String,
    },
}

impl Event {
    /// A short name for logs and the store's index.
    pub fn kind(&self) -> &'static str {
        match self {
            Event::Created(_) => "created",
            Event::InitialKoan { .. } => "initial-koan",
            Event::Built { .. } => "built",
            Event::CallMaster { .. } => "call-master",
            Event::CallMondo { .. } => "call-mondo",
            Event::Answer { .. } => "answer",
            Event::Marked { .. } => "marked",
            Event::Guess { .. } => "guess",
            Event::ChangeGuess { .. } => "change-guess",
            Event::Retract => "retract",
            Event::Official => "official",
            Event::CounterExample { .. } => "counter-example",
            Event::GuessStands => "guess-stands",
            Event::Pass { .. } => "pass",
            Event::BreakDown { .. } => "break-down",
            Event::Katsu { .. } => "katsu",
            Event::Restored { .. } => "restored",
            Event::Corrected { .. } => "corrected",
            Event::Guidance => "guidance",
            Event::GuidanceKoan { .. } => "guidance-koan",
            Event::Surrender { .. } => "surrender",
            Event::Reveal { .. } => "reveal",
            Event::NextRound { .. } => "next-round",
        }
    }
}
