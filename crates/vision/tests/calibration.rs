//! Calibration checked against the rendered dataset's exact camera.

mod common;

use std::path::PathBuf;

use koanscope_vision::{
    Calibration, Chessboard, Intrinsics, IntrinsicsQuality, LensModel, VisionError,
    calibrate_intrinsics, calibrate_table, find_board, image::read_bgr,
};
use nalgebra::{Isometry3, Point3};

fn views(dataset: &std::path::Path, count: usize) -> Vec<koanscope_vision::BoardView> {
    (0..count)
        .map(|i| {
            let path = dataset.join(format!("intrinsics/intr_{i:02}.jpg"));
            let image = read_bgr(&path).expect("readable");
            find_board(&image, &path, &Chessboard::STANDARD).expect("board visible")
        })
        .collect()
}

#[test]
fn intrinsics_match_the_true_camera() {
    let Some(dataset) = common::dataset() else {
        return;
    };
    let (k_true, _) = common::truth_setup(&dataset.join("D1"));
    for (count, model) in [(12, LensModel::for_views(12)), (4, LensModel::for_views(4))] {
        let report = calibrate_intrinsics(
            &views(&dataset, count),
            &Chessboard::STANDARD,
            model,
            &IntrinsicsQuality::default(),
        )
        .expect("a good calibration");
        let k = report.intrinsics.camera_matrix;
        assert!(report.rms_px < 0.2, "{count} views: RMS {}", report.rms_px);
        for (r, c, tolerance) in [(0, 0, 2.0), (1, 1, 2.0), (0, 2, 2.0), (1, 2, 2.0)] {
            assert!(
                (k[(r, c)] - k_true[(r, c)]).abs() < tolerance,
                "{count} views: K[{r},{c}] = {} vs true {}",
                k[(r, c)],
                k_true[(r, c)]
            );
        }
        assert!(report.intrinsics.distortion.iter().all(|d| d.abs() < 0.01));
    }
}

#[test]
fn one_flat_view_is_refused_with_advice() {
    let Some(dataset) = common::dataset() else {
        return;
    };
    let error = calibrate_intrinsics(
        &views(&dataset, 1),
        &Chessboard::STANDARD,
        LensModel::Pinhole,
        &IntrinsicsQuality::default(),
    )
    .expect_err("one view is not enough");
    assert!(matches!(error, VisionError::PoorCalibration { .. }));
    assert!(error.to_string().contains("more"), "{error}");
}

/// Largest distance, mm, between where two camera_from_table poses put table points in the
/// play area (a square metre around the board).
fn pose_error_mm(a: &Isometry3<f64>, b: &Isometry3<f64>) -> f64 {
    let mut worst: f64 = 0.0;
    for x in [-300.0, 0.0, 500.0] {
        for y in [-300.0, 0.0, 500.0] {
            let p = Point3::new(x, y, 0.0);
            worst = worst.max((a * p - b * p).norm());
        }
    }
    worst
}

#[test]
fn table_frame_matches_every_setup() {
    let Some(dataset) = common::dataset() else {
        return;
    };
    for setup in ["D1", "D2", "D3"] {
        let dir = dataset.join(setup);
        let (k_true, camera_from_table_true) = common::truth_setup(&dir);
        let intrinsics = Intrinsics {
            camera_matrix: k_true,
            distortion: [0.0; 5],
            image_size: [1280, 720],
        };
        let path = dir.join("table.jpg");
        let image = read_bgr(&path).expect("readable");
        let report = calibrate_table(&image, &path, &intrinsics, &Chessboard::STANDARD)
            .expect("board on the table");
        let error = pose_error_mm(&report.camera_from_table, &camera_from_table_true);
        assert!(report.rms_px < 0.2, "{setup}: RMS {}", report.rms_px);
        assert!(error < 1.0, "{setup}: table points off by {error:.2} mm");
    }
}

#[test]
fn calibration_file_round_trips_and_rejects_other_files() {
    let calibration = Calibration {
        intrinsics: Intrinsics {
            camera_matrix: nalgebra::Matrix3::new(
                900.0, 0.0, 640.0, 0.0, 901.0, 360.0, 0.0, 0.0, 1.0,
            ),
            distortion: [0.1, -0.01, 0.0, 0.0, 0.0],
            image_size: [1280, 720],
        },
        camera_from_table: Some(koanscope_vision::isometry_from_rvec_tvec(
            [0.8, 2.6, -0.8],
            [60.0, -94.0, 628.0],
        )),
        rms_px: Some(0.05),
        // A board seen under a warm lamp.
        board_white_lab: Some([201.0, 4.0, 18.0]),
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("calibration/table.yaml");
    calibration.save(&path).expect("written");
    let text = std::fs::read_to_string(&path).expect("readable");
    for field in [
        "camera_matrix",
        "distortion_coefficients",
        "image_width",
        "image_height",
        "table_rvec",
        "table_tvec",
        "board_white_lab",
    ] {
        assert!(text.contains(field), "{field} missing from\n{text}");
    }
    let back = Calibration::load(&path).expect("reads back");
    assert_eq!(back.intrinsics.image_size, [1280, 720]);
    assert!((back.intrinsics.camera_matrix - calibration.intrinsics.camera_matrix).norm() < 1e-9);
    let pose_back = back.camera_from_table.expect("table pose");
    assert!(pose_error_mm(&pose_back, &calibration.camera_from_table.expect("pose")) < 1e-6);
    assert_eq!(back.board_white_lab, Some([201.0, 4.0, 18.0]));
    let advice = back.light_cast_advice().expect("a warm light is told");
    assert!(advice.contains("warm (yellow)"), "{advice}");
    // A file without it (written before it was kept, or from intrinsics alone) reads as a light
    // never measured.
    let older_path = dir.path().join("older.yaml");
    Calibration {
        board_white_lab: None,
        ..calibration.clone()
    }
    .save(&older_path)
    .expect("written");
    let older_text = std::fs::read_to_string(&older_path).expect("readable");
    assert!(!older_text.contains("board_white_lab"), "{older_text}");
    let older = Calibration::load(&older_path).expect("an older file reads");
    assert_eq!(older.board_white_lab, None);
    assert_eq!(older.light_cast_advice(), None);

    let cases: [(&str, &str); 4] = [
        ("json.yaml", r#"{"K": [[914, 0, 639.5]]}"#),
        (
            "partial.yaml",
            "%YAML:1.0\n---\nimage_width: 1280\nimage_height: 720\n",
        ),
        ("broken.yaml", "%YAML:1.0\n---\ncamera_matrix: [1, 2\n"),
        ("text.yaml", "%YAML:1.0\n---\nimage_width: wide\n"),
    ];
    for (name, text) in cases {
        let path: PathBuf = dir.path().join(name);
        std::fs::write(&path, text).expect("written");
        let error = Calibration::load(&path).expect_err("not a calibration");
        assert!(
            matches!(error, VisionError::NotACalibration { .. }),
            "{name}: {error}"
        );
    }
    let missing = Calibration::load(&dir.path().join("nope.yaml")).expect_err("missing");
    assert!(
        missing.to_string().contains("koanscope calibrate"),
        "{missing}"
    );
}

#[test]
fn bad_images_are_errors_not_panics() {
    let dir = tempfile::tempdir().expect("temp dir");
    let corrupt = dir.path().join("corrupt.jpg");
    std::fs::write(&corrupt, b"\xff\xd8\xff\xe0 not really a jpeg").expect("written");
    for path in [corrupt, dir.path().join("missing.jpg")] {
        let error = read_bgr(&path).expect_err("unreadable");
        assert!(
            matches!(error, VisionError::ImageUnreadable { .. }),
            "{error}"
        );
    }
}

#[test]
fn a_jpeg_cut_short_is_refused_not_read_half_grey() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sample = common::sample_images().join("S2/scene_04.jpg");
    let whole = std::fs::read(&sample).expect("the sample frame");
    assert!(read_bgr(&sample).is_ok());
    // Cut anywhere in its picture data (here two thirds of the way), OpenCV would decode it
    // and fill the rest with grey.
    let cut = dir.path().join("cut.jpg");
    std::fs::write(&cut, &whole[..whole.len() * 2 / 3]).expect("written");
    let error = read_bgr(&cut).expect_err("cut short");
    assert!(
        matches!(error, VisionError::ImageCutShort { .. }),
        "{error}"
    );
    let message = error.to_string();
    assert!(
        message.contains("cut.jpg") && message.contains("cut short"),
        "{message}"
    );
}

#[test]
fn an_image_of_another_resolution_is_refused() {
    let Some(dataset) = common::dataset() else {
        return;
    };
    let path = dataset.join("D1/table.jpg");
    let image = read_bgr(&path).expect("readable");
    let intrinsics = Intrinsics {
        camera_matrix: nalgebra::Matrix3::new(914.0, 0.0, 959.5, 0.0, 914.0, 539.5, 0.0, 0.0, 1.0),
        distortion: [0.0; 5],
        image_size: [1920, 1080],
    };
    let error = calibrate_table(&image, &path, &intrinsics, &Chessboard::STANDARD)
        .expect_err("wrong resolution");
    assert!(
        matches!(error, VisionError::ResolutionMismatch { .. }),
        "{error}"
    );
    assert!(error.to_string().contains("1920x1080"), "{error}");
}
