//! One module per command (or command group); `main.rs` only dispatches.

pub mod attributes;
pub mod bench;
pub mod demo;
pub mod geometry_check;
pub mod rules;
