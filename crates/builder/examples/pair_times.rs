//! Times a counter-example search for every ordered pair of different library rules and prints
//! the median, the 99th percentile and the worst (release build recommended).

use std::time::{Duration, Instant};

use koanscope_builder::GeometryRealiser;
use koanscope_rules::{Library, SearchOptions, SearchResult, find_counterexample};

fn main() {
    let realiser = GeometryRealiser::default();
    let lib = Library::builtin().expect("library");
    let options = SearchOptions::default();
    let mut times: Vec<(Duration, String, bool)> = Vec::new();
    for a in &lib.rules {
        for b in &lib.rules {
            if a.name == b.name {
                continue;
            }
            let start = Instant::now();
            let result = find_counterexample(&a.rule, &b.rule, &options, &realiser);
            let found = matches!(result, Ok(SearchResult::Found(_)));
            times.push((start.elapsed(), format!("{} vs {}", a.name, b.name), found));
        }
    }
    times.sort_by_key(|t| t.0);
    let n = times.len();
    let found = times.iter().filter(|t| t.2).count();
    println!("{n} ordered pairs, counter-example found for {found}");
    println!("median {:?}", times[n / 2].0);
    println!("p99    {:?}", times[n * 99 / 100].0);
    println!("worst  {:?} ({})", times[n - 1].0, times[n - 1].1);
    for t in times.iter().filter(|t| !t.2) {
        println!("none within the bound: {} ({:?})", t.1, t.0);
    }
}
