//! Events and their outcomes in words, in either vocabulary. Mondo answers stay hidden until the
//! koan is marked; what the secret rule says of a koan is shown only in the Master's view.

use koanscope_scene::Scene;

use crate::event::{Event, Mode, RuleSource};
use crate::game::{Note, Outcome};
use crate::vocab::Vocabulary;

/// A koan's pieces in words: "red medium upright, blue small flat".
pub fn koan_words(scene: &Scene) -> String {
    scene
        .pieces
        .iter()
        .map(|p| match &p.attributes {
            Some(a) => format!(
                "{} {} {}{}",
                p.color,
                p.size,
                a.orientation,
                if a.grounded { "" } else { " ungrounded" }
            ),
            None => format!("{} {}", p.color, p.size),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn cap(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// The event as one line. `koan` is the koan number the event made, if any.
pub fn event_line(event: &Event, outcome: &Outcome, v: Vocabulary) -> String {
    let w = v.words();
    let koan = outcome.koans.first().copied().unwrap_or(0);
    match event {
        Event::Created(s) => {
            let mode = match s.mode {
                Mode::Standard => String::new(),
                m => format!(" ({} mode)", m.word()),
            };
            let source = match &s.rule_source {
                RuleSource::Typed => "typed by the Master".to_string(),
                RuleSource::Library { difficulty } => {
                    format!("drawn from the library, {difficulty}")
                }
            };
            format!(
                "New game{mode}: {} {}, {} {}. Secret rule {source}, committed as {}",
                w.master,
                s.master,
                w.students,
                s.students.join(", "),
                s.commitment
            )
        }
        Event::InitialKoan { mark, scene, .. } => format!(
            "The {} builds initial {} {koan} ({}) and marks it {}",
            w.master,
            w.koan,
            koan_words(scene),
            v.mark(*mark)
        ),
        Event::Built { student, scene } => {
            format!("{student} builds {} {koan}: {}", w.koan, koan_words(scene))
        }
        Event::CallMaster { student } => format!("{student} says \"{}\"", w.call_master),
        Event::CallMondo { student } => format!("{student} says \"{}\"", w.call_mondo),
        Event::Answer { student, .. } => format!("{student} answers (hidden in a fist)"),
        Event::Marked { mark, .. } => format!(
            "The {} marks {} {koan} {}: it {}",
            w.master,
            w.koan,
            v.mark(*mark),
            v.verdict(*mark)
        ),
        Event::Guess { student, text } => {
            format!("{student} guesses: \"{text}\"")
        }
        Event::ChangeGuess { text } => format!("The guess is changed to: \"{text}\""),
        Event::Retract => "The guess is retracted".into(),
        Event::Official => "The guess is official".into(),
        Event::CounterExample { mark, scene, .. } => format!(
            "The {} builds counter-example {} {koan} ({}) and marks it {}",
            w.master,
            w.koan,
            koan_words(scene),
            v.mark(*mark)
        ),
        Event::GuessStands => format!("The {} cannot disprove the guess", w.master),
        Event::Pass { student } => format!("{student} passes"),
        Event::BreakDown { koans } => format!(
            "{} {} broken down",
            cap(if koans.len() == 1 { w.koan } else { w.koans }),
            koans
                .iter()
                .map(|k| k.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Event::Katsu { koan, .. } => format!("Katsu! {} {koan} was disturbed", cap(w.koan)),
        Event::Restored { koan, .. } => {
            format!("The {} restores {} {koan} as it was", w.master, w.koan)
        }
        Event::Corrected { koan, mark, .. } => format!(
            "The {} corrects the mark of {} {koan} to {}",
            w.master,
            w.koan,
            v.mark(*mark)
        ),
        Event::Guidance => format!(
            "The {} switches to Guidance Mode: the {} builds every {}, guesses are free",
            w.master, w.master, w.koan
        ),
        Event::GuidanceKoan { mark, scene, .. } => format!(
            "The {} builds guidance {} {koan} ({}) and marks it {}",
            w.master,
            w.koan,
            koan_words(scene),
            v.mark(*mark)
        ),
        Event::Surrender { student } => format!("{student} surrenders"),
        Event::Reveal { text, .. } => format!("The {} reveals the rule: \"{text}\"", w.master),
        Event::NextRound { commitment, .. } => {
            format!("Second round: the roles swap; new secret rule committed as {commitment}")
        }
    }
}

/// What followed, one line per note. `master_view` adds what the secret rule says.
pub fn note_lines(outcome: &Outcome, v: Vocabulary, master_view: bool) -> Vec<String> {
    let w = v.words();
    outcome
        .notes
        .iter()
        .filter_map(|n| match n {
            Note::RuleSays { koan, mark, reason } if master_view => Some(format!(
                "({} only) the rule marks {} {koan} {}: {reason}",
                w.master,
                w.koan,
                v.mark(*mark)
            )),
            Note::RuleSays { .. } => None,
            Note::JudgmentCall { koan } if master_view => Some(format!(
                "({} only) {} {koan}: marked as a judgment call",
                w.master, w.koan
            )),
            Note::JudgmentCall { .. } => None,
            Note::Contradiction {
                koan,
                marked,
                guess_says,
                reason,
            } => Some(format!(
                "{} {koan} contradicts the guess: it is {} but the guess says {} ({reason})",
                cap(w.koan),
                v.mark(*marked),
                v.mark(*guess_says)
            )),
            Note::GuessClear => Some(format!("No {} on the table contradicts the guess", w.koan)),
            Note::MondoRevealed { answers } => Some(format!(
                "The answers are revealed: {}",
                answers
                    .iter()
                    .map(|(s, m)| format!("{s} {}", v.mark(*m)))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            Note::StoneAwarded { student } => {
                Some(format!("{student} receives a {}", w.guessing_stone))
            }
            Note::NoStoneToAward { student } => Some(format!(
                "{student} answered right, but the {} has no {} left",
                w.master, w.guessing_stone
            )),
            Note::StoneTakenBack { student, taken } => Some(if *taken {
                format!(
                    "{student} gives back the {} won on the mismarked {}",
                    w.guessing_stone, w.koan
                )
            } else {
                format!(
                    "{student} had already spent the {} won on the mismarked {}",
                    w.guessing_stone, w.koan
                )
            }),
            Note::StoneReturned { student } => {
                Some(format!("{student} takes back the {}", w.guessing_stone))
            }
            Note::CounterExampleFails { koan } => Some(format!(
                "{} {koan} does not disprove the guess: it stays, and the {} must build another",
                cap(w.koan),
                w.master
            )),
            Note::GuessDisproved { student, koan } => Some(format!(
                "{student}'s guess is disproved by {} {koan}",
                w.koan
            )),
            Note::Won { student } => Some(format!("{student} has won!")),
            Note::AllSurrendered => Some(format!(
                "Every {} has surrendered: the {} reveals the rule",
                w.student, w.master
            )),
            Note::Turn { student } => Some(format!("{student}'s turn")),
            Note::RoundScored(r) => Some(match r.score {
                Some(s) => format!(
                    "{} scores {s} ({} {}, {} wrong guesses × 2)",
                    r.solver, r.koans, w.koans, r.disproved_guesses
                ),
                None => format!("{} gave up this round", r.solver),
            }),
            Note::RuleVerified { .. } => {
                Some("The revealed rule matches the commitment made at the start".to_string())
            }
        })
        .collect()
}
