//! One frame to one scene document: detection, then the geometry engine; and the overlay picture.

use std::path::Path;

use koanscope_geometry::{Engine, PyramidDims, may_hide};
use koanscope_scene::{JudgmentCall, Koan, KoanId, Piece, PieceId, Scene};
use nalgebra::{Isometry3, Translation3, Vector3};
use opencv::core::{self, Mat, Point, Scalar, Vector};
use opencv::imgproc;
use opencv::prelude::*;

use crate::calibration::check_resolution;
use crate::camera::Camera;
use crate::contact::{
    Support, close_gaps, note_closed_gaps, note_opened_gaps, open_seen_gaps, seat_stacked,
};
use crate::detect::{
    Detection, Detector, OVERLAP_MM, ShadedAlternative, ShadedChoice, Tipped, polygon_area,
};
use crate::error::{CvContext, VisionError};
use crate::gap::{frame_fits_apart, gap_seen};
use crate::image::size_of;
use crate::memory::FitMemory;
use crate::occlusion::depth_order_evidence;
use crate::overlay;
use crate::pose::{Resting, centroid_piece, leans, silhouette};
use crate::segment::Segmentation;
use crate::steadiness::reading;

/// The scene a frame shows, the detections behind it, and anything the user should know.
#[derive(Debug, Clone)]
pub struct Analysis {
    pub scene: Scene,
    /// `detections[i]` is `scene.pieces[i]`.
    pub detections: Vec<Detection>,
    /// Conditions that make the result doubtful (dark frame, nothing found), with what to do.
    pub warnings: Vec<String>,
    /// Pieces that may hide a smaller piece nested inside them, unseen
    /// ([`koanscope_geometry::may_hide`]: silhouettes cannot see inside, and the colour seen
    /// through translucent plastic is not read).
    pub possibly_hiding: Vec<PossiblyHiding>,
}

/// A piece under which the camera cannot rule out a hidden nested piece: the Master should lift
/// it (or look through it) before marking its koan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PossiblyHiding {
    pub koan: Option<KoanId>,
    pub piece: PieceId,
}

/// Finds the pieces in a frame and derives their attributes, relations and koans.
pub fn analyze(
    image: &Mat,
    image_path: &Path,
    camera: &Camera,
    detector: &Detector,
    engine: &Engine,
) -> Result<Analysis, VisionError> {
    analyze_remembering(image, image_path, camera, detector, engine, None)
}

/// Like [`analyze`] for one frame of a sequence from one camera: regions that look as they did
/// in the memory's last frame keep their pieces instead of being fitted again.
pub fn analyze_remembering(
    image: &Mat,
    image_path: &Path,
    camera: &Camera,
    detector: &Detector,
    engine: &Engine,
    memory: Option<&FitMemory>,
) -> Result<Analysis, VisionError> {
    check_resolution(image, image_path, &camera.intrinsics)?;
    let (mut detections, notes, seg) = detector.detect_segmented(image, camera, memory)?;
    // Reading order (top to bottom, then left to right in bands) gives stable, findable ids.
    detections.sort_by(|a, b| {
        let band = |d: &Detection| (d.image_xy.y / 80.0).floor();
        band(a)
            .total_cmp(&band(b))
            .then(a.image_xy.x.total_cmp(&b.image_xy.x))
    });
    let mut pieces: Vec<Piece> = detections
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let mut piece = Piece::new(i as PieceId, d.color, d.size, d.table_from_piece);
            piece.image_xy = Some([round2(d.image_xy.x), round2(d.image_xy.y)]);
            piece.confidence = Some(round2(d.confidence));
            piece
        })
        .collect();
    let mut support: Vec<Support> = detections
        .iter()
        .map(|d| support_of(d, &detector.pieces.dims(d.size)))
        .collect();
    let stacked: Vec<bool> = detections
        .iter()
        .map(|d| d.resting == Resting::Stacked)
        .collect();
    let seats = seat_stacked(&mut pieces, &stacked, &detector.pieces);
    // Towers whose base was read from the rim it shows under the piece on it: (base, top, share
    // of the base in view).
    let rim_towers: Vec<(usize, usize, f64)> = seats
        .iter()
        .enumerate()
        .filter_map(|(top, seat)| {
            let base = (*seat)?;
            Some((base, top, detections[base].rim_share?))
        })
        .collect();
    for (i, seat) in seats.into_iter().enumerate() {
        if let Some(under) = seat {
            support[i] = Support::Seated(under);
        } else if stacked[i]
            && let Some(standing) =
                standing_where_seen(&pieces[i], &detections[i], camera, detector)
        {
            // Fitted on a tip that is not there (the piece it stood on was dropped from its
            // region's reading): nothing holds it up, so it stands on the table where it was seen.
            pieces[i].table_from_piece = standing;
            support[i] = Support::Itself;
        }
    }
    let closed = close_gaps(
        &mut pieces,
        &support,
        engine,
        &detector.pieces,
        detector.params.contact_snap_mm,
        detector.params.leaning_snap_mm,
        &|pieces: &[Piece], i, j| {
            gap_seen(
                &seg,
                camera,
                &detector.pieces,
                engine,
                pieces,
                i,
                j,
                detector.params.leaning_snap_mm + 1.0,
            )
        },
    );
    crate::lean_refit::refit_leaners(
        &mut pieces,
        &support,
        &seg,
        camera,
        &detector.pieces,
        engine,
        detector.params.leak_weight,
    );
    let opened = open_seen_gaps(
        &mut pieces,
        &support,
        engine,
        &|pieces: &[Piece], pair, mover, moved: &Piece| {
            frame_fits_apart(
                &seg,
                camera,
                &detector.pieces,
                engine,
                pieces,
                pair,
                mover,
                moved,
            )
        },
    );
    // Where a piece was seated or moved into contact, the overlay outlines it where the scene
    // has it (its axis is drawn from there too), not where the fit left it. Its image position
    // stays where the camera saw it.
    for (d, p) in detections.iter_mut().zip(&pieces) {
        if d.table_from_piece == p.table_from_piece {
            continue;
        }
        d.table_from_piece = p.table_from_piece;
        if let Some(outline) =
            silhouette(camera, &detector.pieces.dims(d.size), &p.table_from_piece)
        {
            d.outline_px = outline;
        }
    }
    let mut scene = Scene::from_pieces(pieces);
    scene.source = Some(image_path.display().to_string());
    scene.image_size = Some(size_of(image));
    engine.derive(&mut scene);
    note_closed_gaps(&mut scene, &closed);
    note_opened_gaps(&mut scene, &opened);
    note_rim_towers(&mut scene, &rim_towers);
    let choices: Vec<Option<ShadedChoice>> = detections.iter().map(|d| d.shaded_choice).collect();
    note_shaded_choices(&mut scene, &choices, detector.params.shaded_tilt_lead);
    let tipped: Vec<Option<Tipped>> = detections.iter().map(|d| d.tipped).collect();
    note_tipped(&mut scene, &tipped);
    note_impossible_overlaps(&mut scene, engine);
    note_contradicted_depth_order(&mut scene, &seg, camera, detector, &detections);
    let rivals: Vec<Option<&str>> = detections.iter().map(turned_over_rival).collect();
    note_unsure_readings(&mut scene, &rivals);
    // The only note today is the board left on the table, which explains an empty table.
    let board_seen = !notes.is_empty();
    let mut warnings = notes;
    let levels = frame_levels(image)?;
    let brightness = levels.mean;
    if brightness < 40.0 {
        warnings.push(format!(
            "the frame is very dark (mean level {brightness:.0} of 255): light the table or raise the exposure"
        ));
    } else if levels.white_share >= OVEREXPOSED_SHARE {
        warnings.push(format!(
            "the frame is overexposed ({:.0} % of it clipped white): lower the exposure or the light",
            100.0 * levels.white_share
        ));
    } else if levels.grey_share >= COLOURLESS_SHARE {
        // Every piece would read black or not at all: say why rather than mark such koans.
        warnings.push(
            "the frame has no colour (every pixel grey): is the camera in monochrome or infrared night mode? Pieces are told apart by their colour: switch it to colour and light the table".into(),
        );
    }
    let possibly_hiding: Vec<PossiblyHiding> = scene
        .pieces
        .iter()
        .filter(|p| may_hide(p))
        .map(|p| PossiblyHiding {
            koan: p.koan,
            piece: p.id,
        })
        .collect();
    if scene.pieces.is_empty() && !board_seen {
        warnings.push(
            "no pieces found: is the table in view and lit? If pieces are there, re-learn the colours with `koanscope calibrate colors`".into(),
        );
    }
    Ok(Analysis {
        scene,
        detections,
        warnings,
        possibly_hiding,
    })
}

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

fn scalar(rgb: [u8; 3]) -> Scalar {
    Scalar::new(rgb[2] as f64, rgb[1] as f64, rgb[0] as f64, 0.0)
}

fn cv_point(p: &[f64; 2]) -> Point {
    Point::new(p[0].round() as i32, p[1].round() as i32)
}

fn polyline(
    canvas: &mut Mat,
    points: &[[f64; 2]],
    closed: bool,
    color: Scalar,
    thickness: i32,
) -> Result<(), VisionError> {
    let mut polys = Vector::<Vector<Point>>::new();
    polys.push(points.iter().map(cv_point).collect());
    imgproc::polylines(
        canvas,
        &polys,
        closed,
        color,
        thickness,
        imgproc::LINE_AA,
        0,
    )
    .during("drawing the overlay")
}

/// Font scales of the labels (OpenCV's Hershey simplex).
const PIECE_LABEL_SCALE: f64 = 0.4;
const KOAN_LABEL_SCALE: f64 = 0.45;
/// Room around a label's text on its plate, pixels.
const LABEL_PAD_PX: i32 = 2;

/// The box of `label`'s plate with its baseline starting at `at`, and how far the text reaches
/// below its baseline (pixels).
fn label_box(
    label: &str,
    at: &[f64; 2],
    scale: f64,
) -> Result<(overlay::LabelBox, i32), VisionError> {
    let mut descent = 0;
    let size = imgproc::get_text_size(label, imgproc::FONT_HERSHEY_SIMPLEX, scale, 1, &mut descent)
        .during("measuring a label")?;
    let origin = cv_point(at);
    let plate = [
        origin.x - LABEL_PAD_PX,
        origin.y - size.height - LABEL_PAD_PX,
        origin.x + size.width + LABEL_PAD_PX,
        origin.y + descent + LABEL_PAD_PX,
    ];
    Ok((plate, descent))
}

/// Darkens the frame under a label's box so the label reads over any table and piece.
fn plate(canvas: &mut Mat, spot: &overlay::LabelBox) -> Result<(), VisionError> {
    let (w, h) = (canvas.cols(), canvas.rows());
    let (x0, y0) = (spot[0].clamp(0, w), spot[1].clamp(0, h));
    let (x1, y1) = (spot[2].clamp(0, w), spot[3].clamp(0, h));
    if x1 <= x0 || y1 <= y0 {
        return Ok(());
    }
    let mut under =
        Mat::roi_mut(canvas, core::Rect::new(x0, y0, x1 - x0, y1 - y0)).during("drawing labels")?;
    let mut dark = Mat::default();
    under
        .convert_to(&mut dark, -1, 0.5, 0.0)
        .during("drawing labels")?;
    dark.copy_to(&mut under).during("drawing labels")
}

fn text(
    canvas: &mut Mat,
    text: &str,
    at: &[f64; 2],
    scale: f64,
    color: Scalar,
) -> Result<(), VisionError> {
    imgproc::put_text(
        canvas,
        text,
        cv_point(at),
        imgproc::FONT_HERSHEY_SIMPLEX,
        scale,
        color,
        1,
        imgproc::LINE_AA,
        false,
    )
    .during("drawing labels")
}

/// Draws the shapes of [`overlay::shapes`] (outlines, labels, axes, pointing rays, koan
/// outlines) over the frame and writes a PNG.
pub fn write_overlay(
    image: &Mat,
    camera: &Camera,
    analysis: &Analysis,
    path: &Path,
) -> Result<(), VisionError> {
    let shapes = overlay::shapes(analysis, camera);
    let mut canvas = image.try_clone().during("copying the frame")?;
    let white = Scalar::new(255.0, 255.0, 255.0, 0.0);
    let magenta = Scalar::new(255.0, 0.0, 255.0, 0.0);
    // Labels go on last, each on a dark plate, laid clear of one another: the pieces' first,
    // then the koans' over them.
    let mut labels: Vec<(&str, &[f64; 2], f64)> = Vec::new();
    for koan in &shapes.koans {
        if koan.outline_px.len() >= 3 {
            polyline(&mut canvas, &koan.outline_px, true, white, 1)?;
        }
    }
    for piece in &shapes.pieces {
        if piece.pointing_px.len() >= 2 {
            polyline(&mut canvas, &piece.pointing_px, false, magenta, 1)?;
            let n = piece.pointing_px.len();
            imgproc::arrowed_line(
                &mut canvas,
                cv_point(&piece.pointing_px[n - 2]),
                cv_point(&piece.pointing_px[n - 1]),
                magenta,
                1,
                imgproc::LINE_AA,
                0,
                0.5,
            )
            .during("drawing pointing")?;
        }
    }
    for piece in &shapes.pieces {
        polyline(&mut canvas, &piece.outline_px, true, scalar(piece.rgb), 2)?;
        if let Some([base, apex]) = &piece.axis_px {
            imgproc::line(
                &mut canvas,
                cv_point(base),
                cv_point(apex),
                white,
                1,
                imgproc::LINE_AA,
                0,
            )
            .during("drawing axes")?;
        }
        labels.push((&piece.short_label, &piece.label_px, PIECE_LABEL_SCALE));
    }
    for koan in shapes.koans.iter().filter(|k| k.outline_px.len() >= 3) {
        labels.push((&koan.label, &koan.label_px, KOAN_LABEL_SCALE));
    }
    let measured = labels
        .iter()
        .map(|(label, at, scale)| label_box(label, at, *scale))
        .collect::<Result<Vec<_>, _>>()?;
    let wanted: Vec<overlay::LabelBox> = measured.iter().map(|(b, _)| *b).collect();
    let laid = overlay::lay_labels(&wanted, canvas.rows());
    for (((label, _, scale), (_, descent)), spot) in labels.iter().zip(&measured).zip(&laid) {
        plate(&mut canvas, spot)?;
        let origin = [
            f64::from(spot[0] + LABEL_PAD_PX),
            f64::from(spot[3] - LABEL_PAD_PX - descent),
        ];
        text(&mut canvas, label, &origin, *scale, white)?;
    }
    crate::image::write_bgr(path, &canvas)
}

/// `piece` standing upright on the table, turned as it is, with its centroid on the camera ray
/// through where its centroid was seen.
fn standing_where_seen(
    piece: &Piece,
    detection: &Detection,
    camera: &Camera,
    detector: &Detector,
) -> Option<Isometry3<f64>> {
    let dims = detector.pieces.dims(piece.size);
    let centroid_height = centroid_piece(&dims).z;
    let centroid = camera.pixel_to_table_plane(&detection.image_xy, centroid_height)?;
    let mut standing = piece.table_from_piece;
    standing.translation = Translation3::new(centroid.x, centroid.y, 0.0);
    Some(standing)
}

/// A tower's base of which less than this share is in view is a judgment call for the Master.
/// The top hides much of any base: on dev the bases of ordinary towers show 39–59 % of their
/// silhouette, those that show only a rim 9–16 %.
const RIM_SHARE_TO_CHECK: f64 = 0.25;

/// Adds a judgment call to the koan of each tower whose base was read from a rim, less than
/// [`RIM_SHARE_TO_CHECK`] of it in view, under the piece on it: `(base, top, share)` by index
/// into the scene's pieces.
fn note_rim_towers(scene: &mut Scene, rim_towers: &[(usize, usize, f64)]) {
    for &(base, top, share) in rim_towers {
        if share >= RIM_SHARE_TO_CHECK {
            continue;
        }
        let (base, top) = (scene.pieces[base].id, scene.pieces[top].id);
        let Some(koan) = scene.koans.iter_mut().find(|k| k.pieces.contains(&base)) else {
            continue;
        };
        koan.judgment_calls.push(JudgmentCall {
            what: "tower".into(),
            pieces: vec![base, top],
            decided: true,
            margin: round_share(share - RIM_SHARE_TO_CHECK),
            unit: "share of the base in view".into(),
            note: format!(
                "tower ({base}, {top}): yes, but only a rim of {base} shows under {top} ({:.0} % of it): lift {top} to check",
                100.0 * share
            ),
        });
    }
}

/// A judgment call on each piece read leaning because, lying flat as its outline had it, it
/// went into the piece beside it, deeply or where leaning fits clearly better (see
/// `detect/overlapping.rs`). `tipped` is per piece, in the scene's order.
fn note_tipped(scene: &mut Scene, tipped: &[Option<Tipped>]) {
    let ids: Vec<PieceId> = scene.pieces.iter().map(|p| p.id).collect();
    for koan in &mut scene.koans {
        for &id in &koan.pieces {
            let Some(t) = ids.iter().position(|&i| i == id).and_then(|k| tipped[k]) else {
                continue;
            };
            koan.judgment_calls.push(JudgmentCall {
                what: "orientation".into(),
                pieces: vec![id],
                decided: true,
                margin: round_share(t.margin),
                unit: "share of its pixels explained".into(),
                note: format!(
                    "orientation of {id}: leaning on the piece beside it, not lying flat: its outline leaning explains {:+.1} % of its pixels against lying flat, which would go {:.1} mm into that piece: look",
                    100.0 * t.lead,
                    t.lying_overlap_mm
                ),
            });
        }
    }
}

/// Whether two pieces of a koan share space by design: one wholly in the other's cavity, or both
/// in one tower or nest (two up a tower, the top's solid reaches into the bottom's through the
/// middle's cavity).
fn share_space_by_design(koan: &Koan, a: PieceId, b: PieceId) -> bool {
    koan.relations_detail.as_ref().is_some_and(|detail| {
        detail.inserted.iter().any(|r| {
            (r.fully_inserted || r.entirely_inside)
                && ((r.inner, r.outer) == (a, b) || (r.inner, r.outer) == (b, a))
        })
    }) || koan
        .towers
        .iter()
        .chain(&koan.nests)
        .any(|chain| chain.contains(&a) && chain.contains(&b))
}

/// A judgment call on each pair of pieces read more than [`OVERLAP_MM`] into each other, neither
/// in the other's cavity (as a piece stacked on a tip or nested is) nor in one tower or nest
/// with it (two up a tower, the top's solid reaches into the bottom's through the middle's
/// cavity): no table holds two pieces in one place, so one of the two at least is read wrong,
/// and the Master is asked to look at both. The margin is how far past the threshold
/// (negative).
fn note_impossible_overlaps(scene: &mut Scene, engine: &Engine) {
    let pieces = &scene.pieces;
    for koan in &mut scene.koans {
        let mut calls = Vec::new();
        for (k, &a) in koan.pieces.iter().enumerate() {
            for &b in &koan.pieces[k + 1..] {
                let (Some(pa), Some(pb)) = (
                    pieces.iter().find(|p| p.id == a),
                    pieces.iter().find(|p| p.id == b),
                ) else {
                    continue;
                };
                if share_space_by_design(koan, a, b) {
                    continue;
                }
                let depth = engine.solid_overlap(pa, pb);
                if depth > OVERLAP_MM {
                    calls.push(JudgmentCall {
                        what: "reading".into(),
                        pieces: vec![a, b],
                        decided: true,
                        margin: OVERLAP_MM - depth,
                        unit: "mm".into(),
                        note: format!(
                            "reading of {a} and {b}: read {depth:.1} mm into each other, which no table holds: one of them is read wrong: look"
                        ),
                    });
                }
            }
        }
        koan.judgment_calls.extend(calls);
    }
}

/// A pair of pieces whose overlap in view shows the frame the other way round from the reading
/// over at least this share of the smaller one's silhouette has one of them read wrong, and the
/// Master is asked to look (see [`note_contradicted_depth_order`]). Over the 19 sets of
/// `scripts/eval-suite` (2026-11-30) the 38 pairs at or over it all named a piece read wrong
/// (0.13–1.15); pairs read right stood at 0.10 at most (the table holdout's T1 scene 2), then
/// 0.09 (T3 scene 0) and 0.07 (dev D2 scene 6 under noise).
const DEPTH_CONTRADICTED_SHARE: f64 = 0.12;

/// A judgment call on each pair of pieces of a koan that the frame's depth order contradicts
/// (see [`DEPTH_CONTRADICTED_SHARE`]): where their silhouettes overlap in view, the pixel shows
/// the colour of the piece the reading puts behind. A piece read leaning into a neighbour that
/// truly stands in front of it, or a tower's top read standing on the table in front of a base
/// read leaning, contradict it plainly. Pairs that share space by design are left out (see
/// [`share_space_by_design`]: the seam between a tower's top and its base is where their
/// outlines disagree anyway), and so are pairs with a black piece: shadows read black too. The
/// margin is the threshold less the share (negative).
fn note_contradicted_depth_order(
    scene: &mut Scene,
    seg: &Segmentation,
    camera: &Camera,
    detector: &Detector,
    detections: &[Detection],
) {
    let pieces = &scene.pieces;
    let detection_of = |id: PieceId| {
        let k = pieces.iter().position(|p| p.id == id)?;
        detections.get(k)
    };
    for koan in &mut scene.koans {
        let mut calls = Vec::new();
        for (k, &a) in koan.pieces.iter().enumerate() {
            for &b in &koan.pieces[k + 1..] {
                let (Some(da), Some(db)) = (detection_of(a), detection_of(b)) else {
                    continue;
                };
                if da.color == db.color
                    || [da.color, db.color].contains(&koanscope_scene::Color::Black)
                    || share_space_by_design(koan, a, b)
                {
                    continue;
                }
                let evidence = |these: &Detection, others: &Detection| {
                    depth_order_evidence(
                        seg,
                        camera,
                        &detector.pieces,
                        std::slice::from_ref(these),
                        std::slice::from_ref(others),
                        None,
                    )
                };
                let smaller = polygon_area(&da.outline_px).min(polygon_area(&db.outline_px));
                if smaller <= 0.0 {
                    continue;
                }
                let share = -(evidence(da, db) + evidence(db, da)) / smaller;
                if share >= DEPTH_CONTRADICTED_SHARE {
                    calls.push(JudgmentCall {
                        what: "reading".into(),
                        pieces: vec![a, b],
                        decided: true,
                        margin: round_share(DEPTH_CONTRADICTED_SHARE - share),
                        unit: "share of the smaller silhouette".into(),
                        note: format!(
                            "reading of {a} and {b}: where they overlap in view the frame shows the one read behind, over {:.0} % of the smaller: one of them may be read wrong: look",
                            100.0 * share
                        ),
                    });
                }
            }
        }
        koan.judgment_calls.extend(calls);
    }
}

/// A confidence under this is a near tie: with `min_precision` at 0.6, only a reading that
/// another size or pose came within a tenth of its pixels of (the fit alone gives at least 0.6)
/// scores under 0.55, and one within a hundredth where its outline fits fully. Over dev, its
/// four relit copies and the holdout, 26 of the 48 readings this low were wrong or made up,
/// against 50 of 1476 (one in thirty) above it.
pub(crate) const UNSURE_CONFIDENCE: f64 = 0.55;

/// What a piece's fit turned over to the other side of flat (see
/// [`crate::detect::TurnedOver`]) would read it, where that fit is what lowered its confidence:
/// upside down for one read standing or leaning apex up, leaning or standing for one read upside
/// down.
fn turned_over_rival(d: &Detection) -> Option<&'static str> {
    let turned = d
        .turned_over
        .filter(|t| d.confidence < t.confidence_without)?;
    let up = |pose: &Isometry3<f64>| (pose * Vector3::z()).z;
    // A standing piece's axis is plumb; a leaning one's, 10 degrees off it or more.
    let standing = |pose: &Isometry3<f64>| up(pose) > 5f64.to_radians().cos();
    match (
        d.resting,
        up(&d.table_from_piece) > 0.0,
        up(&turned.table_from_piece) > 0.0,
    ) {
        (Resting::Upright, _, false) => Some("upside down on its apex"),
        (Resting::Tilted, true, false) => Some("the same piece upside down"),
        (Resting::Tilted, false, true) if standing(&turned.table_from_piece) => {
            Some("standing on its base")
        }
        (Resting::Tilted, false, true) => Some("the same piece leaning apex up"),
        _ => None,
    }
}

/// A judgment call on each piece read with a confidence under [`UNSURE_CONFIDENCE`]: another
/// size or pose explains its pixels about as well, so the Master is asked to look. The margin
/// is the confidence less the threshold (negative). `rivals` (by index into the scene's
/// pieces, possibly short) names the reading that came near, where one is known.
fn note_unsure_readings(scene: &mut Scene, rivals: &[Option<&str>]) {
    let pieces = &scene.pieces;
    for koan in &mut scene.koans {
        for &id in &koan.pieces {
            let Some(k) = pieces.iter().position(|p| p.id == id) else {
                continue;
            };
            let piece = &pieces[k];
            let rival = rivals.get(k).copied().flatten();
            let Some(confidence) = piece.confidence.filter(|&c| c < UNSURE_CONFIDENCE) else {
                continue;
            };
            koan.judgment_calls.push(JudgmentCall {
                what: "reading".into(),
                pieces: vec![id],
                decided: true,
                margin: confidence - UNSURE_CONFIDENCE,
                unit: "confidence".into(),
                note: format!(
                    "reading of {id}: a {} read with confidence {confidence:.2}: {} fits it about as well: look",
                    reading(piece),
                    rival.unwrap_or("another size or pose")
                ),
            });
        }
    }
}

/// Adds a judgment call for each reading the faces' shading chose over one the outline fits
/// about as well (`choices` by index into the scene's pieces): a piece read leaning or upside
/// down at a slant rather than lying flat, and a tower of one colour read rather than one piece
/// lying flat. The Master is asked to look. The margin is the shading's lead over the `lead`
/// it needed.
fn note_shaded_choices(scene: &mut Scene, choices: &[Option<ShadedChoice>], lead: f64) {
    let ids: Vec<PieceId> = scene.pieces.iter().map(|p| p.id).collect();
    let choice_of = |id: PieceId| ids.iter().position(|&i| i == id).and_then(|k| choices[k]);
    for koan in &mut scene.koans {
        let mut calls = Vec::new();
        for &id in &koan.pieces {
            if let Some(c) = choice_of(id).filter(|c| c.instead == ShadedAlternative::LyingFlat) {
                calls.push(JudgmentCall {
                    what: "orientation".into(),
                    pieces: vec![id],
                    decided: true,
                    margin: round_share(c.shading - c.instead_shading - lead),
                    unit: "share of the shading explained".into(),
                    note: format!(
                        "orientation of {id}: at a slant, not lying flat: the outlines fit alike, its faces' shading says so ({:.2} against {:.2}): look",
                        c.shading, c.instead_shading
                    ),
                });
            }
        }
        for tower in &koan.towers {
            for pair in tower.windows(2) {
                let (base, top) = (pair[0], pair[1]);
                let (Some(c), Some(_)) = (choice_of(base), choice_of(top)) else {
                    continue;
                };
                if c.instead != ShadedAlternative::OnePieceLyingFlat {
                    continue;
                }
                calls.push(JudgmentCall {
                    what: "tower".into(),
                    pieces: vec![base, top],
                    decided: true,
                    margin: round_share(c.shading - c.instead_shading - lead),
                    unit: "share of the shading explained".into(),
                    note: format!(
                        "tower ({base}, {top}): yes, not one piece lying flat: no rim shows between them, the faces' shading says so ({:.2} against {:.2}): lift {top} to check",
                        c.shading, c.instead_shading
                    ),
                });
            }
        }
        koan.judgment_calls.extend(calls);
    }
}

fn round_share(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Whether a fitted piece stands by itself. A pyramid tipped about a base edge falls back onto
/// its base or onto a side unless something holds it: only upright, lying on a side and
/// balanced on the apex are rests of its own.
fn support_of(detection: &Detection, dims: &PyramidDims) -> Support {
    match detection.resting {
        Resting::Stacked | Resting::Bridging => Support::Raised,
        _ if leans(detection.resting, &detection.table_from_piece, dims) => Support::Leaning,
        _ => Support::Itself,
    }
}

/// What a frame's pixels say about the camera, from every fourth pixel of every fourth row (a
/// warning needs no more, and the whole frame cost as much as a tenth of the fit).
#[derive(Default)]
struct FrameLevels {
    /// The mean level over the three channels, 0–255.
    mean: f64,
    /// The share of pixels whose three channels agree within a level: all of them in a
    /// monochrome (or infrared night mode) picture; on a rendered slate table with pieces
    /// about 94 %, and fewer wherever a camera's noise touches each channel apart.
    grey_share: f64,
    /// The share of pixels clipped white (all three channels 250 or more): under 11 % on every
    /// rendered table here, however relit (and 14–21 % on calibration views of the white board).
    white_share: f64,
}

/// A frame this grey (see [`FrameLevels::grey_share`]) carries no colour to tell pieces by.
const COLOURLESS_SHARE: f64 = 0.995;

/// A frame this much clipped white (see [`FrameLevels::white_share`]) is overexposed: a piece's
/// lit faces wash out towards white with the table.
const OVEREXPOSED_SHARE: f64 = 0.3;

/// The frame's [`FrameLevels`]; a frame not of 8-bit BGR pixels gets only its mean.
fn frame_levels(image: &Mat) -> Result<FrameLevels, VisionError> {
    if image.typ() != core::CV_8UC3 {
        let mean = core::mean_def(image).during("measuring brightness")?;
        return Ok(FrameLevels {
            mean: (mean[0] + mean[1] + mean[2]) / 3.0,
            ..FrameLevels::default()
        });
    }
    let (mut sum, mut n, mut grey, mut white) = (0u64, 0u64, 0u64, 0u64);
    for y in (0..image.rows()).step_by(4) {
        let row = image
            .at_row::<core::Vec3b>(y)
            .during("measuring brightness")?;
        for pixel in row.iter().step_by(4) {
            let [b, g, r] = pixel.0;
            sum += u64::from(b) + u64::from(g) + u64::from(r);
            n += 1;
            grey += u64::from(b.max(g).max(r) - b.min(g).min(r) <= 1);
            white += u64::from(b.min(g).min(r) >= 250);
        }
    }
    Ok(if n == 0 {
        FrameLevels::default()
    } else {
        FrameLevels {
            mean: sum as f64 / (3 * n) as f64,
            grey_share: grey as f64 / n as f64,
            white_share: white as f64 / n as f64,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::TurnedOver;
    use koanscope_scene::{Color, Size};
    use nalgebra::Point3;

    /// The level the dark-table warning reads: the mean over the channels of a frame half dark
    /// and half light is the mean of the two halves, sampled as the whole frame would give it.
    #[test]
    fn the_mean_level_of_a_frame_half_dark_half_light_is_between_the_two() {
        let mut frame = Mat::new_rows_cols_with_default(720, 1280, core::CV_8UC3, Scalar::all(0.0))
            .expect("a frame");
        for y in 0..720 {
            let row = frame.at_row_mut::<core::Vec3b>(y).expect("a row");
            for (x, pixel) in row.iter_mut().enumerate() {
                *pixel = if x < 640 {
                    core::Vec3b::from([10, 20, 30])
                } else {
                    core::Vec3b::from([200, 210, 220])
                };
            }
        }
        let level = frame_levels(&frame).expect("measured").mean;
        assert!((level - 115.0).abs() < 1e-9, "{level}");
        let whole = core::mean_def(&frame).expect("OpenCV's mean");
        assert!((level - (whole[0] + whole[1] + whole[2]) / 3.0).abs() < 1e-9);
    }

    /// Dev D3 scene 6: a blue medium read upright some 8 mm into a blue large read upright, in
    /// a pile where both are read wrong. The Master is told to look at the two; a small stacked on
    /// a medium's tip (in its cavity) and two pieces side by side touching get no such call.
    #[test]
    fn pieces_read_into_each_other_are_a_judgment_call_and_a_tower_is_not() {
        let placer = koanscope_geometry::Placer::default();
        let engine = Engine::default();
        let calls_of = |pieces: Vec<Piece>| {
            let mut scene = Scene::from_pieces(pieces);
            engine.derive(&mut scene);
            note_impossible_overlaps(&mut scene, &engine);
            scene
                .koans
                .iter()
                .flat_map(|k| k.judgment_calls.iter().filter(|c| c.what == "reading"))
                .cloned()
                .collect::<Vec<_>>()
        };
        let large = placer.upright(0.0, 0.0, 0.3);
        let into = calls_of(vec![
            Piece::new(0, Color::Blue, Size::Large, large),
            Piece::new(1, Color::Blue, Size::Medium, placer.upright(14.0, 4.0, 0.0)),
        ]);
        assert_eq!(into.len(), 1, "{into:?}");
        assert_eq!(into[0].pieces, vec![0, 1]);
        assert!(into[0].margin < 0.0, "{:?}", into[0]);
        assert!(
            into[0].note.starts_with("reading of 0 and 1: read ")
                && into[0].note.ends_with(
                    " mm into each other, which no table holds: one of them is read wrong: look"
                ),
            "{}",
            into[0].note
        );
        let medium = placer.upright(0.0, 0.0, 0.3);
        let top = placer
            .on_tip(Size::Medium, &medium, Size::Small)
            .expect("a small rests on a medium");
        let tower = calls_of(vec![
            Piece::new(0, Color::Red, Size::Medium, medium),
            Piece::new(1, Color::Red, Size::Small, top),
        ]);
        assert!(tower.is_empty(), "{tower:?}");
        // Two up, the small's solid reaches 11 mm into the bottom medium's, through the middle
        // piece's cavity, as in any tower of three.
        let middle = placer
            .on_tip(Size::Medium, &medium, Size::Medium)
            .expect("a medium rests on a medium");
        let top = placer
            .on_tip(Size::Medium, &middle, Size::Small)
            .expect("a small rests on a medium");
        let tower_of_three = calls_of(vec![
            Piece::new(0, Color::Yellow, Size::Medium, medium),
            Piece::new(1, Color::Green, Size::Medium, middle),
            Piece::new(2, Color::Yellow, Size::Small, top),
        ]);
        assert!(tower_of_three.is_empty(), "{tower_of_three:?}");
        let side_by_side = calls_of(vec![
            Piece::new(0, Color::Red, Size::Large, large),
            Piece::new(1, Color::Red, Size::Medium, placer.upright(40.0, 0.0, 0.3)),
        ]);
        assert!(side_by_side.is_empty(), "{side_by_side:?}");
    }

    /// A red large standing in front of a blue medium, drawn: read as drawn, no call; read with
    /// the medium 15 mm in front of the large instead (its outline over the large's foot, where
    /// the frame shows red), the pair is a judgment call. A tower of the two colours read as
    /// drawn is not.
    #[test]
    fn a_reading_the_frame_shows_the_other_way_round_in_depth_is_a_judgment_call() {
        use crate::render::{draw_pieces, table_camera};
        let camera = table_camera();
        let placer = koanscope_geometry::Placer::default();
        let engine = Engine::default();
        let detector = Detector::new(crate::ColorModel::default());
        // The depth-order calls a reading of the drawn pieces gets.
        let calls_of = |drawn: &[(Color, Size, Isometry3<f64>)],
                        read: &[(Color, Size, Isometry3<f64>)]| {
            let image = draw_pieces(&camera, drawn).expect("a drawn frame");
            let seg = crate::segment::segment(&image, &detector.colors).expect("segmented");
            let pieces: Vec<Piece> = read
                .iter()
                .enumerate()
                .map(|(i, &(c, s, p))| Piece::new(i as PieceId, c, s, p))
                .collect();
            let mut scene = Scene::from_pieces(pieces);
            engine.derive(&mut scene);
            assert_eq!(scene.koans.len(), 1, "one koan: {:?}", scene.koans);
            let detections: Vec<Detection> = read
                .iter()
                .map(|&(c, s, p)| Detection::placed(&camera, c, s, p))
                .collect();
            note_contradicted_depth_order(&mut scene, &seg, &camera, &detector, &detections);
            scene.koans[0].judgment_calls.clone()
        };
        let front = nalgebra::Point2::new(60.0, 60.0);
        let away = (front - camera.centre_table().xy()).normalize();
        let at = |p: nalgebra::Point2<f64>| placer.upright(p.x, p.y, 0.3);
        let behind = front + away * 30.0;
        // Drawn far to near (the renderer paints later pieces in front).
        let drawn = [
            (Color::Blue, Size::Medium, at(behind)),
            (Color::Red, Size::Large, at(front)),
        ];
        let as_drawn = calls_of(&drawn, &[drawn[1], drawn[0]]);
        assert!(as_drawn.is_empty(), "{as_drawn:?}");
        let swapped = calls_of(
            &drawn,
            &[
                (Color::Red, Size::Large, at(front)),
                (Color::Blue, Size::Medium, at(front - away * 15.0)),
            ],
        );
        assert_eq!(swapped.len(), 1, "{swapped:?}");
        assert_eq!(swapped[0].pieces, vec![0, 1]);
        assert!(swapped[0].margin < 0.0, "{:?}", swapped[0]);
        assert!(
            swapped[0]
                .note
                .starts_with("reading of 0 and 1: where they overlap in view the frame shows the one read behind, over ")
                && swapped[0].note.ends_with(" % of the smaller: one of them may be read wrong: look"),
            "{}",
            swapped[0].note
        );
        let base = at(front);
        let top = placer
            .on_tip(Size::Large, &base, Size::Small)
            .expect("a small rests on a large");
        let tower = [
            (Color::Red, Size::Large, base),
            (Color::Blue, Size::Small, top),
        ];
        let tower_calls = calls_of(&tower, &tower);
        assert!(tower_calls.is_empty(), "{tower_calls:?}");
    }

    #[test]
    fn the_fit_turned_over_that_lowered_a_confidence_is_named() {
        let dims = koanscope_geometry::PieceModels::default().dims(Size::Medium);
        let posed = |resting, tilt: f64| {
            let pose = crate::pose::pose_on_table(&dims, tilt, 0.0, 0.0, 0.3);
            Detection::new(
                Color::Blue,
                Size::Medium,
                resting,
                pose,
                nalgebra::Point2::origin(),
                Vec::new(),
                0.5,
            )
        };
        let with_rival = |mut d: Detection, tilt: f64, confidence_without: f64| {
            d.turned_over = Some(TurnedOver {
                size: Size::Medium,
                table_from_piece: crate::pose::pose_on_table(&dims, tilt, 0.0, 0.0, 0.3),
                confidence_without,
            });
            d
        };
        let pi = std::f64::consts::PI;
        let standing = with_rival(posed(Resting::Upright, 0.0), pi, 1.0);
        let leaning = with_rival(posed(Resting::Tilted, 0.6), 2.5, 0.9);
        let upside_down = with_rival(posed(Resting::Tilted, 2.5), 0.6, 0.9);
        let on_its_apex = with_rival(posed(Resting::Tilted, pi), 0.0, 0.9);
        // Given back its confidence (the rival would lean on nothing), the rival is not named.
        let given_back = with_rival(posed(Resting::Tilted, 0.6), 2.5, 0.5);
        assert_eq!(
            turned_over_rival(&standing),
            Some("upside down on its apex")
        );
        assert_eq!(
            turned_over_rival(&leaning),
            Some("the same piece upside down")
        );
        assert_eq!(
            turned_over_rival(&upside_down),
            Some("the same piece leaning apex up")
        );
        assert_eq!(
            turned_over_rival(&on_its_apex),
            Some("standing on its base")
        );
        assert_eq!(turned_over_rival(&given_back), None);
        assert_eq!(turned_over_rival(&posed(Resting::Upright, 0.0)), None);
    }

    #[test]
    fn a_reading_another_size_or_pose_nearly_ties_is_a_judgment_call() {
        let placer = koanscope_geometry::Placer::default();
        let engine = Engine::default();
        let mut unsure = Piece::new(0, Color::Blue, Size::Small, placer.upright(0.0, 0.0, 0.0));
        unsure.confidence = Some(0.5);
        let mut sure = Piece::new(1, Color::Red, Size::Large, placer.upright(80.0, 0.0, 0.0));
        sure.confidence = Some(0.97);
        let mut scene = Scene::from_pieces(vec![unsure, sure]);
        engine.derive(&mut scene);
        note_unsure_readings(&mut scene, &[]);
        let calls: Vec<&JudgmentCall> = scene
            .judgment_calls()
            .filter(|c| c.what == "reading")
            .collect();
        assert_eq!(calls.len(), 1, "{calls:?}");
        assert_eq!(calls[0].pieces, vec![0]);
        assert!((calls[0].margin + 0.05).abs() < 1e-9, "{:?}", calls[0]);
        assert_eq!(
            calls[0].note,
            "reading of 0: a blue small upright read with confidence 0.50: another size or pose fits it about as well: look"
        );
    }

    #[test]
    fn a_piece_fitted_on_a_tip_that_is_not_there_stands_where_it_was_seen() {
        let camera = crate::render::table_camera();
        let detector = Detector::new(crate::ColorModel::default());
        let dims = detector.pieces.dims(Size::Large);
        // Fitted 30 mm up, turned 20°, as if stacked on a piece no longer in the reading.
        let floating = Isometry3::from_parts(
            Translation3::new(120.0, 60.0, 30.0),
            nalgebra::UnitQuaternion::from_axis_angle(&Vector3::z_axis(), 20f64.to_radians()),
        );
        let seen = camera
            .project_table(&(floating * centroid_piece(&dims)))
            .expect("in view");
        let piece = Piece::new(0, Color::Yellow, Size::Large, floating);
        let detection = Detection::new(
            Color::Yellow,
            Size::Large,
            Resting::Stacked,
            floating,
            seen,
            Vec::new(),
            0.5,
        );
        let standing = standing_where_seen(&piece, &detection, &camera, &detector).unwrap();
        assert_eq!(standing.translation.z, 0.0, "on the table");
        assert_eq!(standing.rotation, floating.rotation, "turned as it was");
        let centroid_px = camera
            .project_table(&(standing * centroid_piece(&dims)))
            .unwrap();
        assert!(
            (centroid_px - seen).norm() < 0.01,
            "seen at {seen}, now {centroid_px}"
        );
        // Lowered along the camera's ray, not straight down: it lands further from the camera.
        let centre = camera.centre_table();
        let flat = |p: Point3<f64>| (p - centre).xy().norm();
        assert!(
            flat(Point3::from(standing.translation.vector)) > flat(Point3::new(120.0, 60.0, 0.0))
        );
    }
}
