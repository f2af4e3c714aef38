//! One module per command (or command group); `main.rs` only dispatches.

pub mod analyze;
pub mod attributes;
pub mod bench;
pub mod calibrate;
pub mod demo;
pub mod eval;
pub mod game;
pub mod geometry_check;
pub mod live;
pub mod replay;
pub mod report;
pub mod rules;
pub mod sessions;
