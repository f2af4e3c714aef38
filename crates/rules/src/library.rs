//! The rule library (`data/library.toml`): rules a Master can pick, with their difficulty and
//! one koan each that the rule marks white and one it marks black.

use std::fmt;
use std::str::FromStr;

use serde::Deserialize;

use crate::ast::Rule;
use crate::error::ParseError;
use crate::parser::parse_rule;
use crate::sketch::{Sketch, SketchError};

/// The library shipped with koanscope.
pub const BUILTIN: &str = include_str!("../data/library.toml");

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Difficulty {
    Easy,
    Medium,
    Hard,
}

impl Difficulty {
    pub fn word(self) -> &'static str {
        match self {
            Difficulty::Easy => "easy",
            Difficulty::Medium => "medium",
            Difficulty::Hard => "hard",
        }
    }
}

impl fmt::Display for Difficulty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

impl FromStr for Difficulty {
    type Err = String;
    fn from_str(s: &str) -> Result<Difficulty, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "easy" => Ok(Difficulty::Easy),
            "medium" => Ok(Difficulty::Medium),
            "hard" => Ok(Difficulty::Hard),
            other => Err(format!(
                "unknown difficulty {other:?} (easy, medium or hard)"
            )),
        }
    }
}

/// One library entry, parsed.
#[derive(Debug, Clone)]
pub struct LibraryRule {
    pub name: String,
    /// The words as written (the seed's own wording for seed rules).
    pub text: String,
    pub difficulty: Difficulty,
    pub source: Option<String>,
    pub rule: Rule,
    /// A koan the rule marks white, and one it marks black.
    pub white: Sketch,
    pub black: Sketch,
}

#[derive(Debug, thiserror::Error)]
pub enum LibraryError {
    #[error("not a rule library")]
    Toml(#[from] toml::de::Error),
    #[error("rule {name:?}: {source}")]
    Rule {
        name: String,
        #[source]
        source: ParseError,
    },
    #[error("rule {name:?}: {source}")]
    Sketch {
        name: String,
        #[source]
        source: SketchError,
    },
    #[error("rule name {0:?} is used twice")]
    Duplicate(String),
}

#[derive(Deserialize)]
struct RawLibrary {
    rule: Vec<RawRule>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    name: String,
    text: String,
    difficulty: Difficulty,
    #[serde(default)]
    source: Option<String>,
    white: String,
    black: String,
}

/// A list of rules.
#[derive(Debug, Clone)]
pub struct Library {
    pub rules: Vec<LibraryRule>,
}

impl Library {
    /// The library shipped with koanscope.
    pub fn builtin() -> Result<Library, LibraryError> {
        Library::from_toml(BUILTIN)
    }

    pub fn from_toml(text: &str) -> Result<Library, LibraryError> {
        let raw: RawLibrary = toml::from_str(text)?;
        let mut rules: Vec<LibraryRule> = Vec::with_capacity(raw.rule.len());
        for r in raw.rule {
            if rules.iter().any(|x| x.name == r.name) {
                return Err(LibraryError::Duplicate(r.name));
            }
            let rule = parse_rule(&r.text).map_err(|source| LibraryError::Rule {
                name: r.name.clone(),
                source,
            })?;
            let sketch = |s: &str| {
                Sketch::parse(s).map_err(|source| LibraryError::Sketch {
                    name: r.name.clone(),
                    source,
                })
            };
            let (white, black) = (sketch(&r.white)?, sketch(&r.black)?);
            rules.push(LibraryRule {
                name: r.name,
                text: r.text,
                difficulty: r.difficulty,
                source: r.source,
                rule,
                white,
                black,
            });
        }
        Ok(Library { rules })
    }

    pub fn get(&self, name: &str) -> Option<&LibraryRule> {
        self.rules.iter().find(|r| r.name == name)
    }
}
