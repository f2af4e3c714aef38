//! koanscope as the Master: with the secret rule known, it marks koans and answers official
//! guesses with a counter-example (or concedes), so a table without a Master can play.
//!
//! The counter-example search lives in the rule engine and needs real poses (the geometry
//! engine), which this crate does not link: it comes in through [`CounterExamples`].

use koanscope_rules::{Difficulty, Library, LibraryRule, Rule};
use koanscope_scene::Scene;
use rand::SeedableRng;
use rand::seq::IndexedRandom;

use crate::error::GameError;
use crate::event::Event;
use crate::game::{Game, Phase};

/// Finds a koan that the secret rule and a guess mark differently.
pub trait CounterExamples {
    /// A one-koan scene document (derived attributes) that `secret` and `guess` mark
    /// differently, or `None` when the search finds none (the guess then stands).
    fn find(&self, secret: &Rule, guess: &Rule, table: &Scene) -> Result<Option<Scene>, String>;
}

impl<F> CounterExamples for F
where
    F: Fn(&Rule, &Rule, &Scene) -> Result<Option<Scene>, String>,
{
    fn find(&self, secret: &Rule, guess: &Rule, table: &Scene) -> Result<Option<Scene>, String> {
        self(secret, guess, table)
    }
}

/// The Master's next move, when it is the Master's to make and koanscope can make it: mark the
/// koan waiting for its mark, or answer an official guess. `None` when the move is the players'.
pub fn master_move(game: &Game, finder: &dyn CounterExamples) -> Result<Option<Event>, GameError> {
    if let Some(guess) = game.guess() {
        if !guess.official {
            return Ok(None);
        }
        let secret = game.secret_rule().ok_or(GameError::NoSecret)?;
        let found = finder
            .find(secret, &guess.rule, &game.table())
            .map_err(GameError::CounterExampleSearch)?;
        return Ok(Some(match found {
            Some(scene) => {
                let (mark, _) = game.rule_mark(&scene)?;
                Event::CounterExample {
                    mark,
                    scene,
                    judgment: false,
                }
            }
            None => Event::GuessStands,
        }));
    }
    if let Phase::Marking { koan, .. } = game.phase()
        && game.awaiting_answers().is_empty()
    {
        let k = game.koan(*koan).ok_or(GameError::UnknownKoan(*koan))?;
        let (mark, _) = game.rule_mark(&k.scene)?;
        return Ok(Some(Event::Marked {
            mark,
            judgment: false,
        }));
    }
    Ok(None)
}

/// Draws a rule of the given difficulty from the library (seeded for reproducible games).
pub fn draw_rule(
    library: &Library,
    difficulty: Difficulty,
    seed: Option<u64>,
) -> Option<&LibraryRule> {
    let pool: Vec<&LibraryRule> = library
        .rules
        .iter()
        .filter(|r| r.difficulty == difficulty)
        .collect();
    let picked = match seed {
        Some(seed) => pool.choose(&mut rand::rngs::StdRng::seed_from_u64(seed)),
        None => pool.choose(&mut rand::rng()),
    };
    picked.copied()
}
