//! Counter-example search speed: the booklet's example, an equivalent pair (the whole bound is
//! searched), and a spread of ordered library pairs. `examples/pair_times.rs` times every pair.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use koanscope_builder::GeometryRealiser;
use koanscope_rules::{Library, SearchOptions, find_counterexample, parse_rule};

fn bench(c: &mut Criterion) {
    let realiser = GeometryRealiser::default();
    let options = SearchOptions::default();
    let rule = |t: &str| parse_rule(t).expect("rule");

    let secret = rule("it contains more red pieces than blue pieces");
    let guess = rule("it contains at least one red piece");
    c.bench_function("counterexample/booklet example", |b| {
        b.iter(|| find_counterexample(black_box(&secret), &guess, &options, &realiser))
    });

    let secret = rule("The structure must contain zero yellow pieces.");
    let guess = rule("The structure must contain only red, blue, or green pieces.");
    let mut g = c.benchmark_group("counterexample");
    g.sample_size(10);
    g.bench_function("equivalent pair (whole bound)", |b| {
        b.iter(|| find_counterexample(black_box(&secret), &guess, &options, &realiser))
    });

    let lib = Library::builtin().expect("library");
    let pairs: Vec<_> = lib
        .rules
        .iter()
        .flat_map(|a| lib.rules.iter().map(move |b| (a, b)))
        .filter(|(a, b)| a.name != b.name)
        .step_by(97)
        .collect();
    g.throughput(Throughput::Elements(pairs.len() as u64));
    g.bench_function("every 97th ordered library pair", |b| {
        b.iter(|| {
            for (a, b) in &pairs {
                let _ = black_box(find_counterexample(&a.rule, &b.rule, &options, &realiser));
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
