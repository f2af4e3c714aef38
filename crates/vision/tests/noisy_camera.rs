//! A webcam's frames carry sensor noise of a few levels per pixel, which the project's rendered
//! samples do not. Read through the noise (a noisy frame is smoothed before it is read), the
//! benchmark's full table still comes out piece for piece.

mod common;

use koanscope_geometry::Engine;
use koanscope_scene::Scene;
use koanscope_vision::render::with_sensor_noise;
use koanscope_vision::{ColorModel, Detector, analyze, image::read_bgr};

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
