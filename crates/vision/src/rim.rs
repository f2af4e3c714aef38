//! The rim of a piece stacked on one of its own colour. The outline of such a tower is all but
//! the outline of one taller piece: the top piece overhangs the base by a millimetre or two. What
//! shows it is the line where the top piece's faces end over the base's: a step in the shading
//! across the silhouette, level with the table, at a height set by the two sizes. A single
//! pyramid's faces run unbroken from its base to its tip, so the same line at other heights
//! crosses nothing but the ridges between faces.

use koanscope_geometry::PyramidDims;
use nalgebra::{Isometry3, Point2, Point3, Vector2};

use crate::camera::Camera;
use crate::segment::Segmentation;
use crate::stats::median;

/// How strongly the frame shows a rim at one height of an upright piece, against the same
/// measure at heights where no rim can be.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RimEvidence {
    /// Median step in lightness (8-bit L) across the rim's visible edges.
    pub at_rim: f64,
    /// The median of that measure over level lines across the base at other heights.
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

/// Half the distance, in pixels, between the two points whose lightness makes one step.
const STEP_HALF_PX: f64 = 2.0;
/// How far (pixels) along the edge's normal the step is looked for either way: a fit is a
/// pixel or two off.
const SLACK_PX: i32 = 2;
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
    let (at_rim, samples) = level_step(seg, camera, class, table_from_base, top.base_mm, rim_mm)?;
    if samples < min_samples || at_rim < min_ratio {
        return None;
    }
    // Level lines on the base's own faces at other heights: the base's cross-section there.
    let mut elsewhere: Vec<f64> = Vec::new();
    let mut z = CLEAR_MM;
    while z < base.height_mm - 2.0 * CLEAR_MM {
        if (z - rim_mm).abs() >= CLEAR_MM {
            let side = base.base_mm * (1.0 - z / base.height_mm);
            if let Some((step, n)) = level_step(seg, camera, class, table_from_base, side, z)
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

/// The median lightness step across the camera-facing edges of a level square of side
/// `side_mm`, `z_mm` above the table on the axis of `table_from_base`, and how many points of
/// it had `class` pixels on both sides.
fn level_step(
    seg: &Segmentation,
    camera: &Camera,
    class: u8,
    table_from_base: &Isometry3<f64>,
    side_mm: f64,
    z_mm: f64,
) -> Option<(f64, usize)> {
    let h = side_mm / 2.0;
    let corners = [(h, h), (-h, h), (-h, -h), (h, -h)].map(|(x, y)| Point3::new(x, y, z_mm));
    let eye = table_from_base.inverse() * camera.centre_table();
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
        if (eye.coords.xy() - mid.coords.xy()).dot(&outward) <= 0.0 {
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
            for o in -SLACK_PX..=SLACK_PX {
                let q = p + normal * f64::from(o);
                let (Some((l1, c1)), Some((l2, c2))) = (
                    lightness(&(q + normal * STEP_HALF_PX)),
                    lightness(&(q - normal * STEP_HALF_PX)),
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
