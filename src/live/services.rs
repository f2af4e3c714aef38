//! The rule engine's counter-example search, and the geometry engine's regrouping and hidden
//! pieces, for the Master's console.

use koanscope_builder::GeometryRealiser;
use koanscope_game::Game;
use koanscope_geometry::{Engine, HiddenPiece};
use koanscope_rules::{SearchOptions, SearchResult, find_counterexample};
use koanscope_scene::Scene;
use koanscope_ui::{Services, Suggestion};

/// Counter-examples built for real (build plans placed and checked by the geometry engine),
/// relations derived again within the koans the Master merged or split, and koans with a piece
/// put where the camera cannot see it (under a piece standing on the table).
#[derive(Default)]
pub struct RuleServices {
    realiser: GeometryRealiser,
    engine: Engine,
}

impl Services for RuleServices {
    fn counterexample(&self, game: &Game) -> Result<Option<Suggestion>, String> {
        let secret = game
            .secret_rule()
            .ok_or("this window does not know the secret rule")?;
        let guess = game.guess().ok_or("there is no guess to disprove")?;
        match find_counterexample(
            secret,
            &guess.rule,
            &SearchOptions::default(),
            &self.realiser,
        )
        .map_err(|e| e.to_string())?
        {
            SearchResult::Found(found) => Ok(Some(Suggestion {
                words: found.plan.describe(),
                mark: found.rule_mark,
                scene: found.scene,
            })),
            SearchResult::NotFound { .. } => Ok(None),
        }
    }

    fn regroup(&self, scene: &Scene) -> Result<Scene, String> {
        let mut scene = scene.clone();
        self.engine.derive_keeping_koans(&mut scene);
        Ok(scene)
    }

    fn hidden_pieces(&self, scene: &Scene) -> Vec<HiddenPiece> {
        self.engine.hidden_pieces(scene)
    }
}
