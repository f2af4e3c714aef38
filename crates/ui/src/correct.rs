//! The Master's corrections of what the camera saw. The Master's judgment is final: a
//! correction rewrites the koan's document (a piece's colour, size, orientation or grounding, or
//! one relation) and stays with the koan for as long as the camera sees it unchanged.

use koanscope_scene::{Color, Orientation, PieceId, Scene, Size};

/// One correction to a one-koan document.
#[derive(Debug, Clone, PartialEq)]
pub enum Correction {
    Color {
        piece: PieceId,
        color: Color,
    },
    Size {
        piece: PieceId,
        size: Size,
    },
    Orientation {
        piece: PieceId,
        orientation: Orientation,
    },
    Grounded {
        piece: PieceId,
        grounded: bool,
    },
    /// The two pieces touch (`holds`) or do not.
    Touching {
        a: PieceId,
        b: PieceId,
        holds: bool,
    },
    /// `a` points at `b` (`holds`) or does not.
    Pointing {
        a: PieceId,
        b: PieceId,
        holds: bool,
    },
}

/// Why a correction does not fit the koan.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CorrectionError {
    #[error("the koan has no piece {0}")]
    NoPiece(PieceId),
    #[error("piece {0} has no derived attributes to correct")]
    NoAttributes(PieceId),
    #[error("a piece cannot {0} itself")]
    SamePiece(&'static str),
    #[error("the document holds no koan")]
    NoKoan,
}

impl Correction {
    /// The correction in the Master's words, given what the camera saw.
    pub fn describe(&self, seen: &Scene) -> String {
        let label = |id: PieceId| {
            seen.piece(id)
                .map(|p| format!("piece {id} ({} {})", p.color, p.size))
                .unwrap_or_else(|| format!("piece {id}"))
        };
        match self {
            Correction::Color { piece, color } => {
                let was = seen.piece(*piece).map(|p| p.color.word()).unwrap_or("?");
                format!("piece {piece} is {color}, not {was}")
            }
            Correction::Size { piece, size } => {
                let was = seen.piece(*piece).map(|p| p.size.word()).unwrap_or("?");
                format!("piece {piece} is {size}, not {was}")
            }
            Correction::Orientation { piece, orientation } => {
                format!("{} is {orientation}", label(*piece))
            }
            Correction::Grounded { piece, grounded } => format!(
                "{} is {}",
                label(*piece),
                if *grounded {
                    "grounded"
                } else {
                    "not grounded"
                }
            ),
            Correction::Touching { a, b, holds } => format!(
                "{} and {} {}",
                label(*a),
                label(*b),
                if *holds { "touch" } else { "do not touch" }
            ),
            Correction::Pointing { a, b, holds } => format!(
                "{} {} {}",
                label(*a),
                if *holds {
                    "points at"
                } else {
                    "does not point at"
                },
                label(*b)
            ),
        }
    }

    /// Rewrites the document. A refused correction leaves it as it was.
    pub fn apply(&self, scene: &mut Scene) -> Result<(), CorrectionError> {
        let check_pair = |scene: &Scene, a: PieceId, b: PieceId, what: &'static str| {
            if a == b {
                return Err(CorrectionError::SamePiece(what));
            }
            for id in [a, b] {
                scene.piece(id).ok_or(CorrectionError::NoPiece(id))?;
            }
            if scene.koans.is_empty() {
                return Err(CorrectionError::NoKoan);
            }
            Ok(())
        };
        match *self {
            Correction::Color { piece, color } => set_piece(scene, piece, |p| {
                p.color = color;
                Ok(())
            }),
            Correction::Size { piece, size } => set_piece(scene, piece, |p| {
                p.size = size;
                Ok(())
            }),
            Correction::Orientation { piece, orientation } => set_piece(scene, piece, |p| {
                let a = p
                    .attributes
                    .as_mut()
                    .ok_or(CorrectionError::NoAttributes(piece))?;
                a.orientation = orientation;
                Ok(())
            }),
            Correction::Grounded { piece, grounded } => set_piece(scene, piece, |p| {
                let a = p
                    .attributes
                    .as_mut()
                    .ok_or(CorrectionError::NoAttributes(piece))?;
                a.grounded = grounded;
                Ok(())
            }),
            Correction::Touching { a, b, holds } => {
                check_pair(scene, a, b, "touch")?;
                let koan = &mut scene.koans[0];
                koan.touching
                    .retain(|&[x, y]| !((x == a && y == b) || (x == b && y == a)));
                if holds {
                    koan.touching.push([a.min(b), a.max(b)]);
                }
                Ok(())
            }
            Correction::Pointing { a, b, holds } => {
                check_pair(scene, a, b, "point at")?;
                let koan = &mut scene.koans[0];
                koan.pointing.retain(|&[x, y]| !(x == a && y == b));
                if holds {
                    koan.pointing.push([a, b]);
                }
                Ok(())
            }
        }
    }
}

fn set_piece(
    scene: &mut Scene,
    id: PieceId,
    change: impl FnOnce(&mut koanscope_scene::Piece) -> Result<(), CorrectionError>,
) -> Result<(), CorrectionError> {
    let piece = scene
        .pieces
        .iter_mut()
        .find(|p| p.id == id)
        .ok_or(CorrectionError::NoPiece(id))?;
    change(piece)
}
