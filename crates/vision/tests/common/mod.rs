//! Finding the shared dev dataset (`../shared/datasets/dev` from the workspace root, or
//! `KOANSCOPE_DATASET`). Without it a test is skipped locally, but fails under CI.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use nalgebra::{Isometry3, Matrix3};

pub fn dataset() -> Option<PathBuf> {
    let path = std::env::var_os("KOANSCOPE_DATASET")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/datasets/dev")
        });
    if path.join("intrinsics").is_dir() {
        return Some(path);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "the dev dataset is missing at {}: set KOANSCOPE_DATASET to the folder holding intrinsics/ and D1..D3/",
        path.display()
    );
    eprintln!("skipped: no dataset at {}", path.display());
    None
}

pub fn json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn triple(v: &serde_json::Value) -> [f64; 3] {
    let a: Vec<f64> = v
        .as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect();
    [a[0], a[1], a[2]]
}

/// The true camera matrix and camera_from_table of a setup.
pub fn truth_setup(setup_dir: &Path) -> (Matrix3<f64>, Isometry3<f64>) {
    let s = json(&setup_dir.join("setup.json"));
    let rows: Vec<[f64; 3]> = s["K"].as_array().expect("K").iter().map(triple).collect();
    let k = Matrix3::from_row_slice(&rows.concat());
    let pose = koanscope_vision::isometry_from_rvec_tvec(triple(&s["rvec"]), triple(&s["tvec"]));
    (k, pose)
}

/// The true camera of a setup (`setup.json`: its camera matrix and pose, no distortion, a
/// 1280x720 frame).
pub fn truth_camera(setup_dir: &Path) -> koanscope_vision::Camera {
    let (k, camera_from_table) = truth_setup(setup_dir);
    koanscope_vision::Camera::new(
        koanscope_vision::Intrinsics {
            camera_matrix: k,
            distortion: [0.0; 5],
            image_size: [1280, 720],
        },
        camera_from_table,
    )
}

/// The project's own rendered sample tables (`sample_images/`: `S1`, `S2`, `S3`, `intrinsics`).
pub fn sample_images() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../sample_images")
}
