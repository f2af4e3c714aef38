//! The window: the Master's console in the main viewport and the public table view in a second
//! one (its own OS window, to put on the screen the table faces), fed by a channel from the
//! vision thread. Optionally saves a screenshot of each view and quits (headless checks).

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use egui::{ViewportBuilder, ViewportClass, ViewportCommand, ViewportId};

use crate::console::{ConsoleState, master_console};
use crate::draw::PictureCache;
use crate::feed::{FeedUpdate, KoanState};
use crate::public::{DrawnKoan, public_view};
use crate::table::LiveTable;

/// Screenshots to take once the table has settled and its koans are marked.
#[derive(Debug, Clone)]
pub struct ScreenshotPlan {
    pub dir: PathBuf,
    /// Feed frames to wait for at least.
    pub after_frames: u64,
}

/// What both viewports draw from. The public view is a deferred viewport (eframe paints it on
/// its own, and can screenshot it), so it reaches the table through a lock.
struct Shared {
    table: LiveTable,
    public_pictures: PictureCache,
    drawn: Vec<DrawnKoan>,
}

/// The running window.
pub struct TableApp {
    shared: Arc<Mutex<Shared>>,
    feed: Receiver<FeedUpdate>,
    console: ConsoleState,
    console_pictures: PictureCache,
    /// Show the public view in the same window (one screen) instead of its own.
    one_window: bool,
    frame_times: VecDeque<Instant>,
    screenshot: Option<ScreenshotPlan>,
    shots: Shots,
    /// Tells the vision thread which koans are marked (so it keeps their ghosts).
    marked: Option<Sender<Vec<u64>>>,
    last_marked: Vec<u64>,
    /// Whatever must live as long as the window (the vision thread's handle).
    _keep_alive: Option<Box<dyn std::any::Any>>,
}

#[derive(Default)]
struct Shots {
    requested: bool,
    /// Views saved so far (filled in by the renderer's callbacks).
    saved: Arc<Mutex<Vec<&'static str>>>,
}

const PUBLIC: &str = "koanscope-public";

fn lock(shared: &Mutex<Shared>) -> MutexGuard<'_, Shared> {
    // A panic while drawing one view must not take the other down with it.
    shared
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Asks a viewport for a screenshot, saved as `dir/which.png` when it arrives.
fn request_screenshot(
    ctx: &egui::Context,
    viewport: ViewportId,
    dir: PathBuf,
    which: &'static str,
    saved: Arc<Mutex<Vec<&'static str>>>,
) {
    let repaint = ctx.clone();
    let callback = egui::ScreenshotCallback::new(move |image: Arc<egui::ColorImage>| {
        let path = dir.join(format!("{which}.png"));
        let [w, h] = image.size;
        let bytes: Vec<u8> = image.pixels.iter().flat_map(|c| c.to_array()).collect();
        match image::RgbaImage::from_raw(w as u32, h as u32, bytes) {
            Some(buffer) => {
                if let Err(e) = buffer.save(&path) {
                    eprintln!("could not save {}: {e}", path.display());
                }
            }
            None => eprintln!("the {which} screenshot has no pixels"),
        }
        if let Ok(mut saved) = saved.lock() {
            saved.push(which);
        }
        repaint.request_repaint();
    });
    ctx.send_viewport_cmd_to(viewport, ViewportCommand::Screenshot(callback));
}

impl TableApp {
    pub fn new(table: LiveTable, feed: Receiver<FeedUpdate>) -> TableApp {
        TableApp {
            shared: Arc::new(Mutex::new(Shared {
                table,
                public_pictures: PictureCache::default(),
                drawn: Vec::new(),
            })),
            feed,
            console: ConsoleState::default(),
            console_pictures: PictureCache::default(),
            one_window: false,
            frame_times: VecDeque::new(),
            screenshot: None,
            shots: Shots::default(),
            marked: None,
            last_marked: Vec::new(),
            _keep_alive: None,
        }
    }

    pub fn one_window(mut self, on: bool) -> TableApp {
        self.one_window = on;
        self
    }

    pub fn screenshot(mut self, plan: Option<ScreenshotPlan>) -> TableApp {
        self.screenshot = plan;
        self
    }

    pub fn marked_sender(mut self, marked: Sender<Vec<u64>>) -> TableApp {
        self.marked = Some(marked);
        self
    }

    pub fn keep_alive(mut self, value: Box<dyn std::any::Any>) -> TableApp {
        self._keep_alive = Some(value);
        self
    }

    /// Takes every update that arrived since the last frame, in order (the tracker's states
    /// between analysed frames matter to the books: a koan built then broken down), and tells
    /// the vision thread when the marked koans change.
    fn drain_feed(&mut self) {
        let mut shared = lock(&self.shared);
        while let Ok(update) = self.feed.try_recv() {
            shared.table.receive(update);
        }
        let marked = shared.table.marked_tracked();
        if marked != self.last_marked {
            if let Some(tx) = &self.marked {
                let _ = tx.send(marked.clone());
            }
            self.last_marked = marked;
        }
    }

    fn tick(&mut self) {
        let now = Instant::now();
        self.frame_times.push_back(now);
        while self
            .frame_times
            .front()
            .is_some_and(|t| now.duration_since(*t) > Duration::from_secs(1))
        {
            self.frame_times.pop_front();
        }
        self.console.ui_fps = self.frame_times.len() as f32;
    }

    /// The table is worth a picture: enough frames, every koan on it built and in the books,
    /// at least one marked.
    fn ready_for_shots(&self, plan: &ScreenshotPlan) -> bool {
        let shared = lock(&self.shared);
        let feed = shared.table.feed();
        let views = shared.table.koan_views();
        feed.frame >= plan.after_frames
            && !views.is_empty()
            && views
                .iter()
                .all(|k| k.no.is_some() && k.state == KoanState::Built)
            && views.iter().any(|k| k.mark.is_some())
    }

    fn write_drawn(&self, dir: &std::path::Path, ppp: f32) {
        let shared = lock(&self.shared);
        let lines: Vec<String> = shared
            .drawn
            .iter()
            .map(|d| {
                format!(
                    "koan {} {} {:.0} {:.0}",
                    d.no,
                    d.mark.map(|m| m.word()).unwrap_or("unmarked"),
                    d.stone_at.map(|p| p.x * ppp).unwrap_or(-1.0),
                    d.stone_at.map(|p| p.y * ppp).unwrap_or(-1.0),
                )
            })
            .collect();
        let path = dir.join("drawn.txt");
        if let Err(e) = std::fs::write(&path, lines.join("\n") + "\n") {
            eprintln!("could not write {}: {e}", path.display());
        }
    }

    fn screenshots(&mut self, ctx: &egui::Context, public: ViewportId) {
        let Some(plan) = self.screenshot.clone() else {
            return;
        };
        if !self.shots.requested && self.ready_for_shots(&plan) {
            if let Err(e) = std::fs::create_dir_all(&plan.dir) {
                eprintln!("could not create {}: {e}", plan.dir.display());
            }
            self.shots.requested = true;
            let saved = self.shots.saved.clone();
            request_screenshot(ctx, ViewportId::ROOT, plan.dir.clone(), "console", saved);
            if !self.one_window {
                let saved = self.shots.saved.clone();
                request_screenshot(ctx, public, plan.dir.clone(), "public", saved);
            }
        }
        let wanted = if self.one_window { 1 } else { 2 };
        let saved = self.shots.saved.lock().map(|s| s.len()).unwrap_or(0);
        if saved >= wanted {
            // What the public view drew in the frame it was pictured in.
            self.write_drawn(&plan.dir, ctx.pixels_per_point());
            ctx.send_viewport_cmd_to(ViewportId::ROOT, ViewportCommand::Close);
        }
    }
}

impl eframe::App for TableApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.drain_feed();
        self.tick();
        {
            let mut shared = lock(&self.shared);
            master_console(
                ui,
                &mut shared.table,
                &mut self.console,
                &mut self.console_pictures,
            );
        }
        let ctx = ui.ctx().clone();
        let public = ViewportId::from_hash_of(PUBLIC);
        if self.one_window {
            let shared = self.shared.clone();
            egui::Window::new("Table (public view)")
                .default_size([900.0, 560.0])
                .show(&ctx, |ui| {
                    let mut s = lock(&shared);
                    let s = &mut *s;
                    s.drawn = public_view(ui, &s.table, &mut s.public_pictures);
                });
        } else {
            let shared = self.shared.clone();
            ctx.show_viewport_deferred(
                public,
                ViewportBuilder::default()
                    .with_title("koanscope — table")
                    .with_inner_size([1280.0, 800.0]),
                move |ui, class| {
                    if class == ViewportClass::EmbeddedWindow {
                        ui.label("(this system shows one window: the public view is embedded)");
                    }
                    let mut s = lock(&shared);
                    let s = &mut *s;
                    s.drawn = public_view(ui, &s.table, &mut s.public_pictures);
                    // The table view follows the feed as the console does.
                    ui.ctx().request_repaint_after(Duration::from_millis(15));
                },
            );
        }
        self.screenshots(&ctx, public);
        // Frames arrive from another thread: look for them at the display's pace.
        ctx.request_repaint_after(Duration::from_millis(15));
    }
}
