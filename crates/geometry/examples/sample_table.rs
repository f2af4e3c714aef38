//! Writes the poses document of the bundled demo table (`sample_images/demo-table.poses.json`):
//! five koans of real arrangements, built with the exact placements of `Placer`.
//!
//! `cargo run -p koanscope-geometry --example sample_table > sample_images/demo-table.poses.json`

use koanscope_geometry::Placer;
use koanscope_scene::{Color, Piece, Scene, Size};

fn main() {
    let p = Placer::default();
    let mut pieces = Vec::new();
    let mut add = |color, size, pose| {
        let id = pieces.len() as u32;
        pieces.push(Piece::new(id, color, size, pose));
    };
    // Koan 0: a tower of three beside a lone flat piece pointing at it.
    let bottom = p.upright(0.0, 0.0, 0.2);
    let middle = p
        .on_tip(Size::Large, &bottom, Size::Medium)
        .expect("stays up");
    let top = p
        .on_tip(Size::Medium, &middle, Size::Small)
        .expect("stays up");
    add(Color::Blue, Size::Large, bottom);
    add(Color::Red, Size::Medium, middle);
    add(Color::Yellow, Size::Small, top);
    add(
        Color::Green,
        Size::Small,
        p.flat(Size::Small, -45.0, 4.0, 0.0),
    );
    // Koan 1: a small nested in a large, and a medium touching it.
    let outer = p.upright(150.0, 0.0, 0.0);
    add(Color::Green, Size::Large, outer);
    add(Color::Red, Size::Small, outer);
    add(
        Color::Yellow,
        Size::Medium,
        p.upright(150.0 + 12.7 + 9.9 + 0.3, 0.0, 0.0),
    );
    // Koan 2: two uprights and a flat large bridging their tips.
    let bridge = p.flat_at_height(Size::Large, 0.0, 150.0, 0.0, 25.45);
    let under = |along: f64| bridge * nalgebra::Point3::new(-12.7 + along * 0.25, 0.0, along);
    let (a, b) = (under(8.0), under(30.0));
    add(Color::Blue, Size::Small, p.upright(a.x, a.y, 0.0));
    add(Color::Blue, Size::Small, p.upright(b.x, b.y, 0.0));
    add(Color::Red, Size::Large, bridge);
    // Koan 3: a lone upside-down medium.
    add(
        Color::Yellow,
        Size::Medium,
        p.upside_down(Size::Medium, 160.0, 160.0, 0.3),
    );
    // Koan 4: two flat pieces side by side, heading opposite ways. Each axis dips 16° below level,
    // so the axes are 148° apart: not "opposite direction" (that needs 165°).
    add(
        Color::Green,
        Size::Medium,
        p.flat(Size::Medium, 300.0, 40.0, 0.0),
    );
    add(
        Color::Blue,
        Size::Medium,
        p.flat(Size::Medium, 330.0, 75.0, std::f64::consts::PI),
    );
    let mut scene = Scene::from_pieces(pieces);
    scene.source = Some("koanscope demo table (built in code)".into());
    println!("{}", scene.to_json_string(true));
}
