//! `koanscope live`: the window at the table. Frames from a webcam, a video or a folder of
//! images go through vision and the tracker on their own thread; the Master's console and the
//! public table view follow the game in the session store.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use koanscope::live::{RuleServices, Vision, spawn_pipeline};
use koanscope_capture::{
    CaptureError, FolderOptions, FrameSource, ImageFolder, Opener, Pacing, Reconnecting, VideoFile,
    VideoOptions, Webcam, WebcamOptions,
};
use koanscope_game::{Mode, RuleSource, Secret, Setup, Stones, Vocabulary};
use koanscope_geometry::Engine;
use koanscope_tracker::{OcclusionConfig, OcclusionDetector, Tracker, TrackerConfig};
use koanscope_ui::{LiveTable, ScreenshotPlan, TableApp};
use koanscope_vision::{Calibration, ColorModel, Detector};

use super::game::DbArg;

/// Where the frames come from.
#[derive(clap::Args, Clone)]
#[group(required = true, multiple = false)]
pub struct SourceArgs {
    /// A webcam: the N of /dev/videoN.
    #[arg(long)]
    pub camera: Option<u32>,
    /// A recording of the table.
    #[arg(long)]
    pub video: Option<PathBuf>,
    /// A folder of still frames, each held for --hold seconds.
    #[arg(long)]
    pub images: Option<PathBuf>,
}

/// How the window runs.
#[derive(clap::Args, Clone)]
pub struct WindowArgs {
    /// The Master's name.
    #[arg(long, default_value = "Master")]
    pub master: String,
    /// The students, in turn order, separated by commas.
    #[arg(long, value_delimiter = ',', default_value = "Ann,Ben,Cy")]
    pub students: Vec<String>,
    /// The secret rule (never shown in the public view).
    #[arg(long)]
    pub rule: Option<String>,
    /// koanscope logs and marks each built koan as the rule says (nobody at the console).
    #[arg(long)]
    pub auto_master: bool,
    /// Show the public view inside the console's window instead of a window of its own.
    #[arg(long)]
    pub one_window: bool,
    /// Save console.png, public.png and drawn.txt in this folder after --shot-after frames,
    /// then quit (for headless checks under Xvfb).
    #[arg(long)]
    pub screenshot: Option<PathBuf>,
    /// Frames to analyse before the screenshots.
    #[arg(long, default_value_t = 40)]
    pub shot_after: u64,
    /// Seconds each image of a folder stays in view.
    #[arg(long, default_value_t = 4.0)]
    pub hold: f64,
    /// Seconds a koan must stand still to count as built.
    #[arg(long, default_value_t = 1.5)]
    pub settle: f64,
    /// Vision workers, each analysing the newest frame (frames still reach the tracker in
    /// order). One leaves the second core to the capture thread and the window; on this
    /// project's 2-core machine a second worker did not raise the rate with a 30 fps camera.
    #[arg(long, default_value_t = 1)]
    pub vision_workers: usize,
    /// Colour model (TOML); the shipped models/colors.toml when not given.
    #[arg(long)]
    pub colors: Option<PathBuf>,
    #[command(flatten)]
    pub db: DbArg,
}

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub source: SourceArgs,
    /// Calibration with the table pose (from `koanscope calibrate table`).
    #[arg(long)]
    pub calibration: PathBuf,
    /// Webcam resolution, WIDTHxHEIGHT.
    #[arg(long, default_value = "1280x720")]
    pub resolution: String,
    /// Webcam frame rate.
    #[arg(long, default_value_t = 30)]
    pub fps: u32,
    #[command(flatten)]
    pub window: WindowArgs,
}

pub(crate) fn parse_resolution(text: &str) -> anyhow::Result<[u32; 2]> {
    let (w, h) = text.split_once(['x', 'X']).with_context(|| {
        format!("--resolution {text:?}: write it as WIDTHxHEIGHT, e.g. 1280x720")
    })?;
    let n = |s: &str| {
        s.trim()
            .parse::<u32>()
            .with_context(|| format!("--resolution {text:?}: {s:?} is not a whole number"))
    };
    Ok([n(w)?, n(h)?])
}

/// The source, opened once here (a missing camera or file is reported now, with what to do)
/// and re-opened by the reconnecting wrapper when it goes away mid-game.
fn open_source(
    source: &SourceArgs,
    resolution: [u32; 2],
    fps: u32,
    hold: f64,
    prefix: Option<&str>,
) -> anyhow::Result<Reconnecting> {
    let opener: Opener = if let Some(index) = source.camera {
        let options = WebcamOptions {
            index,
            resolution,
            fps,
        };
        Box::new(move || Ok(Box::new(Webcam::open(options)?) as Box<dyn FrameSource>))
    } else if let Some(path) = source.video.clone() {
        Box::new(move || {
            let options = VideoOptions {
                pacing: Pacing::RealTime,
                looping: false,
            };
            Ok(Box::new(VideoFile::open(&path, options)?) as Box<dyn FrameSource>)
        })
    } else if let Some(dir) = source.images.clone() {
        let options = FolderOptions {
            hold: Duration::from_secs_f64(hold.max(0.1)),
            looping: true,
            name_prefix: prefix.map(str::to_string),
            ..FolderOptions::default()
        };
        Box::new(move || {
            Ok(Box::new(ImageFolder::open(&dir, options.clone())?) as Box<dyn FrameSource>)
        })
    } else {
        bail!("give --camera N, --video FILE or --images DIR");
    };
    Reconnecting::open(opener, Reconnecting::DEFAULT_RETRY).map_err(|e: CaptureError| e.into())
}

/// Opens the window on a source and plays until it is closed.
pub fn run_window(
    source: Reconnecting,
    calibration_path: &Path,
    window: WindowArgs,
    session_name: Option<String>,
) -> anyhow::Result<()> {
    let calibration = Calibration::load(calibration_path)?;
    let camera = calibration.camera(calibration_path)?;
    let [w, h] = source.resolution();
    let [cw, ch] = camera.intrinsics.image_size;
    if [cw, ch] != [w, h] {
        bail!(
            "the frames are {w}x{h} but {} was made for {cw}x{ch}: calibrate this camera at this resolution (`koanscope calibrate intrinsics`, then `calibrate table`)",
            calibration_path.display()
        );
    }
    let colors = ColorModel::load_or_shipped(window.colors.as_deref())?;
    let rule = window
        .rule
        .clone()
        .unwrap_or_else(|| "A koan has the Buddha-nature if it contains a red piece.".into());
    koanscope_rules::parse_rule(&rule)
        .with_context(|| format!("reading the secret rule {rule:?}"))?;
    let secret = Secret::new(rule);
    // Everything is read and checked: now a window, and only then a session in the store.
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
    if !set("DISPLAY") && !set("WAYLAND_DISPLAY") {
        bail!(
            "no display to open the window on (neither DISPLAY nor WAYLAND_DISPLAY is set): run it on a desktop, or headless under `xvfb-run -a` (scripts/demo does)"
        );
    }
    let setup = Setup {
        mode: Mode::Standard,
        master: window.master.clone(),
        students: window.students.clone(),
        stones: Stones::standard(window.students.len()),
        vocabulary: Vocabulary::Zen,
        koanscope_master: window.auto_master,
        rule_source: RuleSource::Typed,
        commitment: secret.commitment(),
    };
    let mut store = window.db.open()?;
    let (session, game) = store
        .start(session_name.as_deref(), &setup, &secret)
        .context("starting the session")?;
    eprintln!(
        "session {session} in {} — {}",
        window.db.path()?.display(),
        source.describe()
    );
    let mut table = LiveTable::new(store, session, game, Box::new(RuleServices::default()));
    table.set_auto_master(window.auto_master);
    let tracker = Tracker::new(TrackerConfig {
        settle: Duration::from_secs_f64(window.settle.max(0.0)),
        ..TrackerConfig::default()
    });
    let vision: Vec<Vision> = (0..window.vision_workers.max(1))
        .map(|_| Vision {
            camera: camera.clone(),
            detector: Detector::new(colors.clone()),
            engine: Engine::default(),
            standing_warnings: calibration.light_cast_advice().into_iter().collect(),
        })
        .collect();
    let screenshot = window.screenshot.clone().map(|dir| ScreenshotPlan {
        dir,
        after_frames: window.shot_after,
    });
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("koanscope — Master's console")
            .with_inner_size([1440.0, 860.0]),
        ..eframe::NativeOptions::default()
    };
    let one_window = window.one_window;
    eframe::run_native(
        "koanscope",
        options,
        Box::new(move |cc| {
            let ctx = cc.egui_ctx.clone();
            let mut pipeline = spawn_pipeline(
                source,
                vision,
                tracker,
                OcclusionDetector::new(OcclusionConfig::default()),
                Box::new(move || ctx.request_repaint()),
            )?;
            let (feed, marked) = pipeline.channels();
            Ok(Box::new(
                TableApp::new(table, feed)
                    .marked_sender(marked)
                    .keep_alive(Box::new(pipeline))
                    .one_window(one_window)
                    .screenshot(screenshot),
            ))
        }),
    )
    .map_err(|e| anyhow::anyhow!("the window failed: {e}"))
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let resolution = parse_resolution(&args.resolution)?;
    let source = open_source(&args.source, resolution, args.fps, args.window.hold, None)?;
    run_window(source, &args.calibration, args.window, None)
}

/// The bundled sample: frames and their calibration, found beside the binary's sources.
pub fn sample(path: &str) -> PathBuf {
    let here = PathBuf::from(path);
    if here.exists() {
        return here;
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// `demo`: the live window on the bundled sample table, koanscope as the Master.
pub fn demo(window: WindowArgs) -> anyhow::Result<()> {
    let source = open_source(
        &SourceArgs {
            camera: None,
            video: None,
            images: Some(sample("sample_images/S1")),
        },
        [1280, 720],
        30,
        window.hold,
        Some("scene_"),
    )?;
    run_window(source, &sample("calibration/sample-S1.yaml"), window, None)
}
