//! The colour model: which pixels belong to pieces, and which colour each piece pixel has.
//!
//! Pieces are told from the table by contrast with the table's *local* colour (a wide median),
//! not by absolute colour, so a blue cloth, a warm wood or a vignetted corner do not matter much;
//! the piece colour is then the nearest hue centre. Defaults live in `models/colors.toml`.

use std::path::Path;

use koanscope_scene::Color;
use serde::{Deserialize, Serialize};

use crate::error::VisionError;

/// The model shipped with koanscope.
pub const DEFAULT_COLORS_TOML: &str = include_str!("../../../models/colors.toml");

/// One piece colour: its hue centre in the (a, b) plane of 8-bit CIELAB, degrees.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColorPrototype {
    pub name: Color,
    pub hue_deg: f64,
}

/// Thresholds and hue centres; see `models/colors.toml` for what each field means.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColorModel {
    pub background_window_px: u32,
    pub min_chroma_difference: f64,
    pub max_dark_ratio: f64,
    pub min_chroma: f64,
    pub black_table_chroma_share: f64,
    /// Older model files lack it: they read with the shipped value.
    #[serde(default = "shipped_saturation_step")]
    pub min_saturation_step: f64,
    /// Older model files lack it: they read with the shipped value.
    #[serde(default = "shipped_shaded_saturation_step")]
    pub min_shaded_saturation_step: f64,
    pub shadow_chroma_difference: f64,
    pub shadow_dark_ratio: f64,
    pub colors: Vec<ColorPrototype>,
}

/// What one pixel is, as far as colour can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PixelClass {
    /// Looks like the table (or its shadows).
    Table,
    /// Differs from the table but has no sure piece colour (tinted shadows, glare, hands).
    Unknown,
    /// A piece pixel of this colour.
    Piece(Color),
}

fn shipped_saturation_step() -> f64 {
    6.0
}

fn shipped_shaded_saturation_step() -> f64 {
    1.0
}

/// A table must be this colourful (8-bit Lab chroma) for a piece of its own hue to be told by
/// saturation alone: below it, its hue is noise.
const MIN_TABLE_CHROMA: f64 = 30.0;
/// A table this colourful (8-bit Lab chroma) is tinted: a piece of its hue in the shade may pass
/// for a tinted shadow (see `ColorModel::vivid_on_tinted_table`). Below it, its hue is noise.
const MIN_TINTED_TABLE_CHROMA: f64 = 10.0;
/// How much more chroma than the table, for its lightness, a piece's face in the shade has on a
/// tinted table (yellow faces on pine, cork and oak: 1.5–2.5; a plain shadow on them about 1; a
/// shadow tinted by a translucent piece as much as a face, told by its hue).
const VIVID_SATURATION: f64 = 1.4;
/// How far from the tinted table's hue such a face may lie, degrees...
const VIVID_TABLE_HUE_DEG: f64 = 30.0;
/// ...and how near a piece colour's centre: less than half the 50° between red and yellow.
const VIVID_PIECE_HUE_DEG: f64 = 15.0;
/// A dark pixel darker than this share of `max_dark_ratio` is black whatever its faint tint:
/// the rim where black meets a coloured piece is nearly as dark as black itself (dev, 0.36 of
/// the table's lightness and less), a coloured piece's shaded face lighter (0.43 on baize).
const DEEP_BLACK_SHARE: f64 = 0.85;
/// How far a piece's colour may lie from the table's hue and still be read as its saturated twin:
/// the tangent of the angle between the pixel's difference and the table's chroma (about 20°).
const TWIN_TAN: f64 = 0.36;
/// ...and how near that hue must be to a piece colour's centre, degrees.
const TWIN_HUE_DEG: f64 = 20.0;

impl Default for ColorModel {
    fn default() -> Self {
        ColorModel::from_toml_str(DEFAULT_COLORS_TOML).expect("the bundled colour model is valid")
    }
}

impl ColorModel {
    pub fn from_toml_str(text: &str) -> Result<ColorModel, String> {
        let model: ColorModel = toml::from_str(text).map_err(|e| e.to_string())?;
        if model.colors.is_empty() {
            return Err("no [[colors]] listed".into());
        }
        if model.background_window_px < 15 {
            return Err("background_window_px must be at least 15".into());
        }
        if !(model.max_dark_ratio > 0.0 && model.max_dark_ratio < 1.0) {
            return Err("max_dark_ratio must lie between 0 and 1".into());
        }
        if model.colors.iter().any(|c| c.name == Color::Black) {
            return Err(
                "black is found by darkness (max_dark_ratio, min_chroma), not by hue".into(),
            );
        }
        Ok(model)
    }

    /// Reads a model file, saying what is wrong with it.
    /// The model at `path`, or the shipped one (`models/colors.toml`) when none is given.
    pub fn load_or_shipped(path: Option<&Path>) -> Result<ColorModel, VisionError> {
        path.map_or_else(|| Ok(ColorModel::default()), ColorModel::load)
    }

    pub fn load(path: &Path) -> Result<ColorModel, VisionError> {
        let fail = |reason: String| VisionError::ColorModel {
            path: path.to_path_buf(),
            reason,
        };
        let text =
            std::fs::read_to_string(path).map_err(|e| fail(format!("cannot read it ({e})")))?;
        ColorModel::from_toml_str(&text).map_err(fail)
    }

    /// The model as TOML, with a header that says where it came from.
    pub fn to_toml(&self, origin: &str) -> String {
        let body = toml::to_string(self).unwrap_or_default();
        format!(
            "# koanscope colour model ({origin}). Fields are explained in the shipped models/colors.toml.\n{body}"
        )
    }

    /// Classifies one 8-bit Lab pixel against the table's local Lab colour.
    pub fn classify(&self, lab: [u8; 3], table_lab: [u8; 3]) -> PixelClass {
        // Most pixels are table: settle them in integers (the same tests, squared).
        let da = i32::from(lab[1]) - i32::from(table_lab[1]);
        let db = i32::from(lab[2]) - i32::from(table_lab[2]);
        let near_in_chroma =
            f64::from(da * da + db * db) < self.min_chroma_difference * self.min_chroma_difference;
        if near_in_chroma && self.not_dark(lab[0], table_lab[0]) {
            return PixelClass::Table;
        }
        let a = f64::from(lab[1]) - 128.0;
        let b = f64::from(lab[2]) - 128.0;
        let ta = f64::from(table_lab[1]) - 128.0;
        let tb = f64::from(table_lab[2]) - 128.0;
        // Bounded values: a square root is exact enough and far cheaper than `hypot`.
        let chroma_difference = ((a - ta) * (a - ta) + (b - tb) * (b - tb)).sqrt();
        let dark_ratio = (f64::from(lab[0]) + 1.0) / (f64::from(table_lab[0]) + 1.0);
        let dark = dark_ratio < self.max_dark_ratio;
        if chroma_difference < self.min_chroma_difference && !dark {
            return PixelClass::Table;
        }
        // Translucent pieces cast tinted shadows: darker than the table and only weakly coloured.
        // (On a table tinted towards a piece's hue, a piece of that colour in the shade differs
        // from it as little, but is vivid for its lightness: see `vivid_on_tinted_table`.)
        if chroma_difference < self.shadow_chroma_difference
            && dark_ratio < self.shadow_dark_ratio
            && !dark
            && !self.vivid_on_tinted_table(lab, table_lab, dark_ratio)
        {
            return PixelClass::Unknown;
        }
        let chroma = (a * a + b * b).sqrt();
        // Black plastic mirrors a dimmed, paler table: on a coloured cloth it keeps some hue.
        let black_chroma = self
            .min_chroma
            .max(self.black_table_chroma_share * (ta * ta + tb * tb).sqrt());
        // Past grey, only a tint to the table's side of its hue (within 90°): the shaded face
        // of a blue piece on green baize is as dark and as weakly coloured, but blue. Deep
        // black keeps any tint (its rim, blended with a coloured piece it meets).
        if dark
            && chroma < black_chroma
            && (chroma < self.min_chroma
                || dark_ratio < DEEP_BLACK_SHARE * self.max_dark_ratio
                || a * ta + b * tb > 0.0)
        {
            return PixelClass::Piece(Color::Black);
        }
        if chroma < self.min_chroma {
            return PixelClass::Unknown;
        }
        let hue = b.atan2(a).to_degrees().rem_euclid(360.0);
        self.nearest_hue(hue)
            .map(PixelClass::Piece)
            .unwrap_or(PixelClass::Unknown)
    }

    /// Whether a pixel darker than the table, and differing from it in chroma by no more than a
    /// tinted shadow does, is a piece of the table's own hue all the same. Wood and cork are
    /// tinted towards yellow (chroma about 20, and under warm lamps over 30, as a cloth's), a red
    /// felt towards red: a piece of that hue on them, its faces dimmer than the table under a
    /// lamp, is as near the table's chroma as a shadow is (and so never reaches the twin test of
    /// `segment`, which looks only at table pixels). It is told by being vivid: chroma for its
    /// lightness at least [`VIVID_SATURATION`] times the table's (a plain shadow on such a table
    /// keeps about the table's), a hue near the table's ([`VIVID_TABLE_HUE_DEG`]) and near a
    /// piece colour's centre ([`VIVID_PIECE_HUE_DEG`]; the shadows translucent pieces cast on
    /// oak, where red and yellow mix, lie between the two). Only on a warm table (its hue
    /// nearest red's or yellow's): a shadow takes the cooler light around it, so on wood it
    /// loses chroma, while on a blue cloth it gains blue as a blue piece's face does.
    fn vivid_on_tinted_table(&self, lab: [u8; 3], table_lab: [u8; 3], dark_ratio: f64) -> bool {
        let (table_hue, table_chroma) = hue_and_chroma(table_lab);
        if table_chroma < MIN_TINTED_TABLE_CHROMA {
            return false;
        }
        let (hue, chroma) = hue_and_chroma(lab);
        if chroma < VIVID_SATURATION * dark_ratio * table_chroma {
            return false;
        }
        let warm = matches!(
            self.nearest_hue(table_hue),
            Some(Color::Red | Color::Yellow)
        );
        warm && hue_distance_deg(hue, table_hue) <= VIVID_TABLE_HUE_DEG
            && self
                .colors
                .iter()
                .any(|c| hue_distance_deg(hue, c.hue_deg) <= VIVID_PIECE_HUE_DEG)
    }

    /// The piece colour a table of this 8-bit Lab chroma (a, b) may hide by its own hue: one
    /// colourful enough to have a hue, within [`TWIN_HUE_DEG`] of a piece colour's.
    pub(crate) fn twin_colour_of_table(&self, table_ab: [u8; 2]) -> Option<Color> {
        let (table_hue, table_chroma) = hue_and_chroma([0, table_ab[0], table_ab[1]]);
        if table_chroma < MIN_TABLE_CHROMA {
            return None;
        }
        let color = self.nearest_hue(table_hue)?;
        let centre = self.colors.iter().find(|c| c.name == color)?.hue_deg;
        (hue_distance_deg(table_hue, centre) <= TWIN_HUE_DEG).then_some(color)
    }

    /// A piece of the table's own colour (green on green baize, blue on blue cloth) differs from
    /// it in chroma by less than `min_chroma_difference` on its lit faces, but always the same
    /// way: the same hue, more saturated (shadows and glare on a cloth are paler and darker). A
    /// pixel whose chroma exceeds the table's at the table's hue (see
    /// [`ColorModel::twin_colour_of_table`]) is that colour: by `min_saturation_step` where it is
    /// not darker than `shadow_dark_ratio` of the table, by `min_shaded_saturation_step` where
    /// it is darker but not black (a shaded face). Only a patch of such pixels is (see
    /// `segment`): blur leaves single ones on the edges of pieces of other colours.
    #[inline]
    pub(crate) fn saturated_twin(&self, lab: [u8; 3], table_lab: [u8; 3]) -> bool {
        // A shaded face is darker than the table, as the table's shadows are, but they are
        // never more saturated than the lit table (on a green cloth they lose chroma, on a blue
        // one they keep about as much), so a smaller step tells it.
        let step = if self.lit_like_table(lab[0], table_lab[0]) {
            self.min_saturation_step
        } else if self.not_dark(lab[0], table_lab[0]) {
            self.min_shaded_saturation_step
        } else {
            return false;
        };
        let ta = i32::from(table_lab[1]) - 128;
        let tb = i32::from(table_lab[2]) - 128;
        let da = i32::from(lab[1]) - i32::from(table_lab[1]);
        let db = i32::from(lab[2]) - i32::from(table_lab[2]);
        let along = da * ta + db * tb;
        if along <= 0 {
            return false;
        }
        let (along, across) = (f64::from(along), f64::from((da * tb - db * ta).abs()));
        let table_chroma2 = f64::from(ta * ta + tb * tb);
        along * along >= step * step * table_chroma2 && across <= TWIN_TAN * along
    }

    /// Whether a pixel of 8-bit Lab lightness `l` is no darker than the table's shadows
    /// (`shadow_dark_ratio` of lightness `table_l`): lit as the table is.
    pub(crate) fn lit_like_table(&self, l: u8, table_l: u8) -> bool {
        at_least_as_light(l, table_l, self.shadow_dark_ratio)
    }

    /// Whether a pixel of 8-bit Lab lightness `l` is lighter than black plastic would be on a
    /// table of lightness `table_l` (`max_dark_ratio`, in this arithmetic everywhere).
    pub(crate) fn not_dark(&self, l: u8, table_l: u8) -> bool {
        at_least_as_light(l, table_l, self.max_dark_ratio)
    }

    fn nearest_hue(&self, hue_deg: f64) -> Option<Color> {
        self.colors
            .iter()
            .map(|c| (c.name, hue_distance_deg(hue_deg, c.hue_deg)))
            .min_by(|x, y| x.1.total_cmp(&y.1))
            .map(|(c, _)| c)
    }

    /// Every colour this model can report, black included.
    pub fn palette(&self) -> Vec<Color> {
        let mut colors: Vec<Color> = self.colors.iter().map(|c| c.name).collect();
        colors.push(Color::Black);
        colors
    }
}

/// Whether an 8-bit Lab lightness `l` is at least `share` of the table's `table_l` (both counted
/// from 1, so a black table does not divide by zero).
fn at_least_as_light(l: u8, table_l: u8, share: f64) -> bool {
    f64::from(l) + 1.0 >= share * (f64::from(table_l) + 1.0)
}

/// Angle between two hues, degrees in [0, 180].
pub fn hue_distance_deg(a: f64, b: f64) -> f64 {
    let d = (a - b).rem_euclid(360.0);
    d.min(360.0 - d)
}

/// Hue of an 8-bit Lab pixel, degrees, and its chroma.
pub fn hue_and_chroma(lab: [u8; 3]) -> (f64, f64) {
    let a = f64::from(lab[1]) - 128.0;
    let b = f64::from(lab[2]) - 128.0;
    (b.atan2(a).to_degrees().rem_euclid(360.0), a.hypot(b))
}

/// Circular mean of hues, degrees; `None` for no samples.
pub fn circular_mean_deg(hues: &[f64]) -> Option<f64> {
    if hues.is_empty() {
        return None;
    }
    let (s, c) = hues.iter().fold((0.0, 0.0), |(s, c), h| {
        (s + h.to_radians().sin(), c + h.to_radians().cos())
    });
    Some(s.atan2(c).to_degrees().rem_euclid(360.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lab(l: f64, hue_deg: f64, chroma: f64) -> [u8; 3] {
        let (s, c) = hue_deg.to_radians().sin_cos();
        [
            l as u8,
            (128.0 + chroma * c) as u8,
            (128.0 + chroma * s) as u8,
        ]
    }

    #[test]
    fn pieces_stand_out_from_tables_of_any_colour() {
        let model = ColorModel::default();
        let wood = lab(141.0, 78.0, 19.0);
        let blue_cloth = lab(78.0, 290.0, 38.0);
        assert_eq!(model.classify(wood, wood), PixelClass::Table);
        assert_eq!(
            model.classify(lab(150.0, 80.0, 50.0), wood),
            PixelClass::Piece(Color::Yellow)
        );
        assert_eq!(
            model.classify(lab(70.0, 30.0, 50.0), wood),
            PixelClass::Piece(Color::Red)
        );
        assert_eq!(
            model.classify(lab(40.0, 0.0, 3.0), wood),
            PixelClass::Piece(Color::Black)
        );
        // A shadow: darker wood, same hue, not dark enough to be a black piece.
        assert_eq!(
            model.classify(lab(100.0, 78.0, 17.0), wood),
            PixelClass::Table
        );
        assert_eq!(
            model.classify(lab(100.0, 296.0, 62.0), blue_cloth),
            PixelClass::Piece(Color::Blue)
        );
        assert_eq!(
            model.classify(lab(100.0, 143.0, 45.0), blue_cloth),
            PixelClass::Piece(Color::Green)
        );
    }

    #[test]
    fn a_face_of_the_tables_own_colour_lit_or_shaded_is_its_saturated_twin_and_a_shadow_is_not() {
        let model = ColorModel::default();
        // 8-bit Lab as read from a render of green baize under a warm lamp.
        let baize = [104, 99, 150];
        let lit_green_face = [97, 92, 155];
        let shadow_on_baize = [81, 102, 145];
        let shaded_green_face = [81, 96, 152];
        let glare_on_baize = [140, 110, 140];
        assert_eq!(model.classify(lit_green_face, baize), PixelClass::Table);
        assert_eq!(model.classify(shaded_green_face, baize), PixelClass::Table);
        assert_eq!(
            model.twin_colour_of_table([baize[1], baize[2]]),
            Some(Color::Green)
        );
        assert!(model.saturated_twin(lit_green_face, baize));
        assert!(model.saturated_twin(shaded_green_face, baize));
        assert!(!model.saturated_twin(shadow_on_baize, baize));
        assert!(!model.saturated_twin(glare_on_baize, baize));
        // As dark as black plastic, a pixel is no face of the cloth's colour.
        assert!(!model.saturated_twin([40, 94, 155], baize));
        // On a blue cloth (the dev set's) a shadow keeps about the cloth's chroma but gains none:
        // no twin, however dark.
        let blue_cloth = [70, 139, 93];
        assert_eq!(
            model.twin_colour_of_table([blue_cloth[1], blue_cloth[2]]),
            Some(Color::Blue)
        );
        assert!(!model.saturated_twin([37, 141, 102], blue_cloth));
        assert!(!model.saturated_twin([40, 145, 97], blue_cloth));
        // Wood is too pale for its hue to hide a yellow piece, and grey has no hue.
        let oak = lab(141.0, 78.0, 20.0);
        assert_eq!(model.twin_colour_of_table([oak[1], oak[2]]), None);
        assert_eq!(model.twin_colour_of_table([128, 129]), None);
        // A cloth between two piece colours' hues hides neither.
        let teal = lab(100.0, 220.0, 40.0);
        assert_eq!(model.twin_colour_of_table([teal[1], teal[2]]), None);
    }

    /// A yellow piece on cork (table holdout T4, a tower's middle piece under a low sun; T7 under
    /// warm lamps) is a quarter darker than the cork and as near it in chroma as a tinted
    /// shadow, but twice as colourful for its lightness. What a tinted table's shadows look like
    /// is no piece: a deep one duller than the table, and one cast by translucent red and yellow
    /// together on oak (dev D1 scene 1), as vivid but of a hue between theirs. Nor, on a blue
    /// cloth, is a shadow that gains blue as the pieces' faces do: shadows take the cooler light
    /// around, so only warm tables lose chroma in theirs.
    #[test]
    fn a_piece_in_the_shade_on_a_table_tinted_its_hue_is_its_colour_and_a_shadow_is_not() {
        let model = ColorModel::default();
        let cork = lab(132.0, 76.0, 22.6);
        assert_eq!(
            model.classify(lab(102.0, 87.0, 38.5), cork),
            PixelClass::Piece(Color::Yellow)
        );
        assert_eq!(
            model.classify(lab(80.0, 76.0, 12.0), cork),
            PixelClass::Unknown
        );
        // Cork under warm lamps (T7) is as colourful as a cloth, and the piece on it as dim.
        let warm_lit_cork = lab(164.0, 70.0, 37.0);
        assert_eq!(
            model.classify(lab(134.0, 82.0, 52.0), warm_lit_cork),
            PixelClass::Piece(Color::Yellow)
        );
        let oak = lab(133.0, 74.0, 22.0);
        assert_eq!(
            model.classify(lab(105.0, 59.0, 31.5), oak),
            PixelClass::Unknown
        );
        let faded_blue_cloth = lab(87.0, 285.0, 25.0);
        assert_eq!(
            model.classify(lab(52.0, 297.0, 36.0), faded_blue_cloth),
            PixelClass::Unknown
        );
    }

    /// Holdout H1 scene 0: an upside-down blue medium on green baize. Its shaded faces are as
    /// dark as black plastic there and as weakly coloured as black mirroring the baize, but
    /// blue; black mirroring the baize is tinted green, and black in deep shade any way.
    #[test]
    fn a_dark_face_tinted_away_from_the_table_is_its_colour_not_black() {
        let model = ColorModel::default();
        let baize = [109, 99, 152];
        assert_eq!(
            model.classify(lab(46.0, 296.0, 19.0), baize),
            PixelClass::Piece(Color::Blue)
        );
        assert_eq!(
            model.classify(lab(46.0, 140.0, 19.0), baize),
            PixelClass::Piece(Color::Black)
        );
        assert_eq!(
            model.classify(lab(30.0, 296.0, 19.0), baize),
            PixelClass::Piece(Color::Black)
        );
        // Grey stays black whatever the table.
        assert_eq!(
            model.classify(lab(46.0, 296.0, 8.0), baize),
            PixelClass::Piece(Color::Black)
        );
    }

    #[test]
    fn shipped_model_round_trips_and_bad_models_are_refused() {
        let model = ColorModel::default();
        let back = ColorModel::from_toml_str(&model.to_toml("test")).expect("valid");
        assert_eq!(back, model);
        assert!(ColorModel::from_toml_str("background_window_px = 125").is_err());
        let with_black = DEFAULT_COLORS_TOML.replace("name = \"red\"", "name = \"black\"");
        assert!(ColorModel::from_toml_str(&with_black).is_err());
    }

    #[test]
    fn hues_wrap_around() {
        assert!((hue_distance_deg(350.0, 10.0) - 20.0).abs() < 1e-9);
        let mean = circular_mean_deg(&[350.0, 10.0]).expect("samples");
        assert!(hue_distance_deg(mean, 0.0) < 1e-6);
    }
}
