//! Which frames of a camera feed make good calibration views. Someone holds the board in front
//! of the camera and moves it about; a frame is kept when the board has held still for a moment
//! (no motion blur), is in focus, and stands apart from every view kept so far, by where it is
//! in the image, how big it looks and how skewed: the four measures and the threshold ROS's
//! `camera_calibration` uses, so that a board waved about gives a varied set, not forty copies
//! of one view.

use nalgebra::Point2;

use crate::calibration::{BoardView, Chessboard, SHARP_EDGE_RISE_PX};

/// Where a board is in the image and how it looks, each in 0..1 (as ROS's
/// `camera_calibration` measures it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoardSpread {
    /// The corners' centre across the image, 0 at the left edge, 1 at the right (allowing for
    /// the board's size, so a board touching either edge reads 0 or 1).
    pub x: f64,
    /// Likewise down the image.
    pub y: f64,
    /// Square root of the share of the image the board's outer corners enclose.
    pub size: f64,
    /// How far the outer corners' angle departs from a right angle (twice, in radians, at most
    /// 1): a board tilted toward or away from the camera is skewed.
    pub skew: f64,
}

impl BoardSpread {
    /// The spread of one view's corners (in OpenCV's row-major order, `board.cols` a row).
    pub fn of(view: &BoardView, board: &Chessboard) -> BoardSpread {
        let c = &view.corners_px;
        let cols = board.cols.max(1) as usize;
        let up_left = c[0].coords;
        let up_right = c[cols - 1].coords;
        let down_right = c[c.len() - 1].coords;
        let down_left = c[c.len() - cols].coords;
        // The quadrilateral's area from its diagonals.
        let (d1, d2) = (down_left - up_right, down_right - up_left);
        let area = (d1.x * d2.y - d1.y * d2.x).abs() / 2.0;
        let [w, h] = view.image_size.map(f64::from);
        let n = c.len() as f64;
        let centre = c.iter().fold(Point2::origin(), |s, p| s + p.coords / n);
        let border = area.sqrt();
        let across = |mean: f64, extent: f64| {
            if extent > border {
                ((mean - border / 2.0) / (extent - border)).clamp(0.0, 1.0)
            } else {
                0.5
            }
        };
        let (a, b) = (up_left - up_right, down_right - up_right);
        let corner = (a.dot(&b) / (a.norm() * b.norm())).clamp(-1.0, 1.0).acos();
        BoardSpread {
            x: across(centre.x, w),
            y: across(centre.y, h),
            size: (area / (w * h)).sqrt(),
            skew: (2.0 * (std::f64::consts::FRAC_PI_2 - corner).abs()).min(1.0),
        }
    }

    /// The sum of the four differences.
    pub fn distance(&self, other: &BoardSpread) -> f64 {
        (self.x - other.x).abs()
            + (self.y - other.y).abs()
            + (self.size - other.size).abs()
            + (self.skew - other.skew).abs()
    }
}

/// When a frame's board makes a view.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PickParams {
    /// The board counts as still when its corners moved at most this much on average since the
    /// frame looked at before, pixels.
    pub still_px: f64,
    /// A view is new when its [`BoardSpread::distance`] to every kept view is above this (ROS
    /// uses 0.2).
    pub min_distance: f64,
    /// A still board whose edges rise wider than this is out of focus, pixels (see
    /// [`BoardView::edge_rise_px`]).
    pub max_edge_rise_px: f64,
}

impl Default for PickParams {
    fn default() -> Self {
        PickParams {
            still_px: 1.0,
            min_distance: 0.2,
            max_edge_rise_px: SHARP_EDGE_RISE_PX,
        }
    }
}

/// What became of one frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Look {
    NoBoard,
    /// Found, but it moved since the frame before (or there was none before it).
    Moving,
    /// Still, but out of focus (how wide its edges rise, pixels).
    Blurred {
        edge_rise_px: f64,
    },
    /// Still, but too like a kept view (the nearest's distance).
    LikeKept {
        distance: f64,
    },
    Kept,
}

/// How much of each measure the kept views span, and which to widen first.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Coverage {
    pub x: [f64; 2],
    pub y: [f64; 2],
    pub size: [f64; 2],
    pub skew: [f64; 2],
}

impl Coverage {
    /// The spans ROS's `camera_calibration` counts as enough: x and y 0.7, size 0.4, skew 0.5.
    const ENOUGH: [f64; 4] = [0.7, 0.7, 0.4, 0.5];

    /// Each measure's span as a share of enough, at most 1.
    pub fn progress(&self) -> [f64; 4] {
        let spans = [self.x, self.y, self.size, self.skew].map(|[lo, hi]| hi - lo);
        std::array::from_fn(|i| (spans[i] / Self::ENOUGH[i]).min(1.0))
    }

    /// What to do with the board next, for the measure least covered; None when all are.
    pub fn advice(&self) -> Option<&'static str> {
        let progress = self.progress();
        let (least, share) = progress
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(b.1))?;
        (*share < 1.0).then_some(match least {
            0 => "move the board toward the left and right edges",
            1 => "move the board toward the top and bottom edges",
            2 => "bring the board nearer the camera and take it farther away",
            _ => "tilt the board more, toward and away from the camera",
        })
    }
}

/// Picks views from the frames of a feed, in order.
#[derive(Debug)]
pub struct ViewPicker {
    board: Chessboard,
    params: PickParams,
    before: Option<Vec<Point2<f64>>>,
    kept: Vec<(BoardView, BoardSpread)>,
}

impl ViewPicker {
    pub fn new(board: Chessboard, params: PickParams) -> ViewPicker {
        ViewPicker {
            board,
            params,
            before: None,
            kept: Vec::new(),
        }
    }

    /// Looks at the next frame's board (None where it showed none).
    pub fn look(&mut self, view: Option<BoardView>) -> Look {
        let Some(view) = view else {
            self.before = None;
            return Look::NoBoard;
        };
        let moved = self.before.as_ref().map(|before| {
            let n = before.len().max(1) as f64;
            before
                .iter()
                .zip(&view.corners_px)
                .map(|(a, b)| (a - b).norm())
                .sum::<f64>()
                / n
        });
        self.before = Some(view.corners_px.clone());
        if moved.is_none_or(|m| m > self.params.still_px) {
            return Look::Moving;
        }
        if view.edge_rise_px > self.params.max_edge_rise_px {
            return Look::Blurred {
                edge_rise_px: view.edge_rise_px,
            };
        }
        let spread = BoardSpread::of(&view, &self.board);
        let nearest = self
            .kept
            .iter()
            .map(|(_, kept)| spread.distance(kept))
            .fold(f64::INFINITY, f64::min);
        if nearest <= self.params.min_distance {
            return Look::LikeKept { distance: nearest };
        }
        self.kept.push((view, spread));
        Look::Kept
    }

    /// The views kept so far, with their spreads.
    pub fn kept(&self) -> &[(BoardView, BoardSpread)] {
        &self.kept
    }

    pub fn into_views(self) -> Vec<BoardView> {
        self.kept.into_iter().map(|(view, _)| view).collect()
    }

    /// The span of the kept views; None before the first.
    pub fn coverage(&self) -> Option<Coverage> {
        let first = self.kept.first()?.1;
        let span = |get: fn(&BoardSpread) -> f64| {
            self.kept.iter().fold([get(&first); 2], |[lo, hi], (_, s)| {
                [lo.min(get(s)), hi.max(get(s))]
            })
        };
        Some(Coverage {
            x: span(|s| s.x),
            y: span(|s| s.y),
            size: span(|s| s.size),
            skew: span(|s| s.skew),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    const BOARD: Chessboard = Chessboard::STANDARD;

    /// The board's corners as a camera looking straight down sees it: squares of `square_px`,
    /// the first corner at `origin`, the far side pulled in by `taper` (a tilt).
    fn view(origin: [f64; 2], square_px: f64, taper: f64) -> BoardView {
        let corners_px = (0..BOARD.rows)
            .flat_map(|j| {
                (0..BOARD.cols).map(move |i| {
                    let row_scale = 1.0 - taper * f64::from(j) / f64::from(BOARD.rows - 1);
                    Point2::new(
                        origin[0] + f64::from(i) * square_px * row_scale,
                        origin[1] + f64::from(j) * square_px,
                    )
                })
            })
            .collect();
        BoardView {
            path: PathBuf::from("frame"),
            image_size: [1280, 720],
            corners_px,
            edge_rise_px: 2.0,
        }
    }

    #[test]
    fn a_square_board_is_not_skewed_and_a_tapered_one_is() {
        let flat = BoardSpread::of(&view([100.0, 100.0], 40.0, 0.0), &BOARD);
        assert!(flat.skew < 1e-9, "{flat:?}");
        let tilted = BoardSpread::of(&view([100.0, 100.0], 40.0, 0.3), &BOARD);
        assert!(tilted.skew > 0.2, "{tilted:?}");
        // 8 x 5 squares of 40 px enclose 64 000 px² of 921 600.
        assert!((flat.size - (64_000.0_f64 / 921_600.0).sqrt()).abs() < 1e-9);
    }

    #[test]
    fn a_board_at_the_left_edge_reads_zero_and_at_the_right_one() {
        let left = BoardSpread::of(&view([0.0, 300.0], 40.0, 0.0), &BOARD);
        let right = BoardSpread::of(&view([1280.0 - 320.0, 300.0], 40.0, 0.0), &BOARD);
        assert!(left.x < 0.05 && right.x > 0.95, "{left:?} {right:?}");
    }

    #[test]
    fn a_view_is_kept_once_still_and_only_when_new() {
        let mut picker = ViewPicker::new(BOARD, PickParams::default());
        let here = view([100.0, 100.0], 40.0, 0.0);
        assert_eq!(
            picker.look(Some(here.clone())),
            Look::Moving,
            "nothing before it"
        );
        assert_eq!(picker.look(Some(here.clone())), Look::Kept);
        assert!(matches!(
            picker.look(Some(here.clone())),
            Look::LikeKept { .. }
        ));
        // Moved 3 px: moving, then still but still too like the first.
        let nudged = view([103.0, 100.0], 40.0, 0.0);
        assert_eq!(picker.look(Some(nudged.clone())), Look::Moving);
        assert!(matches!(picker.look(Some(nudged)), Look::LikeKept { .. }));
        // Across the image: new.
        let there = view([800.0, 400.0], 40.0, 0.0);
        picker.look(Some(there.clone()));
        assert_eq!(picker.look(Some(there)), Look::Kept);
        // A frame without the board breaks the stillness.
        assert_eq!(picker.look(None), Look::NoBoard);
        let tilted = view([400.0, 200.0], 40.0, 0.4);
        assert_eq!(picker.look(Some(tilted.clone())), Look::Moving);
        assert_eq!(picker.look(Some(tilted)), Look::Kept);
        assert_eq!(picker.kept().len(), 3);
    }

    #[test]
    fn a_board_held_still_but_out_of_focus_is_not_kept() {
        let mut picker = ViewPicker::new(BOARD, PickParams::default());
        let blurred = BoardView {
            edge_rise_px: 5.4,
            ..view([100.0, 100.0], 40.0, 0.0)
        };
        assert_eq!(picker.look(Some(blurred.clone())), Look::Moving);
        assert_eq!(
            picker.look(Some(blurred)),
            Look::Blurred { edge_rise_px: 5.4 }
        );
        // Brought into focus where it was: kept.
        let sharp = view([100.0, 100.0], 40.0, 0.0);
        assert_eq!(picker.look(Some(sharp)), Look::Kept);
        assert_eq!(picker.kept().len(), 1);
    }

    #[test]
    fn advice_asks_for_what_the_views_lack() {
        let mut picker = ViewPicker::new(BOARD, PickParams::default());
        for origin in [[0.0, 0.0], [960.0, 0.0], [0.0, 520.0], [960.0, 520.0]] {
            let v = view(origin, 40.0, 0.0);
            picker.look(Some(v.clone()));
            picker.look(Some(v));
        }
        let coverage = picker.coverage().expect("views kept");
        assert_eq!(&coverage.progress()[..2], &[1.0, 1.0]);
        // Neither size nor skew varied yet: the first of them is asked for.
        assert_eq!(
            coverage.advice(),
            Some("bring the board nearer the camera and take it farther away")
        );
        for (square_px, taper) in [(110.0, 0.0), (40.0, 0.45)] {
            let v = view([300.0, 150.0], square_px, taper);
            picker.look(Some(v.clone()));
            picker.look(Some(v));
        }
        let coverage = picker.coverage().expect("views kept");
        assert_eq!(coverage.progress(), [1.0; 4], "{coverage:?}");
        assert_eq!(coverage.advice(), None);
    }
}
