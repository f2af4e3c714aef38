//! A gap the camera sees. Two pieces fitted a millimetre or two apart are moved into contact
//! (`contact::close_gaps`), since a fit cannot place a piece finer than that; but where the fitted
//! poses leave a line of sight through the gap down to the table, the frame says which it is: the
//! table showing there is a real gap; plastic there means the fit is off, and they may touch.

use koanscope_geometry::{Engine, PieceModels};
use koanscope_scene::Piece;
use nalgebra::{Point2, Vector2};

use crate::camera::Camera;
use crate::occlusion::Solid;
use crate::segment::{Segmentation, TABLE};

/// Where along the segment between the two pieces' nearest points the frame is looked at.
const ALONG_GAP: [f64; 3] = [0.5, 0.35, 0.65];

/// Whether the frame shows the table through the gap between `pieces[i]` and `pieces[j]`
/// (their nearest points within `within_mm`): at some point of the gap, the rays through its
/// pixel and the four pixels around it reach the table past every piece as fitted, and that
/// pixel is table. Narrow gaps are a few pixels wide, so one pixel has to do.
#[allow(clippy::too_many_arguments)]
pub(crate) fn gap_seen(
    seg: &Segmentation,
    camera: &Camera,
    models: &PieceModels,
    engine: &Engine,
    pieces: &[Piece],
    i: usize,
    j: usize,
    within_mm: f64,
) -> bool {
    let Some((a, b)) = engine.nearest_points(&pieces[i], &pieces[j], within_mm) else {
        return false;
    };
    let solids: Vec<Solid> = pieces
        .iter()
        .map(|p| Solid::new(models, p.size, &p.table_from_piece))
        .collect();
    let eye = camera.centre_table();
    let clear_to_table = |pixel: &Point2<f64>| {
        let Some(floor) = camera.pixel_to_table_plane(pixel, 0.0) else {
            return false;
        };
        let reach = (floor - eye).norm();
        let direction = (floor - eye) / reach;
        solids
            .iter()
            .all(|s| s.entry(&eye, &direction).is_none_or(|t| t >= reach - 1e-6))
    };
    let around = [
        Vector2::new(0.0, 0.0),
        Vector2::new(1.0, 0.0),
        Vector2::new(-1.0, 0.0),
        Vector2::new(0.0, 1.0),
        Vector2::new(0.0, -1.0),
    ];
    ALONG_GAP.into_iter().any(|t| {
        camera
            .project_table(&(a + (b - a) * t))
            .is_some_and(|pixel| {
                around.iter().all(|o| clear_to_table(&(pixel + o)))
                    && seg.class_at(&pixel) == Some(TABLE)
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::{segmented_frame, table_camera};
    use koanscope_geometry::{CallWindows, Placer, Thresholds};
    use koanscope_scene::{Color, Size};

    /// A red large and a blue medium upright side by side on the table, `gap_mm` apart, their
    /// nearest base edges parallel and the gap between them running towards the camera.
    fn side_by_side(camera: &Camera, gap_mm: f64) -> Vec<Piece> {
        let models = PieceModels::default();
        let placer = Placer::default();
        let (x, y) = (0.0, 80.0);
        let eye = camera.centre_table();
        // Across the line of sight: the pieces' x axes point that way.
        let yaw = (eye.y - y).atan2(eye.x - x) + std::f64::consts::FRAC_PI_2;
        let half = |size| models.dims(size).base_mm / 2.0;
        let apart = half(Size::Large) + half(Size::Medium) + gap_mm;
        let (dx, dy) = (apart * yaw.cos(), apart * yaw.sin());
        vec![
            Piece::new(0, Color::Red, Size::Large, placer.upright(x, y, yaw)),
            Piece::new(
                1,
                Color::Blue,
                Size::Medium,
                placer.upright(x + dx, y + dy, yaw),
            ),
        ]
    }

    /// Whether the frame shows the gap between the first two pieces.
    fn seen_between_first_two(seg: &Segmentation, camera: &Camera, pieces: &[Piece]) -> bool {
        let engine = Engine::new(
            PieceModels::default(),
            Thresholds::default(),
            CallWindows::default(),
        );
        gap_seen(
            seg,
            camera,
            &PieceModels::default(),
            &engine,
            pieces,
            0,
            1,
            5.0,
        )
    }

    #[test]
    fn a_gap_the_table_shows_through_is_seen() {
        let camera = table_camera();
        let pieces = side_by_side(&camera, 2.0);
        let seg = segmented_frame(&camera, &pieces);
        let seen = seen_between_first_two(&seg, &camera, &pieces);
        assert!(seen, "a 2 mm gap in plain view");
    }

    #[test]
    fn pieces_fitted_apart_that_touch_in_the_frame_show_no_gap() {
        let camera = table_camera();
        // The frame shows them touching; the fit put the medium 2 mm off.
        let seg = segmented_frame(&camera, &side_by_side(&camera, 0.0));
        let fitted = side_by_side(&camera, 2.0);
        let seen = seen_between_first_two(&seg, &camera, &fitted);
        assert!(!seen, "plastic where the fit leaves a gap");
    }

    #[test]
    fn a_gap_hidden_behind_a_piece_is_not_seen() {
        let camera = table_camera();
        let mut pieces = side_by_side(&camera, 2.0);
        // A big piece standing between the camera and the gap hides it: the frame cannot tell.
        let eye = camera.centre_table();
        let centres = (pieces[0].table_from_piece.translation.vector
            + pieces[1].table_from_piece.translation.vector)
            / 2.0;
        let gap = nalgebra::Point3::from(centres);
        let towards_eye = (eye - gap).xy().normalize() * 30.0;
        pieces.push(Piece::new(
            2,
            Color::Green,
            Size::Large,
            Placer::default().upright(gap.x + towards_eye.x, gap.y + towards_eye.y, 0.3),
        ));
        let seg = segmented_frame(&camera, &pieces);
        let seen = seen_between_first_two(&seg, &camera, &pieces);
        assert!(!seen, "the gap is behind the green piece");
    }
}
