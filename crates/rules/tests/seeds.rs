//! Every rule and guess stated in the seed texts (`shared/seeds/`), parsed from its exact words,
//! with the meaning checked through the canonical rendering.

use koanscope_rules::{ParseError, Parsed, parse, render};

const HAS: &str = "A koan has the Buddha-nature if and only if";

/// The canonical form of an unambiguous text.
fn canonical(text: &str) -> String {
    match parse(text) {
        Ok(Parsed::Rule(r)) => render::rule(&r),
        other => panic!("{text:?} should be one rule, got {other:?}"),
    }
}

fn assert_means(text: &str, meaning: &str) {
    assert_eq!(canonical(text), format!("{HAS} {meaning}."), "for {text:?}");
}

/// Readings offered for an indefinite text.
fn readings(text: &str) -> Vec<String> {
    match parse(text) {
        Ok(Parsed::NeedsChoice { question, readings }) => {
            assert!(question.contains("exactly") && question.contains("at least"));
            readings.iter().map(render::rule).collect()
        }
        other => panic!("{text:?} should ask for a reading, got {other:?}"),
    }
}

/// Readings offered for a refused ("mu") text.
fn mu_readings(text: &str) -> Vec<String> {
    match parse(text) {
        Err(ParseError::Mu { readings, .. }) => readings.iter().map(render::rule).collect(),
        other => panic!("{text:?} should be refused as mu, got {other:?}"),
    }
}

#[test]
fn booklet_rule_examples() {
    assert_means(
        "A Simple Rule: A koan has the Buddha-nature if and only if it contains one or more green pieces."
            .split_once(": ")
            .unwrap()
            .1,
        "it contains at least one green piece",
    );
    assert_means(
        "A koan has the Buddha-nature if and only if it contains an odd number of pieces pointing at other pieces.",
        "it contains an odd number of pieces pointing at another piece",
    );
    assert_eq!(
        canonical(
            "A koan does not have the Buddha-nature if it contains exactly three pieces touching the table; otherwise it does."
        ),
        "A koan does not have the Buddha-nature if and only if it contains exactly three grounded pieces."
    );
    // The summary's wording.
    assert_means(
        "A koan has the Buddha-nature if it contains one or more green pieces.",
        "it contains at least one green piece",
    );
}

#[test]
fn booklet_rules_for_beginners() {
    let header = "A koan has the Buddha-nature if and only if…";
    let cases = [
        (
            "all its pieces are the same color.",
            "all of its pieces are the same color",
        ),
        (
            "all its pieces are the same size.",
            "all of its pieces are the same size",
        ),
        ("all its pieces are flat.", "all of its pieces are flat"),
        (
            "it contains at least one red piece.",
            "it contains at least one red piece",
        ),
        (
            "it contains at least one small piece.",
            "it contains at least one small piece",
        ),
        (
            "it contains at least one piece of each of the four colors.",
            "it contains at least one piece of each of the four colors",
        ),
        (
            "it contains no green pieces.",
            "it contains no green pieces",
        ),
        (
            "it contains no large pieces.",
            "it contains no large pieces",
        ),
        (
            "it contains at least one medium yellow piece.",
            "it contains at least one medium yellow piece",
        ),
        (
            "it contains exactly two pieces.",
            "it contains exactly two pieces",
        ),
        (
            "it contains two or more upright pieces.",
            "it contains at least two upright pieces",
        ),
        (
            "it contains a piece pointing at another piece.",
            "it contains at least one piece pointing at another piece",
        ),
        (
            "it contains an ungrounded piece.",
            "it contains at least one ungrounded piece",
        ),
        (
            "it contains at least one green piece and at least one\n    blue piece.",
            "it contains at least one green piece and at least one blue piece",
        ),
        (
            "it contains at least two pieces that are touching\n    each other.",
            "it contains at least two pieces touching another piece",
        ),
    ];
    assert_eq!(cases.len(), 15);
    for (item, meaning) in cases {
        // As listed (an item under the header), and with the header in front.
        assert_means(item, meaning);
        assert_means(&format!("{header} {item}"), meaning);
    }
}

#[test]
fn looney_labs_2017_example_and_possibilities() {
    assert_means(
        "a structure must contain exactly two Medium-sized pyramids.",
        "it contains exactly two medium pieces",
    );
    assert_means(
        "The structure must contain exactly two Medium-sized pyramids.",
        "it contains exactly two medium pieces",
    );
    assert_means(
        "Must contain only blue pieces.",
        "it contains only blue pieces",
    );
    assert_eq!(
        readings("Must contain two pieces of the same color."),
        [
            format!("{HAS} it contains exactly two pieces of the same color."),
            format!("{HAS} it contains at least two pieces of the same color."),
        ]
    );
    assert_means(
        "Must contain zero Large's, or zero Small's.",
        "it contains no large pieces or no small pieces",
    );
    assert_means(
        "Must contain zero yellow's, or zero red's.",
        "it contains no yellow pieces or no red pieces",
    );
    assert_means(
        "Must contain zero upright pieces.",
        "it contains no upright pieces",
    );
    assert_means(
        "Must contain pieces pointing in opposite directions.",
        "it contains at least one piece pointing in the opposite direction to another piece",
    );
}

#[test]
fn looney_labs_2017_guesses_and_advice() {
    assert_means(
        "The structure must contain at least one flat piece.",
        "it contains at least one flat piece",
    );
    assert_eq!(
        readings("A structure must contain three pieces of the same color.")[1],
        format!("{HAS} it contains at least three pieces of the same color.")
    );
    assert_eq!(
        readings("must contain three red pieces"),
        [
            format!("{HAS} it contains exactly three red pieces."),
            format!("{HAS} it contains at least three red pieces."),
        ]
    );
    assert_eq!(
        readings("must contain three pieces that are all the same color")[0],
        format!("{HAS} it contains exactly three pieces of the same color.")
    );
    assert_means(
        "must contain exactly one Small",
        "it contains exactly one small piece",
    );
    assert_means(
        "must contain at least two pieces that touch each other",
        "it contains at least two pieces touching another piece",
    );
    assert_means(
        "must contain at least one upright yellow Large",
        "it contains at least one large upright yellow piece",
    );
    assert_means(
        "must contain a red piece and an upside-down piece",
        "it contains at least one red piece and at least one upside-down piece",
    );
    assert_means(
        "must contain either a red piece or a lying-down piece or both",
        "it contains at least one red piece or at least one flat piece",
    );
    assert_means(
        "must contain more upright pieces than Larges",
        "it contains more upright pieces than large pieces",
    );
    assert_means(
        "must either contain both a red piece and a lying-down piece or neither of these pieces",
        "it contains both at least one red piece and at least one flat piece or neither of these",
    );
    assert_means(
        "The structure must contain exactly two pieces and no yellow pieces.",
        "it contains exactly two pieces and no yellow pieces",
    );
    assert_means(
        "The structure must contain a blue Large or a yellow Medium or exactly one ungrounded piece.",
        "it contains at least one large blue piece or at least one medium yellow piece or exactly one ungrounded piece",
    );
    assert_means(
        "The structure must contain zero yellow pieces.",
        "it contains no yellow pieces",
    );
    assert_means(
        "The structure must contain only red, blue, or green pieces.",
        "it contains only red, green, or blue pieces",
    );
    assert_means(
        "The structure must contain a red piece pointing at a blue piece.",
        "it contains at least one red piece pointing at a blue piece",
    );
}

#[test]
fn booklet_guesses_and_translations() {
    assert_means(
        "a koan has the Buddha-nature if it contains at least one red piece",
        "it contains at least one red piece",
    );
    assert_means(
        "a koan has the Buddha-nature if it contains more red pieces than blue pieces",
        "it contains more red pieces than blue pieces",
    );
    // "it would be white according to the student's guess, since it does contain a red piece".
    assert_means(
        "a koan has the Buddha-nature if it contains red pieces",
        "it contains at least one red piece",
    );
    assert_means(
        "a koan has the Buddha-nature if all of the largest pieces are red",
        "all of its largest pieces are red",
    );
    assert_means(
        "a koan has the Buddha-nature if any of the largest pieces are red",
        "it contains at least one red piece among the largest pieces",
    );
    assert_eq!(
        canonical("a koan does not have the Buddha-nature if it contains a non-upright red piece"),
        "A koan does not have the Buddha-nature if and only if it contains at least one non-upright red piece."
    );
    assert_means(
        "a koan has the Buddha-nature if it contains a piece such that there is no larger piece in the koan, it is the only such piece, and it is green",
        "it contains exactly one largest piece and it is green",
    );
    assert_means(
        "a koan has the Buddha-nature if it contains one or more red pieces and they’re all upright",
        "it contains at least one red piece and no non-upright red pieces",
    );
    assert_means(
        "a koan has the Buddha-nature if it contains no red pieces, or if it contains red pieces and they’re all upright",
        "it contains no red pieces or it contains at least one red piece and no non-upright red pieces",
    );
}

#[test]
fn booklet_mu_cases_are_refused_with_readings() {
    let r = mu_readings("A koan has the Buddha-nature if all of its red pieces are upright.");
    assert_eq!(
        r,
        [
            format!("{HAS} it contains no non-upright red pieces."),
            format!("{HAS} it contains at least one red piece and no non-upright red pieces."),
        ]
    );
    let r = mu_readings(
        "A koan has the Buddha-nature if all of its pieces are pointing in the same direction.",
    );
    assert_eq!(r.len(), 2);
    assert!(r[1].contains("at least two pieces"));
    let r = mu_readings("A koan has the Buddha-nature if its largest piece is green.");
    assert_eq!(
        r,
        [
            format!("{HAS} all of its largest pieces are green."),
            format!("{HAS} it contains at least one green piece among the largest pieces."),
            format!("{HAS} it contains exactly one largest piece and it is green."),
        ]
    );
    let r = mu_readings("a koan has the Buddha-nature if the largest piece in it is red");
    assert_eq!(r.len(), 3);
    // The issue's own wordings.
    mu_readings("its largest piece is green");
    mu_readings("all its red pieces are upright");
    mu_readings("all its pieces point the same direction");
}

#[test]
fn errors_say_where_and_what() {
    let e =
        parse("A koan has the Buddha-nature if it contains at least one yelow piece.").unwrap_err();
    let text = e.to_string();
    assert!(text.contains("column 58"), "{text}");
    assert!(text.contains("\"yelow\""), "{text}");
    assert!(text.contains("did you mean yellow?"), "{text}");
    let e = parse("A koan has the Buddha-nature if it contanis a red piece").unwrap_err();
    assert!(e.to_string().contains("did you mean contains?"), "{e}");
    assert_eq!(e.column(), Some(36));
    let e = parse("it contains at least").unwrap_err();
    assert!(e.to_string().contains("stops too early"), "{e}");
}
