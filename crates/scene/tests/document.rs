//! Reading and writing the scene document, and the errors a bad one gets.

use koanscope_scene::{Color, Mark, Orientation, Scene, SceneError, Size};

const IDENTITY: &str = "[[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]";

fn piece(id: u32, color: &str, matrix: &str) -> String {
    format!(r#"{{"id": {id}, "color": "{color}", "size": "large", "table_from_piece": {matrix}}}"#)
}

fn error_of(doc: &str) -> String {
    match Scene::from_json_str(doc) {
        Ok(_) => panic!("accepted a bad document: {doc}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_poses_document_reads_with_nothing_derived() {
    let doc = format!(
        r#"{{"pieces": [{}, {}]}}"#,
        piece(4, "red", IDENTITY),
        piece(7, "Blue", IDENTITY)
    );
    let scene = Scene::from_json_str(&doc).unwrap();
    assert_eq!(scene.pieces.len(), 2);
    assert_eq!(
        scene.pieces[1].color,
        Color::Blue,
        "colour words are read case-blind"
    );
    assert_eq!(scene.pieces[0].size, Size::Large);
    assert!(scene.pieces.iter().all(|p| p.attributes.is_none()));
}

#[test]
fn a_written_document_reads_back_the_same() {
    let doc = r#"{"schema": "koanscope.scene/1", "source": "hand", "image_size": [1280, 720],
      "pieces": [{"id": 0, "koan": 0, "color": "green", "size": "small", "pips": 1,
        "table_from_piece": [[0,-1,0,10],[1,0,0,20],[0,0,1,0.05],[0,0,0,1]],
        "base_center_mm": [10, 20, 0.05], "apex_mm": [10, 20, 25.45], "axis": [0,0,1],
        "height_mm": 25.45, "orientation": "upright", "grounded": true, "confidence": 0.9}],
      "koans": [{"id": 0, "pieces": [0], "mark": "white"}]}"#;
    let scene = Scene::from_json_str(doc).unwrap();
    assert_eq!(scene.koans[0].mark, Some(Mark::White));
    assert_eq!(
        scene.pieces[0].attributes.as_ref().unwrap().orientation,
        Orientation::Upright
    );
    let again = Scene::from_json_str(&scene.to_json_string(false)).unwrap();
    assert_eq!(again, scene);
}

#[test]
fn an_unknown_colour_names_the_piece_and_the_known_colours() {
    let doc = format!(
        r#"{{"pieces": [{}, {}]}}"#,
        piece(0, "red", IDENTITY),
        piece(3, "reed", IDENTITY)
    );
    let e = error_of(&doc);
    assert!(
        e.starts_with("pieces[1] (id 3).color: unknown colour \"reed\""),
        "{e}"
    );
    assert!(e.contains("red, yellow, green, blue"), "{e}");
}

#[test]
fn a_matrix_that_is_not_rigid_is_refused() {
    let scaled = "[[2,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]";
    assert!(
        error_of(&format!(r#"{{"pieces": [{}]}}"#, piece(0, "red", scaled)))
            .contains("pieces[0] (id 0).table_from_piece: rotation block is not orthonormal")
    );
    let mirrored = "[[-1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]";
    assert!(
        error_of(&format!(r#"{{"pieces": [{}]}}"#, piece(0, "red", mirrored)))
            .contains("reflection")
    );
    let short = "[[1,0,0],[0,1,0],[0,0,1]]";
    assert!(
        error_of(&format!(r#"{{"pieces": [{}]}}"#, piece(0, "red", short))).contains("4 rows of 4")
    );
    let projective = "[[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0.5,0,1]]";
    assert!(
        error_of(&format!(
            r#"{{"pieces": [{}]}}"#,
            piece(0, "red", projective)
        ))
        .contains("not [0, 0, 0, 1]")
    );
}

#[test]
fn duplicate_ids_are_refused() {
    let doc = format!(
        r#"{{"pieces": [{}, {}]}}"#,
        piece(5, "red", IDENTITY),
        piece(5, "blue", IDENTITY)
    );
    let e = error_of(&doc);
    assert!(
        e.contains("pieces[1].id: id 5 is used twice (also by pieces[0])"),
        "{e}"
    );
}

#[test]
fn a_relation_naming_a_missing_piece_is_refused() {
    let doc = format!(
        r#"{{"pieces": [{}, {}], "koans": [{{"id": 0, "pieces": [0, 1], "touching": [[0, 9]]}}]}}"#,
        piece(0, "red", IDENTITY),
        piece(1, "red", IDENTITY)
    );
    let e = error_of(&doc);
    assert_eq!(
        e,
        "koans[0] (id 0).touching: names piece 9, which is not in the scene"
    );
    let outside = format!(
        r#"{{"pieces": [{}, {}], "koans": [{{"id": 0, "pieces": [0]}}, {{"id": 1, "pieces": [1], "pointing": [[1, 0]]}}]}}"#,
        piece(0, "red", IDENTITY),
        piece(1, "red", IDENTITY)
    );
    assert!(
        error_of(&outside)
            .contains("koans[1] (id 1).pointing: names piece 0, which is not in this koan")
    );
}

#[test]
fn pips_that_contradict_the_size_are_refused() {
    let doc = r#"{"pieces": [{"id": 0, "color": "red", "size": "small", "pips": 3,
        "table_from_piece": [[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]}]}"#;
    assert!(error_of(doc).contains("pieces[0] (id 0).pips: 3 pips, but a small piece has 1"));
}

#[test]
fn malformed_json_says_where() {
    let e = Scene::from_json_str("{\"pieces\": [\n  {\"id\": 0,,}]}").unwrap_err();
    assert!(matches!(e, SceneError::Json(_)));
    let source = std::error::Error::source(&e).unwrap().to_string();
    assert!(source.contains("line 2"), "{source}");
}
