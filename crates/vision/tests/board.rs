//! The calibration board left on the table is black and white squares, not black pieces.

mod common;

use std::path::Path;

use koanscope_geometry::Engine;
use koanscope_vision::{Camera, ColorModel, Detector, Intrinsics, analyze, image::read_bgr};

#[test]
fn the_calibration_board_left_on_the_table_is_not_read_as_pieces() {
    let setup = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../sample_images/S1");
    let (k, camera_from_table) = common::truth_setup(&setup);
    let camera = Camera::new(
        Intrinsics {
            camera_matrix: k,
            distortion: [0.0; 5],
            image_size: [1280, 720],
        },
        camera_from_table,
    );
    let detector = Detector::new(ColorModel::default());
    let engine = Engine::default();
    let path = setup.join("table.jpg");
    let image = read_bgr(&path).expect("readable");
    let analysis = analyze(&image, &path, &camera, &detector, &engine).expect("analysed");
    assert!(
        analysis.scene.pieces.is_empty(),
        "{} pieces",
        analysis.scene.pieces.len()
    );
    assert!(
        analysis
            .warnings
            .iter()
            .any(|w| w.contains("calibration board")),
        "{:?}",
        analysis.warnings
    );
    // Without the board, a scene's pieces are all still there (none is taken for the board).
    let path = setup.join("scene_00.jpg");
    let image = read_bgr(&path).expect("readable");
    let analysis = analyze(&image, &path, &camera, &detector, &engine).expect("analysed");
    assert!(
        !analysis
            .warnings
            .iter()
            .any(|w| w.contains("calibration board"))
    );
    assert!(analysis.scene.pieces.len() >= 5);
}
