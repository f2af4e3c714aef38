//! Unplugging for real: a source whose folder is renamed away and back pauses, then resumes.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use koanscope_capture::{
    CaptureError, Delivery, FolderOptions, FrameSource, ImageFolder, Pacing, Reconnecting,
};

fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../sample_images/S1")
}

fn folder_of_samples() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let frames = dir.path().join("camera");
    std::fs::create_dir(&frames).unwrap();
    for name in ["scene_00.jpg", "scene_02.jpg"] {
        std::fs::copy(samples().join(name), frames.join(name)).unwrap();
    }
    (dir, frames)
}

fn opener(dir: PathBuf) -> koanscope_capture::Opener {
    Box::new(move || {
        let options = FolderOptions {
            hold: Duration::from_secs(60),
            fps: 50.0,
            looping: true,
            pacing: Pacing::RealTime,
            name_prefix: None,
        };
        Ok(Box::new(ImageFolder::open(&dir, options)?) as Box<dyn FrameSource>)
    })
}

fn frame(delivery: Delivery) -> koanscope_capture::Frame {
    match delivery {
        Delivery::Frame(frame) => frame,
        other => panic!("expected a frame, got {other:?}"),
    }
}

#[test]
fn a_vanished_folder_pauses_and_its_return_resumes() {
    let (dir, frames) = folder_of_samples();
    let retry = Duration::from_millis(200);
    let mut source = Reconnecting::open(opener(frames.clone()), retry).expect("opens");
    let mut last = None;
    for _ in 0..5 {
        let f = frame(source.next_delivery().unwrap());
        last = Some((f.index, f.time));
    }
    let (last_index, last_time) = last.unwrap();

    // Unplug.
    let away = dir.path().join("unplugged");
    std::fs::rename(&frames, &away).unwrap();
    // The first pause is reported at once: before any attempt to reopen. (No upper bounds on
    // time here: a busy machine may take any time; sleeping less than asked is the failure.)
    let Delivery::Paused(paused) = source.next_delivery().unwrap() else {
        panic!("a vanished folder must pause the source")
    };
    assert_eq!(paused.attempts, 0);
    assert!(paused.reason.contains("disconnected"), "{}", paused.reason);
    assert!(source.paused().is_some());

    // While away, each call waits for the next attempt and reports it.
    let started = Instant::now();
    let Delivery::Paused(paused) = source.next_delivery().unwrap() else {
        panic!("still away")
    };
    let waited = started.elapsed();
    assert!(
        waited >= retry - Duration::from_millis(50),
        "it must wait for the next attempt, not spin: {waited:?}"
    );
    assert_eq!(paused.attempts, 1);
    assert!(
        paused.reason.contains("no such file or folder"),
        "{}",
        paused.reason
    );

    // Plug back in: the next attempt resumes, numbering and time carry on.
    std::fs::rename(&away, &frames).unwrap();
    let resumed = frame(source.next_delivery().unwrap());
    assert_eq!(resumed.index, last_index + 1);
    assert!(
        resumed.time > last_time + Duration::from_millis(200),
        "{:?} after {:?}",
        resumed.time,
        last_time
    );
    assert!(source.paused().is_none());
    let again = frame(source.next_delivery().unwrap());
    assert_eq!(again.index, resumed.index + 1);
    assert!(again.time > resumed.time);
}

#[test]
fn the_default_retry_is_once_a_second() {
    let (_dir, frames) = folder_of_samples();
    let source = Reconnecting::open(opener(frames), Reconnecting::DEFAULT_RETRY).unwrap();
    assert_eq!(source.retry_every(), Duration::from_secs(1));
    assert_eq!(source.resolution(), [1280, 720]);
}

#[test]
fn a_source_missing_at_the_start_is_an_error_not_a_pause() {
    let dir = tempfile::tempdir().unwrap();
    let error = Reconnecting::open(opener(dir.path().join("none")), Reconnecting::DEFAULT_RETRY)
        .err()
        .expect("nothing to open");
    assert!(matches!(error, CaptureError::NotFound { .. }), "{error}");
}

#[test]
fn a_corrupt_frame_ends_the_stream_instead_of_pausing() {
    let (_dir, frames) = folder_of_samples();
    std::fs::write(frames.join("scene_99.jpg"), b"not a jpeg").unwrap();
    let options = FolderOptions {
        hold: Duration::from_millis(20),
        fps: 50.0,
        looping: false,
        pacing: Pacing::Unpaced,
        name_prefix: None,
    };
    let dir = frames.clone();
    let mut source = Reconnecting::open(
        Box::new(move || {
            Ok(Box::new(ImageFolder::open(&dir, options.clone())?) as Box<dyn FrameSource>)
        }),
        Duration::from_millis(50),
    )
    .unwrap();
    let error = loop {
        match source.next_delivery() {
            Ok(Delivery::Frame(_)) => continue,
            Ok(other) => panic!("expected the corrupt frame's error, got {other:?}"),
            Err(error) => break error,
        }
    };
    assert!(error.to_string().contains("scene_99.jpg"), "{error}");
}
