//! `koanscope calibrate` as a user runs it, on the rendered dev dataset.

mod common;

use common::{dataset, koanscope};
use predicates::prelude::*;

#[test]
fn intrinsics_then_table_writes_a_full_calibration() {
    let Some(dataset) = dataset() else { return };
    let dir = tempfile::tempdir().expect("temp dir");
    let camera = dir.path().join("camera.yaml");
    let mut intrinsics = koanscope();
    intrinsics
        .args(["calibrate", "intrinsics", "--out"])
        .arg(&camera);
    for i in 0..4 {
        intrinsics.arg(dataset.join(format!("intrinsics/intr_{i:02}.jpg")));
    }
    intrinsics
        .assert()
        .success()
        .stdout(predicate::str::contains("RMS reprojection error"))
        .stdout(predicate::str::contains("pinhole"));

    let table = dir.path().join("table.yaml");
    koanscope()
        .args(["calibrate", "table"])
        .arg(dataset.join("D2/table.jpg"))
        .arg("--intrinsics")
        .arg(&camera)
        .arg("--out")
        .arg(&table)
        .assert()
        .success()
        .stdout(predicate::str::contains("camera 424 mm above the table"));
    let text = std::fs::read_to_string(&table).expect("written");
    assert!(text.contains("table_rvec") && text.contains("camera_matrix"));
}

#[test]
fn bad_inputs_say_what_is_wrong() {
    let Some(dataset) = dataset() else { return };
    let dir = tempfile::tempdir().expect("temp dir");
    koanscope()
        .args(["calibrate", "intrinsics", "--out"])
        .arg(dir.path().join("c.yaml"))
        .arg(dataset.join("D1/scene_00.jpg"))
        .assert()
        .failure()
        .stderr(predicate::str::contains("no 9x6 chessboard"))
        .stderr(predicate::str::contains("at least 3 needed"));
    koanscope()
        .args(["calibrate", "table"])
        .arg(dataset.join("D1/table.jpg"))
        .arg("--intrinsics")
        .arg(dataset.join("D1/setup.json"))
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "is not a koanscope calibration file",
        ));
    koanscope()
        .args(["calibrate", "table"])
        .arg(dir.path().join("missing.jpg"))
        .arg("--intrinsics")
        .arg(dir.path().join("missing.yaml"))
        .assert()
        .failure()
        .stderr(predicate::str::contains("missing.yaml"));
}

#[test]
fn target_is_written_at_stated_scale() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("board.svg");
    koanscope()
        .args(["calibrate", "target", "--out"])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("100% scale"));
    let svg = std::fs::read_to_string(out).expect("written");
    assert!(svg.contains("297mm") && svg.contains("25 mm squares"));
}
