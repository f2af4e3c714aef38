//! Detection on a frame drawn from known poses with the crate's own camera model: runs on a
//! fresh checkout, without the rendered dataset.

use koanscope_geometry::{Engine, PieceModels};
use koanscope_scene::{Color, Orientation, Size};
use koanscope_vision::pose::{flat_tilt, pose_on_table, silhouette};
use koanscope_vision::{
    Camera, ColorModel, Detector, Intrinsics, analyze, isometry_from_rvec_tvec,
};
use nalgebra::{Isometry3, Matrix3, Point3};
use opencv::core::{CV_8UC3, Mat, Point, Scalar, Vector};
use opencv::imgproc;

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

/// Flat-shaded plastic over a warm wood colour, with a gentle light gradient across the table.
fn draw(camera: &Camera, pieces: &[(Color, Size, Isometry3<f64>)]) -> Mat {
    let mut frame =
        Mat::new_rows_cols_with_default(720, 1280, CV_8UC3, Scalar::new(95.0, 130.0, 165.0, 0.0))
            .expect("a frame");
    imgproc::rectangle_points(
        &mut frame,
        Point::new(0, 0),
        Point::new(1279, 240),
        Scalar::new(105.0, 140.0, 175.0, 0.0),
        -1,
        imgproc::LINE_8,
        0,
    )
    .expect("drawn");
    let models = PieceModels::default();
    for (color, size, pose) in pieces {
        let bgr = match color {
            Color::Red => Scalar::new(30.0, 30.0, 190.0, 0.0),
            Color::Yellow => Scalar::new(20.0, 190.0, 230.0, 0.0),
            Color::Green => Scalar::new(40.0, 150.0, 30.0, 0.0),
            Color::Blue => Scalar::new(180.0, 60.0, 20.0, 0.0),
            _ => Scalar::new(30.0, 30.0, 30.0, 0.0),
        };
        let outline = silhouette(camera, &models.dims(*size), pose).expect("in view");
        let points: Vector<Point> = outline
            .iter()
            .map(|p| Point::new(p.x.round() as i32, p.y.round() as i32))
            .collect();
        imgproc::fill_convex_poly(&mut frame, &points, bgr, imgproc::LINE_AA, 0).expect("drawn");
    }
    frame
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
    let frame = draw(&camera, &pieces);
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
