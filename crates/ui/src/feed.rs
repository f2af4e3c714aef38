//! What the window is fed by the pipeline: a [`FeedUpdate`] for every camera frame. Most are
//! picture-only ([`PictureUpdate`]: the newest frame, the koans as last analysed), some carry
//! an analysed frame ([`TableFeed`]: the koans the tracker holds, each with its one-koan scene
//! document and its outlines in pixels). Both say how the pipeline is keeping up. Plain data, so
//! the app fills it from vision and tracker and the tests fill it from sample documents.

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
        let mut rgba = vec![255; rgb.len() / 3 * 4];
        for (to, from) in rgba.chunks_exact_mut(4).zip(rgb.chunks_exact(3)) {
            to[..3].copy_from_slice(from);
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

/// How the pipeline is keeping up, counted since the source started.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Rates {
    /// Camera frames handed to the window per second, over the last second or two.
    pub picture_fps: f32,
    /// Frames analysed per second, over the last second or two.
    pub vision_fps: f32,
    /// Frames the camera source dropped before the pipeline got them (gaps in its numbering).
    pub dropped: u64,
    /// Frames the window showed that vision skipped because a newer one had arrived.
    pub not_analysed: u64,
}

/// A new camera frame for the window: the picture moves at the camera's rate; the koans stay
/// as the last analysed frame left them.
#[derive(Debug, Clone, PartialEq)]
pub struct PictureUpdate {
    /// The camera's number of the frame (counts from 0; a gap is a frame the source dropped).
    pub index: u64,
    pub picture: Arc<Picture>,
    pub rates: Rates,
    /// Why updates are paused at the source (camera unplugged, recording ended), when they are.
    pub paused: Option<String>,
}

/// What the pipeline sends the window.
#[derive(Debug, Clone, PartialEq)]
pub enum FeedUpdate {
    /// A camera frame before (or without) analysis.
    Picture(PictureUpdate),
    /// An analysed frame: the tracker's koans, with the newest picture.
    Analysed(TableFeed),
}

/// What the window shows: the newest picture and the koans of the last analysed frame.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TableFeed {
    /// Frames analysed so far.
    pub frame: u64,
    /// The camera's number of the frame the koans were seen in.
    pub analysed_index: u64,
    /// The camera's number of the frame in `picture` (newer than `analysed_index` when vision
    /// is behind the camera).
    pub picture_index: u64,
    pub picture: Option<Arc<Picture>>,
    pub koans: Vec<TrackedKoan>,
    /// Why updates are paused (hands over the table, camera unplugged), when they are.
    pub paused: Option<String>,
    /// Where the frames come from, in words ("camera 0, 1280×720 at 30 fps").
    pub source: String,
    /// Frames analysed per second, over the last second or two.
    pub vision_fps: f32,
    /// Camera frames shown per second, over the last second or two.
    pub picture_fps: f32,
    /// Frames the camera source dropped before the pipeline got them.
    pub dropped: u64,
    /// Frames shown but not analysed: vision took a newer one instead.
    pub not_analysed: u64,
    /// Things the Master should know about the picture (dark frame, nothing found).
    pub warnings: Vec<String>,
}

impl TableFeed {
    pub fn koan(&self, id: u64) -> Option<&TrackedKoan> {
        self.koans.iter().find(|k| k.id == id)
    }

    /// The pipeline's figures, as one value.
    pub fn rates(&self) -> Rates {
        Rates {
            picture_fps: self.picture_fps,
            vision_fps: self.vision_fps,
            dropped: self.dropped,
            not_analysed: self.not_analysed,
        }
    }

    /// Sets the pipeline's figures.
    pub fn set_rates(&mut self, rates: Rates) {
        self.picture_fps = rates.picture_fps;
        self.vision_fps = rates.vision_fps;
        self.dropped = rates.dropped;
        self.not_analysed = rates.not_analysed;
    }

    /// Takes a newer picture: the koans stay; the figures and the source's pause follow it.
    /// An older picture than the one shown (it can arrive after an analysed frame that carried
    /// a newer one) is ignored.
    pub fn show_picture(&mut self, update: PictureUpdate) {
        if self.picture.is_some() && update.index < self.picture_index {
            return;
        }
        self.picture_index = update.index;
        self.picture = Some(update.picture);
        self.set_rates(update.rates);
        if update.paused.is_some() {
            self.paused = update.paused;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn update(index: u64, picture: &Arc<Picture>, not_analysed: u64) -> PictureUpdate {
        PictureUpdate {
            index,
            picture: picture.clone(),
            rates: Rates {
                not_analysed,
                ..Rates::default()
            },
            paused: None,
        }
    }

    #[test]
    fn a_picture_update_keeps_the_koans_and_ignores_older_pictures() {
        let old = Arc::new(Picture::from_rgb(1, 1, &[1, 2, 3]));
        let new = Arc::new(Picture::from_rgb(1, 1, &[4, 5, 6]));
        assert_eq!(new.rgba, vec![4, 5, 6, 255]);
        let mut feed = TableFeed {
            frame: 7,
            koans: Vec::new(),
            paused: Some("hands over the table".into()),
            ..TableFeed::default()
        };
        feed.show_picture(update(12, &new, 3));
        assert!(Arc::ptr_eq(feed.picture.as_ref().unwrap(), &new));
        assert_eq!(
            (feed.frame, feed.picture_index, feed.not_analysed),
            (7, 12, 3)
        );
        assert_eq!(feed.paused.as_deref(), Some("hands over the table"));
        feed.show_picture(update(11, &old, 4));
        assert!(Arc::ptr_eq(feed.picture.as_ref().unwrap(), &new));
        assert_eq!(feed.picture_index, 12);
    }
}
