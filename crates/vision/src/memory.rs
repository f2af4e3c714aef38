//! What the fit found in earlier frames of one camera, region by region, so a live table re-fits
//! only the regions that changed. A koan left alone gives the same regions frame after frame,
//! up to the few edge pixels that camera noise flips; fitting them again would find the same
//! pieces at many times the cost of comparing the masks.

use std::cell::{Cell, RefCell};

use nalgebra::Point3;

use crate::detect::Reading;
use crate::left_board::LeftBoard;
use crate::region::Region;

/// A region counts as unchanged when at most this share of its pixels have no pixel of the
/// other region within one pixel...
const CHANGED_SHARE: f64 = 0.01;
/// ...or at most this many, for small regions.
const CHANGED_PX: usize = 6;
/// Supports (tips of pieces found in other regions) count as the same within this, mm.
const SAME_SUPPORT_MM: f64 = 0.5;

/// One region's readings, with what they depended on.
struct Remembered {
    region: Region,
    supports: Vec<Point3<f64>>,
    readings: Vec<Reading>,
}

/// The explanations of the regions of the last frame fitted with this memory, and of the one
/// being fitted. Keep one per camera (per vision worker); frames of another camera or
/// calibration need a new one.
#[derive(Default)]
pub struct FitMemory {
    last: RefCell<Vec<Remembered>>,
    this: RefCell<Vec<Remembered>>,
    reused: Cell<usize>,
    fitted: Cell<usize>,
    /// The calibration board found in view in an earlier frame, while it lies there.
    board: RefCell<Option<LeftBoard>>,
}

/// How many region explanations the last frame took from memory and how many it fitted anew.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemoryUse {
    pub reused: usize,
    pub fitted: usize,
}

impl FitMemory {
    pub fn new() -> FitMemory {
        FitMemory::default()
    }

    /// Starts a frame: what the previous frame found becomes what can be reused.
    pub(crate) fn begin_frame(&self) {
        let mut this = self.this.borrow_mut();
        if !this.is_empty() {
            *self.last.borrow_mut() = std::mem::take(&mut *this);
        }
        self.reused.set(0);
        self.fitted.set(0);
    }

    /// The readings of a region that showed (nearly) the same pixels over the same supports
    /// when it was fitted in an earlier frame; kept for the next frame. (Within a frame a region
    /// is explained once per set of supports: the detector refits only when they change.)
    pub(crate) fn recall(&self, region: &Region, supports: &[Point3<f64>]) -> Option<Vec<Reading>> {
        let i =
            self.last.borrow().iter().position(|m| {
                same_supports(&m.supports, supports) && same_pixels(&m.region, region)
            })?;
        // Compared next time with the pixels it was fitted to, so slow drift still gets refitted.
        let m = self.last.borrow_mut().swap_remove(i);
        let readings = m.readings.clone();
        self.this.borrow_mut().push(m);
        self.reused.set(self.reused.get() + 1);
        Some(readings)
    }

    /// Notes what a region was fitted to, for the frames after.
    pub(crate) fn remember(&self, region: &Region, supports: &[Point3<f64>], readings: &[Reading]) {
        self.fitted.set(self.fitted.get() + 1);
        self.this.borrow_mut().push(Remembered {
            region: region.clone(),
            supports: supports.to_vec(),
            readings: readings.to_vec(),
        });
    }

    /// The calibration board an earlier frame found in view, if any.
    pub(crate) fn board(&self) -> Option<LeftBoard> {
        self.board.borrow().clone()
    }

    /// Notes the board this frame found in view, or that it found none.
    pub(crate) fn keep_board(&self, board: Option<LeftBoard>) {
        *self.board.borrow_mut() = board;
    }

    /// What the last frame took from memory and what it fitted.
    pub fn last_use(&self) -> MemoryUse {
        MemoryUse {
            reused: self.reused.get(),
            fitted: self.fitted.get(),
        }
    }
}

fn same_supports(a: &[Point3<f64>], b: &[Point3<f64>]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(p, q)| (p - q).norm() < SAME_SUPPORT_MM)
}

/// Whether two regions of one colour cover the same pixels up to camera noise: pixels of one
/// that have no pixel of the other within one pixel (noise flips pixels along edges and in
/// faint patches, a piece that moved leaves a band), compared over the image, box against box.
fn same_pixels(a: &Region, b: &Region) -> bool {
    if a.color != b.color {
        return false;
    }
    let allowed = CHANGED_PX.max((CHANGED_SHARE * a.target_px()) as usize);
    // Boxes that moved by more than a few pixels cannot hold the same region.
    let shift = a.x0.abs_diff(b.x0) + a.y0.abs_diff(b.y0);
    let grow = (a.x0 + a.w).abs_diff(b.x0 + b.w) + (a.y0 + a.h).abs_diff(b.y0 + b.h);
    if shift + grow > 8 {
        return false;
    }
    unmatched_pixels(a, b, allowed) + unmatched_pixels(b, a, allowed) <= allowed
}

/// Target pixels of `a` with no target pixel of `b` in their 3x3 neighbourhood, counted up to
/// just past `limit`.
fn unmatched_pixels(a: &Region, b: &Region, limit: usize) -> usize {
    let in_b = |x: i64, y: i64| -> bool {
        x >= b.x0 as i64
            && y >= b.y0 as i64
            && x < (b.x0 + b.w) as i64
            && y < (b.y0 + b.h) as i64
            && b.target[(y as usize - b.y0) * b.w + (x as usize - b.x0)] == 1
    };
    let mut unmatched = 0;
    for ry in 0..a.h {
        for rx in 0..a.w {
            if a.target[ry * a.w + rx] != 1 {
                continue;
            }
            let (x, y) = ((a.x0 + rx) as i64, (a.y0 + ry) as i64);
            let matched = (-1..=1).any(|dy| (-1..=1).any(|dx| in_b(x + dx, y + dy)));
            if !matched {
                unmatched += 1;
                if unmatched > limit {
                    return unmatched;
                }
            }
        }
    }
    unmatched
}
