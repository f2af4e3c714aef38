//! Which of two overlapping pieces is in front, read from the frame: where two fitted silhouettes
//! overlap, the pixels show the colour of the nearer piece. Two explanations of a region that fit
//! its outline equally well (a piece lying on the table behind two posts, or across their tips; a
//! big piece standing behind another, or a smaller one stacked on its tip) put the pieces in a
//! different order along the camera's rays, and the frame shows which order it is.

use koanscope_geometry::PieceModels;
use koanscope_scene::Size;
use nalgebra::{Isometry3, Point2, Point3, Vector3};

use crate::camera::Camera;
use crate::detect::Detection;
use crate::pose::{row_span, silhouette, vertices_piece};
use crate::region::{Region, for_each_run};
use crate::segment::Segmentation;

/// A placed pyramid as the intersection of its five faces' half-spaces (table frame).
pub(crate) struct Solid {
    /// Outward normal `n` and offset `d` of each face: inside where `n · x <= d`.
    faces: [(Vector3<f64>, f64); 5],
}

impl Solid {
    /// The solid of a piece of this size placed so (a detection's or a scene piece's pose).
    pub(crate) fn new(
        pieces: &PieceModels,
        size: Size,
        table_from_piece: &Isometry3<f64>,
    ) -> Solid {
        Solid::placed(&vertices_piece(&pieces.dims(size)), table_from_piece)
    }

    fn placed(vertices_piece: &[Point3<f64>; 5], table_from_piece: &Isometry3<f64>) -> Solid {
        let v = vertices_piece.map(|p| table_from_piece * p);
        let apex = v[4];
        let inside = Point3::from((v[0].coords + v[1].coords + v[2].coords + v[3].coords) / 4.0)
            + (apex - v[0]) * 0.25;
        let face = |a: Point3<f64>, b: Point3<f64>, c: Point3<f64>| {
            let mut n = (b - a).cross(&(c - a)).normalize();
            if n.dot(&(inside - a)) > 0.0 {
                n = -n;
            }
            (n, n.dot(&a.coords))
        };
        Solid {
            faces: [
                face(v[0], v[1], v[2]),
                face(v[0], v[1], apex),
                face(v[1], v[2], apex),
                face(v[2], v[3], apex),
                face(v[3], v[0], apex),
            ],
        }
    }

    /// How far along the ray from `origin` (unit `direction`) it enters the solid, if it does.
    pub(crate) fn entry(&self, origin: &Point3<f64>, direction: &Vector3<f64>) -> Option<f64> {
        let (mut enter, mut leave) = (0.0_f64, f64::INFINITY);
        for (n, d) in &self.faces {
            let towards = n.dot(direction);
            let outside_by = n.dot(&origin.coords) - d;
            if towards.abs() < 1e-12 {
                if outside_by > 0.0 {
                    return None;
                }
                continue;
            }
            let t = -outside_by / towards;
            if towards < 0.0 {
                enter = enter.max(t);
            } else {
                leave = leave.min(t);
            }
        }
        (enter <= leave).then_some(enter)
    }
}

/// Pixels that agree with the depth order of `these` pieces against `others`, less those that
/// contradict it, over the overlaps of their silhouettes: an overlap pixel of one piece's colour
/// says that piece is the nearer there. Only pixels of one of `these` pieces shown in front
/// count for them: one of `others` shown where one of these is put behind it is what a piece
/// fitted too big would overlap as well, and counted, it let a reading with a post a size too
/// big outweigh the right one (a bridge in D3 scene 3). Pairs of one colour tell nothing and
/// are skipped. Where `these` all belong to one region, only its pixels show them: a pixel of
/// their colour outside it is another piece's (the top of a tower of three, of the base's colour,
/// over the middle piece that hides the base's tip).
pub(crate) fn depth_order_evidence(
    seg: &Segmentation,
    camera: &Camera,
    pieces: &PieceModels,
    these: &[Detection],
    others: &[Detection],
    region_of_these: Option<&Region>,
) -> f64 {
    let origin = camera.centre_table();
    let table_from_camera = camera.table_from_camera();
    let mut evidence = 0.0;
    for a in these {
        let Some(class_a) = seg.class_of(a.color) else {
            continue;
        };
        let solid_a = Solid::new(pieces, a.size, &a.table_from_piece);
        for b in others.iter().filter(|b| b.color != a.color) {
            let Some(class_b) = seg.class_of(b.color) else {
                continue;
            };
            let Some((y0, y1)) = rows_in_common(&a.outline_px, &b.outline_px, seg.height) else {
                continue;
            };
            let solid_b = Solid::new(pieces, b.size, &b.table_from_piece);
            for y in y0..=y1 {
                let row = y as f64;
                let (Some(span_a), Some(span_b)) =
                    (row_span(&a.outline_px, row), row_span(&b.outline_px, row))
                else {
                    continue;
                };
                let (lo, hi) = (span_a.0.max(span_b.0), span_a.1.min(span_b.1));
                if hi < lo.max(0.0) {
                    continue;
                }
                let x0 = lo.max(0.0).ceil() as usize;
                let x1 = (hi.floor() as usize).min(seg.width - 1);
                for x in x0..=x1 {
                    let class = seg.classes[y * seg.width + x];
                    let a_shows = class == class_a;
                    if !a_shows && class != class_b
                        || a_shows && region_of_these.is_some_and(|r| !r.holds(x, y))
                    {
                        continue;
                    }
                    let pixel = Point2::new(x as f64, row);
                    let ray = table_from_camera.rotation * camera.ray_camera(&pixel);
                    let (Some(depth_a), Some(depth_b)) =
                        (solid_a.entry(&origin, &ray), solid_b.entry(&origin, &ray))
                    else {
                        continue;
                    };
                    let a_nearer = depth_a < depth_b;
                    evidence += match (a_shows, a_nearer) {
                        (true, true) => 1.0,
                        (true, false) | (false, true) => -1.0,
                        // What a piece behind another would show, but also what a silhouette
                        // fitted a size too big would: no credit for overlapping more.
                        (false, false) => 0.0,
                    };
                }
            }
        }
    }
    evidence
}

/// The image rows both polygons reach, clipped to the frame.
fn rows_in_common(a: &[Point2<f64>], b: &[Point2<f64>], height: usize) -> Option<(usize, usize)> {
    let rows = |p: &[Point2<f64>]| {
        p.iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), q| {
                (lo.min(q.y), hi.max(q.y))
            })
    };
    let ((a0, a1), (b0, b1)) = (rows(a), rows(b));
    let (top, bottom) = (a0.max(b0).max(0.0), a1.min(b1).min(height as f64 - 1.0));
    (top <= bottom).then(|| (top.floor() as usize, bottom.ceil() as usize))
}

/// The share of each piece's silhouette (`pieces`: size and pose, table frame) that the camera
/// sees, the pieces taken as opaque solids: a pixel of it counts where the ray through it meets
/// no other piece before this one. A piece nested inside another, or lying wholly under a piece
/// across it, gets 0. (The rendered dataset's `visible_fraction`, for truth made here.)
pub fn visible_fractions(
    camera: &Camera,
    models: &PieceModels,
    pieces: &[(Size, Isometry3<f64>)],
) -> Vec<f64> {
    let solids: Vec<Solid> = pieces
        .iter()
        .map(|(size, pose)| Solid::new(models, *size, pose))
        .collect();
    let eye = camera.centre_table();
    let to_table = camera.table_from_camera().rotation;
    pieces
        .iter()
        .enumerate()
        .map(|(i, (size, pose))| {
            let Some(outline) = silhouette(camera, &models.dims(*size), pose) else {
                return 0.0;
            };
            let (mut seen, mut all) = (0usize, 0usize);
            for_each_run(&outline, |y, xa, xb| {
                for x in xa..=xb {
                    let ray = to_table * camera.ray_camera(&Point2::new(x as f64, y as f64));
                    // A pixel at the silhouette's very edge may miss the solid by a rounding.
                    let Some(own) = solids[i].entry(&eye, &ray) else {
                        continue;
                    };
                    all += 1;
                    let in_front = solids.iter().enumerate().any(|(j, other)| {
                        j != i && other.entry(&eye, &ray).is_some_and(|t| t < own)
                    });
                    seen += usize::from(!in_front);
                }
            });
            if all == 0 {
                0.0
            } else {
                seen as f64 / all as f64
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::color::ColorModel;
    use crate::pose::pose_on_table;
    use crate::render::{draw_pieces, table_camera};
    use crate::segment::segment;
    use koanscope_geometry::PyramidDims;
    use koanscope_scene::{Color, Size};

    /// An upright piece standing on the table at `at` (mm), as the detector would report it.
    fn upright(camera: &Camera, color: Color, size: Size, at: Point2<f64>) -> Detection {
        let dims = PieceModels::default().dims(size);
        Detection::placed(
            camera,
            color,
            size,
            pose_on_table(&dims, 0.0, at.x, at.y, 0.2),
        )
    }

    #[test]
    fn a_piece_nested_or_standing_behind_another_shows_less_of_itself() {
        let camera = table_camera();
        let models = PieceModels::default();
        let placer = koanscope_geometry::Placer::default();
        let at = Point2::new(60.0, 60.0);
        let alone = visible_fractions(
            &camera,
            &models,
            &[(Size::Small, placer.upright(at.x, at.y, 0.3))],
        );
        assert!(alone[0] > 0.99, "{alone:?}");
        // A small under a large of the same place: the large shows all of itself, the small none.
        let nest = [
            (Size::Large, placer.upright(at.x, at.y, 0.3)),
            (Size::Small, placer.upright(at.x, at.y, 0.3)),
        ];
        let nested = visible_fractions(&camera, &models, &nest);
        assert!(nested[0] > 0.99 && nested[1] == 0.0, "{nested:?}");
        // A small 30 mm behind a large, seen from the camera: partly hidden.
        let away = (at - camera.centre_table().xy()).normalize();
        let behind = at + away * 30.0;
        let row = [
            (Size::Large, placer.upright(at.x, at.y, 0.3)),
            (Size::Small, placer.upright(behind.x, behind.y, 0.3)),
        ];
        let seen = visible_fractions(&camera, &models, &row);
        assert!(seen[0] > 0.99, "{seen:?}");
        assert!(seen[1] > 0.05 && seen[1] < 0.9, "{seen:?}");
    }

    #[test]
    fn the_frame_tells_which_of_two_overlapping_pieces_is_in_front() {
        let camera = table_camera();
        let models = PieceModels::default();
        // A medium blue piece 30 mm nearer the camera than a large red one.
        let back = upright(&camera, Color::Red, Size::Large, Point2::new(60.0, 60.0));
        let towards_camera = (camera.centre_table().xy() - Point2::new(60.0, 60.0)).normalize();
        let front_at = Point2::new(60.0, 60.0) + towards_camera * 30.0;
        let front = upright(&camera, Color::Blue, Size::Medium, front_at);
        let drawn = |first: &Detection, second: &Detection| {
            let frame = draw_pieces(
                &camera,
                &[
                    (first.color, first.size, first.table_from_piece),
                    (second.color, second.size, second.table_from_piece),
                ],
            )
            .unwrap();
            segment(&frame, &ColorModel::default()).unwrap()
        };
        // Drawn as the camera would see them: the overlap shows the front piece.
        let seen = drawn(&back, &front);
        let agree = depth_order_evidence(
            &seen,
            &camera,
            &models,
            std::slice::from_ref(&front),
            std::slice::from_ref(&back),
            None,
        );
        assert!(agree > 100.0, "{agree}");
        // Drawn the other way round, the same poses are contradicted by as many pixels.
        let swapped = drawn(&front, &back);
        let disagree = depth_order_evidence(
            &swapped,
            &camera,
            &models,
            std::slice::from_ref(&front),
            std::slice::from_ref(&back),
            None,
        );
        assert!(disagree < -100.0, "{disagree}");
    }

    /// A tower of three whose top has the base's colour: the top's pixels over the middle piece,
    /// where the base's tip is hidden too, are not the base showing in front of the middle.
    #[test]
    fn a_tower_top_of_the_base_colour_is_no_evidence_against_the_base() {
        let camera = table_camera();
        let models = PieceModels::default();
        let placer = koanscope_geometry::Placer::new(models);
        let base_pose = pose_on_table(&models.dims(Size::Large), 0.0, 60.0, 80.0, 0.4);
        let middle_pose = placer
            .on_tip(Size::Large, &base_pose, Size::Medium)
            .unwrap();
        let top_pose = placer
            .on_tip(Size::Medium, &middle_pose, Size::Small)
            .unwrap();
        let base = Detection::placed(&camera, Color::Red, Size::Large, base_pose);
        let middle = Detection::placed(&camera, Color::Yellow, Size::Medium, middle_pose);
        let frame = draw_pieces(
            &camera,
            &[
                (Color::Red, Size::Large, base_pose),
                (Color::Yellow, Size::Medium, middle_pose),
                (Color::Red, Size::Small, top_pose),
            ],
        )
        .unwrap();
        let seen = segment(&frame, &ColorModel::default()).unwrap();
        let regions =
            crate::region::regions(&seen, &crate::detect::DetectParams::default(), 40).unwrap();
        let foot = camera
            .project_table(&(base_pose * Point3::origin()))
            .unwrap();
        let near_foot = |r: &&Region| {
            (0..12).any(|up| r.holds(foot.x.round() as usize, foot.y.round() as usize - up))
        };
        let base_region = regions.iter().find(near_foot).expect("the base's region");
        let evidence = |region: Option<&Region>| {
            depth_order_evidence(
                &seen,
                &camera,
                &models,
                std::slice::from_ref(&base),
                std::slice::from_ref(&middle),
                region,
            )
        };
        let (anywhere, in_its_region) = (evidence(None), evidence(Some(base_region)));
        assert!(anywhere < -50.0, "{anywhere}");
        assert!(in_its_region.abs() <= 10.0, "{in_its_region}");
    }

    #[test]
    fn a_piece_put_behind_another_gains_nothing_from_the_overlap_however_big() {
        let camera = table_camera();
        let models = PieceModels::default();
        // A red small 25 mm behind a blue medium, as the camera sees them.
        let back_at = Point2::new(60.0, 60.0);
        let towards_camera = (camera.centre_table().xy() - back_at).normalize();
        let front = upright(
            &camera,
            Color::Blue,
            Size::Medium,
            back_at + towards_camera * 25.0,
        );
        let back = upright(&camera, Color::Red, Size::Small, back_at);
        let frame = draw_pieces(
            &camera,
            &[
                (back.color, back.size, back.table_from_piece),
                (front.color, front.size, front.table_from_piece),
            ],
        )
        .unwrap();
        let seen = segment(&frame, &ColorModel::default()).unwrap();
        let evidence = |piece: &Detection| {
            depth_order_evidence(
                &seen,
                &camera,
                &models,
                std::slice::from_ref(piece),
                std::slice::from_ref(&front),
                None,
            )
        };
        // The red piece read a size too big overlaps the blue one more: the blue shown there
        // does not make that reading likelier than the right one.
        let too_big = upright(&camera, Color::Red, Size::Large, back_at);
        let (right, wrong) = (evidence(&back), evidence(&too_big));
        assert!(right.abs() <= 2.0, "{right}");
        assert!(wrong <= right, "{wrong} > {right}");
    }

    #[test]
    fn a_ray_enters_an_upright_pyramid_where_its_faces_are() {
        let dims = PyramidDims {
            base_mm: 20.0,
            height_mm: 30.0,
        };
        let solid = Solid::placed(&vertices_piece(&dims), &Isometry3::identity());
        // Straight down from 100 mm above the apex: enters at the apex.
        let down = -Vector3::z();
        let t = solid.entry(&Point3::new(0.0, 0.0, 130.0), &down).unwrap();
        assert!((t - 100.0).abs() < 1e-9, "{t}");
        // Down at 5 mm off the axis: a third of the way to the rim, so a third of the way down.
        let t = solid.entry(&Point3::new(5.0, 0.0, 130.0), &down).unwrap();
        assert!((t - 115.0).abs() < 1e-9, "{t}");
        // Horizontally at z = 0.1, from the side: enters at the base edge.
        let t = solid
            .entry(&Point3::new(-50.0, 0.0, 0.1), &Vector3::x())
            .unwrap();
        assert!((t - (50.0 - 10.0 * (1.0 - 0.1 / 30.0))).abs() < 1e-9, "{t}");
        // Past the rim: misses.
        assert!(solid.entry(&Point3::new(11.0, 0.0, 130.0), &down).is_none());
    }
}
