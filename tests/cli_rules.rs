//! The `rules` commands as a user runs them.

use assert_cmd::Command;
use predicates::prelude::*;

fn koanscope() -> Command {
    Command::cargo_bin("koanscope").expect("the binary is built")
}

const SAMPLE: &str = "sample_images/demo-table.poses.json";

#[test]
fn check_shows_the_canonical_form() {
    koanscope()
        .args([
            "rules",
            "check",
            "The structure must contain exactly two Medium-sized pyramids.",
        ])
        .assert()
        .success()
        .stdout(
            "A koan has the Buddha-nature if and only if it contains exactly two medium pieces.\n",
        );
}

#[test]
fn check_asks_for_a_reading_and_accepts_either() {
    koanscope()
        .args([
            "rules",
            "check",
            "Must contain two pieces of the same color.",
        ])
        .assert()
        .failure()
        .stderr(predicate::str::contains("exactly two or at least two"))
        .stderr(predicate::str::contains("--reading"));
    for (n, words) in [("1", "exactly two"), ("2", "at least two")] {
        koanscope()
            .args([
                "rules",
                "check",
                "Must contain two pieces of the same color.",
                "--reading",
                n,
            ])
            .assert()
            .success()
            .stdout(predicate::str::contains(format!(
                "it contains {words} pieces of the same color"
            )));
    }
}

#[test]
fn check_refuses_mu_with_readings_and_points_at_typos() {
    koanscope()
        .args([
            "rules",
            "check",
            "A koan has the Buddha-nature if its largest piece is green.",
        ])
        .assert()
        .failure()
        .stderr(predicate::str::contains("is mu"))
        .stderr(predicate::str::contains(
            "all of its largest pieces are green",
        ));
    koanscope()
        .args(["rules", "check", "it contains at least one yelow piece"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("column 26"))
        .stderr(predicate::str::contains("did you mean yellow?"))
        .stderr(predicate::str::contains("panicked").not());
}

#[test]
fn eval_marks_each_koan_of_a_poses_document_with_a_reason() {
    // The demo table has poses only: the geometry engine derives the rest first.
    koanscope()
        .args([
            "rules",
            "eval",
            "it contains at least two upright pieces",
            SAMPLE,
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "koan 0: white: contains 3 upright pieces",
        ))
        .stdout(predicate::str::contains(
            "koan 3: black: contains no upright pieces",
        ));
}

#[test]
fn eval_json_fills_the_marks() {
    let out = koanscope()
        .args([
            "rules",
            "eval",
            "it contains at least one red piece",
            SAMPLE,
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let koans = doc["koans"].as_array().unwrap();
    assert_eq!(koans.len(), 5);
    assert!(
        koans
            .iter()
            .all(|k| k["mark"] == "white" || k["mark"] == "black")
    );
    assert_eq!(koans[0]["mark"], "white");
}

#[test]
fn contradictions_lists_koans_the_guess_marks_differently() {
    let dir = tempfile::tempdir().unwrap();
    let marked = dir.path().join("marked.json");
    // Mark the demo table under the secret rule, then check guesses against it.
    let out = koanscope()
        .args([
            "rules",
            "eval",
            "it contains at least two upright pieces",
            SAMPLE,
            "--json",
        ])
        .output()
        .unwrap();
    std::fs::write(&marked, &out.stdout).unwrap();
    koanscope()
        .args([
            "rules",
            "contradictions",
            "it contains at least one upright piece",
        ])
        .arg(&marked)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "no koan on the table contradicts the guess",
        ));
    koanscope()
        .args([
            "rules",
            "contradictions",
            "it contains exactly three pieces",
        ])
        .arg(&marked)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "is marked white but the guess marks it black",
        ));
}

#[test]
fn list_filters_by_difficulty() {
    let out = koanscope()
        .args(["rules", "list", "--difficulty", "easy"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.lines().count() >= 10);
    assert!(text.lines().all(|l| l.contains(" easy ")), "{text}");
    assert!(text.contains("four-colors"));
}

#[test]
fn bad_scene_is_one_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"pieces\": [{\"id\": 0}]}").unwrap();
    koanscope()
        .args(["rules", "eval", "it contains at least one red piece"])
        .arg(&bad)
        .assert()
        .failure()
        .stderr(predicate::str::contains("pieces[0]"))
        .stderr(predicate::str::contains("panicked").not());
}

#[test]
fn counterexample_says_how_to_build_it_and_both_marks() {
    koanscope()
        .args([
            "rules",
            "counterexample",
            "it contains more red pieces than blue pieces",
            "it contains at least one red piece",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Stand a small red piece (#1) upright",
        ))
        .stdout(predicate::str::contains(
            "Stand a small blue piece (#2) upright",
        ))
        .stdout(predicate::str::contains(
            "Under the secret rule this koan is black",
        ))
        .stdout(predicate::str::contains("Under the guess it is white"));
}

#[test]
fn counterexample_json_is_a_scene_document_marked_by_the_rule() {
    let out = koanscope()
        .args([
            "rules",
            "counterexample",
            "it contains at least two upright pieces",
            "it contains at least one upright piece",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["koans"].as_array().unwrap().len(), 1);
    assert_eq!(doc["koans"][0]["mark"], "black");
    assert_eq!(doc["pieces"][0]["orientation"], "upright");
}

#[test]
fn counterexample_uses_only_the_stash_and_says_the_bound() {
    koanscope()
        .args([
            "rules",
            "counterexample",
            "it contains at least one red piece",
            "it contains at least one large piece",
            "--stash",
            "red small 1, blue large 1",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Stand a small red piece (#1) upright",
        ))
        .stdout(predicate::str::contains(
            "Under the secret rule this koan is white",
        ));
    // With only large red pieces left, every koan with red has a large piece: no difference.
    koanscope()
        .args([
            "rules",
            "counterexample",
            "it contains at least one red piece",
            "it contains at least one large piece",
            "--stash",
            "red large 2, blue small 1",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("No counter-example found"))
        .stdout(predicate::str::contains("colours: red, blue"));
    koanscope()
        .args([
            "rules",
            "counterexample",
            "The structure must contain zero yellow pieces.",
            "The structure must contain only red, blue, or green pieces.",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "No counter-example found: no koan of up to 3 pieces",
        ));
}

#[test]
fn tight_lipped_counterexample_builds_close_to_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let marked = dir.path().join("marked.json");
    let out = koanscope()
        .args([
            "rules",
            "eval",
            "it contains at least two upright pieces",
            SAMPLE,
            "--json",
        ])
        .output()
        .unwrap();
    std::fs::write(&marked, &out.stdout).unwrap();
    let helpful = koanscope()
        .args([
            "rules",
            "counterexample",
            "it contains no blue pieces",
            "it contains at most two pieces",
        ])
        .output()
        .unwrap();
    let tight = koanscope()
        .args([
            "rules",
            "counterexample",
            "it contains no blue pieces",
            "it contains at most two pieces",
            "--style",
            "tight-lipped",
            "--table",
        ])
        .arg(&marked)
        .output()
        .unwrap();
    assert!(
        tight.status.success(),
        "{}",
        String::from_utf8_lossy(&tight.stderr)
    );
    let (helpful, tight) = (
        String::from_utf8(helpful.stdout).unwrap(),
        String::from_utf8(tight.stdout).unwrap(),
    );
    assert!(
        helpful.starts_with("Counter-example (1 piece):"),
        "{helpful}"
    );
    // The demo table's koans have 1 to 4 pieces; the tight-lipped koan is not the plain one.
    assert_ne!(helpful, tight);
    assert!(tight.contains("Under the secret rule"), "{tight}");
}

#[test]
fn a_wider_bound_finds_what_the_default_does_not() {
    let args = [
        "rules",
        "counterexample",
        "it contains exactly two ungrounded pieces",
        "it contains at least one tower of at least three pieces",
    ];
    koanscope()
        .args(args)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "No counter-example found: no koan of up to 3 pieces",
        ));
    koanscope()
        .args(args)
        .args(["--max-arranged", "4"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Counter-example (4 pieces)"))
        .stdout(predicate::str::contains("on the tip of"));
}
