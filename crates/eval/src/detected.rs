//! Agreement between a scene *found* in an image and the truth, when the pieces are not the same:
//! the caller pairs found pieces with true ones (by image position), and relations, towers, koan
//! grouping and marks are compared through that pairing.
//!
//! True pieces hidden from the camera (a nested piece inside another) cannot be paired: relations
//! that involve them are left out of the F1 figures (as they are left out of recall), but marks
//! are compared on whole koans, hidden pieces included, because that is what the Master gives.

use std::collections::{BTreeMap, BTreeSet};

use koanscope_scene::{Koan, KoanId, Mark, PieceId, Scene};
use serde::Serialize;

/// True positives, false positives and false negatives of one kind of relation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct F1 {
    pub true_positive: usize,
    pub false_positive: usize,
    pub false_negative: usize,
}

impl F1 {
    pub fn merge(&mut self, other: F1) {
        self.true_positive += other.true_positive;
        self.false_positive += other.false_positive;
        self.false_negative += other.false_negative;
    }

    /// Harmonic mean of precision and recall; 1 when there was nothing to find and nothing
    /// was found.
    pub fn f1(&self) -> f64 {
        let denominator = 2 * self.true_positive + self.false_positive + self.false_negative;
        if denominator == 0 {
            1.0
        } else {
            2.0 * self.true_positive as f64 / denominator as f64
        }
    }

    /// Counts a found set against a true set.
    fn count<T: Ord>(found: &BTreeSet<T>, truth: &BTreeSet<T>) -> F1 {
        let true_positive = found.intersection(truth).count();
        F1 {
            true_positive,
            false_positive: found.len() - true_positive,
            false_negative: truth.len() - true_positive,
        }
    }
}

/// Cases compared and cases agreed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Count {
    pub agree: usize,
    pub total: usize,
}

impl Count {
    pub fn add(&mut self, agree: bool) {
        self.total += 1;
        self.agree += usize::from(agree);
    }

    pub fn merge(&mut self, other: Count) {
        self.agree += other.agree;
        self.total += other.total;
    }

    /// Share that agree; 1 when there was nothing to compare.
    pub fn rate(&self) -> f64 {
        if self.total == 0 {
            1.0
        } else {
            self.agree as f64 / self.total as f64
        }
    }
}

/// Relations, towers and koans of a found scene against the truth.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RelationScore {
    /// Unordered touching pairs.
    pub touching: F1,
    /// Ordered pointing pairs (from, to).
    pub pointing: F1,
    /// Towers of two or more pieces, bottom to top, all pieces right.
    pub towers: F1,
    /// True koans (with a visible piece) found as exactly one koan holding exactly their visible
    /// pieces and nothing else.
    pub grouping: Count,
    /// Per touching or pointing pair found wrongly (missed or false): whether the found scene
    /// carries a judgment call naming one of its found pieces (koan grouping aside), so the
    /// console would have told the Master to look.
    pub warned: Count,
    /// Per touching or pointing pair found wrongly: whether the truth itself holds or misses it
    /// within a judgment call's window (the engine's calls on the true poses name it): a pair
    /// so near its threshold is a toss-up for any camera, and the Master's to decide.
    pub near_in_truth: Count,
}

impl RelationScore {
    pub fn merge(&mut self, other: &RelationScore) {
        self.touching.merge(other.touching);
        self.pointing.merge(other.pointing);
        self.towers.merge(other.towers);
        self.grouping.merge(other.grouping);
        self.warned.merge(other.warned);
        self.near_in_truth.merge(other.near_in_truth);
    }
}

/// A pairing of found pieces with true ones: `(found id, true id)`, each id at most once.
pub type Pairs = [(PieceId, PieceId)];

fn to_truth(pairs: &Pairs) -> BTreeMap<PieceId, PieceId> {
    pairs.iter().copied().collect()
}

/// The found pieces a judgment call names (one of koan grouping aside): the console tells the
/// Master to look at them.
pub fn told_to_look_at(found: &Scene) -> BTreeSet<PieceId> {
    found
        .judgment_calls()
        .filter(|c| c.what != "koan grouping")
        .flat_map(|c| c.pieces.iter().copied())
        .collect()
}

/// The pairs a scene's judgment calls on `what` ("touching" or "pointing") name, by piece id:
/// ordered as named for pointing, lower id first for touching.
pub fn near_calls(scene: &Scene, what: &str) -> BTreeSet<(PieceId, PieceId)> {
    scene
        .judgment_calls()
        .filter(|c| c.what == what)
        .filter_map(|c| match *c.pieces.as_slice() {
            [a, b] if what == "touching" => Some((a.min(b), a.max(b))),
            [a, b] => Some((a, b)),
            _ => None,
        })
        .collect()
}

/// Compares the relations, towers and koan grouping of `found` with `truth` (both derived by
/// the geometry engine), through `pairs`. `hidden` lists true pieces the camera cannot see.
pub fn compare_found(
    truth: &Scene,
    found: &Scene,
    pairs: &Pairs,
    hidden: &BTreeSet<PieceId>,
) -> RelationScore {
    let map = to_truth(pairs);
    // A found relation with an unpaired piece becomes a pair no truth holds (a false positive).
    let unpaired = PieceId::MAX;
    let id = |f: PieceId| map.get(&f).copied().unwrap_or(unpaired);
    let visible = |t: &PieceId| !hidden.contains(t);
    let mut found_touching = BTreeSet::new();
    let mut found_pointing = BTreeSet::new();
    let mut found_towers = BTreeSet::new();
    // The found pieces of each found relation, by its pair in the truth's ids.
    let mut found_ids: BTreeMap<(PieceId, PieceId), [PieceId; 2]> = BTreeMap::new();
    for koan in &found.koans {
        for &[fa, fb] in &koan.touching {
            let (a, b) = (id(fa), id(fb));
            found_touching.insert((a.min(b), a.max(b)));
            found_ids.insert((a.min(b), a.max(b)), [fa, fb]);
        }
        for &[fa, fb] in &koan.pointing {
            found_pointing.insert((id(fa), id(fb)));
            found_ids.insert((id(fa), id(fb)), [fa, fb]);
        }
        for tower in koan.towers.iter().filter(|t| t.len() >= 2) {
            found_towers.insert(tower.iter().map(|p| id(*p)).collect::<Vec<_>>());
        }
    }
    let mut true_touching = BTreeSet::new();
    let mut true_pointing = BTreeSet::new();
    let mut true_towers = BTreeSet::new();
    for koan in &truth.koans {
        for &[a, b] in &koan.touching {
            if visible(&a) && visible(&b) {
                true_touching.insert((a.min(b), a.max(b)));
            }
        }
        for &[a, b] in &koan.pointing {
            if visible(&a) && visible(&b) {
                true_pointing.insert((a, b));
            }
        }
        for tower in koan.towers.iter().filter(|t| t.len() >= 2) {
            if tower.iter().all(visible) {
                true_towers.insert(tower.clone());
            }
        }
    }
    // Relations a found piece cannot have with a hidden true piece are not held against it.
    found_touching.retain(|(a, b)| visible(a) && visible(b));
    found_pointing.retain(|(a, b)| visible(a) && visible(b));

    let mut grouping = Count::default();
    let found_koans: Vec<BTreeSet<PieceId>> = found
        .koans
        .iter()
        .map(|k| k.pieces.iter().map(|p| id(*p)).collect())
        .collect();
    for koan in &truth.koans {
        let members: BTreeSet<PieceId> = koan.pieces.iter().copied().filter(visible).collect();
        if members.is_empty() {
            continue;
        }
        grouping.add(found_koans.contains(&members));
    }
    let looked_at = told_to_look_at(found);
    let found_of: BTreeMap<PieceId, PieceId> = pairs.iter().map(|&(f, t)| (t, f)).collect();
    let mut warned = Count::default();
    let mut near_in_truth = Count::default();
    for (found_set, true_set, what) in [
        (&found_touching, &true_touching, "touching"),
        (&found_pointing, &true_pointing, "pointing"),
    ] {
        let near = near_calls(truth, what);
        for pair in found_set.symmetric_difference(true_set) {
            let pieces = found_ids.get(pair).copied().unwrap_or_else(|| {
                [pair.0, pair.1].map(|t| found_of.get(&t).copied().unwrap_or(unpaired))
            });
            warned.add(pieces.iter().any(|p| looked_at.contains(p)));
            near_in_truth.add(near.contains(pair));
        }
    }
    RelationScore {
        touching: F1::count(&found_touching, &true_touching),
        pointing: F1::count(&found_pointing, &true_pointing),
        towers: F1::count(&found_towers, &true_towers),
        grouping,
        warned,
        near_in_truth,
    }
}

/// How often the marks a rule gives to the found koans agree with those it gives to the true
/// koans. One case per true koan: it agrees when its paired pieces all lie in one found koan and
/// that koan has the same mark. A true koan with no piece found, or split over several found
/// koans, disagrees (the Master would see other koans).
pub fn compare_marks(
    truth: &Scene,
    found: &Scene,
    pairs: &Pairs,
    truth_marks: &BTreeMap<KoanId, Mark>,
    found_marks: &BTreeMap<KoanId, Mark>,
) -> Count {
    let marked = truth
        .koans
        .iter()
        .filter(|k| truth_marks.contains_key(&k.id))
        .count();
    let otherwise = koans_marked_otherwise(truth, found, pairs, truth_marks, found_marks).len();
    Count {
        agree: marked - otherwise,
        total: marked,
    }
}

/// The found koans that hold the found pieces paired (through `pairs`) with a true koan's.
pub fn found_koans_of(truth_koan: &Koan, found: &Scene, pairs: &Pairs) -> BTreeSet<KoanId> {
    truth_koan
        .pieces
        .iter()
        .filter_map(|t| pairs.iter().find(|(_, pt)| pt == t).map(|(f, _)| *f))
        .filter_map(|f| found.piece(f).and_then(|p| p.koan))
        .collect()
}

/// The true koans (with a mark) whose marks the found koans do not agree with, as
/// [`compare_marks`] counts them.
pub fn koans_marked_otherwise(
    truth: &Scene,
    found: &Scene,
    pairs: &Pairs,
    truth_marks: &BTreeMap<KoanId, Mark>,
    found_marks: &BTreeMap<KoanId, Mark>,
) -> Vec<KoanId> {
    let mut otherwise = Vec::new();
    for koan in &truth.koans {
        let Some(truth_mark) = truth_marks.get(&koan.id) else {
            continue;
        };
        let found_koans = found_koans_of(koan, found, pairs);
        let agree = match found_koans.iter().next() {
            Some(k) if found_koans.len() == 1 => found_marks.get(k) == Some(truth_mark),
            _ => false,
        };
        if !agree {
            otherwise.push(koan.id);
        }
    }
    otherwise
}

#[cfg(test)]
mod tests {
    use super::*;
    use koanscope_scene::{Color, Koan, Piece, Size};
    use nalgebra::Isometry3;

    fn scene(ids: &[PieceId], koans: Vec<Koan>) -> Scene {
        let mut s = Scene::from_pieces(
            ids.iter()
                .map(|&i| Piece::new(i, Color::Red, Size::Small, Isometry3::identity()))
                .collect(),
        );
        for k in &koans {
            for p in &k.pieces {
                if let Some(piece) = s.pieces.iter_mut().find(|q| q.id == *p) {
                    piece.koan = Some(k.id);
                }
            }
        }
        s.koans = koans;
        s
    }

    fn koan(id: KoanId, pieces: &[PieceId]) -> Koan {
        Koan {
            id,
            pieces: pieces.to_vec(),
            ..Koan::default()
        }
    }

    #[test]
    fn relations_are_compared_through_the_pairing() {
        // Truth: a tower 0-1 with 2 touching 1; 3 hidden in 2. Found ids differ.
        let mut t = koan(0, &[0, 1, 2, 3]);
        t.touching = vec![[0, 1], [1, 2], [2, 3]];
        t.pointing = vec![[0, 1]];
        t.towers = vec![vec![0, 1], vec![2], vec![3]];
        let truth = scene(&[0, 1, 2, 3], vec![t]);
        let mut f = koan(0, &[10, 11, 12]);
        f.touching = vec![[11, 10], [12, 10]];
        f.pointing = vec![[10, 11]];
        f.towers = vec![vec![10, 11], vec![12]];
        let found = scene(&[10, 11, 12], vec![f]);
        let pairs = [(10, 0), (11, 1), (12, 2)];
        let score = compare_found(&truth, &found, &pairs, &BTreeSet::from([3]));
        // (0,1) found; (1,2) missed; (0,2) false; (2,3) involves the hidden piece.
        assert_eq!(
            score.touching,
            F1 {
                true_positive: 1,
                false_positive: 1,
                false_negative: 1
            }
        );
        assert_eq!(score.pointing.f1(), 1.0);
        assert_eq!(score.towers.f1(), 1.0);
        assert_eq!(score.grouping, Count { agree: 1, total: 1 });
        // Neither wrong pair carries a call: the Master was told nothing.
        assert_eq!(score.warned, Count { agree: 0, total: 2 });
    }

    #[test]
    fn a_wrong_relation_counts_as_warned_where_a_call_names_one_of_its_pieces() {
        let mut t = koan(0, &[0, 1, 2, 3]);
        t.touching = vec![[0, 1], [1, 2]];
        let truth = scene(&[0, 1, 2, 3], vec![t]);
        let mut f = koan(0, &[10, 11, 12, 13]);
        // (1, 2) missed and flagged as a near call; (0, 3) false, not flagged.
        f.touching = vec![[10, 11], [10, 13]];
        f.judgment_calls = vec![koanscope_scene::JudgmentCall {
            what: "touching".into(),
            pieces: vec![11, 12],
            decided: false,
            margin: -0.1,
            unit: "mm".into(),
            note: "touching (11, 12): no, 0.10 mm from the threshold".into(),
        }];
        let found = scene(&[10, 11, 12, 13], vec![f]);
        let pairs = [(10, 0), (11, 1), (12, 2), (13, 3)];
        let score = compare_found(&truth, &found, &pairs, &BTreeSet::new());
        assert_eq!(score.warned, Count { agree: 1, total: 2 });
    }

    #[test]
    fn a_wrong_relation_the_truth_holds_by_a_hair_counts_as_near_in_the_truth() {
        // Truth: 0 points at 1 by a hair (the engine's call names it), and at 2 clearly.
        let mut t = koan(0, &[0, 1, 2, 3]);
        t.pointing = vec![[0, 1], [0, 2]];
        t.touching = vec![[2, 3]];
        t.judgment_calls = vec![
            koanscope_scene::JudgmentCall {
                what: "pointing".into(),
                pieces: vec![0, 1],
                decided: true,
                margin: 0.06,
                unit: "mm".into(),
                note: "pointing (0, 1): yes, 0.06 mm from the threshold".into(),
            },
            koanscope_scene::JudgmentCall {
                what: "touching".into(),
                pieces: vec![3, 2],
                decided: true,
                margin: 0.2,
                unit: "mm".into(),
                note: "touching (3, 2): yes, 0.20 mm from the threshold".into(),
            },
        ];
        let truth = scene(&[0, 1, 2, 3], vec![t]);
        // Found: both rays missed; the touching pair (named the other way round) missed too.
        let found = scene(&[10, 11, 12, 13], vec![koan(0, &[10, 11, 12, 13])]);
        let pairs = [(10, 0), (11, 1), (12, 2), (13, 3)];
        let score = compare_found(&truth, &found, &pairs, &BTreeSet::new());
        assert_eq!(score.pointing.false_negative, 2);
        assert_eq!(score.near_in_truth, Count { agree: 2, total: 3 });
        assert_eq!(near_calls(&truth, "touching"), BTreeSet::from([(2, 3)]));
        assert_eq!(near_calls(&truth, "pointing"), BTreeSet::from([(0, 1)]));
    }

    #[test]
    fn a_koan_split_in_two_disagrees_whatever_the_marks() {
        let truth = scene(&[0, 1], vec![koan(0, &[0, 1])]);
        let found = scene(&[5, 6], vec![koan(0, &[5]), koan(1, &[6])]);
        let pairs = [(5, 0), (6, 1)];
        let truth_marks = BTreeMap::from([(0, Mark::White)]);
        let found_marks = BTreeMap::from([(0, Mark::White), (1, Mark::White)]);
        let marks = compare_marks(&truth, &found, &pairs, &truth_marks, &found_marks);
        assert_eq!(marks, Count { agree: 0, total: 1 });
        assert_eq!(
            koans_marked_otherwise(&truth, &found, &pairs, &truth_marks, &found_marks),
            vec![0]
        );
        let score = compare_found(&truth, &found, &pairs, &BTreeSet::new());
        assert_eq!(score.grouping, Count { agree: 0, total: 1 });
        let merged = scene(&[5, 6], vec![koan(3, &[5, 6])]);
        let marks = compare_marks(
            &truth,
            &merged,
            &pairs,
            &truth_marks,
            &BTreeMap::from([(3, Mark::White)]),
        );
        assert_eq!(marks, Count { agree: 1, total: 1 });
    }
}
