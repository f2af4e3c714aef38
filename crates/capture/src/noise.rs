//! A source that adds a webcam's sensor noise to another source's frames. Rendered and repeated
//! frames are identical pixel for pixel, which no camera delivers: measuring the live pipeline on
//! them would credit it with savings a real camera never allows.

use std::time::Duration;

use crate::{CaptureError, Frame, FrameSource};

/// Noise patterns cycled through; each frame gets the next, so no two neighbours share one.
const PATTERNS: usize = 7;

/// Adds zero-mean Gaussian noise of `sigma` levels to every channel of every frame.
pub struct SensorNoise<S> {
    inner: S,
    sigma: f64,
    patterns: Vec<Vec<i8>>,
    next: usize,
    /// xorshift64* state: a fixed seed, so a run can be repeated.
    state: u64,
}

impl<S: FrameSource> SensorNoise<S> {
    pub fn new(inner: S, sigma: f64) -> SensorNoise<S> {
        let [w, h] = inner.resolution();
        let mut noise = SensorNoise {
            inner,
            sigma: sigma.clamp(0.0, 40.0),
            patterns: Vec::new(),
            next: 0,
            state: 0x9E37_79B9_7F4A_7C15,
        };
        // Drawn now, not as the first frames come: drawing one (tens of ms at 1280x720) made
        // each of the first frames of a real-time source late, and the source dropped frames.
        let len = w as usize * h as usize * 3;
        for _ in 0..PATTERNS {
            let pattern = noise.pattern(len);
            noise.patterns.push(pattern);
        }
        noise
    }

    fn uniform(&mut self) -> f64 {
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        let bits = self.state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11;
        (bits as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// One pattern of `len` samples (Box-Muller), clipped to what an i8 holds.
    fn pattern(&mut self, len: usize) -> Vec<i8> {
        let mut out = Vec::with_capacity(len + 1);
        while out.len() < len {
            let (u, v) = (self.uniform(), self.uniform());
            let r = self.sigma * (-2.0 * u.ln()).sqrt();
            let angle = std::f64::consts::TAU * v;
            for z in [r * angle.cos(), r * angle.sin()] {
                out.push(z.round().clamp(-127.0, 127.0) as i8);
            }
        }
        out.truncate(len);
        out
    }
}

impl<S: FrameSource> FrameSource for SensorNoise<S> {
    fn describe(&self) -> String {
        format!(
            "{} with sensor noise of {} levels",
            self.inner.describe(),
            self.sigma
        )
    }

    fn resolution(&self) -> [u32; 2] {
        self.inner.resolution()
    }

    fn frame_interval(&self) -> Duration {
        self.inner.frame_interval()
    }

    fn next_frame(&mut self) -> Result<Option<Frame>, CaptureError> {
        let Some(mut frame) = self.inner.next_frame()? else {
            return Ok(None);
        };
        let len = frame.image.as_raw().len();
        if self.patterns.first().is_some_and(|p| p.len() != len) {
            self.patterns.clear();
        }
        if self.patterns.len() < PATTERNS {
            let pattern = self.pattern(len);
            self.patterns.push(pattern);
        }
        let pattern = &self.patterns[self.next % self.patterns.len()];
        self.next += 1;
        for (v, n) in frame.image.iter_mut().zip(pattern) {
            *v = v.saturating_add_signed(*n);
        }
        Ok(Some(frame))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::RgbImage;

    struct Grey(u64);

    impl FrameSource for Grey {
        fn describe(&self) -> String {
            "grey".into()
        }
        fn resolution(&self) -> [u32; 2] {
            [64, 48]
        }
        fn frame_interval(&self) -> Duration {
            Duration::from_millis(33)
        }
        fn next_frame(&mut self) -> Result<Option<Frame>, CaptureError> {
            self.0 += 1;
            Ok((self.0 <= 3).then(|| Frame {
                index: self.0 - 1,
                time: Duration::ZERO,
                image: RgbImage::from_pixel(64, 48, image::Rgb([128, 128, 128])),
            }))
        }
    }

    #[test]
    fn frames_get_noise_of_the_asked_spread_and_differ_from_each_other() {
        let mut noisy = SensorNoise::new(Grey(0), 3.0);
        let a = noisy.next_frame().unwrap().unwrap().image;
        let b = noisy.next_frame().unwrap().unwrap().image;
        let values: Vec<f64> = a.as_raw().iter().map(|v| f64::from(*v) - 128.0).collect();
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        let sd =
            (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / values.len() as f64).sqrt();
        assert!(mean.abs() < 0.2, "mean {mean}");
        assert!((sd - 3.0).abs() < 0.3, "spread {sd}");
        assert_ne!(a, b);
        assert!(noisy.describe().contains("noise of 3 levels"));
        noisy.next_frame().unwrap().unwrap();
        assert!(
            noisy.next_frame().unwrap().is_none(),
            "ends with its source"
        );
    }
}
