//! Detection on a frame drawn from known poses with the crate's own camera model: runs on a
//! fresh checkout, without the rendered dataset.

use koanscope_geometry::{Engine, PieceModels};
use koanscope_scene::{Color, Orientation, Size};
use koanscope_vision::pose::{flat_tilt, pose_on_table};
use koanscope_vision::{
    Camera, ColorModel, Detector, Intrinsics, analyze, isometry_from_rvec_tvec,
};
use nalgebra::{Matrix3, Point3};

fn camera() -> Camera {
    Camera::new(
        Intrinsics {
            camera_matrix: Matrix3::new(914.0, 0.0, 639.5, 0.0, 914.0, 359.5, 0.0, 0.0, 1.0),
            distortion: [0.0; 5],
            image_size: [1280, 720],
        },
        isometry_from_rvec_tvec([0.8779, 2.6609, -0.8445], [59.86, -94.47, 628.14]),
    )
}

#[test]
fn pieces_drawn_from_known_poses_are_found_where_they_are() {
    let camera = camera();
    let models = PieceModels::default();
    let upright =
        |size: Size, x: f64, y: f64, yaw: f64| pose_on_table(&models.dims(size), 0.0, x, y, yaw);
    let flat = |size: Size, x: f64, y: f64, yaw: f64| {
        let dims = models.dims(size);
        pose_on_table(&dims, flat_tilt(&dims), x, y, yaw)
    };
    let pieces = [
        (
            Color::Red,
            Size::Large,
            upright(Size::Large, 40.0, 60.0, 0.3),
        ),
        (
            Color::Blue,
            Size::Medium,
            flat(Size::Medium, 160.0, 20.0, 2.0),
        ),
        (
            Color::Yellow,
            Size::Small,
            upright(Size::Small, 110.0, 150.0, 1.1),
        ),
        (
            Color::Green,
            Size::Medium,
            upright(Size::Medium, -60.0, 180.0, 0.0),
        ),
    ];
    let frame = koanscope_vision::render::draw_pieces(&camera, &pieces).expect("drawn");
    let analysis = analyze(
        &frame,
        std::path::Path::new("drawn.png"),
        &camera,
        &Detector::new(ColorModel::default()),
        &Engine::default(),
    )
    .expect("analysed");
    assert_eq!(
        analysis.scene.pieces.len(),
        pieces.len(),
        "{:#?}",
        analysis.scene.pieces
    );
    for (color, size, pose) in &pieces {
        let truth_base = pose * Point3::origin();
        let found = analysis
            .scene
            .pieces
            .iter()
            .find(|p| p.color == *color)
            .unwrap_or_else(|| panic!("no {color} piece"));
        assert_eq!(found.size, *size, "{color}");
        let attributes = found.attributes.as_ref().expect("derived");
        let error = (attributes.base_center_mm - truth_base).norm();
        assert!(error < 2.0, "{color} base off by {error:.2} mm");
        let expected = if *color == Color::Blue {
            Orientation::Flat
        } else {
            Orientation::Upright
        };
        assert_eq!(attributes.orientation, expected, "{color}");
    }
}
