//! The window: the Master's console in the main viewport and the public table view in a second
//! one (its own OS window, to put on the screen the table faces), fed by a channel from the
//! vision thread. Optionally saves a screenshot of each view and quits (headless checks).

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use egui::{ViewportBuilder, ViewportClass, ViewportCommand, ViewportId};

use crate::console::{ConsoleState, master_console};
use crate::draw::PictureCache;
use crate::feed::TableFeed;
use crate::public::{DrawnKoan, public_view};
use crate::table::LiveTable;

/// Screenshots to take once enough frames have been shown.
#[derive(Debug, Clone)]
pub struct ScreenshotPlan {
    pub dir: PathBuf,
    /// Feed frames to wait for before taking them.
    pub after_frames: u64,
}

/// The running window.
pub struct TableApp {
    table: LiveTable,
    feed: Receiver<TableFeed>,
    console: ConsoleState,
    console_pictures: PictureCache,
    public_pictures: PictureCache,
    /// Show the public view in the same window (one screen) instead of its own.
    one_window: bool,
    frame_times: VecDeque<Instant>,
    screenshot: Option<ScreenshotPlan>,
    shots: Shots,
    drawn: Vec<DrawnKoan>,
}

#[derive(Default)]
struct Shots {
    requested: bool,
    /// Views saved so far (filled in by the renderer's callbacks).
    saved: Arc<Mutex<Vec<&'static str>>>,
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

const PUBLIC: &str = "koanscope-public";

impl TableApp {
    pub fn new(table: LiveTable, feed: Receiver<TableFeed>) -> TableApp {
        TableApp {
            table,
            feed,
            console: ConsoleState::default(),
            console_pictures: PictureCache::default(),
            public_pictures: PictureCache::default(),
            one_window: false,
            frame_times: VecDeque::new(),
            screenshot: None,
            shots: Shots::default(),
            drawn: Vec::new(),
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

    pub fn table(&self) -> &LiveTable {
        &self.table
    }

    /// Takes every feed that arrived since the last frame, in order (the tracker's states
    /// between them matter to the books: a koan built then broken down).
    fn drain_feed(&mut self) {
        while let Ok(feed) = self.feed.try_recv() {
            self.table.update(feed);
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

    fn write_drawn(&self, ppp: f32) {
        let Some(plan) = &self.screenshot else {
            return;
        };
        let lines: Vec<String> = self
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
        let path = plan.dir.join("drawn.txt");
        if let Err(e) = std::fs::write(&path, lines.join("\n") + "\n") {
            eprintln!("could not write {}: {e}", path.display());
        }
    }
}

impl eframe::App for TableApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.drain_feed();
        self.tick();
        master_console(
            ui,
            &mut self.table,
            &mut self.console,
            &mut self.console_pictures,
        );
        let ctx = ui.ctx().clone();
        let builder = ViewportBuilder::default()
            .with_title("koanscope — table")
            .with_inner_size([1280.0, 800.0]);
        let id = ViewportId::from_hash_of(PUBLIC);
        let mut drawn = Vec::new();
        if self.one_window {
            egui::Window::new("Table (public view)")
                .default_size([900.0, 560.0])
                .show(&ctx, |ui| {
                    drawn = public_view(ui, &self.table, &mut self.public_pictures);
                });
        } else {
            ctx.show_viewport_immediate(id, builder, |ui, class| {
                if class == ViewportClass::EmbeddedWindow {
                    ui.label("(this system shows one window: the public view is embedded)");
                }
                drawn = public_view(ui, &self.table, &mut self.public_pictures);
            });
        }
        self.drawn = drawn;
        if let Some(plan) = self.screenshot.clone() {
            let ready = self.table.feed().frame >= plan.after_frames;
            if ready && !self.shots.requested {
                let _ = std::fs::create_dir_all(&plan.dir);
                self.shots.requested = true;
                self.write_drawn(ctx.pixels_per_point());
                request_screenshot(
                    &ctx,
                    ViewportId::ROOT,
                    plan.dir.clone(),
                    "console",
                    self.shots.saved.clone(),
                );
                if !self.one_window {
                    request_screenshot(
                        &ctx,
                        id,
                        plan.dir.clone(),
                        "public",
                        self.shots.saved.clone(),
                    );
                }
            }
            let wanted = if self.one_window { 1 } else { 2 };
            let saved = self.shots.saved.lock().map(|s| s.len()).unwrap_or(0);
            if saved >= wanted {
                ctx.send_viewport_cmd_to(ViewportId::ROOT, ViewportCommand::Close);
            }
        }
        // Frames arrive from another thread: look for them at the display's pace.
        ctx.request_repaint_after(Duration::from_millis(15));
    }
}
