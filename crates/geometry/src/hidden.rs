//! Pieces a camera cannot see: one nested under a bigger piece standing on the table looks
//! exactly like the bigger piece alone (a bigger piece put over a smaller one slides down to the
//! table). What such a piece would change is worked out by putting it there.

use koanscope_scene::{Color, Orientation, Piece, PieceId, Scene, Size};

use crate::Engine;

/// Whether a piece could hold a smaller one hidden inside it: a medium or large piece standing
/// upright on the table (needs the piece's attributes derived).
pub fn may_hide(piece: &Piece) -> bool {
    piece.size != Size::Small
        && piece
            .attributes
            .as_ref()
            .is_some_and(|a| a.orientation == Orientation::Upright && a.grounded)
}

/// The colours a hidden piece is tried in: the standard four and black.
pub const HIDDEN_COLOURS: [Color; 5] = [
    Color::Red,
    Color::Yellow,
    Color::Green,
    Color::Blue,
    Color::Black,
];

/// A piece the camera could not see, and the scene with it.
#[derive(Debug, Clone)]
pub struct HiddenPiece {
    /// The piece it hides under.
    pub under: PieceId,
    pub size: Size,
    pub color: Color,
    /// The scene with it, everything derived again.
    pub scene: Scene,
}

impl Engine {
    /// Every way one piece could hide in `scene`: under each piece that could hide one, each
    /// smaller size, in each of [`HIDDEN_COLOURS`], in that order.
    pub fn hidden_pieces(&self, scene: &Scene) -> Vec<HiddenPiece> {
        let mut found = Vec::new();
        for outer in scene.pieces.iter().filter(|p| may_hide(p)) {
            for &size in Size::ALL.iter().filter(|&&s| s < outer.size) {
                for color in HIDDEN_COLOURS {
                    found.push(HiddenPiece {
                        under: outer.id,
                        size,
                        color,
                        scene: self.nested_under(scene, outer, size, color),
                    });
                }
            }
        }
        found
    }

    /// The scene with a `color` piece of `size` hidden under `container`: standing on the table
    /// inside it, on the same base centre and turned as it is, in its koan, everything derived
    /// again (keeping the koans). `None` where the scene has no such container, it could not
    /// hide a piece (see [`may_hide`]), or the piece would not be smaller.
    pub fn with_hidden_piece(
        &self,
        scene: &Scene,
        container: PieceId,
        size: Size,
        color: Color,
    ) -> Option<Scene> {
        let outer = scene.pieces.iter().find(|p| p.id == container)?;
        (may_hide(outer) && size < outer.size).then(|| self.nested_under(scene, outer, size, color))
    }

    /// [`Engine::with_hidden_piece`] for an `outer` piece of `scene` already known to hide one
    /// of `size`.
    fn nested_under(&self, scene: &Scene, outer: &Piece, size: Size, color: Color) -> Scene {
        let id = scene.pieces.iter().map(|p| p.id).max().map_or(0, |m| m + 1);
        let mut hidden = Piece::new(id, color, size, outer.table_from_piece);
        hidden.koan = outer.koan;
        let mut with = scene.clone();
        if let Some(koan) = with.koans.iter_mut().find(|k| Some(k.id) == outer.koan) {
            koan.pieces.push(id);
        }
        with.pieces.push(hidden);
        self.derive_keeping_koans(&mut with);
        with
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Placer;

    fn table(pieces: Vec<Piece>) -> Scene {
        let mut scene = Scene::from_pieces(pieces);
        Engine::default().derive(&mut scene);
        scene
    }

    #[test]
    fn a_piece_hidden_under_a_large_is_nested_in_it_touching_it_and_pointing_at_it() {
        let place = Placer::default();
        let scene = table(vec![
            Piece::new(0, Color::Green, Size::Large, place.upright(0.0, 0.0, 0.3)),
            Piece::new(1, Color::Red, Size::Small, place.upright(60.0, 0.0, 0.0)),
        ]);
        let engine = Engine::default();
        let with = engine
            .with_hidden_piece(&scene, 0, Size::Small, Color::Blue)
            .expect("a large standing on the table can hide a small");
        assert_eq!(with.pieces.len(), 3);
        let hidden = with
            .pieces
            .iter()
            .find(|p| p.id == 2)
            .expect("the hidden piece");
        assert_eq!((hidden.color, hidden.size), (Color::Blue, Size::Small));
        let koan = with
            .koan(hidden.koan.expect("in a koan"))
            .expect("its koan");
        assert!(
            koan.pieces.contains(&0) && koan.pieces.contains(&2),
            "{koan:?}"
        );
        assert_eq!(koan.nests, vec![vec![0, 2]]);
        assert!(koan.touching.contains(&[0, 2]), "{:?}", koan.touching);
        assert!(
            koan.pointing.iter().any(|p| p[0] == 2 && p[1] == 0),
            "{:?}",
            koan.pointing
        );
        // The piece beside them is in a koan of its own, and untouched.
        assert_eq!(with.koans.len(), 2);
    }

    #[test]
    fn only_a_bigger_piece_standing_on_the_table_can_hide_one() {
        let place = Placer::default();
        let scene = table(vec![
            Piece::new(0, Color::Green, Size::Medium, place.upright(0.0, 0.0, 0.0)),
            Piece::new(
                1,
                Color::Red,
                Size::Large,
                place.flat(Size::Large, 80.0, 0.0, 0.0),
            ),
            Piece::new(2, Color::Blue, Size::Small, place.upright(0.0, 80.0, 0.0)),
        ]);
        let engine = Engine::default();
        let hides = |container, size| {
            engine
                .with_hidden_piece(&scene, container, size, Color::Yellow)
                .is_some()
        };
        assert!(hides(0, Size::Small));
        assert!(!hides(0, Size::Medium), "a medium under a medium");
        assert!(!hides(1, Size::Small), "under a large lying flat");
        assert!(!hides(2, Size::Small), "under a small");
        assert!(!hides(9, Size::Small), "under no piece");
        // Under the medium only, a small in each colour.
        let all = engine.hidden_pieces(&scene);
        assert_eq!(all.len(), HIDDEN_COLOURS.len());
        assert!(all.iter().all(|h| h.under == 0 && h.size == Size::Small));
    }
}
