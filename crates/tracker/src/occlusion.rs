//! Hands and arms over the table, seen from the frame itself.
//!
//! Vision reads a hand's skin or a sleeve as pieces, and pieces under a hand vanish: both would
//! make phantom koans and false katsu. This detector says when to stop believing the scene. It
//! works on the frame averaged down to a coarse grid (about 160 cells wide) and keeps a model of
//! the table as it looks when nothing moves. An arm is a large region that differs from that
//! model and touches the edge of the picture (arms come from outside the frame; pieces do not);
//! a burst of change between consecutive frames (motion energy) counts too, so a fast hand is
//! caught before it has settled into a region.

use std::collections::VecDeque;
use std::time::Duration;

use image::RgbImage;
use ndarray::{Array2, Array3, Zip};

/// Thresholds of the occlusion detector. The defaults suit a 1280×720 webcam over a table.
#[derive(Debug, Clone, PartialEq)]
pub struct OcclusionConfig {
    /// Width of the grid the frame is averaged down to, cells. Coarse enough to ignore noise
    /// and to cost little, fine enough that a small piece is a few cells.
    pub grid_width: u32,
    /// Mean difference over R, G, B (0–255) from the table model that makes a cell foreground.
    pub difference: f32,
    /// A foreground region that touches the frame's edge and covers at least this fraction of
    /// the frame is an arm. A large piece seen from 70 cm covers about 0.2%; a forearm a few %.
    pub min_arm: f32,
    /// Mean R, G, B change of a cell between two frames that counts as motion.
    pub motion_level: f32,
    /// Fraction of the frame in motion that means something big is moving over the table.
    pub min_motion: f32,
    /// Time constant of the table model while the table is clear: new koans join it in about
    /// this time, so they stop being foreground.
    pub learn_time: Duration,
    /// A region that stays perfectly still this long joins the table model even if it touches
    /// the edge (a mug, a box of pieces, a change of light), so the view does not stay paused.
    pub absorb_after: Duration,
}

impl Default for OcclusionConfig {
    fn default() -> Self {
        OcclusionConfig {
            grid_width: 160,
            difference: 28.0,
            min_arm: 0.005,
            motion_level: 20.0,
            min_motion: 0.03,
            learn_time: Duration::from_secs(1),
            absorb_after: Duration::from_secs(5),
        }
    }
}

/// What the detector saw in one frame.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Occlusion {
    /// Something (a hand, an arm) is over the table: the scene of this frame is not to be trusted.
    pub occluded: bool,
    /// The largest foreground region touching the frame's edge, as a fraction of the frame.
    pub arm: f32,
    /// All foreground, as a fraction of the frame.
    pub foreground: f32,
    /// Cells that changed since the previous frame, as a fraction of the frame.
    pub motion: f32,
}

impl Occlusion {
    /// A reading that says the table is clear (for sources with no picture, and tests).
    pub const CLEAR: Occlusion = Occlusion {
        occluded: false,
        arm: 0.0,
        foreground: 0.0,
        motion: 0.0,
    };

    /// A reading that says something is over the table.
    pub const OCCLUDED: Occlusion = Occlusion {
        occluded: true,
        arm: 1.0,
        foreground: 1.0,
        motion: 0.0,
    };
}

/// A frame averaged over the detector's cells (rows × columns × RGB): what it looked like, cheap
/// to keep and to compare.
#[derive(Debug, Clone, PartialEq)]
pub struct CoarseFrame(Array3<f32>);

impl CoarseFrame {
    /// The largest change of any one cell from `other` (the mean over R, G and B of the
    /// difference, 0–255); infinite when the two are of different sizes.
    pub fn largest_change(&self, other: &CoarseFrame) -> f32 {
        if self.0.shape() != other.0.shape() {
            return f32::INFINITY;
        }
        mean_abs_difference(&self.0, &other.0).fold(0.0, |m, d| m.max(*d))
    }
}

/// Reads [`Occlusion`] from frames, learning the table as it goes. One per camera.
#[derive(Debug, Clone)]
pub struct OcclusionDetector {
    config: OcclusionConfig,
    /// The table as it looks when nothing moves: rows × columns × RGB, averaged cells.
    background: Option<Array3<f32>>,
    previous: Option<Array3<f32>>,
    foreground: Array2<bool>,
    last_time: Option<Duration>,
    /// Since when the frame has been free of motion.
    calm_since: Option<Duration>,
    frame_size: [u32; 2],
}

impl OcclusionDetector {
    pub fn new(config: OcclusionConfig) -> OcclusionDetector {
        OcclusionDetector {
            config,
            background: None,
            previous: None,
            foreground: Array2::from_elem((0, 0), false),
            last_time: None,
            calm_since: None,
            frame_size: [0, 0],
        }
    }

    pub fn config(&self) -> &OcclusionConfig {
        &self.config
    }

    /// Starts the table model from a frame known to show the table with nothing over it
    /// (otherwise the first frame observed is taken, hands and all, and a hand in it is only
    /// forgotten after [`OcclusionConfig::absorb_after`]).
    pub fn set_background(&mut self, image: &RgbImage) {
        let grid = self.grid(image);
        self.frame_size = [image.width(), image.height()];
        self.foreground = Array2::from_elem((grid.shape()[0], grid.shape()[1]), false);
        self.previous = Some(grid.clone());
        self.background = Some(grid);
    }

    /// The last frame observed, averaged over the cells.
    pub fn last_frame(&self) -> Option<CoarseFrame> {
        self.previous.clone().map(CoarseFrame)
    }

    /// The foreground cells of the last frame observed (rows × columns), for drawing.
    pub fn foreground_mask(&self) -> &Array2<bool> {
        &self.foreground
    }

    /// Reads one frame taken at `time` (since the source started) and updates the table model.
    pub fn observe(&mut self, image: &RgbImage, time: Duration) -> Occlusion {
        if self.background.is_none() || self.frame_size != [image.width(), image.height()] {
            self.set_background(image);
            self.last_time = Some(time);
            self.calm_since = Some(time);
            return Occlusion::CLEAR;
        }
        let grid = self.grid(image);
        let cells = grid.shape()[0] * grid.shape()[1];
        let config = self.config.clone();
        let background = self.background.as_mut().expect("set above");
        let previous = self.previous.as_ref().expect("set with the background");

        // Motion energy: the share of cells that changed since the previous frame.
        let moving = mean_abs_difference(&grid, previous)
            .iter()
            .filter(|d| **d > config.motion_level)
            .count();
        let motion = moving as f32 / cells as f32;

        let difference = mean_abs_difference(&grid, background);
        self.foreground = difference.mapv(|d| d > config.difference);
        let foreground = self.foreground.iter().filter(|f| **f).count() as f32 / cells as f32;
        let arm = largest_edge_region(&self.foreground) as f32 / cells as f32;
        let occluded = arm >= config.min_arm || motion >= config.min_motion;

        let dt = self
            .last_time
            .map_or(Duration::ZERO, |t| time.saturating_sub(t));
        self.last_time = Some(time);
        let calm = motion < config.min_motion / 4.0;
        if !calm {
            self.calm_since = None;
        } else if self.calm_since.is_none() {
            self.calm_since = Some(time);
        }
        let still_long = self
            .calm_since
            .is_some_and(|since| time.saturating_sub(since) >= config.absorb_after);
        // Learn the table only while it is clear (or has been still a long time): a hand must not
        // become part of the table model.
        if !occluded || still_long {
            let rate = 1.0 - (-dt.as_secs_f32() / config.learn_time.as_secs_f32().max(1e-3)).exp();
            let rate = if still_long && occluded { 1.0 } else { rate };
            Zip::from(&mut *background)
                .and(&grid)
                .for_each(|b, g| *b += rate * (*g - *b));
        }
        self.previous = Some(grid);
        Occlusion {
            occluded,
            arm,
            foreground,
            motion,
        }
    }

    /// The frame averaged over square cells: rows × columns × RGB.
    fn grid(&self, image: &RgbImage) -> Array3<f32> {
        let (width, height) = (image.width() as usize, image.height() as usize);
        let cell = width
            .div_ceil(self.config.grid_width.max(1) as usize)
            .max(1);
        let (columns, rows) = ((width / cell).max(1), (height / cell).max(1));
        // Flat sums, one row of cells at a time: the hot loop has no multi-index arithmetic.
        let mut sums = vec![0f32; rows * columns * 3];
        let raw = image.as_raw();
        for y in 0..(rows * cell).min(height) {
            let cells = &mut sums[(y / cell) * columns * 3..(y / cell + 1) * columns * 3];
            let row = &raw[y * width * 3..(y * width + columns * cell) * 3];
            for (pixels, sum) in row.chunks_exact(cell * 3).zip(cells.chunks_exact_mut(3)) {
                for px in pixels.chunks_exact(3) {
                    sum[0] += f32::from(px[0]);
                    sum[1] += f32::from(px[1]);
                    sum[2] += f32::from(px[2]);
                }
            }
        }
        let n = (cell * cell) as f32;
        sums.iter_mut().for_each(|v| *v /= n);
        Array3::from_shape_vec((rows, columns, 3), sums).expect("rows × columns × 3 sums")
    }
}

impl Default for OcclusionDetector {
    fn default() -> Self {
        OcclusionDetector::new(OcclusionConfig::default())
    }
}

/// Per cell, the mean over channels of |a − b|.
fn mean_abs_difference(a: &Array3<f32>, b: &Array3<f32>) -> Array2<f32> {
    let (rows, columns) = (a.shape()[0], a.shape()[1]);
    Array2::from_shape_fn((rows, columns), |(r, c)| {
        ((a[[r, c, 0]] - b[[r, c, 0]]).abs()
            + (a[[r, c, 1]] - b[[r, c, 1]]).abs()
            + (a[[r, c, 2]] - b[[r, c, 2]]).abs())
            / 3.0
    })
}

/// Cells in the largest 4-connected foreground region that reaches the frame's edge.
fn largest_edge_region(mask: &Array2<bool>) -> usize {
    let (rows, columns) = mask.dim();
    let mut seen = Array2::from_elem((rows, columns), false);
    let mut largest = 0;
    let mut queue = VecDeque::new();
    for start_r in 0..rows {
        for start_c in 0..columns {
            if !mask[[start_r, start_c]] || seen[[start_r, start_c]] {
                continue;
            }
            seen[[start_r, start_c]] = true;
            queue.push_back((start_r, start_c));
            let (mut area, mut edge) = (0, false);
            while let Some((r, c)) = queue.pop_front() {
                area += 1;
                edge |= r == 0 || c == 0 || r + 1 == rows || c + 1 == columns;
                let neighbours = [
                    (r.wrapping_sub(1), c),
                    (r + 1, c),
                    (r, c.wrapping_sub(1)),
                    (r, c + 1),
                ];
                for (nr, nc) in neighbours {
                    if nr < rows && nc < columns && mask[[nr, nc]] && !seen[[nr, nc]] {
                        seen[[nr, nc]] = true;
                        queue.push_back((nr, nc));
                    }
                }
            }
            if edge {
                largest = largest.max(area);
            }
        }
    }
    largest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regions_reaching_the_edge_count() {
        let mut mask = Array2::from_elem((10, 10), false);
        // A blob in the middle (a koan) and a strip from the left edge (an arm).
        for r in 4..7 {
            for c in 4..7 {
                mask[[r, c]] = true;
            }
        }
        for c in 0..3 {
            mask[[1, c]] = true;
        }
        assert_eq!(largest_edge_region(&mask), 3);
    }
}
