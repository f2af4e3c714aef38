//! The geometry engine: what a careful Master would say about pieces at known 3D poses.
//!
//! From each piece's `table_from_piece` pose and the exact piece shapes (outer shell and cavity,
//! dimensions in `models/pyramids.toml`) it derives orientation, grounded and height per piece;
//! touching, pointing (the bent ray, targets in order), inserted and fully inserted, towers, nests
//! and direction per koan; and groups pieces into koans. Every judgment carries its margin to the
//! threshold of `zendo-terms.md`, and near calls are listed for the Master.
//!
//! ```
//! use koanscope_geometry::Engine;
//! use koanscope_scene::{Color, Orientation, Piece, Scene, Size};
//! use nalgebra::Isometry3;
//!
//! let mut scene = Scene::from_pieces(vec![Piece::new(0, Color::Red, Size::Large, Isometry3::identity())]);
//! Engine::default().derive(&mut scene);
//! let attributes = scene.pieces[0].attributes.as_ref().unwrap();
//! assert_eq!(attributes.orientation, Orientation::Upright);
//! assert!(attributes.grounded);
//! assert_eq!(scene.koans.len(), 1);
//! ```

mod engine;
pub mod fixtures;
mod hidden;
mod model;
mod params;
mod place;
mod placed;
mod ray;

pub use engine::Engine;
pub use hidden::{HIDDEN_COLOURS, HiddenPiece, may_hide};
pub use model::{DEFAULT_MODELS_TOML, PieceModels, PyramidDims};
pub use params::{CallWindows, Thresholds};
pub use place::{Placer, REST_CLEARANCE_MM};

/// What can go wrong before any geometry is done.
#[derive(Debug, thiserror::Error)]
pub enum GeometryError {
    #[error("piece models: {0}")]
    Models(String),
}
