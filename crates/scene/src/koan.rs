//! A koan: a group of pieces that touch nothing outside it, with the relations between them.

use serde::{Deserialize, Serialize};

use crate::piece::{KoanId, Mark, PieceId};

/// One koan and everything the geometry engine says about the pieces in it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Koan {
    pub id: KoanId,
    pub pieces: Vec<PieceId>,
    /// Unordered pairs, smaller id first.
    #[serde(default)]
    pub touching: Vec<[PieceId; 2]>,
    /// `[from, to]`, grouped by `from`, each group in the order the ray meets its targets.
    #[serde(default)]
    pub pointing: Vec<[PieceId; 2]>,
    /// `[inner, outer]`.
    #[serde(default)]
    pub inserted: Vec<[PieceId; 2]>,
    /// `[inner, outer]`, the inner apex within 1.5 mm of the outer cavity's apex.
    #[serde(default)]
    pub fully_inserted: Vec<[PieceId; 2]>,
    /// Towers of two or more pieces, bottom first.
    #[serde(default)]
    pub towers: Vec<Vec<PieceId>>,
    /// Nests, outermost first.
    #[serde(default)]
    pub nests: Vec<Vec<PieceId>>,
    /// Unordered pairs whose axes are within 15° of parallel.
    #[serde(default)]
    pub same_direction: Vec<[PieceId; 2]>,
    /// Unordered pairs whose axes are within 15° of anti-parallel.
    #[serde(default)]
    pub opposite_direction: Vec<[PieceId; 2]>,
    #[serde(default)]
    pub mark: Option<Mark>,
    /// Distances and margins behind the relations, and near misses, for judgment calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relations_detail: Option<RelationsDetail>,
    /// Borderline judgments the Master may want to look at (never shown to students).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub judgment_calls: Vec<JudgmentCall>,
}

impl Koan {
    /// Does the relation list hold the unordered pair?
    pub fn touches(&self, a: PieceId, b: PieceId) -> bool {
        let pair = if a < b { [a, b] } else { [b, a] };
        self.touching.contains(&pair)
    }

    /// Targets of `from`'s pointing ray, nearest first.
    pub fn targets_of(&self, from: PieceId) -> impl Iterator<Item = PieceId> + '_ {
        self.pointing
            .iter()
            .filter(move |p| p[0] == from)
            .map(|p| p[1])
    }

    /// The tower a piece belongs to (a lone piece is a tower of one).
    pub fn tower_of(&self, piece: PieceId) -> Vec<PieceId> {
        self.towers
            .iter()
            .find(|t| t.contains(&piece))
            .cloned()
            .unwrap_or_else(|| vec![piece])
    }
}

/// The measured side of every relation, kept so a near call can be shown to the Master.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RelationsDetail {
    #[serde(default)]
    pub touching: Vec<TouchingDetail>,
    #[serde(default)]
    pub pointing: Vec<PointingDetail>,
    #[serde(default)]
    pub inserted: Vec<InsertedDetail>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TouchingDetail {
    pub a: PieceId,
    pub b: PieceId,
    /// Gap between the physical surfaces.
    pub distance_mm: f64,
    /// 0.8 mm minus the gap: positive when touching.
    #[serde(default)]
    pub margin_mm: f64,
    /// Touching because one sits directly inside the other, whatever the gap.
    #[serde(default)]
    pub by_nesting: bool,
    /// Whether the relation holds (near misses are listed too).
    #[serde(default = "yes")]
    pub holds: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointingDetail {
    pub a: PieceId,
    pub b: PieceId,
    /// Length along the bent ray from the apex to where it enters `b` (-1 for a near miss).
    pub distance_mm: f64,
    /// Position among `a`'s targets, 0 for the first piece pointed at.
    #[serde(default)]
    pub rank: usize,
    /// Depth the ray reaches inside `b`'s solid (positive: a hit), or minus its closest miss.
    #[serde(default)]
    pub margin_mm: f64,
    #[serde(default = "yes")]
    pub holds: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InsertedDetail {
    pub inner: PieceId,
    pub outer: PieceId,
    /// How deep the inner solid reaches into the outer cavity.
    #[serde(default)]
    pub overlap_mm: f64,
    pub fully_inserted: bool,
    pub apex_to_cavity_apex_mm: f64,
    /// The inner piece lies wholly inside the outer's cavity (a nest).
    #[serde(default)]
    pub entirely_inside: bool,
    /// No third piece sits between them.
    #[serde(default)]
    pub direct: bool,
}

/// A judgment near its threshold: the program suggests, the Master decides.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgmentCall {
    /// What was judged, e.g. "touching", "pointing", "orientation", "grounded", "koan grouping".
    pub what: String,
    pub pieces: Vec<PieceId>,
    /// What the program decided.
    pub decided: bool,
    /// Signed margin to the threshold in its unit.
    pub margin: f64,
    pub unit: String,
    /// One line for the Master.
    pub note: String,
}

fn yes() -> bool {
    true
}
