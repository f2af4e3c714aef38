//! `koanscope analyze`: one calibrated frame to the scene document, and an overlay picture.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use koanscope_geometry::Engine;
use koanscope_vision::steadiness::{note_unsteady, unsteady_readings};
use koanscope_vision::{
    Calibration, ColorModel, Detector, analyze, image::read_bgr, write_overlay,
};

#[derive(clap::Args)]
pub struct Args {
    /// A frame from the calibrated camera.
    pub image: PathBuf,
    /// Calibration with the table pose (from `koanscope calibrate table`).
    #[arg(long)]
    pub calibration: PathBuf,
    /// Colour model (TOML); the shipped models/colors.toml when not given.
    #[arg(long)]
    pub colors: Option<PathBuf>,
    /// Write the scene document here instead of printing it.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write the frame with outlines, labels, axes, pointing rays and koans drawn on it (PNG).
    #[arg(long)]
    pub overlay: Option<PathBuf>,
    /// Indent the JSON for people.
    #[arg(long)]
    pub pretty: bool,
    /// Skip reading the frame again 3 % darker and brighter, which flags the pieces such light
    /// would read otherwise: the analysis then takes a third as long.
    #[arg(long)]
    pub no_steadiness: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let calibration = Calibration::load(&args.calibration)?;
    let camera = calibration.camera(&args.calibration)?;
    let colors = ColorModel::load_or_shipped(args.colors.as_deref())?;
    let image = read_bgr(&args.image)?;
    let (detector, engine) = (Detector::new(colors), Engine::default());
    let mut analysis = analyze(&image, &args.image, &camera, &detector, &engine)
        .with_context(|| format!("analysing {}", args.image.display()))?;
    if !args.no_steadiness {
        let unsteady = unsteady_readings(
            &image,
            &args.image,
            &camera,
            &detector,
            &engine,
            &analysis.scene,
        )
        .with_context(|| format!("analysing {} at other exposures", args.image.display()))?;
        note_unsteady(&mut analysis.scene, &unsteady);
        let calls = analysis.scene.judgment_calls();
        for call in calls.filter(|c| c.what == "reading") {
            eprintln!("note: {}", call.note);
        }
    }
    analysis.warnings.extend(calibration.light_cast_advice());
    for warning in &analysis.warnings {
        eprintln!("warning: {warning}");
    }
    for h in &analysis.possibly_hiding {
        if let Some(piece) = analysis.scene.piece(h.piece) {
            eprintln!(
                "note: #{} {} {} (koan {}) may hide a smaller piece: lift it to check",
                piece.id,
                piece.color.word(),
                piece.size.word(),
                h.koan.map_or("-".to_string(), |k| k.to_string())
            );
        }
    }
    // Files first: a closed pipe on stdout must not lose them.
    if let Some(path) = &args.overlay {
        write_overlay(&image, &camera, &analysis, path)?;
        eprintln!("overlay -> {}", path.display());
    }
    let json = analysis.scene.to_json_string(args.pretty);
    match &args.json {
        Some(path) => {
            std::fs::write(path, json + "\n")
                .with_context(|| format!("writing {}", path.display()))?;
            say!(
                "{} pieces in {} koans -> {}",
                analysis.scene.pieces.len(),
                analysis.scene.koans.len(),
                path.display()
            );
        }
        None => say!("{json}"),
    }
    Ok(())
}
