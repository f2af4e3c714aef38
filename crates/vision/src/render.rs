//! A plain renderer of pieces at known poses (flat-coloured silhouettes over a two-tone table),
//! for tests and benchmarks that must run without photographs. It is no substitute for real
//! frames: faces shaded only by a lamp's angle ([`draw_shaded_pieces`]), no translucency or
//! shadows, and edges exact to the pixel (add [`with_sensor_noise`] for ragged ones).

use koanscope_geometry::PieceModels;
use koanscope_scene::{Color, Size};
use nalgebra::{Isometry3, Point2, Vector3};
use opencv::core::{CV_8UC3, Mat, Point, Scalar, Vec3b};
use opencv::imgproc;
use opencv::prelude::*;

use crate::camera::Camera;
use crate::error::{CvContext, VisionError};
use crate::pose::{convex_hull, hollow_corners_piece, silhouette};
use crate::region::for_each_run;
use crate::shading::{depth_inside, faces_in_view};

/// The colour a piece is drawn in, BGR.
fn plastic(color: Color) -> Scalar {
    let (b, g, r) = match color {
        Color::Red => (30.0, 30.0, 190.0),
        Color::Yellow => (20.0, 190.0, 230.0),
        Color::Green => (40.0, 150.0, 30.0),
        Color::Blue => (180.0, 60.0, 20.0),
        _ => (30.0, 30.0, 30.0),
    };
    Scalar::new(b, g, r, 0.0)
}

/// The pieces drawn ([`draw_pieces`], in the order given) and classified by the shipped colour
/// model: the frame a test reads them from.
#[cfg(test)]
pub(crate) fn segmented_frame(
    camera: &Camera,
    pieces: &[koanscope_scene::Piece],
) -> crate::segment::Segmentation {
    let drawn: Vec<_> = pieces
        .iter()
        .map(|p| (p.color, p.size, p.table_from_piece))
        .collect();
    let frame = draw_pieces(camera, &drawn).expect("drawn");
    crate::segment::segment(&frame, &crate::color::ColorModel::default()).expect("segmented")
}

/// A frame of the camera's size showing the pieces on a warm wood-coloured table, drawn in the
/// order given (later pieces in front).
pub fn draw_pieces(
    camera: &Camera,
    pieces: &[(Color, Size, Isometry3<f64>)],
) -> Result<Mat, VisionError> {
    let lit: Vec<_> = pieces.iter().map(|&(c, s, p)| (c, s, p, 1.0)).collect();
    draw_lit_pieces(camera, &lit)
}

/// Like [`draw_pieces`], each piece's colour scaled by a light factor (1 as drawn there): the
/// faces of a piece stacked on one of its colour meet the base's at a step in the light.
pub fn draw_lit_pieces(
    camera: &Camera,
    pieces: &[(Color, Size, Isometry3<f64>, f64)],
) -> Result<Mat, VisionError> {
    draw(camera, pieces, None, false)
}

/// Like [`draw_pieces`], and where the camera looks into a piece's open base (one upside down,
/// seen from above), the hollow inside its rim drawn in the shade the inside of a piece keeps.
pub fn draw_hollow_pieces(
    camera: &Camera,
    pieces: &[(Color, Size, Isometry3<f64>)],
) -> Result<Mat, VisionError> {
    let lit: Vec<_> = pieces.iter().map(|&(c, s, p)| (c, s, p, 1.0)).collect();
    draw(camera, &lit, None, true)
}

/// How much of the light on a piece's rim reaches the hollow inside it, seen through its base.
const HOLLOW_LIGHT: f64 = 0.5;

/// Like [`draw_pieces`], each face shaded by how squarely it faces a lamp above the table
/// (towards the camera's side): faces of one piece meet at steps in the light, as on a table.
pub fn draw_shaded_pieces(
    camera: &Camera,
    pieces: &[(Color, Size, Isometry3<f64>)],
) -> Result<Mat, VisionError> {
    let lit: Vec<_> = pieces.iter().map(|&(c, s, p)| (c, s, p, 1.0)).collect();
    let lamp = (camera.centre_table().coords + Vector3::new(0.0, 0.0, 600.0)).normalize();
    draw(camera, &lit, Some(lamp), false)
}

/// Draws the pieces in order, each in its colour times its light factor, and, with a `lamp`
/// direction (table frame), times the light its face under each pixel takes from there; with
/// `hollows`, the hollow seen through an open base times [`HOLLOW_LIGHT`].
fn draw(
    camera: &Camera,
    pieces: &[(Color, Size, Isometry3<f64>, f64)],
    lamp: Option<Vector3<f64>>,
    hollows: bool,
) -> Result<Mat, VisionError> {
    let [w, h] = camera.intrinsics.image_size;
    let (w, h) = (w as i32, h as i32);
    let mut frame =
        Mat::new_rows_cols_with_default(h, w, CV_8UC3, Scalar::new(95.0, 130.0, 165.0, 0.0))
            .during("making a frame")?;
    // A lighter far side, as under a lamp, so the table colour is not uniform.
    imgproc::rectangle_points(
        &mut frame,
        Point::new(0, 0),
        Point::new(w - 1, h / 3),
        Scalar::new(105.0, 140.0, 175.0, 0.0),
        -1,
        imgproc::LINE_8,
        0,
    )
    .during("drawing the table")?;
    let models = PieceModels::default();
    for (color, size, pose, light) in pieces {
        let dims = models.dims(*size);
        let Some(outline) = silhouette(camera, &dims, pose) else {
            continue;
        };
        let faces = match lamp {
            Some(lamp) => faces_in_view(camera, &dims, pose)
                .unwrap_or_default()
                .into_iter()
                .map(|(corners, normal)| (corners, 0.55 + 0.45 * normal.dot(&lamp).max(0.0)))
                .collect(),
            None => Vec::new(),
        };
        let base = plastic(*color);
        let paint = |x: i64, y: i64| {
            // The face the pixel's centre lies deepest in (the faces in view do not overlap).
            let shade = faces
                .iter()
                .map(|(corners, shade)| {
                    let p = Point2::new(x as f64, y as f64);
                    (depth_inside(corners, &p), *shade)
                })
                .max_by(|a, b| a.0.total_cmp(&b.0))
                .map_or(1.0, |(_, shade)| shade);
            let k = light * shade;
            Vec3b::from(
                [base[0], base[1], base[2]].map(|c| (c * k).round().clamp(0.0, 255.0) as u8),
            )
        };
        // Exactly the pixels the fit counts as the silhouette's: an anti-aliased or rounded
        // edge adds a rim that no pose of the piece explains.
        let mut drawn = Ok(());
        for_each_run(&outline, |y, xa, xb| {
            for_each_pixel(&mut frame, y, xa, xb, &mut drawn, |x, y, pixel| {
                *pixel = paint(x, y)
            });
        });
        drawn.during("drawing a piece")?;
        // The hollow shows where the eye is on the base's side of it (below it, piece frame).
        if hollows && (pose.inverse() * camera.centre_table()).z < 0.0 {
            let hollow: Option<Vec<Point2<f64>>> = hollow_corners_piece(&dims, models.wall_mm)
                .iter()
                .map(|c| camera.project_table(&(pose * c)))
                .collect();
            let hollow = convex_hull(hollow.unwrap_or_default());
            let mut shaded = Ok(());
            for_each_run(&hollow, |y, xa, xb| {
                for_each_pixel(&mut frame, y, xa, xb, &mut shaded, |_, _, pixel| {
                    *pixel =
                        Vec3b::from(pixel.0.map(|c| (f64::from(c) * HOLLOW_LIGHT).round() as u8))
                });
            });
            shaded.during("drawing a hollow")?;
        }
    }
    Ok(frame)
}

/// `paint(x, y, pixel)` for each pixel of the run `xa..=xb` of row `y` inside the frame; the
/// first error (none expected inside it) is left in `error`.
fn for_each_pixel(
    frame: &mut Mat,
    y: i64,
    xa: i64,
    xb: i64,
    error: &mut opencv::Result<()>,
    mut paint: impl FnMut(i64, i64, &mut Vec3b),
) {
    let (x0, x1) = (xa.max(0), xb.min(i64::from(frame.cols() - 1)));
    if y < 0 || y >= i64::from(frame.rows()) || x0 > x1 {
        return;
    }
    for x in x0..=x1 {
        match frame.at_2d_mut::<Vec3b>(y as i32, x as i32) {
            Ok(pixel) => paint(x, y, pixel),
            Err(e) => *error = Err(e),
        }
    }
}

/// Draws the calibration board koanscope prints (9 x 6 inner corners, 25 mm squares, on paper
/// reaching 25 mm past them) lying on the table at `table_from_board`, over what the frame shows.
pub fn draw_board(
    frame: &mut Mat,
    camera: &Camera,
    table_from_board: &Isometry3<f64>,
) -> Result<(), VisionError> {
    let square = |x0: f64, y0: f64, x1: f64, y1: f64| -> Option<opencv::core::Vector<Point>> {
        [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
            .iter()
            .map(|&(x, y)| {
                let p =
                    camera.project_table(&(table_from_board * nalgebra::Point3::new(x, y, 0.0)))?;
                Some(Point::new(p.x.round() as i32, p.y.round() as i32))
            })
            .collect()
    };
    let mut fill = |corners: Option<opencv::core::Vector<Point>>, bgr: f64| match corners {
        Some(corners) => {
            imgproc::fill_convex_poly(frame, &corners, Scalar::all(bgr), imgproc::LINE_8, 0)
                .during("drawing the board")
        }
        None => Ok(()),
    };
    let board = crate::calibration::Chessboard::STANDARD;
    let s = board.square_mm;
    let [near, _, far, _] = crate::left_board::paper_corners_board_mm();
    fill(square(near.x, near.y, far.x, far.y), 235.0)?;
    for a in -1..board.cols {
        for b in -1..board.rows {
            if (a + b).rem_euclid(2) == 0 {
                let (x, y) = (s * f64::from(a), s * f64::from(b));
                fill(square(x, y, x + s, y + s), 35.0)?;
            }
        }
    }
    Ok(())
}

/// The camera drawn frames are seen by: 1280x720, no distortion, about 0.65 m from the table and
/// looking down at it obliquely (the pose of the dev dataset's first setup).
pub fn table_camera() -> Camera {
    webcam_at([0.8779, 2.6609, -0.8445], [59.86, -94.47, 628.14])
}

/// The webcam of [`table_camera`] (1280x720, fx = fy = 914 px, no distortion) at another pose:
/// X_camera = R(rvec) X_table + tvec, mm.
pub fn webcam_at(rvec: [f64; 3], tvec: [f64; 3]) -> Camera {
    use crate::calibration::Intrinsics;
    use crate::cv::isometry_from_rvec_tvec;
    Camera::new(
        Intrinsics {
            camera_matrix: nalgebra::Matrix3::new(
                914.0, 0.0, 639.5, 0.0, 914.0, 359.5, 0.0, 0.0, 1.0,
            ),
            distortion: [0.0; 5],
            image_size: [1280, 720],
        },
        isometry_from_rvec_tvec(rvec, tvec),
    )
}

/// That webcam nearly straight over the table, 9° off the vertical: the camera holdout's first
/// setup (C1), where a piece on its apex shows a standing one's outline.
pub fn webcam_overhead() -> Camera {
    webcam_at([3.0008, 0.7084, -0.0212], [-118.51, 13.39, 560.20])
}

/// The benchmark table: 16 pieces of every colour and size, upright and flat at varied yaws, in a
/// 4x4 grid seen by a 1280x720 camera about 0.65 m away. `koanscope bench` and the criterion
/// bench both time its analysis.
pub fn bench_table() -> Result<(Camera, Mat), VisionError> {
    let camera = table_camera();
    let image = draw_pieces(&camera, &bench_pieces())?;
    Ok((camera, image))
}

/// The pieces of [`bench_table`], in drawing order.
pub fn bench_pieces() -> Vec<(Color, Size, Isometry3<f64>)> {
    use crate::pose::{flat_tilt, pose_on_table};
    let models = PieceModels::default();
    let colors = [Color::Red, Color::Yellow, Color::Green, Color::Blue];
    let sizes = [Size::Small, Size::Medium, Size::Large];
    (0..16)
        .map(|i| {
            let size = sizes[i % 3];
            let dims = models.dims(size);
            let tilt = if i % 4 == 3 { flat_tilt(&dims) } else { 0.0 };
            let (x, y) = (
                -100.0 + 70.0 * (i % 4) as f64,
                -20.0 + 60.0 * (i / 4) as f64,
            );
            (
                colors[i % 4],
                size,
                pose_on_table(&dims, tilt, x, y, 0.4 * i as f64),
            )
        })
        .collect()
}

/// The frame with a webcam's sensor noise: Gaussian, `sigma` levels on every channel, from a
/// fixed seed. Drawn frames are otherwise exact, which no camera is.
pub fn with_sensor_noise(frame: &Mat, sigma: f64, seed: i32) -> Result<Mat, VisionError> {
    use opencv::core;
    use opencv::prelude::*;
    core::set_rng_seed(seed).during("seeding the noise")?;
    let mut noise = Mat::new_rows_cols_with_default(
        frame.rows(),
        frame.cols(),
        core::CV_16SC3,
        Scalar::all(0.0),
    )
    .during("making the noise")?;
    core::randn(&mut noise, &Scalar::all(0.0), &Scalar::all(sigma)).during("drawing noise")?;
    let mut noisy = Mat::default();
    core::add(frame, &noise, &mut noisy, &core::no_array(), core::CV_8UC3)
        .during("adding noise")?;
    Ok(noisy)
}

/// The frame `lens` (a camera with lens distortion) shows where a pinhole camera with the same
/// matrix showed `pinhole`: each pixel sampled, bilinearly, where the ray through it met the
/// pinhole frame (the frame's edges repeated where the lens sees past it). Rendered frames are
/// pinhole; every webcam's lens bends them a little.
pub fn through_lens(pinhole: &Mat, lens: &Camera) -> Result<Mat, VisionError> {
    use opencv::core;
    let (w, h) = (pinhole.cols(), pinhole.rows());
    let k = &lens.intrinsics.camera_matrix;
    let mut map_x = Mat::new_rows_cols_with_default(h, w, core::CV_32FC1, Scalar::all(0.0))
        .during("making the lens map")?;
    let mut map_y = map_x.clone();
    for row in 0..h {
        for col in 0..w {
            let ray = lens.ray_camera(&Point2::new(f64::from(col), f64::from(row)));
            let (x, y) = (ray.x / ray.z, ray.y / ray.z);
            *map_x
                .at_2d_mut::<f32>(row, col)
                .during("filling the lens map")? =
                (k[(0, 0)] * x + k[(0, 1)] * y + k[(0, 2)]) as f32;
            *map_y
                .at_2d_mut::<f32>(row, col)
                .during("filling the lens map")? = (k[(1, 1)] * y + k[(1, 2)]) as f32;
        }
    }
    let mut seen = Mat::default();
    imgproc::remap(
        pinhole,
        &mut seen,
        &map_x,
        &map_y,
        imgproc::INTER_LINEAR,
        core::BORDER_REPLICATE,
        Scalar::all(0.0),
    )
    .during("seeing the frame through the lens")?;
    Ok(seen)
}

/// Where `lens` shows what a pinhole camera with the same matrix shows at `pinhole_px`.
pub fn lens_pixel(lens: &Camera, pinhole_px: &Point2<f64>) -> Option<Point2<f64>> {
    let k = &lens.intrinsics.camera_matrix;
    let y = (pinhole_px.y - k[(1, 2)]) / k[(1, 1)];
    let x = (pinhole_px.x - k[(0, 2)] - k[(0, 1)] * y) / k[(0, 0)];
    lens.project_camera(&nalgebra::Point3::new(x, y, 1.0))
}
