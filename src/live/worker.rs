//! The pipeline's threads. A capture thread takes every frame from the source, hands it to the
//! window at once (a picture-only update: the picture keeps the camera's rate) and leaves it in
//! a one-slot mailbox; vision workers always take the newest frame from the mailbox (a frame
//! replaced before a worker took it is counted as not analysed), analyse it, and pass it to the
//! tracker in the order the frames were taken, so the tracker sees frame times increasing even
//! when two workers finish out of order. The window never waits for vision. A frame that shows
//! the table as the worker's last analysed frame did (no cell of the occlusion detector's coarse
//! picture changed by more than [`UNCHANGED_LEVELS`]) takes that analysis instead of a new one:
//! most frames of a game show a table nobody touches.
//!
//! ```text
//!              ┌─► window: FeedUpdate::Picture (every frame)
//! source ─► capture (picture, hands) ─► mailbox (newest frame) ─► vision ×N ─► in order ─► tracker
//!                                                                     window ◄─ FeedUpdate::Analysed
//! ```

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use image::RgbImage;
use koanscope_capture::{Delivery, Reconnecting};
use koanscope_geometry::Engine;
use koanscope_scene::Scene;
use koanscope_tracker::{CoarseFrame, Observation, Occlusion, OcclusionDetector, Tracker};
use koanscope_ui::{FeedUpdate, Picture, PictureUpdate, Rates, TableFeed};
use koanscope_vision::{
    Analysis, Camera, Detector, FitMemory, OverlayShapes, analyze_remembering, image::bgr_from_rgb,
    overlay,
};

use super::feed::FeedBuilder;

/// The largest change of one cell of the coarse picture (8x8 pixels at 1280x720, the mean over
/// R, G and B, 0–255) that still counts as the same table. On the sample scenes
/// (`tests/unchanged_table.rs`) a webcam's sensor noise of 3 levels changed no cell by more than
/// 0.97, noise of 6 levels 1.92; a piece moved by one pixel (about 0.7 mm) changed one by
/// 4.5–14.4 (an eighth of a cell takes the piece's colour).
pub const UNCHANGED_LEVELS: f32 = 3.0;

/// The pipeline's counts since the source started.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PipelineStats {
    /// Frames the capture thread got from the source (each shown to the window).
    pub received: u64,
    /// Frames analysed and passed to the tracker (with those that took the last analysis).
    pub analysed: u64,
    /// Of those, frames that showed the table as the frame analysed before and took its
    /// analysis (see [`UNCHANGED_LEVELS`]).
    pub unchanged: u64,
    /// Frames vision skipped because a newer one arrived first.
    pub not_analysed: u64,
    /// Frames the source itself dropped (gaps in its numbering).
    pub dropped: u64,
    /// Frames analysed per second, over the last two seconds.
    pub vision_fps: f32,
    /// Frames received per second, over the last two seconds.
    pub picture_fps: f32,
    /// Regions of analysed frames that looked as before and kept their pieces, and regions
    /// fitted anew (see [`FitMemory`]).
    pub regions_reused: u64,
    pub regions_fitted: u64,
    /// Frames passed to the tracker unanalysed because hands were over the table (it sets their
    /// scene aside).
    pub hands_skipped: u64,
}

/// Locks a mutex, carrying on after a panic elsewhere (the data are counts and queues, whole
/// after any statement).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Events per second over the last two seconds.
#[derive(Default)]
struct Meter {
    recent: VecDeque<Instant>,
}

impl Meter {
    const WINDOW: Duration = Duration::from_secs(2);

    fn tick(&mut self) {
        let now = Instant::now();
        self.recent.push_back(now);
        self.trim(now);
    }

    fn trim(&mut self, now: Instant) {
        while self
            .recent
            .front()
            .is_some_and(|t| now.duration_since(*t) > Self::WINDOW)
        {
            self.recent.pop_front();
        }
    }

    fn rate(&mut self) -> f32 {
        self.trim(Instant::now());
        self.recent.len() as f32 / Self::WINDOW.as_secs_f32()
    }
}

/// Counts shared by the capture thread and the vision workers.
#[derive(Default)]
struct Counters {
    received: AtomicU64,
    analysed: AtomicU64,
    unchanged: AtomicU64,
    not_analysed: AtomicU64,
    dropped: AtomicU64,
    regions_reused: AtomicU64,
    regions_fitted: AtomicU64,
    hands_skipped: AtomicU64,
    pictures: Mutex<Meter>,
    analyses: Mutex<Meter>,
}

impl Counters {
    fn stats(&self) -> PipelineStats {
        PipelineStats {
            received: self.received.load(Ordering::Relaxed),
            analysed: self.analysed.load(Ordering::Relaxed),
            unchanged: self.unchanged.load(Ordering::Relaxed),
            not_analysed: self.not_analysed.load(Ordering::Relaxed),
            dropped: self.dropped.load(Ordering::Relaxed),
            vision_fps: lock(&self.analyses).rate(),
            picture_fps: lock(&self.pictures).rate(),
            regions_reused: self.regions_reused.load(Ordering::Relaxed),
            regions_fitted: self.regions_fitted.load(Ordering::Relaxed),
            hands_skipped: self.hands_skipped.load(Ordering::Relaxed),
        }
    }

    fn rates(&self) -> Rates {
        let s = self.stats();
        Rates {
            picture_fps: s.picture_fps,
            vision_fps: s.vision_fps,
            dropped: s.dropped,
            not_analysed: s.not_analysed,
        }
    }
}

/// A frame waiting for vision.
struct Job {
    index: u64,
    time: Duration,
    image: RgbImage,
    picture: Arc<Picture>,
    occlusion: Occlusion,
    /// The frame as the occlusion detector saw it, to tell an unchanged table.
    coarse: Option<CoarseFrame>,
}

#[derive(Default)]
struct Slot {
    job: Option<Job>,
    /// Frames taken so far: the ticket of the next one, which orders the tracker's updates.
    taken: u64,
    /// The source has ended (or the pipeline is stopping); why, for the window.
    closed: Option<String>,
}

/// One frame, the newest: a new frame replaces one no worker has taken yet.
#[derive(Default)]
struct Mailbox {
    slot: Mutex<Slot>,
    ready: Condvar,
}

impl Mailbox {
    /// Leaves a frame; true when it replaced one that will now never be analysed.
    fn put(&self, job: Job) -> bool {
        let replaced = lock(&self.slot).job.replace(job).is_some();
        self.ready.notify_one();
        replaced
    }

    /// The newest frame and its ticket, waiting for one; None once closed and empty.
    fn take(&self) -> Option<(u64, Job)> {
        let mut slot = lock(&self.slot);
        loop {
            if let Some(job) = slot.job.take() {
                let ticket = slot.taken;
                slot.taken += 1;
                return Some((ticket, job));
            }
            if slot.closed.is_some() {
                return None;
            }
            slot = self
                .ready
                .wait(slot)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }

    fn close(&self, why: String) {
        lock(&self.slot).closed.get_or_insert(why);
        self.ready.notify_all();
    }

    /// Empties the slot (stopping: nobody will analyse it).
    fn clear(&self) -> bool {
        lock(&self.slot).job.take().is_some()
    }

    fn closed(&self) -> Option<String> {
        lock(&self.slot).closed.clone()
    }
}

/// What one worker made of one frame.
struct Analysed {
    index: u64,
    time: Duration,
    picture: Arc<Picture>,
    occlusion: Occlusion,
    /// `Ok(None)`: not analysed, since hands over the table make the tracker set any scene aside.
    result: Result<Option<(Analysis, OverlayShapes)>, String>,
}

/// The tracker's side: analysed frames wait here until every earlier ticket is in.
struct Books {
    tracker: Tracker,
    builder: FeedBuilder,
    marked: BTreeSet<u64>,
    marked_rx: Receiver<Vec<u64>>,
    next_ticket: u64,
    pending: BTreeMap<u64, Analysed>,
    /// Workers still running; the last one out says why the frames stopped.
    workers: usize,
}

/// Everything the threads share.
struct Shared {
    mailbox: Mailbox,
    counters: Counters,
    books: Mutex<Books>,
    feed_tx: Sender<FeedUpdate>,
    repaint: Box<dyn Fn() + Send + Sync>,
    source_words: String,
    stop: AtomicBool,
}

impl Shared {
    /// Sends an update and wakes the window; false when the window has gone.
    fn send(&self, update: FeedUpdate) -> bool {
        let ok = self.feed_tx.send(update).is_ok();
        (self.repaint)();
        ok
    }
}

/// The running pipeline and its two channels.
pub struct Pipeline {
    /// A picture-only update for every camera frame, and an analysed one for every frame vision
    /// analysed (the latter in frame order).
    pub feed: Receiver<FeedUpdate>,
    /// The koans (tracker ids) the Master has marked, sent whenever the set changes.
    pub marked: Sender<Vec<u64>>,
    shared: Arc<Shared>,
    handles: Vec<JoinHandle<()>>,
}

impl Pipeline {
    /// Stops the threads and waits for them.
    pub fn stop(mut self) {
        self.halt();
    }

    /// The counts so far.
    pub fn stats(&self) -> PipelineStats {
        self.shared.counters.stats()
    }

    fn halt(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        self.shared.mailbox.close("the window closed".into());
        for h in self.handles.drain(..) {
            let _ = h.join();
        }
    }

    /// Splits off the channels for the window; the threads run until the pipeline is dropped.
    pub fn channels(&mut self) -> (Receiver<FeedUpdate>, Sender<Vec<u64>>) {
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

/// What one vision worker needs for every frame (each worker has its own).
pub struct Vision {
    pub camera: Camera,
    pub detector: Detector,
    pub engine: Engine,
    /// Warnings that hold for every frame, shown with each frame's own (the light the table was
    /// calibrated under).
    pub standing_warnings: Vec<String>,
}

/// Starts the capture thread and one vision worker per element of `workers`. `repaint` is
/// called after each update is sent (wakes the window).
pub fn spawn_pipeline(
    source: Reconnecting,
    workers: Vec<Vision>,
    tracker: Tracker,
    occlusion: OcclusionDetector,
    repaint: Box<dyn Fn() + Send + Sync>,
) -> std::io::Result<Pipeline> {
    if workers.is_empty() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "the pipeline needs at least one vision worker",
        ));
    }
    let (feed_tx, feed_rx) = channel();
    let (marked_tx, marked_rx) = channel::<Vec<u64>>();
    let shared = Arc::new(Shared {
        mailbox: Mailbox::default(),
        counters: Counters::default(),
        books: Mutex::new(Books {
            tracker,
            builder: FeedBuilder::default(),
            marked: BTreeSet::new(),
            marked_rx,
            next_ticket: 0,
            pending: BTreeMap::new(),
            workers: workers.len(),
        }),
        feed_tx,
        repaint,
        source_words: source.describe().to_string(),
        stop: AtomicBool::new(false),
    });
    let mut handles = Vec::new();
    for (n, vision) in workers.into_iter().enumerate() {
        let shared = shared.clone();
        handles.push(
            std::thread::Builder::new()
                .name(format!("koanscope-vision-{n}"))
                .spawn(move || vision_worker(&shared, &vision))?,
        );
    }
    let capturing = shared.clone();
    let capture = std::thread::Builder::new()
        .name("koanscope-capture".into())
        .spawn(move || capture_loop(&capturing, source, occlusion));
    match capture {
        Ok(h) => handles.push(h),
        Err(e) => {
            shared
                .mailbox
                .close("the capture thread did not start".into());
            return Err(e);
        }
    }
    Ok(Pipeline {
        feed: feed_rx,
        marked: marked_tx,
        shared,
        handles,
    })
}

/// Takes every frame: counts it, shows it, reads hands over the table, and leaves it for vision.
fn capture_loop(shared: &Shared, mut source: Reconnecting, mut occlusion: OcclusionDetector) {
    let counters = &shared.counters;
    let mut last_index: Option<u64> = None;
    let mut last_picture: Option<(u64, Arc<Picture>)> = None;
    let why = loop {
        if shared.stop.load(Ordering::Relaxed) {
            if shared.mailbox.clear() {
                counters.not_analysed.fetch_add(1, Ordering::Relaxed);
            }
            break "the window closed".to_string();
        }
        match source.next_delivery() {
            Ok(Delivery::Frame(frame)) => {
                if let Some(last) = last_index {
                    let gap = frame.index.saturating_sub(last + 1);
                    counters.dropped.fetch_add(gap, Ordering::Relaxed);
                }
                last_index = Some(frame.index);
                counters.received.fetch_add(1, Ordering::Relaxed);
                lock(&counters.pictures).tick();
                let [w, h] = [frame.image.width(), frame.image.height()];
                let picture = Arc::new(Picture::from_rgb(w, h, frame.image.as_raw()));
                let reading = occlusion.observe(&frame.image, frame.time);
                let job = Job {
                    index: frame.index,
                    time: frame.time,
                    image: frame.image,
                    picture: picture.clone(),
                    occlusion: reading,
                    coarse: occlusion.last_frame(),
                };
                last_picture = Some((frame.index, picture.clone()));
                let update = PictureUpdate {
                    index: frame.index,
                    picture,
                    rates: counters.rates(),
                    paused: None,
                };
                // Shown before vision can take it: a frame answered at once (an unchanged table)
                // must not reach the window analysed before it arrived as a picture. The
                // picture's counts may lag this frame's by one.
                if !shared.send(FeedUpdate::Picture(update)) {
                    break "the window closed".to_string();
                }
                if shared.mailbox.put(job) {
                    counters.not_analysed.fetch_add(1, Ordering::Relaxed);
                }
            }
            Ok(Delivery::Paused(p)) => {
                if let Some((index, picture)) = &last_picture {
                    let update = PictureUpdate {
                        index: *index,
                        picture: picture.clone(),
                        rates: counters.rates(),
                        paused: Some(format!(
                            "{}; trying again every {} s (attempt {})",
                            p.reason,
                            source.retry_every().as_secs(),
                            p.attempts
                        )),
                    };
                    if !shared.send(FeedUpdate::Picture(update)) {
                        break "the window closed".to_string();
                    }
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            Ok(Delivery::Ended) => break "the recording ended".to_string(),
            Err(e) => break format!("the frames stopped: {e}"),
        }
    };
    shared.mailbox.close(why);
}

/// Analyses the newest frame, again and again, and hands the results to the tracker in order.
/// A frame showing the table as the last one analysed takes its analysis; otherwise regions that
/// look as they did in this worker's last frame keep their pieces.
fn vision_worker(shared: &Shared, vision: &Vision) {
    let memory = FitMemory::new();
    let mut last = LastAnalysis::default();
    while let Some((ticket, job)) = shared.mailbox.take() {
        let result = if job.occlusion.occluded {
            shared
                .counters
                .hands_skipped
                .fetch_add(1, Ordering::Relaxed);
            Ok(None)
        } else if let Some(mut found) = last.recall(job.coarse.as_ref()) {
            shared.counters.unchanged.fetch_add(1, Ordering::Relaxed);
            found.0.scene.source = Some(frame_name(&job));
            Ok(Some(found))
        } else {
            let fitted = fit_frame(&job, vision, &memory, &shared.counters);
            if let (Ok((analysis, shapes)), Some(coarse)) = (&fitted, &job.coarse) {
                last.remember(coarse.clone(), analysis, shapes);
            }
            fitted.map(Some)
        };
        let analysed = Analysed {
            index: job.index,
            time: job.time,
            picture: job.picture,
            occlusion: job.occlusion,
            result,
        };
        let mut books = lock(&shared.books);
        books.pending.insert(ticket, analysed);
        if !track_in_order(shared, &mut books) {
            shared.stop.store(true, Ordering::Relaxed);
            shared.mailbox.close("the window closed".into());
        }
    }
    let mut books = lock(&shared.books);
    books.workers -= 1;
    if books.workers == 0 && !shared.stop.load(Ordering::Relaxed) {
        // Every frame taken is tracked by now (each worker tracks what it took before leaving).
        let why = shared.mailbox.closed().unwrap_or_default();
        let books = &mut *books;
        let mut feed = books
            .builder
            .build(&books.tracker, Duration::ZERO, None, None);
        feed.paused = Some(why);
        finish(shared, &mut feed, None, 0);
        shared.send(FeedUpdate::Analysed(feed));
    }
}

/// Analyses one frame through the worker's fit memory, counting the regions it kept and fitted.
fn fit_frame(
    job: &Job,
    vision: &Vision,
    memory: &FitMemory,
    counters: &Counters,
) -> Result<(Analysis, OverlayShapes), String> {
    let name = frame_name(job);
    let [w, h] = [job.image.width(), job.image.height()];
    let mut analysis = bgr_from_rgb(w, h, job.image.as_raw())
        .and_then(|bgr| {
            analyze_remembering(
                &bgr,
                Path::new(&name),
                &vision.camera,
                &vision.detector,
                &vision.engine,
                Some(memory),
            )
        })
        .map_err(|e| e.to_string())?;
    analysis
        .warnings
        .extend(vision.standing_warnings.iter().cloned());
    // Counted only after a fit: a frame that failed before it leaves the last frame's counts.
    let used = memory.last_use();
    counters
        .regions_reused
        .fetch_add(used.reused as u64, Ordering::Relaxed);
    counters
        .regions_fitted
        .fetch_add(used.fitted as u64, Ordering::Relaxed);
    let shapes = overlay::shapes(&analysis, &vision.camera);
    Ok((analysis, shapes))
}

/// A vision worker's last analysed frame, as the occlusion detector saw it, and what it gave.
/// Frames are compared with it, not with the frame before, so a slow drift adds up and is
/// analysed.
#[derive(Default)]
pub struct LastAnalysis(Option<(CoarseFrame, Analysis, OverlayShapes)>);

impl LastAnalysis {
    /// The last analysis, when `now` shows the table as that frame did (no cell changed by more
    /// than [`UNCHANGED_LEVELS`]).
    pub fn recall(&self, now: Option<&CoarseFrame>) -> Option<(Analysis, OverlayShapes)> {
        let (then, analysis, shapes) = self.0.as_ref()?;
        (now?.largest_change(then) <= UNCHANGED_LEVELS).then(|| (analysis.clone(), shapes.clone()))
    }

    pub fn remember(&mut self, coarse: CoarseFrame, analysis: &Analysis, shapes: &OverlayShapes) {
        self.0 = Some((coarse, analysis.clone(), shapes.clone()));
    }
}

/// What a frame is called in scenes and messages.
fn frame_name(job: &Job) -> String {
    format!("camera frame {}", job.index)
}

/// Passes every analysed frame whose turn has come to the tracker and sends its feed; false
/// when the window has gone.
fn track_in_order(shared: &Shared, books: &mut Books) -> bool {
    while let Some(a) = books.pending.remove(&books.next_ticket) {
        books.next_ticket += 1;
        apply_marks(books);
        let mut feed = match a.result {
            Ok(found) => {
                let (scene, warnings, shapes) = match found {
                    Some((analysis, shapes)) => (analysis.scene, analysis.warnings, Some(shapes)),
                    None => (Scene::default(), Vec::new(), None),
                };
                let update = books.tracker.update(&Observation {
                    time: a.time,
                    scene,
                    occlusion: a.occlusion,
                });
                let shapes = shapes.as_ref().filter(|_| !update.paused);
                let mut feed =
                    books
                        .builder
                        .build(&books.tracker, a.time, shapes, Some(a.picture.clone()));
                if update.paused {
                    feed.paused = Some("hands over the table".into());
                }
                feed.warnings = warnings;
                feed
            }
            Err(e) => {
                let mut feed =
                    books
                        .builder
                        .build(&books.tracker, a.time, None, Some(a.picture.clone()));
                feed.warnings = vec![format!("this frame could not be read: {e}")];
                feed
            }
        };
        let counters = &shared.counters;
        counters.analysed.fetch_add(1, Ordering::Relaxed);
        lock(&counters.analyses).tick();
        finish(shared, &mut feed, Some(a.picture), a.index);
        if !shared.send(FeedUpdate::Analysed(feed)) {
            return false;
        }
    }
    true
}

/// Fills in what every analysed feed carries: where it comes from and the counts.
fn finish(shared: &Shared, feed: &mut TableFeed, picture: Option<Arc<Picture>>, index: u64) {
    feed.source = shared.source_words.clone();
    feed.frame = shared.counters.analysed.load(Ordering::Relaxed);
    feed.analysed_index = index;
    feed.picture_index = index;
    if picture.is_some() {
        feed.picture = picture;
    }
    feed.set_rates(shared.counters.rates());
}

/// Follows the Master's marks (the ghosts of marked koans are kept).
fn apply_marks(books: &mut Books) {
    while let Ok(now_marked) = books.marked_rx.try_recv() {
        let now_marked: BTreeSet<u64> = now_marked.into_iter().collect();
        for id in now_marked.difference(&books.marked) {
            if books.tracker.mark(*id).is_ok() {
                books.builder.mark(*id);
            }
        }
        for id in books.marked.difference(&now_marked) {
            let _ = books.tracker.unmark(*id);
            books.builder.unmark(*id);
        }
        books.marked = now_marked;
    }
}
