//! Tinted shadows read as pieces. A translucent piece casts a shadow of its own hue; where that
//! shadow is strong enough to pass for plastic, the fit explains it with a piece. What gives it
//! away is that it is darker than the table (it is a shadow) and, in colour, far paler than the
//! plastic itself: light filtered once through a wall tints the wood less than the plastic looks.
//! A piece is measured against the most strongly coloured piece of its colour in the same frame,
//! so the table's light and cloth set the scale, not a constant; and only where another piece
//! of its colour stands near enough for its shadow to reach it, and, where the frame shows the
//! light, within that piece's shadow.

use koanscope_geometry::PieceModels;
use koanscope_scene::Color;

use crate::camera::Camera;
use crate::cast_shadow::{KnownLight, light_from_shadows, share_in_shadow};
use crate::color::ColorModel;
use crate::detect::Detection;
use crate::pose::vertices_piece;
use crate::region::for_each_run;
use crate::segment::Segmentation;
use crate::stats::median;

/// Pixels of its own colour a piece needs under it to set the scale of its colour.
const REFERENCE_MIN_PX: usize = 100;

/// A tinted shadow lies within the shadow of the piece whose plastic tints it, and a shadow
/// reaches no farther from its piece than the piece's top's height over the table over the
/// tangent of the light's height: lights over a table stand at least this high (degrees over
/// the table top). A pale piece farther from every piece of its colour cannot be one. On the
/// rendered sets the shadows read as pieces lay 12-46 mm from the piece that cast them. Seen
/// from straight above, an upright green small shows only its steep sides, half as coloured as
/// a green medium lying in the sun 190 mm away, and was taken for a shadow; seen from 78 deg
/// down, the yellow medium in the middle of a tower shows a shaded band 0.6 as coloured as a
/// yellow small lying in the sun 108 mm away, whose top, 14 mm over the table, throws its shadow
/// 38 mm beyond it. The scale is still the most coloured piece anywhere: the red medium whose
/// shadow dev D1 scene 5 shows stands on its apex and looks nearly as pale as its shadow.
const LOWEST_LIGHT_DEG: f64 = 20.0;

/// A faint tinted shadow, darker than the table but not by `shadow_dark_ratio`, is told by its
/// tint alone: a piece not lit brighter than the table with at most this share of the chroma
/// difference of the most strongly coloured piece of its colour. On dev such a shadow (the
/// olive one a green large throws on the white table) stood at 0.26-0.28 under any light tried,
/// and the palest true piece that dark at 0.61; only glare (lighter than the table) paled a
/// piece further, to 0.48.
const FAINT_SHADOW_SHARE: f64 = 0.4;

/// Where the frame shows the light (see `cast_shadow.rs`), a tinted shadow has at least this
/// share of its silhouette in the shadow of a piece of its colour. Over the suite's sets the
/// tinted shadows read as pieces lay 0.87-0.99 in one, and true pieces that looked as pale
/// (a yellow small in the shade of a green large lying across it, the sample koan, on four
/// tables and from two cameras) 0.00.
const IN_CASTER_SHADOW_SHARE: f64 = 0.5;

/// How a piece's pixels of its own colour look against the table around them (medians).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Tint {
    /// Chroma difference from the table's, 8-bit Lab units.
    chroma_difference: f64,
    /// Lightness as a share of the table's.
    lightness: f64,
    /// How many pixels were measured.
    pixels: usize,
    /// Most of them lie on a table of the piece's own hue (green on green baize): such a piece
    /// differs from the table in little but saturation, and a shadow there is never read as
    /// one (see [`ColorModel::saturated_twin`]).
    on_own_hue: bool,
}

fn tint_of(seg: &Segmentation, model: &ColorModel, piece: &Detection) -> Tint {
    let class = seg.class_of(piece.color);
    // The frame's bytes taken once: asking the Mat for them costs a few calls into OpenCV.
    let (lab, table) = (seg.lab_bytes(), seg.table_lab_bytes());
    let (mut chroma, mut light) = (Vec::new(), Vec::new());
    let mut on_own_hue = 0;
    // The table's colour is a wide median, the same over long runs: settle each one once.
    let mut last_table: Option<([u8; 2], bool)> = None;
    let mut own_hue = |ab: [u8; 2]| match last_table {
        Some((seen, own)) if seen == ab => own,
        _ => {
            let own = model.twin_colour_of_table(ab) == Some(piece.color);
            last_table = Some((ab, own));
            own
        }
    };
    for_each_run(&piece.outline_px, |y, xa, xb| {
        if y < 0 || y as usize >= seg.height {
            return;
        }
        let y = y as usize;
        for x in xa.max(0)..=xb.min(seg.width as i64 - 1) {
            let x = x as usize;
            let k = 3 * (y * seg.width + x);
            if Some(seg.classes[y * seg.width + x]) == class
                && let (Some(p), Some(t)) = (lab.get(k..k + 3), table.get(k..k + 3))
            {
                chroma.push(chroma_difference(p, t));
                light.push(lightness_ratio(p, t));
                if own_hue([t[1], t[2]]) {
                    on_own_hue += 1;
                }
            }
        }
    });
    Tint {
        on_own_hue: 2 * on_own_hue > chroma.len(),
        pixels: chroma.len(),
        chroma_difference: median(&mut chroma),
        lightness: median(&mut light),
    }
}

/// How far a pixel's chroma (8-bit Lab `p`) lies from the table's around it (`t`).
fn chroma_difference(p: &[u8], t: &[u8]) -> f64 {
    let da = f64::from(p[1]) - f64::from(t[1]);
    let db = f64::from(p[2]) - f64::from(t[2]);
    da.hypot(db)
}

/// A pixel's lightness as a share of the table's around it.
fn lightness_ratio(p: &[u8], t: &[u8]) -> f64 {
    (f64::from(p[0]) + 1.0) / (f64::from(t[0]) + 1.0)
}

/// How far from where `caster` stands on the table (its frame's origin) a piece read in its
/// shadow may stand: as far as the shadow of its top reaches, plus how far each of the two
/// pieces spreads from its own origin.
fn tint_reach_mm(pieces: &PieceModels, caster: &Detection, shade: &Detection) -> f64 {
    // The table-frame corners of a piece: the highest one, and the farthest from its origin.
    let spread = |d: &Detection| {
        vertices_piece(&pieces.dims(d.size))
            .iter()
            .map(|v| d.table_from_piece * v)
            .fold((0.0_f64, 0.0_f64), |(top, far), v| {
                let from = (v - d.table_from_piece * nalgebra::Point3::origin())
                    .xy()
                    .norm();
                (top.max(v.z), far.max(from))
            })
    };
    let (top, caster_far) = spread(caster);
    let (_, shade_far) = spread(shade);
    top / LOWEST_LIGHT_DEG.to_radians().tan() + caster_far + shade_far
}

/// The pieces less those that are tinted shadows: darker than the table (below
/// `shadow_dark_ratio` of its lightness, in median) and with at most `pale_share` of the chroma
/// difference of the most strongly coloured piece of their colour in the frame, or darker at all
/// and with at most [`FAINT_SHADOW_SHARE`] of it, where another piece of their colour stands near
/// enough for its shadow to reach them (see [`LOWEST_LIGHT_DEG`]), and, where the frame's
/// shadows show the light, lying in that piece's shadow (see [`IN_CASTER_SHADOW_SHARE`]): a
/// piece in the shade of another colour's piece is as dark and pale. `shadow_dark_ratio` is the
/// colour model's. Black pieces have no tint, and pieces on a table of their own hue none to tell.
/// With them, the light where it was searched from exactly the pieces kept, for the next filter.
pub(crate) fn without_tinted_shadows(
    seg: &Segmentation,
    camera: &Camera,
    model: &ColorModel,
    pieces: &PieceModels,
    found: Vec<Detection>,
    pale_share: f64,
) -> (Vec<Detection>, KnownLight) {
    let shadow_dark_ratio = model.shadow_dark_ratio;
    let tints: Vec<Tint> = found.iter().map(|d| tint_of(seg, model, d)).collect();
    let on_table = |d: &Detection| d.table_from_piece.translation.vector.xy();
    let references = || {
        found
            .iter()
            .zip(&tints)
            .enumerate()
            .filter(|(_, (_, t))| t.pixels >= REFERENCE_MIN_PX)
    };
    // How coloured the plastic of piece k's colour looks under this light: its most strongly
    // coloured piece anywhere in the frame.
    let strongest = |k: usize| {
        references()
            .filter(|(_, (d, _))| d.color == found[k].color)
            .map(|(_, (_, t))| t.chroma_difference)
            .fold(0.0, f64::max)
    };
    // Another piece of piece k's colour whose shadow may reach it.
    let caster_near = |k: usize| {
        let shade = &found[k];
        references().any(|(j, (d, _))| {
            j != k
                && d.color == shade.color
                && (on_table(d) - on_table(shade)).norm() <= tint_reach_mm(pieces, d, shade)
        })
    };
    let looks_tinted: Vec<bool> = found
        .iter()
        .zip(&tints)
        .enumerate()
        .map(|(k, (d, t))| {
            let share = t.chroma_difference / strongest(k).max(f64::EPSILON);
            d.color != Color::Black
                && !t.on_own_hue
                && t.lightness < 1.0
                && caster_near(k)
                && (share <= FAINT_SHADOW_SHARE || t.lightness < shadow_dark_ratio)
                && share <= pale_share
        })
        .collect();
    let suspects: Vec<usize> = (0..found.len()).filter(|&k| looks_tinted[k]).collect();
    if suspects.is_empty() {
        return (found, KnownLight::Unknown);
    }
    // Where the frame shows the light (by the shadows of the pieces not in doubt), a tinted
    // shadow must lie in the shadow of a piece of its colour.
    let dims = |size| pieces.dims(size);
    let light = light_from_shadows(seg, camera, dims, &found, &suspects, shadow_dark_ratio);
    let in_a_casters_shadow = |k: usize| {
        let Some(light) = &light else {
            return true;
        };
        references()
            .filter(|&(j, (d, _))| d.color == found[k].color && !looks_tinted[j])
            .any(|(_, (d, _))| {
                let frame = (seg.width, seg.height);
                share_in_shadow(camera, light, d, dims, &found[k].outline_px, frame)
                    >= IN_CASTER_SHADOW_SHARE
            })
    };
    let shadows: Vec<bool> = (0..found.len())
        .map(|k| looks_tinted[k] && in_a_casters_shadow(k))
        .collect();
    // The light was searched from the pieces less the suspects: those kept when every suspect
    // is a shadow.
    let known = if shadows == looks_tinted {
        KnownLight::Searched(light)
    } else {
        KnownLight::Unknown
    };
    let kept = found
        .into_iter()
        .zip(shadows)
        .filter(|(_, shadow)| !shadow)
        .map(|(d, _)| d)
        .collect();
    (kept, known)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pose::{Resting, flat_tilt, pose_on_table, silhouette};
    use crate::render::{draw_pieces, table_camera};
    use crate::segment::segment;
    use koanscope_geometry::{PieceModels, Placer};
    use koanscope_scene::Size;
    use nalgebra::{Isometry3, Point2};
    use opencv::core::{CV_8UC3, Mat, Point, Rect, Scalar, Vec3b, Vector};
    use opencv::imgproc;
    use opencv::prelude::*;

    /// A piece of that colour and size found with that outline (its pose plays no part here).
    fn detection(color: Color, size: Size, outline_px: Vec<Point2<f64>>) -> Detection {
        let image_xy = outline_px[0];
        Detection::new(
            color,
            size,
            Resting::Upright,
            Isometry3::identity(),
            image_xy,
            outline_px,
            0.9,
        )
    }

    /// The pieces the shipped colour and piece models keep as no tinted shadows.
    fn kept_of(seg: &Segmentation, found: Vec<Detection>) -> Vec<Detection> {
        without_tinted_shadows(
            seg,
            &table_camera(),
            &ColorModel::default(),
            &PieceModels::default(),
            found,
            0.6,
        )
        .0
    }

    /// A red large upright, and beside it a patch of the given colour (BGR) where a shadow
    /// would fall; each as a detection of a red piece.
    fn piece_and_patch(patch_bgr: [f64; 3]) -> (Segmentation, Vec<Detection>) {
        piece_and_patch_at(patch_bgr, 0.0)
    }

    /// [`piece_and_patch`] with the patch `shift_px` further left, each detection placed on the
    /// table where its outline lies.
    fn piece_and_patch_at(patch_bgr: [f64; 3], shift_px: f64) -> (Segmentation, Vec<Detection>) {
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
            .map(|(dx, dy)| Point2::new(left + dx - shift_px, top + dy))
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
        let on_table = |outline: &[Point2<f64>]| {
            let centre =
                outline.iter().fold(Point2::origin(), |c, p| c + p.coords) / outline.len() as f64;
            let at = camera.pixel_to_table_plane(&centre, 0.0).unwrap();
            Isometry3::translation(at.x, at.y, 0.0)
        };
        let found = vec![
            Detection {
                table_from_piece: on_table(&outline),
                ..detection(Color::Red, Size::Large, outline)
            },
            Detection {
                table_from_piece: on_table(&patch),
                ..detection(Color::Red, Size::Small, patch)
            },
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
            tint_of(&seg, &ColorModel::default(), &found[1]).pixels > 900,
            "the patch reads as red"
        );
        let kept = kept_of(&seg, found);
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].size, Size::Large, "the piece stays");
    }

    #[test]
    fn a_pale_red_patch_darker_than_the_table_far_from_every_red_piece_is_a_piece() {
        // The patch of the test above, moved across the table: no red piece near enough to
        // have cast it (an upright piece seen from straight above shows only its steep sides,
        // half as coloured as a piece lying in the sun elsewhere).
        let (seg, found) = piece_and_patch_at([50.0, 60.0, 140.0], 300.0);
        let models = PieceModels::default();
        let gap = (found[0].table_from_piece.translation.vector
            - found[1].table_from_piece.translation.vector)
            .norm();
        let reach = tint_reach_mm(&models, &found[0], &found[1]);
        assert!(
            gap > reach,
            "{gap} mm apart, the large's shadow reaches {reach} mm"
        );
        assert!(
            tint_of(&seg, &ColorModel::default(), &found[1]).pixels > 900,
            "the patch reads as red"
        );
        assert_eq!(kept_of(&seg, found).len(), 2);
    }

    #[test]
    fn a_pale_red_patch_beyond_the_shadow_of_a_piece_lying_flat_is_a_piece() {
        // The same pale patch, as far from the red piece as an upright large's shadow reaches
        // and a small lying flat's does not. Read as the large, the patch may be its shadow;
        // read as the small (the piece looks as coloured either way), it is a piece: the band
        // of a tower's middle piece, pale in shade, beside a small lying in the sun.
        let (seg, found) = piece_and_patch_at([50.0, 60.0, 140.0], 100.0);
        let models = PieceModels::default();
        let small = models.dims(Size::Small);
        let at = found[0].table_from_piece.translation.vector;
        let lying_small = Detection {
            size: Size::Small,
            resting: Resting::Flat,
            table_from_piece: pose_on_table(&small, flat_tilt(&small), at.x, at.y, 0.0),
            ..found[0].clone()
        };
        let gap = (lying_small.table_from_piece.translation.vector
            - found[1].table_from_piece.translation.vector)
            .xy()
            .norm();
        let (far, near) = (
            tint_reach_mm(&models, &found[0], &found[1]),
            tint_reach_mm(&models, &lying_small, &found[1]),
        );
        assert!(
            near < gap && gap < far,
            "{gap} mm apart; reaches {near} and {far} mm"
        );
        assert_eq!(
            kept_of(&seg, found.clone()).len(),
            1,
            "beside the upright large"
        );
        let beside_small = vec![lying_small, found[1].clone()];
        assert_eq!(
            kept_of(&seg, beside_small).len(),
            2,
            "beside the small lying flat"
        );
    }

    /// [`piece_and_patch`] of a shadow's colour, with the shadow a lamp 600 mm off and 300 mm
    /// up throws of the red large painted on the table (a third of its lightness), the lamp
    /// beyond the large from the patch (`towards_patch`) or beyond the patch from it.
    fn patch_and_cast_shadow(towards_patch: bool) -> (Segmentation, Vec<Detection>) {
        let camera = table_camera();
        let models = PieceModels::default();
        let (_, found) = piece_and_patch([50.0, 60.0, 140.0]);
        let (piece, patch) = (
            found[0].table_from_piece.translation.vector,
            found[1].table_from_piece.translation.vector,
        );
        let away = (piece - patch).xy().normalize() * if towards_patch { 600.0 } else { -600.0 };
        let lamp = nalgebra::Point3::new(piece.x + away.x, piece.y + away.y, 300.0);
        // The large as `piece_and_patch_at` stands it (its detection holds no pose).
        let pose = Placer::default().upright(0.0, 80.0, 0.3);
        let corners: Vec<nalgebra::Point3<f64>> = vertices_piece(&models.dims(Size::Large))
            .iter()
            .map(|v| pose * v)
            .collect();
        let shadow = crate::cast_shadow::shadow_px(&camera, &lamp, &corners).unwrap();
        let mut frame: Mat = draw_pieces(&camera, &[(Color::Red, Size::Large, pose)]).unwrap();
        // The table's two tones at a third of their lightness, where the shadow falls on it.
        let table = [Vec3b::from([95, 130, 165]), Vec3b::from([105, 140, 175])];
        crate::region::for_each_run(&shadow, |y, xa, xb| {
            for x in xa..=xb {
                let pixel = frame.at_2d_mut::<Vec3b>(y as i32, x as i32).unwrap();
                if table.contains(pixel) {
                    *pixel = Vec3b::from(pixel.0.map(|v| v / 3));
                }
            }
        });
        let mut patch = Vector::<Vector<Point>>::new();
        patch.push(
            found[1]
                .outline_px
                .iter()
                .map(|p| Point::new(p.x as i32, p.y as i32))
                .collect(),
        );
        imgproc::fill_poly_def(&mut frame, &patch, Scalar::new(50.0, 60.0, 140.0, 0.0)).unwrap();
        (segment(&frame, &ColorModel::default()).unwrap(), found)
    }

    #[test]
    fn a_pale_red_patch_is_a_shadow_only_where_the_light_casts_the_red_pieces_shadow() {
        // The frame's own shadows show where the light is. With the red large's shadow over
        // the patch, the patch is that shadow tinted; with it falling the other way, the patch
        // lies in no red piece's shadow and is a piece (as a yellow small lying in the shade of
        // a green large across it is, beside a yellow large in the sun).
        let camera = table_camera();
        let models = PieceModels::default();
        for (towards_patch, kept) in [(true, 1), (false, 2)] {
            let (seg, found) = patch_and_cast_shadow(towards_patch);
            let light = light_from_shadows(&seg, &camera, |s| models.dims(s), &found, &[1], 0.85)
                .expect("the large's shadow shows the light");
            let share = share_in_shadow(
                &camera,
                &light,
                &found[0],
                |s| models.dims(s),
                &found[1].outline_px,
                (seg.width, seg.height),
            );
            assert_eq!(
                share >= IN_CASTER_SHADOW_SHARE,
                towards_patch,
                "{share:.2} of the patch in the large's shadow"
            );
            let (found_kept, known) =
                without_tinted_shadows(&seg, &camera, &ColorModel::default(), &models, found, 0.6);
            assert_eq!(
                found_kept.len(),
                kept,
                "lamp towards the patch: {towards_patch}"
            );
            // The light was searched from the large alone: handed on once the patch is gone,
            // and not while the patch stays a piece (whose shadow it would then leave out).
            let handed_on = if towards_patch {
                KnownLight::Searched(Some(light))
            } else {
                KnownLight::Unknown
            };
            assert_eq!(known, handed_on);
        }
    }

    #[test]
    fn a_faintly_red_patch_a_little_darker_than_the_table_is_a_shadow() {
        // 0.92 of the table's lightness, too light for a shadow by darkness, with 0.3 of the
        // plastic's colour: the olive a green large throws on dev's white table.
        let (seg, found) = piece_and_patch([92.0, 108.0, 175.0]);
        let tint = tint_of(&seg, &ColorModel::default(), &found[1]);
        assert!(tint.pixels > 900, "the patch reads as red: {tint:?}");
        assert!(
            (0.85..1.0).contains(&tint.lightness),
            "as dark as a faint shadow: {tint:?}"
        );
        let kept = kept_of(&seg, found);
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].size, Size::Large, "the piece stays");
    }

    #[test]
    fn a_piece_on_a_table_of_its_own_hue_is_no_shadow_however_little_it_differs() {
        // Green baize, 8-bit Lab; a green face in shade, and a lit one that differs from the
        // cloth by less than 0.4 as much (see `ColorModel::saturated_twin`).
        let baize = [104.0, 99.0, 150.0, 0.0];
        let mut lab = Mat::new_rows_cols_with_default(240, 320, CV_8UC3, baize.into()).unwrap();
        let shaded = Rect::new(60, 100, 20, 24);
        let lit = Rect::new(220, 100, 20, 24);
        for (rect, colour) in [
            (shaded, [82.0, 64.0, 172.0, 0.0]),
            (lit, [97.0, 92.0, 155.0, 0.0]),
        ] {
            imgproc::rectangle(&mut lab, rect, colour.into(), -1, imgproc::LINE_8, 0).unwrap();
        }
        let mut frame = Mat::default();
        imgproc::cvt_color_def(&lab, &mut frame, imgproc::COLOR_Lab2BGR).unwrap();
        let model = ColorModel::default();
        let seg = segment(&frame, &model).unwrap();
        let piece = |rect: Rect| {
            let outline_px: Vec<Point2<f64>> = [(0, 0), (1, 0), (1, 1), (0, 1)]
                .iter()
                .map(|&(i, j)| {
                    Point2::new(
                        f64::from(rect.x + i * (rect.width - 1)),
                        f64::from(rect.y + j * (rect.height - 1)),
                    )
                })
                .collect();
            detection(Color::Green, Size::Small, outline_px)
        };
        let found = vec![piece(shaded), piece(lit)];
        let (strong, faint) = (
            tint_of(&seg, &model, &found[0]),
            tint_of(&seg, &model, &found[1]),
        );
        assert!(
            faint.pixels > 300 && strong.pixels > 300,
            "{faint:?} {strong:?}"
        );
        assert!(
            faint.chroma_difference < FAINT_SHADOW_SHARE * strong.chroma_difference
                && faint.lightness < 1.0,
            "on a grey table it would be read as a faint shadow: {faint:?} {strong:?}"
        );
        assert!(faint.on_own_hue && strong.on_own_hue);
        assert_eq!(kept_of(&seg, found).len(), 2);
    }

    #[test]
    fn a_pale_red_patch_lighter_than_the_table_is_not_a_shadow() {
        let (seg, found) = piece_and_patch([150.0, 160.0, 230.0]);
        assert!(
            tint_of(&seg, &ColorModel::default(), &found[1]).pixels > 900,
            "the patch reads as red"
        );
        assert_eq!(kept_of(&seg, found).len(), 2);
    }

    #[test]
    fn a_strongly_red_patch_in_shade_is_a_piece() {
        let (seg, found) = piece_and_patch([25.0, 25.0, 140.0]);
        assert!(
            tint_of(&seg, &ColorModel::default(), &found[1]).pixels > 900,
            "the patch reads as red"
        );
        assert_eq!(kept_of(&seg, found).len(), 2);
    }
}
