//! `koanscope sessions list`: the games in the session store.

use clap::Subcommand;

use super::game::DbArg;

#[derive(Subcommand)]
pub enum SessionsCommand {
    /// Every session, newest first: players, mode, events, where it stands.
    List {
        #[command(flatten)]
        db: DbArg,
    },
}

pub fn run(cmd: SessionsCommand) -> anyhow::Result<()> {
    match cmd {
        SessionsCommand::List { db } => {
            let store = db.open()?;
            let sessions = store.sessions()?;
            if sessions.is_empty() {
                println!("no sessions yet in {}", db.path()?.display());
                return Ok(());
            }
            println!(
                "{:>4}  {:<12} {:<12} {:<17} {:<10} {:<24} {:>6}  status",
                "id", "name", "mode", "last move (UTC)", "master", "students", "events"
            );
            for s in sessions {
                let status = match &s.winner {
                    Some(w) => format!("won by {w}"),
                    None => s.status.clone(),
                };
                println!(
                    "{:>4}  {:<12} {:<12} {:<17} {:<10} {:<24} {:>6}  {status}",
                    s.id,
                    s.name.as_deref().unwrap_or("-"),
                    s.mode,
                    utc(s.updated_ms),
                    s.master,
                    s.students.join(","),
                    s.events
                );
            }
            Ok(())
        }
    }
}

/// "2026-11-22 10:46" from Unix milliseconds (civil-from-days, proleptic Gregorian).
pub fn utc(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}",
        rest / 3600,
        rest % 3600 / 60
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn utc_dates() {
        assert_eq!(super::utc(0), "1970-01-01 00:00");
        assert_eq!(super::utc(1_795_345_560_000), "2026-11-22 11:06");
        assert_eq!(super::utc(951_782_400_000), "2000-02-29 00:00");
    }
}
