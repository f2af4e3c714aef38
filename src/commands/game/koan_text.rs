//! Koans written in a line, built with real poses (the geometry's `Placer`) and derived by the
//! geometry engine, so a game entered without a camera is marked on the same facts as one seen.
//!
//! ```text
//! red medium upright, blue small flat dir=2, green small upright on=0, yellow large tipped
//! ```
//!
//! Each piece is `colour size pose [options]`, pieces separated by commas:
//! - pose: `upright`, `flat` (lying on a side), `down` (upside down on its tip), `tipped`
//!   (standing on a base edge, leaning 40°: weird);
//! - `dir=N`: a flat or tipped piece heads N quarter turns from the row (default 1: across it,
//!   so its ray leaves the koan without meeting the other pieces);
//! - `toward=K`: a flat or tipped piece heads for piece K (0-based), to point at it;
//! - `on=K`: set on the tip of upright piece K (a tower); `in=K`: nested inside piece K;
//! - `x=X y=Y`: the base centre at X, Y mm instead of the next place in the row (15 mm gaps);
//! - `z=H`: a flat piece lies on a side face whose plane is H mm up (across the tips of others).
//!
//! Or `@ path` for a scene document (poses or derived) of one koan.

use std::f64::consts::FRAC_PI_2;
use std::path::Path;

use anyhow::{Context, bail};
use koanscope_geometry::{Engine, Placer};
use koanscope_scene::{Color, Piece, Scene, Size};
use nalgebra::Isometry3;

/// The gap left between row neighbours: well clear of touching (0.8 mm), well inside one
/// koan (30 mm).
const GAP_MM: f64 = 15.0;

/// A koan from an inline description or `@ path`, derived and checked to be one koan.
pub fn koan_from_text(text: &str, base_dir: &Path) -> anyhow::Result<Scene> {
    let text = text.trim();
    let mut scene = if let Some(path) = text.strip_prefix('@') {
        let path = base_dir.join(path.trim());
        let mut scene = Scene::from_path(&path)
            .with_context(|| format!("reading the koan document {}", path.display()))?;
        if scene.pieces.iter().any(|p| p.attributes.is_none()) || scene.koans.is_empty() {
            Engine::default().derive(&mut scene);
        }
        scene
    } else {
        let mut scene = Scene::from_pieces(place(text)?);
        scene.source = Some(format!("koan: {text}"));
        Engine::default().derive(&mut scene);
        scene
    };
    if scene.koans.len() != 1 {
        bail!(
            "{text:?} makes {} koans, not one: pieces more than 30 mm apart are separate koans",
            scene.koans.len()
        );
    }
    for k in &mut scene.koans {
        k.mark = None;
    }
    Ok(scene)
}

struct Spec {
    color: Color,
    size: Size,
    pose: String,
    dir: Option<f64>,
    toward: Option<usize>,
    on: Option<usize>,
    inside: Option<usize>,
    at: Option<(f64, f64)>,
    z: Option<f64>,
}

fn parse_piece(i: usize, text: &str) -> anyhow::Result<Spec> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let [color, size, pose, rest @ ..] = words.as_slice() else {
        bail!("piece {i} ({text:?}): expected colour, size and pose (upright, flat, down, tipped)");
    };
    let mut spec = Spec {
        color: color.parse().with_context(|| format!("piece {i}"))?,
        size: size.parse().with_context(|| format!("piece {i}"))?,
        pose: pose.to_ascii_lowercase(),
        dir: None,
        toward: None,
        on: None,
        inside: None,
        at: None,
        z: None,
    };
    if !["upright", "flat", "down", "tipped"].contains(&spec.pose.as_str()) {
        bail!("piece {i}: pose {pose:?} is not upright, flat, down or tipped");
    }
    let index = |v: &str| -> anyhow::Result<usize> {
        let k: usize = v
            .parse()
            .with_context(|| format!("piece {i}: {v:?} is not a piece number"))?;
        if k == i {
            bail!("piece {i} cannot refer to itself");
        }
        Ok(k)
    };
    for w in rest {
        let (key, value) = w
            .split_once('=')
            .with_context(|| format!("piece {i}: {w:?} is not understood (key=value)"))?;
        match key {
            "dir" => {
                let q: f64 = value
                    .parse()
                    .with_context(|| format!("piece {i}: bad dir {value:?}"))?;
                spec.dir = Some(q * FRAC_PI_2);
            }
            "toward" => spec.toward = Some(index(value)?),
            "on" => spec.on = Some(index(value)?),
            "in" => spec.inside = Some(index(value)?),
            "x" | "y" => {
                let v: f64 = value
                    .parse()
                    .with_context(|| format!("piece {i}: bad {key} {value:?}"))?;
                let (x, y) = spec.at.unwrap_or((f64::NAN, f64::NAN));
                spec.at = Some(if key == "x" { (v, y) } else { (x, v) });
            }
            "z" => {
                let z: f64 = value
                    .parse()
                    .with_context(|| format!("piece {i}: bad height {value:?}"))?;
                if !(0.0..=500.0).contains(&z) {
                    bail!("piece {i}: z={z} mm is off the table");
                }
                spec.z = Some(z);
            }
            other => bail!("piece {i}: {other:?} is not understood (dir, toward, on, in, x, y, z)"),
        }
    }
    Ok(spec)
}

/// Poses for every piece of the description.
fn place(text: &str) -> anyhow::Result<Vec<Piece>> {
    let specs: Vec<Spec> = text
        .split(',')
        .enumerate()
        .map(|(i, t)| parse_piece(i, t.trim()))
        .collect::<anyhow::Result<_>>()?;
    if specs.is_empty() || text.trim().is_empty() {
        bail!("a koan needs at least one piece");
    }
    let n = specs.len();
    for (i, s) in specs.iter().enumerate() {
        if let Some((x, y)) = s.at
            && (x.is_nan() || y.is_nan())
        {
            bail!("piece {i}: give both x= and y=");
        }
        for k in [s.toward, s.on, s.inside].into_iter().flatten() {
            if k >= n {
                bail!("piece {i} refers to piece {k}, but there are {n}");
            }
        }
    }
    let p = Placer::default();
    // First the positions in the row, then the poses (towers and pointing need their targets).
    let mut xy = vec![(0.0, 0.0); n];
    // How far a piece reaches along the row from its base centre: half its base, or its whole
    // length when it lies or leans along the row.
    let reach = |s: &Spec| {
        let dims = p.models().dims(s.size);
        let along_row = matches!(s.pose.as_str(), "flat" | "tipped")
            && (s.toward.is_some() || s.dir.is_some_and(|d| d.sin().abs() < 0.7));
        if along_row {
            dims.height_mm
        } else {
            dims.base_mm / 2.0
        }
    };
    let mut next_x: Option<f64> = None;
    for (i, s) in specs.iter().enumerate() {
        if s.on.is_some() || s.inside.is_some() {
            continue;
        }
        xy[i] = s.at.unwrap_or_else(|| {
            let x = next_x.map_or(0.0, |edge| edge + GAP_MM + reach(s));
            next_x = Some(x + reach(s));
            (x, 0.0)
        });
    }
    let mut poses: Vec<Option<Isometry3<f64>>> = vec![None; n];
    // Three passes: free pieces, then pieces on or in them, then pieces on those.
    for _ in 0..3 {
        for (i, s) in specs.iter().enumerate() {
            if poses[i].is_some() {
                continue;
            }
            let pose = if let Some(k) = s.on {
                let Some(lower) = poses[k] else { continue };
                if specs[k].pose != "upright" {
                    bail!("piece {i} is set on piece {k}, which is not upright");
                }
                p.on_tip(specs[k].size, &lower, s.size).with_context(|| {
                    format!(
                        "piece {i} ({}) is too big to stay on the tip of piece {k} ({}): it would slide down into a nest",
                        s.size, specs[k].size
                    )
                })?
            } else if let Some(k) = s.inside {
                let Some(outer) = poses[k] else { continue };
                if s.size >= specs[k].size {
                    bail!(
                        "piece {i} ({}) does not fit inside piece {k} ({})",
                        s.size,
                        specs[k].size
                    );
                }
                outer
            } else {
                let (x, y) = xy[i];
                let heading = match s.toward {
                    Some(k) => {
                        let (tx, ty) = xy[k];
                        (ty - y).atan2(tx - x)
                    }
                    None => s.dir.unwrap_or(FRAC_PI_2),
                };
                match s.pose.as_str() {
                    "upright" => p.upright(x, y, 0.0),
                    "flat" => p.flat_at_height(s.size, x, y, heading, s.z.unwrap_or(0.0)),
                    "down" => p.upside_down(s.size, x, y, 0.0),
                    _ => p.tipped(s.size, x, y, heading, 40f64.to_radians()),
                }
            };
            poses[i] = Some(pose);
        }
    }
    specs
        .iter()
        .zip(poses)
        .enumerate()
        .map(|(i, (s, pose))| {
            let pose = pose.with_context(|| format!("piece {i}: its support is never placed"))?;
            Ok(Piece::new(i as u32, s.color, s.size, pose))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use koanscope_scene::Orientation;

    fn koan(text: &str) -> Scene {
        koan_from_text(text, Path::new(".")).expect(text)
    }

    #[test]
    fn a_line_becomes_one_derived_koan() {
        let s = koan("red medium upright, blue small flat, green large down, yellow small tipped");
        assert_eq!(s.koans.len(), 1);
        let o: Vec<Orientation> = s
            .pieces
            .iter()
            .map(|p| p.attributes.as_ref().expect("derived").orientation)
            .collect();
        use Orientation::*;
        assert_eq!(o, vec![Upright, Flat, Weird, Weird]);
        assert!(s.koans[0].touching.is_empty(), "row pieces do not touch");
        assert!(
            s.koans[0].pointing.is_empty(),
            "flat pieces point across the row"
        );
    }

    #[test]
    fn towers_nests_and_pointing_are_built_for_real() {
        let tower = koan("red large upright, blue small upright on=0");
        assert_eq!(tower.koans[0].towers, vec![vec![0, 1]]);
        assert!(
            !tower.pieces[1]
                .attributes
                .as_ref()
                .expect("derived")
                .grounded
        );
        let nest = koan("red large upright, blue small upright in=0");
        assert_eq!(nest.koans[0].nests, vec![vec![0, 1]]);
        let pointing = koan("red small flat toward=1, blue large upright");
        assert_eq!(pointing.koans[0].pointing, vec![[0, 1]]);
    }

    #[test]
    fn impossible_koans_are_refused_with_the_reason() {
        for (text, why) in [
            (
                "red small upright, blue large upright on=0",
                "too big to stay on the tip",
            ),
            (
                "red small upright, blue large upright in=0",
                "does not fit inside",
            ),
            ("red small upright on=0", "cannot refer to itself"),
            ("red small upright, blue small flat toward=5", "there are 2"),
            ("red small sideways", "not upright, flat, down or tipped"),
            ("pink small upright", "unknown colour"),
            ("red small upright x=10", "give both x= and y="),
            (
                "red small upright, blue small upright x=500 y=0",
                "makes 2 koans",
            ),
        ] {
            let err = koan_from_text(text, Path::new(".")).expect_err(text);
            assert!(format!("{err:#}").contains(why), "{text}: {err:#}");
        }
    }
}
