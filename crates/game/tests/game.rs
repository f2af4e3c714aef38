//! The game as the seeds describe it, played through the state machine.

mod common;

use common::*;
use koanscope_game::{
    Ending, Event, Game, GameError, GuessEnd, Mode, Note, Phase, RuleSource, Secret,
};
use koanscope_scene::Mark::{Black, White};

/// Bob builds, calls Mondo, everyone answers `answers`, the Master marks `mark`.
fn mondo(
    g: &mut Game,
    builder: &str,
    sketch: &str,
    answers: &[(&str, koanscope_scene::Mark)],
    mark: koanscope_scene::Mark,
) -> Vec<Note> {
    g.apply(&build(builder, sketch)).unwrap();
    g.apply(&Event::CallMondo {
        student: builder.into(),
    })
    .unwrap();
    for (s, a) in answers {
        g.apply(&answer(s, *a)).unwrap();
    }
    g.apply(&marked(mark)).unwrap().notes
}

fn stones(g: &Game, name: &str) -> u32 {
    g.student(name).unwrap().guessing_stones
}

#[test]
fn a_mondo_with_mixed_answers_pays_the_right_students() {
    let mut g = two_medium_game(&["Bob", "Cat", "Dan"]);
    let pool = g.guessing_pool();
    let notes = mondo(
        &mut g,
        "Bob",
        "red medium upright, green medium flat",
        &[("Bob", White), ("Cat", Black), ("Dan", White)],
        White,
    );
    assert_eq!(
        (stones(&g, "Bob"), stones(&g, "Cat"), stones(&g, "Dan")),
        (1, 0, 1)
    );
    assert_eq!(g.guessing_pool(), pool - 2);
    assert!(notes.contains(&Note::MondoRevealed {
        answers: vec![
            ("Bob".into(), White),
            ("Cat".into(), Black),
            ("Dan".into(), White)
        ]
    }));
    assert_eq!(
        g.phase(),
        &Phase::Guessing {
            student: "Bob".into()
        }
    );
}

#[test]
fn the_2017_example_guess_is_disproved_both_ways() {
    let mut g = two_medium_game(&["Bob", "Cat"]);
    // Bob earns two stones on two Mondos.
    mondo(
        &mut g,
        "Bob",
        "red medium upright, green medium flat",
        &[("Bob", White), ("Cat", Black)],
        White,
    );
    g.apply(&Event::Pass {
        student: "Bob".into(),
    })
    .unwrap();
    mondo(
        &mut g,
        "Cat",
        "yellow small flat",
        &[("Bob", Black), ("Cat", White)],
        Black,
    );
    g.apply(&Event::Pass {
        student: "Cat".into(),
    })
    .unwrap();
    mondo(
        &mut g,
        "Bob",
        "yellow large upright",
        &[("Bob", Black), ("Cat", White)],
        Black,
    );
    assert_eq!(stones(&g, "Bob"), 3);

    // "At least one flat piece": koan 3 (two mediums, one flat) is white, koan 4 (a flat small)
    // black: the table contradicts it... so Bob's guess is pointed out.
    let out = g.apply(&guess("Bob", FLAT_GUESS)).unwrap();
    assert!(out.notes.iter().any(|n| matches!(
        n,
        Note::Contradiction {
            koan: 4,
            marked: Black,
            guess_says: White,
            ..
        }
    )));
    assert_eq!(
        stones(&g, "Bob"),
        2,
        "the stone is spent while the guess is open"
    );
    assert!(matches!(
        g.apply(&Event::Official),
        Err(GameError::Contradicted { .. })
    ));
    // Koan 4 leaves the table: only koans in play count.
    g.apply(&Event::Retract).unwrap();
    assert_eq!(stones(&g, "Bob"), 3, "the stone comes back");
    g.apply(&Event::BreakDown { koans: vec![4] }).unwrap();

    // The Moderator "could disprove this guess in either of two ways": both are played out.
    g.apply(&guess("Bob", FLAT_GUESS)).unwrap();
    g.apply(&Event::Official).unwrap();
    let mut other_way = g.clone();
    // Way one: a structure marked Yes with zero flat pieces.
    let out = g
        .apply(&counter(White, "blue medium upright, red medium upright"))
        .unwrap();
    assert!(out.notes.contains(&Note::GuessDisproved {
        student: "Bob".into(),
        koan: 6
    }));
    // Way two: a structure marked No that contains a flat piece.
    let out = other_way.apply(&counter(Black, "red large flat")).unwrap();
    assert!(out.notes.contains(&Note::GuessDisproved {
        student: "Bob".into(),
        koan: 6
    }));
    for game in [&g, &other_way] {
        assert_eq!(stones(game, "Bob"), 2);
        assert_eq!(game.student("Bob").unwrap().disproved, 1);
        let ends: Vec<_> = game.guesses().iter().map(|r| r.end.clone()).collect();
        assert_eq!(
            ends,
            vec![GuessEnd::Retracted, GuessEnd::Disproved { koan: 6 }]
        );
    }
    // Once disproved, the table itself contradicts the same guess.
    let out = other_way.apply(&guess("Bob", FLAT_GUESS)).unwrap();
    assert!(
        out.notes
            .iter()
            .any(|n| matches!(n, Note::Contradiction { koan: 6, .. }))
    );
}

#[test]
fn a_counter_example_the_guess_agrees_with_stays_and_the_guess_stays_open() {
    let mut g = two_medium_game(&["Bob", "Cat"]);
    mondo(
        &mut g,
        "Bob",
        "yellow large upright",
        &[("Bob", Black), ("Cat", White)],
        Black,
    );
    g.apply(&guess("Bob", FLAT_GUESS)).unwrap();
    g.apply(&Event::Official).unwrap();
    // Black, and the guess says black too (no flat piece): no disproof.
    let out = g.apply(&counter(Black, "green small upright")).unwrap();
    assert!(out.notes.contains(&Note::CounterExampleFails { koan: 4 }));
    assert!(g.guess().is_some_and(|p| p.official));
    assert!(g.koan(4).is_some_and(|k| k.in_play));
}

#[test]
fn a_guess_the_master_cannot_disprove_wins_and_the_rule_is_verified() {
    let mut g = two_medium_game(&["Bob", "Cat"]);
    mondo(
        &mut g,
        "Bob",
        "yellow large upright",
        &[("Bob", Black), ("Cat", White)],
        Black,
    );
    g.apply(&guess(
        "Bob",
        "A koan has the Buddha-nature if it contains exactly two medium pieces.",
    ))
    .unwrap();
    g.apply(&Event::Official).unwrap();
    let out = g.apply(&Event::GuessStands).unwrap();
    assert!(out.notes.contains(&Note::Won {
        student: "Bob".into()
    }));
    assert!(matches!(g.ending(), Some(Ending::Won { student, .. }) if student == "Bob"));
    // A different rule, or the right rule with another salt, does not match the commitment.
    let before = g.clone();
    let wrong = Event::Reveal {
        text: "A koan has the Buddha-nature if it contains a red piece.".into(),
        salt: SALT.into(),
    };
    assert_eq!(g.apply(&wrong), Err(GameError::CommitmentMismatch));
    let bad_salt = Event::Reveal {
        text: TWO_MEDIUM.into(),
        salt: "00".into(),
    };
    assert_eq!(g.apply(&bad_salt), Err(GameError::CommitmentMismatch));
    assert_eq!(g, before);
    g.apply(&Event::Reveal {
        text: TWO_MEDIUM.into(),
        salt: SALT.into(),
    })
    .unwrap();
    assert!(g.finished());
    assert!(matches!(
        g.apply(&build("Cat", "red small upright")),
        Err(GameError::NotNow { .. })
    ));
}

#[test]
fn a_broken_down_koan_that_would_disprove_the_guess_does_not_count() {
    let mut g = two_medium_game(&["Bob", "Cat"]);
    mondo(
        &mut g,
        "Bob",
        "yellow small flat",
        &[("Bob", Black), ("Cat", White)],
        Black,
    );
    g.apply(&Event::BreakDown { koans: vec![3] }).unwrap();
    let out = g.apply(&guess("Bob", FLAT_GUESS)).unwrap();
    assert!(
        out.notes.contains(&Note::GuessClear),
        "koan 3 is out of play: {:?}",
        out.notes
    );
    g.apply(&Event::Official).unwrap();
    // The Master may rebuild the old koan as the counter-example: the guess is then disproved,
    // and the stone is not returned.
    g.apply(&counter(Black, "yellow small flat")).unwrap();
    assert_eq!(stones(&g, "Bob"), 0);
    assert!(
        g.koan(3).is_some_and(|k| !k.in_play),
        "koan 3 stays in the books, off the table"
    );
}

#[test]
fn katsu_stops_play_until_the_koan_is_restored_as_logged() {
    let mut g = two_medium_game(&["Bob", "Cat"]);
    g.apply(&Event::Katsu {
        koan: 1,
        disturbed: Some(koan("blue medium flat, blue medium upright")),
    })
    .unwrap();
    let before = g.clone();
    assert_eq!(
        g.apply(&build("Bob", "red small upright")),
        Err(GameError::Disturbed { koans: vec![1] })
    );
    let wrong = Event::Restored {
        koan: 1,
        scene: Some(koan("blue medium flat, blue medium upright")),
    };
    assert!(matches!(
        g.apply(&wrong),
        Err(GameError::NotAsLogged { koan: 1, .. })
    ));
    assert_eq!(g, before);
    g.apply(&Event::Restored {
        koan: 1,
        scene: Some(koan("blue medium flat, blue medium flat dir=1")),
    })
    .unwrap();
    assert_eq!(g.koan(1).unwrap().mark, Some(White));
    g.apply(&build("Bob", "red small upright")).unwrap();
    assert_eq!(
        g.apply(&Event::Restored {
            koan: 1,
            scene: None
        }),
        Err(GameError::NotDisturbed(1))
    );
}

#[test]
fn correcting_a_mismarked_mondo_koan_settles_the_stones() {
    let mut g = Game::new();
    // The students' copy of the books: no secret, so the Master's mistake goes through.
    let s = secret(TWO_MEDIUM);
    g.apply(&Event::Created(setup(Mode::Standard, &["Bob", "Cat"], &s)))
        .unwrap();
    g.apply(&initial(White, "blue medium flat, blue medium flat dir=1"))
        .unwrap();
    g.apply(&initial(Black, "red large upright")).unwrap();
    mondo(
        &mut g,
        "Bob",
        "red medium upright, green medium flat",
        &[("Bob", White), ("Cat", Black)],
        Black,
    );
    assert_eq!((stones(&g, "Bob"), stones(&g, "Cat")), (0, 1));
    let out = g
        .apply(&Event::Corrected {
            koan: 3,
            mark: White,
            judgment: false,
        })
        .unwrap();
    assert_eq!((stones(&g, "Bob"), stones(&g, "Cat")), (1, 0));
    assert!(out.notes.contains(&Note::StoneTakenBack {
        student: "Cat".into(),
        taken: true
    }));
    assert_eq!(g.koan(3).unwrap().corrected_from, vec![Black]);
    assert_eq!(
        g.apply(&Event::Corrected {
            koan: 3,
            mark: White,
            judgment: false
        }),
        Err(GameError::SameMark {
            koan: 3,
            mark: White
        })
    );
}

#[test]
fn guidance_mode_the_master_builds_and_guesses_are_free() {
    let mut g = two_medium_game(&["Bob", "Cat"]);
    g.apply(&Event::Guidance).unwrap();
    assert!(matches!(
        g.apply(&build("Bob", "red small upright")),
        Err(GameError::NotNow { .. })
    ));
    g.apply(&Event::GuidanceKoan {
        mark: White,
        scene: koan("red medium flat, red medium flat dir=1, red large upright"),
        judgment: false,
    })
    .unwrap();
    // Cat holds no stone, and may still call out a rule.
    g.apply(&guess("Cat", FLAT_GUESS)).unwrap();
    g.apply(&Event::Official).unwrap();
    g.apply(&counter(Black, "red small flat")).unwrap();
    g.apply(&guess(
        "Cat",
        "A koan has the Buddha-nature if it contains exactly two medium pieces.",
    ))
    .unwrap();
    g.apply(&Event::Official).unwrap();
    g.apply(&Event::GuessStands).unwrap();
    assert!(matches!(g.ending(), Some(Ending::Won { student, .. }) if student == "Cat"));
}

#[test]
fn surrender_by_everyone_ends_the_game_and_the_rule_is_revealed() {
    let mut g = two_medium_game(&["Bob", "Cat"]);
    g.apply(&Event::Surrender {
        student: "Bob".into(),
    })
    .unwrap();
    assert_eq!(g.turn(), Some("Cat"), "Bob's turn passes to Cat");
    assert_eq!(
        g.apply(&build("Bob", "red small upright")),
        Err(GameError::Surrendered { name: "Bob".into() })
    );
    assert_eq!(
        g.apply(&Event::Reveal {
            text: TWO_MEDIUM.into(),
            salt: SALT.into()
        }),
        Err(GameError::NotOver)
    );
    let out = g
        .apply(&Event::Surrender {
            student: "Cat".into(),
        })
        .unwrap();
    assert!(out.notes.contains(&Note::AllSurrendered));
    g.apply(&Event::Reveal {
        text: TWO_MEDIUM.into(),
        salt: SALT.into(),
    })
    .unwrap();
    assert_eq!(g.revealed()[0].text, TWO_MEDIUM);
}

#[test]
fn puzzle_mode_has_no_mondo_and_no_stones() {
    let s = secret(TWO_MEDIUM);
    let mut g = Game::new();
    g.learn_secret(0, s.clone()).unwrap();
    g.apply(&Event::Created(setup(Mode::Puzzle, &["Bob"], &s)))
        .unwrap();
    g.apply(&initial(White, "blue medium flat, blue medium flat dir=1"))
        .unwrap();
    g.apply(&initial(Black, "red large upright")).unwrap();
    g.apply(&build("Bob", "red small upright")).unwrap();
    assert!(matches!(
        g.apply(&Event::CallMondo {
            student: "Bob".into()
        }),
        Err(GameError::NotInMode { .. })
    ));
    g.apply(&marked(Black)).unwrap();
    g.apply(&guess("Bob", FLAT_GUESS)).unwrap();
    assert_eq!(stones(&g, "Bob"), 0);
    g.apply(&Event::Official).unwrap();
    g.apply(&counter(White, "red medium upright, red medium upright"))
        .unwrap();
    assert_eq!(
        g.phase(),
        &Phase::Guessing {
            student: "Bob".into()
        }
    );
}

#[test]
fn head_to_head_scores_both_rounds_and_the_lower_score_wins() {
    let s0 = secret(TWO_MEDIUM);
    let s1 = Secret::with_salt(
        "A koan has the Buddha-nature if it contains at least one red piece.",
        "77",
    );
    let mut g = Game::new();
    g.learn_secret(0, s0.clone()).unwrap();
    g.apply(&Event::Created(setup(Mode::HeadToHead, &["Bob"], &s0)))
        .unwrap();
    g.apply(&initial(White, "blue medium flat, blue medium flat dir=1"))
        .unwrap();
    g.apply(&initial(Black, "red large upright")).unwrap();
    // Round one: Bob needs a koan, one wrong guess and a break-down: 3 + 1 counter-example + 2 = 6.
    g.apply(&build("Bob", "red small upright")).unwrap();
    g.apply(&marked(Black)).unwrap();
    g.apply(&Event::BreakDown { koans: vec![3] }).unwrap();
    g.apply(&guess("Bob", FLAT_GUESS)).unwrap();
    g.apply(&Event::Official).unwrap();
    g.apply(&counter(White, "red medium upright, red medium upright"))
        .unwrap();
    g.apply(&guess(
        "Bob",
        "A koan has the Buddha-nature if it contains exactly two medium pieces.",
    ))
    .unwrap();
    g.apply(&Event::Official).unwrap();
    let out = g.apply(&Event::GuessStands).unwrap();
    assert!(
        out.notes
            .iter()
            .any(|n| matches!(n, Note::RoundScored(r) if r.score == Some(6)))
    );
    assert!(
        matches!(
            g.apply(&Event::NextRound {
                rule_source: RuleSource::Typed,
                commitment: s1.commitment()
            }),
            Err(GameError::NotNow { .. })
        ),
        "round one's rule must be revealed first"
    );
    g.apply(&Event::Reveal {
        text: TWO_MEDIUM.into(),
        salt: SALT.into(),
    })
    .unwrap();
    g.learn_secret(1, s1.clone()).unwrap();
    g.apply(&Event::NextRound {
        rule_source: RuleSource::Typed,
        commitment: s1.commitment(),
    })
    .unwrap();
    // Round two: roles swapped, Ann solves in 3 koans.
    assert_eq!(g.master(), "Bob");
    assert_eq!(g.students()[0].name, "Ann");
    g.apply(&initial(White, "red small upright")).unwrap();
    g.apply(&initial(Black, "blue small upright")).unwrap();
    g.apply(&build("Ann", "red large flat")).unwrap();
    g.apply(&marked(White)).unwrap();
    g.apply(&guess(
        "Ann",
        "A koan has the Buddha-nature if it contains at least one red piece.",
    ))
    .unwrap();
    g.apply(&Event::Official).unwrap();
    g.apply(&Event::GuessStands).unwrap();
    g.apply(&Event::Reveal {
        text: s1.text.clone(),
        salt: s1.salt.clone(),
    })
    .unwrap();
    assert_eq!(
        g.rounds().iter().map(|r| r.score).collect::<Vec<_>>(),
        vec![Some(6), Some(3)]
    );
    assert_eq!(g.match_winner(), Some("Ann"));
    assert!(g.finished());
}

#[test]
fn every_illegal_move_is_refused_and_changes_nothing() {
    let mut g = two_medium_game(&["Bob", "Cat"]);
    let refuse = |g: &mut Game, e: Event, expect: &dyn Fn(&GameError) -> bool| {
        let before = g.clone();
        match g.apply(&e) {
            Err(err) => assert!(expect(&err), "{e:?} refused with the wrong error: {err}"),
            Ok(o) => panic!("{e:?} was accepted: {o:?}"),
        }
        assert_eq!(*g, before, "a refused {e:?} changed the game");
    };
    // A guess without a stone (and before any koan of Bob's).
    refuse(&mut g, guess("Bob", FLAT_GUESS), &|e| {
        matches!(e, GameError::NotNow { .. })
    });
    refuse(&mut g, build("Cat", "red small upright"), &|e| {
        matches!(e, GameError::NotYourTurn { .. })
    });
    refuse(&mut g, build("Zed", "red small upright"), &|e| {
        matches!(e, GameError::NotAStudent { .. })
    });
    refuse(&mut g, initial(White, "red small upright"), &|e| {
        matches!(e, GameError::NotNow { .. })
    });
    refuse(&mut g, marked(White), &|e| {
        matches!(e, GameError::NotNow { .. })
    });
    refuse(&mut g, Event::Official, &|e| {
        matches!(e, GameError::NoGuess)
    });
    refuse(&mut g, Event::Retract, &|e| matches!(e, GameError::NoGuess));
    refuse(&mut g, Event::GuessStands, &|e| {
        matches!(e, GameError::NoGuess)
    });
    refuse(
        &mut g,
        counter(White, "red medium upright, red medium upright"),
        &|e| matches!(e, GameError::NoGuess),
    );
    refuse(&mut g, Event::BreakDown { koans: vec![9] }, &|e| {
        matches!(e, GameError::UnknownKoan(9))
    });
    refuse(
        &mut g,
        Event::Reveal {
            text: TWO_MEDIUM.into(),
            salt: SALT.into(),
        },
        &|e| matches!(e, GameError::NotOver),
    );
    refuse(
        &mut g,
        Event::Created(setup(Mode::Standard, &["X", "Y"], &secret(TWO_MEDIUM))),
        &|e| matches!(e, GameError::AlreadyStarted),
    );
    refuse(
        &mut g,
        Event::Built {
            student: "Bob".into(),
            scene: koanscope_scene::Scene::default(),
        },
        &|e| matches!(e, GameError::KoanDocument(_)),
    );

    g.apply(&build("Bob", "red medium upright, green medium flat"))
        .unwrap();
    refuse(
        &mut g,
        Event::CallMondo {
            student: "Cat".into(),
        },
        &|e| matches!(e, GameError::NotYourTurn { .. }),
    );
    refuse(&mut g, answer("Bob", White), &|e| {
        matches!(e, GameError::NotNow { .. })
    });
    g.apply(&Event::CallMondo {
        student: "Bob".into(),
    })
    .unwrap();
    // A Mondo answer from the Master (not a student), twice from Bob, a mark too early.
    refuse(&mut g, answer("Ann", White), &|e| {
        matches!(e, GameError::NotAStudent { .. })
    });
    g.apply(&answer("Bob", White)).unwrap();
    refuse(&mut g, answer("Bob", Black), &|e| {
        matches!(e, GameError::AlreadyAnswered { .. })
    });
    refuse(
        &mut g,
        marked(White),
        &|e| matches!(e, GameError::AwaitingAnswers { missing } if missing == &["Cat".to_string()]),
    );
    g.apply(&answer("Cat", Black)).unwrap();
    // The Master's mark is checked against the secret rule...
    refuse(&mut g, marked(Black), &|e| {
        matches!(
            e,
            GameError::MarkDisagrees {
                rule_says: White,
                ..
            }
        )
    });
    g.apply(&marked(White)).unwrap();
    // ...and a koan is marked only once.
    refuse(&mut g, marked(Black), &|e| {
        matches!(
            e,
            GameError::AlreadyMarked {
                koan: 3,
                mark: White
            }
        )
    });
    // Cat has no stone; Bob's guess must parse and be definite.
    refuse(&mut g, guess("Cat", FLAT_GUESS), &|e| {
        matches!(e, GameError::NotYourTurn { .. })
    });
    refuse(
        &mut g,
        guess("Bob", "A koan has the Buddha-nature if it glows."),
        &|e| matches!(e, GameError::Guess(_)),
    );
    refuse(
        &mut g,
        guess(
            "Bob",
            "A koan has the Buddha-nature if it contains two red pieces.",
        ),
        &|e| matches!(e, GameError::Guess(_)),
    );
    g.apply(&guess("Bob", FLAT_GUESS)).unwrap();
    refuse(&mut g, guess("Bob", FLAT_GUESS), &|e| {
        matches!(e, GameError::GuessOpen { .. })
    });
    refuse(
        &mut g,
        Event::Pass {
            student: "Bob".into(),
        },
        &|e| matches!(e, GameError::GuessOpen { .. }),
    );
    refuse(&mut g, counter(Black, "red small flat"), &|e| {
        matches!(e, GameError::NotOfficial)
    });
    g.apply(&Event::Official).unwrap();
    refuse(&mut g, Event::Retract, &|e| {
        matches!(e, GameError::AlreadyOfficial)
    });
    refuse(
        &mut g,
        Event::ChangeGuess {
            text: FLAT_GUESS.into(),
        },
        &|e| matches!(e, GameError::AlreadyOfficial),
    );
    g.apply(&counter(Black, "red small flat")).unwrap();
    // Bob's only stone is spent: a second guess is refused.
    refuse(&mut g, guess("Bob", FLAT_GUESS), &|e| {
        matches!(e, GameError::NoGuessingStone { .. })
    });
    refuse(&mut g, Event::BreakDown { koans: vec![1, 1] }, &|e| {
        matches!(e, GameError::KoanNotInPlay(1))
    });
    g.apply(&Event::BreakDown { koans: vec![2] }).unwrap();
    refuse(&mut g, Event::BreakDown { koans: vec![2] }, &|e| {
        matches!(e, GameError::KoanNotInPlay(2))
    });
    refuse(
        &mut g,
        Event::Katsu {
            koan: 2,
            disturbed: None,
        },
        &|e| matches!(e, GameError::KoanNotInPlay(2)),
    );
}

#[test]
fn initial_koans_are_one_white_and_one_black_checked_against_the_rule() {
    let s = secret(TWO_MEDIUM);
    let mut g = Game::new();
    g.learn_secret(0, s.clone()).unwrap();
    assert_eq!(
        g.apply(&initial(White, "red small upright")),
        Err(GameError::NotStarted)
    );
    g.apply(&Event::Created(setup(Mode::Standard, &["Bob", "Cat"], &s)))
        .unwrap();
    assert!(matches!(
        g.apply(&initial(White, "red small upright")),
        Err(GameError::MarkDisagrees {
            rule_says: Black,
            ..
        })
    ));
    g.apply(&initial(White, "red medium upright, red medium flat"))
        .unwrap();
    assert_eq!(
        g.apply(&initial(White, "blue medium upright, blue medium flat")),
        Err(GameError::InitialMarkTaken(White))
    );
    g.apply(&initial(Black, "red small upright")).unwrap();
    assert_eq!(g.turn(), Some("Bob"));
}

#[test]
fn a_secret_that_does_not_match_the_commitment_is_refused() {
    let mut g = Game::new();
    g.learn_secret(0, secret(TWO_MEDIUM)).unwrap();
    let other = Secret::with_salt(TWO_MEDIUM, "ff");
    assert_eq!(
        g.apply(&Event::Created(setup(
            Mode::Standard,
            &["Bob", "Cat"],
            &other
        ))),
        Err(GameError::SecretMismatch)
    );
    let mut bad = setup(Mode::Standard, &["Bob", "Bob"], &secret(TWO_MEDIUM));
    assert!(matches!(
        g.apply(&Event::Created(bad.clone())),
        Err(GameError::Setup(_))
    ));
    bad.students = vec!["Bob".into()];
    assert!(matches!(
        g.apply(&Event::Created(bad)),
        Err(GameError::Setup(_))
    ));
}

#[test]
fn replaying_the_events_gives_the_same_game() {
    let mut g = two_medium_game(&["Bob", "Cat"]);
    let mut log = vec![
        Event::Created(setup(Mode::Standard, &["Bob", "Cat"], &secret(TWO_MEDIUM))),
        initial(White, "blue medium flat, blue medium flat dir=1"),
        initial(Black, "red large upright"),
    ];
    for e in [
        build("Bob", "red medium upright, green medium flat"),
        Event::CallMondo {
            student: "Bob".into(),
        },
        answer("Bob", White),
        answer("Cat", White),
        marked(White),
        guess("Bob", FLAT_GUESS),
        Event::Retract,
        Event::Pass {
            student: "Bob".into(),
        },
    ] {
        g.apply(&e).unwrap();
        log.push(e);
    }
    let replayed = Game::replay(&log, [(0, secret(TWO_MEDIUM))]).unwrap();
    assert_eq!(replayed, g);
    // Through JSON, as the store keeps them.
    let json: Vec<String> = log
        .iter()
        .map(|e| serde_json::to_string(e).unwrap())
        .collect();
    let back: Vec<Event> = json
        .iter()
        .map(|j| serde_json::from_str(j).unwrap())
        .collect();
    assert_eq!(Game::replay(&back, [(0, secret(TWO_MEDIUM))]).unwrap(), g);
}

#[test]
fn a_logged_mark_stands_on_replay_even_where_the_rule_reads_the_koan_otherwise() {
    // Books kept without the secret (or by an older rule engine) hold a mark today's engine
    // would refuse: replaying them with the secret still gives the game as it was played.
    let s = secret(TWO_MEDIUM);
    let log = vec![
        Event::Created(setup(Mode::Standard, &["Bob", "Cat"], &s)),
        initial(White, "blue medium flat, blue medium flat dir=1"),
        initial(Black, "red large upright"),
        build("Bob", "red small upright"),
        Event::CallMaster {
            student: "Bob".into(),
        },
        marked(White),
    ];
    let mut live = Game::new();
    live.learn_secret(0, s.clone()).unwrap();
    for e in &log[..5] {
        live.apply(e).unwrap();
    }
    assert!(matches!(
        live.apply(&log[5]),
        Err(GameError::MarkDisagrees { .. })
    ));
    let replayed = Game::replay(&log, [(0, s)]).unwrap();
    assert_eq!(replayed.koan(3).unwrap().mark, Some(White));
    // A secret today's parser cannot read does not stop the replay either.
    let unreadable = Secret::with_salt("A koan glows.", SALT);
    let without = Game::replay(&log, [(0, unreadable)]).unwrap();
    assert!(without.secret_rule().is_none());
    assert_eq!(without.koan(3).unwrap().mark, Some(White));
}
