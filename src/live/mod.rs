//! Live at the table: a capture thread shows every frame in the window and vision workers turn
//! the newest frame into the window's feed; the window's Master console gets the rule engine's
//! counter-example search through [`RuleServices`].
//!
//! ```text
//! frame source ─► capture (picture, hands) ──────────────────────► FeedUpdate::Picture ─► window
//!                      └─► newest frame ─► vision ×N ─► tracker ─► FeedUpdate::Analysed ─►  │
//!                                                          ▲                                │
//!                                                          └── koans the Master marked ◄────┘
//! ```

mod feed;
mod headless;
mod services;
mod still;
mod worker;

pub use feed::{FeedBuilder, koan_document};
pub use headless::HeadlessWindow;
pub use services::RuleServices;
pub use still::settled_feed;
pub use worker::{LastAnalysis, Pipeline, PipelineStats, UNCHANGED_LEVELS, Vision, spawn_pipeline};
