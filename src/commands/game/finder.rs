//! koanscope as the Master's hands: koans a rule marks a given way (the initial koans), and
//! counter-examples. Counter-examples come from the rule engine's search (build plans realised
//! by the builder and checked by the geometry engine, the booklet's "helpful" style); this
//! module's own small candidates (single pieces, pairs, towers, nests, threes) back it up and
//! give the initial koans.

use std::cell::OnceCell;
use std::path::Path;

use koanscope_builder::GeometryRealiser;
use koanscope_game::master::CounterExamples;
use koanscope_rules::{Rule, SearchOptions, SearchResult, find_counterexample, mark_scene};
use koanscope_scene::{Mark, Scene};

use super::koan_text::koan_from_text;

const COLORS: [&str; 4] = ["red", "yellow", "green", "blue"];
const SIZES: [&str; 3] = ["small", "medium", "large"];
const POSES: [&str; 4] = ["upright", "flat", "down", "tipped"];

/// Candidate koans, built once per run.
#[derive(Default)]
pub struct Finder {
    candidates: OnceCell<Vec<Scene>>,
}

fn descriptions() -> Vec<String> {
    let mut singles = Vec::new();
    for pose in POSES {
        for size in SIZES {
            for color in COLORS {
                singles.push(format!("{color} {size} {pose}"));
            }
        }
    }
    let mut out = singles.clone();
    // Pairs side by side, each unordered pair once.
    for (i, a) in singles.iter().enumerate() {
        for b in &singles[i..] {
            out.push(format!("{a}, {b}"));
        }
    }
    // Towers, nests, pointing and opposite directions, in every pair of colours.
    for (ls, us) in [("medium", "small"), ("large", "small"), ("large", "medium")] {
        for lc in COLORS {
            for uc in COLORS {
                out.push(format!("{lc} {ls} upright, {uc} {us} upright on=0"));
                out.push(format!("{lc} {ls} upright, {uc} {us} upright in=0"));
                out.push(format!("{uc} {us} flat toward=1, {lc} {ls} upright"));
                out.push(format!("{uc} {us} down, {lc} {ls} upright"));
            }
        }
    }
    // Taller towers, two towers, a piece lying across two others, one piece of each colour.
    for c in COLORS {
        out.push(format!(
            "blue large upright, green large upright, {c} large flat z=44.6 x=22.5 y=-12"
        ));
        out.push(format!(
            "{c} large upright, {c} medium upright on=0, {c} small upright on=1"
        ));
        out.push(format!(
            "{c} large upright, {c} small upright on=0, {c} large upright, {c} small upright on=2"
        ));
    }
    for size in SIZES {
        for pose in ["upright", "flat"] {
            out.push(
                COLORS
                    .iter()
                    .map(|c| format!("{c} {size} {pose}"))
                    .collect::<Vec<_>>()
                    .join(", "),
            );
        }
    }
    // Threes of upright and flat pieces, for counting rules.
    let plain: Vec<&String> = singles
        .iter()
        .filter(|s| s.ends_with("upright") || s.ends_with("flat"))
        .collect();
    for i in 0..plain.len() {
        for j in i..plain.len() {
            for k in j..plain.len() {
                out.push(format!("{}, {}, {}", plain[i], plain[j], plain[k]));
            }
        }
    }
    out
}

impl Finder {
    fn candidates(&self) -> &[Scene] {
        self.candidates.get_or_init(|| {
            descriptions()
                .iter()
                .filter_map(|d| koan_from_text(d, Path::new(".")).ok())
                .collect()
        })
    }

    fn mark(rule: &Rule, scene: &Scene) -> Option<Mark> {
        mark_scene(rule, scene).ok()?.first().map(|m| m.mark)
    }

    /// The smallest candidate the rule marks `mark` (the Master's initial koans).
    pub fn koan_marked(&self, rule: &Rule, mark: Mark) -> Option<Scene> {
        self.candidates()
            .iter()
            .find(|s| Finder::mark(rule, s) == Some(mark))
            .cloned()
    }
}

impl CounterExamples for Finder {
    fn find(&self, secret: &Rule, guess: &Rule, _table: &Scene) -> Result<Option<Scene>, String> {
        // The rule engine's search first: it looks further (up to five pieces, arrangements).
        let searched = find_counterexample(
            secret,
            guess,
            &SearchOptions::default(),
            &GeometryRealiser::default(),
        );
        if let Ok(SearchResult::Found(found)) = searched
            && found.scene.koans.len() == 1
        {
            return Ok(Some(found.scene));
        }
        // Not found within its bound (or not buildable): the candidates here differ in shape.
        Ok(self
            .candidates()
            .iter()
            .find(|s| {
                let (a, b) = (Finder::mark(secret, s), Finder::mark(guess, s));
                a.is_some() && b.is_some() && a != b
            })
            .cloned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use koanscope_rules::Library;

    #[test]
    fn the_counter_example_disproves_the_guess_and_an_equivalent_guess_stands() {
        let finder = Finder::default();
        let rule = koanscope_rules::parse_rule(
            "The structure must contain exactly two Medium-sized pyramids.",
        )
        .expect("rule");
        let flat =
            koanscope_rules::parse_rule("The structure must contain at least one flat piece.")
                .expect("guess");
        let scene = finder
            .find(&rule, &flat, &Scene::default())
            .expect("search")
            .expect("a counter-example exists");
        assert_ne!(Finder::mark(&rule, &scene), Finder::mark(&flat, &scene));
        let same = koanscope_rules::parse_rule(
            "A koan has the Buddha-nature if it contains exactly two medium pieces.",
        )
        .expect("guess");
        assert_eq!(
            finder
                .find(&rule, &same, &Scene::default())
                .expect("search"),
            None
        );
    }

    #[test]
    fn koanscope_finds_initial_koans_for_every_library_rule() {
        let finder = Finder::default();
        let library = Library::builtin().expect("library");
        let mut missing = Vec::new();
        for r in &library.rules {
            for mark in [Mark::White, Mark::Black] {
                if finder.koan_marked(&r.rule, mark).is_none() {
                    missing.push(format!("{} ({mark})", r.name));
                }
            }
        }
        assert!(
            missing.is_empty(),
            "no koan found for: {}",
            missing.join(", ")
        );
    }
}
