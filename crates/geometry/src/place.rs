//! Exact poses for the ways pyramids are really set down: standing, lying on a side, upside down,
//! stacked, nested, leaning. Used to build koans in code (reference cases, counter-examples).

use nalgebra::{Isometry3, Point3, Rotation3, Translation3, UnitQuaternion, Vector3};

use crate::Engine;
use crate::model::{PieceModels, PyramidShape};
use koanscope_scene::{Piece, Size};

/// Resting contacts keep this clearance, so a piece "on" something is not inside it.
pub const REST_CLEARANCE_MM: f64 = 0.05;

/// Places pieces of the given models. `Placer::default()` uses the bundled dimensions.
#[derive(Clone, Default)]
pub struct Placer {
    models: PieceModels,
}

impl Placer {
    pub fn new(models: PieceModels) -> Placer {
        Placer { models }
    }

    pub fn models(&self) -> &PieceModels {
        &self.models
    }

    fn shape(&self, size: Size) -> PyramidShape {
        PyramidShape::new(self.models.dims(size), self.models.wall_mm)
    }

    /// Standing on its base, base centre at (x, y), turned `yaw` radians about z.
    pub fn upright(&self, x: f64, y: f64, yaw: f64) -> Isometry3<f64> {
        Isometry3::from_parts(
            Translation3::new(x, y, REST_CLEARANCE_MM),
            UnitQuaternion::from_axis_angle(&Vector3::z_axis(), yaw),
        )
    }

    /// Upside down on its apex, apex at (x, y).
    pub fn upside_down(&self, size: Size, x: f64, y: f64, yaw: f64) -> Isometry3<f64> {
        let h = self.models.dims(size).height_mm;
        let flip = UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::PI);
        let turn = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), yaw);
        Isometry3::from_parts(Translation3::new(x, y, h + REST_CLEARANCE_MM), turn * flip)
    }

    /// Lying on a side face on the table, base centre above (x, y), apex heading `heading`
    /// radians from +x (it lies about 16° below horizontal).
    pub fn flat(&self, size: Size, x: f64, y: f64, heading: f64) -> Isometry3<f64> {
        self.flat_at_height(size, x, y, heading, 0.0)
    }

    /// Lying on a side face whose plane is at height `z` (on the tips of other pieces, say).
    pub fn flat_at_height(
        &self,
        size: Size,
        x: f64,
        y: f64,
        heading: f64,
        z: f64,
    ) -> Isometry3<f64> {
        let shape = self.shape(size);
        // Turn the +x side face to face straight down: the apex then heads +x, below horizontal.
        let face_down = Rotation3::rotation_between(&shape.side_normals[0], &-Vector3::z())
            .expect("a side normal is not straight up");
        let rotation = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), heading)
            * UnitQuaternion::from_rotation_matrix(&face_down);
        let lowest = shape
            .vertices
            .iter()
            .map(|v| (rotation * v).z)
            .fold(f64::INFINITY, f64::min);
        Isometry3::from_parts(
            Translation3::new(x, y, z + REST_CLEARANCE_MM - lowest),
            rotation,
        )
    }

    /// `upper` set on the tip of an upright `lower` with the same yaw: it rests where its cavity
    /// rim meets the lower faces, or where the two apexes meet, whichever comes first. `None`
    /// when the upper is too big to stay up (it slides down over the lower: a nest).
    pub fn on_tip(
        &self,
        lower: Size,
        lower_pose: &Isometry3<f64>,
        upper: Size,
    ) -> Option<Isometry3<f64>> {
        let u = self.shape(upper);
        let lower_dims = self.models.dims(lower);
        let half_lower = lower_dims.base_mm / 2.0;
        let cavity_half = u.cavity_vertices[1].x;
        // Height above the lower base where the lower is exactly as wide as the upper's cavity.
        let rim_rest = (half_lower - cavity_half) * lower_dims.height_mm / half_lower;
        let apex_rest = lower_dims.height_mm - u.cavity_apex.z;
        let rest = rim_rest.max(apex_rest);
        if rest <= 0.0 {
            return None;
        }
        // Lifted a hair along the axis so the pieces rest on, not in, each other.
        let lift = rest + REST_CLEARANCE_MM;
        Some(lower_pose * Isometry3::translation(0.0, 0.0, lift))
    }

    /// A piece standing at (x, y) and tipped `tilt` radians about its base edge toward `heading`:
    /// the edge stays on the table and the apex swings toward `heading`. Past lying on a side
    /// (about 105°) the apex would go into the table: for a piece upside down at a slant, turn
    /// one from [`Placer::upside_down`] about its apex.
    pub fn tipped(&self, size: Size, x: f64, y: f64, heading: f64, tilt: f64) -> Isometry3<f64> {
        let half = self.models.dims(size).base_mm / 2.0;
        let turn = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), heading);
        // Pivot about the base edge at +x (in the piece frame turned to `heading`).
        let pivot_piece = Vector3::new(half, 0.0, 0.0);
        let tip = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), tilt);
        let rotation = turn * tip;
        let pivot_table = Point3::new(x, y, REST_CLEARANCE_MM) + turn * pivot_piece;
        let origin = pivot_table - rotation * pivot_piece;
        Isometry3::from_parts(Translation3::from(origin.coords), rotation)
    }

    /// Where an upright piece of `size` stands to hold `leaner` up: on the line from the
    /// leaner's base centre toward `heading` (radians, table frame), the nearest place where
    /// their plastic is still `gap_mm` apart, by bisection between the base centre (the two
    /// overlapping) and 80 mm out (apart). `None` where that bracket does not hold the contact.
    pub fn upright_holding(
        &self,
        engine: &Engine,
        leaner: &Piece,
        size: Size,
        heading: f64,
        gap_mm: f64,
    ) -> Option<Isometry3<f64>> {
        let from = leaner.table_from_piece.translation;
        let at = |d: f64| self.upright(from.x + d * heading.cos(), from.y + d * heading.sin(), 0.0);
        let gap = |d: f64| {
            engine.surface_distance(leaner, &Piece::new(leaner.id, leaner.color, size, at(d)))
        };
        let (mut overlapping, mut apart) = (0.0, 80.0);
        if gap(overlapping) >= gap_mm || gap(apart) <= gap_mm {
            return None;
        }
        for _ in 0..60 {
            let mid = (overlapping + apart) / 2.0;
            if gap(mid) > gap_mm {
                apart = mid;
            } else {
                overlapping = mid;
            }
        }
        Some(at(apart))
    }

    /// The apex of a piece of `size` at `pose`, table frame.
    pub fn apex(&self, size: Size, pose: &Isometry3<f64>) -> Point3<f64> {
        pose * Point3::new(0.0, 0.0, self.models.dims(size).height_mm)
    }
}
