//! Calibration from a live feed instead of image files: `--camera N`, a recording
//! (`--video FILE`), or a folder played like a camera (`--images DIR`). The board is found in
//! the frames as they come; `koanscope_vision::ViewPicker` decides which frames make views.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressStyle};
use koanscope_capture::{
    FolderOptions, Frame, FrameSource, ImageFolder, Pacing, VideoFile, VideoOptions, Webcam,
    WebcamOptions,
};
use koanscope_vision::{
    BoardView, Chessboard, Look, PickParams, ViewPicker, VisionError, find_board_in_feed,
    image::{Mat, bgr_from_rgb},
};

/// Where the frames come from when no image files are given.
#[derive(clap::Args, Clone, Default)]
pub struct FeedArgs {
    /// Watch a webcam (the N of /dev/videoN) instead of reading image files.
    #[arg(long, conflicts_with_all = ["video", "images"])]
    pub camera: Option<u32>,
    /// Watch a recording instead (every frame is looked at).
    #[arg(long, conflicts_with = "images")]
    pub video: Option<PathBuf>,
    /// A folder of images instead: for the intrinsics each one showing the board is a view,
    /// for the table the first one showing it is used.
    #[arg(long)]
    pub images: Option<PathBuf>,
    /// Webcam resolution, WIDTHxHEIGHT: calibrate at the resolution you will play at (for the
    /// intrinsics 1280x720 unless given, for the table the intrinsics' own).
    #[arg(long)]
    pub resolution: Option<String>,
    /// Webcam frame rate.
    #[arg(long, default_value_t = 30)]
    pub fps: u32,
    /// Stop watching a camera or recording after this many seconds.
    #[arg(long, default_value_t = 120.0)]
    pub timeout: f64,
}

/// An open feed and the name its frames go by in messages ("camera 0, frame 12").
pub struct Feed {
    source: Box<dyn FrameSource>,
    name: String,
    timeout: Duration,
}

impl FeedArgs {
    /// True when a camera or a recording was asked for (a folder of images is not a feed for
    /// `calibrate intrinsics`: each of its images is a view, as if listed).
    pub fn is_live(&self) -> bool {
        self.camera.is_some() || self.video.is_some()
    }

    /// Opens the camera, recording or folder asked for; `resolution` is the webcam's unless
    /// `--resolution` says otherwise. Each folder image is held two frames, so it reads as a
    /// board held still.
    pub fn open(&self, resolution: [u32; 2]) -> anyhow::Result<Feed> {
        let resolution = match &self.resolution {
            Some(text) => crate::commands::live::parse_resolution(text)?,
            None => resolution,
        };
        let (source, name): (Box<dyn FrameSource>, String) = if let Some(index) = self.camera {
            let options = WebcamOptions {
                index,
                resolution,
                fps: self.fps,
            };
            (Box::new(Webcam::open(options)?), format!("camera {index}"))
        } else if let Some(path) = &self.video {
            let options = VideoOptions {
                pacing: Pacing::Unpaced,
                looping: false,
            };
            let video = VideoFile::open(path, options)?;
            (Box::new(video), path.display().to_string())
        } else if let Some(dir) = &self.images {
            let options = FolderOptions {
                hold: Duration::from_secs_f64(2.0 / 30.0),
                fps: 30.0,
                looping: false,
                pacing: Pacing::Unpaced,
                name_prefix: None,
            };
            (
                Box::new(ImageFolder::open(dir, options)?),
                dir.display().to_string(),
            )
        } else {
            bail!("give image files, or watch --camera N, --video FILE or --images DIR");
        };
        if !self.timeout.is_finite() || self.timeout <= 0.0 {
            bail!(
                "--timeout {}: give a number of seconds above 0",
                self.timeout
            );
        }
        Ok(Feed {
            source,
            name,
            timeout: Duration::from_secs_f64(self.timeout),
        })
    }
}

/// What one watch saw.
#[derive(Debug, Default)]
pub struct Watched {
    pub frames: u64,
    pub with_board: u64,
    pub ended: bool,
    pub timed_out: bool,
}

impl Feed {
    pub fn resolution(&self) -> [u32; 2] {
        self.source.resolution()
    }

    pub fn describe(&self) -> String {
        self.source.describe()
    }

    /// The next frame as OpenCV sees it, the name it goes by and the board in it, counted in
    /// `watched`; None once the feed ended or the time since `start` is up (`watched` says which).
    fn look(
        &mut self,
        board: &Chessboard,
        start: Instant,
        watched: &mut Watched,
    ) -> anyhow::Result<Option<Seen>> {
        if start.elapsed() > self.timeout {
            watched.timed_out = true;
            return Ok(None);
        }
        let Some(frame) = self
            .source
            .next_frame()
            .with_context(|| format!("reading {}", self.name))?
        else {
            watched.ended = true;
            return Ok(None);
        };
        let [w, h] = [frame.image.width(), frame.image.height()];
        let bgr = bgr_from_rgb(w, h, frame.image.as_raw())?;
        let path = PathBuf::from(format!("{}, frame {}", self.name, frame.index));
        let view = board_in(&bgr, &path, board)?;
        watched.frames += 1;
        watched.with_board += u64::from(view.is_some());
        Ok(Some(Seen {
            frame,
            bgr,
            path,
            view,
        }))
    }

    /// Watches until `want` views are kept, the feed ends or the time is up. Kept frames are
    /// saved as `view_NN.png` in `save` when given (and the views then name those files), so
    /// the calibration can be repeated from them.
    pub fn pick_views(
        &mut self,
        board: &Chessboard,
        want: usize,
        save: Option<&Path>,
        max_edge_rise: f64,
    ) -> anyhow::Result<(Vec<BoardView>, Watched)> {
        if let Some(dir) = save {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        let progress = ProgressBar::new(want as u64).with_style(
            ProgressStyle::with_template("views {bar:20} {pos}/{len} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        let params = PickParams {
            max_edge_rise_px: max_edge_rise,
            ..PickParams::default()
        };
        let mut picker = ViewPicker::new(*board, params);
        let mut watched = Watched::default();
        let start = Instant::now();
        while picker.kept().len() < want {
            let Some(Seen {
                frame, path, view, ..
            }) = self.look(board, start, &mut watched)?
            else {
                break;
            };
            let view = match (view, save) {
                (Some(mut view), Some(dir)) => {
                    view.path = dir.join(format!("view_{:02}.png", picker.kept().len()));
                    Some(view)
                }
                (view, _) => view,
            };
            let look = picker.look(view);
            if look == Look::Kept {
                let (view, spread) = picker.kept().last().expect("just kept");
                if save.is_some() {
                    frame
                        .image
                        .save(&view.path)
                        .with_context(|| format!("saving {}", view.path.display()))?;
                }
                // Printed whether or not the bar is drawn, so a log shows the views too.
                progress.suspend(|| {
                    eprintln!(
                        "kept view {} ({}): across {:.2}, down {:.2}, size {:.2}, skew {:.2}",
                        picker.kept().len(),
                        path.display(),
                        spread.x,
                        spread.y,
                        spread.size,
                        spread.skew
                    )
                });
                progress.inc(1);
            }
            let doing = match look {
                Look::NoBoard => "no board in view",
                Look::Moving => "hold the board still",
                Look::Blurred { .. } => {
                    "the board is out of focus: focus the camera on it (a soft camera: --max-edge-rise)"
                }
                Look::LikeKept { .. } => "like a view kept: move or tilt the board",
                Look::Kept => "kept",
            };
            let advice = picker
                .coverage()
                .and_then(|c| c.advice())
                .unwrap_or("keep varying the board");
            progress.set_message(format!("{doing}; {advice}"));
        }
        progress.finish_and_clear();
        Ok((picker.into_views(), watched))
    }

    /// Watches until the board has lain still in two frames running, and gives the second.
    pub fn still_board(&mut self, board: &Chessboard) -> anyhow::Result<(Mat, PathBuf)> {
        let mut picker = ViewPicker::new(*board, PickParams::default());
        let start = Instant::now();
        let mut watched = Watched::default();
        let mut blurred = 0;
        while let Some(Seen {
            bgr, path, view, ..
        }) = self.look(board, start, &mut watched)?
        {
            match picker.look(view) {
                Look::Kept => return Ok((bgr, path)),
                Look::Blurred { .. } => blurred += 1,
                _ => {}
            }
        }
        let why = if watched.ended {
            "it ended"
        } else {
            "time ran out"
        };
        let focus = if blurred > 0 {
            format!(
                " ({blurred} frames showed it still but out of focus: focus the camera on the table)"
            )
        } else {
            String::new()
        };
        bail!(
            "no {}x{} chessboard lay still in {} ({} frames, the board found in {}){focus} before {why}: lay the board flat in full view, light it evenly, keep it still (or give --timeout more seconds)",
            board.cols,
            board.rows,
            self.name,
            watched.frames,
            watched.with_board
        )
    }
}

/// One frame of a feed, and the board found in it.
struct Seen {
    frame: Frame,
    bgr: Mat,
    path: PathBuf,
    view: Option<BoardView>,
}

fn board_in(bgr: &Mat, path: &Path, board: &Chessboard) -> Result<Option<BoardView>, VisionError> {
    match find_board_in_feed(bgr, path, board) {
        Ok(view) => Ok(Some(view)),
        Err(VisionError::BoardNotFound { .. }) => Ok(None),
        Err(other) => Err(other),
    }
}
