//! The vision thread: takes frames from the source, analyses them, follows the koans with the
//! tracker and sends the window one feed per frame. The window never waits for vision; a frame
//! vision had no time for is skipped by the source (real-time pacing) and counted as dropped.

use std::collections::{BTreeSet, VecDeque};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use koanscope_capture::{Delivery, Reconnecting};
use koanscope_geometry::Engine;
use koanscope_tracker::{Observation, OcclusionDetector, Tracker};
use koanscope_ui::{Picture, TableFeed};
use koanscope_vision::{Camera, Detector, analyze, image::bgr_from_rgb, overlay};

use super::feed::FeedBuilder;

/// How the vision thread is keeping up, as last reported.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PipelineStats {
    pub analysed: u64,
    pub dropped: u64,
    pub fps: f32,
}

/// The running vision thread and its two channels.
pub struct Pipeline {
    /// One feed per analysed frame.
    pub feed: Receiver<TableFeed>,
    /// The koans (tracker ids) the Master has marked, sent whenever the set changes.
    pub marked: Sender<Vec<u64>>,
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

impl Pipeline {
    /// Stops the thread and waits for it.
    pub fn stop(mut self) {
        self.halt();
    }

    fn halt(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }

    /// Splits off the channels for the window; the thread runs until the pipeline is dropped.
    pub fn channels(&mut self) -> (Receiver<TableFeed>, Sender<Vec<u64>>) {
        let (_, dead_rx) = channel();
        let (dead_tx, _) = channel();
        (
            std::mem::replace(&mut self.feed, dead_rx),
            std::mem::replace(&mut self.marked, dead_tx),
        )
    }
}

impl Drop for Pipeline {
    fn drop(&mut self) {
        self.halt();
    }
}

/// What vision needs for every frame.
pub struct Vision {
    pub camera: Camera,
    pub detector: Detector,
    pub engine: Engine,
}

/// Starts the vision thread. `repaint` is called after each feed is sent (wakes the window).
pub fn spawn_pipeline(
    mut source: Reconnecting,
    vision: Vision,
    mut tracker: Tracker,
    mut occlusion: OcclusionDetector,
    repaint: Box<dyn Fn() + Send>,
) -> std::io::Result<Pipeline> {
    let (feed_tx, feed_rx) = channel();
    let (marked_tx, marked_rx) = channel::<Vec<u64>>();
    let stop = Arc::new(AtomicBool::new(false));
    let stopping = stop.clone();
    let handle = std::thread::Builder::new()
        .name("koanscope-vision".into())
        .spawn(move || {
            let mut builder = FeedBuilder::default();
            let mut marked: BTreeSet<u64> = BTreeSet::new();
            let mut last_index: Option<u64> = None;
            let mut stats = PipelineStats::default();
            let mut recent: VecDeque<Instant> = VecDeque::new();
            let mut last_picture: Option<Arc<Picture>> = None;
            let source_words = source.describe().to_string();
            while !stopping.load(Ordering::Relaxed) {
                while let Ok(now_marked) = marked_rx.try_recv() {
                    let now_marked: BTreeSet<u64> = now_marked.into_iter().collect();
                    for id in now_marked.difference(&marked) {
                        if tracker.mark(*id).is_ok() {
                            builder.mark(*id);
                        }
                    }
                    for id in marked.difference(&now_marked) {
                        let _ = tracker.unmark(*id);
                        builder.unmark(*id);
                    }
                    marked = now_marked;
                }
                let mut feed = match source.next_delivery() {
                    Ok(Delivery::Frame(frame)) => {
                        if let Some(last) = last_index {
                            stats.dropped += frame.index.saturating_sub(last + 1);
                        }
                        last_index = Some(frame.index);
                        let [w, h] = [frame.image.width(), frame.image.height()];
                        let picture = Arc::new(Picture::from_rgb(w, h, frame.image.as_raw()));
                        last_picture = Some(picture.clone());
                        let reading = occlusion.observe(&frame.image, frame.time);
                        let name = format!("camera frame {}", frame.index);
                        let analysed = bgr_from_rgb(w, h, frame.image.as_raw()).and_then(|bgr| {
                            analyze(
                                &bgr,
                                Path::new(&name),
                                &vision.camera,
                                &vision.detector,
                                &vision.engine,
                            )
                        });
                        match analysed {
                            Ok(analysis) => {
                                let update = tracker.update(&Observation {
                                    time: frame.time,
                                    scene: analysis.scene.clone(),
                                    occlusion: reading,
                                });
                                let shapes = (!update.paused)
                                    .then(|| overlay::shapes(&analysis, &vision.camera));
                                let mut feed = builder.build(
                                    &tracker,
                                    frame.time,
                                    shapes.as_ref(),
                                    Some(picture),
                                );
                                if update.paused {
                                    feed.paused = Some("hands over the table".into());
                                }
                                feed.warnings = analysis.warnings;
                                feed
                            }
                            Err(e) => {
                                let mut feed =
                                    builder.build(&tracker, frame.time, None, Some(picture));
                                feed.warnings = vec![format!("this frame could not be read: {e}")];
                                feed
                            }
                        }
                    }
                    Ok(Delivery::Paused(p)) => {
                        let mut feed = builder.build(&tracker, p.since, None, last_picture.clone());
                        feed.paused = Some(format!(
                            "{}; trying again every {} s (attempt {})",
                            p.reason,
                            source.retry_every().as_secs(),
                            p.attempts
                        ));
                        std::thread::sleep(Duration::from_millis(100));
                        feed
                    }
                    Ok(Delivery::Ended) => {
                        let mut feed =
                            builder.build(&tracker, Duration::ZERO, None, last_picture.clone());
                        feed.paused = Some("the recording ended".into());
                        send(&feed_tx, feed, &source_words, stats, &repaint);
                        break;
                    }
                    Err(e) => {
                        let mut feed =
                            builder.build(&tracker, Duration::ZERO, None, last_picture.clone());
                        feed.paused = Some(format!("the frames stopped: {e}"));
                        send(&feed_tx, feed, &source_words, stats, &repaint);
                        break;
                    }
                };
                let now = Instant::now();
                recent.push_back(now);
                while recent
                    .front()
                    .is_some_and(|t| now.duration_since(*t) > Duration::from_secs(2))
                {
                    recent.pop_front();
                }
                stats.analysed += 1;
                stats.fps = recent.len() as f32 / 2.0;
                feed.frame = stats.analysed;
                if !send(&feed_tx, feed, &source_words, stats, &repaint) {
                    break;
                }
            }
        })?;
    Ok(Pipeline {
        feed: feed_rx,
        marked: marked_tx,
        stop,
        handle: Some(handle),
    })
}

/// Sends a feed; false when the window has gone.
fn send(
    tx: &Sender<TableFeed>,
    mut feed: TableFeed,
    source: &str,
    stats: PipelineStats,
    repaint: &(dyn Fn() + Send),
) -> bool {
    feed.source = source.to_string();
    feed.vision_fps = stats.fps;
    feed.dropped = stats.dropped;
    let ok = tx.send(feed).is_ok();
    repaint();
    ok
}
