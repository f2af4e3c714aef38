//! Reference configurations built in code, each with what a careful Master would say about it.

use std::f64::consts::{FRAC_PI_2, PI};

use koanscope_geometry::{Engine, Placer};
use koanscope_scene::{Color, Koan, Orientation, Piece, PieceAttributes, Scene, Size};
use nalgebra::Isometry3;

fn scene(pieces: &[(Size, Isometry3<f64>)]) -> Scene {
    let pieces = pieces
        .iter()
        .enumerate()
        .map(|(i, (size, pose))| Piece::new(i as u32, Color::ZENDO[i % 4], *size, *pose))
        .collect();
    let mut scene = Scene::from_pieces(pieces);
    Engine::default().derive(&mut scene);
    scene
}

fn attrs(scene: &Scene, id: u32) -> &PieceAttributes {
    scene
        .piece(id)
        .and_then(|p| p.attributes.as_ref())
        .expect("derived")
}

fn only_koan(scene: &Scene) -> &Koan {
    assert_eq!(
        scene.koans.len(),
        1,
        "expected one koan, got {:?}",
        scene.koans
    );
    &scene.koans[0]
}

#[test]
fn a_lone_upright_piece() {
    let s = scene(&[(Size::Large, Placer::default().upright(0.0, 0.0, 0.3))]);
    let a = attrs(&s, 0);
    assert_eq!(a.orientation, Orientation::Upright);
    assert!(a.grounded);
    assert!((a.height_mm - 44.55).abs() < 1e-3, "height {}", a.height_mm);
    assert!((a.margins.orientation_deg - 10.0).abs() < 1e-6);
    let k = only_koan(&s);
    assert!(k.touching.is_empty() && k.pointing.is_empty() && k.towers.is_empty());
}

#[test]
fn a_lone_flat_piece() {
    let p = Placer::default();
    let s = scene(&[(Size::Medium, p.flat(Size::Medium, 10.0, 5.0, 1.0))]);
    let a = attrs(&s, 0);
    assert_eq!(a.orientation, Orientation::Flat);
    assert!(a.grounded);
    // It lies with its axis about 16° below horizontal and its apex on the table.
    let below = (-a.axis.z).asin().to_degrees();
    assert!(
        (15.0..17.0).contains(&below),
        "axis {below}° below horizontal"
    );
    assert!(a.apex_mm.z < 0.5);
    assert!(
        (a.height_mm - 19.1).abs() < 0.1,
        "a flat medium stands {} high",
        a.height_mm
    );
}

#[test]
fn a_lone_upside_down_piece_is_weird_and_grounded() {
    let p = Placer::default();
    let s = scene(&[(Size::Small, p.upside_down(Size::Small, 0.0, 0.0, 0.0))]);
    let a = attrs(&s, 0);
    assert_eq!(a.orientation, Orientation::Weird);
    assert!(a.grounded, "its apex is on the table");
    assert!(a.axis.z < -0.99);
    // Its ray points straight down and ends at the table: it points at nothing.
    assert!(only_koan(&s).pointing.is_empty());
}

#[test]
fn a_piece_leaning_on_another_is_weird_and_touches_it() {
    let p = Placer::default();
    let standing = p.upright(0.0, 0.0, 0.0);
    let with_tilt = |tilt: f64| {
        scene(&[
            (Size::Large, standing),
            (Size::Small, p.tipped(Size::Small, -30.0, 0.0, 0.0, tilt)),
        ])
    };
    let gap = |s: &Scene| {
        let detail = s.koans.first().and_then(|k| k.relations_detail.as_ref());
        detail
            .and_then(|d| d.touching.first().map(|t| t.distance_mm))
            .unwrap_or(f64::INFINITY)
    };
    // Tip a small piece toward the large one until its apex rests on the large face.
    let (mut apart, mut into) = (0.0, FRAC_PI_2);
    for _ in 0..50 {
        let mid = (apart + into) / 2.0;
        if gap(&with_tilt(mid)) == 0.0 {
            into = mid
        } else {
            apart = mid
        }
    }
    let s = with_tilt(apart);
    assert!(gap(&s) < 0.01, "resting on the face, {} mm", gap(&s));
    let a = attrs(&s, 1);
    assert_eq!(
        a.orientation,
        Orientation::Weird,
        "tilted {:.1}°",
        apart.to_degrees()
    );
    assert!(a.grounded);
    let k = only_koan(&s);
    assert_eq!(k.touching, vec![[0, 1]]);
    assert_eq!(
        k.pointing,
        vec![[1, 0]],
        "the leaner points at what it leans on"
    );
}

#[test]
fn a_flat_piece_across_the_tips_of_two_uprights() {
    let p = Placer::default();
    let (h_small, heading) = (25.4, 0.0);
    // The flat large piece's down face runs along +x from its base edge; put the tips under it.
    let bridge = p.flat_at_height(Size::Large, 0.0, 0.0, heading, h_small + 0.05);
    let face_point = |along: f64| bridge * nalgebra::Point3::new(-12.7 + along * 0.25, 0.0, along);
    let (a, b) = (face_point(8.0), face_point(30.0));
    let s = scene(&[
        (Size::Small, p.upright(a.x, a.y, 0.0)),
        (Size::Small, p.upright(b.x, b.y, 0.0)),
        (Size::Large, bridge),
    ]);
    let top = attrs(&s, 2);
    assert_eq!(top.orientation, Orientation::Flat);
    assert!(
        !top.grounded,
        "it rests on the tips, {:.2} mm up",
        top.margins.grounded_mm
    );
    let k = only_koan(&s);
    assert_eq!(k.touching, vec![[0, 2], [1, 2]]);
    assert!(
        k.targets_of(0).eq([2]) && k.targets_of(1).eq([2]),
        "both uprights point up at it"
    );
    assert!(k.towers.is_empty());
}

#[test]
fn a_tower_of_three() {
    let p = Placer::default();
    let bottom = p.upright(50.0, 50.0, 0.2);
    let middle = p
        .on_tip(Size::Large, &bottom, Size::Medium)
        .expect("a medium stays up on a large");
    let top = p
        .on_tip(Size::Medium, &middle, Size::Small)
        .expect("a small stays up on a medium");
    let s = scene(&[
        (Size::Small, top),
        (Size::Large, bottom),
        (Size::Medium, middle),
    ]);
    let k = only_koan(&s);
    assert_eq!(k.towers, vec![vec![1, 2, 0]], "bottom first");
    assert_eq!(k.touching, vec![[0, 2], [1, 2]]);
    assert_eq!(k.fully_inserted, vec![[1, 2], [2, 0]]);
    assert!(
        k.inserted.contains(&[1, 0]),
        "the large tip reaches into the small cavity too"
    );
    assert!(
        k.targets_of(1).eq([2, 0]),
        "the bottom points up through the middle to the top"
    );
    assert!(!attrs(&s, 0).grounded && !attrs(&s, 2).grounded && attrs(&s, 1).grounded);
    assert!(
        s.pieces
            .iter()
            .all(|p| p.attributes.as_ref().unwrap().orientation == Orientation::Upright)
    );
    assert!(k.nests.is_empty());
}

#[test]
fn a_small_nested_in_a_large() {
    let p = Placer::default();
    assert!(
        p.on_tip(Size::Small, &p.upright(0.0, 0.0, 0.0), Size::Large)
            .is_none(),
        "a large slides down"
    );
    let pose = p.upright(0.0, 0.0, 0.0);
    let s = scene(&[(Size::Large, pose), (Size::Small, pose)]);
    let k = only_koan(&s);
    assert_eq!(k.nests, vec![vec![0, 1]], "outermost first");
    assert_eq!(k.inserted, vec![[1, 0]]);
    assert!(k.fully_inserted.is_empty());
    assert!(k.towers.is_empty(), "a nest is not a tower");
    let detail = &k.relations_detail.as_ref().unwrap().touching[0];
    assert!(detail.by_nesting && detail.distance_mm > 0.8, "{detail:?}");
    assert_eq!(
        k.touching,
        vec![[0, 1]],
        "a nested piece touches its container"
    );
}

#[test]
fn a_nest_of_three_touches_only_directly() {
    let pose = Placer::default().upright(0.0, 0.0, 0.0);
    let s = scene(&[
        (Size::Large, pose),
        (Size::Medium, pose),
        (Size::Small, pose),
    ]);
    let k = only_koan(&s);
    assert_eq!(k.nests, vec![vec![0, 1, 2]]);
    assert_eq!(
        k.touching,
        vec![[0, 1], [1, 2]],
        "the innermost does not touch the outermost"
    );
}

#[test]
fn a_flat_piece_points_through_one_piece_at_another() {
    let p = Placer::default();
    let pointer = p.flat(Size::Small, 0.0, 0.0, 0.0);
    let tip = p.apex(Size::Small, &pointer);
    let s = scene(&[
        (Size::Medium, p.upright(tip.x + 45.0, 0.0, 0.0)),
        (Size::Small, pointer),
        (Size::Large, p.upright(tip.x + 20.0, 0.0, 0.5)),
    ]);
    let k = only_koan(&s);
    assert!(
        k.targets_of(1).eq([2, 0]),
        "nearest first: {:?}",
        k.pointing
    );
    let detail = k.relations_detail.as_ref().unwrap();
    let first = detail
        .pointing
        .iter()
        .find(|d| d.a == 1 && d.b == 2)
        .unwrap();
    assert_eq!(first.rank, 0);
    assert!(
        (first.margin_mm - 0.95).abs() < 1e-3,
        "the skimming ray runs 0.95 mm inside: {first:?}"
    );
}

#[test]
fn a_ray_going_down_bends_along_the_table_to_a_piece() {
    let p = Placer::default();
    // A small piece held nose-down at 55° above the table (propped on a tower, say). Its ray
    // reaches the table short of the target, then skims along the table into it.
    let pointer = Isometry3::new(
        nalgebra::Vector3::new(0.0, 0.0, 30.0),
        nalgebra::Vector3::y() * (PI / 2.0 + 55f64.to_radians()),
    );
    let apex = p.apex(Size::Small, &pointer);
    let bend_x = apex.x + (apex.z - 1.0) / 55f64.to_radians().tan();
    let target_x = bend_x + 8.0 + 14.3 / 2.0;
    let s = scene(&[
        (Size::Small, pointer),
        (Size::Small, p.upright(target_x, 0.0, 0.0)),
    ]);
    let k = only_koan(&s);
    assert!(k.targets_of(0).eq([1]), "{:?}", k.relations_detail);
    // Raised above the skim height (on a coin) it is missed.
    let raised = Isometry3::translation(target_x, 0.0, 1.5);
    let s = scene(&[(Size::Small, pointer), (Size::Small, raised)]);
    assert!(only_koan(&s).pointing.is_empty());
}

#[test]
fn half_a_millimetre_touches_and_one_and_a_half_does_not() {
    let p = Placer::default();
    let b = 19.8;
    let near = scene(&[
        (Size::Medium, p.upright(0.0, 0.0, 0.0)),
        (Size::Medium, p.upright(b + 0.5, 0.0, 0.0)),
    ]);
    assert_eq!(only_koan(&near).touching, vec![[0, 1]]);
    let far = scene(&[
        (Size::Medium, p.upright(0.0, 0.0, 0.0)),
        (Size::Medium, p.upright(b + 1.5, 0.0, 0.0)),
    ]);
    assert!(only_koan(&far).touching.is_empty());
    let detail = &only_koan(&near).relations_detail.as_ref().unwrap().touching[0];
    assert!(
        (detail.margin_mm - 0.3).abs() < 1e-6,
        "margin {}",
        detail.margin_mm
    );
    // The same gap, asked of two pieces directly (what vision's contact check uses).
    let engine = Engine::default();
    let gap = engine.surface_distance(&far.pieces[0], &far.pieces[1]);
    assert!((gap - 1.5).abs() < 1e-6, "gap {gap}");
}

#[test]
fn pieces_that_overlap_are_no_distance_apart() {
    let p = Placer::default();
    let s = scene(&[
        (Size::Medium, p.upright(0.0, 0.0, 0.0)),
        (Size::Medium, p.upright(10.0, 0.0, 0.0)),
    ]);
    let gap = Engine::default().surface_distance(&s.pieces[0], &s.pieces[1]);
    assert_eq!(gap, 0.0);
}

#[test]
fn pieces_that_go_into_each_other_overlap_by_how_far_and_touching_ones_not_at_all() {
    let p = Placer::default();
    let engine = Engine::default();
    let medium = 19.8;
    let pair = |gap: f64| {
        scene(&[
            (Size::Medium, p.upright(0.0, 0.0, 0.0)),
            (Size::Medium, p.upright(medium + gap, 0.0, 0.0)),
        ])
    };
    // Apart or face to face: nothing overlaps.
    for gap in [1.0, 0.0] {
        let s = pair(gap);
        assert_eq!(engine.solid_overlap(&s.pieces[0], &s.pieces[1]), 0.0);
    }
    // 4 mm into each other at the base: parting them along the slanted faces takes a little less.
    let s = pair(-4.0);
    let depth = engine.solid_overlap(&s.pieces[0], &s.pieces[1]);
    assert!(depth > 3.0 && depth <= 4.0 + 1e-9, "depth {depth}");
    // Turned, the corners reach further in.
    let turned = scene(&[
        (Size::Medium, p.upright(0.0, 0.0, 0.7)),
        (Size::Medium, p.upright(medium + 0.5, 0.0, 0.7)),
    ]);
    assert!(engine.solid_overlap(&turned.pieces[0], &turned.pieces[1]) > 1.0);
    // A medium stood 14.6 mm from a large's axis, turned otherwise: far into it, whichever way
    // round they are asked about (a contact query gave 0 here).
    let large_and_medium = scene(&[
        (Size::Large, p.upright(0.0, 0.0, 0.3)),
        (Size::Medium, p.upright(14.0, 4.0, 0.0)),
    ]);
    let [large, medium] = [&large_and_medium.pieces[0], &large_and_medium.pieces[1]];
    let depth = engine.solid_overlap(large, medium);
    assert!(depth > 5.0, "depth {depth}");
    assert!((engine.solid_overlap(medium, large) - depth).abs() < 1e-9);
}

#[test]
fn groups_forty_millimetres_apart_are_two_koans_but_twenty_stays_one() {
    let p = Placer::default();
    let b = 25.4;
    let s = scene(&[
        (Size::Large, p.upright(0.0, 0.0, 0.0)),
        (Size::Large, p.upright(b + 20.0, 0.0, 0.0)),
        (Size::Large, p.upright(2.0 * b + 60.0, 0.0, 0.0)),
    ]);
    assert_eq!(s.koans.len(), 2);
    assert_eq!(s.koans[0].pieces, vec![0, 1], "20 mm apart: one koan");
    assert_eq!(s.koans[1].pieces, vec![2], "40 mm further: its own koan");
    assert_eq!(s.pieces[2].koan, Some(1));
}

#[test]
fn a_mark_stays_with_an_unchanged_koan() {
    let p = Placer::default();
    let mut s = scene(&[
        (Size::Large, p.upright(0.0, 0.0, 0.0)),
        (Size::Small, p.upright(200.0, 0.0, 0.0)),
    ]);
    s.koans[1].mark = Some(koanscope_scene::Mark::Black);
    s.pieces[0].table_from_piece = p.upright(5.0, 0.0, 0.0);
    Engine::default().derive(&mut s);
    assert_eq!(s.koans[1].mark, Some(koanscope_scene::Mark::Black));
    assert_eq!(s.koans[0].mark, None);
}

#[test]
fn a_near_call_is_listed_for_the_master() {
    let p = Placer::default();
    let s = scene(&[
        (Size::Medium, p.upright(0.0, 0.0, 0.0)),
        (Size::Medium, p.upright(19.8 + 0.7, 0.0, 0.0)),
    ]);
    let k = only_koan(&s);
    assert_eq!(k.touching, vec![[0, 1]]);
    let call = k
        .judgment_calls
        .iter()
        .find(|c| c.what == "touching")
        .expect("0.7 mm is a judgment call");
    assert!(call.decided && (call.margin - 0.1).abs() < 1e-6, "{call:?}");
}

/// A slanted medium held up by a large placed for it on the side it leans to: the two touch,
/// 0.2 mm apart, and the medium leans.
#[test]
fn an_upright_placed_to_hold_a_leaner_touches_it() {
    let (p, engine) = (Placer::default(), Engine::default());
    let leaner = Piece::new(
        0,
        Color::Red,
        Size::Medium,
        p.tipped(Size::Medium, 0.0, 0.0, PI, 0.5),
    );
    let support = p
        .upright_holding(&engine, &leaner, Size::Large, PI, 0.2)
        .expect("a large holds it");
    let holding = Piece::new(1, Color::Blue, Size::Large, support);
    let gap = engine.surface_distance(&leaner, &holding);
    assert!((gap - 0.2).abs() < 1e-6, "{gap} mm apart");
    assert!(
        support.translation.x < -10.0,
        "on the side it leans to: {support:?}"
    );
    let s = scene(&[
        (Size::Medium, leaner.table_from_piece),
        (Size::Large, support),
    ]);
    assert_eq!(only_koan(&s).touching, vec![[0, 1]]);
    assert_eq!(attrs(&s, 0).orientation, Orientation::Weird);
}
