//! `koanscope analyze` and `koanscope eval` as a user runs them, on the rendered dev dataset and
//! on the project's own sample images.

use std::path::{Path, PathBuf};

mod common;

use common::{analyzed_scene, analyzed_scene_with, dataset, koanscope};
use koanscope_vision::evaluate::{TruthPiece, truth_pieces};
use predicates::prelude::*;
use serde_json::json;

/// A full calibration for setup D1, made with the CLI itself.
fn calibrate_d1(dataset: &Path, dir: &Path) -> PathBuf {
    calibrate(dataset, "D1", dir)
}

/// A full calibration for one of the dataset's setups, made with the CLI itself.
fn calibrate(dataset: &Path, setup: &str, dir: &Path) -> PathBuf {
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
        .arg(dataset.join(setup).join("table.jpg"))
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

/// The project's own rendered samples exist on a fresh checkout: eval runs on them everywhere.
#[test]
fn eval_on_the_sample_images_reports_relations_grouping_and_beginner_marks() {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample_images");
    let dir = tempfile::tempdir().expect("temp dir");
    let json = dir.path().join("eval.json");
    koanscope()
        .arg("eval")
        .arg(&samples)
        .arg("--json")
        .arg(&json)
        .assert()
        .success()
        .stdout(predicate::str::contains("touching F1"))
        .stdout(predicate::str::contains("pointing-at-another"))
        .stdout(predicate::str::contains(
            "beginner marks of the truth less the pieces no frame shows (the most a reading can agree): ",
        ));
    let rows: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("written")).expect("JSON");
    let rows = rows.as_array().expect("rows");
    let setups: Vec<&str> = rows.iter().filter_map(|r| r["setup"].as_str()).collect();
    assert_eq!(setups, ["S1", "S2", "S3", "all"]);
    for row in rows {
        for figure in [
            "touching_f1",
            "pointing_f1",
            "tower_f1",
            "grouping",
            "beginner_marks",
            "beginner_marks_nothing_hidden",
            "beginner_marks_seen_truth",
        ] {
            let v = row[figure].as_f64().expect(figure);
            assert!((0.0..=1.0).contains(&v), "{figure} {v}");
        }
        let per_rule = row["beginner_marks_per_rule"]
            .as_object()
            .expect("per rule");
        assert_eq!(per_rule.len(), 15, "{per_rule:?}");
    }
    let all = rows.last().expect("an overall row");
    // Floors well below today's figures (touching 97%, grouping 96%, marks 93%).
    assert!(all["grouping"].as_f64().expect("grouping") >= 0.8);
    assert!(all["touching_f1"].as_f64().expect("touching") >= 0.7);
    assert!(all["beginner_marks"].as_f64().expect("marks") >= 0.8);
    // Each sample setup nests a piece out of sight: its koan is marked otherwise under rules
    // that count pieces, and the figure over the koans in full view leaves it out.
    assert!(
        all["beginner_marks_nothing_hidden"]
            .as_f64()
            .expect("marks, all seen")
            > all["beginner_marks"].as_f64().expect("marks")
    );
    // Even a perfect reading of the frames misses what those nested pieces do to the marks.
    let ceiling = all["beginner_marks_seen_truth"]
        .as_f64()
        .expect("the most a reading can agree");
    assert!((0.9..1.0).contains(&ceiling), "{ceiling}");
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

/// `--explain` names each scene with a disagreement and says what it was, piece by piece.
#[test]
fn eval_explain_lists_each_disagreement_under_its_scene() {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample_images");
    let output = koanscope()
        .arg("eval")
        .arg(&samples)
        .arg("--explain")
        .output()
        .expect("runs");
    assert!(output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    let first_scene = lines
        .iter()
        .position(|l| l.starts_with("S1/scene_") || l.starts_with("S2/scene_"))
        .expect("a scene with disagreements (the samples are not all perfect)");
    let explained = &lines[first_scene + 1];
    let kinds = [
        "missed", "wrong", "false", "touching", "pointing", "koan", "marks",
    ];
    assert!(
        explained.starts_with("  ") && kinds.iter().any(|k| explained.trim_start().starts_with(k)),
        "{explained}"
    );
    // Each piece line names the true piece as the truth describes it: its number, colour, size
    // and orientation ("true #3 red medium weird").
    let piece_lines: Vec<&&str> = lines
        .iter()
        .filter(|l| {
            let l = l.trim_start();
            l.starts_with("wrong") || l.starts_with("missed")
        })
        .collect();
    assert!(!piece_lines.is_empty(), "a piece misread: {stdout}");
    for line in piece_lines {
        let named: Vec<&str> = line
            .split_once("true #")
            .map(|(_, rest)| rest.split_whitespace().take(4).collect())
            .unwrap_or_default();
        assert!(
            matches!(
                named.as_slice(),
                [id, colour, size, orientation]
                    if id.parse::<u32>().is_ok()
                        && ["red", "yellow", "green", "blue", "black"].contains(colour)
                        && ["small", "medium", "large"].contains(size)
                        && ["upright", "flat", "weird"].contains(orientation)
            ),
            "{line}"
        );
    }
    // A koan hiding a nested piece (S1 scene 3) is marked otherwise where the count matters.
    let s1_scene_3 = lines
        .iter()
        .position(|l| *l == "S1/scene_03")
        .expect("S1 scene 3 listed: its koan 1 hides a piece");
    assert!(
        lines[s1_scene_3 + 1..]
            .iter()
            .take_while(|l| l.starts_with("  "))
            .any(
                |l| l.contains("marks    true koan 1 marked otherwise under")
                    && l.contains("exactly-two-pieces")
            ),
        "{stdout}"
    );
}

/// A dev scene (`setup`, `scene` without extension) analysed with a calibration made from its
/// setup's own images, and the truth's pieces; `None` where the dataset is not here.
fn dev_scene_analyzed(setup: &str, scene: &str) -> Option<(serde_json::Value, Vec<TruthPiece>)> {
    let dataset = dataset()?;
    let dir = tempfile::tempdir().expect("temp dir");
    let calibration = calibrate(&dataset, setup, dir.path());
    let found = analyzed_scene(&dataset.join(format!("{setup}/{scene}.jpg")), &calibration);
    let truth: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dataset.join(format!("{setup}/{scene}.json"))).expect("truth"),
    )
    .expect("JSON");
    Some((found, truth_pieces(&truth).expect("truth pieces")))
}

/// How far (mm, across the table) a found piece's base centre lies from a true piece's.
fn base_off_mm(found: &serde_json::Value, truth: &TruthPiece) -> f64 {
    let base: Vec<f64> =
        serde_json::from_value(found["base_center_mm"].clone()).expect("a base centre");
    (base[0] - truth.base_center_mm.x).hypot(base[1] - truth.base_center_mm.y)
}

/// A support whose foot hides behind the upside-down piece leaning on it, and whose far side
/// the leaner cuts off into a region of its own (D2 scene 5): it shows a third of itself, and is
/// read whole where it stands, not a size smaller slid back out from behind the leaner.
#[test]
fn a_support_mostly_hidden_by_the_piece_leaning_on_it_is_read_whole() {
    let Some((scene, truth)) = dev_scene_analyzed("D2", "scene_05") else {
        return;
    };
    let support = truth
        .into_iter()
        .find(|p| p.role.as_deref() == Some("support"))
        .expect("the truth's support");
    let found = scene["pieces"]
        .as_array()
        .expect("pieces")
        .iter()
        .find(|p| p["color"] == support.color.to_string())
        .unwrap_or_else(|| panic!("no {} piece: {scene}", support.color));
    let off = base_off_mm(found, &support);
    assert_eq!(found["size"], serde_json::json!(support.size), "{found}");
    assert!(off < 3.0, "base {off:.1} mm off: {found}");
}

/// A blue small standing against the base of a blue large lying flat (D3 scene 1): one region,
/// which the large alone covers best turned off its true heading, over the small. Fitted from
/// its next best heading, the large leaves the small to be found, touching it.
#[test]
fn a_small_standing_against_a_flat_large_of_its_colour_is_found_beside_it() {
    let Some((scene, truth)) = dev_scene_analyzed("D3", "scene_01") else {
        return;
    };
    let pieces = scene["pieces"].as_array().expect("pieces");
    let found: Vec<&serde_json::Value> = truth
        .iter()
        .filter(|t| {
            t.role.as_deref().is_some_and(|r| r.starts_with("touch"))
                && t.color.to_string() == "blue"
        })
        .map(|t| {
            let at = pieces
                .iter()
                .filter(|p| p["color"] == "blue")
                .min_by(|a, b| base_off_mm(a, t).total_cmp(&base_off_mm(b, t)))
                .unwrap_or_else(|| panic!("no blue piece: {scene}"));
            assert_eq!(
                (&at["size"], &at["orientation"]),
                (&json!(t.size), &json!(t.orientation)),
                "{at}"
            );
            assert!(base_off_mm(at, t) < 3.0, "base off: {at}");
            at
        })
        .collect();
    let [a, b] = found[..] else {
        panic!("the truth has two blue pieces touching");
    };
    let ids = [a["id"].clone(), b["id"].clone()];
    let touching = common::koan_relation(&scene, "touching");
    assert!(
        touching.contains(&json!(ids)) || touching.contains(&json!([ids[1], ids[0]])),
        "not touching: {scene}"
    );
}

/// A yellow large lying across the tips of a black and a yellow medium (D1 scene 5). Where the
/// black post meets the bridge and the yellow post, the blur blends their colours into pixels
/// the table test passes; counted as table, they cut the post short (read a small, leaning) and
/// the bridge lay on the table. Read as seams, they say nothing, and the bridge lies across both.
#[test]
fn a_bridge_over_a_post_it_half_hides_is_read_lying_across_both_posts() {
    let Some((scene, truth)) = dev_scene_analyzed("D1", "scene_05") else {
        return;
    };
    assert_bridge_rests_on_its_posts(&scene, &truth);
}

/// The truth's bridge is found lying across its posts (not on the table behind them), at its
/// place, and both posts upright at their size, pointing up at it. Returns the posts found.
fn assert_bridge_rests_on_its_posts<'a>(
    scene: &'a serde_json::Value,
    truth: &[TruthPiece],
) -> Vec<&'a serde_json::Value> {
    let bridge = truth
        .iter()
        .find(|p| p.role.as_deref() == Some("bridge_flat"))
        .expect("the truth's bridge");
    let pieces = scene["pieces"].as_array().expect("pieces");
    let found = pieces
        .iter()
        .find(|p| p["color"] == bridge.color.to_string() && p["size"] == json!(bridge.size))
        .unwrap_or_else(|| panic!("no {} {:?} piece: {scene}", bridge.color, bridge.size));
    assert_eq!(found["orientation"], "flat", "{found}");
    assert_eq!(
        found["grounded"], false,
        "the bridge lies on the table: {found}"
    );
    let off = base_off_mm(found, bridge);
    assert!(off < 3.0, "base {off:.1} mm off: {found}");
    // Both posts are found upright, at full size, pointing up at it.
    let pointing = common::koan_relation(scene, "pointing");
    let mut posts = Vec::new();
    for post in truth
        .iter()
        .filter(|p| p.role.as_deref() == Some("bridge_post"))
    {
        let at = pieces
            .iter()
            .filter(|p| p["color"] == post.color.to_string() && p["grounded"] == true)
            .min_by(|a, b| base_off_mm(a, post).total_cmp(&base_off_mm(b, post)))
            .unwrap_or_else(|| panic!("no {} post: {scene}", post.color));
        assert_eq!(
            (&at["size"], &at["orientation"]),
            (&json!(post.size), &json!("upright")),
            "{at}"
        );
        assert!(
            pointing.contains(&json!([at["id"], found["id"]])),
            "the {} post does not point at the bridge: {scene}",
            post.color
        );
        posts.push(at);
    }
    posts
}

/// A yellow medium lying across the tips of a yellow and a red small (D3 scene 3): one yellow
/// region holds the bridge and its post. Lying on the table behind a post read a size too big
/// explains the outline as well; the red post seen in front of that too-big post says nothing
/// for it (a piece fitted too big overlaps more), and the yellow of the bridge seen over the
/// red tip raises the bridge.
#[test]
fn a_bridge_over_a_post_of_its_own_colour_rests_on_both_posts() {
    let Some((scene, truth)) = dev_scene_analyzed("D3", "scene_03") else {
        return;
    };
    let posts = assert_bridge_rests_on_its_posts(&scene, &truth);
    // The posts stand 2 mm apart: they do not touch.
    let ids = [posts[0]["id"].clone(), posts[1]["id"].clone()];
    let touching = common::koan_relation(&scene, "touching");
    assert!(
        !touching.contains(&json!(ids)) && !touching.contains(&json!([ids[1], ids[0]])),
        "the posts touch: {scene}"
    );
}

/// A red small on a red medium whose faces show no rim between them (D1 scene 2): by outline
/// alone it was read as one medium lying flat; the faces' shading reads it as the tower it is.
#[test]
fn a_tower_of_one_colour_without_a_visible_rim_is_read_as_a_tower() {
    let Some((scene, truth)) = dev_scene_analyzed("D1", "scene_02") else {
        return;
    };
    let base = truth
        .into_iter()
        .find(|p| p.role.as_deref() == Some("tower_base") && p.color.to_string() == "red")
        .expect("the truth's red tower base");
    let pieces = scene["pieces"].as_array().expect("pieces");
    let piece = |id: &serde_json::Value| {
        pieces
            .iter()
            .find(|p| p["id"] == *id)
            .expect("a tower's piece is a piece")
    };
    let red_tower = common::koan_relation(&scene, "towers")
        .into_iter()
        .find(|t| {
            let ids = t.as_array().expect("a tower");
            ids.len() == 2 && ids.iter().all(|id| piece(id)["color"] == "red")
        })
        .unwrap_or_else(|| panic!("no red tower: {scene}"));
    let [bottom, top] = &red_tower.as_array().expect("a tower")[..] else {
        unreachable!("a tower of two");
    };
    let (bottom, top) = (piece(bottom), piece(top));
    assert_eq!(
        (&bottom["size"], &top["size"]),
        (&serde_json::json!("medium"), &serde_json::json!("small"))
    );
    let off = base_off_mm(bottom, &base);
    assert!(off < 3.0, "base {off:.1} mm off: {bottom}");
    // The Master is told the tower was read from the shading, and asked to check.
    let call = scene["koans"]
        .as_array()
        .expect("koans")
        .iter()
        .flat_map(|k| k["judgment_calls"].as_array().cloned().unwrap_or_default())
        .find(|c| c["what"] == "tower" && c["pieces"] == red_tower)
        .unwrap_or_else(|| panic!("no judgment call for the tower: {scene}"));
    assert!(
        call["note"].as_str().is_some_and(|n| n.contains("lift")),
        "{call}"
    );
}

/// A reading that a little more or less light changes is a judgment call for the Master. In the
/// sample scene S3/0 the blue medium upside down on its apex is read so (weird), and lying flat
/// at 3 % more exposure: the call points the Master at the piece a little light would misread.
/// (Today's reading: should a change make it steady, pick another frame that flips. Until
/// 2026-11-30 this was S1/2's red medium, read a small; it now reads a medium at every exposure.)
#[test]
fn readings_another_exposure_would_change_are_flagged_to_the_master() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let image = root.join("sample_images/S3/scene_00.jpg");
    let calibration = root.join("calibration/sample-S3.yaml");
    let reading_calls = |extra: &[&str]| {
        let (scene, stderr) = analyzed_scene_with(&image, &calibration, extra);
        let calls: Vec<serde_json::Value> = scene["koans"]
            .as_array()
            .expect("koans")
            .iter()
            .flat_map(|k| {
                let members = k["pieces"].clone();
                k["judgment_calls"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|c| c["what"] == "reading")
                    .inspect(move |c| {
                        // Each call is about a piece of its own koan.
                        let piece = &c["pieces"][0];
                        assert!(members.as_array().expect("ids").contains(piece), "{c}");
                    })
            })
            .collect();
        (calls, stderr)
    };
    let (calls, stderr) = reading_calls(&[]);
    let blue = calls
        .iter()
        .find(|c| {
            c["note"]
                .as_str()
                .is_some_and(|n| n.contains("blue medium"))
        })
        .unwrap_or_else(|| panic!("no call for the blue medium: {calls:?}"));
    assert!(
        blue["note"]
            .as_str()
            .is_some_and(|n| n.contains("% less light") || n.contains("% more light")),
        "{blue}"
    );
    assert!(
        (blue["margin"].as_f64().expect("a margin").abs() - 0.03).abs() < 1e-9,
        "{blue}"
    );
    assert!(
        stderr.contains("reading of"),
        "the Master is told on the terminal too: {stderr}"
    );
    // Asked not to, it does not look again.
    let (calls, _) = reading_calls(&["--no-steadiness"]);
    assert!(calls.is_empty(), "{calls:?}");
}
