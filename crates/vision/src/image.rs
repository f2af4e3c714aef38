//! Loading frames from disk with errors that name the file.

use std::path::Path;

use opencv::core::Mat;
use opencv::imgcodecs;
use opencv::prelude::*;

use crate::error::{CvContext, VisionError};

/// Reads a colour (BGR) image; a missing, unreadable or corrupt file is an error, not an empty Mat.
pub fn read_bgr(path: &Path) -> Result<Mat, VisionError> {
    let unreadable = || VisionError::ImageUnreadable {
        path: path.to_path_buf(),
    };
    let name = path.to_str().ok_or_else(unreadable)?;
    if !path.is_file() {
        return Err(unreadable());
    }
    let image = imgcodecs::imread(name, imgcodecs::IMREAD_COLOR).during("reading an image")?;
    if image.empty() || image.channels() != 3 {
        return Err(unreadable());
    }
    Ok(image)
}

/// Image width and height in pixels.
pub fn size_of(image: &Mat) -> [u32; 2] {
    [image.cols().max(0) as u32, image.rows().max(0) as u32]
}
