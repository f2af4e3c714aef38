//! A folder of still frames played as if a camera were watching the table.

use std::path::{Path, PathBuf};
use std::time::Duration;

use image::RgbImage;

use crate::error::CaptureError;
use crate::pacing::{Pacer, Pacing};
use crate::{Frame, FrameSource};

/// How an [`ImageFolder`] plays its images.
#[derive(Debug, Clone, PartialEq)]
pub struct FolderOptions {
    /// How long each image stays in view. A table changes every few seconds, not every frame:
    /// holding an image lets the tracker see it settle, as it would a real koan.
    pub hold: Duration,
    /// Frames per second while an image is held (the same image, repeated like a camera's feed).
    pub fps: f64,
    /// Start again from the first image after the last.
    pub looping: bool,
    pub pacing: Pacing,
    /// Play only the images whose file name starts with this (a dataset folder also holds its
    /// calibration board, `table.jpg`, which is no scene to watch).
    pub name_prefix: Option<String>,
}

impl Default for FolderOptions {
    fn default() -> Self {
        FolderOptions {
            hold: Duration::from_secs(4),
            fps: 30.0,
            looping: false,
            pacing: Pacing::RealTime,
            name_prefix: None,
        }
    }
}

/// The JPEG and PNG images of one folder in natural name order (`frame2` before `frame10`),
/// each held for [`FolderOptions::hold`] and repeated at [`FolderOptions::fps`].
///
/// It watches its folder: if the folder goes away (an unmounted card, a renamed directory) the
/// next frame is [`CaptureError::Disconnected`], which [`crate::Reconnecting`] waits out.
#[derive(Debug)]
pub struct ImageFolder {
    dir: PathBuf,
    images: Vec<PathBuf>,
    options: FolderOptions,
    interval: Duration,
    resolution: [u32; 2],
    pacer: Pacer,
    /// The image in view and its position in `images`.
    current: Option<(usize, RgbImage)>,
}

impl ImageFolder {
    /// Lists the folder and reads its first image (so a bad folder fails here, not mid-game).
    ///
    /// Errors: [`CaptureError::NotFound`] for a missing folder, [`CaptureError::EmptyFolder`] when
    /// it has no JPEG or PNG file, [`CaptureError::ImageUnreadable`] when the first image is corrupt.
    pub fn open(dir: &Path, options: FolderOptions) -> Result<ImageFolder, CaptureError> {
        if !dir.is_dir() {
            return Err(CaptureError::NotFound {
                path: dir.to_path_buf(),
            });
        }
        let images = list_images(dir, options.name_prefix.as_deref())?;
        if images.is_empty() {
            return Err(CaptureError::EmptyFolder {
                path: dir.to_path_buf(),
            });
        }
        let fps = if options.fps.is_finite() && options.fps > 0.0 {
            options.fps
        } else {
            FolderOptions::default().fps
        };
        let interval = Duration::from_secs_f64(1.0 / fps);
        let first = read_rgb(&images[0])?;
        let resolution = [first.width(), first.height()];
        Ok(ImageFolder {
            dir: dir.to_path_buf(),
            images,
            pacer: Pacer::new(options.pacing, interval),
            options,
            interval,
            resolution,
            current: Some((0, first)),
        })
    }

    /// The images it plays, in order.
    pub fn images(&self) -> &[PathBuf] {
        &self.images
    }

    /// Frames each image is held for: the hold in whole frames, at least one.
    pub fn frames_per_image(&self) -> u64 {
        (self.options.hold.as_secs_f64() / self.interval.as_secs_f64())
            .round()
            .max(1.0) as u64
    }

    /// Which image a frame index shows, or None once a non-looping folder is over.
    fn image_at(&self, index: u64) -> Option<usize> {
        let slot = (index / self.frames_per_image()) as usize;
        if self.options.looping {
            Some(slot % self.images.len())
        } else {
            (slot < self.images.len()).then_some(slot)
        }
    }
}

impl FrameSource for ImageFolder {
    fn describe(&self) -> String {
        format!(
            "{} images in {} ({:.1} s each{})",
            self.images.len(),
            self.dir.display(),
            self.options.hold.as_secs_f64(),
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
        // A stat per frame: cheap, and it notices a vanished folder while one image is held.
        if !self.dir.is_dir() {
            return Err(CaptureError::Disconnected {
                what: format!("image folder {}", self.dir.display()),
                reason: "the folder is gone".into(),
            });
        }
        let Some(slot) = self.image_at(index) else {
            return Ok(None);
        };
        if self.current.as_ref().map(|(s, _)| *s) != Some(slot) {
            let path = &self.images[slot];
            let image = read_rgb(path).map_err(|e| match e {
                CaptureError::NotFound { .. } if !self.dir.is_dir() => CaptureError::Disconnected {
                    what: format!("image folder {}", self.dir.display()),
                    reason: "the folder is gone".into(),
                },
                other => other,
            })?;
            if [image.width(), image.height()] != self.resolution {
                return Err(CaptureError::SizeMismatch {
                    path: path.clone(),
                    width: image.width(),
                    height: image.height(),
                    expected_width: self.resolution[0],
                    expected_height: self.resolution[1],
                });
            }
            self.current = Some((slot, image));
        }
        let (_, image) = self.current.as_ref().expect("set above");
        Ok(Some(Frame {
            index,
            time: self.pacer.time_of(index),
            image: image.clone(),
        }))
    }
}

/// JPEG and PNG files of a folder (by extension, any case), in natural name order.
fn list_images(dir: &Path, prefix: Option<&str>) -> Result<Vec<PathBuf>, CaptureError> {
    let entries = std::fs::read_dir(dir).map_err(|e| CaptureError::ImageUnreadable {
        path: dir.to_path_buf(),
        reason: format!("cannot list the folder: {e}"),
    })?;
    let mut images: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| {
            path.is_file()
                && prefix.is_none_or(|p| {
                    path.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with(p))
                })
                && path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
                    matches!(e.to_ascii_lowercase().as_str(), "jpg" | "jpeg" | "png")
                })
        })
        .collect();
    images.sort_by(|a, b| natural_cmp(&a.to_string_lossy(), &b.to_string_lossy()));
    Ok(images)
}

/// Compares names with runs of digits as numbers, so `frame2` comes before `frame10`.
pub(crate) fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    let (mut a, mut b) = (a.as_bytes(), b.as_bytes());
    loop {
        match (a.first(), b.first()) {
            (None, None) => return std::cmp::Ordering::Equal,
            (None, Some(_)) => return std::cmp::Ordering::Less,
            (Some(_), None) => return std::cmp::Ordering::Greater,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                let da = a.iter().take_while(|c| c.is_ascii_digit()).count();
                let db = b.iter().take_while(|c| c.is_ascii_digit()).count();
                let (na, nb) = (&a[..da], &b[..db]);
                let trim = |n: &[u8]| -> usize { n.iter().take_while(|c| **c == b'0').count() };
                let (ta, tb) = (&na[trim(na)..], &nb[trim(nb)..]);
                let order = ta
                    .len()
                    .cmp(&tb.len())
                    .then_with(|| ta.cmp(tb))
                    .then(da.cmp(&db));
                if order.is_ne() {
                    return order;
                }
                a = &a[da..];
                b = &b[db..];
            }
            (Some(x), Some(y)) => {
                if x != y {
                    return x.cmp(y);
                }
                a = &a[1..];
                b = &b[1..];
            }
        }
    }
}

/// Decodes one image file to RGB, naming the file in the error.
pub(crate) fn read_rgb(path: &Path) -> Result<RgbImage, CaptureError> {
    let bytes = std::fs::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => CaptureError::NotFound {
            path: path.to_path_buf(),
        },
        _ => CaptureError::ImageUnreadable {
            path: path.to_path_buf(),
            reason: e.to_string(),
        },
    })?;
    if crate::jpeg_cut_short(&bytes) {
        return Err(CaptureError::ImageUnreadable {
            path: path.to_path_buf(),
            reason: crate::CUT_SHORT.to_string(),
        });
    }
    let image = image::load_from_memory(&bytes).map_err(|e| CaptureError::ImageUnreadable {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    Ok(image.into_rgb8())
}

#[cfg(test)]
mod tests {
    use super::natural_cmp;

    #[test]
    fn numbers_in_names_sort_as_numbers() {
        let mut names = vec!["f10.jpg", "f2.jpg", "f1.jpg", "f02.png", "a.jpg"];
        names.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(names, ["a.jpg", "f1.jpg", "f2.jpg", "f02.png", "f10.jpg"]);
    }
}
