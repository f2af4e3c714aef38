//! The vision layer of koanscope: calibrates the webcam and the table, finds every pyramid in a
//! frame and estimates its colour, size and 3D pose. The only crate that links OpenCV.
//!
//! Stages, each usable alone: [`calibration`] (intrinsics, table frame, calibration file),
//! [`camera`] (projection between pixels and the table frame), [`target`] (printable board).

pub mod calibration;
pub mod camera;
mod cv;
mod error;
pub mod image;
pub mod target;

pub use calibration::{
    BoardView, Calibration, Chessboard, Intrinsics, IntrinsicsQuality, IntrinsicsReport, LensModel,
    TableReport, calibrate_intrinsics, calibrate_table, check_resolution, find_board,
};
pub use camera::Camera;
pub use cv::{isometry_from_rvec_tvec, rvec_tvec_from_isometry};
pub use error::VisionError;
