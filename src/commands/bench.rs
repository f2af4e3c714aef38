//! `koanscope bench`: the speed targets, each measured beside a baseline from the same run and
//! reported as a ratio, so a slow or busy machine reads the same as a fast one.

use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use koanscope_geometry::{Engine, fixtures::busy_table};
use koanscope_scene::Scene;
use koanscope_vision::render::bench_table;
use koanscope_vision::segment::{floor_lab_threshold, use_one_thread};
use koanscope_vision::{ColorModel, Detector, analyze};

#[derive(clap::Args)]
pub struct Args {
    /// Timed runs per measurement (the median is reported).
    #[arg(long, default_value_t = 200)]
    pub runs: usize,
    /// Timed runs of the frame analysis (slower; the median is reported).
    #[arg(long, default_value_t = 20)]
    pub frame_runs: usize,
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
    let bar = ProgressBar::new(2 * (args.runs + args.frame_runs) as u64).with_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}").expect("the template is valid"),
    );
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

    use_one_thread()?;
    let (camera, image) = bench_table()?;
    let detector = Detector::new(ColorModel::default());
    let path = std::path::Path::new("bench-table");
    let pieces = analyze(&image, path, &camera, &detector, &engine)?
        .scene
        .pieces
        .len();
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
    Ok(())
}
