//! Rule evaluation speed: every library rule on 5-piece koans (compiled once per koan), the cost
//! of compiling a koan, and the cost of parsing a rule.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use koanscope_rules::{Library, Sketch, parse};

/// Five-piece koans with touching, pointing, towers and nests, so relational rules do real work.
const KOANS: &[&str] = &[
    "red large upright, blue small upright ungrounded, green medium flat, yellow small weird, red medium flat dir=2; tower 0 1; 0 fully-in 1; 2 points 0 4; 3 touches 2; 4 touches 0",
    "blue large flat, blue medium flat dir=1, green small upright, yellow large upright, red small down; 0 points 2 3; 1 points 3; 2 touches 3; 4 touches 3",
    "yellow medium upright, yellow small upright, red large upright, green large flat dir=3, blue medium weird ungrounded; nest 2 1; 1 in 2; 3 points 0; 4 touches 3; 4 touches 0",
];

fn bench(c: &mut Criterion) {
    let lib = Library::builtin().expect("library");
    let rules: Vec<_> = lib.rules.iter().map(|r| r.rule.clone()).collect();
    let summaries: Vec<_> = KOANS
        .iter()
        .map(|k| {
            Sketch::parse(k)
                .expect("sketch")
                .summary()
                .expect("summary")
        })
        .collect();

    let mut g = c.benchmark_group("evaluate");
    g.throughput(Throughput::Elements((rules.len() * summaries.len()) as u64));
    g.bench_function("library rules x 5-piece koans", |b| {
        b.iter(|| {
            let mut white = 0u32;
            for s in &summaries {
                for r in &rules {
                    white += u32::from(s.white(black_box(r)));
                }
            }
            white
        })
    });
    g.finish();

    let sketches: Vec<_> = KOANS.iter().map(|k| Sketch::parse(k).unwrap()).collect();
    let koans: Vec<_> = sketches.iter().map(|s| s.to_koan()).collect();
    let mut g = c.benchmark_group("compile");
    g.throughput(Throughput::Elements(koans.len() as u64));
    g.bench_function("5-piece koan summaries", |b| {
        b.iter(|| {
            for (koan, facts) in &koans {
                black_box(koanscope_rules::KoanSummary::from_facts(koan, facts).unwrap());
            }
        })
    });
    g.finish();

    let texts: Vec<_> = lib.rules.iter().map(|r| r.text.clone()).collect();
    let mut g = c.benchmark_group("parse");
    g.throughput(Throughput::Elements(texts.len() as u64));
    g.bench_function("library rule texts", |b| {
        b.iter(|| {
            for t in &texts {
                let _ = black_box(parse(black_box(t)));
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
