//! A webcam's frames carry sensor noise of a few levels per pixel, which the project's rendered
//! samples do not. Read through the noise (a noisy frame is smoothed before it is read), the
//! benchmark's full table still comes out piece for piece. A softer lens than the renderer's
//! blurs the pieces' edges into fringes, which must not read as pieces of their own.

mod common;

use koanscope_geometry::Engine;
use koanscope_scene::Scene;
use koanscope_vision::render::{through_lens, with_sensor_noise};
use koanscope_vision::{Camera, ColorModel, Detector, analyze, image::read_bgr};
use opencv::core::Mat;

/// The pieces of a scene as sorted "colour size orientation" words.
fn found(scene: &Scene) -> Vec<String> {
    let mut kinds: Vec<String> = scene
        .pieces
        .iter()
        .map(|p| {
            let orientation = p.attributes.as_ref().map_or("?", |a| a.orientation.word());
            format!("{} {} {orientation}", p.color.word(), p.size.word())
        })
        .collect();
    kinds.sort();
    kinds
}

/// The same words for the pieces in view in a truth document (not those hidden in a nest).
fn in_view(truth: &serde_json::Value) -> Vec<String> {
    let mut kinds: Vec<String> = truth["pieces"]
        .as_array()
        .expect("pieces")
        .iter()
        .filter(|p| p["visible_fraction"].as_f64().is_none_or(|f| f > 0.0))
        .map(|p| {
            let word = |k: &str| p[k].as_str().unwrap_or_else(|| panic!("{k} of {p}"));
            format!("{} {} {}", word("color"), word("size"), word("orientation"))
        })
        .collect();
    kinds.sort();
    kinds
}

/// A dev scene (`setup`, `scene`) as a lesser camera sees it, read as `koanscope analyze` would:
/// the camera is `camera` made from the setup's true (pinhole) camera, the frame `seen` made
/// from the rendered one with that camera. `None` without the dev dataset.
fn dev_scene_seen(
    setup: &str,
    scene: &str,
    camera: impl FnOnce(Camera) -> Camera,
    seen: impl FnOnce(&Mat, &Camera) -> Mat,
) -> Option<Scene> {
    let setup = common::dataset()?.join(setup);
    let path = setup.join(scene);
    let camera = camera(common::truth_camera(&setup));
    let frame = seen(&read_bgr(&path).expect("readable"), &camera);
    let (detector, engine) = (Detector::new(ColorModel::default()), Engine::default());
    let analysis = analyze(&frame, &path, &camera, &detector, &engine).expect("analysed");
    Some(analysis.scene)
}

/// S2 scene 4 (17 pieces, 16 in view) given six draws of noise of sigma 3: with the noisy
/// frames smoothed, at least five draws read every piece's colour, size and orientation as the
/// truth has them (read raw, three of the six do).
#[test]
fn a_noisy_webcam_frame_of_the_full_table_is_read_piece_for_piece() {
    let setup = common::sample_images().join("S2");
    let camera = common::truth_camera(&setup);
    let path = setup.join("scene_04.jpg");
    let truth = in_view(&common::json(&path.with_extension("json")));
    let image = read_bgr(&path).expect("readable");
    let (detector, engine) = (Detector::new(ColorModel::default()), Engine::default());
    let mut wrong = Vec::new();
    for seed in 1..=6 {
        let noisy = with_sensor_noise(&image, 3.0, seed).expect("noise");
        let analysis = analyze(&noisy, &path, &camera, &detector, &engine).expect("analysed");
        let kinds = found(&analysis.scene);
        if kinds != truth {
            wrong.push((seed, kinds));
        }
    }
    assert!(
        wrong.len() <= 1,
        "{} of 6 noisy draws read otherwise than {truth:?}: {wrong:?}",
        wrong.len()
    );
}

/// D3 scene 5 seen through a softer lens (a Gaussian blur of 1 px, as `relight --blur 1` gives
/// it): the yellow medium lying flat on the blue cloth keeps a soft yellow fringe that reads as
/// a small set into it, and that small leaning as a tilted reading; later passes made of the two
/// a medium on its apex, 38 mm off, and a small lying by it. A tilted piece must now explain the
/// region better than a reading that tilts none, by the margin it needs anywhere else: the
/// medium is read lying flat where it lies, with no small in it. (Needs the dev dataset;
/// skipped without it.)
#[test]
fn a_lying_piece_through_a_soft_lens_is_not_read_with_a_small_leaning_in_it() {
    use opencv::{core, imgproc};
    let Some(scene) = dev_scene_seen(
        "D3",
        "scene_05.jpg",
        |pinhole| pinhole,
        |frame, _| {
            let mut soft = core::Mat::default();
            imgproc::gaussian_blur_def(frame, &mut soft, core::Size::new(0, 0), 1.0)
                .expect("blurred");
            soft
        },
    ) else {
        return;
    };
    // The truth's yellow medium, lying flat with its centroid at (356.7, 377.1) in the image.
    let near = |p: &&koanscope_scene::Piece| {
        let [x, y] = p.image_xy.expect("seen");
        p.color == koanscope_scene::Color::Yellow && (x - 356.7).hypot(y - 377.1) < 30.0
    };
    let yellow: Vec<String> = scene
        .pieces
        .iter()
        .filter(near)
        .map(|p| {
            let orientation = p.attributes.as_ref().map_or("?", |a| a.orientation.word());
            format!("{} {orientation}", p.size.word())
        })
        .collect();
    assert_eq!(yellow, ["medium flat"]);
}

/// D3 scene 8's tower of three (a red large, a yellow medium, a red small, a red medium lying
/// at its foot) seen through a webcam lens's barrel distortion (k1 -0.12, k2 0.02), read with
/// that lens: one tower, as without the lens. Resampled so, the yellow medium's band read as a
/// medium lying flat, and the base with the piece at its foot as two pieces lying flat; a band
/// read lying flat is now also tried standing on a base hidden under it. (Needs the dev
/// dataset; skipped without it.)
#[test]
fn a_tower_of_three_through_a_webcam_lens_is_one_tower() {
    let Some(scene) = dev_scene_seen(
        "D3",
        "scene_08.jpg",
        |pinhole| pinhole.with_distortion([-0.12, 0.02, 0.0, 0.0, 0.0]),
        |frame, lens| through_lens(frame, lens).expect("seen through the lens"),
    ) else {
        return;
    };
    let towers: Vec<Vec<String>> = scene
        .koans
        .iter()
        .flat_map(|k| &k.towers)
        .map(|tower| {
            tower
                .iter()
                .filter_map(|id| scene.pieces.iter().find(|p| p.id == *id))
                .map(|p| format!("{} {}", p.color, p.size.word()))
                .collect()
        })
        .collect();
    assert_eq!(
        towers,
        [["red large", "yellow medium", "red small"]],
        "{:?}",
        found(&scene)
    );
}
