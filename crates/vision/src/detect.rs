//! Finding pieces in one calibrated frame: colour segmentation against the local table colour,
//! then, per coloured region, a greedy fit of pyramid silhouettes (size, resting pose, position,
//! yaw) that explains the region's pixels.

use koanscope_geometry::{PieceModels, PyramidDims};
use koanscope_scene::{Color, Size};
use nalgebra::{Isometry3, Point2, Point3};
use opencv::core::{self, Mat, Size as CvSize};
use opencv::imgproc;
use opencv::prelude::*;

use crate::camera::Camera;
use crate::color::{ColorModel, PixelClass};
use crate::error::{CvContext, VisionError};
use crate::pose::{Resting, centroid_piece, resting_pose, row_span, silhouette};

/// Tuning of the search; defaults suit 640-1920 px wide frames of a table 0.3-1 m away.
#[derive(Debug, Clone, PartialEq)]
pub struct DetectParams {
    /// Regions smaller than this many pixels are noise.
    pub min_region_px: usize,
    /// A fitted silhouette must lie on its region for at least this share of its pixels.
    pub min_precision: f64,
    /// Pixels of silhouette off the region cost this many pixels on it.
    pub leak_weight: f64,
    /// At most this many pieces are fitted to one region.
    pub max_pieces_per_region: usize,
    /// A further piece in a region must rest on unexplained pixels for this share of its
    /// silhouette, so fringes left around a fitted piece do not become pieces.
    pub min_new_support: f64,
}

impl Default for DetectParams {
    fn default() -> Self {
        DetectParams {
            min_region_px: 40,
            min_precision: 0.6,
            leak_weight: 2.0,
            max_pieces_per_region: 6,
            min_new_support: 0.4,
        }
    }
}

/// One piece found in the image.
#[derive(Debug, Clone)]
pub struct Detection {
    pub color: Color,
    pub size: Size,
    pub resting: Resting,
    pub table_from_piece: Isometry3<f64>,
    /// Projection of the solid's centroid, pixels.
    pub image_xy: Point2<f64>,
    /// Share of the fitted silhouette that lies on pixels of the piece's colour (or on pieces
    /// in front of it), in [0, 1].
    pub confidence: f64,
    /// The fitted silhouette, for overlays.
    pub outline_px: Vec<Point2<f64>>,
}

/// What the colour model made of every pixel, and the local table colour.
pub struct Segmentation {
    pub width: usize,
    pub height: usize,
    /// Per pixel: 0 table, 1 unknown foreground, 2 + i the palette's colour i.
    pub classes: Vec<u8>,
    pub palette: Vec<Color>,
    /// The frame in 8-bit Lab, row-major, 3 bytes a pixel.
    pub lab: Vec<u8>,
}

const TABLE: u8 = 0;
const UNKNOWN: u8 = 1;

/// Classifies every pixel of a BGR frame with the colour model.
pub fn segment(image: &Mat, model: &ColorModel) -> Result<Segmentation, VisionError> {
    let mut lab = Mat::default();
    imgproc::cvt_color_def(image, &mut lab, imgproc::COLOR_BGR2Lab).during("converting to Lab")?;
    let (w, h) = (lab.cols(), lab.rows());
    // The table's colour around each pixel: a median at quarter resolution keeps it cheap.
    let small_size = CvSize::new((w / 4).max(1), (h / 4).max(1));
    let mut small = Mat::default();
    imgproc::resize(&lab, &mut small, small_size, 0.0, 0.0, imgproc::INTER_AREA)
        .during("shrinking the frame")?;
    let k = ((model.background_window_px / 4) | 1).max(3) as i32;
    let mut small_median = Mat::default();
    imgproc::median_blur(&small, &mut small_median, k).during("estimating the table colour")?;
    let mut table = Mat::default();
    imgproc::resize(
        &small_median,
        &mut table,
        CvSize::new(w, h),
        0.0,
        0.0,
        imgproc::INTER_LINEAR,
    )
    .during("estimating the table colour")?;
    let lab_bytes = continuous_bytes(&lab)?;
    let table_bytes = continuous_bytes(&table)?;
    let palette = model.palette();
    let classes = lab_bytes
        .chunks_exact(3)
        .zip(table_bytes.chunks_exact(3))
        .map(
            |(p, t)| match model.classify([p[0], p[1], p[2]], [t[0], t[1], t[2]]) {
                PixelClass::Table => TABLE,
                PixelClass::Unknown => UNKNOWN,
                PixelClass::Piece(color) => palette
                    .iter()
                    .position(|c| *c == color)
                    .map_or(UNKNOWN, |i| 2 + i as u8),
            },
        )
        .collect();
    Ok(Segmentation {
        width: w.max(0) as usize,
        height: h.max(0) as usize,
        classes,
        palette,
        lab: lab_bytes,
    })
}

fn continuous_bytes(mat: &Mat) -> Result<Vec<u8>, VisionError> {
    let owned;
    let mat = if mat.is_continuous() {
        mat
    } else {
        owned = mat.try_clone().during("copying a frame")?;
        &owned
    };
    Ok(mat.data_bytes().during("reading a frame")?.to_vec())
}

/// A connected region of one colour, as pixel lists in its bounding box.
struct Region {
    color: Color,
    x0: usize,
    y0: usize,
    w: usize,
    h: usize,
    /// 1 where the pixel belongs to the region.
    target: Vec<u8>,
    /// 1 where another piece (any other foreground) may hide this one: neither reward nor cost.
    dontcare: Vec<u8>,
}

/// Connected regions of each colour, after removing speckle.
fn regions(
    seg: &Segmentation,
    params: &DetectParams,
    margin: usize,
) -> Result<Vec<Region>, VisionError> {
    let (w, h) = (seg.width, seg.height);
    let mut out = Vec::new();
    let kernel = imgproc::get_structuring_element(
        imgproc::MORPH_ELLIPSE,
        CvSize::new(3, 3),
        core::Point::new(-1, -1),
    )
    .during("building a kernel")?;
    for (i, color) in seg.palette.iter().enumerate() {
        let class = 2 + i as u8;
        let bytes: Vec<u8> = seg
            .classes
            .iter()
            .map(|c| if *c == class { 255 } else { 0 })
            .collect();
        let mask = Mat::new_rows_cols_with_data(h as i32, w as i32, &bytes)
            .during("building a mask")?
            .try_clone()
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
        let mut labels = Mat::default();
        let mut stats = Mat::default();
        let mut centroids = Mat::default();
        let count = imgproc::connected_components_with_stats(
            &opened,
            &mut labels,
            &mut stats,
            &mut centroids,
            8,
            core::CV_32S,
        )
        .during("finding regions")?;
        let labels_vec: Vec<i32> = {
            let l = if labels.is_continuous() {
                labels
            } else {
                labels.try_clone().during("copy")?
            };
            l.data_typed::<i32>().during("reading labels")?.to_vec()
        };
        for label in 1..count {
            let stat = |k: i32| -> Result<usize, VisionError> {
                Ok((*stats
                    .at_2d::<i32>(label, k)
                    .during("reading region stats")?)
                .max(0) as usize)
            };
            let area = stat(imgproc::CC_STAT_AREA)?;
            if area < params.min_region_px {
                continue;
            }
            let (bx, by, bw, bh) = (
                stat(imgproc::CC_STAT_LEFT)?,
                stat(imgproc::CC_STAT_TOP)?,
                stat(imgproc::CC_STAT_WIDTH)?,
                stat(imgproc::CC_STAT_HEIGHT)?,
            );
            let x0 = bx.saturating_sub(margin);
            let y0 = by.saturating_sub(margin);
            let x1 = (bx + bw + margin).min(w);
            let y1 = (by + bh + margin).min(h);
            let (rw, rh) = (x1 - x0, y1 - y0);
            let mut target = vec![0u8; rw * rh];
            let mut dontcare = vec![0u8; rw * rh];
            for y in 0..rh {
                for x in 0..rw {
                    let idx = (y0 + y) * w + (x0 + x);
                    if labels_vec[idx] == label {
                        target[y * rw + x] = 1;
                    } else if seg.classes[idx] != TABLE {
                        dontcare[y * rw + x] = 1;
                    }
                }
            }
            out.push(Region {
                color: *color,
                x0,
                y0,
                w: rw,
                h: rh,
                target,
                dontcare,
            });
        }
    }
    Ok(out)
}

/// Row prefix sums of a region's masks, so a silhouette scores in time proportional to its height.
struct Prefix {
    w: usize,
    target: Vec<u32>,
    dontcare: Vec<u32>,
}

impl Prefix {
    fn new(region: &Region) -> Prefix {
        let w = region.w;
        let mut target = vec![0u32; (w + 1) * region.h];
        let mut dontcare = vec![0u32; (w + 1) * region.h];
        for y in 0..region.h {
            for x in 0..w {
                let i = y * w + x;
                let p = y * (w + 1) + x;
                target[p + 1] = target[p] + u32::from(region.target[i]);
                dontcare[p + 1] = dontcare[p] + u32::from(region.dontcare[i]);
            }
        }
        Prefix {
            w,
            target,
            dontcare,
        }
    }
}

/// Pixels of a silhouette on the region, and off it (on the table).
#[derive(Debug, Clone, Copy, Default)]
struct Overlap {
    on: f64,
    off: f64,
    /// Pixels over other pieces or over pixels already explained.
    care: f64,
}

fn overlap(region: &Region, prefix: &Prefix, polygon_px: &[Point2<f64>]) -> Overlap {
    let (mut ymin, mut ymax) = (f64::INFINITY, f64::NEG_INFINITY);
    for p in polygon_px {
        ymin = ymin.min(p.y);
        ymax = ymax.max(p.y);
    }
    let mut result = Overlap::default();
    let (ox, oy) = (region.x0 as f64, region.y0 as f64);
    let (first, last) = (ymin.ceil() as i64, ymax.floor() as i64);
    for y in first..=last {
        let Some((lo, hi)) = row_span(polygon_px, y as f64) else {
            continue;
        };
        let (xa, xb) = (lo.ceil() as i64, hi.floor() as i64);
        if xb < xa {
            continue;
        }
        let total = (xb - xa + 1) as f64;
        let ry = y - oy as i64;
        if ry < 0 || ry >= region.h as i64 {
            result.off += total;
            continue;
        }
        let ca = (xa - ox as i64).clamp(0, region.w as i64) as usize;
        let cb = (xb - ox as i64 + 1).clamp(0, region.w as i64) as usize;
        let row = ry as usize * (prefix.w + 1);
        let on = f64::from(prefix.target[row + cb] - prefix.target[row + ca]);
        let care = f64::from(prefix.dontcare[row + cb] - prefix.dontcare[row + ca]);
        result.on += on;
        result.care += care;
        result.off += total - on - care;
    }
    result
}

/// A hypothesis: which piece, resting how, where.
#[derive(Debug, Clone, Copy)]
struct Hypothesis {
    size: Size,
    resting: Resting,
    x: f64,
    y: f64,
    yaw: f64,
}

/// Finds pieces in frames from one calibrated camera.
pub struct Detector {
    pub colors: ColorModel,
    pub pieces: PieceModels,
    pub params: DetectParams,
}

impl Detector {
    pub fn new(colors: ColorModel) -> Detector {
        Detector {
            colors,
            pieces: PieceModels::default(),
            params: DetectParams::default(),
        }
    }

    /// Every piece the frame shows, strongest first within each region.
    pub fn detect(&self, image: &Mat, camera: &Camera) -> Result<Vec<Detection>, VisionError> {
        let seg = segment(image, &self.colors)?;
        self.detect_in(&seg, camera)
    }

    /// Like [`Detector::detect`], from a segmentation already made.
    pub fn detect_in(
        &self,
        seg: &Segmentation,
        camera: &Camera,
    ) -> Result<Vec<Detection>, VisionError> {
        let mut detections = Vec::new();
        for mut region in regions(seg, &self.params, 40)? {
            for _ in 0..self.params.max_pieces_per_region {
                let remaining: usize = region.target.iter().map(|v| usize::from(*v)).sum();
                if remaining < self.params.min_region_px {
                    break;
                }
                let Some(found) = self.fit_one(&region, camera) else {
                    break;
                };
                explain(&mut region, &found.outline_px);
                open_residual(&mut region);
                detections.push(found);
            }
        }
        Ok(detections)
    }

    fn dims(&self, size: Size) -> PyramidDims {
        self.pieces.dims(size)
    }

    fn outline(
        &self,
        camera: &Camera,
        h: &Hypothesis,
    ) -> Option<(Isometry3<f64>, Vec<Point2<f64>>)> {
        let dims = self.dims(h.size);
        let pose = resting_pose(&dims, h.resting, h.x, h.y, h.yaw);
        let outline = silhouette(camera, &dims, &pose)?;
        Some((pose, outline))
    }

    fn score(
        &self,
        region: &Region,
        prefix: &Prefix,
        camera: &Camera,
        h: &Hypothesis,
    ) -> (f64, Overlap) {
        match self.outline(camera, h) {
            Some((_, outline)) => {
                let o = overlap(region, prefix, &outline);
                (o.on - self.params.leak_weight * o.off, o)
            }
            None => (f64::NEG_INFINITY, Overlap::default()),
        }
    }

    /// The best single piece for what is left of a region, if it explains enough of it.
    fn fit_one(&self, region: &Region, camera: &Camera) -> Option<Detection> {
        let prefix = Prefix::new(region);
        let (mut sx, mut sy, mut n) = (0.0, 0.0, 0.0);
        for y in 0..region.h {
            for x in 0..region.w {
                if region.target[y * region.w + x] == 1 {
                    sx += (region.x0 + x) as f64;
                    sy += (region.y0 + y) as f64;
                    n += 1.0;
                }
            }
        }
        if n == 0.0 {
            return None;
        }
        let centre_px = Point2::new(sx / n, sy / n);
        let mut best: Option<(f64, Hypothesis)> = None;
        for size in [Size::Small, Size::Medium, Size::Large] {
            let dims = self.dims(size);
            for resting in [Resting::Upright, Resting::Flat] {
                let centroid_height =
                    (resting_pose(&dims, resting, 0.0, 0.0, 0.0) * centroid_piece(&dims)).z;
                let at = camera.pixel_to_table_plane(&centre_px, centroid_height)?;
                let (period, steps) = match resting {
                    Resting::Upright => (std::f64::consts::FRAC_PI_2, 12),
                    Resting::Flat => (std::f64::consts::TAU, 24),
                };
                let mut seeds: Vec<(f64, Hypothesis)> = (0..steps)
                    .map(|i| {
                        let h = Hypothesis {
                            size,
                            resting,
                            x: at.x,
                            y: at.y,
                            yaw: period * f64::from(i) / f64::from(steps),
                        };
                        (self.score(region, &prefix, camera, &h).0, h)
                    })
                    .collect();
                seeds.sort_by(|a, b| b.0.total_cmp(&a.0));
                for (_, seed) in seeds.into_iter().take(3) {
                    let refined = self.refine(region, &prefix, camera, seed);
                    if best.as_ref().is_none_or(|(s, _)| refined.0 > *s) {
                        best = Some(refined);
                    }
                }
            }
        }
        let (_, h) = best?;
        let (_, o) = self.score(region, &prefix, camera, &h);
        let precision = o.on / (o.on + o.off).max(1.0);
        let support = o.on / (o.on + o.off + o.care).max(1.0);
        if precision < self.params.min_precision
            || o.on < self.params.min_region_px as f64
            || support < self.params.min_new_support
        {
            return None;
        }
        let (pose, outline) = self.outline(camera, &h)?;
        let dims = self.dims(h.size);
        let image_xy = camera.project_table(&(pose * centroid_piece(&dims)))?;
        Some(Detection {
            color: region.color,
            size: h.size,
            resting: h.resting,
            table_from_piece: pose,
            image_xy,
            confidence: precision.clamp(0.0, 1.0),
            outline_px: outline,
        })
    }

    /// Pattern search over position and yaw, halving the steps until they are fine.
    fn refine(
        &self,
        region: &Region,
        prefix: &Prefix,
        camera: &Camera,
        start: Hypothesis,
    ) -> (f64, Hypothesis) {
        let mut current = start;
        let mut current_score = self.score(region, prefix, camera, &current).0;
        let (mut step_mm, mut step_yaw) = (4.0, 8f64.to_radians());
        while step_mm > 0.15 {
            let mut improved = false;
            for (dx, dy, dyaw) in [
                (1.0, 0.0, 0.0),
                (-1.0, 0.0, 0.0),
                (0.0, 1.0, 0.0),
                (0.0, -1.0, 0.0),
                (0.0, 0.0, 1.0),
                (0.0, 0.0, -1.0),
            ] {
                let candidate = Hypothesis {
                    x: current.x + dx * step_mm,
                    y: current.y + dy * step_mm,
                    yaw: current.yaw + dyaw * step_yaw,
                    ..current
                };
                let s = self.score(region, prefix, camera, &candidate).0;
                if s > current_score {
                    current = candidate;
                    current_score = s;
                    improved = true;
                }
            }
            if !improved {
                step_mm /= 2.0;
                step_yaw /= 2.0;
            }
        }
        (current_score, current)
    }
}

/// Marks the pixels under a fitted silhouette as explained: later pieces may overlap them freely.
fn explain(region: &mut Region, outline_px: &[Point2<f64>]) {
    for ry in 0..region.h {
        let y = (region.y0 + ry) as f64;
        let Some((lo, hi)) = row_span(outline_px, y) else {
            continue;
        };
        let xa = (lo.ceil() - region.x0 as f64).max(0.0) as usize;
        let xb = ((hi.floor() - region.x0 as f64 + 1.0).max(0.0) as usize).min(region.w);
        for x in xa..xb {
            let i = ry * region.w + x;
            if region.target[i] == 1 {
                region.target[i] = 0;
                region.dontcare[i] = 1;
            }
        }
    }
}

/// Removes what is left of a region in strips narrower than 5 pixels (a morphological opening):
/// the blurred rim around a fitted piece, not another piece.
fn open_residual(region: &mut Region) {
    let (w, h) = (region.w, region.h);
    let get = |m: &[u8], x: i64, y: i64| -> u8 {
        if x < 0 || y < 0 || x >= w as i64 || y >= h as i64 {
            0
        } else {
            m[y as usize * w + x as usize]
        }
    };
    let mut eroded = vec![0u8; w * h];
    for y in 0..h as i64 {
        for x in 0..w as i64 {
            let all =
                (-2..=2).all(|dy| (-2..=2).all(|dx| get(&region.target, x + dx, y + dy) == 1));
            eroded[y as usize * w + x as usize] = u8::from(all);
        }
    }
    for y in 0..h as i64 {
        for x in 0..w as i64 {
            let i = y as usize * w + x as usize;
            if region.target[i] == 1 {
                let any = (-2..=2).any(|dy| (-2..=2).any(|dx| get(&eroded, x + dx, y + dy) == 1));
                if !any {
                    region.target[i] = 0;
                    region.dontcare[i] = 1;
                }
            }
        }
    }
}

/// The table point under a pixel at a height, for callers that have only pixels.
pub fn table_point(camera: &Camera, pixel: Point2<f64>, height_mm: f64) -> Option<Point3<f64>> {
    camera.pixel_to_table_plane(&pixel, height_mm)
}
