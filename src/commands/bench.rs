//! `koanscope bench`: the speed targets, each measured beside a baseline from the same run and
//! reported as a ratio, so a slow or busy machine reads the same as a fast one.

use std::time::{Duration, Instant};

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use koanscope::live::{
    HeadlessWindow, LastAnalysis, PipelineStats, Vision, settled_feed, spawn_pipeline,
};
use koanscope_capture::{
    FolderOptions, FrameSource, ImageFolder, Pacing, Reconnecting, SensorNoise,
};
use koanscope_geometry::{Engine, fixtures::busy_table};
use koanscope_scene::Scene;
use koanscope_tracker::{OcclusionConfig, OcclusionDetector, Tracker, TrackerConfig};
use koanscope_vision::image::{bgr_from_rgb, read_bgr};
use koanscope_vision::render::{
    bench_pieces, bench_table, draw_board, draw_pieces, with_sensor_noise,
};
use koanscope_vision::segment::{floor_lab_threshold, use_one_thread};
use koanscope_vision::{
    Calibration, ColorModel, Detector, FitMemory, MemoryUse, analyze, analyze_remembering, overlay,
};

use super::live::sample;

#[derive(clap::Args)]
pub struct Args {
    /// Timed runs per measurement (the median is reported).
    #[arg(long, default_value_t = 200)]
    pub runs: usize,
    /// Timed runs of the frame analysis (slower; the median is reported).
    #[arg(long, default_value_t = 20)]
    pub frame_runs: usize,
    /// Seconds the live pipeline runs over the sample folder, per number of vision workers.
    #[arg(long, default_value_t = 10.0)]
    pub pipeline_secs: f64,
    /// Only the window and the live pipeline (skip geometry and single-frame vision).
    #[arg(long)]
    pub live_only: bool,
}

/// Median wall time of `runs` calls of `f`, after a few warm-up calls.
fn median_time(runs: usize, bar: &ProgressBar, mut f: impl FnMut()) -> Duration {
    for _ in 0..runs.div_ceil(10) {
        f();
    }
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            bar.inc(1);
            start.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

pub fn run(args: Args) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.runs > 0 && args.frame_runs > 0,
        "--runs and --frame-runs must be at least 1"
    );
    use_one_thread()?;
    if !args.live_only {
        geometry_and_vision(&args)?;
    }
    window(&args)?;
    pipeline(&args)
}

fn geometry_and_vision(args: &Args) -> anyhow::Result<()> {
    let bar = ProgressBar::new((2 * args.runs + 7 * args.frame_runs) as u64).with_style(style());
    let engine = Engine::default();
    let table = busy_table(20);
    let document = table.to_json_string(false);

    bar.set_message("baseline: read the poses document");
    let baseline = median_time(args.runs, &bar, || {
        std::hint::black_box(Scene::from_json_str(&document).expect("the table is valid"));
    });
    bar.set_message("geometry: derive the table");
    let derive = median_time(args.runs, &bar, || {
        let mut scene = table.clone();
        engine.derive(&mut scene);
        std::hint::black_box(scene);
    });

    let (camera, image) = bench_table()?;
    let detector = Detector::new(ColorModel::default());
    let path = std::path::Path::new("bench-table");
    // The process's first frame also fills the Lab conversion table (once per process).
    let started = Instant::now();
    let pieces = analyze(&image, path, &camera, &detector, &engine)?
        .scene
        .pieces
        .len();
    let first_frame = started.elapsed();
    bar.set_message("floor: Lab conversion + threshold of the frame");
    let floor = median_time(args.frame_runs, &bar, || {
        std::hint::black_box(floor_lab_threshold(&image).expect("the frame converts"));
    });
    bar.set_message("vision: analyse the frame");
    let frame = median_time(args.frame_runs, &bar, || {
        std::hint::black_box(
            analyze(&image, path, &camera, &detector, &engine).expect("the frame analyses"),
        );
    });
    // A live camera watching that table: the same frame again with fresh sensor noise (every
    // region kept), and with one piece moved back and forth by 10 mm (its region fitted again).
    let noisy: Vec<_> = (0..7)
        .map(|seed| with_sensor_noise(&image, CAMERA_NOISE, seed))
        .collect::<Result<_, _>>()?;
    // The drawn frame's edges are exact; a camera's noise ragged them, as real edges are.
    bar.set_message("vision: analyse the frame with camera noise");
    let noisy_frame = median_time(args.frame_runs, &bar, || {
        std::hint::black_box(
            analyze(&noisy[0], path, &camera, &detector, &engine).expect("the frame analyses"),
        );
    });
    // The drawn table's pieces are flat-shaded with exact edges and stand apart, so its fits
    // are all but perfect; a rendered table (path traced: soft shading, shadows, towers, an
    // upside-down piece) fits less well, and more of its regions are searched for tilted
    // pieces and tower bases. Timed beside its own floor, from the same run.
    let full_path = sample(FULL_TABLE);
    let full_calibration = sample(FULL_TABLE_CALIBRATION);
    let full_camera = Calibration::load(&full_calibration)?.camera(&full_calibration)?;
    let full_image = read_bgr(&full_path)?;
    let full_pieces = analyze(&full_image, &full_path, &full_camera, &detector, &engine)?
        .scene
        .pieces
        .len();
    bar.set_message("floor: Lab conversion + threshold of the rendered table");
    let full_floor = median_time(args.frame_runs, &bar, || {
        std::hint::black_box(floor_lab_threshold(&full_image).expect("the frame converts"));
    });
    bar.set_message("vision: analyse the rendered table");
    let full_frame = median_time(args.frame_runs, &bar, || {
        std::hint::black_box(
            analyze(&full_image, &full_path, &full_camera, &detector, &engine)
                .expect("the frame analyses"),
        );
    });
    let mut pieces_moved = bench_pieces();
    pieces_moved[5].2.translation.vector.x += 10.0;
    let moved = with_sensor_noise(&draw_pieces(&camera, &pieces_moved)?, CAMERA_NOISE, 99)?;
    let memory = FitMemory::new();
    let live = |frames: &[&_], bar: &ProgressBar| {
        let mut n = 0;
        let mut used = MemoryUse::default();
        let t = median_time(args.frame_runs, bar, || {
            let frame = frames[n % frames.len()];
            n += 1;
            std::hint::black_box(
                analyze_remembering(frame, path, &camera, &detector, &engine, Some(&memory))
                    .expect("the frame analyses"),
            );
            used = memory.last_use();
        });
        (t, used)
    };
    bar.set_message("vision, live: the still table again");
    let (still, still_use) = live(&noisy.iter().collect::<Vec<_>>(), &bar);
    bar.set_message("vision, live: one piece moved");
    let (one_moved, moved_use) = live(&[&noisy[0], &moved], &bar);
    // The calibration board often stays in view after calibrating, slid aside.
    let board_aside = nalgebra::Isometry3::new(
        nalgebra::Vector3::new(130.0, -275.0, 0.0),
        nalgebra::Vector3::z() * 10f64.to_radians(),
    );
    let mut with_board = draw_pieces(&camera, &bench_pieces())?;
    draw_board(&mut with_board, &camera, &board_aside)?;
    let with_board: Vec<_> = (0..7)
        .map(|seed| with_sensor_noise(&with_board, CAMERA_NOISE, seed))
        .collect::<Result<_, _>>()?;
    bar.set_message("vision, live: the still table, a board aside");
    let (board_still, board_use) = live(&with_board.iter().collect::<Vec<_>>(), &bar);
    bar.finish_and_clear();

    println!("koanscope bench (one thread, median of {} runs)", args.runs);
    println!(
        "  baseline  read the poses document of {} pieces      {:>8.3} ms",
        table.pieces.len(),
        ms(baseline)
    );
    println!(
        "  geometry  derive 20 koans / {} pieces                {:>8.3} ms  = {:.1} x baseline, {:.0}% of the 2 ms budget",
        table.pieces.len(),
        ms(derive),
        derive.as_secs_f64() / baseline.as_secs_f64(),
        100.0 * ms(derive) / 2.0
    );
    println!(
        "  floor     Lab conversion + threshold of a 1280x720 frame {:>8.3} ms  (median of {})",
        ms(floor),
        args.frame_runs
    );
    println!(
        "  vision    analyse that frame ({pieces} pieces found)      {:>8.3} ms  = {:.1} x floor, {:.0}% of the 33 ms budget",
        ms(frame),
        frame.as_secs_f64() / floor.as_secs_f64(),
        100.0 * ms(frame) / 33.0
    );
    println!(
        "  vision    the same frame with camera noise (sigma {CAMERA_NOISE})  {:>8.3} ms  = {:.1} x floor, {:.0}% of the 33 ms budget",
        ms(noisy_frame),
        noisy_frame.as_secs_f64() / floor.as_secs_f64(),
        100.0 * ms(noisy_frame) / 33.0
    );
    println!(
        "  vision    the process's first frame (fills the Lab table) {:>8.3} ms  (once per process)",
        ms(first_frame)
    );
    println!(
        "  floor     the same for the rendered table ({FULL_TABLE}) {:>8.3} ms",
        ms(full_floor)
    );
    println!(
        "  vision    analyse the rendered table ({full_pieces} pieces found)  {:>8.3} ms  = {:.1} x floor, {:.0}% of the 33 ms budget",
        ms(full_frame),
        full_frame.as_secs_f64() / full_floor.as_secs_f64(),
        100.0 * ms(full_frame) / 33.0
    );
    for (what, t, used) in [
        ("the same table, new camera noise ", still, still_use),
        ("one piece moved 10 mm           ", one_moved, moved_use),
        ("the same, a board aside in view ", board_still, board_use),
    ] {
        println!(
            "  live      {what}      {:>8.3} ms  = {:.1} x floor, {:.0}% of the 33 ms budget ({} regions kept, {} fitted)",
            ms(t),
            t.as_secs_f64() / floor.as_secs_f64(),
            100.0 * ms(t) / 33.0,
            used.reused,
            used.fitted
        );
    }
    Ok(())
}

/// A rendered table of 16 pieces in view in 10 koans (grey felt in sun), and its calibration.
const FULL_TABLE: &str = "sample_images/S2/scene_04.jpg";
const FULL_TABLE_CALIBRATION: &str = "calibration/sample-S2.yaml";

/// The sensor noise of the simulated camera, levels (a webcam in good light shows 2-4).
const CAMERA_NOISE: f64 = 3.0;

fn style() -> ProgressStyle {
    ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}").expect("the template is valid")
}

/// The window's CPU cost per frame: both views with the overlay on the settled sample table.
fn window(args: &Args) -> anyhow::Result<()> {
    let image = sample("sample_images/S1/scene_00.jpg");
    let feed = settled_feed(&image, &sample("calibration/sample-S1.yaml"))?;
    let picture = feed
        .picture
        .clone()
        .context("the settled feed has a picture")?;
    let koans = feed.koans.len();
    let mut window = HeadlessWindow::new(feed)?;
    let marked = window.table().marked_tracked().len();
    let vertices = window.frame(false);
    let bar = ProgressBar::new(3 * args.runs as u64).with_style(style());
    bar.set_message("baseline: copy the frame's RGBA");
    let baseline = median_time(args.runs, &bar, || {
        std::hint::black_box(picture.rgba.clone());
    });
    bar.set_message("window: both views, same picture");
    let same = median_time(args.runs, &bar, || {
        std::hint::black_box(window.frame(false));
    });
    bar.set_message("window: both views, new picture");
    let new = median_time(args.runs, &bar, || {
        std::hint::black_box(window.frame(true));
    });
    bar.finish_and_clear();
    println!(
        "koanscope window: the Master's console (1440x860) and the public view (1280x800) over a {}x{} frame, {koans} koans ({marked} marked, {vertices} vertices), egui run + tessellate on one thread, median of {} runs",
        picture.width, picture.height, args.runs
    );
    println!(
        "  baseline  copy the frame's RGBA                        {:>8.3} ms",
        ms(baseline)
    );
    for (what, t) in [("same picture", same), ("new picture ", new)] {
        println!(
            "  window    both views, {what}                 {:>8.3} ms  = {:.1} x baseline, {:.0}% of the 16 ms budget ({:.0} frames/s on the CPU)",
            ms(t),
            t.as_secs_f64() / baseline.as_secs_f64(),
            100.0 * ms(t) / 16.0,
            1.0 / t.as_secs_f64()
        );
    }
    Ok(())
}

/// Frames per second analysed by the live pipeline over the sample folder: unpaced with every
/// frame a new image decoded from JPEG (as fast as the pipeline takes them), and paced like a
/// 30 fps camera watching a still table.
fn pipeline(args: &Args) -> anyhow::Result<()> {
    let dir = sample("sample_images/S1");
    let calibration_path = sample("calibration/sample-S1.yaml");
    let calibration = Calibration::load(&calibration_path)?;
    let camera = calibration.camera(&calibration_path)?;
    let images: Vec<_> = ["scene_00.jpg", "scene_02.jpg", "scene_03.jpg"]
        .iter()
        .map(|n| dir.join(n))
        .collect();
    let bar = ProgressBar::new(args.frame_runs as u64).with_style(style());
    bar.set_message("floor: decode a JPEG frame and convert it to BGR");
    let mut n = 0;
    let floor = median_time(args.frame_runs, &bar, || {
        let path = &images[n % images.len()];
        n += 1;
        let rgb = ::image::open(path).expect("the sample decodes").to_rgb8();
        std::hint::black_box(
            bgr_from_rgb(rgb.width(), rgb.height(), rgb.as_raw()).expect("the frame converts"),
        );
    });
    bar.finish_and_clear();
    let floor_fps = 1.0 / floor.as_secs_f64();
    let secs = args.pipeline_secs.max(1.0);
    println!(
        "koanscope pipeline over {}, {secs:.0} s per run",
        dir.display()
    );
    println!(
        "  floor     decode + BGR conversion of one frame        {:>8.3} ms  = {floor_fps:.1} frames/s on one core",
        ms(floor)
    );
    still_table(args, &dir, &camera, floor)?;
    for (paced, words) in [
        (false, "unpaced, every frame a new image"),
        (
            true,
            "a 30 fps camera: real time, each image held 4 s, sensor noise of 3 levels",
        ),
    ] {
        println!("  source: {words}");
        for workers in [1, 2] {
            let (stats, elapsed) = run_pipeline(&dir, &camera, workers, secs, paced)?;
            let fps = stats.analysed as f64 / elapsed;
            println!(
                "  pipeline  {workers} vision worker{}: {fps:>5.1} analysed/s = {:.2} x floor, {:.0}% of the 30 fps target ({} of them unchanged, taking the last analysis); {:.1} frames/s shown, {} not analysed, {} dropped at the source; regions kept {}, fitted {}",
                if workers == 1 { " " } else { "s" },
                fps / floor_fps,
                100.0 * fps / 30.0,
                stats.unchanged,
                stats.received as f64 / elapsed,
                stats.not_analysed,
                stats.dropped,
                stats.regions_reused,
                stats.regions_fitted,
            );
        }
    }
    Ok(())
}

/// A vision worker's cost for a frame of a still table seen by a webcam (the sample scene with
/// sensor noise): analysed through the fit memory, or, the table unchanged, the last analysis
/// taken.
fn still_table(
    args: &Args,
    dir: &std::path::Path,
    camera: &koanscope_vision::Camera,
    floor: Duration,
) -> anyhow::Result<()> {
    let folder = ImageFolder::open(
        dir,
        FolderOptions {
            hold: Duration::from_secs(60),
            pacing: Pacing::Unpaced,
            name_prefix: Some("scene_00".into()),
            ..FolderOptions::default()
        },
    )?;
    let mut webcam = SensorNoise::new(folder, CAMERA_NOISE);
    let mut occlusion = OcclusionDetector::default();
    let mut frames = Vec::new();
    for _ in 0..8 {
        let frame = webcam.next_frame()?.context("the sample folder plays")?;
        occlusion.observe(&frame.image, frame.time);
        let coarse = occlusion.last_frame().context("a coarse frame")?;
        let bgr = bgr_from_rgb(
            frame.image.width(),
            frame.image.height(),
            frame.image.as_raw(),
        )?;
        frames.push((bgr, coarse));
    }
    let (detector, engine) = (Detector::new(ColorModel::default()), Engine::default());
    let memory = FitMemory::new();
    let path = std::path::Path::new("camera frame");
    let see = |bgr| -> anyhow::Result<_> {
        let analysis = analyze_remembering(bgr, path, camera, &detector, &engine, Some(&memory))?;
        let shapes = overlay::shapes(&analysis, camera);
        Ok((analysis, shapes))
    };
    let (analysis, shapes) = see(&frames[0].0)?;
    let mut last = LastAnalysis::default();
    last.remember(frames[0].1.clone(), &analysis, &shapes);
    let bar = ProgressBar::new(2 * args.frame_runs as u64).with_style(style());
    bar.set_message("vision worker: a still frame through the fit memory");
    let mut n = 0;
    let remembered = median_time(args.frame_runs, &bar, || {
        n += 1;
        std::hint::black_box(see(&frames[n % frames.len()].0).expect("the frame analyses"));
    });
    bar.set_message("vision worker: a still frame, the last analysis taken");
    let unchanged = median_time(args.frame_runs, &bar, || {
        n += 1;
        std::hint::black_box(
            last.recall(Some(&frames[n % frames.len()].1))
                .expect("camera noise leaves the table unchanged"),
        );
    });
    bar.finish_and_clear();
    for (what, t) in [
        ("through the fit memory       ", remembered),
        ("unchanged, last analysis taken", unchanged),
    ] {
        println!(
            "  worker    a still frame, {what} {:>8.3} ms  = {:.2} x floor",
            ms(t),
            t.as_secs_f64() / floor.as_secs_f64()
        );
    }
    Ok(())
}

/// Runs the pipeline for `secs` after its first analysed frame; the counts over that time.
fn run_pipeline(
    dir: &std::path::Path,
    camera: &koanscope_vision::Camera,
    workers: usize,
    secs: f64,
    paced: bool,
) -> anyhow::Result<(PipelineStats, f64)> {
    let options = FolderOptions {
        hold: Duration::from_millis(if paced { 4000 } else { 1 }),
        fps: 30.0,
        looping: true,
        pacing: if paced {
            Pacing::RealTime
        } else {
            Pacing::Unpaced
        },
        name_prefix: Some("scene_".into()),
    };
    let folder = dir.to_path_buf();
    let source = Reconnecting::open(
        Box::new(move || {
            let folder = ImageFolder::open(&folder, options.clone())?;
            // A held image repeats exactly; a camera's frames never do.
            Ok(if paced {
                Box::new(SensorNoise::new(folder, CAMERA_NOISE)) as Box<dyn FrameSource>
            } else {
                Box::new(folder)
            })
        }),
        Reconnecting::DEFAULT_RETRY,
    )?;
    let visions = (0..workers)
        .map(|_| Vision {
            camera: camera.clone(),
            detector: Detector::new(ColorModel::default()),
            engine: Engine::default(),
            standing_warnings: Vec::new(),
        })
        .collect();
    let pipeline = spawn_pipeline(
        source,
        visions,
        Tracker::new(TrackerConfig::default()),
        OcclusionDetector::new(OcclusionConfig::default()),
        Box::new(|| {}),
    )?;
    let bar = ProgressBar::new((secs * 10.0) as u64).with_style(style());
    bar.set_message(format!("pipeline: {workers} vision worker(s)"));
    let mut start: Option<(Instant, PipelineStats)> = None;
    loop {
        // Take what the window would, and let it go.
        while pipeline.feed.try_recv().is_ok() {}
        let now = Instant::now();
        match start {
            None if pipeline.stats().analysed > 0 => start = Some((now, pipeline.stats())),
            Some((t0, s0)) => {
                let elapsed = now.duration_since(t0).as_secs_f64();
                bar.set_position((elapsed * 10.0) as u64);
                if elapsed >= secs {
                    let s = pipeline.stats();
                    bar.finish_and_clear();
                    pipeline.stop();
                    let delta = PipelineStats {
                        received: s.received - s0.received,
                        analysed: s.analysed - s0.analysed,
                        unchanged: s.unchanged - s0.unchanged,
                        not_analysed: s.not_analysed - s0.not_analysed,
                        dropped: s.dropped - s0.dropped,
                        regions_reused: s.regions_reused - s0.regions_reused,
                        regions_fitted: s.regions_fitted - s0.regions_fitted,
                        ..s
                    };
                    return Ok((delta, elapsed));
                }
            }
            None => {}
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
