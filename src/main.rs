//! `koanscope`: the command-line front of the table assistant. Each command lives in its own
//! module under `commands/` and only wires the layers together.

mod commands;
mod text;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "koanscope",
    version,
    about = "A computer-vision table assistant for Zendo"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The live window on the bundled sample table, koanscope as the Master (no camera needed).
    Demo(commands::demo::Args),
    /// The window at the table: a webcam, a video or a folder of frames, the Master's console
    /// and the public table view.
    Live(commands::live::Args),
    /// Derive every attribute, relation and koan from a poses (or scene) document.
    Attributes(commands::attributes::Args),
    /// Measure the speed targets against a baseline timed in the same run.
    Bench(commands::bench::Args),
    /// Feed a dataset's true poses to the geometry engine and report agreement per attribute.
    GeometryCheck(commands::geometry_check::Args),
    /// Zendo rules: check, mark koans, find contradicted guesses, list the library.
    Rules {
        #[command(subcommand)]
        command: commands::rules::RulesCommand,
    },
    /// Calibrate the camera and the table, or write the printable target.
    #[command(subcommand)]
    Calibrate(commands::calibrate::Calibrate),
    /// Find every piece in a calibrated frame and write the scene document (and an overlay).
    Analyze(commands::analyze::Args),
    /// Calibrate from a dataset, analyse every scene and compare with its truth.
    Eval(commands::eval::Args),
    /// A game of Zendo: set it up, play moves from a script.
    Game {
        #[command(subcommand)]
        command: commands::game::GameCommand,
    },
    /// The games in the session store.
    Sessions {
        #[command(subcommand)]
        command: commands::sessions::SessionsCommand,
    },
    /// A game's history, step by step.
    Replay(commands::replay::Args),
    /// A game on one HTML page: koans, marks and reasons, Mondo answers, guesses, the rule.
    Report(commands::report::Args),
}

fn main() -> std::process::ExitCode {
    koanscope_vision::heap::keep_frame_buffers();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Demo(args) => commands::demo::run(args),
        Command::Live(args) => commands::live::run(args),
        Command::Attributes(args) => commands::attributes::run(args),
        Command::GeometryCheck(args) => commands::geometry_check::run(args),
        Command::Bench(args) => commands::bench::run(args),
        Command::Rules { command } => commands::rules::run(command),
        Command::Calibrate(command) => commands::calibrate::run(command),
        Command::Analyze(args) => commands::analyze::run(args),
        Command::Eval(args) => commands::eval::run(args),
        Command::Game { command } => commands::game::run(command),
        Command::Sessions { command } => commands::sessions::run(command),
        Command::Replay(args) => commands::replay::run(args),
        Command::Report(args) => commands::report::run(args),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            // Reported once, here, with the whole chain of context.
            eprintln!("error: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
