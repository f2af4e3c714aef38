//! A webcam through nokhwa (Video4Linux on Linux, AVFoundation on macOS, Media Foundation on Windows).

use std::time::Duration;

use crate::error::{CameraInfo, CaptureError};
use crate::{Frame, FrameSource};

/// What to ask the camera for. It gives the closest mode it has; [`Webcam::resolution`] says
/// which it chose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WebcamOptions {
    /// The N of `/dev/videoN` on Linux; the order of [`list_cameras`] elsewhere.
    pub index: u32,
    /// Width and height in pixels. 1280×720 is what the calibration and the detector expect.
    pub resolution: [u32; 2],
    pub fps: u32,
}

impl Default for WebcamOptions {
    fn default() -> Self {
        WebcamOptions {
            index: 0,
            resolution: [1280, 720],
            fps: 30,
        }
    }
}

/// The cameras the system offers, to choose `--camera N` from. An empty list is not an error.
pub fn list_cameras() -> Result<Vec<CameraInfo>, CaptureError> {
    imp::list_cameras()
}

/// A live webcam. Frame times are measured from when the stream opened; when the reader is
/// slower than the camera, it gets the latest frame and the ones in between are dropped.
pub struct Webcam {
    inner: imp::Inner,
    options: WebcamOptions,
    resolution: [u32; 2],
    interval: Duration,
    name: String,
}

impl Webcam {
    /// Opens camera `options.index` and starts its stream.
    ///
    /// Errors: [`CaptureError::NoCamera`] when the system has none, [`CaptureError::CameraNotFound`]
    /// (listing the cameras there are) for a wrong index, [`CaptureError::CameraOpen`] when the
    /// device refuses (busy, no permission), [`CaptureError::NoWebcamSupport`] in a build without
    /// the `webcam` feature.
    pub fn open(options: WebcamOptions) -> Result<Webcam, CaptureError> {
        let cameras = list_cameras()?;
        if cameras.is_empty() {
            return Err(CaptureError::NoCamera);
        }
        let Some(info) = cameras.iter().find(|c| c.index == options.index).cloned() else {
            return Err(CaptureError::CameraNotFound {
                index: options.index,
                found: cameras,
            });
        };
        let (inner, resolution, fps) = imp::Inner::open(&info, &options)?;
        Ok(Webcam {
            inner,
            options,
            resolution,
            interval: Duration::from_secs_f64(1.0 / f64::from(fps.max(1))),
            name: info.name,
        })
    }
}

impl FrameSource for Webcam {
    fn describe(&self) -> String {
        format!(
            "camera {} ({}, {}x{} at {:.0} fps)",
            self.options.index,
            self.name,
            self.resolution[0],
            self.resolution[1],
            1.0 / self.interval.as_secs_f64()
        )
    }

    fn resolution(&self) -> [u32; 2] {
        self.resolution
    }

    fn frame_interval(&self) -> Duration {
        self.interval
    }

    fn next_frame(&mut self) -> Result<Option<Frame>, CaptureError> {
        // The camera thread numbers every frame it got, so frames the reader was too slow for
        // show up as gaps in the index.
        let (index, time, image) = self.inner.frame(self.options.index, &self.name)?;
        Ok(Some(Frame { index, time, image }))
    }
}

#[cfg(feature = "webcam")]
mod imp {
    //! nokhwa's `Camera` may not move between threads, and a camera should drop frames, not
    //! queue them, when the reader is slow. So the camera lives on its own thread, which keeps
    //! only the latest raw frame; the reader decodes that one when it asks.

    use std::sync::mpsc;
    use std::sync::{Arc, Condvar, Mutex};
    use std::thread::JoinHandle;
    use std::time::{Duration, Instant};

    use image::RgbImage;
    use nokhwa::pixel_format::RgbFormat;
    use nokhwa::utils::{
        ApiBackend, CameraFormat, CameraIndex, FrameFormat, RequestedFormat, RequestedFormatType,
        Resolution,
    };
    use nokhwa::{Buffer, Camera, NokhwaError};

    use super::WebcamOptions;
    use crate::error::{CameraInfo, CaptureError};

    /// Corrupt frames in a row (a bad MJPEG packet) tolerated before reading counts as failed.
    const BAD_FRAMES_TOLERATED: u32 = 5;
    /// A camera that sends nothing for this long has gone, whatever the driver says.
    const SILENCE: Duration = Duration::from_secs(3);

    #[derive(Default)]
    struct Slot {
        /// The latest frame: its number since the stream opened, its time, its raw data.
        latest: Option<(u64, Duration, Buffer)>,
        /// Why the camera thread stopped.
        failed: Option<String>,
        stop: bool,
    }

    type Shared = Arc<(Mutex<Slot>, Condvar)>;

    pub(super) struct Inner {
        shared: Shared,
        thread: Option<JoinHandle<()>>,
    }

    pub(super) fn list_cameras() -> Result<Vec<CameraInfo>, CaptureError> {
        let found = nokhwa::query(ApiBackend::Auto).map_err(|e| CaptureError::CameraOpen {
            index: 0,
            name: "camera list".into(),
            reason: e.to_string(),
        })?;
        let mut cameras: Vec<CameraInfo> = found
            .into_iter()
            .filter_map(|c| match c.index() {
                CameraIndex::Index(index) => Some(CameraInfo {
                    index: *index,
                    name: c.human_name(),
                    description: c.description().to_string(),
                }),
                CameraIndex::String(_) => None,
            })
            .collect();
        cameras.sort_by_key(|c| c.index);
        Ok(cameras)
    }

    fn open_camera(
        info: &CameraInfo,
        options: &WebcamOptions,
    ) -> Result<(Camera, [u32; 2], u32), NokhwaError> {
        let [width, height] = options.resolution;
        let wanted = CameraFormat::new(
            Resolution::new(width, height),
            FrameFormat::MJPEG,
            options.fps,
        );
        let format = RequestedFormat::new::<RgbFormat>(RequestedFormatType::Closest(wanted));
        let mut camera = Camera::new(CameraIndex::Index(info.index), format)?;
        camera.open_stream()?;
        let got = camera.camera_format();
        let resolution = [got.resolution().width(), got.resolution().height()];
        Ok((camera, resolution, got.frame_rate()))
    }

    impl Inner {
        pub(super) fn open(
            info: &CameraInfo,
            options: &WebcamOptions,
        ) -> Result<(Inner, [u32; 2], u32), CaptureError> {
            let shared: Shared = Arc::default();
            let (opened_tx, opened_rx) = mpsc::channel();
            let (info_here, options_here, shared_here) = (info.clone(), *options, shared.clone());
            let thread = std::thread::Builder::new()
                .name(format!("camera {}", info.index))
                .spawn(move || {
                    let mut camera = match open_camera(&info_here, &options_here) {
                        Ok((camera, resolution, fps)) => {
                            let _ = opened_tx.send(Ok((resolution, fps)));
                            camera
                        }
                        Err(e) => {
                            let _ = opened_tx.send(Err(e.to_string()));
                            return;
                        }
                    };
                    let start = Instant::now();
                    let (lock, wake) = &*shared_here;
                    for number in 0u64.. {
                        let got = camera.frame();
                        let mut slot = lock.lock().unwrap_or_else(|p| p.into_inner());
                        if slot.stop {
                            break;
                        }
                        match got {
                            Ok(buffer) => slot.latest = Some((number, start.elapsed(), buffer)),
                            Err(e) => {
                                slot.failed = Some(e.to_string());
                                wake.notify_all();
                                break;
                            }
                        }
                        wake.notify_all();
                    }
                    let _ = camera.stop_stream();
                })
                .map_err(|e| CaptureError::CameraOpen {
                    index: info.index,
                    name: info.name.clone(),
                    reason: format!("cannot start its thread: {e}"),
                })?;
            let refused = |reason: String| CaptureError::CameraOpen {
                index: info.index,
                name: info.name.clone(),
                reason,
            };
            let opened = opened_rx
                .recv()
                .map_err(|_| refused("its thread stopped while opening it".into()))?;
            let (resolution, fps) = match opened {
                Ok(mode) => mode,
                Err(reason) => {
                    let _ = thread.join();
                    return Err(refused(reason));
                }
            };
            let inner = Inner {
                shared,
                thread: Some(thread),
            };
            Ok((inner, resolution, fps))
        }

        /// The latest frame (waiting for one if none is new): its number, time and picture.
        pub(super) fn frame(
            &mut self,
            index: u32,
            name: &str,
        ) -> Result<(u64, Duration, RgbImage), CaptureError> {
            let gone = |reason: String| CaptureError::Disconnected {
                what: format!("camera {index} ({name})"),
                reason,
            };
            let mut last = String::new();
            for _ in 0..BAD_FRAMES_TOLERATED {
                let (number, time, buffer) = {
                    let (lock, wake) = &*self.shared;
                    let slot = lock.lock().unwrap_or_else(|p| p.into_inner());
                    let (mut slot, timeout) = wake
                        .wait_timeout_while(slot, SILENCE, |s| {
                            s.latest.is_none() && s.failed.is_none()
                        })
                        .unwrap_or_else(|p| p.into_inner());
                    if let Some(latest) = slot.latest.take() {
                        latest
                    } else if let Some(reason) = &slot.failed {
                        // Any failure of a running stream means the device went away (unplugged,
                        // or its driver reset): the Reconnecting wrapper waits it out.
                        return Err(gone(reason.clone()));
                    } else {
                        debug_assert!(timeout.timed_out());
                        return Err(gone(format!("no frame for {} s", SILENCE.as_secs())));
                    }
                };
                match buffer.decode_image::<RgbFormat>() {
                    Ok(image) => return Ok((number, time, image)),
                    Err(e) => last = e.to_string(),
                }
            }
            Err(CaptureError::CameraRead {
                index,
                reason: format!(
                    "{BAD_FRAMES_TOLERATED} frames in a row could not be decoded: {last}"
                ),
            })
        }
    }

    impl Drop for Inner {
        fn drop(&mut self) {
            let (lock, _) = &*self.shared;
            lock.lock().unwrap_or_else(|p| p.into_inner()).stop = true;
            if let Some(thread) = self.thread.take() {
                let _ = thread.join();
            }
        }
    }
}

#[cfg(not(feature = "webcam"))]
mod imp {
    use std::time::Duration;

    use image::RgbImage;

    use super::WebcamOptions;
    use crate::error::{CameraInfo, CaptureError};

    pub(super) enum Inner {}

    pub(super) fn list_cameras() -> Result<Vec<CameraInfo>, CaptureError> {
        Err(CaptureError::NoWebcamSupport)
    }

    impl Inner {
        pub(super) fn open(
            _: &CameraInfo,
            _: &WebcamOptions,
        ) -> Result<(Inner, [u32; 2], u32), CaptureError> {
            Err(CaptureError::NoWebcamSupport)
        }

        pub(super) fn frame(
            &mut self,
            _: u32,
            _: &str,
        ) -> Result<(u64, Duration, RgbImage), CaptureError> {
            match *self {}
        }
    }
}
