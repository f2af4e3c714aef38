//! Scenes in words, for people reading a terminal.

use std::fmt::Write;

use koanscope_scene::{Koan, PieceId, Scene};

/// One paragraph per koan: its pieces with their attributes, then its relations.
pub fn describe(scene: &Scene) -> String {
    let mut out = String::new();
    let name = |id: PieceId| {
        scene
            .piece(id)
            .map(|p| format!("#{id} {} {}", p.color, p.size))
            .unwrap_or_else(|| format!("#{id}"))
    };
    for koan in &scene.koans {
        let mark = koan
            .mark
            .map(|m| format!(" — marked {m}"))
            .unwrap_or_default();
        let n = koan.pieces.len();
        let plural = if n == 1 { "piece" } else { "pieces" };
        let _ = writeln!(out, "Koan {} ({n} {plural}){mark}", koan.id);
        for piece in scene.pieces_of(koan) {
            let Some(a) = &piece.attributes else { continue };
            let ground = if a.grounded { "grounded" } else { "ungrounded" };
            let _ = writeln!(
                out,
                "  {:<22} {:<8} {:<10} top at {:>5.1} mm",
                name(piece.id),
                a.orientation.to_string(),
                ground,
                a.height_mm
            );
        }
        relations(&mut out, koan, &name);
        for call in &koan.judgment_calls {
            let _ = writeln!(out, "  judgment call: {}", call.note);
        }
        out.push('\n');
    }
    out
}

fn relations(out: &mut String, koan: &Koan, name: &dyn Fn(PieceId) -> String) {
    let pairs = |list: &[[PieceId; 2]], word: &str| -> Vec<String> {
        list.iter()
            .map(|[a, b]| format!("{} {word} {}", name(*a), name(*b)))
            .collect()
    };
    let chains = |list: &[Vec<PieceId>], word: &str| -> Vec<String> {
        list.iter()
            .map(|c| {
                format!(
                    "{word} {}",
                    c.iter().map(|&p| name(p)).collect::<Vec<_>>().join(", ")
                )
            })
            .collect()
    };
    let lines = [
        pairs(&koan.touching, "touches"),
        pairs(&koan.pointing, "points at"),
        pairs(&koan.inserted, "is inserted in"),
        chains(&koan.towers, "tower, bottom to top:"),
        chains(&koan.nests, "nest, outermost first:"),
        pairs(&koan.same_direction, "points the same way as"),
        pairs(&koan.opposite_direction, "points opposite to"),
    ];
    for line in lines.iter().flatten() {
        let _ = writeln!(out, "  {line}");
    }
}
