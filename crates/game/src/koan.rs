//! Koans as the game keeps them: one scene document per koan, as it was when it was marked.

use std::collections::BTreeMap;

use koanscope_scene::{Koan, Mark, Orientation, Scene};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::GameError;

/// A koan's number in a game: 1 for the first initial koan, then in the order koans were built.
pub type KoanNo = u32;

/// Checks that a document describes exactly one koan whose pieces carry derived attributes: the
/// rule engine marks such a document without the geometry engine (which the game does not link).
pub fn check_koan_scene(scene: &Scene) -> Result<(), GameError> {
    let bad = |m: String| Err(GameError::KoanDocument(m));
    if scene.pieces.is_empty() {
        return bad("it has no pieces".into());
    }
    if scene.koans.len() != 1 {
        return bad(format!(
            "it holds {} koans; a koan's document holds exactly one (run the geometry engine, and keep the pieces of one koan together)",
            scene.koans.len()
        ));
    }
    if scene.koans[0].pieces.len() != scene.pieces.len() {
        return bad(format!(
            "{} pieces, but its koan lists {}",
            scene.pieces.len(),
            scene.koans[0].pieces.len()
        ));
    }
    if let Some(p) = scene.pieces.iter().find(|p| p.attributes.is_none()) {
        return bad(format!(
            "piece {} has no derived attributes (run the geometry engine first)",
            p.id
        ));
    }
    Ok(())
}

/// What a restored koan must have in common with the logged one: its pieces (colour, size,
/// orientation, grounded) and how many of each relation it has. Poses may differ a little (the
/// Master rebuilds it by hand), what the rules can see may not.
pub fn fingerprint(scene: &Scene) -> String {
    let mut pieces: Vec<String> = scene
        .pieces
        .iter()
        .map(|p| {
            let (o, g) = p
                .attributes
                .as_ref()
                .map(|a| (a.orientation, a.grounded))
                .unwrap_or((Orientation::Weird, false));
            format!(
                "{} {} {}{}",
                p.color,
                p.size,
                o,
                if g { "" } else { " ungrounded" }
            )
        })
        .collect();
    pieces.sort();
    let mut relations = BTreeMap::new();
    for k in &scene.koans {
        *relations.entry("touching").or_insert(0) += k.touching.len();
        *relations.entry("pointing").or_insert(0) += k.pointing.len();
        *relations.entry("inserted").or_insert(0) += k.inserted.len();
        *relations.entry("fully inserted").or_insert(0) += k.fully_inserted.len();
        *relations.entry("towers").or_insert(0) += k.towers.len();
        *relations.entry("nests").or_insert(0) += k.nests.len();
    }
    let relations: Vec<String> = relations
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .map(|(r, n)| format!("{n} {r}"))
        .collect();
    format!("{}; {}", pieces.join(", "), relations.join(", "))
}

/// One scene of several koans (the table the guesses are checked against): piece ids are
/// renumbered so they stay unique, and each koan takes the game's number and mark.
pub fn table_scene<'a>(
    koans: impl IntoIterator<Item = (KoanNo, &'a Scene, Option<Mark>)>,
) -> Scene {
    let mut table = Scene {
        source: Some("koans in play".into()),
        ..Scene::default()
    };
    for (no, scene, mark) in koans {
        let base = table.pieces.len() as u32;
        let renumber: BTreeMap<u32, u32> = scene
            .pieces
            .iter()
            .enumerate()
            .map(|(i, p)| (p.id, base + i as u32))
            .collect();
        let id = |p: &u32| renumber.get(p).copied().unwrap_or(u32::MAX);
        for p in &scene.pieces {
            let mut p = p.clone();
            p.id = id(&p.id);
            p.koan = Some(no);
            table.pieces.push(p);
        }
        for k in &scene.koans {
            let pair = |v: &[[u32; 2]]| v.iter().map(|[a, b]| [id(a), id(b)]).collect();
            let chain = |v: &[Vec<u32>]| v.iter().map(|c| c.iter().map(id).collect()).collect();
            table.koans.push(Koan {
                id: no,
                pieces: k.pieces.iter().map(id).collect(),
                touching: pair(&k.touching),
                pointing: pair(&k.pointing),
                inserted: pair(&k.inserted),
                fully_inserted: pair(&k.fully_inserted),
                towers: chain(&k.towers),
                nests: chain(&k.nests),
                same_direction: pair(&k.same_direction),
                opposite_direction: pair(&k.opposite_direction),
                mark,
                relations_detail: None,
                judgment_calls: Vec::new(),
            });
        }
    }
    table
}

/// Serde for a scene inside an event: the scene document of `scene-json.md`.
pub mod scene_doc {
    use super::*;

    pub fn serialize<S: Serializer>(scene: &Scene, s: S) -> Result<S::Ok, S::Error> {
        scene.to_json_value().serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Scene, D::Error> {
        let value = serde_json::Value::deserialize(d)?;
        Scene::from_json_str(&value.to_string()).map_err(serde::de::Error::custom)
    }
}

/// The same for an optional scene.
pub mod opt_scene_doc {
    use super::*;

    pub fn serialize<S: Serializer>(scene: &Option<Scene>, s: S) -> Result<S::Ok, S::Error> {
        scene.as_ref().map(Scene::to_json_value).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Scene>, D::Error> {
        let value = Option::<serde_json::Value>::deserialize(d)?;
        value
            .map(|v| Scene::from_json_str(&v.to_string()).map_err(serde::de::Error::custom))
            .transpose()
    }
}
