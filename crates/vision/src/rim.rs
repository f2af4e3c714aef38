//! The rim of a piece stacked on one of its own colour. The outline of such a tower is all but
//! the outline of one taller piece: the top piece overhangs the base by a millimetre or two. What
//! shows it is the line where the top piece's faces end over the base's: a step in the shading
//! across the silhouette, level with the table, at a height set by the two sizes. A single
//! pyramid's faces run unbroken from its base to its tip, so the same line at other heights
//! crosses nothing but the ridges between faces.
//!
//! The rim of an open base, seen through it (a piece upside down on its apex, from above),
//! shows the same way: a step just inside the rim, where the hollow begins (`open_base_evidence`).

use koanscope_geometry::PyramidDims;
use nalgebra::{Isometry3, Point2, Point3, Vector2};

use crate::camera::Camera;
use crate::pose::{level_square_piece, rim_width_mm};
use crate::segment::Segmentation;
use crate::stats::median;

/// How strongly the frame shows a rim (a tower's, or an open base's), against the same measure
/// where no rim can be.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RimEvidence {
    /// Median step in lightness (8-bit L) across the rim's visible edges.
    pub at_rim: f64,
    /// The same measure where no rim can be: over level lines across the base at other heights
    /// (their median).
    pub elsewhere: f64,
    /// Points of the rim's visible edges that had the piece's colour on both sides.
    pub samples: usize,
}

impl RimEvidence {
    /// How many times stronger the step is at the rim than elsewhere on the base (where it
    /// counts as at least 1: 8-bit lightness steps by whole levels).
    pub fn ratio(&self) -> f64 {
        self.at_rim / self.elsewhere.max(1.0)
    }
}

/// How a step in lightness across a line is probed: between two points `half_px` either side
/// of it, the strongest such step with the line shifted by up to `slack_px` either way along its
/// normal (a fit is a pixel or two off).
#[derive(Clone, Copy)]
struct Probe {
    half_px: f64,
    slack_px: i32,
}

/// The step at a tower's rim, where the top piece's faces end over the base's.
const RIM_PROBE: Probe = Probe {
    half_px: 2.0,
    slack_px: 2,
};
/// The step just inside an open base's rim, which is a millimetre or two wide: the probe stays
/// narrow so that the lines deeper in do not reach back to the rim.
const OPEN_BASE_PROBE: Probe = Probe {
    half_px: 1.5,
    slack_px: 1,
};
/// How far inside the rim's inner edge the open base's step is probed, mm: its outer point then
/// falls on the rim, clear of the blurred outline.
const PAST_RIM_MM: f64 = 1.0;
/// The level squares deeper in an open base, as shares of its side inset from each edge.
const DEEPER_INSETS: [f64; 3] = [0.2, 0.25, 0.3];
/// Heights kept clear of the rim and of the base's ends when measuring elsewhere, mm.
const CLEAR_MM: f64 = 4.0;

/// The evidence for a rim `rim_mm` above the table on an upright `base` (its pose
/// `table_from_base`): the rim is the foot of a piece of `top` dimensions stacked there. Only
/// the rim's edges facing the camera count (the others hide behind the top piece), and only their
/// points with `class` pixels on both sides. `None` when fewer than `min_samples` such points, or
/// no level line elsewhere, are seen, or when the step at the rim is too weak for a ratio of
/// `min_ratio` (the lines elsewhere count as stepping by at least 1: they are not measured then).
#[allow(clippy::too_many_arguments)]
pub fn rim_evidence(
    seg: &Segmentation,
    camera: &Camera,
    class: u8,
    base: &PyramidDims,
    table_from_base: &Isometry3<f64>,
    top: &PyramidDims,
    rim_mm: f64,
    min_samples: usize,
    min_ratio: f64,
) -> Option<RimEvidence> {
    // Only the edges facing the eye count (the others hide behind the top piece).
    let eye = Some(table_from_base.inverse() * camera.centre_table());
    let (at_rim, samples) = level_step(
        seg,
        camera,
        class,
        table_from_base,
        top.base_mm,
        rim_mm,
        RIM_PROBE,
        eye,
    )?;
    if samples < min_samples || at_rim < min_ratio {
        return None;
    }
    // Level lines on the base's own faces at other heights: the base's cross-section there.
    let mut elsewhere: Vec<f64> = Vec::new();
    let mut z = CLEAR_MM;
    while z < base.height_mm - 2.0 * CLEAR_MM {
        if (z - rim_mm).abs() >= CLEAR_MM {
            let side = base.base_mm * (1.0 - z / base.height_mm);
            if let Some((step, n)) =
                level_step(seg, camera, class, table_from_base, side, z, RIM_PROBE, eye)
                && n >= min_samples / 2
            {
                elsewhere.push(step);
            }
        }
        z += 2.0;
    }
    if elsewhere.is_empty() {
        return None;
    }
    Some(RimEvidence {
        at_rim,
        elsewhere: median(&mut elsewhere),
        samples,
    })
}

/// How strongly the frame shows the open base of a piece of `dims` (walls `wall_mm` thick) at
/// `table_from_piece`, seen through the base: upside down on its apex, say, from above. The rim
/// faces out of the base, the hollow's inner faces lie behind it in its shade, so lightness
/// steps just inside the rim (`at_rim`). Level squares deeper in the base (`elsewhere`, the
/// median of three) cross only the inner faces, as on a piece standing they cross only its outer
/// faces, which run unbroken from the outline to the apex: no edge but the ridges. `None` when
/// the camera does not look into the base, or fewer than `min_samples` points of the rim's
/// square, or of each deeper one, had `class` pixels on both sides.
pub fn open_base_evidence(
    seg: &Segmentation,
    camera: &Camera,
    class: u8,
    dims: &PyramidDims,
    wall_mm: f64,
    table_from_piece: &Isometry3<f64>,
    min_samples: usize,
) -> Option<RimEvidence> {
    let eye = table_from_piece.inverse() * camera.centre_table();
    if eye.z >= 0.0 {
        return None;
    }
    let rim_mm = rim_width_mm(dims, wall_mm);
    let square = |inset_mm: f64| {
        level_step(
            seg,
            camera,
            class,
            table_from_piece,
            dims.base_mm - 2.0 * inset_mm,
            0.0,
            OPEN_BASE_PROBE,
            None,
        )
        .filter(|&(_, n)| n >= min_samples)
    };
    let (at_rim, samples) = square(rim_mm + PAST_RIM_MM)?;
    let mut deeper = Vec::new();
    for share in DEEPER_INSETS {
        deeper.push(square(share * dims.base_mm)?.0);
    }
    Some(RimEvidence {
        at_rim,
        elsewhere: median(&mut deeper),
        samples,
    })
}

/// The median lightness step (as `probe` finds it) across the edges of a level square of side
/// `side_mm`, `z_mm` along the axis of `table_from_base` (only those facing `eye`, the camera's
/// centre in the base's frame, where given), and how many points of it had `class` pixels on
/// both sides.
#[allow(clippy::too_many_arguments)]
fn level_step(
    seg: &Segmentation,
    camera: &Camera,
    class: u8,
    table_from_base: &Isometry3<f64>,
    side_mm: f64,
    z_mm: f64,
    probe: Probe,
    eye: Option<Point3<f64>>,
) -> Option<(f64, usize)> {
    let corners = level_square_piece(side_mm / 2.0, z_mm);
    let lab = seg.lab_bytes();
    let lightness = |p: &Point2<f64>| -> Option<(f64, u8)> {
        let (x, y) = (p.x.round(), p.y.round());
        if x < 0.0 || y < 0.0 || x >= seg.width as f64 || y >= seg.height as f64 {
            return None;
        }
        let k = y as usize * seg.width + x as usize;
        Some((f64::from(*lab.get(3 * k)?), seg.classes[k]))
    };
    let mut steps = Vec::new();
    for i in 0..4 {
        let (a, b) = (corners[i], corners[(i + 1) % 4]);
        let mid = Point3::from((a.coords + b.coords) / 2.0);
        // The edge faces the camera when the eye is outside the vertical plane through it.
        let outward = mid.coords.xy();
        if eye.is_some_and(|eye| (eye.coords.xy() - mid.coords.xy()).dot(&outward) <= 0.0) {
            continue;
        }
        let (Some(pa), Some(pb)) = (
            camera.project_table(&(table_from_base * a)),
            camera.project_table(&(table_from_base * b)),
        ) else {
            continue;
        };
        let along = pb - pa;
        let length = along.norm();
        if length < 4.0 {
            continue;
        }
        let normal = Vector2::new(-along.y, along.x) / length;
        // Points a pixel apart, away from the corners, where ridges and the outline meet.
        let count = (length * 0.7) as usize;
        for s in 0..count {
            let t = 0.15 + 0.7 * (s as f64 + 0.5) / count as f64;
            let p = pa + along * t;
            let mut best: Option<f64> = None;
            for o in -probe.slack_px..=probe.slack_px {
                let q = p + normal * f64::from(o);
                let (Some((l1, c1)), Some((l2, c2))) = (
                    lightness(&(q + normal * probe.half_px)),
                    lightness(&(q - normal * probe.half_px)),
                ) else {
                    continue;
                };
                if c1 != class || c2 != class {
                    continue;
                }
                let step = (l1 - l2).abs();
                best = Some(best.map_or(step, |b: f64| b.max(step)));
            }
            steps.extend(best);
        }
    }
    if steps.is_empty() {
        return None;
    }
    let n = steps.len();
    Some((median(&mut steps), n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::color::ColorModel;
    use crate::pose::pose_on_table;
    use crate::render::{draw_hollow_pieces, draw_shaded_pieces, webcam_overhead};
    use crate::segment::segment;
    use koanscope_geometry::PieceModels;
    use koanscope_scene::{Color, Size};
    use opencv::core::Mat;

    fn evidence(frame: &Mat, camera: &Camera, pose: &Isometry3<f64>) -> Option<RimEvidence> {
        let models = PieceModels::default();
        let seg = segment(frame, &ColorModel::default()).expect("segmented");
        let class = seg.class_of(Color::Blue).expect("blue is a class");
        let dims = models.dims(Size::Medium);
        open_base_evidence(&seg, camera, class, &dims, models.wall_mm, pose, 12)
    }

    #[test]
    fn an_open_base_seen_from_above_steps_at_its_rim_and_a_standing_piece_does_not() {
        let camera = webcam_overhead();
        let dims = PieceModels::default().dims(Size::Medium);
        for (x, y, yaw) in [(90.0, 140.0, 0.3), (150.0, 60.0, 1.0), (30.0, 20.0, 0.0)] {
            let upside_down = pose_on_table(&dims, std::f64::consts::PI, x, y, yaw);
            let frame = draw_hollow_pieces(&camera, &[(Color::Blue, Size::Medium, upside_down)])
                .expect("drawn");
            let open = evidence(&frame, &camera, &upside_down).expect("the base is in view");
            assert!(
                open.at_rim >= 25.0 && open.ratio() >= 2.0,
                "upside down at ({x}, {y}): {open:?}"
            );
            // Standing there, its faces shaded by a lamp, nothing steps where the rim would be.
            let standing = pose_on_table(&dims, 0.0, x, y, yaw);
            let frame = draw_shaded_pieces(&camera, &[(Color::Blue, Size::Medium, standing)])
                .expect("drawn");
            let faces = evidence(&frame, &camera, &upside_down).expect("squares on its faces");
            assert!(faces.ratio() < 2.0, "standing at ({x}, {y}): {faces:?}");
            // Standing, its base faces the table: the camera cannot look into it.
            assert_eq!(evidence(&frame, &camera, &standing), None);
        }
    }
}
