//! One module per command (or command group); `main.rs` only dispatches.

/// Prints a line; a closed pipe (`... | head`) ends the output quietly instead of panicking.
/// Files are always written before anything is printed, so nothing is lost that way. Defined
/// before the command modules, so each of them can use it.
macro_rules! say {
    ($($arg:tt)*) => {
        if let Err(e) = writeln!(std::io::stdout(), $($arg)*) {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                return Ok(());
            }
            return Err(anyhow::Error::new(e).context("writing the output"));
        }
    };
}

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
