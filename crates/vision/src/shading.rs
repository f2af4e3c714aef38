//! How a posed piece's faces shade. Under one light, each flat face of a pyramid is shaded
//! nearly evenly and two faces apart, so the faces of the right pose, where they fall on the
//! frame, split the piece's pixels into parts of even lightness. Outlines alike can hide
//! different poses (seen from above, a small leaning on a piece shows nearly the silhouette of
//! one lying flat beside it); their faces fall in different places, and only one set matches
//! the shading.

use koanscope_geometry::PyramidDims;
use nalgebra::{Isometry3, Point2, Point3, Vector3};

use crate::camera::Camera;
use crate::pose::vertices_piece;

/// The faces of the piece (corner indices into `vertices_piece`, counter-clockwise seen from
/// outside): four sides, then the base. An open base shows the hollow inside rather than a flat
/// face, but it stays: left out, the flat readings on dev lost most of their measure.
const FACES: [&[usize]; 5] = [
    &[0, 1, 4],
    &[1, 2, 4],
    &[2, 3, 4],
    &[3, 0, 4],
    &[0, 3, 2, 1],
];

/// Pixels this close (px) to a face's edge in view are left out: blur and a fit a pixel off
/// mix the two faces there.
const MARGIN_PX: f64 = 1.5;

/// How well the faces of a piece of `dims` at `table_from_piece` split its pixels into parts
/// of even shading: one less the share of the lightness variance left within faces, over the
/// pixels at least `MARGIN_PX` (1.5 px) inside one camera-facing face for which
/// `lightness_at(x, y)` gives a lightness (the piece's own colour). With its number of pixels;
/// `None` when fewer than `min_pixels`, or when no face is in view.
pub fn face_shading(
    camera: &Camera,
    dims: &PyramidDims,
    table_from_piece: &Isometry3<f64>,
    min_pixels: usize,
    lightness_at: impl Fn(usize, usize) -> Option<u8>,
) -> Option<(f64, usize)> {
    let faces: Vec<Vec<Point2<f64>>> = faces_in_view(camera, dims, table_from_piece)?
        .into_iter()
        .map(|(face, _)| face)
        .collect();
    let mut lo = Point2::new(f64::MAX, f64::MAX);
    let mut hi = Point2::new(f64::MIN, f64::MIN);
    for p in faces.iter().flatten() {
        lo = lo.inf(p);
        hi = hi.sup(p);
    }
    // Only the frame's pixels: a pose fitted near the edge may project partly outside it.
    let [w, h] = camera.intrinsics.image_size;
    let (w, h) = (f64::from(w) - 1.0, f64::from(h) - 1.0);
    if faces.is_empty() || hi.x < 0.0 || hi.y < 0.0 || lo.x > w || lo.y > h {
        return None;
    }
    // Per face: sum, sum of squares and count of lightness.
    let mut sums = vec![(0.0_f64, 0.0_f64, 0_usize); faces.len()];
    for y in lo.y.max(0.0).floor() as usize..=hi.y.min(h).ceil() as usize {
        for x in lo.x.max(0.0).floor() as usize..=hi.x.min(w).ceil() as usize {
            let p = Point2::new(x as f64, y as f64);
            let Some(f) = faces
                .iter()
                .position(|face| depth_inside(face, &p) >= MARGIN_PX)
            else {
                continue;
            };
            let Some(l) = lightness_at(x, y) else {
                continue;
            };
            let l = f64::from(l);
            sums[f].0 += l;
            sums[f].1 += l * l;
            sums[f].2 += 1;
        }
    }
    let n: usize = sums.iter().map(|s| s.2).sum();
    if n < min_pixels.max(1) {
        return None;
    }
    let sum: f64 = sums.iter().map(|s| s.0).sum();
    let sum_sq: f64 = sums.iter().map(|s| s.1).sum();
    let total = sum_sq - sum * sum / n as f64;
    let within: f64 = sums
        .iter()
        .filter(|s| s.2 > 0)
        .map(|s| s.1 - s.0 * s.0 / s.2 as f64)
        .sum();
    // An evenly lit piece has no variance to split: 8-bit levels vary by one at least.
    Some((1.0 - within / total.max(n as f64), n))
}

/// A face of a posed piece in view: its corners in the image and its outward normal (table
/// frame).
pub(crate) type FaceInView = (Vec<Point2<f64>>, Vector3<f64>);

/// The faces of a piece of `dims` at `table_from_piece` that face the camera. `None` where a
/// corner does not project.
pub(crate) fn faces_in_view(
    camera: &Camera,
    dims: &PyramidDims,
    table_from_piece: &Isometry3<f64>,
) -> Option<Vec<FaceInView>> {
    let corners = vertices_piece(dims).map(|v| table_from_piece * v);
    let eye = camera.centre_table();
    let mut faces = Vec::new();
    for face in FACES {
        let (a, b, c) = (corners[face[0]], corners[face[1]], corners[face[2]]);
        let centre = Point3::from(
            face.iter()
                .map(|&i| corners[i].coords)
                .sum::<Vector3<f64>>()
                / face.len() as f64,
        );
        let normal = (b - a).cross(&(c - a)).normalize();
        if normal.dot(&(eye - centre)) <= 0.0 {
            continue;
        }
        let projected: Option<Vec<Point2<f64>>> = face
            .iter()
            .map(|&i| camera.project_table(&corners[i]))
            .collect();
        faces.push((projected?, normal));
    }
    Some(faces)
}

/// How far (px) `p` lies inside a convex polygon, whichever way it winds; negative outside.
pub(crate) fn depth_inside(polygon: &[Point2<f64>], p: &Point2<f64>) -> f64 {
    let n = polygon.len();
    let twice_area: f64 = (0..n)
        .map(|i| {
            let (a, b) = (polygon[i], polygon[(i + 1) % n]);
            a.x * b.y - b.x * a.y
        })
        .sum();
    let sign = twice_area.signum();
    (0..n)
        .map(|i| {
            let (a, b) = (polygon[i], polygon[(i + 1) % n]);
            let edge = b - a;
            sign * (edge.x * (p.y - a.y) - edge.y * (p.x - a.x)) / edge.norm().max(1e-9)
        })
        .fold(f64::INFINITY, f64::min)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::color::ColorModel;
    use crate::pose::{flat_tilt, pose_on_table};
    use crate::render::{draw_shaded_pieces, table_camera};
    use crate::segment::segment;
    use koanscope_geometry::PieceModels;
    use koanscope_scene::{Color, Size};

    /// A piece drawn with each face evenly lit: its own faces split the shading all but
    /// wholly; the faces of the same piece turned a quarter of a face, or lying flat where it
    /// leans, cut across them and explain much less.
    #[test]
    fn a_piece_s_own_faces_explain_its_shading_and_other_poses_do_not() {
        let camera = table_camera();
        let dims = PieceModels::default().dims(Size::Large);
        let leaning = pose_on_table(&dims, 0.6, 20.0, 120.0, 0.7);
        let frame =
            draw_shaded_pieces(&camera, &[(Color::Blue, Size::Large, leaning)]).expect("drawn");
        let seg = segment(&frame, &ColorModel::default()).expect("segmented");
        let class = seg.class_of(Color::Blue).expect("blue is a class");
        let lab = seg.lab_bytes();
        let shading = |pose: &Isometry3<f64>| {
            face_shading(&camera, &dims, pose, 40, |x, y| {
                let k = y.checked_mul(seg.width)? + x;
                (x < seg.width && seg.classes.get(k) == Some(&class)).then(|| lab[3 * k])
            })
            .expect("enough of the piece in view")
            .0
        };
        let own = shading(&leaning);
        let turned = shading(&pose_on_table(&dims, 0.6, 20.0, 120.0, 0.7 + 0.4));
        let flat = shading(&pose_on_table(&dims, flat_tilt(&dims), 20.0, 120.0, 0.7));
        assert!(own > 0.95, "own faces explain {own:.2}");
        assert!(turned < own - 0.2, "turned {turned:.2} against {own:.2}");
        assert!(flat < own - 0.2, "flat {flat:.2} against {own:.2}");
    }
}
