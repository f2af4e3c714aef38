//! The session store: what is committed is kept, and the game resumes where it was.

mod common;

use common::*;
use koanscope_game::{Event, GameError, Mode, Store, StoreError};
use koanscope_scene::Mark::{Black, White};

#[test]
fn a_reopened_store_resumes_the_game_where_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sessions.sqlite");
    let s = secret(TWO_MEDIUM);
    let (id, live) = {
        let mut store = Store::open(&path).unwrap();
        let (id, mut g) = store
            .start(
                Some("tuesday"),
                &setup(Mode::Standard, &["Bob", "Cat"], &s),
                &s,
            )
            .unwrap();
        for e in [
            initial(White, "blue medium flat, blue medium flat dir=1"),
            initial(Black, "red large upright"),
            build("Bob", "red medium upright, green medium flat"),
            Event::CallMondo {
                student: "Bob".into(),
            },
            answer("Bob", White),
        ] {
            store.play(id, &mut g, &e).unwrap();
        }
        (id, g)
    };
    let store = Store::open(&path).unwrap();
    let resumed = store.resume(id).unwrap();
    assert_eq!(resumed, live);
    assert_eq!(resumed.awaiting_answers(), vec!["Cat".to_string()]);
    assert_eq!(store.find("tuesday").unwrap(), id);
    assert_eq!(store.find(&id.to_string()).unwrap(), id);
    assert!(matches!(
        store.find("friday"),
        Err(StoreError::NoSession(_))
    ));
    // Each event carries the documents of the koans it concerns, marks included.
    let koans = store.event_koans(id, 1).unwrap();
    assert_eq!(koans.len(), 1);
    assert_eq!(koans[0].0, 1);
    assert_eq!(koans[0].1.koans[0].mark, Some(White));
    assert_eq!(store.secrets(id).unwrap()[0].1, s);
}

#[test]
fn a_refused_move_writes_nothing() {
    let mut store = Store::open_in_memory().unwrap();
    let s = secret(TWO_MEDIUM);
    let (id, mut g) = store
        .start(None, &setup(Mode::Standard, &["Bob", "Cat"], &s), &s)
        .unwrap();
    store
        .play(
            id,
            &mut g,
            &initial(White, "blue medium flat, blue medium flat dir=1"),
        )
        .unwrap();
    let before = g.clone();
    let err = store
        .play(
            id,
            &mut g,
            &initial(White, "red medium flat, red medium flat"),
        )
        .unwrap_err();
    assert!(matches!(
        err,
        StoreError::Refused(GameError::InitialMarkTaken(White))
    ));
    assert_eq!(g, before);
    assert_eq!(store.events(id).unwrap().len(), 2);
    assert_eq!(store.resume(id).unwrap(), before);
}

#[test]
fn the_sessions_list_shows_each_game_and_its_winner() {
    let mut store = Store::open_in_memory().unwrap();
    let s = secret(TWO_MEDIUM);
    let (a, mut g) = store
        .start(Some("first"), &setup(Mode::Puzzle, &["Bob"], &s), &s)
        .unwrap();
    for e in [
        initial(White, "blue medium flat, blue medium flat dir=1"),
        initial(Black, "red large upright"),
        build("Bob", "red medium upright, red medium flat"),
        marked(White),
        guess(
            "Bob",
            "A koan has the Buddha-nature if it contains exactly two medium pieces.",
        ),
        Event::Official,
        Event::GuessStands,
    ] {
        store.play(a, &mut g, &e).unwrap();
    }
    let (b, _) = store
        .start(None, &setup(Mode::Standard, &["Cat", "Dan"], &s), &s)
        .unwrap();
    assert!(matches!(
        store.start(Some("first"), &setup(Mode::Puzzle, &["Bob"], &s), &s),
        Err(StoreError::NameTaken(_))
    ));
    let list = store.sessions().unwrap();
    assert_eq!(list.iter().map(|i| i.id).collect::<Vec<_>>(), vec![b, a]);
    assert_eq!(list[1].winner.as_deref(), Some("Bob"));
    assert_eq!(list[1].events, 8);
    assert_eq!(list[1].mode, "puzzle");
    assert_eq!(list[0].students, vec!["Cat".to_string(), "Dan".to_string()]);
    assert!(list[0].status.contains("initial koans"));
}

#[test]
fn undo_takes_back_the_last_move_and_keeps_it_in_the_books() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sessions.sqlite");
    let s = secret(TWO_MEDIUM);
    let mut store = Store::open(&path).unwrap();
    let (id, mut g) = store
        .start(None, &setup(Mode::Standard, &["Bob", "Cat"], &s), &s)
        .unwrap();
    assert!(matches!(
        store.undo_last(id),
        Err(StoreError::NothingToUndo)
    ));
    store
        .play(
            id,
            &mut g,
            &initial(White, "blue medium flat, red medium upright"),
        )
        .unwrap();
    let before = g.clone();
    store
        .play(id, &mut g, &initial(Black, "red large upright"))
        .unwrap();
    assert_eq!(g.koans().len(), 2);
    let undone = store.undo_last(id).unwrap();
    assert_eq!(undone, before, "the game is as it was before the move");
    drop(store);
    // Reopened, the move stays undone, and a new move takes its place.
    let mut store = Store::open(&path).unwrap();
    let mut g = store.resume(id).unwrap();
    assert_eq!(g.koans().len(), 1);
    store
        .play(id, &mut g, &initial(Black, "green small flat"))
        .unwrap();
    assert_eq!(store.events(id).unwrap().len(), 3);
    assert_eq!(store.resume(id).unwrap(), g);
}

#[test]
fn a_correction_is_logged_with_its_frame() {
    let mut store = Store::open_in_memory().unwrap();
    let s = secret(TWO_MEDIUM);
    let (id, _) = store
        .start(None, &setup(Mode::Standard, &["Bob", "Cat"], &s), &s)
        .unwrap();
    let seen = koan("green medium upright");
    let corrected = koan("blue medium upright");
    let logged = koanscope_game::LoggedCorrection {
        at_ms: 17,
        koan: 4,
        what: "piece 0 is blue, not green".into(),
        seen: seen.clone(),
        corrected: corrected.clone(),
        frame_png: Some(vec![0x89, b'P', b'N', b'G']),
    };
    store.log_correction(id, &logged).unwrap();
    let back = store.corrections(id).unwrap();
    assert_eq!(back, vec![logged]);
}
