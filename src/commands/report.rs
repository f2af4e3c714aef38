//! `koanscope report <session> --html out.html`: the game on one readable page: every koan with
//! its mark and the reason, Mondo answers, guesses and their counter-examples, the revealed rule
//! (checked against the commitment) and the winner.

use std::fmt::Write;
use std::path::PathBuf;

use anyhow::Context;
use koanscope_game::narrate::{event_line, koan_words, note_lines};
use koanscope_game::{Ending, Event, Game, GuessEnd, Mode, Origin, Vocabulary};

use super::game::DbArg;
use super::sessions::utc;

#[derive(clap::Args)]
pub struct Args {
    /// The session, by number or name.
    pub session: String,
    /// Write the page here.
    #[arg(long)]
    pub html: PathBuf,
    /// Words to use (default: the session's).
    #[arg(long)]
    pub vocab: Option<Vocabulary>,
    /// Show the rule's reasons even before the rule is revealed (the Master's copy).
    #[arg(long)]
    pub master_view: bool,
    #[command(flatten)]
    pub db: DbArg,
}

/// The koan seen from above: each piece's base where it stands (a square for an upright or
/// upside-down piece, a triangle along its axis for one lying or leaning), in its colour, higher
/// pieces drawn last.
fn sketch(scene: &koanscope_scene::Scene) -> String {
    use koanscope_scene::Orientation;
    let mut pieces: Vec<_> = scene
        .pieces
        .iter()
        .filter_map(|p| p.attributes.as_ref().map(|a| (p, a)))
        .collect();
    if pieces.is_empty() {
        return String::new();
    }
    pieces.sort_by(|a, b| a.1.height_mm.total_cmp(&b.1.height_mm));
    let half = |p: &koanscope_scene::Piece| match p.size {
        koanscope_scene::Size::Small => 7.2,
        koanscope_scene::Size::Medium => 9.9,
        koanscope_scene::Size::Large => 12.7,
    };
    let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    for (p, a) in &pieces {
        for pt in [a.base_center_mm, a.apex_mm] {
            x0 = x0.min(pt.x - half(p));
            x1 = x1.max(pt.x + half(p));
            y0 = y0.min(pt.y - half(p));
            y1 = y1.max(pt.y + half(p));
        }
    }
    let (w, h) = ((x1 - x0).max(1.0), (y1 - y0).max(1.0));
    let mut svg = format!(
        "<svg width=160 height=90 viewBox='{:.1} {:.1} {w:.1} {h:.1}' style='background:#f6f3ea'>",
        x0, -y1
    );
    for (p, a) in pieces {
        let fill = p.color.word();
        let (cx, cy) = (a.base_center_mm.x, -a.base_center_mm.y);
        let r = half(p);
        if a.orientation == Orientation::Upright || a.axis.xy().norm() < 0.2 {
            let _ = write!(
                svg,
                "<rect x='{:.1}' y='{:.1}' width='{:.1}' height='{:.1}' fill='{fill}' fill-opacity='0.7' stroke='#333' stroke-width='0.6'/>",
                cx - r,
                cy - r,
                2.0 * r,
                2.0 * r
            );
        } else {
            let (ax, ay) = (a.apex_mm.x, -a.apex_mm.y);
            let d = a.axis.xy().normalize();
            let (nx, ny) = (-d.y * r, d.x * r);
            let _ = write!(
                svg,
                "<polygon points='{:.1},{:.1} {:.1},{:.1} {ax:.1},{ay:.1}' fill='{fill}' fill-opacity='0.7' stroke='#333' stroke-width='0.6'/>",
                cx + nx,
                cy - ny,
                cx - nx,
                cy + ny
            );
        }
    }
    svg.push_str("</svg>");
    svg
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let store = args.db.open()?;
    let id = store.find(&args.session)?;
    let events = store.events(id)?;
    let secrets = store.secrets(id)?;
    let revealed = events
        .iter()
        .any(|e| matches!(e.event, Event::Reveal { .. }));
    // Reasons come from the rule: shown once it is revealed (then the secret is public anyway).
    let mut game = Game::new();
    let mut known_rounds = 0;
    if args.master_view || revealed {
        for (round, secret) in secrets {
            let public = args.master_view
                || events.iter().any(|e| match &e.event {
                    Event::Reveal { text, .. } => *text == secret.text,
                    _ => false,
                });
            // A rule today's parser cannot read: the page goes without its reasons.
            if public && game.learn_secret(round, secret).is_ok() {
                known_rounds += 1;
            }
        }
    }
    let mut rounds: Vec<Game> = Vec::new();
    let mut timeline = String::new();
    let mut vocab = args.vocab.unwrap_or_default();
    for stored in &events {
        if matches!(stored.event, Event::NextRound { .. }) {
            rounds.push(game.clone());
        }
        let outcome = game
            .apply_logged(&stored.event)
            .with_context(|| format!("session {id}: logged step {} does not replay", stored.seq))?;
        if stored.seq == 0
            && args.vocab.is_none()
            && let Some(setup) = game.setup()
        {
            vocab = setup.vocabulary;
        }
        let _ = write!(
            timeline,
            "<li><span class=t>{} · {}</span> {}",
            stored.seq,
            &utc(stored.at_ms)[11..],
            esc(&event_line(&stored.event, &outcome, vocab))
        );
        let notes = note_lines(&outcome, vocab, args.master_view);
        if !notes.is_empty() {
            timeline.push_str("<ul>");
            for n in notes {
                let _ = write!(timeline, "<li>{}</li>", esc(&n));
            }
            timeline.push_str("</ul>");
        }
        timeline.push_str("</li>\n");
    }
    rounds.push(game.clone());

    let w = vocab.words();
    let setup = game.setup().context("the session has no set-up")?;
    let mut page = String::new();
    let title = format!("koanscope session {id}");
    let _ = write!(
        page,
        "<!doctype html><html lang=en><meta charset=utf-8><title>{title}</title>
<style>body{{font-family:system-ui,sans-serif;max-width:60em;margin:2em auto;line-height:1.4}}
table{{border-collapse:collapse;width:100%}}td,th{{border:1px solid #ccc;padding:.3em .5em;text-align:left;vertical-align:top}}
.white{{background:#fff;border:2px solid #333}}.black{{background:#222;color:#fff}}
.stone{{display:inline-block;padding:0 .5em;border-radius:1em}}.off{{color:#888}}.t{{color:#888;font-size:.85em}}</style>
<h1>{title}</h1>\n"
    );
    let _ = writeln!(
        page,
        "<p>Mode: {} · {}: {} · {}: {}</p>",
        setup.mode.word(),
        w.master,
        esc(&setup.master),
        w.students,
        esc(&setup.students.join(", "))
    );
    let _ = writeln!(
        page,
        "<p>Rule commitment at the start: <code>{}</code></p>",
        esc(&setup.commitment)
    );
    // The outcome.
    let _ = writeln!(page, "<h2>Outcome</h2>");
    for (i, round) in rounds.iter().enumerate() {
        let prefix = if rounds.len() > 1 {
            format!("Round {}: ", i + 1)
        } else {
            String::new()
        };
        let outcome = match round.ending() {
            Some(Ending::Won { student, guess }) => format!(
                "<strong>{} won</strong> with the guess “{}”",
                esc(student),
                esc(guess)
            ),
            Some(Ending::AllSurrendered) => format!("every {} surrendered", w.student),
            None => format!("not over: {}", esc(&round.describe_phase())),
        };
        let _ = writeln!(page, "<p>{prefix}{outcome}</p>");
        match round.revealed().iter().find(|r| r.round == i as u32) {
            Some(r) => {
                let _ = writeln!(
                    page,
                    "<p>{prefix}The revealed rule: “{}” — it matches the commitment.</p>",
                    esc(&r.text)
                );
            }
            None => {
                let _ = writeln!(page, "<p>{prefix}The rule has not been revealed.</p>");
            }
        }
    }
    if setup.mode == Mode::HeadToHead {
        for r in game.rounds() {
            let score = r
                .score
                .map(|s| s.to_string())
                .unwrap_or_else(|| "gave up".into());
            let _ = writeln!(
                page,
                "<p>{} solved {}'s rule: score {score} ({} {}, {} wrong guesses)</p>",
                esc(&r.solver),
                esc(&r.master),
                r.koans,
                w.koans,
                r.disproved_guesses
            );
        }
        if let Some(winner) = game.match_winner() {
            let _ = writeln!(
                page,
                "<p><strong>{} wins the match</strong> (lower score)</p>",
                esc(winner)
            );
        }
    }
    if setup.mode == Mode::Standard {
        let list: Vec<String> = game
            .students()
            .iter()
            .map(|s| format!("{} {}", esc(&s.name), s.guessing_stones))
            .collect();
        let _ = writeln!(
            page,
            "<p>{} at the end: {}</p>",
            w.guessing_stones,
            list.join(", ")
        );
    }

    for (i, round) in rounds.iter().enumerate() {
        if rounds.len() > 1 {
            let _ = writeln!(page, "<h2>Round {}</h2>", i + 1);
        }
        // Koans.
        let _ = writeln!(
            page,
            "<h2>{}</h2><table><tr><th>#</th><th>how</th><th>pieces</th><th>mark</th><th>reason</th><th>Mondo answers</th></tr>",
            w.koans
        );
        for k in round.koans() {
            let how = match &k.origin {
                Origin::Initial => "initial".to_string(),
                Origin::Built { student } => format!("built by {}", esc(student)),
                Origin::CounterExample { student, .. } => {
                    format!("counter-example to {}", esc(student))
                }
                Origin::Guidance => "guidance".to_string(),
            };
            let state = if k.in_play { "" } else { " (broken down)" };
            let mark = match k.mark {
                Some(m) => {
                    let corrected = if k.corrected_from.is_empty() {
                        String::new()
                    } else {
                        " (corrected)".to_string()
                    };
                    format!(
                        "<span class='stone {}'>{}</span>{corrected}",
                        m.word(),
                        vocab.mark(m)
                    )
                }
                None => "unmarked".into(),
            };
            let reason = match (&k.reason, known_rounds > i) {
                (Some(r), _) => esc(r),
                (None, false) => "(shown once the rule is revealed)".into(),
                (None, true) => String::new(),
            };
            let mondo = match &k.mondo {
                Some(m) if m.revealed => m
                    .answers
                    .iter()
                    .map(|(s, a)| {
                        let won = if m.awarded.contains(s) { " ✓" } else { "" };
                        format!("{} {}{won}", esc(s), vocab.mark(*a))
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
                Some(_) => "(hidden)".into(),
                None => String::new(),
            };
            let class = if k.in_play { "" } else { " class=off" };
            let _ = writeln!(
                page,
                "<tr{class}><td>{}</td><td>{how}{state}</td><td>{}<br>{}</td><td>{mark}</td><td>{reason}</td><td>{mondo}</td></tr>",
                k.no,
                sketch(&k.scene),
                esc(&koan_words(&k.scene))
            );
        }
        page.push_str("</table>\n");
        // Guesses.
        let guesses: Vec<_> = game
            .guesses()
            .iter()
            .filter(|g| g.round == i as u32)
            .collect();
        if !guesses.is_empty() {
            page.push_str(
                "<h2>Guesses</h2><table><tr><th>who</th><th>guess</th><th>end</th></tr>\n",
            );
            for g in guesses {
                let end = match &g.end {
                    GuessEnd::Open => "open".to_string(),
                    GuessEnd::Retracted => "retracted (stone returned)".to_string(),
                    GuessEnd::Disproved { koan } => {
                        let how = round
                            .koan(*koan)
                            .map(|k| {
                                format!(
                                    ": {} marked {}",
                                    esc(&koan_words(&k.scene)),
                                    k.mark.map(|m| vocab.mark(m)).unwrap_or("?")
                                )
                            })
                            .unwrap_or_default();
                        format!("disproved by counter-example {} {koan}{how}", w.koan)
                    }
                    GuessEnd::Stands => "<strong>stands: the guesser wins</strong>".to_string(),
                };
                let texts: Vec<String> = g.texts.iter().map(|t| format!("“{}”", esc(t))).collect();
                let _ = writeln!(
                    page,
                    "<tr><td>{}</td><td>{}</td><td>{end}</td></tr>",
                    esc(&g.student),
                    texts.join("<br>changed to ")
                );
            }
            page.push_str("</table>\n");
        }
    }
    let _ = writeln!(page, "<h2>History</h2><ol class=history>\n{timeline}</ol>");
    page.push_str("</html>\n");
    std::fs::write(&args.html, page).with_context(|| format!("writing {}", args.html.display()))?;
    println!("report of session {id} written to {}", args.html.display());
    Ok(())
}
