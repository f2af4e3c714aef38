//! The scene document (`scene-json.md`): reading with field-precise errors, and writing.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use nalgebra::{Isometry3, Matrix3, Point3, Rotation3, Translation3, UnitQuaternion, Vector3};
use serde::{Deserialize, Serialize};

use crate::koan::{JudgmentCall, Koan};
use crate::piece::{
    Color, KoanId, Orientation, Piece, PieceAttributes, PieceId, PieceMargins, Shape, Size,
};

/// Schema tag written into every document.
pub const SCHEMA: &str = "koanscope.scene/1";

/// How far a rotation block may be from orthonormal before the pose is refused.
const RIGID_TOLERANCE: f64 = 1e-4;

/// What is on the table: pieces with poses, and (once derived) koans with relations.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Scene {
    /// Where the scene came from (an image path, a camera frame, a hand-built koan).
    pub source: Option<String>,
    pub image_size: Option<[u32; 2]>,
    pub pieces: Vec<Piece>,
    pub koans: Vec<Koan>,
}

/// A scene document that could not be read, with the place of the fault.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    #[error("cannot read the file")]
    Io(#[source] std::io::Error),
    #[error("not a scene document")]
    Json(#[from] serde_json::Error),
    #[error("{field}: {message}")]
    Invalid { field: String, message: String },
}

fn invalid(field: impl Into<String>, message: impl Into<String>) -> SceneError {
    SceneError::Invalid {
        field: field.into(),
        message: message.into(),
    }
}

impl Scene {
    /// A scene of pieces only (a poses document).
    pub fn from_pieces(pieces: Vec<Piece>) -> Scene {
        Scene {
            pieces,
            ..Scene::default()
        }
    }

    pub fn from_json_str(text: &str) -> Result<Scene, SceneError> {
        let raw: RawScene = serde_json::from_str(text)?;
        raw.validate()
    }

    pub fn from_path(path: &Path) -> Result<Scene, SceneError> {
        // Bytes, not text: an image passed by mistake is "not a scene document", not an I/O fault.
        let bytes = std::fs::read(path).map_err(SceneError::Io)?;
        let raw: RawScene = serde_json::from_slice(&bytes)?;
        raw.validate()
    }

    pub fn to_json_value(&self) -> serde_json::Value {
        serde_json::to_value(RawScene::from(self)).expect("a scene always serialises")
    }

    pub fn to_json_string(&self, pretty: bool) -> String {
        let raw = RawScene::from(self);
        if pretty {
            serde_json::to_string_pretty(&raw)
        } else {
            serde_json::to_string(&raw)
        }
        .expect("a scene always serialises")
    }

    pub fn piece(&self, id: PieceId) -> Option<&Piece> {
        self.pieces.iter().find(|p| p.id == id)
    }

    pub fn koan(&self, id: KoanId) -> Option<&Koan> {
        self.koans.iter().find(|k| k.id == id)
    }

    /// The pieces of a koan, in the koan's order.
    pub fn pieces_of<'a>(&'a self, koan: &'a Koan) -> impl Iterator<Item = &'a Piece> + 'a {
        koan.pieces.iter().filter_map(move |id| self.piece(*id))
    }

    /// Every koan's judgment calls, koan by koan.
    pub fn judgment_calls(&self) -> impl Iterator<Item = &JudgmentCall> {
        self.koans.iter().flat_map(|k| &k.judgment_calls)
    }
}

/// The document exactly as written on disk; `validate` turns it into a `Scene`.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct RawScene {
    #[serde(default)]
    schema: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    source: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    image_size: Option<[u32; 2]>,
    pieces: Vec<RawPiece>,
    #[serde(default)]
    koans: Vec<Koan>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct RawPiece {
    id: Option<PieceId>,
    #[serde(default)]
    koan: Option<KoanId>,
    color: Option<String>,
    size: Option<String>,
    #[serde(default)]
    pips: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    shape: Option<String>,
    #[serde(default)]
    table_from_piece: Option<Vec<Vec<f64>>>,
    /// Ground-truth files also carry the same matrix as `pose`.
    #[serde(default, skip_serializing)]
    pose: Option<Vec<Vec<f64>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    base_center_mm: Option<[f64; 3]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    apex_mm: Option<[f64; 3]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    axis: Option<[f64; 3]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    height_mm: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    orientation: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    grounded: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    margins: Option<PieceMargins>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    image_xy: Option<[f64; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    confidence: Option<f64>,
}

impl From<&Scene> for RawScene {
    fn from(scene: &Scene) -> RawScene {
        RawScene {
            schema: Some(SCHEMA.to_string()),
            source: scene.source.clone(),
            image_size: scene.image_size,
            pieces: scene.pieces.iter().map(RawPiece::from).collect(),
            koans: scene.koans.clone(),
        }
    }
}

impl From<&Piece> for RawPiece {
    fn from(p: &Piece) -> RawPiece {
        let m = p.table_from_piece.to_homogeneous();
        // Nine decimals is far below a micrometre and keeps the document readable.
        let round = |v: f64| (v * 1e9).round() / 1e9;
        let rows = (0..4)
            .map(|r| (0..4).map(|c| round(m[(r, c)])).collect())
            .collect();
        let a = p.attributes.as_ref();
        RawPiece {
            id: Some(p.id),
            koan: p.koan,
            color: Some(p.color.word().to_string()),
            size: Some(p.size.word().to_string()),
            pips: Some(p.pips()),
            shape: (p.shape != Shape::Pyramid).then(|| p.shape.word().to_string()),
            table_from_piece: Some(rows),
            pose: None,
            base_center_mm: a.map(|a| a.base_center_mm.coords.into()),
            apex_mm: a.map(|a| a.apex_mm.coords.into()),
            axis: a.map(|a| a.axis.into()),
            height_mm: a.map(|a| a.height_mm),
            orientation: a.map(|a| a.orientation.word().to_string()),
            grounded: a.map(|a| a.grounded),
            margins: a.map(|a| a.margins),
            image_xy: p.image_xy,
            confidence: p.confidence,
        }
    }
}

impl RawScene {
    fn validate(self) -> Result<Scene, SceneError> {
        if let Some(schema) = &self.schema
            && !schema.starts_with("koanscope.scene/1")
        {
            return Err(invalid(
                "schema",
                format!("{schema:?} is not a version this program reads ({SCHEMA})"),
            ));
        }
        let mut pieces = Vec::with_capacity(self.pieces.len());
        let mut seen = BTreeMap::new();
        for (index, raw) in self.pieces.into_iter().enumerate() {
            let piece = raw.validate(index)?;
            if let Some(first) = seen.insert(piece.id, index) {
                return Err(invalid(
                    format!("pieces[{index}].id"),
                    format!("id {} is used twice (also by pieces[{first}])", piece.id),
                ));
            }
            pieces.push(piece);
        }
        validate_koans(&pieces, &self.koans)?;
        Ok(Scene {
            source: self.source,
            image_size: self.image_size,
            pieces,
            koans: self.koans,
        })
    }
}

impl RawPiece {
    fn validate(self, index: usize) -> Result<Piece, SceneError> {
        let id = self
            .id
            .ok_or_else(|| invalid(format!("pieces[{index}].id"), "missing"))?;
        let at = |field: &str| format!("pieces[{index}] (id {id}).{field}");
        let color: Color = self
            .color
            .ok_or_else(|| invalid(at("color"), "missing"))?
            .parse()
            .map_err(|e| invalid(at("color"), format!("{e}")))?;
        let size = match (self.size, self.pips) {
            (Some(word), pips) => {
                let size: Size = word
                    .parse()
                    .map_err(|e| invalid(at("size"), format!("{e}")))?;
                if let Some(pips) = pips
                    && pips != size.pips()
                {
                    return Err(invalid(
                        at("pips"),
                        format!("{pips} pips, but a {size} piece has {}", size.pips()),
                    ));
                }
                size
            }
            (None, Some(pips)) => Size::from_pips(pips).ok_or_else(|| {
                invalid(at("pips"), format!("{pips} pips: a piece has 1, 2 or 3"))
            })?,
            (None, None) => return Err(invalid(at("size"), "missing")),
        };
        let shape = match self.shape {
            Some(word) => word
                .parse()
                .map_err(|e| invalid(at("shape"), format!("{e}")))?,
            None => Shape::Pyramid,
        };
        let matrix = self.table_from_piece.or(self.pose).ok_or_else(|| {
            invalid(
                at("table_from_piece"),
                "missing (a 4x4 rigid transform, mm)",
            )
        })?;
        let table_from_piece =
            rigid_from_rows(&matrix).map_err(|message| invalid(at("table_from_piece"), message))?;
        let orientation = match self.orientation {
            Some(word) => Some(
                word.parse::<Orientation>()
                    .map_err(|e| invalid(at("orientation"), format!("{e}")))?,
            ),
            None => None,
        };
        // Derived attributes are kept only when the document carries all of them; otherwise the
        // geometry engine derives them again from the pose.
        let attributes = match (orientation, self.grounded, self.height_mm) {
            (Some(orientation), Some(grounded), Some(height_mm)) => {
                let axis_piece = Vector3::z();
                let axis_table = table_from_piece.rotation * axis_piece;
                Some(PieceAttributes {
                    base_center_mm: self
                        .base_center_mm
                        .map(Point3::from)
                        .unwrap_or_else(|| table_from_piece * Point3::origin()),
                    apex_mm: self
                        .apex_mm
                        .map(Point3::from)
                        .unwrap_or_else(|| Point3::from(table_from_piece.translation.vector)),
                    axis: self.axis.map(Vector3::from).unwrap_or(axis_table),
                    height_mm,
                    orientation,
                    grounded,
                    margins: self.margins.unwrap_or_default(),
                })
            }
            _ => None,
        };
        if let Some(c) = self.confidence
            && !(0.0..=1.0).contains(&c)
        {
            return Err(invalid(at("confidence"), format!("{c} is outside [0, 1]")));
        }
        Ok(Piece {
            id,
            koan: self.koan,
            color,
            size,
            shape,
            table_from_piece,
            attributes,
            image_xy: self.image_xy,
            confidence: self.confidence,
        })
    }
}

/// A rigid transform from the 4x4 row-major matrix of the document, or why it is not one.
pub fn rigid_from_rows(rows: &[Vec<f64>]) -> Result<Isometry3<f64>, String> {
    if rows.len() != 4 || rows.iter().any(|r| r.len() != 4) {
        let shape: Vec<usize> = rows.iter().map(Vec::len).collect();
        return Err(format!(
            "expected 4 rows of 4 numbers, got rows of lengths {shape:?}"
        ));
    }
    if rows.iter().flatten().any(|v| !v.is_finite()) {
        return Err("contains a number that is not finite".into());
    }
    let bottom = &rows[3];
    if bottom[0].abs() > RIGID_TOLERANCE
        || bottom[1].abs() > RIGID_TOLERANCE
        || bottom[2].abs() > RIGID_TOLERANCE
        || (bottom[3] - 1.0).abs() > RIGID_TOLERANCE
    {
        return Err(format!("last row is {bottom:?}, not [0, 0, 0, 1]"));
    }
    let r = Matrix3::from_fn(|i, j| rows[i][j]);
    let off_orthonormal = (r.transpose() * r - Matrix3::identity()).abs().max();
    if off_orthonormal > RIGID_TOLERANCE {
        return Err(format!(
            "rotation block is not orthonormal (off by {off_orthonormal:.2e}): scaled or sheared"
        ));
    }
    if r.determinant() < 0.0 {
        return Err("rotation block is a reflection (determinant -1)".into());
    }
    let rotation = UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(r));
    let translation = Translation3::new(rows[0][3], rows[1][3], rows[2][3]);
    Ok(Isometry3::from_parts(translation, rotation))
}

fn validate_koans(pieces: &[Piece], koans: &[Koan]) -> Result<(), SceneError> {
    let known: BTreeSet<PieceId> = pieces.iter().map(|p| p.id).collect();
    let mut koan_ids = BTreeMap::new();
    let mut owner: BTreeMap<PieceId, KoanId> = BTreeMap::new();
    for (index, koan) in koans.iter().enumerate() {
        let at = |field: &str| format!("koans[{index}] (id {}).{field}", koan.id);
        if let Some(first) = koan_ids.insert(koan.id, index) {
            return Err(invalid(
                format!("koans[{index}].id"),
                format!("id {} is used twice (also by koans[{first}])", koan.id),
            ));
        }
        let members: BTreeSet<PieceId> = koan.pieces.iter().copied().collect();
        for id in &koan.pieces {
            if !known.contains(id) {
                return Err(invalid(
                    at("pieces"),
                    format!("names piece {id}, which is not in the scene"),
                ));
            }
            if let Some(other) = owner.insert(*id, koan.id) {
                return Err(invalid(
                    at("pieces"),
                    format!("piece {id} is also in koan {other}: a piece belongs to one koan"),
                ));
            }
        }
        let pairs = [
            ("touching", &koan.touching),
            ("pointing", &koan.pointing),
            ("inserted", &koan.inserted),
            ("fully_inserted", &koan.fully_inserted),
            ("same_direction", &koan.same_direction),
            ("opposite_direction", &koan.opposite_direction),
        ];
        for (field, list) in pairs {
            for pair in list.iter() {
                check_members(&at(field), pair, &members, &known)?;
            }
        }
        for (field, list) in [("towers", &koan.towers), ("nests", &koan.nests)] {
            for chain in list.iter() {
                check_members(&at(field), chain, &members, &known)?;
            }
        }
    }
    for (index, piece) in pieces.iter().enumerate() {
        if let Some(k) = piece.koan {
            if !koan_ids.contains_key(&k) && !koans.is_empty() {
                return Err(invalid(
                    format!("pieces[{index}] (id {}).koan", piece.id),
                    format!("koan {k} is not in the scene"),
                ));
            }
            if let Some(listed) = owner.get(&piece.id)
                && *listed != k
            {
                return Err(invalid(
                    format!("pieces[{index}] (id {}).koan", piece.id),
                    format!("says koan {k}, but koan {listed} lists the piece"),
                ));
            }
        }
    }
    Ok(())
}

fn check_members(
    field: &str,
    ids: &[PieceId],
    members: &BTreeSet<PieceId>,
    known: &BTreeSet<PieceId>,
) -> Result<(), SceneError> {
    for id in ids {
        if !known.contains(id) {
            return Err(invalid(
                field,
                format!("names piece {id}, which is not in the scene"),
            ));
        }
        if !members.contains(id) {
            return Err(invalid(
                field,
                format!("names piece {id}, which is not in this koan"),
            ));
        }
    }
    Ok(())
}
