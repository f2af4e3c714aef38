//! Why a text is not (yet) a rule: where, what, and what might have been meant.

use std::fmt;

use crate::ast::Rule;
use crate::render;

/// A rule text that could not be turned into one rule.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParseError {
    #[error("the rule is empty")]
    Empty,
    /// A word the grammar cannot take where it stands.
    #[error("{}", not_understood(*column, word, expected, suggestion.as_deref()))]
    NotUnderstood {
        column: usize,
        word: String,
        expected: Vec<String>,
        /// The nearest known word, when one is close.
        suggestion: Option<String>,
    },
    #[error(
        "column {column}: the rule stops too early; expected {}",
        list(expected)
    )]
    Unfinished {
        column: usize,
        expected: Vec<String>,
    },
    #[error("column {column}: {message}")]
    Invalid { column: usize, message: String },
    /// A phrase that presumes something that may not exist ("mu"): refused, with the explicit
    /// readings to pick from.
    #[error("{}", mu_message(*column, phrase, presumes, readings))]
    Mu {
        column: usize,
        phrase: String,
        presumes: String,
        readings: Vec<Rule>,
    },
    /// `parse_rule` was given an indefinite text.
    #[error("{question} Readings: {}", readings.join(" | "))]
    Indefinite {
        question: String,
        readings: Vec<String>,
    },
    #[error(
        "column {column}: {count} bare numbers; say \"exactly\" or \"at least\" for each of them"
    )]
    TooManyChoices { column: usize, count: usize },
}

/// A "mu" phrase found while parsing.
#[derive(Debug, Clone)]
pub(crate) struct MuSite {
    pub column: usize,
    pub phrase: String,
    pub presumes: String,
    pub readings: usize,
}

impl ParseError {
    pub(crate) fn not_understood(column: usize, word: &str, expected: Vec<String>) -> ParseError {
        let suggestion = nearest(word, &expected);
        ParseError::NotUnderstood {
            column,
            word: word.to_string(),
            expected,
            suggestion,
        }
    }

    /// The column the error points at, when it points at one.
    pub fn column(&self) -> Option<usize> {
        match self {
            ParseError::NotUnderstood { column, .. }
            | ParseError::Unfinished { column, .. }
            | ParseError::Invalid { column, .. }
            | ParseError::Mu { column, .. }
            | ParseError::TooManyChoices { column, .. } => Some(*column),
            ParseError::Empty | ParseError::Indefinite { .. } => None,
        }
    }
}

fn list(items: &[String]) -> String {
    match items {
        [] => "more".into(),
        [one] => format!("\"{one}\""),
        _ => {
            let quoted: Vec<String> = items.iter().map(|s| format!("\"{s}\"")).collect();
            format!(
                "{} or {}",
                quoted[..quoted.len() - 1].join(", "),
                quoted[quoted.len() - 1]
            )
        }
    }
}

fn not_understood(
    column: usize,
    word: &str,
    expected: &[String],
    suggestion: Option<&str>,
) -> String {
    let mut s = format!("column {column}: \"{word}\" is not understood here");
    if let Some(near) = suggestion {
        s.push_str(&format!(" (did you mean {near}?)"));
    }
    if !expected.is_empty() {
        s.push_str(&format!("; expected {}", list(expected)));
    }
    s
}

fn mu_message(column: usize, phrase: &str, presumes: &str, readings: &[Rule]) -> String {
    let mut s = format!(
        "column {column}: \"{phrase}\" is mu: it presumes {presumes}. Say which rule you mean:"
    );
    for (i, r) in readings.iter().enumerate() {
        s.push_str(&format!("\n  {}. {}", i + 1, render::rule(r)));
    }
    s
}

/// Every word the grammar knows, for "did you mean".
const VOCABULARY: &[&str] = &[
    "koan",
    "structure",
    "has",
    "have",
    "does",
    "not",
    "the",
    "buddha-nature",
    "if",
    "and",
    "only",
    "or",
    "either",
    "both",
    "neither",
    "nor",
    "but",
    "otherwise",
    "it",
    "its",
    "contains",
    "contain",
    "must",
    "all",
    "of",
    "every",
    "each",
    "none",
    "any",
    "some",
    "no",
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "exactly",
    "at",
    "least",
    "most",
    "more",
    "fewer",
    "less",
    "than",
    "as",
    "many",
    "same",
    "number",
    "odd",
    "even",
    "piece",
    "pieces",
    "pyramid",
    "pyramids",
    "red",
    "yellow",
    "green",
    "blue",
    "black",
    "orange",
    "cyan",
    "purple",
    "white",
    "clear",
    "small",
    "medium",
    "large",
    "medium-sized",
    "upright",
    "flat",
    "weird",
    "lying-down",
    "upside-down",
    "grounded",
    "ungrounded",
    "largest",
    "smallest",
    "highest",
    "lowest",
    "stacked",
    "nested",
    "inserted",
    "fully",
    "partially",
    "touching",
    "pointing",
    "pointed",
    "through",
    "first",
    "direction",
    "directions",
    "opposite",
    "different",
    "color",
    "colors",
    "size",
    "sizes",
    "orientation",
    "tower",
    "towers",
    "stack",
    "stacks",
    "nest",
    "nests",
    "pip",
    "count",
    "pips",
    "majority",
    "plurality",
    "table",
    "other",
    "another",
    "inside",
    "on",
    "top",
    "under",
    "higher",
    "lower",
    "larger",
    "smaller",
    "that",
    "are",
    "is",
    "is",
    "such",
    "there",
    "only",
    "them",
    "they",
];

/// The known word nearest to `word`, preferring the ones expected where it stands.
fn nearest(word: &str, expected: &[String]) -> Option<String> {
    let word = word.to_lowercase();
    if word.chars().count() < 2 {
        return None;
    }
    let budget = (word.chars().count() / 3).max(1);
    let mut best: Option<(usize, String)> = None;
    let expected_words = expected.iter().map(|s| s.as_str());
    for candidate in expected_words.chain(VOCABULARY.iter().copied()) {
        // Compare with the first word of a multi-word expectation ("at least").
        let head = candidate.split(' ').next().unwrap_or(candidate);
        if head == word {
            continue;
        }
        let d = levenshtein(&word, head);
        if d <= budget && best.as_ref().is_none_or(|(bd, _)| d < *bd) {
            best = Some((d, head.to_string()));
        }
    }
    best.map(|(_, w)| w)
}

fn levenshtein(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        prev = cur;
    }
    prev[b.len()]
}

impl fmt::Display for crate::ast::Quant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&render::quant_words(*self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_word_is_offered() {
        assert_eq!(nearest("yelow", &[]).as_deref(), Some("yellow"));
        assert_eq!(nearest("upriht", &[]).as_deref(), Some("upright"));
        assert_eq!(nearest("zzzzzz", &[]), None);
    }
}
