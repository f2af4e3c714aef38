//! The calibration board left in view is black and white paper, not black pieces. Where it still
//! lies where the table was calibrated, the calibration says where to look. Moved aside after
//! calibrating (or seen elsewhere because the camera moved), it is found by its corners, which
//! are looked for only where a board's worth of black squares shows: a full search of a frame
//! costs up to most of a second. A live camera's next frames only check that it lies there
//! still ([`LeftBoard::still_lies`]).

use nalgebra::{Matrix3, Point2, Point3, Vector2, Vector3};
use opencv::calib3d;
use opencv::core::{Point, Point2f, Rect, Scalar, Size, Vec3b, Vector};
use opencv::imgproc;
use opencv::prelude::*;

use crate::calibration::Chessboard;
use crate::camera::Camera;
use crate::error::{CvContext, VisionError};
use crate::pose::{convex_hull, row_span};
use crate::region::Region;
use crate::segment::{Segmentation, TABLE};
use crate::stats::median;
use koanscope_scene::Color;

/// The board is the one koanscope prints: 10 x 7 squares of 25 mm around the 9 x 6 inner
/// corners, the square at x, y in [0, 25] of the board frame black.
const BOARD: Chessboard = Chessboard::STANDARD;
/// The paper around the printed squares, mm (A4 holds the 250 x 175 mm board with ~20 mm to spare).
const BOARD_PAPER_MARGIN_MM: f64 = 25.0;
/// How much black, on the table, makes a board worth looking for: its corners are found only
/// when nearly all of it shows, and more than half of its black squares' area is a dozen black
/// pieces or more (a black stash is fifteen).
const BOARD_BLACK_SHOWN: f64 = 0.6;

/// Where a board left in view lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BoardPlace {
    /// Where the table was calibrated.
    Calibrated,
    /// Anywhere else in view.
    Elsewhere,
}

impl BoardPlace {
    /// What the user is told: the board hides pieces, and a board seen elsewhere may mean the
    /// camera moved.
    pub(crate) fn note(self) -> String {
        match self {
            BoardPlace::Calibrated => "the calibration board still lies on the table: pieces on it are not looked for; remove it before play".to_string(),
            BoardPlace::Elsewhere => "a calibration board lies in view, but not where the table was calibrated: pieces on it are not looked for; remove it before play. If it was not moved, the camera was: calibrate the table again (koanscope calibrate table)".to_string(),
        }
    }
}

/// A calibration board found in view: where it lies, its paper's outline (pixels), and the
/// middles of its squares in the frame, to tell cheaply in the frames after whether it still
/// lies there.
#[derive(Debug, Clone)]
pub(crate) struct LeftBoard {
    pub(crate) place: BoardPlace,
    pub(crate) paper: Vec<Point2<f64>>,
    /// Per square, whether it is one of the squares printed black where the board frame's
    /// corners were found in the printed order (else the other way round: squares of one parity
    /// share a colour), and points a little off its middle towards its corners (pixels).
    squares: Vec<(bool, [Point2<f64>; 4])>,
}

/// How far from a square's middle towards its corners it is sampled, as a share of the square:
/// a board moved by more than the rest of the way (5 mm) samples its neighbours.
const SAMPLE_OFF_MIDDLE: f64 = 0.3;
/// Of the samples of a board that still lies where it was found, this share at least must fall
/// on the side of the dark and light squares' middle lightness their square's colour says.
const STILL_AGREE: f64 = 0.9;
/// The least difference between light and dark squares' median lightness (0-255) to be a board.
const STILL_CONTRAST: f64 = 40.0;

impl LeftBoard {
    /// A board lying at `board_to_pixels` (board frame, mm, to the frame's pixels; `None` where
    /// a point cannot be seen).
    fn new(
        place: BoardPlace,
        board_to_pixels: &dyn Fn(Point2<f64>) -> Option<Point2<f64>>,
    ) -> Option<LeftBoard> {
        let paper: Option<Vec<Point2<f64>>> = paper_corners_board_mm()
            .into_iter()
            .map(board_to_pixels)
            .collect();
        let s = BOARD.square_mm;
        let off = SAMPLE_OFF_MIDDLE * s;
        let squares = (-1..BOARD.cols)
            .flat_map(|a| (-1..BOARD.rows).map(move |b| (a, b)))
            .filter_map(|(a, b)| {
                let middle = Point2::new(s * (f64::from(a) + 0.5), s * (f64::from(b) + 0.5));
                let at = |dx: f64, dy: f64| board_to_pixels(middle + Vector2::new(dx, dy));
                let points = [
                    at(-off, -off)?,
                    at(off, -off)?,
                    at(off, off)?,
                    at(-off, off)?,
                ];
                Some(((a + b).rem_euclid(2) == 0, points))
            })
            .collect();
        Some(LeftBoard {
            place,
            paper: convex_hull(paper?),
            squares,
        })
    }

    /// Whether the board still lies where it was found, judged by the frame's lightness at its
    /// squares (no segmentation needed): the dark ones darker than the light ones at nearly
    /// every sample in view, over at least half of the squares.
    pub(crate) fn still_lies(&self, image: &Mat) -> Result<bool, VisionError> {
        let (w, h) = (image.cols(), image.rows());
        let lightness = |p: &Point2<f64>| -> Result<Option<f64>, VisionError> {
            let (x, y) = (p.x.round() as i32, p.y.round() as i32);
            if x < 1 || y < 1 || x + 1 >= w || y + 1 >= h {
                return Ok(None);
            }
            // A 3 x 3 mean, past a camera's noise.
            let mut sum = 0.0;
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let px = image
                        .at_2d::<Vec3b>(y + dy, x + dx)
                        .during("reading the board in view")?;
                    sum += f64::from(px[0]) + f64::from(px[1]) + f64::from(px[2]);
                }
            }
            Ok(Some(sum / 27.0))
        };
        // Samples by the parity of their square.
        let mut by_parity: [Vec<f64>; 2] = Default::default();
        let mut squares_seen = 0;
        for (even, square) in &self.squares {
            let seen: Vec<f64> = square
                .iter()
                .map(&lightness)
                .collect::<Result<Vec<_>, _>>()?
                .into_iter()
                .flatten()
                .collect();
            squares_seen += usize::from(seen.len() == square.len());
            by_parity[usize::from(!*even)].extend(seen);
        }
        if squares_seen * 2 < self.squares.len() || by_parity.iter().any(Vec::is_empty) {
            return Ok(false);
        }
        let [mut even, mut odd] = by_parity;
        let (even_median, odd_median) = (median(&mut even), median(&mut odd));
        if (even_median - odd_median).abs() < STILL_CONTRAST {
            return Ok(false);
        }
        let middle = (even_median + odd_median) / 2.0;
        let dark_even = even_median < middle;
        let agree = even.iter().filter(|&&l| (l < middle) == dark_even).count()
            + odd.iter().filter(|&&l| (l < middle) != dark_even).count();
        Ok(agree as f64 >= STILL_AGREE * (even.len() + odd.len()) as f64)
    }
}

/// The corners of the board's paper in the board frame (where the table was calibrated, the
/// table frame), mm.
pub(crate) fn paper_corners_board_mm() -> [Point2<f64>; 4] {
    let s = BOARD.square_mm;
    let m = BOARD_PAPER_MARGIN_MM;
    let (x0, y0) = (-s - m, -s - m);
    let (x1, y1) = (f64::from(BOARD.cols) * s + m, f64::from(BOARD.rows) * s + m);
    [
        Point2::new(x0, y0),
        Point2::new(x1, y0),
        Point2::new(x1, y1),
        Point2::new(x0, y1),
    ]
}

/// The calibration board, when it still lies where the table was calibrated: its dark and light
/// squares apart in the frame's lightness (see [`LeftBoard::still_lies`]). Lightness, not the
/// colour classes: on a dark table the table's colour estimated around the paper makes some
/// of its squares read black and others not.
pub(crate) fn board_where_calibrated(
    image: &Mat,
    camera: &Camera,
) -> Result<Option<LeftBoard>, VisionError> {
    let Some(board) = LeftBoard::new(BoardPlace::Calibrated, &|c| {
        camera.project_table(&Point3::new(c.x, c.y, 0.0))
    }) else {
        return Ok(None);
    };
    Ok(board.still_lies(image)?.then_some(board))
}

/// A calibration board anywhere in view, found by its inner corners in the box around
/// `regions`' black ones, when they cover a board's worth of the table.
pub(crate) fn board_elsewhere(
    seg: &Segmentation,
    camera: &Camera,
    regions: &[Region],
) -> Result<Option<LeftBoard>, VisionError> {
    let black: Vec<&Region> = regions.iter().filter(|r| r.color == Color::Black).collect();
    let squares_mm2 =
        f64::from((BOARD.cols + 1) * (BOARD.rows + 1) / 2) * BOARD.square_mm * BOARD.square_mm;
    let black_mm2: f64 = black.iter().map(|r| table_area_mm2(camera, r)).sum();
    if black_mm2 < BOARD_BLACK_SHOWN * squares_mm2 {
        return Ok(None);
    }
    // The box around them (each region's box has room around it for the paper's white rim).
    let x0 = black.iter().map(|r| r.x0).min().unwrap_or(0);
    let y0 = black.iter().map(|r| r.y0).min().unwrap_or(0);
    let x1 = black.iter().map(|r| r.x0 + r.w).max().unwrap_or(0);
    let y1 = black.iter().map(|r| r.y0 + r.h).max().unwrap_or(0);
    let gray = seg.lightness_in(Rect::new(
        x0 as i32,
        y0 as i32,
        (x1 - x0) as i32,
        (y1 - y0) as i32,
    ))?;
    let mut corners = Vector::<Point2f>::new();
    let found = calib3d::find_chessboard_corners(
        &gray,
        Size::new(BOARD.cols, BOARD.rows),
        &mut corners,
        calib3d::CALIB_CB_ADAPTIVE_THRESH
            | calib3d::CALIB_CB_NORMALIZE_IMAGE
            | calib3d::CALIB_CB_FAST_CHECK,
    )
    .during("looking for a calibration board left in view")?;
    if !found || corners.len() != BOARD.corner_count() {
        return Ok(None);
    }
    // The board is flat: a homography takes its frame (mm) to the frame's pixels.
    let board_mm: Vector<Point2f> = BOARD
        .corners_board_mm()
        .iter()
        .map(|c| Point2f::new(c.x as f32, c.y as f32))
        .collect();
    let pixels: Vector<Point2f> = corners
        .iter()
        .map(|c| Point2f::new(c.x + x0 as f32, c.y + y0 as f32))
        .collect();
    let h = calib3d::find_homography(&board_mm, &pixels, &mut opencv::core::no_array(), 0, 3.0)
        .during("placing the board left in view")?;
    if h.rows() != 3 || h.cols() != 3 {
        return Ok(None);
    }
    let mut m = Matrix3::zeros();
    for r in 0..3 {
        for c in 0..3 {
            m[(r, c)] = *h
                .at_2d::<f64>(r as i32, c as i32)
                .during("reading a homography")?;
        }
    }
    // The corners order the board either way round; its paper is symmetric about its middle.
    Ok(LeftBoard::new(BoardPlace::Elsewhere, &|c| {
        let p = m * c.to_homogeneous();
        (p.z.abs() > 1e-9).then(|| Point2::new(p.x / p.z, p.y / p.z))
    }))
}

/// The table's area a region's pixels would cover lying on it, mm² (scaled at its middle).
fn table_area_mm2(camera: &Camera, region: &Region) -> f64 {
    let Some(centre) = region.target_centre() else {
        return 0.0;
    };
    let Some(p) = camera.pixel_to_table_plane(&centre, 0.0) else {
        return 0.0;
    };
    let (Some(o), Some(x), Some(y)) = (
        camera.project_table(&p),
        camera.project_table(&(p + Vector3::x())),
        camera.project_table(&(p + Vector3::y())),
    ) else {
        return 0.0;
    };
    let px2_per_mm2 = (x - o).perp(&(y - o)).abs();
    if px2_per_mm2 <= 0.0 {
        return 0.0;
    }
    region.target_px() / px2_per_mm2
}

/// How far outside the paper the table's colour is taken, pixels: clear of the paper's blurred
/// edge, near enough to be the table around it.
const AROUND_PAPER_PX: [f64; 2] = [8.0, 24.0];

/// A copy of the frame with the board's paper (a convex polygon, pixels) painted over in the
/// colour of the table around it: the median of the frame just outside its edges.
pub(crate) fn painted_over(image: &Mat, paper: &[Point2<f64>]) -> Result<Mat, VisionError> {
    let n = paper.len();
    let centre = paper.iter().fold(Vector2::zeros(), |sum, p| sum + p.coords) / n.max(1) as f64;
    let (w, h) = (image.cols(), image.rows());
    let mut around: [Vec<f64>; 3] = Default::default();
    for k in 0..n {
        let (a, b) = (paper[k], paper[(k + 1) % n]);
        let along = b - a;
        if along.norm() < 1.0 {
            continue;
        }
        let mut out = Vector2::new(along.y, -along.x).normalize();
        if out.dot(&(a.coords - centre)) < 0.0 {
            out = -out;
        }
        for step in 0..=40 {
            for away in AROUND_PAPER_PX {
                let p = a + along * (f64::from(step) / 40.0) + out * away;
                let (x, y) = (p.x.round() as i32, p.y.round() as i32);
                if x < 0 || y < 0 || x >= w || y >= h {
                    continue;
                }
                let px = image
                    .at_2d::<Vec3b>(y, x)
                    .during("reading the table around the board")?;
                for (c, values) in around.iter_mut().enumerate() {
                    values.push(f64::from(px[c]));
                }
            }
        }
    }
    let mut painted = image.try_clone().during("copying the frame")?;
    // A paper filling the view has no table around it to take.
    if around[0].is_empty() {
        return Ok(painted);
    }
    let colour = Scalar::new(
        median(&mut around[0]),
        median(&mut around[1]),
        median(&mut around[2]),
        0.0,
    );
    let outline: Vector<Point> = paper
        .iter()
        .map(|p| Point::new(p.x.round() as i32, p.y.round() as i32))
        .collect();
    imgproc::fill_convex_poly(&mut painted, &outline, colour, imgproc::LINE_8, 0)
        .during("painting over the board")?;
    Ok(painted)
}

/// Classes every pixel inside a convex polygon as table.
pub(crate) fn clear_polygon(seg: &mut Segmentation, polygon: &[Point2<f64>]) {
    for y in 0..seg.height {
        let Some((lo, hi)) = row_span(polygon, y as f64) else {
            continue;
        };
        let xa = lo.ceil().max(0.0) as usize;
        let xb = (hi.floor() + 1.0).clamp(0.0, seg.width as f64) as usize;
        for x in xa..xb {
            seg.classes[y * seg.width + x] = TABLE;
        }
    }
}
