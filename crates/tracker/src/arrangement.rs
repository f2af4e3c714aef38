//! A koan as one frame shows it, described so two frames can be compared without piece ids.
//!
//! Vision numbers pieces afresh in every frame (in reading order), and the Master may carry a koan
//! elsewhere or turn it. So a koan is compared by what does not depend on ids, order or place:
//! its pieces' colours, sizes, orientations and groundedness; its relations written with those
//! labels; and the distances between its pieces. Two frames with the same description show the
//! same koan in the same arrangement; only the place ([`View::centroid`]) can differ.

use std::collections::BTreeMap;

use koanscope_scene::{Color, Koan, Orientation, Piece, PieceId, Scene, Size};

/// What a piece is, the only identity it has from frame to frame.
pub(crate) type Label = (Color, Size);

/// One koan in one frame.
#[derive(Debug, Clone)]
pub(crate) struct View {
    /// The koan's pieces and the koan itself, ids as in the frame.
    pub scene: Scene,
    /// Mean base centre of its pieces on the table, mm.
    pub centroid: [f64; 2],
    /// Each piece's label and base centre (x, y) on the table, mm.
    pub pieces: Vec<(Label, [f64; 2])>,
    pub arrangement: Arrangement,
}

/// Everything about a koan that survives moving and turning it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Arrangement {
    /// (label, orientation, grounded), sorted.
    pieces: Vec<(Label, Option<Orientation>, Option<bool>)>,
    /// Each relation as (kind, labels along it), sorted.
    relations: Vec<(Relation, Vec<Label>)>,
    /// Distances between base centres, by label pair, each list sorted.
    distances: BTreeMap<(Label, Label), Vec<f64>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Relation {
    Touching,
    Pointing,
    Inserted,
    FullyInserted,
    Tower,
    Nest,
}

impl View {
    /// The view of `koan`, whose pieces are in `scene`. None for a koan with no piece in the scene.
    pub(crate) fn of(scene: &Scene, koan: &Koan) -> Option<View> {
        let members: Vec<&Piece> = koan
            .pieces
            .iter()
            .filter_map(|id| scene.piece(*id))
            .collect();
        if members.is_empty() {
            return None;
        }
        let label_of = |id: PieceId| scene.piece(id).map(|p| (p.color, p.size));
        let base = |p: &Piece| {
            let t = p.table_from_piece.translation.vector;
            [t.x, t.y, t.z]
        };
        let pieces: Vec<(Label, [f64; 2])> = members
            .iter()
            .map(|p| {
                let [x, y, _] = base(p);
                ((p.color, p.size), [x, y])
            })
            .collect();
        let n = pieces.len() as f64;
        let centroid = [
            pieces.iter().map(|(_, xy)| xy[0]).sum::<f64>() / n,
            pieces.iter().map(|(_, xy)| xy[1]).sum::<f64>() / n,
        ];

        let mut described: Vec<_> = members
            .iter()
            .map(|p| {
                let a = p.attributes.as_ref();
                (
                    (p.color, p.size),
                    a.map(|a| a.orientation),
                    a.map(|a| a.grounded),
                )
            })
            .collect();
        described.sort();

        let labels = |ids: &[PieceId]| -> Option<Vec<Label>> {
            ids.iter().map(|id| label_of(*id)).collect()
        };
        let mut relations = Vec::new();
        for [a, b] in &koan.touching {
            if let Some(mut pair) = labels(&[*a, *b]) {
                pair.sort();
                relations.push((Relation::Touching, pair));
            }
        }
        for (kind, list) in [
            (Relation::Pointing, &koan.pointing),
            (Relation::Inserted, &koan.inserted),
            (Relation::FullyInserted, &koan.fully_inserted),
        ] {
            relations.extend(
                list.iter()
                    .filter_map(|pair| labels(pair).map(|l| (kind, l))),
            );
        }
        for (kind, list) in [
            (Relation::Tower, &koan.towers),
            (Relation::Nest, &koan.nests),
        ] {
            relations.extend(
                list.iter()
                    .filter_map(|chain| labels(chain).map(|l| (kind, l))),
            );
        }
        relations.sort();

        let mut distances: BTreeMap<(Label, Label), Vec<f64>> = BTreeMap::new();
        for (i, a) in members.iter().enumerate() {
            for b in &members[i + 1..] {
                let (la, lb) = ((a.color, a.size), (b.color, b.size));
                let key = if la <= lb { (la, lb) } else { (lb, la) };
                let (pa, pb) = (base(a), base(b));
                let d =
                    ((pa[0] - pb[0]).powi(2) + (pa[1] - pb[1]).powi(2) + (pa[2] - pb[2]).powi(2))
                        .sqrt();
                distances.entry(key).or_default().push(d);
            }
        }
        for list in distances.values_mut() {
            list.sort_by(f64::total_cmp);
        }

        let mut own = Scene {
            source: scene.source.clone(),
            image_size: scene.image_size,
            pieces: members.into_iter().cloned().collect(),
            koans: vec![koan.clone()],
        };
        own.pieces.sort_by_key(|p| p.id);
        Some(View {
            scene: own,
            centroid,
            pieces,
            arrangement: Arrangement {
                pieces: described,
                relations,
                distances,
            },
        })
    }

    /// Distance between the centroids of two views, mm.
    pub(crate) fn distance_to(&self, other: &View) -> f64 {
        ((self.centroid[0] - other.centroid[0]).powi(2)
            + (self.centroid[1] - other.centroid[1]).powi(2))
        .sqrt()
    }

    /// How many of `other`'s pieces have a piece of the same colour and size in `self` within
    /// `radius` mm (each of `self`'s pieces counted once): how much of one koan is the other.
    pub(crate) fn overlap(&self, other: &View, radius: f64) -> usize {
        let mut used = vec![false; self.pieces.len()];
        let mut count = 0;
        for (label, xy) in &other.pieces {
            let best = self
                .pieces
                .iter()
                .enumerate()
                .filter(|(i, (l, _))| !used[*i] && l == label)
                .map(|(i, (_, p))| (i, ((p[0] - xy[0]).powi(2) + (p[1] - xy[1]).powi(2)).sqrt()))
                .filter(|(_, d)| *d <= radius)
                .min_by(|a, b| a.1.total_cmp(&b.1));
            if let Some((i, _)) = best {
                used[i] = true;
                count += 1;
            }
        }
        count
    }
}

impl Arrangement {
    /// Same pieces, same relations, and every distance within `tolerance` mm.
    pub(crate) fn same_as(&self, other: &Arrangement, tolerance: f64) -> bool {
        self.pieces == other.pieces
            && self.relations == other.relations
            && self.distances.len() == other.distances.len()
            && self
                .distances
                .iter()
                .zip(&other.distances)
                .all(|((ka, a), (kb, b))| {
                    ka == kb
                        && a.len() == b.len()
                        && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tolerance)
                })
    }
}
