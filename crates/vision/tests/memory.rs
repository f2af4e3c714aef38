//! Frames of a live camera: regions that did not change keep the pieces fitted to them, the
//! regions that did are fitted again, and the scene comes out as a fresh analysis would.

mod drawn;

use drawn::{Drawn, four_apart};
use koanscope_geometry::Engine;
use koanscope_scene::{Color, Piece, Scene};
use koanscope_vision::render::{draw_pieces, table_camera, with_sensor_noise};
use koanscope_vision::{
    Camera, ColorModel, Detector, FitMemory, MemoryUse, analyze, analyze_remembering,
};
use opencv::core::Mat;

struct Analyser {
    camera: Camera,
    detector: Detector,
    engine: Engine,
    memory: FitMemory,
}

impl Analyser {
    fn new() -> Analyser {
        Analyser {
            camera: table_camera(),
            detector: Detector::new(ColorModel::default()),
            engine: Engine::default(),
            memory: FitMemory::new(),
        }
    }

    fn draw(&self, pieces: &[Drawn]) -> Mat {
        draw_pieces(&self.camera, pieces).expect("drawn")
    }

    /// The frame's scene through the memory, and what the memory saved.
    fn remembering(&self, frame: &Mat) -> (Scene, MemoryUse) {
        let path = std::path::Path::new("camera frame");
        let analysis = analyze_remembering(
            frame,
            path,
            &self.camera,
            &self.detector,
            &self.engine,
            Some(&self.memory),
        )
        .expect("analysed");
        (analysis.scene, self.memory.last_use())
    }

    fn fresh(&self, frame: &Mat) -> Scene {
        let path = std::path::Path::new("camera frame");
        analyze(frame, path, &self.camera, &self.detector, &self.engine)
            .expect("analysed")
            .scene
    }
}

fn with_noise(frame: &Mat, sigma: f64, seed: i32) -> Mat {
    with_sensor_noise(frame, sigma, seed).expect("noise added")
}

fn piece_of(scene: &Scene, color: Color) -> &Piece {
    scene
        .pieces
        .iter()
        .find(|p| p.color == color)
        .unwrap_or_else(|| panic!("no {color} piece in {:#?}", scene.pieces))
}

/// Every piece of `a` has one of the same colour and size in `b` within `mm` (base centres).
fn same_pieces(a: &Scene, b: &Scene, mm: f64) {
    assert_eq!(
        a.pieces.len(),
        b.pieces.len(),
        "{:#?}\n{:#?}",
        a.pieces,
        b.pieces
    );
    for p in &a.pieces {
        let q = piece_of(b, p.color);
        assert_eq!(p.size, q.size, "{}", p.color);
        let moved =
            (p.table_from_piece.translation.vector - q.table_from_piece.translation.vector).norm();
        assert!(moved < mm, "{} is {moved:.2} mm from where it was", p.color);
    }
}

#[test]
fn a_still_table_is_fitted_once_however_noisy_the_camera() {
    let a = Analyser::new();
    let frame = a.draw(&four_apart(0.0));
    let (first, used) = a.remembering(&frame);
    assert_eq!(first.pieces.len(), 4, "{:#?}", first.pieces);
    assert_eq!(used.reused, 0);
    assert!(used.fitted >= 4, "{used:?}");
    for seed in 1..=3 {
        let (again, used) = a.remembering(&with_noise(&frame, 3.0, seed));
        assert_eq!(used.fitted, 0, "frame {seed}: {used:?}");
        assert!(used.reused >= 4, "frame {seed}: {used:?}");
        same_pieces(&first, &again, 1e-9);
    }
}

#[test]
fn a_moved_piece_is_fitted_again_and_the_others_are_kept() {
    let a = Analyser::new();
    let (before, _) = a.remembering(&with_noise(&a.draw(&four_apart(0.0)), 3.0, 7));
    let moved = with_noise(&a.draw(&four_apart(12.0)), 3.0, 8);
    let (after, used) = a.remembering(&moved);
    assert!(
        used.fitted >= 1,
        "the moved piece's region is fitted: {used:?}"
    );
    assert!(used.reused >= 3, "the three others are kept: {used:?}");
    // As a fresh analysis of the same frame sees it, and the blue piece 12 mm along x.
    same_pieces(&after, &a.fresh(&moved), 0.5);
    let shift = piece_of(&after, Color::Blue)
        .table_from_piece
        .translation
        .vector
        - piece_of(&before, Color::Blue)
            .table_from_piece
            .translation
            .vector;
    assert!(
        (shift.x - 12.0).abs() < 1.5 && shift.y.abs() < 1.5,
        "{shift:?}"
    );
    let red_moved = (piece_of(&after, Color::Red)
        .table_from_piece
        .translation
        .vector
        - piece_of(&before, Color::Red)
            .table_from_piece
            .translation
            .vector)
        .norm();
    assert_eq!(red_moved, 0.0);
}

#[test]
fn a_piece_taken_away_leaves_the_scene_and_one_put_back_is_found() {
    let a = Analyser::new();
    let all = four_apart(0.0);
    let (_, _) = a.remembering(&a.draw(&all));
    let without_yellow: Vec<Drawn> = all
        .iter()
        .filter(|(c, _, _)| *c != Color::Yellow)
        .copied()
        .collect();
    let (three, used) = a.remembering(&a.draw(&without_yellow));
    assert_eq!(three.pieces.len(), 3, "{:#?}", three.pieces);
    assert_eq!(used.fitted, 0, "{used:?}");
    let (four, used) = a.remembering(&a.draw(&all));
    assert_eq!(four.pieces.len(), 4, "{:#?}", four.pieces);
    assert!(used.fitted >= 1, "{used:?}");
}

/// A tower is read by weighing several explanations of its top's region (here the outline
/// prefers a medium standing behind the base to the small resting on its tip): the memory keeps
/// them all, so a still tower is fitted once and stays a tower, frame after noisy frame.
#[test]
fn a_still_tower_is_fitted_once_and_stays_a_tower() {
    use koanscope_geometry::{PieceModels, Placer};
    use koanscope_scene::Size;
    use koanscope_vision::pose::pose_on_table;
    let a = Analyser::new();
    let models = PieceModels::default();
    let base = pose_on_table(&models.dims(Size::Large), 0.0, 150.0, -50.0, 0.4);
    let top = Placer::default()
        .on_tip(Size::Large, &base, Size::Small)
        .expect("a small rests on a large");
    let frame = a.draw(&[
        (Color::Green, Size::Large, base),
        (Color::Blue, Size::Small, top),
    ]);
    let tower = |scene: &Scene| {
        let (green, blue) = (piece_of(scene, Color::Green), piece_of(scene, Color::Blue));
        assert_eq!(blue.size, Size::Small, "{:#?}", scene.pieces);
        assert_eq!(scene.koans.len(), 1, "{:#?}", scene.koans);
        assert_eq!(scene.koans[0].towers, vec![vec![green.id, blue.id]]);
    };
    let (first, used) = a.remembering(&with_noise(&frame, 3.0, 0));
    tower(&first);
    // The top's region is explained twice: alone, then over the base's tip.
    assert!(used.fitted >= 3, "{used:?}");
    for seed in 1..=3 {
        let (again, used) = a.remembering(&with_noise(&frame, 3.0, seed));
        assert_eq!(used.fitted, 0, "frame {seed}: {used:?}");
        tower(&again);
        same_pieces(&first, &again, 1e-9);
    }
}
