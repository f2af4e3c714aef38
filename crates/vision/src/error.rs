//! What can go wrong in the vision layer, each error saying what to do about it.

use std::path::PathBuf;

/// A vision failure. Messages name the file and suggest the fix; the app adds its own context.
#[derive(Debug, thiserror::Error)]
pub enum VisionError {
    #[error(
        "cannot read image {path}: the file is missing, unreadable or not an image OpenCV can decode (JPEG, PNG, ...)"
    )]
    ImageUnreadable { path: PathBuf },

    #[error("cannot read image {path}: {}", koanscope_capture::CUT_SHORT)]
    ImageCutShort { path: PathBuf },

    #[error(
        "image {path} is {actual_width}x{actual_height} but the calibration is for {expected_width}x{expected_height}: \
         use frames from the calibrated camera at the same resolution, or calibrate again"
    )]
    ResolutionMismatch {
        path: PathBuf,
        actual_width: u32,
        actual_height: u32,
        expected_width: u32,
        expected_height: u32,
    },

    #[error(
        "no {cols}x{rows} chessboard found in {path}: the whole board must be visible, sharp and evenly lit \
         (print calibration/chessboard-9x6-25mm.svg at 100% scale)"
    )]
    BoardNotFound { path: PathBuf, cols: i32, rows: i32 },

    #[error("{path} is not a koanscope calibration file: {reason}")]
    NotACalibration { path: PathBuf, reason: String },

    #[error("cannot write {path}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("camera calibration is too poor to use: {reason}")]
    PoorCalibration { reason: String },

    #[error("{what} needs {needed}, got {got}")]
    NotEnough {
        what: &'static str,
        needed: usize,
        got: usize,
    },

    #[error("colour model {path}: {reason}")]
    ColorModel { path: PathBuf, reason: String },

    #[error("OpenCV failed while {during}")]
    OpenCv {
        during: &'static str,
        #[source]
        source: opencv::Error,
    },
}

/// Wraps OpenCV errors with what we were doing, so the message says more than a C++ assertion.
pub(crate) trait CvContext<T> {
    fn during(self, what: &'static str) -> Result<T, VisionError>;
}

impl<T> CvContext<T> for Result<T, opencv::Error> {
    fn during(self, what: &'static str) -> Result<T, VisionError> {
        self.map_err(|source| VisionError::OpenCv {
            during: what,
            source,
        })
    }
}
