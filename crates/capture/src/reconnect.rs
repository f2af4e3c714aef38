//! A source that survives unplugging: a disconnect pauses the view instead of ending the session.

use std::time::{Duration, Instant};

use crate::error::CaptureError;
use crate::{Frame, FrameSource};

/// Opens (and re-opens) the real source; called once at the start and then at every retry.
pub type Opener = Box<dyn FnMut() -> Result<Box<dyn FrameSource>, CaptureError> + Send>;

/// What [`Reconnecting::next_delivery`] has to say.
#[derive(Debug)]
pub enum Delivery {
    Frame(Frame),
    /// The source is gone and has not come back yet; show the last picture and this message.
    Paused(Paused),
    /// The source ended (the last frame of a video or folder).
    Ended,
}

/// Why and since when the view is paused.
#[derive(Debug, Clone, PartialEq)]
pub struct Paused {
    /// When the source went away, on [`Reconnecting`]'s clock (the time of the frames).
    pub since: Duration,
    /// The disconnect, or the latest failed attempt to reopen, in words for the user.
    pub reason: String,
    /// Attempts to reopen so far.
    pub attempts: u32,
}

/// Wraps a source so that [`CaptureError::Disconnected`] becomes a pause: it tries to reopen
/// every [`Reconnecting::retry_every`] and resumes when the device is back. The game and the
/// tracker carry on; frame indices and times keep increasing across the gap.
///
/// Other errors (a corrupt file) still end the stream: waiting would not mend them.
pub struct Reconnecting {
    opener: Opener,
    inner: Option<Box<dyn FrameSource>>,
    retry_every: Duration,
    clock: Instant,
    /// Added to the inner source's frame times (they restart at 0 on each reopen).
    offset: Duration,
    next_index: u64,
    /// Added to the inner source's frame indices (they restart at 0 on each reopen); gaps the
    /// inner source leaves (frames dropped by a slow reader) are kept, so they can be counted.
    index_base: u64,
    last_time: Option<Duration>,
    paused: Option<Paused>,
    next_try: Instant,
    description: String,
    resolution: [u32; 2],
    interval: Duration,
}

impl Reconnecting {
    /// How often a lost source is tried again unless told otherwise.
    pub const DEFAULT_RETRY: Duration = Duration::from_secs(1);

    /// Opens the source once; that first failure is returned (no camera at all is the user's to
    /// fix, not to wait for).
    pub fn open(mut opener: Opener, retry_every: Duration) -> Result<Reconnecting, CaptureError> {
        let inner = opener()?;
        let now = Instant::now();
        Ok(Reconnecting {
            description: inner.describe(),
            resolution: inner.resolution(),
            interval: inner.frame_interval(),
            inner: Some(inner),
            opener,
            retry_every,
            clock: now,
            offset: Duration::ZERO,
            next_index: 0,
            index_base: 0,
            last_time: None,
            paused: None,
            next_try: now,
        })
    }

    /// The pause in progress, if the source is away.
    pub fn paused(&self) -> Option<&Paused> {
        self.paused.as_ref()
    }

    pub fn retry_every(&self) -> Duration {
        self.retry_every
    }

    /// The source as it was described when last open.
    pub fn describe(&self) -> &str {
        &self.description
    }

    pub fn resolution(&self) -> [u32; 2] {
        self.resolution
    }

    pub fn frame_interval(&self) -> Duration {
        self.interval
    }

    /// The next frame, or a pause. The first call after a disconnect returns at once; later calls
    /// while paused wait until the next attempt to reopen (at most `retry_every`), so a loop
    /// around it neither spins nor hides the pause from the user for long.
    pub fn next_delivery(&mut self) -> Result<Delivery, CaptureError> {
        if self.inner.is_none() {
            let now = Instant::now();
            if self.next_try > now {
                std::thread::sleep(self.next_try - now);
            }
            self.next_try = Instant::now() + self.retry_every;
            match (self.opener)() {
                Ok(inner) => {
                    self.description = inner.describe();
                    self.resolution = inner.resolution();
                    self.interval = inner.frame_interval();
                    // Times never go back: the reopened source starts at least one frame later.
                    let after_last = self.last_time.map_or(Duration::ZERO, |t| t + self.interval);
                    self.offset = self.clock.elapsed().max(after_last);
                    self.inner = Some(inner);
                    self.index_base = self.next_index;
                    self.paused = None;
                }
                Err(error) => {
                    let paused = self.paused.as_mut().expect("paused while no source");
                    paused.attempts += 1;
                    paused.reason = error.to_string();
                    return Ok(Delivery::Paused(paused.clone()));
                }
            }
        }
        let inner = self.inner.as_mut().expect("opened above");
        match inner.next_frame() {
            Ok(Some(mut frame)) => {
                frame.index += self.index_base;
                frame.time += self.offset;
                self.next_index = frame.index + 1;
                self.last_time = Some(frame.time);
                Ok(Delivery::Frame(frame))
            }
            Ok(None) => Ok(Delivery::Ended),
            Err(error) if error.is_disconnect() => {
                self.inner = None;
                let paused = Paused {
                    since: self.clock.elapsed().max(self.last_time.unwrap_or_default()),
                    reason: error.to_string(),
                    attempts: 0,
                };
                self.paused = Some(paused.clone());
                self.next_try = Instant::now() + self.retry_every;
                Ok(Delivery::Paused(paused))
            }
            Err(error) => Err(error),
        }
    }
}
