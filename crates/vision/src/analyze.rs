//! One frame to one scene document: detection, then the geometry engine; and the overlay picture.

use std::path::Path;

use koanscope_geometry::Engine;
use koanscope_scene::{Color, Piece, PieceId, Scene};
use nalgebra::Point2;
use opencv::core::{self, Mat, Point, Scalar, Vector};
use opencv::imgcodecs;
use opencv::imgproc;
use opencv::prelude::*;

use crate::calibration::check_resolution;
use crate::camera::Camera;
use crate::detect::{Detection, Detector};
use crate::error::{CvContext, VisionError};
use crate::image::size_of;
use crate::pose::convex_hull;

/// The scene a frame shows, the detections behind it, and anything the user should know.
pub struct Analysis {
    pub scene: Scene,
    /// `detections[i]` is `scene.pieces[i]`.
    pub detections: Vec<Detection>,
    /// Conditions that make the result doubtful (dark frame, nothing found), with what to do.
    pub warnings: Vec<String>,
}

/// Finds the pieces in a frame and derives their attributes, relations and koans.
pub fn analyze(
    image: &Mat,
    image_path: &Path,
    camera: &Camera,
    detector: &Detector,
    engine: &Engine,
) -> Result<Analysis, VisionError> {
    check_resolution(image, image_path, &camera.intrinsics)?;
    let mut detections = detector.detect(image, camera)?;
    // Reading order (top to bottom, then left to right in bands) gives stable, findable ids.
    detections.sort_by(|a, b| {
        let band = |d: &Detection| (d.image_xy.y / 80.0).floor();
        band(a)
            .total_cmp(&band(b))
            .then(a.image_xy.x.total_cmp(&b.image_xy.x))
    });
    let pieces = detections
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let mut piece = Piece::new(i as PieceId, d.color, d.size, d.table_from_piece);
            piece.image_xy = Some([round2(d.image_xy.x), round2(d.image_xy.y)]);
            piece.confidence = Some(round2(d.confidence));
            piece
        })
        .collect();
    let mut scene = Scene::from_pieces(pieces);
    scene.source = Some(image_path.display().to_string());
    scene.image_size = Some(size_of(image));
    engine.derive(&mut scene);
    let mut warnings = Vec::new();
    let mean = core::mean_def(image).during("measuring brightness")?;
    let brightness = (mean[0] + mean[1] + mean[2]) / 3.0;
    if brightness < 40.0 {
        warnings.push(format!(
            "the frame is very dark (mean level {brightness:.0} of 255): light the table or raise the exposure"
        ));
    }
    if scene.pieces.is_empty() {
        warnings.push(
            "no pieces found: is the table in view and lit? If pieces are there, re-learn the colours with `koanscope calibrate colors`".into(),
        );
    }
    Ok(Analysis {
        scene,
        detections,
        warnings,
    })
}

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

fn bgr(color: Color) -> Scalar {
    let (b, g, r) = match color {
        Color::Red => (40.0, 40.0, 230.0),
        Color::Yellow => (0.0, 220.0, 255.0),
        Color::Green => (60.0, 200.0, 40.0),
        Color::Blue => (255.0, 120.0, 30.0),
        Color::Black => (20.0, 20.0, 20.0),
        Color::Orange => (0.0, 140.0, 255.0),
        Color::Cyan => (255.0, 255.0, 0.0),
        Color::Purple => (200.0, 40.0, 150.0),
        Color::White | Color::Clear => (250.0, 250.0, 250.0),
    };
    Scalar::new(b, g, r, 0.0)
}

fn cv_point(p: &Point2<f64>) -> Point {
    Point::new(p.x.round() as i32, p.y.round() as i32)
}

/// Draws outlines, labels, axes, pointing rays and koan outlines over the frame and writes a PNG.
pub fn write_overlay(
    image: &Mat,
    camera: &Camera,
    analysis: &Analysis,
    path: &Path,
) -> Result<(), VisionError> {
    let mut canvas = image.try_clone().during("copying the frame")?;
    let white = Scalar::new(255.0, 255.0, 255.0, 0.0);
    let magenta = Scalar::new(255.0, 0.0, 255.0, 0.0);
    for koan in &analysis.scene.koans {
        let points: Vec<Point2<f64>> = koan
            .pieces
            .iter()
            .filter_map(|id| analysis.detections.get(*id as usize))
            .flat_map(|d| d.outline_px.iter().copied())
            .collect();
        let hull = convex_hull(points);
        if hull.len() >= 3 {
            let centre = hull.iter().fold(Point2::origin(), |acc, p| {
                acc + p.coords / hull.len() as f64
            });
            let grown: Vector<Point> = hull
                .iter()
                .map(|p| cv_point(&(p + (p - centre).normalize() * 12.0)))
                .collect();
            let mut polys = Vector::<Vector<Point>>::new();
            polys.push(grown.clone());
            imgproc::polylines(&mut canvas, &polys, true, white, 1, imgproc::LINE_AA, 0)
                .during("drawing koans")?;
            if let Some(top) = grown.iter().min_by_key(|p| p.y) {
                imgproc::put_text(
                    &mut canvas,
                    &format!("koan {}", koan.id),
                    Point::new(top.x - 20, top.y - 6),
                    imgproc::FONT_HERSHEY_SIMPLEX,
                    0.45,
                    white,
                    1,
                    imgproc::LINE_AA,
                    false,
                )
                .during("drawing koans")?;
            }
        }
        for [from, to] in &koan.pointing {
            let (Some(a), Some(b)) = (
                analysis
                    .scene
                    .piece(*from)
                    .and_then(|p| p.attributes.as_ref()),
                analysis.scene.piece(*to).and_then(|p| p.image_xy),
            ) else {
                continue;
            };
            if let Some(apex) = camera.project_table(&a.apex_mm) {
                imgproc::arrowed_line(
                    &mut canvas,
                    cv_point(&apex),
                    Point::new(b[0] as i32, b[1] as i32),
                    magenta,
                    1,
                    imgproc::LINE_AA,
                    0,
                    0.08,
                )
                .during("drawing pointing")?;
            }
        }
    }
    for (piece, d) in analysis.scene.pieces.iter().zip(&analysis.detections) {
        let outline: Vector<Point> = d.outline_px.iter().map(cv_point).collect();
        let mut polys = Vector::<Vector<Point>>::new();
        polys.push(outline);
        imgproc::polylines(
            &mut canvas,
            &polys,
            true,
            bgr(d.color),
            2,
            imgproc::LINE_AA,
            0,
        )
        .during("drawing outlines")?;
        if let Some(a) = &piece.attributes {
            if let (Some(base), Some(apex)) = (
                camera.project_table(&a.base_center_mm),
                camera.project_table(&a.apex_mm),
            ) {
                imgproc::line(
                    &mut canvas,
                    cv_point(&base),
                    cv_point(&apex),
                    white,
                    1,
                    imgproc::LINE_AA,
                    0,
                )
                .during("drawing axes")?;
            }
        }
        let orientation = piece
            .attributes
            .as_ref()
            .map_or("?", |a| a.orientation.word());
        let label = format!(
            "{} {}{} {} {:.2}",
            piece.id,
            &d.color.word()[..1],
            piece.pips(),
            orientation,
            d.confidence
        );
        let at =
            d.outline_px.iter().fold(
                Point2::new(f64::MAX, 0.0),
                |m, p| if p.x < m.x { *p } else { m },
            );
        imgproc::put_text(
            &mut canvas,
            &label,
            Point::new(at.x as i32 - 10, at.y as i32 + 28),
            imgproc::FONT_HERSHEY_SIMPLEX,
            0.4,
            white,
            1,
            imgproc::LINE_AA,
            false,
        )
        .during("drawing labels")?;
    }
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|source| VisionError::Write {
            path: path.to_path_buf(),
            source,
        })?;
    }
    let name = path.to_str().ok_or_else(|| VisionError::Write {
        path: path.to_path_buf(),
        source: std::io::Error::other("the path is not UTF-8"),
    })?;
    let written = imgcodecs::imwrite_def(name, &canvas).during("writing the overlay")?;
    if !written {
        return Err(VisionError::Write {
            path: path.to_path_buf(),
            source: std::io::Error::other("OpenCV could not encode it (use .png or .jpg)"),
        });
    }
    Ok(())
}
