//! The vision layer of koanscope: calibrates the webcam and the table, finds every pyramid in a
//! frame and estimates its colour, size and 3D pose. The only crate that links OpenCV.
//!
//! Stages, each usable alone: [`calibration`] (intrinsics, table frame, calibration file),
//! [`board_views`] (which frames of a camera feed make calibration views),
//! [`camera`] (projection between pixels and the table frame), [`color`] (which pixels are
//! pieces and of what colour), [`segment`] (the frame classified), [`detect`] (pieces and their
//! poses), [`contact`] (contacts finer than a fit can measure), [`target`] (printable board).

pub mod analyze;
pub mod board_views;
pub mod calibration;
pub mod camera;
mod cast_shadow;
pub mod color;
pub mod contact;
mod cv;
pub mod denoise;
pub mod detect;
mod error;
pub mod evaluate;
mod gap;
pub mod heap;
pub mod image;
mod lab_table;
mod lean_refit;
mod left_board;
pub mod memory;
mod occlusion;
pub mod overlay;
pub mod pose;
mod region;
pub mod render;
pub mod rim;
pub mod segment;
pub mod shading;
mod shadow;
mod stats;
pub mod steadiness;
pub mod target;

pub use analyze::{Analysis, PossiblyHiding, analyze, analyze_remembering, write_overlay};
pub use board_views::{BoardSpread, Coverage, Look, PickParams, ViewPicker};
pub use calibration::{
    BoardView, Calibration, Chessboard, Intrinsics, IntrinsicsQuality, IntrinsicsReport, LensModel,
    MAX_BOARD_WHITE_CHROMA, SHARP_EDGE_RISE_PX, TableReport, calibrate_intrinsics, calibrate_table,
    check_resolution, find_board, find_board_in_feed, light_cast, light_cast_advice,
};
pub use camera::Camera;
pub use color::ColorModel;
pub use cv::{isometry_from_rvec_tvec, rvec_tvec_from_isometry};
pub use detect::{
    DetectParams, Detection, Detector, HueUpdate, ShadedAlternative, ShadedChoice, Tipped,
    TurnedOver, relearn_colors, relearn_colors_labelled,
};
pub use error::VisionError;
pub use koanscope_geometry::may_hide;
pub use memory::{FitMemory, MemoryUse};
pub use occlusion::visible_fractions;
pub use overlay::{KoanShape, OverlayShapes, PieceShape};
pub use pose::Resting;
