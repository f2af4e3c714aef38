//! Koans over time: which are built, which moved, changed or left, and when to stop looking.

use std::time::Duration;

use koanscope_scene::Scene;

use crate::arrangement::View;
use crate::occlusion::Occlusion;

/// A tracked koan's id: stable for the koan's life on the table, never reused.
pub type TrackId = u64;

/// How patient the tracker is. The defaults suit a webcam at 10–30 frames a second.
#[derive(Debug, Clone, PartialEq)]
pub struct TrackerConfig {
    /// A koan is built once it has stood still this long (students fiddle while building).
    pub settle: Duration,
    /// A built koan's new arrangement (or place) must be seen this long, and in at least
    /// [`TrackerConfig::confirm_frames`] frames, before it counts: one frame with a piece missed
    /// or a spurious piece never flips a built koan.
    pub confirm: Duration,
    pub confirm_frames: u32,
    /// A koan missing this long (and for `confirm_frames` frames) has left the table.
    pub remove_after: Duration,
    /// Frames must be clear of hands this long before updates resume.
    pub resume_after: Duration,
    /// A piece of the same colour and size within this distance of where it was is the same piece.
    pub match_radius_mm: f64,
    /// A koan whose centre moved less than this between two frames stood still.
    pub still_mm: f64,
    /// A built koan whose centre is farther than this from where it was built has been moved.
    pub moved_mm: f64,
    /// Distances between a koan's pieces may differ this much and it is still the same arrangement.
    pub shape_tolerance_mm: f64,
}

impl Default for TrackerConfig {
    fn default() -> Self {
        TrackerConfig {
            settle: Duration::from_millis(1500),
            confirm: Duration::from_millis(300),
            confirm_frames: 3,
            remove_after: Duration::from_secs(1),
            resume_after: Duration::from_millis(300),
            match_radius_mm: 25.0,
            still_mm: 6.0,
            moved_mm: 20.0,
            shape_tolerance_mm: 8.0,
        }
    }
}

/// One frame's worth of input.
#[derive(Debug, Clone)]
pub struct Observation {
    /// When the frame was taken (the frame source's clock).
    pub time: Duration,
    /// The frame's scene with koans derived by the geometry engine (`Engine::derive`).
    pub scene: Scene,
    /// What the occlusion detector read from the same frame.
    pub occlusion: Occlusion,
}

/// Where a tracked koan stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KoanState {
    /// New, still being built or fiddled with: not yet still for [`TrackerConfig::settle`].
    Settling,
    /// Still for long enough: this is the koan to mark.
    Built,
    /// Was built, now differs: settling into its new arrangement.
    Changed,
}

/// What happened, for the UI and the game's books.
#[derive(Debug, Clone, PartialEq)]
pub enum TrackerEvent {
    /// Something came over the table: updates pause, the last stable table stays on screen.
    HandsIn,
    /// The table is clear again: updates resume.
    HandsOut,
    /// The koan has settled (for the first time, or into a new arrangement after a change).
    Built { id: TrackId },
    /// Same pieces, same arrangement, new place: the Master moved it. It keeps its id and mark.
    Moved {
        id: TrackId,
        from_mm: [f64; 2],
        to_mm: [f64; 2],
    },
    /// A built koan's arrangement changed.
    Changed { id: TrackId },
    /// A marked koan changed: someone disturbed it. `ghost` is the koan as it was logged at
    /// marking (pieces with poses, relations), to draw and to restore from.
    Katsu { id: TrackId, ghost: Scene },
    /// A koan in katsu settled back into its marked arrangement.
    Restored { id: TrackId },
    /// A built koan left the table (broken down). `last` is how it was last built.
    Removed { id: TrackId, last: Scene },
}

/// The outcome of one frame.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Update {
    pub time: Duration,
    /// Hands over the table: this frame's scene was not used.
    pub paused: bool,
    pub events: Vec<TrackerEvent>,
}

/// A mistake in how the app drives the tracker.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TrackerError {
    #[error("there is no koan {0} on the table (it may have been removed)")]
    UnknownKoan(TrackId),
}

/// One koan followed over frames.
#[derive(Debug, Clone)]
pub struct TrackedKoan {
    id: TrackId,
    state: KoanState,
    /// When the koan entered its state.
    since: Duration,
    seen: View,
    built: Option<View>,
    marked: Option<View>,
    katsu: bool,
    still_since: Duration,
    /// A differing arrangement or place being confirmed: the view, since when, frames seen.
    candidate: Option<(View, Duration, u32)>,
    /// Missing since when, for how many frames.
    missing: Option<(Duration, u32)>,
}

impl TrackedKoan {
    pub fn id(&self) -> TrackId {
        self.id
    }

    pub fn state(&self) -> KoanState {
        self.state
    }

    /// When the koan entered its current state.
    pub fn since(&self) -> Duration {
        self.since
    }

    /// The koan as last seen: its pieces (ids of that frame) and the koan with its relations.
    pub fn scene(&self) -> &Scene {
        &self.seen.scene
    }

    /// The koan as it was last built, the one to mark. None while it first settles.
    pub fn built(&self) -> Option<&Scene> {
        self.built.as_ref().map(|v| &v.scene)
    }

    /// The koan as logged when it was marked ([`Tracker::mark`]).
    pub fn marked(&self) -> Option<&Scene> {
        self.marked.as_ref().map(|v| &v.scene)
    }

    /// A marked koan that has changed and not been restored (nor marked again).
    pub fn katsu(&self) -> bool {
        self.katsu
    }

    /// Centre of its pieces' bases on the table, mm.
    pub fn centroid_mm(&self) -> [f64; 2] {
        self.seen.centroid
    }

    /// Not seen in the latest frames (it may be about to be removed, or a piece was missed).
    pub fn is_missing(&self) -> bool {
        self.missing.is_some()
    }
}

/// Follows the koans on the table from frame to frame. Feed it every frame with
/// [`Tracker::update`]; tell it which koans the Master marked with [`Tracker::mark`].
#[derive(Debug, Clone)]
pub struct Tracker {
    config: TrackerConfig,
    koans: Vec<TrackedKoan>,
    next_id: TrackId,
    paused: bool,
    /// Clear frames since the hands left: since when, how many.
    clear: Option<(Duration, u32)>,
}

impl Tracker {
    pub fn new(config: TrackerConfig) -> Tracker {
        Tracker {
            config,
            koans: Vec::new(),
            next_id: 1,
            paused: false,
            clear: None,
        }
    }

    pub fn config(&self) -> &TrackerConfig {
        &self.config
    }

    /// Every koan being followed, settling ones included, in order of id.
    pub fn koans(&self) -> &[TrackedKoan] {
        &self.koans
    }

    /// The built (and changed) koans: what the table view shows.
    pub fn table(&self) -> impl Iterator<Item = &TrackedKoan> {
        self.koans.iter().filter(|k| k.built.is_some())
    }

    pub fn koan(&self, id: TrackId) -> Option<&TrackedKoan> {
        self.koans.iter().find(|k| k.id == id)
    }

    /// Hands are over the table and updates are paused.
    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// Logs the koan's present arrangement as marked: from now on a change raises
    /// [`TrackerEvent::Katsu`] with this arrangement as the ghost. Marking again (after a katsu
    /// the Master accepts) logs the new arrangement and ends the katsu.
    pub fn mark(&mut self, id: TrackId) -> Result<(), TrackerError> {
        let koan = self
            .koans
            .iter_mut()
            .find(|k| k.id == id)
            .ok_or(TrackerError::UnknownKoan(id))?;
        koan.marked = Some(koan.built.clone().unwrap_or_else(|| koan.seen.clone()));
        koan.katsu = false;
        Ok(())
    }

    /// Forgets a mark (the Master took the stone back).
    pub fn unmark(&mut self, id: TrackId) -> Result<(), TrackerError> {
        let koan = self
            .koans
            .iter_mut()
            .find(|k| k.id == id)
            .ok_or(TrackerError::UnknownKoan(id))?;
        koan.marked = None;
        koan.katsu = false;
        Ok(())
    }

    /// Takes one frame into account. While the occlusion reading says hands are over the table
    /// (and for [`TrackerConfig::resume_after`] after they leave) the scene is ignored: the koans
    /// stay as they were, and nothing under or beside a hand becomes a koan.
    pub fn update(&mut self, observation: &Observation) -> Update {
        let time = observation.time;
        let mut update = Update {
            time,
            ..Update::default()
        };
        if observation.occlusion.occluded {
            self.clear = None;
            if !self.paused {
                self.paused = true;
                update.events.push(TrackerEvent::HandsIn);
            }
            update.paused = true;
            return update;
        }
        if self.paused {
            let (since, frames) = self.clear.get_or_insert((time, 0));
            *frames += 1;
            if time.saturating_sub(*since) < self.config.resume_after || *frames < 2 {
                update.paused = true;
                return update;
            }
            self.paused = false;
            self.clear = None;
            update.events.push(TrackerEvent::HandsOut);
            // Hands may have touched anything: stillness and pending changes start afresh.
            for koan in &mut self.koans {
                koan.still_since = time;
                koan.candidate = None;
                koan.missing = None;
            }
        }
        self.step(time, &observation.scene, &mut update.events);
        update
    }

    fn step(&mut self, time: Duration, scene: &Scene, events: &mut Vec<TrackerEvent>) {
        let mut views: Vec<View> = scene
            .koans
            .iter()
            .filter_map(|k| View::of(scene, k))
            .collect();
        // Order by place, not by the ids vision happened to give: the same table gives the same
        // tracks whatever order its pieces were listed in.
        let key = |v: &View| {
            (
                v.centroid.map(|c| (c * 100.0).round() as i64),
                v.pieces.len(),
            )
        };
        views.sort_by_key(key);

        let mut of_koan: Vec<Option<usize>> = vec![None; self.koans.len()];
        let mut taken = vec![false; views.len()];

        // 1. Same place: most pieces where they were.
        let mut pairs = Vec::new();
        for (k, koan) in self.koans.iter().enumerate() {
            for (v, view) in views.iter().enumerate() {
                let overlap = koan.seen.overlap(view, self.config.match_radius_mm);
                if overlap > 0 {
                    pairs.push((overlap, koan.seen.distance_to(view), k, v));
                }
            }
        }
        pairs.sort_by(|a, b| {
            b.0.cmp(&a.0)
                .then(a.1.total_cmp(&b.1))
                .then(a.2.cmp(&b.2))
                .then(a.3.cmp(&b.3))
        });
        for (_, _, k, v) in pairs {
            if of_koan[k].is_none() && !taken[v] {
                of_koan[k] = Some(v);
                taken[v] = true;
            }
        }

        // 2. Elsewhere, the same arrangement as a koan no longer at its place: it was moved.
        for (v, view) in views.iter().enumerate() {
            if taken[v] {
                continue;
            }
            let moved = self
                .koans
                .iter()
                .enumerate()
                .filter(|(k, koan)| {
                    of_koan[*k].is_none()
                        && koan
                            .built
                            .as_ref()
                            .unwrap_or(&koan.seen)
                            .arrangement
                            .same_as(&view.arrangement, self.config.shape_tolerance_mm)
                })
                .min_by(|a, b| {
                    a.1.seen
                        .distance_to(view)
                        .total_cmp(&b.1.seen.distance_to(view))
                })
                .map(|(k, _)| k);
            if let Some(k) = moved {
                of_koan[k] = Some(v);
                taken[v] = true;
            }
        }

        // 3. The rest is new.
        let mut views: Vec<Option<View>> = views.into_iter().map(Some).collect();
        let mut removed = Vec::new();
        for (k, v) in of_koan.iter().enumerate() {
            match v {
                Some(v) => {
                    let view = views[*v].take().expect("each view is given once");
                    self.seen(k, view, time, events);
                }
                None => {
                    if self.missed(k, time, events) {
                        removed.push(k);
                    }
                }
            }
        }
        for k in removed.into_iter().rev() {
            self.koans.remove(k);
        }
        for (v, view) in views.into_iter().enumerate() {
            if let Some(view) = view {
                debug_assert!(!taken[v]);
                self.koans.push(TrackedKoan {
                    id: self.next_id,
                    state: KoanState::Settling,
                    since: time,
                    seen: view,
                    built: None,
                    marked: None,
                    katsu: false,
                    still_since: time,
                    candidate: None,
                    missing: None,
                });
                self.next_id += 1;
            }
        }
    }

    /// A tracked koan seen again in this frame.
    fn seen(&mut self, k: usize, view: View, time: Duration, events: &mut Vec<TrackerEvent>) {
        let config = &self.config;
        let koan = &mut self.koans[k];
        // Standing still means being seen, too: a koan that was away longer than a glitch (a
        // detection that comes and goes) starts settling again.
        let was_away = koan
            .missing
            .is_some_and(|(since, _)| time.saturating_sub(since) > config.confirm);
        let still = view
            .arrangement
            .same_as(&koan.seen.arrangement, config.shape_tolerance_mm)
            && view.distance_to(&koan.seen) <= config.still_mm;
        if !still || was_away {
            koan.still_since = time;
        }
        koan.seen = view;
        koan.missing = None;
        let still_for = time.saturating_sub(koan.still_since);
        match koan.state {
            KoanState::Settling | KoanState::Changed => {
                if still_for >= config.settle {
                    koan.state = KoanState::Built;
                    koan.since = time;
                    koan.built = Some(koan.seen.clone());
                    koan.candidate = None;
                    events.push(TrackerEvent::Built { id: koan.id });
                    let back = koan.marked.as_ref().is_some_and(|m| {
                        m.arrangement
                            .same_as(&koan.seen.arrangement, config.shape_tolerance_mm)
                    });
                    if koan.katsu && back {
                        koan.katsu = false;
                        events.push(TrackerEvent::Restored { id: koan.id });
                    }
                }
            }
            KoanState::Built => {
                let built = koan
                    .built
                    .as_ref()
                    .expect("a built koan has its arrangement");
                let built_at = built.centroid;
                let same_shape = koan
                    .seen
                    .arrangement
                    .same_as(&built.arrangement, config.shape_tolerance_mm);
                if same_shape && koan.seen.distance_to(built) <= config.moved_mm {
                    koan.candidate = None;
                    return;
                }
                // Something differs: confirm it is the same difference for a while.
                let consistent = koan.candidate.as_ref().is_some_and(|(c, _, _)| {
                    c.arrangement
                        .same_as(&koan.seen.arrangement, config.shape_tolerance_mm)
                        && c.distance_to(&koan.seen) <= config.still_mm
                });
                if consistent {
                    let (c, _, frames) = koan.candidate.as_mut().expect("consistent");
                    *c = koan.seen.clone();
                    *frames += 1;
                } else {
                    koan.candidate = Some((koan.seen.clone(), time, 1));
                }
                let (_, since, frames) = koan.candidate.as_ref().expect("set above");
                if time.saturating_sub(*since) < config.confirm || *frames < config.confirm_frames {
                    return;
                }
                koan.candidate = None;
                if same_shape {
                    events.push(TrackerEvent::Moved {
                        id: koan.id,
                        from_mm: built_at,
                        to_mm: koan.seen.centroid,
                    });
                    koan.built = Some(koan.seen.clone());
                } else {
                    koan.state = KoanState::Changed;
                    koan.since = time;
                    events.push(TrackerEvent::Changed { id: koan.id });
                    if let Some(marked) = &koan.marked
                        && !koan.katsu
                    {
                        koan.katsu = true;
                        events.push(TrackerEvent::Katsu {
                            id: koan.id,
                            ghost: marked.scene.clone(),
                        });
                    }
                }
            }
        }
    }

    /// A tracked koan not seen in this frame; true when it has left the table.
    fn missed(&mut self, k: usize, time: Duration, events: &mut Vec<TrackerEvent>) -> bool {
        let config = &self.config;
        let koan = &mut self.koans[k];
        let (since, frames) = koan.missing.get_or_insert((time, 0));
        *frames += 1;
        if time.saturating_sub(*since) < config.remove_after || *frames < config.confirm_frames {
            return false;
        }
        // A koan never built was a glimpse (a spurious detection, a half-built koan): it goes quietly.
        if let Some(built) = &koan.built {
            events.push(TrackerEvent::Removed {
                id: koan.id,
                last: built.scene.clone(),
            });
        }
        true
    }
}

impl Default for Tracker {
    fn default() -> Self {
        Tracker::new(TrackerConfig::default())
    }
}
