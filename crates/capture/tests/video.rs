//! The video file source on a short MJPG video written here from the sample frames.

use std::path::{Path, PathBuf};
use std::time::Duration;

use koanscope_capture::{CaptureError, FrameSource, Pacing, VideoFile, VideoOptions};
use opencv::core::{Mat, Size};
use opencv::prelude::*;
use opencv::{imgcodecs, videoio};

fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../sample_images/S1")
}

const NAMES: [&str; 3] = ["scene_00.jpg", "scene_02.jpg", "table.jpg"];
const REPEATS: usize = 4;
const FPS: f64 = 10.0;

/// Writes the sample frames, each `REPEATS` times, as MJPG in .avi (OpenCV's own encoder, which
/// every build of OpenCV has). Nothing binary is kept in the repository.
fn write_video(path: &Path) {
    let mut writer = videoio::VideoWriter::new(
        path.to_str().unwrap(),
        videoio::VideoWriter::fourcc('M', 'J', 'P', 'G').unwrap(),
        FPS,
        Size::new(1280, 720),
        true,
    )
    .unwrap();
    assert!(
        writer.is_opened().unwrap(),
        "this OpenCV cannot write MJPG .avi"
    );
    for name in NAMES {
        let frame = imgcodecs::imread(
            samples().join(name).to_str().unwrap(),
            imgcodecs::IMREAD_COLOR,
        )
        .unwrap();
        for _ in 0..REPEATS {
            writer.write(&frame).unwrap();
        }
    }
    writer.release().unwrap();
}

fn mean_difference(a: &image::RgbImage, b: &image::RgbImage) -> f64 {
    let total: u64 = a
        .as_raw()
        .iter()
        .zip(b.as_raw())
        .map(|(x, y)| u64::from(x.abs_diff(*y)))
        .sum();
    total as f64 / a.as_raw().len() as f64
}

fn unpaced(looping: bool) -> VideoOptions {
    VideoOptions {
        pacing: Pacing::Unpaced,
        looping,
    }
}

#[test]
fn plays_a_recorded_video_frame_by_frame() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("table.avi");
    write_video(&path);
    let mut video = VideoFile::open(&path, unpaced(false)).expect("an MJPG avi opens");
    assert_eq!(video.resolution(), [1280, 720]);
    assert_eq!(video.frame_interval(), Duration::from_millis(100));
    assert_eq!(video.frame_count(), Some((NAMES.len() * REPEATS) as u64));
    assert!(
        video.describe().contains("table.avi"),
        "{}",
        video.describe()
    );

    let mut frames = Vec::new();
    while let Some(frame) = video.next_frame().unwrap() {
        frames.push(frame);
    }
    assert_eq!(frames.len(), NAMES.len() * REPEATS);
    for (i, name) in NAMES.iter().enumerate() {
        let truth = image::open(samples().join(name)).unwrap().into_rgb8();
        for frame in &frames[i * REPEATS..(i + 1) * REPEATS] {
            // MJPG is lossy; a wrong frame or swapped channels would differ by tens of levels.
            let difference = mean_difference(&frame.image, &truth);
            assert!(
                difference < 3.0,
                "frame {} vs {name}: {difference:.2}",
                frame.index
            );
        }
    }
    assert_eq!(frames[5].time, Duration::from_millis(500));
}

#[test]
fn a_looping_video_keeps_counting() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("table.avi");
    write_video(&path);
    let mut video = VideoFile::open(&path, unpaced(true)).unwrap();
    let frames: Vec<_> = (0..30)
        .map(|_| video.next_frame().unwrap().unwrap())
        .collect();
    for (i, frame) in frames.iter().enumerate() {
        assert_eq!(frame.index, i as u64);
    }
    assert_eq!(
        frames[12].image, frames[0].image,
        "the 13th frame is the first again"
    );
}

#[test]
fn real_time_playback_skips_frames_the_reader_missed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("table.avi");
    write_video(&path);
    let options = VideoOptions {
        pacing: Pacing::RealTime,
        looping: false,
    };
    let mut video = VideoFile::open(&path, options).unwrap();
    let first = video.next_frame().unwrap().unwrap();
    std::thread::sleep(Duration::from_millis(450));
    let next = video.next_frame().unwrap().unwrap();
    assert!((4..=6).contains(&next.index), "index {}", next.index);
    let truth = image::open(samples().join(NAMES[next.index as usize / REPEATS]))
        .unwrap()
        .into_rgb8();
    assert!(mean_difference(&next.image, &truth) < 3.0);
    assert_eq!(first.index, 0);
}

#[test]
fn a_corrupt_or_missing_video_says_which_and_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.avi");
    std::fs::write(&path, b"RIFF\x00\x00\x00\x00AVI garbage, not a video").unwrap();
    let error = VideoFile::open(&path, VideoOptions::default())
        .err()
        .expect("refused");
    assert!(
        matches!(error, CaptureError::VideoUnreadable { .. }),
        "{error}"
    );
    let text = error.to_string();
    assert!(
        text.contains("broken.avi") && text.contains("MJPG"),
        "{text}"
    );

    let error = VideoFile::open(&dir.path().join("gone.mp4"), VideoOptions::default())
        .err()
        .expect("refused");
    assert!(matches!(error, CaptureError::NotFound { .. }), "{error}");
    // An image is no video either.
    let _ = Mat::default();
    let error = VideoFile::open(&samples().join("setup.json"), VideoOptions::default())
        .err()
        .expect("refused");
    assert!(error.to_string().contains("setup.json"), "{error}");
}
