//! Live at the table: a vision thread turns frames into the window's feed, and the window's
//! Master console gets the rule engine's counter-example search through [`RuleServices`].
//!
//! ```text
//! frame source ─► vision (analyze, overlay shapes) ─► occlusion + tracker ─► TableFeed ─► window
//!                                       ▲                                               │
//!                                       └──────── koans the Master marked ◄─────────────┘
//! ```

mod feed;
mod services;
mod still;
mod worker;

pub use feed::{FeedBuilder, koan_document};
pub use services::RuleServices;
pub use still::settled_feed;
pub use worker::{Pipeline, PipelineStats, Vision, spawn_pipeline};
