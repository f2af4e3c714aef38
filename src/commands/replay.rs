//! `koanscope replay <session>`: a game's history, step by step, as it was logged.

use anyhow::Context;
use koanscope_game::narrate::{event_line, koan_words, note_lines};
use koanscope_game::{Game, Vocabulary};

use super::game::{DbArg, print_stones};
use super::sessions::utc;

#[derive(clap::Args)]
pub struct Args {
    /// The session, by number or name.
    pub session: String,
    /// Words to show (default: the session's).
    #[arg(long)]
    pub vocab: Option<Vocabulary>,
    /// Replay with the Master's secret: what the rule says of each koan, before the reveal.
    #[arg(long)]
    pub master_view: bool,
    /// Stop after this step and show the table as it was then.
    #[arg(long)]
    pub at: Option<u64>,
    /// Wait for Enter after each step.
    #[arg(long)]
    pub step: bool,
    #[command(flatten)]
    pub db: DbArg,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let store = args.db.open()?;
    let id = store.find(&args.session)?;
    let events = store.events(id)?;
    let mut game = Game::new();
    if args.master_view {
        for (round, secret) in store.secrets(id)? {
            // A rule today's parser cannot read: replay without its readings.
            if let Err(e) = game.learn_secret(round, secret) {
                eprintln!("note: round {round}'s rule is not shown: {e}");
            }
        }
    }
    let mut vocab = args.vocab.unwrap_or_default();
    let mut stepping = args.step;
    for stored in &events {
        if args.at.is_some_and(|at| stored.seq > at) {
            break;
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
        println!(
            "[{}] {}  {}",
            stored.seq,
            &utc(stored.at_ms)[11..],
            event_line(&stored.event, &outcome, vocab)
        );
        for line in note_lines(&outcome, vocab, args.master_view) {
            println!("           {line}");
        }
        if stepping {
            let mut enter = String::new();
            // End of input ends the stepping, not the replay.
            if std::io::stdin().read_line(&mut enter).unwrap_or(0) == 0 {
                stepping = false;
            }
        }
    }
    println!();
    println!(
        "After step {}: {}",
        game.events_applied().saturating_sub(1),
        game.describe_phase_in(vocab)
    );
    let w = vocab.words();
    for k in game.koans_in_play() {
        let mark = k.mark.map(|m| vocab.mark(m)).unwrap_or("unmarked");
        println!("  {} {}: {mark}: {}", w.koan, k.no, koan_words(&k.scene));
    }
    print_stones(&game, vocab);
    Ok(())
}
