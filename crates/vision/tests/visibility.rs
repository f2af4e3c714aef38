//! How much of each piece the camera sees, pieces taken as opaque (`visible_fractions`): the
//! rendered dataset's `visible_fraction`, which the truth koanscope makes for its own sample
//! tables must agree with.

mod common;

use std::path::Path;

use koanscope_geometry::PieceModels;
use koanscope_scene::{Scene, Size};
use koanscope_vision::evaluate::truth_pieces;
use koanscope_vision::visible_fractions;
use nalgebra::Isometry3;

/// The largest difference between the visible fractions computed from the truth's poses and
/// those it gives, over every scene of a setup; and how many pieces it gives as partly hidden.
fn worst_difference(setup_dir: &Path) -> (f64, usize) {
    let camera = common::truth_camera(setup_dir);
    let models = PieceModels::default();
    let (mut worst, mut partly) = (0.0_f64, 0);
    for entry in std::fs::read_dir(setup_dir).expect("the setup's folder") {
        let path = entry.expect("an entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if !(name.starts_with("scene_") && name.ends_with(".json")) {
            continue;
        }
        // The truth is a scene document (poses) with the dataset's fields (visible fractions),
        // read as `koanscope eval` reads it, piece for piece in the same order.
        let scene = Scene::from_path(&path).expect("a scene document");
        let given = truth_pieces(&common::json(&path)).expect("the dataset's fields");
        let placed: Vec<(Size, Isometry3<f64>)> = scene
            .pieces
            .iter()
            .map(|p| (p.size, p.table_from_piece))
            .collect();
        for (computed, truth) in visible_fractions(&camera, &models, &placed)
            .into_iter()
            .zip(&given)
        {
            let given = truth.visible_fraction;
            worst = worst.max((computed - given).abs());
            partly += usize::from(given > 0.0 && given < 0.9);
        }
    }
    (worst, partly)
}

#[test]
fn the_dev_datasets_visible_fractions_are_what_the_pieces_hide_of_each_other() {
    let Some(dataset) = common::dataset() else {
        return;
    };
    for setup in ["D1", "D2", "D3"] {
        let (worst, partly) = worst_difference(&dataset.join(setup));
        // The renderer counts its meshes' pixels, this the model's: edges differ (by at most
        // 0.02 today).
        assert!(worst < 0.04, "{setup}: off by {worst:.3}");
        assert!(partly > 0, "{setup}: no piece partly hidden");
    }
}

#[test]
fn the_samples_truth_says_how_much_of_each_piece_is_in_view() {
    for setup in ["S1", "S2", "S3"] {
        let (worst, partly) = worst_difference(&common::sample_images().join(setup));
        assert!(worst < 0.001, "{setup}: off by {worst:.4}");
        assert!(partly > 0, "{setup}: no piece partly hidden");
    }
}
