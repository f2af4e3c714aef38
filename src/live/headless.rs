//! Both views drawn by egui without a window: what a frame of the window costs the CPU (the
//! layout and painting of `Context::run_ui` and the tessellation into triangles), for the
//! benchmark. The GPU's side (uploading the texture, rasterising) is not in it.

use std::sync::Arc;

use anyhow::Context as _;
use egui::{Pos2, RawInput, Rect, Vec2};
use koanscope_game::{Mode, RuleSource, Secret, Setup, Stones, Store, Vocabulary};
use koanscope_ui::{
    ConsoleState, LiveTable, NoServices, Picture, PictureCache, PictureUpdate, TableFeed,
    master_console, public_view,
};

/// The Master's console and the public view, each in its own headless egui context of the
/// window's size, showing one table feed.
pub struct HeadlessWindow {
    console_ctx: egui::Context,
    public_ctx: egui::Context,
    table: LiveTable,
    console: ConsoleState,
    console_pictures: PictureCache,
    public_pictures: PictureCache,
    /// Two copies of the feed's picture, shown in turn as if the camera sent a new one.
    pictures: [Arc<Picture>; 2],
    next_index: u64,
}

fn input(size: Vec2) -> RawInput {
    RawInput {
        screen_rect: Some(Rect::from_min_size(Pos2::ZERO, size)),
        ..RawInput::default()
    }
}

impl HeadlessWindow {
    /// A window on `feed` (an analysed frame with its picture), with koanscope as the Master so
    /// the built koans are logged and marked and the public view draws their stones.
    pub fn new(feed: TableFeed) -> anyhow::Result<HeadlessWindow> {
        let picture = feed
            .picture
            .clone()
            .context("the feed has no picture to draw")?;
        let mut store = Store::open_in_memory()?;
        let secret = Secret::new("A koan has the Buddha-nature if it contains a red piece.");
        let setup = Setup {
            mode: Mode::Standard,
            master: "Master".into(),
            students: vec!["Ann".into(), "Ben".into(), "Cy".into()],
            stones: Stones::standard(3),
            vocabulary: Vocabulary::Zen,
            koanscope_master: true,
            rule_source: RuleSource::Typed,
            commitment: secret.commitment(),
        };
        let (session, game) = store.start(None, &setup, &secret)?;
        let mut table = LiveTable::new(store, session, game, Box::new(NoServices));
        table.set_auto_master(true);
        table.update(feed.clone());
        table.update(feed);
        let copy = Arc::new((*picture).clone());
        let mut window = HeadlessWindow {
            console_ctx: egui::Context::default(),
            public_ctx: egui::Context::default(),
            table,
            console: ConsoleState::default(),
            console_pictures: PictureCache::default(),
            public_pictures: PictureCache::default(),
            pictures: [picture, copy],
            next_index: 1,
        };
        // The first frames load the fonts and settle the layout.
        for _ in 0..3 {
            window.frame(true);
        }
        Ok(window)
    }

    /// The books behind the views (how many koans are marked, for the report).
    pub fn table(&self) -> &LiveTable {
        &self.table
    }

    /// Draws both views once and tessellates them, as the window does for each displayed frame;
    /// with `new_picture` a new camera picture arrived first (its texture is made again).
    /// Returns the number of vertices drawn, so the work cannot be optimised away.
    pub fn frame(&mut self, new_picture: bool) -> usize {
        if new_picture {
            let picture = self.pictures[(self.next_index % 2) as usize].clone();
            let rates = self.table.feed().rates();
            self.table.show_picture(PictureUpdate {
                index: self.next_index,
                picture,
                rates,
                paused: None,
            });
            self.next_index += 1;
        }
        let (table, console, pictures) = (
            &mut self.table,
            &mut self.console,
            &mut self.console_pictures,
        );
        let out = self
            .console_ctx
            .run_ui(input(Vec2::new(1440.0, 860.0)), |ui| {
                master_console(ui, table, console, pictures)
            });
        let mut vertices = tessellate(&self.console_ctx, out);
        let (table, pictures) = (&self.table, &mut self.public_pictures);
        let out = self
            .public_ctx
            .run_ui(input(Vec2::new(1280.0, 800.0)), |ui| {
                public_view(ui, table, pictures);
            });
        vertices += tessellate(&self.public_ctx, out);
        vertices
    }
}

/// Tessellates a pass's shapes; the texture changes (a new picture) would go to the GPU,
/// which this window has not: they are made and let go.
fn tessellate(ctx: &egui::Context, mut out: egui::FullOutput) -> usize {
    let shapes = std::mem::take(&mut out.shapes);
    let vertices = ctx
        .tessellate(shapes, out.pixels_per_point)
        .iter()
        .map(|p| match &p.primitive {
            egui::epaint::Primitive::Mesh(mesh) => mesh.vertices.len(),
            egui::epaint::Primitive::Callback(_) => 0,
        })
        .sum();
    out.textures_delta.clear();
    vertices
}
