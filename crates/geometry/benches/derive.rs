//! Deriving everything for a busy table: 20 koans, 100 pieces. Target: 2 ms on one core (an
//! eighth of a 60 fps frame). Reading the poses document is measured beside it as a baseline.

use criterion::{Criterion, criterion_group, criterion_main};
use koanscope_geometry::{Engine, fixtures::busy_table};
use koanscope_scene::Scene;
use std::hint::black_box;

fn derive(c: &mut Criterion) {
    let engine = Engine::default();
    let table = busy_table(20);
    let document = table.to_json_string(false);
    c.bench_function("derive 20 koans / 100 pieces", |b| {
        b.iter(|| {
            let mut scene = table.clone();
            engine.derive(black_box(&mut scene));
            scene
        })
    });
    c.bench_function("baseline: read the poses document", |b| {
        b.iter(|| Scene::from_json_str(black_box(&document)).expect("valid"))
    });
}

criterion_group!(benches, derive);
criterion_main!(benches);
