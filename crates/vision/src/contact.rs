//! Contacts finer than the camera can measure. A silhouette fit places a piece to a millimetre or
//! two, while touching is judged at 0.8 mm: two pieces fitted a hair apart are, on a real table,
//! far more often touching than not (a student who means a gap leaves one that shows). Such pairs
//! are moved into contact along their nearest points, and each is reported, so the Master is
//! warned that the camera judged the contact rather than measured it. The other way round, pieces
//! fitted touching where the frame around the contact shows them apart are set a little apart,
//! and reported too.

use koanscope_geometry::{Engine, PieceModels, Placer};

use crate::pose::{cavity_apex_piece, vertices_piece};
use koanscope_scene::{JudgmentCall, Piece, Scene};
use nalgebra::{Isometry3, Point3, Translation3, Unit, UnitQuaternion, Vector3};

/// A gap between two pieces that was closed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClosedGap {
    /// Indices into the pieces given to [`close_gaps`].
    pub pieces: [usize; 2],
    /// The gap the fit left, mm.
    pub gap_mm: f64,
    /// The piece that was leaning on nothing, when that is why the gap was closed.
    pub leaning: Option<usize>,
}

/// How far apart closed pieces are left: inside the touching threshold with room to spare.
pub(crate) const CONTACT_MM: f64 = 0.3;
/// Touching, as the geometry engine judges it.
pub(crate) const TOUCHING_MM: f64 = 0.8;
/// A piece fitted stacked sits on the tip nearest its cavity's apex within this distance, mm.
pub const SEATED_WITHIN_MM: f64 = 6.0;

/// How each piece was fitted, as far as closing gaps cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Support {
    /// Stands by itself on the table (upright, flat, or balanced on its apex).
    #[default]
    Itself,
    /// Rests on other pieces (stacked on a tip, or across two).
    Raised,
    /// Leans on the table at a slant no pyramid keeps alone: something holds it up.
    Leaning,
    /// Sits on the tip of that piece (an index), where the geometry puts it (see
    /// [`seat_stacked`]): it does not move, and gaps within its tower are the geometry's, not
    /// the fit's.
    Seated(usize),
}

/// The bottom piece of the tower each piece is in (itself when it sits on nothing).
fn tower_roots(support: &[Support]) -> Vec<usize> {
    (0..support.len())
        .map(|mut k| {
            // A chain longer than the pieces would be a loop: stop there.
            for _ in 0..support.len() {
                match support[k] {
                    Support::Seated(under) if under < support.len() => k = under,
                    _ => break,
                }
            }
            k
        })
        .collect()
}

/// Moves pieces fitted within `snap_mm` of each other (but not touching) into contact, nearest
/// gaps first. A raised piece (`support[i]`) is lowered onto a piece under it, as gravity would.
/// Otherwise the less confident piece slides along the table towards the other; a piece seated
/// on a tip, or with one seated on its own, never moves. A leaning piece
/// that touches nothing must rest against something: it slides onto its nearest neighbour from
/// as far as `lean_snap_mm`, the leaning fit's own error. A move is kept only if the piece keeps
/// touching what it touched and goes into no other piece. A gap `gap_seen(pieces, i, j)` says
/// the frame shows (the table visible through it) is left as it is.
pub fn close_gaps(
    pieces: &mut [Piece],
    support: &[Support],
    engine: &Engine,
    models: &PieceModels,
    snap_mm: f64,
    lean_snap_mm: f64,
    gap_seen: &dyn Fn(&[Piece], usize, usize) -> bool,
) -> Vec<ClosedGap> {
    let n = pieces.len();
    let raised = |k: usize| support[k] == Support::Raised;
    let seated = |k: usize| matches!(support[k], Support::Seated(_));
    // A piece with another seated on its tip does not move alone either: the one on it would
    // be left off its seat.
    let holds_seated: Vec<bool> = (0..n)
        .map(|k| support.contains(&Support::Seated(k)))
        .collect();
    let roots = tower_roots(support);
    let mut closed = Vec::new();
    let mut tried = vec![false; n * n];
    // Gaps by pair (i < j), measured once; a move re-measures only the moved piece's pairs.
    let mut gaps = vec![f64::INFINITY; n * n];
    for i in 0..n {
        for j in i + 1..n {
            gaps[i * n + j] = engine.surface_distance(&pieces[i], &pieces[j]);
        }
    }
    let gap = |gaps: &[f64], a: usize, b: usize| gaps[a.min(b) * n + a.max(b)];
    loop {
        // A leaning piece touching nothing yet, which may reach further for its support.
        let unheld: Vec<bool> = (0..n)
            .map(|k| {
                support[k] == Support::Leaning
                    && (0..n).all(|m| m == k || gap(&gaps, k, m) > TOUCHING_MM)
            })
            .collect();
        // The nearest pair not yet tried.
        let mut nearest: Option<(usize, usize, f64)> = None;
        for i in 0..n {
            for j in i + 1..n {
                if tried[i * n + j] || (roots[i] == roots[j] && (seated(i) || seated(j))) {
                    continue;
                }
                let gap = gaps[i * n + j];
                let reach = if unheld[i] || unheld[j] {
                    lean_snap_mm.max(snap_mm)
                } else {
                    snap_mm
                };
                if gap > TOUCHING_MM
                    && gap <= reach
                    && nearest.is_none_or(|(_, _, best)| gap < best)
                {
                    nearest = Some((i, j, gap));
                }
            }
        }
        let Some((i, j, gap)) = nearest else { break };
        tried[i * n + j] = true;
        // Where the frame shows the table through the gap, it is real: leave it.
        if gap_seen(pieces, i, j) {
            continue;
        }
        let confidence = |k: usize| pieces[k].confidence.unwrap_or(0.0);
        // Raised pieces move first, then a leaning one looking for its support, then the less
        // confident one. Beyond `snap_mm` only the leaning piece may move.
        let movers = match (raised(i), raised(j), unheld[i], unheld[j]) {
            (true, false, _, _) => vec![i, j],
            (false, true, _, _) => vec![j, i],
            (_, _, true, false) if gap > snap_mm => vec![i],
            (_, _, false, true) if gap > snap_mm => vec![j],
            (_, _, true, false) => vec![i, j],
            (_, _, false, true) => vec![j, i],
            _ if confidence(i) <= confidence(j) => vec![i, j],
            _ => vec![j, i],
        };
        for mover in movers
            .into_iter()
            .filter(|&k| !seated(k) && !holds_seated[k])
        {
            let other = if mover == i { j } else { i };
            if let Some(moved) =
                moved_into_contact(pieces, mover, other, support[mover], engine, models)
            {
                pieces[mover] = moved;
                for k in (0..n).filter(|&k| k != mover) {
                    let (a, b) = (mover.min(k), mover.max(k));
                    gaps[a * n + b] = engine.surface_distance(&pieces[a], &pieces[b]);
                }
                closed.push(ClosedGap {
                    pieces: [i, j],
                    gap_mm: gap,
                    leaning: [i, j].into_iter().find(|&k| unheld[k]),
                });
                break;
            }
        }
    }
    closed
}

/// How far apart two pieces fitted touching are set where the frame shows a gap between them:
/// two pixels at a webcam's usual height over the table, as far as a gap the camera can see
/// but the fit missed is likely to be.
pub(crate) const OPENED_MM: f64 = 1.3;

/// A gap the frame showed between two pieces fitted touching, opened.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OpenedGap {
    /// Indices into the pieces given to [`open_seen_gaps`].
    pub pieces: [usize; 2],
    /// The gap the fit left, mm.
    pub gap_mm: f64,
}

/// Whether the frame fits a pair of pieces (indices into the pieces) better with one of them
/// (an index) moved to a pose.
pub type FitsApart<'a> = dyn Fn(&[Piece], [usize; 2], usize, &Piece) -> bool + 'a;

/// The other half of [`close_gaps`]: pieces standing on the table, fitted touching, are set
/// [`OPENED_MM`] apart where the frame around their contact agrees better with them so
/// (`frame_fits_apart`, given the pieces, the pair, the piece moved and its pose moved). A fit a
/// pixel off, or a neighbour's reflection or shadow read as a piece's edge, brings pieces a
/// millimetre apart into contact. The less confident piece slides straight away along the
/// table (the other where it cannot), where that runs into nothing else and leaves what it
/// touched touching. Pieces leaning, raised or in a tower stay.
pub fn open_seen_gaps(
    pieces: &mut [Piece],
    support: &[Support],
    engine: &Engine,
    frame_fits_apart: &FitsApart<'_>,
) -> Vec<OpenedGap> {
    let n = pieces.len();
    let standing_alone =
        |k: usize| support[k] == Support::Itself && !support.contains(&Support::Seated(k));
    let mut opened = Vec::new();
    for i in (0..n).filter(|&i| standing_alone(i)) {
        for j in (i + 1..n).filter(|&j| standing_alone(j)) {
            let gap = engine.surface_distance(&pieces[i], &pieces[j]);
            if gap <= 0.0 || gap > TOUCHING_MM {
                continue;
            }
            let confidence = |k: usize| pieces[k].confidence.unwrap_or(0.0);
            let movers = if confidence(i) <= confidence(j) {
                [i, j]
            } else {
                [j, i]
            };
            let moved = movers.into_iter().find_map(|mover| {
                let other = i + j - mover;
                slid_apart(&pieces[mover], &pieces[other], engine)
                    .filter(|moved| {
                        // Away from one piece may be into another it touched.
                        keeps_the_rest(pieces, mover, other, moved, engine)
                            && (0..n).all(|k| {
                                k == mover || engine.surface_distance(moved, &pieces[k]) > 0.0
                            })
                    })
                    .map(|moved| (mover, moved))
            });
            if let Some((mover, moved)) = moved
                && frame_fits_apart(pieces, [i, j], mover, &moved)
            {
                pieces[mover] = moved;
                opened.push(OpenedGap {
                    pieces: [i, j],
                    gap_mm: gap,
                });
            }
        }
    }
    opened
}

/// `piece` slid along the table straight away from `other` until they are [`OPENED_MM`] apart.
fn slid_apart(piece: &Piece, other: &Piece, engine: &Engine) -> Option<Piece> {
    let (on_mover, on_other) = engine.nearest_points(piece, other, f64::INFINITY)?;
    let away = on_mover - on_other;
    let direction = Vector3::new(away.x, away.y, 0.0).try_normalize(1e-9)?;
    slid_until(piece, other, engine, direction, 2.0 * OPENED_MM, |gap| {
        gap >= OPENED_MM
    })
}

/// `piece` moved along `direction` (a unit vector, table frame) by the least travel up to `far`
/// at which its gap to `other` is `reached`, bisected; `None` when not even `far` reaches it.
fn slid_until(
    piece: &Piece,
    other: &Piece,
    engine: &Engine,
    direction: Vector3<f64>,
    far: f64,
    reached: impl Fn(f64) -> bool,
) -> Option<Piece> {
    let at = |t: f64| {
        let mut p = piece.clone();
        p.table_from_piece
            .append_translation_mut(&Translation3::from(direction * t));
        p
    };
    let holds = |t: f64| reached(engine.surface_distance(&at(t), other));
    holds(far).then(|| at(bisect_crossing(holds, 0.0, far, 20)))
}

/// Of `tips` (each with a key), the one a piece whose cavity's apex is at `cavity_apex` sits on:
/// the nearest, within [`SEATED_WITHIN_MM`].
pub fn seat_among<K>(
    cavity_apex: &Point3<f64>,
    tips: impl IntoIterator<Item = (K, Point3<f64>)>,
) -> Option<K> {
    tips.into_iter()
        .map(|(key, tip)| (key, (tip - cavity_apex).norm()))
        .filter(|(_, distance)| *distance <= SEATED_WITHIN_MM)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(key, _)| key)
}

/// Seats each piece fitted stacked on the tip of the piece under it: stacked pyramids of one
/// shape centre themselves, the tip in the cavity's apex, while the fit may leave the upper piece
/// a millimetre or two off the axis (its tip then pokes through a wall instead of sitting in the
/// cavity, and no tower is seen). `stacked[i]` says piece `i` was fitted so; the piece under it is
/// the one whose tip is within [`SEATED_WITHIN_MM`] of its cavity's apex. Lower pieces are seated
/// first, and a tip holds one piece: seen from nearly overhead, a tower's top can be fitted with
/// its cavity nearer the base's tip, which the middle piece already sits on, than the middle
/// piece's. Returns, per piece, the piece it was seated on.
pub fn seat_stacked(
    pieces: &mut [Piece],
    stacked: &[bool],
    models: &PieceModels,
) -> Vec<Option<usize>> {
    let placer = Placer::new(*models);
    let tip = |p: &Piece| placer.apex(p.size, &p.table_from_piece);
    let cavity_apex = |p: &Piece| cavity_apex_piece(&models.dims(p.size), models.wall_mm);
    let mut order: Vec<usize> = (0..pieces.len()).filter(|&i| stacked[i]).collect();
    order.sort_by(|&a, &b| {
        let z = |i: usize| pieces[i].table_from_piece.translation.z;
        z(a).total_cmp(&z(b))
    });
    let mut seated_on = vec![None; pieces.len()];
    for i in order {
        let seat = cavity_apex(&pieces[i]);
        let seat_table = pieces[i].table_from_piece * seat;
        // A tip holds one piece: one a lower piece was seated on is taken.
        let tips = (0..pieces.len())
            .filter(|&j| j != i && !seated_on.contains(&Some(j)))
            .map(|j| (j, tip(&pieces[j])));
        if let Some(j) = seat_among(&seat_table, tips) {
            // The piece stands on the lower one's axis, turned as it is, as high as the geometry
            // rests it (its cavity's rim on the lower faces, or apex on tip, whichever meets
            // first). A cavity turned on the tip below rests higher, a millimetre a degree, so a
            // fitted yaw (hardly seen on a tower's upper pieces) would misplace it; stacked
            // pieces settle with their faces in line.
            match placer.on_tip(pieces[j].size, &pieces[j].table_from_piece, pieces[i].size) {
                Some(rest) => pieces[i].table_from_piece = rest,
                None => {
                    let base = tip(&pieces[j]) - seat.coords;
                    pieces[i].table_from_piece.translation = Translation3::from(base.coords);
                }
            }
            seated_on[i] = Some(j);
        }
    }
    seated_on
}

/// `pieces[mover]` moved to touch `pieces[other]`, if that keeps the rest of the scene as it was.
/// A leaning piece is first tipped further over where it meets the table, then slid.
fn moved_into_contact(
    pieces: &[Piece],
    mover: usize,
    other: usize,
    support: Support,
    engine: &Engine,
    models: &PieceModels,
) -> Option<Piece> {
    let keeps = |moved: &Piece| keeps_the_rest(pieces, mover, other, moved, engine);
    if support == Support::Leaning
        && let Some(tipped) = tipped_into_contact(&pieces[mover], &pieces[other], engine, models)
        && keeps(&tipped)
    {
        return Some(tipped);
    }
    let raised = support == Support::Raised;
    slid_into_contact(&pieces[mover], &pieces[other], raised, engine).filter(|slid| keeps(slid))
}

/// The travel (or turn) in `(near, far]` at which `distance` first comes within [`CONTACT_MM`],
/// bisected `steps` times: `distance(near)` is beyond it, `distance(far)` within.
pub(crate) fn bisect_to_contact(
    distance: impl Fn(f64) -> f64,
    near: f64,
    far: f64,
    steps: usize,
) -> f64 {
    bisect_crossing(|t| distance(t) <= CONTACT_MM, near, far, steps)
}

/// The least `t` in `(near, far]` where `holds` does, bisected `steps` times: `holds(near)` is
/// false, `holds(far)` true.
fn bisect_crossing(holds: impl Fn(f64) -> bool, mut near: f64, mut far: f64, steps: usize) -> f64 {
    for _ in 0..steps {
        let mid = 0.5 * (near + far);
        if holds(mid) {
            far = mid;
        } else {
            near = mid;
        }
    }
    far
}

/// What `pieces[mover]` touched it still touches as `moved`, and what it did not is not run into.
pub(crate) fn keeps_the_rest(
    pieces: &[Piece],
    mover: usize,
    other: usize,
    moved: &Piece,
    engine: &Engine,
) -> bool {
    pieces.iter().enumerate().all(|(k, p)| {
        if k == mover || k == other {
            return true;
        }
        let before = engine.surface_distance(&pieces[mover], p);
        let after = engine.surface_distance(moved, p);
        if before <= TOUCHING_MM {
            after <= TOUCHING_MM
        } else {
            after > 0.0
        }
    }) && engine.surface_distance(moved, &pieces[other]) > 0.0
}

/// `piece` moved in a straight line until it is [`CONTACT_MM`] from `other`: down onto it when
/// it is raised above it, otherwise along the table.
fn slid_into_contact(piece: &Piece, other: &Piece, raised: bool, engine: &Engine) -> Option<Piece> {
    let (on_mover, on_other) = engine.nearest_points(piece, other, f64::INFINITY)?;
    let towards = on_other - on_mover;
    // A raised piece over the other drops onto it; anything else slides along the table.
    let direction = if raised && towards.z < -0.5 * towards.norm() {
        -Vector3::z()
    } else {
        let flat = Vector3::new(towards.x, towards.y, 0.0);
        if flat.norm() < 0.3 * towards.norm() {
            return None;
        }
        flat.normalize()
    };
    // The gap shrinks as the piece moves in, to CONTACT_MM at the least travel found.
    slid_until(
        piece,
        other,
        engine,
        direction,
        3.0 * towards.norm(),
        |gap| gap <= CONTACT_MM,
    )
}

/// `piece`, leaning, tipped further over where it meets the table until it is [`CONTACT_MM`]
/// from `other`. A leaning fit is surest of where the piece stands and least sure of its slant
/// (a steeper piece nearer the camera outlines much the same), and a piece leaning on another
/// has tipped until it met it. `None` when tipping away from `other`, or until a side lies on the
/// table, never reaches it.
fn tipped_into_contact(
    piece: &Piece,
    other: &Piece,
    engine: &Engine,
    models: &PieceModels,
) -> Option<Piece> {
    /// Tipping is searched in steps of this (radians) before the contact is bisected.
    const STEP: f64 = 1.0 * std::f64::consts::PI / 180.0;
    /// A lean no steeper than this off the fit is still the piece the camera saw.
    const MOST: f64 = 25.0 * std::f64::consts::PI / 180.0;
    let (on_mover, on_other) = engine.nearest_points(piece, other, f64::INFINITY)?;
    let towards = on_other - on_mover;
    let flat = Vector3::new(towards.x, towards.y, 0.0);
    if flat.norm() < 1e-6 {
        return None;
    }
    let mut corners_table: Vec<Point3<f64>> = vertices_piece(&models.dims(piece.size))
        .iter()
        .map(|v| piece.table_from_piece * v)
        .collect();
    corners_table.sort_by(|a, b| a.z.total_cmp(&b.z));
    let (lowest, next) = (corners_table[0], corners_table[1]);
    // On a base edge it tips about that edge; on its apex, about the horizontal across `flat`.
    let axis = if next.z - lowest.z < 1.0 {
        next - lowest
    } else {
        Vector3::z().cross(&flat)
    };
    let mut axis = Unit::new_normalize(axis);
    if axis.cross(&(on_mover - lowest)).dot(&towards) < 0.0 {
        axis = -axis;
    }
    // A piece leans on what it leans towards: tipping that would raise it is no rest.
    let apex_table = Placer::new(*models).apex(piece.size, &piece.table_from_piece);
    if axis.cross(&(apex_table - lowest)).z > 0.0 {
        return None;
    }
    let at = |angle: f64| {
        let turn = UnitQuaternion::from_axis_angle(&axis, angle);
        let mut p = piece.clone();
        let pose = &p.table_from_piece;
        let translation = lowest.coords + turn * (pose.translation.vector - lowest.coords);
        p.table_from_piece =
            Isometry3::from_parts(Translation3::from(translation), turn * pose.rotation);
        p
    };
    let through_table = |p: &Piece| {
        vertices_piece(&models.dims(p.size))
            .iter()
            .any(|v| (p.table_from_piece * v).z < lowest.z - 0.3)
    };
    let distance = |angle: f64| engine.surface_distance(&at(angle), other);
    let mut near = 0.0;
    let mut far = None;
    while near < MOST {
        let next = near + STEP;
        if through_table(&at(next)) {
            return None;
        }
        if distance(next) <= CONTACT_MM {
            far = Some(next);
            break;
        }
        near = next;
    }
    Some(at(bisect_to_contact(distance, near, far?, 16)))
}

/// The Master's warning for each closed gap, in the koan that holds both pieces (after the
/// engine derived the scene with `pieces` as its pieces, in the same order).
pub fn note_closed_gaps(scene: &mut Scene, closed: &[ClosedGap]) {
    for gap in closed {
        let [a, b] = gap.pieces.map(|k| scene.pieces[k].id);
        let leaning = gap.leaning.map(|k| scene.pieces[k].id);
        let pair = [a.min(b), a.max(b)];
        let Some(koan) = scene.koans.iter_mut().find(|k| k.touches(a, b)) else {
            continue;
        };
        koan.judgment_calls.push(JudgmentCall {
            what: "touching".into(),
            pieces: pair.to_vec(),
            decided: true,
            margin: TOUCHING_MM - gap.gap_mm,
            unit: "mm".into(),
            note: match leaning {
                Some(id) => format!(
                    "touching ({}, {}): yes, as {id} leans and must rest on something, but the camera saw a {:.1} mm gap: look",
                    pair[0], pair[1], gap.gap_mm
                ),
                None => format!(
                    "touching ({}, {}): yes, but the camera saw a {:.1} mm gap, finer than it can measure: look",
                    pair[0], pair[1], gap.gap_mm
                ),
            },
        });
    }
}

/// The Master's warning for each opened gap, in the koan of each piece (after the engine
/// derived the scene with `pieces` as its pieces, in the same order): the camera judged the
/// gap rather than measured it.
pub fn note_opened_gaps(scene: &mut Scene, opened: &[OpenedGap]) {
    for gap in opened {
        let [a, b] = gap.pieces.map(|k| scene.pieces[k].id);
        let pair = [a.min(b), a.max(b)];
        let Some(koan) = scene
            .koans
            .iter_mut()
            .find(|k| k.pieces.contains(&a) || k.pieces.contains(&b))
        else {
            continue;
        };
        koan.judgment_calls.push(JudgmentCall {
            what: "touching".into(),
            pieces: pair.to_vec(),
            decided: false,
            margin: TOUCHING_MM - OPENED_MM,
            unit: "mm".into(),
            note: format!(
                "touching ({}, {}): no, the frame shows the table between them, but the fit had them {:.1} mm apart: look",
                pair[0], pair[1], gap.gap_mm
            ),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use koanscope_geometry::Placer;
    use koanscope_scene::{Color, Size};

    /// Closes gaps up to 3 mm between pieces that all stand by themselves.
    fn close_standing(pieces: &mut [Piece], engine: &Engine) -> Vec<ClosedGap> {
        let support = vec![Support::Itself; pieces.len()];
        close_gaps(
            pieces,
            &support,
            engine,
            &PieceModels::default(),
            3.0,
            3.0,
            &|_, _, _| false,
        )
    }

    /// Closes gaps as the detector does (2.5 mm, 8 mm for a leaning piece), in a frame that
    /// shows no gap.
    fn close_unseen(pieces: &mut [Piece], support: &[Support], engine: &Engine) -> Vec<ClosedGap> {
        close_gaps(
            pieces,
            support,
            engine,
            &PieceModels::default(),
            2.5,
            8.0,
            &|_, _, _| false,
        )
    }

    fn piece(id: u32, x: f64, confidence: f64) -> Piece {
        let mut p = Piece::new(
            id,
            Color::ZENDO[id as usize % 4],
            Size::Medium,
            Placer::default().upright(x, 0.0, 0.0),
        );
        p.confidence = Some(confidence);
        p
    }

    #[test]
    fn a_gap_below_what_the_camera_measures_is_closed_by_the_less_sure_piece() {
        let engine = Engine::default();
        // Medium bases are 19.8 mm wide: 2 mm apart.
        let mut pieces = vec![piece(0, 0.0, 0.9), piece(1, 21.8, 0.6)];
        let closed = close_standing(&mut pieces, &engine);
        assert_eq!(closed.len(), 1);
        assert!((closed[0].gap_mm - 2.0).abs() < 1e-6);
        let gap = engine.surface_distance(&pieces[0], &pieces[1]);
        assert!((gap - CONTACT_MM).abs() < 0.01, "gap {gap}");
        assert_eq!(
            pieces[0].table_from_piece.translation.x, 0.0,
            "the sure piece stays"
        );
    }

    /// Holdout H1 scene 3: a tower's lower piece, less sure than a neighbour 2 mm off, would
    /// slide into contact and leave the piece seated on its tip off its seat, no tower. The
    /// neighbour moves instead.
    #[test]
    fn a_piece_with_one_seated_on_it_does_not_slide_from_under_it() {
        let engine = Engine::default();
        let lower = piece(0, 0.0, 0.6);
        let on_tip = Placer::default()
            .on_tip(Size::Medium, &lower.table_from_piece, Size::Small)
            .unwrap();
        let mut top = Piece::new(1, Color::Red, Size::Small, on_tip);
        top.confidence = Some(0.7);
        let mut pieces = vec![lower.clone(), top, piece(2, 21.8, 0.9)];
        let support = [Support::Itself, Support::Seated(0), Support::Itself];
        let closed = close_unseen(&mut pieces, &support, &engine);
        assert_eq!(closed.len(), 1, "{closed:?}");
        assert_eq!(pieces[0], lower, "the tower's lower piece stays");
        assert!(
            pieces[2].table_from_piece.translation.x < 21.8,
            "the neighbour moves"
        );
        let gap = engine.surface_distance(&pieces[0], &pieces[2]);
        assert!((gap - CONTACT_MM).abs() < 0.01, "gap {gap}");
    }

    #[test]
    fn a_gap_the_frame_shows_stays_open() {
        let engine = Engine::default();
        let mut pieces = vec![piece(0, 0.0, 0.9), piece(1, 21.8, 0.6)];
        let support = vec![Support::Itself; 2];
        let models = PieceModels::default();
        let seen_between = |_: &[Piece], i: usize, j: usize| (i, j) == (0, 1);
        let closed = close_gaps(
            &mut pieces,
            &support,
            &engine,
            &models,
            3.0,
            3.0,
            &seen_between,
        );
        assert!(closed.is_empty());
        let gap = engine.surface_distance(&pieces[0], &pieces[1]);
        assert!((gap - 2.0).abs() < 1e-6, "gap {gap}");
    }

    #[test]
    fn the_master_is_warned_that_a_closed_gap_was_judged() {
        let engine = Engine::default();
        let mut pieces = vec![piece(0, 0.0, 0.9), piece(1, 21.8, 0.6)];
        let closed = close_standing(&mut pieces, &engine);
        let mut scene = Scene::from_pieces(pieces);
        engine.derive(&mut scene);
        note_closed_gaps(&mut scene, &closed);
        let koan = &scene.koans[0];
        assert_eq!(koan.touching, vec![[0, 1]]);
        let call = koan
            .judgment_calls
            .iter()
            .find(|c| c.what == "touching" && c.note.contains("2.0 mm gap"))
            .expect("a call about the closed gap");
        assert_eq!(call.pieces, vec![0, 1]);
        assert!(call.decided && call.margin < 0.0, "{call:?}");
    }

    #[test]
    fn a_piece_fitted_off_the_tip_under_it_is_seated_and_makes_a_tower() {
        let engine = Engine::default();
        let models = PieceModels::default();
        let placer = Placer::default();
        let base = placer.upright(0.0, 0.0, 0.0);
        let on_tip = placer
            .on_tip(Size::Large, &base, Size::Medium)
            .expect("a medium rests on a large");
        // The fit left the medium 1.5 mm off the axis and half a millimetre low.
        let mut off = on_tip;
        off.append_translation_mut(&Translation3::new(1.2, -0.9, -0.5));
        let mut pieces = vec![
            Piece::new(0, Color::Green, Size::Large, base),
            Piece::new(1, Color::Blue, Size::Medium, off),
        ];
        let mut before = Scene::from_pieces(pieces.clone());
        engine.derive(&mut before);
        assert!(before.koans[0].towers.is_empty(), "{:?}", before.koans[0]);
        assert_eq!(
            seat_stacked(&mut pieces, &[false, true], &models),
            vec![None, Some(0)]
        );
        let moved = pieces[1].table_from_piece.translation.vector - on_tip.translation.vector;
        assert!(moved.norm() < 1e-6, "seated {moved:?} from where it rests");
        let mut after = Scene::from_pieces(pieces);
        engine.derive(&mut after);
        assert_eq!(after.koans[0].towers, vec![vec![0, 1]]);
    }

    #[test]
    fn a_tower_fitted_with_turned_pieces_is_seated_in_line_and_its_base_does_not_touch_its_top() {
        let engine = Engine::default();
        let models = PieceModels::default();
        let placer = Placer::default();
        let base = placer.upright(0.0, 0.0, 0.1);
        let middle = placer.on_tip(Size::Large, &base, Size::Medium).unwrap();
        let top = placer.on_tip(Size::Medium, &middle, Size::Small).unwrap();
        // The yaw of a tower's upper pieces hardly shows from above: the fit turned them.
        let turned = |pose: Isometry3<f64>, degrees: f64| {
            let turn = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), degrees.to_radians());
            Isometry3::from_parts(pose.translation, turn * pose.rotation)
        };
        let mut pieces = vec![
            Piece::new(0, Color::Red, Size::Large, base),
            Piece::new(1, Color::Yellow, Size::Medium, turned(middle, 20.0)),
            Piece::new(2, Color::Red, Size::Small, turned(top, -25.0)),
        ];
        assert_eq!(
            seat_stacked(&mut pieces, &[false, true, true], &models),
            vec![None, Some(0), Some(1)]
        );
        for (piece, rests) in pieces[1..].iter().zip([middle, top]) {
            let off = piece.table_from_piece.inverse() * rests;
            assert!(
                off.translation.vector.norm() < 1e-6 && off.rotation.angle() < 1e-6,
                "piece {} seated {off:?} from where it rests in line",
                piece.id
            );
        }
        let mut scene = Scene::from_pieces(pieces);
        engine.derive(&mut scene);
        assert_eq!(scene.koans[0].towers, vec![vec![0, 1, 2]]);
        assert!(
            !scene.koans[0].touching.contains(&[0, 2]),
            "{:?}",
            scene.koans[0].touching
        );
    }

    /// An upright medium at the origin, and a large beside it (towards +y) leaning 60° towards it,
    /// `gap_mm` apart.
    fn leaner_beside_upright(gap_mm: f64, engine: &Engine) -> Vec<Piece> {
        let models = PieceModels::default();
        let upright = piece(0, 0.0, 0.9);
        let lean = |y: f64| {
            let pose = crate::pose::pose_on_table(
                &models.dims(Size::Large),
                60f64.to_radians(),
                0.0,
                y,
                std::f64::consts::PI,
            );
            let mut p = Piece::new(1, Color::Red, Size::Large, pose);
            p.confidence = Some(0.95);
            p
        };
        // The gap is not linear in y (the nearest points slide): a few steps find it.
        let mut y = 60.0;
        for _ in 0..8 {
            y -= engine.surface_distance(&upright, &lean(y)) - gap_mm;
        }
        let pieces = vec![upright, lean(y)];
        let gap = engine.surface_distance(&pieces[0], &pieces[1]);
        assert!((gap - gap_mm).abs() < 0.2, "set up {gap} mm apart");
        pieces
    }

    #[test]
    fn a_leaning_piece_apart_from_everything_is_moved_onto_its_nearest_neighbour() {
        let engine = Engine::default();
        let support = [Support::Itself, Support::Leaning];
        let models = PieceModels::default();
        let mut pieces = leaner_beside_upright(6.0, &engine);
        let seen = pieces[1].clone();
        let closed = close_unseen(&mut pieces, &support, &engine);
        assert_eq!(closed.len(), 1);
        assert!(engine.surface_distance(&pieces[0], &pieces[1]) <= TOUCHING_MM);
        assert_eq!(
            pieces[0].table_from_piece.translation.x, 0.0,
            "the leaning piece moves, though it is the surer one"
        );
        // It tipped further over the base edge it stands on, which stays where it was seen.
        let tilt = |p: &Piece| {
            (p.table_from_piece.rotation * Vector3::z())
                .z
                .acos()
                .to_degrees()
        };
        assert!(
            tilt(&pieces[1]) > tilt(&seen) + 1.0,
            "tilt {}",
            tilt(&pieces[1])
        );
        let on_table = |p: &Piece| {
            let mut corners: Vec<Point3<f64>> = vertices_piece(&models.dims(Size::Large))
                .iter()
                .map(|v| p.table_from_piece * v)
                .filter(|c| c.z < 0.1)
                .collect();
            corners.sort_by(|a, b| a.x.total_cmp(&b.x));
            corners
        };
        let (before, after) = (on_table(&seen), on_table(&pieces[1]));
        assert_eq!(before.len(), 2, "a leaner stands on an edge");
        assert_eq!(after.len(), 2, "and still does");
        for (b, a) in before.iter().zip(&after) {
            assert!((b - a).norm() < 0.01, "edge moved from {b} to {a}");
        }
        let mut scene = Scene::from_pieces(pieces);
        engine.derive(&mut scene);
        note_closed_gaps(&mut scene, &closed);
        assert!(
            scene.koans[0]
                .judgment_calls
                .iter()
                .any(|c| c.note.contains("1 leans and must rest on something")),
            "{:?}",
            scene.koans[0].judgment_calls
        );
        // The same gap beside a piece that stands alone shows, and is kept.
        let mut standing = leaner_beside_upright(6.0, &engine);
        let alone = [Support::Itself, Support::Itself];
        assert!(close_unseen(&mut standing, &alone, &engine).is_empty());
        // And a leaning piece further off than its fit can be wrong stays where it was seen.
        let mut far = leaner_beside_upright(12.0, &engine);
        assert!(close_unseen(&mut far, &support, &engine).is_empty());
    }

    #[test]
    fn a_tower_keeps_the_gaps_its_geometry_leaves() {
        let engine = Engine::default();
        let placer = Placer::default();
        let base = placer.upright(0.0, 0.0, 0.0);
        let middle = placer.on_tip(Size::Large, &base, Size::Medium).unwrap();
        let top = placer.on_tip(Size::Medium, &middle, Size::Small).unwrap();
        let tower = vec![
            Piece::new(0, Color::Red, Size::Large, base),
            Piece::new(1, Color::Yellow, Size::Medium, middle),
            Piece::new(2, Color::Red, Size::Small, top),
        ];
        // The small top's rim comes within a hair of the large base's faces, yet not touching.
        let gap = engine.surface_distance(&tower[0], &tower[2]);
        assert!(gap > TOUCHING_MM && gap <= 2.5, "base to top {gap} mm");
        let mut seated = tower.clone();
        let support = [Support::Itself, Support::Seated(0), Support::Seated(1)];
        assert!(close_unseen(&mut seated, &support, &engine).is_empty());
        assert_eq!(seated, tower, "nothing in the tower moved");
        // Fitted pieces that merely rest on others would have been closed.
        let mut fitted = tower.clone();
        let support = [Support::Itself, Support::Raised, Support::Raised];
        assert!(!close_unseen(&mut fitted, &support, &engine).is_empty());
    }

    #[test]
    fn a_gap_that_shows_is_kept() {
        let engine = Engine::default();
        let mut pieces = vec![piece(0, 0.0, 0.9), piece(1, 25.0, 0.6)];
        assert!(close_standing(&mut pieces, &engine).is_empty());
        assert_eq!(pieces[1].table_from_piece.translation.x, 25.0);
    }

    #[test]
    fn closing_one_gap_does_not_open_another_contact() {
        let engine = Engine::default();
        // The middle piece touches the left one and is 2 mm from the right one; it is the least
        // sure, but moving it would part it from the left: the right one moves instead.
        let mut pieces = vec![piece(0, 0.0, 0.9), piece(1, 20.0, 0.5), piece(2, 41.8, 0.8)];
        let closed = close_standing(&mut pieces, &engine);
        assert_eq!(closed.len(), 1);
        assert!(engine.surface_distance(&pieces[0], &pieces[1]) <= TOUCHING_MM);
        assert!(engine.surface_distance(&pieces[1], &pieces[2]) <= TOUCHING_MM);
    }

    /// Opens gaps where the frame fits every pair apart better, or none where `shows` is false.
    fn open_where(pieces: &mut [Piece], support: &[Support], shows: bool) -> Vec<OpenedGap> {
        open_seen_gaps(pieces, support, &Engine::default(), &|_, _, _, _| shows)
    }

    #[test]
    fn pieces_fitted_touching_where_the_frame_shows_a_gap_are_set_apart_by_the_less_sure() {
        let engine = Engine::default();
        // Medium bases are 19.8 mm wide: 0.5 mm apart, touching as fitted.
        let mut pieces = vec![piece(0, 0.0, 0.9), piece(1, 20.3, 0.6)];
        let opened = open_where(&mut pieces, &[Support::Itself; 2], true);
        assert_eq!(opened.len(), 1, "{opened:?}");
        assert!((opened[0].gap_mm - 0.5).abs() < 1e-6);
        let gap = engine.surface_distance(&pieces[0], &pieces[1]);
        assert!((gap - OPENED_MM).abs() < 0.01, "gap {gap}");
        assert_eq!(
            pieces[0].table_from_piece.translation.x, 0.0,
            "the sure piece stays"
        );
        assert_eq!(
            pieces[1].table_from_piece.translation.y, 0.0,
            "straight away"
        );
    }

    #[test]
    fn pieces_fitted_touching_where_the_frame_shows_no_gap_stay() {
        let mut pieces = vec![piece(0, 0.0, 0.9), piece(1, 20.3, 0.6)];
        let fitted = pieces.clone();
        assert!(open_where(&mut pieces, &[Support::Itself; 2], false).is_empty());
        assert_eq!(pieces, fitted);
    }

    #[test]
    fn leaning_pieces_and_towers_keep_their_contacts() {
        let placer = Placer::default();
        let lower = piece(0, 0.0, 0.6);
        let on_tip = placer
            .on_tip(Size::Medium, &lower.table_from_piece, Size::Small)
            .unwrap();
        let mut pieces = vec![
            lower,
            Piece::new(1, Color::Red, Size::Small, on_tip),
            piece(2, 20.3, 0.9),
            piece(3, 40.6, 0.5),
        ];
        let fitted = pieces.clone();
        // 0 holds 1 on its tip, 1 sits on it, 3 leans (on 2): no pair stands alone both.
        let support = [
            Support::Itself,
            Support::Seated(0),
            Support::Itself,
            Support::Leaning,
        ];
        assert!(open_where(&mut pieces, &support, true).is_empty());
        assert_eq!(pieces, fitted);
    }

    #[test]
    fn a_gap_is_opened_only_where_nothing_else_is_run_into_or_left() {
        let engine = Engine::default();
        // The middle piece is the least sure, but it touches the left one too, which it would
        // leave: the right one moves away from it instead.
        let mut pieces = vec![piece(0, 0.0, 0.9), piece(1, 20.3, 0.5), piece(2, 40.6, 0.8)];
        let support = [Support::Itself; 3];
        let frame_fits_apart = |_: &[Piece], pair: [usize; 2], _: usize, _: &Piece| pair == [1, 2];
        let opened = open_seen_gaps(&mut pieces, &support, &engine, &frame_fits_apart);
        assert_eq!(opened.len(), 1, "{opened:?}");
        assert!(engine.surface_distance(&pieces[0], &pieces[1]) <= TOUCHING_MM);
        let gap = engine.surface_distance(&pieces[1], &pieces[2]);
        assert!((gap - OPENED_MM).abs() < 0.01, "gap {gap}");
        assert!(pieces[2].table_from_piece.translation.x > 40.6);
    }

    #[test]
    fn the_master_is_warned_that_an_opened_gap_was_judged() {
        let engine = Engine::default();
        let mut pieces = vec![piece(0, 0.0, 0.9), piece(1, 20.3, 0.6)];
        let opened = open_where(&mut pieces, &[Support::Itself; 2], true);
        let mut scene = Scene::from_pieces(pieces);
        engine.derive(&mut scene);
        note_opened_gaps(&mut scene, &opened);
        assert!(scene.koans[0].touching.is_empty(), "apart");
        let calls: Vec<&JudgmentCall> = scene
            .judgment_calls()
            .filter(|c| c.what == "touching")
            .collect();
        assert_eq!(calls.len(), 1, "{calls:?}");
        assert_eq!(calls[0].pieces, vec![0, 1]);
        assert!(!calls[0].decided && calls[0].margin < 0.0, "{:?}", calls[0]);
        assert!(calls[0].note.contains("0.5 mm apart"), "{}", calls[0].note);
    }
}
