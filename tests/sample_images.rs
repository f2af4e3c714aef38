//! The sample images koanscope renders itself (`sample_images/`, made by
//! `crates/vision/examples/sample_jobs.rs` and `tools/render/`), so vision is checked on a fresh
//! checkout without `../shared`: calibrate from the bundled views, analyse every scene, compare
//! with the bundled truth. Floors catch breakage; the figures themselves are in the README.

mod common;

#[test]
fn eval_on_the_bundled_samples_finds_the_pieces() {
    let figures = common::figures_json(&["eval".as_ref(), "sample_images".as_ref()]);
    let all = figures
        .as_array()
        .and_then(|rows| rows.iter().find(|r| r["setup"] == "all"))
        .cloned()
        .unwrap_or_else(|| figures["all"].clone());
    let rate = |name: &str| {
        all[name]
            .as_f64()
            .unwrap_or_else(|| panic!("{name} in {all}"))
    };
    assert!(rate("recall") >= 0.9, "recall {}", rate("recall"));
    assert!(rate("precision") >= 0.9, "precision {}", rate("precision"));
    assert!(rate("color") >= 0.95, "colour {}", rate("color"));
    assert!(rate("base_error_median_mm") <= 3.0);
    // Each of the two pieces hidden in a nest is under a piece the Master is told may hide one
    // (what holds it is read from the true poses: the bundled truth does not list it).
    assert_eq!(rate("hidden_flagged"), 1.0, "{all}");
    // Where such a piece changes a koan's mark under a beginner rule, the console tells the
    // Master to lift the piece over it, every time; and it says so for a minority of koan
    // marks (17 % today), not for every koan holding a piece that could hide one.
    assert_eq!(rate("lift_advice_on_lost"), 1.0, "{all}");
    assert!(rate("lift_advice_said") < 0.5, "{all}");
}

/// The straight tower of three in the sample (green large, yellow medium, red small, S1 scene 3):
/// the yellow shows only as a band between the two others, and must be read stacked, with the
/// red on it, not as a piece lying in front of the base and one standing behind.
#[test]
fn the_samples_tower_of_three_is_one_tower() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let scene = common::analyzed_scene(
        &root.join("sample_images/S1/scene_03.jpg"),
        &root.join("calibration/sample-S1.yaml"),
    );
    let tower = serde_json::json!([
        id_of(&scene, "green", "large"),
        id_of(&scene, "yellow", "medium"),
        id_of(&scene, "red", "small")
    ]);
    let towers = common::koan_relation(&scene, "towers");
    assert_eq!(towers, vec![tower], "{scene}");
}

/// Black slate under one small lamp (S3): the pieces' shadows are as dark against the table as
/// black plastic. They are read as the shadows they are, not as black pieces, and every piece in
/// view is still found with its colour and size.
#[test]
fn a_lamps_shadows_on_a_dark_table_are_not_black_pieces() {
    let kinds =
        |pieces: &serde_json::Value, in_view: bool| kinds_of(pieces, in_view, &["color", "size"]);
    for scene in ["scene_00", "scene_03"] {
        let (truth, found) = truth_and_reading("S3", scene);
        assert_eq!(
            kinds(&found["pieces"], false),
            kinds(&truth["pieces"], true),
            "{scene}: the pieces found, and those in view"
        );
    }
}

/// A green large lying across the tips of a blue and a yellow small (S3 scene 2, black slate
/// under one lamp): what shows of the blue post is its lower half, which a piece lying down
/// fits as well. The large is read raised on the posts and touching both, not lying on the
/// table behind them (where its shadow would then be read as black pieces), and the blue post
/// stays standing under it, pointing up at it (re-read with the bridge resting on it, it lay
/// down again: the bridge held up by nothing).
#[test]
fn a_bridge_over_two_small_posts_is_read_lying_across_them() {
    assert_green_bridge_on_small_posts("S3", "scene_02");
}

/// The same bridge on oak in the sun (S1 scene 2). The yellow post stands in the green's
/// shade, its top hidden by it: with what the bridge hides left free, a medium standing beside
/// the bridge explains the shaded pixels best, but a post must stand under the bridge, and
/// a small does there. Stood up before the bridge is laid across it, it stays standing while
/// the passes lay the bridge (read again before the bridge was, it lay down again, leaving
/// the bridge on one post).
#[test]
fn a_shaded_post_stands_under_its_bridge() {
    assert_green_bridge_on_small_posts("S1", "scene_02");
}

/// Analyses the sample `setup`'s `scene` and checks that its green large lies raised across
/// a blue and a yellow small, both read standing, touching it and pointing up at it, with no
/// shadow read as a black piece.
fn assert_green_bridge_on_small_posts(setup: &str, scene: &str) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let scene = common::analyzed_scene(
        &root.join(format!("sample_images/{setup}/{scene}.jpg")),
        &root.join(format!("calibration/sample-{setup}.yaml")),
    );
    let pieces = scene["pieces"].as_array().expect("pieces");
    let bridge = id_of(&scene, "green", "large");
    let on_table = pieces.iter().find(|p| p["id"] == bridge).expect("bridge")["grounded"].clone();
    assert_eq!(on_table, false, "the bridge is raised");
    let touching = common::koan_relation(&scene, "touching");
    let pointing = common::koan_relation(&scene, "pointing");
    for post in [
        id_of(&scene, "blue", "small"),
        id_of(&scene, "yellow", "small"),
    ] {
        assert!(
            touching.contains(&serde_json::json!([post, bridge]))
                || touching.contains(&serde_json::json!([bridge, post])),
            "post {post} touches the bridge {bridge}: {touching:?}"
        );
        let read = pieces.iter().find(|p| p["id"] == post).expect("post");
        assert_eq!(read["orientation"], "upright", "post {post}: {read}");
        assert!(
            pointing.contains(&serde_json::json!([post, bridge])),
            "post {post} points at the bridge {bridge}: {pointing:?}"
        );
    }
    assert!(
        pieces.iter().all(|p| p["color"] != "black"),
        "no shadow read as a black piece"
    );
}

/// The sample's bridge on oak in the sun (S1 scene 2): a green large lying across a blue and a
/// yellow small. The yellow post, in the green's shade, is as dark and pale against the wood as
/// a shadow tinted by a yellow piece, and the yellow large lying in the sun 110 mm away could
/// have cast one; but the frame's shadows show the light, and that large's shadow falls the
/// other way. The post is found, in the bridge's koan, and every piece in view with it.
#[test]
fn a_piece_in_the_shade_of_another_colour_is_not_taken_for_a_tinted_shadow() {
    let (truth, scene) = truth_and_reading("S1", "scene_02");
    let fields = ["color", "size"];
    assert_eq!(
        kinds_of(&scene["pieces"], false, &fields),
        kinds_of(&truth["pieces"], true, &fields),
        "the pieces found, and those in view"
    );
    let (bridge, post) = (
        id_of(&scene, "green", "large"),
        id_of(&scene, "yellow", "small"),
    );
    let koan_of = |id: u64| {
        scene["pieces"]
            .as_array()
            .and_then(|pieces| pieces.iter().find(|p| p["id"] == id))
            .map(|p| p["koan"].clone())
    };
    assert_eq!(koan_of(post), koan_of(bridge), "{scene}");
}

/// The full table `koanscope bench` times (S2 scene 4: 17 pieces, one hidden in a nest, in 10
/// koans): every piece in view is found with its colour, size and orientation, the three towers
/// and the touching pair come out as they stand, and the pieces fall into the same 10 koans.
#[test]
fn the_benchmarks_full_table_is_read_piece_for_piece() {
    let (truth, found) = truth_and_reading("S2", "scene_04");
    let kinds = |pieces: &serde_json::Value, in_view: bool| {
        kinds_of(pieces, in_view, &["color", "size", "orientation"])
    };
    assert_eq!(
        kinds(&found["pieces"], false),
        kinds(&truth["pieces"], true)
    );
    // Relations by colour and size (ids differ), leaving out the piece hidden in the nest
    // (nothing shows it), each pair in a fixed order.
    let named = |scene: &serde_json::Value, relation: &str, ordered: bool| {
        let pieces = scene["pieces"].as_array().expect("pieces");
        let piece = |id: &serde_json::Value| pieces.iter().find(|p| &p["id"] == id);
        let mut all: Vec<Vec<String>> = common::koan_relation(scene, relation)
            .iter()
            .filter_map(|ids| {
                let mut names = ids
                    .as_array()
                    .expect("ids")
                    .iter()
                    .map(|id| {
                        let p = piece(id).expect("a listed piece");
                        (p["visible_fraction"].as_f64() != Some(0.0))
                            .then(|| format!("{} {}", p["color"], p["size"]))
                    })
                    .collect::<Option<Vec<String>>>()?;
                if !ordered {
                    names.sort();
                }
                Some(names)
            })
            .collect();
        all.sort();
        all
    };
    assert_eq!(named(&found, "towers", true), named(&truth, "towers", true));
    assert_eq!(
        named(&found, "touching", false),
        named(&truth, "touching", false)
    );
    assert_eq!(
        found["koans"].as_array().map(Vec::len),
        truth["koans"].as_array().map(Vec::len),
        "koans"
    );
}

/// A green small on a yellow medium on pale pine under two lamps (`tests/frames/pine-two-lamps`,
/// a frame of the table holdout): the yellow shows as a band under the green, and where the
/// green sits on it the seam in its shade and the blurred edge show neither colour. The base
/// found under the green is not charged for them: the two are one tower, the green raised on
/// the yellow medium, not standing on the table behind a yellow small leaning in front.
#[test]
fn a_tower_on_pine_is_read_past_the_seam_under_its_top() {
    let scene = analyzed_frame("pine-two-lamps");
    let (base, top) = (
        id_of(&scene, "yellow", "medium"),
        id_of(&scene, "green", "small"),
    );
    assert_eq!(
        common::koan_relation(&scene, "towers"),
        vec![serde_json::json!([base, top])],
        "{scene}"
    );
    let (base, top) = (piece_with_id(&scene, base), piece_with_id(&scene, top));
    assert_eq!(base["orientation"], "upright", "{base}");
    assert_eq!(top["grounded"], false, "{top}");
}

/// A red small standing beside a yellow large, seen steeply from above (`tests/frames/steep-camera-shade`,
/// a frame of the camera holdout): the large's tinted shadow greys the small's far face, and
/// the red that is left fits a small leaning on the large better than the standing small the
/// usual search found. Searched closely, standing fits about as well: a piece is not read
/// leaning on that, but standing, and the Master is told the call was close.
#[test]
fn a_piece_half_in_a_neighbours_shadow_stands_rather_than_leans() {
    let scene = analyzed_frame("steep-camera-shade");
    let (small, large) = (
        id_of(&scene, "red", "small"),
        id_of(&scene, "yellow", "large"),
    );
    let small_piece = piece_with_id(&scene, small);
    assert_eq!(small_piece["orientation"], "upright", "{small_piece}");
    // It stands against the large, as in the truth (0.3 mm apart).
    assert!(
        common::koan_relation(&scene, "touching").contains(&serde_json::json!([large, small])),
        "{scene}"
    );
    let calls = common::koan_relation(&scene, "judgment_calls");
    assert!(
        calls.iter().any(|c| c["note"]
            .as_str()
            .is_some_and(|n| n.starts_with(&format!("reading of {small}:")))),
        "{calls:?}"
    );
}

/// The scene document `koanscope analyze` reads from a kept frame (`tests/frames/NAME`) with its
/// calibration.
fn analyzed_frame(name: &str) -> serde_json::Value {
    let frames = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/frames")
        .join(name);
    common::analyzed_scene(&frames.join("scene.jpg"), &frames.join("calibration.yaml"))
}

/// The piece of an analysed scene with this id.
fn piece_with_id(scene: &serde_json::Value, id: u64) -> serde_json::Value {
    scene["pieces"]
        .as_array()
        .and_then(|pieces| pieces.iter().find(|p| p["id"] == id))
        .unwrap_or_else(|| panic!("no piece {id}: {scene}"))
        .clone()
}

/// A sample scene's bundled truth, and the scene document `koanscope analyze` reads from its
/// frame with the setup's bundled calibration.
fn truth_and_reading(setup: &str, scene: &str) -> (serde_json::Value, serde_json::Value) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample_images");
    let truth = serde_json::from_slice(
        &std::fs::read(root.join(format!("{setup}/{scene}.json"))).expect("truth"),
    )
    .expect("truth is JSON");
    let calibration = root
        .join("../calibration")
        .join(format!("sample-{setup}.yaml"));
    let found = common::analyzed_scene(&root.join(format!("{setup}/{scene}.jpg")), &calibration);
    (truth, found)
}

/// The pieces of a scene document as sorted words of the given fields (`"red" "small"`), only
/// those in view (not hidden in a nest) when `in_view`.
fn kinds_of(pieces: &serde_json::Value, in_view: bool, fields: &[&str]) -> Vec<String> {
    let mut kinds: Vec<String> = pieces
        .as_array()
        .expect("pieces")
        .iter()
        .filter(|p| !in_view || p["visible_fraction"].as_f64() != Some(0.0))
        .map(|p| {
            fields
                .iter()
                .map(|f| p[*f].to_string())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    kinds.sort();
    kinds
}

/// The id of the (first) piece of a colour and size in an analysed scene.
fn id_of(scene: &serde_json::Value, color: &str, size: &str) -> u64 {
    scene["pieces"]
        .as_array()
        .and_then(|pieces| {
            pieces
                .iter()
                .find(|p| p["color"] == color && p["size"] == size)
        })
        .and_then(|p| p["id"].as_u64())
        .unwrap_or_else(|| panic!("no {color} {size}: {scene}"))
}
