//! `koanscope eval`: calibrate from a dataset's own images, analyse every scene and compare
//! with its truth.

mod explain;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressStyle};
use koanscope_eval::{
    Count, RelationScore, compare_found, compare_marks, found_koans_of, koans_marked_otherwise,
};
use koanscope_geometry::Engine;
use koanscope_rules::{Library, LibraryRule, mark_scene};
use koanscope_scene::{KoanId, Mark, Piece, PieceId, Scene};
use koanscope_vision::evaluate::{DetectionScore, pair_pieces, score_scene, truth_pieces};
use koanscope_vision::{
    Camera, Chessboard, ColorModel, Detector, IntrinsicsQuality, LensModel, analyze,
    calibrate_intrinsics, calibrate_table, find_board, image::read_bgr,
};
use serde::Serialize;

#[derive(clap::Args)]
pub struct Args {
    /// A dataset laid out like ../shared/datasets/dev: intrinsics/*.jpg, and setups holding
    /// table.jpg and scene_NN.jpg with scene_NN.json truth.
    pub dataset: PathBuf,
    /// Colour model (TOML); the shipped models/colors.toml when not given.
    #[arg(long)]
    pub colors: Option<PathBuf>,
    /// Also write the figures as JSON.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Also write each analysed scene document into this folder (SETUP_scene_NN.json), to look
    /// at what went wrong.
    #[arg(long)]
    pub save_scenes: Option<PathBuf>,
    /// Also list, scene by scene, every piece and relation that disagrees with the truth.
    #[arg(long)]
    pub explain: bool,
    /// Pair a found piece with a true one at most this far apart in the image, pixels.
    #[arg(long, default_value_t = 20.0)]
    pub pair_px: f64,
}

#[derive(Serialize)]
struct Figures {
    setup: String,
    scenes: usize,
    recall: f64,
    precision: f64,
    color: f64,
    size: f64,
    orientation: f64,
    grounded: f64,
    base_error_median_mm: Option<f64>,
    base_error_p95_mm: Option<f64>,
    touching_f1: f64,
    pointing_f1: f64,
    tower_f1: f64,
    /// True koans found as exactly one koan of exactly their visible pieces.
    grouping: f64,
    /// Marks under the fifteen beginner rules that agree with the truth's, all rules together.
    beginner_marks: f64,
    /// The same over the koans that hide no piece: what a camera can be held to (no frame
    /// shows a piece nested out of sight).
    beginner_marks_nothing_hidden: f64,
    /// Marks of the truth less the pieces no frame shows, against the truth's (all rules): the
    /// most any reading of the frames can agree.
    beginner_marks_seen_truth: f64,
    /// Marks agreeing per rule (library name).
    beginner_marks_per_rule: BTreeMap<String, f64>,
    /// Hidden nested pieces whose container was flagged as possibly hiding one.
    hidden_flagged: f64,
    /// Flagged pieces that do hide one (most flags are a reminder to look, not a finding).
    flags_hiding: f64,
    /// Marks lost to a hidden piece (a true koan hiding one, marked otherwise) where the console
    /// would have said to lift a piece: a piece hidden under one of the found koan's would
    /// change its mark under the rule (all rules together).
    lift_advice_on_lost: f64,
    /// Found koans' marks for which the console says to lift a piece (all rules together).
    lift_advice_said: f64,
    /// Of those, the share over a true koan that does hide a piece.
    lift_advice_hiding: f64,
    counts: DetectionScore,
    relation_counts: RelationScore,
    mark_counts: BTreeMap<String, Count>,
    mark_counts_nothing_hidden: Count,
    mark_counts_seen_truth: Count,
    hidden_counts: Count,
    flag_counts: Count,
    lift_advice_counts: LiftAdvice,
}

/// How the console's advice to lift a piece fares, counted per koan and rule.
#[derive(Serialize, Default, Clone, Copy)]
struct LiftAdvice {
    /// Per true koan hiding a piece and marked otherwise: the advice was given.
    on_lost: Count,
    /// Per found koan with a mark: the advice was given.
    said: Count,
    /// Per advice given: the koan does hide a piece.
    hiding: Count,
}

impl LiftAdvice {
    fn merge(&mut self, other: LiftAdvice) {
        self.on_lost.merge(other.on_lost);
        self.said.merge(other.said);
        self.hiding.merge(other.hiding);
    }
}

/// Everything counted over a set of scenes.
#[derive(Default)]
struct Tallies {
    detection: DetectionScore,
    relations: RelationScore,
    /// Per beginner rule name.
    marks: BTreeMap<String, Count>,
    /// All beginner rules together, over the true koans that hide no piece.
    marks_nothing_hidden: Count,
    /// All beginner rules together, for the truth less its hidden pieces: the most any reading of
    /// what the frames show can agree.
    marks_seen_truth: Count,
    /// Per hidden true piece: its container was flagged.
    hidden: Count,
    /// Per flagged piece: it hides one.
    flags: Count,
    lift_advice: LiftAdvice,
}

impl Tallies {
    fn merge(&mut self, other: &Tallies) {
        self.detection.merge(&other.detection);
        self.relations.merge(&other.relations);
        for (rule, count) in &other.marks {
            self.marks.entry(rule.clone()).or_default().merge(*count);
        }
        self.marks_nothing_hidden.merge(other.marks_nothing_hidden);
        self.marks_seen_truth.merge(other.marks_seen_truth);
        self.hidden.merge(other.hidden);
        self.flags.merge(other.flags);
        self.lift_advice.merge(other.lift_advice);
    }

    fn all_marks(&self) -> Count {
        let mut all = Count::default();
        for count in self.marks.values() {
            all.merge(*count);
        }
        all
    }
}

/// The scene of these pieces' poses alone (their ids, colours and sizes kept), derived by the
/// engine: relations, koans and marks as the engine has them, nothing the document said.
fn derived_from_poses<'a>(engine: &Engine, pieces: impl Iterator<Item = &'a Piece>) -> Scene {
    let mut scene = Scene::from_pieces(
        pieces
            .map(|p| Piece::new(p.id, p.color, p.size, p.table_from_piece))
            .collect(),
    );
    engine.derive(&mut scene);
    scene
}

/// The library's rules for beginners (the booklet's fifteen), in library order.
fn beginner_rules() -> anyhow::Result<Vec<LibraryRule>> {
    let library = Library::builtin().context("reading the rule library")?;
    let rules: Vec<LibraryRule> = library
        .rules
        .into_iter()
        .filter(|r| r.source.as_deref() == Some("booklet: rules for beginners"))
        .collect();
    anyhow::ensure!(
        rules.len() == 15,
        "the rule library lists {} rules for beginners, not 15",
        rules.len()
    );
    Ok(rules)
}

fn marks(rule: &LibraryRule, scene: &Scene) -> anyhow::Result<BTreeMap<KoanId, Mark>> {
    Ok(mark_scene(&rule.rule, scene)
        .with_context(|| format!("marking under {:?}", rule.name))?
        .into_iter()
        .map(|m| (m.koan, m.mark))
        .collect())
}

fn figures(setup: &str, scenes: usize, t: &Tallies) -> Figures {
    let s = &t.detection;
    Figures {
        setup: setup.to_string(),
        scenes,
        recall: s.recall.rate(),
        precision: s.precision.rate(),
        color: s.color.rate(),
        size: s.size.rate(),
        orientation: s.orientation.rate(),
        grounded: s.grounded.rate(),
        base_error_median_mm: s.base_error_quantile_mm(0.5),
        base_error_p95_mm: s.base_error_quantile_mm(0.95),
        touching_f1: t.relations.touching.f1(),
        pointing_f1: t.relations.pointing.f1(),
        tower_f1: t.relations.towers.f1(),
        grouping: t.relations.grouping.rate(),
        beginner_marks: t.all_marks().rate(),
        beginner_marks_nothing_hidden: t.marks_nothing_hidden.rate(),
        beginner_marks_seen_truth: t.marks_seen_truth.rate(),
        beginner_marks_per_rule: t.marks.iter().map(|(r, c)| (r.clone(), c.rate())).collect(),
        hidden_flagged: t.hidden.rate(),
        flags_hiding: t.flags.rate(),
        lift_advice_on_lost: t.lift_advice.on_lost.rate(),
        lift_advice_said: t.lift_advice.said.rate(),
        lift_advice_hiding: t.lift_advice.hiding.rate(),
        counts: s.clone(),
        relation_counts: t.relations.clone(),
        mark_counts: t.marks.clone(),
        mark_counts_nothing_hidden: t.marks_nothing_hidden,
        mark_counts_seen_truth: t.marks_seen_truth,
        hidden_counts: t.hidden,
        flag_counts: t.flags,
        lift_advice_counts: t.lift_advice,
    }
}

fn sorted_files(dir: &Path, prefix: &str, extension: &str) -> anyhow::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(prefix))
                && p.extension().and_then(|e| e.to_str()) == Some(extension)
        })
        .collect();
    files.sort();
    Ok(files)
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let colors = ColorModel::load_or_shipped(args.colors.as_deref())?;
    let detector = Detector::new(colors);
    let engine = Engine::default();
    let rules = beginner_rules()?;
    let board = Chessboard::STANDARD;

    let intrinsics_images = sorted_files(&args.dataset.join("intrinsics"), "", "jpg")?;
    let mut views = Vec::new();
    for path in &intrinsics_images {
        let image = read_bgr(path)?;
        if let Ok(view) = find_board(&image, path, &board) {
            views.push(view);
        }
    }
    let report = calibrate_intrinsics(
        &views,
        &board,
        LensModel::for_views(views.len()),
        &IntrinsicsQuality::default(),
    )
    .context("calibrating the camera from the dataset's intrinsics/ images")?;
    let k = &report.intrinsics.camera_matrix;
    say!(
        "intrinsics from {} views: RMS {:.3} px, fx {:.2} fy {:.2} cx {:.2} cy {:.2}",
        views.len(),
        report.rms_px,
        k[(0, 0)],
        k[(1, 1)],
        k[(0, 2)],
        k[(1, 2)]
    );

    let mut setups: Vec<PathBuf> = std::fs::read_dir(&args.dataset)
        .with_context(|| format!("reading {}", args.dataset.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("table.jpg").is_file())
        .collect();
    setups.sort();
    if setups.is_empty() {
        bail!(
            "no setup folders (with table.jpg) in {}: is this a koanscope dataset?",
            args.dataset.display()
        );
    }
    let mut work = Vec::new();
    for setup in &setups {
        let table_path = setup.join("table.jpg");
        let image = read_bgr(&table_path)?;
        let table = calibrate_table(&image, &table_path, &report.intrinsics, &board)
            .with_context(|| format!("calibrating the table of {}", setup.display()))?;
        if let Some(advice) = koanscope_vision::light_cast_advice(table.board_white_lab) {
            say!("{}: {advice}", setup.display());
        }
        let camera = Camera::new(report.intrinsics.clone(), table.camera_from_table);
        let scenes = sorted_files(setup, "scene_", "jpg")?;
        work.push((setup.clone(), camera, scenes));
    }
    let total: usize = work.iter().map(|(_, _, s)| s.len()).sum();
    let progress = ProgressBar::new(total as u64).with_style(
        ProgressStyle::with_template("analysing {bar:30} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut all = Tallies::default();
    let mut rows = Vec::new();
    let mut seconds = Vec::new();
    let mut explained: Vec<String> = Vec::new();
    for (setup, camera, scenes) in &work {
        let name = setup
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("?")
            .to_string();
        let mut per_setup = Tallies::default();
        for scene_path in scenes {
            progress.set_message(format!(
                "{name}/{}",
                scene_path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .unwrap_or("?")
            ));
            let truth_path = scene_path.with_extension("json");
            let truth_text = std::fs::read_to_string(&truth_path)
                .with_context(|| format!("reading {}", truth_path.display()))?;
            let truth_json: serde_json::Value = serde_json::from_str(&truth_text)
                .with_context(|| format!("reading {}", truth_path.display()))?;
            let truth = truth_pieces(&truth_json)
                .map_err(anyhow::Error::msg)
                .with_context(|| format!("reading {}", truth_path.display()))?;
            let image = read_bgr(scene_path)?;
            let started = Instant::now();
            let analysis = analyze(&image, scene_path, camera, &detector, &engine)?;
            seconds.push(started.elapsed().as_secs_f64());
            if let Some(dir) = &args.save_scenes {
                let stem = scene_path
                    .file_stem()
                    .and_then(|n| n.to_str())
                    .unwrap_or("scene");
                let out = dir.join(format!("{name}_{stem}.json"));
                std::fs::create_dir_all(dir)
                    .and_then(|()| std::fs::write(&out, analysis.scene.to_json_string(true)))
                    .with_context(|| format!("writing {}", out.display()))?;
            }
            // The truth's poses through the same geometry engine: relations, koans and marks
            // measure what vision got wrong, not how the dataset's own grouping differs.
            let truth_scene = derived_from_poses(
                &engine,
                Scene::from_json_str(&truth_text)
                    .with_context(|| format!("reading {}", truth_path.display()))?
                    .pieces
                    .iter(),
            );
            anyhow::ensure!(
                truth_scene.pieces.len() == truth.len(),
                "{}: the pieces do not read alike twice",
                truth_path.display()
            );
            let found = &analysis.scene;
            let pairs: Vec<(PieceId, PieceId)> = pair_pieces(found, &truth, args.pair_px)
                .into_iter()
                .map(|(i, j)| (found.pieces[i].id, truth_scene.pieces[j].id))
                .collect();
            let hidden: BTreeSet<PieceId> = truth
                .iter()
                .zip(&truth_scene.pieces)
                .filter(|(t, _)| t.visible_fraction <= 0.0)
                .map(|(_, p)| p.id)
                .collect();
            let mut scene_tallies = Tallies {
                detection: score_scene(found, &truth, args.pair_px),
                relations: compare_found(&truth_scene, found, &pairs, &hidden),
                marks: BTreeMap::new(),
                marks_nothing_hidden: Count::default(),
                marks_seen_truth: Count::default(),
                hidden: Count::default(),
                flags: Count::default(),
                lift_advice: LiftAdvice::default(),
            };
            // Hidden nested pieces against the "may hide a piece" flags, through the pairing.
            // What holds a hidden piece is read from the true poses (the engine's `inserted`), so
            // a dataset need not list it.
            let containers = |j: usize| -> Vec<PieceId> {
                let inner = truth_scene.pieces[j].id;
                truth_scene
                    .koans
                    .iter()
                    .flat_map(|k| &k.inserted)
                    .filter(|[i, _]| *i == inner)
                    .map(|[_, outer]| *outer)
                    .collect()
            };
            let flagged: BTreeSet<PieceId> =
                analysis.possibly_hiding.iter().map(|h| h.piece).collect();
            let found_of: BTreeMap<PieceId, PieceId> = pairs.iter().map(|&(f, t)| (t, f)).collect();
            let mut hiding: BTreeSet<PieceId> = BTreeSet::new();
            for (j, t) in truth.iter().enumerate() {
                if t.visible_fraction > 0.0 {
                    continue;
                }
                let outer = containers(j);
                hiding.extend(outer.iter().copied());
                scene_tallies.hidden.add(
                    outer
                        .iter()
                        .filter_map(|o| found_of.get(o))
                        .any(|f| flagged.contains(f)),
                );
            }
            let truth_of: BTreeMap<PieceId, PieceId> = pairs.iter().copied().collect();
            for f in &flagged {
                scene_tallies
                    .flags
                    .add(truth_of.get(f).is_some_and(|t| hiding.contains(t)));
            }
            // The true koans that hold a hidden piece, which no frame shows.
            let hides_a_piece: BTreeSet<KoanId> = truth_scene
                .koans
                .iter()
                .filter(|k| k.pieces.iter().any(|p| hidden.contains(p)))
                .map(|k| k.id)
                .collect();
            // The found koans over a true koan that hides a piece, and each way one piece
            // could hide in the found scene (the console's advice to lift one).
            let truth_koan_of = |f: &PieceId| {
                truth_of
                    .get(f)
                    .and_then(|t| truth_scene.piece(*t))
                    .and_then(|p| p.koan)
            };
            let over_hiding: BTreeSet<KoanId> = found
                .pieces
                .iter()
                .filter(|p| truth_koan_of(&p.id).is_some_and(|k| hides_a_piece.contains(&k)))
                .filter_map(|p| p.koan)
                .collect();
            let hidden_pieces = engine.hidden_pieces(found);
            // The truth as a perfect reading of the frame has it: without the pieces no frame
            // shows, through the same engine.
            let seen_truth = derived_from_poses(
                &engine,
                truth_scene
                    .pieces
                    .iter()
                    .filter(|p| !hidden.contains(&p.id)),
            );
            let seen_pairs: Vec<(PieceId, PieceId)> =
                seen_truth.pieces.iter().map(|p| (p.id, p.id)).collect();
            // The rules under which each true koan is marked otherwise, for --explain.
            let mut otherwise: BTreeMap<KoanId, Vec<&str>> = BTreeMap::new();
            for rule in &rules {
                let (truth_marks, found_marks) = (marks(rule, &truth_scene)?, marks(rule, found)?);
                let koans =
                    koans_marked_otherwise(&truth_scene, found, &pairs, &truth_marks, &found_marks);
                scene_tallies.marks_seen_truth.merge(compare_marks(
                    &truth_scene,
                    &seen_truth,
                    &seen_pairs,
                    &truth_marks,
                    &marks(rule, &seen_truth)?,
                ));
                let mut advised: BTreeSet<KoanId> = BTreeSet::new();
                for h in &hidden_pieces {
                    let Some(k) = h.scene.piece(h.under).and_then(|p| p.koan) else {
                        continue;
                    };
                    if advised.contains(&k) {
                        continue;
                    }
                    if marks(rule, &h.scene)?.get(&k) != found_marks.get(&k) {
                        advised.insert(k);
                    }
                }
                let advice = &mut scene_tallies.lift_advice;
                for k in found_marks.keys() {
                    advice.said.add(advised.contains(k));
                }
                for k in &advised {
                    advice.hiding.add(over_hiding.contains(k));
                }
                for t in koans.iter().filter(|t| hides_a_piece.contains(t)) {
                    let warned = truth_scene.koan(*t).is_some_and(|koan| {
                        found_koans_of(koan, found, &pairs)
                            .iter()
                            .any(|k| advised.contains(k))
                    });
                    advice.on_lost.add(warned);
                }
                // One case per true koan with a mark (as `compare_marks` counts them).
                let mut count = Count::default();
                for koan in truth_scene
                    .koans
                    .iter()
                    .filter(|k| truth_marks.contains_key(&k.id))
                {
                    let agree = !koans.contains(&koan.id);
                    count.add(agree);
                    if !hides_a_piece.contains(&koan.id) {
                        scene_tallies.marks_nothing_hidden.add(agree);
                    }
                }
                scene_tallies.marks.insert(rule.name.clone(), count);
                for koan in koans {
                    otherwise.entry(koan).or_default().push(&rule.name);
                }
            }
            if args.explain {
                let mut lines =
                    explain::disagreements(&engine, &truth_scene, &truth, found, &pairs);
                lines.extend(otherwise.iter().map(|(koan, rules)| {
                    format!(
                        "marks    true koan {koan} marked otherwise under {}",
                        rules.join(", ")
                    )
                }));
                if !lines.is_empty() {
                    let stem = scene_path
                        .file_stem()
                        .and_then(|n| n.to_str())
                        .unwrap_or("?");
                    explained.push(format!("{name}/{stem}"));
                    explained.extend(lines.into_iter().map(|l| format!("  {l}")));
                }
            }
            per_setup.merge(&scene_tallies);
            progress.inc(1);
        }
        all.merge(&per_setup);
        rows.push(figures(&name, scenes.len(), &per_setup));
    }
    progress.finish_and_clear();
    for line in &explained {
        say!("{line}");
    }
    if !explained.is_empty() {
        say!("");
    }
    rows.push(figures("all", total, &all));
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&rows).context("encoding the figures")?;
        std::fs::write(path, text + "\n").with_context(|| format!("writing {}", path.display()))?;
    }
    say!(
        "{:<6} {:>6} {:>8} {:>9} {:>7} {:>6} {:>11} {:>8} {:>10} {:>8}",
        "setup",
        "scenes",
        "recall",
        "precision",
        "colour",
        "size",
        "orientation",
        "grounded",
        "base med",
        "base p95"
    );
    for r in &rows {
        let mm = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.1} mm"));
        say!(
            "{:<6} {:>6} {:>7.1}% {:>8.1}% {:>6.1}% {:>5.1}% {:>10.1}% {:>7.1}% {:>10} {:>8}",
            r.setup,
            r.scenes,
            100.0 * r.recall,
            100.0 * r.precision,
            100.0 * r.color,
            100.0 * r.size,
            100.0 * r.orientation,
            100.0 * r.grounded,
            mm(r.base_error_median_mm),
            mm(r.base_error_p95_mm)
        );
    }
    say!("");
    say!(
        "{:<6} {:>11} {:>11} {:>9} {:>9} {:>15} {:>16} {:>15} {:>13}",
        "setup",
        "touching F1",
        "pointing F1",
        "tower F1",
        "grouping",
        "beginner marks",
        "marks, all seen",
        "hidden flagged",
        "flags hiding"
    );
    for r in &rows {
        say!(
            "{:<6} {:>10.1}% {:>10.1}% {:>8.1}% {:>8.1}% {:>14.1}% {:>15.1}% {:>9}/{:<5} {:>7}/{:<5}",
            r.setup,
            100.0 * r.touching_f1,
            100.0 * r.pointing_f1,
            100.0 * r.tower_f1,
            100.0 * r.grouping,
            100.0 * r.beginner_marks,
            100.0 * r.beginner_marks_nothing_hidden,
            r.hidden_counts.agree,
            r.hidden_counts.total,
            r.flag_counts.agree,
            r.flag_counts.total
        );
    }
    if let Some(all) = rows.last() {
        let a = &all.lift_advice_counts;
        say!(
            "the console's advice to lift a piece (a hidden one would change the mark): on {}/{} marks lost to a hidden piece; said for {}/{} koan marks, {}/{} of them over a koan hiding one",
            a.on_lost.agree,
            a.on_lost.total,
            a.said.agree,
            a.said.total,
            a.hiding.agree,
            a.hiding.total
        );
        let c = &all.mark_counts_seen_truth;
        say!(
            "beginner marks of the truth less the pieces no frame shows (the most a reading can agree): {:.1}% ({}/{})",
            100.0 * all.beginner_marks_seen_truth,
            c.agree,
            c.total
        );
        let w = &all.relation_counts.warned;
        say!(
            "touching and pointing pairs found wrongly where a judgment call names one of their pieces (the console tells the Master to look): {}/{}",
            w.agree,
            w.total
        );
        let n = &all.relation_counts.near_in_truth;
        say!(
            "touching and pointing pairs found wrongly that the truth itself holds or misses within a judgment call's window (a toss-up for any camera): {}/{}",
            n.agree,
            n.total
        );
    }
    say!("");
    say!("marks agreeing with the truth's, per beginner rule (one case per true koan)");
    let mut header = format!("{:<22}", "rule");
    for r in &rows {
        header += &format!(" {:>7}", r.setup);
    }
    say!("{header}");
    for rule in &rules {
        let mut line = format!("{:<22}", rule.name);
        for r in &rows {
            let rate = r
                .beginner_marks_per_rule
                .get(&rule.name)
                .copied()
                .unwrap_or(1.0);
            line += &format!(" {:>6.1}%", 100.0 * rate);
        }
        say!("{line}");
    }
    seconds.sort_by(f64::total_cmp);
    if let Some(median) = seconds.get(seconds.len() / 2) {
        say!("analysis time per frame: median {:.0} ms", median * 1000.0);
    }
    Ok(())
}
