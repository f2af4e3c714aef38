//! The parser never panics, whatever it is given.

use proptest::prelude::*;

const WORDS: &[&str] = &[
    "a",
    "koan",
    "has",
    "the",
    "buddha-nature",
    "if",
    "and",
    "only",
    "it",
    "contains",
    "at",
    "least",
    "most",
    "exactly",
    "no",
    "zero",
    "one",
    "two",
    "three",
    "red",
    "blue",
    "large",
    "upright",
    "flat",
    "pieces",
    "piece",
    "piece",
    "touching",
    "pointing",
    "at",
    "each",
    "other",
    "or",
    "either",
    "both",
    "neither",
    "nor",
    "not",
    "all",
    "its",
    "are",
    "is",
    "same",
    "color",
    "of",
    "more",
    "than",
    "fewer",
    "as",
    "many",
    "majority",
    "plurality",
    "(",
    ")",
    ",",
    ";",
    "otherwise",
    "does",
    "must",
    "contain",
    "towers",
    "tower",
    "nest",
    "pip",
    "count",
    "odd",
    "even",
    "largest",
    "highest",
    "that",
    "such",
    "there",
    "they're",
    "non-upright",
    "among",
    "through",
    "first",
    "with",
    "inside",
    "on",
    "top",
    "direction",
    "opposite",
    "in",
    "…",
    ".",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,80}") {
        let _ = koanscope_rules::parse(&text);
    }

    #[test]
    fn word_salad_never_panics(words in proptest::collection::vec(proptest::sample::select(WORDS), 0..25)) {
        let text = words.join(" ");
        let _ = koanscope_rules::parse(&text);
    }

    #[test]
    fn errors_point_inside_the_text(words in proptest::collection::vec(proptest::sample::select(WORDS), 1..25)) {
        let text = words.join(" ");
        if let Err(e) = koanscope_rules::parse(&text)
            && let Some(column) = e.column()
        {
            prop_assert!(column >= 1 && column <= text.chars().count() + 1, "{column} in {text:?}: {e}");
        }
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let text = format!(
        "{}it contains a red piece{}",
        "(".repeat(5000),
        ")".repeat(5000)
    );
    assert!(koanscope_rules::parse(&text).is_err());
    let text = format!("it is not true that {}", "not ".repeat(5000));
    assert!(koanscope_rules::parse(&text).is_err());
}
