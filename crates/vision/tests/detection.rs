//! Detection and pose on the rendered dataset: floors that catch regressions, well below the
//! figures `koanscope eval` reports.

mod common;

use koanscope_geometry::Engine;
use koanscope_scene::{Color, Koan, Orientation, Piece, Scene, Size};
use koanscope_vision::evaluate::{DetectionScore, score_scene, truth_pieces};
use koanscope_vision::{Analysis, ColorModel, Detector, analyze, image::read_bgr};
use nalgebra::{Vector2, Vector3};

#[test]
fn pieces_are_found_with_colour_size_and_base_position() {
    let Some(dataset) = common::dataset() else {
        return;
    };
    let mut all = DetectionScore::default();
    for setup in ["D1", "D2", "D3"] {
        for n in [0, 3, 6] {
            let truth_path = dataset.join(setup).join(format!("scene_{n:02}.json"));
            let truth = truth_pieces(&common::json(&truth_path)).expect("truth");
            let analysis = analysed_scene(setup, n).expect("the dataset is here");
            all.merge(&score_scene(&analysis.scene, &truth, 20.0));
        }
    }
    let median = all.base_error_quantile_mm(0.5).expect("pairs");
    assert!(all.recall.rate() >= 0.9, "recall {:?}", all.recall);
    assert!(all.precision.rate() >= 0.9, "precision {:?}", all.precision);
    assert!(all.color.rate() >= 0.95, "colour {:?}", all.color);
    assert!(all.size.rate() >= 0.85, "size {:?}", all.size);
    assert!(median <= 3.0, "base position error median {median:.2} mm");
}

/// `koanscope analyze` of one scene of the dataset with its setup's true camera; `None` (the
/// test skipped) where the dataset is not here.
fn analysed_scene(setup: &str, scene: usize) -> Option<Analysis> {
    analysed_scene_lit(setup, scene, 1.0)
}

/// [`analysed_scene`] of the frame under a lamp `gain` times as bright (each channel scaled).
fn analysed_scene_lit(setup: &str, scene: usize, gain: f64) -> Option<Analysis> {
    let dir = common::dataset()?.join(setup);
    let path = dir.join(format!("scene_{scene:02}.jpg"));
    let mut image = read_bgr(&path).expect("readable");
    if gain != 1.0 {
        let mut lit = opencv::core::Mat::default();
        opencv::prelude::MatTraitConst::convert_to(&image, &mut lit, -1, gain, 0.0)
            .expect("scaled");
        image = lit;
    }
    let detector = Detector::new(ColorModel::default());
    Some(
        analyze(
            &image,
            &path,
            &common::truth_camera(&dir),
            &detector,
            &Engine::default(),
        )
        .expect("analysed"),
    )
}

/// The read piece that `is` the one wanted (`what`, for the failure).
fn found<'a>(scene: &'a Scene, what: &str, is: impl Fn(&Piece) -> bool) -> &'a Piece {
    scene
        .pieces
        .iter()
        .find(|p| is(p))
        .unwrap_or_else(|| panic!("no {what}: {:#?}", scene.pieces))
}

/// How far a read piece's axis (base centre to apex) is from `truth`, degrees.
fn axis_off_deg(piece: &Piece, truth: Vector3<f64>) -> f64 {
    (piece.table_from_piece * Vector3::z())
        .angle(&truth)
        .to_degrees()
}

/// The koan a read piece is in.
fn koan_of<'a>(scene: &'a Scene, piece: &Piece) -> &'a Koan {
    scene
        .koans
        .iter()
        .find(|k| k.pieces.contains(&piece.id))
        .unwrap_or_else(|| panic!("piece {} in no koan", piece.id))
}

/// Whether two pieces of a koan touch.
fn touch(koan: &Koan, a: &Piece, b: &Piece) -> bool {
    koan.touching.contains(&[a.id.min(b.id), a.id.max(b.id)])
}

/// D3 scene 6 has a yellow medium on the tip of a red large, seen from afar: a yellow large
/// standing on the table behind the red one fits the yellow outline about as well (and did
/// win), but the frame shows the yellow in front of the red where they overlap.
#[test]
fn a_piece_on_a_tip_is_not_read_as_a_bigger_one_standing_behind() {
    let Some(analysis) = analysed_scene("D3", 6) else {
        return;
    };
    let scene = &analysis.scene;
    // The tower stands at (272.7, 114.8) mm on the table.
    let at_tower = |color: Color| {
        found(scene, &format!("{color} piece at the tower"), |p| {
            let base = p.table_from_piece.translation.vector;
            p.color == color && (base.xy() - Vector2::new(272.7, 114.8)).norm() < 8.0
        })
    };
    let (base, top) = (at_tower(Color::Red), at_tower(Color::Yellow));
    assert_eq!(top.size, Size::Medium, "{top:#?}");
    let attributes = top.attributes.as_ref().expect("derived");
    assert!(!attributes.grounded, "{top:#?}");
    assert!(
        scene
            .koans
            .iter()
            .any(|k| k.towers.contains(&vec![base.id, top.id])),
        "{:#?}",
        scene.koans
    );
}

/// D1 scene 7 has a black medium leaning on a red large, 33° up: its outline fits one lying
/// flat at the red's foot as well, but lying so its apex would be 3.6 mm inside the red. It is
/// read leaning, resting against the red and pointing at it, and the Master is told why.
#[test]
fn a_leaner_whose_outline_fits_lying_flat_into_its_support_is_read_leaning_on_it() {
    let Some(analysis) = analysed_scene("D1", 7) else {
        return;
    };
    let scene = &analysis.scene;
    let of = |color: Color| found(scene, &format!("{color} piece"), |p| p.color == color);
    let (leaner, support) = (of(Color::Black), of(Color::Red));
    let attributes = leaner.attributes.as_ref().expect("derived");
    assert_eq!(attributes.orientation, Orientation::Weird, "{leaner:#?}");
    let off = axis_off_deg(leaner, Vector3::new(0.834, -0.108, 0.541));
    assert!(off < 5.0, "axis {off:.1} degrees off the truth's");
    let koan = koan_of(scene, leaner);
    assert!(touch(koan, leaner, support), "{:?}", koan.touching);
    assert!(
        koan.pointing.contains(&[leaner.id, support.id]),
        "{:?}",
        koan.pointing
    );
    assert!(
        koan.judgment_calls
            .iter()
            .any(|c| c.pieces == vec![leaner.id] && c.note.contains("not lying flat")),
        "{:#?}",
        koan.judgment_calls
    );
}

/// The sample koan of a red medium leaning 29° on a blue large, rendered on white melamine under
/// a broad lamp (the table holdout's T3 scene 2, kept here with its camera: `frames/`). From
/// this camera its outline is explained all but perfectly by a medium lying flat, so no outline
/// could tell the two apart; the faces' shading does (the flat reading's faces split the
/// piece's lightness by 0.08, the leaning one's by 0.86). It is read leaning, touching the
/// large, and the Master is told that the shading decided it.
#[test]
fn a_leaner_whose_outline_a_flat_piece_explains_perfectly_is_read_by_its_shading() {
    sample_leaner_is_read_leaning_by_its_shading("leaner_on_melamine");
}

/// The same koan on maple under a warm lamp (the table holdout's T6 scene 2). The search for a
/// tilted piece, started at 45° and 70°, ended with this leaner turned the wrong way (upside
/// down, its faces splitting the lightness by 0.00), and it was read lying flat (0.01). Searched
/// again from a steeper start where it lay flat, it is found leaning 28° (0.44), and read so.
#[test]
fn a_steep_leaner_read_lying_flat_at_its_foot_is_found_and_read_by_its_shading() {
    sample_leaner_is_read_leaning_by_its_shading("leaner_on_maple");
}

/// Analyses the frame kept in `tests/frames/<fixture>` of the sample koan's red medium leaning
/// on a blue large, and checks that the medium is read leaning as the truth has it, touching
/// the large, with a call for the Master to look at its orientation.
fn sample_leaner_is_read_leaning_by_its_shading(fixture: &str) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/frames")
        .join(fixture);
    let path = dir.join("scene.jpg");
    let image = read_bgr(&path).expect("readable");
    let detector = Detector::new(ColorModel::default());
    let analysis = analyze(
        &image,
        &path,
        &common::truth_camera(&dir),
        &detector,
        &Engine::default(),
    )
    .expect("analysed");
    let scene = &analysis.scene;
    let leaner = found(scene, "red medium", |p| {
        p.color == Color::Red && p.size == Size::Medium
    });
    let support = found(scene, "blue large", |p| {
        p.color == Color::Blue && p.size == Size::Large
    });
    let attributes = leaner.attributes.as_ref().expect("derived");
    assert_eq!(attributes.orientation, Orientation::Weird, "{leaner:#?}");
    let off = axis_off_deg(leaner, Vector3::new(-0.479, 0.0, 0.878));
    assert!(off < 10.0, "axis {off:.1} degrees off the truth's");
    let koan = koan_of(scene, leaner);
    assert!(touch(koan, leaner, support), "{:?}", koan.touching);
    assert!(
        koan.judgment_calls
            .iter()
            .any(|c| c.what == "orientation" && c.pieces == vec![leaner.id]),
        "{:#?}",
        koan.judgment_calls
    );
}

/// D2 scene 9 has a red large upside down against a yellow large. Under a lamp 3 % dimmer its
/// outline was fitted as well by a large leaning apex up, 46°, away from the yellow, with
/// nothing to lean on: it is read upside down, touching the yellow, as under the dataset's own
/// light, and with no call to look: the reading it nearly ties with leans on nothing.
#[test]
fn a_piece_upside_down_against_another_is_not_read_leaning_on_nothing() {
    for gain in [1.0, 0.97] {
        let Some(analysis) = analysed_scene_lit("D2", 9, gain) else {
            return;
        };
        let scene = &analysis.scene;
        let of = |color: Color| {
            found(scene, &format!("large {color} piece"), |p| {
                p.color == color && p.size == Size::Large
            })
        };
        let (red, yellow) = (of(Color::Red), of(Color::Yellow));
        // Apex down, as the truth has it.
        let off = axis_off_deg(red, Vector3::new(-0.115, -0.122, -0.986));
        assert!(
            off < 10.0,
            "gain {gain}: axis {off:.1} degrees off the truth's"
        );
        let koan = koan_of(scene, red);
        assert!(touch(koan, red, yellow), "gain {gain}: {:?}", koan.touching);
        // Its outline nearly ties with the large leaning apex up, but that would lean on
        // nothing: the Master is not asked to look.
        assert!(
            !koan
                .judgment_calls
                .iter()
                .any(|c| c.what == "reading" && c.pieces == vec![red.id]),
            "gain {gain}: confidence {:?}, {:#?}",
            red.confidence,
            koan.judgment_calls
        );
    }
}

/// A camera switched to monochrome (or infrared night mode) sends grey frames: every piece
/// would read black or not at all, and the Master is told why. The slate table of S3, the
/// greyest of the samples in colour (about 94 % of its pixels grey), gets no such warning.
#[test]
fn a_frame_without_colour_says_the_camera_is_in_monochrome() {
    use opencv::imgproc;
    let samples = common::sample_images();
    let detector = Detector::new(ColorModel::default());
    let colourless = |w: &String| w.contains("no colour");
    for (setup, scene) in [("S2", "scene_04.jpg"), ("S3", "scene_03.jpg")] {
        let dir = samples.join(setup);
        let camera = common::truth_camera(&dir);
        let path = dir.join(scene);
        let colour = read_bgr(&path).expect("readable");
        let analysis =
            analyze(&colour, &path, &camera, &detector, &Engine::default()).expect("analysed");
        assert!(!analysis.scene.pieces.is_empty());
        assert!(
            !analysis
                .warnings
                .iter()
                .any(|w| colourless(w) || w.contains("overexposed")),
            "{setup}: {:?}",
            analysis.warnings
        );
        let (mut grey, mut grey_bgr) = (opencv::core::Mat::default(), opencv::core::Mat::default());
        imgproc::cvt_color_def(&colour, &mut grey, imgproc::COLOR_BGR2GRAY).expect("grey");
        imgproc::cvt_color_def(&grey, &mut grey_bgr, imgproc::COLOR_GRAY2BGR).expect("as BGR");
        let analysis =
            analyze(&grey_bgr, &path, &camera, &detector, &Engine::default()).expect("analysed");
        assert!(
            analysis.warnings.iter().any(colourless),
            "{setup}: {:?}",
            analysis.warnings
        );
    }
}

#[test]
fn an_empty_or_dark_table_gives_no_pieces_and_says_why() {
    use opencv::core::{CV_8UC3, Mat, Scalar};
    let camera = koanscope_vision::render::table_camera();
    let detector = Detector::new(ColorModel::default());
    let path = std::path::Path::new("synthetic.png");
    for (bgr, warning) in [
        ((90.0, 130.0, 160.0), "no pieces"),
        ((8.0, 9.0, 10.0), "very dark"),
        ((255.0, 255.0, 252.0), "overexposed"),
    ] {
        let wood = Mat::new_rows_cols_with_default(
            720,
            1280,
            CV_8UC3,
            Scalar::new(bgr.0, bgr.1, bgr.2, 0.0),
        )
        .expect("a frame");
        let analysis =
            analyze(&wood, path, &camera, &detector, &Engine::default()).expect("analysed");
        assert!(analysis.scene.pieces.is_empty());
        assert!(
            analysis.warnings.iter().any(|w| w.contains(warning)),
            "{:?}",
            analysis.warnings
        );
    }
}
