//! Tables built in code for benchmarks and demos.

use koanscope_scene::{Color, Piece, Scene, Size};

use crate::place::Placer;

/// A busy table: `koans` koans on a grid 150 mm apart, each of five real pieces: a tower of two,
/// a nest of two, and a flat piece pointing at the tower (100 pieces for 20 koans).
pub fn busy_table(koans: usize) -> Scene {
    let p = Placer::default();
    let mut pieces = Vec::with_capacity(koans * 5);
    for k in 0..koans {
        let (x, y) = ((k % 5) as f64 * 150.0, (k / 5) as f64 * 150.0);
        let yaw = k as f64 * 0.37;
        let bottom = p.upright(x, y, yaw);
        let top = p
            .on_tip(Size::Large, &bottom, Size::Small)
            .expect("a small stays up on a large");
        let outer = p.upright(x, y + 40.0, -yaw);
        let pointer = p.flat(Size::Medium, x - 60.0, y, 0.0);
        for (size, pose) in [
            (Size::Large, bottom),
            (Size::Small, top),
            (Size::Large, outer),
            (Size::Medium, outer),
            (Size::Medium, pointer),
        ] {
            let id = pieces.len() as u32;
            pieces.push(Piece::new(id, Color::ZENDO[id as usize % 4], size, pose));
        }
    }
    Scene::from_pieces(pieces)
}
