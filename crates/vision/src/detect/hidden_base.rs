//! Towers whose base hardly shows. A piece stacked on one of another colour hides most of it:
//! the base shows only as a rim of its colour around the top piece's foot. Fitted alone, that
//! rim makes no piece (most of a base's silhouette would pass behind a neighbour, which costs),
//! and the top piece, fitted alone, stands on the table with the same outline. Here the two are
//! fitted together: a base under an upright piece, the piece raised onto its tip along the rays
//! it is seen by, its outline as good as before, the part of the base it hides free.
//!
//! Bridge posts are bases too: a piece lying across two tips hides the posts' tops, and a post
//! read a size too short leaves the bridge halfway between two heights, touching neither. Each
//! such post is fitted again a size bigger with what the bridge hides of it free.

use super::*;
use crate::region::{hidden_by, hidden_unless_own};

/// Where a piece sits on a base, the pixels just around its outline may show neither: the seam
/// under its foot lies in its shade, and along its sides the edge blurs the two colours into
/// one that is neither, or the table's. A base fitted under a top is not charged for those
/// within this band (its own pixels there still count for it). On the table holdout, a yellow
/// medium under a green small on pale pine, charged for some 30 such pixels, lost to a yellow
/// small leaning in front, and the green was read standing on the table; so was a red medium on
/// a blue large on white melamine under sensor noise. 2 pixels read both as towers, drop a
/// false red small from the top of a third (red felt), and leave every other report of the
/// suite as it was (some towers' bases fitted a little differently); 1 pixel changes nothing,
/// and 3 already excuse a misfit: under a 1-pixel blur, dev D1 scene 4's red large lying across
/// a yellow small post was then read as a red medium standing on the post.
const SEAM_PX: f64 = 2.0;

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
    /// where that explains the rim's region clearly better than what it was fitted with; and
    /// likewise pieces read lying flat or tilted, stood up, where standing explains their own
    /// region nearly as well (a tower's middle piece shows as a band that a flat piece fits).
    pub(super) fn raise_onto_hidden_bases(
        &self,
        cache: &FitCache,
        seg: &Segmentation,
        camera: &Camera,
        regions: &[Region],
        per_region: &mut [Vec<Detection>],
        scores: &mut [f64],
    ) {
        // A region is raised as a top once and found as a base once, and a top just raised is
        // no base (fitted again as one, it would stand on the table again); a base just found
        // may still be raised as a top: the middle of a tower of three is both.
        let (mut is_base, mut is_top) = (vec![false; regions.len()], vec![false; regions.len()]);
        for j in 0..regions.len() {
            for k in 0..per_region[j].len() {
                if is_top[j] {
                    continue;
                }
                // Only a region with pixels around the top's foot can hold its base.
                let bases_around = |outline: &[Point2<f64>]| -> Vec<usize> {
                    let around = grown(outline, 4.0);
                    (0..regions.len())
                        .filter(|&i| i != j && !is_base[i] && !is_top[i])
                        .filter(|&i| regions[i].color != regions[j].color)
                        .filter(|&i| {
                            let rim = covered(&regions[i], &around) - covered(&regions[i], outline);
                            rim >= self.params.min_region_px as f64 / 2.0
                        })
                        .collect()
                };
                let piece = &per_region[j][k];
                let standing = match piece.resting {
                    Resting::Upright => false,
                    // A piece read lying flat or tilted may be a tower's middle piece standing
                    // on its base, of which only a band shows: where a region lies around it,
                    // it is tried standing, as good as it then explains its region.
                    Resting::Flat | Resting::Tilted => true,
                    _ => continue,
                };
                let near = bases_around(&piece.outline_px);
                if near.is_empty() {
                    continue;
                }
                // The top's region as it is with the other pieces fitted there in place.
                let top_region = with_others_explained(&regions[j], &per_region[j], k);
                let top_prefix = Prefix::new(&top_region);
                let (top, stood_up, bases) = if standing {
                    let Some((top, cost)) =
                        self.standing_instead(camera, &top_region, &top_prefix, piece)
                    else {
                        continue;
                    };
                    let bases = bases_around(&top.outline_px);
                    (top, Some(cost), bases)
                } else {
                    (piece.clone(), None, near)
                };
                if bases.is_empty() {
                    continue;
                }
                let top = &top;
                let best = bases
                    .into_iter()
                    .filter_map(|i| {
                        let raised = self.hidden_base_under(
                            cache,
                            seg,
                            camera,
                            &regions[i],
                            &top_prefix,
                            top,
                            stood_up,
                            (&per_region[i], scores[i]),
                        )?;
                        Some((
                            raised.base_region.1 + raised.top_gain - scores[i],
                            i,
                            raised,
                        ))
                    })
                    .max_by(|a, b| a.0.total_cmp(&b.0));
                if let Some((_, i, raised)) = best {
                    is_base[i] = true;
                    is_top[j] = true;
                    scores[i] = raised.base_region.1;
                    per_region[i] = raised.base_region.0;
                    scores[j] += raised.top_gain;
                    per_region[j][k] = raised.top;
                }
            }
        }
    }

    /// The best upright piece of `piece`'s size in its region (`region`, the region's other
    /// pieces in place, and its sums `prefix`), and how many fewer pixels it explains there than `piece`, if that is
    /// within the margin a tilted reading must win by (a near tie).
    fn standing_instead(
        &self,
        camera: &Camera,
        region: &Region,
        prefix: &Prefix,
        piece: &Detection,
    ) -> Option<(Detection, f64)> {
        let start =
            self.start_on_table(camera, &piece.image_xy, piece.size, Resting::Upright, 0.0)?;
        let (score, h) = self.search_yaw(
            prefix,
            camera,
            start,
            std::f64::consts::FRAC_PI_2,
            12,
            3,
            ACROSS_TABLE,
        )?;
        let cost = self.explained_px(&overlap(prefix, &piece.outline_px)) - score;
        if cost > self.params.tilted_margin * region.target_px() {
            return None;
        }
        let standing = self.detection(region.color, camera, &h, piece.confidence)?;
        Some((standing, cost.max(0.0)))
    }

    /// The best base in `base_region` under `top` (fitted standing on the table, in the region
    /// whose sums are `top_prefix`), with the top raised onto it, if the base region's reading and the top's
    /// gain together beat the region's `previous` reading clearly (by the stacking margin), both
    /// weighed by what the frame shows where their pieces overlap the top (see
    /// [`depth_order_evidence`]) and the outline alone falling short by at most that margin;
    /// `None` where no base would show enough of itself. A top `stood_up` from a piece read
    /// lying (see [`Detector::standing_instead`]) has its gain counted less what its region
    /// lost so, takes the base's yaw, and hides of the base only what it hides raised.
    #[allow(clippy::too_many_arguments)]
    fn hidden_base_under(
        &self,
        cache: &FitCache,
        seg: &Segmentation,
        camera: &Camera,
        base_region: &Region,
        top_prefix: &Prefix,
        top: &Detection,
        stood_up: Option<f64>,
        (previous_reading, previous): (&[Detection], f64),
    ) -> Option<RaisedOnto> {
        // Where the two readings' pieces overlap the top in view, the frame shows which is in
        // front: a piece lying flat across the foot of a tower would hide the top's foot.
        let order = |pieces: &[Detection], top: &Detection| {
            self.params.depth_order_weight
                * depth_order_evidence(
                    seg,
                    camera,
                    &self.pieces,
                    pieces,
                    std::slice::from_ref(top),
                    Some(base_region),
                )
        };
        // Where the top is, the top shows: what the region has there is not the base's (a
        // translucent top's dark face may take the table's colour), and what the top hides of
        // the base is hidden by the reading itself.
        let mut free = base_region.clone();
        hidden_by(&mut free, &top.outline_px);
        let free_prefix = Prefix::new(&free);
        let top_dims = self.dims(top.size);
        let seat_depth = cavity_apex_piece(&top_dims, self.pieces.wall_mm).z;
        let top_yaw = top.table_from_piece.rotation.euler_angles().2;
        // A top read upright keeps its own yaw: only its height was unknown. One stood up from
        // a band has no yaw of its own worth keeping, and stacked pieces settle with their
        // faces in line.
        let top_on = |base: &Hypothesis| {
            if stood_up.is_some() {
                self.stacked_on(base, top.size)
            } else {
                Hypothesis {
                    yaw: top_yaw,
                    ..self.stacked_on(base, top.size)
                }
            }
        };
        // The base's score on `free`, the top raised onto it its score on its own region.
        let joint_on = |free: &Prefix, base: &Hypothesis| {
            self.score(free, camera, base).0 + self.score(top_prefix, camera, &top_on(base)).0
        };
        let joint = |base: &Hypothesis| joint_on(&free_prefix, base);
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
            let (_, seed) = best_upright_yaw(size, at.x, at.y, joint);
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
        // Standing on the table, a top stood up from a band reaches down over the base's
        // pixels; raised onto the base it hides only what it hides there. Around it lies the
        // seam, which shows neither piece (see [`SEAM_PX`]).
        let fine_free = match self.outline(camera, &top_on(&coarse)) {
            Some((_, raised)) => {
                let mut fine_free = if stood_up.is_some() {
                    let mut raised_free = base_region.clone();
                    hidden_by(&mut raised_free, &raised);
                    raised_free
                } else {
                    free
                };
                hidden_unless_own(&mut fine_free, &grown(&raised, SEAM_PX));
                Prefix::new(&fine_free)
            }
            None if stood_up.is_some() => return None,
            None => free_prefix,
        };
        let fine_free = &fine_free;
        let (_, base_h, _) =
            pattern_search(coarse, fine, FINEST_STEP_MM, |h| joint_on(fine_free, h));
        // The base must show enough of itself, and little of it on the table.
        let (base_score, o) = self.score(fine_free, camera, &base_h);
        let fit = Fit::of(&o);
        if fit.precision < self.params.min_precision || o.on < self.params.min_region_px as f64 {
            return None;
        }
        let mut base = self.detection(base_region.color, camera, &base_h, fit.precision)?;
        let raised_h = top_on(&base_h);
        let raised = self.detection(top.color, camera, &raised_h, top.confidence)?;
        let top_gain = self.score(top_prefix, camera, &raised_h).0
            - self.explained_px(&overlap(top_prefix, &top.outline_px))
            - stood_up.unwrap_or(0.0);
        // The rest of the region hides behind the top as any piece would: only the base is
        // claimed to sit under it, and only its depth order against the top is weighed.
        let base_alone = base_score - self.params.min_region_px as f64;
        let so_far = base_alone + top_gain;
        // The depth order weighs only where the outlines nearly tie: a shadow read as a piece
        // lying in front of the top is contradicted by the frame, yet holds no base either.
        // (Weighed only for a base that shows enough of itself.)
        let margin = self.params.stacking_margin * base_region.target_px();
        let must_beat = previous + order(previous_reading, top) + margin;
        let outline_bar = previous - margin;
        let base_order = order(std::slice::from_ref(&base), &raised);
        let (rest, rest_score) = self.rest_after(
            cache,
            base_region,
            camera,
            &[],
            &base,
            (must_beat - so_far - base_order).max(outline_bar - so_far),
        );
        let weighed = so_far + rest_score + base_order;
        if weighed <= must_beat || so_far + rest_score <= outline_bar {
            return None;
        }
        // Like a piece fitted alone (`Fit::confidence`), half the confidence is the fit,
        // scaled down when the region's reading without the tower came within a tenth of its
        // pixels: by the outline alone, which the depth order only broke a near tie of (a
        // reading it contradicts hard is not thereby a sure base: a tower's middle read as one).
        let lead = so_far + rest_score - previous;
        base.confidence = fit.confidence(lead);
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

impl Detector {
    /// Makes the posts of a bridge reach it: a piece lying across two tips lies level, at the
    /// height of the taller post, and a post whose tip stops short of it is refitted a size
    /// bigger where that explains its region at least as well, with what the bridge hides of
    /// it free (it passes behind the piece resting on it, as a tower's base behind its top).
    /// A post fitted a size too small, its top behind the bridge, leaves the bridge between two
    /// heights and touching neither post. Returns whether a post changed.
    pub(super) fn raise_posts_to_bridges(
        &self,
        camera: &Camera,
        regions: &[Region],
        per_region: &mut [Vec<Detection>],
        scores: &mut [f64],
    ) -> bool {
        let mut changed = false;
        for q in 0..regions.len() {
            for bridge in per_region[q].clone() {
                if bridge.resting != Resting::Bridging {
                    continue;
                }
                let dims = self.dims(bridge.size);
                let underside = vertices_piece(&dims)
                    .iter()
                    .map(|v| (bridge.table_from_piece * v).z)
                    .fold(f64::INFINITY, f64::min);
                // Upright posts alone in their regions whose tips the bridge hides, near its
                // underside.
                let posts: Vec<(usize, Point3<f64>)> = (0..regions.len())
                    .filter(|&r| r != q && per_region[r].len() == 1)
                    .filter(|&r| per_region[r][0].resting == Resting::Upright)
                    .map(|r| (r, apex_of(&per_region[r][0], &self.pieces)))
                    .filter(|(_, tip)| (tip.z - underside).abs() <= 12.0)
                    .filter(|(_, tip)| {
                        camera
                            .project_table(tip)
                            .is_some_and(|px| inside_convex(&bridge.outline_px, &px))
                    })
                    .collect();
                let Some(tallest) = posts.iter().map(|(_, tip)| tip.z).reduce(f64::max) else {
                    continue;
                };
                for (r, tip) in posts {
                    if tallest - tip.z < 3.0 {
                        continue;
                    }
                    if let Some((gain, taller)) =
                        self.taller_post(camera, &regions[r], &per_region[r][0], &bridge, tallest)
                    {
                        scores[r] += gain;
                        per_region[r][0] = taller;
                        changed = true;
                    }
                }
            }
        }
        changed
    }

    /// The post refitted a size bigger, no taller than `tallest` (mm, the other post's tip),
    /// with the bridge's pixels taken out of its region, and how much better it explains it
    /// there; `None` when no bigger size explains it nearly as well as the post as it was
    /// (within `DetectParams::resting_outline_tolerance` of the region's pixels).
    fn taller_post(
        &self,
        camera: &Camera,
        region: &Region,
        post: &Detection,
        bridge: &Detection,
        tallest: f64,
    ) -> Option<(f64, Detection)> {
        let sizes: Vec<Size> = [Size::Small, Size::Medium, Size::Large]
            .into_iter()
            .filter(|&s| s > post.size && self.dims(s).height_mm <= tallest + 1.0)
            .collect();
        let at = post.table_from_piece.translation;
        let (gain, h) = self
            .standing_under_each(
                camera,
                region,
                Some(post),
                bridge,
                &sizes,
                Some(Point2::new(at.x, at.y)),
            )
            .into_iter()
            .max_by(|a, b| a.0.total_cmp(&b.0))?;
        // The bridge lying level favours the taller post where the outline can hardly tell.
        if gain < -self.params.resting_outline_tolerance * region.target_px() {
            return None;
        }
        let taller = self.detection(region.color, camera, &h, post.confidence)?;
        Some((gain, taller))
    }

    /// For each of `sizes` (in their order), the best upright piece of that size in a post's
    /// region, with what the piece over it (`over`) hides of it taken out of the region (free,
    /// as a tower's base behind its top; taken out once for all sizes), standing near `at`
    /// (table frame; `None`: under the middle of what shows of it); and how much better it
    /// explains the region so than the post as it was read (negative: worse; against nothing
    /// where the region was read as none). Empty where nothing of the region shows.
    pub(super) fn standing_under_each(
        &self,
        camera: &Camera,
        region: &Region,
        post: Option<&Detection>,
        over: &Detection,
        sizes: &[Size],
        at: Option<Point2<f64>>,
    ) -> Vec<(f64, Hypothesis)> {
        let mut free = region.clone();
        hidden_by(&mut free, &over.outline_px);
        let prefix = Prefix::new(&free);
        let was = post.map_or(0.0, |post| {
            self.explained_px(&overlap(&prefix, &post.outline_px))
        });
        let at = match at {
            Some(at) => at,
            None => match free
                .target_centre()
                .and_then(|centre| camera.pixel_to_table_plane(&centre, 0.0))
            {
                Some(on_table) => on_table.xy(),
                None => return Vec::new(),
            },
        };
        let nudge = Freedom {
            first_step_mm: 2.0,
            tilt: false,
        };
        // Where nothing was read, the sliver a post shows places it only roughly: seeds
        // around that place too, 4 mm apart (a silhouette that misses the sliver scores the
        // same wherever it is, and the search would not leave it).
        let offsets: &[f64] = match post {
            Some(_) => &[0.0],
            None => &[-8.0, -4.0, 0.0, 4.0, 8.0],
        };
        let score = |h: &Hypothesis| self.score(&prefix, camera, h).0;
        sizes
            .iter()
            .filter_map(|&size| {
                let (_, seed) = offsets
                    .iter()
                    .flat_map(|&dx| offsets.iter().map(move |&dy| (dx, dy)))
                    .map(|(dx, dy)| best_upright_yaw(size, at.x + dx, at.y + dy, score))
                    .max_by(|a, b| a.0.total_cmp(&b.0))?;
                let (score, h, _) = pattern_search(seed, nudge, FINEST_STEP_MM, score);
                Some((score - was, h))
            })
            .collect()
    }
}

/// Of twelve yaws over a quarter turn (an upright pyramid repeats every quarter turn), the
/// upright piece at (x, y) that `objective` rates best, with its rating.
fn best_upright_yaw(
    size: Size,
    x: f64,
    y: f64,
    objective: impl Fn(&Hypothesis) -> f64,
) -> (f64, Hypothesis) {
    (0..12)
        .map(|s| Hypothesis {
            size,
            resting: Resting::Upright,
            x,
            y,
            yaw: std::f64::consts::FRAC_PI_2 * f64::from(s) / 12.0,
            tilt: 0.0,
            lift: 0.0,
        })
        .map(|h| (objective(&h), h))
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .expect("twelve yaws")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::table_camera;
    use koanscope_scene::Color;

    /// Two medium posts with a large piece lying across their tips, drawn, then read as the fit
    /// would leave them with the black post read `black_read`: the bridge level halfway
    /// between the two tips. Whether making the posts reach the bridge changed anything (the
    /// black post must be a medium after).
    fn bridge_with_a_short_post(black_read: Size) -> bool {
        let camera = table_camera();
        let detector = Detector::new(crate::ColorModel::default());
        let large = detector.dims(Size::Large);
        let post = |size: Size, x: f64, yaw: f64| Hypothesis {
            size,
            resting: Resting::Upright,
            x,
            y: 120.0,
            yaw,
            tilt: 0.0,
            lift: 0.0,
        };
        let bridge_at = |lift: f64| Hypothesis {
            size: Size::Large,
            resting: Resting::Bridging,
            x: 10.0,
            y: 120.0,
            yaw: std::f64::consts::FRAC_PI_2,
            tilt: flat_tilt(&large),
            lift,
        };
        let (red, black) = (
            post(Size::Medium, -11.0, 0.3),
            post(Size::Medium, 11.0, 0.5),
        );
        let medium_tip = detector.dims(Size::Medium).height_mm;
        let regions = drawn_regions(
            &detector,
            &camera,
            &[
                (Color::Red, Size::Medium, detector.pose(&red)),
                (Color::Black, Size::Medium, detector.pose(&black)),
                (
                    Color::Yellow,
                    Size::Large,
                    detector.pose(&bridge_at(medium_tip)),
                ),
            ],
        );
        let black_tip = detector.dims(black_read).height_mm;
        let read = [
            (Color::Red, red),
            (
                Color::Black,
                Hypothesis {
                    size: black_read,
                    ..black
                },
            ),
            (Color::Yellow, bridge_at((medium_tip + black_tip) / 2.0)),
        ];
        let mut per_region: Vec<Vec<Detection>> = regions
            .iter()
            .map(|r| {
                read.iter()
                    .filter(|(color, _)| *color == r.color)
                    .filter_map(|(color, h)| detector.detection(*color, &camera, h, 1.0))
                    .collect()
            })
            .collect();
        let mut scores = vec![0.0; regions.len()];
        let changed =
            detector.raise_posts_to_bridges(&camera, &regions, &mut per_region, &mut scores);
        let black_now: Vec<Size> = per_region
            .iter()
            .flatten()
            .filter(|d| d.color == Color::Black)
            .map(|d| d.size)
            .collect();
        assert_eq!(black_now, vec![Size::Medium], "the black post after");
        changed
    }

    #[test]
    fn a_post_too_short_to_reach_its_bridge_is_refitted_a_size_bigger() {
        assert!(bridge_with_a_short_post(Size::Small));
    }

    #[test]
    fn posts_that_reach_their_bridge_stay_as_they_are() {
        assert!(!bridge_with_a_short_post(Size::Medium));
    }

    /// A tower's middle piece shows as a band between its base and the piece on it, and a
    /// piece lying flat fits such a band; its base, half hidden, may then be read lying flat
    /// too. Read so, with the base read right or lying flat, the band is stood up on a base
    /// fitted under it; a medium lying flat against a large's foot stays flat.
    #[test]
    fn a_middle_piece_read_lying_flat_is_stood_on_the_base_its_band_lies_on() {
        let camera = table_camera();
        let detector = Detector::new(crate::ColorModel::default());
        let base = Hypothesis {
            size: Size::Large,
            resting: Resting::Upright,
            x: 60.0,
            y: 80.0,
            yaw: 0.4,
            tilt: 0.0,
            lift: 0.0,
        };
        let middle = detector.stacked_on(&base, Size::Medium);
        let top = detector.stacked_on(&middle, Size::Small);
        // The pass's reading of each piece (colour, size, resting), the yellow region read as a
        // medium lying flat and the green one as a large lying flat, the others as the first
        // pass reads them.
        let read = |pieces: &[(Color, Size, Isometry3<f64>)], green_flat: bool| {
            let frame = crate::render::draw_pieces(&camera, pieces).expect("drawn");
            let seg = crate::segment::segment(&frame, &detector.colors).expect("segmented");
            let regions = regions(&seg, &detector.params, 40).expect("regions");
            let cache = FitCache::default();
            let (mut per_region, mut scores): (Vec<Vec<Detection>>, Vec<f64>) = regions
                .iter()
                .map(|region| {
                    let size = match region.color {
                        Color::Yellow => Size::Medium,
                        Color::Green if green_flat => Size::Large,
                        _ => return detector.explain_region(&cache, region.clone(), &camera, &[]),
                    };
                    let prefix = Prefix::new(region);
                    let centre = region.target_centre().expect("pixels");
                    let tilt = flat_tilt(&detector.dims(size));
                    let start = detector
                        .start_on_table(&camera, &centre, size, Resting::Flat, tilt)
                        .expect("in view");
                    let (score, flat) = detector
                        .search_yaw(
                            &prefix,
                            &camera,
                            start,
                            std::f64::consts::TAU,
                            24,
                            3,
                            ACROSS_TABLE,
                        )
                        .expect("fitted");
                    let lying = detector
                        .detection(region.color, &camera, &flat, 1.0)
                        .expect("in view");
                    (vec![lying], score - detector.params.min_region_px as f64)
                })
                .unzip();
            detector.raise_onto_hidden_bases(
                &cache,
                &seg,
                &camera,
                &regions,
                &mut per_region,
                &mut scores,
            );
            let mut found: Vec<_> = per_region
                .iter()
                .flatten()
                .map(|d| (d.color, d.size, d.resting))
                .collect();
            found.sort_by_key(|&(c, s, _)| (c as u8, s as u8));
            found
        };
        let drawn = [
            (Color::Green, Size::Large, detector.pose(&base)),
            (Color::Yellow, Size::Medium, detector.pose(&middle)),
            (Color::Red, Size::Small, detector.pose(&top)),
        ];
        for green_flat in [false, true] {
            let tower = read(&drawn, green_flat);
            assert!(
                tower.contains(&(Color::Yellow, Size::Medium, Resting::Stacked))
                    && tower.contains(&(Color::Green, Size::Large, Resting::Upright)),
                "green read flat {green_flat}: {tower:?}"
            );
        }
        // A medium that does lie flat against the large's foot stays flat.
        let lying = Hypothesis {
            size: Size::Medium,
            resting: Resting::Flat,
            y: 104.0,
            tilt: flat_tilt(&detector.dims(Size::Medium)),
            ..base
        };
        let beside = read(
            &[
                (Color::Green, Size::Large, detector.pose(&base)),
                (Color::Yellow, Size::Medium, detector.pose(&lying)),
            ],
            false,
        );
        assert!(
            beside.contains(&(Color::Yellow, Size::Medium, Resting::Flat)),
            "{beside:?}"
        );
    }
}
