//! What the window is fed from the vision thread, once per analysed frame: the picture, the
//! koans the tracker holds (each with its one-koan scene document and its outlines in pixels),
//! and how the pipeline is keeping up. Plain data, so the app fills it from vision and tracker
//! and the tests fill it from sample documents.

use std::sync::Arc;

use koanscope_scene::{PieceId, Scene};

/// A frame as RGBA bytes, row by row.
#[derive(Debug, Clone, PartialEq)]
pub struct Picture {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

impl Picture {
    /// A picture from RGB bytes (what cameras and decoders give).
    pub fn from_rgb(width: u32, height: u32, rgb: &[u8]) -> Picture {
        let mut rgba = Vec::with_capacity(rgb.len() / 3 * 4);
        for px in rgb.chunks_exact(3) {
            rgba.extend_from_slice(&[px[0], px[1], px[2], 255]);
        }
        Picture {
            width,
            height,
            rgba,
        }
    }
}

/// A point in the frame's pixels (x right, y down).
pub type PointPx = [f32; 2];

/// Where the tracker stands with a koan.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum KoanState {
    /// Pieces seen, not yet still long enough to count as built; `progress` runs 0 to 1.
    Settling { progress: f32 },
    /// Still for the settle time: the koan is built.
    Built,
    /// A built koan whose pieces changed; it settles again (a marked one raises katsu).
    Changed,
}

/// How one piece is drawn over the picture.
#[derive(Debug, Clone, PartialEq)]
pub struct PieceShape {
    pub piece: PieceId,
    /// The piece's silhouette.
    pub outline_px: Vec<PointPx>,
    /// Base centre to apex.
    pub axis_px: Option<[PointPx; 2]>,
    /// The pointing ray, when the piece points (from the apex onwards).
    pub ray_px: Vec<PointPx>,
    /// The detector's confidence, 0 to 1.
    pub confidence: f32,
}

/// A koan the tracker holds.
#[derive(Debug, Clone, PartialEq)]
pub struct TrackedKoan {
    /// The tracker's id: stable while the koan stays on the table, even when moved.
    pub id: u64,
    pub state: KoanState,
    /// The koan as seen: a one-koan scene document with derived attributes.
    pub scene: Scene,
    /// Around the whole koan, grown a little beyond its pieces.
    pub outline_px: Vec<PointPx>,
    pub pieces: Vec<PieceShape>,
    /// The logged state of a disturbed marked koan, to rebuild it from.
    pub ghost: Option<Vec<PieceShape>>,
}

/// One analysed frame.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TableFeed {
    /// Frames analysed so far.
    pub frame: u64,
    pub picture: Option<Arc<Picture>>,
    pub koans: Vec<TrackedKoan>,
    /// Why updates are paused (hands over the table, camera unplugged), when they are.
    pub paused: Option<String>,
    /// Where the frames come from, in words ("camera 0, 1280×720 at 30 fps").
    pub source: String,
    /// Frames analysed per second, over the last second or so.
    pub vision_fps: f32,
    /// Frames the camera delivered that vision had no time for.
    pub dropped: u64,
    /// Things the Master should know about the picture (dark frame, nothing found).
    pub warnings: Vec<String>,
}

impl TableFeed {
    pub fn koan(&self, id: u64) -> Option<&TrackedKoan> {
        self.koans.iter().find(|k| k.id == id)
    }
}
