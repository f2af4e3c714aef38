//! Analysing one 1280x720 frame with 16 pieces (drawn by `render`, so no dataset is needed).
//! Target: 33 ms on one core. The floor measured beside it is what any colour pipeline pays:
//! OpenCV's colour conversion plus a threshold of the same frame.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use koanscope_geometry::Engine;
use koanscope_vision::render::bench_table;
use koanscope_vision::segment::{floor_lab_threshold, use_one_thread};
use koanscope_vision::{ColorModel, Detector, analyze};

fn bench(c: &mut Criterion) {
    use_one_thread().expect("OpenCV on one thread");
    koanscope_vision::heap::keep_frame_buffers();
    let (camera, image) = bench_table().expect("drawn");
    let detector = Detector::new(ColorModel::default());
    let engine = Engine::default();
    let path = std::path::Path::new("bench.png");
    let mut group = c.benchmark_group("vision");
    group.sample_size(10);
    group.bench_function("analyze a 1280x720 frame, 16 pieces", |b| {
        b.iter(|| analyze(black_box(&image), path, &camera, &detector, &engine).expect("analysed"))
    });
    group.bench_function("floor: Lab conversion + threshold", |b| {
        b.iter(|| floor_lab_threshold(black_box(&image)).expect("thresholded"))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
