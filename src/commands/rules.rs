//! `koanscope rules ...`: the rule engine at the command line.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::Subcommand;
use koanscope_builder::GeometryRealiser;
use koanscope_geometry::Engine;
use koanscope_rules::{
    Difficulty, KoanSummary, Library, ParseError, Parsed, Rule, SearchOptions, SearchResult, Stash,
    Style, find_counterexample, render,
};
use koanscope_scene::{Mark, Scene};

#[derive(Subcommand)]
pub enum RulesCommand {
    /// Parse a rule and show what was understood, in canonical words.
    Check {
        /// The rule, e.g. "A koan has the Buddha-nature if it contains at least one red piece".
        rule: String,
        /// Pick reading N (1-based) when the rule is indefinite.
        #[arg(long)]
        reading: Option<usize>,
    },
    /// Mark every koan of a scene document under a rule, with the reason.
    Eval {
        rule: String,
        /// A scene document; pieces without attributes are derived by the geometry engine first.
        scene: PathBuf,
        /// Print the scene document with every koan's mark filled in.
        #[arg(long)]
        json: bool,
        #[arg(long)]
        reading: Option<usize>,
    },
    /// List the marked koans of a scene that contradict a guess.
    Contradictions {
        guess: String,
        scene: PathBuf,
        #[arg(long)]
        reading: Option<usize>,
    },
    /// Find a koan the secret rule and a guess mark differently, that can really be built.
    Counterexample {
        /// The secret rule.
        rule: String,
        /// The guess.
        guess: String,
        /// The table (a scene document): the tight-lipped style builds close to its koans.
        #[arg(long)]
        table: Option<PathBuf>,
        /// helpful (small and plain) or tight-lipped (close to the table, or busy).
        #[arg(long, default_value = "helpful")]
        style: StyleArg,
        /// Pieces still in the stash, e.g. "red small 2, blue large 1" (default: any number of
        /// the four Zendo colours).
        #[arg(long)]
        stash: Option<String>,
        /// Print the counter-example as a scene document instead of in words.
        #[arg(long)]
        json: bool,
        /// Search every arrangement up to this many pieces.
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u8).range(1..=5))]
        max_arranged: u8,
        /// Search pieces standing or lying on their own spots up to this many pieces.
        #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u8).range(1..=7))]
        max_pieces: u8,
        /// Reading of the rule, when it is indefinite.
        #[arg(long)]
        reading: Option<usize>,
        /// Reading of the guess, when it is indefinite.
        #[arg(long)]
        guess_reading: Option<usize>,
    },
    /// List the rule library.
    List {
        /// Only rules of this difficulty (easy, medium, hard).
        #[arg(long)]
        difficulty: Option<Difficulty>,
        /// Show the canonical form under each rule.
        #[arg(long)]
        canonical: bool,
    },
}

pub fn run(cmd: RulesCommand) -> anyhow::Result<()> {
    match cmd {
        RulesCommand::Check { rule, reading } => {
            let rule = read_rule(&rule, reading, "rule")?;
            say!("{}", render::rule(&rule));
            Ok(())
        }
        RulesCommand::Eval {
            rule,
            scene,
            json,
            reading,
        } => eval(&rule, &scene, json, reading),
        RulesCommand::Contradictions {
            guess,
            scene,
            reading,
        } => contradictions(&guess, &scene, reading),
        RulesCommand::List {
            difficulty,
            canonical,
        } => list(difficulty, canonical),
        RulesCommand::Counterexample {
            rule,
            guess,
            table,
            style,
            stash,
            json,
            max_arranged,
            max_pieces,
            reading,
            guess_reading,
        } => counterexample(
            CounterArgs {
                rule: &rule,
                guess: &guess,
                table: table.as_deref(),
                style,
                stash: stash.as_deref(),
                json,
                max_arranged: usize::from(max_arranged),
                max_pieces: usize::from(max_pieces),
            },
            reading,
            guess_reading,
        ),
    }
}

/// Parses a rule; an indefinite one needs `--reading`, and a "mu" one is refused with readings.
fn read_rule(text: &str, reading: Option<usize>, what: &str) -> anyhow::Result<Rule> {
    let parsed = koanscope_rules::parse(text).map_err(|e| match e {
        ParseError::Mu { .. } => {
            anyhow::anyhow!("{e}\n(type the reading you mean as the {what})")
        }
        other => anyhow::Error::new(other),
    });
    let parsed = parsed.with_context(|| format!("reading the {what} {text:?}"))?;
    match parsed {
        Parsed::Rule(r) => {
            if reading.is_some() {
                bail!("the {what} has only one reading; leave out --reading");
            }
            Ok(r)
        }
        Parsed::NeedsChoice { question, readings } => match reading {
            Some(n) if (1..=readings.len()).contains(&n) => Ok(readings[n - 1].clone()),
            Some(n) => bail!("there is no reading {n}: choose 1 to {}", readings.len()),
            None => {
                let list: Vec<String> = readings
                    .iter()
                    .enumerate()
                    .map(|(i, r)| format!("  {}. {}", i + 1, render::rule(r)))
                    .collect();
                bail!(
                    "{question}\n{}\nchoose one with --reading N",
                    list.join("\n")
                )
            }
        },
    }
}

/// Reads a scene and derives attributes and relations where the document lacks them.
fn read_scene(path: &Path) -> anyhow::Result<Scene> {
    let mut scene =
        Scene::from_path(path).with_context(|| format!("reading {}", path.display()))?;
    let complete = !scene.koans.is_empty() && scene.pieces.iter().all(|p| p.attributes.is_some());
    if !complete {
        let engine = Engine::default();
        if scene.koans.is_empty() {
            engine.derive(&mut scene);
        } else {
            // Keep the Master's grouping (and marks) when the document has koans.
            engine.derive_keeping_koans(&mut scene);
        }
    }
    Ok(scene)
}

fn mark_word(m: Mark) -> &'static str {
    m.word()
}

fn eval(text: &str, path: &Path, json: bool, reading: Option<usize>) -> anyhow::Result<()> {
    let rule = read_rule(text, reading, "rule")?;
    let mut scene = read_scene(path)?;
    let marks = koanscope_rules::mark_scene(&rule, &scene)
        .with_context(|| format!("marking the koans of {}", path.display()))?;
    if json {
        for m in &marks {
            if let Some(k) = scene.koans.iter_mut().find(|k| k.id == m.koan) {
                k.mark = Some(m.mark);
            }
        }
        say!("{}", scene.to_json_string(true));
    } else {
        for m in &marks {
            say!("koan {}: {}: {}", m.koan, mark_word(m.mark), m.reason);
        }
    }
    Ok(())
}

fn contradictions(text: &str, path: &Path, reading: Option<usize>) -> anyhow::Result<()> {
    let guess = read_rule(text, reading, "guess")?;
    let scene = read_scene(path)?;
    let check = koanscope_rules::check_guess(&guess, &scene)
        .with_context(|| format!("checking the guess against {}", path.display()))?;
    for c in &check.contradictions {
        say!(
            "koan {} is marked {} but the guess marks it {}: {}",
            c.koan,
            mark_word(c.marked),
            mark_word(c.guess_says),
            c.reason
        );
    }
    let marked = check.agreeing + check.contradictions.len();
    if check.contradictions.is_empty() {
        say!("no koan on the table contradicts the guess ({marked} marked koans checked)");
    } else {
        say!(
            "{} of {marked} marked koans contradict the guess",
            check.contradictions.len()
        );
    }
    if !check.unmarked.is_empty() {
        let ids: Vec<String> = check.unmarked.iter().map(|k| k.to_string()).collect();
        say!("not marked yet (not checked): koan {}", ids.join(", "));
    }
    Ok(())
}

fn list(difficulty: Option<Difficulty>, canonical: bool) -> anyhow::Result<()> {
    let library = Library::builtin().context("loading the rule library")?;
    for r in &library.rules {
        if difficulty.is_some_and(|d| d != r.difficulty) {
            continue;
        }
        say!("{:<36} {:<6} {}", r.name, r.difficulty.word(), r.text);
        if canonical {
            say!("{:<43} = {}", "", render::rule(&r.rule));
        }
    }
    Ok(())
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum StyleArg {
    Helpful,
    TightLipped,
}

struct CounterArgs<'a> {
    rule: &'a str,
    guess: &'a str,
    table: Option<&'a Path>,
    style: StyleArg,
    stash: Option<&'a str>,
    json: bool,
    max_arranged: usize,
    max_pieces: usize,
}

fn counterexample(
    args: CounterArgs<'_>,
    reading: Option<usize>,
    guess_reading: Option<usize>,
) -> anyhow::Result<()> {
    let rule = read_rule(args.rule, reading, "rule")?;
    let guess = read_rule(args.guess, guess_reading, "guess")?;
    let mut options = SearchOptions {
        style: match args.style {
            StyleArg::Helpful => Style::Helpful,
            StyleArg::TightLipped => Style::TightLipped,
        },
        max_arranged: args.max_arranged,
        max_pieces: args.max_pieces,
        ..SearchOptions::default()
    };
    if let Some(text) = args.stash {
        let stash = Stash::parse(text)
            .map_err(|e| anyhow::anyhow!(e))
            .context("reading --stash")?;
        options.stash = Some(stash);
    }
    if let Some(path) = args.table {
        let scene = read_scene(path)?;
        for koan in &scene.koans {
            let summary = KoanSummary::from_scene(&scene, koan)
                .with_context(|| format!("reading koan {} of {}", koan.id, path.display()))?;
            options.table.push(summary);
        }
    }
    let realiser = GeometryRealiser::default();
    let result = find_counterexample(&rule, &guess, &options, &realiser)
        .context("searching for a counter-example")?;
    match result {
        SearchResult::Found(found) => {
            if args.json {
                say!("{}", found.scene.to_json_string(true));
                return Ok(());
            }
            let n = found.plan.pieces.len();
            say!(
                "Counter-example ({n} piece{}):",
                if n == 1 { "" } else { "s" }
            );
            for line in found.plan.describe().lines() {
                say!("  {line}");
            }
            say!(
                "Under the secret rule this koan is {} ({}).",
                found.rule_mark.word(),
                found.rule_reason
            );
            say!(
                "Under the guess it is {} ({}).",
                found.guess_mark.word(),
                found.guess_reason
            );
        }
        SearchResult::NotFound { bound, candidates } => {
            say!("No counter-example found: {bound}; {candidates} candidate koans checked.");
        }
    }
    Ok(())
}
