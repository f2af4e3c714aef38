//! Finding pieces in one calibrated frame: colour segmentation against the local table colour,
//! then, per coloured region, a greedy fit of pyramid silhouettes (size, resting pose, position,
//! yaw) that explains the region's pixels.

use koanscope_geometry::{PieceModels, PyramidDims};
use koanscope_scene::{Color, Size};
use nalgebra::{Isometry3, Point2, Point3, Translation3};
use opencv::core::{self, Mat, Size as CvSize};
use opencv::imgproc;
use opencv::prelude::*;

use crate::camera::Camera;
use crate::color::{ColorModel, PixelClass, circular_mean_deg, hue_and_chroma};
use crate::error::{CvContext, VisionError};
use crate::pose::{
    Resting, cavity_apex_depth, centroid_piece, flat_tilt, pose_on_table, pose_upright_at,
    row_span, silhouette, vertices_piece,
};

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
    /// Explaining a region with leaning or upside-down pieces must beat explaining it with
    /// upright, flat and stacked ones by this share of the region's pixels.
    pub tilted_margin: f64,
    /// The first piece of a region is chosen among this many candidates by how well the whole
    /// region is then explained.
    pub first_choices: usize,
    /// A piece sharing a region with others must own (alone cover) at least this share of
    /// the region's pixels under it.
    pub min_own_share: f64,
}

impl Default for DetectParams {
    fn default() -> Self {
        DetectParams {
            min_region_px: 40,
            min_precision: 0.6,
            leak_weight: 2.0,
            max_pieces_per_region: 6,
            min_new_support: 0.4,
            tilted_margin: 0.05,
            first_choices: 3,
            min_own_share: 0.25,
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
    /// In [0, 1]: the share of the fitted silhouette on pixels of the piece's colour (or on
    /// pieces in front of it), lowered when another size or pose fitted nearly as well.
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
#[derive(Clone)]
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

impl Region {
    /// Mean pixel of what is left to explain.
    fn target_centre(&self) -> Option<Point2<f64>> {
        let (mut sx, mut sy, mut n) = (0.0, 0.0, 0.0);
        for y in 0..self.h {
            for x in 0..self.w {
                if self.target[y * self.w + x] == 1 {
                    sx += (self.x0 + x) as f64;
                    sy += (self.y0 + y) as f64;
                    n += 1.0;
                }
            }
        }
        (n > 0.0).then(|| Point2::new(sx / n, sy / n))
    }

    /// Whether a table point projects inside the region's box, grown by `margin_px`.
    fn holds(&self, camera: &Camera, point: &Point3<f64>, margin_px: f64) -> bool {
        camera.project_table(point).is_some_and(|p| {
            p.x >= self.x0 as f64 - margin_px
                && p.y >= self.y0 as f64 - margin_px
                && p.x <= (self.x0 + self.w) as f64 + margin_px
                && p.y <= (self.y0 + self.h) as f64 + margin_px
        })
    }
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

/// Like [`overlap`] for the union of several convex silhouettes.
fn overlap_union(region: &Region, prefix: &Prefix, polygons: &[Vec<Point2<f64>>]) -> Overlap {
    let (mut ymin, mut ymax) = (f64::INFINITY, f64::NEG_INFINITY);
    for p in polygons.iter().flatten() {
        ymin = ymin.min(p.y);
        ymax = ymax.max(p.y);
    }
    let mut result = Overlap::default();
    let (ox, oy) = (region.x0 as i64, region.y0 as i64);
    for y in (ymin.ceil() as i64)..=(ymax.floor() as i64) {
        let mut spans: Vec<(i64, i64)> = polygons
            .iter()
            .filter_map(|poly| row_span(poly, y as f64))
            .map(|(lo, hi)| (lo.ceil() as i64, hi.floor() as i64))
            .filter(|(a, b)| b >= a)
            .collect();
        spans.sort_unstable();
        let mut merged: Vec<(i64, i64)> = Vec::new();
        for (a, b) in spans {
            match merged.last_mut() {
                Some(last) if a <= last.1 + 1 => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        let ry = y - oy;
        for (xa, xb) in merged {
            let total = (xb - xa + 1) as f64;
            if ry < 0 || ry >= region.h as i64 {
                result.off += total;
                continue;
            }
            let ca = (xa - ox).clamp(0, region.w as i64) as usize;
            let cb = (xb - ox + 1).clamp(0, region.w as i64) as usize;
            let row = ry as usize * (prefix.w + 1);
            let on = f64::from(prefix.target[row + cb] - prefix.target[row + ca]);
            let care = f64::from(prefix.dontcare[row + cb] - prefix.dontcare[row + ca]);
            result.on += on;
            result.care += care;
            result.off += total - on - care;
        }
    }
    result
}

/// A hypothesis: which piece, resting how, where.
#[derive(Debug, Clone, Copy)]
struct Hypothesis {
    size: Size,
    resting: Resting,
    /// On the table: the solid's centroid; stacked: the base centre (table frame, mm).
    x: f64,
    y: f64,
    yaw: f64,
    /// Tip about a base edge (on the table only), radians.
    tilt: f64,
    /// Height of the base centre (stacked only), mm.
    lift: f64,
}

/// Which parameters a refinement may move.
#[derive(Debug, Clone, Copy)]
struct Freedom {
    first_step_mm: f64,
    tilt: bool,
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
    ///
    /// Two passes: the first finds pieces standing on the table; the second fits again the
    /// regions that hold the apex of an upright piece found elsewhere, now also trying pieces
    /// stacked on that apex (towers of different colours).
    pub fn detect_in(
        &self,
        seg: &Segmentation,
        camera: &Camera,
    ) -> Result<Vec<Detection>, VisionError> {
        let regions = regions(seg, &self.params, 40)?;
        let mut per_region: Vec<Vec<Detection>> = regions
            .iter()
            .map(|r| self.explain_region(r.clone(), camera, &[]))
            .collect();
        // Towers of three colours need the middle piece before the top one: two more passes.
        let mut refitted_with: Vec<Vec<Point3<f64>>> = vec![Vec::new(); regions.len()];
        for _ in 0..2 {
            let apexes: Vec<(usize, Point3<f64>)> = per_region
                .iter()
                .enumerate()
                .flat_map(|(i, found)| {
                    found
                        .iter()
                        .filter(|d| matches!(d.resting, Resting::Upright | Resting::Stacked))
                        .map(move |d| (i, apex_of(d, &self.pieces)))
                })
                .collect();
            let mut changed = false;
            for (i, region) in regions.iter().enumerate() {
                let supports: Vec<Point3<f64>> = apexes
                    .iter()
                    .filter(|(j, apex)| *j != i && region.holds(camera, apex, 15.0))
                    .map(|(_, apex)| *apex)
                    .collect();
                let same = supports.len() == refitted_with[i].len()
                    && supports
                        .iter()
                        .zip(&refitted_with[i])
                        .all(|(a, b)| (a - b).norm() < 0.5);
                if !supports.is_empty() && !same {
                    per_region[i] = self.explain_region(region.clone(), camera, &supports);
                    refitted_with[i] = supports;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        Ok(per_region.into_iter().flatten().collect())
    }

    /// Explains a region with the usual poses (upright, flat, stacked) and again allowing
    /// leaning and upside-down pieces; the second wins only if it explains the whole region
    /// clearly better, since a tilted pyramid can cover two touching pieces at once.
    fn explain_region(
        &self,
        region: Region,
        camera: &Camera,
        supports: &[Point3<f64>],
    ) -> Vec<Detection> {
        let (usual, usual_score) =
            self.explain_region_with(region.clone(), camera, supports, false);
        let area = region.target.iter().map(|v| f64::from(*v)).sum::<f64>();
        // No tilted explanation (at best every pixel, less one piece's price) could win.
        let best_possible = area - self.params.min_region_px as f64;
        if usual_score + self.params.tilted_margin * area >= best_possible {
            return self.polish(&region, camera, supports, false, usual);
        }
        let (tilted, tilted_score) =
            self.explain_region_with(region.clone(), camera, supports, true);
        if tilted_score > usual_score + self.params.tilted_margin * area {
            self.polish(&region, camera, supports, true, tilted)
        } else {
            self.polish(&region, camera, supports, false, usual)
        }
    }

    /// Fits each piece of a region again with the others in place (the greedy order fitted the
    /// first ones against pixels that belong to later ones), then drops pieces that explain
    /// too little on their own.
    fn polish(
        &self,
        region: &Region,
        camera: &Camera,
        supports: &[Point3<f64>],
        allow_tilted: bool,
        mut pieces: Vec<Detection>,
    ) -> Vec<Detection> {
        if pieces.len() < 2 {
            return pieces;
        }
        let others_explained = |pieces: &[Detection], i: usize| {
            let mut alone = region.clone();
            for (j, other) in pieces.iter().enumerate() {
                if j != i {
                    explain(&mut alone, &other.outline_px);
                }
            }
            alone
        };
        for i in 0..pieces.len() {
            let alone = others_explained(&pieces, i);
            let mut all_supports = supports.to_vec();
            all_supports.extend(
                pieces
                    .iter()
                    .enumerate()
                    .filter(|(j, d)| {
                        *j != i && matches!(d.resting, Resting::Upright | Resting::Stacked)
                    })
                    .map(|(_, d)| apex_of(d, &self.pieces)),
            );
            if let Some((better, _)) = self
                .fit_candidates(&alone, camera, &all_supports, allow_tilted, 1)
                .into_iter()
                .next()
            {
                pieces[i] = better;
            }
        }
        // Drop, one at a time, pieces whose own pixels (under no other piece) are too few.
        loop {
            let worst = (0..pieces.len())
                .map(|i| {
                    let alone = others_explained(&pieces, i);
                    let own = covered(&alone, &pieces[i].outline_px);
                    let all = covered(region, &pieces[i].outline_px);
                    (i, own, all)
                })
                .filter(|(_, own, all)| {
                    *own < self.params.min_region_px as f64
                        || *own < self.params.min_own_share * all
                })
                .min_by(|a, b| (a.1 / a.2.max(1.0)).total_cmp(&(b.1 / b.2.max(1.0))));
            match worst {
                Some((i, _, _)) if pieces.len() > 1 => {
                    pieces.remove(i);
                }
                _ => break,
            }
        }
        pieces
    }

    /// Fits pieces to a region one by one until what is left is too little; returns them and
    /// how well they explain the region (pixels covered, less leaks, unexplained pixels and a
    /// price per piece). The first piece is chosen among the `first_choices` best candidates by
    /// how well the whole explanation that follows from it scores: in a tower, the tallest
    /// single silhouette is often a wrong piece standing behind.
    fn explain_region_with(
        &self,
        region: Region,
        camera: &Camera,
        supports: &[Point3<f64>],
        allow_tilted: bool,
    ) -> (Vec<Detection>, f64) {
        self.greedy(
            region,
            camera,
            supports,
            allow_tilted,
            self.params.first_choices,
            self.params.max_pieces_per_region,
        )
    }

    fn greedy(
        &self,
        region: Region,
        camera: &Camera,
        supports: &[Point3<f64>],
        allow_tilted: bool,
        choices: usize,
        depth: usize,
    ) -> (Vec<Detection>, f64) {
        let remaining = region.target.iter().map(|v| f64::from(*v)).sum::<f64>();
        if depth == 0 || remaining < self.params.min_region_px as f64 {
            return (Vec::new(), -remaining);
        }
        let candidates = self.fit_candidates(&region, camera, supports, allow_tilted, choices);
        let mut best: Option<(Vec<Detection>, f64)> = None;
        for (piece, score) in candidates {
            let mut rest_region = region.clone();
            explain(&mut rest_region, &piece.outline_px);
            open_residual(&mut rest_region);
            let mut rest_supports = supports.to_vec();
            if matches!(piece.resting, Resting::Upright | Resting::Stacked) {
                // A piece of the same colour may stand on this one.
                rest_supports.push(apex_of(&piece, &self.pieces));
            }
            let (rest, rest_score) = self.greedy(
                rest_region,
                camera,
                &rest_supports,
                allow_tilted,
                1,
                depth - 1,
            );
            let total = score - self.params.min_region_px as f64 + rest_score;
            if best.as_ref().is_none_or(|(_, b)| total > *b) {
                let mut found = vec![piece];
                found.extend(rest);
                best = Some((found, total));
            }
            // One piece that explains the region all but perfectly leaves nothing to choose.
            let perfect = remaining - 2.0 * self.params.min_region_px as f64;
            if best
                .as_ref()
                .is_some_and(|(f, b)| f.len() == 1 && *b >= perfect)
            {
                break;
            }
        }
        best.unwrap_or((Vec::new(), -remaining))
    }

    fn dims(&self, size: Size) -> PyramidDims {
        self.pieces.dims(size)
    }

    fn pose(&self, h: &Hypothesis) -> Isometry3<f64> {
        let dims = self.dims(h.size);
        match h.resting {
            Resting::Stacked => pose_upright_at(&Point3::new(h.x, h.y, h.lift), h.yaw),
            Resting::Bridging => {
                let on_table = pose_on_table(&dims, h.tilt, h.x, h.y, h.yaw);
                Isometry3::from_parts(
                    Translation3::new(0.0, 0.0, h.lift) * on_table.translation,
                    on_table.rotation,
                )
            }
            _ => pose_on_table(&dims, h.tilt, h.x, h.y, h.yaw),
        }
    }

    fn outline(
        &self,
        camera: &Camera,
        h: &Hypothesis,
    ) -> Option<(Isometry3<f64>, Vec<Point2<f64>>)> {
        let pose = self.pose(h);
        let outline = silhouette(camera, &self.dims(h.size), &pose)?;
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

    /// Scores `steps` yaws of a hypothesis over `period` and refines the best `keep` of them.
    #[allow(clippy::too_many_arguments)]
    fn search_yaw(
        &self,
        region: &Region,
        prefix: &Prefix,
        camera: &Camera,
        start: Hypothesis,
        period: f64,
        steps: u32,
        keep: usize,
        freedom: Freedom,
    ) -> Option<(f64, Hypothesis)> {
        let mut seeds: Vec<(f64, Hypothesis)> = (0..steps)
            .map(|i| {
                let h = Hypothesis {
                    yaw: period * f64::from(i) / f64::from(steps),
                    ..start
                };
                (self.score(region, prefix, camera, &h).0, h)
            })
            .collect();
        seeds.sort_by(|a, b| b.0.total_cmp(&a.0));
        seeds
            .into_iter()
            .take(keep)
            .map(|(_, seed)| self.refine(region, prefix, camera, seed, freedom))
            .max_by(|a, b| a.0.total_cmp(&b.0))
    }

    /// The best `count` single pieces for what is left of a region (each the best of its size
    /// and resting family), among those that explain enough of it, best first.
    fn fit_candidates(
        &self,
        region: &Region,
        camera: &Camera,
        supports: &[Point3<f64>],
        allow_tilted: bool,
        count: usize,
    ) -> Vec<(Detection, f64)> {
        use std::f64::consts::{FRAC_PI_2, TAU};
        let prefix = Prefix::new(region);
        let Some(centre_px) = region.target_centre() else {
            return Vec::new();
        };
        let mut all: Vec<(f64, Hypothesis)> = Vec::new();
        let keep_better = |best: &mut Option<(f64, Hypothesis)>, c: Option<(f64, Hypothesis)>| {
            if let Some(c) = c
                && best.as_ref().is_none_or(|(s, _)| c.0 > *s)
            {
                *best = Some(c);
            }
        };
        let sizes = [Size::Small, Size::Medium, Size::Large];
        let free_xy = Freedom {
            first_step_mm: 4.0,
            tilt: false,
        };
        for size in sizes {
            let dims = self.dims(size);
            for (resting, tilt, period, steps) in [
                (Resting::Upright, 0.0, FRAC_PI_2, 12),
                (Resting::Flat, flat_tilt(&dims), TAU, 24),
            ] {
                let Some(start) = self.start_on_table(camera, &centre_px, size, resting, tilt)
                else {
                    continue;
                };
                let found =
                    self.search_yaw(region, &prefix, camera, start, period, steps, 3, free_xy);
                all.extend(found);
            }
            for apex in supports {
                let lift = apex.z - dims.height_mm + cavity_apex_depth(&dims, self.pieces.wall_mm);
                let start = Hypothesis {
                    size,
                    resting: Resting::Stacked,
                    x: apex.x,
                    y: apex.y,
                    yaw: 0.0,
                    tilt: 0.0,
                    lift: lift.max(0.0),
                };
                let nudge = Freedom {
                    first_step_mm: 1.0,
                    tilt: false,
                };
                let found =
                    self.search_yaw(region, &prefix, camera, start, FRAC_PI_2, 12, 2, nudge);
                all.extend(found);
            }
            // Lying on a side across two apexes (a bridge); posts may differ by about one size.
            for (i, a) in supports.iter().enumerate() {
                for b in &supports[i + 1..] {
                    let span = (a.xy() - b.xy()).norm();
                    if (a.z - b.z).abs() > 12.0
                        || span > dims.height_mm
                        || span < dims.base_mm / 2.0
                    {
                        continue;
                    }
                    let start = Hypothesis {
                        size,
                        resting: Resting::Bridging,
                        x: (a.x + b.x) / 2.0,
                        y: (a.y + b.y) / 2.0,
                        yaw: 0.0,
                        tilt: flat_tilt(&dims),
                        lift: (a.z + b.z) / 2.0,
                    };
                    let found = self
                        .search_yaw(region, &prefix, camera, start, TAU, 24, 2, free_xy)
                        .filter(|(_, h)| self.rests_on(h, &[*a, *b]));
                    all.extend(found);
                }
            }
        }
        // The base of a same-colour tower, placed by fitting base and top together: alone, an
        // upright piece slides back to cover the top as well.
        let tower_base: Vec<(Detection, f64)> = if count > 1 {
            self.tower_bases(region, &prefix, camera, &centre_px)
                .into_iter()
                .filter_map(|(score, h)| {
                    Some((
                        self.accept(region, &prefix, camera, &h, f64::INFINITY)?,
                        score,
                    ))
                })
                .collect()
        } else {
            Vec::new()
        };
        // Leaning and upside-down pieces, when allowed: the better-scoring fit wins here, and
        // the region as a whole decides (see `explain_region`).
        let mut tilted: Option<(f64, Hypothesis)> = None;
        let free_tilt = Freedom {
            first_step_mm: 4.0,
            tilt: true,
        };
        for size in sizes.into_iter().filter(|_| allow_tilted) {
            for tilt_deg in [45.0_f64, 70.0, 150.0, 180.0] {
                let Some(start) = self.start_on_table(
                    camera,
                    &centre_px,
                    size,
                    Resting::Tilted,
                    tilt_deg.to_radians(),
                ) else {
                    continue;
                };
                let found = self.search_yaw(region, &prefix, camera, start, TAU, 16, 1, free_tilt);
                keep_better(&mut tilted, found);
            }
        }
        all.extend(tilted);
        all.sort_by(|a, b| b.0.total_cmp(&a.0));
        // How far each fit stands above the best fit of another size or resting family: a
        // narrow lead means the silhouette alone could not tell them apart.
        let lead = |h: &Hypothesis, score: f64| {
            all.iter()
                .find(|(_, o)| o.size != h.size || o.resting != h.resting)
                .map_or(f64::INFINITY, |(other, _)| score - other)
        };
        let leads: Vec<f64> = all.iter().map(|(s, h)| lead(h, *s)).collect();
        let mut accepted = all.into_iter().zip(leads).filter_map(|((score, h), lead)| {
            Some((self.accept(region, &prefix, camera, &h, lead)?, score))
        });
        let mut chosen: Vec<(Detection, f64)> = accepted.by_ref().take(count).collect();
        // When choosing among several, keep an upright one in the running: the base of a
        // same-colour tower looks worse alone than a flat piece, but explains the tower with
        // the piece stacked on it.
        if count > 1 && !chosen.iter().any(|(d, _)| d.resting == Resting::Upright) {
            chosen.extend(accepted.find(|(d, _)| d.resting == Resting::Upright));
        }
        chosen.extend(tower_base);
        chosen
    }

    /// The detection for a hypothesis, if it explains enough of what is left of the region.
    fn accept(
        &self,
        region: &Region,
        prefix: &Prefix,
        camera: &Camera,
        h: &Hypothesis,
        lead: f64,
    ) -> Option<Detection> {
        let (_, o) = self.score(region, prefix, camera, h);
        let precision = o.on / (o.on + o.off).max(1.0);
        let support = o.on / (o.on + o.off + o.care).max(1.0);
        // A stacked piece is pinned to the apex below it, so less of it needs to show.
        let min_support = match h.resting {
            Resting::Stacked => self.params.min_new_support / 2.0,
            _ => self.params.min_new_support,
        };
        if precision < self.params.min_precision
            || o.on < self.params.min_region_px as f64
            || support < min_support
        {
            return None;
        }
        let (pose, outline) = self.outline(camera, h)?;
        let dims = self.dims(h.size);
        let image_xy = camera.project_table(&(pose * centroid_piece(&dims)))?;
        Some(Detection {
            color: region.color,
            size: h.size,
            resting: h.resting,
            table_from_piece: pose,
            image_xy,
            // Half the confidence is the fit, scaled down when another size or pose family came
            // within a tenth of the pixels of scoring as well.
            confidence: (precision * (0.5 + 0.5 * (lead / (0.1 * o.on)).clamp(0.0, 1.0)))
                .clamp(0.0, 1.0),
            outline_px: outline,
        })
    }

    /// Upright bases of two-piece towers fitted jointly with the piece stacked on them; each is
    /// returned with its own score, for the greedy search to pick up the top piece after it.
    fn tower_bases(
        &self,
        region: &Region,
        prefix: &Prefix,
        camera: &Camera,
        centre_px: &Point2<f64>,
    ) -> Vec<(f64, Hypothesis)> {
        let sizes = [Size::Small, Size::Medium, Size::Large];
        let joint = |base: &Hypothesis, top: Size| -> f64 {
            let Some((pose, base_outline)) = self.outline(camera, base) else {
                return f64::NEG_INFINITY;
            };
            let dims = self.dims(top);
            let apex = pose * Point3::new(0.0, 0.0, self.dims(base.size).height_mm);
            let lift = apex.z - dims.height_mm + cavity_apex_depth(&dims, self.pieces.wall_mm);
            let top_pose = pose_upright_at(&Point3::new(apex.x, apex.y, lift.max(0.0)), base.yaw);
            let Some(top_outline) = silhouette(camera, &dims, &top_pose) else {
                return f64::NEG_INFINITY;
            };
            let o = overlap_union(region, prefix, &[base_outline, top_outline]);
            o.on - self.params.leak_weight * o.off
        };
        let mut out = Vec::new();
        for base_size in sizes {
            let Some(start) =
                self.start_on_table(camera, centre_px, base_size, Resting::Upright, 0.0)
            else {
                continue;
            };
            for top in sizes {
                let seed = (0..12)
                    .map(|i| Hypothesis {
                        yaw: std::f64::consts::FRAC_PI_2 * f64::from(i) / 12.0,
                        ..start
                    })
                    .max_by(|a, b| joint(a, top).total_cmp(&joint(b, top)));
                let Some(mut best) = seed else { continue };
                let mut best_score = joint(&best, top);
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
                            x: best.x + dx * step_mm,
                            y: best.y + dy * step_mm,
                            yaw: best.yaw + dyaw * step_yaw,
                            ..best
                        };
                        let s = joint(&candidate, top);
                        if s > best_score {
                            best = candidate;
                            best_score = s;
                            improved = true;
                        }
                    }
                    if !improved {
                        step_mm /= 2.0;
                        step_yaw /= 2.0;
                    }
                }
                out.push((best_score, best));
            }
        }
        // Only the best tower is worth a branch of the search; its base scores on its own.
        out.sort_by(|a, b| b.0.total_cmp(&a.0));
        out.into_iter()
            .take(1)
            .map(|(_, h)| (self.score(region, prefix, camera, &h).0, h))
            .collect()
    }

    /// Whether the face a bridging piece lies on covers every one of these apexes (within 2 mm).
    fn rests_on(&self, h: &Hypothesis, apexes: &[Point3<f64>]) -> bool {
        let dims = self.dims(h.size);
        let pose = self.pose(h);
        let mut corners: Vec<Point3<f64>> =
            vertices_piece(&dims).iter().map(|v| pose * v).collect();
        corners.sort_by(|p, q| p.z.total_cmp(&q.z));
        let face = [corners[0].xy(), corners[1].xy(), corners[2].xy()];
        apexes.iter().all(|apex| {
            let p = apex.xy();
            (0..3).all(|k| {
                let (u, v) = (face[k], face[(k + 1) % 3]);
                let w = face[(k + 2) % 3];
                let edge = v - u;
                let normal = nalgebra::Vector2::new(-edge.y, edge.x).normalize();
                // Signed distance from the edge, positive towards the opposite corner.
                let side = normal.dot(&(w - u)).signum();
                side * normal.dot(&(p - u)) >= -2.0
            })
        })
    }

    /// A hypothesis resting on the table under the region's centre pixel.
    fn start_on_table(
        &self,
        camera: &Camera,
        centre_px: &Point2<f64>,
        size: Size,
        resting: Resting,
        tilt: f64,
    ) -> Option<Hypothesis> {
        let dims = self.dims(size);
        let centroid_height = (pose_on_table(&dims, tilt, 0.0, 0.0, 0.0) * centroid_piece(&dims)).z;
        let at = camera.pixel_to_table_plane(centre_px, centroid_height)?;
        Some(Hypothesis {
            size,
            resting,
            x: at.x,
            y: at.y,
            yaw: 0.0,
            tilt,
            lift: 0.0,
        })
    }

    /// Pattern search over position, yaw (and tilt), halving the steps until they are fine.
    fn refine(
        &self,
        region: &Region,
        prefix: &Prefix,
        camera: &Camera,
        start: Hypothesis,
        freedom: Freedom,
    ) -> (f64, Hypothesis) {
        let mut current = start;
        let mut current_score = self.score(region, prefix, camera, &current).0;
        let mut step_mm = freedom.first_step_mm;
        let mut step_angle = 8f64.to_radians() * freedom.first_step_mm / 4.0;
        let moves: &[(f64, f64, f64, f64)] = if freedom.tilt {
            &[
                (1.0, 0.0, 0.0, 0.0),
                (-1.0, 0.0, 0.0, 0.0),
                (0.0, 1.0, 0.0, 0.0),
                (0.0, -1.0, 0.0, 0.0),
                (0.0, 0.0, 1.0, 0.0),
                (0.0, 0.0, -1.0, 0.0),
                (0.0, 0.0, 0.0, 1.0),
                (0.0, 0.0, 0.0, -1.0),
            ]
        } else {
            &[
                (1.0, 0.0, 0.0, 0.0),
                (-1.0, 0.0, 0.0, 0.0),
                (0.0, 1.0, 0.0, 0.0),
                (0.0, -1.0, 0.0, 0.0),
                (0.0, 0.0, 1.0, 0.0),
                (0.0, 0.0, -1.0, 0.0),
            ]
        };
        while step_mm > 0.15 {
            let mut improved = false;
            for (dx, dy, dyaw, dtilt) in moves {
                let candidate = Hypothesis {
                    x: current.x + dx * step_mm,
                    y: current.y + dy * step_mm,
                    yaw: current.yaw + dyaw * step_angle,
                    tilt: if freedom.tilt {
                        (current.tilt + dtilt * step_angle)
                            .clamp(10f64.to_radians(), std::f64::consts::PI)
                    } else {
                        current.tilt
                    },
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
                step_angle /= 2.0;
            }
        }
        (current_score, current)
    }
}

/// How one colour's hue centre moved when the model was re-learnt.
#[derive(Debug, Clone, PartialEq)]
pub struct HueUpdate {
    pub color: Color,
    pub old_hue_deg: f64,
    /// `None` when too few confident pixels of this colour were seen: the old hue is kept.
    pub new_hue_deg: Option<f64>,
    pub pixels: usize,
}

/// Re-learns the hue centres from one frame under the table's light: pieces found with the
/// current model (confidence at least `min_confidence`) lend their pixels' hues to their colour.
pub fn relearn_colors(
    image: &Mat,
    camera: &Camera,
    model: &ColorModel,
    min_confidence: f64,
) -> Result<(ColorModel, Vec<HueUpdate>), VisionError> {
    const MIN_PIXELS: usize = 200;
    let detector = Detector::new(model.clone());
    let seg = segment(image, model)?;
    let detections = detector.detect_in(&seg, camera)?;
    let mut hues: Vec<Vec<f64>> = vec![Vec::new(); model.colors.len()];
    for d in detections.iter().filter(|d| d.confidence >= min_confidence) {
        let Some(slot) = model.colors.iter().position(|c| c.name == d.color) else {
            continue;
        };
        let (ymin, ymax) = d
            .outline_px
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
                (lo.min(p.y), hi.max(p.y))
            });
        for y in (ymin.ceil().max(0.0) as usize)..=(ymax.floor().max(0.0) as usize) {
            if y >= seg.height {
                break;
            }
            let Some((lo, hi)) = row_span(&d.outline_px, y as f64) else {
                continue;
            };
            for x in (lo.ceil().max(0.0) as usize)..=(hi.floor().max(0.0) as usize) {
                if x >= seg.width {
                    break;
                }
                let i = y * seg.width + x;
                // Only pixels that are clearly plastic of some colour: not table, not shadow.
                if seg.classes[i] < 2 {
                    continue;
                }
                let lab = [seg.lab[3 * i], seg.lab[3 * i + 1], seg.lab[3 * i + 2]];
                let (hue, chroma) = hue_and_chroma(lab);
                if chroma >= model.min_chroma {
                    hues[slot].push(hue);
                }
            }
        }
    }
    let mut learnt = model.clone();
    let mut updates = Vec::new();
    for (prototype, samples) in learnt.colors.iter_mut().zip(&hues) {
        let new_hue_deg = if samples.len() >= MIN_PIXELS {
            circular_mean_deg(samples)
        } else {
            None
        };
        updates.push(HueUpdate {
            color: prototype.name,
            old_hue_deg: prototype.hue_deg,
            new_hue_deg,
            pixels: samples.len(),
        });
        if let Some(hue) = new_hue_deg {
            prototype.hue_deg = (hue * 10.0).round() / 10.0;
        }
    }
    Ok((learnt, updates))
}

/// The apex of a detected piece, table frame.
fn apex_of(d: &Detection, pieces: &PieceModels) -> Point3<f64> {
    d.table_from_piece * Point3::new(0.0, 0.0, pieces.dims(d.size).height_mm)
}

/// Pixels still to explain under a silhouette.
fn covered(region: &Region, outline_px: &[Point2<f64>]) -> f64 {
    let mut count = 0.0;
    for ry in 0..region.h {
        let y = (region.y0 + ry) as f64;
        let Some((lo, hi)) = row_span(outline_px, y) else {
            continue;
        };
        let xa = (lo.ceil() - region.x0 as f64).max(0.0) as usize;
        let xb = ((hi.floor() - region.x0 as f64 + 1.0).max(0.0) as usize).min(region.w);
        for x in xa..xb {
            count += f64::from(region.target[ry * region.w + x]);
        }
    }
    count
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
