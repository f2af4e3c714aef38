//! Real scene documents from sample_images, changed the way a table changes, and a frame clock.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use koanscope_geometry::Engine;
use koanscope_scene::{Color, KoanId, Piece, PieceId, Scene, Size};
use koanscope_tracker::{Observation, Occlusion, Tracker, TrackerEvent};
use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};

pub fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../sample_images")
}

/// A truth scene document of the samples, e.g. "S1/scene_00".
pub fn truth(name: &str) -> Scene {
    Scene::from_path(&samples().join(format!("{name}.json"))).expect("a sample scene document")
}

/// The scene as vision would hand it over: pieces only, then koans derived by the geometry engine.
pub fn derived(engine: &Engine, scene: &Scene) -> Scene {
    let mut scene = Scene {
        koans: Vec::new(),
        pieces: scene
            .pieces
            .iter()
            .map(|p| {
                let mut p = p.clone();
                p.koan = None;
                p.attributes = None;
                p
            })
            .collect(),
        ..scene.clone()
    };
    engine.derive(&mut scene);
    scene
}

pub fn pieces_of(scene: &Scene, koan: KoanId) -> Vec<PieceId> {
    scene.koan(koan).expect("koan in scene").pieces.clone()
}

/// The scene with a koan turned by `yaw` about its centre and carried by (dx, dy) mm.
pub fn moved(scene: &Scene, koan: KoanId, dx: f64, dy: f64, yaw: f64) -> Scene {
    let ids = pieces_of(scene, koan);
    let members: Vec<&Piece> = scene
        .pieces
        .iter()
        .filter(|p| ids.contains(&p.id))
        .collect();
    let n = members.len() as f64;
    let cx = members
        .iter()
        .map(|p| p.table_from_piece.translation.x)
        .sum::<f64>()
        / n;
    let cy = members
        .iter()
        .map(|p| p.table_from_piece.translation.y)
        .sum::<f64>()
        / n;
    let to_origin =
        Isometry3::from_parts(Translation3::new(-cx, -cy, 0.0), UnitQuaternion::identity());
    let turn = Isometry3::from_parts(
        Translation3::new(cx + dx, cy + dy, 0.0),
        UnitQuaternion::from_axis_angle(&Vector3::z_axis(), yaw),
    );
    let mut out = scene.clone();
    for p in &mut out.pieces {
        if ids.contains(&p.id) {
            p.table_from_piece = turn * to_origin * p.table_from_piece;
        }
    }
    out
}

pub fn without(scene: &Scene, pieces: &[PieceId]) -> Scene {
    let mut out = scene.clone();
    out.pieces.retain(|p| !pieces.contains(&p.id));
    out
}

/// The scene with one more upright piece standing at (x, y).
pub fn with_piece(scene: &Scene, color: Color, size: Size, x: f64, y: f64) -> Scene {
    let mut out = scene.clone();
    let id = out.pieces.iter().map(|p| p.id).max().map_or(0, |m| m + 1);
    let pose = Isometry3::from_parts(Translation3::new(x, y, 0.05), UnitQuaternion::identity());
    out.pieces.push(Piece::new(id, color, size, pose));
    out
}

/// Frames at a fixed rate, each fed to the tracker; events are kept with their times.
pub struct Feed {
    pub tracker: Tracker,
    pub time: Duration,
    pub step: Duration,
    pub log: Vec<(Duration, TrackerEvent)>,
}

impl Feed {
    pub fn new(tracker: Tracker, fps: u64) -> Feed {
        Feed {
            tracker,
            time: Duration::ZERO,
            step: Duration::from_micros(1_000_000 / fps),
            log: Vec::new(),
        }
    }

    /// Shows `scene` (already derived) for `seconds`; returns the events of those frames.
    pub fn show(
        &mut self,
        scene: &Scene,
        seconds: f64,
        occlusion: Occlusion,
    ) -> Vec<(Duration, TrackerEvent)> {
        let frames = (seconds / self.step.as_secs_f64()).round() as usize;
        let mut events = Vec::new();
        for _ in 0..frames {
            self.frame(scene, occlusion, &mut events);
        }
        events
    }

    pub fn frame(
        &mut self,
        scene: &Scene,
        occlusion: Occlusion,
        events: &mut Vec<(Duration, TrackerEvent)>,
    ) {
        let update = self.tracker.update(&Observation {
            time: self.time,
            scene: scene.clone(),
            occlusion,
        });
        for event in update.events {
            events.push((self.time, event.clone()));
            self.log.push((self.time, event));
        }
        self.time += self.step;
    }

    /// Ids of the koans being tracked, in order.
    pub fn ids(&self) -> Vec<u64> {
        self.tracker.koans().iter().map(|k| k.id()).collect()
    }
}

/// The events without their scenes, to compare and to read in a failure message.
pub fn kinds(events: &[(Duration, TrackerEvent)]) -> Vec<String> {
    events
        .iter()
        .map(|(_, e)| match e {
            TrackerEvent::HandsIn => "hands in".to_string(),
            TrackerEvent::HandsOut => "hands out".to_string(),
            TrackerEvent::Built { id } => format!("built {id}"),
            TrackerEvent::Moved { id, .. } => format!("moved {id}"),
            TrackerEvent::Changed { id } => format!("changed {id}"),
            TrackerEvent::Katsu { id, .. } => format!("katsu {id}"),
            TrackerEvent::Restored { id } => format!("restored {id}"),
            TrackerEvent::Removed { id, .. } => format!("removed {id}"),
        })
        .collect()
}
