//! A leaning piece rests on the table and against its support at once. The fit turns a tilted
//! piece freely and is least sure of its slant (a steeper piece nearer the camera outlines much
//! the same); closing the gap then tips or slides it into contact from wherever the fit left it,
//! so its axis, and with it where it points, can stay many degrees off (dev's leaners 0.3-19°).
//! Here each leaner touching a piece is fitted to the frame again over only the poses that rest
//! on the table and against that piece, and the best is kept where the frame bears it out better
//! than the pose it had, or wherever that pose went into the piece (no table holds that).

use koanscope_geometry::{Engine, PieceModels, PyramidDims};
use koanscope_scene::Piece;
use nalgebra::{Isometry3, Point2, Vector3};

use crate::camera::Camera;
use crate::contact::{CONTACT_MM, Support, TOUCHING_MM, bisect_to_contact, keeps_the_rest};
use crate::pose::{centroid_piece, flat_tilt, pose_on_table, silhouette, vertices_piece};
use crate::region::for_each_run;
use crate::segment::{Segmentation, TABLE};

/// A leaner's tilt stays this far (radians) from the rests a piece keeps alone, as `leans` has it.
const REST_MARGIN: f64 = 8.0 * std::f64::consts::PI / 180.0;
/// The search's first steps: tilt and yaw (radians) and across the line to the support (mm).
const FIRST_STEPS: [f64; 3] = [
    3.0 * std::f64::consts::PI / 180.0,
    3.0 * std::f64::consts::PI / 180.0,
    1.5,
];
/// The steps are halved this many times (down to 0.4° and 0.2 mm).
const HALVINGS: usize = 3;
/// How far back from its support a candidate is first set before it slides in, and in what
/// steps it slides until it touches (then bisected), mm.
const BACK_MM: f64 = 8.0;
const SLIDE_STEP_MM: f64 = 2.0;

/// Where on the table a leaner stands, as the search moves it: tilted and turned as
/// `pose_on_table` has it, and shifted across the line to its support.
#[derive(Clone, Copy, Debug)]
struct Lean {
    tilt: f64,
    yaw: f64,
    across_mm: f64,
}

/// Fits each leaning piece that touches another again over the poses resting on the table and
/// against the piece it touches most nearly. The best is kept where it runs into nothing else
/// and explains the frame better than the pose the piece had, or that pose went into the piece.
/// A pose explains the frame by the pixels of the leaner's colour under its outline, less
/// `leak_weight` for each of the table (as the fit scores). Returns the pieces refitted.
pub(crate) fn refit_leaners(
    pieces: &mut [Piece],
    support: &[Support],
    seg: &Segmentation,
    camera: &Camera,
    models: &PieceModels,
    engine: &Engine,
    leak_weight: f64,
) -> Vec<usize> {
    let mut refitted = Vec::new();
    for i in 0..pieces.len() {
        if support[i] != Support::Leaning {
            continue;
        }
        let Some(other) = (0..pieces.len())
            .filter(|&k| k != i)
            .map(|k| (k, engine.surface_distance(&pieces[i], &pieces[k])))
            .filter(|&(_, d)| d <= TOUCHING_MM)
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(k, _)| k)
        else {
            continue;
        };
        if let Some(better) = refit_one(pieces, i, other, seg, camera, models, engine, leak_weight)
        {
            pieces[i] = better;
            refitted.push(i);
        }
    }
    refitted
}

/// `pieces[i]` fitted again against `pieces[other]` (see [`refit_leaners`]), if that is better.
#[allow(clippy::too_many_arguments)]
fn refit_one(
    pieces: &[Piece],
    i: usize,
    other: usize,
    seg: &Segmentation,
    camera: &Camera,
    models: &PieceModels,
    engine: &Engine,
    leak_weight: f64,
) -> Option<Piece> {
    let piece = &pieces[i];
    let dims = models.dims(piece.size);
    let pose = &piece.table_from_piece;
    let axis = pose.rotation * Vector3::z();
    let start = Lean {
        tilt: axis.z.clamp(-1.0, 1.0).acos(),
        yaw: (-axis.x).atan2(axis.y),
        across_mm: 0.0,
    };
    let centroid = pose * centroid_piece(&dims);
    // Only a piece tipped about a base edge (or its apex) is one `pose_on_table` holds.
    let rebuilt = pose_on_table(&dims, start.tilt, centroid.x, centroid.y, start.yaw);
    if !same_solid(&dims, pose, &rebuilt) {
        return None;
    }
    // It keeps leaning the way it leant: apex up, or apex down past lying flat.
    let flat = flat_tilt(&dims);
    let (lo, hi) = if start.tilt < flat {
        (REST_MARGIN, flat - REST_MARGIN)
    } else {
        (flat + REST_MARGIN, std::f64::consts::PI - REST_MARGIN)
    };
    // Candidates slide along the table towards the support, from their nearest points (from the
    // centroids where the hulls meet and have none).
    let towards = engine
        .nearest_points(piece, &pieces[other], f64::INFINITY)
        .map_or(Vector3::zeros(), |(a, b)| b - a);
    let towards = Vector3::new(towards.x, towards.y, 0.0);
    let along = if towards.norm() > 1e-6 {
        towards.normalize()
    } else {
        let c = pieces[other].table_from_piece.translation.vector - centroid.coords;
        Vector3::new(c.x, c.y, 0.0).try_normalize(1e-9)?
    };
    let across = Vector3::new(-along.y, along.x, 0.0);
    let class = seg
        .palette
        .iter()
        .position(|&c| c == piece.color)
        .map(|k| 2 + k as u8)?;
    let weights = Weights::around(seg, class, pieces, i, camera, models, leak_weight)?;
    let score = |p: &Piece| {
        silhouette(camera, &dims, &p.table_from_piece).map_or(f64::NEG_INFINITY, |outline| {
            weights.score(seg, class, &outline)
        })
    };
    let candidate = |lean: &Lean, hint: Option<f64>| {
        if lean.tilt < lo || lean.tilt > hi {
            return None;
        }
        let back = centroid.coords + across * lean.across_mm - along * BACK_MM;
        slid_into(&pieces[other], engine, hint, |t| {
            let c = back + along * t;
            let mut p = piece.clone();
            p.table_from_piece = pose_on_table(&dims, lean.tilt, c.x, c.y, lean.yaw);
            p
        })
    };
    let mut at = start;
    let (first, slid) = candidate(&at, None)?;
    let mut best = (score(&first), first, slid);
    // A pattern search: each step tried both ways on each parameter until none helps, then
    // halved.
    let mut steps = FIRST_STEPS;
    for _ in 0..=HALVINGS {
        loop {
            let mut moved = false;
            for (k, sign) in [
                (0, 1.0),
                (0, -1.0),
                (1, 1.0),
                (1, -1.0),
                (2, 1.0),
                (2, -1.0),
            ] {
                let mut lean = at;
                match k {
                    0 => lean.tilt += sign * steps[0],
                    1 => lean.yaw += sign * steps[1],
                    _ => lean.across_mm += sign * steps[2],
                }
                if let Some((p, slid)) = candidate(&lean, Some(best.2)) {
                    let s = score(&p);
                    if s > best.0 {
                        best = (s, p, slid);
                        at = lean;
                        moved = true;
                    }
                }
            }
            if !moved {
                break;
            }
        }
        steps = steps.map(|s| s / 2.0);
    }
    let (score_best, best, _) = best;
    // A pose fitted into its support is no reading a table could hold, however well it fits.
    let was_into = engine.surface_distance(piece, &pieces[other]) <= 0.0;
    ((was_into || score_best > score(piece)) && keeps_the_rest(pieces, i, other, &best, engine))
        .then_some(best)
}

/// `placed(t)` for the travel `t` (mm, along a line towards `support`) at which it first comes
/// within [`CONTACT_MM`] of `support`, and that travel: looked for within a millimetre of `hint`
/// first (the search's small steps move the contact little), else stepping in from
/// `placed(0)`, which must be clear of it, up to `2 BACK_MM`.
fn slid_into(
    support: &Piece,
    engine: &Engine,
    hint: Option<f64>,
    placed: impl Fn(f64) -> Piece,
) -> Option<(Piece, f64)> {
    let distance = |t: f64| engine.surface_distance(&placed(t), support);
    let touches = |t: f64| distance(t) <= CONTACT_MM;
    let near_hint = hint
        .filter(|&t| !touches(t - 1.0) && touches(t + 1.0))
        .map(|t| (t - 1.0, t + 1.0, 7));
    let (near, far, halvings) = near_hint.or_else(|| {
        if touches(0.0) {
            return None;
        }
        let mut near = 0.0;
        while near < 2.0 * BACK_MM {
            let next = near + SLIDE_STEP_MM;
            if touches(next) {
                return Some((near, next, 8));
            }
            near = next;
        }
        None
    })?;
    let far = bisect_to_contact(distance, near, far, halvings);
    Some((placed(far), far))
}

/// Whether two poses place the same solid (a pyramid looks the same turned a quarter about its
/// axis): every corner of one within half a millimetre of a corner of the other.
fn same_solid(dims: &PyramidDims, a: &Isometry3<f64>, b: &Isometry3<f64>) -> bool {
    let corners = vertices_piece(dims);
    corners.iter().all(|v| {
        let p = a * v;
        corners.iter().any(|w| (b * w - p).norm() < 0.5)
    })
}

/// What each pixel near a leaner says of an outline covering it, summed along rows: +1 for the
/// leaner's colour, less the leak weight for the table, 0 for anything else. Under another piece's
/// outline a pixel of the leaner's colour counts only where that piece has another colour (the
/// leaner shows in front of it), and the table does not count (the other piece may hide it).
struct Weights {
    x0: i64,
    y0: i64,
    w: i64,
    h: i64,
    /// Per row of the box, the running sums of the weights, `w + 1` each.
    sums: Vec<f64>,
    /// What a pixel of the table costs (outside the box too).
    leak_weight: f64,
}

/// How far around the leaner's outline the box of weights reaches, pixels: beyond the outlines
/// its search can reach.
const BOX_MARGIN_PX: f64 = 60.0;

impl Weights {
    /// The weights around `pieces[i]`'s outline, which has the palette's `class`.
    fn around(
        seg: &Segmentation,
        class: u8,
        pieces: &[Piece],
        i: usize,
        camera: &Camera,
        models: &PieceModels,
        leak_weight: f64,
    ) -> Option<Weights> {
        let piece = &pieces[i];
        let outline = silhouette(camera, &models.dims(piece.size), &piece.table_from_piece)?;
        let (fw, fh) = (seg.width as i64, seg.height as i64);
        let xs = outline.iter().map(|p| p.x);
        let ys = outline.iter().map(|p| p.y);
        let x0 = ((xs.clone().fold(f64::INFINITY, f64::min) - BOX_MARGIN_PX).floor() as i64).max(0);
        let x1 = ((xs.fold(f64::NEG_INFINITY, f64::max) + BOX_MARGIN_PX).ceil() as i64).min(fw - 1);
        let y0 = ((ys.clone().fold(f64::INFINITY, f64::min) - BOX_MARGIN_PX).floor() as i64).max(0);
        let y1 = ((ys.fold(f64::NEG_INFINITY, f64::max) + BOX_MARGIN_PX).ceil() as i64).min(fh - 1);
        let (w, h) = ((x1 - x0 + 1).max(0), (y1 - y0 + 1).max(0));
        // 0 uncovered, 1 under another colour's outline, 2 under one of the leaner's colour.
        let mut under = vec![0u8; (w * h) as usize];
        for (k, p) in pieces.iter().enumerate() {
            if k == i {
                continue;
            }
            let Some(o) = silhouette(camera, &models.dims(p.size), &p.table_from_piece) else {
                continue;
            };
            let mark = if p.color == piece.color { 2 } else { 1 };
            for_each_run(&o, |y, xa, xb| {
                if y < y0 || y > y1 {
                    return;
                }
                for x in xa.max(x0)..=xb.min(x1) {
                    let u = &mut under[((y - y0) * w + x - x0) as usize];
                    *u = (*u).max(mark);
                }
            });
        }
        let mut sums = vec![0.0; (h * (w + 1)) as usize];
        for y in 0..h {
            let row = &mut sums[(y * (w + 1)) as usize..((y + 1) * (w + 1)) as usize];
            for x in 0..w {
                let c = seg.classes[((y + y0) * fw + x + x0) as usize];
                let weight = match under[(y * w + x) as usize] {
                    0 if c == class => 1.0,
                    0 if c == TABLE => -leak_weight,
                    1 if c == class => 1.0,
                    _ => 0.0,
                };
                row[x as usize + 1] = row[x as usize] + weight;
            }
        }
        Some(Weights {
            x0,
            y0,
            w,
            h,
            sums,
            leak_weight,
        })
    }

    /// The summed weights under an outline; its pixels outside the box weigh as if uncovered.
    fn score(&self, seg: &Segmentation, class: u8, outline: &[Point2<f64>]) -> f64 {
        let (fw, fh) = (seg.width as i64, seg.height as i64);
        let plain = |x: i64, y: i64| match seg.classes[(y * fw + x) as usize] {
            c if c == class => 1.0,
            TABLE => -self.leak_weight,
            _ => 0.0,
        };
        let mut score = 0.0;
        for_each_run(outline, |y, xa, xb| {
            if y < 0 || y >= fh {
                return;
            }
            let (xa, xb) = (xa.max(0), xb.min(fw - 1));
            if xa > xb {
                return;
            }
            let in_rows = y >= self.y0 && y < self.y0 + self.h;
            let (ia, ib) = (xa.max(self.x0), xb.min(self.x0 + self.w - 1));
            if in_rows && ia <= ib {
                let row = &self.sums[((y - self.y0) * (self.w + 1)) as usize..];
                score += row[(ib - self.x0 + 1) as usize] - row[(ia - self.x0) as usize];
                score += (xa..ia)
                    .chain(ib + 1..=xb)
                    .map(|x| plain(x, y))
                    .sum::<f64>();
            } else {
                score += (xa..=xb).map(|x| plain(x, y)).sum::<f64>();
            }
        });
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::{segmented_frame, table_camera};
    use koanscope_geometry::Placer;
    use koanscope_scene::{Color, Size};

    fn engine() -> Engine {
        Engine::default()
    }

    /// A blue large upright at (0, 80) and a red medium leaning on it from the -x side, tilted
    /// by `tilt_deg` and turned `turn_deg` off facing it, slid along x until it touches.
    fn leaning(tilt_deg: f64, turn_deg: f64) -> Vec<Piece> {
        let models = PieceModels::default();
        let support = Piece::new(
            0,
            Color::Blue,
            Size::Large,
            Placer::default().upright(0.0, 80.0, 0.3),
        );
        let dims = models.dims(Size::Medium);
        // Yaw -90° tips the apex towards +x, onto the support.
        let yaw = (-90.0 + turn_deg).to_radians();
        let placed = |x: f64| {
            let pose = pose_on_table(&dims, tilt_deg.to_radians(), x, 80.0, yaw);
            Piece::new(1, Color::Red, Size::Medium, pose)
        };
        let engine = engine();
        let distance = |x: f64| engine.surface_distance(&placed(x), &support);
        let (mut clear, mut touching) = (-60.0, -60.0);
        while distance(touching) > CONTACT_MM {
            clear = touching;
            touching += 1.0;
        }
        let touching = bisect_to_contact(distance, clear, touching, 30);
        vec![support, placed(touching)]
    }

    fn axis_angle_deg(a: &Piece, b: &Piece) -> f64 {
        let axis = |p: &Piece| p.table_from_piece.rotation * Vector3::z();
        axis(a).angle(&axis(b)).to_degrees()
    }

    fn refit(fitted: &mut [Piece], seg: &Segmentation, camera: &Camera) -> Vec<usize> {
        let support = [Support::Itself, Support::Leaning];
        let models = PieceModels::default();
        let leak_weight = crate::detect::DetectParams::default().leak_weight;
        refit_leaners(
            fitted,
            &support,
            seg,
            camera,
            &models,
            &engine(),
            leak_weight,
        )
    }

    #[test]
    fn a_leaner_fitted_too_steep_and_turned_is_fitted_again_on_the_table_against_its_support() {
        let camera = table_camera();
        let truth = leaning(52.0, 0.0);
        let seg = segmented_frame(&camera, &truth);
        let mut fitted = leaning(40.0, 7.0);
        assert!(axis_angle_deg(&fitted[1], &truth[1]) > 10.0);
        assert_eq!(refit(&mut fitted, &seg, &camera), vec![1]);
        let off = axis_angle_deg(&fitted[1], &truth[1]);
        assert!(off < 2.0, "axis {off:.1}° off the leaner's");
        let gap = engine().surface_distance(&fitted[0], &fitted[1]);
        assert!(
            gap <= TOUCHING_MM,
            "it still touches its support ({gap:.2} mm)"
        );
        let lowest = vertices_piece(&PieceModels::default().dims(Size::Medium))
            .iter()
            .map(|v| (fitted[1].table_from_piece * v).z)
            .fold(f64::INFINITY, f64::min);
        assert!(
            lowest.abs() < 0.01,
            "it stands on the table (lowest corner {lowest:.3} mm)"
        );
    }

    #[test]
    fn a_leaner_fitted_as_the_frame_shows_it_stays() {
        let camera = table_camera();
        let truth = leaning(52.0, 0.0);
        let seg = segmented_frame(&camera, &truth);
        let mut fitted = truth.clone();
        refit(&mut fitted, &seg, &camera);
        assert!(axis_angle_deg(&fitted[1], &truth[1]) < 1.0);
    }

    #[test]
    fn a_leaner_fitted_into_its_support_is_moved_out_to_touch_it_even_where_that_fits_worse() {
        let camera = table_camera();
        // The frame itself shows the leaner 3 mm into the large, as a fit might read it.
        let mut into = leaning(52.0, 0.0);
        into[1]
            .table_from_piece
            .append_translation_mut(&nalgebra::Translation3::new(3.0, 0.0, 0.0));
        let engine = engine();
        assert_eq!(engine.surface_distance(&into[0], &into[1]), 0.0);
        let seg = segmented_frame(&camera, &into);
        let mut fitted = into.clone();
        assert_eq!(refit(&mut fitted, &seg, &camera), vec![1]);
        let gap = engine.surface_distance(&fitted[0], &fitted[1]);
        assert!(
            gap > 0.0 && gap <= TOUCHING_MM,
            "touching, not into it ({gap:.2} mm)"
        );
    }

    #[test]
    fn a_leaner_touching_nothing_is_not_refitted() {
        let camera = table_camera();
        let mut apart = leaning(40.0, 7.0);
        apart[0].table_from_piece = Placer::default().upright(60.0, 80.0, 0.3);
        let seg = segmented_frame(&camera, &leaning(52.0, 0.0));
        let before = apart.clone();
        assert!(refit(&mut apart, &seg, &camera).is_empty());
        assert_eq!(apart, before);
    }
}
