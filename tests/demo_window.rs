//! `koanscope demo` as the README runs it on a machine without a screen: the real window under
//! Xvfb, on the bundled sample, koanscope as the Master. Both views are saved as PNGs once
//! every koan is built, logged and marked; the test checks that the koans are drawn with their
//! stones where the window says it drew them.

mod common;

use std::process::Command;

use common::koanscope;

/// xvfb-run, or None outside CI when it is not installed (in CI it is a failure).
fn xvfb_run() -> Option<&'static str> {
    let found = Command::new("sh")
        .args(["-c", "command -v xvfb-run"])
        .output()
        .is_ok_and(|o| o.status.success());
    if found {
        return Some("xvfb-run");
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "xvfb-run is missing: scripts/setup installs it (package xvfb)"
    );
    eprintln!("skipped: no xvfb-run here");
    None
}

#[test]
fn the_demo_draws_the_sample_koans_and_their_marks_in_both_windows() {
    let Some(xvfb) = xvfb_run() else {
        return;
    };
    let dir = tempfile::tempdir().expect("a temporary folder");
    let shots = dir.path().join("shots");
    let binary = koanscope().get_program().to_owned();
    // A window that never settles must fail the test, not hang it.
    let out = Command::new("timeout")
        .arg("300")
        .arg(xvfb)
        .args(["-a", "-s", "-screen 0 1920x1080x24"])
        .arg(binary)
        .arg("demo")
        .arg("--db")
        .arg(dir.path().join("demo.sqlite"))
        .arg("--screenshot")
        .arg(&shots)
        .args(["--shot-after", "5"])
        .output()
        .expect("xvfb-run runs");
    assert!(
        out.status.success(),
        "the demo failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let drawn = std::fs::read_to_string(shots.join("drawn.txt")).expect("drawn.txt");
    let public = image::open(shots.join("public.png"))
        .expect("the public view's screenshot")
        .to_rgb8();
    let console = image::open(shots.join("console.png")).expect("the console's screenshot");
    assert!(console.width() >= 1000 && console.height() >= 600);
    // S1/scene_00 under "a red piece": two white koans and one black.
    let mut marks = Vec::new();
    for line in drawn.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [_, no, mark, x, y] = fields[..] else {
            panic!("a line of drawn.txt is not `koan N MARK X Y`: {line:?}");
        };
        let (x, y): (u32, u32) = (x.parse().expect("x"), y.parse().expect("y"));
        let [r, g, b] = public.get_pixel(x, y).0;
        let brightness = (r as u32 + g as u32 + b as u32) / 3;
        match mark {
            "white" => assert!(brightness > 230, "koan {no}'s white stone is {r},{g},{b}"),
            "black" => assert!(brightness < 25, "koan {no}'s black stone is {r},{g},{b}"),
            other => panic!("koan {no} is drawn {other}"),
        }
        marks.push(mark.to_string());
    }
    marks.sort();
    assert_eq!(marks, ["black", "white", "white"], "drawn: {drawn}");
}
