//! One still frame as the window would show it once its koans have settled: for tests, the
//! benchmark and screenshots of a known table.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use koanscope_geometry::Engine;
use koanscope_tracker::{Observation, Occlusion, Tracker, TrackerConfig};
use koanscope_ui::{Picture, TableFeed};
use koanscope_vision::{Calibration, ColorModel, Detector, analyze, image::read_bgr, overlay};

use super::feed::FeedBuilder;

/// Analyses the frame at `image` with the calibration at `calibration`, and feeds it to a
/// tracker until its koans are built (as a camera watching a still table would).
pub fn settled_feed(image: &Path, calibration: &Path) -> anyhow::Result<TableFeed> {
    let cal = Calibration::load(calibration)?;
    let camera = cal.camera(calibration)?;
    let bgr = read_bgr(image)?;
    let analysis = analyze(
        &bgr,
        image,
        &camera,
        &Detector::new(ColorModel::default()),
        &Engine::default(),
    )
    .with_context(|| format!("analysing {}", image.display()))?;
    let shapes = overlay::shapes(&analysis, &camera);
    let rgb = ::image::open(image)
        .with_context(|| format!("reading {}", image.display()))?
        .to_rgb8();
    let picture = Arc::new(Picture::from_rgb(rgb.width(), rgb.height(), rgb.as_raw()));
    let mut tracker = Tracker::new(TrackerConfig::default());
    let mut builder = FeedBuilder::default();
    let step = Duration::from_millis(100);
    let frames = (tracker.config().settle.as_millis() / step.as_millis()) as u32 + 3;
    let mut feed = TableFeed::default();
    for i in 0..frames {
        let time = step * i;
        tracker.update(&Observation {
            time,
            scene: analysis.scene.clone(),
            occlusion: Occlusion::CLEAR,
        });
        feed = builder.build(&tracker, time, Some(&shapes), Some(picture.clone()));
    }
    feed.source = format!("still frame {}", image.display());
    feed.warnings = analysis.warnings;
    Ok(feed)
}
