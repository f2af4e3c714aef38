//! The calibration board left on the table is black and white squares, not black pieces.

mod common;

use std::path::{Path, PathBuf};

use koanscope_geometry::Engine;
use koanscope_vision::{Analysis, Camera, ColorModel, Detector, analyze, image::read_bgr};
use nalgebra::{Isometry3, Point3, Vector3};

/// A sample setup (`S1`...), and its true camera with the table frame moved by `moved` (the
/// identity: as calibrated).
fn sample_setup(name: &str, moved: Isometry3<f64>) -> (PathBuf, Camera) {
    let setup = common::sample_images().join(name);
    let camera = common::truth_camera(&setup);
    let camera = Camera::new(
        camera.intrinsics.clone(),
        camera.camera_from_table() * moved,
    );
    (setup, camera)
}

/// `koanscope analyze` of an image file.
fn analysed(path: &Path, camera: &Camera) -> Analysis {
    let image = read_bgr(path).expect("readable");
    let detector = Detector::new(ColorModel::default());
    analyze(&image, path, camera, &detector, &Engine::default()).expect("analysed")
}

/// Whether one of the analysis's warnings says `text`.
fn warned(analysis: &Analysis, text: &str) -> bool {
    analysis.warnings.iter().any(|w| w.contains(text))
}

#[test]
fn the_calibration_board_left_on_the_table_is_not_read_as_pieces() {
    // On oak, felt and dark slate (where the table's colour estimated around the paper
    // made some squares read black and some not).
    for name in ["S1", "S2", "S3"] {
        let (setup, camera) = sample_setup(name, Isometry3::identity());
        let analysis = analysed(&setup.join("table.jpg"), &camera);
        assert!(
            analysis.scene.pieces.is_empty(),
            "{name}: {} pieces",
            analysis.scene.pieces.len()
        );
        assert!(
            warned(&analysis, "calibration board"),
            "{name}: {:?}",
            analysis.warnings
        );
    }
    let (setup, camera) = sample_setup("S1", Isometry3::identity());
    // Without the board, a scene's pieces are all still there (none is taken for the board).
    let analysis = analysed(&setup.join("scene_00.jpg"), &camera);
    assert!(!warned(&analysis, "calibration board"));
    assert!(analysis.scene.pieces.len() >= 5);
}

#[test]
fn a_board_away_from_where_the_table_was_calibrated_is_not_read_as_pieces() {
    // The camera bumped after calibrating: the board, still where it lay, is now seen 12 cm
    // and 20 degrees away from where the calibration puts it.
    let (setup, camera) = sample_setup(
        "S1",
        Isometry3::new(
            Vector3::new(120.0, -40.0, 0.0),
            Vector3::z() * 20f64.to_radians(),
        ),
    );
    let analysis = analysed(&setup.join("table.jpg"), &camera);
    assert!(
        analysis.scene.pieces.is_empty(),
        "{} pieces: {:?}",
        analysis.scene.pieces.len(),
        analysis.warnings
    );
    // The Master is told why, and that the camera may have moved.
    assert!(
        analysis
            .warnings
            .iter()
            .any(|w| w.contains("not where the table was calibrated")
                && w.contains("calibrate the table again")),
        "{:?}",
        analysis.warnings
    );
}

/// The 16 bench pieces drawn with the standard board at `table_from_board`, all its inner
/// corners in view, and its paper's corners in view or not as `paper_in_view` says; analysed
/// with the camera as calibrated. Also how many pieces were drawn.
fn bench_with_board_at(table_from_board: Isometry3<f64>, paper_in_view: bool) -> (Analysis, usize) {
    use koanscope_vision::render::{bench_pieces, draw_board, draw_pieces, table_camera};
    let camera = table_camera();
    let pieces = bench_pieces();
    let mut frame = draw_pieces(&camera, &pieces).expect("drawn");
    let in_view = |points: &[(f64, f64)]| {
        points
            .iter()
            .filter(|&&(x, y)| {
                camera
                    .project_table(&(table_from_board * Point3::new(x, y, 0.0)))
                    .is_some_and(|c| (0.0..1280.0).contains(&c.x) && (0.0..720.0).contains(&c.y))
            })
            .count()
    };
    let inner: Vec<(f64, f64)> = (0..6)
        .flat_map(|j| (0..9).map(move |i| (25.0 * f64::from(i), 25.0 * f64::from(j))))
        .collect();
    assert_eq!(in_view(&inner), inner.len(), "inner corners out of view");
    let paper = [
        (-50.0, -50.0),
        (250.0, -50.0),
        (250.0, 175.0),
        (-50.0, 175.0),
    ];
    assert_eq!(
        in_view(&paper) == paper.len(),
        paper_in_view,
        "the paper's corners in view or not"
    );
    draw_board(&mut frame, &camera, &table_from_board).expect("drawn");
    let detector = Detector::new(ColorModel::default());
    let path = Path::new("drawn board aside");
    let analysis = analyze(&frame, path, &camera, &detector, &Engine::default()).expect("analysed");
    (analysis, pieces.len())
}

/// The board left in view is read as no piece, every piece drawn is found, and the user is told
/// the board lies elsewhere than where the table was calibrated.
fn assert_board_cleared(analysis: &Analysis, drawn: usize) {
    let found: Vec<_> = analysis
        .scene
        .pieces
        .iter()
        .map(|p| (p.color, p.size, p.table_from_piece.translation.vector))
        .collect();
    assert!(
        found
            .iter()
            .all(|(color, _, _)| *color != koanscope_scene::Color::Black),
        "black pieces: {found:?}"
    );
    assert_eq!(found.len(), drawn, "{found:?}");
    assert!(
        warned(analysis, "not where the table was calibrated"),
        "{:?}",
        analysis.warnings
    );
}

#[test]
fn a_board_moved_aside_hides_no_piece_beside_it_and_no_piece_is_read_on_it() {
    // Slid aside after calibrating, turned a little: clear of the pieces, all of it in view.
    let (analysis, drawn) = bench_with_board_at(
        Isometry3::new(
            Vector3::new(130.0, -275.0, 0.0),
            Vector3::z() * 10f64.to_radians(),
        ),
        true,
    );
    assert_board_cleared(&analysis, drawn);
}

#[test]
fn a_board_pushed_to_the_edge_of_the_view_is_not_read_as_pieces() {
    // Pushed to the frame's far edge, a corner of its paper out of view: the paper makes the
    // table's colour beside it look coloured.
    let (analysis, drawn) = bench_with_board_at(
        Isometry3::new(
            Vector3::new(130.0, -340.0, 0.0),
            Vector3::z() * 10f64.to_radians(),
        ),
        false,
    );
    assert_board_cleared(&analysis, drawn);
}

#[test]
fn a_live_camera_clears_a_board_only_while_it_lies_where_it_was_found() {
    use koanscope_scene::{Color, Size};
    use koanscope_vision::render::{
        bench_pieces, draw_board, draw_pieces, table_camera, with_sensor_noise,
    };
    use koanscope_vision::{FitMemory, analyze_remembering};
    let camera = table_camera();
    let detector = Detector::new(ColorModel::default());
    let engine = Engine::default();
    let memory = FitMemory::new();
    let aside = Isometry3::new(
        Vector3::new(130.0, -275.0, 0.0),
        Vector3::z() * 10f64.to_radians(),
    );
    let frame = |pieces: &[(Color, Size, Isometry3<f64>)], board: Option<Isometry3<f64>>, seed| {
        let mut frame = draw_pieces(&camera, pieces).expect("drawn");
        if let Some(board) = board {
            draw_board(&mut frame, &camera, &board).expect("drawn");
        }
        let frame = with_sensor_noise(&frame, 3.0, seed).expect("noisy");
        analyze_remembering(
            &frame,
            Path::new("live"),
            &camera,
            &detector,
            &engine,
            Some(&memory),
        )
        .expect("analysed")
    };
    let pieces = bench_pieces();
    // Lying aside, frame after frame (the camera's noise new each time).
    for seed in 0..3 {
        assert_board_cleared(&frame(&pieces, Some(aside), seed), pieces.len());
    }
    // Slid 40 mm and turned: found where it now lies.
    let slid = Isometry3::new(
        Vector3::new(170.0, -270.0, 0.0),
        Vector3::z() * 25f64.to_radians(),
    );
    assert_board_cleared(&frame(&pieces, Some(slid), 3), pieces.len());
    // Taken away, and pieces set where it lay: they are seen, and no board is.
    let mut more = pieces.clone();
    for (k, (x, y)) in [(60.0, 40.0), (160.0, 90.0)].into_iter().enumerate() {
        let at = slid * Point3::new(x, y, 0.0);
        let size = [Size::Large, Size::Medium][k];
        more.push((Color::Red, size, Isometry3::translation(at.x, at.y, 0.0)));
    }
    let analysis = frame(&more, None, 4);
    assert_eq!(
        analysis.scene.pieces.len(),
        more.len(),
        "{:?}",
        analysis.warnings
    );
    assert!(
        !warned(&analysis, "calibration board"),
        "{:?}",
        analysis.warnings
    );
}
