//! Piece dimensions (from `models/pyramids.toml`) and the exact shapes built from them.

use std::path::Path;
use std::sync::Arc;

use koanscope_scene::Size;
use nalgebra::{Isometry3, Point3, Vector3};
use parry3d_f64::shape::{Compound, ConvexPolyhedron, SharedShape};
use serde::Deserialize;

use crate::GeometryError;

/// The dimensions shipped with koanscope.
pub const DEFAULT_MODELS_TOML: &str = include_str!("../../../models/pyramids.toml");

/// Outer dimensions of one size, mm.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PyramidDims {
    pub base_mm: f64,
    pub height_mm: f64,
}

/// The dimensions of every size, and the wall thickness they share.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PieceModels {
    pub wall_mm: f64,
    pub small: PyramidDims,
    pub medium: PyramidDims,
    pub large: PyramidDims,
}

impl Default for PieceModels {
    fn default() -> Self {
        PieceModels::from_toml_str(DEFAULT_MODELS_TOML).expect("the bundled models file is valid")
    }
}

impl PieceModels {
    pub fn from_toml_str(text: &str) -> Result<PieceModels, GeometryError> {
        let models: PieceModels =
            toml::from_str(text).map_err(|e| GeometryError::Models(e.to_string()))?;
        for (name, dims) in [
            ("small", models.small),
            ("medium", models.medium),
            ("large", models.large),
        ] {
            let wall_fits = models.wall_mm > 0.0 && models.wall_mm * 3.0 < dims.base_mm;
            if !(dims.base_mm > 0.0 && dims.height_mm > 0.0 && wall_fits) {
                return Err(GeometryError::Models(format!(
                    "{name}: base {} mm, height {} mm and wall {} mm do not make a hollow pyramid",
                    dims.base_mm, dims.height_mm, models.wall_mm
                )));
            }
        }
        Ok(models)
    }

    pub fn from_path(path: &Path) -> Result<PieceModels, GeometryError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| GeometryError::Models(format!("cannot read {}: {e}", path.display())))?;
        PieceModels::from_toml_str(&text)
    }

    pub fn dims(&self, size: Size) -> PyramidDims {
        match size {
            Size::Small => self.small,
            Size::Medium => self.medium,
            Size::Large => self.large,
        }
    }
}

/// A half-space `normal · p <= offset` in the piece frame.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Plane {
    pub normal: Vector3<f64>,
    pub offset: f64,
}

impl Plane {
    /// How far `p` is inside (positive) or outside (negative) the half-space.
    pub fn depth(&self, p: &Point3<f64>) -> f64 {
        self.offset - self.normal.dot(&p.coords)
    }
}

/// One size's exact shapes in the piece frame (origin at the base centre, +z to the apex).
#[derive(Clone)]
pub(crate) struct PyramidShape {
    /// Solid outer pyramid: what a pointing ray meets, and what koan grouping measures.
    pub outer: SharedShape,
    /// The hollow inside, closed at the base plane: what an inserted piece overlaps.
    pub cavity: SharedShape,
    /// The plastic itself (four walls): what touches.
    pub shell: SharedShape,
    /// Apex and four base corners of the outer pyramid.
    pub vertices: [Point3<f64>; 5],
    /// Outward normals of the four side faces.
    pub side_normals: [Vector3<f64>; 4],
    /// Side faces then base, as half-spaces.
    pub outer_planes: [Plane; 5],
    pub cavity_planes: [Plane; 5],
    /// Apex and four base corners of the cavity.
    pub cavity_vertices: [Point3<f64>; 5],
    pub cavity_apex: Point3<f64>,
}

impl PyramidShape {
    pub fn new(dims: PyramidDims, wall_mm: f64) -> PyramidShape {
        let (b, h) = (dims.base_mm / 2.0, dims.height_mm);
        let slant = (h * h + b * b).sqrt();
        // Outward side normals: (±h, 0, b)/slant and (0, ±h, b)/slant.
        let side_normals = [
            Vector3::new(h, 0.0, b) / slant,
            Vector3::new(-h, 0.0, b) / slant,
            Vector3::new(0.0, h, b) / slant,
            Vector3::new(0.0, -h, b) / slant,
        ];
        let side_offset = h * b / slant;
        let down = Vector3::new(0.0, 0.0, -1.0);
        let planes = |offset: f64| {
            let s = |n: Vector3<f64>| Plane { normal: n, offset };
            [
                s(side_normals[0]),
                s(side_normals[1]),
                s(side_normals[2]),
                s(side_normals[3]),
                Plane {
                    normal: down,
                    offset: 0.0,
                },
            ]
        };
        let outer_planes = planes(side_offset);
        let cavity_planes = planes(side_offset - wall_mm);
        // Moving each face inward by the wall lowers the apex by wall * slant / b and narrows the
        // base by wall * slant / h (perpendicular offset of a face of that slope).
        let cavity_apex = Point3::new(0.0, 0.0, h - wall_mm * slant / b);
        let cavity_half = b - wall_mm * slant / h;

        let pyramid = |half: f64, apex_z: f64| {
            [
                Point3::new(0.0, 0.0, apex_z),
                Point3::new(half, half, 0.0),
                Point3::new(-half, half, 0.0),
                Point3::new(-half, -half, 0.0),
                Point3::new(half, -half, 0.0),
            ]
        };
        let vertices = pyramid(b, h);
        let cavity_vertices = pyramid(cavity_half, cavity_apex.z);
        let hull = |points: &[Point3<f64>]| {
            ConvexPolyhedron::from_convex_hull(points).expect("a pyramid is a valid convex hull")
        };
        // Each wall is the hull of an outer side face and the cavity face beneath it; the four
        // hulls share their corner quads, so together they are exactly the shell.
        let corners = [(1, 2), (2, 3), (3, 4), (4, 1)];
        let walls = corners
            .iter()
            .map(|&(i, j)| {
                let points = [
                    vertices[0],
                    vertices[i],
                    vertices[j],
                    cavity_vertices[0],
                    cavity_vertices[i],
                    cavity_vertices[j],
                ];
                (Isometry3::identity(), SharedShape(Arc::new(hull(&points))))
            })
            .collect();
        PyramidShape {
            outer: SharedShape(Arc::new(hull(&vertices))),
            cavity: SharedShape(Arc::new(hull(&cavity_vertices))),
            shell: SharedShape(Arc::new(Compound::new(walls))),
            vertices,
            side_normals,
            outer_planes,
            cavity_planes,
            cavity_vertices,
            cavity_apex,
        }
    }

    /// Smallest depth of `p` inside a set of half-spaces (negative when outside one).
    pub fn depth_in(planes: &[Plane; 5], p: &Point3<f64>) -> f64 {
        planes
            .iter()
            .map(|pl| pl.depth(p))
            .fold(f64::INFINITY, f64::min)
    }
}
