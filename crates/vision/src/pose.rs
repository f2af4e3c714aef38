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
    /// Tipped about a base edge (leaning) or standing on its apex: its lowest point on the table.
    Tilted,
    /// Upright with its cavity over the tip of an upright piece below (a tower).
    Stacked,
    /// Lying on a side across the apexes of two pieces (a bridge).
    Bridging,
}

impl Resting {
    /// Whether the piece rests on other pieces (stacked on a tip or across two), not on the
    /// table.
    pub fn on_pieces(self) -> bool {
        matches!(self, Resting::Stacked | Resting::Bridging)
    }
}

/// Whether a piece resting so must lean on another to stay as it is: tipped about a base edge
/// (or standing on its apex at a slant) it falls back onto its base or a side unless something
/// holds it. Upright, lying on a side and balanced on the apex, within 8° of each (as far as a
/// fit can tell), are rests of its own.
pub(crate) fn leans(
    resting: Resting,
    table_from_piece: &Isometry3<f64>,
    dims: &PyramidDims,
) -> bool {
    const REST_WITHIN: f64 = 8.0 * std::f64::consts::PI / 180.0;
    if resting != Resting::Tilted {
        return false;
    }
    let tilt = (table_from_piece.rotation * Vector3::z())
        .z
        .clamp(-1.0, 1.0)
        .acos();
    let own_rests = [0.0, flat_tilt(dims), std::f64::consts::PI];
    !own_rests.iter().any(|r| (tilt - r).abs() <= REST_WITHIN)
}

/// The five corners of a pyramid in its own frame: base corners then apex.
pub fn vertices_piece(dims: &PyramidDims) -> [Point3<f64>; 5] {
    let [a, b, c, d] = level_square_piece(dims.base_mm / 2.0, 0.0);
    [a, b, c, d, Point3::new(0.0, 0.0, dims.height_mm)]
}

/// The corners of a level square centred on a piece's axis, `half_mm` from it each way and
/// `z_mm` up it, in its own frame, in the order its base's corners go round.
pub(crate) fn level_square_piece(half_mm: f64, z_mm: f64) -> [Point3<f64>; 4] {
    let h = half_mm;
    [(h, h), (-h, h), (-h, -h), (h, -h)].map(|(x, y)| Point3::new(x, y, z_mm))
}

/// The solid's centroid in the piece frame (a quarter of the way up).
pub fn centroid_piece(dims: &PyramidDims) -> Point3<f64> {
    Point3::new(0.0, 0.0, dims.height_mm / 4.0)
}

/// The angle between a side face and the base, radians.
fn side_angle(dims: &PyramidDims) -> f64 {
    (dims.height_mm / (dims.base_mm / 2.0)).atan()
}

/// The tilt that lays a piece on a side face: 180° less the angle between a side and the base.
pub fn flat_tilt(dims: &PyramidDims) -> f64 {
    std::f64::consts::PI - side_angle(dims)
}

/// A pose resting on the table (its lowest corner at z = 0), tipped by `tilt` about a base edge
/// (0 upright, [`flat_tilt`] lying on a side, π standing on its apex), turned by `yaw` about the
/// vertical, and placed so the solid's centroid is above (x, y).
pub fn pose_on_table(dims: &PyramidDims, tilt: f64, x: f64, y: f64, yaw: f64) -> Isometry3<f64> {
    let rotation = Rotation3::from_axis_angle(&Vector3::z_axis(), yaw)
        * Rotation3::from_axis_angle(&Vector3::x_axis(), -tilt);
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

/// An upright pose with its base centre at a given table point, turned by `yaw`.
pub fn pose_upright_at(base_centre: &Point3<f64>, yaw: f64) -> Isometry3<f64> {
    Isometry3::from_parts(
        Translation3::from(base_centre.coords),
        UnitQuaternion::from_axis_angle(&Vector3::z_axis(), yaw),
    )
}

/// How far below its outer apex a piece's cavity ends, mm: the wall measured vertically.
pub fn cavity_apex_depth(dims: &PyramidDims, wall_mm: f64) -> f64 {
    wall_mm / side_angle(dims).cos()
}

/// How wide the rim of a piece's open base is, mm: the wall cut level, wider than the wall as
/// the faces slope.
pub fn rim_width_mm(dims: &PyramidDims, wall_mm: f64) -> f64 {
    wall_mm / side_angle(dims).sin()
}

/// The inner corners of a piece's open base in its own frame: where its rim gives way to the
/// hollow.
pub fn hollow_corners_piece(dims: &PyramidDims, wall_mm: f64) -> [Point3<f64>; 4] {
    level_square_piece(dims.base_mm / 2.0 - rim_width_mm(dims, wall_mm), 0.0)
}

/// The apex of a piece's cavity in its own frame: where the tip of a piece it is stacked on sits.
pub fn cavity_apex_piece(dims: &PyramidDims, wall_mm: f64) -> Point3<f64> {
    Point3::new(0.0, 0.0, dims.height_mm - cavity_apex_depth(dims, wall_mm))
}

/// The silhouette of a pose in the image: convex hull of the projected corners, or `None` when
/// a corner is behind the camera.
pub fn silhouette(
    camera: &Camera,
    dims: &PyramidDims,
    table_from_piece: &Isometry3<f64>,
) -> Option<Vec<Point2<f64>>> {
    with_silhouette(camera, dims, table_from_piece, <[Point2<f64>]>::to_vec)
}

/// `use_it` of the silhouette of a pose (see [`silhouette`]), built on the stack: the fit
/// scores thousands of silhouettes a frame and keeps few of them.
pub fn with_silhouette<R>(
    camera: &Camera,
    dims: &PyramidDims,
    table_from_piece: &Isometry3<f64>,
    use_it: impl FnOnce(&[Point2<f64>]) -> R,
) -> Option<R> {
    let mut points = [Point2::origin(); 5];
    for (point, v) in points.iter_mut().zip(vertices_piece(dims)) {
        *point = camera.project_table(&(table_from_piece * v))?;
    }
    let mut hull = [Point2::origin(); 10];
    let n = hull_into(&mut points, &mut hull);
    Some(use_it(&hull[..n]))
}

/// Andrew's monotone chain; counter-clockwise in image coordinates, no repeated point.
pub fn convex_hull(mut points: Vec<Point2<f64>>) -> Vec<Point2<f64>> {
    let mut hull = vec![Point2::origin(); 2 * points.len()];
    let n = hull_into(&mut points, &mut hull);
    hull.truncate(n);
    hull
}

/// [`convex_hull`] of `points` (which it sorts) written to the front of `hull` (room for twice
/// as many points): how many it wrote.
fn hull_into(points: &mut [Point2<f64>], hull: &mut [Point2<f64>]) -> usize {
    points.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    // Equal points made one, as `Vec::dedup` does.
    let mut kept = 0;
    for i in 0..points.len() {
        if kept == 0 || points[i] != points[kept - 1] {
            points[kept] = points[i];
            kept += 1;
        }
    }
    let points = &points[..kept];
    if points.len() < 3 {
        hull[..points.len()].copy_from_slice(points);
        return points.len();
    }
    let cross = |o: &Point2<f64>, a: &Point2<f64>, b: &Point2<f64>| {
        (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
    };
    let mut len = 0;
    // Lower hull left to right, then upper hull right to left, never popping into the lower one.
    for p in points {
        while len >= 2 && cross(&hull[len - 2], &hull[len - 1], p) <= 0.0 {
            len -= 1;
        }
        hull[len] = *p;
        len += 1;
    }
    let lower_len = len + 1;
    for p in points.iter().rev().skip(1) {
        while len >= lower_len && cross(&hull[len - 2], &hull[len - 1], p) <= 0.0 {
            len -= 1;
        }
        hull[len] = *p;
        len += 1;
    }
    len - 1
}

/// Whether a pixel lies inside a convex outline.
pub fn inside_convex(outline: &[Point2<f64>], px: &Point2<f64>) -> bool {
    row_span(outline, px.y).is_some_and(|(lo, hi)| lo <= px.x && px.x <= hi)
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
        let pose = pose_on_table(&LARGE, flat_tilt(&LARGE), 10.0, 20.0, 0.7);
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
    fn standing_on_the_apex_puts_the_base_on_top() {
        let pose = pose_on_table(&LARGE, std::f64::consts::PI, 0.0, 0.0, 0.0);
        let apex = pose * vertices_piece(&LARGE)[4];
        let base = pose * Point3::origin();
        assert!(apex.z.abs() < 1e-9 && (base.z - 44.5).abs() < 1e-9);
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

    /// Repeated corners, a point on an edge and one inside leave the corners once each, wound
    /// one way; fewer than three distinct points are returned as they are, once each.
    #[test]
    fn a_hull_keeps_each_corner_once_and_nothing_else() {
        let p = |x: f64, y: f64| Point2::new(x, y);
        let corners = [p(2.0, 1.0), p(9.0, 2.0), p(8.0, 7.0), p(1.0, 6.0)];
        let hull = convex_hull(vec![
            corners[2],
            p(5.0, 4.0),
            corners[0],
            corners[2],
            p(5.5, 1.5),
            corners[1],
            corners[3],
            corners[0],
        ]);
        assert_eq!(hull.len(), 4, "{hull:?}");
        assert!(corners.iter().all(|c| hull.contains(c)), "{hull:?}");
        let twice_area: f64 = (0..4)
            .map(|i| hull[i].x * hull[(i + 1) % 4].y - hull[(i + 1) % 4].x * hull[i].y)
            .sum();
        assert!(
            twice_area > 0.0,
            "counter-clockwise in image coordinates: {hull:?}"
        );
        assert_eq!(
            convex_hull(vec![p(1.0, 1.0), p(3.0, 2.0), p(1.0, 1.0)]).len(),
            2
        );
        assert_eq!(convex_hull(vec![p(1.0, 1.0); 3]), vec![p(1.0, 1.0)]);
        assert!(convex_hull(Vec::new()).is_empty());
    }
}
