//! One Looney Pyramid on the table: what it is (colour, size, shape) and where it is (its pose).

use std::fmt;
use std::str::FromStr;

use nalgebra::{Isometry3, Point3, Vector3};
use serde::{Deserialize, Serialize};

/// A piece's id, unique within one scene.
pub type PieceId = u32;
/// A koan's id, unique within one scene.
pub type KoanId = u32;

macro_rules! word_enum {
    ($(#[$meta:meta])* $name:ident, $what:literal { $($variant:ident => $word:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(rename_all = "lowercase")]
        pub enum $name { $($variant),+ }

        impl $name {
            /// Every value, in the order people list them.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The word used in scene documents and rules.
            pub fn word(self) -> &'static str {
                match self { $($name::$variant => $word),+ }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.word())
            }
        }

        impl FromStr for $name {
            type Err = UnknownWord;
            fn from_str(s: &str) -> Result<Self, UnknownWord> {
                let lower = s.trim().to_ascii_lowercase();
                $name::ALL.iter().copied().find(|v| v.word() == lower).ok_or_else(|| UnknownWord {
                    what: $what,
                    word: s.to_string(),
                    known: $name::ALL.iter().map(|v| v.word()).collect(),
                })
            }
        }
    };
}

/// A word that names no known colour, size, shape, orientation or mark.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} {word:?} (known: {})", known.join(", "))]
pub struct UnknownWord {
    pub what: &'static str,
    pub word: String,
    pub known: Vec<&'static str>,
}

word_enum!(
    /// The stash colours: the standard Zendo four, black, and the colours other stashes add.
    Color, "colour" {
        Red => "red", Yellow => "yellow", Green => "green", Blue => "blue", Black => "black",
        Orange => "orange", Cyan => "cyan", Purple => "purple", White => "white", Clear => "clear",
    }
);

impl Color {
    /// The colours of a standard Zendo set, the ones a game is played with unless told otherwise.
    pub const ZENDO: &'static [Color] = &[Color::Red, Color::Yellow, Color::Green, Color::Blue];
}

word_enum!(
    /// Piece size; the pips on a piece count its size (small 1, medium 2, large 3).
    Size, "size" { Small => "small", Medium => "medium", Large => "large" }
);

impl Size {
    /// Number of pips moulded on a piece of this size.
    pub fn pips(self) -> u8 {
        match self {
            Size::Small => 1,
            Size::Medium => 2,
            Size::Large => 3,
        }
    }

    /// The size with this many pips.
    pub fn from_pips(pips: u8) -> Option<Size> {
        Size::ALL.iter().copied().find(|s| s.pips() == pips)
    }
}

word_enum!(
    /// Piece shape. koanscope is built for pyramids first; the 2017 wedges and blocks can join later.
    Shape, "shape" { Pyramid => "pyramid" }
);

word_enum!(
    /// Exactly one of these holds for every piece (see `zendo-terms.md`).
    Orientation, "orientation" { Upright => "upright", Flat => "flat", Weird => "weird" }
);

word_enum!(
    /// The Master's marking stone on a koan.
    Mark, "mark" { White => "white", Black => "black" }
);

/// What the geometry engine derives for one piece from its pose alone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PieceAttributes {
    pub base_center_mm: Point3<f64>,
    pub apex_mm: Point3<f64>,
    /// Unit vector from base centre to apex, table frame.
    pub axis: Vector3<f64>,
    /// z of the piece's highest vertex.
    pub height_mm: f64,
    pub orientation: Orientation,
    pub grounded: bool,
    /// How far each judgment passed (positive) or failed (negative) its threshold.
    pub margins: PieceMargins,
}

/// Margins of the per-piece judgments, in the threshold's own unit.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct PieceMargins {
    /// Degrees inside the orientation's 10° cone; for weird, degrees short of the nearest cone.
    pub orientation_deg: f64,
    /// Millimetres inside the 0.5 mm grounded band (negative: above it).
    pub grounded_mm: f64,
}

/// One piece: identity, pose, and (once derived) its attributes.
#[derive(Debug, Clone, PartialEq)]
pub struct Piece {
    pub id: PieceId,
    /// The koan the piece belongs to, once grouping has run.
    pub koan: Option<KoanId>,
    pub color: Color,
    pub size: Size,
    pub shape: Shape,
    /// Rigid pose: piece frame (origin at the base centre, +z to the apex) to table frame, mm.
    pub table_from_piece: Isometry3<f64>,
    pub attributes: Option<PieceAttributes>,
    /// Projection of the centroid in the image, pixels (vision only).
    pub image_xy: Option<[f64; 2]>,
    /// Detection confidence in [0, 1] (vision only).
    pub confidence: Option<f64>,
}

impl Piece {
    /// A piece at a pose, with nothing derived yet.
    pub fn new(id: PieceId, color: Color, size: Size, table_from_piece: Isometry3<f64>) -> Piece {
        Piece {
            id,
            koan: None,
            color,
            size,
            shape: Shape::Pyramid,
            table_from_piece,
            attributes: None,
            image_xy: None,
            confidence: None,
        }
    }

    pub fn pips(&self) -> u8 {
        self.size.pips()
    }
}
