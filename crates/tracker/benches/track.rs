//! One frame's worth of tracking on a busy table (20 koans, 100 pieces, koans derived), beside
//! the geometry engine deriving the same table as a baseline: the tracker should be a small
//! fraction of what a frame already costs. And the occlusion detector on a 1280×720 frame.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use koanscope_geometry::{Engine, fixtures::busy_table};
use koanscope_tracker::{Observation, Occlusion, OcclusionDetector, Tracker};

fn track(c: &mut Criterion) {
    let engine = Engine::default();
    let mut scene = busy_table(20);
    engine.derive(&mut scene);
    let mut tracker = Tracker::default();
    let mut time = Duration::ZERO;
    let mut observation = Observation {
        time,
        scene: scene.clone(),
        occlusion: Occlusion::CLEAR,
    };
    for _ in 0..60 {
        time += Duration::from_millis(33);
        observation.time = time;
        tracker.update(&observation);
    }
    c.bench_function("tracker update, 20 koans / 100 pieces", |b| {
        b.iter(|| {
            observation.time += Duration::from_millis(33);
            tracker.update(black_box(&observation))
        })
    });
    c.bench_function("baseline: derive the same table", |b| {
        b.iter(|| {
            let mut table = busy_table(20);
            engine.derive(black_box(&mut table));
            table
        })
    });

    let frame = image::open(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../sample_images/S1/scene_00.jpg"
    ))
    .expect("sample frame")
    .into_rgb8();
    let mut detector = OcclusionDetector::default();
    let mut time = Duration::ZERO;
    c.bench_function("occlusion detector, 1280x720 frame", |b| {
        b.iter(|| {
            time += Duration::from_millis(33);
            detector.observe(black_box(&frame), time)
        })
    });
}

criterion_group!(benches, track);
criterion_main!(benches);
