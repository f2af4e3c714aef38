//! Agreement between a derived scene and its ground truth, attribute by attribute.
//!
//! Pieces are paired by id (the caller pairs detections with truth first). Each attribute or
//! relation is counted over the cases a person would check: every piece for per-piece attributes,
//! every pair of pieces sharing a koan for relations, every pointing piece for the order of its
//! targets. Each disagreement is kept in words, so it can be explained.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

pub mod detected;

pub use detected::{
    Count, F1, RelationScore, compare_found, compare_marks, found_koans_of, koans_marked_otherwise,
    near_calls, told_to_look_at,
};

use koanscope_scene::{Koan, PieceId, Scene};
use serde::Serialize;

/// The attributes and relations compared, in the order they are reported.
pub const ASPECTS: &[&str] = &[
    "orientation",
    "grounded",
    "height",
    "koan grouping",
    "touching",
    "pointing",
    "pointing order",
    "inserted",
    "fully inserted",
    "towers",
    "nests",
];

/// Heights agree within this (truth files round to a micrometre).
const HEIGHT_TOLERANCE_MM: f64 = 0.01;

/// Cases compared and cases agreed for one aspect, with each disagreement in words.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Tally {
    pub agree: usize,
    pub total: usize,
    pub disagreements: Vec<String>,
}

impl Tally {
    pub fn rate(&self) -> f64 {
        if self.total == 0 {
            1.0
        } else {
            self.agree as f64 / self.total as f64
        }
    }

    fn count(&mut self, agrees: bool, describe: impl FnOnce() -> String) {
        self.total += 1;
        if agrees {
            self.agree += 1;
        } else {
            self.disagreements.push(describe());
        }
    }
}

/// Tallies per aspect.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Agreement {
    pub aspects: BTreeMap<String, Tally>,
}

impl Agreement {
    fn tally(&mut self, aspect: &str) -> &mut Tally {
        self.aspects.entry(aspect.to_string()).or_default()
    }

    pub fn get(&self, aspect: &str) -> Option<&Tally> {
        self.aspects.get(aspect)
    }

    /// Adds another comparison's counts to this one.
    pub fn merge(&mut self, other: Agreement) {
        for (aspect, tally) in other.aspects {
            let mine = self.tally(&aspect);
            mine.agree += tally.agree;
            mine.total += tally.total;
            mine.disagreements.extend(tally.disagreements);
        }
    }

    /// The lowest agreement rate over every aspect compared.
    pub fn worst_rate(&self) -> f64 {
        self.aspects.values().map(Tally::rate).fold(1.0, f64::min)
    }
}

impl fmt::Display for Agreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:<16} {:>8} {:>8} {:>9}",
            "aspect", "agree", "of", "rate"
        )?;
        for aspect in ASPECTS {
            if let Some(t) = self.aspects.get(*aspect) {
                writeln!(
                    f,
                    "{:<16} {:>8} {:>8} {:>8.2}%",
                    aspect,
                    t.agree,
                    t.total,
                    100.0 * t.rate()
                )?;
            }
        }
        Ok(())
    }
}

/// Compares a derived scene with its truth, pieces paired by id. `label` prefixes disagreements.
pub fn compare_same_pieces(label: &str, truth: &Scene, derived: &Scene) -> Agreement {
    let mut agreement = Agreement::default();
    for aspect in ASPECTS {
        agreement.tally(aspect);
    }
    for t in &truth.pieces {
        let Some(d) = derived.piece(t.id) else {
            agreement
                .tally("koan grouping")
                .count(false, || format!("{label}: piece {} missing", t.id));
            continue;
        };
        if let (Some(ta), Some(da)) = (&t.attributes, &d.attributes) {
            agreement
                .tally("orientation")
                .count(ta.orientation == da.orientation, || {
                    format!(
                        "{label}: piece {} orientation: truth {}, derived {}",
                        t.id, ta.orientation, da.orientation
                    )
                });
            agreement
                .tally("grounded")
                .count(ta.grounded == da.grounded, || {
                    format!(
                        "{label}: piece {} grounded: truth {}, derived {}",
                        t.id, ta.grounded, da.grounded
                    )
                });
            agreement.tally("height").count(
                (ta.height_mm - da.height_mm).abs() <= HEIGHT_TOLERANCE_MM,
                || {
                    format!(
                        "{label}: piece {} height: truth {:.3}, derived {:.3}",
                        t.id, ta.height_mm, da.height_mm
                    )
                },
            );
        }
    }

    let truth_sets = Relations::of(truth);
    let derived_sets = Relations::of(derived);
    for t in &truth.pieces {
        let (tm, dm) = (
            truth_sets.koan_mates.get(&t.id),
            derived_sets.koan_mates.get(&t.id),
        );
        agreement.tally("koan grouping").count(tm == dm, || {
            format!(
                "{label}: piece {} koan: truth with {:?}, derived with {:?}",
                t.id, tm, dm
            )
        });
    }

    // Pairs a Master would look at: those sharing a koan in either scene.
    let mut pairs = truth_sets.same_koan_pairs.clone();
    pairs.extend(derived_sets.same_koan_pairs.iter().copied());
    for &(a, b) in &pairs {
        let yes_no = |set: &BTreeSet<(PieceId, PieceId)>, x, y| set.contains(&(x, y));
        let says = |v: bool| if v { "yes" } else { "no" };
        let (tt, dt) = (
            yes_no(&truth_sets.touching, a, b),
            yes_no(&derived_sets.touching, a, b),
        );
        agreement.tally("touching").count(tt == dt, || {
            format!(
                "{label}: touching {a}-{b}: truth {}, derived {}",
                says(tt),
                says(dt)
            )
        });
        for (x, y) in [(a, b), (b, a)] {
            for (aspect, ts, ds) in [
                ("pointing", &truth_sets.pointing, &derived_sets.pointing),
                ("inserted", &truth_sets.inserted, &derived_sets.inserted),
                (
                    "fully inserted",
                    &truth_sets.fully_inserted,
                    &derived_sets.fully_inserted,
                ),
            ] {
                let (tv, dv) = (yes_no(ts, x, y), yes_no(ds, x, y));
                agreement.tally(aspect).count(tv == dv, || {
                    format!(
                        "{label}: {aspect} {x}->{y}: truth {}, derived {}",
                        says(tv),
                        says(dv)
                    )
                });
            }
        }
    }
    for (from, targets) in &truth_sets.targets {
        let derived_targets = derived_sets.targets.get(from).cloned().unwrap_or_default();
        agreement.tally("pointing order").count(*targets == derived_targets, || {
            format!("{label}: piece {from} points at: truth {targets:?}, derived {derived_targets:?}")
        });
    }
    for t in &truth.pieces {
        for (aspect, ts, ds) in [
            ("towers", &truth_sets.tower_of, &derived_sets.tower_of),
            ("nests", &truth_sets.nests_of, &derived_sets.nests_of),
        ] {
            let (tv, dv) = (ts.get(&t.id), ds.get(&t.id));
            agreement.tally(aspect).count(tv == dv, || {
                format!(
                    "{label}: piece {} {aspect}: truth {tv:?}, derived {dv:?}",
                    t.id
                )
            });
        }
    }
    agreement
}

/// A scene's relations as flat sets, for comparing.
#[derive(Default)]
struct Relations {
    koan_mates: BTreeMap<PieceId, BTreeSet<PieceId>>,
    same_koan_pairs: BTreeSet<(PieceId, PieceId)>,
    touching: BTreeSet<(PieceId, PieceId)>,
    pointing: BTreeSet<(PieceId, PieceId)>,
    targets: BTreeMap<PieceId, Vec<PieceId>>,
    inserted: BTreeSet<(PieceId, PieceId)>,
    fully_inserted: BTreeSet<(PieceId, PieceId)>,
    /// One tower per piece (a lone piece is its own), as a one-element list to compare like nests.
    tower_of: BTreeMap<PieceId, Vec<Vec<PieceId>>>,
    nests_of: BTreeMap<PieceId, Vec<Vec<PieceId>>>,
}

impl Relations {
    fn of(scene: &Scene) -> Relations {
        let mut r = Relations::default();
        for koan in &scene.koans {
            r.add(koan);
        }
        r
    }

    fn add(&mut self, koan: &Koan) {
        let members: BTreeSet<PieceId> = koan.pieces.iter().copied().collect();
        for &p in &koan.pieces {
            self.koan_mates.insert(p, members.clone());
            for &q in &koan.pieces {
                if p < q {
                    self.same_koan_pairs.insert((p, q));
                }
            }
            self.tower_of.insert(p, vec![koan.tower_of(p)]);
        }
        self.touching
            .extend(koan.touching.iter().map(|&[a, b]| (a.min(b), a.max(b))));
        self.pointing
            .extend(koan.pointing.iter().map(|&[a, b]| (a, b)));
        for &[from, to] in &koan.pointing {
            self.targets.entry(from).or_default().push(to);
        }
        self.inserted
            .extend(koan.inserted.iter().map(|&[a, b]| (a, b)));
        self.fully_inserted
            .extend(koan.fully_inserted.iter().map(|&[a, b]| (a, b)));
        for nest in &koan.nests {
            for &p in nest {
                self.nests_of.entry(p).or_default().push(nest.clone());
            }
        }
    }
}
