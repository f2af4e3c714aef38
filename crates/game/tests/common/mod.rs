//! Koans for tests, from the rule engine's sketch notation (facts, no poses needed).
#![allow(dead_code)]

use koanscope_game::{Event, Game, Mode, RuleSource, Secret, Setup, Stones, Vocabulary};
use koanscope_rules::Sketch;
use koanscope_scene::{Koan, Mark, Piece, PieceAttributes, PieceMargins, Scene};
use nalgebra::{Isometry3, Point3, Vector3};

/// A one-koan scene document with derived attributes, from a sketch ("red medium upright, ...").
pub fn koan(sketch: &str) -> Scene {
    let sketch = Sketch::parse(sketch).expect("test sketch");
    let (koan, facts) = sketch.to_koan();
    let pieces = facts
        .iter()
        .map(|f| {
            let mut p = Piece::new(
                f.id,
                f.color,
                f.size,
                Isometry3::translation(f.id as f64 * 40.0, 0.0, 0.0),
            );
            p.koan = Some(0);
            p.attributes = Some(PieceAttributes {
                base_center_mm: Point3::new(f.id as f64 * 40.0, 0.0, 0.0),
                apex_mm: Point3::new(f.id as f64 * 40.0, 0.0, f.height_mm),
                axis: Vector3::new(f.axis[0], f.axis[1], f.axis[2]),
                height_mm: f.height_mm,
                orientation: f.orientation,
                grounded: f.grounded,
                margins: PieceMargins::default(),
            });
            p
        })
        .collect();
    Scene {
        source: Some("test sketch".into()),
        image_size: None,
        pieces,
        koans: vec![Koan { id: 0, ..koan }],
    }
}

pub const TWO_MEDIUM: &str = "A structure must contain exactly two Medium-sized pyramids.";
pub const FLAT_GUESS: &str = "A koan has the Buddha-nature if it contains at least one flat piece.";
pub const SALT: &str = "5a17";

pub fn secret(text: &str) -> Secret {
    Secret::with_salt(text, SALT)
}

pub fn setup(mode: Mode, students: &[&str], secret: &Secret) -> Setup {
    Setup {
        mode,
        master: "Ann".into(),
        students: students.iter().map(|s| s.to_string()).collect(),
        stones: Stones::standard(students.len()),
        vocabulary: Vocabulary::Zen,
        koanscope_master: false,
        rule_source: RuleSource::Typed,
        commitment: secret.commitment(),
    }
}

/// A standard game under "exactly two medium pyramids" with the two initial koans built, Bob to
/// build. The Master's copy of the books (the secret known).
pub fn two_medium_game(students: &[&str]) -> Game {
    let s = secret(TWO_MEDIUM);
    let mut g = Game::new();
    g.learn_secret(0, s.clone()).unwrap();
    g.apply(&Event::Created(setup(Mode::Standard, students, &s)))
        .unwrap();
    g.apply(&initial(
        Mark::White,
        "blue medium flat, blue medium flat dir=1",
    ))
    .unwrap();
    g.apply(&initial(Mark::Black, "red large upright")).unwrap();
    g
}

pub fn initial(mark: Mark, sketch: &str) -> Event {
    Event::InitialKoan {
        mark,
        scene: koan(sketch),
        judgment: false,
    }
}

pub fn build(student: &str, sketch: &str) -> Event {
    Event::Built {
        student: student.into(),
        scene: koan(sketch),
    }
}

pub fn marked(mark: Mark) -> Event {
    Event::Marked {
        mark,
        judgment: false,
    }
}

pub fn counter(mark: Mark, sketch: &str) -> Event {
    Event::CounterExample {
        mark,
        scene: koan(sketch),
        judgment: false,
    }
}

pub fn guess(student: &str, text: &str) -> Event {
    Event::Guess {
        student: student.into(),
        text: text.into(),
    }
}

pub fn answer(student: &str, mark: Mark) -> Event {
    Event::Answer {
        student: student.into(),
        answer: mark,
    }
}
