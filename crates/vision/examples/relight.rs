//! Writes a copy of a dataset laid out like `../shared/datasets/dev/` under another light, to
//! measure how the pipeline holds up where no such light was rendered: every image's channels
//! scaled (a dimmer or brighter lamp, a colour cast) and put through a gamma, the truth copied
//! as it is. `cargo run --release -p koanscope-vision --example relight -- <dataset> <out>
//! <gain> <gamma> [blue green red] [--blur SIGMA] [--noise SIGMA] [--lens K1 K2] [--jpeg
//! QUALITY]` (the options in that order; the channel factors default to 1; with `--lens`, the
//! frame is seen through a lens of that radial distortion right after the light, the dataset's
//! camera matrix from its `intrinsics/intrinsics.json`, and each true piece's `image_xy` moves
//! with it; with `--blur`, a softer lens's: a Gaussian blur of that sigma in pixels next; with
//! `--noise`, a webcam's sensor noise of that sigma is added next; with `--jpeg`, the frame
//! goes through JPEG at that quality last, as a webcam streaming MJPEG sends it), then
//! `koanscope eval <out>`.

use std::path::Path;

use opencv::core::{Mat, Vector};
use opencv::prelude::*;
use opencv::{core, imgcodecs, imgproc};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, input, output, gain, gamma, rest @ ..] = args.as_slice() else {
        return Err("usage: relight <dataset> <out> <gain> <gamma> [blue green red] [--blur SIGMA] [--noise SIGMA] [--lens K1 K2] [--jpeg QUALITY]".into());
    };
    let (rest, jpeg) = match rest {
        [rest @ .., flag, quality] if flag == "--jpeg" => (rest, Some(quality.parse::<i32>()?)),
        rest => (rest, None),
    };
    let (rest, lens) = match rest {
        [rest @ .., flag, k1, k2] if flag == "--lens" => (
            rest,
            Some(Lens::of_dataset(
                Path::new(input),
                k1.parse()?,
                k2.parse()?,
            )?),
        ),
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
    let degrade = Degrade {
        lens,
        blur,
        noise,
        jpeg,
    };
    copy_tree(Path::new(input), Path::new(output), &table, &degrade)?;
    Ok(())
}

/// What a lesser camera does to a frame after the light: a lens's distortion (`lens`), a softer
/// lens (`blur`, sigma in pixels), sensor noise (`noise`, sigma in levels) and compression
/// (`jpeg`, its quality).
struct Degrade {
    lens: Option<Lens>,
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
    let Degrade {
        ref lens,
        blur,
        noise,
        jpeg,
    } = *degrade;
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
            if let Some(lens) = lens {
                lit = lens.distort_image(&lit)?;
            }
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
        } else if let Some(lens) = lens
            && path.extension().is_some_and(|e| e == "json")
        {
            let mut doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&path)?)?;
            lens.move_image_xy(&mut doc);
            std::fs::write(&target, serde_json::to_vec_pretty(&doc)?)?;
        } else {
            std::fs::copy(&path, &target)?;
        }
    }
    Ok(())
}

/// A lens with radial distortion (OpenCV's k1, k2) in front of the dataset's pinhole camera.
struct Lens(koanscope_vision::Camera);

impl Lens {
    fn of_dataset(dataset: &Path, k1: f64, k2: f64) -> Result<Lens, Box<dyn std::error::Error>> {
        let path = dataset.join("intrinsics").join("intrinsics.json");
        let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&path)?)?;
        let k = |r: usize, c: usize| {
            doc["K"][r][c]
                .as_f64()
                .ok_or_else(|| format!("{}: no K[{r}][{c}]", path.display()))
        };
        let size = |i: usize| {
            doc["image_size"][i]
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| format!("{}: no image_size[{i}]", path.display()))
        };
        let intrinsics = koanscope_vision::Intrinsics {
            camera_matrix: nalgebra::Matrix3::new(
                k(0, 0)?,
                k(0, 1)?,
                k(0, 2)?,
                0.0,
                k(1, 1)?,
                k(1, 2)?,
                0.0,
                0.0,
                1.0,
            ),
            distortion: [k1, k2, 0.0, 0.0, 0.0],
            image_size: [size(0)?, size(1)?],
        };
        Ok(Lens(koanscope_vision::Camera::new(
            intrinsics,
            nalgebra::Isometry3::identity(),
        )))
    }

    fn distort_image(&self, pinhole: &Mat) -> Result<Mat, Box<dyn std::error::Error>> {
        Ok(koanscope_vision::render::through_lens(pinhole, &self.0)?)
    }

    /// Moves each true piece's `image_xy` in a scene's truth where the lens shows it.
    fn move_image_xy(&self, doc: &mut serde_json::Value) {
        let Some(pieces) = doc.get_mut("pieces").and_then(|p| p.as_array_mut()) else {
            return;
        };
        for piece in pieces {
            let Some(xy) = piece.get_mut("image_xy").and_then(|xy| xy.as_array_mut()) else {
                continue;
            };
            if let (Some(u), Some(v)) = (xy[0].as_f64(), xy[1].as_f64())
                && let Some(seen) =
                    koanscope_vision::render::lens_pixel(&self.0, &nalgebra::Point2::new(u, v))
            {
                *xy = vec![seen.x.into(), seen.y.into()];
            }
        }
    }
}
