//! Colour segmentation of a frame: every pixel classified by the colour model against the
//! table's local colour.

use koanscope_scene::Color;
use opencv::core::{Mat, Size as CvSize};
use opencv::imgproc;
use opencv::prelude::*;

use crate::color::{ColorModel, PixelClass};
use crate::error::{CvContext, VisionError};

/// What the colour model made of every pixel, and the local table colour.
#[derive(Clone)]
pub struct Segmentation {
    pub width: usize,
    pub height: usize,
    /// Per pixel: 0 table, 1 unknown foreground, 2 + i the palette's colour i.
    pub classes: Vec<u8>,
    pub palette: Vec<Color>,
    /// The frame in 8-bit Lab (continuous, 3 bytes a pixel); read it with [`Segmentation::lab_bytes`].
    lab: Mat,
    /// The table's local colour, 8-bit Lab like `lab`.
    table: Mat,
}

impl Segmentation {
    /// The frame in 8-bit Lab, row-major, 3 bytes a pixel.
    pub fn lab_bytes(&self) -> &[u8] {
        self.lab.data_bytes().unwrap_or(&[])
    }

    /// The table's local colour in 8-bit Lab, laid out like [`Segmentation::lab_bytes`].
    pub(crate) fn table_lab_bytes(&self) -> &[u8] {
        self.table.data_bytes().unwrap_or(&[])
    }

    /// The frame's lightness (8-bit L) over a box of it, as a one-channel image.
    pub(crate) fn lightness_in(&self, rect: opencv::core::Rect) -> Result<Mat, VisionError> {
        let crop = Mat::roi(&self.lab, rect).during("cropping the frame")?;
        let mut lightness = Mat::default();
        opencv::core::extract_channel(&crop, &mut lightness, 0).during("reading lightness")?;
        Ok(lightness)
    }

    /// The class of a colour's pixels, if the palette has it.
    pub fn class_of(&self, color: Color) -> Option<u8> {
        class_in(&self.palette, color)
    }

    /// The class of the pixel nearest a point of the image, if it is in the frame.
    pub(crate) fn class_at(&self, pixel: &nalgebra::Point2<f64>) -> Option<u8> {
        let (x, y) = (pixel.x.round(), pixel.y.round());
        (x >= 0.0 && y >= 0.0 && x < self.width as f64 && y < self.height as f64)
            .then(|| self.classes[y as usize * self.width + x as usize])
    }
}

/// The class of a colour's pixels in a palette: 2 + its place.
fn class_in(palette: &[Color], color: Color) -> Option<u8> {
    palette
        .iter()
        .position(|c| *c == color)
        .map(|i| 2 + i as u8)
}

/// Class of a table pixel.
pub(crate) const TABLE: u8 = 0;
/// Class of a foreground pixel with no sure colour.
pub(crate) const UNKNOWN: u8 = 1;

/// Classifies every pixel of a BGR frame with the colour model.
pub fn segment(image: &Mat, model: &ColorModel) -> Result<Segmentation, VisionError> {
    let lab = crate::lab_table::bgr_to_lab(image)?;
    let (w, h) = (lab.cols(), lab.rows());
    // The table's colour around each pixel: a median at an eighth of the resolution (blocks of
    // BLOCK_PX) keeps it cheap (the window, a few times a large piece, still spans 15 samples
    // or more).
    let block = BLOCK_PX as i32;
    let small_size = CvSize::new((w / block).max(1), (h / block).max(1));
    let mut small = Mat::default();
    imgproc::resize(&lab, &mut small, small_size, 0.0, 0.0, imgproc::INTER_AREA)
        .during("shrinking the frame")?;
    let k = ((model.background_window_px / BLOCK_PX as u32) | 1).max(3) as i32;
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
    // Classified in place: the Lab frame is kept as it is, not copied.
    let lab = continuous(lab)?;
    let lab_bytes = lab.data_bytes().during("reading a frame")?;
    let table = continuous(table)?;
    let table_bytes = table.data_bytes().during("reading a frame")?;
    let palette = model.palette();
    let class_of = |color: Color| class_in(&palette, color).unwrap_or(UNKNOWN);
    // Most pixels are table: the model's first test, inlined in integers; the rest go through
    // `classify`. A squared chroma distance below `near` (a real number) is one below its
    // ceiling; a lightness passes the dark test from the least one that does, per table level.
    let near = (model.min_chroma_difference * model.min_chroma_difference).ceil() as i32;
    let least_light = least_lightness(|l, t| model.not_dark(l, t));
    let mut classes = vec![TABLE; lab_bytes.len() / 3];
    for (class, (p, t)) in classes
        .iter_mut()
        .zip(lab_bytes.chunks_exact(3).zip(table_bytes.chunks_exact(3)))
    {
        let da = i32::from(p[1]) - i32::from(t[1]);
        let db = i32::from(p[2]) - i32::from(t[2]);
        if da * da + db * db < near && u16::from(p[0]) >= least_light[usize::from(t[0])] {
            continue;
        }
        *class = match model.classify([p[0], p[1], p[2]], [t[0], t[1], t[2]]) {
            PixelClass::Table => TABLE,
            PixelClass::Unknown => UNKNOWN,
            PixelClass::Piece(color) => class_of(color),
        };
    }
    let width = w.max(0) as usize;
    let twins = saturated_twins(
        &small_median,
        lab_bytes,
        table_bytes,
        &classes,
        width,
        model,
        &TwinFloor::new(model, least_light),
    )?;
    keep_twin_patches(&mut classes, &twins, width, &class_of);
    Ok(Segmentation {
        width,
        height: h.max(0) as usize,
        classes,
        palette,
        lab,
        table,
    })
}

/// Side of the blocks the table's colour is estimated at (see `segment`), full-resolution pixels.
const BLOCK_PX: usize = 8;

/// The table pixels that are its saturated twins (see [`ColorModel::saturated_twin`]), each with
/// the colour it would be, sought only in blocks where the table's colour (`small_table`, its
/// estimate per block) has a piece colour's hue: on most tables, none.
fn saturated_twins(
    small_table: &Mat,
    lab_bytes: &[u8],
    table_bytes: &[u8],
    classes: &[u8],
    width: usize,
    model: &ColorModel,
    floor: &TwinFloor,
) -> Result<Vec<(usize, Color)>, VisionError> {
    let small_bytes = small_table.data_bytes().during("reading a frame")?;
    let small_width = small_table.cols().max(1) as usize;
    let height = classes.len() / width.max(1);
    let mut twins = Vec::new();
    // Per table chroma (a, b), the colour its twins take, if any, settled when first met.
    let mut settled: Vec<Option<Option<Color>>> = vec![None; 1 << 16];
    let mut twin_colour = |ab: [u8; 2]| {
        *settled[usize::from(ab[0]) << 8 | usize::from(ab[1])]
            .get_or_insert_with(|| model.twin_colour_of_table(ab))
    };
    // The blocks to search; per row of blocks, the columns of its runs of such blocks (on a
    // wooden table, one run of all of them), searched pixel by pixel on each of its frame rows.
    let sought: Vec<bool> = small_bytes
        .chunks_exact(3)
        .map(|t| twin_colour([t[1], t[2]]).is_some())
        .collect();
    for (block_row, sought) in sought.chunks(small_width).enumerate() {
        let mut runs = Vec::new();
        let mut bx = 0;
        for run in sought.chunk_by(|a, b| a == b) {
            let columns = bx * BLOCK_PX..((bx + run.len()) * BLOCK_PX).min(width);
            if run[0] && !columns.is_empty() {
                runs.push(columns);
            }
            bx += run.len();
        }
        for y in block_row * BLOCK_PX..((block_row + 1) * BLOCK_PX).min(height) {
            for columns in &runs {
                let (from, to) = (y * width + columns.start, y * width + columns.end);
                let pixels = classes[from..to]
                    .iter()
                    .zip(lab_bytes[3 * from..3 * to].chunks_exact(3))
                    .zip(table_bytes[3 * from..3 * to].chunks_exact(3));
                for (k, ((&class, p), t)) in (from..to).zip(pixels) {
                    if class != TABLE || !floor.may_be_twin(p, t) {
                        continue;
                    }
                    let Some(color) = twin_colour([t[1], t[2]]) else {
                        continue;
                    };
                    if model.saturated_twin([p[0], p[1], p[2]], [t[0], t[1], t[2]]) {
                        twins.push((k, color));
                    }
                }
            }
        }
    }
    Ok(twins)
}

/// Per table lightness, the least pixel lightness that `passes` (a test that grows with the
/// pixel's lightness), 256 where none does: the test as one comparison.
pub(crate) fn least_lightness(passes: impl Fn(u8, u8) -> bool) -> [u16; 256] {
    std::array::from_fn(|t| {
        (0..=255u8)
            .find(|&l| passes(l, t as u8))
            .map_or(256, u16::from)
    })
}

/// A quick test that turns away most pixels [`ColorModel::saturated_twin`] would: a twin's
/// chroma steps from the table's by `min_saturation_step` (lit) or `min_shaded_saturation_step`
/// (shaded) along the table's hue, so by at least that in all, and most table pixels (noise
/// around the table's colour) are told by that alone, in integers.
struct TwinFloor {
    /// Per table lightness, the least lightness lit as the table is, and the least not dark
    /// (both tests grow with the lightness; 256 where none is).
    least_lit: [u16; 256],
    least_shown: [u16; 256],
    /// The two steps squared, a hair low, so that the floats of the full test can never pass a
    /// pixel this one turns away; rounded up, as a squared chroma step in whole units reaches
    /// a real number where it reaches its ceiling.
    lit_floor: i32,
    shaded_floor: i32,
}

impl TwinFloor {
    /// `least_shown`: [`least_lightness`] of [`ColorModel::not_dark`], as the table test has it.
    fn new(model: &ColorModel, least_shown: [u16; 256]) -> TwinFloor {
        let floor = |step: f64| (step * step * (1.0 - 1e-9)).ceil() as i32;
        TwinFloor {
            least_lit: least_lightness(|l, t| model.lit_like_table(l, t)),
            least_shown,
            lit_floor: floor(model.min_saturation_step),
            shaded_floor: floor(model.min_shaded_saturation_step),
        }
    }

    /// False only where [`ColorModel::saturated_twin`] of the same pixel is false.
    #[inline]
    fn may_be_twin(&self, lab: &[u8], table_lab: &[u8]) -> bool {
        let (l, t) = (u16::from(lab[0]), usize::from(table_lab[0]));
        let floor = if l >= self.least_lit[t] {
            self.lit_floor
        } else if l >= self.least_shown[t] {
            self.shaded_floor
        } else {
            return false;
        };
        let da = i32::from(lab[1]) - i32::from(table_lab[1]);
        let db = i32::from(lab[2]) - i32::from(table_lab[2]);
        da * da + db * db >= floor
    }
}

/// Of the table's saturated twins, keeps those with at least [`TWIN_NEIGHBOURS`] of their eight
/// neighbours of the same class (twins or not): a piece's face, lit or shaded, is a patch, while
/// the blurred edge of a piece of another colour, or a camera's noise, leaves a pixel or a thin
/// line.
fn keep_twin_patches(
    classes: &mut [u8],
    twins: &[(usize, Color)],
    width: usize,
    class_of: &dyn Fn(Color) -> u8,
) {
    if twins.is_empty() || width == 0 {
        return;
    }
    let height = classes.len() / width;
    let mut twin_class = vec![TABLE; classes.len()];
    for &(k, color) in twins {
        twin_class[k] = class_of(color);
    }
    let class_at = |k: usize| {
        if twin_class[k] != TABLE {
            twin_class[k]
        } else {
            classes[k]
        }
    };
    let kept: Vec<(usize, u8)> = twins
        .iter()
        .map(|&(k, _)| (k, twin_class[k]))
        .filter(|&(k, class)| {
            let (x, y) = (k % width, k / width);
            let mut same = 0;
            for ny in y.saturating_sub(1)..=(y + 1).min(height - 1) {
                for nx in x.saturating_sub(1)..=(x + 1).min(width - 1) {
                    let n = ny * width + nx;
                    same += usize::from(n != k && class_at(n) == class);
                }
            }
            same >= TWIN_NEIGHBOURS
        })
        .collect();
    for (k, class) in kept {
        classes[k] = class;
    }
}

/// See [`keep_twin_patches`].
const TWIN_NEIGHBOURS: usize = 5;

/// The matrix itself when its rows are contiguous, else a contiguous copy.
fn continuous(mat: Mat) -> Result<Mat, VisionError> {
    if mat.is_continuous() {
        Ok(mat)
    } else {
        mat.try_clone().during("copying a frame")
    }
}

/// The floor a frame's analysis is measured against: what any colour pipeline pays, OpenCV's
/// conversion of the frame to Lab plus a threshold of it. Returns the thresholded image.
pub fn floor_lab_threshold(image: &Mat) -> Result<Mat, VisionError> {
    let mut lab = Mat::default();
    imgproc::cvt_color_def(image, &mut lab, imgproc::COLOR_BGR2Lab).during("converting to Lab")?;
    let mut mask = Mat::default();
    imgproc::threshold(&lab, &mut mask, 128.0, 255.0, imgproc::THRESH_BINARY)
        .during("thresholding")?;
    Ok(mask)
}

/// Makes OpenCV run every call on the calling thread, so timings are those of one core.
pub fn use_one_thread() -> Result<(), VisionError> {
    opencv::core::set_num_threads(1).during("setting OpenCV's threads")
}

#[cfg(test)]
mod tests {
    use super::*;
    use opencv::core::{CV_8UC3, Rect, Scalar};

    /// A 320x240 frame of one 8-bit Lab colour, with rectangles of others, converted to BGR.
    fn frame(table: [u8; 3], patches: &[(Rect, [u8; 3])]) -> Mat {
        let lab = |c: [u8; 3]| Scalar::new(f64::from(c[0]), f64::from(c[1]), f64::from(c[2]), 0.0);
        let mut frame = Mat::new_rows_cols_with_default(240, 320, CV_8UC3, lab(table)).unwrap();
        for (rect, colour) in patches {
            imgproc::rectangle(&mut frame, *rect, lab(*colour), -1, imgproc::LINE_8, 0).unwrap();
        }
        let mut bgr = Mat::default();
        imgproc::cvt_color_def(&frame, &mut bgr, imgproc::COLOR_Lab2BGR).unwrap();
        bgr
    }

    /// The quick test never turns away a pixel the full one takes, and turns away most of a
    /// green cloth's noise: every lightness pair in steps, chroma around five table colours.
    #[test]
    fn the_quick_twin_test_turns_away_only_what_the_full_test_does() {
        let model = ColorModel::default();
        let floor = TwinFloor::new(&model, least_lightness(|l, t| model.not_dark(l, t)));
        let (mut twins, mut turned_away, mut noise, mut noise_turned_away) = (0, 0, 0, 0);
        for table in [
            [150, 90, 150],
            [120, 100, 110],
            [170, 128, 128],
            [90, 150, 90],
            [60, 135, 75],
        ] {
            for l in (0..=255u8).step_by(3) {
                for da in -30..=30i32 {
                    for db in -30..=30i32 {
                        let lab = [
                            l,
                            (i32::from(table[1]) + da).clamp(0, 255) as u8,
                            (i32::from(table[2]) + db).clamp(0, 255) as u8,
                        ];
                        let full = model.saturated_twin(lab, table);
                        let quick = floor.may_be_twin(&lab, &table);
                        assert!(quick || !full, "{lab:?} on {table:?}");
                        twins += usize::from(full);
                        turned_away += usize::from(!quick);
                        if da.abs() <= 3 && db.abs() <= 3 && l.abs_diff(table[0]) < 10 {
                            noise += 1;
                            noise_turned_away += usize::from(!quick);
                        }
                    }
                }
            }
        }
        assert!(
            twins > 1000 && turned_away > 0,
            "{twins} twins, {turned_away} turned away"
        );
        assert!(
            noise_turned_away * 10 >= noise * 9,
            "{noise_turned_away} of {noise}"
        );
    }

    #[test]
    fn a_green_piece_on_green_baize_is_green_and_a_shadow_or_a_thin_edge_is_table() {
        let baize = [104, 99, 150];
        let lit_green_face = [97, 92, 155];
        let shaded_green_face = [81, 96, 152];
        let shadow = [81, 102, 145];
        let face = Rect::new(60, 60, 20, 24);
        let shaded_face = Rect::new(80, 60, 14, 24);
        let edge = Rect::new(160, 40, 1, 40);
        let shade = Rect::new(220, 140, 30, 20);
        let image = frame(
            baize,
            &[
                (face, lit_green_face),
                (shaded_face, shaded_green_face),
                (edge, lit_green_face),
                (shade, shadow),
            ],
        );
        let seg = segment(&image, &ColorModel::default()).unwrap();
        let green = seg.class_of(Color::Green).unwrap();
        let share = |rect: Rect, class: u8| {
            let mut count = 0;
            for y in rect.y..rect.y + rect.height {
                for x in rect.x..rect.x + rect.width {
                    count += usize::from(seg.classes[y as usize * seg.width + x as usize] == class);
                }
            }
            count as f64 / f64::from(rect.area())
        };
        assert!(share(face, green) > 0.9, "face {}", share(face, green));
        assert!(
            share(shaded_face, green) > 0.9,
            "shaded face {}",
            share(shaded_face, green)
        );
        assert_eq!(share(edge, green), 0.0);
        assert_eq!(share(shade, green), 0.0);
        assert!(share(Rect::new(0, 0, 320, 30), TABLE) == 1.0);
    }
}
