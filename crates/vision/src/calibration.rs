//! Camera intrinsics from chessboard views, the table frame from the board lying flat, and the
//! calibration file (OpenCV FileStorage YAML, so other tools read it too).

use std::path::{Path, PathBuf};

use nalgebra::{Isometry3, Matrix3, Point2, Point3, Vector3};
use opencv::calib3d;
use opencv::core::{self, FileStorage, Mat, Point2f, Point3f, Size, TermCriteria, Vector};
use opencv::imgproc;
use opencv::prelude::*;

use crate::camera::Camera;
use crate::cv::{
    column_mat, isometry_from_rvec_tvec, mat_from_rows, mat_values, matrix3_to_mat,
    rvec_tvec_from_isometry,
};
use crate::error::{CvContext, VisionError};
use crate::image::size_of;

/// A printed chessboard target, counted by inner corners.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Chessboard {
    /// Inner corners along a row (the table's x axis).
    pub cols: i32,
    /// Inner corners along a column (the table's y axis).
    pub rows: i32,
    pub square_mm: f64,
}

impl Chessboard {
    /// The board koanscope prints and every doc refers to: 9x6 inner corners, 25 mm squares.
    pub const STANDARD: Chessboard = Chessboard {
        cols: 9,
        rows: 6,
        square_mm: 25.0,
    };

    /// Corner k = j * cols + i at (square i, square j, 0) in the board frame, mm.
    pub fn corners_board_mm(&self) -> Vec<Point3<f64>> {
        (0..self.rows)
            .flat_map(|j| {
                (0..self.cols).map(move |i| {
                    Point3::new(
                        f64::from(i) * self.square_mm,
                        f64::from(j) * self.square_mm,
                        0.0,
                    )
                })
            })
            .collect()
    }

    pub(crate) fn corner_count(&self) -> usize {
        (self.cols * self.rows).max(0) as usize
    }
}

/// Chessboard corners found in one image, in OpenCV's row-major order (possibly reversed).
#[derive(Debug, Clone)]
pub struct BoardView {
    pub path: PathBuf,
    pub image_size: [u32; 2],
    pub corners_px: Vec<Point2<f64>>,
    /// How wide the board's edges are from black to white, pixels (OpenCV's
    /// `estimateChessboardSharpness`: the mean 10–90 % rise across its squares' edges). A board
    /// in focus and held still shows about 2; defocus and motion blur widen it.
    pub edge_rise_px: f64,
}

/// Edges wider than this (pixels, see [`BoardView::edge_rise_px`]) make a blurred view, whose
/// corners are found less surely. OpenCV's documentation puts a sharp board below about 3, and
/// a webcam in focus comes near that (the project's rendered boards read 1.8–2.2, and 3.2 blurred
/// by a Gaussian of 1 px), so only a clearly blurred board is refused: 4 is the rise of those
/// renders blurred by 1.5 px.
pub const SHARP_EDGE_RISE_PX: f64 = 4.0;

/// Finds the board's inner corners to sub-pixel accuracy, or says it is not there.
pub fn find_board(image: &Mat, path: &Path, board: &Chessboard) -> Result<BoardView, VisionError> {
    find_board_with(image, path, board, 0)
}

/// [`find_board`] for the frames of a camera feed, most of which show no board or a board on
/// its way: OpenCV's fast check gives up on those early (a frame without a board otherwise
/// costs a full search).
pub fn find_board_in_feed(
    image: &Mat,
    path: &Path,
    board: &Chessboard,
) -> Result<BoardView, VisionError> {
    find_board_with(image, path, board, calib3d::CALIB_CB_FAST_CHECK)
}

fn find_board_with(
    image: &Mat,
    path: &Path,
    board: &Chessboard,
    extra_flags: i32,
) -> Result<BoardView, VisionError> {
    let mut gray = Mat::default();
    imgproc::cvt_color_def(image, &mut gray, imgproc::COLOR_BGR2GRAY)
        .during("converting to grey")?;
    let pattern = Size::new(board.cols, board.rows);
    let mut corners = Vector::<Point2f>::new();
    let flags = calib3d::CALIB_CB_ADAPTIVE_THRESH | calib3d::CALIB_CB_NORMALIZE_IMAGE | extra_flags;
    let found = calib3d::find_chessboard_corners(&gray, pattern, &mut corners, flags)
        .during("looking for the chessboard")?;
    if !found || corners.len() != board.corner_count() {
        return Err(VisionError::BoardNotFound {
            path: path.to_path_buf(),
            cols: board.cols,
            rows: board.rows,
        });
    }
    let criteria = TermCriteria::new(
        core::TermCriteria_Type::COUNT as i32 + core::TermCriteria_Type::EPS as i32,
        40,
        1e-3,
    )
    .during("setting up corner refinement")?;
    imgproc::corner_sub_pix(
        &gray,
        &mut corners,
        Size::new(11, 11),
        Size::new(-1, -1),
        criteria,
    )
    .during("refining chessboard corners")?;
    let sharpness = calib3d::estimate_chessboard_sharpness_def(&gray, pattern, &corners)
        .during("measuring how sharp the chessboard is")?;
    Ok(BoardView {
        path: path.to_path_buf(),
        image_size: size_of(image),
        corners_px: corners
            .iter()
            .map(|c| Point2::new(f64::from(c.x), f64::from(c.y)))
            .collect(),
        edge_rise_px: sharpness[0],
    })
}

/// Lens and sensor: the pinhole matrix and OpenCV's (k1, k2, p1, p2, k3) distortion.
#[derive(Debug, Clone, PartialEq)]
pub struct Intrinsics {
    pub camera_matrix: Matrix3<f64>,
    pub distortion: [f64; 5],
    pub image_size: [u32; 2],
}

/// Which lens parameters a calibration estimates. Few views cannot pin down many parameters, so
/// the model is chosen from the number of views unless the user picks one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LensModel {
    /// No distortion, principal point at the image centre, square pixels: focal length only.
    Pinhole,
    /// Radial k1, k2; principal point free.
    Radial,
    /// k1, k2, p1, p2, k3; principal point free.
    Full,
}

impl LensModel {
    /// The richest model the views can support.
    pub fn for_views(views: usize) -> LensModel {
        match views {
            0..=7 => LensModel::Pinhole,
            8..=19 => LensModel::Radial,
            _ => LensModel::Full,
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            LensModel::Pinhole => {
                "pinhole: focal length only (no distortion, principal point at the image centre, square pixels)"
            }
            LensModel::Radial => {
                "radial: focal lengths, principal point, k1 and k2 (no tangential terms, k3 = 0)"
            }
            LensModel::Full => "full: focal lengths, principal point, k1, k2, p1, p2, k3",
        }
    }

    fn flags(self) -> i32 {
        match self {
            LensModel::Pinhole => {
                calib3d::CALIB_USE_INTRINSIC_GUESS
                    | calib3d::CALIB_FIX_PRINCIPAL_POINT
                    | calib3d::CALIB_FIX_ASPECT_RATIO
                    | calib3d::CALIB_ZERO_TANGENT_DIST
                    | calib3d::CALIB_FIX_K1
                    | calib3d::CALIB_FIX_K2
                    | calib3d::CALIB_FIX_K3
            }
            LensModel::Radial => calib3d::CALIB_ZERO_TANGENT_DIST | calib3d::CALIB_FIX_K3,
            LensModel::Full => 0,
        }
    }
}

/// Limits a calibration must meet before it is written.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IntrinsicsQuality {
    pub min_views: usize,
    /// Largest acceptable RMS reprojection error, pixels.
    pub max_rms_px: f64,
    /// Largest acceptable standard deviation of fx relative to fx.
    pub max_focal_rel_std: f64,
    /// The most tilted view must lean at least this much from facing the camera, degrees:
    /// without tilt the focal length cannot be told from the distance.
    pub min_max_tilt_deg: f64,
}

impl Default for IntrinsicsQuality {
    fn default() -> Self {
        IntrinsicsQuality {
            min_views: 3,
            max_rms_px: 1.0,
            max_focal_rel_std: 0.01,
            min_max_tilt_deg: 15.0,
        }
    }
}

/// The result of an intrinsics calibration and the figures that judge it.
#[derive(Debug, Clone)]
pub struct IntrinsicsReport {
    pub intrinsics: Intrinsics,
    pub model: LensModel,
    pub rms_px: f64,
    /// Per view: image and its RMS reprojection error, pixels.
    pub per_view_rms_px: Vec<(PathBuf, f64)>,
    /// Per view: angle between the board normal and the camera's optical axis, degrees.
    pub tilt_deg: Vec<f64>,
    /// Standard deviation of fx, pixels.
    pub focal_std_px: f64,
}

/// Estimates the camera intrinsics from chessboard views and refuses poor results.
pub fn calibrate_intrinsics(
    views: &[BoardView],
    board: &Chessboard,
    model: LensModel,
    quality: &IntrinsicsQuality,
) -> Result<IntrinsicsReport, VisionError> {
    if views.len() < quality.min_views {
        return Err(VisionError::PoorCalibration {
            reason: format!(
                "{} chessboard view(s) found, at least {} needed: take more pictures of the board at different tilts and places in the image",
                views.len(),
                quality.min_views
            ),
        });
    }
    let image_size = views[0].image_size;
    if let Some(other) = views.iter().find(|v| v.image_size != image_size) {
        return Err(VisionError::PoorCalibration {
            reason: format!(
                "{} is {}x{} but {} is {}x{}: calibrate from frames of one resolution",
                other.path.display(),
                other.image_size[0],
                other.image_size[1],
                views[0].path.display(),
                image_size[0],
                image_size[1]
            ),
        });
    }
    let object: Vector<Point3f> = board
        .corners_board_mm()
        .iter()
        .map(|p| Point3f::new(p.x as f32, p.y as f32, p.z as f32))
        .collect();
    let mut object_points = Vector::<Vector<Point3f>>::new();
    let mut image_points = Vector::<Vector<Point2f>>::new();
    for view in views {
        object_points.push(object.clone());
        image_points.push(
            view.corners_px
                .iter()
                .map(|p| Point2f::new(p.x as f32, p.y as f32))
                .collect(),
        );
    }
    let [w, h] = image_size;
    // A starting guess near a typical webcam's field of view; only the pinhole model uses it.
    let (cx, cy) = ((f64::from(w) - 1.0) / 2.0, (f64::from(h) - 1.0) / 2.0);
    let guess = Matrix3::new(f64::from(w), 0.0, cx, 0.0, f64::from(w), cy, 0.0, 0.0, 1.0);
    let mut camera_matrix = matrix3_to_mat(&guess)?;
    let mut dist = mat_from_rows(&[vec![0.0; 5]])?;
    let mut rvecs = Vector::<Mat>::new();
    let mut tvecs = Vector::<Mat>::new();
    let mut std_intrinsics = Mat::default();
    let mut std_extrinsics = Mat::default();
    let mut per_view = Mat::default();
    let criteria = TermCriteria::new(
        core::TermCriteria_Type::COUNT as i32 + core::TermCriteria_Type::EPS as i32,
        100,
        f64::EPSILON,
    )
    .during("setting up calibration")?;
    let rms = calib3d::calibrate_camera_extended(
        &object_points,
        &image_points,
        Size::new(w as i32, h as i32),
        &mut camera_matrix,
        &mut dist,
        &mut rvecs,
        &mut tvecs,
        &mut std_intrinsics,
        &mut std_extrinsics,
        &mut per_view,
        model.flags(),
        criteria,
    )
    .during("calibrating the camera")?;

    let k = mat_values(&camera_matrix)?;
    let camera_matrix = Matrix3::from_row_slice(&k);
    let d = mat_values(&dist)?;
    let mut distortion = [0.0; 5];
    for (slot, value) in distortion.iter_mut().zip(d.iter()) {
        *slot = *value;
    }
    let per_view = mat_values(&per_view)?;
    let std = mat_values(&std_intrinsics)?;
    let focal_std_px = std.first().copied().unwrap_or(f64::NAN);
    let mut tilt_deg = Vec::with_capacity(views.len());
    for rvec in rvecs.iter() {
        let r = mat_values(&rvec)?;
        let camera_from_board = isometry_from_rvec_tvec([r[0], r[1], r[2]], [0.0; 3]);
        let normal_camera = camera_from_board.rotation * Vector3::z();
        // The board faces the camera when its normal is parallel to the optical axis (either sign).
        tilt_deg.push(normal_camera.z.abs().clamp(0.0, 1.0).acos().to_degrees());
    }
    let report = IntrinsicsReport {
        intrinsics: Intrinsics {
            camera_matrix,
            distortion,
            image_size,
        },
        model,
        rms_px: rms,
        per_view_rms_px: views
            .iter()
            .zip(per_view.iter())
            .map(|(v, e)| (v.path.clone(), *e))
            .collect(),
        tilt_deg,
        focal_std_px,
    };
    judge(&report, quality)?;
    Ok(report)
}

fn judge(report: &IntrinsicsReport, quality: &IntrinsicsQuality) -> Result<(), VisionError> {
    let fx = report.intrinsics.camera_matrix[(0, 0)];
    if !report.rms_px.is_finite() || report.rms_px > quality.max_rms_px {
        let worst = report
            .per_view_rms_px
            .iter()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(p, e)| format!(" (worst view: {} at {e:.2} px)", p.display()))
            .unwrap_or_default();
        return Err(VisionError::PoorCalibration {
            reason: format!(
                "RMS reprojection error {:.2} px exceeds {:.2} px{worst}: drop blurred views, keep the board flat and fully visible, and take more views",
                report.rms_px, quality.max_rms_px
            ),
        });
    }
    let max_tilt = report.tilt_deg.iter().copied().fold(0.0, f64::max);
    if max_tilt < quality.min_max_tilt_deg {
        return Err(VisionError::PoorCalibration {
            reason: format!(
                "the most tilted view leans only {max_tilt:.0}° (at least {:.0}° needed): add views with the board tilted 20-45° in different directions",
                quality.min_max_tilt_deg
            ),
        });
    }
    let focal_certain = fx > 0.0 && report.focal_std_px / fx <= quality.max_focal_rel_std;
    if !focal_certain {
        return Err(VisionError::PoorCalibration {
            reason: format!(
                "the focal length is uncertain (fx = {fx:.1} ± {:.1} px): take more views with more tilt, covering the corners of the image",
                report.focal_std_px
            ),
        });
    }
    Ok(())
}

/// Where the table frame sits in the camera, and how well the board fitted.
#[derive(Debug, Clone)]
pub struct TableReport {
    pub camera_from_table: Isometry3<f64>,
    /// RMS distance between found and reprojected corners, pixels.
    pub rms_px: f64,
    /// Distance from the camera centre to the table plane, mm.
    pub camera_height_mm: f64,
    /// How wide the board's edges rise, pixels (see [`BoardView::edge_rise_px`]).
    pub edge_rise_px: f64,
    /// The board's white squares as the camera saw them, 8-bit Lab with a* and b* centred on 0:
    /// the colour of the light the table was calibrated under (see [`TableReport::light_cast`]).
    pub board_white_lab: [f64; 3],
}

/// A board white this far from grey (8-bit Lab chroma) is a colour cast the shipped hue centres
/// were not made for. The dev dataset's lights read 0–3.2 once the renderer's white balance is
/// applied; copies of it under a warm (b* +18 to +21) or cool (−12 to −15) cast lose 1–3
/// points of recall or precision and about 1.5 of marks.
pub const MAX_BOARD_WHITE_CHROMA: f64 = 8.0;

impl TableReport {
    /// The light's colour cast, when the board's white shows one (see [`light_cast`]).
    pub fn light_cast(&self) -> Option<(f64, &'static str)> {
        light_cast(self.board_white_lab)
    }
}

/// The colour cast a board white (8-bit Lab, a* and b* centred on 0) shows, when it lies more
/// than [`MAX_BOARD_WHITE_CHROMA`] from grey: its chroma and a word for its hue.
pub fn light_cast([_, a, b]: [f64; 3]) -> Option<(f64, &'static str)> {
    let chroma = a.hypot(b);
    if chroma.is_nan() || chroma <= MAX_BOARD_WHITE_CHROMA {
        return None;
    }
    // Quarters of the a*-b* plane centred on its axes, named as a photographer names a cast.
    let quarter = (b.atan2(a).to_degrees() + 45.0).rem_euclid(360.0) / 90.0;
    let word = ["magenta", "warm (yellow)", "green", "cool (blue)"][(quarter as usize).min(3)];
    Some((chroma, word))
}

/// What to tell a player whose table was calibrated under a coloured light, if it was.
pub fn light_cast_advice(board_white_lab: [f64; 3]) -> Option<String> {
    let (chroma, cast) = light_cast(board_white_lab)?;
    Some(format!(
        "the table's light is {cast}: the board's white squares read {chroma:.0} from grey (8-bit \
         Lab chroma; the colour model allows for {MAX_BOARD_WHITE_CHROMA:.0}), so piece colours \
         read less surely; set the camera's white balance for this light and calibrate the \
         table again"
    ))
}

/// Fixes the table frame from the board lying flat: origin at the first inner corner, x along
/// the row of `cols` corners, y along the `rows`, z up, and the square at x, y in [0, 1] squares
/// black (the dataset's and printed target's convention), which settles OpenCV's 180° ambiguity.
pub fn calibrate_table(
    image: &Mat,
    path: &Path,
    intrinsics: &Intrinsics,
    board: &Chessboard,
) -> Result<TableReport, VisionError> {
    check_resolution(image, path, intrinsics)?;
    let view = find_board(image, path, board)?;
    let cols = board.cols as usize;
    let rows = board.rows as usize;
    let at = |corners: &[Point2<f64>], i: usize, j: usize| corners[j * cols + i];
    let relabel = |flip_i: bool, flip_j: bool| -> Vec<Point2<f64>> {
        let mut out = Vec::with_capacity(cols * rows);
        for j in 0..rows {
            for i in 0..cols {
                let si = if flip_i { cols - 1 - i } else { i };
                let sj = if flip_j { rows - 1 - j } else { j };
                out.push(at(&view.corners_px, si, sj));
            }
        }
        out
    };
    let mut gray = Mat::default();
    imgproc::cvt_color_def(image, &mut gray, imgproc::COLOR_BGR2GRAY)
        .during("converting to grey")?;
    let object = board.corners_board_mm();
    let mut best: Option<(f64, TableReport)> = None;
    for (flip_i, flip_j) in [(false, false), (true, true), (true, false), (false, true)] {
        let corners = relabel(flip_i, flip_j);
        let (camera_from_table, rms_px) = solve_pose(&object, &corners, intrinsics)?;
        let table_from_camera = camera_from_table.inverse();
        let camera_centre_table = table_from_camera.translation.vector;
        // The table's z axis must point up, towards the camera.
        if camera_centre_table.z <= 0.0 {
            continue;
        }
        let camera = Camera::new(intrinsics.clone(), camera_from_table);
        let s = board.square_mm;
        let origin_square = mean_gray_around(&gray, &camera, Point3::new(s / 2.0, s / 2.0, 0.0))?;
        let next_square = mean_gray_around(&gray, &camera, Point3::new(1.5 * s, s / 2.0, 0.0))?;
        // Darker origin square wins; the score is how much darker it is than its neighbour.
        let score = next_square - origin_square;
        let report = TableReport {
            camera_from_table,
            rms_px,
            camera_height_mm: camera_centre_table.z,
            edge_rise_px: view.edge_rise_px,
            board_white_lab: [f64::NAN; 3],
        };
        if best.as_ref().is_none_or(|(b, _)| score > *b) {
            best = Some((score, report));
        }
    }
    if let Some((_, report)) = &mut best {
        let camera = Camera::new(intrinsics.clone(), report.camera_from_table);
        report.board_white_lab = board_white_lab(image, &camera, board)?;
    }
    best.map(|(_, r)| r)
        .ok_or_else(|| VisionError::BoardNotFound {
            path: path.to_path_buf(),
            cols: board.cols,
            rows: board.rows,
        })
}

/// Pose of a planar target from its corners (iterative PnP, refined), and the RMS residual.
fn solve_pose(
    object: &[Point3<f64>],
    corners: &[Point2<f64>],
    intrinsics: &Intrinsics,
) -> Result<(Isometry3<f64>, f64), VisionError> {
    let object_points: Vector<Point3f> = object
        .iter()
        .map(|p| Point3f::new(p.x as f32, p.y as f32, p.z as f32))
        .collect();
    let image_points: Vector<Point2f> = corners
        .iter()
        .map(|p| Point2f::new(p.x as f32, p.y as f32))
        .collect();
    let k = matrix3_to_mat(&intrinsics.camera_matrix)?;
    let d = mat_from_rows(&[intrinsics.distortion.to_vec()])?;
    let mut rvec = Mat::default();
    let mut tvec = Mat::default();
    calib3d::solve_pnp(
        &object_points,
        &image_points,
        &k,
        &d,
        &mut rvec,
        &mut tvec,
        false,
        calib3d::SOLVEPNP_ITERATIVE,
    )
    .during("fitting the board's pose")?;
    let r = mat_values(&rvec)?;
    let t = mat_values(&tvec)?;
    let pose = isometry_from_rvec_tvec([r[0], r[1], r[2]], [t[0], t[1], t[2]]);
    let camera = Camera::new(intrinsics.clone(), pose);
    let mut sum = 0.0;
    for (p, c) in object.iter().zip(corners) {
        let projected = camera
            .project_table(p)
            .unwrap_or(Point2::new(f64::MAX, f64::MAX));
        sum += (projected - c).norm_squared();
    }
    Ok((pose, (sum / object.len().max(1) as f64).sqrt()))
}

/// The mean colour of the board's light squares (5x5 px at each one's centre, the squares
/// whose column and row differ in parity from the dark origin square's), in 8-bit Lab with a* and
/// b* centred on 0. NaN where none is in view.
fn board_white_lab(
    image: &Mat,
    camera: &Camera,
    board: &Chessboard,
) -> Result<[f64; 3], VisionError> {
    if image.typ() != core::CV_8UC3 {
        return Ok([f64::NAN; 3]);
    }
    let (cols, rows) = (image.cols(), image.rows());
    let s = board.square_mm;
    let (mut sum, mut count) = ([0.0f64; 3], 0.0);
    for j in 0..board.rows - 1 {
        for i in 0..board.cols - 1 {
            if (i + j) % 2 == 0 {
                continue;
            }
            let point = Point3::new(s * (f64::from(i) + 0.5), s * (f64::from(j) + 0.5), 0.0);
            let Some(centre) = camera.project_table(&point) else {
                continue;
            };
            for (x, y) in patch_around(&centre, cols, rows) {
                let p = image
                    .at_2d::<core::Vec3b>(y, x)
                    .during("sampling the board")?;
                for c in 0..3 {
                    sum[c] += f64::from(p[c]);
                }
                count += 1.0;
            }
        }
    }
    if count == 0.0 {
        return Ok([f64::NAN; 3]);
    }
    let mean = sum.map(|v| (v / count).round() as u8);
    let pixel = Mat::new_rows_cols_with_default(
        1,
        1,
        core::CV_8UC3,
        core::Scalar::new(
            f64::from(mean[0]),
            f64::from(mean[1]),
            f64::from(mean[2]),
            0.0,
        ),
    )
    .during("sampling the board")?;
    let mut lab = Mat::default();
    imgproc::cvt_color_def(&pixel, &mut lab, imgproc::COLOR_BGR2Lab).during("converting to Lab")?;
    let l = *lab
        .at_2d::<core::Vec3b>(0, 0)
        .during("sampling the board")?;
    Ok([
        f64::from(l[0]),
        f64::from(l[1]) - 128.0,
        f64::from(l[2]) - 128.0,
    ])
}

fn mean_gray_around(
    gray: &Mat,
    camera: &Camera,
    table_point: Point3<f64>,
) -> Result<f64, VisionError> {
    let Some(centre) = camera.project_table(&table_point) else {
        return Ok(f64::NAN);
    };
    let (cols, rows) = (gray.cols(), gray.rows());
    let mut sum = 0.0;
    let mut count = 0.0;
    for (x, y) in patch_around(&centre, cols, rows) {
        sum += f64::from(*gray.at_2d::<u8>(y, x).during("sampling the board")?);
        count += 1.0;
    }
    Ok(if count > 0.0 { sum / count } else { f64::NAN })
}

/// The pixels (x, y) of the 5x5 patch around a point that lie in an image of `cols` x `rows`.
fn patch_around(
    centre: &Point2<f64>,
    cols: i32,
    rows: i32,
) -> impl Iterator<Item = (i32, i32)> + use<> {
    let (cx, cy) = (centre.x.round() as i32, centre.y.round() as i32);
    (-2..=2)
        .flat_map(move |dy| (-2..=2).map(move |dx| (cx + dx, cy + dy)))
        .filter(move |(x, y)| (0..cols).contains(x) && (0..rows).contains(y))
}

/// Refuses an image whose size differs from the calibrated one.
pub fn check_resolution(
    image: &Mat,
    path: &Path,
    intrinsics: &Intrinsics,
) -> Result<(), VisionError> {
    let actual = size_of(image);
    if actual != intrinsics.image_size {
        return Err(VisionError::ResolutionMismatch {
            path: path.to_path_buf(),
            actual_width: actual[0],
            actual_height: actual[1],
            expected_width: intrinsics.image_size[0],
            expected_height: intrinsics.image_size[1],
        });
    }
    Ok(())
}

/// What a calibration file holds: intrinsics always, the table pose once the table is calibrated.
#[derive(Debug, Clone, PartialEq)]
pub struct Calibration {
    pub intrinsics: Intrinsics,
    pub camera_from_table: Option<Isometry3<f64>>,
    /// RMS reprojection error of the intrinsics calibration, pixels, when known.
    pub rms_px: Option<f64>,
    /// The board's white squares where the table was calibrated (8-bit Lab, a* and b* centred on
    /// 0; see [`TableReport::board_white_lab`]), when known: older files and intrinsics alone
    /// lack it.
    pub board_white_lab: Option<[f64; 3]>,
}

impl Calibration {
    /// Writes OpenCV FileStorage YAML: `camera_matrix`, `distortion_coefficients`, `image_width`,
    /// `image_height`, and `table_rvec`/`table_tvec` (X_camera = R(rvec) X_table + tvec) and
    /// `board_white_lab` when known.
    pub fn save(&self, path: &Path) -> Result<(), VisionError> {
        let write_error = |source| VisionError::Write {
            path: path.to_path_buf(),
            source,
        };
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(write_error)?;
        }
        let yaml = self.to_yaml()?;
        std::fs::write(path, yaml).map_err(write_error)
    }

    /// The YAML text [`Calibration::save`] writes.
    pub fn to_yaml(&self) -> Result<String, VisionError> {
        let mut fs = FileStorage::new(
            ".yaml",
            core::FileStorage_Mode::WRITE as i32 | core::FileStorage_Mode::MEMORY as i32,
            "",
        )
        .during("opening a calibration for writing")?;
        let i = &self.intrinsics;
        fs.write_comment(
            " koanscope camera calibration (OpenCV FileStorage). Units: pixels and millimetres.",
            false,
        )
        .during("writing the calibration")?;
        fs.write_i32("image_width", i.image_size[0] as i32)
            .during("writing the calibration")?;
        fs.write_i32("image_height", i.image_size[1] as i32)
            .during("writing the calibration")?;
        fs.write_mat("camera_matrix", &matrix3_to_mat(&i.camera_matrix)?)
            .during("writing the calibration")?;
        fs.write_mat(
            "distortion_coefficients",
            &mat_from_rows(&[i.distortion.to_vec()])?,
        )
        .during("writing the calibration")?;
        if let Some(rms) = self.rms_px {
            fs.write_f64("rms_reprojection_error_px", rms)
                .during("writing the calibration")?;
        }
        if let Some(pose) = &self.camera_from_table {
            let (rvec, tvec) = rvec_tvec_from_isometry(pose);
            fs.write_comment(
                " table frame: X_camera = R(table_rvec) X_table + table_tvec, mm",
                false,
            )
            .during("writing the calibration")?;
            fs.write_mat("table_rvec", &column_mat(&rvec)?)
                .during("writing the calibration")?;
            fs.write_mat("table_tvec", &column_mat(&tvec)?)
                .during("writing the calibration")?;
        }
        if let Some(white) = self
            .board_white_lab
            .filter(|w| w.iter().all(|v| v.is_finite()))
        {
            fs.write_comment(
                " the board's white squares as seen under the table's light: 8-bit Lab, a* b* about 0",
                false,
            )
            .during("writing the calibration")?;
            fs.write_mat("board_white_lab", &column_mat(&white)?)
                .during("writing the calibration")?;
        }
        fs.release_and_get_string()
            .during("writing the calibration")
    }

    /// Reads a calibration file, refusing anything that is not one.
    pub fn load(path: &Path) -> Result<Calibration, VisionError> {
        let not = |reason: &str| VisionError::NotACalibration {
            path: path.to_path_buf(),
            reason: reason.to_string(),
        };
        let text = std::fs::read_to_string(path).map_err(|e| {
            let what = if e.kind() == std::io::ErrorKind::InvalidData {
                "it is not a text file".to_string()
            } else {
                format!("cannot read it ({e})")
            };
            not(&format!(
                "{what}; run `koanscope calibrate intrinsics` and `koanscope calibrate table` to make one"
            ))
        })?;
        Calibration::from_yaml(&text).map_err(|reason| not(&reason))
    }

    /// Parses calibration YAML; the error says which field is missing or wrong.
    pub fn from_yaml(text: &str) -> Result<Calibration, String> {
        if !text.trim_start().starts_with("%YAML") {
            return Err("it is not OpenCV FileStorage YAML (it must start with %YAML:1.0)".into());
        }
        let fs = FileStorage::new(
            text,
            core::FileStorage_Mode::READ as i32 | core::FileStorage_Mode::MEMORY as i32,
            "",
        )
        .map_err(|e| format!("it is not valid OpenCV YAML ({})", e.message))?;
        let node = |name: &str| -> Result<Option<core::FileNode>, String> {
            let node = fs.get(name).map_err(|e| e.message)?;
            Ok(
                if node.empty().map_err(|e| e.message)? || node.is_none().map_err(|e| e.message)? {
                    None
                } else {
                    Some(node)
                },
            )
        };
        let required = |name: &str| -> Result<core::FileNode, String> {
            node(name)?.ok_or_else(|| format!("field `{name}` is missing"))
        };
        let matrix = |name: &str, n: usize| -> Result<Vec<f64>, String> {
            let node = required(name)?;
            let mat = node
                .mat()
                .map_err(|_| format!("field `{name}` is not a matrix"))?;
            let values = mat_values(&mat).map_err(|_| format!("field `{name}` is not numeric"))?;
            if values.len() != n || values.iter().any(|v| !v.is_finite()) {
                return Err(format!("field `{name}` must hold {n} finite numbers"));
            }
            Ok(values)
        };
        let integer = |name: &str| -> Result<u32, String> {
            let node = required(name)?;
            if !node.is_int().map_err(|e| e.message)? {
                return Err(format!("field `{name}` must be an integer"));
            }
            let v = node.to_i32().map_err(|e| e.message)?;
            u32::try_from(v)
                .ok()
                .filter(|v| *v > 0)
                .ok_or_else(|| format!("field `{name}` must be positive"))
        };
        let image_size = [integer("image_width")?, integer("image_height")?];
        let k = matrix("camera_matrix", 9)?;
        let camera_matrix = Matrix3::from_row_slice(&k);
        if !(camera_matrix[(0, 0)] > 0.0 && camera_matrix[(1, 1)] > 0.0) {
            return Err("`camera_matrix` has no positive focal lengths".into());
        }
        let d = matrix("distortion_coefficients", 5)?;
        let distortion = [d[0], d[1], d[2], d[3], d[4]];
        let rms_px = match node("rms_reprojection_error_px")? {
            Some(n) => Some(n.to_f64().map_err(|e| e.message)?),
            None => None,
        };
        let camera_from_table = match (node("table_rvec")?, node("table_tvec")?) {
            (Some(_), Some(_)) => {
                let r = matrix("table_rvec", 3)?;
                let t = matrix("table_tvec", 3)?;
                Some(isometry_from_rvec_tvec(
                    [r[0], r[1], r[2]],
                    [t[0], t[1], t[2]],
                ))
            }
            (None, None) => None,
            _ => return Err("it has only one of `table_rvec` and `table_tvec`".into()),
        };
        let board_white_lab = match node("board_white_lab")? {
            Some(_) => {
                let w = matrix("board_white_lab", 3)?;
                Some([w[0], w[1], w[2]])
            }
            None => None,
        };
        Ok(Calibration {
            intrinsics: Intrinsics {
                camera_matrix,
                distortion,
                image_size,
            },
            camera_from_table,
            rms_px,
            board_white_lab,
        })
    }

    /// What to tell the player of the light the table was calibrated under, if it was coloured.
    pub fn light_cast_advice(&self) -> Option<String> {
        light_cast_advice(self.board_white_lab?)
    }

    /// The camera with its table pose, or an error saying to calibrate the table first.
    pub fn camera(&self, path: &Path) -> Result<Camera, VisionError> {
        let pose = self.camera_from_table.ok_or_else(|| VisionError::NotACalibration {
            path: path.to_path_buf(),
            reason: "it has intrinsics but no table pose (`table_rvec`, `table_tvec`): run `koanscope calibrate table <image> --intrinsics <this file>`".into(),
        })?;
        Ok(Camera::new(self.intrinsics.clone(), pose))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report_with_white(lab: [f64; 3]) -> TableReport {
        TableReport {
            camera_from_table: Isometry3::identity(),
            rms_px: 0.1,
            camera_height_mm: 500.0,
            edge_rise_px: 2.0,
            board_white_lab: lab,
        }
    }

    #[test]
    fn a_coloured_light_is_named_and_a_near_grey_one_is_not() {
        // The dev dataset's boards (0, 3 and 3 from grey), its warm and cool copies, a green
        // fluorescent tube and a magenta LED strip.
        for lab in [[198.0, 0.0, 0.0], [206.0, 0.0, 3.0], [192.0, 1.0, 3.0]] {
            assert_eq!(report_with_white(lab).light_cast(), None, "{lab:?}");
        }
        for (lab, word) in [
            ([210.0, 5.0, 21.0], "warm (yellow)"),
            ([195.0, -5.0, -15.0], "cool (blue)"),
            ([200.0, -12.0, 4.0], "green"),
            ([200.0, 11.0, -3.0], "magenta"),
        ] {
            let (chroma, cast) = report_with_white(lab).light_cast().expect("a cast");
            assert_eq!(cast, word, "{lab:?}");
            assert!((chroma - lab[1].hypot(lab[2])).abs() < 1e-9);
        }
        // No white squares in view: nothing to say.
        assert_eq!(report_with_white([f64::NAN; 3]).light_cast(), None);
    }
}
