//! The engine: from poses alone, every attribute, relation and koan, each with its margin.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use koanscope_scene::{
    InsertedDetail, JudgmentCall, Koan, KoanId, Piece, PieceId, PointingDetail, RelationsDetail,
    Scene, Size, TouchingDetail,
};
use nalgebra::{Point3, Vector3};
use parry3d_f64::query;
use parry3d_f64::shape::Shape;

use crate::model::{PieceModels, PyramidShape};
use crate::params::{CallWindows, Thresholds};
use crate::placed::{Placed, aabb_distance, degrees_between, round_to};
use crate::ray::BentRay;

/// Derives Zendo attributes from piece poses. Build once, use for every frame.
pub struct Engine {
    pub thresholds: Thresholds,
    pub windows: CallWindows,
    small: PyramidShape,
    medium: PyramidShape,
    large: PyramidShape,
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new(
            PieceModels::default(),
            Thresholds::default(),
            CallWindows::default(),
        )
    }
}

/// GJK reports overlapping solids as a few femtometres apart, not as zero.
const OVERLAP_EPS_MM: f64 = 1e-6;

/// Surface distances between pieces closer than the koan gap (plus its call window), by index pair
/// (i < j). Exact wherever a decision or a call depends on it; elsewhere an upper bound that
/// decides the same way.
type NearPairs = HashMap<(usize, usize), f64>;

impl Engine {
    pub fn new(models: PieceModels, thresholds: Thresholds, windows: CallWindows) -> Engine {
        let shape = |size| PyramidShape::new(models.dims(size), models.wall_mm);
        Engine {
            thresholds,
            windows,
            small: shape(Size::Small),
            medium: shape(Size::Medium),
            large: shape(Size::Large),
        }
    }

    pub(crate) fn shape(&self, size: Size) -> &PyramidShape {
        match size {
            Size::Small => &self.small,
            Size::Medium => &self.medium,
            Size::Large => &self.large,
        }
    }

    /// Fills every piece's attributes, groups the pieces into koans by the koan gap and fills every
    /// relation. A koan whose pieces are exactly those of a koan already in the scene keeps its mark.
    pub fn derive(&self, scene: &mut Scene) {
        self.derive_with(scene, false);
    }

    /// Like [`Engine::derive`], but keeps the koans the scene already has (a Master's grouping,
    /// merged or split by hand) and relates pieces only within them. Pieces no koan lists are
    /// grouped by the koan gap among themselves, as new koans.
    pub fn derive_keeping_koans(&self, scene: &mut Scene) {
        self.derive_with(scene, true);
    }

    fn derive_with(&self, scene: &mut Scene, keep_koans: bool) {
        let placed: Vec<Placed> = scene
            .pieces
            .iter()
            .map(|p| Placed::new(p, self.shape(p.size)))
            .collect();
        for (piece, at) in scene.pieces.iter_mut().zip(&placed) {
            piece.attributes = Some(at.attributes(&self.thresholds));
        }
        let near = self.near_pairs(&placed);
        let groups = if keep_koans {
            self.keep_groups(scene, &placed, &near)
        } else {
            self.group(&placed, &near, &(0..placed.len()).collect::<Vec<_>>())
        };
        let old_marks: BTreeMap<BTreeSet<PieceId>, _> = scene
            .koans
            .iter()
            .filter_map(|k| k.mark.map(|m| (k.pieces.iter().copied().collect(), m)))
            .collect();
        let mut koans = Vec::with_capacity(groups.len());
        for (index, (id, members)) in groups.iter().enumerate() {
            let id = id.unwrap_or(index as KoanId);
            let mut koan = self.relate(id, members, &placed, &near);
            let ids: BTreeSet<PieceId> = koan.pieces.iter().copied().collect();
            koan.mark = old_marks.get(&ids).copied();
            self.piece_calls(&mut koan, members, scene);
            for &i in members {
                scene.pieces[i].koan = Some(id);
            }
            koans.push(koan);
        }
        if !keep_koans {
            self.grouping_calls(&mut koans, &placed, &near, scene);
        }
        scene.koans = koans;
    }

    /// Distance between the plastic of two pieces (outer faces, cavity faces, base rim), mm: what
    /// touching is judged on, nesting aside. 0 when the plastic overlaps.
    pub fn surface_distance(&self, a: &Piece, b: &Piece) -> f64 {
        let (a, b) = (
            Placed::new(a, self.shape(a.size)),
            Placed::new(b, self.shape(b.size)),
        );
        plastic_distance(&a, &b, outer_distance(&a, &b))
    }

    /// How deep two pieces' solid outer pyramids overlap, mm: how far one must move to part
    /// them; 0 when they do not. Only a piece inside another's cavity (stacked on its tip, or
    /// nested) may overlap it, and those are not for this to judge: any other overlap is a pose
    /// no table can hold.
    pub fn solid_overlap(&self, a: &Piece, b: &Piece) -> f64 {
        // Parry's contact query (EPA) answered 0 for pyramids plainly inside each other (a medium
        // 14.6 mm from a large's axis, turned otherwise; 1311 of 20 000 random overlapping
        // pairs), and 0.16 mm for one 19.9 mm deep: the separating-axis test is exact here.
        let corners = |p: &Piece| self.shape(p.size).vertices.map(|v| p.table_from_piece * v);
        penetration_depth(&corners(a), &corners(b))
    }

    /// The nearest points of two pieces' plastic (table frame: on `a`, then on `b`) when the
    /// pieces are apart, by at most `within_mm`; `None` when their plastic overlaps or they are
    /// farther apart.
    pub fn nearest_points(
        &self,
        a: &Piece,
        b: &Piece,
        within_mm: f64,
    ) -> Option<(Point3<f64>, Point3<f64>)> {
        let (a, b) = (
            Placed::new(a, self.shape(a.size)),
            Placed::new(b, self.shape(b.size)),
        );
        let hulls_apart = outer_distance(&a, &b) > OVERLAP_EPS_MM;
        // Apart hulls are nearest on their outer faces; otherwise one sits in the other's
        // cavity or through its base, and only the plastic itself tells.
        let (shape_a, shape_b): (&dyn Shape, &dyn Shape) = if hulls_apart {
            (&*a.shape.outer, &*b.shape.outer)
        } else {
            (&*a.shape.shell, &*b.shape.shell)
        };
        match query::closest_points(
            &a.table_from_piece,
            shape_a,
            &b.table_from_piece,
            shape_b,
            within_mm,
        )
        .expect("closest points of these shapes are supported")
        {
            query::ClosestPoints::WithinMargin(on_a, on_b) => Some((on_a, on_b)),
            _ => None,
        }
    }

    /// The scene's own koans (ids kept), then the unlisted pieces grouped by the gap, new ids.
    fn keep_groups(
        &self,
        scene: &Scene,
        placed: &[Placed],
        near: &NearPairs,
    ) -> Vec<(Option<KoanId>, Vec<usize>)> {
        let index_of: HashMap<PieceId, usize> =
            placed.iter().enumerate().map(|(i, p)| (p.id, i)).collect();
        let mut listed = BTreeSet::new();
        let mut groups = Vec::new();
        for koan in &scene.koans {
            let members: Vec<usize> = koan
                .pieces
                .iter()
                .filter_map(|id| index_of.get(id).copied())
                .collect();
            listed.extend(members.iter().copied());
            if !members.is_empty() {
                groups.push((Some(koan.id), members));
            }
        }
        let first_new_id = scene.koans.iter().map(|k| k.id + 1).max().unwrap_or(0);
        let rest: Vec<usize> = (0..placed.len()).filter(|i| !listed.contains(i)).collect();
        let new_groups = self
            .group(placed, near, &rest)
            .into_iter()
            .map(|(_, members)| members);
        groups.extend(
            (first_new_id..)
                .zip(new_groups)
                .map(|(id, members)| (Some(id), members)),
        );
        groups
    }

    /// Outer-surface distance of every pair closer than the koan gap (boxes prune the rest).
    fn near_pairs(&self, placed: &[Placed]) -> NearPairs {
        let (t, w) = (&self.thresholds, &self.windows);
        let reach = t.koan_gap_mm + w.koan_gap_mm;
        let mut near = HashMap::new();
        for i in 0..placed.len() {
            for j in i + 1..placed.len() {
                let (a, b) = (&placed[i], &placed[j]);
                // The boxes' gap bounds the distance from below, the closest corners from above.
                let lower = aabb_distance(&a.aabb_table, &b.aabb_table);
                if lower >= reach {
                    continue;
                }
                let upper = a
                    .vertices_table
                    .iter()
                    .flat_map(|u| b.vertices_table.iter().map(move |v| (u - v).norm()))
                    .fold(f64::INFINITY, f64::min);
                // GJK only where the bounds leave a decision open: touching, or the koan gap.
                let may_touch = lower <= t.touching_mm + w.touching_mm;
                let may_straddle_gap = upper >= t.koan_gap_mm - w.koan_gap_mm;
                let d = if may_touch || may_straddle_gap {
                    outer_distance(a, b)
                } else {
                    // Clearly linked and clearly apart: the bound decides both alike.
                    upper
                };
                if d < reach {
                    near.insert((i, j), d);
                }
            }
        }
        near
    }

    /// Connected groups of `pieces` (indices) closer than the koan gap, each ordered by piece id,
    /// groups ordered by their smallest piece id; ids left for the caller to number.
    fn group(
        &self,
        placed: &[Placed],
        near: &NearPairs,
        pieces: &[usize],
    ) -> Vec<(Option<KoanId>, Vec<usize>)> {
        let mut parent: Vec<usize> = (0..placed.len()).collect();
        fn root(parent: &mut [usize], mut i: usize) -> usize {
            while parent[i] != i {
                parent[i] = parent[parent[i]];
                i = parent[i];
            }
            i
        }
        let included: BTreeSet<usize> = pieces.iter().copied().collect();
        for (&(i, j), &d) in near {
            if d < self.thresholds.koan_gap_mm && included.contains(&i) && included.contains(&j) {
                let (ri, rj) = (root(&mut parent, i), root(&mut parent, j));
                parent[ri.max(rj)] = ri.min(rj);
            }
        }
        let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for &i in pieces {
            let r = root(&mut parent, i);
            groups.entry(r).or_default().push(i);
        }
        let mut groups: Vec<Vec<usize>> = groups.into_values().collect();
        for g in &mut groups {
            g.sort_by_key(|&i| placed[i].id);
        }
        groups.sort_by_key(|g| placed[g[0]].id);
        groups.into_iter().map(|g| (None, g)).collect()
    }

    /// Every relation among the members of one koan.
    fn relate(&self, id: KoanId, members: &[usize], placed: &[Placed], near: &NearPairs) -> Koan {
        let t = &self.thresholds;
        let w = &self.windows;
        let mut detail = RelationsDetail::default();
        let mut calls = Vec::new();

        // Inserted: an ordered look at every pair whose solids overlap.
        let mut inserted = Vec::new();
        for (x, &i) in members.iter().enumerate() {
            for &j in &members[x + 1..] {
                let key = (i.min(j), i.max(j));
                if near.get(&key).is_none_or(|&d| d > OVERLAP_EPS_MM) {
                    continue;
                }
                for (inner, outer) in [(i, j), (j, i)] {
                    if let Some(found) = self.insertion(&placed[inner], &placed[outer]) {
                        inserted.push(found);
                    }
                }
            }
        }
        for ins in &inserted {
            let near_overlap = (ins.overlap_mm - t.inserted_overlap_mm).abs() < w.inserted_mm;
            let near_full =
                (ins.apex_to_cavity_apex_mm - t.fully_inserted_mm).abs() < w.inserted_mm;
            if near_overlap || near_full {
                let (what, margin) = if near_overlap {
                    ("inserted", ins.overlap_mm - t.inserted_overlap_mm)
                } else {
                    (
                        "fully inserted",
                        t.fully_inserted_mm - ins.apex_to_cavity_apex_mm,
                    )
                };
                calls.push(call(
                    what,
                    vec![ins.inner, ins.outer],
                    margin > 0.0,
                    margin,
                    "mm",
                ));
            }
        }
        inserted.retain(|d| d.overlap_mm > t.inserted_overlap_mm);
        mark_direct(&mut inserted);
        let nested_directly: BTreeSet<(PieceId, PieceId)> = inserted
            .iter()
            .filter(|d| d.entirely_inside && d.direct)
            .map(|d| (d.inner.min(d.outer), d.inner.max(d.outer)))
            .collect();

        // Touching: shells within the threshold, or one directly nested in the other.
        let mut touching = Vec::new();
        for (x, &i) in members.iter().enumerate() {
            for &j in &members[x + 1..] {
                let key = (i.min(j), i.max(j));
                let Some(&outer_gap) = near.get(&key) else {
                    continue;
                };
                if outer_gap > t.touching_mm + w.touching_mm {
                    continue;
                }
                let (a, b) = (&placed[i], &placed[j]);
                let gap = plastic_distance(a, b, outer_gap);
                let pair = (a.id.min(b.id), a.id.max(b.id));
                let by_nesting = gap > t.touching_mm && nested_directly.contains(&pair);
                let holds = gap <= t.touching_mm || by_nesting;
                let margin = t.touching_mm - gap;
                if holds || margin.abs() < w.touching_mm {
                    detail.touching.push(TouchingDetail {
                        a: pair.0,
                        b: pair.1,
                        distance_mm: round_to(gap, 4),
                        margin_mm: round_to(margin, 4),
                        by_nesting,
                        holds,
                    });
                }
                if holds {
                    touching.push([pair.0, pair.1]);
                }
                if !by_nesting && margin.abs() < w.touching_mm {
                    calls.push(call("touching", vec![pair.0, pair.1], holds, margin, "mm"));
                }
            }
        }
        touching.sort();

        // Pointing: the bent ray from each apex, against the other pieces of this koan only.
        let mut pointing = Vec::new();
        for &i in members {
            let from = &placed[i];
            let ray = BentRay::from_apex(from.apex_table, from.axis_table, t.skim_height_mm);
            let mut hits = Vec::new();
            for &j in members {
                if i == j {
                    continue;
                }
                let to = &placed[j];
                let meeting = ray.meet(to, w.pointing_mm);
                if meeting.hits {
                    hits.push((meeting.distance, meeting.exit, to.id, meeting.margin));
                } else if -meeting.margin < w.pointing_mm {
                    detail.pointing.push(PointingDetail {
                        a: from.id,
                        b: to.id,
                        // A miss has no entry point along the ray.
                        distance_mm: -1.0,
                        rank: 0,
                        margin_mm: round_to(meeting.margin, 4),
                        holds: false,
                    });
                    calls.push(call(
                        "pointing",
                        vec![from.id, to.id],
                        false,
                        meeting.margin,
                        "mm",
                    ));
                }
            }
            // Nearest entry first. A ray that starts inside several pieces (the bottom of a tower,
            // the heart of a nest) enters them all at 0: the one it leaves first comes first.
            hits.sort_by(|a, b| {
                let key = |h: &(f64, f64, PieceId, f64)| (round_to(h.0, 6), round_to(h.1, 6));
                let (ka, kb) = (key(a), key(b));
                ka.0.total_cmp(&kb.0)
                    .then(ka.1.total_cmp(&kb.1))
                    .then(a.2.cmp(&b.2))
            });
            for (rank, (distance, _, to, margin)) in hits.into_iter().enumerate() {
                pointing.push([from.id, to]);
                detail.pointing.push(PointingDetail {
                    a: from.id,
                    b: to,
                    distance_mm: round_to(distance, 4),
                    rank,
                    margin_mm: round_to(margin, 4),
                    holds: true,
                });
                if margin < w.pointing_mm {
                    calls.push(call("pointing", vec![from.id, to], true, margin, "mm"));
                }
            }
        }
        // Direction: axes within the threshold of parallel or anti-parallel.
        let mut same_direction = Vec::new();
        let mut opposite_direction = Vec::new();
        for (x, &i) in members.iter().enumerate() {
            for &j in &members[x + 1..] {
                let (a, b) = (&placed[i], &placed[j]);
                let angle = degrees_between(&a.axis_table, &b.axis_table);
                let pair = [a.id.min(b.id), a.id.max(b.id)];
                let same_margin = t.direction_deg - angle;
                let opposite_margin = t.direction_deg - (180.0 - angle);
                if same_margin >= 0.0 {
                    same_direction.push(pair);
                }
                if opposite_margin >= 0.0 {
                    opposite_direction.push(pair);
                }
                for (what, margin) in [
                    ("same direction", same_margin),
                    ("opposite direction", opposite_margin),
                ] {
                    if margin.abs() < w.direction_deg {
                        calls.push(call(what, pair.to_vec(), margin >= 0.0, margin, "°"));
                    }
                }
            }
        }
        same_direction.sort();
        opposite_direction.sort();

        let towers = self.towers(&inserted, placed, members);
        let nests = nests(&inserted);
        inserted.sort_by_key(|d| (d.inner, d.outer));
        let fully_inserted = inserted
            .iter()
            .filter(|d| d.fully_inserted)
            .map(|d| [d.inner, d.outer])
            .collect();
        detail.inserted = inserted.clone();
        Koan {
            id,
            pieces: members.iter().map(|&i| placed[i].id).collect(),
            touching,
            pointing,
            inserted: inserted.iter().map(|d| [d.inner, d.outer]).collect(),
            fully_inserted,
            towers,
            nests,
            same_direction,
            opposite_direction,
            mark: None,
            relations_detail: Some(detail),
            judgment_calls: calls,
        }
    }

    /// How `inner` sits in `outer`'s cavity, if its plastic overlaps the cavity at all. (Its shell,
    /// not its hull: the hull of a piece sitting on a tip also covers the top of the lower cavity.)
    fn insertion(&self, inner: &Placed, outer: &Placed) -> Option<InsertedDetail> {
        // The deepest corner of the inner piece inside the cavity bounds the overlap from below;
        // EPA (the exact depth) is asked only when that bound leaves the call open. It also gives
        // up on nested pyramids, whose faces are nearly parallel.
        let deepest_vertex = inner
            .shell_vertices_table()
            .map(|v| {
                let v_outer = outer.table_from_piece.inverse_transform_point(&v);
                PyramidShape::depth_in(&outer.shape.cavity_planes, &v_outer)
            })
            .fold(f64::NEG_INFINITY, f64::max);
        let settled = self.thresholds.inserted_overlap_mm + self.windows.inserted_mm;
        let penetration = if deepest_vertex > settled {
            deepest_vertex
        } else {
            query::contact(
                &outer.table_from_piece,
                &*outer.shape.cavity,
                &inner.table_from_piece,
                &*inner.shape.shell,
                0.0,
            )
            .expect("convex-composite contact is supported")
            .map_or(0.0, |c| -c.dist)
        };
        let overlap = penetration.max(deepest_vertex);
        if overlap <= 0.0 {
            return None;
        }
        let cavity_apex_table = outer.table_from_piece * outer.shape.cavity_apex;
        let apex_gap = (inner.apex_table - cavity_apex_table).norm();
        let tolerance = self.thresholds.inside_tolerance_mm;
        let entirely_inside = inner.vertices_table.iter().all(|v| {
            let v_outer = outer.table_from_piece.inverse_transform_point(v);
            PyramidShape::depth_in(&outer.shape.cavity_planes, &v_outer) >= -tolerance
        });
        Some(InsertedDetail {
            inner: inner.id,
            outer: outer.id,
            overlap_mm: round_to(overlap, 4),
            fully_inserted: apex_gap <= self.thresholds.fully_inserted_mm,
            apex_to_cavity_apex_mm: round_to(apex_gap, 4),
            entirely_inside,
            direct: true,
        })
    }

    /// Chains bottom to top where each tip is fully inserted in the next cavity, the lower piece is
    /// not wholly inside the upper, and the upper stands clearly higher. Only chains of 2 or more.
    fn towers(
        &self,
        inserted: &[InsertedDetail],
        placed: &[Placed],
        members: &[usize],
    ) -> Vec<Vec<PieceId>> {
        let base_z: HashMap<PieceId, f64> = members
            .iter()
            .map(|&i| (placed[i].id, placed[i].base_center_table.z))
            .collect();
        let mut links: Vec<&InsertedDetail> = inserted
            .iter()
            .filter(|d| {
                d.fully_inserted
                    && !d.entirely_inside
                    && base_z[&d.outer] > base_z[&d.inner] + self.thresholds.tower_lift_mm
            })
            .collect();
        // Snuggest fit first, so a piece rests on one piece and carries one piece.
        links.sort_by(|a, b| {
            a.apex_to_cavity_apex_mm
                .total_cmp(&b.apex_to_cavity_apex_mm)
        });
        let mut up: BTreeMap<PieceId, PieceId> = BTreeMap::new();
        let mut down: BTreeSet<PieceId> = BTreeSet::new();
        for d in links {
            if !up.contains_key(&d.inner) && !down.contains(&d.outer) {
                up.insert(d.inner, d.outer);
                down.insert(d.outer);
            }
        }
        let mut towers = Vec::new();
        for &bottom in up.keys() {
            if down.contains(&bottom) {
                continue;
            }
            let mut chain = vec![bottom];
            while let Some(&next) = up.get(chain.last().expect("chain starts non-empty")) {
                chain.push(next);
            }
            towers.push(chain);
        }
        towers
    }

    /// Orientation and grounded calls for the koan's pieces.
    fn piece_calls(&self, koan: &mut Koan, members: &[usize], scene: &Scene) {
        for &i in members {
            let piece = &scene.pieces[i];
            let Some(a) = &piece.attributes else { continue };
            if a.margins.orientation_deg.abs() < self.windows.orientation_deg {
                koan.judgment_calls.push(call(
                    &format!("orientation ({})", a.orientation),
                    vec![piece.id],
                    true,
                    a.margins.orientation_deg,
                    "°",
                ));
            }
            if a.margins.grounded_mm.abs() < self.windows.grounded_mm {
                koan.judgment_calls.push(call(
                    "grounded",
                    vec![piece.id],
                    a.grounded,
                    a.margins.grounded_mm,
                    "mm",
                ));
            }
        }
    }

    /// Pairs near the koan gap: two koans that almost merge, or a koan that almost splits.
    fn grouping_calls(
        &self,
        koans: &mut [Koan],
        placed: &[Placed],
        near: &NearPairs,
        scene: &Scene,
    ) {
        let gap = self.thresholds.koan_gap_mm;
        let linked = |a: usize, b: usize, skip: (usize, usize)| {
            // Is `b` reachable from `a` through links closer than the gap, without `skip`?
            let mut seen = BTreeSet::from([a]);
            let mut todo = vec![a];
            while let Some(x) = todo.pop() {
                for (&(i, j), &d) in near {
                    if d >= gap || (i, j) == skip || (i != x && j != x) {
                        continue;
                    }
                    let y = if i == x { j } else { i };
                    if seen.insert(y) {
                        todo.push(y);
                    }
                }
            }
            seen.contains(&b)
        };
        for (&(i, j), &d) in near {
            let margin = gap - d;
            if margin.abs() >= self.windows.koan_gap_mm {
                continue;
            }
            let (ki, kj) = (scene.pieces[i].koan, scene.pieces[j].koan);
            // A call only where the other decision would change the koans: two koans that
            // would merge, or a koan held together by this one link alone.
            let decisive = if margin <= 0.0 {
                ki != kj
            } else {
                !linked(i, j, (i, j))
            };
            if !decisive {
                continue;
            }
            let ids = vec![placed[i].id, placed[j].id];
            for k in [ki, kj].into_iter().flatten().collect::<BTreeSet<_>>() {
                if let Some(koan) = koans.iter_mut().find(|x| x.id == k) {
                    koan.judgment_calls.push(call(
                        "koan grouping",
                        ids.clone(),
                        margin > 0.0,
                        margin,
                        "mm",
                    ));
                }
            }
        }
        for koan in koans.iter_mut() {
            koan.judgment_calls
                .sort_by(|a, b| a.what.cmp(&b.what).then(a.pieces.cmp(&b.pieces)));
        }
    }
}

/// An insertion is direct when no third piece sits between inner and outer.
fn mark_direct(inserted: &mut [InsertedDetail]) {
    let pairs: BTreeSet<(PieceId, PieceId)> = inserted.iter().map(|d| (d.inner, d.outer)).collect();
    for d in inserted.iter_mut() {
        d.direct = !pairs.iter().any(|&(inner, middle)| {
            inner == d.inner && middle != d.outer && pairs.contains(&(middle, d.outer))
        });
    }
}

/// Chains outermost first of pieces directly and entirely inside one another.
fn nests(inserted: &[InsertedDetail]) -> Vec<Vec<PieceId>> {
    let mut children: BTreeMap<PieceId, Vec<PieceId>> = BTreeMap::new();
    let mut contained: BTreeSet<PieceId> = BTreeSet::new();
    for d in inserted.iter().filter(|d| d.entirely_inside && d.direct) {
        children.entry(d.outer).or_default().push(d.inner);
        contained.insert(d.inner);
    }
    let mut nests = Vec::new();
    let mut stack: Vec<Vec<PieceId>> = children
        .keys()
        .filter(|o| !contained.contains(o))
        .map(|&o| vec![o])
        .collect();
    stack.reverse();
    while let Some(chain) = stack.pop() {
        let last = *chain.last().expect("chains are non-empty");
        match children.get(&last) {
            Some(kids) => {
                for &kid in kids.iter().rev() {
                    let mut longer = chain.clone();
                    longer.push(kid);
                    stack.push(longer);
                }
            }
            None => nests.push(chain),
        }
    }
    nests
}

/// How far two solid pyramids (apex, then the four base corners, one frame) must move apart to
/// part, mm; 0 when they do not overlap. For convex solids the least such move is along a face
/// normal of one of them or across an edge of each (the separating-axis theorem): the least
/// overlap of their projections on those axes.
fn penetration_depth(a: &[Point3<f64>; 5], b: &[Point3<f64>; 5]) -> f64 {
    // Edge directions: four from the apex, four round the base.
    let edges = |v: &[Point3<f64>; 5]| -> [Vector3<f64>; 8] {
        std::array::from_fn(|k| {
            if k < 4 {
                v[k + 1] - v[0]
            } else {
                v[(k - 3) % 4 + 1] - v[k - 3]
            }
        })
    };
    let faces = |e: &[Vector3<f64>; 8]| -> [Vector3<f64>; 5] {
        std::array::from_fn(|k| {
            if k < 4 {
                e[k].cross(&e[(k + 1) % 4])
            } else {
                e[4].cross(&e[5])
            }
        })
    };
    let (ea, eb) = (edges(a), edges(b));
    let axes = faces(&ea)
        .into_iter()
        .chain(faces(&eb))
        .chain(ea.iter().flat_map(|x| eb.iter().map(move |y| x.cross(y))));
    let span = |v: &[Point3<f64>; 5], n: &Vector3<f64>| {
        v.iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
                let d = p.coords.dot(n);
                (lo.min(d), hi.max(d))
            })
    };
    let mut depth = f64::INFINITY;
    for axis in axes {
        // Parallel edges give no axis.
        let Some(n) = axis.try_normalize(1e-9) else {
            continue;
        };
        let ((alo, ahi), (blo, bhi)) = (span(a, &n), span(b, &n));
        let overlap = (ahi - blo).min(bhi - alo);
        if overlap <= 1e-9 {
            return 0.0;
        }
        depth = depth.min(overlap);
    }
    depth
}

/// Distance between the outer pyramids of two placed pieces, mm (0 when they overlap).
fn outer_distance(a: &Placed, b: &Placed) -> f64 {
    query::distance(
        &a.table_from_piece,
        &*a.shape.outer,
        &b.table_from_piece,
        &*b.shape.outer,
    )
    .expect("convex-convex distance is supported")
}

/// Distance between the plastic of two placed pieces, given their outer distance: that one while
/// the outer pyramids are apart, the shells' (cavity faces, base rim) once they overlap.
fn plastic_distance(a: &Placed, b: &Placed, outer_gap: f64) -> f64 {
    if outer_gap > OVERLAP_EPS_MM {
        return outer_gap;
    }
    query::distance(
        &a.table_from_piece,
        &*a.shape.shell,
        &b.table_from_piece,
        &*b.shape.shell,
    )
    .expect("compound distance is supported")
}

fn call(what: &str, pieces: Vec<PieceId>, decided: bool, margin: f64, unit: &str) -> JudgmentCall {
    let verdict = if decided { "yes" } else { "no" };
    let ids: Vec<String> = pieces.iter().map(|p| p.to_string()).collect();
    JudgmentCall {
        what: what.to_string(),
        note: format!(
            "{what} ({}): {verdict}, {:.2} {unit} from the threshold",
            ids.join(", "),
            margin.abs()
        ),
        pieces,
        decided,
        margin: round_to(margin, 4),
        unit: unit.to_string(),
    }
}
