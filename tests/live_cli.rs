//! `koanscope live` refusing what it cannot use, with what to do, before any window or session.

mod common;

use common::koanscope;
use predicates::prelude::*;

const CALIBRATION: &str = "calibration/sample-S1.yaml";

#[test]
fn no_camera_says_so_and_names_the_other_sources() {
    let dir = tempfile::tempdir().unwrap();
    koanscope()
        .args([
            "live",
            "--camera",
            "7",
            "--calibration",
            CALIBRATION,
            "--db",
        ])
        .arg(dir.path().join("s.sqlite"))
        .assert()
        .failure()
        .stderr(predicate::str::contains("--video FILE"))
        .stderr(predicate::str::contains("--images DIR"));
    assert!(
        !dir.path().join("s.sqlite").exists(),
        "no session is started"
    );
}

#[test]
fn a_missing_folder_and_a_calibration_of_another_resolution_are_named() {
    let dir = tempfile::tempdir().unwrap();
    koanscope()
        .args([
            "live",
            "--images",
            "no/such/folder",
            "--calibration",
            CALIBRATION,
        ])
        .assert()
        .failure()
        .stderr(predicate::str::contains("no/such/folder"));
    // A 640x360 copy of a sample frame against the 1280x720 calibration.
    let frames = dir.path().join("frames");
    std::fs::create_dir(&frames).unwrap();
    image::open("sample_images/S1/scene_00.jpg")
        .unwrap()
        .resize_exact(640, 360, image::imageops::FilterType::Triangle)
        .save(frames.join("small.png"))
        .unwrap();
    koanscope()
        .args(["live", "--images"])
        .arg(&frames)
        .args(["--calibration", CALIBRATION, "--db"])
        .arg(dir.path().join("s.sqlite"))
        .env("DISPLAY", "")
        .assert()
        .failure()
        .stderr(predicate::str::contains("640x360"))
        .stderr(predicate::str::contains("1280x720"));
}

#[test]
fn no_display_says_how_to_run_headless_and_starts_no_session() {
    let dir = tempfile::tempdir().unwrap();
    koanscope()
        .args([
            "live",
            "--images",
            "sample_images/S1",
            "--calibration",
            CALIBRATION,
            "--db",
        ])
        .arg(dir.path().join("s.sqlite"))
        .env("DISPLAY", "")
        .env_remove("WAYLAND_DISPLAY")
        .assert()
        .failure()
        .stderr(predicate::str::contains("xvfb-run"));
    assert!(
        !dir.path().join("s.sqlite").exists(),
        "no session is started"
    );
}
