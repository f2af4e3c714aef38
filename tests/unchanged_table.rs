//! When the live pipeline takes a frame to show the table as its last analysed frame did: the
//! occlusion detector's coarse picture tells a webcam's sensor noise from a piece moved by one
//! pixel (about 0.7 mm on the sample table), with `UNCHANGED_LEVELS` between them.

use std::path::Path;
use std::time::Duration;

use image::RgbImage;
use koanscope::live::UNCHANGED_LEVELS;
use koanscope_capture::{FolderOptions, FrameSource, ImageFolder, Pacing, SensorNoise};
use koanscope_tracker::{CoarseFrame, OcclusionDetector};

fn root(path: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn coarse(image: &RgbImage) -> CoarseFrame {
    let mut detector = OcclusionDetector::default();
    detector.observe(image, Duration::ZERO);
    detector.last_frame().expect("a frame was observed")
}

/// The scenes of the sample table, with the pixel positions of their pieces.
fn scenes() -> Vec<(String, RgbImage, Vec<[f64; 2]>)> {
    ["S1/scene_00", "S1/scene_02", "S2/scene_01"]
        .iter()
        .map(|name| {
            let image = image::open(root(&format!("sample_images/{name}.jpg")))
                .expect("the sample decodes")
                .to_rgb8();
            let truth: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(root(&format!("sample_images/{name}.json")))
                    .expect("the truth reads"),
            )
            .expect("the truth parses");
            let at = truth["pieces"]
                .as_array()
                .expect("pieces")
                .iter()
                .map(|p| {
                    let xy = &p["image_xy"];
                    [xy[0].as_f64().expect("x"), xy[1].as_f64().expect("y")]
                })
                .collect();
            (name.to_string(), image, at)
        })
        .collect()
}

/// Noisy frames of one sample scene, as a webcam watching it would deliver them.
fn noisy_frames(name: &str, sigma: f64, count: usize) -> Vec<RgbImage> {
    let (setup, scene) = name.split_once('/').expect("setup/scene");
    let folder = ImageFolder::open(
        &root(&format!("sample_images/{setup}")),
        FolderOptions {
            hold: Duration::from_secs(10),
            pacing: Pacing::Unpaced,
            name_prefix: Some(scene.to_string()),
            ..FolderOptions::default()
        },
    )
    .expect("the sample folder opens");
    let mut camera = SensorNoise::new(folder, sigma);
    (0..count)
        .map(|_| {
            camera
                .next_frame()
                .expect("a frame")
                .expect("not ended")
                .image
        })
        .collect()
}

/// The frame with the box around `at` (a piece with some table round it) one pixel to the right.
fn moved_one_pixel(image: &RgbImage, at: [f64; 2]) -> RgbImage {
    let mut out = image.clone();
    let (x0, y0) = (
        (at[0] - 45.0).max(1.0) as u32,
        (at[1] - 60.0).max(0.0) as u32,
    );
    let (x1, y1) = (
        ((at[0] + 45.0) as u32).min(image.width() - 1),
        ((at[1] + 35.0) as u32).min(image.height()),
    );
    for y in y0..y1 {
        for x in x0..x1 {
            out.put_pixel(x, y, *image.get_pixel(x - 1, y));
        }
    }
    out
}

#[test]
fn camera_noise_leaves_the_table_unchanged() {
    for (name, image, _) in scenes() {
        let clean = coarse(&image);
        for sigma in [3.0, 6.0] {
            for (i, frame) in noisy_frames(&name, sigma, 4).iter().enumerate() {
                let change = coarse(frame).largest_change(&clean);
                assert!(
                    change <= UNCHANGED_LEVELS,
                    "{name}, noise of {sigma} levels, frame {i}: a cell changed by {change:.2}"
                );
            }
        }
    }
}

#[test]
fn a_piece_moved_by_one_pixel_is_a_changed_table() {
    for (name, image, pieces) in scenes() {
        let clean = coarse(&image);
        for (i, at) in pieces.iter().enumerate() {
            let change = coarse(&moved_one_pixel(&image, *at)).largest_change(&clean);
            assert!(
                change > UNCHANGED_LEVELS,
                "{name}, piece {i} at {at:?} moved one pixel: the largest cell changed by only {change:.2}"
            );
        }
    }
}
