//! A piece put at its pose: world-frame vertices, and the attributes of the piece alone.

use koanscope_scene::{Orientation, Piece, PieceAttributes, PieceId, PieceMargins};
use nalgebra::{Isometry3, Point3, Vector3};
use parry3d_f64::bounding_volume::Aabb;

use crate::model::PyramidShape;
use crate::params::Thresholds;

/// One piece with its shape and pose, and what follows from them in the table frame.
pub(crate) struct Placed<'a> {
    pub id: PieceId,
    pub shape: &'a PyramidShape,
    pub table_from_piece: Isometry3<f64>,
    pub apex_table: Point3<f64>,
    pub base_center_table: Point3<f64>,
    pub axis_table: Vector3<f64>,
    pub vertices_table: [Point3<f64>; 5],
    pub aabb_table: Aabb,
}

impl<'a> Placed<'a> {
    pub fn new(piece: &Piece, shape: &'a PyramidShape) -> Placed<'a> {
        let pose = piece.table_from_piece;
        let vertices_table = shape.vertices.map(|v| pose * v);
        Placed {
            id: piece.id,
            shape,
            table_from_piece: pose,
            apex_table: vertices_table[0],
            base_center_table: pose * Point3::origin(),
            axis_table: pose.rotation * Vector3::z(),
            vertices_table,
            aabb_table: shape.outer.compute_aabb(&pose),
        }
    }

    /// Every corner of the plastic: the outer pyramid's and the cavity's.
    pub fn shell_vertices_table(&self) -> impl Iterator<Item = Point3<f64>> + '_ {
        let cavity = self
            .shape
            .cavity_vertices
            .iter()
            .map(|v| self.table_from_piece * v);
        self.vertices_table.iter().copied().chain(cavity)
    }

    /// Orientation, grounded and height, each with its margin.
    pub fn attributes(&self, t: &Thresholds) -> PieceAttributes {
        let angle_up = degrees_between(&self.axis_table, &Vector3::z());
        let down = -Vector3::z();
        let angle_face_down = self
            .shape
            .side_normals
            .iter()
            .map(|n| degrees_between(&(self.table_from_piece.rotation * n), &down))
            .fold(f64::INFINITY, f64::min);
        let (orientation, orientation_margin) = if angle_up <= t.upright_deg {
            (Orientation::Upright, t.upright_deg - angle_up)
        } else if angle_face_down <= t.flat_deg {
            (Orientation::Flat, t.flat_deg - angle_face_down)
        } else {
            let to_nearest = (angle_up - t.upright_deg).min(angle_face_down - t.flat_deg);
            (Orientation::Weird, to_nearest)
        };
        let zs = self.vertices_table.iter().map(|v| v.z);
        let lowest = zs.clone().fold(f64::INFINITY, f64::min);
        let highest = zs.fold(f64::NEG_INFINITY, f64::max);
        PieceAttributes {
            base_center_mm: round_point(self.base_center_table),
            apex_mm: round_point(self.apex_table),
            axis: self.axis_table.map(|c| round_to(c, 6)),
            height_mm: round_to(highest, 4),
            orientation,
            grounded: lowest <= t.grounded_mm,
            margins: PieceMargins {
                orientation_deg: round_to(orientation_margin, 3),
                grounded_mm: round_to(t.grounded_mm - lowest, 4),
            },
        }
    }
}

pub(crate) fn degrees_between(a: &Vector3<f64>, b: &Vector3<f64>) -> f64 {
    let cos = a.dot(b) / (a.norm() * b.norm());
    cos.clamp(-1.0, 1.0).acos().to_degrees()
}

/// Distance between two boxes (0 when they overlap): a lower bound of the distance of what they hold.
pub(crate) fn aabb_distance(a: &Aabb, b: &Aabb) -> f64 {
    let gap = (a.mins - b.maxs)
        .sup(&(b.mins - a.maxs))
        .sup(&Vector3::zeros());
    gap.norm()
}

/// Rounds to a number of decimals: documents carry a tenth of a micrometre (4 decimals of a mm);
/// finer digits are noise and only clutter diffs.
pub(crate) fn round_to(value: f64, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    (value * scale).round() / scale
}

fn round_point(p: Point3<f64>) -> Point3<f64> {
    p.map(|c| round_to(c, 4))
}
