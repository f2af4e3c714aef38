//! Analysing one 1280x720 frame with 16 pieces: drawn by `render` (flat shading, exact edges),
//! and rendered by Blender (the project's own `sample_images/S2/scene_04.jpg`: soft shading,
//! shadows, towers). Target: 33 ms on one core. The floor measured beside it is what any colour
//! pipeline pays: OpenCV's colour conversion plus a threshold of the same frame.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use koanscope_geometry::Engine;
use koanscope_vision::image::read_bgr;
use koanscope_vision::render::bench_table;
use koanscope_vision::segment::{floor_lab_threshold, use_one_thread};
use koanscope_vision::{Calibration, ColorModel, Detector, analyze};

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
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let rendered_path = root.join("sample_images/S2/scene_04.jpg");
    let calibration = root.join("calibration/sample-S2.yaml");
    let rendered_camera = Calibration::load(&calibration)
        .and_then(|c| c.camera(&calibration))
        .expect("the sample calibration loads");
    let rendered = read_bgr(&rendered_path).expect("the sample decodes");
    group.bench_function("analyze a rendered 1280x720 table, 16 pieces", |b| {
        b.iter(|| {
            analyze(
                black_box(&rendered),
                &rendered_path,
                &rendered_camera,
                &detector,
                &engine,
            )
            .expect("analysed")
        })
    });
    group.bench_function("floor of the rendered table", |b| {
        b.iter(|| floor_lab_threshold(black_box(&rendered)).expect("thresholded"))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
