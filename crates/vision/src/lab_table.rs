//! OpenCV's 8-bit BGR to Lab conversion of every colour, worked out once per process and then
//! looked up.
//!
//! `cvt_color` to Lab spends about 5 ns a pixel on this project's machine (a 1280x720 frame,
//! 4.5–7 ms: a sixth of a frame's analysis). The conversion is a function of the pixel's three
//! bytes alone, so all 2^24 answers fit in a 48 MiB table, filled by OpenCV itself (about
//! 0.2–0.4 s, on the first frame a process segments). A frame converted through it reads byte
//! for byte what `cvt_color` gives, in about a third of the time: a frame's colours are few and
//! close together, so their rows of the table stay in the cache.

use std::sync::{Mutex, OnceLock};

use opencv::core::{CV_8UC3, Mat, Scalar};
use opencv::imgproc;
use opencv::prelude::*;

use crate::error::{CvContext, VisionError};

/// Bytes of the table: three a colour.
const TABLE_BYTES: usize = 3 << 24;

static TABLE: OnceLock<Vec<u8>> = OnceLock::new();
static BUILDING: Mutex<()> = Mutex::new(());

/// The frame (8-bit BGR) in 8-bit Lab, as `cvt_color(.., COLOR_BGR2Lab)` gives it. A frame of any
/// other type, or whose rows are not contiguous, goes to `cvt_color` itself (and gets its error).
pub(crate) fn bgr_to_lab(
    image: &(impl MatTraitConst + opencv::core::ToInputArray),
) -> Result<Mat, VisionError> {
    if image.typ() != CV_8UC3 || !image.is_continuous() || image.empty() {
        let mut lab = Mat::default();
        imgproc::cvt_color_def(image, &mut lab, imgproc::COLOR_BGR2Lab)
            .during("converting to Lab")?;
        return Ok(lab);
    }
    let table = table()?;
    // SAFETY: the frame's bytes are left unset here and every one is written below (the
    // output has exactly the input's pixels, three bytes each); zeroing them first cost a pass
    // over 2.7 MB a frame.
    let mut lab = unsafe { Mat::new_rows_cols(image.rows(), image.cols(), CV_8UC3) }
        .during("converting to Lab")?;
    let bgr = image.data_bytes().during("converting to Lab")?;
    let out = lab.data_bytes_mut().during("converting to Lab")?;
    for (o, p) in out.chunks_exact_mut(3).zip(bgr.chunks_exact(3)) {
        let k = 3 * (usize::from(p[0]) << 16 | usize::from(p[1]) << 8 | usize::from(p[2]));
        o.copy_from_slice(&table[k..k + 3]);
    }
    Ok(lab)
}

/// The table, filled on first use: row `b` of 256x256 colours (green down, red across) at a time.
fn table() -> Result<&'static [u8], VisionError> {
    if let Some(table) = TABLE.get() {
        return Ok(table);
    }
    // Vision workers meeting their first frames together build it once.
    let _building = BUILDING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(table) = TABLE.get() {
        return Ok(table);
    }
    let mut table = Vec::with_capacity(TABLE_BYTES);
    let mut bgr = Mat::new_rows_cols_with_default(256, 256, CV_8UC3, Scalar::all(0.0))
        .during("building the Lab table")?;
    let mut lab = Mat::default();
    for b in 0..=255u8 {
        let bytes = bgr.data_bytes_mut().during("building the Lab table")?;
        for (k, p) in bytes.chunks_exact_mut(3).enumerate() {
            p.copy_from_slice(&[b, (k >> 8) as u8, k as u8]);
        }
        imgproc::cvt_color_def(&bgr, &mut lab, imgproc::COLOR_BGR2Lab)
            .during("building the Lab table")?;
        table.extend_from_slice(lab.data_bytes().during("building the Lab table")?);
    }
    Ok(TABLE.get_or_init(|| table))
}

#[cfg(test)]
mod tests {
    use super::*;
    use opencv::core::Rect;

    /// A frame of colours spread over the cube: every byte value in every channel, and steps.
    fn frame_of_many_colours() -> Mat {
        let mut frame =
            Mat::new_rows_cols_with_default(257, 320, CV_8UC3, Scalar::all(0.0)).unwrap();
        let bytes = frame.data_bytes_mut().unwrap();
        for (k, p) in bytes.chunks_exact_mut(3).enumerate() {
            let k = k as u32;
            p.copy_from_slice(&[
                (k % 256) as u8,
                (k.wrapping_mul(37) % 256) as u8,
                (k.wrapping_mul(101) / 7 % 256) as u8,
            ]);
        }
        frame
    }

    #[test]
    fn a_frame_reads_byte_for_byte_what_opencv_converts() {
        let frame = frame_of_many_colours();
        let mut expected = Mat::default();
        imgproc::cvt_color_def(&frame, &mut expected, imgproc::COLOR_BGR2Lab).unwrap();
        let lab = bgr_to_lab(&frame).unwrap();
        assert_eq!(lab.size().unwrap(), expected.size().unwrap());
        assert_eq!(lab.typ(), CV_8UC3);
        assert_eq!(lab.data_bytes().unwrap(), expected.data_bytes().unwrap());
    }

    #[test]
    fn a_frame_cut_from_a_larger_one_is_converted_too() {
        // A region of interest: rows not contiguous, so OpenCV converts it.
        let frame = frame_of_many_colours();
        let view = Mat::roi(&frame, Rect::new(10, 20, 100, 50)).unwrap();
        assert!(!view.is_continuous());
        let lab = bgr_to_lab(&view).unwrap();
        let mut expected = Mat::default();
        let part = view.try_clone().unwrap();
        imgproc::cvt_color_def(&part, &mut expected, imgproc::COLOR_BGR2Lab).unwrap();
        let lab = lab.try_clone().unwrap();
        assert_eq!(lab.data_bytes().unwrap(), expected.data_bytes().unwrap());
    }

    #[test]
    fn a_frame_that_is_not_bgr_gets_opencvs_error() {
        let gray =
            Mat::new_rows_cols_with_default(4, 4, opencv::core::CV_8UC1, Scalar::all(0.0)).unwrap();
        let err = bgr_to_lab(&gray).unwrap_err();
        assert!(err.to_string().contains("converting to Lab"), "{err}");
    }
}
