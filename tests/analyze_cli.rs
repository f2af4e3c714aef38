//! `koanscope analyze` and `koanscope eval` as a user runs them, on the rendered dev dataset.

use std::path::{Path, PathBuf};

mod common;

use common::{dataset, koanscope};
use predicates::prelude::*;

/// A full calibration for setup D1, made with the CLI itself.
fn calibrate_d1(dataset: &Path, dir: &Path) -> PathBuf {
    let camera = dir.join("camera.yaml");
    let mut intrinsics = koanscope();
    intrinsics
        .args(["calibrate", "intrinsics", "--out"])
        .arg(&camera);
    for i in 0..4 {
        intrinsics.arg(dataset.join(format!("intrinsics/intr_{i:02}.jpg")));
    }
    intrinsics.assert().success();
    let table = dir.join("table.yaml");
    koanscope()
        .args(["calibrate", "table"])
        .arg(dataset.join("D1/table.jpg"))
        .arg("--intrinsics")
        .arg(&camera)
        .arg("--out")
        .arg(&table)
        .assert()
        .success();
    table
}

#[test]
fn analyze_writes_the_scene_document_and_an_overlay() {
    let Some(dataset) = dataset() else { return };
    let dir = tempfile::tempdir().expect("temp dir");
    let calibration = calibrate_d1(&dataset, dir.path());
    let json = dir.path().join("scene.json");
    let overlay = dir.path().join("overlay.png");
    koanscope()
        .arg("analyze")
        .arg(dataset.join("D1/scene_00.jpg"))
        .arg("--calibration")
        .arg(&calibration)
        .arg("--json")
        .arg(&json)
        .arg("--overlay")
        .arg(&overlay)
        .assert()
        .success()
        .stdout(predicate::str::contains("pieces in"));
    let scene: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("written")).expect("JSON");
    let pieces = scene["pieces"].as_array().expect("pieces");
    assert!((8..=12).contains(&pieces.len()), "{} pieces", pieces.len());
    for piece in pieces {
        for field in [
            "color",
            "size",
            "table_from_piece",
            "orientation",
            "image_xy",
            "confidence",
            "koan",
        ] {
            assert!(!piece[field].is_null(), "{field} missing in {piece}");
        }
    }
    assert!(!scene["koans"].as_array().expect("koans").is_empty());
    assert!(std::fs::metadata(&overlay).expect("overlay written").len() > 10_000);
}

#[test]
fn analyze_refuses_intrinsics_only_and_other_resolutions() {
    let Some(dataset) = dataset() else { return };
    let dir = tempfile::tempdir().expect("temp dir");
    let table = calibrate_d1(&dataset, dir.path());
    koanscope()
        .arg("analyze")
        .arg(dataset.join("D1/scene_00.jpg"))
        .arg("--calibration")
        .arg(dir.path().join("camera.yaml"))
        .assert()
        .failure()
        .stderr(predicate::str::contains("calibrate table"));
    let text = std::fs::read_to_string(&table).expect("written");
    let other = dir.path().join("other.yaml");
    std::fs::write(
        &other,
        text.replace("image_width: 1280", "image_width: 1920"),
    )
    .expect("written");
    koanscope()
        .arg("analyze")
        .arg(dataset.join("D1/scene_00.jpg"))
        .arg("--calibration")
        .arg(&other)
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "1280x720 but the calibration is for 1920x720",
        ));
}

#[test]
fn eval_reports_detection_figures_per_setup() {
    let Some(dataset) = dataset() else { return };
    let dir = tempfile::tempdir().expect("temp dir");
    let json = dir.path().join("eval.json");
    koanscope()
        .arg("eval")
        .arg(&dataset)
        .arg("--json")
        .arg(&json)
        .assert()
        .success()
        .stdout(predicate::str::contains("recall"))
        .stdout(predicate::str::contains("D3"));
    let rows: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("written")).expect("JSON");
    let all = rows
        .as_array()
        .and_then(|r| r.last())
        .expect("an overall row");
    assert_eq!(all["setup"], "all");
    assert!(all["recall"].as_f64().expect("recall") > 0.9);
}

#[test]
fn colours_are_relearnt_from_a_frame() {
    let Some(dataset) = dataset() else { return };
    let dir = tempfile::tempdir().expect("temp dir");
    let calibration = calibrate_d1(&dataset, dir.path());
    let out = dir.path().join("colors.toml");
    koanscope()
        .args(["calibrate", "colors"])
        .arg(dataset.join("D1/scene_00.jpg"))
        .arg("--calibration")
        .arg(&calibration)
        .arg("--out")
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("blue"));
    koanscope()
        .arg("analyze")
        .arg(dataset.join("D1/scene_00.jpg"))
        .arg("--calibration")
        .arg(&calibration)
        .arg("--colors")
        .arg(&out)
        .assert()
        .success();
    let broken = dir.path().join("broken.toml");
    std::fs::write(&broken, "background_window_px = 3").expect("written");
    koanscope()
        .arg("analyze")
        .arg(dataset.join("D1/scene_00.jpg"))
        .arg("--calibration")
        .arg(&calibration)
        .arg("--colors")
        .arg(&broken)
        .assert()
        .failure()
        .stderr(predicate::str::contains("colour model"));
}
