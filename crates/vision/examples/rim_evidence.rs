//! Measures how the rim of a same-colour tower's top piece stands out, on a dataset with truth:
//! for every true upright piece on the table, the rim evidence at the height each top size
//! would sit, marked `TOWER` where truth has that top there. `rim_evidence <setup-dir>
//! <calibration.yaml>`.

use std::path::PathBuf;

use koanscope_geometry::PieceModels;
use koanscope_scene::{Orientation, Size};
use koanscope_vision::evaluate::truth_pieces;
use koanscope_vision::image::read_bgr;
use koanscope_vision::pose::{cavity_apex_piece, pose_upright_at};
use koanscope_vision::rim::rim_evidence;
use koanscope_vision::segment::segment;
use koanscope_vision::{Calibration, ColorModel};

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
        let document: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&scene)?)?;
        // Calibration views and the table have no pieces.
        let Ok(truth) = truth_pieces(&document) else {
            continue;
        };
        let frame = read_bgr(&scene.with_extension("jpg"))?;
        let seg = segment(&frame, &model)?;
        for (id, p) in truth.iter().enumerate() {
            if p.orientation != Orientation::Upright || !p.grounded {
                continue;
            }
            let Some(class) = seg.class_of(p.color) else {
                continue;
            };
            // The yaw is the one thing evaluation does not read: from the pose's first column.
            let m: Vec<Vec<f64>> = serde_json::from_value(document["pieces"][id]["pose"].clone())?;
            let pose = pose_upright_at(&p.base_center_mm, m[1][0].atan2(m[0][0]));
            let base = pieces.dims(p.size);
            let apex = pose * nalgebra::Point3::new(0.0, 0.0, base.height_mm);
            let mut line = format!(
                "{} #{id} {:?} {:?} {:?}",
                scene.display(),
                p.color,
                p.size,
                p.role.as_deref().unwrap_or("")
            );
            for top in [Size::Small, Size::Medium, Size::Large] {
                let dims = pieces.dims(top);
                let rim = base.height_mm - cavity_apex_piece(&dims, pieces.wall_mm).z;
                if rim < 3.0 {
                    continue;
                }
                // Whether truth has a piece of this size and colour sitting on this tip.
                let truth_top = truth.iter().any(|q| {
                    let b = q.base_center_mm;
                    q.color == p.color
                        && q.size == top
                        && (b.x - apex.x).hypot(b.y - apex.y) < 2.0
                        && (b.z - rim).abs() < 2.0
                });
                let tower = if truth_top { " TOWER" } else { "" };
                match rim_evidence(&seg, &camera, class, &base, &pose, &dims, rim, 8, 0.0) {
                    Some(e) => {
                        line += &format!(
                            " | {top:?}@{rim:.1} {:.1}/{:.1}={:.2} n{}{tower}",
                            e.at_rim,
                            e.elsewhere,
                            e.ratio(),
                            e.samples,
                        )
                    }
                    None => line += &format!(" | {top:?}@{rim:.1} -{tower}"),
                }
            }
            println!("{line}");
        }
    }
    Ok(())
}
