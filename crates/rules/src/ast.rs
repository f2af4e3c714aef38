//! The rule as a tree: what the parser builds, the renderer prints and the evaluator runs.
//!
//! Every term means what `docs/zendo-terms.md` says. A [`Filter`] picks pieces of one koan; a
//! [`Cond`] is true or false of a whole koan; a [`Rule`] turns a condition into a mark.

use koanscope_scene::{Color, Orientation, Size};

/// A secret rule or a guess.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Rule {
    pub polarity: Polarity,
    pub cond: Cond,
}

/// Which koans the condition names: those with the Buddha-nature, or those without it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Polarity {
    /// "A koan has the Buddha-nature if X" (otherwise it does not).
    Has,
    /// "A koan does not have the Buddha-nature if X; otherwise it does."
    HasNot,
}

impl Rule {
    /// The mark a koan gets when the condition is `holds`.
    pub fn white_when(&self, holds: bool) -> bool {
        match self.polarity {
            Polarity::Has => holds,
            Polarity::HasNot => !holds,
        }
    }
}

/// How many. "Exactly" and "at least" are always explicit once a rule is finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Quant {
    Exactly(u32),
    AtLeast(u32),
    AtMost(u32),
    Odd,
    Even,
    /// A bare number ("two upright pieces"): the parser asks which reading is meant and never
    /// hands out a rule that still holds one.
    Indefinite(u32),
}

impl Quant {
    pub fn holds(self, n: u32) -> bool {
        match self {
            Quant::Exactly(k) => n == k,
            Quant::AtLeast(k) => n >= k,
            Quant::AtMost(k) => n <= k,
            Quant::Odd => n % 2 == 1,
            Quant::Even => n % 2 == 0,
            // Never evaluated: rules with an open reading are not handed out.
            Quant::Indefinite(k) => n == k,
        }
    }
}

/// A property a piece may have, alone or relative to the other pieces of its koan.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Filter {
    /// Every piece.
    Any,
    Color(Color),
    Size(Size),
    Orientation(Orientation),
    /// Axis within 10° of straight down (a kind of weird).
    UpsideDown,
    /// Some vertex on the table (false: ungrounded).
    Grounded(bool),
    /// Of the koan's largest size (there is always at least one).
    Largest,
    Smallest,
    /// Highest point at the koan's greatest height (within 0.5 mm).
    Highest,
    Lowest,
    /// In a tower of two or more pieces, all upright (2017 "stacked").
    Stacked,
    /// In a tower of two or more pieces.
    InTower,
    /// The top piece of a tower of two or more.
    TopOfTower,
    /// The bottom piece of a tower of two or more.
    BottomOfTower,
    /// Related to at least one piece (other than itself) that passes the inner filter.
    Rel(Relation, Box<Filter>),
    /// Its pointing ray goes through a piece of the first filter before it meets one of the second.
    PointsThrough(Box<Filter>, Box<Filter>),
    And(Vec<Filter>),
    Or(Vec<Filter>),
    Not(Box<Filter>),
}

/// How one piece relates to another piece of the same koan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Relation {
    Touching,
    /// Its ray meets the other piece (anywhere along it).
    PointingAt,
    /// The other piece is the first its ray meets.
    PointingFirstAt,
    /// The other piece's ray meets it.
    PointedAtBy,
    /// Inserted (partly or fully) into the other piece's cavity.
    InsertedInto,
    FullyInsertedInto,
    /// The other piece is inserted into it.
    Receiving,
    /// Inside the other piece, in a nest (at any depth).
    NestedIn,
    /// The other piece is nested inside it.
    Holding,
    /// Directly on top of the other piece in a tower.
    On,
    /// Directly under the other piece in a tower.
    Under,
    Higher,
    Lower,
    Larger,
    Smaller,
    SameColor,
    SameSize,
    SameDirection,
    OppositeDirection,
    DifferentDirection,
}

/// An attribute that sorts pieces into groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Key {
    Color,
    Size,
    ColorAndSize,
    Orientation,
    Direction,
}

/// One value of an attribute (for pluralities).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AttrValue {
    Color(Color),
    Size(Size),
    Orientation(Orientation),
}

/// Which measure two groups of pieces are compared by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Measure {
    Count,
    Pips,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmpOp {
    More,
    Fewer,
    AsMany,
}

/// The values "each of" runs over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EachOf {
    /// The four Zendo colours.
    FourColors,
    /// Small, medium and large.
    Sizes,
}

/// Something true or false of a whole koan.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Cond {
    And(Vec<Cond>),
    Or(Vec<Cond>),
    Not(Box<Cond>),
    /// One of the two but not both.
    Xor(Box<Cond>, Box<Cond>),
    /// Both or neither.
    Iff(Box<Cond>, Box<Cond>),
    /// The number of pieces that pass the filter.
    Count {
        filter: Filter,
        quant: Quant,
    },
    /// The pip count of the pieces that pass the filter.
    Pips {
        filter: Filter,
        quant: Quant,
    },
    /// How many colours (sizes, orientations) the pieces that pass the filter show.
    Kinds {
        key: Key,
        filter: Filter,
        quant: Quant,
    },
    /// Some group of pieces sharing the key (among those that pass the filter) has a size the
    /// quantity allows: "at least three pieces of the same color".
    Group {
        key: Key,
        filter: Filter,
        quant: Quant,
    },
    /// For every value in `each`, the pieces of that value that pass the filter number `quant`.
    Each {
        each: EachOf,
        filter: Filter,
        quant: Quant,
    },
    Compare {
        measure: Measure,
        op: CmpOp,
        left: Filter,
        right: Filter,
    },
    /// Among the pieces of `domain`, more pass `pred` than fail it.
    Majority {
        domain: Filter,
        pred: Filter,
    },
    /// More pieces have this value than any other single value of the same attribute.
    Plurality(AttrValue),
    /// Every piece of a domain that is never empty (all pieces, the largest, the highest...)
    /// passes `pred`.
    All {
        domain: Filter,
        pred: Filter,
    },
    /// The pieces of a never-empty domain all share the key.
    AllSame {
        domain: Filter,
        key: Key,
    },
    /// Exactly one piece passes `domain`, and it passes `pred`.
    Unique {
        domain: Filter,
        pred: Filter,
    },
    /// The number of towers (every piece is in one; a lone piece is a tower of one) whose
    /// height in pieces passes `size`; `stacks` counts only towers of upright pieces.
    Towers {
        size: Quant,
        quant: Quant,
        stacks: bool,
    },
    /// The number of nests (two or more pieces) whose number of pieces passes `size`.
    Nests {
        size: Quant,
        quant: Quant,
    },
}

impl Filter {
    /// A conjunction, flattened, sorted and without repeats, so that every way of writing the
    /// same list of properties gives the same tree.
    pub fn and(parts: Vec<Filter>) -> Filter {
        let mut flat = Vec::new();
        for p in parts {
            match p {
                Filter::And(inner) => flat.extend(inner),
                Filter::Any => {}
                other => flat.push(other),
            }
        }
        flat.sort();
        flat.dedup();
        match flat.len() {
            0 => Filter::Any,
            1 => flat.pop().unwrap_or(Filter::Any),
            _ => Filter::And(flat),
        }
    }

    /// A disjunction, flattened, sorted and without repeats.
    pub fn or(parts: Vec<Filter>) -> Filter {
        let mut flat = Vec::new();
        for p in parts {
            match p {
                Filter::Or(inner) => flat.extend(inner),
                other => flat.push(other),
            }
        }
        if flat.contains(&Filter::Any) {
            return Filter::Any;
        }
        flat.sort();
        flat.dedup();
        match flat.len() {
            0 => Filter::Any,
            1 => flat.pop().unwrap_or(Filter::Any),
            _ => Filter::Or(flat),
        }
    }

    /// A negation; "not not X" is X.
    #[allow(clippy::should_implement_trait)]
    pub fn not(inner: Filter) -> Filter {
        match inner {
            Filter::Not(x) => *x,
            other => Filter::Not(Box::new(other)),
        }
    }

    pub fn rel(relation: Relation, other: Filter) -> Filter {
        Filter::Rel(relation, Box::new(other))
    }

    /// Never empty in a koan (a koan has at least one piece): the domains "all of its ... are"
    /// may speak of without presuming anything.
    pub fn never_empty(&self) -> bool {
        matches!(
            self,
            Filter::Any | Filter::Largest | Filter::Smallest | Filter::Highest | Filter::Lowest
        )
    }
}

impl Cond {
    /// A conjunction with nested conjunctions flattened (order kept: it is the order of reasons).
    pub fn and(parts: Vec<Cond>) -> Cond {
        let mut flat = Vec::new();
        for p in parts {
            match p {
                Cond::And(inner) => flat.extend(inner),
                other => flat.push(other),
            }
        }
        if flat.len() == 1 {
            return flat.pop().unwrap_or(Cond::And(Vec::new()));
        }
        Cond::And(flat)
    }

    pub fn or(parts: Vec<Cond>) -> Cond {
        let mut flat = Vec::new();
        for p in parts {
            match p {
                Cond::Or(inner) => flat.extend(inner),
                other => flat.push(other),
            }
        }
        if flat.len() == 1 {
            return flat.pop().unwrap_or(Cond::Or(Vec::new()));
        }
        Cond::Or(flat)
    }

    #[allow(clippy::should_implement_trait)]
    pub fn not(inner: Cond) -> Cond {
        Cond::Not(Box::new(inner))
    }

    /// Visits every quantity in the condition, in reading order (to resolve open readings).
    pub fn visit_quants(&mut self, f: &mut impl FnMut(&mut Quant)) {
        match self {
            Cond::And(v) | Cond::Or(v) => v.iter_mut().for_each(|c| c.visit_quants(f)),
            Cond::Not(c) => c.visit_quants(f),
            Cond::Xor(a, b) | Cond::Iff(a, b) => {
                a.visit_quants(f);
                b.visit_quants(f);
            }
            Cond::Count { quant, .. }
            | Cond::Pips { quant, .. }
            | Cond::Kinds { quant, .. }
            | Cond::Group { quant, .. }
            | Cond::Each { quant, .. } => f(quant),
            Cond::Towers { size, quant, .. } | Cond::Nests { size, quant } => {
                f(quant);
                f(size);
            }
            Cond::Compare { .. }
            | Cond::Majority { .. }
            | Cond::Plurality(_)
            | Cond::All { .. }
            | Cond::AllSame { .. }
            | Cond::Unique { .. } => {}
        }
    }
}
