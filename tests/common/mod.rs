//! What the app's end-to-end tests share: the binary, and the rendered dev dataset.

#![allow(dead_code)] // each test file uses its own part of this

use std::path::{Path, PathBuf};

use assert_cmd::Command;

pub fn koanscope() -> Command {
    Command::cargo_bin("koanscope").expect("the binary is built")
}

/// The rendered dev dataset (`../shared/datasets/dev`, or `$KOANSCOPE_DATASET`). Outside CI a
/// missing dataset skips the test with a message; in CI it is a failure.
pub fn dataset() -> Option<PathBuf> {
    let path = std::env::var_os("KOANSCOPE_DATASET")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/datasets/dev"));
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

/// Runs `koanscope ARGS --json FILE` and returns what it wrote there (stdout is printed, so a
/// CI log shows the figures).
pub fn figures_json(args: &[&std::ffi::OsStr]) -> serde_json::Value {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let json = dir.path().join("figures.json");
    let out = koanscope()
        .args(args)
        .arg("--json")
        .arg(&json)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    println!("{}", String::from_utf8_lossy(&out.stdout));
    serde_json::from_slice(&std::fs::read(&json).expect("figures written"))
        .expect("figures are JSON")
}

/// Runs `koanscope analyze IMAGE --calibration CALIBRATION --json FILE` and returns the scene
/// document it wrote.
pub fn analyzed_scene(image: &Path, calibration: &Path) -> serde_json::Value {
    analyzed_scene_with(image, calibration, &[]).0
}

/// Like [`analyzed_scene`] with `extra` arguments; also returns what it printed on stderr.
pub fn analyzed_scene_with(
    image: &Path,
    calibration: &Path,
    extra: &[&str],
) -> (serde_json::Value, String) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let json = dir.path().join("scene.json");
    let out = koanscope()
        .arg("analyze")
        .arg(image)
        .arg("--calibration")
        .arg(calibration)
        .arg("--json")
        .arg(&json)
        .args(extra)
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{stderr}");
    let scene = serde_json::from_slice(&std::fs::read(&json).expect("scene written"))
        .expect("scene is JSON");
    (scene, stderr)
}

/// The entries of a relation (`touching`, `pointing`, `towers` …) over every koan of an analysed
/// scene: `[a, b]` id pairs, or a tower's ids from the bottom up.
pub fn koan_relation(scene: &serde_json::Value, relation: &str) -> Vec<serde_json::Value> {
    scene["koans"]
        .as_array()
        .expect("koans")
        .iter()
        .flat_map(|k| k[relation].as_array().cloned().unwrap_or_default())
        .collect()
}
