//! A koan described by its facts rather than by poses: what the library's example koans, the
//! tests and the counter-example search work with.
//!
//! Written as pieces separated by commas, then relations after a semicolon:
//!
//! ```text
//! red large upright, blue small flat dir=2, green medium weird ungrounded h=60;
//! 1 points 0 2; 0 touches 1; tower 0 2; 0 fully-in 2
//! ```
//!
//! A piece is `colour size orientation` (`down` is weird with the tip straight down), then
//! optionally `ungrounded`, `h=<mm>` (height of its highest point) and `dir=<k>` (flat and weird
//! pieces point along k × 90° on the table; equal `dir` means the same direction). Relations
//! name pieces by their position in the list; `a in b` / `a fully-in b` put a's solid into b's
//! cavity (in a tower the lower piece's tip is inside the upper one; in a nest the inner piece).

use koanscope_scene::{Color, Koan, Orientation, PieceId, Size};

use crate::eval::{EvalError, KoanSummary, PieceFacts};

/// One piece of a sketch.
#[derive(Debug, Clone, PartialEq)]
pub struct SketchPiece {
    pub color: Color,
    pub size: Size,
    pub orientation: Orientation,
    /// Weird with the tip straight down.
    pub down: bool,
    pub grounded: bool,
    pub height_mm: f64,
    /// Quarter turns on the table of a flat or weird piece's axis.
    pub dir: u8,
}

/// A koan as facts: pieces and the relations between them (indices into `pieces`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Sketch {
    pub pieces: Vec<SketchPiece>,
    pub touching: Vec<[usize; 2]>,
    /// (from, targets nearest first).
    pub pointing: Vec<(usize, Vec<usize>)>,
    pub inserted: Vec<[usize; 2]>,
    pub fully_inserted: Vec<[usize; 2]>,
    pub towers: Vec<Vec<usize>>,
    pub nests: Vec<Vec<usize>>,
}

/// A sketch that could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("koan sketch: {0}")]
pub struct SketchError(pub String);

fn err(m: impl Into<String>) -> SketchError {
    SketchError(m.into())
}

/// Height of an upright piece (official specs).
pub fn upright_height(size: Size) -> f64 {
    match size {
        Size::Small => 25.4,
        Size::Medium => 34.9,
        Size::Large => 44.5,
    }
}

/// Height of a piece lying flat on the table: the base edge stands up (base side × cos 16°).
pub fn flat_height(size: Size) -> f64 {
    match size {
        Size::Small => 13.7,
        Size::Medium => 19.0,
        Size::Large => 24.4,
    }
}

impl SketchPiece {
    pub fn new(color: Color, size: Size, orientation: Orientation) -> SketchPiece {
        let height_mm = match orientation {
            Orientation::Upright => upright_height(size),
            Orientation::Flat => flat_height(size),
            Orientation::Weird => (upright_height(size) + flat_height(size)) / 2.0,
        };
        SketchPiece {
            color,
            size,
            orientation,
            down: false,
            grounded: true,
            height_mm,
            dir: 0,
        }
    }

    /// The unit axis this piece's facts imply.
    pub fn axis(&self) -> [f64; 3] {
        if self.down {
            return [0.0, 0.0, -1.0];
        }
        let angle = f64::from(self.dir) * std::f64::consts::FRAC_PI_2;
        let (sin, cos) = angle.sin_cos();
        match self.orientation {
            Orientation::Upright => [0.0, 0.0, 1.0],
            // Lying on a side, the axis dips about 16° below horizontal.
            Orientation::Flat => [0.961 * cos, 0.961 * sin, -0.276],
            Orientation::Weird => [0.707 * cos, 0.707 * sin, 0.707],
        }
    }
}

impl Sketch {
    /// Reads the sketch notation (see the module docs).
    pub fn parse(text: &str) -> Result<Sketch, SketchError> {
        let mut sections = text.split(';');
        let mut sketch = Sketch::default();
        let pieces = sections.next().unwrap_or("");
        for (i, piece) in pieces.split(',').enumerate() {
            sketch.pieces.push(
                parse_piece(piece.trim())
                    .map_err(|e| err(format!("piece {i} ({:?}): {}", piece.trim(), e.0)))?,
            );
        }
        let n = sketch.pieces.len();
        let index = |w: &str| -> Result<usize, SketchError> {
            let i: usize = w
                .parse()
                .map_err(|_| err(format!("{w:?} is not a piece number")))?;
            if i >= n {
                return Err(err(format!("piece {i} does not exist (there are {n})")));
            }
            Ok(i)
        };
        for rel in sections {
            let words: Vec<&str> = rel.split_whitespace().collect();
            match words.as_slice() {
                [] => {}
                ["tower", rest @ ..] => sketch
                    .towers
                    .push(rest.iter().map(|w| index(w)).collect::<Result<_, _>>()?),
                ["nest", rest @ ..] => sketch
                    .nests
                    .push(rest.iter().map(|w| index(w)).collect::<Result<_, _>>()?),
                [a, "touches", b] => sketch.touching.push([index(a)?, index(b)?]),
                [a, "points", rest @ ..] => sketch.pointing.push((
                    index(a)?,
                    rest.iter().map(|w| index(w)).collect::<Result<_, _>>()?,
                )),
                [a, "in", b] => sketch.inserted.push([index(a)?, index(b)?]),
                [a, "fully-in", b] => sketch.fully_inserted.push([index(a)?, index(b)?]),
                _ => return Err(err(format!("relation {:?} is not understood", rel.trim()))),
            }
        }
        Ok(sketch)
    }

    /// The koan and per-piece facts the rule engine reads (piece ids are positions).
    pub fn to_koan(&self) -> (Koan, Vec<PieceFacts>) {
        let id = |i: usize| i as PieceId;
        let mut koan = Koan {
            pieces: (0..self.pieces.len()).map(id).collect(),
            ..Koan::default()
        };
        for [a, b] in &self.touching {
            koan.touching.push([id(*a.min(b)), id(*a.max(b))]);
        }
        for (from, targets) in &self.pointing {
            for t in targets {
                koan.pointing.push([id(*from), id(*t)]);
            }
        }
        for [a, b] in &self.inserted {
            koan.inserted.push([id(*a), id(*b)]);
        }
        for [a, b] in &self.fully_inserted {
            koan.fully_inserted.push([id(*a), id(*b)]);
            koan.inserted.push([id(*a), id(*b)]);
        }
        koan.towers = self
            .towers
            .iter()
            .map(|t| t.iter().map(|i| id(*i)).collect())
            .collect();
        koan.nests = self
            .nests
            .iter()
            .map(|t| t.iter().map(|i| id(*i)).collect())
            .collect();
        let facts = self
            .pieces
            .iter()
            .enumerate()
            .map(|(i, p)| PieceFacts {
                id: id(i),
                color: p.color,
                size: p.size,
                orientation: p.orientation,
                grounded: p.grounded,
                height_mm: p.height_mm,
                axis: p.axis(),
            })
            .collect();
        (koan, facts)
    }

    pub fn summary(&self) -> Result<KoanSummary, EvalError> {
        let (koan, facts) = self.to_koan();
        KoanSummary::from_facts(&koan, &facts)
    }
}

fn parse_piece(text: &str) -> Result<SketchPiece, SketchError> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let [color, size, orientation, rest @ ..] = words.as_slice() else {
        return Err(err("expected colour, size and orientation"));
    };
    let color: Color = color.parse().map_err(|e| err(format!("{e}")))?;
    let size: Size = size.parse().map_err(|e| err(format!("{e}")))?;
    let (orientation, down) = if *orientation == "down" {
        (Orientation::Weird, true)
    } else {
        (
            orientation
                .parse::<Orientation>()
                .map_err(|e| err(format!("{e}")))?,
            false,
        )
    };
    let mut p = SketchPiece::new(color, size, orientation);
    p.down = down;
    let mut height_given = false;
    for w in rest {
        if *w == "ungrounded" {
            p.grounded = false;
        } else if let Some(h) = w.strip_prefix("h=") {
            p.height_mm = h.parse().map_err(|_| err(format!("bad height {h:?}")))?;
            height_given = true;
        } else if let Some(d) = w.strip_prefix("dir=") {
            p.dir = d.parse().map_err(|_| err(format!("bad direction {d:?}")))?;
        } else {
            return Err(err(format!("{w:?} is not understood")));
        }
    }
    if !p.grounded && !height_given {
        // Held up by something: its highest point is above a grounded piece's.
        p.height_mm += 30.0;
    }
    Ok(p)
}
