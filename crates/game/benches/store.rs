//! The session store's speed targets, on this machine's disk:
//! - appending an event with its scene document: at most 5 ms at the 99th percentile;
//! - replaying a 200-event session (read, parse, fold): at most 200 ms.
//!
//! The koan is a real derived scene document (`koan5.json`: five pieces with a tower, a nest and
//! a pointing piece, made by `koanscope game play`). Percentiles are measured directly (criterion
//! reports means), then criterion runs the same operations.

use std::path::Path;
use std::time::{Duration, Instant};

use criterion::Criterion;
use koanscope_game::{
    Durability, Event, Game, Mode, RuleSource, Secret, SessionId, Setup, Stones, Store, Vocabulary,
};
use koanscope_scene::{Mark, Scene};

const RULE: &str = "A koan has the Buddha-nature if it contains at least one red piece.";

fn koan() -> Scene {
    Scene::from_json_str(include_str!("koan5.json")).expect("the bench koan reads")
}

fn other_koan() -> Scene {
    // The same koan without its red piece: marked black under the rule.
    let mut s = koan();
    for p in &mut s.pieces {
        if p.color == koanscope_scene::Color::Red {
            p.color = koanscope_scene::Color::Blue;
        }
    }
    s
}

fn setup(mode: Mode, students: &[&str], secret: &Secret) -> Setup {
    Setup {
        mode,
        master: "Ann".into(),
        students: students.iter().map(|s| s.to_string()).collect(),
        stones: Stones {
            marking: 1_000_000,
            guessing: 20,
            initial_guessing: 0,
        },
        vocabulary: Vocabulary::Zen,
        koanscope_master: false,
        rule_source: RuleSource::Typed,
        commitment: secret.commitment(),
    }
}

/// A puzzle session past its initial koans: from here, build and mark alternate for ever.
fn puzzle(store: &mut Store) -> (SessionId, Game) {
    let secret = Secret::new(RULE);
    let (id, mut game) = store
        .start(None, &setup(Mode::Puzzle, &["Bob"], &secret), &secret)
        .expect("start");
    for (mark, scene) in [(Mark::White, koan()), (Mark::Black, other_koan())] {
        let e = Event::InitialKoan {
            mark,
            scene,
            judgment: false,
        };
        store.play(id, &mut game, &e).expect("initial koan");
    }
    (id, game)
}

/// Appends `n` events (build with its scene, then the mark), a fresh session every 100 koans so
/// the game stays the size of a real one. Returns each append's time.
fn appends(dir: &Path, n: usize, durability: Durability) -> Vec<Duration> {
    let file = format!("append-{durability:?}.sqlite");
    let mut store = Store::open_with(&dir.join(file), durability).expect("open");
    let (mut id, mut game) = puzzle(&mut store);
    let build = Event::Built {
        student: "Bob".into(),
        scene: koan(),
    };
    let mark = Event::Marked {
        mark: Mark::White,
        judgment: false,
    };
    let mut times = Vec::with_capacity(n);
    for i in 0..n {
        if i > 0 && i % 200 == 0 {
            (id, game) = puzzle(&mut store);
        }
        let e = if i % 2 == 0 { &build } else { &mark };
        let t = Instant::now();
        store.play(id, &mut game, e).expect("append");
        times.push(t.elapsed());
    }
    times
}

/// A standard game of exactly 200 events: Mondo turns with three students, guesses, retractions.
fn session_200(store: &mut Store) -> SessionId {
    let secret = Secret::new(RULE);
    let students = ["Bob", "Cat", "Dan"];
    let (id, mut game) = store
        .start(None, &setup(Mode::Standard, &students, &secret), &secret)
        .expect("start");
    let mut play = |game: &mut Game, e: Event| {
        store.play(id, game, &e).expect("a legal move");
    };
    play(
        &mut game,
        Event::InitialKoan {
            mark: Mark::White,
            scene: koan(),
            judgment: false,
        },
    );
    play(
        &mut game,
        Event::InitialKoan {
            mark: Mark::Black,
            scene: other_koan(),
            judgment: false,
        },
    );
    let mut turn = 0;
    while game.events_applied() < 200 {
        let student = students[turn % 3].to_string();
        let (scene, mark) = if turn % 2 == 0 {
            (koan(), Mark::White)
        } else {
            (other_koan(), Mark::Black)
        };
        let left = 200 - game.events_applied();
        if left < 7 {
            for _ in 0..left {
                play(
                    &mut game,
                    Event::Katsu {
                        koan: 1,
                        disturbed: None,
                    },
                );
            }
            break;
        }
        play(
            &mut game,
            Event::Built {
                student: student.clone(),
                scene,
            },
        );
        play(
            &mut game,
            Event::CallMondo {
                student: student.clone(),
            },
        );
        for (k, s) in students.iter().enumerate() {
            let answer = if (turn + k) % 2 == 0 {
                mark
            } else {
                Mark::White
            };
            play(
                &mut game,
                Event::Answer {
                    student: s.to_string(),
                    answer,
                },
            );
        }
        play(
            &mut game,
            Event::Marked {
                mark,
                judgment: false,
            },
        );
        play(
            &mut game,
            Event::Pass {
                student: student.clone(),
            },
        );
        turn += 1;
    }
    assert_eq!(game.events_applied(), 200);
    id
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

/// The CPU side of an append without SQLite (the event and its scene serialised, twice): on a
/// machine shared with other builds, its p99 shows what the scheduler alone adds.
fn baseline(n: usize) -> Vec<Duration> {
    let event = Event::Built {
        student: "Bob".into(),
        scene: koan(),
    };
    (0..n)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..2 {
                let body = serde_json::to_string(&event).expect("serialise");
                std::hint::black_box(body);
            }
            t.elapsed()
        })
        .collect()
}

fn report_percentiles(dir: &Path) {
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let mut base = baseline(2000);
    base.sort();
    println!(
        "baseline, serialising an event and its scene twice (no SQLite): p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        ms(percentile(&base, 0.5)),
        ms(percentile(&base, 0.99)),
        ms(percentile(&base, 1.0)),
    );
    for durability in [Durability::Process, Durability::PowerLoss] {
        let mut times = appends(dir, 2000, durability);
        times.sort();
        println!(
            "append event + scene (2000 appends, survives {durability:?}): p50 {:.3} ms, p90 {:.3} ms, p99 {:.3} ms, max {:.3} ms (target p99 <= 5 ms)",
            ms(percentile(&times, 0.5)),
            ms(percentile(&times, 0.9)),
            ms(percentile(&times, 0.99)),
            ms(percentile(&times, 1.0)),
        );
    }
    let mut store = Store::open(&dir.join("replay.sqlite")).expect("open");
    let id = session_200(&mut store);
    let mut replays: Vec<Duration> = (0..50)
        .map(|_| {
            let t = Instant::now();
            let game = store.resume(id).expect("resume");
            assert_eq!(game.events_applied(), 200);
            t.elapsed()
        })
        .collect();
    replays.sort();
    println!(
        "replay a 200-event session (50 runs): p50 {:.2} ms, max {:.2} ms (target <= 200 ms)",
        ms(percentile(&replays, 0.5)),
        ms(percentile(&replays, 1.0)),
    );
}

fn benches(c: &mut Criterion, dir: &Path) {
    {
        let mut store = Store::open(&dir.join("crit-append.sqlite")).expect("open");
        let (mut id, mut game) = puzzle(&mut store);
        let build = Event::Built {
            student: "Bob".into(),
            scene: koan(),
        };
        let mark = Event::Marked {
            mark: Mark::White,
            judgment: false,
        };
        let mut i = 0usize;
        c.bench_function("append event with scene", |b| {
            b.iter(|| {
                if i > 0 && i % 200 == 0 {
                    (id, game) = puzzle(&mut store);
                }
                let e = if i % 2 == 0 { &build } else { &mark };
                store.play(id, &mut game, e).expect("append");
                i += 1;
            })
        });
    }
    let mut store = Store::open(&dir.join("crit-replay.sqlite")).expect("open");
    let id = session_200(&mut store);
    c.bench_function("replay 200-event session", |b| {
        b.iter(|| store.resume(id).expect("resume"))
    });
    let events: Vec<Event> = store
        .events(id)
        .expect("events")
        .into_iter()
        .map(|e| e.event)
        .collect();
    let secrets = store.secrets(id).expect("secrets");
    c.bench_function("fold 200 events (no SQLite)", |b| {
        b.iter(|| Game::replay(&events, secrets.clone()).expect("fold"))
    });
}

fn main() {
    // On this machine's disk (not /tmp, which may be memory): next to the build output.
    let base = option_env!("CARGO_TARGET_TMPDIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let dir = tempfile::tempdir_in(base).expect("temp dir");
    report_percentiles(dir.path());
    let mut c = Criterion::default()
        .configure_from_args()
        .sample_size(50)
        .measurement_time(Duration::from_secs(5));
    benches(&mut c, dir.path());
    c.final_summary();
}
