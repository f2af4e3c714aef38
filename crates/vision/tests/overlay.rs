//! The overlay as plain data, on one of the project's own sample images (present on a fresh
//! checkout): every piece and koan has its shapes, in the frame's pixels, and they survive JSON.

mod common;

use koanscope_geometry::Engine;
use koanscope_vision::overlay::{OverlayShapes, shapes};
use koanscope_vision::{ColorModel, Detector, analyze, image::read_bgr, write_overlay};

fn inside(polygon: &[[f64; 2]], p: [f64; 2]) -> bool {
    // Convex polygon, either winding: p is on the same side of every edge.
    let n = polygon.len();
    let sides: Vec<f64> = (0..n)
        .map(|i| {
            let (a, b) = (polygon[i], polygon[(i + 1) % n]);
            (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
        })
        .collect();
    sides.iter().all(|s| *s >= -1e-6) || sides.iter().all(|s| *s <= 1e-6)
}

#[test]
fn overlay_shapes_of_a_sample_table() {
    let setup = common::sample_images().join("S1");
    let camera = common::truth_camera(&setup);
    let path = setup.join("scene_00.jpg");
    let image = read_bgr(&path).expect("readable");
    let analysis = analyze(
        &image,
        &path,
        &camera,
        &Detector::new(ColorModel::default()),
        &Engine::default(),
    )
    .expect("analysed");
    let overlay = shapes(&analysis, &camera);

    assert_eq!(overlay.image_size, Some([1280, 720]));
    assert_eq!(overlay.pieces.len(), analysis.scene.pieces.len());
    assert_eq!(overlay.koans.len(), analysis.scene.koans.len());
    for (shape, piece) in overlay.pieces.iter().zip(&analysis.scene.pieces) {
        assert_eq!(shape.id, piece.id);
        assert_eq!(
            shape.label,
            format!("{} {}", piece.color.word(), piece.size.word())
        );
        assert!(shape.outline_px.len() >= 3, "{shape:?}");
        let xy = piece.image_xy.expect("found pieces have an image position");
        assert!(
            inside(&shape.outline_px, xy),
            "centroid outside its outline: {shape:?}"
        );
        let [base, apex] = shape.axis_px.expect("the axis is in view");
        assert!(inside(&shape.outline_px, base) && inside(&shape.outline_px, apex));
        // A ray starts at the apex and is drawn only for a piece that points at something.
        assert_eq!(shape.pointing_px.is_empty(), shape.pointing_at.is_empty());
        if let Some(first) = shape.pointing_px.first() {
            assert!((first[0] - apex[0]).hypot(first[1] - apex[1]) < 0.5);
        }
    }
    // The sample's first koan is a tower: its bottom piece points at the top one.
    let pointing = overlay
        .pieces
        .iter()
        .filter(|p| !p.pointing_at.is_empty())
        .count();
    assert!(pointing >= 1, "{pointing} pieces point");
    for koan in &overlay.koans {
        assert!(koan.outline_px.len() >= 3);
        for id in &koan.pieces {
            let piece = overlay
                .pieces
                .iter()
                .find(|p| p.id == *id)
                .expect("its piece");
            assert_eq!(piece.koan, Some(koan.id));
            for p in &piece.outline_px {
                assert!(
                    inside(&koan.outline_px, *p),
                    "koan {} does not enclose piece {id}",
                    koan.id
                );
            }
        }
        assert!(koan.outline_px.iter().all(|p| p[1] > koan.label_px[1]));
        // Only an upright medium or large piece on the table can hide a smaller one.
        for id in &koan.may_hide_piece_under {
            assert!(koan.pieces.contains(id));
            let piece = analysis.scene.piece(*id).expect("its piece");
            assert!(koanscope_vision::may_hide(piece), "{piece:?}");
        }
    }
    let json = serde_json::to_string(&overlay).expect("serialisable");
    let back: OverlayShapes = serde_json::from_str(&json).expect("readable");
    assert_eq!(back, overlay);

    let dir = tempfile::tempdir().expect("a temporary folder");
    let png = dir.path().join("overlay.png");
    write_overlay(&image, &camera, &analysis, &png).expect("drawn");
    assert!(std::fs::metadata(&png).expect("written").len() > 10_000);
}
