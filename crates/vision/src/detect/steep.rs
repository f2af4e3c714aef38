//! Steep leaners read lying flat. Seen from above, a piece leaning steeply on a neighbour shows
//! nearly the outline of one lying flat at its foot, and the search for tilted pieces, started
//! at the usual tilts, often ends with it turned the wrong way (the sample koan's red medium
//! leaning 29° on a blue large, on maple: read flat). Started steeper, the search finds it; but
//! it also finds leaners at a lower tilt than their own that the outline prefers (D3 scene 6's
//! blue medium leaning at 42°, fitted at 29°), so here only the shading may choose one.

use std::f64::consts::TAU;

use super::turned::on_table_hypothesis;
use super::*;

/// The starting tilt of the search for a steep leaner, degrees (the usual ones are
/// [`LEANING_TILTS_DEG`]).
const STEEP_LEANING_TILT_DEG: f64 = 30.0;

impl Detector {
    /// Reads a piece lying flat again as a leaner of its size, searched from
    /// [`STEEP_LEANING_TILT_DEG`] with its region's other pieces in place, in each region whose
    /// reading no choice by the shading made. The leaner is kept where it explains the piece's
    /// pixels better than lying flat and the region's faces then match the shading by
    /// `shaded_tilt_lead` better (one piece a region at most). A leaner this leaves leaning on
    /// nothing is stood up later, as any other.
    pub(super) fn shade_steep_leaners(
        &self,
        camera: &Camera,
        regions: &[Region],
        per_region: &mut [Vec<Detection>],
        scores: &mut [f64],
    ) {
        let lead = self.params.shaded_tilt_lead;
        for (i, region) in regions.iter().enumerate() {
            let found = &mut per_region[i];
            if !found.iter().any(|d| d.resting == Resting::Flat)
                || found.iter().any(|d| d.shaded_choice.is_some())
            {
                continue;
            }
            // Faces that leave no room to lead by need no search.
            let Some(flat_shading) = self
                .shading_of(region, camera, found)
                .filter(|shading| shading + lead <= 1.0)
            else {
                continue;
            };
            for k in 0..found.len() {
                if found[k].resting != Resting::Flat {
                    continue;
                }
                let Some((leaner, gain_px)) = self.steep_leaner(camera, region, found, k) else {
                    continue;
                };
                let mut with_leaner = found.clone();
                with_leaner[k] = leaner;
                let Some(shading) = self
                    .shading_of(region, camera, &with_leaner)
                    .filter(|shading| *shading >= flat_shading + lead)
                else {
                    continue;
                };
                with_leaner[k].shaded_choice = Some(ShadedChoice {
                    instead: ShadedAlternative::LyingFlat,
                    shading,
                    instead_shading: flat_shading,
                });
                *found = with_leaner;
                scores[i] += gain_px;
                break;
            }
        }
    }

    /// The leaner of `found[k]`'s size that explains its pixels (the others' explained) better
    /// than it does lying flat, and by how many pixels; `None` where none does, or where lying
    /// flat explains them all but perfectly.
    fn steep_leaner(
        &self,
        camera: &Camera,
        region: &Region,
        found: &[Detection],
        k: usize,
    ) -> Option<(Detection, f64)> {
        let dims = self.dims(found[k].size);
        let alone = with_others_explained(region, found, k);
        let prefix = Prefix::new(&alone);
        let flat = on_table_hypothesis(&found[k], &dims)?;
        let flat_px = self.score(&prefix, camera, &flat).0;
        if flat_px >= NEARLY_PERFECT * alone.target_px() {
            return None;
        }
        let start = self.start_on_table(
            camera,
            &alone.target_centre()?,
            flat.size,
            Resting::Tilted,
            STEEP_LEANING_TILT_DEG.to_radians(),
        )?;
        let (coarse_px, coarse) =
            self.search_yaw_coarse(&prefix, camera, start, TAU, 16, 1, ACROSS_TABLE_TILTING)?;
        // Only a coarse fit within the margin of lying flat takes the fine steps: on dev, 7 of
        // the 48 pieces searched.
        if coarse_px < flat_px - self.params.tilted_margin * alone.target_px() {
            return None;
        }
        let (steep_px, steep) = self.refine_fine(&prefix, camera, coarse, ACROSS_TABLE_TILTING);
        if steep_px <= flat_px || !apex_up(&steep) {
            return None;
        }
        let leaner = self.accept(&alone, &prefix, camera, &steep, steep_px - flat_px)?;
        Some((leaner, steep_px - flat_px))
    }
}
