//! Connected regions of one colour and the pixel counts a silhouette fit needs: what a
//! silhouette covers of a region, fast, and what is left once pieces explain part of it.

use std::sync::Arc;

use koanscope_scene::Color;
use nalgebra::{Point2, Point3};
use opencv::core::{self, Mat, Size as CvSize};
use opencv::imgproc;
use opencv::prelude::*;

use crate::camera::Camera;
use crate::detect::DetectParams;
use crate::error::{CvContext, VisionError};
use crate::pose::row_span;
use crate::segment::{Segmentation, TABLE};

/// A connected region of one colour, as pixel lists in its bounding box.
#[derive(Clone)]
pub(crate) struct Region {
    pub(crate) color: Color,
    pub(crate) x0: usize,
    pub(crate) y0: usize,
    pub(crate) w: usize,
    pub(crate) h: usize,
    /// 1 where the pixel belongs to the region.
    pub(crate) target: Vec<u8>,
    /// Non-zero where something may hide this region's pieces: [`OTHER`] over another piece (any
    /// other foreground), [`EXPLAINED`] over pixels a piece already fitted here explains.
    pub(crate) dontcare: Vec<u8>,
    /// The frame's lightness (8-bit L) over the box, shared by the region's copies: how a
    /// piece's faces shade tells poses with like outlines apart (see `shading.rs`).
    pub(crate) lightness: Arc<[u8]>,
}

impl Region {
    /// How many pixels are left to explain.
    pub(crate) fn target_px(&self) -> f64 {
        // Counted in integers, which vectorise (a sum of floats adds one pixel at a time), and
        // exact either way.
        self.target.iter().map(|&v| u64::from(v)).sum::<u64>() as f64
    }

    /// Left, top, width and height of the region's box.
    fn bounds(&self) -> (usize, usize, usize, usize) {
        (self.x0, self.y0, self.w, self.h)
    }

    /// The index in the region's box of a frame pixel that is one of the region's (left to
    /// explain or already explained); `None` for any other pixel.
    pub(crate) fn own_index(&self, x: usize, y: usize) -> Option<usize> {
        let (rx, ry) = (x.checked_sub(self.x0)?, y.checked_sub(self.y0)?);
        if rx >= self.w || ry >= self.h {
            return None;
        }
        let k = ry * self.w + rx;
        (self.target[k] == 1 || self.dontcare[k] == EXPLAINED).then_some(k)
    }

    /// Whether a frame pixel is one of the region's (see [`Region::own_index`]).
    pub(crate) fn holds(&self, x: usize, y: usize) -> bool {
        self.own_index(x, y).is_some()
    }

    /// Mean pixel of what is left to explain.
    pub(crate) fn target_centre(&self) -> Option<Point2<f64>> {
        // Integer sums, row by row (exact, as the sums in floats were, and they vectorise).
        let (mut sx, mut sy, mut n) = (0u64, 0u64, 0u64);
        for (y, row) in self.target.chunks_exact(self.w.max(1)).enumerate() {
            let (mut row_x, mut row_n) = (0u64, 0u64);
            for (x, &t) in row.iter().enumerate() {
                let inside = u64::from(t == 1);
                row_x += inside * x as u64;
                row_n += inside;
            }
            sx += row_x + row_n * self.x0 as u64;
            sy += row_n * (self.y0 + y) as u64;
            n += row_n;
        }
        let n = n as f64;
        (n > 0.0).then(|| Point2::new(sx as f64 / n, sy as f64 / n))
    }

    /// Whether a table point projects within `radius_px` of one of the region's pixels (those
    /// left to explain or already explained), or of a pixel of another piece that may hide it
    /// when `hidden_too`.
    pub(crate) fn near_pixels(
        &self,
        camera: &Camera,
        point: &Point3<f64>,
        radius_px: f64,
        hidden_too: bool,
    ) -> bool {
        let Some(p) = camera.project_table(point) else {
            return false;
        };
        let (cx, cy) = (p.x - self.x0 as f64, p.y - self.y0 as f64);
        let r = radius_px.ceil() as i64;
        let (px, py) = (cx.round() as i64, cy.round() as i64);
        for y in (py - r).max(0)..=(py + r).min(self.h as i64 - 1) {
            for x in (px - r).max(0)..=(px + r).min(self.w as i64 - 1) {
                let (dx, dy) = (x as f64 - cx, y as f64 - cy);
                let k = y as usize * self.w + x as usize;
                if dx * dx + dy * dy <= radius_px * radius_px
                    && (self.target[k] == 1 || (hidden_too && self.dontcare[k] != 0))
                {
                    return true;
                }
            }
        }
        false
    }
}

/// Labels, stats and count of OpenCV's 8-connected components of a mask.
fn components(mask: &impl core::ToInputArray) -> Result<(Mat, Mat, i32), VisionError> {
    let mut labels = Mat::default();
    let mut stats = Mat::default();
    let mut centroids = Mat::default();
    let count = imgproc::connected_components_with_stats(
        mask,
        &mut labels,
        &mut stats,
        &mut centroids,
        8,
        core::CV_32S,
    )
    .during("finding regions")?;
    let labels = if labels.is_continuous() {
        labels
    } else {
        labels.try_clone().during("copy")?
    };
    Ok((labels, stats, count))
}

/// Left, top, width, height and area of component `label`.
fn stats_of(stats: &Mat, label: i32) -> Result<[usize; 5], VisionError> {
    let stat = |k: i32| -> Result<usize, VisionError> {
        Ok((*stats
            .at_2d::<i32>(label, k)
            .during("reading region stats")?)
        .max(0) as usize)
    };
    Ok([
        stat(imgproc::CC_STAT_LEFT)?,
        stat(imgproc::CC_STAT_TOP)?,
        stat(imgproc::CC_STAT_WIDTH)?,
        stat(imgproc::CC_STAT_HEIGHT)?,
        stat(imgproc::CC_STAT_AREA)?,
    ])
}

/// Connected regions of each colour, after removing speckle (a 3x3 opening of each colour's
/// mask), ordered by colour and then as a raster scan meets them.
///
/// Every colour region lies inside one connected group of piece-coloured pixels, so the frame
/// is labelled once, and each colour is opened and labelled only in the box of each group (grown
/// by 3 pixels, so the opening is exact where it matters). The groups are labelled on a mask of
/// 4x4-pixel cells, each set when any of its pixels is a piece's: a group of cells holds whole
/// groups of pixels (neighbouring pixels fall in the same or neighbouring cells), so the same
/// regions are found, at a sixteenth of the cost of labelling the full frame (a fifth of a
/// fresh frame's analysis before).
pub(crate) fn regions(
    seg: &Segmentation,
    params: &DetectParams,
    margin: usize,
) -> Result<Vec<Region>, VisionError> {
    const PAD: usize = 3;
    const CELL: usize = 4;
    let (w, h) = (seg.width, seg.height);
    let kernel = imgproc::get_structuring_element(
        imgproc::MORPH_ELLIPSE,
        CvSize::new(3, 3),
        core::Point::new(-1, -1),
    )
    .during("building a kernel")?;
    let classes = Mat::new_rows_cols_with_data(h as i32, w as i32, &seg.classes)
        .during("reading the classes")?;
    let (sw, sh) = (w.div_ceil(CELL), h.div_ceil(CELL));
    let mut cells = vec![0u8; sw * sh];
    for (y, row) in seg.classes.chunks_exact(w.max(1)).enumerate() {
        let cell_row = &mut cells[(y / CELL) * sw..(y / CELL + 1) * sw];
        for (cell, pixels) in cell_row.iter_mut().zip(row.chunks(CELL)) {
            if pixels.iter().any(|c| *c >= 2) {
                *cell = 255;
            }
        }
    }
    let cells = Mat::new_rows_cols_with_data(sh as i32, sw as i32, &cells)
        .during("reading the piece cells")?;
    let (group_labels, group_stats, groups) = components(&cells)?;
    let group_cells: &[i32] = group_labels.data_typed::<i32>().during("reading labels")?;
    let group_of = |x: usize, y: usize| group_cells[(y / CELL) * sw + x / CELL];
    // (colour index, first pixel in raster order, region)
    let mut found: Vec<(usize, usize, Region)> = Vec::new();
    for group in 1..groups {
        let [gx, gy, gw, gh, _] = stats_of(&group_stats, group)?;
        // The group's cells as pixels.
        let (gx, gy) = (gx * CELL, gy * CELL);
        let (gw, gh) = (
            ((gx + gw * CELL).min(w)) - gx,
            ((gy + gh * CELL).min(h)) - gy,
        );
        let cx0 = gx.saturating_sub(PAD);
        let cy0 = gy.saturating_sub(PAD);
        let cx1 = (gx + gw + PAD).min(w);
        let cy1 = (gy + gh + PAD).min(h);
        let (cw, ch) = (cx1 - cx0, cy1 - cy0);
        let mut histogram = [0usize; 256];
        for y in gy..gy + gh {
            for x in gx..gx + gw {
                if group_of(x, y) == group {
                    histogram[usize::from(seg.classes[y * w + x])] += 1;
                }
            }
        }
        if histogram[2..].iter().sum::<usize>() < params.min_region_px {
            continue;
        }
        let crop = Mat::roi(
            &classes,
            core::Rect::new(cx0 as i32, cy0 as i32, cw as i32, ch as i32),
        )
        .during("cropping the classes")?;
        for (i, color) in seg.palette.iter().enumerate() {
            let class = 2 + i as u8;
            if histogram[usize::from(class)] < params.min_region_px {
                continue;
            }
            let mut mask = Mat::default();
            core::compare(
                &crop,
                &core::Scalar::all(f64::from(class)),
                &mut mask,
                core::CMP_EQ,
            )
            .during("building a mask")?;
            let mut opened = Mat::default();
            imgproc::morphology_ex(
                &mask,
                &mut opened,
                imgproc::MORPH_OPEN,
                &kernel,
                core::Point::new(-1, -1),
                1,
                core::BORDER_CONSTANT,
                imgproc::morphology_default_border_value().during("morphology")?,
            )
            .during("cleaning a colour mask")?;
            let (labels, stats, count) = components(&opened)?;
            let labels: &[i32] = labels.data_typed::<i32>().during("reading labels")?;
            for label in 1..count {
                let [lx, ly, lw, lh, larea] = stats_of(&stats, label)?;
                if larea < params.min_region_px {
                    continue;
                }
                // Its first pixel in raster order: it belongs to this group or to another
                // group whose box overlaps this one (found there instead).
                let Some(first) = (lx..lx + lw).find(|&x| labels[ly * cw + x] == label) else {
                    continue;
                };
                let (fx, fy) = (cx0 + first, cy0 + ly);
                if group_of(fx, fy) != group {
                    continue;
                }
                let (bx, by) = (cx0 + lx, cy0 + ly);
                let x0 = bx.saturating_sub(margin);
                let y0 = by.saturating_sub(margin);
                let x1 = (bx + lw + margin).min(w);
                let y1 = (by + lh + margin).min(h);
                let (rw, rh) = (x1 - x0, y1 - y0);
                // No piece spans a box this large (at 1920x1080 a whole frame is less); the fit
                // counts a region's pixels in lanes of this size.
                if rw * rh >= 1 << LANE_BITS {
                    continue;
                }
                let mut target = vec![0u8; rw * rh];
                let mut dontcare = vec![0u8; rw * rh];
                let mut lightness = vec![0u8; rw * rh];
                let lab = seg.lab_bytes();
                for y in 0..rh {
                    let fy = y0 + y;
                    let frame_row = fy * w + x0..fy * w + x0 + rw;
                    for (l, p) in lightness[y * rw..(y + 1) * rw]
                        .iter_mut()
                        .zip(lab[3 * frame_row.start..3 * frame_row.end].chunks_exact(3))
                    {
                        *l = p[0];
                    }
                    let in_crop_rows = fy >= cy0 && fy < cy1;
                    for x in 0..rw {
                        let fx = x0 + x;
                        let idx = frame_row.start + x;
                        let in_crop = in_crop_rows && fx >= cx0 && fx < cx1;
                        if in_crop && labels[(fy - cy0) * cw + (fx - cx0)] == label {
                            target[y * rw + x] = 1;
                        } else if seg.classes[idx] != TABLE || in_seam(&seg.classes, (w, h), fx, fy)
                        {
                            dontcare[y * rw + x] = OTHER;
                        }
                    }
                }
                found.push((
                    i,
                    fy * w + fx,
                    Region {
                        color: *color,
                        x0,
                        y0,
                        w: rw,
                        h: rh,
                        target,
                        dontcare,
                        lightness: lightness.into(),
                    },
                ));
            }
        }
    }
    found.sort_by_key(|(colour, first, _)| (*colour, *first));
    Ok(found.into_iter().map(|(_, _, region)| region).collect())
}

/// Whether a table pixel of a frame's classes (`w` by `h`) lies in a seam between foreground
/// pixels: across its row or its column, at most two pixels wide. Where two faces meet (a piece
/// and the one it stands on, a lit and a shaded face, two pieces side by side) the blur blends
/// them into a colour of neither, often one the table test passes; such pixels say nothing of the
/// table. (Whether a gap between two pieces shows the table is judged on the frame's own classes,
/// in `gap.rs`.)
fn in_seam(classes: &[u8], (w, h): (usize, usize), x: usize, y: usize) -> bool {
    // Most table pixels have table all round them: no seam (each case below needs a
    // foreground pixel next to it). Table is class 0, so four classes are tested in one `or`.
    const _: () = assert!(TABLE == 0);
    if x > 0 && y > 0 && x + 1 < w && y + 1 < h {
        let k = y * w + x;
        if (classes[k - 1] | classes[k + 1] | classes[k - w] | classes[k + w]) == TABLE {
            return false;
        }
    }
    // The class `k` pixels away along a row (`along_row`) or a column, table outside the frame.
    let at = |k: isize, along_row: bool| -> u8 {
        let (px, py) = if along_row {
            (x as isize + k, y as isize)
        } else {
            (x as isize, y as isize + k)
        };
        if px < 0 || py < 0 || px >= w as isize || py >= h as isize {
            TABLE
        } else {
            classes[py as usize * w + px as usize]
        }
    };
    let foreground = |k: isize, along_row: bool| at(k, along_row) != TABLE;
    [true, false].into_iter().any(|along_row| {
        // Two pixels wide at most: foreground next to it on one side, and within two pixels on
        // the other.
        match (foreground(-1, along_row), foreground(1, along_row)) {
            (true, true) => true,
            (true, false) => foreground(2, along_row),
            (false, true) => foreground(-2, along_row),
            (false, false) => false,
        }
    })
}

/// `Region::dontcare` of a pixel of another piece (or unknown colour).
pub(crate) const OTHER: u8 = 1;
/// `Region::dontcare` of a pixel of the region already explained by a piece fitted to it.
pub(crate) const EXPLAINED: u8 = 2;

/// Row prefix sums of a region's masks, so a silhouette scores in time proportional to its height.
pub(crate) struct Prefix {
    /// The box the sums cover, frame pixels (left, top, width, height): the smallest within
    /// the region's box holding every pixel that is not table there. Outside it every pixel
    /// counts as table, as it would from the sums; a lone piece's box is a few times smaller
    /// than the region's, whose margin is there for neighbours, and its sums stay in the
    /// nearest cache while thousands of silhouettes are scored on them.
    x0: i64,
    y0: i64,
    w: usize,
    h: usize,
    /// Per row, running counts from the row's start, packed in [`LANE_BITS`]-bit lanes of one
    /// word: target, dontcare and others, where `others` counts, of the pixels that may hide
    /// this region's pieces, those of other pieces (not those already explained here). A run's
    /// counts are then one subtraction of its two ends (no lane is ever less at the left end,
    /// so none borrows from the next), and a silhouette's, one sum of those words.
    sums: Vec<u64>,
}

/// Bits of one count in [`Prefix`]'s words: a silhouette's pixels in the sums' box are at most
/// the region's box, which [`regions`] keeps under 2^21 pixels (a 1920x1080 frame is less), so
/// no lane of a sum over a silhouette's rows overflows.
const LANE_BITS: u32 = 21;
const LANE_MASK: u64 = (1 << LANE_BITS) - 1;
const TARGET_LANE: u64 = 1;
const DONTCARE_LANE: u64 = 1 << LANE_BITS;
const OTHERS_LANE: u64 = 1 << (2 * LANE_BITS);

/// Counts of a silhouette's runs: their lanes summed, and all their pixels.
#[derive(Default)]
struct RunCounts {
    lanes: u64,
    pixels: i64,
}

impl RunCounts {
    fn overlap(&self) -> Overlap {
        let on = (self.lanes & LANE_MASK) as i64;
        let care = ((self.lanes >> LANE_BITS) & LANE_MASK) as i64;
        let others = ((self.lanes >> (2 * LANE_BITS)) & LANE_MASK) as i64;
        Overlap {
            on: on as f64,
            off: (self.pixels - on - care) as f64,
            care: care as f64,
            others: others as f64,
        }
    }
}

impl Prefix {
    pub(crate) fn new(region: &Region) -> Prefix {
        let w = region.w;
        debug_assert!(
            w * region.h < 1 << LANE_BITS,
            "a region box larger than a count's lane (see `regions`)"
        );
        let rows = || {
            region
                .target
                .chunks_exact(w.max(1))
                .zip(region.dontcare.chunks_exact(w.max(1)))
        };
        // Where in a row something is not table: its first and last such columns.
        let ends = |(target, dontcare): (&[u8], &[u8])| {
            let some = |x: usize| (target[x] | dontcare[x]) != 0;
            let first = (0..w).find(|&x| some(x))?;
            let last = (0..w).rev().find(|&x| some(x))?;
            Some((first, last))
        };
        let (mut top, mut bottom, mut left, mut right) = (usize::MAX, 0, usize::MAX, 0);
        for (y, row) in rows().enumerate() {
            if let Some((first, last)) = ends(row) {
                top = top.min(y);
                bottom = y;
                left = left.min(first);
                right = right.max(last);
            }
        }
        if top == usize::MAX {
            return Prefix {
                x0: region.x0 as i64,
                y0: region.y0 as i64,
                w: 0,
                h: 0,
                sums: Vec::new(),
            };
        }
        let (bw, bh) = (right + 1 - left, bottom + 1 - top);
        // Filled as it is pushed: zeroing the array first cost as much again.
        let mut sums = Vec::with_capacity((bw + 1) * bh);
        for (target, dontcare) in rows().skip(top).take(bh) {
            let mut acc = 0u64;
            sums.push(acc);
            for (&target, &dontcare) in target[left..=right].iter().zip(&dontcare[left..=right]) {
                acc += TARGET_LANE * u64::from(target)
                    + DONTCARE_LANE * u64::from(dontcare != 0)
                    + OTHERS_LANE * u64::from(dontcare == OTHER);
                sums.push(acc);
            }
        }
        Prefix {
            x0: (region.x0 + left) as i64,
            y0: (region.y0 + top) as i64,
            w: bw,
            h: bh,
            sums,
        }
    }
}

/// Pixels of a silhouette on the region, and off it (on the table).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Overlap {
    pub(crate) on: f64,
    pub(crate) off: f64,
    /// Pixels over other pieces or over pixels already explained.
    pub(crate) care: f64,
    /// Of those, pixels over other pieces.
    pub(crate) others: f64,
}

/// The spans of a convex polygon on the integer rows `first..first + spans.len()`, as
/// [`row_span`] gives them (same arithmetic), edge by edge instead of row by row. A row the
/// polygon misses keeps `lo > hi`.
fn fill_spans(polygon: &[Point2<f64>], first: i64, spans: &mut [(f64, f64)]) {
    spans.fill((f64::INFINITY, f64::NEG_INFINITY));
    if spans.is_empty() {
        return;
    }
    let n = polygon.len();
    let last = first + spans.len() as i64 - 1;
    // Clockwise as seen on the image (y down): its edges running down are its right side.
    let clockwise = (0..n)
        .map(|i| {
            let (a, b) = (polygon[i], polygon[(i + 1) % n]);
            a.x * b.y - b.x * a.y
        })
        .sum::<f64>()
        > 0.0;
    for i in 0..n {
        let a = polygon[i];
        let b = polygon[(i + 1) % n];
        let (ylo, yhi) = if a.y <= b.y { (a.y, b.y) } else { (b.y, a.y) };
        let from = ceil(ylo).max(first);
        let to = floor(yhi).min(last);
        if from > to {
            continue;
        }
        let rows = &mut spans[(from - first) as usize..=(to - first) as usize];
        if (b.y - a.y).abs() < 1e-12 {
            let (xlo, xhi) = (a.x.min(b.x), a.x.max(b.x));
            for span in rows {
                span.0 = if xlo < span.0 { xlo } else { span.0 };
                span.1 = if xhi > span.1 { xhi } else { span.1 };
            }
            continue;
        }
        let slope = (b.x - a.x) / (b.y - a.y);
        let mut x = a.x + (from as f64 - a.y) * slope;
        let both = |span: &mut (f64, f64), x: f64| {
            span.0 = if x < span.0 { x } else { span.0 };
            span.1 = if x > span.1 { x } else { span.1 };
        };
        // Between its end rows an edge is the only one of its side of a convex polygon: it
        // sets that side's end alone (its left or right by which way it runs, given the
        // winding). Its end rows, which it may share with neighbours, take the least and most.
        let right = (b.y > a.y) == clockwise;
        let n_rows = rows.len();
        let (head, rest) = rows.split_at_mut(1);
        both(&mut head[0], x);
        x += slope;
        if n_rows > 1 {
            let (inner, tail) = rest.split_at_mut(n_rows - 2);
            if right {
                for span in inner {
                    span.1 = x;
                    x += slope;
                }
            } else {
                for span in inner {
                    span.0 = x;
                    x += slope;
                }
            }
            both(&mut tail[0], x);
        }
    }
}

/// `x.ceil()` for the pixel coordinates met here (well inside the range of i64), without the
/// libm call the baseline x86-64 target makes of it.
#[inline]
fn ceil(x: f64) -> i64 {
    let t = x as i64;
    if (t as f64) < x { t + 1 } else { t }
}

/// `x.floor()`, likewise.
#[inline]
fn floor(x: f64) -> i64 {
    let t = x as i64;
    if (t as f64) > x { t - 1 } else { t }
}

thread_local! {
    /// Scratch rows for [`for_each_run`] and [`overlap_union`]: one allocation per thread, not
    /// per silhouette scored.
    static SPANS: std::cell::RefCell<Vec<(f64, f64)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Counts one run of pixels `xa..=xb` on frame row `y` (which may lie outside the prefix's box:
/// all off then).
#[inline(always)]
fn count_run(prefix: &Prefix, y: i64, xa: i64, xb: i64, counts: &mut RunCounts) {
    counts.pixels += xb - xa + 1;
    let ry = y - prefix.y0;
    if ry < 0 || ry >= prefix.h as i64 {
        return;
    }
    let ca = (xa - prefix.x0).clamp(0, prefix.w as i64) as usize;
    let cb = (xb - prefix.x0 + 1).clamp(0, prefix.w as i64) as usize;
    let row = ry as usize * (prefix.w + 1);
    counts.lanes += prefix.sums[row + cb] - prefix.sums[row + ca];
}

fn row_range(polygons: &[&[Point2<f64>]]) -> Option<(i64, usize)> {
    let (mut ymin, mut ymax) = (f64::INFINITY, f64::NEG_INFINITY);
    for p in polygons.iter().flat_map(|p| p.iter()) {
        ymin = ymin.min(p.y);
        ymax = ymax.max(p.y);
    }
    if !(ymin.is_finite() && ymax.is_finite()) {
        return None;
    }
    let (first, last) = (ceil(ymin), floor(ymax));
    (last >= first).then_some((first, (last - first + 1) as usize))
}

/// The pixels a convex silhouette covers, those whose centres lie inside it: `run(y, xa, xb)`
/// for each image row's run `xa..=xb`, top to bottom. What the fit counts, and what the test
/// renderer draws. (`run` must not call back in here: the rows live in [`SPANS`].)
#[inline(always)]
pub(crate) fn for_each_run(polygon_px: &[Point2<f64>], mut run: impl FnMut(i64, i64, i64)) {
    let Some((first, rows)) = row_range(&[polygon_px]) else {
        return;
    };
    SPANS.with_borrow_mut(|spans| {
        spans.resize(rows, (0.0, 0.0));
        fill_spans(polygon_px, first, &mut spans[..rows]);
        for (k, &span) in spans[..rows].iter().enumerate() {
            if let Some((xa, xb)) = run_of(span) {
                run(first + k as i64, xa, xb);
            }
        }
    });
}

/// The pixels `xa..=xb` whose centres lie in a row's span (see [`fill_spans`]); none for a row
/// the polygon misses (`lo > hi`, infinite ends) or whose span holds no pixel centre.
#[inline(always)]
fn run_of((lo, hi): (f64, f64)) -> Option<(i64, i64)> {
    if lo > hi {
        return None;
    }
    let (xa, xb) = (ceil(lo), floor(hi));
    (xa <= xb).then_some((xa, xb))
}

/// How a silhouette lies on the region whose prefix sums these are.
pub(crate) fn overlap(prefix: &Prefix, polygon_px: &[Point2<f64>]) -> Overlap {
    let mut counts = RunCounts::default();
    for_each_run(polygon_px, |y, xa, xb| {
        count_run(prefix, y, xa, xb, &mut counts)
    });
    counts.overlap()
}

/// Like [`overlap`] for the union of two convex silhouettes (a piece and the one stacked on
/// it): each row's two runs, merged where they overlap or touch, counted once.
pub(crate) fn overlap_union(prefix: &Prefix, [a, b]: [&[Point2<f64>]; 2]) -> Overlap {
    let Some((first, rows)) = row_range(&[a, b]) else {
        return Overlap::default();
    };
    let mut counts = RunCounts::default();
    // Both polygons' spans in the thread's scratch rows, one after the other.
    SPANS.with_borrow_mut(|spans| {
        spans.resize(2 * rows, (0.0, 0.0));
        let (spans_a, spans_b) = spans[..2 * rows].split_at_mut(rows);
        fill_spans(a, first, spans_a);
        fill_spans(b, first, spans_b);
        for (k, (&span_a, &span_b)) in spans_a.iter().zip(spans_b.iter()).enumerate() {
            let y = first + k as i64;
            match (run_of(span_a), run_of(span_b)) {
                (Some(r), None) | (None, Some(r)) => count_run(prefix, y, r.0, r.1, &mut counts),
                (Some(r), Some(s)) => {
                    let (left, right) = if r <= s { (r, s) } else { (s, r) };
                    if right.0 <= left.1 + 1 {
                        count_run(prefix, y, left.0, left.1.max(right.1), &mut counts);
                    } else {
                        count_run(prefix, y, left.0, left.1, &mut counts);
                        count_run(prefix, y, right.0, right.1, &mut counts);
                    }
                }
                (None, None) => {}
            }
        }
    });
    counts.overlap()
}

/// The index of each pixel of a region's box (left, top, width, height) whose centre lies inside
/// a convex silhouette (as [`row_span`] gives its rows), passed to `pixel`.
fn for_each_inside(
    (x0, y0, w, h): (usize, usize, usize, usize),
    outline_px: &[Point2<f64>],
    mut pixel: impl FnMut(usize),
) {
    let Some((first, rows)) = row_range(&[outline_px]) else {
        return;
    };
    let top = (first - y0 as i64).max(0) as usize;
    let bottom = ((first + rows as i64 - y0 as i64).max(0) as usize).min(h);
    for ry in top..bottom {
        let Some((lo, hi)) = row_span(outline_px, (y0 + ry) as f64) else {
            continue;
        };
        let xa = (lo.ceil() - x0 as f64).max(0.0) as usize;
        let xb = ((hi.floor() - x0 as f64 + 1.0).max(0.0) as usize).min(w);
        for x in xa..xb {
            pixel(ry * w + x);
        }
    }
}

/// Pixels still to explain under a silhouette.
pub(crate) fn covered(region: &Region, outline_px: &[Point2<f64>]) -> f64 {
    let mut count = 0u64;
    for_each_inside(region.bounds(), outline_px, |i| {
        count += u64::from(region.target[i])
    });
    count as f64
}

/// Marks the pixels under a fitted silhouette as explained: later pieces may overlap them freely.
pub(crate) fn explain(region: &mut Region, outline_px: &[Point2<f64>]) {
    for_each_inside(region.bounds(), outline_px, |i| {
        if region.target[i] == 1 {
            region.target[i] = 0;
            region.dontcare[i] = EXPLAINED;
        }
    });
}

/// Takes a silhouette in front out of a region: the pixels under it, of the region or of other
/// pieces, are neither evidence for the region's pieces nor a cost of hiding them (the piece in
/// front shows there, and may be tinted by what is behind it).
pub(crate) fn hidden_by(region: &mut Region, outline_px: &[Point2<f64>]) {
    for_each_inside(region.bounds(), outline_px, |i| {
        region.target[i] = 0;
        region.dontcare[i] = EXPLAINED;
    });
}

/// Takes out of a region the pixels inside `outline_px` that are neither its own nor already
/// another piece's: a silhouette covering them is not charged for them, and its pixels of the
/// region there still count for it (what may show neither piece, such as the seam in the shade
/// where one piece sits on another).
pub(crate) fn hidden_unless_own(region: &mut Region, outline_px: &[Point2<f64>]) {
    for_each_inside(region.bounds(), outline_px, |i| {
        if region.target[i] == 0 && region.dontcare[i] == 0 {
            region.dontcare[i] = EXPLAINED;
        }
    });
}

/// Removes what is left of a region in strips narrower than 5 pixels (a morphological opening):
/// the blurred rim around a fitted piece, not another piece.
pub(crate) fn open_residual(region: &mut Region) {
    // Only within the box of what is left (usually a rim much smaller than the region's box):
    // the opening of a mask lies inside the mask, and the filter counts pixels outside its box
    // as 0, as they are.
    let w = region.w;
    let rows_left = || {
        region
            .target
            .chunks_exact(w.max(1))
            .map(|row| row.contains(&1))
    };
    let (Some(top), Some(bottom)) = (
        rows_left().position(|any| any),
        rows_left().rposition(|any| any),
    ) else {
        return;
    };
    let (mut left, mut right) = (w, 0);
    for row in region.target[top * w..(bottom + 1) * w].chunks_exact(w) {
        if let (Some(a), Some(b)) = (
            row.iter().position(|&t| t == 1),
            row.iter().rposition(|&t| t == 1),
        ) {
            left = left.min(a);
            right = right.max(b);
        }
    }
    let (bw, bh) = (right + 1 - left, bottom + 1 - top);
    let inside: Vec<u8> = (top..=bottom)
        .flat_map(|y| region.target[y * w + left..=y * w + right].iter())
        .map(|&t| u8::from(t == 1))
        .collect();
    let opened = opening_5(&inside, bw, bh);
    for (k, (&was, &kept)) in inside.iter().zip(&opened).enumerate() {
        if was == 1 && kept == 0 {
            let i = (top + k / bw) * w + left + k % bw;
            region.target[i] = 0;
            region.dontcare[i] = EXPLAINED;
        }
    }
}

/// The opening of a 0/1 mask by a 5x5 square. The square is separable: a minimum (then maximum)
/// over rows, then over columns.
fn opening_5(mask: &[u8], w: usize, h: usize) -> Vec<u8> {
    box_filter_5(&box_filter_5(mask, w, h, true), w, h, false)
}

/// A 0/1 mask's minimum (`erode`) or maximum over each pixel's 5x5 square, pixels outside the
/// box counting 0. Written as whole-row operations so they vectorise.
fn box_filter_5(mask: &[u8], w: usize, h: usize, erode: bool) -> Vec<u8> {
    let pick = |a: u8, b: u8| if erode { a & b } else { a | b };
    let mut rows = vec![0u8; w * h];
    for (src, dst) in mask
        .chunks_exact(w.max(1))
        .zip(rows.chunks_exact_mut(w.max(1)))
    {
        if w >= 5 {
            let inner = dst[2..w - 2].iter_mut().zip(
                src.iter()
                    .zip(&src[1..])
                    .zip(&src[2..])
                    .zip(&src[3..])
                    .zip(&src[4..]),
            );
            for (d, ((((&a, &b), &c), &e), &f)) in inner {
                *d = pick(pick(pick(a, b), pick(c, e)), f);
            }
        }
        // The two pixels at each end: a clipped window (never whole, so eroded away).
        for x in (0..w.min(2)).chain(w.saturating_sub(2).max(2)..w) {
            let (lo, hi) = (x.saturating_sub(2), (x + 3).min(w));
            dst[x] = if erode {
                0
            } else {
                src[lo..hi].iter().fold(0, |acc, &v| acc | v)
            };
        }
    }
    let mut out = vec![0u8; w * h];
    for y in 0..h {
        let (lo, hi) = (y.saturating_sub(2), (y + 3).min(h));
        if erode && hi - lo < 5 {
            continue;
        }
        let dst = &mut out[y * w..(y + 1) * w];
        dst.copy_from_slice(&rows[y * w..(y + 1) * w]);
        for yy in lo..hi {
            for (d, &v) in dst.iter_mut().zip(&rows[yy * w..(yy + 1) * w]) {
                *d = pick(*d, v);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_edge_by_edge_equal_spans_row_by_row() {
        let polygon = vec![
            Point2::new(10.3, 5.2),
            Point2::new(40.7, 12.0),
            Point2::new(35.1, 40.9),
            Point2::new(12.0, 40.9),
            Point2::new(3.5, 22.25),
        ];
        // Wound either way, and a thin sliver (one row at most a pixel wide).
        let reversed: Vec<Point2<f64>> = polygon.iter().rev().copied().collect();
        let sliver = vec![
            Point2::new(3.0, 2.0),
            Point2::new(30.0, 20.5),
            Point2::new(30.5, 20.0),
        ];
        for polygon in [&polygon, &reversed, &sliver] {
            let (first, rows) = row_range(&[polygon]).expect("rows");
            let mut spans = vec![(0.0, 0.0); rows];
            fill_spans(polygon, first, &mut spans);
            for (k, span) in spans.iter().enumerate() {
                let y = (first + k as i64) as f64;
                let (lo, hi) = row_span(polygon, y).expect("the row meets the polygon");
                assert!(
                    (lo - span.0).abs() < 1e-9 && (hi - span.1).abs() < 1e-9,
                    "row {y}: {span:?} against {:?}",
                    (lo, hi)
                );
            }
        }
        for x in [-3.5, -3.0, -0.2, 0.0, 0.7, 2.0, 1e4 + 0.5] {
            assert_eq!(ceil(x), x.ceil() as i64);
            assert_eq!(floor(x), x.floor() as i64);
        }
    }

    #[test]
    fn the_separable_opening_equals_the_square_one() {
        for (w, h) in [(23, 17), (4, 9), (1, 3), (6, 5)] {
            check_opening(w, h);
        }
    }

    fn check_opening(w: usize, h: usize) {
        // Blobs, strips 1 to 6 pixels wide, and pixels on the box's edges.
        let mask: Vec<u8> = (0..w * h)
            .map(|i| {
                let (x, y) = (i % w, i / w);
                let blob = (x as i64 - 8).pow(2) + (y as i64 - 8).pow(2) < 30;
                let strip = y >= 12 && x < 2 + y - 12;
                let edge = x == 0 || (x * 7 + y * 3) % 11 == 0;
                u8::from(blob || strip || edge)
            })
            .collect();
        let at = |m: &[u8], x: i64, y: i64| {
            x >= 0 && y >= 0 && x < w as i64 && y < h as i64 && m[y as usize * w + x as usize] == 1
        };
        let square = |m: &[u8], x: i64, y: i64, all: bool| {
            let mut cells = (-2..=2).flat_map(|dy| (-2..=2).map(move |dx| (x + dx, y + dy)));
            if all {
                cells.all(|(cx, cy)| at(m, cx, cy))
            } else {
                cells.any(|(cx, cy)| at(m, cx, cy))
            }
        };
        let grid = |f: &dyn Fn(i64, i64) -> bool| -> Vec<u8> {
            (0..w * h)
                .map(|i| u8::from(f((i % w) as i64, (i / w) as i64)))
                .collect()
        };
        let eroded = grid(&|x, y| square(&mask, x, y, true));
        let opened = grid(&|x, y| square(&eroded, x, y, false));
        if w == 23 {
            assert!(
                opened.contains(&1) && opened != mask,
                "the mask tests something"
            );
        }
        assert_eq!(opening_5(&mask, w, h), opened, "{w}x{h}");
    }

    /// What is left of a region is opened within its own box; the result is the opening of the
    /// whole region's box: blobs kept, strips and specks explained away, nothing else touched.
    #[test]
    fn the_residue_opened_in_its_box_is_the_residue_opened_in_the_regions() {
        let (w, h) = (60, 50);
        let target: Vec<u8> = (0..w * h)
            .map(|i| {
                let (x, y) = (i % w, i / w);
                let blob = (x as i64 - 30).pow(2) + (y as i64 - 22).pow(2) < 30;
                let strip = (20..23).contains(&y) && (12..26).contains(&x);
                let speck = (x, y) == (44, 31);
                u8::from(blob || strip || speck)
            })
            .collect();
        let mut region = Region {
            color: Color::Red,
            x0: 100,
            y0: 80,
            w,
            h,
            target: target.clone(),
            dontcare: vec![0; w * h],
            lightness: vec![0; w * h].into(),
        };
        open_residual(&mut region);
        let opened = opening_5(&target, w, h);
        assert!(
            opened.contains(&1) && opened != target,
            "the mask tests something"
        );
        for i in 0..w * h {
            assert_eq!(region.target[i], opened[i], "pixel {i}");
            let explained = target[i] == 1 && opened[i] == 0;
            assert_eq!(region.dontcare[i] == EXPLAINED, explained, "pixel {i}");
        }
    }

    /// A silhouette over a region's pixels, another piece's and the table's: once the region
    /// hides what is neither its own nor the other piece's there (the seam where one piece sits
    /// on another), the silhouette leaks onto the table nowhere, and explains just as many of
    /// the region's pixels and covers as many of the other piece's.
    #[test]
    fn what_is_neither_its_own_nor_anothers_is_hidden_and_nothing_else() {
        let (w, h) = (40, 30);
        let (x0, y0) = (500, 300);
        // Columns 0-14 the region's, 30-39 another piece's, the rest the table.
        let target: Vec<u8> = (0..w * h).map(|i| u8::from(i % w < 15)).collect();
        let dontcare: Vec<u8> = (0..w * h)
            .map(|i| if i % w >= 30 { OTHER } else { 0 })
            .collect();
        let mut region = Region {
            color: Color::Yellow,
            x0,
            y0,
            w,
            h,
            target: target.clone(),
            dontcare: dontcare.clone(),
            lightness: vec![0; w * h].into(),
        };
        let (left, right) = (x0 as f64 + 5.0, x0 as f64 + 35.0);
        let (top, bottom) = (y0 as f64 + 5.0, y0 as f64 + 20.0);
        let square = [
            Point2::new(left, top),
            Point2::new(right, top),
            Point2::new(right, bottom),
            Point2::new(left, bottom),
        ];
        let before = overlap(&Prefix::new(&region), &square);
        hidden_unless_own(&mut region, &square);
        let after = overlap(&Prefix::new(&region), &square);
        assert!(
            before.off > 100.0,
            "the square leaks onto the table: {before:?}"
        );
        assert_eq!(after.off, 0.0, "{after:?}");
        assert_eq!((after.on, after.others), (before.on, before.others));
        assert_eq!(region.target, target, "the region's own pixels stay");
        for i in 0..w * h {
            let (x, y) = ((x0 + i % w) as f64, (y0 + i / w) as f64);
            let under = (left..=right).contains(&x) && (top..=bottom).contains(&y);
            let table = target[i] == 0 && dontcare[i] == 0;
            let expected = if table && under {
                EXPLAINED
            } else {
                dontcare[i]
            };
            assert_eq!(region.dontcare[i], expected, "pixel ({x}, {y})");
        }
    }

    /// A region with a blob left to explain, part of it explained already and another piece
    /// beside it: how many pixels are left and where their centre lies, and what a square
    /// silhouette over it counts, each checked against a count pixel by pixel.
    #[test]
    fn a_regions_counts_are_its_pixels_counted_one_by_one() {
        let (w, h) = (70, 40);
        let (x0, y0) = (300, 200);
        let target: Vec<u8> = (0..w * h)
            .map(|i| {
                let (x, y) = (i % w, i / w);
                u8::from((x as i64 - 20).pow(2) + (y as i64 - 25).pow(2) < 120 && x < 27)
            })
            .collect();
        let dontcare: Vec<u8> = (0..w * h)
            .map(|i| match (i % w, i / w) {
                (x, _) if x >= 50 => OTHER,
                (x, y) if (27..32).contains(&x) && y < 30 => EXPLAINED,
                _ => 0,
            })
            .collect();
        let region = Region {
            color: Color::Blue,
            x0,
            y0,
            w,
            h,
            target: target.clone(),
            dontcare: dontcare.clone(),
            lightness: vec![0; w * h].into(),
        };
        let inside: Vec<(usize, usize)> = (0..w * h)
            .filter(|&i| target[i] == 1)
            .map(|i| (x0 + i % w, y0 + i / w))
            .collect();
        assert!(inside.len() > 200, "the blob is a blob");
        assert_eq!(region.target_px(), inside.len() as f64);
        let n = inside.len() as f64;
        let mean = |f: fn(&(usize, usize)) -> usize| inside.iter().map(f).sum::<usize>() as f64 / n;
        let centre = region.target_centre().expect("pixels are left");
        assert!((centre.x - mean(|p| p.0)).abs() < 1e-9, "{centre}");
        assert!((centre.y - mean(|p| p.1)).abs() < 1e-9, "{centre}");
        // A square from the blob's middle across the explained strip onto the other piece,
        // reaching above the region's box: every pixel of it is on, off, or over something.
        let (sx0, sy0, sx1, sy1) = (x0 + 10, y0 - 5, x0 + 60, y0 + 30);
        let square = [
            Point2::new(sx0 as f64, sy0 as f64),
            Point2::new(sx1 as f64, sy0 as f64),
            Point2::new(sx1 as f64, sy1 as f64),
            Point2::new(sx0 as f64, sy1 as f64),
        ];
        let inside_square = |mask: &[u8]| {
            (sy0..=sy1)
                .flat_map(|y| (sx0..=sx1).map(move |x| (x, y)))
                .filter(|&(x, y)| {
                    (y0..y0 + h).contains(&y)
                        && (x0..x0 + w).contains(&x)
                        && mask[(y - y0) * w + (x - x0)] == 1
                })
                .count()
        };
        let o = overlap(&Prefix::new(&region), &square);
        let (mut on, mut off, mut care, mut others) = (0, 0, 0, 0);
        for y in sy0..=sy1 {
            for x in sx0..=sx1 {
                let in_box = (y0..y0 + h).contains(&y) && (x0..x0 + w).contains(&x);
                let i = if in_box {
                    (y - y0) * w + (x - x0)
                } else {
                    usize::MAX
                };
                match (in_box, target.get(i), dontcare.get(i)) {
                    (true, Some(1), _) => on += 1,
                    (true, _, Some(&d)) if d != 0 => {
                        care += 1;
                        others += usize::from(d == OTHER);
                    }
                    _ => off += 1,
                }
            }
        }
        assert!(
            on > 0 && off > 0 && others > 0 && care > others,
            "each count tested"
        );
        assert_eq!(
            (o.on, o.off, o.care, o.others),
            (on as f64, off as f64, care as f64, others as f64)
        );
        // Two silhouettes, as a base and the piece on it: a tilted square over the blob and a
        // triangle that overlaps it on some rows and lies apart from it on others. Their
        // union's pixels, each counted once.
        let base = [
            Point2::new((x0 + 5) as f64, (y0 + 20) as f64),
            Point2::new((x0 + 25) as f64, (y0 + 8) as f64),
            Point2::new((x0 + 37) as f64, (y0 + 28) as f64),
            Point2::new((x0 + 17) as f64, (y0 + 40) as f64),
        ];
        let top = [
            Point2::new((x0 + 12) as f64 + 0.5, (y0 + 16) as f64),
            Point2::new((x0 + 58) as f64, (y0 + 2) as f64 + 0.3),
            Point2::new((x0 + 50) as f64 + 0.2, (y0 + 30) as f64),
        ];
        let mut union = std::collections::BTreeSet::new();
        for polygon in [&base[..], &top[..]] {
            for_each_run(polygon, |y, xa, xb| union.extend((xa..=xb).map(|x| (x, y))));
        }
        let o = overlap_union(&Prefix::new(&region), [&base, &top]);
        let (mut on, mut off, mut care, mut others) = (0, 0, 0, 0);
        for &(x, y) in &union {
            let (rx, ry) = (x - x0 as i64, y - y0 as i64);
            let i = (rx >= 0 && ry >= 0 && rx < w as i64 && ry < h as i64)
                .then(|| ry as usize * w + rx as usize);
            match i.map(|i| (target[i], dontcare[i])) {
                Some((1, _)) => on += 1,
                Some((_, d)) if d != 0 => {
                    care += 1;
                    others += usize::from(d == OTHER);
                }
                _ => off += 1,
            }
        }
        let single =
            overlap(&Prefix::new(&region), &base).on + overlap(&Prefix::new(&region), &top).on;
        assert!(
            single > on as f64 && on > 0 && others > 0,
            "the two overlap on the blob"
        );
        assert_eq!(
            (o.on, o.off, o.care, o.others),
            (on as f64, off as f64, care as f64, others as f64)
        );
        // The blob alone in its box (nothing else there, so the sums cover only the blob's
        // own box): the square still counts each of its pixels once, on the blob or off it;
        // and a region with nothing left counts every pixel off.
        let alone = Region {
            dontcare: vec![0; w * h],
            ..region.clone()
        };
        let o = overlap(&Prefix::new(&alone), &square);
        let inside = (sy1 - sy0 + 1) * (sx1 - sx0 + 1);
        let on_blob = inside_square(&target);
        assert!(on_blob > 0 && on_blob < inside);
        assert_eq!(
            (o.on, o.off, o.care),
            (on_blob as f64, (inside - on_blob) as f64, 0.0)
        );
        let empty = Region {
            target: vec![0; w * h],
            ..alone.clone()
        };
        let o = overlap(&Prefix::new(&empty), &square);
        assert_eq!((o.on, o.off, o.care), (0.0, inside as f64, 0.0));
    }

    #[test]
    fn a_seam_is_a_run_of_table_at_most_two_pixels_wide_between_foreground() {
        let classes_of = |row: &str| -> Vec<u8> {
            row.bytes()
                .map(|c| match c {
                    b'.' => TABLE,
                    b'?' => crate::segment::UNKNOWN,
                    b'b' => 2,
                    _ => 3,
                })
                .collect()
        };
        // Each row alone (one pixel high): which of its table pixels are seams.
        let seams = |row: &str| -> String {
            let classes = classes_of(row);
            (0..classes.len())
                .map(|x| {
                    let seam = classes[x] == TABLE && in_seam(&classes, (classes.len(), 1), x, 0);
                    if seam { 's' } else { row.as_bytes()[x] as char }
                })
                .collect()
        };
        // Between any two faces, one or two pixels are a seam; three are a gap, and table at
        // the frame's edge is table.
        assert_eq!(seams("bb.yy"), "bbsyy");
        assert_eq!(seams("bb..yy"), "bbssyy");
        assert_eq!(seams("??..bb"), "??ssbb");
        assert_eq!(seams("bb.bb"), "bbsbb");
        assert_eq!(seams("bb...yy"), "bb...yy");
        assert_eq!(seams(".bb."), ".bb.");
        // A column works as a row does.
        let column = classes_of("b.y");
        assert!(in_seam(&column, (1, 3), 0, 1));
        assert!(!in_seam(&classes_of("b...y"), (1, 5), 0, 1));
    }
}
