//! The image folder source on the project's sample frames.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use koanscope_capture::{CaptureError, FolderOptions, FrameSource, ImageFolder, Pacing};

fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../sample_images/S1")
}

fn unpaced(hold_ms: u64, fps: f64) -> FolderOptions {
    FolderOptions {
        hold: Duration::from_millis(hold_ms),
        fps,
        looping: false,
        pacing: Pacing::Unpaced,
        name_prefix: None,
    }
}

#[test]
fn plays_every_image_in_order_held_for_its_time() {
    let mut source = ImageFolder::open(&samples(), unpaced(100, 30.0)).expect("sample folder");
    let names: Vec<_> = source
        .images()
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        ["scene_00.jpg", "scene_02.jpg", "scene_03.jpg", "table.jpg"]
    );
    assert_eq!(source.resolution(), [1280, 720]);
    assert_eq!(source.frames_per_image(), 3);
    assert!(
        source.describe().contains("4 images"),
        "{}",
        source.describe()
    );

    let first_image = image::open(samples().join("scene_00.jpg"))
        .unwrap()
        .into_rgb8();
    let table_image = image::open(samples().join("table.jpg"))
        .unwrap()
        .into_rgb8();
    let mut frames = Vec::new();
    while let Some(frame) = source.next_frame().expect("readable") {
        frames.push(frame);
    }
    assert_eq!(frames.len(), 12, "4 images × 3 frames each");
    for (i, frame) in frames.iter().enumerate() {
        assert_eq!(frame.index, i as u64);
        assert_eq!(frame.time, source.frame_interval() * i as u32);
    }
    assert!(frames[..3].iter().all(|f| f.image == first_image));
    assert!(frames[9..].iter().all(|f| f.image == table_image));
    assert_ne!(
        frames[3].image, first_image,
        "the second image follows the hold"
    );
    // Once over, it stays over.
    assert!(source.next_frame().unwrap().is_none());
}

#[test]
fn a_looping_folder_starts_again() {
    let options = FolderOptions {
        looping: true,
        ..unpaced(100, 10.0)
    };
    let mut source = ImageFolder::open(&samples(), options).unwrap();
    let frames: Vec<_> = (0..6)
        .map(|_| source.next_frame().unwrap().unwrap())
        .collect();
    assert_eq!(
        frames[0].image, frames[4].image,
        "image 0 again after 4 images of 1 frame"
    );
    assert_eq!(frames[5].time, Duration::from_millis(500));
}

/// Real-time pacing, measured: the folder must look like a camera to the app.
#[test]
fn real_time_pacing_keeps_the_nominal_rate_and_drops_what_the_reader_misses() {
    let options = FolderOptions {
        hold: Duration::from_secs(10),
        fps: 20.0,
        looping: false,
        pacing: Pacing::RealTime,
        name_prefix: None,
    };
    let mut source = ImageFolder::open(&samples(), options).unwrap();
    let start = Instant::now();
    let mut arrivals = Vec::new();
    for _ in 0..11 {
        source.next_frame().unwrap().unwrap();
        arrivals.push(start.elapsed());
    }
    // Ten intervals of 50 ms after the first frame. The clock starts at the first call, so
    // the eleventh frame is never handed out before 500 ms from it (a first frame decoded late
    // on a busy machine shortens the span from its arrival instead). Only never early is
    // asserted: how late a busy machine hands frames out is no property of the pacer.
    let span = arrivals[10] - arrivals[0];
    assert!(
        arrivals[10] >= Duration::from_millis(500),
        "10 frames at 20 fps took {span:?}, the last at {:?}",
        arrivals[10]
    );
    let gaps: Vec<f64> = arrivals
        .windows(2)
        .map(|w| (w[1] - w[0]).as_secs_f64() * 1e3)
        .collect();
    let worst = gaps.iter().fold(0.0f64, |m, g| m.max((g - 50.0).abs()));
    eprintln!("folder pacing at 20 fps: span {span:?}, worst gap error {worst:.1} ms");

    // A reader busy for 200 ms misses about four frames, as it would with a camera.
    let before = source.next_frame().unwrap().unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let after = source.next_frame().unwrap().unwrap();
    let skipped = after.index - before.index - 1;
    assert!((3..=5).contains(&skipped), "skipped {skipped} frames");
    assert_eq!(after.time, Duration::from_millis(50) * after.index as u32);
}

#[test]
fn a_missing_or_empty_folder_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nowhere");
    let error = ImageFolder::open(&missing, FolderOptions::default()).unwrap_err();
    assert!(matches!(error, CaptureError::NotFound { .. }));
    assert!(error.to_string().contains("nowhere"), "{error}");

    std::fs::write(dir.path().join("notes.txt"), "not a frame").unwrap();
    let error = ImageFolder::open(dir.path(), FolderOptions::default()).unwrap_err();
    assert!(matches!(error, CaptureError::EmptyFolder { .. }), "{error}");
    let text = error.to_string();
    assert!(
        text.contains("no JPEG or PNG") && text.contains("--images"),
        "{text}"
    );
}

#[test]
fn a_corrupt_image_names_its_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(samples().join("scene_00.jpg"), dir.path().join("a.jpg")).unwrap();
    std::fs::write(
        dir.path().join("b.jpg"),
        b"\xff\xd8 this is not really a JPEG",
    )
    .unwrap();
    // The first image is fine: opening works; the corrupt one fails when its turn comes.
    let mut source = ImageFolder::open(dir.path(), unpaced(100, 10.0)).unwrap();
    assert!(source.next_frame().unwrap().is_some());
    let error = source.next_frame().unwrap_err();
    assert!(
        matches!(error, CaptureError::ImageUnreadable { .. }),
        "{error}"
    );
    assert!(error.to_string().contains("b.jpg"), "{error}");
    assert!(!error.is_disconnect());

    // Corrupt first image: refused at open.
    std::fs::remove_file(dir.path().join("a.jpg")).unwrap();
    let error = ImageFolder::open(dir.path(), FolderOptions::default()).unwrap_err();
    assert!(error.to_string().contains("b.jpg"), "{error}");
}

#[test]
fn a_jpeg_cut_short_names_its_file_instead_of_playing_grey() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(samples().join("scene_00.jpg"), dir.path().join("a.jpg")).unwrap();
    let whole = std::fs::read(samples().join("scene_02.jpg")).unwrap();
    std::fs::write(dir.path().join("b.jpg"), &whole[..whole.len() / 2]).unwrap();
    let mut source = ImageFolder::open(dir.path(), unpaced(100, 10.0)).unwrap();
    assert!(source.next_frame().unwrap().is_some());
    let error = source.next_frame().unwrap_err();
    let message = error.to_string();
    assert!(
        matches!(error, CaptureError::ImageUnreadable { .. }),
        "{message}"
    );
    assert!(
        message.contains("b.jpg") && message.contains("cut short"),
        "{message}"
    );
    assert!(!error.is_disconnect());
}

#[test]
fn frames_of_another_size_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(samples().join("scene_00.jpg"), dir.path().join("a.jpg")).unwrap();
    image::RgbImage::new(64, 48)
        .save(dir.path().join("b.png"))
        .unwrap();
    let mut source = ImageFolder::open(dir.path(), unpaced(100, 10.0)).unwrap();
    source.next_frame().unwrap();
    let error = source.next_frame().unwrap_err();
    let text = error.to_string();
    assert!(
        text.contains("64x48") && text.contains("1280x720"),
        "{text}"
    );
}

#[test]
fn a_source_can_be_handed_to_a_vision_thread() {
    let source: Box<dyn FrameSource> =
        Box::new(ImageFolder::open(&samples(), unpaced(100, 30.0)).unwrap());
    let frames = std::thread::spawn(move || {
        let mut source = source;
        let mut count = 0;
        while source.next_frame().unwrap().is_some() {
            count += 1;
        }
        count
    })
    .join()
    .unwrap();
    assert_eq!(frames, 12);
}
