//! Detection quality against ground truth: pieces paired by their image position, then colour,
//! size, orientation, grounded and base position compared pair by pair.

use koanscope_eval::Count;
use koanscope_scene::{Color, Orientation, Scene, Size};
use nalgebra::Point3;
use serde::Serialize;

/// What the truth says about one piece (the fields evaluation needs).
#[derive(Debug, Clone, PartialEq)]
pub struct TruthPiece {
    pub color: Color,
    pub size: Size,
    pub orientation: Orientation,
    pub grounded: bool,
    pub base_center_mm: Point3<f64>,
    pub image_xy: [f64; 2],
    /// Share of the silhouette not hidden by other pieces; 0 for a hidden nested piece.
    pub visible_fraction: f64,
    /// How the dataset's generator placed it (`tower_base`, `leaner`, …), when it says.
    pub role: Option<String>,
}

/// Reads the pieces of a ground-truth scene document (the dataset's `scene_NN.json`).
pub fn truth_pieces(document: &serde_json::Value) -> Result<Vec<TruthPiece>, String> {
    let pieces = document["pieces"].as_array().ok_or("no `pieces` array")?;
    pieces
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let field = |name: &str| p.get(name).ok_or(format!("pieces[{i}].{name} is missing"));
            let word = |name: &str| -> Result<String, String> {
                field(name)?
                    .as_str()
                    .map(str::to_string)
                    .ok_or(format!("pieces[{i}].{name} is not a word"))
            };
            let numbers = |name: &str| -> Result<Vec<f64>, String> {
                field(name)?
                    .as_array()
                    .and_then(|a| a.iter().map(|v| v.as_f64()).collect::<Option<Vec<f64>>>())
                    .ok_or(format!("pieces[{i}].{name} is not a list of numbers"))
            };
            let base = numbers("base_center_mm")?;
            let xy = numbers("image_xy")?;
            if base.len() != 3 || xy.len() != 2 {
                return Err(format!(
                    "pieces[{i}]: base_center_mm needs 3 numbers, image_xy 2"
                ));
            }
            Ok(TruthPiece {
                color: word("color")?
                    .parse()
                    .map_err(|e| format!("pieces[{i}]: {e}"))?,
                size: word("size")?
                    .parse()
                    .map_err(|e| format!("pieces[{i}]: {e}"))?,
                orientation: word("orientation")?
                    .parse()
                    .map_err(|e| format!("pieces[{i}]: {e}"))?,
                grounded: field("grounded")?
                    .as_bool()
                    .ok_or(format!("pieces[{i}].grounded is not true or false"))?,
                base_center_mm: Point3::new(base[0], base[1], base[2]),
                image_xy: [xy[0], xy[1]],
                visible_fraction: field("visible_fraction")?.as_f64().unwrap_or(1.0),
                role: p.get("role").and_then(|r| r.as_str()).map(str::to_string),
            })
        })
        .collect()
}

/// Detection figures over one or many scenes.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DetectionScore {
    /// Visible true pieces that were found (recall).
    pub recall: Count,
    /// Detections that are a true piece (precision).
    pub precision: Count,
    pub color: Count,
    pub size: Count,
    pub orientation: Count,
    pub grounded: Count,
    /// Distance between true and found base centres of paired pieces, mm.
    pub base_errors_mm: Vec<f64>,
}

impl DetectionScore {
    pub fn merge(&mut self, other: &DetectionScore) {
        self.recall.merge(other.recall);
        self.precision.merge(other.precision);
        self.color.merge(other.color);
        self.size.merge(other.size);
        self.orientation.merge(other.orientation);
        self.grounded.merge(other.grounded);
        self.base_errors_mm.extend_from_slice(&other.base_errors_mm);
    }

    /// The `q`-quantile (0..=1) of the base position errors, mm.
    pub fn base_error_quantile_mm(&self, q: f64) -> Option<f64> {
        let mut sorted = self.base_errors_mm.clone();
        sorted.sort_by(f64::total_cmp);
        if sorted.is_empty() {
            return None;
        }
        let index = ((sorted.len() - 1) as f64 * q.clamp(0.0, 1.0)).round() as usize;
        Some(sorted[index])
    }
}

/// How much nearer, in pixels, a true piece of another colour must be to be paired before one of
/// the found piece's own colour; half that for another size. A tower seen from above has its
/// pieces' centres within a few pixels of each other, so position alone pairs them at random;
/// pieces side by side on the table are a base's width apart (20 px and more), so this never
/// pairs past a neighbour much nearer.
const OTHER_COLOUR_PX: f64 = 10.0;

/// Pairs found pieces with true ones by nearest image position (greedy, closest pairs first,
/// visible true pieces before hidden ones, at most `max_px` apart; a true piece of another
/// colour or size counts `OTHER_COLOUR_PX` (10 px) or half that farther): `(index in
/// found.pieces, index in truth)`, each index at most once.
pub fn pair_pieces(found: &Scene, truth: &[TruthPiece], max_px: f64) -> Vec<(usize, usize)> {
    let mut candidates = Vec::new();
    for (i, piece) in found.pieces.iter().enumerate() {
        let Some(xy) = piece.image_xy else { continue };
        for (j, t) in truth.iter().enumerate() {
            let d = (xy[0] - t.image_xy[0]).hypot(xy[1] - t.image_xy[1]);
            if d <= max_px {
                let other_colour = f64::from(u8::from(piece.color != t.color));
                let other_size = f64::from(u8::from(piece.size != t.size));
                let unlike = OTHER_COLOUR_PX * (other_colour + 0.5 * other_size);
                candidates.push((d + unlike, i, j));
            }
        }
    }
    // Visible pieces first: a detection over a nest is the outer piece the camera sees, not
    // the hidden one that happens to sit a pixel closer.
    let hidden = |j: usize| truth[j].visible_fraction <= 0.0;
    candidates.sort_by(|a, b| hidden(a.2).cmp(&hidden(b.2)).then(a.0.total_cmp(&b.0)));
    let mut found_used = vec![false; found.pieces.len()];
    let mut truth_used = vec![false; truth.len()];
    let mut pairs = Vec::new();
    for (_, i, j) in candidates {
        if found_used[i] || truth_used[j] {
            continue;
        }
        found_used[i] = true;
        truth_used[j] = true;
        pairs.push((i, j));
    }
    pairs
}

/// Scores the pairing of [`pair_pieces`]. Hidden true pieces do not count against recall, and
/// a detection paired with one is not a false one.
pub fn score_scene(found: &Scene, truth: &[TruthPiece], max_px: f64) -> DetectionScore {
    let pairs = pair_pieces(found, truth, max_px);
    let mut found_used = vec![false; found.pieces.len()];
    let mut truth_used = vec![false; truth.len()];
    let mut score = DetectionScore::default();
    for (i, j) in pairs {
        found_used[i] = true;
        truth_used[j] = true;
        let (f, t) = (&found.pieces[i], &truth[j]);
        score.color.add(f.color == t.color);
        score.size.add(f.size == t.size);
        if let Some(a) = &f.attributes {
            score.orientation.add(a.orientation == t.orientation);
            score.grounded.add(a.grounded == t.grounded);
            score
                .base_errors_mm
                .push((a.base_center_mm - t.base_center_mm).norm());
        } else {
            let base = Point3::from(f.table_from_piece.translation.vector);
            score.base_errors_mm.push((base - t.base_center_mm).norm());
        }
    }
    for (j, t) in truth.iter().enumerate() {
        if t.visible_fraction > 0.0 {
            score.recall.add(truth_used[j]);
        }
    }
    for used in found_used {
        score.precision.add(used);
    }
    score
}

#[cfg(test)]
mod tests {
    use super::*;
    use koanscope_scene::Piece;
    use nalgebra::Isometry3;

    fn truth(color: Color, xy: [f64; 2], visible_fraction: f64) -> TruthPiece {
        TruthPiece {
            color,
            size: Size::Large,
            orientation: Orientation::Upright,
            grounded: true,
            base_center_mm: Point3::origin(),
            image_xy: xy,
            visible_fraction,
            role: None,
        }
    }

    fn found_at(color: Color, size: Size, xy: [f64; 2]) -> Piece {
        let mut piece = Piece::new(0, color, size, Isometry3::identity());
        piece.image_xy = Some(xy);
        piece
    }

    #[test]
    fn a_tower_seen_from_above_pairs_each_piece_with_the_true_one_of_its_colour() {
        // Green large, yellow medium, red small stacked, their centres 2 px apart in view: the
        // found red is nearest the true yellow and the found yellow nearest the true green.
        let mut truth = [
            truth(Color::Green, [546.0, 321.0], 1.0),
            truth(Color::Yellow, [544.0, 319.0], 1.0),
            truth(Color::Red, [542.0, 317.0], 1.0),
        ];
        truth[1].size = Size::Medium;
        truth[2].size = Size::Small;
        let found = Scene::from_pieces(vec![
            found_at(Color::Yellow, Size::Medium, [546.0, 321.0]),
            found_at(Color::Red, Size::Small, [544.0, 319.0]),
        ]);
        let mut pairs = pair_pieces(&found, &truth, 20.0);
        pairs.sort();
        assert_eq!(pairs, vec![(0, 1), (1, 2)]);
        let score = score_scene(&found, &truth, 20.0);
        assert_eq!(score.color, Count { agree: 2, total: 2 });
        assert_eq!(score.recall, Count { agree: 2, total: 3 });
    }

    #[test]
    fn a_piece_of_its_own_size_is_paired_before_one_a_little_nearer() {
        // Two reds 4 px apart in view, a medium and a large: the found medium takes the medium.
        let mut truth = [
            truth(Color::Red, [500.0, 300.0], 1.0),
            truth(Color::Red, [504.0, 300.0], 1.0),
        ];
        truth[1].size = Size::Medium;
        let found = Scene::from_pieces(vec![found_at(Color::Red, Size::Medium, [500.0, 300.0])]);
        assert_eq!(pair_pieces(&found, &truth, 20.0), vec![(0, 1)]);
    }

    #[test]
    fn a_misread_colour_still_pairs_with_the_piece_it_stands_on() {
        // A red read yellow, a true yellow a base's width away: the misreading is counted.
        let truth = [
            truth(Color::Red, [500.0, 300.0], 1.0),
            truth(Color::Yellow, [525.0, 300.0], 1.0),
        ];
        let found = Scene::from_pieces(vec![found_at(Color::Yellow, Size::Large, [501.0, 300.0])]);
        assert_eq!(pair_pieces(&found, &truth, 40.0), vec![(0, 0)]);
    }

    #[test]
    fn a_detection_over_a_nest_pairs_with_the_visible_outer_piece() {
        let mut found = Piece::new(0, Color::Blue, Size::Large, Isometry3::identity());
        found.image_xy = Some([713.0, 392.5]);
        let scene = Scene::from_pieces(vec![found]);
        let truth = [
            truth(Color::Blue, [713.0, 391.0], 1.0),
            truth(Color::Red, [713.0, 393.0], 0.0),
        ];
        let score = score_scene(&scene, &truth, 20.0);
        assert_eq!(score.color, Count { agree: 1, total: 1 });
        assert_eq!(score.recall, Count { agree: 1, total: 1 });
        assert_eq!(score.precision, Count { agree: 1, total: 1 });
    }
}
