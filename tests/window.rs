//! The window as the Master and the table use it, on the bundled sample: the real pipeline
//! (vision on sample_images/S1, the tracker until the koans are built) feeds the console and
//! the public view, and the tests click through a Mondo, a guess with its counter-example, and
//! a correction. PNG snapshots of both views are rendered in software (wgpu on lavapipe).

use std::path::Path;
use std::sync::OnceLock;

mod common;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use koanscope::live::{RuleServices, settled_feed};
use koanscope_game::{GuessEnd, Mode, RuleSource, Secret, Setup, Stones, Store, Vocabulary};
use koanscope_scene::{Color, Mark};
use koanscope_ui::{ConsoleState, LiveTable, PictureCache, TableFeed, master_console, public_view};

const RED: &str = "A koan has the Buddha-nature if it contains a red piece.";
const CALIBRATION: &str = "calibration/sample-S1.yaml";

/// What vision and the tracker make of a sample frame, once per test binary.
fn feed(scene: &str) -> TableFeed {
    static S00: OnceLock<TableFeed> = OnceLock::new();
    static S02: OnceLock<TableFeed> = OnceLock::new();
    let cell = match scene {
        "scene_00" => &S00,
        "scene_02" => &S02,
        other => panic!("no sample {other} in these tests"),
    };
    cell.get_or_init(|| {
        let image = format!("sample_images/S1/{scene}.jpg");
        settled_feed(Path::new(&image), Path::new(CALIBRATION)).expect("the sample frame")
    })
    .clone()
}

fn table(rule: &str, feed: TableFeed) -> LiveTable {
    table_in(Store::open_in_memory().expect("store"), rule, feed)
}

fn table_in(mut store: Store, rule: &str, feed: TableFeed) -> LiveTable {
    let secret = Secret::new(rule);
    let students = ["Ann", "Ben", "Cy"];
    let setup = Setup {
        mode: Mode::Standard,
        master: "Mia".into(),
        students: students.iter().map(|s| s.to_string()).collect(),
        stones: Stones::standard(students.len()),
        vocabulary: Vocabulary::Zen,
        koanscope_master: false,
        rule_source: RuleSource::Typed,
        commitment: secret.commitment(),
    };
    let (session, game) = store.start(None, &setup, &secret).expect("session");
    let mut table = LiveTable::new(store, session, game, Box::new(RuleServices::default()));
    table.update(feed);
    table
}

struct Window {
    table: LiveTable,
    console: ConsoleState,
    console_pictures: PictureCache,
    public_pictures: PictureCache,
}

/// A harness showing one view of the window over `table`.
fn harness(
    table: LiveTable,
    size: [f32; 2],
    view: impl FnMut(&mut egui::Ui, &mut Window) + 'static,
) -> Harness<'static, Window> {
    let window = Window {
        table,
        console: ConsoleState::default(),
        console_pictures: PictureCache::default(),
        public_pictures: PictureCache::default(),
    };
    Harness::builder()
        .with_size(size)
        .build_ui_state(view, window)
}

fn console_harness(table: LiveTable) -> Harness<'static, Window> {
    harness(table, [1440.0, 900.0], |ui, w| {
        master_console(ui, &mut w.table, &mut w.console, &mut w.console_pictures)
    })
}

fn public_harness(table: LiveTable) -> Harness<'static, Window> {
    harness(table, [1280.0, 800.0], |ui, w| {
        public_view(ui, &w.table, &mut w.public_pictures);
    })
}

/// The tracked koans the secret rule marks `mark`, as the console suggests them.
fn suggested(table: &LiveTable, mark: Mark) -> Vec<u64> {
    table
        .koan_views()
        .iter()
        .filter(|k| k.suggested.as_ref().map(|(m, _)| *m) == Some(mark))
        .map(|k| k.tracked)
        .collect()
}

/// The first koan the rule marks black on the sample (the lone blue piece), and its piece.
fn lone_black_piece(table: &LiveTable) -> (u64, koanscope_scene::Piece) {
    let koan = suggested(table, Mark::Black)[0];
    let piece = table.koan_view(koan).expect("koan").scene.pieces[0].clone();
    (koan, piece)
}

fn click(harness: &mut Harness<'static, Window>, label: &str) {
    harness.get_by_label(label).click();
    harness.run();
}

/// The Master sets up with one white and one black sample koan, clicking as at the table.
fn initial_koans(harness: &mut Harness<'static, Window>) -> u64 {
    let table = &harness.state().table;
    let white = suggested(table, Mark::White);
    let black = suggested(table, Mark::Black);
    assert!(
        white.len() >= 2 && !black.is_empty(),
        "S1/scene_00 holds two koans with a red piece and one without; vision made {white:?} white and {black:?} black"
    );
    click(harness, &format!("#{} initial WHITE", white[0]));
    click(harness, &format!("#{} initial BLACK", black[0]));
    white[1]
}

#[test]
fn a_mondo_clicked_through_reveals_the_answers_and_pays_the_right_ones() {
    let mut harness = console_harness(table(RED, feed("scene_00")));
    harness.run();
    let third = initial_koans(&mut harness);
    assert_eq!(harness.state().table.game().koans().len(), 2);
    click(&mut harness, &format!("Koan #{third} is Ann's"));
    click(&mut harness, "Mondo (O)");
    // Answers in closed fists: Ben is wrong (the koan has a red piece).
    click(&mut harness, "Ann answers WHITE");
    click(&mut harness, "Ben answers BLACK");
    click(&mut harness, "Cy answers WHITE");
    harness.get_by_label_contains("The rule marks koan 3 WHITE");
    click(&mut harness, "Mark WHITE (W)");
    let game = harness.state().table.game();
    let stones: Vec<(String, u32)> = game
        .students()
        .iter()
        .map(|s| (s.name.clone(), s.guessing_stones))
        .collect();
    assert_eq!(
        stones,
        vec![("Ann".into(), 1), ("Ben".into(), 0), ("Cy".into(), 1)]
    );
    assert_eq!(game.koan(3).and_then(|k| k.mark), Some(Mark::White));

    // The public view: the marks and the Mondo, never the rule.
    let state = harness.into_state();
    let mut public = public_harness(state.table);
    public.run();
    public.get_by_label("Ann: 1");
    public.get_by_label("Ben: black, wrong");
    public.get_by_label("Cy: white, right: stone");
    public.get_by_label("On the table: 2 white, 1 black");
    assert!(
        public.query_by_label_contains("red piece").is_none(),
        "the public view must not give the secret rule away"
    );
    public.snapshot("public_view_after_mondo");
}

#[test]
fn a_guess_is_checked_made_official_and_disproved_by_a_suggested_counter_example() {
    let mut harness = console_harness(table(RED, feed("scene_00")));
    harness.run();
    let third = initial_koans(&mut harness);
    click(&mut harness, &format!("Koan #{third} is Ann's"));
    // A guess costs a stone: Ann earns one in a Mondo.
    click(&mut harness, "Mondo (O)");
    click(&mut harness, "Ann answers WHITE");
    click(&mut harness, "Ben answers WHITE");
    click(&mut harness, "Cy answers BLACK");
    click(&mut harness, "Mark WHITE (W)");
    // Ann guesses: a rule the table does not contradict (every white koan has an upright
    // piece, the black one has none), but not the Master's.
    let guess = "A koan has the Buddha-nature if it contains an upright piece.";
    harness
        .get_by_role(egui::accesskit::Role::TextInput)
        .focus();
    harness.run();
    harness
        .get_by_role(egui::accesskit::Role::TextInput)
        .type_text(guess);
    harness.run();
    click(&mut harness, "Guess");
    let said: Vec<String> = harness
        .state()
        .table
        .messages()
        .iter()
        .map(|m| m.text.clone())
        .collect();
    assert!(
        harness
            .query_by_label("No koan on the table contradicts it.")
            .is_some(),
        "the console says: {said:#?}"
    );
    click(&mut harness, "Make official");
    click(&mut harness, "Suggest a counter-example");
    let suggestion = harness
        .state()
        .table
        .suggestion()
        .cloned()
        .expect("the rule engine finds a koan the two rules mark differently");
    assert_eq!(suggestion.mark, Mark::Black, "{}", suggestion.words);
    harness.get_by_label_contains("Build (BLACK)");
    harness.snapshot("console_counter_example_suggested");

    // The Master builds it beside the koans already there: the sample's other table has one
    // (upright pieces, no red: the guess says white, the rule black).
    let mut both = harness.state().table.feed().clone();
    let mut built = feed("scene_02");
    for k in &mut built.koans {
        k.id += 1000;
    }
    let candidate = built
        .koans
        .iter()
        .find(|k| {
            let red = k.scene.pieces.iter().any(|p| p.color == Color::Red);
            let upright = k.scene.pieces.iter().any(|p| {
                p.attributes.as_ref().map(|a| a.orientation)
                    == Some(koanscope_scene::Orientation::Upright)
            });
            upright && !red
        })
        .map(|k| k.id)
        .expect("S1/scene_02 holds a koan with an upright piece and no red");
    both.koans.extend(built.koans);
    harness.state_mut().table.update(both);
    harness.run();
    click(&mut harness, &format!("#{candidate} counter-example BLACK"));
    let game = harness.state().table.game();
    let last = game.guesses().last().expect("the guess is in the books");
    assert!(
        matches!(last.end, GuessEnd::Disproved { .. }),
        "the counter-example disproves the guess: {:?}",
        last.end
    );
    assert!(game.guess().is_none());
}

#[test]
fn a_correction_changes_the_mark_at_once_and_is_logged_with_its_frame() {
    let mut harness = console_harness(table(RED, feed("scene_00")));
    harness.run();
    let (koan, piece) = lone_black_piece(&harness.state().table);
    // The Master clicks the piece in the koan's list, then its true colour.
    click(&mut harness, &koanscope_ui::draw::piece_label(&piece));
    harness.get_by_label(&format!("Correct piece {}", piece.id));
    click(&mut harness, "red");
    let view = harness.state().table.koan_view(koan).expect("koan");
    assert_eq!(
        view.scene.piece(piece.id).map(|p| p.color),
        Some(Color::Red)
    );
    assert_eq!(
        view.suggested.map(|(m, _)| m),
        Some(Mark::White),
        "a red piece gives the koan the Buddha-nature"
    );
    harness.get_by_label_contains(&format!("corrected: piece {} is red", piece.id));
    let table = &harness.state().table;
    let logged = table
        .store()
        .corrections(table.session())
        .expect("corrections");
    assert_eq!(logged.len(), 1);
    assert_eq!(logged[0].koan, koan);
    let png = logged[0].frame_png.as_ref().expect("the frame is kept");
    let frame = image::load_from_memory(png).expect("a PNG");
    assert_eq!((frame.width(), frame.height()), (1280, 720));
    assert_eq!(
        logged[0].seen.piece(piece.id).map(|p| p.color),
        Some(piece.color)
    );
    // The correction stays while the koan is unchanged.
    let same = harness.state().table.feed().clone();
    harness.state_mut().table.update(same);
    let view = harness.state().table.koan_view(koan).expect("koan");
    assert_eq!(
        view.scene.piece(piece.id).map(|p| p.color),
        Some(Color::Red)
    );
}

#[test]
fn the_console_shows_every_koan_with_its_suggested_mark() {
    let mut harness = console_harness(table(RED, feed("scene_00")));
    harness.run();
    let views = harness.state().table.koan_views();
    assert_eq!(views.len(), 3, "S1/scene_00 has three koans");
    for k in &views {
        let (mark, reason) = k.suggested.clone().expect("the rule reads every koan");
        harness.get_by_label(&format!("Unlogged koan #{}", k.tracked));
        let upper = mark.word().to_uppercase();
        let same = views.iter().filter(|v| v.suggested == k.suggested).count();
        assert_eq!(
            harness
                .get_all_by_label(&format!("suggested {upper}: {reason}"))
                .count(),
            same
        );
    }
    harness.snapshot("console_sample_table");
}

/// A piece hidden under a piece standing on the table is out of the camera's sight; where one
/// would change a koan's mark, the console says which piece to lift, and only there.
#[test]
fn the_console_says_which_piece_to_lift_where_a_hidden_piece_would_change_the_mark() {
    const TWO: &str = "A koan has the Buddha-nature if it contains exactly two pieces.";
    let mut harness = console_harness(table(TWO, feed("scene_00")));
    harness.run();
    let views = harness.state().table.koan_views();
    for k in &views {
        let (mark, _) = k.suggested.clone().expect("the rule reads every koan");
        let could_hide = k
            .scene
            .pieces
            .iter()
            .find(|p| koanscope_geometry::may_hide(p));
        match (mark, could_hide) {
            // Two pieces, one a piece could hide under: a third would make it black.
            (Mark::White, Some(outer)) => {
                let hidden = k.hidden.clone().expect("a hidden piece would change it");
                assert!(
                    hidden.starts_with(&format!("lift #{} ", outer.id))
                        && hidden.contains("a red small hidden under it would make it black"),
                    "{hidden}"
                );
                harness.get_by_label(&format!("may hide a piece: {hidden}"));
            }
            // Not two pieces, so black whatever hides; or nothing to hide under.
            _ => assert_eq!(k.hidden, None, "koan #{}", k.tracked),
        }
    }
    assert!(
        views.iter().any(|k| k.hidden.is_some()),
        "S1/scene_00 has a koan of two pieces, one a large standing: {views:?}"
    );
    harness.snapshot("console_hidden_piece");
}

#[test]
fn the_master_splits_a_piece_off_and_merges_two_koans_and_the_books_take_them_so() {
    let mut harness = console_harness(table(RED, feed("scene_00")));
    harness.run();
    let views = harness.state().table.koan_views();
    assert_eq!(views.len(), 3);
    // The koan holding the green piece: the green piece is a koan of its own.
    let with_green = views
        .iter()
        .find(|v| {
            v.scene.pieces.len() > 1 && v.scene.pieces.iter().any(|p| p.color == Color::Green)
        })
        .expect("S1/scene_00: the blue/red tower with a green piece beside it")
        .clone();
    let green = with_green
        .scene
        .pieces
        .iter()
        .find(|p| p.color == Color::Green)
        .expect("green")
        .id;
    click(
        &mut harness,
        &format!("Split piece {green} off #{}", with_green.tracked),
    );
    let views = harness.state().table.koan_views();
    assert_eq!(views.len(), 4);
    let alone = views
        .iter()
        .find(|v| v.scene.pieces.len() == 1 && v.scene.pieces[0].id == green)
        .expect("the green piece is a koan");
    assert_eq!(alone.suggested.as_ref().map(|(m, _)| *m), Some(Mark::Black));
    let rest = harness
        .state()
        .table
        .koan_view(with_green.tracked)
        .expect("the rest");
    assert!(rest.scene.piece(green).is_none());
    assert!(
        rest.scene.koans[0]
            .touching
            .iter()
            .all(|pair| !pair.contains(&green))
    );
    // Two other koans are one: the rule reads them together.
    let single = views
        .iter()
        .find(|v| {
            v.tracked != alone.tracked && v.suggested.as_ref().map(|(m, _)| *m) == Some(Mark::Black)
        })
        .expect("the blue koan")
        .tracked;
    let alone_id = alone.tracked;
    click(&mut harness, &format!("Merge #{alone_id} with #{single}"));
    let table = &harness.state().table;
    assert_eq!(table.koan_views().len(), 3);
    assert_eq!(table.merged_into(single), Some(alone_id));
    let merged = table.koan_view(alone_id).expect("merged");
    assert_eq!(merged.scene.pieces.len(), 2);
    assert_eq!(merged.scene.koans[0].pieces.len(), 2);
    assert_eq!(
        table
            .store()
            .corrections(table.session())
            .expect("log")
            .len(),
        2,
        "both regroupings are logged with their frame"
    );
    // The books take the koan as the Master grouped it.
    click(&mut harness, &format!("#{alone_id} initial BLACK"));
    let game = harness.state().table.game();
    assert_eq!(game.koan(1).map(|k| k.scene.pieces.len()), Some(2));
}

#[test]
fn the_masters_corrected_frames_re_teach_the_colour_model() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let db = dir.path().join("sessions.sqlite");
    let store = Store::open(&db).expect("store");
    let mut harness = console_harness(table_in(store, RED, feed("scene_00")));
    harness.run();
    // The Master says the lone blue piece is red: its pixels now teach "red".
    let (_, piece) = lone_black_piece(&harness.state().table);
    assert_eq!(piece.color, Color::Blue);
    click(&mut harness, &koanscope_ui::draw::piece_label(&piece));
    click(&mut harness, "red");
    let session = harness.state().table.session();
    drop(harness);
    let model = dir.path().join("colors.toml");
    let out = common::koanscope()
        .args([
            "calibrate",
            "colors",
            "--from-session",
            &session.to_string(),
        ])
        .arg("--db")
        .arg(&db)
        .args(["--calibration", CALIBRATION, "--out"])
        .arg(&model)
        .output()
        .expect("runs");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let red = said
        .lines()
        .find(|l| l.starts_with("red "))
        .unwrap_or_else(|| panic!("no line for red: {said}"));
    // "red     hue    2.0° ->  221.3° (1234 pixels)": red is learnt from the blue pixels.
    let learnt: f64 = red
        .split("->")
        .nth(1)
        .and_then(|rest| rest.trim().split('°').next())
        .and_then(|hue| hue.trim().parse().ok())
        .unwrap_or_else(|| panic!("red was not re-learnt: {red}"));
    let hue_of = |line: &str| -> f64 {
        line.split("hue")
            .nth(1)
            .and_then(|rest| rest.trim().split('°').next())
            .and_then(|hue| hue.trim().parse().ok())
            .unwrap_or_else(|| panic!("no hue in {line:?}"))
    };
    let blue = said
        .lines()
        .find(|l| l.starts_with("blue "))
        .map(hue_of)
        .unwrap_or_else(|| panic!("no line for blue: {said}"));
    let apart = ((learnt - blue).rem_euclid(360.0)).min((blue - learnt).rem_euclid(360.0));
    assert!(
        apart < 30.0 && (learnt - hue_of(red)).abs() > 90.0,
        "the relabelled blue pixels (blue's hue {blue}°) teach red: {red}"
    );
    assert!(
        std::fs::read_to_string(&model)
            .expect("model")
            .contains("corrected frames")
    );
}
