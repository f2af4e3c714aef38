//! Moving or turning a built koan on the table never changes its marks (the booklet's rule of
//! thumb for legal rules), and built koans have the facts their plans promise.

use koanscope_builder::GeometryRealiser;
use koanscope_geometry::Engine;
use koanscope_rules::{KoanSummary, Library, Placement, Plan, PlanPiece, Realiser};
use koanscope_scene::{Color, Piece, Scene, Size};
use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use proptest::prelude::*;

fn piece(color: Color, size: Size, placement: Placement) -> PlanPiece {
    PlanPiece {
        color,
        size,
        placement,
    }
}

/// Koans with towers, nests, pointing and touching.
fn plans() -> Vec<Plan> {
    use Placement::*;
    vec![
        Plan {
            pieces: vec![
                piece(Color::Red, Size::Large, Upright),
                piece(Color::Blue, Size::Medium, OnTipOf(0)),
                piece(Color::Green, Size::Small, PointingAt(0)),
            ],
        },
        Plan {
            pieces: vec![
                piece(Color::Yellow, Size::Small, Upright),
                piece(Color::Red, Size::Large, Over(0)),
                piece(Color::Blue, Size::Medium, Flat { toward_front: true }),
            ],
        },
        Plan {
            pieces: vec![
                piece(Color::Red, Size::Small, Upright),
                piece(Color::Blue, Size::Small, Touching(0)),
                piece(Color::Green, Size::Large, Across(0)),
            ],
        },
        Plan {
            pieces: vec![
                piece(Color::Green, Size::Medium, Upright),
                piece(Color::Green, Size::Small, Touching(0)),
                piece(Color::Red, Size::Large, PointingAt(1)),
            ],
        },
    ]
}

fn marks(scene: &Scene, lib: &Library) -> Vec<bool> {
    assert_eq!(scene.koans.len(), 1, "one koan");
    let s = KoanSummary::from_scene(scene, &scene.koans[0]).unwrap();
    lib.rules.iter().map(|r| s.white(&r.rule)).collect()
}

#[test]
fn built_koans_have_the_facts_their_plans_promise() {
    let realiser = GeometryRealiser::default();
    let lib = Library::builtin().unwrap();
    for plan in plans() {
        let scene = realiser.realise(&plan).unwrap().expect("buildable");
        let predicted = plan.predict().summary().unwrap();
        let built = KoanSummary::from_scene(&scene, &scene.koans[0]).unwrap();
        for r in &lib.rules {
            assert_eq!(
                predicted.white(&r.rule),
                built.white(&r.rule),
                "{}: plan\n{}",
                r.name,
                plan.describe()
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn moving_or_turning_a_koan_keeps_its_marks(
        yaw in -3.2f64..3.2,
        dx in -500.0f64..500.0,
        dy in -500.0f64..500.0,
        which in 0usize..4,
    ) {
        let lib = Library::builtin().unwrap();
        let realiser = GeometryRealiser::default();
        let plan = &plans()[which];
        let scene = realiser.realise(plan).unwrap().expect("buildable");
        let before = marks(&scene, &lib);
        let motion = Isometry3::from_parts(
            Translation3::new(dx, dy, 0.0),
            UnitQuaternion::from_axis_angle(&Vector3::z_axis(), yaw),
        );
        let moved: Vec<Piece> = scene
            .pieces
            .iter()
            .map(|p| Piece::new(p.id, p.color, p.size, motion * p.table_from_piece))
            .collect();
        let mut moved = Scene::from_pieces(moved);
        Engine::default().derive(&mut moved);
        prop_assert_eq!(before, marks(&moved, &lib));
    }
}
