//! A noisy camera's frames smoothed before they are read. A webcam's sensor noise (a few levels
//! per pixel) flips pixels at the edges of pieces and in their shaded faces between piece and
//! table; the rim of a tower's base, a few pixels wide, breaks up. A 3x3 median takes most of
//! it out and keeps the steps between piece and table where they are (a mean would smear them),
//! in about a millisecond; OpenCV's bilateral filter read noisy frames about as well at ten
//! times the cost. A clean frame is left as it is: there a filter only blurs what is sharp.

use opencv::core::Mat;
use opencv::imgproc;
use opencv::prelude::*;

use crate::error::{CvContext, VisionError};

/// Rows of the frame the noise is measured on: one in this many (the estimate needs far fewer
/// pixels than a frame has).
const ROW_STEP: usize = 8;

/// The side of the median's square window, px.
const MEDIAN_PX: i32 = 3;

/// The standard deviation of a frame's pixel noise, in 8-bit levels, estimated from the green
/// channel (Immerkær's operator, the difference of two Laplacians, which cancels any surface
/// that is locally flat or a plane, taken as a median so that edges and texture do not count):
/// about 0.3–1.5 on rendered frames, the level added on frames given Gaussian noise.
pub fn noise_sigma(image: &Mat) -> Result<f64, VisionError> {
    let (w, h) = (image.cols().max(0) as usize, image.rows().max(0) as usize);
    if w < 3 || h < 3 || image.channels() != 3 {
        return Ok(0.0);
    }
    let copy;
    let image = if image.is_continuous() {
        image
    } else {
        copy = image.try_clone().during("copying a frame")?;
        &copy
    };
    let bytes = image.data_bytes().during("reading a frame")?;
    let rows: Vec<&[u8]> = bytes.chunks_exact(3 * w).collect();
    let green = |row: &[u8], x: usize| i32::from(row[3 * x + 1]);
    // |r| in whole levels, counted; r = I * [1 -2 1; -2 4 -2; 1 -2 1] is at most 16 * 255.
    let mut counts = vec![0u32; 16 * 255 + 1];
    let mut n = 0u32;
    for y in (1..h - 1).step_by(ROW_STEP) {
        let (above, here, below) = (rows[y - 1], rows[y], rows[y + 1]);
        for x in 1..w - 1 {
            let outer = green(above, x - 1)
                + green(above, x + 1)
                + green(below, x - 1)
                + green(below, x + 1);
            let edges = green(above, x) + green(below, x) + green(here, x - 1) + green(here, x + 1);
            let r = outer - 2 * edges + 4 * green(here, x);
            counts[r.unsigned_abs() as usize] += 1;
            n += 1;
        }
    }
    let mut seen = 0u32;
    let median = counts
        .iter()
        .position(|&c| {
            seen += c;
            2 * seen >= n
        })
        .unwrap_or(0);
    // Gaussian noise of sigma s gives r a sigma of 6 s, and |r| a median of 0.6745 times that.
    Ok(median as f64 / (0.6745 * 6.0))
}

/// The frame smoothed (a median over 3x3 pixels, each channel apart) where its noise (see
/// [`noise_sigma`]) is at least `from_sigma`; `None` for a frame cleaner than that.
pub fn denoised(image: &Mat, from_sigma: f64) -> Result<Option<Mat>, VisionError> {
    if noise_sigma(image)? < from_sigma {
        return Ok(None);
    }
    let mut smooth = Mat::default();
    imgproc::median_blur(image, &mut smooth, MEDIAN_PX).during("smoothing a noisy frame")?;
    Ok(Some(smooth))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::{bench_table, with_sensor_noise};

    #[test]
    fn the_noise_a_camera_adds_is_measured_and_a_clean_frame_reads_nearly_none() {
        let (_, clean) = bench_table().unwrap();
        let clean_sigma = noise_sigma(&clean).unwrap();
        assert!(
            clean_sigma < 1.0,
            "a drawn frame read noise of {clean_sigma:.2}"
        );
        for sigma in [2.0, 3.0, 4.0] {
            let noisy = with_sensor_noise(&clean, sigma, 7).unwrap();
            let read = noise_sigma(&noisy).unwrap();
            assert!(
                (read - sigma).abs() <= 0.5,
                "noise of sigma {sigma} read as {read:.2}"
            );
        }
    }

    #[test]
    fn only_a_noisy_frame_is_smoothed_and_smoothing_takes_most_of_its_noise() {
        let (_, clean) = bench_table().unwrap();
        assert!(denoised(&clean, 1.9).unwrap().is_none());
        let noisy = with_sensor_noise(&clean, 3.0, 7).unwrap();
        let sigma = noise_sigma(&noisy).unwrap();
        assert!(sigma > 2.5, "noise read as {sigma:.2}");
        let smooth = denoised(&noisy, 1.9)
            .unwrap()
            .expect("a noisy frame is smoothed");
        let left = noise_sigma(&smooth).unwrap();
        assert!(left < 1.5, "after smoothing the noise reads {left:.2}");
        assert_eq!(
            (smooth.cols(), smooth.rows(), smooth.typ()),
            (noisy.cols(), noisy.rows(), noisy.typ())
        );
    }
}
