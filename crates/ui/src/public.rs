//! The public table view: what everyone at the table may see, readable from across it. The
//! live picture with each koan outlined and numbered, its stone once the Master has marked it,
//! whose turn it is, each student's guessing stones and the last Mondo. Never the secret rule,
//! never what the rule engine suggests.

use egui::{Align2, Color32, RichText, Stroke, Ui};
use koanscope_game::{GameKoan, Phase};
use koanscope_scene::Mark;

use crate::draw::{self, PictureCache};
use crate::feed::{KoanState, PointPx, TrackedKoan};
use crate::table::LiveTable;

/// A logged koan as drawn, with where its stone is (screen points), for headless checks.
#[derive(Debug, Clone, PartialEq)]
pub struct DrawnKoan {
    pub no: u32,
    pub mark: Option<Mark>,
    pub stone_at: Option<egui::Pos2>,
}

/// Draws the public view into `ui`; returns the logged koans drawn.
pub fn public_view(ui: &mut Ui, table: &LiveTable, cache: &mut PictureCache) -> Vec<DrawnKoan> {
    let mut drawn = Vec::new();
    egui::Panel::right("public-books")
        .resizable(false)
        .exact_size(300.0)
        .show(ui, |ui| books(ui, table));
    egui::CentralPanel::default().show(ui, |ui| {
        ui.label(
            RichText::new(table.game().describe_phase())
                .size(26.0)
                .strong(),
        );
        let feed = table.feed();
        // Zoomed on the koans (and any ghost), so they read from across the table.
        let focus = draw::around(
            feed.koans.iter().flat_map(|k| {
                k.outline_px.iter().copied().chain(
                    k.ghost
                        .iter()
                        .flatten()
                        .flat_map(|p| p.outline_px.iter().copied()),
                )
            }),
            90.0,
        );
        let (t, _) = draw::picture_of(ui, cache, feed.picture.as_ref(), [1280, 720], focus);
        let mut plates = draw::Plates::new(*t.to());
        for view in table.koan_views() {
            // The koans as the Master grouped them: a merged koan is outlined around every
            // koan the camera saw it as, a piece split off around itself.
            let sources: Vec<&TrackedKoan> =
                view.sources.iter().filter_map(|s| feed.koan(*s)).collect();
            let Some(first) = sources.first() else {
                continue;
            };
            let outlines: Vec<Vec<PointPx>> = if view.sources.first() == Some(&view.tracked) {
                sources.iter().map(|k| k.outline_px.clone()).collect()
            } else {
                first
                    .pieces
                    .iter()
                    .filter(|p| view.scene.piece(p.piece).is_some())
                    .map(|p| p.outline_px.clone())
                    .collect()
            };
            let no = view.no;
            let mark = view.mark;
            let disturbed = view.disturbed;
            let stroke = match (view.state, disturbed) {
                (_, true) => Stroke::new(4.0, Color32::from_rgb(255, 60, 60)),
                (KoanState::Built, _) => Stroke::new(3.0, Color32::WHITE),
                _ => Stroke::new(2.0, Color32::from_white_alpha(150)),
            };
            for outline in &outlines {
                if view.state == KoanState::Built {
                    draw::outline(ui, &t, outline, stroke);
                } else {
                    draw::dashed_outline(ui, &t, outline, stroke);
                }
            }
            if disturbed && let Some(ghost) = &first.ghost {
                for piece in ghost {
                    draw::dashed_outline(
                        ui,
                        &t,
                        &piece.outline_px,
                        Stroke::new(2.0, Color32::from_rgb(255, 200, 60)),
                    );
                }
            }
            let all: Vec<PointPx> = outlines.iter().flatten().copied().collect();
            let Some(top) = draw::top_of(&t, &all) else {
                continue;
            };
            let title = match no {
                Some(n) if disturbed => format!("koan {n} — KATSU"),
                Some(n) => format!("koan {n}"),
                None if view.state == KoanState::Built => "new koan".into(),
                None => "building…".into(),
            };
            let stone_at = plates.koan_title(ui, top, &title, 22.0, 18.0, 13.0, mark);
            if let Some(no) = no {
                drawn.push(DrawnKoan {
                    no,
                    mark,
                    stone_at: mark.map(|_| stone_at),
                });
            }
        }
        if let Some(why) = &feed.paused {
            let rect = ui.min_rect();
            draw::plate(
                ui,
                rect.center(),
                Align2::CENTER_CENTER,
                &format!("paused: {why}"),
                28.0,
                Color32::from_rgb(255, 210, 80),
            );
        }
    });
    drawn
}

fn stones_text(n: u32) -> String {
    if n == 0 {
        "none".into()
    } else {
        format!("{n}")
    }
}

/// Whose turn, stones, the last Mondo, and the koans' marks.
fn books(ui: &mut Ui, table: &LiveTable) {
    let game = table.game();
    ui.add_space(8.0);
    if let Some(student) = game.turn() {
        ui.label(
            RichText::new(format!("{student}'s turn"))
                .size(30.0)
                .strong(),
        );
    } else if matches!(game.phase(), Phase::Initial) {
        ui.label(RichText::new("The Master sets up").size(26.0).strong());
    }
    ui.separator();
    ui.label(RichText::new("Guessing stones").size(20.0));
    for s in game.students() {
        let name = if s.surrendered {
            format!("{} (out)", s.name)
        } else {
            s.name.clone()
        };
        ui.label(RichText::new(format!("{name}: {}", stones_text(s.guessing_stones))).size(22.0));
    }
    if let Some(last) = game.koans().iter().rev().find(|k| k.mondo.is_some()) {
        ui.separator();
        mondo(ui, last);
    }
    if let Some(guess) = game.guess() {
        ui.separator();
        let state = if guess.official {
            "official"
        } else {
            "not official yet"
        };
        ui.label(RichText::new(format!("{}'s guess ({state})", guess.student)).size(20.0));
        ui.label(
            RichText::new(format!("“{}”", guess.text))
                .size(18.0)
                .italics(),
        );
    }
    ui.separator();
    let (white, black) = game.koans_in_play().fold((0, 0), |(w, b), k| match k.mark {
        Some(Mark::White) => (w + 1, b),
        Some(Mark::Black) => (w, b + 1),
        None => (w, b),
    });
    ui.label(RichText::new(format!("On the table: {white} white, {black} black")).size(20.0));
    if let Some(ending) = game.ending() {
        ui.separator();
        let text = match ending {
            koanscope_game::Ending::Won { student, guess } => {
                format!("{student} wins with “{guess}”")
            }
            koanscope_game::Ending::AllSurrendered => "Everyone surrendered".into(),
        };
        ui.label(RichText::new(text).size(24.0).strong());
    }
}

/// The last Mondo: answers stay hidden (closed fists) until the Master marks the koan.
fn mondo(ui: &mut Ui, koan: &GameKoan) {
    let Some(m) = &koan.mondo else {
        return;
    };
    ui.label(RichText::new(format!("Mondo on koan {}", koan.no)).size(20.0));
    if !m.revealed {
        ui.label(RichText::new(format!("{} answered (hidden)", m.answers.len())).size(18.0));
        return;
    }
    for (student, answer) in &m.answers {
        let right = koan.mark == Some(*answer);
        let verdict = if right { "right: stone" } else { "wrong" };
        ui.label(RichText::new(format!("{student}: {answer}, {verdict}")).size(18.0));
    }
}
