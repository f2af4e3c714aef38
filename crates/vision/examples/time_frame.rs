//! Times the stages of analysing one frame (for profiling, e.g. under
//! `valgrind --tool=callgrind`): `cargo run --release -p koanscope-vision --example time_frame --
//! <setup dir with setup.json> <scene.jpg> [runs]` (the camera from the setup's truth), or
//! `-- bench - [runs]` for the benchmark table of `koanscope bench`. With `still` after the runs,
//! it times the frame as a live camera's next frame instead: new sensor noise, every region
//! found in the memory of the frame before.

use std::path::PathBuf;
use std::time::Instant;

use koanscope_geometry::Engine;
use koanscope_vision::segment::segment;
use koanscope_vision::{Camera, ColorModel, Detector, Intrinsics, analyze, image::read_bgr};
use nalgebra::Matrix3;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, setup, scene, rest @ ..] = args.as_slice() else {
        return Err("usage: time_frame <setup dir> <scene.jpg> [runs]".into());
    };
    let runs: usize = rest.first().map_or(Ok(5), |r| r.parse())?;
    let still = rest.get(1).is_some_and(|r| r == "still");
    koanscope_vision::segment::use_one_thread()?;
    koanscope_vision::heap::keep_frame_buffers();
    let (camera, image, path) = if setup == "bench" {
        let (camera, image) = koanscope_vision::render::bench_table()?;
        (camera, image, PathBuf::from("bench-table"))
    } else {
        let path = PathBuf::from(scene);
        (setup_camera(setup)?, read_bgr(&path)?, path)
    };
    let detector = Detector::new(ColorModel::default());
    let engine = Engine::default();
    if still {
        let memory = koanscope_vision::FitMemory::new();
        for seed in 0..=runs as i32 {
            let noisy = koanscope_vision::render::with_sensor_noise(&image, 3.0, seed)?;
            let t0 = Instant::now();
            let analysis = koanscope_vision::analyze_remembering(
                &noisy,
                &path,
                &camera,
                &detector,
                &engine,
                Some(&memory),
            )?;
            println!(
                "still frame {:.1} ms ({} pieces, {:?})",
                t0.elapsed().as_secs_f64() * 1e3,
                analysis.scene.pieces.len(),
                memory.last_use()
            );
        }
        return Ok(());
    }
    for _ in 0..runs {
        let t0 = Instant::now();
        let seg = segment(&image, &detector.colors)?;
        let t1 = Instant::now();
        std::hint::black_box(seg);
        let analysis = analyze(&image, &path, &camera, &detector, &engine)?;
        let t2 = Instant::now();
        println!(
            "segmentation alone {:.1} ms; whole analysis {:.1} ms ({} pieces)",
            (t1 - t0).as_secs_f64() * 1e3,
            (t2 - t1).as_secs_f64() * 1e3,
            analysis.scene.pieces.len()
        );
    }
    Ok(())
}

/// The true camera of a dataset setup (`setup.json`).
fn setup_camera(setup: &str) -> Result<Camera, Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(PathBuf::from(setup).join("setup.json"))?;
    let s: serde_json::Value = serde_json::from_str(&text)?;
    let num = |v: &serde_json::Value| v.as_f64().unwrap_or(0.0);
    let k: Vec<f64> = s["K"]
        .as_array()
        .ok_or("no K")?
        .iter()
        .flat_map(|row| row.as_array().into_iter().flatten().map(num))
        .collect();
    let triple = |v: &serde_json::Value| -> [f64; 3] {
        let a: Vec<f64> = v.as_array().into_iter().flatten().map(num).collect();
        [a[0], a[1], a[2]]
    };
    Ok(Camera::new(
        Intrinsics {
            camera_matrix: Matrix3::from_row_slice(&k),
            distortion: [0.0; 5],
            image_size: [1280, 720],
        },
        koanscope_vision::isometry_from_rvec_tvec(triple(&s["rvec"]), triple(&s["tvec"])),
    ))
}
