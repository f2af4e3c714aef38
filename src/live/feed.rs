//! From what vision and the tracker know to what the window draws: each tracked koan with its
//! one-koan document and its outlines in frame pixels. Outlines come from the frame a koan was
//! last seen in, so a koan missed for a frame (or hidden under a hand) keeps its drawing, and a
//! marked koan keeps the drawing it had when marked, as the ghost to rebuild it from.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use koanscope_scene::{Koan, Scene};
use koanscope_tracker::{KoanState as TrackState, TrackId, Tracker};
use koanscope_ui::{KoanState, Picture, PieceShape, PointPx, TableFeed, TrackedKoan};
use koanscope_vision::overlay::{OverlayShapes, PieceShape as VisionPiece};

fn px(p: &[f64; 2]) -> PointPx {
    [p[0] as f32, p[1] as f32]
}

fn piece_shape(p: &VisionPiece) -> PieceShape {
    PieceShape {
        piece: p.id,
        outline_px: p.outline_px.iter().map(px).collect(),
        axis_px: p.axis_px.map(|[a, b]| [px(&a), px(&b)]),
        ray_px: p.pointing_px.iter().map(px).collect(),
        confidence: p.confidence as f32,
    }
}

/// One koan of a scene as its own document (the form the game logs koans in): its pieces and
/// the koan, ids kept.
pub fn koan_document(scene: &Scene, koan: &Koan) -> Scene {
    Scene {
        source: scene.source.clone(),
        image_size: scene.image_size,
        pieces: scene
            .pieces
            .iter()
            .filter(|p| koan.pieces.contains(&p.id))
            .cloned()
            .collect(),
        koans: vec![koan.clone()],
    }
}

/// How a koan was drawn when last seen.
#[derive(Debug, Clone, Default)]
struct Drawing {
    outline_px: Vec<PointPx>,
    pieces: Vec<PieceShape>,
}

/// Builds the window's feed frame after frame, remembering each koan's last drawing.
#[derive(Debug, Default)]
pub struct FeedBuilder {
    drawings: HashMap<TrackId, Drawing>,
    ghosts: HashMap<TrackId, Vec<PieceShape>>,
    frames: u64,
}

impl FeedBuilder {
    /// Keeps the koan's present drawing as its ghost (the Master marked it).
    pub fn mark(&mut self, id: TrackId) {
        if let Some(d) = self.drawings.get(&id) {
            self.ghosts.insert(id, d.pieces.clone());
        }
    }

    pub fn unmark(&mut self, id: TrackId) {
        self.ghosts.remove(&id);
    }

    /// The feed for one frame. `shapes` is this frame's drawing (None while paused: the koans
    /// keep the drawing they had).
    pub fn build(
        &mut self,
        tracker: &Tracker,
        now: Duration,
        shapes: Option<&OverlayShapes>,
        picture: Option<Arc<Picture>>,
    ) -> TableFeed {
        self.frames += 1;
        let settle = tracker.config().settle.as_secs_f32().max(1e-3);
        let mut koans = Vec::new();
        for tk in tracker.koans() {
            let scene = tk.scene();
            if let (Some(shapes), false) = (shapes, tk.is_missing())
                && let Some(frame_koan) = scene.koans.first()
            {
                let pieces: Vec<PieceShape> = shapes
                    .pieces
                    .iter()
                    .filter(|p| frame_koan.pieces.contains(&p.id))
                    .map(piece_shape)
                    .collect();
                let outline_px = shapes
                    .koans
                    .iter()
                    .find(|k| k.id == frame_koan.id)
                    .map(|k| k.outline_px.iter().map(px).collect())
                    .unwrap_or_default();
                self.drawings
                    .insert(tk.id(), Drawing { outline_px, pieces });
            }
            let drawing = self.drawings.get(&tk.id()).cloned().unwrap_or_default();
            let state = match tk.state() {
                TrackState::Settling => KoanState::Settling {
                    progress: (now.saturating_sub(tk.since()).as_secs_f32() / settle).min(1.0),
                },
                TrackState::Built => KoanState::Built,
                TrackState::Changed => KoanState::Changed,
            };
            koans.push(TrackedKoan {
                id: tk.id(),
                state,
                scene: scene.clone(),
                outline_px: drawing.outline_px,
                pieces: drawing.pieces,
                ghost: self.ghosts.get(&tk.id()).cloned(),
            });
        }
        let live: Vec<TrackId> = tracker.koans().iter().map(|k| k.id()).collect();
        self.drawings.retain(|id, _| live.contains(id));
        self.ghosts.retain(|id, _| live.contains(id));
        TableFeed {
            frame: self.frames,
            picture,
            koans,
            ..TableFeed::default()
        }
    }
}
