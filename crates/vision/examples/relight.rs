//! Writes a copy of a dataset laid out like `../shared/datasets/dev/` under another light, to
//! measure how the pipeline holds up where no such light was rendered: every image's channels
//! scaled (a dimmer or brighter lamp, a colour cast) and put through a gamma, the truth copied
//! as it is. `cargo run --release -p koanscope-vision --example relight -- <dataset> <out>
//! <gain> <gamma> [blue green red] [--blur SIGMA] [--noise SIGMA] [--jpeg QUALITY]` (the channel
//! factors default to 1; with `--blur`, a softer lens's: a Gaussian blur of that sigma in pixels
//! after the light; with `--noise`, a webcam's sensor noise of that sigma is added next; with
//! `--jpeg`, the frame goes through JPEG at that quality last, as a webcam streaming MJPEG sends
//! it), then `koanscope eval <out>`.

use std::path::Path;

use opencv::core::{Mat, Vector};
use opencv::prelude::*;
use opencv::{core, imgcodecs, imgproc};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, input, output, gain, gamma, rest @ ..] = args.as_slice() else {
        return Err("usage: relight <dataset> <out> <gain> <gamma> [blue green red] [--blur SIGMA] [--noise SIGMA] [--jpeg QUALITY]".into());
    };
    let (rest, jpeg) = match rest {
        [rest @ .., flag, quality] if flag == "--jpeg" => (rest, Some(quality.parse::<i32>()?)),
        rest => (rest, None),
    };
    let (rest, noise) = match rest {
        [rest @ .., flag, sigma] if flag == "--noise" => (rest, sigma.parse::<f64>()?),
        rest => (rest, 0.0),
    };
    let (cast, blur) = match rest {
        [cast @ .., flag, sigma] if flag == "--blur" => (cast, sigma.parse::<f64>()?),
        cast => (cast, 0.0),
    };
    let (gain, gamma): (f64, f64) = (gain.parse()?, gamma.parse()?);
    let cast: Vec<f64> = cast.iter().map(|c| c.parse()).collect::<Result<_, _>>()?;
    let cast = match cast.as_slice() {
        [] => [1.0; 3],
        [b, g, r] => [*b, *g, *r],
        _ => return Err("give all three channel factors or none".into()),
    };
    // One lookup table per channel: 255 * (gain * cast * v / 255) ^ gamma.
    let mut table = Mat::new_rows_cols_with_default(1, 256, core::CV_8UC3, core::Scalar::all(0.0))?;
    for v in 0..256 {
        let px = table.at_2d_mut::<core::Vec3b>(0, v)?;
        for c in 0..3 {
            let x = (gain * cast[c] * f64::from(v) / 255.0).clamp(0.0, 1.0);
            px[c] = (255.0 * x.powf(gamma)).round() as u8;
        }
    }
    let degrade = Degrade { blur, noise, jpeg };
    copy_tree(Path::new(input), Path::new(output), &table, &degrade)?;
    Ok(())
}

/// What a lesser camera does to a frame after the light: a softer lens (`blur`, sigma in
/// pixels), sensor noise (`noise`, sigma in levels) and compression (`jpeg`, its quality).
struct Degrade {
    blur: f64,
    noise: f64,
    jpeg: Option<i32>,
}

fn copy_tree(
    from: &Path,
    to: &Path,
    table: &Mat,
    degrade: &Degrade,
) -> Result<(), Box<dyn std::error::Error>> {
    let Degrade { blur, noise, jpeg } = *degrade;
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let path = entry?.path();
        let target = to.join(path.file_name().ok_or("a file with no name")?);
        if path.is_dir() {
            copy_tree(&path, &target, table, degrade)?;
        } else if path.extension().is_some_and(|e| e == "jpg" || e == "png") {
            let image = imgcodecs::imread(path.to_str().ok_or("a path")?, imgcodecs::IMREAD_COLOR)?;
            let mut lit = Mat::default();
            core::lut(&image, table, &mut lit)?;
            if blur > 0.0 {
                let mut soft = Mat::default();
                imgproc::gaussian_blur_def(&lit, &mut soft, core::Size::new(0, 0), blur)?;
                lit = soft;
            }
            if noise > 0.0 {
                // Each image its own noise, the same on every run.
                let seed = path
                    .to_string_lossy()
                    .bytes()
                    .fold(17i32, |h, b| h.wrapping_mul(31).wrapping_add(i32::from(b)));
                lit = koanscope_vision::render::with_sensor_noise(&lit, noise, seed)?;
            }
            if let Some(quality) = jpeg {
                let mut encoded = Vector::<u8>::new();
                let params = Vector::from_slice(&[imgcodecs::IMWRITE_JPEG_QUALITY, quality]);
                imgcodecs::imencode(".jpg", &lit, &mut encoded, &params)?;
                lit = imgcodecs::imdecode(&encoded, imgcodecs::IMREAD_COLOR)?;
            }
            // Encoded losslessly (PNG under the image's own name: readers go by the content),
            // so only what was asked for differs, not another round of JPEG.
            let mut png = Vector::<u8>::new();
            imgcodecs::imencode(".png", &lit, &mut png, &Vector::new())?;
            std::fs::write(&target, png.as_slice())?;
        } else {
            std::fs::copy(&path, &target)?;
        }
    }
    Ok(())
}
