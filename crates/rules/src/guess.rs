//! Guesses against the table: every marked koan a guess would mark differently.

use koanscope_scene::{KoanId, Mark, Scene};

use crate::ast::Rule;
use crate::eval::{EvalError, KoanSummary};

/// A koan on the table whose mark the guess contradicts.
#[derive(Debug, Clone, PartialEq)]
pub struct Contradiction {
    pub koan: KoanId,
    /// The Master's mark on the table.
    pub marked: Mark,
    /// The mark the guess would give.
    pub guess_says: Mark,
    /// Why the guess marks it so.
    pub reason: String,
}

/// What checking a guess against the table found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GuessCheck {
    pub contradictions: Vec<Contradiction>,
    /// Marked koans the guess agrees with.
    pub agreeing: usize,
    /// Koans with no mark yet (not evidence either way).
    pub unmarked: Vec<KoanId>,
}

/// Lists every marked koan of the scene that contradicts the guess, so the guesser can retract
/// (the booklet: "if any koan on the table contradicts your guess, the Master should point this
/// out").
pub fn check_guess(guess: &Rule, scene: &Scene) -> Result<GuessCheck, EvalError> {
    if scene.koans.is_empty() && !scene.pieces.is_empty() {
        return Err(EvalError::NoKoans);
    }
    let mut out = GuessCheck::default();
    for koan in &scene.koans {
        let Some(marked) = koan.mark else {
            out.unmarked.push(koan.id);
            continue;
        };
        let summary = KoanSummary::from_scene(scene, koan)?;
        let (guess_says, reason) = summary.explain(guess);
        if guess_says == marked {
            out.agreeing += 1;
        } else {
            out.contradictions.push(Contradiction {
                koan: koan.id,
                marked,
                guess_says,
                reason,
            });
        }
    }
    Ok(out)
}
