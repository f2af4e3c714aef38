//! Hands over the table, on real frames: a skin-coloured arm pasted onto a sample picture.

mod common;

use std::time::{Duration, Instant};

use common::{Feed, derived, kinds, truth, with_piece, without};
use image::{Rgb, RgbImage};
use koanscope_geometry::Engine;
use koanscope_scene::{Color, Size};
use koanscope_tracker::{KoanState, Occlusion, OcclusionDetector, Tracker};

fn frame(name: &str) -> RgbImage {
    image::open(common::samples().join(name))
        .expect("a sample frame")
        .into_rgb8()
}

/// Is (x, y) inside the polygon (even-odd rule)?
fn inside(polygon: &[(f64, f64)], x: f64, y: f64) -> bool {
    let mut inside = false;
    let mut j = polygon.len() - 1;
    for i in 0..polygon.len() {
        let ((xi, yi), (xj, yj)) = (polygon[i], polygon[j]);
        if (yi > y) != (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi {
            inside = !inside;
        }
        j = i;
    }
    inside
}

/// The frame with an arm reaching in from the bottom edge towards (hand_x, hand_y): a forearm
/// and a hand in skin tones, shaded across the arm, with a little pixel noise like a camera's.
/// `reach` in [0, 1] is how far it has come in.
fn with_arm(base: &RgbImage, reach: f64, hand: (f64, f64)) -> RgbImage {
    let entry = (930.0, base.height() as f64 + 20.0);
    with_arm_from(base, entry, reach, hand, [224.0, 172.0, 142.0])
}

/// An arm entering at `entry` (outside the frame) in the colour `rgb`.
fn with_arm_from(
    base: &RgbImage,
    entry: (f64, f64),
    reach: f64,
    hand: (f64, f64),
    rgb: [f64; 3],
) -> RgbImage {
    let (w, h) = (base.width() as f64, base.height() as f64);
    let tip = (
        entry.0 + (hand.0 - entry.0) * reach,
        entry.1 + (hand.1 - entry.1) * reach,
    );
    // Forearm: a quadrilateral 150 px wide at the edge, 110 px at the wrist.
    let (dx, dy) = (tip.0 - entry.0, tip.1 - entry.1);
    let len = dx.hypot(dy).max(1.0);
    let (nx, ny) = (-dy / len, dx / len);
    let arm = [
        (entry.0 + nx * 75.0, entry.1 + ny * 75.0),
        (tip.0 + nx * 55.0, tip.1 + ny * 55.0),
        (tip.0 - nx * 55.0, tip.1 - ny * 55.0),
        (entry.0 - nx * 75.0, entry.1 - ny * 75.0),
    ];
    let mut out = base.clone();
    let mut noise: u32 = 12345;
    for y in 0..base.height() {
        for x in 0..base.width() {
            let (fx, fy) = (x as f64, y as f64);
            let in_hand = ((fx - tip.0) / 70.0).powi(2) + ((fy - tip.1) / 60.0).powi(2) <= 1.0;
            if !(in_hand || inside(&arm, fx, fy)) || fx >= w || fy >= h {
                continue;
            }
            // Shading across the arm: lit on one side.
            let across = ((fx - tip.0) * nx + (fy - tip.1) * ny) / 75.0;
            let shade = 1.0 - 0.18 * across.clamp(-1.0, 1.0);
            noise = noise.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let jitter = ((noise >> 16) % 9) as f64 - 4.0;
            let tone = |c: f64| (c * shade + jitter).clamp(0.0, 255.0) as u8;
            out.put_pixel(x, y, Rgb([tone(rgb[0]), tone(rgb[1]), tone(rgb[2])]));
        }
    }
    out
}

/// The tower koan of S1/scene_00 is around (595, 455) in the picture.
const OVER_THE_TOWER: (f64, f64) = (600.0, 440.0);

#[test]
fn the_detector_sees_an_arm_and_only_an_arm() {
    let table = frame("S1/scene_00.jpg");
    let mut detector = OcclusionDetector::default();
    let step = Duration::from_millis(33);
    let mut time = Duration::ZERO;
    let mut read = |detector: &mut OcclusionDetector, image: &RgbImage| {
        let reading = detector.observe(image, time);
        time += step;
        reading
    };
    for _ in 0..10 {
        assert!(!read(&mut detector, &table).occluded);
    }
    // The arm comes in over three frames, stays half a second, leaves over two.
    let mut readings = Vec::new();
    for reach in [0.25, 0.6, 1.0] {
        readings.push(read(
            &mut detector,
            &with_arm(&table, reach, OVER_THE_TOWER),
        ));
    }
    let still = with_arm(&table, 1.0, OVER_THE_TOWER);
    for _ in 0..15 {
        readings.push(read(&mut detector, &still));
    }
    for reach in [0.6, 0.2] {
        readings.push(read(
            &mut detector,
            &with_arm(&table, reach, OVER_THE_TOWER),
        ));
    }
    for (i, r) in readings.iter().enumerate() {
        assert!(r.occluded, "arm frame {i}: {r:?}");
    }
    let full = readings[5];
    assert!(
        full.arm > 0.03 && full.arm < 0.2,
        "the arm covers a few % of the frame: {full:?}"
    );
    // Gone: at most the frame where it vanished counts (motion), then clear.
    let after: Vec<Occlusion> = (0..5).map(|_| read(&mut detector, &table)).collect();
    assert!(after[1..].iter().all(|r| !r.occluded), "{after:?}");
    assert!(
        after[4].foreground < 0.005,
        "the table model was not spoiled by the arm: {:?}",
        after[4]
    );
}

#[test]
fn a_new_table_picture_is_not_a_hand() {
    // Pieces appear and vanish in the middle of the table (the demo switching pictures): not an arm.
    let mut detector = OcclusionDetector::default();
    let mut time = Duration::ZERO;
    let pictures = [
        frame("S1/scene_00.jpg"),
        frame("S1/scene_02.jpg"),
        frame("S1/scene_03.jpg"),
        frame("S1/table.jpg"),
    ];
    for picture in &pictures {
        for i in 0..10 {
            let reading = detector.observe(picture, time);
            time += Duration::from_millis(33);
            assert!(reading.arm < 0.01, "frame {i}: {reading:?}");
            if i > 0 {
                assert!(
                    !reading.occluded,
                    "frame {i} of a still picture: {reading:?}"
                );
            }
        }
    }
}

#[test]
fn pieces_under_a_hand_never_become_koans_and_the_table_resumes() {
    let engine = Engine::default();
    let scene = derived(&engine, &truth("S1/scene_00"));
    // What vision makes of a frame with an arm over the tower: the tower's pieces hidden, the
    // hand read as an orange large piece and the forearm as a red medium one.
    let fooled = derived(
        &engine,
        &with_piece(
            &with_piece(
                &without(&scene, &[0, 1, 2]),
                Color::Orange,
                Size::Large,
                30.0,
                10.0,
            ),
            Color::Red,
            Size::Medium,
            60.0,
            -120.0,
        ),
    );
    let table = frame("S1/scene_00.jpg");
    let mut detector = OcclusionDetector::default();
    let mut feed = Feed::new(Tracker::default(), 30);
    let mut events = Vec::new();
    let mut show = |feed: &mut Feed,
                    picture: &RgbImage,
                    scene: &koanscope_scene::Scene,
                    frames: usize,
                    events: &mut Vec<_>| {
        for _ in 0..frames {
            let reading = detector.observe(picture, feed.time);
            feed.frame(scene, reading, events);
        }
    };
    show(&mut feed, &table, &scene, 60, &mut events);
    let built = feed.ids();
    assert_eq!(built.len(), 3);
    events.clear();

    let arm = with_arm(&table, 1.0, OVER_THE_TOWER);
    show(
        &mut feed,
        &with_arm(&table, 0.4, OVER_THE_TOWER),
        &scene,
        1,
        &mut events,
    );
    show(&mut feed, &arm, &fooled, 90, &mut events);
    assert_eq!(kinds(&events), ["hands in"]);
    assert!(feed.tracker.is_paused());
    assert_eq!(
        feed.ids(),
        built,
        "no koan made of the hand, none lost under it"
    );

    show(
        &mut feed,
        &with_arm(&table, 0.3, OVER_THE_TOWER),
        &scene,
        1,
        &mut events,
    );
    show(&mut feed, &table, &scene, 60, &mut events);
    assert_eq!(kinds(&events), ["hands in", "hands out"]);
    assert_eq!(feed.ids(), built);
    assert!(
        feed.tracker
            .koans()
            .iter()
            .all(|k| k.state() == KoanState::Built)
    );
}

#[test]
fn a_dark_sleeve_from_the_left_on_another_table_is_seen_too() {
    let table = frame("S2/scene_01.jpg");
    let mut detector = OcclusionDetector::default();
    let mut time = Duration::ZERO;
    for _ in 0..5 {
        detector.observe(&table, time);
        time += Duration::from_millis(100);
    }
    let navy = [40.0, 45.0, 80.0];
    for reach in [0.3, 0.7, 1.0, 1.0, 1.0, 0.5] {
        let arm = with_arm_from(&table, (-30.0, 300.0), reach, (640.0, 380.0), navy);
        let reading = detector.observe(&arm, time);
        time += Duration::from_millis(100);
        assert!(reading.occluded, "reach {reach}: {reading:?}");
    }
}

#[test]
fn camera_noise_is_not_a_hand() {
    let table = frame("S1/scene_00.jpg");
    let mut detector = OcclusionDetector::default();
    let mut seed: u32 = 7;
    for i in 0..30 {
        // Sensor noise of up to ±8 levels per pixel and channel, new every frame.
        let mut noisy = table.clone();
        for value in noisy.iter_mut() {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let n = ((seed >> 24) % 17) as i32 - 8;
            *value = (i32::from(*value) + n).clamp(0, 255) as u8;
        }
        let reading = detector.observe(&noisy, Duration::from_millis(33 * i));
        assert!(!reading.occluded, "frame {i}: {reading:?}");
    }
}

#[test]
fn a_change_of_light_pauses_only_until_it_has_been_still_a_while() {
    let table = frame("S1/scene_00.jpg");
    let mut brighter = table.clone();
    brighter.iter_mut().for_each(|v| *v = v.saturating_add(45));
    let config = OcclusionDetector::default().config().clone();
    let mut detector = OcclusionDetector::new(config.clone());
    let step = Duration::from_millis(100);
    let mut time = Duration::ZERO;
    for _ in 0..5 {
        detector.observe(&table, time);
        time += step;
    }
    // The lamp goes on: the whole table differs from the model, edge to edge.
    let first = detector.observe(&brighter, time);
    assert!(first.occluded, "{first:?}");
    let mut clear_after = None;
    for i in 1..100 {
        time += step;
        if !detector.observe(&brighter, time).occluded {
            clear_after = Some(step * i);
            break;
        }
    }
    let clear_after = clear_after.expect("the new light joins the table model");
    assert!(
        clear_after >= config.absorb_after && clear_after <= config.absorb_after + 4 * step,
        "clear after {clear_after:?}"
    );
}

#[test]
fn detector_cost() {
    // Measured, not asserted: printed for the README (cargo test -- --nocapture).
    let table = frame("S1/scene_00.jpg");
    let arm = with_arm(&table, 1.0, OVER_THE_TOWER);
    let mut detector = OcclusionDetector::default();
    detector.observe(&table, Duration::ZERO);
    let runs = 60;
    let start = Instant::now();
    for i in 0..runs {
        let picture = if i % 2 == 0 { &table } else { &arm };
        detector.observe(picture, Duration::from_millis(33 * (i + 1)));
    }
    eprintln!(
        "occlusion detector, 1280x720: {:?} a frame",
        start.elapsed() / runs as u32
    );
}

#[test]
#[ignore = "writes /tmp/koanscope-arm.png to look at"]
fn save_the_arm_picture() {
    let table = frame("S1/scene_00.jpg");
    with_arm(&table, 1.0, OVER_THE_TOWER)
        .save("/tmp/koanscope-arm.png")
        .unwrap();
}
