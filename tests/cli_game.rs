//! Whole games played from scripts, as a user runs them: `game play`, `sessions list`, `replay`,
//! `report`, and a game that survives its process being killed.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use koanscope_game::{Phase, Store};
use predicates::prelude::*;

fn koanscope(db: &Path) -> Command {
    let mut c = Command::cargo_bin("koanscope").expect("the binary is built");
    // Never the user's own store, even if a test forgets --db.
    c.env("XDG_DATA_HOME", db.parent().unwrap_or(Path::new(".")));
    c
}

struct Dir {
    _tmp: tempfile::TempDir,
    path: PathBuf,
}

impl Dir {
    fn new() -> Dir {
        let tmp = tempfile::tempdir().expect("temp dir");
        let path = tmp.path().to_path_buf();
        Dir { _tmp: tmp, path }
    }
    fn db(&self) -> PathBuf {
        self.path.join("sessions.sqlite")
    }
    fn script(&self, name: &str, text: &str) -> PathBuf {
        let p = self.path.join(name);
        std::fs::write(&p, text).expect("write script");
        p
    }
    /// Plays a script; returns the command's assert for checks.
    fn play(&self, name: &str, text: &str) -> assert_cmd::assert::Assert {
        let script = self.script(name, text);
        koanscope(&self.db())
            .args(["game", "play", "--db"])
            .arg(self.db())
            .arg("--script")
            .arg(script)
            .assert()
    }
    fn run(&self, args: &[&str]) -> assert_cmd::assert::Assert {
        koanscope(&self.db())
            .args(args)
            .arg("--db")
            .arg(self.db())
            .assert()
    }
}

fn stdout(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&a.get_output().stdout).into_owned()
}

/// The 2017 text's example up to Ben's official guess "at least one flat piece".
const EXAMPLE_2017: &str = r#"
new master=Mo students=Ada,Ben,Cy vocab=modern salt=2017 rule="The structure must contain exactly two Medium-sized pyramids."
initial yes: blue medium flat, blue medium flat dir=3
initial no: yellow large upright, red small upright
build Ada: red medium upright, green large upright
tell Ada
mark no
pass Ada
build Ben: green medium flat, red medium upright, yellow small flat
quiz Ben
answer Ada no
answer Ben yes
answer Cy yes
mark yes
guess Ben: The structure must contain at least one flat piece.
official
"#;

#[test]
fn the_2017_example_guess_is_disproved_both_ways() {
    let d = Dir::new();
    // "by building a structure, marked Yes, which contains zero flat pieces"
    let yes = d.play(
        "yes.zendo",
        &format!("{EXAMPLE_2017}counter yes: red medium upright, blue medium upright\n"),
    );
    let out = stdout(&yes.success());
    assert!(
        out.contains(
            "counter-example structure 5 (red medium upright, blue medium upright) and marks it Yes"
        ),
        "{out}"
    );
    assert!(
        out.contains("Ben's guess is disproved by structure 5"),
        "{out}"
    );
    assert!(out.contains("guessing tokens: Ada 0, Ben 0, Cy 1"), "{out}");
    // "or by building a structure, marked No, that contains a flat piece"
    let no = d.play(
        "no.zendo",
        &format!("{EXAMPLE_2017}counter no: red large flat\n"),
    );
    let out = stdout(&no.success());
    assert!(
        out.contains("Ben's guess is disproved by structure 5"),
        "{out}"
    );
    // A "counter-example" the guess agrees with does not disprove it: it stays, another is due.
    let wrong = d.play(
        "wrong.zendo",
        &format!("{EXAMPLE_2017}counter no: red large upright\ncounter\n"),
    );
    let out = stdout(&wrong.success());
    assert!(
        out.contains("Structure 5 does not disprove the guess"),
        "{out}"
    );
    // koanscope's own search then finds one.
    assert!(
        out.contains("Ben's guess is disproved by structure 6"),
        "{out}"
    );
    // And the Master cannot mark a counter-example against the rule.
    d.play(
        "against.zendo",
        &format!("{EXAMPLE_2017}counter no: red medium upright, blue medium upright\n"),
    )
    .failure()
    .stderr(predicate::str::contains(
        "the secret rule marks this structure Yes, not No",
    ));
}

#[test]
fn a_won_game_is_listed_replayed_and_reported() {
    let d = Dir::new();
    let script = std::fs::read_to_string("tests/scripts/2017-example.zendo").expect("script");
    let out = stdout(&d.play("won.zendo", &script).success());
    assert!(out.contains("Cy has won!"), "{out}");
    assert!(
        out.contains("The revealed rule matches the commitment"),
        "{out}"
    );

    let list = stdout(&d.run(&["sessions", "list"]).success());
    assert!(list.contains("example2017"), "{list}");
    assert!(list.contains("won by Cy"), "{list}");
    assert!(list.contains("27"), "27 events: {list}");

    let replay = stdout(
        &d.run(&["replay", "example2017", "--vocab", "zen"])
            .success(),
    );
    assert!(replay.contains("[8] "), "{replay}");
    assert!(
        replay.contains("Ben says \"Mondo\""),
        "zen words on request: {replay}"
    );
    assert!(replay.contains("the game is over: Cy won"), "{replay}");
    // Step by step: the table as it was at step 12.
    let at = stdout(&d.run(&["replay", "1", "--at", "12"]).success());
    assert!(at.contains("After step 12"), "{at}");
    assert!(at.contains("structure 4: Yes: green medium flat"), "{at}");
    assert!(at.contains("guessing tokens: Ada 0, Ben 1, Cy 1"), "{at}");

    let html = d.path.join("report.html");
    d.run(&["report", "example2017", "--html", html.to_str().unwrap()])
        .success();
    let page = std::fs::read_to_string(&html).expect("report written");
    for expected in [
        "Cy won</strong>",
        "The revealed rule: “The structure must contain exactly two Medium-sized pyramids.” — it matches the commitment",
        "contains 3 medium pieces",
        "Ada No, Ben Yes ✓, Cy Yes ✓",
        "disproved by counter-example structure 5",
        "stands: the guesser wins",
    ] {
        assert!(page.contains(expected), "report lacks {expected:?}");
    }
    // Each of the six koans drawn from above, its pieces in their colours.
    assert_eq!(page.matches("<svg").count(), 6);
    assert!(page.contains("fill='blue'") && page.contains("fill='green'"));
}

#[test]
fn a_retracted_guess_gives_the_stone_back() {
    let d = Dir::new();
    let out = stdout(
        &d.play(
            "retract.zendo",
            &format!(
                "{}retract\n",
                EXAMPLE_2017.replace("official\n", "change: A koan has the Buddha-nature if it contains at least one upright piece.\n")
            ),
        )
        .success(),
    );
    // The changed guess is contradicted by structure 1 (Yes, nothing upright): pointed out.
    assert!(
        out.contains("Structure 1 contradicts the guess: it is Yes but the guess says No"),
        "{out}"
    );
    assert!(out.contains("Ben takes back the guessing token"), "{out}");
    assert!(out.contains("guessing tokens: Ada 0, Ben 1, Cy 1"), "{out}");
}

#[test]
fn a_mondo_with_mixed_answers_pays_the_right_students() {
    let d = Dir::new();
    let out = stdout(
        &d.play(
            "mondo.zendo",
            r#"
new master=Ann students=Bob,Cat,Dan,Eve salt=01 rule="A koan has the Buddha-nature if it contains at least one red piece."
initial white: red small upright
initial black: blue small upright
build Bob: green large flat, red medium upright
mondo Bob
answer Cat black
answer Bob white
answer Eve black
answer Dan white
mark white
"#,
        )
        .success(),
    );
    assert!(
        out.contains("The answers are revealed: Bob white, Cat black, Dan white, Eve black"),
        "{out}"
    );
    assert!(
        out.contains("guessing stones: Bob 1, Cat 0, Dan 1, Eve 0"),
        "{out}"
    );
}

#[test]
fn katsu_restores_the_koan_as_logged() {
    let d = Dir::new();
    let out = stdout(
        &d.play(
            "katsu.zendo",
            r#"
new master=Ann students=Bob,Cat salt=01 rule="A koan has the Buddha-nature if it contains at least one red piece."
initial white: red small upright, blue large upright
initial black: blue small upright
katsu 1: red small flat, blue large upright
! build Bob: green small upright
! restore 1: red small flat, blue large upright
restore 1: red small upright, blue large upright
build Bob: green small upright
"#,
        )
        .success(),
    );
    assert!(out.contains("Katsu! Koan 1 was disturbed"), "{out}");
    assert!(out.contains("refused, as expected: the table was disturbed (katsu): the Master must restore koan 1 first"), "{out}");
    assert!(
        out.contains("refused, as expected: koan 1 is not as it was logged"),
        "{out}"
    );
    assert!(out.contains("restores koan 1 as it was"), "{out}");
}

#[test]
fn a_broken_down_koan_that_would_disprove_a_guess_leaves_it_standing() {
    let d = Dir::new();
    let out = stdout(
        &d.play(
            "broken.zendo",
            r#"
new master=Ann students=Bob,Cat salt=01 rule="A koan has the Buddha-nature if it contains at least one red piece."
initial white: red small upright
initial black: blue small upright
build Bob: yellow small upright
mondo Bob
answer Bob black
answer Cat white
mark black
guess Bob: A koan has the Buddha-nature if it contains at least one upright piece.
retract
break 2 3
guess Bob: A koan has the Buddha-nature if it contains at least one upright piece.
official
stands
"#,
        )
        .success(),
    );
    assert!(out.contains("Koan 2 contradicts the guess"), "{out}");
    assert!(out.contains("Koans 2, 3 broken down"), "{out}");
    assert!(
        out.contains("No koan on the table contradicts the guess"),
        "{out}"
    );
    assert!(out.contains("Bob has won!"), "{out}");
}

#[test]
fn every_illegal_move_is_refused_and_logs_nothing() {
    let d = Dir::new();
    let out = stdout(
        &d.play(
            "illegal.zendo",
            r#"
new master=Ann students=Bob,Cat salt=01 rule="A koan has the Buddha-nature if it contains at least one red piece."
! build Bob: red small upright
! initial white: blue small upright
initial white: red small upright
! initial white: red large upright
initial black: blue small upright
! build Cat: red small upright
! build Zed: red small upright
! guess Bob: A koan has the Buddha-nature if it contains at least one red piece.
build Bob: yellow small upright
! mondo Cat
! mark black
mondo Bob
! answer Ann white
answer Bob black
! answer Bob white
! mark black
answer Cat white
! mark white
mark black
! mark black
! guess Cat: A koan has the Buddha-nature if it contains at least one red piece.
guess Bob: A koan has the Buddha-nature if it contains exactly one red piece.
! counter white: red large upright
official
! retract
counter white: red large upright, red small upright
! guess Bob: A koan has the Buddha-nature if it contains at least one yellow piece.
! break 9
! correct 1 white
! reveal
pass Bob
"#,
        )
        .success(),
    );
    let refusals = out.matches("refused, as expected").count();
    assert_eq!(refusals, 20, "{out}");
    for expected in [
        "building a koan is not possible now",
        "the secret rule marks this koan black, not white",
        "the initial koans must be one white and one black: there is already a white one",
        "it is Bob's turn, not Cat's",
        "\"Zed\" is not a student in this game",
        "a guess is not possible now",
        "\"Ann\" is not a student in this game",
        "Bob has already answered this Mondo",
        "the Mondo is still waiting for the answer of Cat",
        "koan 3 is already marked black",
        "the guess is not official yet",
        "the guess is official already",
        "Bob has no guessing stone to spend",
        "there is no koan 9",
        "koan 1 is already white",
        "the rule is revealed only when the game is over",
    ] {
        assert!(
            out.contains(expected),
            "no refusal saying {expected:?}:\n{out}"
        );
    }
    // Nothing refused reached the books: 11 accepted moves after set-up.
    let store = Store::open(&d.db()).expect("store");
    assert_eq!(store.events(1).expect("events").len(), 12);
    // A move expected to be refused but accepted fails the script.
    d.play(
        "not-illegal.zendo",
        "new master=Ann students=Bob,Cat salt=01 rule=\"A koan has the Buddha-nature if it contains at least one red piece.\"\n! initial white: red small upright\n",
    )
    .failure()
    .stderr(predicate::str::contains("expected to be refused, but it was accepted"));
}

#[test]
fn koanscope_as_the_master_plays_a_whole_game() {
    let d = Dir::new();
    let out = stdout(
        &d.play(
            "auto.zendo",
            r#"
new master=koanscope students=Bob,Cat initial-guessing=1 salt=01 rule="A koan has the Buddha-nature if it contains at least one red piece."
build Bob: yellow small upright
mondo Bob
answer Bob black
answer Cat white
guess Bob: A koan has the Buddha-nature if it contains exactly one red piece.
official
pass Bob
build Cat: red large flat
master Cat
pass Cat
build Bob: blue medium upright, red small flat
master Bob
guess Bob: A koan has the Buddha-nature if it contains at least one red piece.
official
"#,
        )
        .success(),
    );
    assert!(out.contains("The Master builds initial koan 1"), "{out}");
    assert!(out.contains("The Master marks koan 3 black"), "{out}");
    assert!(out.contains("Bob's guess is disproved by koan 4"), "{out}");
    assert!(out.contains("Bob has won!"), "{out}");
    assert!(
        out.contains("The revealed rule matches the commitment"),
        "{out}"
    );
}

#[test]
fn head_to_head_scores_two_rounds() {
    let d = Dir::new();
    let out = stdout(
        &d.play(
            "h2h.zendo",
            r#"
new master=Ann students=Bob mode=head-to-head salt=01 rule="A koan has the Buddha-nature if it contains at least one red piece."
initial white: red small upright
initial black: blue small upright
build Bob: green small upright
mark
guess Bob: A koan has the Buddha-nature if it contains exactly one red piece.
official
counter
guess Bob: A koan has the Buddha-nature if it contains at least one red piece.
official
stands
reveal
next-round salt=02 rule="A koan has the Buddha-nature if and only if all its pieces are flat."
initial white: red small flat
initial black: red small upright
build Ann: blue large flat
mark
guess Ann: A koan has the Buddha-nature if and only if all its pieces are flat.
official
stands
reveal
"#,
        )
        .success(),
    );
    assert!(
        out.contains("Bob scores 6 (4 koans, 1 wrong guesses × 2)"),
        "{out}"
    );
    assert!(out.contains("Ann scores 3"), "{out}");
    let html = d.path.join("h2h.html");
    d.run(&["report", "1", "--html", html.to_str().unwrap()])
        .success();
    let page = std::fs::read_to_string(&html).expect("report");
    assert!(page.contains("Ann wins the match"), "{page}");
}

#[test]
fn a_game_killed_mid_play_resumes_with_nothing_lost() {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    use std::time::{Duration, Instant};

    let d = Dir::new();
    let rule = "A koan has the Buddha-nature if it contains at least one red piece.";
    let mut script = format!(
        "new name=long master=Ann students=Bob mode=puzzle marking=5000 salt=01 rule=\"{rule}\"\ninitial white: red small upright\ninitial black: blue small upright\n"
    );
    let koans = [
        "green small upright",
        "red large flat, blue small upright",
        "yellow medium tipped",
    ];
    for i in 0..600 {
        script.push_str(&format!("build Bob: {}\nmark\n", koans[i % 3]));
    }
    let path = d.script("long.zendo", &script);
    let bin = assert_cmd::cargo::cargo_bin("koanscope");
    let mut child = std::process::Command::new(bin)
        .args(["game", "play", "--db"])
        .arg(d.db())
        .arg("--script")
        .arg(&path)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn koanscope");
    // Wait until some moves are in the books, then kill it without warning.
    let start = Instant::now();
    loop {
        std::thread::sleep(Duration::from_millis(20));
        let logged = Store::open(&d.db())
            .ok()
            .and_then(|s| s.events(1).ok())
            .map(|e| e.len())
            .unwrap_or(0);
        if logged >= 60 {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the game never got going"
        );
    }
    child.kill().expect("SIGKILL");
    let status = child.wait().expect("wait");
    assert_eq!(
        status.signal(),
        Some(9),
        "the game finished before it was killed"
    );
    let mut printed = String::new();
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut printed)
        .expect("read stdout");
    // Every move the player saw (printed after its commit) is in the books.
    let last_seen: u64 = printed
        .lines()
        .filter_map(|l| l.strip_prefix('[')?.split(']').next()?.parse().ok())
        .max()
        .expect("some moves were shown");
    let store = Store::open(&d.db()).expect("reopen");
    let events = store.events(1).expect("events");
    assert!(
        events.len() as u64 > last_seen,
        "shown {last_seen}, logged {}",
        events.len()
    );
    assert!(events.len() < 1203, "killed mid-game");
    let game = store.resume(1).expect("resume");
    assert_eq!(game.events_applied(), events.len() as u64);
    drop(store);

    // Play on from where it stopped, in the same session.
    let mut rest = String::new();
    if matches!(game.phase(), Phase::Marking { .. }) {
        rest.push_str("mark\n");
    }
    rest.push_str(&format!(
        "build Bob: red small flat\nmark\nguess Bob: {rule}\nofficial\nstands\nreveal\n"
    ));
    let rest_path = d.script("rest.zendo", &rest);
    let out = koanscope(&d.db())
        .args(["game", "play", "--db"])
        .arg(d.db())
        .args(["--session", "long", "--script"])
        .arg(rest_path)
        .assert()
        .success();
    let out = stdout(&out);
    assert!(
        out.contains(&format!("Session 1 resumed after {} events", events.len())),
        "{out}"
    );
    assert!(out.contains("Bob has won!"), "{out}");
}

#[test]
fn game_new_commits_the_rule_and_refuses_a_bad_set_up() {
    let d = Dir::new();
    let out = stdout(
        &d.run(&[
            "game",
            "new",
            "--master",
            "Ann",
            "--students",
            "Bob,Cat",
            "--name",
            "friday",
            "--rule",
            "A koan has the Buddha-nature if it contains at least one red piece.",
        ])
        .success(),
    );
    assert!(out.contains("Session 1 (friday)"), "{out}");
    assert!(out.contains("committed as "), "{out}");
    assert!(
        !out.contains("red piece"),
        "the typed rule stays secret: {out}"
    );
    // A human Master who draws from the library is shown the rule; nobody else.
    let drawn = stdout(
        &d.run(&[
            "game",
            "new",
            "--master",
            "Ann",
            "--students",
            "Bob,Cat",
            "--library",
            "easy",
            "--seed",
            "3",
        ])
        .success(),
    );
    assert!(
        drawn.contains("Secret rule (the Master's eyes only): "),
        "{drawn}"
    );
    let auto = stdout(
        &d.run(&[
            "game",
            "new",
            "--master",
            "koanscope",
            "--students",
            "Bob,Cat",
            "--library",
            "easy",
            "--seed",
            "3",
        ])
        .success(),
    );
    assert!(
        !auto.contains("eyes only"),
        "koanscope keeps its rule to itself: {auto}"
    );
    assert!(auto.contains("builds initial koan 2"), "{auto}");
    d.run(&[
        "game",
        "new",
        "--master",
        "Ann",
        "--students",
        "Bob",
        "--rule",
        "A koan has the Buddha-nature if it contains at least one red piece.",
    ])
    .failure()
    .stderr(predicate::str::contains(
        "a standard game needs at least two students",
    ));
    d.run(&[
        "game",
        "new",
        "--master",
        "Ann",
        "--students",
        "Bob,Cat",
        "--rule",
        "A koan has the Buddha-nature if it glows.",
    ])
    .failure()
    .stderr(predicate::str::contains("reading the secret rule"));
    let list = stdout(&d.run(&["sessions", "list"]).success());
    assert_eq!(
        list.lines().count(),
        4,
        "three sessions and a header: {list}"
    );
}

#[test]
fn a_koan_can_come_from_a_scene_document() {
    let d = Dir::new();
    std::fs::copy("crates/game/benches/koan5.json", d.path.join("koan5.json")).expect("copy");
    let out = stdout(
        &d.play(
            "doc.zendo",
            r#"
new master=Ann students=Bob,Cat salt=01 rule="A koan has the Buddha-nature if it contains at least one red piece."
initial white: @ koan5.json
initial black: blue small upright
build Bob: @ koan5.json
master Bob
! mark black
mark white
"#,
        )
        .success(),
    );
    assert!(
        out.contains(
            "Bob builds koan 3: red large upright, blue small upright ungrounded, green medium flat"
        ),
        "{out}"
    );
    d.play("missing.zendo", "new master=Ann students=Bob,Cat salt=01 rule=\"A koan has the Buddha-nature if it contains at least one red piece.\"\ninitial white: @ nowhere.json\n")
        .failure()
        .stderr(predicate::str::contains("line 2"))
        .stderr(predicate::str::contains("nowhere.json"));
}

#[test]
fn a_mismarked_koan_is_corrected_then_guidance_and_surrender_end_the_game() {
    let d = Dir::new();
    let out = stdout(
        &d.play(
            "guidance.zendo",
            r#"
new master=Ann students=Bob,Cat salt=01 rule="A koan has the Buddha-nature if it contains at least one red piece."
initial white: red small upright
initial black: blue small upright
build Bob: red large flat
mondo Bob
answer Bob white
answer Cat black
# The Master's slip, marked against the rule as a "judgment": Cat is paid for it...
mark black judgment
# ...and the correction settles the stones as they should have been.
correct 3 white
pass Bob
guidance
! build Cat: green small upright
guide white: red medium upright, green medium upright
guess Cat: A koan has the Buddha-nature if it contains exactly one red piece.
official
counter white: red small upright, red large upright
surrender Bob
surrender Cat
reveal
"#,
        )
        .success(),
    );
    assert!(out.contains("Cat receives a guessing stone"), "{out}");
    assert!(
        out.contains("Cat gives back the guessing stone won on the mismarked koan"),
        "{out}"
    );
    assert!(out.contains("Bob receives a guessing stone"), "{out}");
    assert!(out.contains("refused, as expected: a student's koan is not possible now: in Guidance Mode the Master builds every koan"), "{out}");
    assert!(out.contains("Cat's guess is disproved by koan 5"), "{out}");
    assert!(out.contains("Every student has surrendered"), "{out}");
    assert!(
        out.contains("The revealed rule matches the commitment"),
        "{out}"
    );
    assert!(
        out.contains("guessing stones: Bob 1 (surrendered), Cat 0 (surrendered)"),
        "{out}"
    );
}
