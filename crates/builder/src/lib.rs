//! Turns a build plan ([`koanscope_rules::Plan`]) into a koan with real poses, and lets the
//! geometry engine derive what a Master would see. The rule engine's counter-example search uses
//! it through the [`koanscope_rules::Realiser`] trait, so rules never depend on geometry.
//!
//! Layout: every piece with its own spot stands in a row along +x, spots 14 mm apart (touching
//! pieces 0.3 mm apart), close enough to be one koan (30 mm) and far enough not to touch. Flat
//! pieces lie across the row, so their rays leave the koan; a pointer lies in front of its
//! target (-y side), tip 4 mm from it; a piece laid across two touching uprights rests on their
//! tips with its face, tip toward +y.

use std::f64::consts::FRAC_PI_2;

use koanscope_geometry::{Engine, Placer};
use koanscope_rules::{Placement, Plan, Realiser};
use koanscope_scene::{Piece, PieceId, Scene, Size};
use nalgebra::{Isometry3, Translation3};

/// Gap between pieces on neighbouring spots.
const SPOT_GAP_MM: f64 = 14.0;
/// Gap between two pieces meant to touch (touching is within 0.8 mm).
const TOUCH_GAP_MM: f64 = 0.3;
/// Gap between a pointer's tip and the piece it points at.
const POINTER_GAP_MM: f64 = 4.0;

/// A plan that refers to a piece it cannot.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("piece #{piece} refers to piece #{target}, which comes later or does not exist")]
    BadReference { piece: usize, target: usize },
}

/// Builds plans with the geometry crate's placements and derives them with its engine.
#[derive(Default)]
pub struct GeometryRealiser {
    pub placer: Placer,
    pub engine: Engine,
}

impl GeometryRealiser {
    fn half_base(&self, size: Size) -> f64 {
        self.placer.models().dims(size).base_mm / 2.0
    }

    /// Poses for every piece, or None when a piece would not stay where the plan puts it.
    pub fn poses(&self, plan: &Plan) -> Result<Option<Vec<Isometry3<f64>>>, BuildError> {
        let n = plan.pieces.len();
        for (j, p) in plan.pieces.iter().enumerate() {
            if let Some(t) = p.placement.target()
                && t >= j
            {
                return Err(BuildError::BadReference {
                    piece: j + 1,
                    target: t + 1,
                });
            }
        }
        // Spots: the row pieces, each widened by whatever is put over it.
        let mut spot_of = vec![usize::MAX; n];
        let mut spot_half: Vec<f64> = Vec::new();
        let mut spot_touches_previous: Vec<bool> = Vec::new();
        for (j, p) in plan.pieces.iter().enumerate() {
            match p.placement {
                Placement::OnTipOf(i) | Placement::Over(i) => spot_of[j] = spot_of[i],
                Placement::PointingAt(_) | Placement::Across(_) => {}
                other => {
                    spot_of[j] = spot_half.len();
                    spot_half.push(0.0);
                    spot_touches_previous.push(matches!(other, Placement::Touching(_)));
                }
            }
            if spot_of[j] != usize::MAX {
                let h = self.half_base(p.size);
                let s = &mut spot_half[spot_of[j]];
                *s = s.max(h);
            }
        }
        let mut spot_x = Vec::with_capacity(spot_half.len());
        for (k, half) in spot_half.iter().enumerate() {
            let x = if k == 0 {
                0.0
            } else {
                let gap = if spot_touches_previous[k] {
                    TOUCH_GAP_MM
                } else {
                    SPOT_GAP_MM
                };
                spot_x[k - 1] + spot_half[k - 1] + gap + half
            };
            spot_x.push(x);
        }
        let mut poses: Vec<Isometry3<f64>> = Vec::with_capacity(n);
        for (j, p) in plan.pieces.iter().enumerate() {
            let pose = match p.placement {
                Placement::Upright | Placement::Touching(_) => {
                    self.placer.upright(spot_x[spot_of[j]], 0.0, 0.0)
                }
                Placement::Flat { toward_front } => {
                    let heading = if toward_front { FRAC_PI_2 } else { -FRAC_PI_2 };
                    self.placer.flat(p.size, spot_x[spot_of[j]], 0.0, heading)
                }
                Placement::UpsideDown => {
                    self.placer
                        .upside_down(p.size, spot_x[spot_of[j]], 0.0, 0.0)
                }
                Placement::OnTipOf(i) => {
                    match self.placer.on_tip(plan.pieces[i].size, &poses[i], p.size) {
                        Some(pose) => pose,
                        None => return Ok(None),
                    }
                }
                Placement::Over(i) => {
                    if p.size <= plan.pieces[i].size {
                        return Ok(None);
                    }
                    self.placer.upright(spot_x[spot_of[i]], 0.0, 0.0)
                }
                Placement::Across(i) => {
                    let lower = plan.pieces[i].size;
                    let Some(along) = Plan::across_rest(lower, p.size) else {
                        return Ok(None);
                    };
                    let (Some(&a), Some(&b)) = (spot_of.get(i), spot_of.get(i + 1)) else {
                        return Ok(None);
                    };
                    let x = (spot_x[a] + spot_x[b]) / 2.0;
                    let dims = self.placer.models().dims(p.size);
                    let slant = (dims.height_mm.powi(2) + (dims.base_mm / 2.0).powi(2)).sqrt();
                    // The tips (at y = 0) rest `along` of the way up the lower face.
                    let y = -along * slant * (16f64).to_radians().cos();
                    let z = self.placer.models().dims(lower).height_mm;
                    self.placer.flat_at_height(p.size, x, y, FRAC_PI_2, z)
                }
                Placement::PointingAt(i) => {
                    let spot = spot_of[i];
                    let lying = self.placer.flat(p.size, 0.0, 0.0, FRAC_PI_2);
                    let apex = self.placer.apex(p.size, &lying);
                    let want_y = -(spot_half[spot] + POINTER_GAP_MM);
                    Translation3::new(spot_x[spot] - apex.x, want_y - apex.y, 0.0) * lying
                }
            };
            poses.push(pose);
        }
        Ok(Some(poses))
    }
}

impl Realiser for GeometryRealiser {
    type Error = BuildError;

    fn realise(&self, plan: &Plan) -> Result<Option<Scene>, BuildError> {
        let Some(poses) = self.poses(plan)? else {
            return Ok(None);
        };
        let pieces = plan
            .pieces
            .iter()
            .zip(poses)
            .enumerate()
            .map(|(j, (p, pose))| Piece::new(j as PieceId, p.color, p.size, pose))
            .collect();
        let mut scene = Scene::from_pieces(pieces);
        scene.source = Some("koanscope counter-example (build plan)".into());
        self.engine.derive(&mut scene);
        Ok(Some(scene))
    }
}
