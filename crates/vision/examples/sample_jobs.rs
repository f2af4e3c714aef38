//! Lays out koanscope's own sample images: camera setups, sample tables of real arrangements and
//! chessboard views, written as render jobs for `tools/render/render_job.py` (Blender) together
//! with their exact truth, in the layout of the rendered dataset (so `koanscope eval` reads it):
//!
//! ```text
//! OUT/intrinsics/intr_NN.job.json          board held in front of the camera
//! OUT/S1/setup.json                          camera K, rvec, tvec, table, light
//! OUT/S1/table.job.json                      the board flat on the table (defines the table frame)
//! OUT/S1/scene_NN.job.json, scene_NN.json    a table of koans, and its truth scene document
//! ```
//!
//! `cargo run -p koanscope-vision --example sample_jobs -- OUT` then `tools/render/render_all OUT`;
//! with `-- OUT --holdout`, the same tables in other setups (see `holdout_setups`); with
//! `-- OUT --cameras`, from camera poses neither shows (see `camera_setups`); with
//! `-- OUT --tables`, on table tops none of them shows (see `table_setups`); with
//! `-- OUT --near-calls`, pairs a hair from touching or apart in the sample and holdout setups
//! (see `near_call_tables`).

use std::f64::consts::PI;
use std::path::{Path, PathBuf};

use koanscope_geometry::{Engine, PieceModels, Placer};
use koanscope_scene::{Color, Piece, Scene, Size};
use koanscope_vision::{Camera, Intrinsics, visible_fractions};
use nalgebra::{Isometry3, Matrix3, Point3, Rotation3, Translation3, UnitQuaternion, Vector3};
use serde_json::{Value, json};

const WIDTH: u32 = 1280;
const HEIGHT: u32 = 720;

/// A camera looking from `eye` at `target`, OpenCV axes (x right, y down, z forward).
fn camera_from_table(eye: Point3<f64>, target: Point3<f64>, roll: f64) -> Isometry3<f64> {
    let forward = (target - eye).normalize();
    let right = forward.cross(&Vector3::z()).normalize();
    let down = forward.cross(&right);
    let table_from_camera_rot =
        Rotation3::from_matrix_unchecked(Matrix3::from_columns(&[right, down, forward]));
    let rolled = table_from_camera_rot * Rotation3::from_axis_angle(&Vector3::z_axis(), roll);
    let table_from_camera = Isometry3::from_parts(
        Translation3::from(eye.coords),
        UnitQuaternion::from_rotation_matrix(&rolled),
    );
    table_from_camera.inverse()
}

fn matrix_rows(m: &Isometry3<f64>) -> Vec<Vec<f64>> {
    let h = m.to_homogeneous();
    (0..4)
        .map(|r| (0..4).map(|c| h[(r, c)]).collect())
        .collect()
}

struct Setup {
    name: &'static str,
    eye: Point3<f64>,
    target: Point3<f64>,
    roll: f64,
    table: &'static str,
    light: Value,
}

fn setups() -> Vec<Setup> {
    vec![
        Setup {
            name: "S1",
            eye: Point3::new(-180.0, -260.0, 470.0),
            target: Point3::new(100.0, 70.0, 0.0),
            roll: 0.02,
            table: "oak",
            light: json!({"sun_elevation_deg": 60.0, "sun_azimuth_deg": 140.0, "sun_strength": 3.0, "world_strength": 0.35}),
        },
        Setup {
            name: "S2",
            eye: Point3::new(380.0, -210.0, 520.0),
            target: Point3::new(110.0, 80.0, 0.0),
            roll: -0.03,
            table: "felt",
            light: json!({"sun_elevation_deg": 45.0, "sun_azimuth_deg": 250.0, "sun_strength": 2.2, "world_strength": 0.5}),
        },
        // Black slate under one small lamp and little light besides: shadows as dark as black
        // plastic.
        Setup {
            name: "S3",
            eye: Point3::new(300.0, -250.0, 560.0),
            target: Point3::new(100.0, 60.0, 0.0),
            roll: 0.0,
            table: "slate",
            light: json!({"lamps": [{"at_mm": [-150.0, 250.0, 420.0], "size_mm": 60.0, "colour": [1.0, 0.95, 0.88], "watts": 4.0}],
                          "world_colour": [0.9, 0.9, 0.95], "world_strength": 0.25}),
        },
    ]
}

/// Tables and lights that neither the samples nor the dev dataset show, from other heights and
/// sides, for measuring how the pipeline carries over (`scripts/holdout`): a green baize under a
/// warm lamp, dark walnut under a cool and a warm lamp, pale linen in a low sun, black slate
/// under one small lamp.
fn holdout_setups() -> Vec<Setup> {
    vec![
        Setup {
            name: "H1",
            eye: Point3::new(120.0, -330.0, 430.0),
            target: Point3::new(95.0, 65.0, 0.0),
            roll: 0.01,
            table: "baize",
            light: json!({"lamps": [{"at_mm": [250.0, -150.0, 650.0], "size_mm": 300.0, "colour": [1.0, 0.8, 0.6], "watts": 6.0}],
                          "world_colour": [1.0, 0.9, 0.8], "world_strength": 0.15}),
        },
        Setup {
            name: "H2",
            eye: Point3::new(-250.0, 200.0, 560.0),
            target: Point3::new(100.0, 60.0, 0.0),
            roll: -0.02,
            table: "walnut",
            light: json!({"lamps": [
                {"at_mm": [-150.0, -250.0, 550.0], "size_mm": 150.0, "colour": [0.85, 0.92, 1.0], "watts": 3.0},
                {"at_mm": [400.0, 300.0, 500.0], "size_mm": 150.0, "colour": [1.0, 0.85, 0.7], "watts": 2.5}],
                "world_colour": [0.9, 0.9, 0.9], "world_strength": 0.2}),
        },
        Setup {
            name: "H3",
            eye: Point3::new(420.0, 330.0, 480.0),
            target: Point3::new(100.0, 60.0, 0.0),
            roll: 0.03,
            table: "linen",
            light: json!({"sun_elevation_deg": 28.0, "sun_azimuth_deg": 20.0, "sun_strength": 2.5, "world_strength": 0.4}),
        },
        Setup {
            name: "H4",
            eye: Point3::new(60.0, -280.0, 620.0),
            target: Point3::new(100.0, 70.0, 0.0),
            roll: 0.0,
            table: "slate",
            light: json!({"lamps": [{"at_mm": [-200.0, 100.0, 450.0], "size_mm": 60.0, "colour": [1.0, 0.95, 0.88], "watts": 4.0}],
                          "world_colour": [0.9, 0.9, 0.95], "world_strength": 0.25}),
        },
    ]
}

/// Table tops that no other set shows, each under a light of its own, from heights and sides
/// like the dev dataset's (`scripts/holdout --tables`): a red felt (red pieces on a cloth of
/// their own hue), pale pine under two lamps (yellow pieces on a yellowish wood), white
/// melamine under a broad lamp overhead (faint shadows, bright glare), and cork in a low sun (a
/// tan between the red and the yellow pieces' hues); then reddish cherry in sun, pale maple in
/// a high sun, cork under two warm lamps (a table as colourful as a cloth), and pine in a low sun.
fn table_setups() -> Vec<Setup> {
    vec![
        Setup {
            name: "T1",
            eye: Point3::new(-120.0, -360.0, 470.0),
            target: Point3::new(100.0, 65.0, 0.0),
            roll: 0.02,
            table: "burgundy",
            light: json!({"sun_elevation_deg": 52.0, "sun_azimuth_deg": 160.0, "sun_strength": 2.6, "world_strength": 0.4}),
        },
        Setup {
            name: "T2",
            eye: Point3::new(400.0, -120.0, 520.0),
            target: Point3::new(100.0, 65.0, 0.0),
            roll: -0.01,
            table: "pine",
            light: json!({"lamps": [
                {"at_mm": [-200.0, -200.0, 520.0], "size_mm": 120.0, "colour": [1.0, 0.88, 0.75], "watts": 3.0},
                {"at_mm": [350.0, 350.0, 560.0], "size_mm": 150.0, "colour": [0.95, 0.97, 1.0], "watts": 2.5}],
                "world_colour": [0.9, 0.9, 0.9], "world_strength": 0.2}),
        },
        Setup {
            name: "T3",
            eye: Point3::new(60.0, -300.0, 600.0),
            target: Point3::new(100.0, 70.0, 0.0),
            roll: 0.0,
            table: "melamine",
            light: json!({"lamps": [{"at_mm": [100.0, 60.0, 900.0], "size_mm": 600.0, "colour": [1.0, 1.0, 0.97], "watts": 14.0}],
                          "world_colour": [0.95, 0.95, 0.95], "world_strength": 0.35}),
        },
        Setup {
            name: "T4",
            eye: Point3::new(-300.0, 250.0, 500.0),
            target: Point3::new(100.0, 60.0, 0.0),
            roll: 0.03,
            table: "cork",
            light: json!({"sun_elevation_deg": 32.0, "sun_azimuth_deg": 300.0, "sun_strength": 2.4, "world_strength": 0.4}),
        },
        Setup {
            name: "T5",
            eye: Point3::new(350.0, -300.0, 480.0),
            target: Point3::new(100.0, 65.0, 0.0),
            roll: 0.0,
            table: "cherry",
            light: json!({"sun_elevation_deg": 48.0, "sun_azimuth_deg": 230.0, "sun_strength": 2.6, "world_strength": 0.4}),
        },
        Setup {
            name: "T6",
            eye: Point3::new(-200.0, -250.0, 560.0),
            target: Point3::new(100.0, 65.0, 0.0),
            roll: 0.01,
            table: "maple",
            light: json!({"sun_elevation_deg": 65.0, "sun_azimuth_deg": 80.0, "sun_strength": 3.0, "world_strength": 0.35}),
        },
        Setup {
            name: "T7",
            eye: Point3::new(150.0, 420.0, 500.0),
            target: Point3::new(100.0, 60.0, 0.0),
            roll: -0.02,
            table: "cork",
            light: json!({"lamps": [
                {"at_mm": [300.0, -100.0, 500.0], "size_mm": 120.0, "colour": [1.0, 0.85, 0.7], "watts": 3.5},
                {"at_mm": [-150.0, 300.0, 550.0], "size_mm": 120.0, "colour": [1.0, 0.9, 0.8], "watts": 2.5}],
                "world_colour": [1.0, 0.95, 0.9], "world_strength": 0.2}),
        },
        Setup {
            name: "T8",
            eye: Point3::new(-350.0, 100.0, 450.0),
            target: Point3::new(100.0, 65.0, 0.0),
            roll: 0.02,
            table: "pine",
            light: json!({"sun_elevation_deg": 25.0, "sun_azimuth_deg": 150.0, "sun_strength": 2.4, "world_strength": 0.45}),
        },
    ]
}

/// The same tables seen from camera poses that neither the samples, the holdout nor the dev
/// dataset show (`scripts/holdout --cameras`), on tables and lights they do: a webcam straight
/// over the table (upright and upside-down pieces show nearly the same outline), one low over
/// its edge, one twice as far (pieces half the pixels), one close and turned on its axis, and
/// two high over the table (72 and 78 deg down) between the dev set's poses and straight over.
fn camera_setups() -> Vec<Setup> {
    vec![
        Setup {
            name: "C1",
            eye: Point3::new(115.0, 35.0, 560.0),
            target: Point3::new(100.0, 65.0, 0.0),
            roll: 0.0,
            table: "oak",
            light: json!({"sun_elevation_deg": 55.0, "sun_azimuth_deg": 200.0, "sun_strength": 2.6, "world_strength": 0.4}),
        },
        Setup {
            name: "C2",
            eye: Point3::new(-380.0, -300.0, 330.0),
            target: Point3::new(100.0, 65.0, 0.0),
            roll: 0.0,
            table: "felt",
            light: json!({"lamps": [
                {"at_mm": [300.0, -200.0, 600.0], "size_mm": 200.0, "colour": [1.0, 0.93, 0.85], "watts": 5.0}],
                "world_colour": [0.9, 0.9, 0.95], "world_strength": 0.3}),
        },
        Setup {
            name: "C3",
            eye: Point3::new(520.0, -460.0, 820.0),
            target: Point3::new(100.0, 65.0, 0.0),
            roll: -0.02,
            table: "linen",
            light: json!({"sun_elevation_deg": 40.0, "sun_azimuth_deg": 110.0, "sun_strength": 2.2, "world_strength": 0.45}),
        },
        Setup {
            name: "C4",
            eye: Point3::new(110.0, -190.0, 320.0),
            target: Point3::new(100.0, 65.0, 0.0),
            roll: 0.35,
            table: "walnut",
            light: json!({"lamps": [
                {"at_mm": [-100.0, -150.0, 500.0], "size_mm": 150.0, "colour": [1.0, 0.9, 0.8], "watts": 4.0}],
                "world_colour": [0.9, 0.9, 0.9], "world_strength": 0.25}),
        },
        Setup {
            name: "C5",
            eye: Point3::new(100.0, -117.0, 560.0),
            target: Point3::new(100.0, 65.0, 0.0),
            roll: 0.0,
            table: "oak",
            light: json!({"sun_elevation_deg": 55.0, "sun_azimuth_deg": 200.0, "sun_strength": 2.6, "world_strength": 0.4}),
        },
        Setup {
            name: "C6",
            eye: Point3::new(184.0, -19.0, 560.0),
            target: Point3::new(100.0, 65.0, 0.0),
            roll: 0.0,
            table: "felt",
            light: json!({"sun_elevation_deg": 50.0, "sun_azimuth_deg": 120.0, "sun_strength": 2.4, "world_strength": 0.45}),
        },
    ]
}

fn intrinsics() -> Intrinsics {
    Intrinsics {
        camera_matrix: Matrix3::new(920.0, 0.0, 639.5, 0.0, 920.0, 359.5, 0.0, 0.0, 1.0),
        distortion: [0.0; 5],
        image_size: [WIDTH, HEIGHT],
    }
}

/// Four sample tables of real arrangements around the board area (x 0..200, y 0..125 mm).
fn tables() -> Vec<Vec<(Color, Size, Isometry3<f64>)>> {
    let p = Placer::default();
    let tower = |x: f64, y: f64, sizes: &[Size], yaw: f64| {
        let mut out = vec![(sizes[0], p.upright(x, y, yaw))];
        for &s in &sizes[1..] {
            let (below_size, below) = *out.last().expect("non-empty");
            if let Some(pose) = p.on_tip(below_size, &below, s) {
                out.push((s, pose));
            }
        }
        out
    };
    let colored = |pieces: Vec<(Size, Isometry3<f64>)>,
                   colors: &[Color]|
     -> Vec<(Color, Size, Isometry3<f64>)> {
        pieces
            .into_iter()
            .zip(colors.iter().cycle())
            .map(|((s, pose), &c)| (c, s, pose))
            .collect()
    };
    let mut t0 = colored(
        tower(20.0, 20.0, &[Size::Large, Size::Medium], 0.3),
        &[Color::Blue, Color::Red],
    );
    t0.push((
        Color::Green,
        Size::Small,
        p.flat(Size::Small, -40.0, 30.0, 0.1),
    ));
    // Two uprights turned alike, face to face 0.3 mm apart at their base (touching): the small
    // stands off the large along the normal of the faces that meet (on the cameras' side, in
    // view), the two half-bases and the gap away (measured along the x axis instead, their
    // turned corners would go 4 mm into each other).
    let (turn, reach) = (0.7_f64, 12.7 + 7.15 + 0.3);
    t0.push((Color::Yellow, Size::Large, p.upright(150.0, 30.0, turn)));
    t0.push((
        Color::Red,
        Size::Small,
        p.upright(150.0 + reach * turn.sin(), 30.0 - reach * turn.cos(), turn),
    ));
    t0.push((
        Color::Blue,
        Size::Medium,
        p.upside_down(Size::Medium, 90.0, 140.0, 0.2),
    ));

    let mut t1 = colored(
        tower(0.0, 100.0, &[Size::Medium, Size::Small], 1.1),
        &[Color::Yellow, Color::Green],
    );
    t1.push((
        Color::Red,
        Size::Large,
        p.flat(Size::Large, 110.0, 10.0, 2.3),
    ));
    t1.push((Color::Blue, Size::Small, p.upright(200.0, 120.0, 0.0)));
    t1.push((
        Color::Green,
        Size::Medium,
        p.flat(Size::Medium, 200.0, 60.0, -1.2),
    ));

    let bridge = p.flat_at_height(Size::Large, 60.0, 40.0, 0.4, 25.45);
    let under = |along: f64| bridge * Point3::new(-12.7 + along * 0.25, 0.0, along);
    let (a, b) = (under(8.0), under(30.0));
    let mut t2 = vec![
        (Color::Blue, Size::Small, p.upright(a.x, a.y, 0.4)),
        (Color::Yellow, Size::Small, p.upright(b.x, b.y, 0.4)),
        (Color::Green, Size::Large, bridge),
    ];
    // A piece tipped at a slant stays so only leaning on another: a blue large stands where
    // the red medium's apex rests against it (0.2 mm apart, touching).
    let leaner = p.tipped(Size::Medium, 180.0, 130.0, PI, 0.5);
    let support_at = p
        .upright_holding(
            &Engine::default(),
            &Piece::new(0, Color::Red, Size::Medium, leaner),
            Size::Large,
            PI,
            0.2,
        )
        .expect("a large can hold the leaner");
    t2.push((Color::Red, Size::Medium, leaner));
    t2.push((Color::Blue, Size::Large, support_at));
    t2.push((
        Color::Yellow,
        Size::Large,
        p.flat(Size::Large, 190.0, 20.0, PI / 2.0),
    ));

    let mut t3 = colored(
        tower(40.0, 60.0, &[Size::Large, Size::Medium, Size::Small], 0.0),
        &[Color::Green, Color::Yellow, Color::Red],
    );
    t3.push((Color::Blue, Size::Large, p.upright(170.0, 90.0, 0.5)));
    t3.push((Color::Red, Size::Medium, p.upright(170.0, 90.0, 0.5)));
    t3.push((
        Color::Yellow,
        Size::Small,
        p.flat(Size::Small, 100.0, -30.0, 0.9),
    ));
    // A full table for the benchmark (`koanscope bench`): three of the tables side by side,
    // 17 pieces (16 in view) in 10 koans.
    let moved = |pieces: &[(Color, Size, Isometry3<f64>)], dx: f64, dy: f64| {
        let shift = Translation3::new(dx, dy, 0.0);
        pieces
            .iter()
            .map(|&(c, s, pose)| (c, s, shift * pose))
            .collect::<Vec<_>>()
    };
    let mut full = moved(&t0, -150.0, 100.0);
    full.extend(moved(&t1, 150.0, 120.0));
    full.extend(moved(&t3, 40.0, -80.0));
    vec![t0, t1, t2, t3, full]
}

/// Tables of pairs set a hair from touching or a hair apart (`scripts/holdout --near-calls`),
/// where the camera cannot measure the gap and the detector judges it: a piece lying flat with
/// its apex pointing at the middle of an upright's base edge, and two uprights turned alike
/// face to face. Each table holds six pairs (separate koans), three touching in the truth (0.2
/// to 0.6 mm apart; at 0.5 and 0.6 mm a near call in the truth too, within 0.3 mm of the 0.8
/// mm threshold) and three apart (1.2 to 2.2 mm, within the gap the detector closes), the gaps
/// set by the geometry engine's own measure, turned to face the camera at several angles.
fn near_call_tables(eye: Point3<f64>) -> Vec<Vec<(Color, Size, Isometry3<f64>)>> {
    let p = Placer::default();
    let engine = Engine::default();
    let models = PieceModels::default();
    // Moves `mover` along `away` until the engine measures `gap_mm` from `other`.
    let set_gap = |other: &Piece, mover: &mut Piece, away: Vector3<f64>, gap_mm: f64| {
        let start = mover.table_from_piece;
        let mut back = 0.0;
        for _ in 0..8 {
            let gap = engine.surface_distance(other, mover);
            back += gap_mm - gap;
            mover.table_from_piece = Translation3::from(away * back) * start;
        }
    };
    // A flat large's apex heading `heading` at an upright's base edge, `gap_mm` off it.
    let tip_at_edge =
        |colors: [Color; 2], upright: Size, x: f64, y: f64, heading: f64, gap_mm: f64| {
            let along = Vector3::new(heading.cos(), heading.sin(), 0.0);
            let standing = Piece::new(0, colors[0], upright, p.upright(x, y, heading));
            let lying = p.flat(Size::Large, 0.0, 0.0, heading);
            let apex = lying * Point3::new(0.0, 0.0, models.dims(Size::Large).height_mm);
            let edge = Point3::new(x, y, 0.0) - along * models.dims(upright).base_mm / 2.0;
            let mut flat = Piece::new(
                1,
                colors[1],
                Size::Large,
                Translation3::new(edge.x - apex.x, edge.y - apex.y, 0.0) * lying,
            );
            set_gap(&standing, &mut flat, -along, gap_mm);
            [standing, flat]
        };
    // Two uprights turned `turn`, the second standing off the first's face along its normal.
    let face_to_face =
        |colors: [Color; 2], sizes: [Size; 2], x: f64, y: f64, turn: f64, gap_mm: f64| {
            let normal = Vector3::new(turn.cos(), turn.sin(), 0.0);
            let reach = (models.dims(sizes[0]).base_mm + models.dims(sizes[1]).base_mm) / 2.0;
            let first = Piece::new(0, colors[0], sizes[0], p.upright(x, y, turn));
            let mut second = Piece::new(
                1,
                colors[1],
                sizes[1],
                p.upright(x + reach * normal.x, y + reach * normal.y, turn),
            );
            set_gap(&first, &mut second, normal, gap_mm);
            [first, second]
        };
    use Color::{Blue, Green, Red, Yellow};
    use Size::{Large, Medium, Small};
    // Six places, 110 mm apart (far beyond the 30 mm between koans), and the bearing of the
    // camera from each: a flat piece lies on the camera's side of its upright, its apex heading
    // `turn` off straight away from the camera; of two uprights face to face, the second stands
    // on the camera's side, the faces turned `turn` from facing it.
    let at = |k: usize| {
        (
            -20.0 + 110.0 * (k % 3) as f64,
            10.0 + 115.0 * (k / 3) as f64,
        )
    };
    let bearing = |(x, y): (f64, f64)| (eye.y - y).atan2(eye.x - x);
    let tip = |colors, upright, k: usize, turn: f64, gap_mm| {
        let (x, y) = at(k);
        tip_at_edge(colors, upright, x, y, bearing((x, y)) + PI + turn, gap_mm)
    };
    let faces = |colors, sizes, k: usize, turn: f64, gap_mm| {
        let (x, y) = at(k);
        face_to_face(colors, sizes, x, y, bearing((x, y)) + turn, gap_mm)
    };
    let table = |pairs: Vec<[Piece; 2]>| {
        pairs
            .into_iter()
            .flatten()
            .map(|piece| (piece.color, piece.size, piece.table_from_piece))
            .collect::<Vec<_>>()
    };
    let degrees = |d: f64| d.to_radians();
    vec![
        table(vec![
            tip([Red, Green], Medium, 0, degrees(0.0), 0.5),
            tip([Blue, Yellow], Small, 1, degrees(40.0), 1.6),
            faces([Yellow, Red], [Large, Small], 2, degrees(20.0), 0.3),
            faces([Green, Blue], [Medium, Medium], 3, degrees(-35.0), 1.2),
            tip([Yellow, Blue], Large, 4, degrees(-70.0), 0.2),
            tip([Green, Red], Medium, 5, degrees(70.0), 2.2),
        ]),
        table(vec![
            tip([Blue, Red], Medium, 0, degrees(-40.0), 1.2),
            tip([Red, Yellow], Small, 1, degrees(90.0), 0.6),
            faces([Blue, Yellow], [Large, Medium], 2, degrees(-20.0), 2.2),
            faces([Red, Green], [Small, Medium], 3, degrees(35.0), 0.5),
            tip([Green, Blue], Large, 4, degrees(-90.0), 1.6),
            tip([Yellow, Green], Medium, 5, degrees(20.0), 0.3),
        ]),
    ]
}

/// The truth scene document: everything derived, plus the image position and visibility fields
/// the dataset format carries (the share of each silhouette no other piece hides, pieces taken
/// as opaque).
fn truth(camera: &Camera, pieces: &[(Color, Size, Isometry3<f64>)], source: &str) -> Value {
    let mut scene = Scene::from_pieces(
        pieces
            .iter()
            .enumerate()
            .map(|(i, (c, s, pose))| Piece::new(i as u32, *c, *s, *pose))
            .collect(),
    );
    scene.source = Some(source.to_string());
    scene.image_size = Some([WIDTH, HEIGHT]);
    Engine::default().derive(&mut scene);
    let sized: Vec<(Size, Isometry3<f64>)> =
        pieces.iter().map(|(_, s, pose)| (*s, *pose)).collect();
    let visible = visible_fractions(camera, &PieceModels::default(), &sized);
    let mut doc = scene.to_json_value();
    for piece in doc["pieces"].as_array_mut().expect("pieces") {
        let id = piece["id"].as_u64().expect("id") as u32;
        let scene_piece = scene.piece(id).expect("same ids");
        let a = scene_piece.attributes.as_ref().expect("derived");
        let model_height = (a.apex_mm - a.base_center_mm).norm();
        let centroid = a.base_center_mm + a.axis * model_height / 4.0;
        let xy = camera
            .project_table(&centroid)
            .expect("in front of the camera");
        piece["image_xy"] = json!([xy.x, xy.y]);
        piece["centroid_mm"] = json!([centroid.x, centroid.y, centroid.z]);
        piece["visible_fraction"] = json!((visible[id as usize] * 1000.0).round() / 1000.0);
    }
    doc
}

fn write(path: &Path, value: &Value) {
    std::fs::create_dir_all(path.parent().expect("has a folder")).expect("can create the folder");
    std::fs::write(
        path,
        serde_json::to_string_pretty(value).expect("serialises"),
    )
    .expect("can write");
}

fn job(
    output: &Path,
    camera_from_table: &Isometry3<f64>,
    setup: &Setup,
    board: Option<Isometry3<f64>>,
    pieces: &[(Color, Size, Isometry3<f64>)],
    seed: u64,
) -> Value {
    let k = intrinsics().camera_matrix;
    json!({
        "output": output.file_name().and_then(|n| n.to_str()).expect("a file name"),
        "image_size": [WIDTH, HEIGHT],
        "K": [[k[(0, 0)], k[(0, 1)], k[(0, 2)]], [k[(1, 0)], k[(1, 1)], k[(1, 2)]], [k[(2, 0)], k[(2, 1)], k[(2, 2)]]],
        "camera_from_table": matrix_rows(camera_from_table),
        "table": setup.table,
        "light": setup.light,
        "board": board.map(|b| matrix_rows(&b)),
        "pieces": pieces.iter().map(|(c, s, pose)| json!({"color": c.word(), "size": s.word(), "table_from_piece": matrix_rows(pose)})).collect::<Vec<_>>(),
        "seed": seed,
    })
}

fn main() {
    let mut args = std::env::args().skip(1);
    let out = PathBuf::from(args.next().unwrap_or_else(|| "sample_images".into()));
    // The samples show each setup three of the four tables; the holdouts show every table.
    let which = args.next();
    let (all_setups, holdout) = match which.as_deref() {
        Some("--holdout") => (holdout_setups(), true),
        Some("--cameras") => (camera_setups(), true),
        Some("--tables") => (table_setups(), true),
        Some("--near-calls") => (setups().into_iter().chain(holdout_setups()).collect(), true),
        _ => (setups(), false),
    };
    let near_calls = which.as_deref() == Some("--near-calls");
    for (si, setup) in all_setups.iter().enumerate() {
        let tables = if near_calls {
            near_call_tables(setup.eye)
        } else {
            tables()
        };
        let camera_from_table = camera_from_table(setup.eye, setup.target, setup.roll);
        let camera = Camera::new(intrinsics(), camera_from_table);
        let dir = out.join(setup.name);
        let (rvec, tvec) = koanscope_vision::rvec_tvec_from_isometry(&camera_from_table);
        write(
            &dir.join("setup.json"),
            &json!({
                "setup": setup.name,
                "made_by": "crates/vision/examples/sample_jobs.rs, rendered by tools/render/render_job.py (Blender Cycles)",
                "K": job(Path::new("x"), &camera_from_table, setup, None, &[], 0)["K"],
                "dist": [0.0, 0.0, 0.0, 0.0, 0.0],
                "rvec": rvec, "tvec": tvec,
                "image_size": [WIDTH, HEIGHT],
                "table": setup.table, "light": setup.light,
                "chessboard": {"inner_corners": [9, 6], "square_mm": 25.0},
            }),
        );
        write(
            &dir.join("table.job.json"),
            &job(
                &dir.join("table.jpg"),
                &camera_from_table,
                setup,
                Some(Isometry3::identity()),
                &[],
                100 + si as u64,
            ),
        );
        for (ti, pieces) in tables.iter().enumerate().filter(|(ti, _)| match ti {
            // The full table: only on the grey felt, timed by `koanscope bench`.
            4 => !holdout && setup.name == "S2",
            _ => holdout || ti % 2 == si % 2 || *ti >= 2,
        }) {
            let image = dir.join(format!("scene_{ti:02}.jpg"));
            write(
                &image.with_extension("job.json"),
                &job(
                    &image,
                    &camera_from_table,
                    setup,
                    None,
                    pieces,
                    200 + ti as u64,
                ),
            );
            write(
                &image.with_extension("json"),
                &truth(
                    &camera,
                    pieces,
                    &format!("{}/scene_{ti:02}.jpg", setup.name),
                ),
            );
        }
    }
    // Board views for the intrinsics, from the first setup's camera: tilted up to ~35°.
    let setup = &all_setups[0];
    let camera_from_table = camera_from_table(setup.eye, setup.target, setup.roll);
    let views = [
        (0.0, 0.0, 0.0, 420.0),
        (0.5, 0.0, 0.3, 450.0),
        (-0.5, 0.1, -0.2, 430.0),
        (0.0, 0.55, 0.5, 470.0),
        (0.1, -0.55, 1.2, 440.0),
        (0.35, 0.35, -0.6, 520.0),
        (-0.4, -0.3, 0.9, 380.0),
        (0.2, 0.45, -1.0, 500.0),
    ];
    for (vi, &(tilt_x, tilt_y, spin, distance)) in views.iter().enumerate() {
        // Board faces the camera (its z toward the lens), then tilts; centred near the optical axis.
        let face = UnitQuaternion::from_axis_angle(&Vector3::x_axis(), PI);
        let rotation = UnitQuaternion::from_euler_angles(tilt_x, tilt_y, spin) * face;
        let centre_board = Vector3::new(100.0, 62.5, 0.0);
        let offset = Vector3::new(
            20.0 * (vi as f64 - 3.5),
            12.0 * ((vi % 3) as f64 - 1.0),
            distance,
        );
        let camera_from_board = Isometry3::from_parts(
            Translation3::from(offset - rotation * centre_board),
            rotation,
        );
        let table_from_board = camera_from_table.inverse() * camera_from_board;
        let image = out.join("intrinsics").join(format!("intr_{vi:02}.jpg"));
        write(
            &image.with_extension("job.json"),
            &job(
                &image,
                &camera_from_table,
                setup,
                Some(table_from_board),
                &[],
                300 + vi as u64,
            ),
        );
    }
}
