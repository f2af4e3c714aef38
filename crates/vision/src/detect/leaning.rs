//! Nothing leans on air. A leaning or slanted upside-down reading must rest against another
//! piece; where no piece stands within reach of it, the outline that chose it (a tilted
//! pyramid can mimic many silhouettes, as a small lying with its base to the camera shows a
//! square, like one upside down at a slant) is not borne out, and the region is read again:
//! with the piece turned over to the other side of flat where that rests it against a
//! neighbour, or else with the poses a piece can hold alone.

use nalgebra::Vector3;

use super::overlapping::as_piece;
use super::*;
use crate::pose::leans;

impl Detector {
    /// Reads again each region whose reading leans a piece against nothing: no other piece's
    /// plastic comes within `DetectParams::leaning_snap_mm` of its own. A lone leaner's
    /// outline is often as well explained turned over (a large upside down against its
    /// neighbour, read leaning at 46° away from it under a light 3 % dimmer): the piece is
    /// searched again from the other side's tilts only, and that reading is kept where it does
    /// not lean alone in turn and explains the region by `tilted_margin` better than the poses
    /// a piece can hold alone, which are read otherwise. `supports` are the tips each region
    /// was last fitted over.
    pub(super) fn stand_lone_leaners(
        &self,
        cache: &FitCache,
        camera: &Camera,
        regions: &[Region],
        per_region: &mut [Vec<Detection>],
        supports: &[Vec<Point3<f64>>],
    ) {
        if !per_region
            .iter()
            .flatten()
            .any(|d| leans(d.resting, &d.table_from_piece, &self.dims(d.size)))
        {
            return;
        }
        for i in 0..regions.len() {
            let others_of = |at: (usize, usize)| {
                per_region.iter().enumerate().flat_map(move |(r, found)| {
                    found
                        .iter()
                        .enumerate()
                        .filter(move |&(m, _)| (r, m) != at)
                        .map(|(_, d)| d)
                })
            };
            let Some(k) = (0..per_region[i].len())
                .find(|&k| self.leans_alone(cache, &per_region[i][k], others_of((i, k))))
            else {
                continue;
            };
            let area = regions[i].target_px();
            let (usual, usual_score) = self.explain_region_with(
                cache,
                regions[i].clone(),
                camera,
                &supports[i],
                false,
                f64::NEG_INFINITY,
            );
            let elsewhere: Vec<&Detection> = per_region
                .iter()
                .enumerate()
                .filter(|&(r, _)| r != i)
                .flat_map(|(_, found)| found)
                .collect();
            let turned_over = self
                .turned_over(
                    cache,
                    &regions[i],
                    camera,
                    &supports[i],
                    &per_region[i][k],
                    usual_score,
                )
                .filter(|(found, score)| {
                    *score > usual_score + self.params.tilted_margin * area
                        && !found.iter().enumerate().any(|(m, d)| {
                            let beside = found.iter().enumerate().filter(|&(n, _)| n != m);
                            let others = elsewhere.iter().copied().chain(beside.map(|(_, o)| o));
                            self.leans_alone(cache, d, others)
                        })
                });
            if let Some((found, _)) = turned_over {
                per_region[i] = found;
            } else if !usual.is_empty() {
                per_region[i] = self.polish(
                    cache,
                    &regions[i],
                    camera,
                    &supports[i],
                    false,
                    false,
                    usual,
                );
            }
        }
    }

    /// Gives back the confidence a tilted reading lost to its fit turned over to the other side
    /// of flat (see [`TurnedOver`]) where that fit would lean on nothing: not a reading the
    /// table could hold, however well its outline fits.
    pub(super) fn dismiss_rivals_leaning_on_nothing(
        &self,
        cache: &FitCache,
        per_region: &mut [Vec<Detection>],
    ) {
        // Most frames hold no such reading: the pieces are copied only for those that do.
        if !per_region.iter().flatten().any(|d| d.turned_over.is_some()) {
            return;
        }
        let all: Vec<Detection> = per_region.iter().flatten().cloned().collect();
        for (this, d) in per_region.iter_mut().flatten().enumerate() {
            let Some(turned) = d.turned_over else {
                continue;
            };
            let rival = Detection {
                size: turned.size,
                resting: Resting::Tilted,
                table_from_piece: turned.table_from_piece,
                ..d.clone()
            };
            let others = all
                .iter()
                .enumerate()
                .filter(|&(k, _)| k != this)
                .map(|(_, o)| o);
            if self.leans_alone(cache, &rival, others) {
                d.confidence = d.confidence.max(turned.confidence_without);
            }
        }
    }

    /// Whether `d` leans (see [`leans`]) with none of `others`' plastic within
    /// `leaning_snap_mm` of its own: their corner boxes first (boxes apart by more are farther
    /// apart still), then the plastic.
    fn leans_alone<'a>(
        &self,
        cache: &FitCache,
        d: &Detection,
        mut others: impl Iterator<Item = &'a Detection>,
    ) -> bool {
        if !leans(d.resting, &d.table_from_piece, &self.dims(d.size)) {
            return false;
        }
        let snap = self.params.leaning_snap_mm;
        let own_box = self.corner_box(d);
        let engine = cache.solids.of(self.pieces);
        !others.any(|other| {
            box_gap(&own_box, &self.corner_box(other)) <= snap
                && engine.surface_distance(&as_piece(d), &as_piece(other)) <= snap
        })
    }

    /// The region read with the piece `lone` searched again from the starting tilts of the
    /// other side of flat (upside down for one leaning apex up, and the other way), the rest
    /// of the region as usual, with the reading's score; `None` where no such piece is
    /// accepted. The piece's confidence weighs its lead over `usual_score`, the region's
    /// reading without tilted poses.
    fn turned_over(
        &self,
        cache: &FitCache,
        region: &Region,
        camera: &Camera,
        supports: &[Point3<f64>],
        lone: &Detection,
        usual_score: f64,
    ) -> Option<(Vec<Detection>, f64)> {
        let centre_px = region.target_centre()?;
        let prefix = cache.prefix(region, region_key(region));
        let apex_up = (lone.table_from_piece * Vector3::z()).z > 0.0;
        let tilts = if apex_up {
            UPSIDE_DOWN_TILTS_DEG
        } else {
            LEANING_TILTS_DEG
        };
        let (score, h, _) = self.best_tilted_from(&prefix, camera, &centre_px, &tilts)?;
        let piece = self.accept(region, &prefix, camera, &h, f64::INFINITY)?;
        let (rest, rest_score) =
            self.rest_after(cache, region, camera, supports, &piece, f64::NEG_INFINITY);
        let score = score - self.params.min_region_px as f64 + rest_score;
        let piece = self.accept(region, &prefix, camera, &h, score - usual_score)?;
        let mut found = vec![piece];
        found.extend(rest);
        Some((found, score))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::table_camera;
    use koanscope_geometry::{Engine, Placer};
    use koanscope_scene::{Color, Piece};

    /// The best reading of a region as a piece leaning apex up, as the outline alone gives it.
    fn read_leaning(detector: &Detector, camera: &Camera, region: &Region) -> Detection {
        let cache = FitCache::default();
        let prefix = cache.prefix(region, region_key(region));
        let centre = region.target_centre().expect("pixels");
        let (_, h, _) = detector
            .best_tilted_from(&prefix, camera, &centre, &LEANING_TILTS_DEG)
            .expect("a fit");
        detector
            .detection(region.color, camera, &h, 1.0)
            .expect("in view")
    }

    /// A yellow large read standing upright at `pose`.
    fn standing(detector: &Detector, camera: &Camera, pose: &Isometry3<f64>) -> Detection {
        detector
            .detection(Color::Yellow, camera, &upright_large_hypothesis(pose), 1.0)
            .expect("in view")
    }

    /// A red large drawn upside down, 30° off its apex, against a yellow large, as in dev D2
    /// scene 9: the best fit of its outline leaning apex up lies 13 mm from the yellow, its
    /// box within reach of the yellow's but its plastic not. It leans alone, and is read again
    /// upside down as drawn, against the yellow. A blue medium lying alone, read leaning, is
    /// read lying again.
    #[test]
    fn a_piece_read_leaning_on_nothing_is_turned_over_onto_its_neighbour_or_laid_down() {
        let camera = table_camera();
        let detector = Detector::new(crate::ColorModel::default());
        let engine = Engine::default();
        let placer = Placer::default();
        let yaw = 2.4;
        let upside_down = Hypothesis {
            size: Size::Large,
            resting: Resting::Tilted,
            x: 40.0,
            y: 100.0,
            yaw,
            tilt: 150f64.to_radians(),
            lift: 0.0,
        };
        let leaner = detector.pose(&upside_down);
        // Its base, above its apex, leans towards the piece's -y.
        let heading = yaw - std::f64::consts::FRAC_PI_2;
        let support = placer
            .upright_holding(
                &engine,
                &Piece::new(0, Color::Red, Size::Large, leaner),
                Size::Large,
                heading,
                0.2,
            )
            .expect("a large can hold it");
        let lying = placer.flat(Size::Medium, -60.0, 20.0, 0.4);
        let pieces = [
            (Color::Red, Size::Large, leaner),
            (Color::Yellow, Size::Large, support),
            (Color::Blue, Size::Medium, lying),
        ];
        let regions = drawn_regions(&detector, &camera, &pieces);
        assert_eq!(regions.len(), pieces.len(), "one region a piece");
        let mut per_region: Vec<Vec<Detection>> = regions
            .iter()
            .map(|r| match r.color {
                Color::Yellow => vec![standing(&detector, &camera, &support)],
                _ => vec![read_leaning(&detector, &camera, r)],
            })
            .collect();
        let cache = FitCache::default();
        let of = |per_region: &[Vec<Detection>], color: Color| {
            per_region
                .iter()
                .flatten()
                .find(|d| d.color == color)
                .cloned()
                .unwrap_or_else(|| panic!("no {color} piece: {per_region:#?}"))
        };
        let yellow = of(&per_region, Color::Yellow);
        let snap = detector.params.leaning_snap_mm;
        let red = of(&per_region, Color::Red);
        assert!(
            box_gap(&detector.corner_box(&red), &detector.corner_box(&yellow)) <= snap,
            "the boxes are within reach"
        );
        assert!(detector.leans_alone(&cache, &red, std::iter::once(&yellow)));
        let blue = of(&per_region, Color::Blue);
        assert!(detector.leans_alone(&cache, &blue, [&red, &yellow].into_iter()));
        let supports = vec![Vec::new(); regions.len()];
        detector.stand_lone_leaners(&cache, &camera, &regions, &mut per_region, &supports);
        let red = of(&per_region, Color::Red);
        assert_eq!((red.size, red.resting), (Size::Large, Resting::Tilted));
        let axis_off = (red.table_from_piece * Vector3::z())
            .angle(&(leaner * Vector3::z()))
            .to_degrees();
        assert!(
            axis_off < 8.0,
            "axis {axis_off:.1} degrees off the drawn one"
        );
        let gap = engine.surface_distance(&as_piece(&red), &as_piece(&yellow));
        assert!(gap <= snap, "{gap:.1} mm from the yellow");
        let blue = of(&per_region, Color::Blue);
        assert_eq!(
            (blue.size, blue.resting),
            (Size::Medium, Resting::Flat),
            "{blue:#?}"
        );
    }

    /// A large leaning `tilt` (radians) apex up at (40, 100) mm, and a large standing where it
    /// holds it up.
    fn large_on_large(
        engine: &Engine,
        placer: &Placer,
        tilt: f64,
    ) -> (Isometry3<f64>, Isometry3<f64>) {
        let leaner = placer.tipped(Size::Large, 40.0, 100.0, 0.0, tilt);
        let support = placer
            .upright_holding(
                engine,
                &Piece::new(0, Color::Red, Size::Large, leaner),
                Size::Large,
                0.0,
                0.2,
            )
            .expect("a large can hold it");
        (leaner, support)
    }

    /// A red large leaning 30° apex up on a yellow large: its outline fits about as well upside
    /// down (seen from above, a slanted square either way), and whichever way it is read, the
    /// confidence says the Master should look. Leaning 60°, it is read surely.
    #[test]
    fn a_leaner_that_fits_about_as_well_turned_over_is_read_unsure() {
        let camera = table_camera();
        let detector = Detector::new(crate::ColorModel::default());
        let engine = Engine::default();
        let placer = Placer::default();
        let read_at = |tilt_deg: f64| {
            let (leaner, support) = large_on_large(&engine, &placer, tilt_deg.to_radians());
            let regions = drawn_regions(
                &detector,
                &camera,
                &[
                    (Color::Red, Size::Large, leaner),
                    (Color::Yellow, Size::Large, support),
                ],
            );
            let red = regions
                .iter()
                .find(|r| r.color == Color::Red)
                .expect("the red shows");
            let cache = FitCache::default();
            let (read, _) = detector
                .fit_candidates(&cache, red, &camera, &[], true, 1)
                .into_iter()
                .next()
                .expect("a reading");
            read
        };
        let steep = read_at(30.0);
        assert_eq!(steep.resting, Resting::Tilted, "{steep:#?}");
        assert!(
            steep.confidence < crate::analyze::UNSURE_CONFIDENCE,
            "confidence {:.2}",
            steep.confidence
        );
        let low = read_at(60.0);
        assert_eq!(low.resting, Resting::Tilted, "{low:#?}");
        assert!(low.confidence > 0.9, "confidence {:.2}", low.confidence);
    }

    /// A tilted reading's confidence lowered by its fit turned over comes back where that fit
    /// would lean on nothing, and stays down where it would rest on a neighbour.
    #[test]
    fn a_turned_over_rival_leaning_on_nothing_costs_no_confidence() {
        let detector = Detector::new(crate::ColorModel::default());
        let engine = Engine::default();
        let placer = Placer::default();
        let (leaner, support) = large_on_large(&engine, &placer, 0.5);
        let camera = table_camera();
        let yellow = standing(&detector, &camera, &support);
        let read_with_rival_at = |rival: Isometry3<f64>| {
            let mut red = yellow.clone();
            red.color = Color::Red;
            red.resting = Resting::Tilted;
            red.table_from_piece = leaner;
            red.confidence = 0.5;
            red.turned_over = Some(TurnedOver {
                size: Size::Large,
                table_from_piece: rival,
                confidence_without: 0.9,
            });
            let mut per_region = vec![vec![red], vec![yellow.clone()]];
            detector.dismiss_rivals_leaning_on_nothing(&FitCache::default(), &mut per_region);
            per_region[0][0].confidence
        };
        let far_off = placer.tipped(Size::Large, 140.0, 100.0, 0.0, 0.5);
        assert_eq!(read_with_rival_at(far_off), 0.9);
        assert_eq!(read_with_rival_at(leaner), 0.5);
    }
}
