//! The scene model every koanscope stage shares.
//!
//! A [`Scene`] holds pieces with their rigid poses (`table_from_piece`, millimetres, table frame z up)
//! and, once the geometry engine has run, their attributes and the koans with their relations.
//! It reads and writes the scene document of `docs/scene-json.md`; a bad document gets an error
//! naming the field of the piece or koan that is wrong.
//!
//! ```
//! use koanscope_scene::{Scene, Color, Size};
//! let scene = Scene::from_json_str(r#"{"pieces": [{"id": 0, "color": "red", "size": "large",
//!     "table_from_piece": [[1,0,0,120],[0,1,0,40],[0,0,1,0],[0,0,0,1]]}]}"#).unwrap();
//! assert_eq!(scene.pieces[0].color, Color::Red);
//! assert_eq!(scene.pieces[0].size, Size::Large);
//! ```

mod document;
mod koan;
mod piece;

pub use document::{SCHEMA, Scene, SceneError, rigid_from_rows};
pub use koan::{
    InsertedDetail, JudgmentCall, Koan, PointingDetail, RelationsDetail, TouchingDetail,
};
pub use piece::{
    Color, KoanId, Mark, Orientation, Piece, PieceAttributes, PieceId, PieceMargins, Shape, Size,
    UnknownWord,
};
