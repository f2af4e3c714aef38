//! `koanscope calibrate`: camera intrinsics from chessboard views, the table frame from the board
//! lying flat, and the printable target.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::{Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
mod feed;

use feed::FeedArgs;
use koanscope_vision::{
    BoardView, Calibration, Chessboard, ColorModel, IntrinsicsQuality, LensModel,
    SHARP_EDGE_RISE_PX, VisionError, calibrate_intrinsics, calibrate_table, find_board,
    image::read_bgr, light_cast_advice, relearn_colors, rvec_tvec_from_isometry,
};

#[derive(Subcommand)]
pub enum Calibrate {
    /// Camera matrix and lens distortion from 3 or more views of the chessboard held at varied
    /// tilts: image files, or a camera watched while the board is moved about.
    Intrinsics {
        /// Images of the chessboard (9x6 inner corners, 25 mm squares unless told otherwise).
        #[arg(
            value_name = "IMAGES",
            required_unless_present_any = ["camera", "video", "images"]
        )]
        files: Vec<PathBuf>,
        /// Watching a camera or a recording: views to keep before calibrating. A frame is kept
        /// when the board holds still and stands apart from the views kept (place, size, skew).
        #[arg(long, default_value_t = 15)]
        views: usize,
        /// Watching: save the kept frames here as view_NN.png, to calibrate again from them.
        #[arg(long)]
        save_views: Option<PathBuf>,
        #[command(flatten)]
        feed: FeedArgs,
        /// Where to write the calibration (OpenCV FileStorage YAML).
        #[arg(long, default_value = "calibration/camera.yaml")]
        out: PathBuf,
        /// Lens parameters to estimate; `auto` picks what the number of views supports.
        #[arg(long, value_enum, default_value_t = Model::Auto)]
        model: Model,
        /// A view whose board's edges take more pixels than this to rise from black to white is
        /// out of focus and left out (raise it for a soft webcam: the warning says how wide).
        #[arg(long, value_name = "PX", default_value_t = SHARP_EDGE_RISE_PX)]
        max_edge_rise: f64,
        #[command(flatten)]
        board: BoardArgs,
    },
    /// The table frame from one image of the chessboard lying flat on the table, or from a
    /// camera watched until the board lies still in view.
    Table {
        /// Image of the board flat on the table, taken by the calibrated camera.
        #[arg(required_unless_present_any = ["camera", "video", "images"], conflicts_with_all = ["camera", "video", "images"])]
        image: Option<PathBuf>,
        /// Watching: save the frame the table was calibrated from (PNG).
        #[arg(long)]
        save_frame: Option<PathBuf>,
        #[command(flatten)]
        feed: FeedArgs,
        /// Calibration file with the camera's intrinsics (from `calibrate intrinsics`).
        #[arg(long)]
        intrinsics: PathBuf,
        /// Where to write the full calibration (intrinsics and table pose).
        #[arg(long, default_value = "calibration/table.yaml")]
        out: PathBuf,
        #[command(flatten)]
        board: BoardArgs,
    },
    /// Re-learn the piece colours under the table's light from a frame showing pieces of every colour.
    Colors {
        /// A frame from the calibrated camera with pieces of each colour standing apart.
        #[arg(
            required_unless_present = "from_session",
            conflicts_with = "from_session"
        )]
        image: Option<PathBuf>,
        /// Learn instead from the frames of a session's corrections (the Master's labels of
        /// what the camera misread), by session number or name.
        #[arg(long)]
        from_session: Option<String>,
        #[command(flatten)]
        db: super::game::DbArg,
        /// Calibration with the table pose (from `calibrate table`).
        #[arg(long)]
        calibration: PathBuf,
        /// Colour model to start from; the shipped one when not given.
        #[arg(long)]
        colors: Option<PathBuf>,
        /// Where to write the learnt model (use it with `analyze --colors`).
        #[arg(long, default_value = "calibration/colors.toml")]
        out: PathBuf,
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
            files,
            views,
            save_views,
            feed,
            out,
            model,
            max_edge_rise,
            board,
        } => {
            let board = board.board()?;
            if max_edge_rise.is_nan() || max_edge_rise <= 0.0 {
                bail!(
                    "--max-edge-rise {max_edge_rise}: give a width in pixels above 0 (4 by default)"
                );
            }
            let (views, looked_at) = if feed.is_live() {
                watch_for_views(&feed, &board, views, save_views.as_deref(), max_edge_rise)?
            } else {
                let files = match &feed.images {
                    Some(dir) => folder_images(dir)?,
                    None => files,
                };
                views_in_files(&files, &board, max_edge_rise)?
            };
            intrinsics(&views, &looked_at, &out, model, &board)
        }
        Calibrate::Table {
            image,
            save_frame,
            feed,
            intrinsics,
            out,
            board,
        } => table(
            image.as_deref(),
            &feed,
            save_frame.as_deref(),
            &intrinsics,
            &out,
            &board.board()?,
        ),
        Calibrate::Colors {
            image,
            from_session,
            db,
            calibration,
            colors,
            out,
        } => match (image, from_session) {
            (Some(image), _) => relearn(&image, &calibration, colors.as_deref(), &out),
            (None, Some(session)) => {
                relearn_from_corrections(&db, &session, &calibration, colors.as_deref(), &out)
            }
            (None, None) => bail!("give a frame, or --from-session with a session's corrections"),
        },
        Calibrate::Target { out, board } => {
            let svg = koanscope_vision::target::chessboard_svg(&board.board()?);
            if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent)
                    .with_context(|| format!("creating {}", parent.display()))?;
            }
            std::fs::write(&out, svg).with_context(|| format!("writing {}", out.display()))?;
            say!(
                "wrote {} (print at 100% scale, then check the 100 mm bar)",
                out.display()
            );
            Ok(())
        }
    }
}

/// The images of a folder, in natural name order (`view2` before `view10`).
fn folder_images(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let folder = koanscope_capture::ImageFolder::open(dir, Default::default())?;
    Ok(folder.images().to_vec())
}

/// The board in each image file, and what was looked at ("7 of 8 images").
fn views_in_files(
    images: &[PathBuf],
    board: &Chessboard,
    max_edge_rise: f64,
) -> anyhow::Result<(Vec<BoardView>, String)> {
    let progress = ProgressBar::new(images.len() as u64).with_style(
        ProgressStyle::with_template("finding the board {bar:30} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut views = Vec::new();
    let mut skipped = Vec::new();
    let mut blurred = Vec::new();
    let mut unreadable = Vec::new();
    for path in images {
        progress.set_message(path.display().to_string());
        // A view that cannot be read is left out like one without the board, saying why: the
        // other views still calibrate the camera.
        let image = match read_bgr(path) {
            Ok(image) => image,
            Err(
                error @ (VisionError::ImageUnreadable { .. } | VisionError::ImageCutShort { .. }),
            ) => {
                unreadable.push(error);
                progress.inc(1);
                continue;
            }
            Err(other) => return Err(other.into()),
        };
        match find_board(&image, path, board) {
            Ok(view) if view.edge_rise_px <= max_edge_rise => views.push(view),
            Ok(view) => blurred.push(view),
            Err(VisionError::BoardNotFound { .. }) => skipped.push(path.clone()),
            Err(other) => return Err(other.into()),
        }
        progress.inc(1);
    }
    progress.finish_and_clear();
    for error in &unreadable {
        eprintln!("warning: {error}; view skipped");
    }
    for path in &skipped {
        eprintln!(
            "warning: no {}x{} chessboard in {}; view skipped",
            board.cols,
            board.rows,
            path.display()
        );
    }
    // Blurred corners are found less surely and would pull the fit; a view in focus replaces it.
    for view in &blurred {
        eprintln!(
            "warning: the chessboard in {} is blurred (its edges rise over {:.1} px, a board in focus under {max_edge_rise}); view skipped: focus the camera on the board and hold it still (or, for a soft camera, give --max-edge-rise)",
            view.path.display(),
            view.edge_rise_px
        );
    }
    let looked_at = format!("{} of {} images", views.len(), images.len());
    Ok((views, looked_at))
}

/// Views picked from a camera or recording while the board is moved about.
fn watch_for_views(
    feed: &FeedArgs,
    board: &Chessboard,
    want: usize,
    save: Option<&Path>,
    max_edge_rise: f64,
) -> anyhow::Result<(Vec<BoardView>, String)> {
    if want < 3 {
        bail!("--views {want}: a calibration needs at least 3 views (15 or more is better)");
    }
    let mut feed = feed.open([1280, 720])?;
    eprintln!(
        "watching {} for a {}x{} board: hold it still for a moment at different places, distances and tilts; a frame is kept when the board stands apart from the views kept",
        feed.describe(),
        board.cols,
        board.rows
    );
    let (views, watched) = feed.pick_views(board, want, save, max_edge_rise)?;
    if views.len() < want {
        eprintln!(
            "warning: {} views kept of the {want} asked for ({}): calibrating with those",
            views.len(),
            if watched.timed_out {
                "time ran out; give --timeout more seconds"
            } else {
                "the recording ended"
            }
        );
    }
    let looked_at = format!(
        "{} kept from {} frames (the board found in {})",
        views.len(),
        watched.frames,
        watched.with_board
    );
    Ok((views, looked_at))
}

fn intrinsics(
    views: &[BoardView],
    looked_at: &str,
    out: &Path,
    model: Model,
    board: &Chessboard,
) -> anyhow::Result<()> {
    let (model, why) = match model {
        Model::Auto => (
            LensModel::for_views(views.len()),
            format!("chosen for {} views", views.len()),
        ),
        Model::Pinhole => (LensModel::Pinhole, "as asked".to_string()),
        Model::Radial => (LensModel::Radial, "as asked".to_string()),
        Model::Full => (LensModel::Full, "as asked".to_string()),
    };
    let report = calibrate_intrinsics(views, board, model, &IntrinsicsQuality::default())
        .context("calibrating the camera")?;
    // Written before the report is printed, so a closed pipe cannot lose it.
    let calibration = Calibration {
        intrinsics: report.intrinsics.clone(),
        camera_from_table: None,
        rms_px: Some(report.rms_px),
        board_white_lab: None,
    };
    calibration.save(out)?;
    let k = &report.intrinsics.camera_matrix;
    say!("views used: {looked_at}");
    say!("lens model: {} ({why})", model.describe());
    if model != LensModel::Full {
        say!(
            "  with few views the other terms are fixed; with 20+ varied views `--model full` also estimates them"
        );
    }
    say!(
        "RMS reprojection error: {:.3} px (per view: {})",
        report.rms_px,
        report
            .per_view_rms_px
            .iter()
            .map(|(_, e)| format!("{e:.3}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    say!(
        "fx = {:.2} ± {:.2}  fy = {:.2}  cx = {:.2}  cy = {:.2} px",
        k[(0, 0)],
        report.focal_std_px,
        k[(1, 1)],
        k[(0, 2)],
        k[(1, 2)]
    );
    say!(
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
    say!("board tilt across views: {min_tilt:.0}° to {max_tilt:.0}°");
    say!("wrote {}", out.display());
    Ok(())
}

fn table(
    image_path: Option<&Path>,
    feed: &FeedArgs,
    save_frame: Option<&Path>,
    intrinsics_path: &Path,
    out: &Path,
    board: &Chessboard,
) -> anyhow::Result<()> {
    let mut calibration = Calibration::load(intrinsics_path)?;
    let (image, image_path) = match image_path {
        Some(path) => (read_bgr(path)?, path.to_path_buf()),
        None => {
            // The camera at the resolution it was calibrated at, unless told otherwise.
            let mut feed = feed.open(calibration.intrinsics.image_size)?;
            eprintln!(
                "watching {} for the {}x{} board lying flat and still",
                feed.describe(),
                board.cols,
                board.rows
            );
            let [w, h] = feed.resolution();
            let [cw, ch] = calibration.intrinsics.image_size;
            if [w, h] != [cw, ch] {
                bail!(
                    "the frames are {w}x{h} but {} was made for {cw}x{ch}: calibrate the table at the resolution of the intrinsics (--resolution {cw}x{ch}), or calibrate the intrinsics at {w}x{h}",
                    intrinsics_path.display()
                );
            }
            let (image, path) = feed.still_board(board)?;
            match save_frame {
                Some(file) => {
                    koanscope_vision::image::write_bgr(file, &image)?;
                    (image, file.to_path_buf())
                }
                None => (image, path),
            }
        }
    };
    let report = calibrate_table(&image, &image_path, &calibration.intrinsics, board)
        .context("calibrating the table")?;
    calibration.camera_from_table = Some(report.camera_from_table);
    calibration.board_white_lab = Some(report.board_white_lab);
    calibration.save(out)?;
    let (rvec, tvec) = rvec_tvec_from_isometry(&report.camera_from_table);
    say!(
        "board found: RMS reprojection error {:.3} px; camera {:.0} mm above the table",
        report.rms_px,
        report.camera_height_mm
    );
    say!(
        "table_rvec = [{:.5}, {:.5}, {:.5}]  table_tvec = [{:.2}, {:.2}, {:.2}] mm",
        rvec[0],
        rvec[1],
        rvec[2],
        tvec[0],
        tvec[1],
        tvec[2]
    );
    if report.rms_px > 1.0 {
        eprintln!(
            "warning: the board fits poorly ({:.2} px): is it flat, and are the intrinsics from this camera at this resolution?",
            report.rms_px
        );
    }
    if report.edge_rise_px > SHARP_EDGE_RISE_PX {
        eprintln!(
            "warning: the board is blurred (its edges rise over {:.1} px, a board in focus under {SHARP_EDGE_RISE_PX}): its corners, and so the table's pose, are less sure; focus the camera on the table and calibrate again",
            report.edge_rise_px
        );
    }
    if let Some(advice) = light_cast_advice(report.board_white_lab) {
        eprintln!("warning: {advice}");
    }
    say!("wrote {}", out.display());
    Ok(())
}

/// The calibration with its table pose, and the colour model to start from (the shipped one
/// unless given).
fn calibrated(
    calibration_path: &Path,
    colors: Option<&Path>,
) -> anyhow::Result<(Calibration, koanscope_vision::Camera, ColorModel)> {
    let calibration = Calibration::load(calibration_path)?;
    let camera = calibration.camera(calibration_path)?;
    let model = ColorModel::load_or_shipped(colors)?;
    // Colours learnt under a cast win little back (the warm dev copy: recall unchanged).
    if let Some(advice) = calibration.light_cast_advice() {
        eprintln!("warning: {advice}");
    }
    Ok((calibration, camera, model))
}

fn relearn(
    image_path: &Path,
    calibration_path: &Path,
    colors: Option<&Path>,
    out: &Path,
) -> anyhow::Result<()> {
    let (calibration, camera, model) = calibrated(calibration_path, colors)?;
    let image = read_bgr(image_path)?;
    koanscope_vision::check_resolution(&image, image_path, &calibration.intrinsics)?;
    let (learnt, updates) = relearn_colors(&image, &camera, &model, 0.9)
        .with_context(|| format!("learning colours from {}", image_path.display()))?;
    if updates.iter().all(|u| u.new_hue_deg.is_none()) {
        bail!(
            "no piece was found confidently enough to learn from: check the calibration and the light, and put pieces of each colour apart in view"
        );
    }
    let origin = format!("learnt from {}", image_path.display());
    write_model(&learnt, &updates, &origin, out)
}

/// Learns the colours from the frames the Master corrected in a session: each corrected
/// koan's pieces, with the colours the Master gave them, teach the model frame after frame.
fn relearn_from_corrections(
    db: &super::game::DbArg,
    session: &str,
    calibration_path: &Path,
    colors: Option<&Path>,
    out: &Path,
) -> anyhow::Result<()> {
    let (calibration, camera, mut model) = calibrated(calibration_path, colors)?;
    let store = db.open()?;
    let id = store.find(session)?;
    let corrections = store.corrections(id)?;
    let mut learnt_any: Vec<koanscope_vision::HueUpdate> = Vec::new();
    let mut frames = 0;
    for (i, c) in corrections.iter().enumerate() {
        let Some(png) = &c.frame_png else {
            continue;
        };
        let rgb = image::load_from_memory(png)
            .with_context(|| format!("correction {} of session {session}: the frame", i + 1))?
            .to_rgb8();
        let frame = koanscope_vision::image::bgr_from_rgb(rgb.width(), rgb.height(), rgb.as_raw())?;
        let where_ = PathBuf::from(format!("session {session}, correction {}", i + 1));
        koanscope_vision::check_resolution(&frame, &where_, &calibration.intrinsics)?;
        let labels: Vec<([f64; 2], koanscope_scene::Color)> = c
            .corrected
            .pieces
            .iter()
            .filter_map(|p| p.image_xy.map(|xy| (xy, p.color)))
            .collect();
        let (next, updates) =
            koanscope_vision::relearn_colors_labelled(&frame, &camera, &model, &labels, 20.0)
                .with_context(|| format!("learning colours from {}", where_.display()))?;
        model = next;
        frames += 1;
        for u in updates {
            match learnt_any.iter_mut().find(|l| l.color == u.color) {
                Some(l) => {
                    l.pixels += u.pixels;
                    if u.new_hue_deg.is_some() {
                        l.new_hue_deg = u.new_hue_deg;
                    }
                }
                None => learnt_any.push(u),
            }
        }
    }
    if frames == 0 {
        bail!(
            "session {session} has no corrected frames to learn from: correct a piece in the Master's console first"
        );
    }
    if learnt_any.iter().all(|u| u.new_hue_deg.is_none()) {
        bail!(
            "the {frames} corrected frames of session {session} show too little of any colour to learn from"
        );
    }
    let origin = format!("learnt from {frames} corrected frames of session {session}");
    write_model(&model, &learnt_any, &origin, out)
}

fn write_model(
    learnt: &ColorModel,
    updates: &[koanscope_vision::HueUpdate],
    origin: &str,
    out: &Path,
) -> anyhow::Result<()> {
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    std::fs::write(out, learnt.to_toml(origin))
        .with_context(|| format!("writing {}", out.display()))?;
    for update in updates {
        match update.new_hue_deg {
            Some(hue) => say!(
                "{:<7} hue {:6.1}° -> {:6.1}° ({} pixels)",
                update.color.word(),
                update.old_hue_deg,
                hue,
                update.pixels
            ),
            None => say!(
                "{:<7} hue {:6.1}° kept: too few confident pixels ({}); put a piece of this colour in view",
                update.color.word(),
                update.old_hue_deg,
                update.pixels
            ),
        }
    }
    say!(
        "wrote {} (use it with `koanscope analyze --colors {}`)",
        out.display(),
        out.display()
    );
    Ok(())
}
