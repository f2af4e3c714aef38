//! The `attributes` and `demo` commands as a user runs them.

use assert_cmd::Command;
use predicates::prelude::*;

fn koanscope() -> Command {
    Command::cargo_bin("koanscope").expect("the binary is built")
}

const SAMPLE: &str = "sample_images/demo-table.poses.json";

#[test]
fn attributes_of_the_demo_table_are_a_complete_scene_document() {
    let out = koanscope().args(["attributes", SAMPLE]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["schema"], "koanscope.scene/1");
    let pieces = doc["pieces"].as_array().unwrap();
    assert_eq!(pieces.len(), 13);
    for p in pieces {
        for field in [
            "orientation",
            "grounded",
            "height_mm",
            "apex_mm",
            "axis",
            "koan",
        ] {
            assert!(!p[field].is_null(), "piece {} lacks {field}", p["id"]);
        }
    }
    let koans = doc["koans"].as_array().unwrap();
    assert_eq!(koans.len(), 5);
    assert_eq!(koans[0]["towers"], serde_json::json!([[0, 1, 2]]));
    assert_eq!(koans[1]["nests"], serde_json::json!([[4, 5]]));
    assert_eq!(koans[2]["touching"], serde_json::json!([[7, 9], [8, 9]]));
}

#[test]
fn attributes_can_be_read_in_words() {
    koanscope()
        .args(["attributes", SAMPLE, "--text"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "tower, bottom to top: #0 blue large, #1 red medium, #2 yellow small",
        ))
        .stdout(predicate::str::contains(
            "#3 green small points at #0 blue large",
        ));
}

#[test]
fn the_demo_table_in_words_needs_no_files_around() {
    let dir = tempfile::tempdir().unwrap();
    koanscope()
        .current_dir(dir.path())
        .args(["demo", "--text"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Koan 1 (3 pieces)"))
        .stdout(predicate::str::contains(
            "nest, outermost first: #4 green large, #5 red small",
        ));
}

#[test]
fn a_missing_file_says_which() {
    koanscope()
        .args(["attributes", "no/such/poses.json"])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "error: reading no/such/poses.json: cannot read the file",
        ));
}

#[test]
fn a_bad_colour_says_which_piece_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.json");
    std::fs::write(
        &path,
        r#"{"pieces": [{"id": 2, "color": "yelow", "size": "small",
            "table_from_piece": [[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]}]}"#,
    )
    .unwrap();
    koanscope()
        .args(["attributes", path.to_str().unwrap()])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "pieces[0] (id 2).color: unknown colour \"yelow\"",
        ))
        .stderr(predicate::str::contains("panicked").not());
}

#[test]
fn an_image_given_as_poses_is_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("frame.jpg");
    std::fs::write(
        &path,
        [0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, b'J', b'F', b'I', b'F'],
    )
    .unwrap();
    koanscope()
        .args(["attributes", path.to_str().unwrap()])
        .assert()
        .failure()
        .stderr(predicate::str::contains("not a scene document"));
}

#[test]
fn a_master_grouping_is_kept_when_asked() {
    // Two pieces 40 mm apart are two koans, unless the Master says they are one.
    let doc = r#"{"pieces": [
        {"id": 0, "color": "red", "size": "small", "table_from_piece": [[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]},
        {"id": 1, "color": "blue", "size": "small", "table_from_piece": [[1,0,0,54.3],[0,1,0,0],[0,0,1,0],[0,0,0,1]]}],
      "koans": [{"id": 7, "pieces": [0, 1]}]}"#;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("grouped.json");
    std::fs::write(&path, doc).unwrap();
    let run = |extra: &[&str]| -> serde_json::Value {
        let out = koanscope()
            .arg("attributes")
            .arg(&path)
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success());
        serde_json::from_slice(&out.stdout).unwrap()
    };
    assert_eq!(run(&[])["koans"].as_array().unwrap().len(), 2);
    let kept = run(&["--keep-koans"]);
    assert_eq!(kept["koans"].as_array().unwrap().len(), 1);
    assert_eq!(kept["koans"][0]["id"], 7);
}

#[test]
fn bench_reports_each_target_beside_its_baseline() {
    koanscope()
        .args([
            "bench",
            "--runs",
            "3",
            "--frame-runs",
            "1",
            "--pipeline-secs",
            "1",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "baseline  read the poses document of 100 pieces",
        ))
        .stdout(
            predicate::str::is_match(
                r"derive 20 koans / 100 pieces +[0-9.]+ ms += [0-9.]+ x baseline",
            )
            .unwrap(),
        )
        .stdout(predicate::str::contains(
            "floor     Lab conversion + threshold of a 1280x720 frame",
        ))
        .stdout(
            predicate::str::is_match(
                r"analyse that frame \(16 pieces found\) +[0-9.]+ ms += [0-9.]+ x floor",
            )
            .unwrap(),
        )
        // The one-off cost of a process's first frame is shown apart from the medians.
        .stdout(
            predicate::str::is_match(r"the process's first frame \(fills the Lab table\) +[0-9.]+ ms")
                .unwrap(),
        )
        // The rendered table: every piece in view found, timed against its own floor.
        .stdout(
            predicate::str::is_match(
                r"analyse the rendered table \(16 pieces found\) +[0-9.]+ ms += [0-9.]+ x floor",
            )
            .unwrap(),
        )
        .stdout(
            predicate::str::is_match(
                r"both views, same picture +[0-9.]+ ms += [0-9.]+ x baseline, [0-9]+% of the 16 ms budget",
            )
            .unwrap(),
        )
        .stdout(
            predicate::str::is_match(
                r"2 vision workers: +[0-9.]+ analysed/s = [0-9.]+ x floor, [0-9]+% of the 30 fps target",
            )
            .unwrap(),
        );
}
