//! What can go wrong while getting frames, each error saying what to do about it.

use std::fmt;
use std::path::PathBuf;

/// A camera the system offers, as [`crate::list_cameras`] reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CameraInfo {
    /// The number to pass to `--camera` (the N of `/dev/videoN` on Linux).
    pub index: u32,
    pub name: String,
    /// Where the backend found it, e.g. `Video4Linux Device @ /dev/video0`.
    pub description: String,
}

impl fmt::Display for CameraInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.index, self.name)
    }
}

/// A frame source failure. Messages name the camera or file and suggest the fix; the app adds
/// its own context.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    #[error(
        "no camera found: connect a webcam (and check that you may read /dev/video*), \
         or play a recording with --video FILE or a folder of frames with --images DIR"
    )]
    NoCamera,

    #[error(
        "there is no camera {index}; cameras found: {}. Choose one with --camera N, \
         or use --video FILE or --images DIR",
        list(found)
    )]
    CameraNotFound { index: u32, found: Vec<CameraInfo> },

    #[error(
        "camera {index} ({name}) could not be opened: {reason}. Close any other program using it, \
         or try another --camera, a lower resolution or frame rate"
    )]
    CameraOpen {
        index: u32,
        name: String,
        reason: String,
    },

    #[error(
        "this koanscope was built without webcam support (the `webcam` feature of koanscope-capture): \
         rebuild with it, or use --video FILE or --images DIR"
    )]
    NoWebcamSupport,

    /// The device or folder behind a running source went away. [`crate::Reconnecting`] turns
    /// this into a pause and tries again; every other error ends the stream.
    #[error(
        "{what} disconnected: {reason}. Plug it back in (or restore it): the view resumes when it returns"
    )]
    Disconnected { what: String, reason: String },

    #[error("{path}: no such file or folder")]
    NotFound { path: PathBuf },

    #[error(
        "cannot play video {path}: {reason}. It must be a video OpenCV can decode here \
         (MJPG in .avi always works; re-encode with `ffmpeg -i IN -c:v mjpeg OUT.avi`)"
    )]
    VideoUnreadable { path: PathBuf, reason: String },

    #[error("cannot read image {path}: {reason}. Replace or remove the file")]
    ImageUnreadable { path: PathBuf, reason: String },

    #[error("{path} holds no JPEG or PNG images: point --images at a folder of frames")]
    EmptyFolder { path: PathBuf },

    #[error(
        "image {path} is {width}x{height} but the first frame of the folder is \
         {expected_width}x{expected_height}: a camera's frames all have one size, so should the folder's"
    )]
    SizeMismatch {
        path: PathBuf,
        width: u32,
        height: u32,
        expected_width: u32,
        expected_height: u32,
    },

    #[error("reading from camera {index} failed: {reason}")]
    CameraRead { index: u32, reason: String },

    #[error("OpenCV failed while {during}")]
    OpenCv {
        during: &'static str,
        #[source]
        source: opencv::Error,
    },
}

fn list(found: &[CameraInfo]) -> String {
    found
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

impl CaptureError {
    /// True for the errors a [`crate::Reconnecting`] source waits out.
    pub fn is_disconnect(&self) -> bool {
        matches!(self, CaptureError::Disconnected { .. })
    }
}

/// Wraps OpenCV errors with what we were doing, so the message says more than a C++ assertion.
pub(crate) trait CvContext<T> {
    fn during(self, what: &'static str) -> Result<T, CaptureError>;
}

impl<T> CvContext<T> for Result<T, opencv::Error> {
    fn during(self, what: &'static str) -> Result<T, CaptureError> {
        self.map_err(|source| CaptureError::OpenCv {
            during: what,
            source,
        })
    }
}
