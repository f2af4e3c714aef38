//! A video file played through OpenCV's videoio, as a camera would show it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use image::RgbImage;
use opencv::core::Mat;
use opencv::prelude::*;
use opencv::{imgproc, videoio};

use crate::error::{CaptureError, CvContext};
use crate::pacing::{Pacer, Pacing};
use crate::{Frame, FrameSource};

/// The frame rate assumed when a file does not say (OpenCV reports 0).
const FALLBACK_FPS: f64 = 30.0;

/// How a [`VideoFile`] plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct VideoOptions {
    pub pacing: Pacing,
    /// Start again from the first frame after the last.
    pub looping: bool,
}

/// A recording of the table (any container and codec the system's OpenCV decodes; MJPG in
/// `.avi` always works).
pub struct VideoFile {
    path: PathBuf,
    capture: videoio::VideoCapture,
    options: VideoOptions,
    interval: Duration,
    resolution: [u32; 2],
    frame_count: Option<u64>,
    pacer: Pacer,
    /// The next frame index the decoder will return.
    position: u64,
    /// Frame times restart at 0 on each loop; this keeps them increasing.
    loop_offset: u64,
    bgr: Mat,
    rgb: Mat,
    /// The first frame, decoded at open, not handed out yet.
    first_pending: bool,
}

// SAFETY-free: VideoCapture is Send in the opencv crate; this assertion keeps it that way.
const _: fn() = || {
    fn is_send<T: Send>() {}
    is_send::<VideoFile>();
};

impl VideoFile {
    /// Opens the file and reads its size and frame rate.
    ///
    /// Errors: [`CaptureError::NotFound`] for a missing file, [`CaptureError::VideoUnreadable`]
    /// when OpenCV cannot open or decode it.
    pub fn open(path: &Path, options: VideoOptions) -> Result<VideoFile, CaptureError> {
        if !path.is_file() {
            return Err(CaptureError::NotFound {
                path: path.to_path_buf(),
            });
        }
        let unreadable = |reason: &str| CaptureError::VideoUnreadable {
            path: path.to_path_buf(),
            reason: reason.to_string(),
        };
        let name = path
            .to_str()
            .ok_or_else(|| unreadable("the path is not valid UTF-8"))?;
        let capture = open_capture(name)?
            .ok_or_else(|| unreadable("no decoder accepts it (corrupt, or an unknown format)"))?;
        let get = |prop| capture.get(prop).during("reading video properties");
        let width = get(videoio::CAP_PROP_FRAME_WIDTH)?;
        let height = get(videoio::CAP_PROP_FRAME_HEIGHT)?;
        if width < 1.0 || height < 1.0 {
            return Err(unreadable("it has no video frames"));
        }
        let fps = get(videoio::CAP_PROP_FPS)?;
        let fps = if fps.is_finite() && fps > 0.5 {
            fps
        } else {
            FALLBACK_FPS
        };
        let count = get(videoio::CAP_PROP_FRAME_COUNT)?;
        let interval = Duration::from_secs_f64(1.0 / fps);
        let mut video = VideoFile {
            path: path.to_path_buf(),
            capture,
            options,
            interval,
            resolution: [width as u32, height as u32],
            frame_count: (count >= 1.0).then_some(count as u64),
            pacer: Pacer::new(options.pacing, interval),
            position: 0,
            loop_offset: 0,
            bgr: Mat::default(),
            rgb: Mat::default(),
            first_pending: false,
        };
        // Decode the first frame now, so a file with a valid header but corrupt data fails here;
        // it is kept for the first `next_frame` (no seeking back: not every format can).
        if !video.read_bgr()? {
            return Err(unreadable("its first frame cannot be decoded"));
        }
        video.first_pending = true;
        Ok(video)
    }

    /// Frames in the file, when the container says.
    pub fn frame_count(&self) -> Option<u64> {
        self.frame_count
    }

    /// Back to the first frame by opening the file again: seeking is not reliable in every
    /// format, reopening is.
    fn rewind(&mut self) -> Result<(), CaptureError> {
        let name = self.path.to_str().unwrap_or_default();
        self.capture = open_capture(name)?.ok_or_else(|| CaptureError::Disconnected {
            what: format!("video {}", self.path.display()),
            reason: "it can no longer be opened".into(),
        })?;
        self.position = 0;
        self.first_pending = false;
        Ok(())
    }

    fn read_bgr(&mut self) -> Result<bool, CaptureError> {
        let ok = self
            .capture
            .read(&mut self.bgr)
            .during("decoding a frame")?;
        if ok && !self.bgr.empty() {
            self.position += 1;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    /// Skips to the decoder position `target` (file-relative) without decoding pictures.
    fn skip_to(&mut self, target: u64) -> Result<bool, CaptureError> {
        while self.position < target {
            if !self.capture.grab().during("skipping a frame")? {
                return Ok(false);
            }
            self.position += 1;
        }
        Ok(true)
    }
}

impl FrameSource for VideoFile {
    fn describe(&self) -> String {
        format!(
            "video {} ({}x{}, {:.1} fps{})",
            self.path.display(),
            self.resolution[0],
            self.resolution[1],
            1.0 / self.interval.as_secs_f64(),
            if self.options.looping {
                ", looping"
            } else {
                ""
            }
        )
    }

    fn resolution(&self) -> [u32; 2] {
        self.resolution
    }

    fn frame_interval(&self) -> Duration {
        self.interval
    }

    fn next_frame(&mut self) -> Result<Option<Frame>, CaptureError> {
        let index = self.pacer.next_index();
        // Frames the caller was too slow for are skipped (grabbed, not decoded), as a camera drops them.
        let mut target = index.saturating_sub(self.loop_offset);
        // The first frame was decoded at open.
        let first = std::mem::take(&mut self.first_pending) && target == 0;
        if !first {
            loop {
                if self.skip_to(target)? && self.read_bgr()? {
                    break;
                }
                if !self.options.looping || self.position == 0 {
                    return Ok(None);
                }
                self.loop_offset += self.position;
                target = index.saturating_sub(self.loop_offset);
                self.rewind()?;
            }
        }
        imgproc::cvt_color_def(&self.bgr, &mut self.rgb, imgproc::COLOR_BGR2RGB)
            .during("converting a frame to RGB")?;
        let image = rgb_image_from_mat(&self.rgb)?;
        Ok(Some(Frame {
            index,
            time: self.pacer.time_of(index),
            image,
        }))
    }
}

/// FFmpeg first (it reads nearly everything and says little about what it cannot), then any
/// other backend. None when none can open the file.
fn open_capture(name: &str) -> Result<Option<videoio::VideoCapture>, CaptureError> {
    for backend in [videoio::CAP_FFMPEG, videoio::CAP_ANY] {
        let capture = videoio::VideoCapture::from_file(name, backend).during("opening a video")?;
        if capture.is_opened().during("opening a video")? {
            return Ok(Some(capture));
        }
    }
    Ok(None)
}

/// Copies a continuous 8-bit 3-channel Mat into an [`RgbImage`] (channel order unchanged).
pub(crate) fn rgb_image_from_mat(mat: &Mat) -> Result<RgbImage, CaptureError> {
    let (width, height) = (mat.cols().max(0) as u32, mat.rows().max(0) as u32);
    let bytes = mat.data_bytes().during("reading frame pixels")?;
    RgbImage::from_raw(width, height, bytes.to_vec()).ok_or_else(|| CaptureError::VideoUnreadable {
        path: PathBuf::new(),
        reason: format!(
            "a decoded frame has {} bytes, not {width}x{height}x3",
            bytes.len()
        ),
    })
}
