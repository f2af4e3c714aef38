//! What an overlay shows, as plain data in pixels: outlines, labels, axes, pointing rays and koan
//! outlines. [`write_overlay`](crate::write_overlay) draws exactly these shapes with OpenCV; a live
//! view (egui or anything else) can draw them too without linking OpenCV.

use koanscope_geometry::Thresholds;
use koanscope_scene::{Color, KoanId, Orientation, PieceId, Size};
use nalgebra::{Point2, Point3, Vector3};
use serde::{Deserialize, Serialize};

use crate::analyze::Analysis;
use crate::camera::Camera;
use crate::pose::convex_hull;

/// How far a koan's outline stands out from the hull of its pieces' outlines, pixels.
pub const KOAN_MARGIN_PX: f64 = 12.0;
/// Spacing of the points of a pointing ray's polyline along the ray, mm (lens distortion bends
/// long straight legs in the image).
const RAY_STEP_MM: f64 = 10.0;
/// A pointing ray is drawn a little past its farthest target's entry point, mm.
const RAY_PAST_TARGET_MM: f64 = 10.0;

/// Everything an overlay draws for one analysed frame, in image pixels (x right, y down).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OverlayShapes {
    /// Width and height of the frame the pixels refer to, when known.
    pub image_size: Option<[u32; 2]>,
    pub pieces: Vec<PieceShape>,
    pub koans: Vec<KoanShape>,
}

/// One piece as drawn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PieceShape {
    /// The piece's id in the scene document.
    pub id: PieceId,
    pub koan: Option<KoanId>,
    pub color: Color,
    pub size: Size,
    /// Words for people: "red large".
    pub label: String,
    /// The compact label drawn on the frame: id, colour initial and pips, orientation and
    /// confidence ("3 r3 upright 0.91").
    pub short_label: String,
    /// Where the short label's baseline is wanted to start ([`lay_labels`] lifts it clear of
    /// the labels drawn before it).
    pub label_px: [f64; 2],
    /// Display colour of the piece's colour, RGB.
    pub rgb: [u8; 3],
    /// The fitted silhouette, a closed polygon.
    pub outline_px: Vec<[f64; 2]>,
    /// Base centre to apex, when both project into the image.
    pub axis_px: Option<[[f64; 2]; 2]>,
    /// The pointing ray from the apex (bent along the table when it goes down), drawn a little
    /// past the farthest piece it points at; empty when it points at nothing.
    pub pointing_px: Vec<[f64; 2]>,
    /// The pieces it points at, nearest first.
    pub pointing_at: Vec<PieceId>,
    pub orientation: Option<Orientation>,
    pub grounded: Option<bool>,
    pub confidence: f64,
}

/// One koan as drawn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KoanShape {
    pub id: KoanId,
    pub pieces: Vec<PieceId>,
    /// "koan 2".
    pub label: String,
    /// Where the label's baseline is wanted to start (above the outline's top; see
    /// [`PieceShape::label_px`]).
    pub label_px: [f64; 2],
    /// The convex hull of its pieces' outlines grown by [`KOAN_MARGIN_PX`], a closed polygon.
    pub outline_px: Vec<[f64; 2]>,
    /// Pieces of the koan that may hide a smaller nested piece the camera cannot see (for the
    /// Master's eyes: lift them before marking).
    pub may_hide_piece_under: Vec<PieceId>,
}

/// A label's box in image pixels: `[left, top, right, bottom]`.
pub type LabelBox = [i32; 4];

/// Pixels kept between two labels.
const LABEL_GAP_PX: i32 = 2;

/// Where labels wanted at `wanted` go on a frame `height` pixels high so that none covers
/// another (pieces of one koan stand close, and their labels would hide each other): in order,
/// each where it is wanted, or lifted just above the labels laid before it that it would cover,
/// or, where that would leave the frame, moved down below them instead; where neither fits, it
/// stays where it is wanted.
pub fn lay_labels(wanted: &[LabelBox], height: i32) -> Vec<LabelBox> {
    let mut laid: Vec<LabelBox> = Vec::with_capacity(wanted.len());
    for &label in wanted {
        let up = clear_of(&laid, label, -1).filter(|b| b[1] >= 0);
        let spot = up
            .or_else(|| clear_of(&laid, label, 1).filter(|b| b[3] <= height))
            .unwrap_or(label);
        laid.push(spot);
    }
    laid
}

/// `label` moved up (`direction` -1) or down (1) past every box of `laid` it would cover.
fn clear_of(laid: &[LabelBox], mut label: LabelBox, direction: i32) -> Option<LabelBox> {
    // Each move leaves one box behind for good: as many moves as boxes suffice.
    for _ in 0..=laid.len() {
        let covers = |b: &&LabelBox| {
            label[0] < b[2] + LABEL_GAP_PX
                && b[0] < label[2] + LABEL_GAP_PX
                && label[1] < b[3] + LABEL_GAP_PX
                && b[1] < label[3] + LABEL_GAP_PX
        };
        let Some(hit) = laid.iter().find(covers) else {
            return Some(label);
        };
        let shift = if direction < 0 {
            hit[1] - LABEL_GAP_PX - label[3]
        } else {
            hit[3] + LABEL_GAP_PX - label[1]
        };
        label[1] += shift;
        label[3] += shift;
    }
    None
}

/// Display colour (RGB) of a piece colour.
pub fn display_rgb(color: Color) -> [u8; 3] {
    match color {
        Color::Red => [230, 40, 40],
        Color::Yellow => [255, 220, 0],
        Color::Green => [40, 200, 60],
        Color::Blue => [30, 120, 255],
        Color::Black => [20, 20, 20],
        Color::Orange => [255, 140, 0],
        Color::Cyan => [0, 255, 255],
        Color::Purple => [150, 40, 200],
        Color::White | Color::Clear => [250, 250, 250],
    }
}

fn xy(p: &Point2<f64>) -> [f64; 2] {
    [round1(p.x), round1(p.y)]
}

fn round1(v: f64) -> f64 {
    (v * 10.0).round() / 10.0
}

/// The shapes an overlay of `analysis` draws, in the pixels of the frame it came from.
pub fn shapes(analysis: &Analysis, camera: &Camera) -> OverlayShapes {
    let scene = &analysis.scene;
    let skim = Thresholds::default().skim_height_mm;
    let pieces = scene
        .pieces
        .iter()
        .zip(&analysis.detections)
        .map(|(piece, d)| {
            let attributes = piece.attributes.as_ref();
            let orientation = attributes.map(|a| a.orientation);
            let koan = piece
                .koan
                .and_then(|k| scene.koans.iter().find(|q| q.id == k));
            let pointing_at: Vec<PieceId> = koan
                .map(|k| k.targets_of(piece.id).collect())
                .unwrap_or_default();
            // The ray runs to the farthest target's entry point (or its base when the document
            // has no distances).
            let reach = koan
                .and_then(|k| k.relations_detail.as_ref())
                .map(|detail| {
                    detail
                        .pointing
                        .iter()
                        .filter(|p| p.a == piece.id && p.holds)
                        .map(|p| p.distance_mm)
                        .fold(0.0, f64::max)
                })
                .unwrap_or(0.0);
            let pointing_px = match attributes {
                Some(a) if !pointing_at.is_empty() => {
                    let reach = if reach > 0.0 {
                        reach
                    } else {
                        pointing_at
                            .iter()
                            .filter_map(|t| scene.piece(*t))
                            .filter_map(|t| t.attributes.as_ref())
                            .map(|t| (t.base_center_mm - a.apex_mm).norm())
                            .fold(0.0, f64::max)
                    };
                    bent_ray(a.apex_mm, a.axis, skim, reach + RAY_PAST_TARGET_MM)
                        .iter()
                        .filter_map(|p| camera.project_table(p))
                        .map(|p| xy(&p))
                        .collect()
                }
                _ => Vec::new(),
            };
            let axis_px = attributes.and_then(|a| {
                Some([
                    xy(&camera.project_table(&a.base_center_mm)?),
                    xy(&camera.project_table(&a.apex_mm)?),
                ])
            });
            let leftmost = d
                .outline_px
                .iter()
                .fold(
                    Point2::new(f64::MAX, 0.0),
                    |m, p| if p.x < m.x { *p } else { m },
                );
            PieceShape {
                id: piece.id,
                koan: piece.koan,
                color: piece.color,
                size: piece.size,
                label: format!("{} {}", piece.color.word(), piece.size.word()),
                short_label: format!(
                    "{} {}{} {} {:.2}",
                    piece.id,
                    &piece.color.word()[..1],
                    piece.pips(),
                    orientation.map_or("?", |o| o.word()),
                    d.confidence
                ),
                // Rounded like every other position, so the shapes read back as written.
                label_px: if d.outline_px.is_empty() {
                    xy(&d.image_xy)
                } else {
                    xy(&Point2::new(leftmost.x - 10.0, leftmost.y + 28.0))
                },
                rgb: display_rgb(piece.color),
                outline_px: d.outline_px.iter().map(xy).collect(),
                axis_px,
                pointing_px,
                pointing_at,
                orientation,
                grounded: attributes.map(|a| a.grounded),
                confidence: round2(d.confidence),
            }
        })
        .collect();
    let koans = scene
        .koans
        .iter()
        .map(|koan| {
            let points: Vec<Point2<f64>> = koan
                .pieces
                .iter()
                .filter_map(|id| scene.pieces.iter().position(|p| p.id == *id))
                .filter_map(|i| analysis.detections.get(i))
                .flat_map(|d| d.outline_px.iter().copied())
                .collect();
            let hull = convex_hull(points);
            let grown: Vec<Point2<f64>> = if hull.is_empty() {
                Vec::new()
            } else {
                let centre = hull.iter().fold(Point2::origin(), |acc, p| {
                    acc + p.coords / hull.len() as f64
                });
                hull.iter()
                    .map(|p| {
                        let out = p - centre;
                        if out.norm() > 1e-9 {
                            p + out.normalize() * KOAN_MARGIN_PX
                        } else {
                            *p
                        }
                    })
                    .collect()
            };
            let top = grown
                .iter()
                .fold(None::<Point2<f64>>, |m, p| match m {
                    Some(m) if m.y <= p.y => Some(m),
                    _ => Some(*p),
                })
                .unwrap_or_else(Point2::origin);
            KoanShape {
                id: koan.id,
                may_hide_piece_under: analysis
                    .possibly_hiding
                    .iter()
                    .filter(|h| h.koan == Some(koan.id))
                    .map(|h| h.piece)
                    .collect(),
                pieces: koan.pieces.clone(),
                label: format!("koan {}", koan.id),
                label_px: xy(&Point2::new(top.x - 20.0, top.y - 6.0)),
                outline_px: grown.iter().map(xy).collect(),
            }
        })
        .collect();
    OverlayShapes {
        image_size: scene.image_size,
        pieces,
        koans,
    }
}

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// Points along the pointing ray of `zendo-terms.md` (straight along the axis from the apex, or
/// down to the skim height and then along the table), `length` mm long, table frame.
fn bent_ray(apex: Point3<f64>, axis: Vector3<f64>, skim: f64, length: f64) -> Vec<Point3<f64>> {
    let axis = axis.normalize();
    let mut legs: Vec<(Point3<f64>, Vector3<f64>, f64)> = Vec::new();
    let mut left = length;
    if axis.z < -1e-9 {
        let start = if apex.z > skim {
            let down = ((apex.z - skim) / -axis.z).min(left);
            legs.push((apex, axis, down));
            left -= down;
            apex + axis * down
        } else {
            Point3::new(apex.x, apex.y, skim)
        };
        let along = Vector3::new(axis.x, axis.y, 0.0);
        if along.norm() > 1e-9 && left > 0.0 {
            legs.push((start, along.normalize(), left));
        }
    } else {
        legs.push((apex, axis, left));
    }
    let mut points = vec![apex];
    for (origin, dir, len) in legs {
        let steps = (len / RAY_STEP_MM).ceil().max(1.0) as usize;
        for i in 1..=steps {
            points.push(origin + dir * (len * i as f64 / steps as f64));
        }
    }
    points
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether two boxes share any pixel.
    fn overlap(a: &LabelBox, b: &LabelBox) -> bool {
        a[0].max(b[0]) < a[2].min(b[2]) && a[1].max(b[1]) < a[3].min(b[3])
    }

    #[test]
    fn labels_of_a_pile_are_lifted_clear_of_one_another() {
        // Four pieces of a pile labelled from nearly one spot, and the koan's label over them.
        let wanted = [
            [300, 400, 420, 414],
            [310, 404, 430, 418],
            [305, 398, 425, 412],
            [500, 400, 600, 414],
            [320, 396, 380, 412],
        ];
        let laid = lay_labels(&wanted, 720);
        assert_eq!(laid[0], wanted[0], "the first stays where it is wanted");
        assert_eq!(laid[3], wanted[3], "one apart from the others stays too");
        for (i, a) in laid.iter().enumerate() {
            assert_eq!(a[2] - a[0], wanted[i][2] - wanted[i][0], "same size");
            assert_eq!(a[3] - a[1], wanted[i][3] - wanted[i][1], "same size");
            assert_eq!(a[0], wanted[i][0], "lifted, never moved aside");
            for b in &laid[i + 1..] {
                assert!(!overlap(a, b), "{a:?} and {b:?} overlap");
            }
        }
        // Each lifted just above the one it met: the pile's labels stack upwards.
        assert_eq!(laid[1][3], laid[0][1] - LABEL_GAP_PX);
        assert_eq!(laid[2][3], laid[1][1] - LABEL_GAP_PX);
        assert_eq!(laid[4][3], laid[2][1] - LABEL_GAP_PX);
    }

    #[test]
    fn at_the_top_of_the_frame_a_label_goes_below_instead() {
        let wanted = [[10, 2, 110, 16], [20, 6, 120, 20]];
        let laid = lay_labels(&wanted, 720);
        assert_eq!(laid[1], [20, 18, 120, 32]);
    }

    #[test]
    fn a_downward_ray_bends_at_the_skim_height_and_runs_along_the_table() {
        let axis = Vector3::new(1.0, 0.0, -1.0);
        let points = bent_ray(Point3::new(0.0, 0.0, 11.0), axis, 1.0, 100.0);
        let bend = Point3::new(10.0, 0.0, 1.0);
        assert!(
            points.iter().any(|p| (p - bend).norm() < 1e-9),
            "{points:?}"
        );
        let end = points.last().expect("points");
        assert!((end.z - 1.0).abs() < 1e-9 && end.x > 10.0 + 80.0, "{end}");
        assert!(
            points
                .windows(2)
                .all(|w| (w[1] - w[0]).norm() <= RAY_STEP_MM + 1e-9)
        );
    }

    #[test]
    fn an_upward_ray_goes_straight() {
        let points = bent_ray(Point3::new(0.0, 0.0, 5.0), Vector3::z(), 1.0, 25.0);
        assert!((points.last().expect("points").z - 30.0).abs() < 1e-9);
    }
}
