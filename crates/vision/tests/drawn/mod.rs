//! Tables drawn from known poses for the tests that run without the dataset.

use koanscope_geometry::PieceModels;
use koanscope_scene::{Color, Size};
use koanscope_vision::pose::{flat_tilt, pose_on_table};
use nalgebra::Isometry3;

pub type Drawn = (Color, Size, Isometry3<f64>);

/// Four single pieces well apart, one of each colour: a large red upright, a medium blue lying
/// flat (moved `blue_moved_mm` along x), a small yellow upright and a medium green upright.
pub fn four_apart(blue_moved_mm: f64) -> Vec<Drawn> {
    let models = PieceModels::default();
    let upright =
        |size: Size, x: f64, y: f64, yaw: f64| pose_on_table(&models.dims(size), 0.0, x, y, yaw);
    let dims = models.dims(Size::Medium);
    vec![
        (
            Color::Red,
            Size::Large,
            upright(Size::Large, 40.0, 60.0, 0.3),
        ),
        (
            Color::Blue,
            Size::Medium,
            pose_on_table(&dims, flat_tilt(&dims), 160.0 + blue_moved_mm, 20.0, 2.0),
        ),
        (
            Color::Yellow,
            Size::Small,
            upright(Size::Small, 110.0, 150.0, 1.1),
        ),
        (
            Color::Green,
            Size::Medium,
            upright(Size::Medium, -60.0, 180.0, 0.0),
        ),
    ]
}
