//! Counter-examples built for real: the geometry engine's facts, not the plan's, decide.

use koanscope_builder::GeometryRealiser;
use koanscope_rules::{
    KoanSummary, Library, SearchOptions, SearchResult, find_counterexample, parse_rule,
};

fn rule(text: &str) -> koanscope_rules::Rule {
    parse_rule(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

#[test]
fn a_counterexample_is_really_marked_differently() {
    let realiser = GeometryRealiser::default();
    let secret = rule("it contains more red pieces than blue pieces");
    let guess = rule("it contains at least one red piece");
    let SearchResult::Found(found) =
        find_counterexample(&secret, &guess, &SearchOptions::default(), &realiser).unwrap()
    else {
        panic!("the booklet's example has a counter-example");
    };
    // Re-derive the marks from the realised scene itself.
    let koan = &found.scene.koans[0];
    let s = KoanSummary::from_scene(&found.scene, koan).unwrap();
    assert_ne!(s.white(&secret), s.white(&guess));
    // The booklet's answer: a black koan with one red piece and one blue piece.
    assert_eq!(found.plan.pieces.len(), 2, "{}", found.plan.describe());
    println!(
        "{}\n{} / {}",
        found.plan.describe(),
        found.rule_reason,
        found.guess_reason
    );
}

#[test]
fn equivalent_guesses_get_no_counterexample() {
    let realiser = GeometryRealiser::default();
    let secret = rule("The structure must contain zero yellow pieces.");
    let guess = rule("The structure must contain only red, blue, or green pieces.");
    match find_counterexample(&secret, &guess, &SearchOptions::default(), &realiser).unwrap() {
        SearchResult::NotFound { bound, .. } => {
            assert!(bound.contains("up to"), "{bound}");
        }
        SearchResult::Found(f) => panic!("equivalent rules told apart by {}", f.plan.describe()),
    }
    // With a black piece in play they differ.
    let options = SearchOptions {
        palette: vec![
            koanscope_scene::Color::Red,
            koanscope_scene::Color::Yellow,
            koanscope_scene::Color::Green,
            koanscope_scene::Color::Blue,
            koanscope_scene::Color::Black,
        ],
        ..SearchOptions::default()
    };
    assert!(matches!(
        find_counterexample(&secret, &guess, &options, &realiser).unwrap(),
        SearchResult::Found(_)
    ));
}

#[test]
fn library_pairs_get_counterexamples_that_hold_on_the_built_koan() {
    let realiser = GeometryRealiser::default();
    let lib = Library::builtin().unwrap();
    let rules: Vec<_> = lib.rules.iter().collect();
    let mut found = 0;
    let mut missing = Vec::new();
    // A spread of ordered pairs (every 7th), each checked on the realised scene.
    for (k, (a, b)) in rules
        .iter()
        .flat_map(|a| rules.iter().map(move |b| (a, b)))
        .filter(|(a, b)| a.name != b.name)
        .enumerate()
    {
        if k % 7 != 0 {
            continue;
        }
        match find_counterexample(&a.rule, &b.rule, &SearchOptions::default(), &realiser).unwrap() {
            SearchResult::Found(f) => {
                let s = KoanSummary::from_scene(&f.scene, &f.scene.koans[0]).unwrap();
                assert_ne!(
                    s.white(&a.rule),
                    s.white(&b.rule),
                    "{} vs {}",
                    a.name,
                    b.name
                );
                found += 1;
            }
            SearchResult::NotFound { .. } => missing.push(format!("{} vs {}", a.name, b.name)),
        }
    }
    println!(
        "found {found}, none within the bound for {}: {:?}",
        missing.len(),
        missing
    );
    assert!(found > 0);
    assert!(missing.len() * 10 < found, "{missing:?}");
}
