//! Measures how the open base of each piece whose base faces the camera stands out (see
//! `rim::open_base_evidence`), with its pose as a scene document gives it: the truth's, to see
//! how real open bases show, or a reading's, to see whether a piece read upside down shows one.
//! `open_base_evidence <calibration.yaml> <frame> <scene.json> [<frame> <scene.json> …]`.

use std::path::PathBuf;

use koanscope_geometry::PieceModels;
use koanscope_scene::{Color, Size};
use koanscope_vision::image::read_bgr;
use koanscope_vision::rim::open_base_evidence;
use koanscope_vision::segment::segment;
use koanscope_vision::{Calibration, ColorModel};
use nalgebra::{Isometry3, Matrix3, Rotation3, Translation3, UnitQuaternion, Vector3};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, calibration, pairs @ ..] = args.as_slice() else {
        return Err("usage: open_base_evidence <calibration.yaml> (<frame> <scene.json>)…".into());
    };
    if pairs.is_empty() || pairs.len() % 2 != 0 {
        return Err("give a scene document after each frame".into());
    }
    let path = PathBuf::from(calibration);
    let camera = Calibration::load(&path)?.camera(&path)?;
    let model = ColorModel::load_or_shipped(None)?;
    let models = PieceModels::default();
    for pair in pairs.chunks(2) {
        let seg = segment(&read_bgr(&PathBuf::from(&pair[0]))?, &model)?;
        let document: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&pair[1])?)?;
        for (id, piece) in document["pieces"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let color: Color = serde_json::from_value(piece["color"].clone())?;
            let size: Size = serde_json::from_value(piece["size"].clone())?;
            let m: Vec<Vec<f64>> = serde_json::from_value(piece["table_from_piece"].clone())?;
            let rotation = Rotation3::from_matrix(&Matrix3::from_fn(|r, c| m[r][c]));
            let pose = Isometry3::from_parts(
                Translation3::new(m[0][3], m[1][3], m[2][3]),
                UnitQuaternion::from_rotation_matrix(&rotation),
            );
            let Some(class) = seg.class_of(color) else {
                continue;
            };
            let dims = models.dims(size);
            if let Some(e) =
                open_base_evidence(&seg, &camera, class, &dims, models.wall_mm, &pose, 12)
            {
                let tilt = (pose * Vector3::z()).z.clamp(-1.0, 1.0).acos().to_degrees();
                println!(
                    "{} #{id} {color:?} {size:?} tilt {tilt:.0}: step {:.0} deeper {:.0} ({:.2} times), {} points",
                    pair[0],
                    e.at_rim,
                    e.elsewhere,
                    e.ratio(),
                    e.samples
                );
            }
        }
    }
    Ok(())
}
