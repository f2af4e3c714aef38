//! The definitions of the rule texts, checked on hand-built koans: each case is a koan a Master
//! could build and the mark the terminology gives it.

use koanscope_rules::{Sketch, parse_rule};

fn white(rule: &str, koan: &str) -> bool {
    let rule = parse_rule(rule).unwrap_or_else(|e| panic!("{rule}: {e}"));
    let summary = Sketch::parse(koan).unwrap().summary().unwrap();
    summary.white(&rule)
}

#[test]
fn zero_is_even() {
    // "When a koan contains no red pieces, the pip-count of red in that koan is zero ... zero is
    // an even number."
    assert!(white(
        "the pip count of its red pieces is even",
        "blue small upright"
    ));
    assert!(white(
        "it contains an even number of red pieces",
        "blue small upright"
    ));
}

#[test]
fn largest_and_smallest_pieces_can_be_several_or_the_same() {
    // Two largest pieces: both are "the largest pieces".
    let koan = "red large upright, blue large flat, green small upright";
    assert!(white("it contains exactly two largest pieces", koan));
    assert!(!white("all of its largest pieces are red", koan));
    assert!(white(
        "it contains at least one red piece among the largest pieces",
        koan
    ));
    // One size only: those pieces are both the largest and the smallest.
    let koan = "red medium upright, blue medium flat";
    assert!(white("all of its largest pieces are the same size", koan));
    assert!(white("it contains exactly two smallest pieces", koan));
}

#[test]
fn highest_and_lowest_follow_the_top_of_each_piece() {
    let koan = "red small upright, blue large flat";
    // Small upright top 25.4 mm, large flat top 24.4 mm.
    assert!(white("all of its highest pieces are red", koan));
    assert!(white("all of its lowest pieces are blue", koan));
    // A lone piece is both the highest and the lowest.
    assert!(white(
        "all of its lowest pieces are highest",
        "green medium weird"
    ));
}

#[test]
fn majority_is_more_than_all_others_together_plurality_more_than_any_other() {
    let koan = "red small upright, red small flat, blue small upright, green small upright";
    assert!(white("it contains a plurality of red pieces", koan));
    assert!(!white("it contains a majority of red pieces", koan));
    let koan = "red small upright, red small flat, red large upright, blue small upright";
    assert!(white("it contains a majority of red pieces", koan));
}

#[test]
fn pointing_first_any_and_through() {
    // The flat red piece's ray meets the green piece first, then the blue one.
    let koan = "red small flat, green small upright, blue small upright; 0 points 1 2";
    assert!(white(
        "it contains a red piece pointing at a blue piece",
        koan
    ));
    assert!(!white(
        "it contains a red piece pointing first at a blue piece",
        koan
    ));
    assert!(white(
        "it contains a red piece pointing through a green piece at a blue piece",
        koan
    ));
    assert!(!white(
        "it contains a red piece pointing through a blue piece at a green piece",
        koan
    ));
    // Pointing is not symmetric; touching is.
    assert!(!white(
        "it contains a green piece pointing at a red piece",
        koan
    ));
    let koan = "red small upright, blue small upright; 1 touches 0";
    assert!(white("it contains a red piece touching a blue piece", koan));
}

#[test]
fn orientation_is_independent_of_grounding_and_same_orientation_ignores_direction() {
    // A flat piece lying across upright pieces is still flat (and ungrounded).
    let koan = "red large upright, blue large upright, green small flat ungrounded; 2 touches 0; 2 touches 1";
    assert!(white(
        "it contains at least one ungrounded flat piece",
        koan
    ));
    // Flat pieces pointing different ways have the same orientation.
    let koan = "red small flat dir=0, blue small flat dir=1";
    assert!(white("all of its pieces are the same orientation", koan));
    assert!(!white(
        "it contains at least two pieces pointing in the same direction",
        koan
    ));
}

#[test]
fn a_tower_of_three_is_not_two_towers() {
    let koan = "red large upright, blue medium upright ungrounded, green small upright ungrounded; tower 0 1 2";
    assert!(white("it contains exactly one tower", koan));
    assert!(white(
        "it contains exactly one tower of exactly three pieces",
        koan
    ));
    assert!(white("it contains exactly three stacked pieces", koan));
    // Every piece is in one tower; the lone pieces are towers of one.
    let koan = "red large upright, blue medium upright ungrounded, green small flat; tower 0 1";
    assert!(white(
        "it contains exactly two towers of at least one piece",
        koan
    ));
    assert!(white(
        "it contains at least one blue piece on top of a red piece",
        koan
    ));
    assert!(white(
        "it contains at least one medium piece at the top of a tower",
        koan
    ));
}

#[test]
fn inserted_fully_and_partially_and_nested() {
    let koan = "red large upright, blue small upright; nest 0 1; 1 in 0";
    assert!(white(
        "it contains at least one piece inserted into a red piece",
        koan
    ));
    assert!(white(
        "it contains at least one piece partially inserted into a red piece",
        koan
    ));
    assert!(!white(
        "it contains at least one piece fully inserted into a red piece",
        koan
    ));
    assert!(white(
        "it contains at least one piece inside a red piece",
        koan
    ));
    assert!(white(
        "it contains at least one red piece with a blue piece inside it",
        koan
    ));
}

#[test]
fn both_or_neither_and_either_but_not_both() {
    let rule =
        "must either contain both a red piece and a lying-down piece or neither of these pieces";
    assert!(white(rule, "blue small upright"));
    assert!(white(rule, "red small flat"));
    assert!(!white(rule, "red small upright"));
    assert!(!white(rule, "blue small flat"));
    let rule = "it contains either a red piece or a flat piece but not both";
    assert!(!white(rule, "red small flat"));
    assert!(white(rule, "red small upright"));
}

#[test]
fn other_wordings_mean_the_same_rule() {
    let same = |a: &str, b: &str| {
        assert_eq!(
            parse_rule(a).unwrap_or_else(|e| panic!("{a}: {e}")),
            parse_rule(b).unwrap_or_else(|e| panic!("{b}: {e}")),
            "{a} / {b}"
        )
    };
    same("every piece is upright", "all of its pieces are upright");
    same(
        "each of its pieces is upright",
        "all its pieces are upright",
    );
    same("no piece is red", "it contains no red pieces");
    same(
        "it contains 2 red pieces or more",
        "it contains at least two red pieces",
    );
    same(
        "there are exactly two red pieces",
        "it has exactly two red pieces",
    );
    same(
        "it contains more than two pieces",
        "it contains at least three pieces",
    );
    same(
        "it contains fewer than three pieces",
        "it contains at most two pieces",
    );
    same(
        "no two pieces are the same color",
        "it does not contain at least two pieces of the same color",
    );
    same(
        "it contains at least one piece pointing at a piece that is upright",
        "it contains at least one piece pointing at an upright piece",
    );
    same(
        "A koan has the Buddha-nature iff it contains a red piece",
        "it contains a red piece",
    );
}

#[test]
fn two_or_three_is_either_exact_number() {
    let rule = "it contains two or three pieces of the same size and color";
    assert!(!white(rule, "red small upright, red large upright"));
    assert!(white(rule, "red small upright, red small flat"));
    assert!(white(
        rule,
        "red small upright, red small flat, red small upright"
    ));
    assert!(!white(
        rule,
        "red small upright, red small flat, red small upright, red small flat"
    ));
    // Four of one kind and two of another: the pair counts.
    assert!(white(
        rule,
        "red small upright, red small flat, red small upright, red small flat, blue large upright, blue large flat"
    ));
}
