//! One frame of the window: the Master's console and the public view drawn by egui (run +
//! tessellate, no GPU) with the overlay on the settled sample table. Target: 16 ms (60 frames
//! per second). Copying the frame's RGBA is measured beside it as a baseline.

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use koanscope::live::{HeadlessWindow, settled_feed};

fn ui_frame(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let feed = settled_feed(
        &root.join("sample_images/S1/scene_00.jpg"),
        &root.join("calibration/sample-S1.yaml"),
    )
    .expect("the sample table settles");
    let picture = feed.picture.clone().expect("the feed has a picture");
    let mut window = HeadlessWindow::new(feed).expect("the window opens headless");
    c.bench_function("window: both views, same picture", |b| {
        b.iter(|| window.frame(false))
    });
    c.bench_function("window: both views, new picture", |b| {
        b.iter(|| window.frame(true))
    });
    c.bench_function("baseline: copy the frame's RGBA", |b| {
        b.iter(|| black_box(&picture.rgba).clone())
    });
}

criterion_group!(benches, ui_frame);
criterion_main!(benches);
