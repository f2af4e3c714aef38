use std::path::PathBuf;

use anyhow::Context;

#[derive(clap::Args)]
pub struct Args {
    /// A poses document or a full scene document (JSON).
    pub poses: PathBuf,
    /// Indent the JSON for people.
    #[arg(long)]
    pub pretty: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let scene = koanscope_scene::Scene::from_path(&args.poses)
        .with_context(|| format!("reading {}", args.poses.display()))?;
    println!("{}", scene.to_json_string(args.pretty));
    Ok(())
}
