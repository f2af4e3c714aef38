//! Pose hypotheses for one pyramid and its silhouette in the image.

use koanscope_geometry::PyramidDims;
use nalgebra::{Isometry3, Point2, Point3, Rotation3, Translation3, UnitQuaternion, Vector3};

use crate::camera::Camera;

/// How a piece rests, as the fit models it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resting {
    /// Standing on its base on the table.
    Upright,
    /// Lying on one triangular side on the table.
    Flat,
}

/// The five corners of a pyramid in its own frame: base corners then apex.
pub fn vertices_piece(dims: &PyramidDims) -> [Point3<f64>; 5] {
    let a = dims.base_mm / 2.0;
    [
        Point3::new(a, a, 0.0),
        Point3::new(-a, a, 0.0),
        Point3::new(-a, -a, 0.0),
        Point3::new(a, -a, 0.0),
        Point3::new(0.0, 0.0, dims.height_mm),
    ]
}

/// The solid's centroid in the piece frame (a quarter of the way up).
pub fn centroid_piece(dims: &PyramidDims) -> Point3<f64> {
    Point3::new(0.0, 0.0, dims.height_mm / 4.0)
}

/// The rotation that lays a piece on its side face at -y, that face down.
fn lie_on_side(dims: &PyramidDims) -> Rotation3<f64> {
    let outward = Vector3::new(0.0, -dims.height_mm, dims.base_mm / 2.0).normalize();
    Rotation3::rotation_between(&outward, &-Vector3::z()).unwrap_or_else(Rotation3::identity)
}

/// A pose resting on the table (z = 0), placed so the solid's centroid is above (x, y) and
/// turned by `yaw` about the vertical.
pub fn resting_pose(
    dims: &PyramidDims,
    resting: Resting,
    x: f64,
    y: f64,
    yaw: f64,
) -> Isometry3<f64> {
    let turn = Rotation3::from_axis_angle(&Vector3::z_axis(), yaw);
    let rotation = match resting {
        Resting::Upright => turn,
        Resting::Flat => turn * lie_on_side(dims),
    };
    let centroid = rotation * centroid_piece(dims).coords;
    let lowest = vertices_piece(dims)
        .iter()
        .map(|v| (rotation * v.coords).z)
        .fold(f64::INFINITY, f64::min);
    let translation = Vector3::new(x - centroid.x, y - centroid.y, -lowest);
    Isometry3::from_parts(
        Translation3::from(translation),
        UnitQuaternion::from_rotation_matrix(&rotation),
    )
}

/// The silhouette of a pose in the image: convex hull of the projected corners, or `None` when
/// a corner is behind the camera.
pub fn silhouette(
    camera: &Camera,
    dims: &PyramidDims,
    table_from_piece: &Isometry3<f64>,
) -> Option<Vec<Point2<f64>>> {
    let mut points = Vec::with_capacity(5);
    for v in vertices_piece(dims) {
        points.push(camera.project_table(&(table_from_piece * v))?);
    }
    Some(convex_hull(points))
}

/// Andrew's monotone chain; counter-clockwise in image coordinates, no repeated point.
pub fn convex_hull(mut points: Vec<Point2<f64>>) -> Vec<Point2<f64>> {
    points.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    points.dedup();
    if points.len() < 3 {
        return points;
    }
    let cross = |o: &Point2<f64>, a: &Point2<f64>, b: &Point2<f64>| {
        (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
    };
    let mut hull: Vec<Point2<f64>> = Vec::with_capacity(points.len() * 2);
    // Lower hull left to right, then upper hull right to left, never popping into the lower one.
    for p in &points {
        while hull.len() >= 2 && cross(&hull[hull.len() - 2], &hull[hull.len() - 1], p) <= 0.0 {
            hull.pop();
        }
        hull.push(*p);
    }
    let lower_len = hull.len() + 1;
    for p in points.iter().rev().skip(1) {
        while hull.len() >= lower_len
            && cross(&hull[hull.len() - 2], &hull[hull.len() - 1], p) <= 0.0
        {
            hull.pop();
        }
        hull.push(*p);
    }
    hull.pop();
    hull
}

/// The horizontal span of a convex polygon at image row `y`, or `None` if the row misses it.
pub fn row_span(polygon: &[Point2<f64>], y: f64) -> Option<(f64, f64)> {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    let n = polygon.len();
    for i in 0..n {
        let a = polygon[i];
        let b = polygon[(i + 1) % n];
        if (a.y <= y && y <= b.y) || (b.y <= y && y <= a.y) {
            let x = if (b.y - a.y).abs() < 1e-12 {
                lo = lo.min(a.x.min(b.x));
                hi = hi.max(a.x.max(b.x));
                continue;
            } else {
                a.x + (y - a.y) / (b.y - a.y) * (b.x - a.x)
            };
            lo = lo.min(x);
            hi = hi.max(x);
        }
    }
    (lo <= hi).then_some((lo, hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LARGE: PyramidDims = PyramidDims {
        base_mm: 25.4,
        height_mm: 44.5,
    };

    #[test]
    fn a_flat_piece_lies_on_a_side_with_its_axis_16_degrees_down() {
        let pose = resting_pose(&LARGE, Resting::Flat, 10.0, 20.0, 0.7);
        let axis = pose.rotation * Vector3::z();
        let below_horizontal = (-axis.z).asin().to_degrees();
        assert!((below_horizontal - 16.0).abs() < 0.5, "{below_horizontal}");
        let zs: Vec<f64> = vertices_piece(&LARGE)
            .iter()
            .map(|v| (pose * v).z)
            .collect();
        let on_table = zs.iter().filter(|z| z.abs() < 1e-9).count();
        assert_eq!(on_table, 3, "{zs:?}");
        let centroid = pose * centroid_piece(&LARGE);
        assert!((centroid.x - 10.0).abs() < 1e-9 && (centroid.y - 20.0).abs() < 1e-9);
    }

    #[test]
    fn hull_and_spans_of_a_square() {
        let hull = convex_hull(vec![
            Point2::new(0.0, 0.0),
            Point2::new(10.0, 0.0),
            Point2::new(5.0, 5.0),
            Point2::new(10.0, 10.0),
            Point2::new(0.0, 10.0),
        ]);
        assert_eq!(hull.len(), 4);
        assert_eq!(row_span(&hull, 5.0), Some((0.0, 10.0)));
        assert_eq!(row_span(&hull, 11.0), None);
    }
}
