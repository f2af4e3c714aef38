//! Towers whose base hardly shows. A piece stacked on one of another colour hides most of it:
//! the base shows only as a rim of its colour around the top piece's foot. Fitted alone, that
//! rim makes no piece (most of a base's silhouette would pass behind a neighbour, which costs),
//! and the top piece, fitted alone, stands on the table with the same outline. Here the two are
//! fitted together: a base under an upright piece, the piece raised onto its tip along the rays
//! it is seen by, its outline as good as before, the part of the base it hides free.

use super::*;
use crate::region::hidden_by;

/// A base found under a piece of another region, and what it changes.
struct RaisedOnto {
    /// The base region's new explanation (the base first) and its score.
    base_region: Reading,
    /// The top piece, now stacked on the base.
    top: Detection,
    /// How much better (or worse) the top piece's outline explains its own region so.
    top_gain: f64,
}

impl Detector {
    /// Raises upright pieces onto bases of another colour that they hide all but a rim of,
    /// where that explains the rim's region clearly better than what it was fitted with.
    pub(super) fn raise_onto_hidden_bases(
        &self,
        cache: &FitCache,
        camera: &Camera,
        regions: &[Region],
        per_region: &mut [Vec<Detection>],
        scores: &mut [f64],
    ) {
        // A region takes part in one tower found here, as base or as top: a base just found
        // is no top, and a top just raised is no base.
        let mut taken = vec![false; regions.len()];
        for j in 0..regions.len() {
            for k in 0..per_region[j].len() {
                if taken[j] || per_region[j][k].resting != Resting::Upright {
                    continue;
                }
                let top = &per_region[j][k];
                // Only a region with pixels around the top's foot can hold its base.
                let around = grown(&top.outline_px, 4.0);
                let bases: Vec<usize> = (0..regions.len())
                    .filter(|&i| i != j && !taken[i] && regions[i].color != top.color)
                    .filter(|&i| {
                        let rim =
                            covered(&regions[i], &around) - covered(&regions[i], &top.outline_px);
                        rim >= self.params.min_region_px as f64 / 2.0
                    })
                    .collect();
                if bases.is_empty() {
                    continue;
                }
                // The top's region as it is with the other pieces fitted there in place.
                let mut top_region = regions[j].clone();
                for (other, d) in per_region[j].iter().enumerate() {
                    if other != k {
                        explain(&mut top_region, &d.outline_px);
                    }
                }
                let best = bases
                    .into_iter()
                    .filter_map(|i| {
                        let raised = self.hidden_base_under(
                            cache,
                            camera,
                            &regions[i],
                            &top_region,
                            top,
                            scores[i],
                        )?;
                        Some((
                            raised.base_region.1 + raised.top_gain - scores[i],
                            i,
                            raised,
                        ))
                    })
                    .max_by(|a, b| a.0.total_cmp(&b.0));
                if let Some((_, i, raised)) = best {
                    taken[i] = true;
                    taken[j] = true;
                    scores[i] = raised.base_region.1;
                    per_region[i] = raised.base_region.0;
                    scores[j] += raised.top_gain;
                    per_region[j][k] = raised.top;
                }
            }
        }
    }

    /// The best base in `base_region` under `top` (fitted standing on the table, in
    /// `top_region`), with the top raised onto it, if the base region's reading and the top's
    /// gain together beat the region's `previous` reading clearly (by the stacking margin);
    /// `None` where no base would show enough of itself.
    fn hidden_base_under(
        &self,
        cache: &FitCache,
        camera: &Camera,
        base_region: &Region,
        top_region: &Region,
        top: &Detection,
        previous: f64,
    ) -> Option<RaisedOnto> {
        let must_beat = previous + self.params.stacking_margin * base_region.target_px();
        // Where the top is, the top shows: what the region has there is not the base's (a
        // translucent top's dark face may take the table's colour), and what the top hides of
        // the base is hidden by the reading itself.
        let mut free = base_region.clone();
        hidden_by(&mut free, &top.outline_px);
        let free_prefix = Prefix::new(&free);
        let top_prefix = Prefix::new(top_region);
        let top_dims = self.dims(top.size);
        let seat_depth = cavity_apex_piece(&top_dims, self.pieces.wall_mm).z;
        let top_yaw = top.table_from_piece.rotation.euler_angles().2;
        let top_on = |base: &Hypothesis| Hypothesis {
            size: top.size,
            resting: Resting::Stacked,
            x: base.x,
            y: base.y,
            yaw: top_yaw,
            tilt: 0.0,
            lift: self.dims(base.size).height_mm - seat_depth,
        };
        let joint = |base: &Hypothesis| {
            self.score(&free, &free_prefix, camera, base).0
                + self.score(top_region, &top_prefix, camera, &top_on(base)).0
        };
        let nudge = Freedom {
            first_step_mm: 2.0,
            tilt: false,
        };
        let mut best: Option<(f64, Hypothesis)> = None;
        for size in [Size::Small, Size::Medium, Size::Large] {
            let lift = self.dims(size).height_mm - seat_depth;
            // A piece whose cavity reaches below the base's tip would sit over it on the table.
            if lift <= 0.0 {
                continue;
            }
            // Raised, the top is seen along the same rays: its centroid moves up them by the lift.
            let at = camera.pixel_to_table_plane(&top.image_xy, top_dims.height_mm / 4.0 + lift)?;
            let seed = (0..12)
                .map(|s| Hypothesis {
                    size,
                    resting: Resting::Upright,
                    x: at.x,
                    y: at.y,
                    yaw: std::f64::consts::FRAC_PI_2 * f64::from(s) / 12.0,
                    tilt: 0.0,
                    lift: 0.0,
                })
                .max_by(|a, b| joint(a).total_cmp(&joint(b)))?;
            let (score, h, _) = pattern_search(seed, nudge, FINE_FROM_MM, joint);
            if best.as_ref().is_none_or(|(s, _)| score > *s) {
                best = Some((score, h));
            }
        }
        // Only the best size takes the fine steps.
        let (_, coarse) = best?;
        let fine = Freedom {
            first_step_mm: FINE_FROM_MM / 2.0,
            tilt: false,
        };
        let (_, base_h, _) = pattern_search(coarse, fine, FINEST_STEP_MM, joint);
        // The base must show enough of itself, and little of it on the table.
        let (base_score, o) = self.score(&free, &free_prefix, camera, &base_h);
        let precision = o.on / (o.on + o.off).max(1.0);
        if precision < self.params.min_precision || o.on < self.params.min_region_px as f64 {
            return None;
        }
        let mut base = self.detection(free.color, camera, &base_h, precision)?;
        let raised_h = top_on(&base_h);
        let raised = self.detection(top.color, camera, &raised_h, top.confidence)?;
        let top_gain = self.score(top_region, &top_prefix, camera, &raised_h).0
            - self.explained_px(&overlap(top_region, &top_prefix, &top.outline_px));
        // The rest of the region hides behind the top as any piece would: only the base is
        // claimed to sit under it.
        let base_alone = base_score - self.params.min_region_px as f64;
        let so_far = base_alone + top_gain;
        let (rest, rest_score) =
            self.rest_after(cache, base_region, camera, &[], &base, must_beat - so_far);
        if so_far + rest_score <= must_beat {
            return None;
        }
        // Like a piece fitted alone (see `accept`), half the confidence is the fit, scaled down
        // when the region's reading without the tower came within a tenth of its pixels.
        let lead = so_far + rest_score - previous;
        base.confidence = precision * (0.5 + 0.5 * (lead / (0.1 * o.on)).clamp(0.0, 1.0));
        base.rim_share = Some(o.on / (o.on + o.off + o.care).max(1.0));
        let mut pieces = vec![base];
        pieces.extend(rest);
        Some(RaisedOnto {
            base_region: (pieces, base_alone + rest_score),
            top: raised,
            top_gain,
        })
    }
}

/// A convex outline pushed out by `px` pixels from its centre.
fn grown(outline: &[Point2<f64>], px: f64) -> Vec<Point2<f64>> {
    let n = outline.len().max(1) as f64;
    let centre = outline
        .iter()
        .fold(Point2::origin(), |c, p| c + p.coords / n);
    outline
        .iter()
        .map(|p| {
            let out = p - centre;
            let length = out.norm().max(1e-9);
            p + out * (px / length)
        })
        .collect()
}
