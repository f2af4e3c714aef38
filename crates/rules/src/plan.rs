//! Build plans: a koan said as the moves that build it ("stand a large red piece upright, lay a
//! small blue one flat pointing at it"). A plan predicts its own facts (for a quick search) and
//! a [`crate::counter::Realiser`] turns it into real poses that the geometry engine checks.

use koanscope_scene::{Color, Orientation, Size};

use crate::sketch::{Sketch, SketchPiece, upright_height};

/// How one piece is set down. Pieces refer to earlier pieces by their index in the plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Placement {
    /// Standing on its base, on its own spot in the row.
    Upright,
    /// Lying on a side on its own spot, tip away from the row (`toward_front`: +y, else -y).
    Flat { toward_front: bool },
    /// Standing upright right against the previous piece (touching it).
    Touching(usize),
    /// Lying flat in front of a piece, tip toward it, not touching it.
    PointingAt(usize),
    /// Set on the tip of an upright piece (a tower; the upper piece is off the table).
    OnTipOf(usize),
    /// Put down over a smaller upright piece, which ends up inside it (a nest).
    Over(usize),
    /// Balanced upside down on its tip.
    UpsideDown,
    /// Lying flat across the tips of an upright piece and the piece standing against it (the
    /// next one in the plan, `Touching` it), off the table.
    Across(usize),
}

impl Placement {
    /// The piece this placement refers to.
    pub fn target(self) -> Option<usize> {
        match self {
            Placement::Touching(i)
            | Placement::PointingAt(i)
            | Placement::OnTipOf(i)
            | Placement::Over(i)
            | Placement::Across(i) => Some(i),
            _ => None,
        }
    }

    /// Stands on its own spot in the row.
    pub fn in_row(self) -> bool {
        matches!(
            self,
            Placement::Upright
                | Placement::Flat { .. }
                | Placement::Touching(_)
                | Placement::UpsideDown
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PlanPiece {
    pub color: Color,
    pub size: Size,
    pub placement: Placement,
}

/// A koan as a sequence of placements.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Plan {
    pub pieces: Vec<PlanPiece>,
}

fn base_mm(size: Size) -> f64 {
    match size {
        Size::Small => 14.3,
        Size::Medium => 19.8,
        Size::Large => 25.4,
    }
}

/// Wall thickness of a pyramid (zendo-terms.md).
const WALL_MM: f64 = 1.2;

impl Plan {
    /// Where along its lower face (0 = base edge, 1 = tip) a piece of size `upper` lying across
    /// two touching upright pieces of size `lower` rests on their tips, or None when its face
    /// is too narrow to span both.
    pub fn across_rest(lower: Size, upper: Size) -> Option<f64> {
        // Tips are one base width plus the 0.3 mm touching gap apart.
        let span = base_mm(lower) + 0.3;
        let room = 1.0 - span / base_mm(upper);
        (upper > lower && room > 0.1).then_some(room / 2.0)
    }

    /// Predicted height above the table of the base of a piece set on the tip of `lower`
    /// (standing at `lower_base_z`), or None when it would slide down into a nest.
    pub fn tip_rest(lower: Size, upper: Size) -> Option<f64> {
        let half_lower = base_mm(lower) / 2.0;
        let cavity_half = base_mm(upper) / 2.0 - WALL_MM;
        let h_lower = upright_height(lower);
        let rim_rest = (half_lower - cavity_half) * h_lower / half_lower;
        let apex_rest = h_lower - (upright_height(upper) - 2.0 * WALL_MM);
        let rest = rim_rest.max(apex_rest);
        (rest > 0.0).then_some(rest)
    }

    /// The facts this plan should produce once built (the geometry engine has the last word).
    pub fn predict(&self) -> Sketch {
        let n = self.pieces.len();
        let mut sketch = Sketch::default();
        // Height of each piece's base above the table, and what sits on / over each piece.
        let mut base_z = vec![0.0; n];
        let mut on_top: Vec<Option<usize>> = vec![None; n];
        let mut over: Vec<Option<usize>> = vec![None; n];
        let mut pointers: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (j, p) in self.pieces.iter().enumerate() {
            let mut sp = SketchPiece::new(p.color, p.size, Orientation::Upright);
            match p.placement {
                Placement::Upright | Placement::Touching(_) | Placement::Over(_) => {}
                Placement::Flat { toward_front } => {
                    sp = SketchPiece::new(p.color, p.size, Orientation::Flat);
                    sp.dir = if toward_front { 1 } else { 3 };
                }
                Placement::PointingAt(_) => {
                    sp = SketchPiece::new(p.color, p.size, Orientation::Flat);
                    sp.dir = 1;
                }
                Placement::UpsideDown => {
                    sp = SketchPiece::new(p.color, p.size, Orientation::Weird);
                    sp.down = true;
                    sp.height_mm = upright_height(p.size);
                }
                Placement::Across(i) => {
                    sp = SketchPiece::new(p.color, p.size, Orientation::Flat);
                    sp.dir = 1;
                    sp.grounded = false;
                    sp.height_mm += upright_height(self.pieces[i].size);
                    sketch.touching.push([i, j]);
                    sketch.touching.push([i + 1, j]);
                    // Each tip points straight up into the piece lying on it.
                    sketch.pointing.push((i, vec![j]));
                    sketch.pointing.push((i + 1, vec![j]));
                }
                Placement::OnTipOf(i) => {
                    let rest = Plan::tip_rest(self.pieces[i].size, p.size).unwrap_or(0.0);
                    base_z[j] = base_z[i] + rest;
                    sp.grounded = false;
                    sp.height_mm = base_z[j] + upright_height(p.size);
                    on_top[i] = Some(j);
                }
            }
            match p.placement {
                Placement::Touching(i) => sketch.touching.push([i, j]),
                Placement::PointingAt(i) => pointers[i].push(j),
                Placement::Over(i) => over[i] = Some(j),
                _ => {}
            }
            sketch.pieces.push(sp);
        }
        // Towers: chains of pieces set on tips, bottom first.
        for start in 0..n {
            let is_upper = matches!(self.pieces[start].placement, Placement::OnTipOf(_));
            if is_upper || on_top[start].is_none() {
                continue;
            }
            let mut chain = vec![start];
            while let Some(next) = on_top[*chain.last().unwrap_or(&start)] {
                chain.push(next);
            }
            for w in chain.windows(2) {
                sketch.touching.push([w[0], w[1]]);
                sketch.fully_inserted.push([w[0], w[1]]);
            }
            // The lower pieces point straight up at every piece above them.
            for (k, &lower) in chain.iter().enumerate() {
                if k + 1 < chain.len() {
                    sketch.pointing.push((lower, chain[k + 1..].to_vec()));
                }
            }
            sketch.towers.push(chain);
        }
        // Nests: outermost first.
        for start in 0..n {
            let covered = matches!(self.pieces[start].placement, Placement::Over(_));
            if covered || over[start].is_none() {
                continue;
            }
            let mut chain = vec![start];
            while let Some(next) = over[*chain.last().unwrap_or(&start)] {
                chain.push(next);
            }
            chain.reverse();
            for (a, &outer) in chain.iter().enumerate() {
                for &inner in &chain[a + 1..] {
                    sketch.inserted.push([inner, outer]);
                }
            }
            for w in chain.windows(2) {
                sketch.touching.push([w[0], w[1]]);
            }
            // Each inner piece points straight up through the ones over it, nearest first.
            for (k, &inner) in chain.iter().enumerate().skip(1) {
                let mut targets: Vec<usize> = chain[..k].to_vec();
                targets.reverse();
                sketch.pointing.push((inner, targets));
            }
            sketch.nests.push(chain);
        }
        // A pointer's ray skims the table and meets everything standing at its target's spot:
        // the outermost piece of a nest first.
        for (i, ps) in pointers.iter().enumerate() {
            let mut spot = vec![i];
            let mut k = i;
            while let Some(o) = over[k] {
                spot.push(o);
                k = o;
            }
            spot.reverse();
            for &p in ps {
                sketch.pointing.push((p, spot.clone()));
            }
        }
        sketch
    }

    /// The plan as instructions a Master can follow at the table.
    pub fn describe(&self) -> String {
        let name = |i: usize| {
            let p = &self.pieces[i];
            format!("the {} {} piece (#{})", p.size, p.color, i + 1)
        };
        let mut lines = Vec::new();
        for (j, p) in self.pieces.iter().enumerate() {
            let what = format!("a {} {} piece (#{})", p.size, p.color, j + 1);
            let line = match p.placement {
                Placement::Upright => format!("Stand {what} upright on its own spot."),
                Placement::Flat { .. } => format!(
                    "Lay {what} flat on its own spot, tip pointing away from the other pieces."
                ),
                Placement::Touching(i) => {
                    format!(
                        "Stand {what} upright right against {}, touching it.",
                        name(i)
                    )
                }
                Placement::PointingAt(i) => format!(
                    "Lay {what} flat a few millimetres in front of {}, tip pointing at it, not touching.",
                    name(i)
                ),
                Placement::OnTipOf(i) => format!("Set {what} on the tip of {}.", name(i)),
                Placement::Over(i) => {
                    format!("Put {what} down over {}, so it ends up inside.", name(i))
                }
                Placement::UpsideDown => {
                    format!("Balance {what} upside down on its tip on its own spot.")
                }
                Placement::Across(i) => format!(
                    "Lay {what} flat across the tips of {} and {}, tip pointing away from the row.",
                    name(i),
                    name(i + 1)
                ),
            };
            lines.push(line);
        }
        lines.push("Keep the spots in a row about a centimetre apart, as one koan.".into());
        lines.join("\n")
    }
}
