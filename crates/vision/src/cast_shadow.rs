//! Cast shadows read as black pieces. Black plastic is found by darkness against the table
//! (`max_dark_ratio`), and under one strong lamp with little light around it a piece's shadow is
//! as dark as that, most of all on a dark table. What gives a shadow away is where it lies: on
//! the table, on the side of the pieces away from the light. The light is read from the frame
//! itself: the lamp (a point, from a near lamp to the sun) whose shadows of the coloured pieces
//! fall best on the dark pixels around them. A black piece that lies within the shadows that
//! light casts from the other pieces is a shadow, not a piece.

use koanscope_geometry::PyramidDims;
use koanscope_scene::{Color, Size};
use nalgebra::{Point2, Point3, Vector3};

use crate::camera::Camera;
use crate::detect::Detection;
use crate::pose::{convex_hull, vertices_piece};
use crate::region::for_each_run;
use crate::segment::{Segmentation, TABLE, UNKNOWN, least_lightness};

/// How much of a black piece's silhouette must lie in the other pieces' shadows for it to be
/// taken for a shadow: a black piece standing in another's shadow rises out of it.
const IN_SHADOW_SHARE: f64 = 0.7;
/// A shadow is never behind a piece: a black piece mostly hidden is a piece.
const MIN_SHOWN_SHARE: f64 = 0.25;
/// The light is believed when at least this share of the table its shadows cover is dark...
const SHADOW_DARK_SHARE: f64 = 0.6;
/// ...and that is at least this many pixels (a shadow as large as a small piece).
const SHADOW_MIN_PX: i64 = 150;

/// The pieces less the black ones that are shadows the others cast.
pub(crate) fn without_cast_shadows(
    seg: &Segmentation,
    camera: &Camera,
    dims: impl Fn(Size) -> PyramidDims,
    found: Vec<Detection>,
    shadow_dark_ratio: f64,
    known: KnownLight,
) -> Vec<Detection> {
    if !found.iter().any(|d| d.color == Color::Black) {
        return found;
    }
    let corners: Vec<Vec<Point3<f64>>> = found.iter().map(|d| corners_table(d, &dims)).collect();
    let casters: Vec<usize> = (0..found.len())
        .filter(|&i| found[i].color != Color::Black)
        .collect();
    let evidence = Evidence::new(seg, &found, shadow_dark_ratio);
    let light = match known {
        KnownLight::Searched(light) => light,
        KnownLight::Unknown => evidence.light(camera, &casters, &corners),
    };
    let Some(light) = light else {
        return found;
    };
    // How many pieces' shadows fall on each pixel; a black piece's own is taken out while it is
    // tested, so what is left is the others'.
    let shadows: Vec<Option<Vec<Point2<f64>>>> = corners
        .iter()
        .map(|c| shadow_px(camera, &light, c))
        .collect();
    let mut under = vec![0u16; seg.width * seg.height];
    let cast = |under: &mut [u16], shadow: Option<&[Point2<f64>]>, add: bool| {
        for_each_run(shadow.unwrap_or(&[]), |y, xa, xb| {
            for x in evidence.clip(y, xa, xb) {
                let k = y as usize * seg.width + x;
                under[k] = if add { under[k] + 1 } else { under[k] - 1 };
            }
        });
    };
    for shadow in &shadows {
        cast(&mut under, shadow.as_deref(), true);
    }
    let shadowed: Vec<bool> = (0..found.len())
        .map(|b| {
            if found[b].color != Color::Black {
                return false;
            }
            cast(&mut under, shadows[b].as_deref(), false);
            // Only where it shows: a piece half hidden under another (a tower's base) is
            // covered by that one's shadow on the table too, but a shadow is never behind.
            let (mut inside, mut shown, mut all) = (0usize, 0usize, 0usize);
            for_each_run(&found[b].outline_px, |y, xa, xb| {
                for x in evidence.clip(y, xa, xb) {
                    let k = y as usize * seg.width + x;
                    all += 1;
                    if evidence.says(k) != 0 {
                        shown += 1;
                        inside += usize::from(under[k] > 0);
                    }
                }
            });
            cast(&mut under, shadows[b].as_deref(), true);
            // A tower's base read from the rim around the piece on it shows little of itself,
            // but that rim goes round the top's foot, lit on the light's side: the top's
            // shadow only lies on the far side. A rim that lies in the shadows is one.
            let shows_enough = match found[b].rim_share {
                Some(_) => shown > 0,
                None => shown as f64 >= MIN_SHOWN_SHARE * all as f64,
            };
            shows_enough && inside as f64 >= IN_SHADOW_SHARE * shown as f64
        })
        .collect();
    found
        .into_iter()
        .zip(shadowed)
        .filter(|(_, s)| !s)
        .map(|(d, _)| d)
        .collect()
}

/// What is known of the light that the shadows of a set of pieces show (see
/// [`light_from_shadows`]). The search takes some 300 lights over every coloured piece's
/// shadow: a few milliseconds of a crowded frame, which one filter hands to the next when their
/// pieces are the same.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum KnownLight {
    /// Not searched for these pieces.
    Unknown,
    /// Searched for exactly these pieces: the light, or `None` where no light's shadows fall
    /// clearly on dark table.
    Searched(Option<Point3<f64>>),
}

/// The light the frame's shadows show (see [`Evidence::light`]), cast by the coloured pieces of
/// `found` but those `left_out`; `None` where no light's shadows fall clearly on dark table.
pub(crate) fn light_from_shadows(
    seg: &Segmentation,
    camera: &Camera,
    dims: impl Fn(Size) -> PyramidDims,
    found: &[Detection],
    left_out: &[usize],
    shadow_dark_ratio: f64,
) -> Option<Point3<f64>> {
    let kept: Vec<Detection> = (0..found.len())
        .filter(|i| !left_out.contains(i))
        .map(|i| found[i].clone())
        .collect();
    let corners: Vec<Vec<Point3<f64>>> = kept.iter().map(|d| corners_table(d, &dims)).collect();
    let casters: Vec<usize> = (0..kept.len())
        .filter(|&i| kept[i].color != Color::Black)
        .collect();
    Evidence::new(seg, &kept, shadow_dark_ratio).light(camera, &casters, &corners)
}

/// The share of a silhouette's pixels in a `width` x `height` frame that lie in the shadow
/// `caster` throws on the table under `light` (0 where it throws none).
pub(crate) fn share_in_shadow(
    camera: &Camera,
    light: &Point3<f64>,
    caster: &Detection,
    dims: impl Fn(Size) -> PyramidDims,
    outline_px: &[Point2<f64>],
    (width, height): (usize, usize),
) -> f64 {
    let Some(shadow) = shadow_px(camera, light, &corners_table(caster, &dims)) else {
        return 0.0;
    };
    // The shadow's run on each row it covers, top to bottom.
    let mut shadow_runs: Vec<(i64, i64, i64)> = Vec::new();
    for_each_run(&shadow, |y, xa, xb| shadow_runs.push((y, xa, xb)));
    let (mut all, mut inside) = (0i64, 0i64);
    for_each_run(outline_px, |y, xa, xb| {
        if y < 0 || y as usize >= height {
            return;
        }
        let (xa, xb) = (xa.max(0), xb.min(width as i64 - 1));
        if xb < xa {
            return;
        }
        all += xb - xa + 1;
        if let Some(&(_, sa, sb)) = shadow_runs.iter().find(|run| run.0 == y) {
            inside += (xb.min(sb) - xa.max(sa) + 1).max(0);
        }
    });
    if all == 0 {
        0.0
    } else {
        inside as f64 / all as f64
    }
}

/// What each pixel says about a shadow falling on it: +1 dark table, -1 lit table, 0 a
/// coloured piece's (a piece hides the table under it, and shows its own colour).
struct Evidence<'a> {
    width: usize,
    height: usize,
    classes: &'a [u8],
    lab: &'a [u8],
    table: &'a [u8],
    /// Classes that may be table seen in shadow: table, unknown and black.
    table_like: [bool; 256],
    /// Under a coloured piece's silhouette.
    covered: Vec<bool>,
    /// Per table lightness, the least pixel lightness not darker than `shadow_dark_ratio` of
    /// it (256 where none is): a pixel darker than that is in shadow.
    least_lit: [u16; 256],
    /// Per row, once asked for: the dark and the lit pixels (see [`Evidence::says`]) before each
    /// column. The light search scores some 300 lights over the same rows, so a run is counted
    /// from two entries instead of pixel by pixel.
    row_counts: Vec<std::cell::OnceCell<Vec<[u32; 2]>>>,
}

impl<'a> Evidence<'a> {
    fn new(seg: &'a Segmentation, found: &[Detection], shadow_dark_ratio: f64) -> Evidence<'a> {
        let mut table_like = [false; 256];
        for class in [Some(TABLE), Some(UNKNOWN), seg.class_of(Color::Black)]
            .into_iter()
            .flatten()
        {
            table_like[usize::from(class)] = true;
        }
        let mut evidence = Evidence {
            width: seg.width,
            height: seg.height,
            classes: &seg.classes,
            lab: seg.lab_bytes(),
            table: seg.table_lab_bytes(),
            table_like,
            covered: vec![false; seg.width * seg.height],
            least_lit: least_lightness(|l, t| {
                f64::from(l) + 1.0 >= shadow_dark_ratio * (f64::from(t) + 1.0)
            }),
            row_counts: vec![std::cell::OnceCell::new(); seg.height],
        };
        let mut covered = std::mem::take(&mut evidence.covered);
        for d in found.iter().filter(|d| d.color != Color::Black) {
            for_each_run(&d.outline_px, |y, xa, xb| {
                for x in evidence.clip(y, xa, xb) {
                    covered[y as usize * seg.width + x] = true;
                }
            });
        }
        evidence.covered = covered;
        evidence
    }

    fn says(&self, k: usize) -> i8 {
        self.says_of(
            self.covered[k],
            self.classes[k],
            self.lab[3 * k],
            self.table[3 * k],
        )
    }

    /// [`Evidence::says`] of a pixel: whether a coloured piece covers it, its class, and its
    /// lightness and the table's.
    #[inline]
    fn says_of(&self, covered: bool, class: u8, l: u8, table_l: u8) -> i8 {
        if covered || !self.table_like[usize::from(class)] {
            0
        } else if u16::from(l) < self.least_lit[usize::from(table_l)] {
            1
        } else {
            -1
        }
    }

    /// The dark and the lit pixels of a run (which lies in the frame, see [`Evidence::clip`]).
    fn dark_and_lit(&self, y: usize, columns: std::ops::Range<usize>) -> [i64; 2] {
        let row = self.row_counts[y].get_or_init(|| {
            let mut counts = Vec::with_capacity(self.width + 1);
            let mut acc = [0u32; 2];
            counts.push(acc);
            let (from, to) = (y * self.width, (y + 1) * self.width);
            let pixels = self.covered[from..to]
                .iter()
                .zip(&self.classes[from..to])
                .zip(self.lab[3 * from..3 * to].iter().step_by(3))
                .zip(self.table[3 * from..3 * to].iter().step_by(3));
            for (((&covered, &class), &l), &table_l) in pixels {
                match self.says_of(covered, class, l, table_l) {
                    1 => acc[0] += 1,
                    -1 => acc[1] += 1,
                    _ => {}
                }
                counts.push(acc);
            }
            counts
        });
        let (a, b) = (row[columns.start], row[columns.end]);
        [i64::from(b[0] - a[0]), i64::from(b[1] - a[1])]
    }

    /// The columns of a run that lie in the frame (none for a row outside it).
    fn clip(&self, y: i64, xa: i64, xb: i64) -> std::ops::Range<usize> {
        if y < 0 || y as usize >= self.height {
            return 0..0;
        }
        let lo = xa.max(0) as usize;
        let hi = (xb + 1).clamp(0, self.width as i64) as usize;
        lo..hi.max(lo)
    }

    /// Dark less lit pixels under the casters' shadows from a light, every other row, when
    /// the light is believed.
    fn score(
        &self,
        camera: &Camera,
        light: &Point3<f64>,
        casters: &[usize],
        corners: &[Vec<Point3<f64>>],
    ) -> Option<i64> {
        let (mut dark, mut lit) = (0i64, 0i64);
        for &i in casters {
            let Some(shadow) = shadow_px(camera, light, &corners[i]) else {
                continue;
            };
            for_each_run(&shadow, |y, xa, xb| {
                if y % 2 != 0 {
                    return;
                }
                let columns = self.clip(y, xa, xb);
                if !columns.is_empty() {
                    let [d, l] = self.dark_and_lit(y as usize, columns);
                    dark += d;
                    lit += l;
                }
            });
        }
        let believed =
            2 * dark >= SHADOW_MIN_PX && dark as f64 >= SHADOW_DARK_SHARE * (dark + lit) as f64;
        believed.then_some(dark - lit)
    }

    /// The light whose shadows of the casters best fall on dark table, if they fall on it
    /// clearly: a lamp around the pieces from 20° to 80° high, from 0.4 m away to as far as
    /// the sun. A coarse search, then a finer one around its best.
    fn light(
        &self,
        camera: &Camera,
        casters: &[usize],
        corners: &[Vec<Point3<f64>>],
    ) -> Option<Point3<f64>> {
        if casters.is_empty() {
            return None;
        }
        let centre = casters
            .iter()
            .map(|&i| corners[i][0].coords)
            .sum::<Vector3<f64>>()
            / casters.len() as f64;
        let at = |distance: f64, el_deg: f64, az_deg: f64| {
            let (el, az) = (el_deg.to_radians(), az_deg.to_radians());
            Point3::new(
                centre.x + distance * el.cos() * az.cos(),
                centre.y + distance * el.cos() * az.sin(),
                distance * el.sin(),
            )
        };
        const DISTANCES: [f64; 4] = [400.0, 700.0, 1200.0, 5000.0];
        let best_of = |tries: Vec<(usize, f64, f64)>| {
            tries
                .into_iter()
                .filter_map(|(d, el, az)| {
                    self.score(camera, &at(DISTANCES[d], el, az), casters, corners)
                        .map(|score| (score, d, el, az))
                })
                .max_by_key(|t| t.0)
        };
        let mut coarse = Vec::new();
        for d in 0..DISTANCES.len() {
            for el in [20.0, 40.0, 60.0, 80.0] {
                for k in 0..12 {
                    coarse.push((d, el, 30.0 * f64::from(k)));
                }
            }
        }
        let (_, d0, el0, az0) = best_of(coarse)?;
        let mut fine = Vec::new();
        for d in d0.saturating_sub(1)..(d0 + 2).min(DISTANCES.len()) {
            for del in [-10.0, -5.0, 0.0, 5.0, 10.0] {
                for daz in [-15.0, -10.0, -5.0, 0.0, 5.0, 10.0, 15.0] {
                    fine.push((d, (el0 + del).clamp(15.0, 85.0), az0 + daz));
                }
            }
        }
        let best = best_of(fine);
        best.map(|(_, d, el, az)| at(DISTANCES[d], el, az))
    }
}

/// A detected piece's five corners, table frame.
fn corners_table(d: &Detection, dims: &impl Fn(Size) -> PyramidDims) -> Vec<Point3<f64>> {
    vertices_piece(&dims(d.size))
        .iter()
        .map(|v| d.table_from_piece * v)
        .collect()
}

/// The shadow on the table (z = 0) of a piece with these corners (table frame) under a point
/// light, as a polygon in the image; `None` when the light is not above every corner or a
/// point does not project.
pub(crate) fn shadow_px(
    camera: &Camera,
    light: &Point3<f64>,
    corners: &[Point3<f64>],
) -> Option<Vec<Point2<f64>>> {
    let mut points = Vec::with_capacity(corners.len());
    for c in corners {
        let drop = light.z - c.z;
        if drop <= 1.0 {
            return None;
        }
        let on_table = light + (c - light) * (light.z / drop);
        points.push(camera.project_table(&Point3::new(on_table.x, on_table.y, 0.0))?);
    }
    Some(convex_hull(points))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::color::ColorModel;
    use crate::pose::{Resting, silhouette};
    use crate::render::{draw_pieces, table_camera};
    use crate::segment::segment;
    use koanscope_geometry::{PieceModels, Placer};
    use nalgebra::Isometry3;
    use opencv::core::Vec3b;
    use opencv::prelude::*;

    const SHADOW_DARK_RATIO: f64 = 0.85;

    fn detection(
        color: Color,
        size: Size,
        pose: Isometry3<f64>,
        outline_px: Vec<Point2<f64>>,
    ) -> Detection {
        let image_xy = outline_px[0];
        Detection::new(
            color,
            size,
            Resting::Upright,
            pose,
            image_xy,
            outline_px,
            0.9,
        )
    }

    /// Three coloured pieces and a black one on the drawn table, each found where it stands;
    /// with `lamp`, the coloured pieces' shadows are painted on the table at a third of its
    /// lightness, and the red large's is found as a black small as well.
    fn table_under(lamp: Option<Point3<f64>>) -> (Segmentation, Vec<Detection>) {
        let mut pieces = casters();
        pieces.push((
            Color::Black,
            Size::Medium,
            Placer::default().upright(220.0, 150.0, 0.2),
        ));
        let (seg, mut found) = found_under(lamp, &pieces);
        if let Some(lamp) = lamp {
            let (_, s, pose) = pieces[0];
            let shadow = shadow_px(&table_camera(), &lamp, &corners(s, &pose)).unwrap();
            let pose = Placer::default().flat(Size::Small, -20.0, 90.0, 0.0);
            found.push(detection(Color::Black, Size::Small, pose, shadow));
        }
        (seg, found)
    }

    /// A piece's corners on the table.
    fn corners(size: Size, pose: &Isometry3<f64>) -> Vec<Point3<f64>> {
        vertices_piece(&dims(size))
            .iter()
            .map(|v| pose * v)
            .collect()
    }

    /// The drawn table with `pieces`, each found where it stands; under `lamp`, with the
    /// coloured pieces' shadows painted on the table at a third of its lightness.
    fn found_under(
        lamp: Option<Point3<f64>>,
        pieces: &[(Color, Size, Isometry3<f64>)],
    ) -> (Segmentation, Vec<Detection>) {
        let camera = table_camera();
        let mut frame = draw_pieces(&camera, pieces).unwrap();
        let table = [Vec3b::from([95, 130, 165]), Vec3b::from([105, 140, 175])];
        if let Some(lamp) = lamp {
            for (_, s, pose) in pieces.iter().filter(|(c, _, _)| *c != Color::Black) {
                let shadow = shadow_px(&camera, &lamp, &corners(*s, pose)).unwrap();
                for_each_run(&shadow, |y, xa, xb| {
                    for x in xa..=xb {
                        let pixel = frame.at_2d_mut::<Vec3b>(y as i32, x as i32).unwrap();
                        if table.contains(pixel) {
                            *pixel = Vec3b::from(pixel.0.map(|v| v / 3));
                        }
                    }
                });
            }
        }
        let found = pieces
            .iter()
            .map(|&(c, s, pose)| {
                detection(c, s, pose, silhouette(&camera, &dims(s), &pose).unwrap())
            })
            .collect();
        (segment(&frame, &ColorModel::default()).unwrap(), found)
    }

    /// The coloured pieces of [`table_under`], which show the light by their shadows.
    fn casters() -> Vec<(Color, Size, Isometry3<f64>)> {
        let p = Placer::default();
        vec![
            (Color::Red, Size::Large, p.upright(0.0, 80.0, 0.3)),
            (Color::Yellow, Size::Medium, p.upright(120.0, 60.0, 0.1)),
            (Color::Blue, Size::Small, p.upright(60.0, 140.0, 0.7)),
        ]
    }

    /// The tests' lamp: 0.5 m from the pieces, 35° high, on the side of negative x.
    fn lamp() -> Point3<f64> {
        Point3::new(60.0 - 410.0, 100.0, 287.0)
    }

    fn dims(size: Size) -> PyramidDims {
        PieceModels::default().dims(size)
    }

    /// The pieces the cast-shadow filter keeps, searching the light itself.
    fn searching_the_light(seg: &Segmentation, found: Vec<Detection>) -> Vec<Detection> {
        let camera = table_camera();
        without_cast_shadows(
            seg,
            &camera,
            dims,
            found,
            SHADOW_DARK_RATIO,
            KnownLight::Unknown,
        )
    }

    #[test]
    fn a_shadow_found_as_a_black_piece_is_dropped_and_the_black_piece_kept() {
        let lamp = lamp();
        let (seg, found) = table_under(Some(lamp));
        assert_eq!(found.len(), 5);
        let kept = searching_the_light(&seg, found);
        let blacks: Vec<Size> = kept
            .iter()
            .filter(|d| d.color == Color::Black)
            .map(|d| d.size)
            .collect();
        assert_eq!(kept.len(), 4);
        assert_eq!(blacks, [Size::Medium], "the black medium stays");
    }

    /// A light already searched for the same pieces is taken as found: where it says the
    /// shadows show none, the shadow found as a black small stays.
    #[test]
    fn a_light_already_searched_for_the_same_pieces_is_not_searched_again() {
        let camera = table_camera();
        let lamp = lamp();
        let (seg, found) = table_under(Some(lamp));
        let casters = [0, 1, 2];
        let corners: Vec<Vec<Point3<f64>>> =
            found.iter().map(|d| corners_table(d, &dims)).collect();
        let searched =
            Evidence::new(&seg, &found, SHADOW_DARK_RATIO).light(&camera, &casters, &corners);
        assert!(searched.is_some(), "the painted shadows show the lamp");
        let kept_with = |known| {
            without_cast_shadows(&seg, &camera, dims, found.clone(), SHADOW_DARK_RATIO, known).len()
        };
        assert_eq!(kept_with(KnownLight::Unknown), 4);
        assert_eq!(kept_with(KnownLight::Searched(searched)), 4);
        assert_eq!(kept_with(KnownLight::Searched(None)), 5);
    }

    /// The runs of shadows, counted from the rows' running counts, count what the pixels say
    /// one by one: dark table in the painted shadows, lit table elsewhere, nothing under the
    /// coloured pieces.
    #[test]
    fn a_shadows_dark_and_lit_pixels_are_the_pixels_counted_one_by_one() {
        let camera = table_camera();
        let lamp = lamp();
        let (seg, found) = table_under(Some(lamp));
        let evidence = Evidence::new(&seg, &found, SHADOW_DARK_RATIO);
        let (mut dark, mut lit) = (0, 0);
        // The painted shadows, and where a lamp on the other side would cast them (lit table).
        let other_side = Point3::new(60.0 + 410.0, 100.0, 287.0);
        for (d, light) in found[..3].iter().flat_map(|d| [(d, lamp), (d, other_side)]) {
            let shadow = shadow_px(&camera, &light, &corners_table(d, &dims)).unwrap();
            for_each_run(&shadow, |y, xa, xb| {
                let columns = evidence.clip(y, xa, xb);
                let by_pixel = columns.clone().fold([0, 0], |[d, l], x| {
                    match evidence.says(y as usize * seg.width + x) {
                        1 => [d + 1, l],
                        -1 => [d, l + 1],
                        _ => [d, l],
                    }
                });
                if !columns.is_empty() {
                    assert_eq!(
                        evidence.dark_and_lit(y as usize, columns),
                        by_pixel,
                        "row {y}"
                    );
                }
                dark += by_pixel[0];
                lit += by_pixel[1];
            });
        }
        assert!(dark > 500 && lit > 0, "dark {dark}, lit {lit}");
    }

    #[test]
    fn without_shadows_on_the_table_no_light_is_read_and_nothing_dropped() {
        let camera = table_camera();
        let (seg, mut found) = table_under(None);
        // A black small where the lamp above would cast the red large's shadow, on lit table.
        let lamp = lamp();
        let red = &found[0];
        let shadow = shadow_px(&camera, &lamp, &corners_table(red, &dims)).unwrap();
        let pose = Placer::default().flat(Size::Small, -20.0, 90.0, 0.0);
        found.push(detection(Color::Black, Size::Small, pose, shadow));
        let corners: Vec<Vec<Point3<f64>>> =
            found.iter().map(|d| corners_table(d, &dims)).collect();
        let evidence = Evidence::new(&seg, &found, SHADOW_DARK_RATIO);
        assert_eq!(evidence.light(&camera, &[0, 1, 2], &corners), None);
        let kept = searching_the_light(&seg, found);
        assert_eq!(kept.len(), 5);
    }

    #[test]
    fn a_base_read_from_the_rim_a_tops_shadow_makes_is_a_shadow() {
        // Under one lamp the blue small's shadow at its foot reads as the rim of a black small
        // under it: a base shifted 4 mm away from the lamp, whose only pixels in view are the
        // shadow's.
        let lamp = lamp();
        let (seg, mut found) = found_under(Some(lamp), &casters());
        let camera = table_camera();
        let pose = Placer::default().upright(64.0, 140.0, 0.7);
        let outline = silhouette(&camera, &dims(Size::Small), &pose).unwrap();
        let mut base = detection(Color::Black, Size::Small, pose, outline);
        base.rim_share = Some(0.1);
        found.push(base);
        let kept = searching_the_light(&seg, found);
        assert_eq!(kept.len(), 3, "the black small is the blue's shadow");
    }

    #[test]
    fn a_black_base_whose_rim_shows_round_its_top_is_kept() {
        let p = Placer::default();
        let base = p.upright(220.0, 150.0, 0.2);
        let top = p.on_tip(Size::Medium, &base, Size::Small).unwrap();
        let mut pieces = casters();
        pieces.push((Color::Black, Size::Medium, base));
        pieces.push((Color::Red, Size::Small, top));
        let lamp = lamp();
        let (seg, mut found) = found_under(Some(lamp), &pieces);
        found[3].rim_share = Some(0.3);
        let kept = searching_the_light(&seg, found);
        assert_eq!(kept.len(), 5, "the black medium under the red small stays");
    }

    #[test]
    fn a_shadow_falls_away_from_the_light_as_long_as_the_piece_is_high() {
        let camera = table_camera();
        // An upright large under a light 45° high along +x: its apex's shadow lies 44.5 mm
        // beyond its base centre, along -x.
        let pose = Placer::default().upright(100.0, 50.0, 0.0);
        let corners: Vec<Point3<f64>> = vertices_piece(&dims(Size::Large))
            .iter()
            .map(|v| pose * v)
            .collect();
        let light = Point3::new(100.0 + 1e4, 50.0, 1e4);
        let shadow = shadow_px(&camera, &light, &corners).unwrap();
        let tip = camera
            .project_table(&Point3::new(100.0 - 44.5, 50.0, 0.0))
            .unwrap();
        assert!(
            shadow.iter().any(|p| (p - tip).norm() < 1.0),
            "{shadow:?} has no corner at {tip:?}"
        );
        // A light below the apex casts no shadow on the table.
        assert!(shadow_px(&camera, &Point3::new(0.0, 0.0, 30.0), &corners).is_none());
    }
}
