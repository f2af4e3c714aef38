//! Why a move is refused. A refused move changes nothing: the game and its books stay as they were.

use koanscope_rules::{EvalError, ParseError};
use koanscope_scene::Mark;

use crate::koan::KoanNo;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GameError {
    #[error("the game has not been set up yet")]
    NotStarted,
    #[error("the game is already set up")]
    AlreadyStarted,
    #[error("set-up: {0}")]
    Setup(String),
    #[error("the game is over")]
    Over,
    #[error("{name:?} is not a student in this game")]
    NotAStudent { name: String },
    #[error("{name:?} has surrendered and takes no further part")]
    Surrendered { name: String },
    #[error("it is {expected}'s turn, not {name}'s")]
    NotYourTurn { name: String, expected: String },
    #[error("{what} is not possible now: {now}")]
    NotNow { what: String, now: String },
    #[error("{what} is not part of {mode} mode")]
    NotInMode { what: String, mode: &'static str },
    #[error("{student} has no guessing stone to spend")]
    NoGuessingStone { student: String },
    #[error("the Master has no {0} marking stone left: break down a koan first")]
    NoMarkingStone(Mark),
    #[error("{student} has already answered this Mondo")]
    AlreadyAnswered { student: String },
    #[error("the Mondo is still waiting for the answer of {}", .missing.join(", "))]
    AwaitingAnswers { missing: Vec<String> },
    #[error("koan {koan} is already marked {mark}; to fix a mistake, correct it")]
    AlreadyMarked { koan: KoanNo, mark: Mark },
    #[error("koan {koan} is already {mark}")]
    SameMark { koan: KoanNo, mark: Mark },
    #[error("there is no koan {0}")]
    UnknownKoan(KoanNo),
    #[error("koan {0} has been broken down and is no longer in play")]
    KoanNotInPlay(KoanNo),
    #[error("koan {0} is not marked yet")]
    KoanNotMarked(KoanNo),
    #[error("the koan document is not usable: {0}")]
    KoanDocument(String),
    #[error("the guess is not understood: {0}")]
    Guess(ParseError),
    #[error("the secret rule is not understood: {0}")]
    Rule(ParseError),
    #[error("the koan cannot be marked: {0}")]
    Eval(EvalError),
    #[error(
        "the secret rule marks this koan {rule_says}, not {mark} ({reason}); if that is your judgment call as Master, mark it again as a judgment"
    )]
    MarkDisagrees {
        mark: Mark,
        rule_says: Mark,
        reason: String,
    },
    #[error("the initial koans must be one white and one black: there is already a {0} one")]
    InitialMarkTaken(Mark),
    #[error("{} on the table: change or retract the guess", contradicting("koan", .koans))]
    Contradicted { koans: Vec<KoanNo> },
    #[error("{student}'s guess is still open: make it official, change or retract it first")]
    GuessOpen { student: String },
    #[error("there is no guess on the table")]
    NoGuess,
    #[error("the guess is official already and can no longer be changed or retracted")]
    AlreadyOfficial,
    #[error("the guess is not official yet")]
    NotOfficial,
    #[error("the table was disturbed (katsu): the Master must restore koan {} first", list(.koans))]
    Disturbed { koans: Vec<KoanNo> },
    #[error("koan {0} was not disturbed")]
    NotDisturbed(KoanNo),
    #[error("koan {koan} is not as it was logged: it was {logged}, it is now {now}")]
    NotAsLogged {
        koan: KoanNo,
        logged: String,
        now: String,
    },
    #[error("the revealed rule does not match the commitment made at the start")]
    CommitmentMismatch,
    #[error("the Master's secret does not match the commitment of this game")]
    SecretMismatch,
    #[error("the rule has already been revealed")]
    AlreadyRevealed,
    #[error("the rule is revealed only when the game is over")]
    NotOver,
    #[error("the counter-example search failed: {0}")]
    CounterExampleSearch(String),
    #[error("the secret rule is not known here (only the Master's books hold it)")]
    NoSecret,
}

/// "koan 3 contradicts the guess" / "koans 1, 3 contradict the guess".
fn contradicting(koan: &str, koans: &[KoanNo]) -> String {
    if koans.len() == 1 {
        format!("{koan} {} contradicts the guess", list(koans))
    } else {
        format!("{koan}s {} contradict the guess", list(koans))
    }
}

fn list(koans: &[KoanNo]) -> String {
    koans
        .iter()
        .map(|k| k.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

impl GameError {
    /// The refusal in a vocabulary's words (`Display` uses the booklet's). Text that comes from
    /// elsewhere (a rule, a guess, the rule engine's reasons) is left as it is.
    pub fn describe(&self, v: crate::vocab::Vocabulary) -> String {
        use crate::vocab::Vocabulary;
        if v == Vocabulary::Zen {
            return self.to_string();
        }
        let w = v.words();
        let m = |mark: &Mark| v.mark(*mark);
        match self {
            GameError::NotAStudent { name } => {
                format!("{name:?} is not a {} in this game", w.student)
            }
            GameError::NoGuessingStone { student } => {
                format!("{student} has no {} to spend", w.guessing_stone)
            }
            GameError::NoMarkingStone(mark) => format!(
                "the {} has no {} {} left: break down a {} first",
                w.master,
                m(mark),
                w.marking_stone,
                w.koan
            ),
            GameError::AlreadyAnswered { student } => {
                format!("{student} has already answered this {}", w.call_mondo)
            }
            GameError::AwaitingAnswers { missing } => format!(
                "the {} is still waiting for the answer of {}",
                w.call_mondo,
                missing.join(", ")
            ),
            GameError::AlreadyMarked { koan, mark } => format!(
                "{} {koan} is already marked {}; to fix a mistake, correct it",
                w.koan,
                m(mark)
            ),
            GameError::SameMark { koan, mark } => {
                format!("{} {koan} is already {}", w.koan, m(mark))
            }
            GameError::UnknownKoan(k) => format!("there is no {} {k}", w.koan),
            GameError::KoanNotInPlay(k) => format!(
                "{} {k} has been broken down and is no longer in play",
                w.koan
            ),
            GameError::KoanNotMarked(k) => format!("{} {k} is not marked yet", w.koan),
            GameError::MarkDisagrees {
                mark,
                rule_says,
                reason,
            } => format!(
                "the secret rule marks this {} {}, not {} ({reason}); if that is your judgment call as {}, mark it again as a judgment",
                w.koan,
                m(rule_says),
                m(mark),
                w.master
            ),
            GameError::InitialMarkTaken(mark) => format!(
                "the initial {} must be one {} and one {}: there is already a {} one",
                w.koans,
                w.white,
                w.black,
                m(mark)
            ),
            GameError::Contradicted { koans } => format!(
                "{} on the table: change or retract the guess",
                contradicting(w.koan, koans)
            ),
            GameError::Disturbed { koans } => format!(
                "the table was disturbed (katsu): the {} must restore {} {} first",
                w.master,
                w.koan,
                list(koans)
            ),
            GameError::NotDisturbed(k) => format!("{} {k} was not disturbed", w.koan),
            GameError::NotAsLogged { koan, logged, now } => format!(
                "{} {koan} is not as it was logged: it was {logged}, it is now {now}",
                w.koan
            ),
            GameError::SecretMismatch => format!(
                "the {}'s secret does not match the commitment of this game",
                w.master
            ),
            GameError::NotYourTurn { .. }
            | GameError::NotNow { .. }
            | GameError::NotInMode { .. }
            | GameError::Surrendered { .. }
            | GameError::GuessOpen { .. } => self
                .to_string()
                .replace("Master", w.master)
                .replace("Mondo", w.call_mondo)
                .replace("koans", w.koans)
                .replace("koan", w.koan),
            other => other.to_string(),
        }
    }
}
