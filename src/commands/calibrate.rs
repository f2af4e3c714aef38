//! `koanscope calibrate`: camera intrinsics from chessboard views, the table frame from the board
//! lying flat, and the printable target.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::{Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use koanscope_vision::{
    Calibration, Chessboard, IntrinsicsQuality, LensModel, VisionError, calibrate_intrinsics,
    calibrate_table, find_board, image::read_bgr, rvec_tvec_from_isometry,
};

#[derive(Subcommand)]
pub enum Calibrate {
    /// Camera matrix and lens distortion from 3 or more views of the chessboard held at varied tilts.
    Intrinsics {
        /// Images of the chessboard (9x6 inner corners, 25 mm squares unless told otherwise).
        #[arg(required = true)]
        images: Vec<PathBuf>,
        /// Where to write the calibration (OpenCV FileStorage YAML).
        #[arg(long, default_value = "calibration/camera.yaml")]
        out: PathBuf,
        /// Lens parameters to estimate; `auto` picks what the number of views supports.
        #[arg(long, value_enum, default_value_t = Model::Auto)]
        model: Model,
        #[command(flatten)]
        board: BoardArgs,
    },
    /// The table frame from one image of the chessboard lying flat on the table.
    Table {
        /// Image of the board flat on the table, taken by the calibrated camera.
        image: PathBuf,
        /// Calibration file with the camera's intrinsics (from `calibrate intrinsics`).
        #[arg(long)]
        intrinsics: PathBuf,
        /// Where to write the full calibration (intrinsics and table pose).
        #[arg(long, default_value = "calibration/table.yaml")]
        out: PathBuf,
        #[command(flatten)]
        board: BoardArgs,
    },
    /// Write the printable chessboard target as SVG (print at 100% scale).
    Target {
        #[arg(long, default_value = "calibration/chessboard-9x6-25mm.svg")]
        out: PathBuf,
        #[command(flatten)]
        board: BoardArgs,
    },
}

#[derive(clap::Args)]
pub struct BoardArgs {
    /// Inner corners along the board's longer row (the table's x axis).
    #[arg(long, default_value_t = Chessboard::STANDARD.cols)]
    cols: i32,
    /// Inner corners along the shorter side (the table's y axis).
    #[arg(long, default_value_t = Chessboard::STANDARD.rows)]
    rows: i32,
    /// Side of one square as printed, mm (measure it).
    #[arg(long, default_value_t = Chessboard::STANDARD.square_mm)]
    square_mm: f64,
}

impl BoardArgs {
    fn board(&self) -> anyhow::Result<Chessboard> {
        if self.cols < 3
            || self.rows < 3
            || self.cols == self.rows
            || self.square_mm.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater)
        {
            bail!(
                "a chessboard needs at least 3x3 inner corners, a different count along each side, and a positive square size"
            );
        }
        Ok(Chessboard {
            cols: self.cols,
            rows: self.rows,
            square_mm: self.square_mm,
        })
    }
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Model {
    Auto,
    Pinhole,
    Radial,
    Full,
}

pub fn run(command: Calibrate) -> anyhow::Result<()> {
    match command {
        Calibrate::Intrinsics {
            images,
            out,
            model,
            board,
        } => intrinsics(&images, &out, model, &board.board()?),
        Calibrate::Table {
            image,
            intrinsics,
            out,
            board,
        } => table(&image, &intrinsics, &out, &board.board()?),
        Calibrate::Target { out, board } => {
            let svg = koanscope_vision::target::chessboard_svg(&board.board()?);
            if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent)
                    .with_context(|| format!("creating {}", parent.display()))?;
            }
            std::fs::write(&out, svg).with_context(|| format!("writing {}", out.display()))?;
            println!(
                "wrote {} (print at 100% scale, then check the 100 mm bar)",
                out.display()
            );
            Ok(())
        }
    }
}

fn intrinsics(
    images: &[PathBuf],
    out: &Path,
    model: Model,
    board: &Chessboard,
) -> anyhow::Result<()> {
    let progress = ProgressBar::new(images.len() as u64).with_style(
        ProgressStyle::with_template("finding the board {bar:30} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut views = Vec::new();
    let mut skipped = Vec::new();
    for path in images {
        progress.set_message(path.display().to_string());
        let image = read_bgr(path)?;
        match find_board(&image, path, board) {
            Ok(view) => views.push(view),
            Err(VisionError::BoardNotFound { .. }) => skipped.push(path.clone()),
            Err(other) => return Err(other.into()),
        }
        progress.inc(1);
    }
    progress.finish_and_clear();
    for path in &skipped {
        eprintln!(
            "warning: no {}x{} chessboard in {}; view skipped",
            board.cols,
            board.rows,
            path.display()
        );
    }
    let (model, why) = match model {
        Model::Auto => (
            LensModel::for_views(views.len()),
            format!("chosen for {} views", views.len()),
        ),
        Model::Pinhole => (LensModel::Pinhole, "as asked".to_string()),
        Model::Radial => (LensModel::Radial, "as asked".to_string()),
        Model::Full => (LensModel::Full, "as asked".to_string()),
    };
    let report = calibrate_intrinsics(&views, board, model, &IntrinsicsQuality::default())
        .context("calibrating the camera")?;
    let k = &report.intrinsics.camera_matrix;
    println!("views used: {} of {}", views.len(), images.len());
    println!("lens model: {} ({why})", model.describe());
    if model != LensModel::Full {
        println!(
            "  with few views the other terms are fixed; with 20+ varied views `--model full` also estimates them"
        );
    }
    println!(
        "RMS reprojection error: {:.3} px (per view: {})",
        report.rms_px,
        report
            .per_view_rms_px
            .iter()
            .map(|(_, e)| format!("{e:.3}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!(
        "fx = {:.2} ± {:.2}  fy = {:.2}  cx = {:.2}  cy = {:.2} px",
        k[(0, 0)],
        report.focal_std_px,
        k[(1, 1)],
        k[(0, 2)],
        k[(1, 2)]
    );
    println!(
        "distortion (k1 k2 p1 p2 k3): {}",
        report
            .intrinsics
            .distortion
            .iter()
            .map(|d| format!("{d:.5}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    let (min_tilt, max_tilt) = report
        .tilt_deg
        .iter()
        .fold((f64::MAX, 0.0_f64), |(lo, hi), t| (lo.min(*t), hi.max(*t)));
    println!("board tilt across views: {min_tilt:.0}° to {max_tilt:.0}°");
    let calibration = Calibration {
        intrinsics: report.intrinsics,
        camera_from_table: None,
        rms_px: Some(report.rms_px),
    };
    calibration.save(out)?;
    println!("wrote {}", out.display());
    Ok(())
}

fn table(
    image_path: &Path,
    intrinsics_path: &Path,
    out: &Path,
    board: &Chessboard,
) -> anyhow::Result<()> {
    let mut calibration = Calibration::load(intrinsics_path)?;
    let image = read_bgr(image_path)?;
    let report = calibrate_table(&image, image_path, &calibration.intrinsics, board)
        .context("calibrating the table")?;
    let (rvec, tvec) = rvec_tvec_from_isometry(&report.camera_from_table);
    println!(
        "board found: RMS reprojection error {:.3} px; camera {:.0} mm above the table",
        report.rms_px, report.camera_height_mm
    );
    println!(
        "table_rvec = [{:.5}, {:.5}, {:.5}]  table_tvec = [{:.2}, {:.2}, {:.2}] mm",
        rvec[0], rvec[1], rvec[2], tvec[0], tvec[1], tvec[2]
    );
    if report.rms_px > 1.0 {
        eprintln!(
            "warning: the board fits poorly ({:.2} px): is it flat, and are the intrinsics from this camera at this resolution?",
            report.rms_px
        );
    }
    calibration.camera_from_table = Some(report.camera_from_table);
    calibration.save(out)?;
    println!("wrote {}", out.display());
    Ok(())
}
