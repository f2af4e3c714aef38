//! Marking the koans of a scene document, and checking guesses against the marks on the table.

use koanscope_rules::{EvalError, check_guess, mark_scene, parse_rule};
use koanscope_scene::{Mark, Scene};

/// Two koans: koan 0 is two upright pieces touching (a red large, a blue small); koan 1 is one
/// green medium piece lying flat. Koan 0 is marked white, koan 1 black.
const SCENE: &str = r#"{
  "schema": "koanscope.scene/1",
  "pieces": [
    {"id": 0, "koan": 0, "color": "red", "size": "large",
     "table_from_piece": [[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]],
     "axis": [0,0,1], "height_mm": 44.5, "orientation": "upright", "grounded": true},
    {"id": 1, "koan": 0, "color": "blue", "size": "small",
     "table_from_piece": [[1,0,0,20],[0,1,0,0],[0,0,1,0],[0,0,0,1]],
     "axis": [0,0,1], "height_mm": 25.4, "orientation": "upright", "grounded": true},
    {"id": 2, "koan": 1, "color": "green", "size": "medium",
     "table_from_piece": [[0,0,1,200],[0,1,0,0],[-1,0,0,9.9],[0,0,0,1]],
     "axis": [0.961,0,-0.276], "height_mm": 19.0, "orientation": "flat", "grounded": true}
  ],
  "koans": [
    {"id": 0, "pieces": [0, 1], "touching": [[0, 1]], "mark": "white"},
    {"id": 1, "pieces": [2], "mark": "black"}
  ]
}"#;

#[test]
fn marks_every_koan_with_a_reason() {
    let scene = Scene::from_json_str(SCENE).unwrap();
    let rule =
        parse_rule("A koan has the Buddha-nature if it contains at least two upright pieces.")
            .unwrap();
    let marks = mark_scene(&rule, &scene).unwrap();
    assert_eq!(marks.len(), 2);
    assert_eq!(marks[0].mark, Mark::White);
    assert_eq!(marks[0].reason, "contains 2 upright pieces");
    assert_eq!(marks[1].mark, Mark::Black);
    assert_eq!(marks[1].reason, "contains no upright pieces");

    let rule = parse_rule(
        "A koan does not have the Buddha-nature if it contains a red piece touching a blue piece.",
    )
    .unwrap();
    let marks = mark_scene(&rule, &scene).unwrap();
    assert_eq!(marks[0].mark, Mark::Black);
    assert_eq!(
        marks[0].reason,
        "contains 1 red piece touching a blue piece"
    );
    assert_eq!(marks[1].mark, Mark::White);
}

#[test]
fn missing_attributes_ask_for_geometry() {
    let text = SCENE.replace(r#", "orientation": "flat""#, "");
    let scene = Scene::from_json_str(&text).unwrap();
    let rule = parse_rule("it contains at least one flat piece").unwrap();
    let err = mark_scene(&rule, &scene).unwrap_err();
    assert_eq!(err, EvalError::MissingAttributes { koan: 1, piece: 2 });
    assert!(err.to_string().contains("geometry"));
}

#[test]
fn guesses_contradicted_by_the_table_are_listed() {
    let scene = Scene::from_json_str(SCENE).unwrap();
    // Agrees with both marks.
    let guess = parse_rule("it contains at least one red piece").unwrap();
    let check = check_guess(&guess, &scene).unwrap();
    assert!(check.contradictions.is_empty());
    assert_eq!(check.agreeing, 2);
    // Marks the white koan black and the black koan white.
    let guess = parse_rule("it contains at least one flat piece").unwrap();
    let check = check_guess(&guess, &scene).unwrap();
    let ids: Vec<u32> = check.contradictions.iter().map(|c| c.koan).collect();
    assert_eq!(ids, [0, 1]);
    assert_eq!(check.contradictions[0].guess_says, Mark::Black);
    assert_eq!(check.contradictions[0].marked, Mark::White);
    // Contradicts the black koan only.
    let guess = parse_rule("it contains exactly one piece or at least one red piece").unwrap();
    let check = check_guess(&guess, &scene).unwrap();
    let ids: Vec<u32> = check.contradictions.iter().map(|c| c.koan).collect();
    assert_eq!(ids, [1]);
}

#[test]
fn direction_pairs_listed_by_the_document_are_used() {
    let rule =
        parse_rule("it contains at least two pieces pointing in the same direction").unwrap();
    // Both pieces of koan 0 stand upright: from their axes they point the same way.
    let scene = Scene::from_json_str(SCENE).unwrap();
    assert_eq!(mark_scene(&rule, &scene).unwrap()[0].mark, Mark::White);
    // A document that lists its direction pairs (the geometry engine's, or a Master's
    // correction) is taken at its word.
    let corrected = SCENE.replace(
        r#""touching": [[0, 1]], "mark""#,
        r#""touching": [[0, 1]], "opposite_direction": [[0, 1]], "mark""#,
    );
    let scene = Scene::from_json_str(&corrected).unwrap();
    assert_eq!(mark_scene(&rule, &scene).unwrap()[0].mark, Mark::Black);
}
