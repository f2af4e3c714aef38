//! `koanscope demo`: the live window on the bundled sample table (frames rendered with their
//! truth, and their calibration), koanscope as the Master, no camera needed. `--text` prints the
//! bundled demo table in words instead, for a terminal without a display.

use koanscope_geometry::Engine;
use koanscope_scene::Scene;

use super::live::{WindowArgs, demo};

/// The demo table ships inside the binary, so `demo --text` runs from any folder.
const DEMO_TABLE: &str = include_str!("../../sample_images/demo-table.poses.json");

#[derive(clap::Args)]
pub struct Args {
    /// Print the bundled demo table in words instead of opening the window.
    #[arg(long)]
    pub text: bool,
    /// Print the bundled demo table's complete scene document instead of opening the window.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub window: WindowArgs,
}

pub fn run(mut args: Args) -> anyhow::Result<()> {
    if args.text || args.json {
        let mut scene = Scene::from_json_str(DEMO_TABLE)?;
        Engine::default().derive(&mut scene);
        if args.json {
            println!("{}", scene.to_json_string(true));
        } else {
            println!(
                "koanscope demo: {} pieces on the table\n",
                scene.pieces.len()
            );
            print!("{}", crate::text::describe(&scene));
        }
        return Ok(());
    }
    // The demo plays itself unless told otherwise: nobody is at the console yet.
    args.window.auto_master = true;
    demo(args.window)
}
