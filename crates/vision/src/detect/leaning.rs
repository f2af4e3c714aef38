//! Nothing leans on air. A leaning or slanted upside-down reading must rest against another
//! piece; where no piece stands within reach of it, the outline that chose it (a tilted
//! pyramid can mimic many silhouettes, as a small lying with its base to the camera shows a
//! square, like one upside down at a slant) is not borne out, and the region is read again
//! with the poses a piece can hold alone.

use super::*;
use crate::pose::leans;

impl Detector {
    /// Reads again, without tilted poses, each region whose reading leans a piece against
    /// nothing: no other piece's corners come within `DetectParams::leaning_snap_mm` of its
    /// own (box to box, which can only err towards keeping the lean). `supports` are the tips
    /// each region was last fitted over.
    pub(super) fn stand_lone_leaners(
        &self,
        cache: &FitCache,
        camera: &Camera,
        regions: &[Region],
        per_region: &mut [Vec<Detection>],
        supports: &[Vec<Point3<f64>>],
    ) {
        let boxes: Vec<Vec<(Point3<f64>, Point3<f64>)>> = per_region
            .iter()
            .map(|found| found.iter().map(|d| self.corner_box(d)).collect())
            .collect();
        for i in 0..regions.len() {
            let alone = per_region[i].iter().enumerate().any(|(k, d)| {
                leans(d.resting, &d.table_from_piece, &self.dims(d.size))
                    && !boxes.iter().enumerate().any(|(r, found)| {
                        found.iter().enumerate().any(|(m, other)| {
                            (r, m) != (i, k)
                                && box_gap(&boxes[i][k], other) <= self.params.leaning_snap_mm
                        })
                    })
            });
            if !alone {
                continue;
            }
            let (usual, _) = self.explain_region_with(
                cache,
                regions[i].clone(),
                camera,
                &supports[i],
                false,
                f64::NEG_INFINITY,
            );
            if !usual.is_empty() {
                per_region[i] = self.polish(cache, &regions[i], camera, &supports[i], false, usual);
            }
        }
    }

    /// The box of a detected piece's five corners, table frame.
    pub(super) fn corner_box(&self, d: &Detection) -> (Point3<f64>, Point3<f64>) {
        let corners = vertices_piece(&self.dims(d.size)).map(|v| d.table_from_piece * v);
        let mut lo = corners[0];
        let mut hi = corners[0];
        for c in &corners[1..] {
            lo = lo.inf(c);
            hi = hi.sup(c);
        }
        (lo, hi)
    }
}

/// How far apart two boxes are (0 where they overlap), mm.
pub(super) fn box_gap(a: &(Point3<f64>, Point3<f64>), b: &(Point3<f64>, Point3<f64>)) -> f64 {
    (0..3)
        .map(|k| (a.0[k] - b.1[k]).max(b.0[k] - a.1[k]).max(0.0))
        .map(|g| g * g)
        .sum::<f64>()
        .sqrt()
}
