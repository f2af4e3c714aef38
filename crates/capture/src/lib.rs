//! Frame sources for koanscope, behind one interface: a webcam ([`Webcam`], through nokhwa), a
//! video file ([`VideoFile`], through OpenCV's videoio) and a folder of images ([`ImageFolder`],
//! played as if a camera watched a table). [`Reconnecting`] wraps any of them so that an unplugged
//! camera pauses the view and resumes when it returns, instead of ending the game.
//!
//! ```no_run
//! use koanscope_capture::{FolderOptions, FrameSource, ImageFolder};
//! # fn main() -> Result<(), koanscope_capture::CaptureError> {
//! let mut source = ImageFolder::open("sample_images/S1".as_ref(), FolderOptions::default())?;
//! while let Some(frame) = source.next_frame()? {
//!     println!("frame {} at {:?}: {}x{}", frame.index, frame.time, frame.image.width(), frame.image.height());
//! }
//! # Ok(()) }
//! ```
//!
//! Frames are [`image::RgbImage`] (RGB, 8 bits), the format the UI draws and the tracker reads;
//! the vision layer converts to OpenCV's BGR itself.

mod error;
mod folder;
mod image_file;
mod noise;
mod pacing;
mod reconnect;
mod video;
mod webcam;

use std::time::Duration;

pub use error::{CameraInfo, CaptureError};
pub use folder::{FolderOptions, ImageFolder};
pub use image_file::{CUT_SHORT, jpeg_cut_short};
pub use noise::SensorNoise;
pub use pacing::Pacing;
pub use reconnect::{Delivery, Opener, Paused, Reconnecting};
pub use video::{VideoFile, VideoOptions};
pub use webcam::{Webcam, WebcamOptions, list_cameras};

/// One picture of the table.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// Counts from 0 at the start of the source. A gap means frames were dropped because the
    /// reader was slower than the source.
    pub index: u64,
    /// Since the source started: the camera's clock, or the frame's place in a recording.
    pub time: Duration,
    pub image: image::RgbImage,
}

/// Anything that delivers frames of the table. `Send`, so a vision thread can own it.
pub trait FrameSource: Send {
    /// One line for the user: what is playing, at what size and rate.
    fn describe(&self) -> String;
    /// Width and height of every frame, pixels.
    fn resolution(&self) -> [u32; 2];
    /// Time between frames at the nominal rate.
    fn frame_interval(&self) -> Duration;
    /// The next frame, waiting for it if need be; `Ok(None)` when the stream has ended.
    fn next_frame(&mut self) -> Result<Option<Frame>, CaptureError>;
}

impl<S: FrameSource + ?Sized> FrameSource for Box<S> {
    fn describe(&self) -> String {
        (**self).describe()
    }
    fn resolution(&self) -> [u32; 2] {
        (**self).resolution()
    }
    fn frame_interval(&self) -> Duration {
        (**self).frame_interval()
    }
    fn next_frame(&mut self) -> Result<Option<Frame>, CaptureError> {
        (**self).next_frame()
    }
}
