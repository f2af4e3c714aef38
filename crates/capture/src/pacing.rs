//! When a recorded frame is due, so a file can stand in for a camera.

use std::time::{Duration, Instant};

/// How a recorded source (video file, image folder) hands out its frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Pacing {
    /// Like a camera: each frame is handed out at its time after the source started, and frames
    /// whose time has passed while the caller was busy are skipped (their indices are missing, so
    /// the caller can count dropped frames). What `koanscope demo` and `live --video` use.
    #[default]
    RealTime,
    /// Every frame, as fast as the caller asks: for tests, evaluation and offline analysis.
    /// Frame times still advance by the nominal interval.
    Unpaced,
}

/// Picks the index of the next frame and waits until it is due.
#[derive(Debug)]
pub(crate) struct Pacer {
    pacing: Pacing,
    interval: Duration,
    start: Option<Instant>,
    next: u64,
}

impl Pacer {
    pub(crate) fn new(pacing: Pacing, interval: Duration) -> Pacer {
        Pacer {
            pacing,
            interval,
            start: None,
            next: 0,
        }
    }

    /// The index of the frame to hand out now, after sleeping until it is due. The clock starts
    /// at the first call, so a source opened long before it is read does not skip its start.
    pub(crate) fn next_index(&mut self) -> u64 {
        let index = match self.pacing {
            Pacing::Unpaced => self.next,
            Pacing::RealTime => {
                let start = *self.start.get_or_insert_with(Instant::now);
                let elapsed = start.elapsed();
                let now_index = (elapsed.as_nanos() / self.interval.as_nanos().max(1)) as u64;
                let index = self.next.max(now_index);
                let due = start + self.time_of(index);
                let now = Instant::now();
                if due > now {
                    std::thread::sleep(due - now);
                }
                index
            }
        };
        self.next = index + 1;
        index
    }

    pub(crate) fn time_of(&self, index: u64) -> Duration {
        self.interval
            .saturating_mul(index.min(u32::MAX as u64) as u32)
    }
}
