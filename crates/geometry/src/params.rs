//! The thresholds of `zendo-terms.md`, and how close to one a judgment must be to count as a call.

/// Every threshold the engine judges against. Defaults are the project's one reading.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    /// Upright: axis within this many degrees of straight up.
    pub upright_deg: f64,
    /// Flat: a side face's outward normal within this many degrees of straight down.
    pub flat_deg: f64,
    /// Grounded: a vertex within this distance of the table.
    pub grounded_mm: f64,
    /// Touching: physical surfaces within this distance.
    pub touching_mm: f64,
    /// A downward pointing ray bends at this height and skims the table at it.
    pub skim_height_mm: f64,
    /// Inserted: the inner solid overlaps the outer cavity by more than this.
    pub inserted_overlap_mm: f64,
    /// Fully inserted: the inner apex within this distance of the outer cavity's apex.
    pub fully_inserted_mm: f64,
    /// Tower: the upper base centre more than this above the lower's.
    pub tower_lift_mm: f64,
    /// Same (or opposite) direction: axes within this angle of parallel (anti-parallel).
    pub direction_deg: f64,
    /// Koans: pieces whose surfaces are closer than this belong together.
    pub koan_gap_mm: f64,
    /// Tolerance for "entirely inside" a cavity (resting contacts leave a hair of clearance).
    pub inside_tolerance_mm: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            upright_deg: 10.0,
            flat_deg: 10.0,
            grounded_mm: 0.5,
            touching_mm: 0.8,
            skim_height_mm: 1.0,
            inserted_overlap_mm: 0.1,
            fully_inserted_mm: 1.5,
            tower_lift_mm: 1.0,
            direction_deg: 15.0,
            koan_gap_mm: 30.0,
            inside_tolerance_mm: 0.2,
        }
    }
}

/// How near its threshold a judgment must be for the Master to be warned privately.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CallWindows {
    pub orientation_deg: f64,
    pub grounded_mm: f64,
    pub touching_mm: f64,
    pub pointing_mm: f64,
    pub inserted_mm: f64,
    pub direction_deg: f64,
    pub koan_gap_mm: f64,
}

impl Default for CallWindows {
    fn default() -> Self {
        CallWindows {
            orientation_deg: 3.0,
            grounded_mm: 0.3,
            touching_mm: 0.3,
            pointing_mm: 0.5,
            inserted_mm: 0.3,
            direction_deg: 3.0,
            koan_gap_mm: 5.0,
        }
    }
}
