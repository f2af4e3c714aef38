use std::path::PathBuf;

use anyhow::Context;
use koanscope_geometry::Engine;
use koanscope_scene::Scene;

#[derive(clap::Args)]
pub struct Args {
    /// A poses document or a full scene document (JSON); attributes it carries are derived anew.
    pub poses: PathBuf,
    /// Indent the JSON for people.
    #[arg(long)]
    pub pretty: bool,
    /// Describe the koans in words instead of printing the scene document.
    #[arg(long, conflicts_with = "pretty")]
    pub text: bool,
    /// Keep the document's koans (a Master's grouping) instead of grouping by the 30 mm gap.
    #[arg(long)]
    pub keep_koans: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let mut scene = Scene::from_path(&args.poses)
        .with_context(|| format!("reading {}", args.poses.display()))?;
    let engine = Engine::default();
    if args.keep_koans {
        engine.derive_keeping_koans(&mut scene);
    } else {
        engine.derive(&mut scene);
    }
    if args.text {
        print!("{}", crate::text::describe(&scene));
    } else {
        println!("{}", scene.to_json_string(args.pretty));
    }
    Ok(())
}
