//! `koanscope demo`: the bundled demo table, derived and described, with no camera and no files.

use koanscope_geometry::Engine;
use koanscope_scene::Scene;

/// The demo table ships inside the binary, so the demo runs from any folder.
const DEMO_TABLE: &str = include_str!("../../sample_images/demo-table.poses.json");

#[derive(clap::Args)]
pub struct Args {
    /// Print the complete scene document instead of the description.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
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
    Ok(())
}
