//! `koanscope geometry-check`: feed a dataset's true poses to the geometry engine and measure how
//! often it agrees with the true attributes and relations.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressStyle};
use koanscope_eval::{Agreement, compare_same_pieces};
use koanscope_geometry::Engine;
use koanscope_scene::{Koan, Piece, Scene};

#[derive(clap::Args)]
pub struct Args {
    /// A dataset folder: setups (D1/, D2/ …) holding scene_NN.json truth files, or one setup.
    pub dataset: PathBuf,
    /// Also write the figures (and every disagreement) as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Print every disagreement, not only the first few.
    #[arg(long)]
    pub all: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let files = truth_files(&args.dataset)?;
    let engine = Engine::default();
    let bar = ProgressBar::new(files.len() as u64).with_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}").expect("the template is valid"),
    );
    let mut per_setup: BTreeMap<String, Agreement> = BTreeMap::new();
    // The same poses related within the truth's own koans, as a Master who regrouped by hand
    // would see them: separates relation errors from grouping disagreements.
    let mut truth_grouped = Agreement::default();
    for file in &files {
        let label = label_of(&args.dataset, file);
        bar.set_message(label.clone());
        let truth =
            Scene::from_path(file).with_context(|| format!("reading {}", file.display()))?;
        let poses = Scene::from_pieces(truth.pieces.iter().map(pose_only).collect());
        let mut derived = poses.clone();
        engine.derive(&mut derived);
        let setup = label.split('/').next().unwrap_or("").to_string();
        per_setup
            .entry(setup)
            .or_default()
            .merge(compare_same_pieces(&label, &truth, &derived));
        let mut regrouped = Scene {
            koans: truth.koans.iter().map(grouping_only).collect(),
            ..poses
        };
        engine.derive_keeping_koans(&mut regrouped);
        truth_grouped.merge(compare_same_pieces(&label, &truth, &regrouped));
        bar.inc(1);
    }
    bar.finish_and_clear();

    let mut overall = Agreement::default();
    for (setup, agreement) in &per_setup {
        println!("{setup}:\n{agreement}");
        overall.merge(agreement.clone());
    }
    println!("all {} scenes:\n{overall}", files.len());
    println!(
        "all {} scenes, related within the truth's koans:\n{truth_grouped}",
        files.len()
    );
    let disagreements: Vec<&String> = overall
        .aspects
        .values()
        .flat_map(|t| &t.disagreements)
        .collect();
    let shown = if args.all {
        disagreements.len()
    } else {
        disagreements.len().min(20)
    };
    if !disagreements.is_empty() {
        println!("disagreements ({}):", disagreements.len());
        for d in &disagreements[..shown] {
            println!("  {d}");
        }
        if shown < disagreements.len() {
            println!("  … {} more (--all)", disagreements.len() - shown);
        }
    }
    if let Some(path) = &args.json {
        let doc = serde_json::json!({
            "overall": overall,
            "per_setup": per_setup,
            "within_truth_koans": truth_grouped,
        });
        std::fs::write(path, serde_json::to_string_pretty(&doc)?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// What a poses document would hold: identity and pose, nothing derived.
fn pose_only(piece: &Piece) -> Piece {
    Piece::new(piece.id, piece.color, piece.size, piece.table_from_piece)
}

/// A koan with its pieces and nothing derived: a grouping given by hand.
fn grouping_only(koan: &Koan) -> Koan {
    Koan {
        id: koan.id,
        pieces: koan.pieces.clone(),
        ..Koan::default()
    }
}

fn truth_files(dataset: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let is_truth = |path: &Path| {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        name.starts_with("scene_") && name.ends_with(".json")
    };
    let entries = |dir: &Path| -> anyhow::Result<Vec<PathBuf>> {
        let read = std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))?;
        Ok(read.filter_map(|e| e.ok().map(|e| e.path())).collect())
    };
    // Truth files in the folder itself and one level down (a dataset of setups).
    let mut files = Vec::new();
    for path in entries(dataset)? {
        if path.is_dir() {
            files.extend(entries(&path)?.into_iter().filter(|p| is_truth(p)));
        } else if is_truth(&path) {
            files.push(path);
        }
    }
    files.sort();
    if files.is_empty() {
        bail!(
            "{} holds no scene_NN.json truth files (nor do its sub-folders)",
            dataset.display()
        );
    }
    Ok(files)
}

fn label_of(dataset: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(dataset).unwrap_or(file);
    let text = relative.with_extension("").display().to_string();
    if text.contains('/') {
        text
    } else {
        format!("./{text}")
    }
}
