//! The game script: a plain-text record of a game, one move a line, for entering a game played
//! without a camera and for tests. `koanscope game play --help` shows the whole language.

use std::collections::BTreeMap;

use anyhow::{Context, bail};
use koanscope_game::parse_mark;
use koanscope_scene::Mark;

pub const HELP: &str = r#"A game script has one move per line; blank lines and lines starting with # are skipped.
A line starting with "!" is a move that must be refused (the script fails if it is accepted).
Names are one word. Marks are white/black (or yes/no). <koan> is an inline description
(e.g. "red medium upright, blue small flat dir=2, green small upright on=0") or "@ file.json".
A piece is "colour size pose [options]": pose upright, flat, down (on its tip) or tipped
(leaning); dir=N heads a flat or tipped piece N quarter turns from the row, toward=K at piece K
(to point at it); on=K sets it on the tip of upright piece K (a tower), in=K nests it inside K;
x=X y=Y place it (mm), z=H lays a flat piece H mm up, across the tips of others. Pieces are
numbered from 0 and stand in a row 15 mm apart; the geometry engine derives everything else.

  new master=Ann students=Bob,Cat,Dan rule="A koan has the Buddha-nature if ..."
      [name=NAME] [mode=standard|puzzle|head-to-head] [vocab=zen|modern] [salt=HEX]
      [marking=N] [guessing=N] [initial-guessing=N]
  new master=koanscope students=Bob,Cat library=easy [seed=N]   (koanscope is the Master)
  initial white: <koan>           the Master's initial koans (one white, one black)
  build Bob: <koan>               Bob builds his koan
  master Bob | tell Bob           Bob calls Master (Tell)
  mondo Bob  | quiz Bob           Bob calls Mondo (Quiz)
  answer Cat black                Cat's hidden Mondo answer
  mark white [judgment] | mark    the Master marks the new koan (bare "mark": as the rule says)
  guess Bob: <rule text>          Bob spends a guessing stone and states a guess
  change: <rule text>             reword the guess before it is official
  retract                         take the guess back (the stone is returned)
  official                        the guess is official
  counter black [judgment]: <koan>   the Master's counter-example
  counter                         koanscope searches for the counter-example itself
  stands                          no counter-example: the guesser wins
  pass Bob                        Bob ends his turn
  break 3 4                       koans 3 and 4 are broken down
  katsu 3 [: <koan as disturbed>] koan 3 was disturbed
  restore 3 [: <koan as rebuilt>] the Master restores it (checked against the log)
  correct 3 white [judgment]      fix a mismarked koan
  guidance                        Guidance Mode
  guide white: <koan>             the Master's koan in Guidance Mode
  surrender Bob
  reveal [: <rule text>]          reveal the secret rule (checked against the commitment)
  next-round rule="..." | library=medium [seed=N] [salt=HEX]   Head-to-Head, second round
"#;

/// One move of a script, as written.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    New(BTreeMap<String, String>),
    Initial {
        mark: Mark,
        koan: String,
        judgment: bool,
    },
    Build {
        student: String,
        koan: String,
    },
    CallMaster {
        student: String,
    },
    CallMondo {
        student: String,
    },
    Answer {
        student: String,
        mark: Mark,
    },
    Mark {
        mark: Option<Mark>,
        judgment: bool,
    },
    Guess {
        student: String,
        text: String,
    },
    Change {
        text: String,
    },
    Retract,
    Official,
    Counter {
        mark: Mark,
        koan: String,
        judgment: bool,
    },
    CounterAuto,
    Stands,
    Pass {
        student: String,
    },
    Break {
        koans: Vec<u32>,
    },
    Katsu {
        koan: u32,
        scene: Option<String>,
    },
    Restore {
        koan: u32,
        scene: Option<String>,
    },
    Correct {
        koan: u32,
        mark: Mark,
        judgment: bool,
    },
    Guidance,
    Guide {
        mark: Mark,
        koan: String,
    },
    Surrender {
        student: String,
    },
    Reveal {
        text: Option<String>,
    },
    NextRound(BTreeMap<String, String>),
}

/// A line of a script.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub number: usize,
    pub text: String,
    /// Written with a leading "!": the move must be refused.
    pub refused: bool,
    pub action: Action,
}

/// Reads a whole script; the first bad line stops it, with its number.
pub fn parse(text: &str) -> anyhow::Result<Vec<Line>> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let number = i + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (refused, body) = match line.strip_prefix('!') {
            Some(rest) => (true, rest.trim()),
            None => (false, line),
        };
        let action = parse_action(body).with_context(|| format!("line {number}: {line}"))?;
        out.push(Line {
            number,
            text: line.to_string(),
            refused,
            action,
        });
    }
    Ok(out)
}

fn mark(word: &str) -> anyhow::Result<Mark> {
    parse_mark(word).with_context(|| format!("{word:?} is not a mark (white/black, yes/no)"))
}

fn number(word: &str) -> anyhow::Result<u32> {
    word.trim_start_matches('#')
        .parse()
        .with_context(|| format!("{word:?} is not a koan number"))
}

/// `key=value key="a value with spaces"` pairs.
pub fn pairs(text: &str) -> anyhow::Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        let (key, after) = rest
            .split_once('=')
            .with_context(|| format!("expected key=value at {rest:?}"))?;
        let key = key.trim();
        if key.contains(char::is_whitespace) || key.is_empty() {
            bail!("expected key=value at {rest:?}");
        }
        let (value, after) = if let Some(quoted) = after.strip_prefix('"') {
            let end = quoted
                .find('"')
                .with_context(|| format!("the value of {key} has no closing quote"))?;
            (&quoted[..end], &quoted[end + 1..])
        } else {
            let end = after.find(char::is_whitespace).unwrap_or(after.len());
            (&after[..end], &after[end..])
        };
        if out.insert(key.to_string(), value.to_string()).is_some() {
            bail!("{key} is given twice");
        }
        rest = after.trim_start();
    }
    Ok(out)
}

fn parse_action(body: &str) -> anyhow::Result<Action> {
    let (head, tail) = match body.split_once(':') {
        Some((h, t)) => (h.trim(), Some(t.trim().to_string())),
        None => (body, None),
    };
    let words: Vec<&str> = head.split_whitespace().collect();
    let Some((verb, args)) = words.split_first() else {
        bail!("an empty move");
    };
    let verb = verb.to_ascii_lowercase();
    let need_tail = |what: &str| {
        tail.clone()
            .filter(|t| !t.is_empty())
            .with_context(|| format!("{what} after a colon"))
    };
    let judgment = |rest: &[&str]| -> anyhow::Result<bool> {
        match rest {
            [] => Ok(false),
            ["judgment"] => Ok(true),
            other => bail!("{other:?} is not understood (only \"judgment\")"),
        }
    };
    let action = match (verb.as_str(), args) {
        ("new", _) => Action::New(pairs(body["new".len()..].trim())?),
        ("next-round", _) => Action::NextRound(pairs(body["next-round".len()..].trim())?),
        ("initial", [m, rest @ ..]) => Action::Initial {
            mark: mark(m)?,
            koan: need_tail("the koan")?,
            judgment: judgment(rest)?,
        },
        ("build", [s]) => Action::Build {
            student: s.to_string(),
            koan: need_tail("the koan")?,
        },
        ("master" | "tell", [s]) => Action::CallMaster {
            student: s.to_string(),
        },
        ("mondo" | "quiz", [s]) => Action::CallMondo {
            student: s.to_string(),
        },
        ("answer", [s, m]) => Action::Answer {
            student: s.to_string(),
            mark: mark(m)?,
        },
        ("mark", []) => Action::Mark {
            mark: None,
            judgment: false,
        },
        ("mark", [m, rest @ ..]) => Action::Mark {
            mark: Some(mark(m)?),
            judgment: judgment(rest)?,
        },
        ("guess", [s]) => Action::Guess {
            student: s.to_string(),
            text: need_tail("the guess")?,
        },
        ("change", []) => Action::Change {
            text: need_tail("the new wording")?,
        },
        ("retract", []) => Action::Retract,
        ("official", []) => Action::Official,
        ("counter", []) if tail.is_none() => Action::CounterAuto,
        ("counter", [m, rest @ ..]) => Action::Counter {
            mark: mark(m)?,
            koan: need_tail("the koan")?,
            judgment: judgment(rest)?,
        },
        ("stands", []) => Action::Stands,
        ("pass", [s]) => Action::Pass {
            student: s.to_string(),
        },
        ("break", koans) if !koans.is_empty() => Action::Break {
            koans: koans
                .iter()
                .map(|k| number(k))
                .collect::<anyhow::Result<_>>()?,
        },
        ("katsu", [k]) => Action::Katsu {
            koan: number(k)?,
            scene: tail,
        },
        ("restore", [k]) => Action::Restore {
            koan: number(k)?,
            scene: tail,
        },
        ("correct", [k, m, rest @ ..]) => Action::Correct {
            koan: number(k)?,
            mark: mark(m)?,
            judgment: judgment(rest)?,
        },
        ("guidance", []) => Action::Guidance,
        ("guide", [m]) => Action::Guide {
            mark: mark(m)?,
            koan: need_tail("the koan")?,
        },
        ("surrender", [s]) => Action::Surrender {
            student: s.to_string(),
        },
        ("reveal", []) => Action::Reveal { text: tail },
        (verb, _) => {
            bail!("{verb:?} with these words is not a move (see `koanscope game play --help`)")
        }
    };
    Ok(action)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_read_as_moves() {
        let script = "# a game\nnew master=Ann students=Bob,Cat rule=\"A koan has the Buddha-nature if it contains a red piece.\"\n\
                      build Bob: red small upright\n! answer Ann white\nbreak 3 #4\ncounter\ncounter black: red small flat\nreveal";
        let lines = parse(script).unwrap();
        assert_eq!(lines.len(), 7);
        let Action::New(kv) = &lines[0].action else {
            panic!()
        };
        assert_eq!(
            kv["rule"],
            "A koan has the Buddha-nature if it contains a red piece."
        );
        assert_eq!(kv["students"], "Bob,Cat");
        assert!(lines[2].refused);
        assert_eq!(lines[3].action, Action::Break { koans: vec![3, 4] });
        assert_eq!(lines[4].action, Action::CounterAuto);
        assert_eq!(lines[6].action, Action::Reveal { text: None });
    }

    #[test]
    fn a_bad_line_names_its_number() {
        let err = parse("retract\nbuild Bob red small upright").unwrap_err();
        assert!(format!("{err:#}").contains("line 2"), "{err:#}");
        assert!(parse("answer Bob grey").is_err());
    }
}
