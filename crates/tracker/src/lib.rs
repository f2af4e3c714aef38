//! Stable table state over frames, for koanscope's live view.
//!
//! Vision sees each frame alone: a piece missed here, a hand read as pieces there, ids given
//! afresh in reading order. The game needs the table a person sees: koans that are *built* once
//! they have stood still, that keep their identity when the Master moves them, that *change*
//! (raising katsu when marked) and that leave the table when broken down; and no koans at all made
//! of hands. The [`Tracker`] turns one scene per frame into that; the [`OcclusionDetector`] reads
//! from the frame itself when hands are over the table, so the tracker can pause.
//!
//! ```
//! use std::time::Duration;
//! use koanscope_tracker::{Observation, Occlusion, Tracker, TrackerEvent};
//! # let scene = koanscope_scene::Scene::default();
//! let mut tracker = Tracker::default();
//! for i in 0..60 {
//!     let time = Duration::from_millis(33 * i);
//!     let update = tracker.update(&Observation { time, scene: scene.clone(), occlusion: Occlusion::CLEAR });
//!     for event in update.events {
//!         if let TrackerEvent::Built { id } = event {
//!             println!("koan {id} is built");
//!         }
//!     }
//! }
//! ```
//!
//! Pure Rust on the scene model: no OpenCV, no UI. Times are the frame source's clock.

mod arrangement;
mod occlusion;
mod tracker;

pub use occlusion::{CoarseFrame, Occlusion, OcclusionConfig, OcclusionDetector};
pub use tracker::{
    KoanState, Observation, TrackId, TrackedKoan, Tracker, TrackerConfig, TrackerError,
    TrackerEvent, Update,
};
