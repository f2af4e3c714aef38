//! The window at the table (egui): the public table view everyone sees, and the Master's
//! private console. The only library crate that links egui.
//!
//! - [`feed`]: what the pipeline sends for each camera frame (the picture) and each analysed
//!   frame (tracked koans with their documents and outlines in pixels), with frame rates.
//! - [`table::LiveTable`]: the books and the table together; every console button is a method,
//!   so games are played and tested without drawing.
//! - [`public::public_view`] and [`console::master_console`]: the two views, drawn into any
//!   `egui::Ui` (a window, a second viewport, a test harness).
//! - [`app::TableApp`]: the eframe app that puts them in two OS windows.

pub mod app;
pub mod console;
pub mod correct;
pub mod draw;
pub mod feed;
pub mod public;
pub mod table;

pub use app::{ScreenshotPlan, TableApp};
pub use console::{ConsoleState, master_console};
pub use correct::{Correction, CorrectionError};
pub use draw::PictureCache;
pub use feed::{
    FeedUpdate, KoanState, Picture, PictureUpdate, PieceShape, PointPx, Rates, TableFeed,
    TrackedKoan,
};
pub use public::{DrawnKoan, public_view};
pub use table::{KoanView, LiveTable, Message, NoServices, Services, Suggestion};
