//! The best single pieces for one state of a region, among which the greedy search in
//! `detect.rs` chooses: a hypothesis's pose and silhouette, its score against the region's
//! pixels, and the searches over yaw, position and tilt that find the best piece of each size
//! and resting family (on the table, on a tip, across two, tilted, a same-colour tower's base).

use super::*;

impl Detector {
    pub(super) fn dims(&self, size: Size) -> PyramidDims {
        self.pieces.dims(size)
    }

    pub(super) fn pose(&self, h: &Hypothesis) -> Isometry3<f64> {
        let dims = self.dims(h.size);
        match h.resting {
            Resting::Stacked => pose_upright_at(&Point3::new(h.x, h.y, h.lift), h.yaw),
            Resting::Bridging => {
                let on_table = pose_on_table(&dims, h.tilt, h.x, h.y, h.yaw);
                Isometry3::from_parts(
                    Translation3::new(0.0, 0.0, h.lift) * on_table.translation,
                    on_table.rotation,
                )
            }
            _ => pose_on_table(&dims, h.tilt, h.x, h.y, h.yaw),
        }
    }

    pub(super) fn outline(
        &self,
        camera: &Camera,
        h: &Hypothesis,
    ) -> Option<(Isometry3<f64>, Vec<Point2<f64>>)> {
        let pose = self.pose(h);
        let outline = silhouette(camera, &self.dims(h.size), &pose)?;
        Some((pose, outline))
    }

    /// How well a silhouette explains a region: its pixels on the region, less those on the
    /// table and, a little, those hidden behind other pieces.
    pub(super) fn explained_px(&self, o: &Overlap) -> f64 {
        o.on - self.params.leak_weight * o.off - self.params.hidden_weight * o.others
    }

    pub(super) fn score(&self, prefix: &Prefix, camera: &Camera, h: &Hypothesis) -> (f64, Overlap) {
        let pose = self.pose(h);
        with_silhouette(camera, &self.dims(h.size), &pose, |outline| {
            let o = overlap(prefix, outline);
            (self.explained_px(&o), o)
        })
        .unwrap_or((f64::NEG_INFINITY, Overlap::default()))
    }

    /// Scores `steps` yaws of a hypothesis over `period` and refines the best `keep` of them.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn search_yaw(
        &self,
        prefix: &Prefix,
        camera: &Camera,
        start: Hypothesis,
        period: f64,
        steps: u32,
        keep: usize,
        freedom: Freedom,
    ) -> Option<(f64, Hypothesis)> {
        let coarse = self.search_yaw_coarse(prefix, camera, start, period, steps, keep, freedom)?;
        Some(self.refine_fine(prefix, camera, coarse.1, freedom))
    }

    /// [`Detector::search_yaw`] without its fine steps: the best seed refined to
    /// [`FINE_FROM_MM`].
    #[allow(clippy::too_many_arguments)]
    pub(super) fn search_yaw_coarse(
        &self,
        prefix: &Prefix,
        camera: &Camera,
        start: Hypothesis,
        period: f64,
        steps: u32,
        keep: usize,
        freedom: Freedom,
    ) -> Option<(f64, Hypothesis)> {
        // Coarse steps for every kept seed; the best of them goes on.
        self.yaw_seeds(prefix, camera, start, period, steps)
            .into_iter()
            .take(keep)
            .map(|(_, seed)| self.refine(prefix, camera, seed, freedom, FINE_FROM_MM))
            .max_by(|a, b| a.0.total_cmp(&b.0))
    }

    /// Where the best single piece for a region lies flat, the same piece fitted from the best
    /// yaw at least a quarter turn off its own, as a first piece to try beside the others: two
    /// touching pieces of one colour make one region, and the flat piece that covers it best
    /// is often turned to cover both, so that no second piece is left to find.
    pub(super) fn flat_turned_off_best(
        &self,
        region: &Region,
        prefix: &Prefix,
        camera: &Camera,
        centre_px: &Point2<f64>,
        all: &[(f64, Hypothesis)],
    ) -> Option<(Detection, f64)> {
        use std::f64::consts::{FRAC_PI_2, TAU};
        let (best_score, best) = all.iter().max_by(|a, b| a.0.total_cmp(&b.0))?;
        if best.resting != Resting::Flat {
            return None;
        }
        let dims = self.dims(best.size);
        let start = self.start_on_table(
            camera,
            centre_px,
            best.size,
            Resting::Flat,
            flat_tilt(&dims),
        )?;
        let apart = |yaw: f64| {
            let d = (yaw - best.yaw).rem_euclid(TAU);
            d.min(TAU - d) >= FRAC_PI_2
        };
        let (_, seed) = self
            .yaw_seeds(prefix, camera, start, TAU, 24)
            .into_iter()
            .find(|(_, h)| apart(h.yaw))?;
        let free_xy = ACROSS_TABLE;
        let (_, h) = self.refine(prefix, camera, seed, free_xy, FINE_FROM_MM);
        let (score, h) = self.refine_fine(prefix, camera, h, free_xy);
        // Alone it must explain less than the best: it is there to leave room for a second
        // piece, not to turn a piece read alone.
        if score >= *best_score {
            return None;
        }
        Some((
            self.accept(region, prefix, camera, &h, f64::INFINITY)?,
            score,
        ))
    }

    /// `steps` yaws of a hypothesis over `period`, scored, best first.
    pub(super) fn yaw_seeds(
        &self,
        prefix: &Prefix,
        camera: &Camera,
        start: Hypothesis,
        period: f64,
        steps: u32,
    ) -> Vec<(f64, Hypothesis)> {
        let mut seeds: Vec<(f64, Hypothesis)> = (0..steps)
            .map(|i| {
                let h = Hypothesis {
                    yaw: period * f64::from(i) / f64::from(steps),
                    ..start
                };
                (self.score(prefix, camera, &h).0, h)
            })
            .collect();
        seeds.sort_by(|a, b| b.0.total_cmp(&a.0));
        seeds
    }

    /// The fine steps after [`Detector::search_yaw_coarse`], going on with the step the coarse
    /// search stopped at.
    pub(super) fn refine_fine(
        &self,
        prefix: &Prefix,
        camera: &Camera,
        coarse: Hypothesis,
        freedom: Freedom,
    ) -> (f64, Hypothesis) {
        let mut first_step_mm = freedom.first_step_mm;
        while first_step_mm > FINE_FROM_MM {
            first_step_mm /= 2.0;
        }
        let fine = Freedom {
            first_step_mm,
            ..freedom
        };
        self.refine(prefix, camera, coarse, fine, FINEST_STEP_MM)
    }

    /// The best fit of each size and resting family on the table, stacked on the supports or
    /// bridging two of them, and (when several are wanted) the base of a same-colour tower:
    /// everything [`Detector::fit_candidates`] considers except tilted pieces. Computed once
    /// per region state and supports a frame.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn usual_candidates(
        &self,
        cache: &FitCache,
        region: &Region,
        prefix: &Prefix,
        camera: &Camera,
        supports: &[Point3<f64>],
        count: usize,
        centre_px: &Point2<f64>,
        region_key: u64,
    ) -> Usual {
        use std::f64::consts::{FRAC_PI_2, TAU};
        let key = key_with(region_key, u8::from(count > 1), supports);
        remembered(&cache.usual, key, || {
            let centre_px = *centre_px;
            let mut all: Vec<(f64, Hypothesis)> = Vec::new();
            let sizes = [Size::Small, Size::Medium, Size::Large];
            let free_xy = ACROSS_TABLE;
            let on_table = remembered(&cache.on_table, region_key, || {
                let mut computed: Vec<Scored> = sizes
                    .iter()
                    .map(|&size| {
                        let dims = self.dims(size);
                        let mut found = Vec::new();
                        for (resting, tilt, period, steps) in [
                            (Resting::Upright, 0.0, FRAC_PI_2, 12),
                            (Resting::Flat, flat_tilt(&dims), TAU, 24),
                        ] {
                            let Some(start) =
                                self.start_on_table(camera, &centre_px, size, resting, tilt)
                            else {
                                continue;
                            };
                            found.extend(self.search_yaw_coarse(
                                prefix, camera, start, period, steps, 3, free_xy,
                            ));
                        }
                        found
                    })
                    .collect();
                // Fine steps move a fit by a few pixels: only the best coarse fits can still
                // come first, and only they take them.
                let mut order: Vec<(f64, usize, usize)> = computed
                    .iter()
                    .enumerate()
                    .flat_map(|(i, found)| found.iter().enumerate().map(move |(j, f)| (f.0, i, j)))
                    .collect();
                order.sort_by(|a, b| b.0.total_cmp(&a.0));
                for (_, i, j) in order.into_iter().take(ON_TABLE_FINISHED) {
                    computed[i][j] = self.refine_fine(prefix, camera, computed[i][j].1, free_xy);
                }
                computed
            });
            for (size, standing) in sizes.into_iter().zip(&on_table) {
                let dims = self.dims(size);
                all.extend(standing.iter().copied());
                for apex in supports {
                    let lift = apex.z - cavity_apex_piece(&dims, self.pieces.wall_mm).z;
                    let start = Hypothesis {
                        size,
                        resting: Resting::Stacked,
                        x: apex.x,
                        y: apex.y,
                        yaw: 0.0,
                        tilt: 0.0,
                        lift: lift.max(0.0),
                    };
                    let nudge = Freedom {
                        first_step_mm: 1.0,
                        tilt: false,
                    };
                    // A stacked piece sits on the tip: a fit that slid off it is no longer stacked
                    // there (it fits a part of the region that some other piece explains).
                    let key = key_with(region_key, size.pips(), &[*apex]);
                    let found = remembered(&cache.on_tips, key, || {
                        self.search_yaw(prefix, camera, start, FRAC_PI_2, 12, 2, nudge)
                            .filter(|(_, h)| (h.x - apex.x).hypot(h.y - apex.y) <= SEATED_WITHIN_MM)
                    });
                    all.extend(found);
                }
                // Lying on a side across two apexes (a bridge); posts may differ by about one size.
                for (i, a) in supports.iter().enumerate() {
                    for b in &supports[i + 1..] {
                        let span = (a.xy() - b.xy()).norm();
                        if (a.z - b.z).abs() > POSTS_DIFFER_MM
                            || span > dims.height_mm
                            || span < dims.base_mm / 2.0
                        {
                            continue;
                        }
                        let start = Hypothesis {
                            size,
                            resting: Resting::Bridging,
                            x: (a.x + b.x) / 2.0,
                            y: (a.y + b.y) / 2.0,
                            yaw: 0.0,
                            tilt: flat_tilt(&dims),
                            lift: (a.z + b.z) / 2.0,
                        };
                        let key = key_with(region_key, size.pips(), &[*a, *b]);
                        all.extend(remembered(&cache.on_tips, key, || {
                            self.fit_bridge(prefix, camera, start, [*a, *b], free_xy)
                        }));
                    }
                }
            }
            // The base of a same-colour tower, placed by fitting base and top together: alone, an
            // upright piece slides back to cover the top as well.
            let remaining = region.target_px();
            let best_so_far = all
                .iter()
                .map(|(s, _)| *s)
                .fold(f64::NEG_INFINITY, f64::max);
            // A single piece that explains the region all but perfectly, or all but its rim, needs
            // no tower behind it.
            let nearly_perfect = || {
                best_so_far >= NEARLY_PERFECT * remaining
                    || all
                        .iter()
                        .max_by(|a, b| a.0.total_cmp(&b.0))
                        .and_then(|(_, h)| self.outline(camera, h))
                        .is_some_and(|(_, outline)| {
                            self.covers_to_the_rim(region, prefix, &outline)
                        })
            };
            let tower_base: Vec<(Detection, f64)> = if count > 1 && !nearly_perfect() {
                remembered(&cache.tower_bases, region_key, || {
                    self.tower_bases(prefix, camera, &centre_px)
                        .into_iter()
                        .filter_map(|(score, h)| {
                            Some((
                                self.accept(region, prefix, camera, &h, f64::INFINITY)?,
                                score,
                            ))
                        })
                        .collect()
                })
            } else {
                Vec::new()
            };
            let turned = if count > 1 {
                self.flat_turned_off_best(region, prefix, camera, &centre_px, &all)
            } else {
                None
            };
            (all, tower_base, turned)
        })
    }

    /// The best `count` single pieces for what is left of a region (each the best of its size
    /// and resting family), among those that explain enough of it, best first.
    pub(super) fn fit_candidates(
        &self,
        cache: &FitCache,
        region: &Region,
        camera: &Camera,
        supports: &[Point3<f64>],
        allow_tilted: bool,
        count: usize,
    ) -> Vec<(Detection, f64)> {
        let Some(centre_px) = region.target_centre() else {
            return Vec::new();
        };
        let region_key = region_key(region);
        let prefix = cache.prefix(region, region_key);
        let (mut all, tower_base, turned) = self.usual_candidates(
            cache, region, &prefix, camera, supports, count, &centre_px, region_key,
        );
        // Leaning and upside-down pieces, when allowed: the better-scoring fit wins here, and
        // the region as a whole decides (see `explain_region`).
        let mut tilted_rival = None;
        if allow_tilted
            && let Some((score, h, rival)) = remembered(&cache.tilted, region_key, || {
                self.best_tilted(&prefix, camera, &centre_px)
            })
        {
            all.push((score, h));
            tilted_rival = rival;
        }
        all.sort_by(|a, b| b.0.total_cmp(&a.0));
        // How far each fit stands above the best fit of another size or resting family: a
        // narrow lead means the silhouette alone could not tell them apart.
        let lead = |h: &Hypothesis, score: f64| {
            all.iter()
                .find(|(_, o)| o.size != h.size || o.resting != h.resting)
                .map_or(f64::INFINITY, |(other, _)| score - other)
        };
        let leads: Vec<f64> = all.iter().map(|(s, h)| lead(h, *s)).collect();
        let mut accepted = all.into_iter().zip(leads).filter_map(|((score, h), lead)| {
            // A tilted piece also leads the best fit turned over to the other side of flat;
            // where that lead is the narrower, the piece keeps the confidence without it too.
            let rival = tilted_rival
                .filter(|(rival, _)| h.resting == Resting::Tilted && score - rival < lead);
            let fit = self.accepted_fit(&prefix, camera, &h)?;
            let narrowest = rival.map_or(lead, |(rival_score, _)| score - rival_score);
            let mut piece = self.detection(region.color, camera, &h, fit.confidence(narrowest))?;
            piece.turned_over = rival.map(|(_, rival)| TurnedOver {
                size: rival.size,
                table_from_piece: self.pose(&rival),
                confidence_without: fit.confidence(lead),
            });
            Some((piece, score))
        });
        let mut chosen: Vec<(Detection, f64)> = accepted.by_ref().take(count).collect();
        // When choosing among several, keep an upright one in the running: the base of a
        // same-colour tower looks worse alone than a flat piece, but explains the tower with
        // the piece stacked on it.
        if count > 1 && !chosen.iter().any(|(d, _)| d.resting == Resting::Upright) {
            chosen.extend(accepted.find(|(d, _)| d.resting == Resting::Upright));
        }
        chosen.extend(tower_base);
        chosen.extend(turned);
        chosen
    }

    /// The best leaning or upside-down piece for what is left of a region, of any size, and
    /// the best finished on the other side of flat (see [`apex_up`]).
    pub(super) fn best_tilted(
        &self,
        prefix: &Prefix,
        camera: &Camera,
        centre_px: &Point2<f64>,
    ) -> Option<TiltedFit> {
        let tilts: Vec<f64> = LEANING_TILTS_DEG
            .into_iter()
            .chain(UPSIDE_DOWN_TILTS_DEG)
            .collect();
        self.best_tilted_from(prefix, camera, centre_px, &tilts)
    }

    /// The best tilted piece of any size searched from the starting tilts `tilts_deg` (the
    /// tilt itself free as the search goes), and the best finished on the other side of flat
    /// than it, if any was.
    pub(super) fn best_tilted_from(
        &self,
        prefix: &Prefix,
        camera: &Camera,
        centre_px: &Point2<f64>,
        tilts_deg: &[f64],
    ) -> Option<TiltedFit> {
        use std::f64::consts::TAU;
        let free_tilt = ACROSS_TABLE_TILTING;
        // The best yaw of each size and starting tilt, each taking coarse steps: an upside-down
        // piece's seed can score far below a leaning one's and still end best.
        let mut seeds: Vec<(f64, Hypothesis)> = Vec::new();
        for size in [Size::Small, Size::Medium, Size::Large] {
            for &tilt_deg in tilts_deg {
                let Some(start) = self.start_on_table(
                    camera,
                    centre_px,
                    size,
                    Resting::Tilted,
                    tilt_deg.to_radians(),
                ) else {
                    continue;
                };
                seeds.extend(
                    self.yaw_seeds(prefix, camera, start, TAU, 16)
                        .into_iter()
                        .next(),
                );
            }
        }
        let mut coarse: Vec<(f64, Hypothesis)> = seeds
            .into_iter()
            .map(|(_, h)| self.refine(prefix, camera, h, free_tilt, FINE_FROM_MM))
            .collect();
        // Only the best tilted fit goes on, so only the best few coarse ones take fine steps,
        // and the best of the other side of flat, which a near tie with asks the Master to look.
        coarse.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut finished: Vec<(f64, Hypothesis)> = coarse
            .iter()
            .take(BEST_FINISHED)
            .map(|(_, h)| self.refine_fine(prefix, camera, *h, free_tilt))
            .collect();
        let best_side = finished
            .iter()
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, h)| apex_up(h));
        if let Some(side) = best_side
            && finished.iter().all(|(_, h)| apex_up(h) == side)
            && let Some((_, h)) = coarse
                .iter()
                .skip(BEST_FINISHED)
                .find(|(_, h)| apex_up(h) != side)
        {
            finished.push(self.refine_fine(prefix, camera, *h, free_tilt));
        }
        let (score, best) = finished
            .iter()
            .copied()
            .max_by(|a, b| a.0.total_cmp(&b.0))?;
        let rival = finished
            .iter()
            .copied()
            .filter(|(_, h)| apex_up(h) != apex_up(&best))
            .max_by(|a, b| a.0.total_cmp(&b.0));
        Some((score, best, rival))
    }

    /// The detection for a hypothesis, if it explains enough of what is left of the region,
    /// with its fit's confidence given its `lead` (see [`Fit::confidence`]).
    pub(super) fn accept(
        &self,
        region: &Region,
        prefix: &Prefix,
        camera: &Camera,
        h: &Hypothesis,
        lead: f64,
    ) -> Option<Detection> {
        let fit = self.accepted_fit(prefix, camera, h)?;
        self.detection(region.color, camera, h, fit.confidence(lead))
    }

    /// How a hypothesis fits what is left of the region, if it explains enough of it.
    pub(super) fn accepted_fit(
        &self,
        prefix: &Prefix,
        camera: &Camera,
        h: &Hypothesis,
    ) -> Option<Fit> {
        let (_, o) = self.score(prefix, camera, h);
        let fit = Fit::of(&o);
        let support = o.on / (o.on + o.off + o.care).max(1.0);
        // A stacked piece is pinned to the apex below it, so less of it needs to show.
        let min_support = match h.resting {
            Resting::Stacked => self.params.min_new_support / 2.0,
            _ => self.params.min_new_support,
        };
        // An upright piece may stand behind others: what they hide of it is left out.
        let supported = support >= min_support
            || (h.resting == Resting::Upright
                && support >= self.params.min_upright_shown
                && o.on / (o.on + o.off + o.care - o.others).max(1.0) >= min_support);
        if fit.precision < self.params.min_precision
            || o.on < self.params.min_region_px as f64
            || !supported
        {
            return None;
        }
        Some(fit)
    }

    /// The detection of a hypothesis, with its pose, outline and centroid's pixel.
    pub(super) fn detection(
        &self,
        color: Color,
        camera: &Camera,
        h: &Hypothesis,
        confidence: f64,
    ) -> Option<Detection> {
        let (pose, outline) = self.outline(camera, h)?;
        let dims = self.dims(h.size);
        let image_xy = camera.project_table(&(pose * centroid_piece(&dims)))?;
        Some(Detection::new(
            color, h.size, h.resting, pose, image_xy, outline, confidence,
        ))
    }

    /// A piece of `top` size stacked on the tip of an upright `base`, turned as it is.
    pub(super) fn stacked_on(&self, base: &Hypothesis, top: Size) -> Hypothesis {
        let seat = cavity_apex_piece(&self.dims(top), self.pieces.wall_mm).z;
        Hypothesis {
            size: top,
            resting: Resting::Stacked,
            lift: (self.dims(base.size).height_mm - seat).max(0.0),
            ..*base
        }
    }

    /// How well an upright `base` with a `top` piece stacked on it explains a region together.
    pub(super) fn tower_px(
        &self,
        prefix: &Prefix,
        camera: &Camera,
        base: &Hypothesis,
        top: Size,
    ) -> f64 {
        let stacked = self.stacked_on(base, top);
        let (base_pose, top_pose) = (self.pose(base), self.pose(&stacked));
        let (base_dims, top_dims) = (self.dims(base.size), self.dims(top));
        with_silhouette(camera, &base_dims, &base_pose, |base_outline| {
            with_silhouette(camera, &top_dims, &top_pose, |top_outline| {
                self.explained_px(&overlap_union(prefix, [base_outline, top_outline]))
            })
        })
        .flatten()
        .unwrap_or(f64::NEG_INFINITY)
    }

    /// Upright bases of two-piece towers fitted jointly with the piece stacked on them; each is
    /// returned with its own score, for the greedy search to pick up the top piece after it.
    pub(super) fn tower_bases(
        &self,
        prefix: &Prefix,
        camera: &Camera,
        centre_px: &Point2<f64>,
    ) -> Vec<(f64, Hypothesis)> {
        let sizes = [Size::Small, Size::Medium, Size::Large];
        let pairs = sizes.into_iter().flat_map(|b| sizes.map(|t| (b, t)));
        let mut coarse = self.coarse_towers(prefix, camera, centre_px, pairs);
        // Only the best tower goes on, so only the best coarse ones take the fine steps.
        coarse.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut out: Vec<(f64, Hypothesis)> = coarse
            .into_iter()
            .take(BEST_FINISHED)
            .map(|(_, h, top, step_mm)| self.finish_tower(prefix, camera, h, top, step_mm))
            .collect();
        // Only the best tower is worth a branch of the search; its base scores on its own.
        out.sort_by(|a, b| b.0.total_cmp(&a.0));
        out.into_iter()
            .take(1)
            .map(|(_, h)| (self.score(prefix, camera, &h).0, h))
            .collect()
    }

    /// Two-piece towers fitted jointly, coarsely, one for each (base, top) size pair, from a
    /// base standing under the region's centre: each with its score, base, top size and the
    /// step its search stopped at (for [`Detector::finish_tower`]).
    pub(super) fn coarse_towers(
        &self,
        prefix: &Prefix,
        camera: &Camera,
        centre_px: &Point2<f64>,
        pairs: impl Iterator<Item = (Size, Size)>,
    ) -> Vec<(f64, Hypothesis, Size, f64)> {
        let mut coarse = Vec::new();
        for (base_size, top) in pairs {
            let Some(start) =
                self.start_on_table(camera, centre_px, base_size, Resting::Upright, 0.0)
            else {
                continue;
            };
            let joint = |h: &Hypothesis| self.tower_px(prefix, camera, h, top);
            // Each seed scored once (a `max_by` comparing `joint` of both would score each twice).
            let seed = (0..12)
                .map(|i| {
                    let h = Hypothesis {
                        yaw: std::f64::consts::FRAC_PI_2 * f64::from(i) / 12.0,
                        ..start
                    };
                    (joint(&h), h)
                })
                .max_by(|a, b| a.0.total_cmp(&b.0));
            let Some((_, seed)) = seed else { continue };
            let freedom = ACROSS_TABLE;
            let (score, h, step_mm) = pattern_search(seed, freedom, FINE_FROM_MM, joint);
            coarse.push((score, h, top, step_mm));
        }
        coarse
    }

    /// A coarse joint tower fit (see [`Detector::coarse_towers`]) taken on from `step_mm` to
    /// the finest step: its score and base.
    pub(super) fn finish_tower(
        &self,
        prefix: &Prefix,
        camera: &Camera,
        base: Hypothesis,
        top: Size,
        step_mm: f64,
    ) -> (f64, Hypothesis) {
        let freedom = Freedom {
            first_step_mm: step_mm,
            tilt: false,
        };
        let (score, h, _) = pattern_search(base, freedom, FINEST_STEP_MM, |h| {
            self.tower_px(prefix, camera, h, top)
        });
        (score, h)
    }

    /// Whether the face a bridging piece lies on covers every one of these apexes (within 2 mm).
    pub(super) fn rests_on(&self, h: &Hypothesis, apexes: &[Point3<f64>]) -> bool {
        let dims = self.dims(h.size);
        let pose = self.pose(h);
        let mut corners: Vec<Point3<f64>> =
            vertices_piece(&dims).iter().map(|v| pose * v).collect();
        corners.sort_by(|p, q| p.z.total_cmp(&q.z));
        let face = [corners[0].xy(), corners[1].xy(), corners[2].xy()];
        apexes.iter().all(|apex| {
            let p = apex.xy();
            (0..3).all(|k| {
                let (u, v) = (face[k], face[(k + 1) % 3]);
                let w = face[(k + 2) % 3];
                let edge = v - u;
                let normal = nalgebra::Vector2::new(-edge.y, edge.x).normalize();
                // Signed distance from the edge, positive towards the opposite corner.
                let side = normal.dot(&(w - u)).signum();
                side * normal.dot(&(p - u)) >= -2.0
            })
        })
    }

    /// A hypothesis resting on the table under the region's centre pixel.
    pub(super) fn start_on_table(
        &self,
        camera: &Camera,
        centre_px: &Point2<f64>,
        size: Size,
        resting: Resting,
        tilt: f64,
    ) -> Option<Hypothesis> {
        let dims = self.dims(size);
        let centroid_height = (pose_on_table(&dims, tilt, 0.0, 0.0, 0.0) * centroid_piece(&dims)).z;
        let at = camera.pixel_to_table_plane(centre_px, centroid_height)?;
        Some(Hypothesis {
            size,
            resting,
            x: at.x,
            y: at.y,
            yaw: 0.0,
            tilt,
            lift: 0.0,
        })
    }

    /// The best fit of a piece of `size` standing upright, searched from each of `starts` (the
    /// table positions, mm) with diagonal moves as well: the usual search, from the region's
    /// centre along x and y only, can stop on a ridge short of it.
    pub(super) fn upright_searched_closely(
        &self,
        prefix: &Prefix,
        camera: &Camera,
        size: Size,
        starts: &[Point2<f64>],
    ) -> Option<(f64, Hypothesis)> {
        use std::f64::consts::FRAC_PI_2;
        starts
            .iter()
            .filter_map(|at| {
                let start = Hypothesis {
                    size,
                    resting: Resting::Upright,
                    x: at.x,
                    y: at.y,
                    yaw: 0.0,
                    tilt: 0.0,
                    lift: 0.0,
                };
                let (_, seed) = self
                    .yaw_seeds(prefix, camera, start, FRAC_PI_2, 12)
                    .into_iter()
                    .next()?;
                let (score, h, _) =
                    pattern_search_with(seed, ACROSS_TABLE, FINEST_STEP_MM, true, |h| {
                        self.score(prefix, camera, h).0
                    });
                Some((score, h))
            })
            .max_by(|a, b| a.0.total_cmp(&b.0))
    }

    /// Pattern search over position, yaw (and tilt), halving the steps while they are longer
    /// than `stop_mm`.
    pub(super) fn refine(
        &self,
        prefix: &Prefix,
        camera: &Camera,
        start: Hypothesis,
        freedom: Freedom,
        stop_mm: f64,
    ) -> (f64, Hypothesis) {
        let (score, h, _) =
            pattern_search(start, freedom, stop_mm, |h| self.score(prefix, camera, h).0);
        (score, h)
    }
}

/// Pattern search over position, yaw (and tilt when free), maximising `objective`: each move is
/// taken again while it helps (one evaluation a step along a slope instead of a sweep of every
/// move), and the steps are halved while they are longer than `stop_mm`. Returns the best
/// value, where it is, and the step it stopped at.
pub(super) fn pattern_search(
    start: Hypothesis,
    freedom: Freedom,
    stop_mm: f64,
    objective: impl FnMut(&Hypothesis) -> f64,
) -> (f64, Hypothesis, f64) {
    pattern_search_with(start, freedom, stop_mm, false, objective)
}

/// [`pattern_search`], with `diagonal` also trying the four diagonal moves across the table
/// before a step is halved: a silhouette's score can rise along a diagonal ridge where every
/// move along x or y alone falls.
fn pattern_search_with(
    start: Hypothesis,
    freedom: Freedom,
    stop_mm: f64,
    diagonal: bool,
    mut objective: impl FnMut(&Hypothesis) -> f64,
) -> (f64, Hypothesis, f64) {
    const MOVES: [(f64, f64, f64, f64); 8] = [
        (1.0, 0.0, 0.0, 0.0),
        (-1.0, 0.0, 0.0, 0.0),
        (0.0, 1.0, 0.0, 0.0),
        (0.0, -1.0, 0.0, 0.0),
        (0.0, 0.0, 1.0, 0.0),
        (0.0, 0.0, -1.0, 0.0),
        (0.0, 0.0, 0.0, 1.0),
        (0.0, 0.0, 0.0, -1.0),
    ];
    let moves = if freedom.tilt {
        &MOVES[..]
    } else {
        &MOVES[..6]
    };
    // A move that undoes the last one, or a sweep after one that moved, lands on points scored
    // already (a quarter of all, on a rendered table): each is scored once.
    // (A search scores a few dozen points: a list is cheaper than hashing them.)
    let mut scored: Vec<([u64; 5], f64)> = Vec::with_capacity(64);
    let mut objective = |h: &Hypothesis| {
        let key = [h.x, h.y, h.yaw, h.tilt, h.lift].map(f64::to_bits);
        // Most points differ in x already: a whole-key comparison is a library call.
        if let Some(&(_, score)) = scored.iter().find(|(k, _)| k[0] == key[0] && *k == key) {
            return score;
        }
        let score = objective(h);
        scored.push((key, score));
        score
    };
    let mut current = start;
    let mut current_score = objective(&current);
    let mut step_mm = freedom.first_step_mm;
    let mut step_angle = 8f64.to_radians() * freedom.first_step_mm / 4.0;
    while step_mm > stop_mm {
        let mut improved = false;
        for (dx, dy, dyaw, dtilt) in moves {
            loop {
                let candidate = Hypothesis {
                    x: current.x + dx * step_mm,
                    y: current.y + dy * step_mm,
                    yaw: current.yaw + dyaw * step_angle,
                    tilt: if freedom.tilt {
                        (current.tilt + dtilt * step_angle)
                            .clamp(10f64.to_radians(), std::f64::consts::PI)
                    } else {
                        current.tilt
                    },
                    ..current
                };
                let s = objective(&candidate);
                if s <= current_score {
                    break;
                }
                current = candidate;
                current_score = s;
                improved = true;
            }
        }
        if !improved && diagonal {
            for (dx, dy) in [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)] {
                let candidate = Hypothesis {
                    x: current.x + dx * step_mm,
                    y: current.y + dy * step_mm,
                    ..current
                };
                let s = objective(&candidate);
                if s > current_score {
                    current = candidate;
                    current_score = s;
                    improved = true;
                    break;
                }
            }
        }
        if !improved {
            step_mm /= 2.0;
            step_angle /= 2.0;
        }
    }
    (current_score, current, step_mm)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diagonal_ridge_stops_the_search_along_x_and_y_but_not_the_close_one() {
        // Highest at (10, 10) mm, along a ridge running diagonally across the table: every move
        // along x or y alone from anywhere on it falls off.
        let ridge = |h: &Hypothesis| -100.0 * (h.x - h.y).abs() - (h.x + h.y - 20.0).powi(2);
        let start = Hypothesis {
            size: Size::Small,
            resting: Resting::Upright,
            x: 0.0,
            y: 0.0,
            yaw: 0.0,
            tilt: 0.0,
            lift: 0.0,
        };
        let (stuck, at, _) = pattern_search(start, ACROSS_TABLE, FINEST_STEP_MM, ridge);
        assert_eq!((at.x, at.y, stuck), (0.0, 0.0, -400.0));
        let (score, at, _) = pattern_search_with(start, ACROSS_TABLE, FINEST_STEP_MM, true, ridge);
        assert!(
            (at.x - 10.0).abs() < 0.2 && (at.y - 10.0).abs() < 0.2 && score > -1.0,
            "{at:?} {score}"
        );
    }
}
