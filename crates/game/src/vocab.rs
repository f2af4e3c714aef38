//! The two vocabularies of the game: the booklet's (Master, Mondo, Buddha-nature, stones) and the
//! 2017 edition's (Moderator, Tell, Quiz, Yes/No tokens). The books are the same; only the words
//! shown to people change.

use std::fmt;
use std::str::FromStr;

use koanscope_scene::Mark;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Vocabulary {
    /// Kory Heath's booklet: Master, students, koans, Master/Mondo, white/black stones.
    #[default]
    Zen,
    /// The 2017 Looney Labs text: Moderator, players, structures, Tell/Quiz, Yes/No tokens.
    Modern,
}

/// The words of one vocabulary.
#[derive(Debug)]
pub struct Words {
    pub master: &'static str,
    pub student: &'static str,
    pub students: &'static str,
    pub koan: &'static str,
    pub koans: &'static str,
    /// The call for the Master to mark ("Master" / "Tell").
    pub call_master: &'static str,
    /// The call for everyone to answer ("Mondo" / "Quiz").
    pub call_mondo: &'static str,
    pub white: &'static str,
    pub black: &'static str,
    pub has: &'static str,
    pub has_not: &'static str,
    pub guessing_stone: &'static str,
    pub guessing_stones: &'static str,
    pub marking_stone: &'static str,
}

const ZEN: Words = Words {
    master: "Master",
    student: "student",
    students: "students",
    koan: "koan",
    koans: "koans",
    call_master: "Master",
    call_mondo: "Mondo",
    white: "white",
    black: "black",
    has: "has the Buddha-nature",
    has_not: "does not have the Buddha-nature",
    guessing_stone: "guessing stone",
    guessing_stones: "guessing stones",
    marking_stone: "marking stone",
};

const MODERN: Words = Words {
    master: "Moderator",
    student: "player",
    students: "players",
    koan: "structure",
    koans: "structures",
    call_master: "Tell",
    call_mondo: "Quiz",
    white: "Yes",
    black: "No",
    has: "follows the rule",
    has_not: "does not follow the rule",
    guessing_stone: "guessing token",
    guessing_stones: "guessing tokens",
    marking_stone: "marking token",
};

impl Vocabulary {
    pub fn words(self) -> &'static Words {
        match self {
            Vocabulary::Zen => &ZEN,
            Vocabulary::Modern => &MODERN,
        }
    }

    /// A mark as this vocabulary names it ("white" / "Yes").
    pub fn mark(self, mark: Mark) -> &'static str {
        match mark {
            Mark::White => self.words().white,
            Mark::Black => self.words().black,
        }
    }

    /// "has the Buddha-nature" / "follows the rule".
    pub fn verdict(self, mark: Mark) -> &'static str {
        match mark {
            Mark::White => self.words().has,
            Mark::Black => self.words().has_not,
        }
    }
}

impl fmt::Display for Vocabulary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Vocabulary::Zen => "zen",
            Vocabulary::Modern => "modern",
        })
    }
}

impl FromStr for Vocabulary {
    type Err = String;
    fn from_str(s: &str) -> Result<Vocabulary, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "zen" | "booklet" | "master" => Ok(Vocabulary::Zen),
            "modern" | "2017" | "moderator" => Ok(Vocabulary::Modern),
            other => Err(format!(
                "unknown vocabulary {other:?} (zen: Master/Mondo/stones, or modern: Moderator/Tell/Quiz/Yes-No tokens)"
            )),
        }
    }
}

/// Reads a mark in either vocabulary: white/yes or black/no.
pub fn parse_mark(word: &str) -> Option<Mark> {
    match word.trim().to_ascii_lowercase().as_str() {
        "white" | "yes" | "w" => Some(Mark::White),
        "black" | "no" | "b" => Some(Mark::Black),
        _ => None,
    }
}
