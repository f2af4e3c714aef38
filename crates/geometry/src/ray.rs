//! The bent pointing ray of `zendo-terms.md`, and where it meets a piece.

use nalgebra::{Isometry3, Point3, Vector3};
use parry3d_f64::query;
use parry3d_f64::shape::Segment;

use crate::model::Plane;
use crate::placed::Placed;

/// Far enough to cross any table; a ray "leaving the koan" is cut by koan membership, not length.
const RAY_REACH_MM: f64 = 5_000.0;

/// One straight leg of the ray, table frame.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Leg {
    pub origin: Point3<f64>,
    /// Unit direction.
    pub dir: Vector3<f64>,
    pub length: f64,
}

/// The ray leaving a piece's apex: straight along the axis, or, when it goes down, down to the skim
/// height and then along the table in the direction of the axis projected onto it.
#[derive(Debug, Clone)]
pub(crate) struct BentRay {
    pub legs: Vec<Leg>,
}

/// Where a ray met a piece.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RayMeeting {
    /// Length along the bent ray to the entry point (0 when it starts inside).
    pub distance: f64,
    /// Length along the bent ray to where it leaves the solid.
    pub exit: f64,
    /// Deepest point of the ray inside the solid (positive), or minus its closest approach.
    pub margin: f64,
    pub hits: bool,
}

impl BentRay {
    pub fn from_apex(apex: Point3<f64>, axis: Vector3<f64>, skim_height: f64) -> BentRay {
        let axis = axis.normalize();
        // A horizontal axis (within a hair) does not bend: it is not going down.
        if axis.z >= -1e-9 {
            return BentRay {
                legs: vec![Leg {
                    origin: apex,
                    dir: axis,
                    length: RAY_REACH_MM,
                }],
            };
        }
        let mut legs = Vec::with_capacity(2);
        let skim_start = if apex.z > skim_height {
            let length = (apex.z - skim_height) / -axis.z;
            legs.push(Leg {
                origin: apex,
                dir: axis,
                length,
            });
            apex + axis * length
        } else {
            // Already at or below the skim height (a piece lying flat): it skims at once.
            Point3::new(apex.x, apex.y, skim_height)
        };
        let along_table = Vector3::new(axis.x, axis.y, 0.0);
        // Straight down (upside-down piece): the ray ends at the table.
        if along_table.norm() > 1e-9 {
            legs.push(Leg {
                origin: skim_start,
                dir: along_table.normalize(),
                length: RAY_REACH_MM,
            });
        }
        BentRay { legs }
    }

    /// Does the ray meet `target`'s solid outer pyramid, how far along, and by what margin?
    /// A miss is measured exactly only when it may be closer than `near_miss`; farther ones
    /// report a bound (their true margin is no larger).
    pub fn meet(&self, target: &Placed, near_miss: f64) -> RayMeeting {
        let pose = &target.table_from_piece;
        let planes = &target.shape.outer_planes;
        let mut travelled = 0.0;
        let mut entry = None;
        let mut exit = f64::INFINITY;
        let mut deepest = f64::NEG_INFINITY;
        for leg in &self.legs {
            let origin_piece = pose.inverse_transform_point(&leg.origin);
            let dir_piece = pose.inverse_transform_vector(&leg.dir);
            if let Some((t_in, t_out)) =
                span_on_segment(planes, &origin_piece, &dir_piece, leg.length)
            {
                entry.get_or_insert(travelled + t_in);
                exit = travelled + t_out;
            }
            deepest = deepest.max(max_depth_on_segment(
                planes,
                &origin_piece,
                &dir_piece,
                leg.length,
            ));
            travelled += leg.length;
        }
        match entry {
            Some(distance) => RayMeeting {
                distance,
                exit,
                margin: deepest.max(0.0),
                hits: true,
            },
            // The deepest plane depth bounds the miss from below: far misses skip the GJK query.
            None if -deepest >= near_miss => RayMeeting {
                distance: f64::INFINITY,
                exit,
                margin: deepest,
                hits: false,
            },
            None => {
                let miss = self
                    .legs
                    .iter()
                    .map(|leg| {
                        let segment = Segment::new(leg.origin, leg.origin + leg.dir * leg.length);
                        query::distance(
                            &Isometry3::identity(),
                            &segment,
                            pose,
                            &*target.shape.outer,
                        )
                        .unwrap_or(f64::INFINITY)
                    })
                    .fold(f64::INFINITY, f64::min);
                RayMeeting {
                    distance: f64::INFINITY,
                    exit,
                    margin: -miss,
                    hits: false,
                }
            }
        }
    }
}

/// Where a segment enters (0 when it starts inside) and leaves a convex solid given by
/// half-spaces, by clipping it against each face. Exact for the five faces of a pyramid; parry's GJK ray cast
/// misses rays that start inside along the pyramid's own axis (the lower piece of a tower).
fn span_on_segment(
    planes: &[Plane; 5],
    origin: &Point3<f64>,
    dir: &Vector3<f64>,
    length: f64,
) -> Option<(f64, f64)> {
    let (mut t_in, mut t_out) = (0.0_f64, length);
    for plane in planes {
        let (depth, rate) = (plane.depth(origin), -plane.normal.dot(dir));
        if rate.abs() < 1e-12 {
            if depth < 0.0 {
                return None;
            }
        } else if rate > 0.0 {
            t_in = t_in.max(-depth / rate);
        } else {
            t_out = t_out.min(-depth / rate);
        }
    }
    (t_in <= t_out).then_some((t_in, t_out))
}

/// max over t in [0, length] of min_i depth_i(origin + dir t): a concave piecewise-linear function,
/// so the maximum is at an end or where two of its lines cross.
fn max_depth_on_segment(
    planes: &[Plane; 5],
    origin: &Point3<f64>,
    dir: &Vector3<f64>,
    length: f64,
) -> f64 {
    let lines: Vec<(f64, f64)> = planes
        .iter()
        .map(|p| (p.depth(origin), -p.normal.dot(dir)))
        .collect();
    let at = |t: f64| {
        lines
            .iter()
            .map(|(a, b)| a + b * t)
            .fold(f64::INFINITY, f64::min)
    };
    let mut best = at(0.0).max(at(length));
    for i in 0..lines.len() {
        for j in i + 1..lines.len() {
            let slope = lines[i].1 - lines[j].1;
            if slope.abs() > 1e-12 {
                let t = (lines[j].0 - lines[i].0) / slope;
                if (0.0..=length).contains(&t) {
                    best = best.max(at(t));
                }
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ray_going_down_bends_at_the_skim_height() {
        let axis = Vector3::new(1.0, 0.0, -1.0).normalize();
        let ray = BentRay::from_apex(Point3::new(0.0, 0.0, 11.0), axis, 1.0);
        assert_eq!(ray.legs.len(), 2);
        assert!((ray.legs[1].origin - Point3::new(10.0, 0.0, 1.0)).norm() < 1e-9);
        assert!((ray.legs[1].dir - Vector3::x()).norm() < 1e-9);
    }

    #[test]
    fn an_upside_down_ray_stops_at_the_table() {
        let ray = BentRay::from_apex(Point3::new(0.0, 0.0, 30.0), -Vector3::z(), 1.0);
        assert_eq!(ray.legs.len(), 1);
        assert!((ray.legs[0].length - 29.0).abs() < 1e-9);
    }

    #[test]
    fn a_flat_piece_skims_from_its_apex() {
        let axis = Vector3::new(0.96, 0.0, -0.28).normalize();
        let ray = BentRay::from_apex(Point3::new(5.0, 2.0, 0.05), axis, 1.0);
        assert_eq!(ray.legs.len(), 1);
        assert!((ray.legs[0].origin - Point3::new(5.0, 2.0, 1.0)).norm() < 1e-9);
    }
}
