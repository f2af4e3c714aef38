//! The Master's console: private. The picture with what the camera made of every piece drawn
//! over it, the mark the secret rule suggests for every koan with the reason, warnings on
//! judgment calls near a threshold, and the Master's moves: logging koans, Master and Mondo,
//! Mondo answers, guesses, counter-examples, corrections and undo. Keys: M Master, O Mondo,
//! W/B mark white/black, Ctrl+Z undo.

use egui::{Align2, Color32, Key, Modifiers, RichText, Stroke, Ui};
use koanscope_game::Phase;
use koanscope_scene::{Color, Mark, Orientation, PieceId, Size};

use crate::correct::Correction;
use crate::draw::{self, PictureCache};
use crate::feed::{KoanState, Picture, PointPx};
use crate::table::{KoanView, LiveTable, Regroup};

/// What the console remembers between frames.
#[derive(Default)]
pub struct ConsoleState {
    /// The piece being corrected: (tracked koan, piece).
    pub selected: Option<(u64, PieceId)>,
    pub guess_student: String,
    pub guess_text: String,
    /// User-interface frames per second, measured by the app.
    pub ui_fps: f32,
}

fn mark_words(mark: Mark) -> &'static str {
    match mark {
        Mark::White => "WHITE",
        Mark::Black => "BLACK",
    }
}

/// Draws the console into `ui` and carries out what the Master clicks.
pub fn master_console(
    ui: &mut Ui,
    table: &mut LiveTable,
    state: &mut ConsoleState,
    cache: &mut PictureCache,
) {
    keys(ui, table);
    egui::Panel::top("console-status").show(ui, |ui| status(ui, table, state));
    egui::Panel::right("console-moves")
        .resizable(true)
        .default_size(440.0)
        .show(ui, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| {
                moves(ui, table, state);
                ui.separator();
                koans(ui, table, state);
                ui.separator();
                log(ui, table);
            });
        });
    egui::CentralPanel::default().show(ui, |ui| attributes_view(ui, table, state, cache));
}

fn keys(ui: &Ui, table: &mut LiveTable) {
    if ui.ctx().egui_wants_keyboard_input() {
        return;
    }
    let pressed = |k: Key| ui.input_mut(|i| i.consume_key(Modifiers::NONE, k));
    if pressed(Key::M) {
        let _ = table.call_master();
    }
    if pressed(Key::O) {
        let _ = table.call_mondo();
    }
    if pressed(Key::W) {
        let _ = table.mark(Mark::White);
    }
    if pressed(Key::B) {
        let _ = table.mark(Mark::Black);
    }
    if ui.input_mut(|i| i.consume_key(Modifiers::COMMAND, Key::Z)) {
        let _ = table.undo();
    }
}

fn status(ui: &mut Ui, table: &LiveTable, state: &ConsoleState) {
    let feed = table.feed();
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new(table.game().describe_phase()).strong());
        ui.separator();
        ui.label(format!(
            "camera {:.0} fps · vision {:.1} fps · not analysed {} · dropped {} · window {:.0} fps",
            feed.picture_fps, feed.vision_fps, feed.not_analysed, feed.dropped, state.ui_fps
        ))
        .on_hover_text(
            "camera: frames shown per second; vision: frames analysed per second; not analysed: \
             frames shown that vision skipped for a newer one; dropped: frames the camera source \
             lost before koanscope got them",
        );
        ui.separator();
        ui.label(&feed.source);
        if let Some(why) = &feed.paused {
            ui.separator();
            ui.colored_label(Color32::from_rgb(255, 200, 60), format!("paused: {why}"));
        }
    });
    if let Some(rule) = table.game().secret() {
        ui.label(RichText::new(format!("Secret rule (private): {}", rule.text)).italics());
    }
    for w in &feed.warnings {
        ui.colored_label(Color32::from_rgb(255, 200, 60), format!("warning: {w}"));
    }
}

/// Built koans the books do not have yet.
fn unlogged(table: &LiveTable) -> Vec<KoanView> {
    table
        .koan_views()
        .into_iter()
        .filter(|k| k.no.is_none() && k.state == KoanState::Built)
        .collect()
}

fn suggested_text(k: &KoanView) -> String {
    match &k.suggested {
        Some((m, _)) => format!("rule says {}", mark_words(*m)),
        None => "rule cannot read it".into(),
    }
}

/// The buttons of the moment, by phase.
fn moves(ui: &mut Ui, table: &mut LiveTable, state: &mut ConsoleState) {
    ui.heading("Moves");
    let phase = table.game().phase().clone();
    let guess = table.game().guess().cloned();
    if let Some(g) = guess {
        guess_moves(ui, table, state, g.official, &g.student, &g.text);
    } else {
        match phase {
            Phase::Initial => {
                ui.label("Build the two initial koans, then mark them:");
                for k in unlogged(table) {
                    ui.horizontal(|ui| {
                        ui.label(format!("koan #{} ({})", k.tracked, suggested_text(&k)));
                        for mark in [Mark::White, Mark::Black] {
                            if ui
                                .button(format!("#{} initial {}", k.tracked, mark_words(mark)))
                                .clicked()
                            {
                                let _ = table.initial_koan(k.tracked, mark);
                            }
                        }
                    });
                }
            }
            Phase::Build { student } => {
                ui.label(format!("{student} builds a koan."));
                for k in unlogged(table) {
                    if ui
                        .button(format!("Koan #{} is {student}'s", k.tracked))
                        .clicked()
                    {
                        let _ = table.build(k.tracked);
                    }
                }
            }
            Phase::Call { student, koan } => {
                ui.label(format!("{student} calls for koan {koan}:"));
                ui.horizontal(|ui| {
                    if ui.button("Master (M)").clicked() {
                        let _ = table.call_master();
                    }
                    if ui.button("Mondo (O)").clicked() {
                        let _ = table.call_mondo();
                    }
                });
            }
            Phase::Marking { koan, .. } => marking(ui, table, koan),
            Phase::Guessing { student } => {
                guess_form(ui, table, state, &student);
                if ui.button(format!("{student} passes")).clicked() {
                    let _ = table.pass();
                }
            }
            Phase::Guidance => guess_form(ui, table, state, ""),
            Phase::Unset | Phase::Over => {}
        }
    }
    ui.add_space(6.0);
    if ui.button("Undo last move (Ctrl+Z)").clicked() {
        let _ = table.undo();
    }
}

fn marking(ui: &mut Ui, table: &mut LiveTable, koan: u32) {
    let waiting = table.game().awaiting_answers();
    if !waiting.is_empty() {
        ui.label(format!("Mondo on koan {koan}: answers in closed fists"));
        for student in waiting {
            ui.horizontal(|ui| {
                ui.label(&student);
                for mark in [Mark::White, Mark::Black] {
                    if ui
                        .button(format!("{student} answers {}", mark_words(mark)))
                        .clicked()
                    {
                        let _ = table.answer(&student, mark);
                    }
                }
            });
        }
        return;
    }
    let suggested = table
        .game()
        .koan(koan)
        .and_then(|k| table.game().rule_mark(&k.scene).ok());
    if let Some((m, reason)) = &suggested {
        ui.label(format!(
            "The rule marks koan {koan} {}: {reason}",
            mark_words(*m)
        ));
    }
    ui.horizontal(|ui| {
        for (mark, key) in [(Mark::White, "W"), (Mark::Black, "B")] {
            let against = suggested.as_ref().is_some_and(|(m, _)| *m != mark);
            let text = if against {
                format!("Mark {} ({key}, judgment call)", mark_words(mark))
            } else {
                format!("Mark {} ({key})", mark_words(mark))
            };
            if ui.button(text).clicked() {
                let _ = table.mark(mark);
            }
        }
    });
}

fn guess_form(ui: &mut Ui, table: &mut LiveTable, state: &mut ConsoleState, turn: &str) {
    let students: Vec<String> = table
        .game()
        .students()
        .iter()
        .filter(|s| !s.surrendered)
        .map(|s| s.name.clone())
        .collect();
    if state.guess_student.is_empty() || !students.contains(&state.guess_student) {
        state.guess_student = if turn.is_empty() {
            students.first().cloned().unwrap_or_default()
        } else {
            turn.to_string()
        };
    }
    ui.label("A guess:");
    ui.horizontal(|ui| {
        egui::ComboBox::from_label("guesser")
            .selected_text(&state.guess_student)
            .show_ui(ui, |ui| {
                for s in &students {
                    ui.selectable_value(&mut state.guess_student, s.clone(), s);
                }
            });
        ui.add(
            egui::TextEdit::singleline(&mut state.guess_text)
                .hint_text("A koan has the Buddha-nature if …")
                .desired_width(260.0),
        )
        .labelled_by(ui.label("rule").id);
    });
    if ui.button("Guess").clicked() {
        let student = state.guess_student.clone();
        let text = state.guess_text.clone();
        if table.guess(&student, &text).is_ok() {
            state.guess_text.clear();
        }
    }
}

fn guess_moves(
    ui: &mut Ui,
    table: &mut LiveTable,
    state: &mut ConsoleState,
    official: bool,
    student: &str,
    text: &str,
) {
    ui.label(RichText::new(format!("{student} guesses: “{text}”")).strong());
    if let Some(pending) = table.game().guess() {
        if pending.contradicted_by.is_empty() {
            ui.label("No koan on the table contradicts it.");
        } else {
            let list: Vec<String> = pending
                .contradicted_by
                .iter()
                .map(|k| k.to_string())
                .collect();
            ui.colored_label(
                Color32::from_rgb(255, 170, 60),
                format!("Contradicted by koan {}", list.join(", ")),
            );
        }
    }
    if !official {
        ui.horizontal(|ui| {
            if ui.button("Make official").clicked() {
                let _ = table.official();
            }
            if ui.button("Retract").clicked() {
                let _ = table.retract();
            }
        });
        ui.horizontal(|ui| {
            let words = ui.label("new wording").id;
            ui.add(egui::TextEdit::singleline(&mut state.guess_text).desired_width(260.0))
                .labelled_by(words);
            if ui.button("Reword").clicked() {
                let text = state.guess_text.clone();
                if table.change_guess(&text).is_ok() {
                    state.guess_text.clear();
                }
            }
        });
        return;
    }
    ui.horizontal(|ui| {
        if ui.button("Suggest a counter-example").clicked() {
            let _ = table.suggest_counterexample();
        }
        if ui.button("The guess stands").clicked() {
            let _ = table.guess_stands();
        }
    });
    if let Some(s) = table.suggestion().cloned() {
        ui.label(format!("Build ({}): {}", mark_words(s.mark), s.words));
        let (rect, _) = ui.allocate_exact_size(egui::vec2(220.0, 160.0), egui::Sense::hover());
        draw::sketch(ui, rect, &s.scene);
    }
    for k in unlogged(table) {
        ui.horizontal(|ui| {
            ui.label(format!("koan #{} ({})", k.tracked, suggested_text(&k)));
            for mark in [Mark::White, Mark::Black] {
                if ui
                    .button(format!(
                        "#{} counter-example {}",
                        k.tracked,
                        mark_words(mark)
                    ))
                    .clicked()
                {
                    let _ = table.counter_example(k.tracked, mark);
                }
            }
        });
    }
}

/// Every koan on the table: suggested mark and reason, near calls, corrections, and the
/// piece being corrected.
fn koans(ui: &mut Ui, table: &mut LiveTable, state: &mut ConsoleState) {
    ui.heading("Koans");
    let views = table.koan_views();
    if views.is_empty() {
        ui.label("No koan on the table.");
    }
    let others: Vec<u64> = views
        .iter()
        .filter(|v| v.no.is_none())
        .map(|v| v.tracked)
        .collect();
    for k in views {
        let title = match k.no {
            Some(n) => format!("Koan {n} (#{})", k.tracked),
            None => format!("Unlogged koan #{}", k.tracked),
        };
        ui.label(RichText::new(title).strong());
        if let Some(mark) = k.mark {
            ui.label(format!("marked {}", mark_words(mark)));
        }
        match &k.suggested {
            Some((m, reason)) => {
                ui.label(format!("suggested {}: {reason}", mark_words(*m)));
            }
            None => {
                ui.label("the rule cannot read this koan");
            }
        }
        if k.disturbed {
            ui.colored_label(
                Color32::from_rgb(255, 80, 80),
                "KATSU: disturbed; rebuild it as the ghost shows",
            );
        }
        for call in &k.judgment_calls {
            ui.colored_label(
                Color32::from_rgb(255, 190, 60),
                format!("near call ({}): {}", call.what, call.note),
            );
        }
        if let Some(hidden) = &k.hidden {
            ui.colored_label(
                Color32::from_rgb(255, 190, 60),
                format!("may hide a piece: {hidden}"),
            );
        }
        for c in &k.corrections {
            ui.label(format!("corrected: {c}"));
        }
        ui.horizontal_wrapped(|ui| {
            for p in &k.scene.pieces {
                let selected = state.selected == Some((k.tracked, p.id));
                if ui
                    .selectable_label(selected, draw::piece_label(p))
                    .clicked()
                {
                    state.selected = if selected {
                        None
                    } else {
                        Some((k.tracked, p.id))
                    };
                }
            }
        });
        if let Some(no) = k.no
            && ui.button(format!("Break down koan {no}")).clicked()
        {
            let _ = table.break_down(no);
        }
        if k.no.is_none() {
            regroup_buttons(ui, table, &k, &others);
        }
        if let Some((tracked, piece)) = state.selected
            && tracked == k.tracked
        {
            piece_editor(ui, table, &k, piece);
        }
        ui.add_space(4.0);
    }
}

/// Merging with another koan not yet in the books, splitting a piece off, or going back to
/// the camera's grouping.
fn regroup_buttons(ui: &mut Ui, table: &mut LiveTable, k: &KoanView, others: &[u64]) {
    ui.horizontal_wrapped(|ui| {
        for other in others.iter().filter(|o| **o != k.tracked) {
            if ui
                .button(format!("Merge #{} with #{other}", k.tracked))
                .clicked()
            {
                let png = frame_png(table.picture());
                let _ = table.regroup(
                    Regroup::Merge {
                        into: k.tracked,
                        from: *other,
                    },
                    png,
                );
            }
        }
        if k.scene.pieces.len() > 1 {
            for p in &k.scene.pieces {
                if ui
                    .button(format!("Split piece {} off #{}", p.id, k.tracked))
                    .clicked()
                {
                    let png = frame_png(table.picture());
                    let _ = table.regroup(
                        Regroup::Split {
                            koan: k.tracked,
                            piece: p.id,
                        },
                        png,
                    );
                }
            }
        }
        if (k.sources.len() > 1 || k.sources.first() != Some(&k.tracked))
            && ui
                .button(format!("#{}: back to the camera's grouping", k.tracked))
                .clicked()
        {
            table.ungroup(k.tracked);
        }
    });
}

fn frame_png(picture: Option<&Picture>) -> Option<Vec<u8>> {
    let p = picture?;
    let image = image::RgbaImage::from_raw(p.width, p.height, p.rgba.clone())?;
    let mut out = std::io::Cursor::new(Vec::new());
    image.write_to(&mut out, image::ImageFormat::Png).ok()?;
    Some(out.into_inner())
}

/// Correcting one piece: its colour, size, orientation, grounding, and its relations to the
/// other pieces of its koan.
fn piece_editor(ui: &mut Ui, table: &mut LiveTable, koan: &KoanView, id: PieceId) {
    let Some(piece) = koan.scene.piece(id).cloned() else {
        return;
    };
    let mut wanted: Option<Correction> = None;
    egui::Frame::group(ui.style()).show(ui, |ui| {
        ui.label(RichText::new(format!("Correct piece {id}")).strong());
        ui.horizontal_wrapped(|ui| {
            ui.label("colour");
            for &c in Color::ZENDO {
                if ui.selectable_label(piece.color == c, c.word()).clicked() && piece.color != c {
                    wanted = Some(Correction::Color {
                        piece: id,
                        color: c,
                    });
                }
            }
        });
        ui.horizontal(|ui| {
            ui.label("size");
            for &s in Size::ALL {
                if ui.selectable_label(piece.size == s, s.word()).clicked() && piece.size != s {
                    wanted = Some(Correction::Size { piece: id, size: s });
                }
            }
        });
        if let Some(a) = &piece.attributes {
            ui.horizontal(|ui| {
                ui.label("orientation");
                for &o in Orientation::ALL {
                    if ui.selectable_label(a.orientation == o, o.word()).clicked()
                        && a.orientation != o
                    {
                        wanted = Some(Correction::Orientation {
                            piece: id,
                            orientation: o,
                        });
                    }
                }
            });
            let mut grounded = a.grounded;
            if ui.checkbox(&mut grounded, "grounded").changed() {
                wanted = Some(Correction::Grounded {
                    piece: id,
                    grounded,
                });
            }
        }
        let Some(k) = koan.scene.koans.first() else {
            return;
        };
        for other in koan.scene.pieces.iter().filter(|p| p.id != id) {
            ui.horizontal(|ui| {
                let mut touching = k.touches(id, other.id);
                if ui
                    .checkbox(
                        &mut touching,
                        format!("touches {}", draw::piece_label(other)),
                    )
                    .changed()
                {
                    wanted = Some(Correction::Touching {
                        a: id,
                        b: other.id,
                        holds: touching,
                    });
                }
                let mut pointing = k.pointing.contains(&[id, other.id]);
                if ui
                    .checkbox(&mut pointing, format!("points at {}", other.id))
                    .changed()
                {
                    wanted = Some(Correction::Pointing {
                        a: id,
                        b: other.id,
                        holds: pointing,
                    });
                }
            });
        }
    });
    if let Some(c) = wanted {
        let png = frame_png(table.picture());
        let _ = table.correct(koan.tracked, c, png);
    }
}

fn log(ui: &mut Ui, table: &LiveTable) {
    ui.heading("Log");
    for m in table.messages().iter().rev().take(14) {
        if m.problem {
            ui.colored_label(Color32::from_rgb(255, 90, 90), &m.text);
        } else {
            ui.label(&m.text);
        }
    }
}

fn inside(point: PointPx, polygon: &[PointPx]) -> bool {
    let mut inside = false;
    let n = polygon.len();
    for i in 0..n {
        let (a, b) = (polygon[i], polygon[(i + 1) % n]);
        if (a[1] > point[1]) != (b[1] > point[1])
            && point[0] < (b[0] - a[0]) * (point[1] - a[1]) / (b[1] - a[1]) + a[0]
        {
            inside = !inside;
        }
    }
    inside
}

/// The picture with every piece labelled, its axis and pointing ray, touching pairs joined,
/// near calls in orange. Clicking a piece selects it for correction.
fn attributes_view(
    ui: &mut Ui,
    table: &LiveTable,
    state: &mut ConsoleState,
    cache: &mut PictureCache,
) {
    let feed = table.feed();
    let (t, response) = draw::picture(ui, cache, feed.picture.as_ref(), [1280, 720]);
    let views = table.koan_views();
    let mut plates = draw::Plates::new(*t.to());
    for k in &views {
        // A merged koan is drawn from every koan the camera saw it as; a piece split off is
        // drawn (and labelled) by the koan it came from.
        let Some(tracked) = k.sources.first().and_then(|s| feed.koan(*s)) else {
            continue;
        };
        // A piece split off has no outline of its own: it is labelled where it stands.
        let own_outline = k.sources.first() == Some(&k.tracked);
        for extra in k.sources.iter().skip(1).filter_map(|s| feed.koan(*s)) {
            draw::outline(ui, &t, &extra.outline_px, Stroke::new(2.0, Color32::WHITE));
            for shape in &extra.pieces {
                if let Some(piece) = k.scene.piece(shape.piece) {
                    draw::piece_shape(ui, &t, shape, piece, false);
                }
            }
        }
        let near = !k.judgment_calls.is_empty() || k.hidden.is_some();
        let stroke = if near {
            Stroke::new(3.0, Color32::from_rgb(255, 170, 40))
        } else {
            Stroke::new(2.0, Color32::WHITE)
        };
        if own_outline && k.state == KoanState::Built {
            draw::outline(ui, &t, &tracked.outline_px, stroke);
        } else if own_outline {
            draw::dashed_outline(ui, &t, &tracked.outline_px, stroke);
        }
        for shape in &tracked.pieces {
            let Some(piece) = k.scene.piece(shape.piece) else {
                continue;
            };
            let selected = state.selected == Some((k.tracked, shape.piece));
            draw::piece_shape(ui, &t, shape, piece, selected);
            if let Some(top) = draw::top_of(&t, &shape.outline_px) {
                plates.add(
                    ui,
                    top,
                    Align2::CENTER_BOTTOM,
                    &draw::piece_label(piece),
                    12.0,
                    draw::piece_color(piece.color),
                    0.0,
                );
            }
        }
        if let Some(scene_koan) = k.scene.koans.first() {
            for [a, b] in &scene_koan.touching {
                let centre = |id: &PieceId| {
                    tracked
                        .pieces
                        .iter()
                        .find(|s| s.piece == *id)
                        .and_then(|s| centroid(&s.outline_px))
                };
                if let (Some(pa), Some(pb)) = (centre(a), centre(b)) {
                    ui.painter().line_segment(
                        [draw::to_screen(&t, &pa), draw::to_screen(&t, &pb)],
                        Stroke::new(2.0, Color32::from_rgb(120, 255, 120)),
                    );
                }
            }
        }
        let title_over: Vec<PointPx> = if own_outline {
            tracked.outline_px.clone()
        } else {
            tracked
                .pieces
                .iter()
                .filter(|s| k.scene.piece(s.piece).is_some())
                .flat_map(|s| s.outline_px.iter().copied())
                .collect()
        };
        if let Some(top) = draw::top_of(&t, &title_over) {
            let title = match (k.no, &k.suggested) {
                (Some(n), Some((m, _))) => format!("koan {n}: rule says {}", mark_words(*m)),
                (None, Some((m, _))) => format!("#{}: rule says {}", k.tracked, mark_words(*m)),
                (Some(n), None) => format!("koan {n}"),
                (None, None) => format!("#{}", k.tracked),
            };
            plates.koan_title(ui, top, &title, 15.0, 12.0, 9.0, k.mark);
        }
    }
    if response.clicked()
        && let Some(pos) = response.interact_pointer_pos()
    {
        let at = t.inverse().transform_pos(pos);
        let hit = feed.koans.iter().find_map(|k| {
            k.pieces
                .iter()
                .find(|s| inside([at.x, at.y], &s.outline_px))
                .map(|s| (k.id, s.piece))
        });
        state.selected = hit;
    }
}

fn centroid(points: &[PointPx]) -> Option<PointPx> {
    if points.is_empty() {
        return None;
    }
    let n = points.len() as f32;
    let (x, y) = points
        .iter()
        .fold((0.0, 0.0), |(x, y), p| (x + p[0], y + p[1]));
    Some([x / n, y / n])
}
