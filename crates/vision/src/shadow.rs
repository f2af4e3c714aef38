//! Tinted shadows read as pieces. A translucent piece casts a shadow of its own hue; where that
//! shadow is strong enough to pass for plastic, the fit explains it with a piece. What gives it
//! away is that it is darker than the table (it is a shadow) and, in colour, far paler than the
//! plastic itself: light filtered once through a wall tints the wood less than the plastic looks.
//! A piece is measured against the most strongly coloured piece of its colour in the same frame,
//! so the table's light and cloth set the scale, not a constant.

use koanscope_scene::Color;

use crate::detect::Detection;
use crate::region::for_each_run;
use crate::segment::Segmentation;

/// Pixels of its own colour a piece needs under it to set the scale of its colour.
const REFERENCE_MIN_PX: usize = 100;

/// How a piece's pixels of its own colour look against the table around them (medians).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Tint {
    /// Chroma difference from the table's, 8-bit Lab units.
    chroma_difference: f64,
    /// Lightness as a share of the table's.
    lightness: f64,
    /// How many pixels were measured.
    pixels: usize,
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}

fn tint_of(seg: &Segmentation, piece: &Detection) -> Tint {
    let class = seg.class_of(piece.color);
    let (mut chroma, mut light) = (Vec::new(), Vec::new());
    for_each_run(&piece.outline_px, |y, xa, xb| {
        if y < 0 || y as usize >= seg.height {
            return;
        }
        let y = y as usize;
        for x in xa.max(0)..=xb.min(seg.width as i64 - 1) {
            let x = x as usize;
            if Some(seg.classes[y * seg.width + x]) == class {
                chroma.push(seg.chroma_difference_at(x, y));
                light.push(seg.lightness_ratio_at(x, y));
            }
        }
    });
    Tint {
        pixels: chroma.len(),
        chroma_difference: median(&mut chroma),
        lightness: median(&mut light),
    }
}

/// The pieces less those that are tinted shadows: darker than the table (below
/// `shadow_dark_ratio` of its lightness, in median) and with at most `pale_share` of the chroma
/// difference of the most strongly coloured piece of their colour. Black pieces have no tint.
pub(crate) fn without_tinted_shadows(
    seg: &Segmentation,
    found: Vec<Detection>,
    shadow_dark_ratio: f64,
    pale_share: f64,
) -> Vec<Detection> {
    let tints: Vec<Tint> = found.iter().map(|d| tint_of(seg, d)).collect();
    let strongest = |color: Color| {
        found
            .iter()
            .zip(&tints)
            .filter(|(d, t)| d.color == color && t.pixels >= REFERENCE_MIN_PX)
            .map(|(_, t)| t.chroma_difference)
            .fold(0.0, f64::max)
    };
    found
        .iter()
        .zip(&tints)
        .filter(|(d, t)| {
            d.color == Color::Black
                || t.lightness >= shadow_dark_ratio
                || t.chroma_difference > pale_share * strongest(d.color)
        })
        .map(|(d, _)| d.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::color::ColorModel;
    use crate::pose::{Resting, silhouette};
    use crate::render::{draw_pieces, table_camera};
    use crate::segment::segment;
    use koanscope_geometry::{PieceModels, Placer};
    use koanscope_scene::Size;
    use nalgebra::{Isometry3, Point2};
    use opencv::core::{Mat, Point, Scalar, Vector};
    use opencv::imgproc;

    /// A red large upright, and beside it a patch of the given colour (BGR) where a shadow
    /// would fall; each as a detection of a red piece.
    fn piece_and_patch(patch_bgr: [f64; 3]) -> (Segmentation, Vec<Detection>) {
        let camera = table_camera();
        let models = PieceModels::default();
        let pose = Placer::default().upright(0.0, 80.0, 0.3);
        let mut frame: Mat = draw_pieces(&camera, &[(Color::Red, Size::Large, pose)]).unwrap();
        let outline = silhouette(&camera, &models.dims(Size::Large), &pose).unwrap();
        // The patch: a quadrilateral to the piece's left, about a small piece's size.
        let left = outline.iter().map(|p| p.x).fold(f64::INFINITY, f64::min);
        let top = outline.iter().map(|p| p.y).fold(f64::INFINITY, f64::min);
        let patch: Vec<Point2<f64>> = [(-40.0, 10.0), (-8.0, 10.0), (-8.0, 40.0), (-40.0, 40.0)]
            .iter()
            .map(|(dx, dy)| Point2::new(left + dx, top + dy))
            .collect();
        let mut polygons = Vector::<Vector<Point>>::new();
        polygons.push(
            patch
                .iter()
                .map(|p| Point::new(p.x as i32, p.y as i32))
                .collect(),
        );
        let [b, g, r] = patch_bgr;
        imgproc::fill_poly_def(&mut frame, &polygons, Scalar::new(b, g, r, 0.0)).unwrap();
        let seg = segment(&frame, &ColorModel::default()).unwrap();
        let detection = |outline_px: Vec<Point2<f64>>, size| Detection {
            color: Color::Red,
            size,
            resting: Resting::Upright,
            table_from_piece: Isometry3::identity(),
            image_xy: outline_px[0],
            confidence: 0.9,
            outline_px,
            rim_share: None,
            shaded_choice: None,
        };
        let found = vec![
            detection(outline, Size::Large),
            detection(patch, Size::Small),
        ];
        (seg, found)
    }

    #[test]
    fn a_pale_red_patch_darker_than_the_table_is_a_shadow() {
        // The table is BGR (95, 130, 165); the plastic (30, 30, 190).
        // A shadow as dev's oak table shows them: about 0.6 of the table's lightness, a quarter
        // of the plastic's colour.
        let (seg, found) = piece_and_patch([50.0, 60.0, 140.0]);
        assert!(
            tint_of(&seg, &found[1]).pixels > 900,
            "the patch reads as red"
        );
        let kept = without_tinted_shadows(&seg, found, 0.85, 0.6);
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].size, Size::Large, "the piece stays");
    }

    #[test]
    fn a_pale_red_patch_lighter_than_the_table_is_not_a_shadow() {
        let (seg, found) = piece_and_patch([150.0, 160.0, 230.0]);
        assert!(
            tint_of(&seg, &found[1]).pixels > 900,
            "the patch reads as red"
        );
        assert_eq!(without_tinted_shadows(&seg, found, 0.85, 0.6).len(), 2);
    }

    #[test]
    fn a_strongly_red_patch_in_shade_is_a_piece() {
        let (seg, found) = piece_and_patch([25.0, 25.0, 140.0]);
        assert!(
            tint_of(&seg, &found[1]).pixels > 900,
            "the patch reads as red"
        );
        assert_eq!(without_tinted_shadows(&seg, found, 0.85, 0.6).len(), 2);
    }
}
