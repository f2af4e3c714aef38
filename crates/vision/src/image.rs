//! Loading frames from disk with errors that name the file.

use std::path::Path;

/// The image type every vision function takes (BGR, 8 bits a channel), so callers need not
/// depend on the opencv crate to hold one.
pub use opencv::core::Mat;
use opencv::imgcodecs;
use opencv::prelude::*;

use crate::error::{CvContext, VisionError};

/// Reads a colour (BGR) image; a missing, unreadable or corrupt file is an error, not an empty Mat.
pub fn read_bgr(path: &Path) -> Result<Mat, VisionError> {
    let unreadable = || VisionError::ImageUnreadable {
        path: path.to_path_buf(),
    };
    if !path.is_file() {
        return Err(unreadable());
    }
    let bytes = std::fs::read(path).map_err(|_| unreadable())?;
    if koanscope_capture::jpeg_cut_short(&bytes) {
        return Err(VisionError::ImageCutShort {
            path: path.to_path_buf(),
        });
    }
    // (OpenCV refuses an empty buffer with an exception rather than an empty image.)
    if bytes.is_empty() {
        return Err(unreadable());
    }
    let encoded = opencv::core::Vector::<u8>::from_slice(&bytes);
    let image = imgcodecs::imdecode(&encoded, imgcodecs::IMREAD_COLOR).map_err(|_| unreadable())?;
    if image.empty() || image.channels() != 3 {
        return Err(unreadable());
    }
    Ok(image)
}

/// Writes an image as PNG or JPEG (by the file's extension), making its folder if need be.
pub fn write_bgr(path: &Path, image: &Mat) -> Result<(), VisionError> {
    let failed = |source| VisionError::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(failed)?;
    }
    let name = path
        .to_str()
        .ok_or_else(|| failed(std::io::Error::other("the path is not UTF-8")))?;
    let written = imgcodecs::imwrite_def(name, image).during("writing an image")?;
    if !written {
        return Err(failed(std::io::Error::other(
            "OpenCV could not encode it (use .png or .jpg)",
        )));
    }
    Ok(())
}

/// Image width and height in pixels.
pub fn size_of(image: &Mat) -> [u32; 2] {
    [image.cols().max(0) as u32, image.rows().max(0) as u32]
}

/// A camera frame given as RGB bytes (row by row, no padding) as the BGR image OpenCV works on.
pub fn bgr_from_rgb(width: u32, height: u32, rgb: &[u8]) -> Result<Mat, VisionError> {
    if rgb.len() != width as usize * height as usize * 3 || width == 0 || height == 0 {
        return Err(VisionError::OpenCv {
            during: "taking a camera frame",
            source: opencv::Error::new(
                opencv::core::StsBadSize,
                format!("{} bytes is not a {width}x{height} RGB frame", rgb.len()),
            ),
        });
    }
    let flat = Mat::from_slice(rgb).during("taking a camera frame")?;
    let rgb_mat = flat
        .reshape(3, height as i32)
        .during("taking a camera frame")?;
    let mut bgr = Mat::default();
    opencv::imgproc::cvt_color_def(&rgb_mat, &mut bgr, opencv::imgproc::COLOR_RGB2BGR)
        .during("converting a camera frame to BGR")?;
    Ok(bgr)
}
