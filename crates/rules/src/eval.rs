//! Marking koans: a koan is compiled once into bit masks ([`KoanSummary`]), then any number of
//! rules run on it without touching the scene again.

use koanscope_scene::{Color, Koan, KoanId, Mark, Orientation, Piece, PieceId, Scene, Size};

use crate::ast::{AttrValue, CmpOp, Cond, EachOf, Filter, Key, Measure, Quant, Relation, Rule};
use crate::render;

/// At most this many pieces in one koan (one bit each).
pub const MAX_PIECES: usize = 64;

/// Two pieces point the same way when their axes are within 15° (`zendo-terms.md`).
const DIRECTION_COS: f64 = 0.965_925_826_289_068_3; // cos 15°
/// Upside-down: axis within 10° of straight down.
const DOWN_COS: f64 = 0.984_807_753_012_208; // cos 10°
/// Heights closer than this are the same height.
const SAME_HEIGHT_MM: f64 = 0.5;

/// Why a koan cannot be marked.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EvalError {
    #[error(
        "piece {piece} (koan {koan}) has no derived attributes: run the geometry engine on the scene first"
    )]
    MissingAttributes { koan: KoanId, piece: PieceId },
    #[error("koan {koan} names piece {piece}, which is not in the scene")]
    UnknownPiece { koan: KoanId, piece: PieceId },
    #[error("koan {koan} has {count} pieces; at most {MAX_PIECES} can be marked")]
    TooManyPieces { koan: KoanId, count: usize },
    #[error("koan {koan} has no pieces")]
    EmptyKoan { koan: KoanId },
    #[error(
        "the scene has pieces but no koans: run the geometry engine to group pieces into koans"
    )]
    NoKoans,
}

const REL_COUNT: usize = 20;

fn rel_index(r: Relation) -> usize {
    match r {
        Relation::Touching => 0,
        Relation::PointingAt => 1,
        Relation::PointingFirstAt => 2,
        Relation::PointedAtBy => 3,
        Relation::InsertedInto => 4,
        Relation::FullyInsertedInto => 5,
        Relation::Receiving => 6,
        Relation::NestedIn => 7,
        Relation::Holding => 8,
        Relation::On => 9,
        Relation::Under => 10,
        Relation::Higher => 11,
        Relation::Lower => 12,
        Relation::Larger => 13,
        Relation::Smaller => 14,
        Relation::SameColor => 15,
        Relation::SameSize => 16,
        Relation::SameDirection => 17,
        Relation::OppositeDirection => 18,
        Relation::DifferentDirection => 19,
    }
}

fn color_index(c: Color) -> usize {
    Color::ALL.iter().position(|x| *x == c).unwrap_or(0)
}

fn size_index(s: Size) -> usize {
    match s {
        Size::Small => 0,
        Size::Medium => 1,
        Size::Large => 2,
    }
}

fn orientation_index(o: Orientation) -> usize {
    match o {
        Orientation::Upright => 0,
        Orientation::Flat => 1,
        Orientation::Weird => 2,
    }
}

/// One piece as the rule engine sees it: what a summary is built from.
#[derive(Debug, Clone, PartialEq)]
pub struct PieceFacts {
    pub id: PieceId,
    pub color: Color,
    pub size: Size,
    pub orientation: Orientation,
    pub grounded: bool,
    pub height_mm: f64,
    /// Unit axis, base centre to apex, table frame.
    pub axis: [f64; 3],
}

/// Everything a rule can ask about one koan, as bit masks over its pieces (bit i = i-th piece).
#[derive(Debug, Clone)]
pub struct KoanSummary {
    pub koan: KoanId,
    ids: Vec<PieceId>,
    all: u64,
    color: [u64; 10],
    size: [u64; 3],
    orientation: [u64; 3],
    upside_down: u64,
    grounded: u64,
    largest: u64,
    smallest: u64,
    highest: u64,
    lowest: u64,
    stacked: u64,
    in_tower: u64,
    top: u64,
    bottom: u64,
    /// rel[i][r]: the pieces piece i has relation r to.
    rel: Vec<[u64; REL_COUNT]>,
    /// Pointing targets of each piece, nearest first.
    targets: Vec<Vec<u8>>,
    /// Every tower, single pieces included.
    towers: Vec<u64>,
    nests: Vec<u64>,
}

fn bits(mask: u64) -> impl Iterator<Item = usize> {
    let mut m = mask;
    std::iter::from_fn(move || {
        if m == 0 {
            return None;
        }
        let i = m.trailing_zeros() as usize;
        m &= m - 1;
        Some(i)
    })
}

/// How many pieces have value `me`, and how many have each other value.
fn mine_and_others(masks: &[u64], me: usize) -> (u32, Vec<u32>) {
    let others = (0..masks.len())
        .filter(|i| *i != me)
        .map(|i| count(masks[i]))
        .collect();
    (count(masks[me]), others)
}

fn count(mask: u64) -> u32 {
    mask.count_ones()
}

impl KoanSummary {
    /// Compiles koan `koan` of `scene`, which must carry derived attributes and relations.
    pub fn from_scene(scene: &Scene, koan: &Koan) -> Result<KoanSummary, EvalError> {
        let mut facts = Vec::with_capacity(koan.pieces.len());
        for id in &koan.pieces {
            let piece: &Piece = scene.piece(*id).ok_or(EvalError::UnknownPiece {
                koan: koan.id,
                piece: *id,
            })?;
            let a = piece
                .attributes
                .as_ref()
                .ok_or(EvalError::MissingAttributes {
                    koan: koan.id,
                    piece: *id,
                })?;
            facts.push(PieceFacts {
                id: *id,
                color: piece.color,
                size: piece.size,
                orientation: a.orientation,
                grounded: a.grounded,
                height_mm: a.height_mm,
                axis: [a.axis.x, a.axis.y, a.axis.z],
            });
        }
        KoanSummary::from_facts(koan, &facts)
    }

    /// Compiles a koan from per-piece facts and the koan's relation lists.
    pub fn from_facts(koan: &Koan, facts: &[PieceFacts]) -> Result<KoanSummary, EvalError> {
        let n = facts.len();
        if n == 0 {
            return Err(EvalError::EmptyKoan { koan: koan.id });
        }
        if n > MAX_PIECES {
            return Err(EvalError::TooManyPieces {
                koan: koan.id,
                count: n,
            });
        }
        let ids: Vec<PieceId> = facts.iter().map(|f| f.id).collect();
        let index = |id: PieceId| ids.iter().position(|x| *x == id);
        let all = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        let mut s = KoanSummary {
            koan: koan.id,
            ids: ids.clone(),
            all,
            color: [0; 10],
            size: [0; 3],
            orientation: [0; 3],
            upside_down: 0,
            grounded: 0,
            largest: 0,
            smallest: 0,
            highest: 0,
            lowest: 0,
            stacked: 0,
            in_tower: 0,
            top: 0,
            bottom: 0,
            rel: vec![[0; REL_COUNT]; n],
            targets: vec![Vec::new(); n],
            towers: Vec::new(),
            nests: Vec::new(),
        };
        let max_size = facts.iter().map(|f| f.size).max().unwrap_or(Size::Small);
        let min_size = facts.iter().map(|f| f.size).min().unwrap_or(Size::Small);
        let max_h = facts
            .iter()
            .map(|f| f.height_mm)
            .fold(f64::NEG_INFINITY, f64::max);
        let min_h = facts
            .iter()
            .map(|f| f.height_mm)
            .fold(f64::INFINITY, f64::min);
        for (i, f) in facts.iter().enumerate() {
            let b = 1u64 << i;
            s.color[color_index(f.color)] |= b;
            s.size[size_index(f.size)] |= b;
            s.orientation[orientation_index(f.orientation)] |= b;
            if f.axis[2] <= -DOWN_COS {
                s.upside_down |= b;
            }
            if f.grounded {
                s.grounded |= b;
            }
            if f.size == max_size {
                s.largest |= b;
            }
            if f.size == min_size {
                s.smallest |= b;
            }
            if f.height_mm >= max_h - SAME_HEIGHT_MM {
                s.highest |= b;
            }
            if f.height_mm <= min_h + SAME_HEIGHT_MM {
                s.lowest |= b;
            }
        }
        let set = |s: &mut KoanSummary, i: usize, r: Relation, j: usize| {
            if i != j {
                s.rel[i][rel_index(r)] |= 1u64 << j;
            }
        };
        for (i, fi) in facts.iter().enumerate() {
            for (j, fj) in facts.iter().enumerate() {
                if i == j {
                    continue;
                }
                if fi.height_mm > fj.height_mm + SAME_HEIGHT_MM {
                    set(&mut s, i, Relation::Higher, j);
                    set(&mut s, j, Relation::Lower, i);
                }
                if fi.size > fj.size {
                    set(&mut s, i, Relation::Larger, j);
                    set(&mut s, j, Relation::Smaller, i);
                }
                if fi.color == fj.color {
                    set(&mut s, i, Relation::SameColor, j);
                }
                if fi.size == fj.size {
                    set(&mut s, i, Relation::SameSize, j);
                }
                let dot: f64 = (0..3).map(|k| fi.axis[k] * fj.axis[k]).sum();
                if dot >= DIRECTION_COS {
                    set(&mut s, i, Relation::SameDirection, j);
                } else {
                    set(&mut s, i, Relation::DifferentDirection, j);
                    if dot <= -DIRECTION_COS {
                        set(&mut s, i, Relation::OppositeDirection, j);
                    }
                }
            }
        }
        // The document's direction pairs (the geometry engine's, or the Master's corrections)
        // replace the ones computed from the axes above, when it lists any.
        if !koan.same_direction.is_empty() || !koan.opposite_direction.is_empty() {
            let (same, opposite, different) = (
                rel_index(Relation::SameDirection),
                rel_index(Relation::OppositeDirection),
                rel_index(Relation::DifferentDirection),
            );
            for r in s.rel.iter_mut() {
                r[same] = 0;
                r[opposite] = 0;
            }
            for [a, b] in &koan.same_direction {
                if let (Some(i), Some(j)) = (index(*a), index(*b)) {
                    set(&mut s, i, Relation::SameDirection, j);
                    set(&mut s, j, Relation::SameDirection, i);
                }
            }
            for [a, b] in &koan.opposite_direction {
                if let (Some(i), Some(j)) = (index(*a), index(*b)) {
                    set(&mut s, i, Relation::OppositeDirection, j);
                    set(&mut s, j, Relation::OppositeDirection, i);
                }
            }
            for i in 0..n {
                s.rel[i][different] = all & !(1 << i) & !s.rel[i][same];
            }
        }
        for [a, b] in &koan.touching {
            if let (Some(i), Some(j)) = (index(*a), index(*b)) {
                set(&mut s, i, Relation::Touching, j);
                set(&mut s, j, Relation::Touching, i);
            }
        }
        for [from, to] in &koan.pointing {
            if let (Some(i), Some(j)) = (index(*from), index(*to))
                && i != j
            {
                if s.targets[i].is_empty() {
                    set(&mut s, i, Relation::PointingFirstAt, j);
                }
                s.targets[i].push(j as u8);
                set(&mut s, i, Relation::PointingAt, j);
                set(&mut s, j, Relation::PointedAtBy, i);
            }
        }
        for [inner, outer] in &koan.inserted {
            if let (Some(i), Some(j)) = (index(*inner), index(*outer)) {
                set(&mut s, i, Relation::InsertedInto, j);
                set(&mut s, j, Relation::Receiving, i);
            }
        }
        for [inner, outer] in &koan.fully_inserted {
            if let (Some(i), Some(j)) = (index(*inner), index(*outer)) {
                set(&mut s, i, Relation::FullyInsertedInto, j);
                // Fully inserted is inserted too, whatever the document lists.
                set(&mut s, i, Relation::InsertedInto, j);
                set(&mut s, j, Relation::Receiving, i);
            }
        }
        let mut towered = 0u64;
        for tower in &koan.towers {
            let idx: Vec<usize> = tower.iter().filter_map(|id| index(*id)).collect();
            if idx.len() < 2 {
                continue;
            }
            let mut mask = 0u64;
            for w in idx.windows(2) {
                set(&mut s, w[1], Relation::On, w[0]);
                set(&mut s, w[0], Relation::Under, w[1]);
            }
            for &i in &idx {
                mask |= 1 << i;
            }
            towered |= mask;
            s.in_tower |= mask;
            s.top |= 1 << idx[idx.len() - 1];
            s.bottom |= 1 << idx[0];
            if mask & !s.orientation[0] == 0 {
                s.stacked |= mask;
            }
            s.towers.push(mask);
        }
        for i in bits(all & !towered) {
            s.towers.push(1 << i);
        }
        for nest in &koan.nests {
            let idx: Vec<usize> = nest.iter().filter_map(|id| index(*id)).collect();
            if idx.len() < 2 {
                continue;
            }
            let mut mask = 0u64;
            for (a, &outer) in idx.iter().enumerate() {
                mask |= 1 << outer;
                for &inner in &idx[a + 1..] {
                    set(&mut s, inner, Relation::NestedIn, outer);
                    set(&mut s, outer, Relation::Holding, inner);
                }
            }
            s.nests.push(mask);
        }
        Ok(s)
    }

    /// A coarse description for comparing koans: piece count, pieces per colour, size and
    /// orientation, grounded pieces, then touching pairs, pointing pairs, towers and nests.
    pub fn features(&self) -> Vec<u32> {
        let mut f = vec![self.ids.len() as u32];
        f.extend(self.color.iter().map(|m| count(*m)));
        f.extend(self.size.iter().map(|m| count(*m)));
        f.extend(self.orientation.iter().map(|m| count(*m)));
        f.push(count(self.grounded));
        let touching: u32 = self.rel.iter().map(|r| count(r[0])).sum::<u32>() / 2;
        let pointing: u32 = self.rel.iter().map(|r| count(r[1])).sum();
        f.push(touching);
        f.push(pointing);
        f.push(self.towers.iter().filter(|m| count(**m) >= 2).count() as u32);
        f.push(self.nests.len() as u32);
        f
    }

    /// Repaints the pieces (in koan order) without recompiling anything else: the colour masks
    /// and "the same color as" are all that depend on colour.
    pub(crate) fn recolor(&mut self, colors: &[Color]) {
        self.color = [0; 10];
        for (i, c) in colors.iter().enumerate().take(self.ids.len()) {
            self.color[color_index(*c)] |= 1 << i;
        }
        let same = rel_index(Relation::SameColor);
        for (i, c) in colors.iter().enumerate().take(self.ids.len()) {
            self.rel[i][same] = self.color[color_index(*c)] & !(1 << i);
        }
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The pieces (ids) a filter picks.
    pub fn pieces(&self, f: &Filter) -> Vec<PieceId> {
        bits(self.mask(f)).map(|i| self.ids[i]).collect()
    }

    /// The pieces a filter picks, as a mask.
    pub fn mask(&self, f: &Filter) -> u64 {
        match f {
            Filter::Any => self.all,
            Filter::Color(c) => self.color[color_index(*c)],
            Filter::Size(sz) => self.size[size_index(*sz)],
            Filter::Orientation(o) => self.orientation[orientation_index(*o)],
            Filter::UpsideDown => self.upside_down,
            Filter::Grounded(true) => self.grounded,
            Filter::Grounded(false) => self.all & !self.grounded,
            Filter::Largest => self.largest,
            Filter::Smallest => self.smallest,
            Filter::Highest => self.highest,
            Filter::Lowest => self.lowest,
            Filter::Stacked => self.stacked,
            Filter::InTower => self.in_tower,
            Filter::TopOfTower => self.top,
            Filter::BottomOfTower => self.bottom,
            Filter::Rel(r, inner) => {
                let other = self.mask(inner);
                let r = rel_index(*r);
                let mut out = 0;
                for (i, rels) in self.rel.iter().enumerate() {
                    if rels[r] & other != 0 {
                        out |= 1 << i;
                    }
                }
                out
            }
            Filter::PointsThrough(via, target) => {
                let (via, target) = (self.mask(via), self.mask(target));
                let mut out = 0;
                for (i, ts) in self.targets.iter().enumerate() {
                    let mut passed = false;
                    for &t in ts {
                        let b = 1u64 << t;
                        if passed && target & b != 0 {
                            out |= 1 << i;
                            break;
                        }
                        if via & b != 0 {
                            passed = true;
                        }
                    }
                }
                out
            }
            Filter::And(v) => v.iter().fold(self.all, |m, f| m & self.mask(f)),
            Filter::Or(v) => v.iter().fold(0, |m, f| m | self.mask(f)),
            Filter::Not(inner) => self.all & !self.mask(inner),
        }
    }

    fn pips(&self, m: u64) -> u32 {
        count(m & self.size[0]) + 2 * count(m & self.size[1]) + 3 * count(m & self.size[2])
    }

    /// Sizes of the groups of pieces in `m` sharing the key (present values only).
    fn groups(&self, key: Key, m: u64) -> Vec<u32> {
        match key {
            Key::Color => self
                .color
                .iter()
                .map(|c| count(c & m))
                .filter(|n| *n > 0)
                .collect(),
            Key::Size => self
                .size
                .iter()
                .map(|c| count(c & m))
                .filter(|n| *n > 0)
                .collect(),
            Key::Orientation => self
                .orientation
                .iter()
                .map(|c| count(c & m))
                .filter(|n| *n > 0)
                .collect(),
            Key::ColorAndSize => {
                let mut out = Vec::new();
                for c in &self.color {
                    for sz in &self.size {
                        let n = count(c & sz & m);
                        if n > 0 {
                            out.push(n);
                        }
                    }
                }
                out
            }
            Key::Direction => {
                // Around each piece, the pieces pointing its way (within 15° of its axis).
                let same = rel_index(Relation::SameDirection);
                bits(m)
                    .map(|i| count((self.rel[i][same] | 1 << i) & m))
                    .collect()
            }
        }
    }

    fn kinds(&self, key: Key, m: u64) -> u32 {
        match key {
            Key::Direction => {
                // Greedy classes of pieces pointing the same way.
                let same = rel_index(Relation::SameDirection);
                let mut left = m;
                let mut classes = 0;
                while left != 0 {
                    let i = left.trailing_zeros() as usize;
                    left &= !(self.rel[i][same] | 1 << i);
                    classes += 1;
                }
                classes
            }
            k => self.groups(k, m).len() as u32,
        }
    }

    fn attr_counts(&self, v: AttrValue) -> (u32, Vec<u32>) {
        match v {
            AttrValue::Color(c) => mine_and_others(&self.color, color_index(c)),
            AttrValue::Size(sz) => mine_and_others(&self.size, size_index(sz)),
            AttrValue::Orientation(o) => mine_and_others(&self.orientation, orientation_index(o)),
        }
    }

    fn each_masks(&self, each: EachOf) -> Vec<(String, u64)> {
        match each {
            EachOf::FourColors => Color::ZENDO
                .iter()
                .map(|c| (c.word().to_string(), self.color[color_index(*c)]))
                .collect(),
            EachOf::Sizes => Size::ALL
                .iter()
                .map(|s| (s.word().to_string(), self.size[size_index(*s)]))
                .collect(),
        }
    }

    fn measure(&self, measure: Measure, m: u64) -> u32 {
        match measure {
            Measure::Count => count(m),
            Measure::Pips => self.pips(m),
        }
    }

    /// Whether the condition holds for this koan.
    pub fn holds(&self, c: &Cond) -> bool {
        match c {
            Cond::And(v) => v.iter().all(|c| self.holds(c)),
            Cond::Or(v) => v.iter().any(|c| self.holds(c)),
            Cond::Not(c) => !self.holds(c),
            Cond::Xor(a, b) => self.holds(a) != self.holds(b),
            Cond::Iff(a, b) => self.holds(a) == self.holds(b),
            Cond::Count { filter, quant } => quant.holds(count(self.mask(filter))),
            Cond::Pips { filter, quant } => quant.holds(self.pips(self.mask(filter))),
            Cond::Kinds { key, filter, quant } => quant.holds(self.kinds(*key, self.mask(filter))),
            Cond::Group { key, filter, quant } => self
                .groups(*key, self.mask(filter))
                .into_iter()
                .any(|n| quant.holds(n)),
            Cond::Each {
                each,
                filter,
                quant,
            } => {
                let m = self.mask(filter);
                self.each_masks(*each)
                    .iter()
                    .all(|(_, v)| quant.holds(count(v & m)))
            }
            Cond::Compare {
                measure,
                op,
                left,
                right,
            } => {
                let l = self.measure(*measure, self.mask(left));
                let r = self.measure(*measure, self.mask(right));
                match op {
                    CmpOp::More => l > r,
                    CmpOp::Fewer => l < r,
                    CmpOp::AsMany => l == r,
                }
            }
            Cond::Majority { domain, pred } => {
                let d = self.mask(domain);
                let p = self.mask(pred) & d;
                count(p) > count(d & !p)
            }
            Cond::Plurality(v) => {
                let (me, others) = self.attr_counts(*v);
                others.iter().all(|o| me > *o)
            }
            Cond::All { domain, pred } => {
                let d = self.mask(domain);
                d & !self.mask(pred) == 0
            }
            Cond::AllSame { domain, key } => self.kinds(*key, self.mask(domain)) <= 1,
            Cond::Unique { domain, pred } => {
                let d = self.mask(domain);
                count(d) == 1 && d & self.mask(pred) != 0
            }
            Cond::Towers {
                size,
                quant,
                stacks,
            } => quant.holds(self.matching_towers(*size, *stacks)),
            Cond::Nests { size, quant } => {
                quant.holds(self.nests.iter().filter(|m| size.holds(count(**m))).count() as u32)
            }
        }
    }

    fn matching_towers(&self, size: Quant, stacks: bool) -> u32 {
        self.towers
            .iter()
            .filter(|m| {
                size.holds(count(**m))
                    && (!stacks || (count(**m) >= 2 && **m & !self.orientation[0] == 0))
            })
            .count() as u32
    }

    /// Whether the rule marks this koan white (has the Buddha-nature).
    pub fn white(&self, rule: &Rule) -> bool {
        rule.white_when(self.holds(&rule.cond))
    }

    /// The mark and the facts it rests on, in words.
    pub fn explain(&self, rule: &Rule) -> (Mark, String) {
        let holds = self.holds(&rule.cond);
        let mark = if rule.white_when(holds) {
            Mark::White
        } else {
            Mark::Black
        };
        (mark, self.reason(&rule.cond))
    }

    fn reason(&self, c: &Cond) -> String {
        match c {
            Cond::And(v) => {
                if let Some(failing) = v.iter().find(|c| !self.holds(c)) {
                    self.reason(failing)
                } else {
                    v.iter()
                        .map(|c| self.reason(c))
                        .collect::<Vec<_>>()
                        .join("; ")
                }
            }
            Cond::Or(v) => {
                if let Some(passing) = v.iter().find(|c| self.holds(c)) {
                    self.reason(passing)
                } else {
                    v.iter()
                        .map(|c| self.reason(c))
                        .collect::<Vec<_>>()
                        .join("; ")
                }
            }
            Cond::Not(c) => self.reason(c),
            Cond::Xor(a, b) | Cond::Iff(a, b) => {
                format!("{}; {}", self.reason(a), self.reason(b))
            }
            Cond::Count { filter, .. } => self.contains(count(self.mask(filter)), filter),
            Cond::Pips { filter, .. } => {
                let n = self.pips(self.mask(filter));
                if *filter == Filter::Any {
                    format!("its pip count is {n}")
                } else {
                    format!("the pip count of its {} is {n}", render::plural_np(filter))
                }
            }
            Cond::Kinds { key, filter, .. } => {
                let n = self.kinds(*key, self.mask(filter));
                let noun = key_noun(*key, n != 1);
                if *filter == Filter::Any {
                    format!("it shows {n} {noun}")
                } else {
                    format!("its {} show {n} {noun}", render::plural_np(filter))
                }
            }
            Cond::Group { key, filter, .. } => {
                let biggest = self
                    .groups(*key, self.mask(filter))
                    .into_iter()
                    .max()
                    .unwrap_or(0);
                let what = if *key == Key::Direction {
                    "pointing the same way".to_string()
                } else {
                    format!("of the same {}", key_noun(*key, false))
                };
                format!(
                    "its largest group of {} {what} has {biggest}",
                    render::plural_np(filter)
                )
            }
            Cond::Each { each, filter, .. } => {
                let m = self.mask(filter);
                let per: Vec<String> = self
                    .each_masks(*each)
                    .iter()
                    .map(|(name, v)| format!("{name} {}", count(v & m)))
                    .collect();
                format!(
                    "{} per value: {}",
                    render::plural_np(filter),
                    per.join(", ")
                )
            }
            Cond::Compare {
                measure,
                left,
                right,
                ..
            } => {
                let (l, r) = (self.mask(left), self.mask(right));
                match measure {
                    Measure::Count => format!(
                        "{} and {}",
                        self.contains(count(l), left),
                        self.contains(count(r), right).replacen("contains ", "", 1)
                    ),
                    Measure::Pips => format!(
                        "its {} have {} pips, its {} {}",
                        render::plural_np(left),
                        self.pips(l),
                        render::plural_np(right),
                        self.pips(r)
                    ),
                }
            }
            Cond::Majority { domain, pred } => {
                let d = self.mask(domain);
                let p = self.mask(pred) & d;
                format!(
                    "{} of its {} {} are {}",
                    count(p),
                    count(d),
                    render::plural_np(domain),
                    render::pred_text(pred)
                )
            }
            Cond::Plurality(v) => {
                let (me, others) = self.attr_counts(*v);
                let most_other = others.into_iter().max().unwrap_or(0);
                let name = match v {
                    AttrValue::Color(c) => c.word(),
                    AttrValue::Size(s) => s.word(),
                    AttrValue::Orientation(o) => o.word(),
                };
                format!("{me} {name}, at most {most_other} of any other")
            }
            Cond::All { domain, pred } => {
                let d = self.mask(domain);
                let failing = count(d & !self.mask(pred));
                if failing == 0 {
                    format!(
                        "all of its {} are {}",
                        render::domain_np(domain),
                        render::pred_text(pred)
                    )
                } else {
                    format!(
                        "{failing} of its {} {} not {}",
                        render::domain_np(domain),
                        if failing == 1 { "is" } else { "are" },
                        render::pred_text(pred)
                    )
                }
            }
            Cond::AllSame { domain, key } => {
                let n = self.kinds(*key, self.mask(domain));
                format!(
                    "its {} show {n} {}",
                    render::domain_np(domain),
                    key_noun(*key, n != 1)
                )
            }
            Cond::Unique { domain, pred } => {
                let d = self.mask(domain);
                if count(d) != 1 {
                    self.contains(count(d), domain)
                } else if d & self.mask(pred) != 0 {
                    format!(
                        "its one {} is {}",
                        render::np(domain, false),
                        render::pred_text(pred)
                    )
                } else {
                    format!(
                        "its one {} is not {}",
                        render::np(domain, false),
                        render::pred_text(pred)
                    )
                }
            }
            Cond::Towers { size, stacks, .. } => {
                let n = self.matching_towers(*size, *stacks);
                let noun = if *stacks { "stack" } else { "tower" };
                format!(
                    "contains {} {noun}{} of {} pieces",
                    if n == 0 {
                        "no".to_string()
                    } else {
                        n.to_string()
                    },
                    if n == 1 { "" } else { "s" },
                    render::quant_words(*size)
                )
            }
            Cond::Nests { size, .. } => {
                let n = self.nests.iter().filter(|m| size.holds(count(**m))).count();
                format!(
                    "contains {} nest{} of {} pieces",
                    if n == 0 {
                        "no".to_string()
                    } else {
                        n.to_string()
                    },
                    if n == 1 { "" } else { "s" },
                    render::quant_words(*size)
                )
            }
        }
    }

    fn contains(&self, n: u32, f: &Filter) -> String {
        if n == 0 {
            format!("contains no {}", render::np(f, true))
        } else {
            format!("contains {n} {}", render::np(f, n != 1))
        }
    }
}

fn key_noun(key: Key, plural: bool) -> &'static str {
    match (key, plural) {
        (Key::Color, false) => "color",
        (Key::Color, true) => "colors",
        (Key::Size, false) => "size",
        (Key::Size, true) => "sizes",
        (Key::ColorAndSize, false) => "color and size",
        (Key::ColorAndSize, true) => "colors and sizes",
        (Key::Orientation, false) => "orientation",
        (Key::Orientation, true) => "orientations",
        (Key::Direction, false) => "direction",
        (Key::Direction, true) => "directions",
    }
}

/// The mark of one koan and why.
#[derive(Debug, Clone, PartialEq)]
pub struct KoanMark {
    pub koan: KoanId,
    pub mark: Mark,
    pub reason: String,
}

/// Marks every koan of a scene that carries derived attributes and relations.
pub fn mark_scene(rule: &Rule, scene: &Scene) -> Result<Vec<KoanMark>, EvalError> {
    if scene.koans.is_empty() && !scene.pieces.is_empty() {
        return Err(EvalError::NoKoans);
    }
    scene
        .koans
        .iter()
        .map(|k| {
            let s = KoanSummary::from_scene(scene, k)?;
            let (mark, reason) = s.explain(rule);
            Ok(KoanMark {
                koan: k.id,
                mark,
                reason,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::library::Library;
    use crate::sketch::Sketch;

    #[test]
    fn repainting_a_summary_equals_compiling_the_repainted_koan() {
        let lib = Library::builtin().unwrap();
        let shape = "red large upright, red small upright ungrounded, red medium flat, red small upright; tower 0 1; 0 fully-in 1; 2 touches 3";
        let colours = [Color::Blue, Color::Blue, Color::Green, Color::Red];
        let mut repainted = Sketch::parse(shape).unwrap().summary().unwrap();
        repainted.recolor(&colours);
        let fresh = Sketch::parse(
            "blue large upright, blue small upright ungrounded, green medium flat, red small upright; tower 0 1; 0 fully-in 1; 2 touches 3",
        )
        .unwrap()
        .summary()
        .unwrap();
        for r in &lib.rules {
            assert_eq!(repainted.white(&r.rule), fresh.white(&r.rule), "{}", r.name);
        }
    }
}
