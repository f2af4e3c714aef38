//! Every library rule: parsed, rendered and parsed back to the same rule, and marking its own
//! example koans white and black.

use koanscope_rules::{Difficulty, Library, parse_rule, render};

#[test]
fn library_has_seed_rules_and_forty_more_at_every_difficulty() {
    let lib = Library::builtin().expect("the built-in library loads");
    let seeds = lib.rules.iter().filter(|r| r.source.is_some()).count();
    let others = lib.rules.len() - seeds;
    assert!(seeds >= 30, "{seeds} seed rules");
    assert!(others >= 40, "{others} rules beyond the seeds");
    for d in [Difficulty::Easy, Difficulty::Medium, Difficulty::Hard] {
        assert!(
            lib.rules.iter().filter(|r| r.difficulty == d).count() >= 10,
            "{d}"
        );
    }
}

#[test]
fn every_library_rule_round_trips_through_its_rendering() {
    let lib = Library::builtin().unwrap();
    for r in &lib.rules {
        let text = render::rule(&r.rule);
        let back = parse_rule(&text).unwrap_or_else(|e| panic!("{}: {text:?}: {e}", r.name));
        assert_eq!(back, r.rule, "{}: {text}", r.name);
        // The rendering is a fixed point.
        assert_eq!(render::rule(&back), text, "{}", r.name);
    }
}

#[test]
fn every_library_rule_marks_its_koans_both_ways() {
    let lib = Library::builtin().unwrap();
    let mut failures = Vec::new();
    for r in &lib.rules {
        let white = r.white.summary().unwrap();
        let black = r.black.summary().unwrap();
        let (wm, wr) = white.explain(&r.rule);
        let (bm, br) = black.explain(&r.rule);
        if !white.white(&r.rule) {
            failures.push(format!("{}: white koan marked {wm} ({wr})", r.name));
        }
        if black.white(&r.rule) {
            failures.push(format!("{}: black koan marked {bm} ({br})", r.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
