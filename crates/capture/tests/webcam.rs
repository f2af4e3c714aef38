//! No camera on this machine: opening one must say so clearly, never panic.

use koanscope_capture::{CaptureError, Webcam, WebcamOptions, list_cameras};

#[test]
fn no_camera_gets_a_clear_message() {
    let cameras = list_cameras().expect("listing cameras works even when there are none");
    let error = Webcam::open(WebcamOptions::default()).err();
    if cameras.is_empty() {
        let error = error.expect("no camera to open");
        assert!(matches!(error, CaptureError::NoCamera), "{error}");
        let text = error.to_string();
        assert!(text.contains("no camera found"), "{text}");
        assert!(
            text.contains("--video") && text.contains("--images"),
            "{text}"
        );
    } else {
        eprintln!("cameras here: {cameras:?}");
    }
}

#[test]
fn a_wrong_camera_number_lists_the_cameras_there_are() {
    let cameras = list_cameras().unwrap();
    let options = WebcamOptions {
        index: 4242,
        ..WebcamOptions::default()
    };
    let error = Webcam::open(options)
        .err()
        .expect("there is no camera 4242");
    let text = error.to_string();
    if cameras.is_empty() {
        assert!(matches!(error, CaptureError::NoCamera), "{text}");
    } else {
        assert!(
            matches!(error, CaptureError::CameraNotFound { index: 4242, .. }),
            "{text}"
        );
        assert!(text.contains(&cameras[0].name), "{text}");
    }
}
