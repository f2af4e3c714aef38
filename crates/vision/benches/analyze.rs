//! Analysing one 1280x720 frame with 16 pieces (drawn by `render`, so no dataset is needed).
//! Target: 33 ms on one core. The floor measured beside it is what any colour pipeline pays:
//! OpenCV's colour conversion plus a threshold of the same frame.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use koanscope_geometry::{Engine, PieceModels};
use koanscope_scene::{Color, Size};
use koanscope_vision::pose::{flat_tilt, pose_on_table};
use koanscope_vision::render::draw_pieces;
use koanscope_vision::{
    Camera, ColorModel, Detector, Intrinsics, analyze, isometry_from_rvec_tvec,
};
use nalgebra::Matrix3;
use opencv::core::Mat;
use opencv::imgproc;

fn frame() -> (Camera, Mat) {
    let camera = Camera::new(
        Intrinsics {
            camera_matrix: Matrix3::new(914.0, 0.0, 639.5, 0.0, 914.0, 359.5, 0.0, 0.0, 1.0),
            distortion: [0.0; 5],
            image_size: [1280, 720],
        },
        isometry_from_rvec_tvec([0.8779, 2.6609, -0.8445], [59.86, -94.47, 628.14]),
    );
    let models = PieceModels::default();
    let colors = [Color::Red, Color::Yellow, Color::Green, Color::Blue];
    let sizes = [Size::Small, Size::Medium, Size::Large];
    let pieces: Vec<_> = (0..16)
        .map(|i| {
            let size = sizes[i % 3];
            let dims = models.dims(size);
            let tilt = if i % 4 == 3 { flat_tilt(&dims) } else { 0.0 };
            let (x, y) = (
                -100.0 + 70.0 * (i % 4) as f64,
                -20.0 + 60.0 * (i / 4) as f64,
            );
            (
                colors[i % 4],
                size,
                pose_on_table(&dims, tilt, x, y, 0.4 * i as f64),
            )
        })
        .collect();
    let image = draw_pieces(&camera, &pieces).expect("drawn");
    (camera, image)
}

fn bench(c: &mut Criterion) {
    let (camera, image) = frame();
    let detector = Detector::new(ColorModel::default());
    let engine = Engine::default();
    let path = std::path::Path::new("bench.png");
    let mut group = c.benchmark_group("vision");
    group.sample_size(10);
    group.bench_function("analyze a 1280x720 frame, 16 pieces", |b| {
        b.iter(|| analyze(black_box(&image), path, &camera, &detector, &engine).expect("analysed"))
    });
    group.bench_function("floor: Lab conversion + threshold", |b| {
        b.iter(|| {
            let mut lab = Mat::default();
            imgproc::cvt_color_def(black_box(&image), &mut lab, imgproc::COLOR_BGR2Lab)
                .expect("converted");
            let mut mask = Mat::default();
            imgproc::threshold(&lab, &mut mask, 128.0, 255.0, imgproc::THRESH_BINARY)
                .expect("thresholded");
            mask
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
