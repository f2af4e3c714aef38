//! Finding pieces in one calibrated frame: colour segmentation against the local table colour
//! ([`crate::segment`]), then, per coloured region, a greedy fit of pyramid silhouettes (size,
//! resting pose, position, yaw) that explains the region's pixels.

use koanscope_geometry::{PieceModels, Placer, PyramidDims};
use koanscope_scene::{Color, Size};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use nalgebra::{Isometry3, Point2, Point3, Translation3};
use opencv::core::Mat;

use crate::camera::Camera;
use crate::cast_shadow::without_cast_shadows;
use crate::color::{ColorModel, circular_mean_deg, hue_and_chroma};
use crate::contact::{SEATED_WITHIN_MM, seat_among};
use crate::denoise::denoised;
use crate::error::VisionError;
use crate::left_board::{
    LeftBoard, board_elsewhere, board_where_calibrated, clear_polygon, painted_over,
};
use crate::memory::FitMemory;
use crate::occlusion::depth_order_evidence;
use crate::pose::{
    Resting, cavity_apex_piece, centroid_piece, flat_tilt, inside_convex, pose_on_table,
    pose_upright_at, row_span, silhouette, vertices_piece, with_silhouette,
};
use crate::region::{
    Overlap, Prefix, Region, covered, explain, open_residual, overlap, overlap_union, regions,
};
use crate::segment::{Segmentation, segment};
use crate::shading::face_shading;
use crate::shadow::without_tinted_shadows;

mod bridge;
mod candidates;
mod hidden_base;
mod leaning;
mod overlapping;
mod same_colour;
mod steep;
mod turned;
mod upside_down;

use candidates::pattern_search;
pub(crate) use overlapping::OVERLAP_MM;
use overlapping::{Solids, set_into};
use same_colour::upright_count;

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
    /// An upright piece may pass behind other pieces for more than that: it is kept when it
    /// rests on the region's own pixels for `min_new_support` of its silhouette leaving out
    /// what other pieces hide, and shows at least this share of the whole. A post under a
    /// bridge or a support behind its leaner shows a third of itself or less.
    pub min_upright_shown: f64,
    /// Explaining a region with leaning or upside-down pieces must beat explaining it with
    /// upright, flat and stacked ones by this share of the region's pixels.
    pub tilted_margin: f64,
    /// The first piece of a region is chosen among this many candidates by how well the whole
    /// region is then explained. Over dev, its relit and noisy copies and both holdouts, 3
    /// read every piece as 5 did but for four readings in the relit copies (three worse, one
    /// better; no mean moved by more than 0.35 points), and fitted the piles with 10–37 %
    /// fewer instructions; 2 lost pieces (5 until 2026-11-29, see the vision README).
    pub first_choices: usize,
    /// A piece sharing a region with others must own (alone cover) at least this share of
    /// the region's pixels under it. A small fitted where a medium of its colour lies, to claim
    /// what the medium's fit left over, owns less. Over dev and ten relit copies (330 frames),
    /// such phantoms owned 0.25-0.41 of it; a true piece owned as little (0.38, 0.40) only
    /// beside a phantom owning less, which goes first, and otherwise 0.43 or more. 0.25 until
    /// 2026-11-28 (see the vision README).
    pub min_own_share: f64,
    /// Fitting a region again with apexes found elsewhere as supports must beat its first
    /// explanation by this share of its pixels.
    pub stacking_margin: f64,
    /// Like `stacking_margin` for an explanation that lays a piece across the tips of two others
    /// (a bridge), which may win by less or even lose by this share: a piece on the table
    /// behind whose outline happens to pass through two tips is the less likely reading.
    pub bridging_margin: f64,
    /// Pieces fitted closer than this (mm) are moved into contact: finer gaps are within what a
    /// silhouette fit can tell (see [`crate::contact`]).
    pub contact_snap_mm: f64,
    /// A leaning piece that touches nothing is moved onto its nearest neighbour from this far
    /// (mm): it cannot lean on air, and a leaning fit places it less surely than a standing one.
    pub leaning_snap_mm: f64,
    /// What one overlap pixel whose colour agrees with the depth order of two pieces is worth
    /// against one pixel of silhouette fit, when explanations of a region are compared (where
    /// two fitted silhouettes overlap, the frame shows the colour of the nearer piece).
    pub depth_order_weight: f64,
    /// An explanation that rests a piece on a tip found elsewhere is weighed by the depth order
    /// even when its outline explains up to this share of the region's pixels less than
    /// standing on the table does.
    pub resting_outline_tolerance: f64,
    /// A piece darker than the table whose colour differs from the table's by at most this share
    /// of the most strongly coloured piece of its colour in the frame is a tinted shadow, not a
    /// piece (see `shadow.rs`). On dev the shadows read as pieces stood at 0.52–0.54 and the
    /// palest true pieces (the inside of an upside-down red) at 0.66 and above.
    pub pale_shadow_share: f64,
    /// What one silhouette pixel over another piece (of another colour, or of none sure) costs,
    /// against one pixel of the region explained. Passing behind a neighbour must not be free:
    /// blur leaves every piece a pixel's halo of its colour, so the right piece looks a little
    /// short all round, and a bigger one that hides its excess behind a neighbour would win.
    /// Pixels a piece of the same region already explains stay free: two pieces of one colour
    /// that overlap in view must share them. On dev, 0.05 to 0.1 gave nearly the same figures
    /// and 0.2 was clearly worse.
    pub hidden_weight: f64,
    /// A reading with tilted pieces that explains a region at least as well as the usual one
    /// that lays a piece flat, though by less than `tilted_margin`, still wins where its faces
    /// explain this much more of the lightness variance over them (see `shading.rs`). On dev,
    /// of such tilted readings, the wrong ones led by at most 0.07 and mostly trailed by 0.3 or
    /// more; the one leaner read flat by its outline led by 0.18.
    pub shaded_tilt_lead: f64,
    /// A piece whose silhouette leaves nothing of a region but a rim (the blurred edge that
    /// `open_residual` opens away) and overhangs it by at most this share of the region's
    /// pixels explains the region as well as an outline can: a region so read as one piece
    /// standing (or stacked) is not searched for leaning or upside-down pieces, and one whose
    /// best usual candidate so fits is not searched for a tower base behind it. On dev, of the
    /// 69 regions read standing that fit so at 0.01, none was read tilted; the two searches
    /// were a third of a rendered frame's time.
    pub rim_fit_overhang: f64,
    /// A frame whose pixel noise (see [`crate::denoise::noise_sigma`], 8-bit levels) is at
    /// least this is smoothed before it is read (`f64::INFINITY`: never). Rendered frames read
    /// 0.25–1.5, and dev given a webcam's noise of sigma 2, 3 and 4 reads 2.0–4.5. Clean frames
    /// lose by it (dev, the samples, the holdout and three relit copies, all smoothed: mean
    /// precision 98.6 → 98.2 %, orientation 97.8 → 97.35 %), noisy ones gain (see `denoise.rs`).
    pub denoise_from_sigma: f64,
}

impl Default for DetectParams {
    fn default() -> Self {
        DetectParams {
            min_region_px: 40,
            min_precision: 0.6,
            leak_weight: 2.0,
            max_pieces_per_region: 6,
            min_new_support: 0.4,
            min_upright_shown: 0.3,
            tilted_margin: 0.05,
            first_choices: 3,
            min_own_share: 0.42,
            stacking_margin: 0.015,
            bridging_margin: -0.005,
            contact_snap_mm: 2.5,
            leaning_snap_mm: 8.0,
            depth_order_weight: 1.0,
            resting_outline_tolerance: 0.03,
            pale_shadow_share: 0.6,
            hidden_weight: 0.075,
            shaded_tilt_lead: 0.15,
            rim_fit_overhang: 0.01,
            denoise_from_sigma: 1.9,
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
    /// Set for a tower's base read from the rim it shows around the foot of the piece on it
    /// (see `detect/hidden_base.rs`): the share of its silhouette in view.
    pub rim_share: Option<f64>,
    /// Set where the faces' shading chose this piece's reading over one the outline fits about
    /// as well: a judgment call for the Master.
    pub shaded_choice: Option<ShadedChoice>,
    /// Set where the piece was read lying flat into another and tipped up against it instead
    /// (see `detect/overlapping.rs`): a judgment call for the Master.
    pub tipped: Option<Tipped>,
    /// Set for a tilted piece whose confidence the best fit turned over to the other side of
    /// flat lowered most: that fit, and the confidence without it.
    pub turned_over: Option<TurnedOver>,
}

impl Detection {
    /// A piece read so, with nothing more said of how (no rim, shading choice, tipping or
    /// rival turned over).
    pub(crate) fn new(
        color: Color,
        size: Size,
        resting: Resting,
        table_from_piece: Isometry3<f64>,
        image_xy: Point2<f64>,
        outline_px: Vec<Point2<f64>>,
        confidence: f64,
    ) -> Detection {
        Detection {
            color,
            size,
            resting,
            table_from_piece,
            image_xy,
            confidence,
            outline_px,
            rim_share: None,
            shaded_choice: None,
            tipped: None,
            turned_over: None,
        }
    }

    /// A piece standing upright at `pose`, as the detector would report it seen by `camera`
    /// (sure of it), for tests that draw and read a table.
    #[cfg(test)]
    pub(crate) fn placed(
        camera: &Camera,
        color: Color,
        size: Size,
        pose: Isometry3<f64>,
    ) -> Detection {
        let dims = PieceModels::default().dims(size);
        Detection::new(
            color,
            size,
            Resting::Upright,
            pose,
            camera
                .project_table(&(pose * crate::pose::centroid_piece(&dims)))
                .expect("the piece in view"),
            crate::pose::silhouette(camera, &dims, &pose).expect("the piece in view"),
            1.0,
        )
    }
}

/// The best fit of a tilted piece on the other side of flat (apex up against apex down) than
/// its reading, where that came nearer the reading than any fit of another size or family.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TurnedOver {
    pub size: Size,
    pub table_from_piece: Isometry3<f64>,
    /// The reading's confidence weighed without it.
    pub confidence_without: f64,
}

/// A piece read leaning on another because lying flat, as its outline had it, it went into it
/// (deeper than pieces that touch are fitted, or less deep where leaning fits clearly better).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tipped {
    /// How deep the flat reading went into the other piece, mm.
    pub lying_overlap_mm: f64,
    /// How much more of its region the leaning reading explains than the flat one did, as a
    /// share of the region's pixels (it may be a little less).
    pub lead: f64,
    /// How far the lead passed the least a leaning reading may have, same unit.
    pub margin: f64,
}

/// A reading the faces' shading chose over another whose outline fits about as well (see
/// `shading.rs`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShadedChoice {
    /// What the outline alone would have read.
    pub instead: ShadedAlternative,
    /// The share of the lightness variance over the faces that the chosen reading explains.
    pub shading: f64,
    /// The same for the reading not taken.
    pub instead_shading: f64,
}

/// The reading a [`ShadedChoice`] turned down.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShadedAlternative {
    /// The piece lying flat (it was read leaning or upside down at a slant).
    LyingFlat,
    /// One piece lying flat (the region was read as a tower of one colour).
    OnePieceLyingFlat,
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

/// Which whole readings of a region may win its greedy search (see
/// [`Detector::explain_region_apart`]).
type Admissible<'a> = dyn Fn(&[Detection]) -> bool + 'a;

/// Starting tilts of the search for a piece leaning with its apex up, degrees.
const LEANING_TILTS_DEG: [f64; 2] = [45.0, 70.0];
/// Starting tilts of the search for a piece upside down, slanted or on its apex, degrees.
const UPSIDE_DOWN_TILTS_DEG: [f64; 2] = [150.0, 180.0];

/// A tilted fit: its score, the piece, and the best fit found on the other side of flat (see
/// [`apex_up`]) with its score, if any was.
type TiltedFit = (f64, Hypothesis, Option<(f64, Hypothesis)>);

/// Whether a tilted piece has its apex up (leaning), not down (upside down).
fn apex_up(h: &Hypothesis) -> bool {
    h.tilt < std::f64::consts::FRAC_PI_2
}

/// Steps of the pattern search up to this long are fine steps, taken for the best seed only, mm.
const FINE_FROM_MM: f64 = 1.5;
/// The pattern search stops once its step is this short, mm.
const FINEST_STEP_MM: f64 = 0.15;

/// The tips a bridge lies across may differ in height by this much (about one size).
const POSTS_DIFFER_MM: f64 = 12.0;

/// Where only the best of several fits goes on (tilted pieces, tower bases), this many best
/// coarse fits take the fine steps.
const BEST_FINISHED: usize = 2;

/// Of the coarse fits standing on the table (each size, upright and flat), this many best take
/// the fine steps.
const ON_TABLE_FINISHED: usize = 3;

/// The middle piece of a tower of three shows as a band below the top piece: it is looked for
/// along the base's axis this many steps of this many millimetres below the base's tip (down to
/// where a large middle piece's foot would be).
const MIDDLE_BAND_STEPS: u32 = 6;
const MIDDLE_BAND_STEP_MM: f64 = 4.0;
/// A single piece that explains this share of a region's pixels needs no tower behind it.
const NEARLY_PERFECT: f64 = 0.95;
/// Pixels of a piece's faces needed to judge its pose by their shading.
const SHADING_MIN_PX: usize = 40;

/// Pieces explaining a region, and how well (see [`Detector::explain_region`]).
pub(crate) type Reading = (Vec<Detection>, f64);

/// Hypotheses with their scores.
type Scored = Vec<(f64, Hypothesis)>;

/// What [`Detector::usual_candidates`] finds: scored hypotheses, tower bases accepted, and the
/// best flat piece turned off its best yaw (see [`Detector::flat_turned_off_best`]).
type Usual = (
    Vec<(f64, Hypothesis)>,
    Vec<(Detection, f64)>,
    Option<(Detection, f64)>,
);

/// Fits already made while one frame is fitted, by region state: the pass allowing tilted pieces,
/// the greedy search's branches and the refits over apexes found elsewhere meet the same states
/// again.
#[derive(Default)]
struct FitCache {
    /// The usual candidates, by region state, supports and whether tower bases are wanted (see
    /// [`key_with`]).
    usual: RefCell<HashMap<u64, Usual>>,
    /// Upright and flat on the table, per size, by region state alone.
    on_table: RefCell<HashMap<u64, Vec<Scored>>>,
    /// Tower bases, by region state alone.
    tower_bases: RefCell<HashMap<u64, Vec<(Detection, f64)>>>,
    /// The best leaning or upside-down piece, by region state alone: the refits with tips to
    /// rest on meet the same rest regions again, and a tilted piece rests on none of them.
    tilted: RefCell<HashMap<u64, Option<TiltedFit>>>,
    /// The prefix sums, by region state alone: most states are fitted more than once.
    prefixes: RefCell<HashMap<u64, Rc<Prefix>>>,
    /// A piece of one size stacked on a tip or lying across two, by region state, its pips and
    /// the tips (see [`key_with`]): a refit over a tip found elsewhere meets the same states with the tips
    /// of the region's own pieces again.
    on_tips: RefCell<HashMap<u64, Option<(f64, Hypothesis)>>>,
    /// The pieces' solids, for the tests of readings that set two pieces into each other.
    solids: Solids,
}

impl FitCache {
    /// The prefix sums of a region whose state is `region_key` (see [`region_key`]).
    fn prefix(&self, region: &Region, region_key: u64) -> Rc<Prefix> {
        remembered(&self.prefixes, region_key, || Rc::new(Prefix::new(region)))
    }
}

/// What `map` holds under `key`, or what `compute` makes of it, kept there. (`compute` may use
/// other maps of the cache; the map is not borrowed while it runs.)
fn remembered<V: Clone>(
    map: &RefCell<HashMap<u64, V>>,
    key: u64,
    compute: impl FnOnce() -> V,
) -> V {
    if let Some(hit) = map.borrow().get(&key) {
        return hit.clone();
    }
    let value = compute();
    map.borrow_mut().insert(key, value.clone());
    value
}

/// A region's state: its box and which of its pixels are left to explain and which are cared
/// about. Every fit of one frame made on a state is made again only on another.
fn region_key(region: &Region) -> u64 {
    use std::hash::{BuildHasher, Hash, Hasher};
    let mut h = foldhash::fast::FixedState::default().build_hasher();
    (region.x0, region.y0, region.w, region.h).hash(&mut h);
    region.target.hash(&mut h);
    region.dontcare.hash(&mut h);
    h.finish()
}

/// A region state with what else a fit depends on: a small number telling the fits apart (a
/// piece's pips, whether tower bases are wanted) and the tips it may rest on, in order.
fn key_with(region_key: u64, tag: u8, tips: &[Point3<f64>]) -> u64 {
    use std::hash::{BuildHasher, Hash, Hasher};
    let mut h = foldhash::fast::FixedState::default().build_hasher();
    (region_key, tag).hash(&mut h);
    for p in tips {
        (p.x.to_bits(), p.y.to_bits(), p.z.to_bits()).hash(&mut h);
    }
    h.finish()
}

/// Which parameters a refinement may move.
#[derive(Debug, Clone, Copy)]
struct Freedom {
    first_step_mm: f64,
    tilt: bool,
}

/// The coarse search of a piece on the table or on tips: moved first in 4 mm steps, tilt kept.
const ACROSS_TABLE: Freedom = Freedom {
    first_step_mm: 4.0,
    tilt: false,
};

/// The same for a leaning or upside-down piece, its tilt free as well.
const ACROSS_TABLE_TILTING: Freedom = Freedom {
    first_step_mm: 4.0,
    tilt: true,
};

/// Finds pieces in frames from one calibrated camera.
pub struct Detector {
    pub colors: ColorModel,
    pub pieces: PieceModels,
    pub params: DetectParams,
}

/// What the search for a calibration board left in view found.
enum BoardSearch {
    Found(LeftBoard),
    /// None: the frame's regions.
    NotFound(Vec<Region>),
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
        Ok(self.detect_segmented(image, camera, None)?.0)
    }

    /// Like [`Detector::detect`], with notes for the user about what was left out (the
    /// calibration board still lying on the table), and handing back the segmentation the
    /// pieces were found in (where a board lies in view, made again with its paper painted over,
    /// and cleared). With a `memory`, every region that looks as it did in the memory's last
    /// frame (over the same supports) takes its explanation from there, this frame's
    /// explanations are left in it for the next, and a board found in view is only checked
    /// again while it lies there.
    pub fn detect_segmented(
        &self,
        image: &Mat,
        camera: &Camera,
        memory: Option<&FitMemory>,
    ) -> Result<(Vec<Detection>, Vec<String>, Segmentation), VisionError> {
        let smoothed = denoised(image, self.params.denoise_from_sigma)?;
        let image = smoothed.as_ref().unwrap_or(image);
        // A board an earlier frame found that still lies there is not looked for again.
        if let Some(board) = memory.and_then(FitMemory::board)
            && board.still_lies(image)?
        {
            return self.detect_beside_board(image, &board, camera, memory);
        }
        let seg = segment(image, &self.colors)?;
        match self.board_search(image, &seg, camera)? {
            BoardSearch::NotFound(regions) => {
                if let Some(memory) = memory {
                    memory.keep_board(None);
                }
                let found = self.fit_regions(&seg, &regions, camera, memory)?;
                Ok((found, Vec::new(), seg))
            }
            BoardSearch::Found(board) => {
                if let Some(memory) = memory {
                    memory.keep_board(Some(board.clone()));
                }
                self.detect_beside_board(image, &board, camera, memory)
            }
        }
    }

    /// [`Detector::detect_segmented`] of a frame with a calibration board in view. The white
    /// paper skews the table's colour estimated around it, and the table beside it reads as
    /// coloured (yellow on wood): the frame is segmented with the paper painted over in the
    /// colour of the table around it, and the paper cleared.
    fn detect_beside_board(
        &self,
        image: &Mat,
        board: &LeftBoard,
        camera: &Camera,
        memory: Option<&FitMemory>,
    ) -> Result<(Vec<Detection>, Vec<String>, Segmentation), VisionError> {
        let mut seg = segment(&painted_over(image, &board.paper)?, &self.colors)?;
        clear_polygon(&mut seg, &board.paper);
        let regions = regions(&seg, &self.params, 40)?;
        let found = self.fit_regions(&seg, &regions, camera, memory)?;
        Ok((found, vec![board.place.note()], seg))
    }

    /// Where a calibration board left in view lies (the printed board is black squares, not
    /// black pieces), or the frame's regions where none does.
    fn board_search(
        &self,
        image: &Mat,
        seg: &Segmentation,
        camera: &Camera,
    ) -> Result<BoardSearch, VisionError> {
        if let Some(board) = board_where_calibrated(image, camera)? {
            return Ok(BoardSearch::Found(board));
        }
        let found = regions(seg, &self.params, 40)?;
        Ok(match board_elsewhere(seg, camera, &found)? {
            Some(board) => BoardSearch::Found(board),
            None => BoardSearch::NotFound(found),
        })
    }

    /// The pieces that explain `regions` of `seg`. Two passes: the first finds pieces standing
    /// on the table; the second fits again the regions that hold the apex of an upright piece
    /// found elsewhere, now also trying pieces stacked on that apex (towers of different
    /// colours).
    fn fit_regions(
        &self,
        seg: &Segmentation,
        regions: &[Region],
        camera: &Camera,
        memory: Option<&FitMemory>,
    ) -> Result<Vec<Detection>, VisionError> {
        if let Some(memory) = memory {
            memory.begin_frame();
        }
        let cache = FitCache::default();
        let solids = &cache.solids;
        let (mut per_region, mut scores): (Vec<Vec<Detection>>, Vec<f64>) = regions
            .iter()
            .map(|r| {
                let mut readings = self.readings_recalled(memory, &cache, r, camera, &[]);
                readings.swap_remove(0)
            })
            .unzip();
        // A piece stacked on one of its own colour: the outline alone reads one taller piece.
        self.stack_same_colour_tops(seg, camera, regions, &mut per_region, &mut scores, |_| true);
        // A tower of one colour whose rim does not show, read as one piece lying flat.
        self.shade_flat_towers(camera, regions, &mut per_region, &mut scores);
        // A steep leaner read as a piece lying flat at its foot (the towers tried first).
        self.shade_steep_leaners(camera, regions, &mut per_region, &mut scores);
        // A piece standing on one of another colour that it hides all but a rim of.
        self.raise_onto_hidden_bases(&cache, seg, camera, regions, &mut per_region, &mut scores);
        // Bridge posts read lying down, stood up under the piece that may lie across them.
        let stood = self.stand_posts_under_flats(camera, regions, &mut per_region, &mut scores);
        // Towers of three colours need the middle piece before the top one: two more passes.
        let mut refitted_with: Vec<Vec<Point3<f64>>> = vec![Vec::new(); regions.len()];
        for _ in 0..2 {
            let apexes: Vec<(usize, Point3<f64>, Detection)> = per_region
                .iter()
                .enumerate()
                .flat_map(|(i, found)| {
                    found
                        .iter()
                        .filter(|d| matches!(d.resting, Resting::Upright | Resting::Stacked))
                        .map(move |d| (i, apex_of(d, &self.pieces), d.clone()))
                })
                .collect();
            // The tip each of those pieces sits on, if it is stacked: a piece resting on a
            // region's own tip cannot hold up that region in turn, and a tip holds one piece.
            let seats: Vec<Option<usize>> = (0..apexes.len())
                .map(|k| self.seat_tip(&apexes, k))
                .collect();
            // The region of the piece seated on each tip, if any.
            let mut held_by: Vec<Option<usize>> = vec![None; apexes.len()];
            for (k, seat) in seats.iter().enumerate() {
                if let Some(tip) = seat {
                    held_by[*tip] = Some(apexes[k].0);
                }
            }
            // A tip holds one piece, but a region left with no tip of its own is offered one
            // that another region's piece holds where its reading sets a piece into the piece
            // under that tip: no table holds that, and the tip may be this region's rather than
            // the holder's (from overhead, the top of a tower of three can take the base's tip
            // as a larger piece, leaving the middle piece standing inside the base).
            let sets_a_piece_into = |reading: &[Detection], under_tip: &Detection| {
                let engine = solids.of(self.pieces);
                reading.iter().any(|p| set_into(engine, p, under_tip))
            };
            let mut changed = false;
            for (i, region) in regions.iter().enumerate() {
                // The tips the region could rest a piece on, held by another region's piece or
                // not, as (apex, piece under it).
                let tips = |held_by_other: bool| -> Vec<(Point3<f64>, &Detection)> {
                    apexes
                        .iter()
                        .zip(seats.iter().zip(&held_by))
                        .filter(|(_, (_, held))| {
                            held.is_some_and(|holder| holder != i) == held_by_other
                        })
                        // A piece stacked on an apex covers it in the image: the region must
                        // have pixels right around it, or pixels of another piece there when
                        // the tip is covered, or its own pixels around the axis below the tip:
                        // the middle of a tower of three shows as a band under the top piece,
                        // which hides the tip (in the base's own colour, when the two share it).
                        .filter(|((j, apex, d), (seat, _))| {
                            *j != i
                                && seat.map(|tip| apexes[tip].0) != Some(i)
                                && (region.near_pixels(camera, apex, 8.0, false)
                                    || (tip_covered(seg, camera, d, &self.pieces)
                                        && region.near_pixels(camera, apex, 8.0, true))
                                    || (1..=MIDDLE_BAND_STEPS).any(|k| {
                                        let below = Point3::new(
                                            apex.x,
                                            apex.y,
                                            apex.z - MIDDLE_BAND_STEP_MM * f64::from(k),
                                        );
                                        region.near_pixels(camera, &below, 8.0, false)
                                    }))
                        })
                        .map(|((_, apex, d), _)| (*apex, d))
                        .collect()
                };
                let mut supports: Vec<Point3<f64>> =
                    tips(false).into_iter().map(|(apex, _)| apex).collect();
                if supports.is_empty() {
                    supports = tips(true)
                        .into_iter()
                        .filter(|(_, d)| sets_a_piece_into(&per_region[i], d))
                        .map(|(apex, _)| apex)
                        .collect();
                }
                let same = supports.len() == refitted_with[i].len()
                    && supports
                        .iter()
                        .zip(&refitted_with[i])
                        .all(|(a, b)| (a - b).norm() < 0.5);
                if !supports.is_empty() && !same {
                    // Stacking must explain clearly better than standing on the table: a piece
                    // whose top is hidden by the one above would otherwise stack on that one.
                    let area = region.target_px();
                    // Standing behind a piece and resting on its tip fit the outline alike; they
                    // differ in which of the two is in front where they overlap, and the frame
                    // shows which. (Only the pieces under the tips: one above may be wrong yet.)
                    let others: Vec<Detection> = apexes
                        .iter()
                        .filter(|(j, apex, _)| {
                            *j != i && supports.iter().any(|s| (s - apex).norm() < 1e-9)
                        })
                        .map(|(_, _, d)| d.clone())
                        .collect();
                    let order = |pieces: &[Detection]| {
                        self.params.depth_order_weight
                            * depth_order_evidence(seg, camera, &self.pieces, pieces, &others, None)
                    };
                    let bridges = |f: &[Detection]| {
                        f.iter().filter(|d| d.resting == Resting::Bridging).count()
                    };
                    let first = scores[i] + order(&per_region[i]);
                    // The outline alone may prefer a piece standing on the table behind the
                    // tips; readings that rest a piece on one are weighed too, by the frame's
                    // depth order, where the outline cannot tell them apart, or where the
                    // first reading's outline is better only by what the depth order denies it
                    // (the middle of a tower of three read as a piece lying in front of the base).
                    let close = first.min(scores[i]) - self.params.resting_outline_tolerance * area;
                    let readings = self
                        .readings_recalled(memory, &cache, region, camera, &supports)
                        .into_iter()
                        .enumerate()
                        .filter(|(k, (_, score))| *k == 0 || *score >= close)
                        .map(|(_, reading)| reading);
                    let mut best: Option<(f64, Vec<Detection>, f64)> = None;
                    // A post stood up under a flat piece stays standing while the passes
                    // settle whether the piece lies across it (it was stood up judged with what
                    // the piece hides of it free, which the readings here do not do; read
                    // again before the piece was, it lay down again). Where the piece does not
                    // lie across it after all, `sit_posts_back_down` lays it back.
                    let stood_post = self.holds_stood_post(&stood, i, &per_region);
                    for (found, score) in readings {
                        if stood_post && !found.iter().any(|d| d.resting == Resting::Upright) {
                            continue;
                        }
                        // A piece leaning into the piece under a tip is in two places at once,
                        // whatever the depth order says (the middle of a tower of three read
                        // leaning into its base, in front of it all round).
                        if self.tilted_into(&found, &others, solids) {
                            continue;
                        }
                        let margin = if bridges(&found) > bridges(&per_region[i]) {
                            self.params.bridging_margin
                        } else {
                            self.params.stacking_margin
                        };
                        let weighed = score + order(&found);
                        if weighed > first + margin * area
                            && best.as_ref().is_none_or(|(w, _, _)| weighed > *w)
                        {
                            best = Some((weighed, found, score));
                        }
                    }
                    if let Some((_, found, score)) = best {
                        per_region[i] = found;
                        scores[i] = score;
                    }
                    refitted_with[i] = supports;
                    changed = true;
                }
            }
            // A bridge lies level: a post fitted too short to reach it is refitted, and the
            // bridge with it on the next pass.
            changed |= self.raise_posts_to_bridges(camera, regions, &mut per_region, &mut scores);
            if !changed {
                break;
            }
        }
        self.sit_posts_back_down(stood, &mut per_region, &mut scores);
        let upright_before: Vec<usize> = per_region.iter().map(|f| upright_count(f)).collect();
        self.stand_lone_leaners(&cache, camera, regions, &mut per_region, &refitted_with);
        self.dismiss_rivals_leaning_on_nothing(&cache, &mut per_region);
        // Two pieces cannot be in one place: a piece read lying into another leans on it.
        self.lean_overlapping(camera, regions, &mut per_region, solids);
        self.stack_tops_on_stood_up(
            seg,
            camera,
            regions,
            &mut per_region,
            &mut scores,
            &upright_before,
        );
        // One piece standing seen from above may be one upside down on its apex, which a
        // region read to its rim is not searched for (see `upside_down.rs`).
        self.doubt_standing_seen_from_above(&cache, seg, camera, regions, &mut per_region);
        let found = per_region.into_iter().flatten().collect();
        let (found, light) = without_tinted_shadows(
            seg,
            camera,
            &self.colors,
            &self.pieces,
            found,
            self.params.pale_shadow_share,
        );
        let found = without_cast_shadows(
            seg,
            camera,
            |size| self.dims(size),
            found,
            self.colors.shadow_dark_ratio,
            light,
        );
        Ok(found)
    }

    /// The readings of a region (see [`Detector::readings`]), or what the memory holds for the
    /// same region and supports.
    fn readings_recalled(
        &self,
        memory: Option<&FitMemory>,
        cache: &FitCache,
        region: &Region,
        camera: &Camera,
        supports: &[Point3<f64>],
    ) -> Vec<Reading> {
        let Some(memory) = memory else {
            return self.readings(cache, region, camera, supports);
        };
        if let Some(remembered) = memory.recall(region, supports) {
            return remembered;
        }
        let readings = self.readings(cache, region, camera, supports);
        memory.remember(region, supports, &readings);
        readings
    }

    /// How a region can be explained: first the best by its outline
    /// ([`Detector::explain_region`]); then, when that rests no piece on the supports, one for
    /// each of the best few pieces that would ([`Detector::explain_resting`]). A piece standing
    /// on the table behind a tip can fit the outline as well as one stacked on it: the frame's
    /// depth order tells them apart, and the caller weighs it.
    fn readings(
        &self,
        cache: &FitCache,
        region: &Region,
        camera: &Camera,
        supports: &[Point3<f64>],
    ) -> Vec<Reading> {
        let best = self.explain_region(cache, region.clone(), camera, supports);
        let resting = if supports.is_empty() || best.0.iter().any(|d| d.resting.on_pieces()) {
            Vec::new()
        } else {
            let mut resting = self.explain_resting(cache, region, camera, supports);
            resting.extend(self.bridges_over_own_posts(cache, region, camera, supports, &best.0));
            resting
        };
        std::iter::once(best).chain(resting).collect()
    }

    /// Explains a region with the usual poses (upright, flat, stacked) and again allowing
    /// leaning and upside-down pieces; the second wins only if it explains the whole region
    /// clearly better, since a tilted pyramid can cover two touching pieces at once, or, where
    /// the first sets two pieces into each other and it does not, nearly as well. A first
    /// reading that sets pieces into each other and stands gives way, too, to the best usual
    /// one that does not, if nearly as good ([`Detector::explain_region_apart`]).
    fn explain_region(
        &self,
        cache: &FitCache,
        region: Region,
        camera: &Camera,
        supports: &[Point3<f64>],
    ) -> (Vec<Detection>, f64) {
        let (usual, usual_score) = self.explain_region_with(
            cache,
            region.clone(),
            camera,
            supports,
            false,
            f64::NEG_INFINITY,
        );
        let area = region.target_px();
        // A reading that sets two of its pieces into each other is in no table's power: the
        // parts of one leaning or upside-down piece, read as pieces each, often are. It gives
        // way to a tilted reading that does not and explains the region nearly as well (by the
        // margin the other way round).
        let usual_set_into = self.sets_into_each_other(&usual, &cache.solids);
        // Nearly as well: within the margin of the usual reading.
        let bar = usual_score - self.params.tilted_margin * area;
        // The best usual reading that sets no two pieces into each other, searched for what
        // could score above `from` and kept where `keep` takes its score, its pieces then
        // fitted again, tilted too, without setting any into another.
        let apart_reading = |from: f64, keep: &dyn Fn(f64) -> bool| {
            let (apart, apart_score) =
                self.explain_region_apart(cache, region.clone(), camera, supports, from);
            (!apart.is_empty() && keep(apart_score)).then(|| {
                (
                    self.polish(cache, &region, camera, supports, true, true, apart),
                    apart_score,
                )
            })
        };
        if usual_set_into {
            let (tilted, tilted_score) =
                self.explain_region_with(cache, region.clone(), camera, supports, true, bar);
            if tilted_score > bar && !self.sets_into_each_other(&tilted, &cache.solids) {
                let tilted = self.polish(cache, &region, camera, supports, true, false, tilted);
                // A piece it still tilts must explain the region better than a reading a table
                // holds with none tilted, by the margin a tilted reading wins by anywhere else:
                // under noise or blur, a lying piece's fringe reads as a small set into it, and
                // that small leaning as a tilted reading.
                if tilted.iter().any(|d| d.resting == Resting::Tilted) {
                    // Only a reading within the margin of the tilted one matters.
                    let within = tilted_score - self.params.tilted_margin * area;
                    if let Some(apart) =
                        apart_reading(within.max(bar), &|score| score > bar && score >= within)
                    {
                        return apart;
                    }
                }
                return (tilted, tilted_score);
            }
        }
        // Where no tilted reading does better, the usual one stands; but where it sets two
        // pieces into each other, it gives way to the best usual reading that does not and
        // explains the region nearly as well (by the margin the other way round): in a pile, a
        // large lying on its side across a small reads best as an upright large with a medium
        // in it.
        let usual_or_apart = |usual: Vec<Detection>| {
            if usual_set_into && let Some(apart) = apart_reading(bar, &|score| score > bar) {
                return apart;
            }
            (
                self.polish(cache, &region, camera, supports, false, false, usual),
                usual_score,
            )
        };
        // Only an explanation that beats the usual one by the margin is of use, or, where the
        // usual one lays a piece flat, one that beats it by less where its faces match the
        // shading clearly better: seen from above, a piece leaning steeply shows nearly the
        // outline of one lying flat at its foot.
        let shading_may_tell = usual.iter().any(|d| d.resting == Resting::Flat);
        // No tilted explanation (at best every pixel, less one piece's price) could win by its
        // outline; where the shading may tell, one that explains the region as well still can,
        // unless the usual reading's faces leave it no room to lead by.
        let best_possible = area - self.params.min_region_px as f64;
        let outline_cannot_tell = usual_score + self.params.tilted_margin * area >= best_possible;
        // The usual reading's shading, asked for at most twice below, worked out once.
        let usual_shading = std::cell::OnceCell::new();
        let usual_shading =
            || *usual_shading.get_or_init(|| self.shading_of(&region, camera, &usual));
        let shading_cannot_tell =
            || usual_shading().is_none_or(|shading| shading + self.params.shaded_tilt_lead > 1.0);
        if (outline_cannot_tell && (!shading_may_tell || shading_cannot_tell()))
            || self.stands_to_the_rim(cache, &region, &usual)
        {
            return usual_or_apart(usual);
        }
        let (tilted, tilted_score) = self.explain_region_with(
            cache,
            region.clone(),
            camera,
            supports,
            true,
            if shading_may_tell {
                usual_score
            } else {
                usual_score + self.params.tilted_margin * area
            },
        );
        let shaded_choice = || {
            let (Some(shading), Some(instead_shading)) =
                (self.shading_of(&region, camera, &tilted), usual_shading())
            else {
                return None;
            };
            (shading >= instead_shading + self.params.shaded_tilt_lead).then_some(ShadedChoice {
                instead: ShadedAlternative::LyingFlat,
                shading,
                instead_shading,
            })
        };
        let by_outline = tilted_score > usual_score + self.params.tilted_margin * area;
        // A tilted reading must beat a standing one by the margin too, however roughly the
        // usual search placed it.
        if by_outline
            && let Some((standing, standing_score)) = self.standing_after_all(
                cache,
                &region,
                camera,
                supports,
                &usual,
                &tilted,
                tilted_score,
            )
            && tilted_score <= standing_score + self.params.tilted_margin * area
        {
            return (
                self.polish(cache, &region, camera, supports, false, false, standing),
                standing_score,
            );
        }
        let by_shading = !by_outline
            && shading_may_tell
            && tilted_score > usual_score
            && tilted.iter().any(|d| d.resting == Resting::Tilted);
        let choice = if by_shading { shaded_choice() } else { None };
        if by_outline || choice.is_some() {
            let mut found = self.polish(cache, &region, camera, supports, true, false, tilted);
            for d in found.iter_mut().filter(|d| d.resting == Resting::Tilted) {
                d.shaded_choice = choice;
            }
            (found, tilted_score)
        } else {
            usual_or_apart(usual)
        }
    }

    /// Where a region's reading with tilted pieces (`tilted`, scoring `tilted_score`) beats the
    /// usual one by its outline, and both are one piece: the tilted piece's size standing
    /// upright, searched closely from where the tilted and the usual piece lie (see
    /// [`Detector::upright_searched_closely`]), and the reading it makes with what it leaves of
    /// the region. A piece standing by a neighbour whose shadow greys part of its faces leaves
    /// a region the usual search fits a standing piece to only roughly, and a leaning one, its
    /// tilt free, better (the camera holdout's C5 scene 0). The piece's confidence counts its
    /// lead over the tilted reading, which may be none.
    #[allow(clippy::too_many_arguments)]
    fn standing_after_all(
        &self,
        cache: &FitCache,
        region: &Region,
        camera: &Camera,
        supports: &[Point3<f64>],
        usual: &[Detection],
        tilted: &[Detection],
        tilted_score: f64,
    ) -> Option<Reading> {
        let ([usual], [tilted]) = (usual, tilted) else {
            return None;
        };
        if tilted.resting != Resting::Tilted {
            return None;
        }
        let foot = |d: &Detection| {
            let t = d.table_from_piece * centroid_piece(&self.dims(d.size));
            Point2::new(t.x, t.y)
        };
        let prefix = cache.prefix(region, region_key(region));
        let (score, h) = self.upright_searched_closely(
            &prefix,
            camera,
            tilted.size,
            &[foot(tilted), foot(usual)],
        )?;
        let fit = self.accepted_fit(&prefix, camera, &h)?;
        // Its confidence waits for the rest of the reading, which its lead counts.
        let mut piece = self.detection(region.color, camera, &h, 0.0)?;
        let (rest, rest_score) =
            self.rest_after(cache, region, camera, supports, &piece, f64::NEG_INFINITY);
        let total = score - self.params.min_region_px as f64 + rest_score;
        piece.confidence = fit.confidence(total - tilted_score);
        let mut found = vec![piece];
        found.extend(rest);
        Some((found, total))
    }

    /// Whether a reading is one piece standing on the table or on a tip that covers the region
    /// to its rim (see [`Detector::covers_to_the_rim`]).
    fn stands_to_the_rim(&self, cache: &FitCache, region: &Region, reading: &[Detection]) -> bool {
        let [piece] = reading else {
            return false;
        };
        matches!(piece.resting, Resting::Upright | Resting::Stacked)
            && self.covers_to_the_rim(
                region,
                &cache.prefix(region, region_key(region)),
                &piece.outline_px,
            )
    }

    /// Whether a silhouette covers the region but for a rim (what `open_residual` opens away)
    /// and overhangs it by at most `rim_fit_overhang` of its pixels.
    fn covers_to_the_rim(
        &self,
        region: &Region,
        prefix: &Prefix,
        outline_px: &[Point2<f64>],
    ) -> bool {
        let overhang = overlap(prefix, outline_px).off;
        if overhang > self.params.rim_fit_overhang * region.target_px() {
            return false;
        }
        let mut rest = region.clone();
        explain(&mut rest, outline_px);
        open_residual(&mut rest);
        rest.target_px() == 0.0
    }

    /// How well the faces of a reading's pieces match the region's shading (see
    /// [`face_shading`]), weighed by the pixels each is judged on; `None` when no piece shows
    /// enough of its faces.
    fn shading_of(&self, region: &Region, camera: &Camera, reading: &[Detection]) -> Option<f64> {
        let lightness_at = |x: usize, y: usize| region.own_index(x, y).map(|k| region.lightness[k]);
        let (mut sum, mut n) = (0.0, 0);
        for d in reading {
            if let Some((share, px)) = face_shading(
                camera,
                &self.dims(d.size),
                &d.table_from_piece,
                SHADING_MIN_PX,
                lightness_at,
            ) {
                sum += share * px as f64;
                n += px;
            }
        }
        (n > 0).then(|| sum / n as f64)
    }

    /// Explanations of a region whose first piece rests on the supports (stacked on a tip or
    /// across two), one for each of the best few such pieces, whatever the outline alone
    /// prefers: which of them is in front of its support, the caller weighs.
    fn explain_resting(
        &self,
        cache: &FitCache,
        region: &Region,
        camera: &Camera,
        supports: &[Point3<f64>],
    ) -> Vec<Reading> {
        let Some(centre_px) = region.target_centre() else {
            return Vec::new();
        };
        let region_key = region_key(region);
        let prefix = cache.prefix(region, region_key);
        let (all, _, _) = self.usual_candidates(
            cache,
            region,
            &prefix,
            camera,
            supports,
            self.params.first_choices,
            &centre_px,
            region_key,
        );
        let best_other = all
            .iter()
            .filter(|(_, h)| !h.resting.on_pieces())
            .map(|(s, _)| *s)
            .fold(f64::NEG_INFINITY, f64::max);
        let mut resting: Vec<(f64, Hypothesis)> = all
            .into_iter()
            .filter(|(_, h)| h.resting.on_pieces())
            .collect();
        resting.sort_by(|a, b| b.0.total_cmp(&a.0));
        let price = self.params.min_region_px as f64;
        let mut readings = Vec::new();
        for (score, h) in resting.into_iter().take(self.params.first_choices) {
            let Some(piece) = self.accept(region, &prefix, camera, &h, score - best_other) else {
                continue;
            };
            let (rest, rest_score) =
                self.rest_after(cache, region, camera, supports, &piece, f64::NEG_INFINITY);
            let mut found = vec![piece];
            found.extend(rest);
            readings.push((found, score - price + rest_score));
        }
        readings
    }

    /// Fits each piece of a region again with the others in place (the greedy order fitted the
    /// first ones against pixels that belong to later ones), and each piece lying flat or
    /// tilted from yaws turned well off its own (see `detect/turned.rs`), then drops pieces
    /// that explain too little on their own.
    #[allow(clippy::too_many_arguments)]
    fn polish(
        &self,
        cache: &FitCache,
        region: &Region,
        camera: &Camera,
        supports: &[Point3<f64>],
        allow_tilted: bool,
        keep_apart: bool,
        mut pieces: Vec<Detection>,
    ) -> Vec<Detection> {
        if pieces.len() < 2 {
            // Nothing to fit again with others in place, but the piece may be turned.
            if let [piece] = pieces.as_mut_slice()
                && let Some(turned) = self.turned(region, camera, piece)
            {
                *piece = turned;
            }
            return pieces;
        }
        // With `keep_apart`, a reading that sets no two pieces into each other stays so: a
        // piece fitted again alone, over the others' pixels, may slide into one of them (in a
        // pile, a large lying on its side across a small, fitted again leaning through it).
        let apart = keep_apart && !self.sets_into_each_other(&pieces, &cache.solids);
        let keeps_apart = |pieces: &[Detection], i: usize, refit: &Detection| {
            let mut with = pieces.to_vec();
            with[i] = refit.clone();
            !apart || !self.sets_into_each_other(&with, &cache.solids)
        };
        for i in 0..pieces.len() {
            let alone = with_others_explained(region, &pieces, i);
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
                .fit_candidates(cache, &alone, camera, &all_supports, allow_tilted, 1)
                .into_iter()
                .next()
                && keeps_apart(&pieces, i, &better)
            {
                pieces[i] = better;
            }
            if let Some(turned) = self.turned(&alone, camera, &pieces[i])
                && keeps_apart(&pieces, i, &turned)
            {
                pieces[i] = turned;
            }
        }
        self.drop_owning_little(region, &mut pieces);
        pieces
    }

    /// Drops, one at a time, the pieces of a region's reading whose own pixels (under no other
    /// piece) are too few, or too small a share of the region's pixels under them: such a
    /// piece is fitted over another's pixels to claim what that one's fit left over.
    fn drop_owning_little(&self, region: &Region, pieces: &mut Vec<Detection>) {
        loop {
            let worst = (0..pieces.len())
                .map(|i| {
                    let (own, all) = owned(region, pieces, i);
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
    }

    /// Fits pieces to a region one by one until what is left is too little; returns them and
    /// how well they explain the region (pixels covered, less leaks, unexplained pixels and a
    /// price per piece). The first piece is chosen among the `first_choices` best candidates by
    /// how well the whole explanation that follows from it scores: in a tower, the tallest
    /// single silhouette is often a wrong piece standing behind.
    fn explain_region_with(
        &self,
        cache: &FitCache,
        region: Region,
        camera: &Camera,
        supports: &[Point3<f64>],
        allow_tilted: bool,
        must_beat: f64,
    ) -> (Vec<Detection>, f64) {
        self.greedy(
            cache,
            region,
            camera,
            supports,
            allow_tilted,
            self.params.first_choices,
            self.params.max_pieces_per_region,
            must_beat,
            None,
        )
    }

    /// Like [`Detector::explain_region_with`] with the usual poses, but only readings that set
    /// no two of their pieces into each other compete: the one a table holds may have come
    /// from another first piece than the best reading's.
    fn explain_region_apart(
        &self,
        cache: &FitCache,
        region: Region,
        camera: &Camera,
        supports: &[Point3<f64>],
        must_beat: f64,
    ) -> (Vec<Detection>, f64) {
        let apart = |reading: &[Detection]| !self.sets_into_each_other(reading, &cache.solids);
        self.greedy(
            cache,
            region,
            camera,
            supports,
            false,
            self.params.first_choices,
            self.params.max_pieces_per_region,
            must_beat,
            Some(&apart),
        )
    }

    /// The search of [`Detector::explain_region_with`], `choices` first pieces deep, at most
    /// `depth` pieces; with `admissible`, only the whole readings it admits can win.
    #[allow(clippy::too_many_arguments)]
    fn greedy(
        &self,
        cache: &FitCache,
        region: Region,
        camera: &Camera,
        supports: &[Point3<f64>],
        allow_tilted: bool,
        choices: usize,
        depth: usize,
        must_beat: f64,
        admissible: Option<&Admissible>,
    ) -> (Vec<Detection>, f64) {
        let remaining = region.target_px();
        let price = self.params.min_region_px as f64;
        // At best the pieces fitted here explain every pixel left for one piece's price: when
        // even that cannot beat what the caller already has, nothing here is of use.
        if depth == 0 || remaining < price || remaining - price <= must_beat {
            return (Vec::new(), -remaining);
        }
        // What is left cannot make a piece: even the smallest silhouette would rest on too few
        // of its pixels (see `accept`). The rim a fitted piece leaves usually ends here.
        let min_support = if supports.is_empty() {
            self.params.min_new_support
        } else {
            self.params.min_new_support / 2.0
        };
        if self
            .smallest_silhouette_px(&region, camera)
            .is_some_and(|area| remaining < min_support * area)
        {
            return (Vec::new(), -remaining);
        }
        let candidates =
            self.fit_candidates(cache, &region, camera, supports, allow_tilted, choices);
        let mut best: Option<(Vec<Detection>, f64)> = None;
        for (piece, score) in candidates {
            let (rest_region, rest_supports) = self.after(&region, supports, &piece);
            // The rest can at best explain every pixel left for one piece's price: a branch that
            // cannot beat the best so far (or what the caller has) even then is not searched.
            let bar = best.as_ref().map_or(must_beat, |(_, b)| b.max(must_beat));
            let left = rest_region.target_px();
            if score - price + (left - price).max(-left) <= bar {
                continue;
            }
            let (rest, rest_score) = self.greedy(
                cache,
                rest_region,
                camera,
                &rest_supports,
                allow_tilted,
                1,
                depth - 1,
                bar - (score - price),
                None,
            );
            let total = score - self.params.min_region_px as f64 + rest_score;
            if best.as_ref().is_none_or(|(_, b)| total > *b) {
                let mut found = vec![piece];
                found.extend(rest);
                if admissible.is_none_or(|admissible| admissible(&found)) {
                    best = Some((found, total));
                }
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

    /// What is left of a region once `piece` (placed first) explains its part, explained with
    /// the usual poses (see [`Detector::after`]); nothing where that cannot beat `must_beat`.
    fn rest_after(
        &self,
        cache: &FitCache,
        region: &Region,
        camera: &Camera,
        supports: &[Point3<f64>],
        piece: &Detection,
        must_beat: f64,
    ) -> Reading {
        let (rest_region, rest_supports) = self.after(region, supports, piece);
        self.greedy(
            cache,
            rest_region,
            camera,
            &rest_supports,
            false,
            1,
            self.params.max_pieces_per_region - 1,
            must_beat,
            None,
        )
    }

    /// What is left of a region once `piece` explains its part (the rim it leaves opened away),
    /// and the tips the rest may rest on: a piece of the same colour may stand on this one.
    fn after(
        &self,
        region: &Region,
        supports: &[Point3<f64>],
        piece: &Detection,
    ) -> (Region, Vec<Point3<f64>>) {
        let mut rest_region = region.clone();
        explain(&mut rest_region, &piece.outline_px);
        open_residual(&mut rest_region);
        let mut rest_supports = supports.to_vec();
        if matches!(piece.resting, Resting::Upright | Resting::Stacked) {
            rest_supports.push(apex_of(piece, &self.pieces));
        }
        (rest_region, rest_supports)
    }

    /// A lower bound on the pixels of any small piece's silhouette around what is left of a
    /// region: the smallest of a few poses there, less a margin for poses not tried (over every
    /// tilt and yaw in 5° steps, across the view of the dev camera, the smallest silhouette was
    /// at least 0.79 of the smallest of these).
    fn smallest_silhouette_px(&self, region: &Region, camera: &Camera) -> Option<f64> {
        let centre_px = region.target_centre()?;
        let dims = self.dims(Size::Small);
        let mut smallest = f64::INFINITY;
        for (resting, tilt) in [
            (Resting::Upright, 0.0),
            (Resting::Flat, flat_tilt(&dims)),
            (Resting::Tilted, std::f64::consts::PI),
        ] {
            let start = self.start_on_table(camera, &centre_px, Size::Small, resting, tilt)?;
            for yaw in [
                0.0,
                std::f64::consts::FRAC_PI_4,
                std::f64::consts::FRAC_PI_2,
            ] {
                let (_, outline) = self.outline(camera, &Hypothesis { yaw, ..start })?;
                smallest = smallest.min(polygon_area(&outline));
            }
        }
        Some(0.7 * smallest)
    }

    /// The tip (an index into `tips`) that `tips[k]`'s piece, if fitted stacked, sits on: of all
    /// the other tips, the one nearest its cavity's apex, within [`crate::contact::SEATED_WITHIN_MM`]. In a tower
    /// the tips stand a few millimetres apart on one axis: the middle piece sits on the base's
    /// tip, though the top piece's tip (fitted too low) may be near its cavity's apex as well.
    fn seat_tip(&self, tips: &[(usize, Point3<f64>, Detection)], k: usize) -> Option<usize> {
        let d = &tips[k].2;
        if d.resting != Resting::Stacked {
            return None;
        }
        let cavity_apex =
            d.table_from_piece * cavity_apex_piece(&self.dims(d.size), self.pieces.wall_mm);
        let others = tips
            .iter()
            .enumerate()
            .filter(|(other, _)| *other != k)
            .map(|(other, (_, tip, _))| (other, *tip));
        seat_among(&cavity_apex, others)
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
    relearn_where(image, camera, model, |d| {
        (d.confidence >= min_confidence).then_some(d.color)
    })
}

/// Re-learns the hue centres from a frame whose pieces someone labelled (the Master's
/// corrections): a piece found within `radius_px` of a label's image position lends its pixels
/// to the label's colour, whatever colour the model read; unlabelled pieces lend nothing.
pub fn relearn_colors_labelled(
    image: &Mat,
    camera: &Camera,
    model: &ColorModel,
    labels: &[([f64; 2], Color)],
    radius_px: f64,
) -> Result<(ColorModel, Vec<HueUpdate>), VisionError> {
    relearn_where(image, camera, model, |d| {
        labels
            .iter()
            .map(|(xy, c)| {
                (
                    ((xy[0] - d.image_xy.x).powi(2) + (xy[1] - d.image_xy.y).powi(2)).sqrt(),
                    *c,
                )
            })
            .filter(|(dist, _)| *dist <= radius_px)
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, c)| c)
    })
}

/// The hue centres learnt from the pixels of the pieces `colour_of` gives a colour to.
fn relearn_where(
    image: &Mat,
    camera: &Camera,
    model: &ColorModel,
    colour_of: impl Fn(&Detection) -> Option<Color>,
) -> Result<(ColorModel, Vec<HueUpdate>), VisionError> {
    const MIN_PIXELS: usize = 200;
    let detector = Detector::new(model.clone());
    let (detections, _, seg) = detector.detect_segmented(image, camera, None)?;
    let lab = seg.lab_bytes();
    let mut hues: Vec<Vec<f64>> = vec![Vec::new(); model.colors.len()];
    for d in &detections {
        let Some(color) = colour_of(d) else {
            continue;
        };
        let Some(slot) = model.colors.iter().position(|c| c.name == color) else {
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
                let Some(&[l, a, b]) = lab.get(3 * i..3 * i + 3) else {
                    continue;
                };
                let lab = [l, a, b];
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

/// Area of a simple polygon, square pixels.
pub(crate) fn polygon_area(polygon: &[Point2<f64>]) -> f64 {
    let n = polygon.len();
    (0..n)
        .map(|i| {
            let (a, b) = (polygon[i], polygon[(i + 1) % n]);
            a.x * b.y - b.x * a.y
        })
        .sum::<f64>()
        .abs()
        / 2.0
}

/// Whether the frame shows something else than the piece just under its tip: a piece resting
/// on the tip covers it (a tip that shows its own colour has nothing on it).
fn tip_covered(seg: &Segmentation, camera: &Camera, d: &Detection, pieces: &PieceModels) -> bool {
    let below_tip = d.table_from_piece * Point3::new(0.0, 0.0, pieces.dims(d.size).height_mm - 4.0);
    camera
        .project_table(&below_tip)
        .and_then(|px| seg.class_at(&px))
        .is_some_and(|class| seg.class_of(d.color) != Some(class))
}

/// A region as the pieces fitted there, all but `pieces[k]`, leave it for that one.
fn with_others_explained(region: &Region, pieces: &[Detection], k: usize) -> Region {
    let mut alone = region.clone();
    for (j, other) in pieces.iter().enumerate() {
        if j != k {
            explain(&mut alone, &other.outline_px);
        }
    }
    alone
}

/// The region's pixels under `pieces[k]`'s outline that it alone covers, and all of them.
fn owned(region: &Region, pieces: &[Detection], k: usize) -> (f64, f64) {
    let alone = with_others_explained(region, pieces, k);
    (
        covered(&alone, &pieces[k].outline_px),
        covered(region, &pieces[k].outline_px),
    )
}

/// The apex of a detected piece, table frame.
fn apex_of(d: &Detection, pieces: &PieceModels) -> Point3<f64> {
    Placer::new(*pieces).apex(d.size, &d.table_from_piece)
}

/// How a piece's silhouette fits the pixels it was accepted for (see `Detector::accepted_fit`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fit {
    /// The share of its silhouette's counted pixels that are the region's.
    pub(crate) precision: f64,
    /// The region's pixels it covers.
    pub(crate) on_px: f64,
}

impl Fit {
    /// How a silhouette lying on a region as `o` says fits it.
    pub(crate) fn of(o: &Overlap) -> Fit {
        Fit {
            precision: o.on / (o.on + o.off).max(1.0),
            on_px: o.on,
        }
    }

    /// Half the confidence is the fit, scaled down when another reading came within a tenth
    /// of the pixels of scoring as well (`lead`: how far it scored above that reading).
    pub(crate) fn confidence(&self, lead: f64) -> f64 {
        let lead_share = (lead / (0.1 * self.on_px)).clamp(0.0, 1.0);
        (self.precision * (0.5 + 0.5 * lead_share)).clamp(0.0, 1.0)
    }
}

/// The hypothesis of a large standing upright at `pose` on the table: for the fit's tests.
#[cfg(test)]
fn upright_large_hypothesis(pose: &Isometry3<f64>) -> Hypothesis {
    let axis = pose * nalgebra::Vector3::x();
    Hypothesis {
        size: Size::Large,
        resting: Resting::Upright,
        x: pose.translation.x,
        y: pose.translation.y,
        yaw: axis.y.atan2(axis.x),
        tilt: 0.0,
        lift: 0.0,
    }
}

/// The regions of a frame drawn with `pieces` (each colour, size and pose), as the fit's
/// stages meet them: for their tests.
#[cfg(test)]
fn drawn_regions(
    detector: &Detector,
    camera: &Camera,
    pieces: &[(Color, Size, Isometry3<f64>)],
) -> Vec<Region> {
    let frame = crate::render::draw_pieces(camera, pieces).expect("drawn");
    let seg = crate::segment::segment(&frame, &detector.colors).expect("segmented");
    regions(&seg, &detector.params, 40).expect("regions")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::table_camera;

    fn yellow_flat(
        detector: &Detector,
        camera: &Camera,
        size: Size,
        x: f64,
        y: f64,
        yaw: f64,
    ) -> Detection {
        let h = Hypothesis {
            size,
            resting: Resting::Flat,
            x,
            y,
            yaw,
            tilt: 0.0,
            lift: 0.0,
        };
        detector
            .detection(Color::Yellow, camera, &h, 1.0)
            .expect("in view")
    }

    /// A yellow medium lying flat and a yellow small lying where the medium does, drawn so that
    /// the small shows a sliver of itself beyond the medium, as a phantom small claims what a
    /// medium's fit, a few degrees off, leaves of its region (dev 25 % brighter, D3 scene 0: the
    /// small owned 32 % of the region's pixels under it). Read as both, the small is dropped
    /// where it owns 30 % of them; a small owning 53 % beside the medium stays.
    #[test]
    fn a_piece_owning_little_of_the_region_under_it_is_dropped() {
        let camera = table_camera();
        let detector = Detector::new(crate::ColorModel::default());
        let medium = yellow_flat(&detector, &camera, Size::Medium, 20.0, 60.0, 0.4);
        for (dx, dy, share_near, kept) in [(-10.0, -10.0, 0.30, false), (10.0, 10.0, 0.53, true)] {
            let small = yellow_flat(&detector, &camera, Size::Small, 20.0 + dx, 60.0 + dy, 2.0);
            let regions = drawn_regions(
                &detector,
                &camera,
                &[
                    (Color::Yellow, Size::Medium, medium.table_from_piece),
                    (Color::Yellow, Size::Small, small.table_from_piece),
                ],
            );
            let [region] = regions.as_slice() else {
                panic!("one yellow region, not {}", regions.len());
            };
            let mut pieces = vec![medium.clone(), small];
            let (own, all) = owned(region, &pieces, 1);
            let share = own / all;
            assert!(
                (share - share_near).abs() < 0.03,
                "the small owns {share:.2}"
            );
            detector.drop_owning_little(region, &mut pieces);
            let read: Vec<Size> = pieces.iter().map(|d| d.size).collect();
            let expected = if kept {
                vec![Size::Medium, Size::Small]
            } else {
                vec![Size::Medium]
            };
            assert_eq!(read, expected, "a small owning {share:.2}");
        }
    }
}
