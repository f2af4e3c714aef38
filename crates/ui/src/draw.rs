//! Painting shared by both views: the frame fitted into the space given, and koans, pieces,
//! stones and sketches over it. Positions come in frame pixels and are mapped to the screen
//! through one `screen_from_frame` transform.

use std::sync::Arc;

use egui::emath::RectTransform;
use egui::{Align2, Color32, FontId, Pos2, Rect, Sense, Shape, Stroke, TextureHandle, Ui, Vec2};
use koanscope_scene::{Color, Mark, Orientation, Piece, Scene};

use crate::feed::{Picture, PieceShape, PointPx};

/// The frame's texture, uploaded again only when a new picture arrives (a picture is new when
/// it is another `Arc`: the cache holds the one it shows, so its address cannot be reused).
#[derive(Default)]
pub struct PictureCache {
    texture: Option<(Arc<Picture>, TextureHandle)>,
}

impl PictureCache {
    fn texture(&mut self, ui: &Ui, picture: &Arc<Picture>) -> TextureHandle {
        // Every pixel is opaque, so the colours are already premultiplied: the bytes are egui's
        // colours as they are, copied whole (egui's own conversion goes pixel by pixel, and its
        // speed moved by half with where the frame happened to lie in memory).
        let image = || {
            egui::ColorImage::new(
                [picture.width as usize, picture.height as usize],
                bytemuck::cast_slice::<u8, egui::Color32>(&picture.rgba).to_vec(),
            )
        };
        match &mut self.texture {
            Some((shown, handle)) if Arc::ptr_eq(shown, picture) => handle.clone(),
            Some((shown, handle)) => {
                handle.set(image(), egui::TextureOptions::LINEAR);
                *shown = picture.clone();
                handle.clone()
            }
            None => {
                let handle =
                    ui.ctx()
                        .load_texture("table-frame", image(), egui::TextureOptions::LINEAR);
                self.texture = Some((picture.clone(), handle.clone()));
                handle
            }
        }
    }
}

/// The frame drawn as large as fits, keeping its aspect; returns the map from frame pixels to
/// the screen and the response (for clicks on the picture).
pub fn picture(
    ui: &mut Ui,
    cache: &mut PictureCache,
    picture: Option<&Arc<Picture>>,
    fallback_size: [u32; 2],
) -> (RectTransform, egui::Response) {
    picture_of(ui, cache, picture, fallback_size, None)
}

/// The part of the frame around `focus` (frame pixels), grown to the frame's aspect and drawn
/// as large as fits: the public view zooms in on the koans so they read from across the table.
pub fn picture_of(
    ui: &mut Ui,
    cache: &mut PictureCache,
    picture: Option<&Arc<Picture>>,
    fallback_size: [u32; 2],
    focus: Option<Rect>,
) -> (RectTransform, egui::Response) {
    let (fw, fh) = picture
        .map(|p| (p.width as f32, p.height as f32))
        .unwrap_or((fallback_size[0] as f32, fallback_size[1] as f32));
    let full = Rect::from_min_size(Pos2::ZERO, Vec2::new(fw, fh));
    let shown = focus.map_or(full, |f| fit_aspect(f, full));
    let (w, h) = (shown.width(), shown.height());
    let avail = ui.available_size();
    let scale = (avail.x / w).min(avail.y / h).max(0.05);
    let (response, painter) = ui.allocate_painter(Vec2::new(w * scale, h * scale), Sense::click());
    response.widget_info(|| {
        egui::WidgetInfo::labeled(egui::Role::Image, true, "the table as the camera sees it")
    });
    let rect = response.rect;
    match picture {
        Some(p) => {
            let texture = cache.texture(ui, p);
            let uv = Rect::from_min_max(
                Pos2::new(shown.min.x / fw, shown.min.y / fh),
                Pos2::new(shown.max.x / fw, shown.max.y / fh),
            );
            painter.image(texture.id(), rect, uv, Color32::WHITE);
        }
        None => {
            painter.rect_filled(rect, 0.0, Color32::from_gray(30));
            painter.text(
                rect.center(),
                Align2::CENTER_CENTER,
                "waiting for the first frame…",
                FontId::proportional(18.0),
                Color32::LIGHT_GRAY,
            );
        }
    }
    let screen_from_frame = RectTransform::from_to(shown, rect);
    (screen_from_frame, response)
}

/// `focus` grown to `frame`'s aspect ratio (at least a third of the frame wide, so a lone
/// piece is not blown up to a blur) and moved inside the frame.
fn fit_aspect(focus: Rect, frame: Rect) -> Rect {
    let aspect = frame.width() / frame.height();
    let mut w = focus.width().max(frame.width() / 3.0);
    let mut h = focus.height();
    if w / h < aspect {
        w = h * aspect;
    } else {
        h = w / aspect;
    }
    let (w, h) = (w.min(frame.width()), h.min(frame.height()));
    let centre = focus.center();
    let x = (centre.x - w / 2.0).clamp(frame.min.x, frame.max.x - w);
    let y = (centre.y - h / 2.0).clamp(frame.min.y, frame.max.y - h);
    Rect::from_min_size(Pos2::new(x, y), Vec2::new(w, h))
}

/// Around every outline given (frame pixels), with a margin; None when there is none.
pub fn around(outlines: impl IntoIterator<Item = PointPx>, margin: f32) -> Option<Rect> {
    let mut rect: Option<Rect> = None;
    for p in outlines {
        let at = Pos2::new(p[0], p[1]);
        rect = Some(rect.map_or(Rect::from_min_max(at, at), |r| {
            r.union(Rect::from_min_max(at, at))
        }));
    }
    rect.map(|r| r.expand(margin))
}

/// The colour a piece is drawn in.
pub fn piece_color(color: Color) -> Color32 {
    match color {
        Color::Red => Color32::from_rgb(230, 40, 40),
        Color::Yellow => Color32::from_rgb(255, 215, 0),
        Color::Green => Color32::from_rgb(40, 190, 60),
        Color::Blue => Color32::from_rgb(40, 110, 255),
        Color::Black => Color32::from_rgb(25, 25, 25),
        Color::Orange => Color32::from_rgb(255, 140, 0),
        Color::Cyan => Color32::from_rgb(0, 220, 230),
        Color::Purple => Color32::from_rgb(160, 50, 200),
        Color::White | Color::Clear => Color32::from_rgb(245, 245, 245),
    }
}

pub fn to_screen(t: &RectTransform, p: &PointPx) -> Pos2 {
    t.transform_pos(Pos2::new(p[0], p[1]))
}

/// A closed outline.
pub fn outline(ui: &Ui, t: &RectTransform, points: &[PointPx], stroke: Stroke) {
    if points.len() < 2 {
        return;
    }
    let pts: Vec<Pos2> = points.iter().map(|p| to_screen(t, p)).collect();
    ui.painter().add(Shape::closed_line(pts, stroke));
}

/// A dashed closed outline (a ghost, a koan still settling).
pub fn dashed_outline(ui: &Ui, t: &RectTransform, points: &[PointPx], stroke: Stroke) {
    if points.len() < 2 {
        return;
    }
    let mut pts: Vec<Pos2> = points.iter().map(|p| to_screen(t, p)).collect();
    pts.push(pts[0]);
    ui.painter()
        .extend(Shape::dashed_line(&pts, stroke, 8.0, 6.0));
}

/// The top of an outline (where labels and stones go), in screen points.
pub fn top_of(t: &RectTransform, points: &[PointPx]) -> Option<Pos2> {
    let top = points.iter().min_by(|a, b| a[1].total_cmp(&b[1]))?;
    let xs: Vec<f32> = points.iter().map(|p| p[0]).collect();
    let mid_x = (xs.iter().copied().fold(f32::MAX, f32::min)
        + xs.iter().copied().fold(f32::MIN, f32::max))
        / 2.0;
    Some(t.transform_pos(Pos2::new(mid_x, top[1])))
}

/// A marking stone, as on the table: white with a dark rim, black with a light one.
pub fn stone(ui: &Ui, centre: Pos2, radius: f32, mark: Mark) {
    let (fill, rim) = match mark {
        Mark::White => (Color32::WHITE, Color32::from_gray(40)),
        Mark::Black => (Color32::BLACK, Color32::from_gray(220)),
    };
    ui.painter()
        .circle(centre, radius, fill, Stroke::new(radius * 0.25, rim));
}

/// A label on a dark plate so it reads over any table.
pub fn plate(ui: &Ui, pos: Pos2, anchor: Align2, text: &str, size: f32, color: Color32) -> Rect {
    let galley = ui
        .painter()
        .layout_no_wrap(text.to_string(), FontId::proportional(size), color);
    let rect = anchor.anchor_size(pos, galley.size()).expand(PLATE_PAD);
    paint_plate(ui, rect, galley, color);
    rect
}

/// Room around a plate's text.
const PLATE_PAD: f32 = 3.0;
/// Space kept between two plates.
const PLATE_GAP: f32 = 2.0;

fn paint_plate(ui: &Ui, rect: Rect, galley: Arc<egui::Galley>, color: Color32) {
    let painter = ui.painter();
    painter.rect_filled(rect, 3.0, Color32::from_black_alpha(170));
    painter.galley(rect.min + Vec2::splat(PLATE_PAD), galley, color);
}

/// The plates of one view, laid so that none covers another: pieces of one koan stand close,
/// and their labels, each over its own piece, would hide each other and the koan's title.
/// Each plate goes where it is anchored, or, where that covers one laid before it, just above
/// it (below, where above would leave `bounds`).
pub struct Plates {
    bounds: Rect,
    laid: Vec<Rect>,
}

impl Plates {
    pub fn new(bounds: Rect) -> Plates {
        Plates {
            bounds,
            laid: Vec::new(),
        }
    }

    /// Paints a plate like [`plate`] where it covers none laid before, keeping `room_right`
    /// points to its right free as well (for a stone beside it); returns the plate's rect.
    #[allow(clippy::too_many_arguments)]
    pub fn add(
        &mut self,
        ui: &Ui,
        pos: Pos2,
        anchor: Align2,
        text: &str,
        size: f32,
        color: Color32,
        room_right: f32,
    ) -> Rect {
        let galley =
            ui.painter()
                .layout_no_wrap(text.to_string(), FontId::proportional(size), color);
        let wanted = anchor.anchor_size(pos, galley.size()).expand(PLATE_PAD);
        let rect = self.lay(wanted, room_right);
        paint_plate(ui, rect, galley, color);
        rect
    }

    /// A koan's title (white, `size` points) over `top`, and its marking stone of `stone_radius`
    /// `stone_offset` points right of the title where the koan is marked, the stone's room kept
    /// free as well; returns where the stone's centre is (or would be).
    #[allow(clippy::too_many_arguments)]
    pub fn koan_title(
        &mut self,
        ui: &Ui,
        top: Pos2,
        title: &str,
        size: f32,
        stone_offset: f32,
        stone_radius: f32,
        mark: Option<Mark>,
    ) -> Pos2 {
        let plate = self.add(
            ui,
            top,
            Align2::CENTER_BOTTOM,
            title,
            size,
            Color32::WHITE,
            stone_offset + stone_radius,
        );
        let stone_at = plate.right_center() + Vec2::new(stone_offset, 0.0);
        if let Some(mark) = mark {
            stone(ui, stone_at, stone_radius, mark);
        }
        stone_at
    }

    /// Where a plate wanted at `wanted` goes (see [`Plates`]), and it is counted as laid there
    /// with `room_right` beside it.
    pub fn lay(&mut self, wanted: Rect, room_right: f32) -> Rect {
        let with_room = |r: Rect| Rect::from_min_max(r.min, r.max + Vec2::new(room_right, 0.0));
        let up = self.free_from(with_room(wanted), -1.0);
        let spot = match up {
            Some(r) if r.min.y >= self.bounds.min.y => Some(r),
            _ => self
                .free_from(with_room(wanted), 1.0)
                .filter(|r| r.max.y <= self.bounds.max.y),
        };
        // Where neither way is free inside the view, the plate stays where it was wanted.
        let spot = spot.unwrap_or(with_room(wanted));
        self.laid.push(spot);
        Rect::from_min_size(spot.min, wanted.size())
    }

    /// `rect` moved up (`direction` -1) or down (1) past every laid plate it would cover,
    /// until it covers none.
    fn free_from(&self, mut rect: Rect, direction: f32) -> Option<Rect> {
        // Each move clears one plate for good, so as many moves as plates suffice.
        for _ in 0..=self.laid.len() {
            let Some(hit) = self.laid.iter().find(|r| covers(&rect, r)) else {
                return Some(rect);
            };
            let shift = if direction < 0.0 {
                hit.min.y - PLATE_GAP - rect.max.y
            } else {
                hit.max.y + PLATE_GAP - rect.min.y
            };
            rect = rect.translate(Vec2::new(0.0, shift));
        }
        None
    }
}

/// Whether two plates overlap or come closer than the gap kept between plates.
fn covers(a: &Rect, b: &Rect) -> bool {
    let gap = PLATE_GAP - 0.01;
    a.min.x < b.max.x + gap
        && b.min.x < a.max.x + gap
        && a.min.y < b.max.y + gap
        && b.min.y < a.max.y + gap
}

/// A piece's silhouette, its axis and its pointing ray (the console's attribute view).
pub fn piece_shape(ui: &Ui, t: &RectTransform, shape: &PieceShape, piece: &Piece, selected: bool) {
    let color = piece_color(piece.color);
    let width = if selected { 3.0 } else { 1.5 };
    let stroke_color = if selected { Color32::WHITE } else { color };
    outline(ui, t, &shape.outline_px, Stroke::new(width, stroke_color));
    if let Some([base, apex]) = shape.axis_px {
        let (b, a) = (to_screen(t, &base), to_screen(t, &apex));
        ui.painter()
            .arrow(b, a - b, Stroke::new(1.5, Color32::WHITE));
    }
    if shape.ray_px.len() >= 2 {
        let pts: Vec<Pos2> = shape.ray_px.iter().map(|p| to_screen(t, p)).collect();
        ui.painter().extend(Shape::dashed_line(
            &pts,
            Stroke::new(1.5, Color32::from_rgb(255, 80, 255)),
            6.0,
            4.0,
        ));
    }
}

/// A short label of what the camera made of a piece: "3 red L upright".
pub fn piece_label(piece: &Piece) -> String {
    let size = match piece.size {
        koanscope_scene::Size::Small => "S",
        koanscope_scene::Size::Medium => "M",
        koanscope_scene::Size::Large => "L",
    };
    let mut text = format!("{} {} {size}", piece.id, piece.color);
    if let Some(a) = &piece.attributes {
        text.push(' ');
        text.push_str(a.orientation.word());
        if !a.grounded {
            text.push_str(" raised");
        }
    }
    text
}

/// A koan seen from above, fitted into `rect`: upright pieces as squares with their edges to
/// the apex, lying pieces as triangles pointing where they point. For build instructions.
pub fn sketch(ui: &Ui, rect: Rect, scene: &Scene) {
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 4.0, Color32::from_rgb(205, 180, 140));
    let half_base = |p: &Piece| match p.size {
        koanscope_scene::Size::Small => 9.0,
        koanscope_scene::Size::Medium => 12.5,
        koanscope_scene::Size::Large => 16.0,
    };
    let centres: Vec<(f64, f64)> = scene
        .pieces
        .iter()
        .map(|p| {
            let t = p.table_from_piece.translation.vector;
            (t.x, t.y)
        })
        .collect();
    if centres.is_empty() {
        return;
    }
    let (mut lo, mut hi) = ((f64::MAX, f64::MAX), (f64::MIN, f64::MIN));
    for (p, (x, y)) in scene.pieces.iter().zip(&centres) {
        let r = half_base(p) * 2.2;
        lo = (lo.0.min(x - r), lo.1.min(y - r));
        hi = (hi.0.max(x + r), hi.1.max(y + r));
    }
    let span = (hi.0 - lo.0).max(hi.1 - lo.1).max(1.0);
    let scale = (rect.width().min(rect.height()) as f64 - 8.0) / span;
    let centre = rect.center();
    let mid = ((lo.0 + hi.0) / 2.0, (lo.1 + hi.1) / 2.0);
    // Table y points away from the viewer: up on the screen.
    let at = |x: f64, y: f64| {
        Pos2::new(
            centre.x + ((x - mid.0) * scale) as f32,
            centre.y - ((y - mid.1) * scale) as f32,
        )
    };
    // Lower pieces first, so a tower's top is drawn over its base.
    let mut order: Vec<&Piece> = scene.pieces.iter().collect();
    order.sort_by(|a, b| {
        let za = a.table_from_piece.translation.vector.z;
        let zb = b.table_from_piece.translation.vector.z;
        za.total_cmp(&zb)
    });
    for p in order {
        let fill = piece_color(p.color);
        let rim = Stroke::new(1.0, Color32::from_gray(30));
        let r = half_base(p);
        let base = p.table_from_piece * nalgebra::Point3::origin();
        let orientation = p.attributes.as_ref().map(|a| a.orientation);
        let axis = p.table_from_piece * nalgebra::Vector3::z();
        let lying = orientation != Some(Orientation::Upright) && axis.xy().norm() > 0.3;
        if lying {
            let dir = axis.xy().normalize();
            let side = nalgebra::Vector2::new(-dir.y, dir.x);
            let tip = base.xy() + dir * r * 3.6;
            let a = base.xy() + side * r;
            let b = base.xy() - side * r;
            painter.add(Shape::convex_polygon(
                vec![at(tip.x, tip.y), at(a.x, a.y), at(b.x, b.y)],
                fill,
                rim,
            ));
        } else {
            let c = at(base.x, base.y);
            let h = (r * scale) as f32;
            painter.rect(
                Rect::from_center_size(c, Vec2::splat(2.0 * h)),
                0.0,
                fill,
                rim,
                egui::StrokeKind::Middle,
            );
            for (dx, dy) in [(-h, -h), (h, -h), (h, h), (-h, h)] {
                painter.line_segment([c, c + Vec2::new(dx, dy)], rim);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(x: f32, bottom: f32, w: f32, h: f32) -> Rect {
        Rect::from_min_max(Pos2::new(x, bottom - h), Pos2::new(x + w, bottom))
    }

    /// No two of `rects` share any area.
    fn apart(rects: &[Rect]) -> bool {
        let overlap = |a: &Rect, b: &Rect| {
            a.max.x.min(b.max.x) > a.min.x.max(b.min.x)
                && a.max.y.min(b.max.y) > a.min.y.max(b.min.y)
        };
        rects
            .iter()
            .enumerate()
            .all(|(i, a)| rects[i + 1..].iter().all(|b| !overlap(a, b)))
    }

    #[test]
    fn a_koan_title_over_its_pieces_labels_goes_above_them() {
        let view = Rect::from_min_size(Pos2::ZERO, Vec2::new(1280.0, 720.0));
        let mut plates = Plates::new(view);
        // Two pieces side by side: their labels overlap where each is wanted.
        let first = plates.lay(label(400.0, 350.0, 110.0, 20.0), 0.0);
        let second = plates.lay(label(450.0, 355.0, 120.0, 20.0), 0.0);
        // The koan's title, wanted over the two, with a stone 20 points wide to its right.
        let title = plates.lay(label(420.0, 348.0, 160.0, 24.0), 20.0);
        assert_eq!(
            first,
            label(400.0, 350.0, 110.0, 20.0),
            "the first stays put"
        );
        assert_eq!(second.max.y, first.min.y - PLATE_GAP, "lifted just above");
        assert_eq!(second.min.x, 450.0, "only lifted, not moved aside");
        assert_eq!(title.max.y, second.min.y - PLATE_GAP);
        assert_eq!(
            title.size(),
            Vec2::new(160.0, 24.0),
            "the plate keeps its size"
        );
        let stone_room = Rect::from_min_max(title.min, title.max + Vec2::new(20.0, 0.0));
        assert!(apart(&[first, second, stone_room]));
    }

    #[test]
    fn plates_apart_stay_where_they_are_wanted() {
        let view = Rect::from_min_size(Pos2::ZERO, Vec2::new(1280.0, 720.0));
        let mut plates = Plates::new(view);
        let wanted = [
            label(100.0, 100.0, 80.0, 20.0),
            label(300.0, 100.0, 80.0, 20.0),
        ];
        let laid: Vec<Rect> = wanted.iter().map(|w| plates.lay(*w, 0.0)).collect();
        assert_eq!(laid, wanted);
        // A stone's room beside the first reaches the second only when it is that wide.
        let third = plates.lay(label(100.0, 200.0, 80.0, 20.0), 150.0);
        assert_eq!(third, label(100.0, 200.0, 80.0, 20.0));
        let fourth = plates.lay(label(200.0, 205.0, 80.0, 20.0), 0.0);
        assert!(
            fourth.max.y < 180.0,
            "{fourth:?} is clear of the third's stone"
        );
    }

    #[test]
    fn at_the_top_of_the_view_a_plate_goes_below_instead() {
        let view = Rect::from_min_size(Pos2::ZERO, Vec2::new(1280.0, 720.0));
        let mut plates = Plates::new(view);
        let first = plates.lay(label(10.0, 22.0, 80.0, 20.0), 0.0);
        let second = plates.lay(label(20.0, 24.0, 80.0, 20.0), 0.0);
        assert!(
            second.min.y >= first.max.y + PLATE_GAP,
            "{second:?} below {first:?}"
        );
        assert!(view.contains_rect(second));
    }
}
