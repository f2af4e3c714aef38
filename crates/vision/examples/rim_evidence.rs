//! Measures how the rim of a same-colour tower's top piece stands out, on a dataset with truth:
//! for every true upright piece on the table, the rim evidence at the height each top size
//! would sit, marked `TOWER` where truth has that top there. `rim_evidence <setup-dir>
//! <calibration.yaml>`.

use std::path::PathBuf;

use koanscope_geometry::PieceModels;
use koanscope_scene::{Color, Size};
use koanscope_vision::image::read_bgr;
use koanscope_vision::pose::cavity_apex_piece;
use koanscope_vision::rim::rim_evidence;
use koanscope_vision::segment::segment;
use koanscope_vision::{Calibration, ColorModel};
use nalgebra::{Isometry3, Matrix3, Rotation3, Translation3, UnitQuaternion};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, dir, calibration] = args.as_slice() else {
        return Err("usage: rim_evidence <setup-dir> <calibration.yaml>".into());
    };
    let path = PathBuf::from(calibration);
    let camera = Calibration::load(&path)?.camera(&path)?;
    let model = ColorModel::load_or_shipped(None)?;
    let pieces = PieceModels::default();
    let mut scenes: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    scenes.sort();
    for scene in scenes {
        let truth: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&scene)?)?;
        let Some(list) = truth["pieces"].as_array() else {
            continue;
        };
        let frame = read_bgr(&scene.with_extension("jpg"))?;
        let seg = segment(&frame, &model)?;
        for p in list {
            let m: Vec<Vec<f64>> = serde_json::from_value(p["pose"].clone())?;
            if m[2][2] < 0.99 || m[2][3].abs() > 1.0 {
                continue;
            }
            let color: Color = serde_json::from_value(p["color"].clone())?;
            let size: Size = serde_json::from_value(p["size"].clone())?;
            let rot = Matrix3::from_fn(|r, c| m[r][c]);
            let pose = Isometry3::from_parts(
                Translation3::new(m[0][3], m[1][3], m[2][3]),
                UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(rot)),
            );
            let Some(class) = seg
                .palette
                .iter()
                .position(|c| *c == color)
                .map(|i| 2 + i as u8)
            else {
                continue;
            };
            let base = pieces.dims(size);
            let apex = pose * nalgebra::Point3::new(0.0, 0.0, base.height_mm);
            let mut line = format!(
                "{} #{} {:?} {:?} {:?}",
                scene.display(),
                p["id"],
                color,
                size,
                p["role"].as_str().unwrap_or("")
            );
            for top in [Size::Small, Size::Medium, Size::Large] {
                let dims = pieces.dims(top);
                let rim = base.height_mm - cavity_apex_piece(&dims, pieces.wall_mm).z;
                if rim < 3.0 {
                    continue;
                }
                // Whether truth has a piece of this size and colour sitting on this tip.
                let truth_top = list.iter().any(|q| {
                    let b: Vec<f64> =
                        serde_json::from_value(q["base_center_mm"].clone()).unwrap_or_default();
                    q["color"] == p["color"]
                        && q["size"] == serde_json::json!(top)
                        && b.len() == 3
                        && (b[0] - apex.x).hypot(b[1] - apex.y) < 2.0
                        && (b[2] - rim).abs() < 2.0
                });
                match rim_evidence(&seg, &camera, class, &base, &pose, &dims, rim, 8, 0.0) {
                    Some(e) => {
                        line += &format!(
                            " | {top:?}@{rim:.1} {:.1}/{:.1}={:.2} n{}{}",
                            e.at_rim,
                            e.elsewhere,
                            e.ratio(),
                            e.samples,
                            if truth_top { " TOWER" } else { "" }
                        )
                    }
                    None => {
                        line += &format!(
                            " | {top:?}@{rim:.1} -{}",
                            if truth_top { " TOWER" } else { "" }
                        )
                    }
                }
            }
            println!("{line}");
        }
    }
    Ok(())
}
