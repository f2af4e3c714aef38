//! `koanscope eval`: calibrate from a dataset's own images, analyse every scene and compare
//! with its truth.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressStyle};
use koanscope_geometry::Engine;
use koanscope_vision::evaluate::{DetectionScore, score_scene, truth_pieces};
use koanscope_vision::{
    Camera, Chessboard, ColorModel, Detector, IntrinsicsQuality, LensModel, analyze,
    calibrate_intrinsics, calibrate_table, find_board, image::read_bgr,
};
use serde::Serialize;

#[derive(clap::Args)]
pub struct Args {
    /// A dataset laid out like ../shared/datasets/dev: intrinsics/*.jpg, and setups holding
    /// table.jpg and scene_NN.jpg with scene_NN.json truth.
    pub dataset: PathBuf,
    /// Colour model (TOML); the shipped models/colors.toml when not given.
    #[arg(long)]
    pub colors: Option<PathBuf>,
    /// Also write the figures as JSON.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Pair a found piece with a true one at most this far apart in the image, pixels.
    #[arg(long, default_value_t = 20.0)]
    pub pair_px: f64,
}

#[derive(Serialize)]
struct Figures {
    setup: String,
    scenes: usize,
    recall: f64,
    precision: f64,
    color: f64,
    size: f64,
    orientation: f64,
    grounded: f64,
    base_error_median_mm: Option<f64>,
    base_error_p95_mm: Option<f64>,
    counts: DetectionScore,
}

fn figures(setup: &str, scenes: usize, s: &DetectionScore) -> Figures {
    Figures {
        setup: setup.to_string(),
        scenes,
        recall: s.recall.rate(),
        precision: s.precision.rate(),
        color: s.color.rate(),
        size: s.size.rate(),
        orientation: s.orientation.rate(),
        grounded: s.grounded.rate(),
        base_error_median_mm: s.base_error_quantile_mm(0.5),
        base_error_p95_mm: s.base_error_quantile_mm(0.95),
        counts: s.clone(),
    }
}

fn sorted_files(dir: &Path, prefix: &str, extension: &str) -> anyhow::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(prefix))
                && p.extension().and_then(|e| e.to_str()) == Some(extension)
        })
        .collect();
    files.sort();
    Ok(files)
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let colors = match &args.colors {
        Some(path) => ColorModel::load(path)?,
        None => ColorModel::default(),
    };
    let detector = Detector::new(colors);
    let engine = Engine::default();
    let board = Chessboard::STANDARD;

    let intrinsics_images = sorted_files(&args.dataset.join("intrinsics"), "", "jpg")?;
    let mut views = Vec::new();
    for path in &intrinsics_images {
        let image = read_bgr(path)?;
        if let Ok(view) = find_board(&image, path, &board) {
            views.push(view);
        }
    }
    let report = calibrate_intrinsics(
        &views,
        &board,
        LensModel::for_views(views.len()),
        &IntrinsicsQuality::default(),
    )
    .context("calibrating the camera from the dataset's intrinsics/ images")?;
    let k = &report.intrinsics.camera_matrix;
    println!(
        "intrinsics from {} views: RMS {:.3} px, fx {:.2} fy {:.2} cx {:.2} cy {:.2}",
        views.len(),
        report.rms_px,
        k[(0, 0)],
        k[(1, 1)],
        k[(0, 2)],
        k[(1, 2)]
    );

    let mut setups: Vec<PathBuf> = std::fs::read_dir(&args.dataset)
        .with_context(|| format!("reading {}", args.dataset.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("table.jpg").is_file())
        .collect();
    setups.sort();
    if setups.is_empty() {
        bail!(
            "no setup folders (with table.jpg) in {}: is this a koanscope dataset?",
            args.dataset.display()
        );
    }
    let mut work = Vec::new();
    for setup in &setups {
        let table_path = setup.join("table.jpg");
        let image = read_bgr(&table_path)?;
        let table = calibrate_table(&image, &table_path, &report.intrinsics, &board)
            .with_context(|| format!("calibrating the table of {}", setup.display()))?;
        let camera = Camera::new(report.intrinsics.clone(), table.camera_from_table);
        let scenes = sorted_files(setup, "scene_", "jpg")?;
        work.push((setup.clone(), camera, scenes));
    }
    let total: usize = work.iter().map(|(_, _, s)| s.len()).sum();
    let progress = ProgressBar::new(total as u64).with_style(
        ProgressStyle::with_template("analysing {bar:30} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut all = DetectionScore::default();
    let mut rows = Vec::new();
    let mut seconds = Vec::new();
    for (setup, camera, scenes) in &work {
        let name = setup
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("?")
            .to_string();
        let mut per_setup = DetectionScore::default();
        for scene_path in scenes {
            progress.set_message(format!(
                "{name}/{}",
                scene_path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .unwrap_or("?")
            ));
            let truth_path = scene_path.with_extension("json");
            let truth_text = std::fs::read_to_string(&truth_path)
                .with_context(|| format!("reading {}", truth_path.display()))?;
            let truth_json: serde_json::Value = serde_json::from_str(&truth_text)
                .with_context(|| format!("reading {}", truth_path.display()))?;
            let truth = truth_pieces(&truth_json)
                .map_err(anyhow::Error::msg)
                .with_context(|| format!("reading {}", truth_path.display()))?;
            let image = read_bgr(scene_path)?;
            let started = Instant::now();
            let analysis = analyze(&image, scene_path, camera, &detector, &engine)?;
            seconds.push(started.elapsed().as_secs_f64());
            per_setup.merge(&score_scene(&analysis.scene, &truth, args.pair_px));
            progress.inc(1);
        }
        all.merge(&per_setup);
        rows.push(figures(&name, scenes.len(), &per_setup));
    }
    progress.finish_and_clear();
    rows.push(figures("all", total, &all));
    println!(
        "{:<6} {:>6} {:>8} {:>9} {:>7} {:>6} {:>11} {:>8} {:>10} {:>8}",
        "setup",
        "scenes",
        "recall",
        "precision",
        "colour",
        "size",
        "orientation",
        "grounded",
        "base med",
        "base p95"
    );
    for r in &rows {
        let mm = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.1} mm"));
        println!(
            "{:<6} {:>6} {:>7.1}% {:>8.1}% {:>6.1}% {:>5.1}% {:>10.1}% {:>7.1}% {:>10} {:>8}",
            r.setup,
            r.scenes,
            100.0 * r.recall,
            100.0 * r.precision,
            100.0 * r.color,
            100.0 * r.size,
            100.0 * r.orientation,
            100.0 * r.grounded,
            mm(r.base_error_median_mm),
            mm(r.base_error_p95_mm)
        );
    }
    seconds.sort_by(f64::total_cmp);
    if let Some(median) = seconds.get(seconds.len() / 2) {
        println!("analysis time per frame: median {:.0} ms", median * 1000.0);
    }
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&rows).context("encoding the figures")?;
        std::fs::write(path, text + "\n").with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}
