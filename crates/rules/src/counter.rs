//! Counter-examples: a koan the secret rule and a guess mark differently, that can really be
//! built. Candidates are build plans, tried smallest first on their predicted facts; a candidate
//! that tells the rules apart is built for real by a [`Realiser`] (poses, then the geometry
//! engine), and only a koan whose *realised* facts still tell them apart is offered.

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use koanscope_scene::{Color, Mark, Scene, Size};

use crate::ast::{AttrValue, Cond, EachOf, Filter, Key, Relation, Rule};
use crate::eval::{EvalError, KoanSummary};
use crate::plan::{Placement, Plan, PlanPiece};

/// Builds a plan with real poses and derives its attributes, relations and koans.
pub trait Realiser {
    type Error: std::error::Error + Send + Sync + 'static;
    /// The realised koan as a scene document (one koan expected), or None when the plan cannot
    /// be built (a piece would not stay where the plan puts it).
    fn realise(&self, plan: &Plan) -> Result<Option<Scene>, Self::Error>;
}

/// The booklet's two styles of counter-example.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// As small and plain as possible.
    Helpful,
    /// Close to koans already on the table (or, with none given, as busy as the bound allows).
    TightLipped,
}

/// The pieces still available: (colour, size) → how many.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Stash {
    pub counts: BTreeMap<(Color, Size), u32>,
}

impl Stash {
    /// Reads "red small 2, blue large 1, ...".
    pub fn parse(text: &str) -> Result<Stash, String> {
        let mut counts = BTreeMap::new();
        for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let words: Vec<&str> = item.split_whitespace().collect();
            let [color, size, n] = words.as_slice() else {
                return Err(format!(
                    "{item:?}: expected colour, size and a count (\"red small 2\")"
                ));
            };
            let color: Color = color.parse().map_err(|e| format!("{item:?}: {e}"))?;
            let size: Size = size.parse().map_err(|e| format!("{item:?}: {e}"))?;
            let n: u32 = n
                .parse()
                .map_err(|_| format!("{item:?}: {n:?} is not a count"))?;
            *counts.entry((color, size)).or_insert(0) += n;
        }
        Ok(Stash { counts })
    }

    /// Colours with at least one piece left, in the stash's order.
    pub fn palette(&self) -> Vec<Color> {
        Color::ALL
            .iter()
            .copied()
            .filter(|c| self.counts.iter().any(|((k, _), n)| k == c && *n > 0))
            .collect()
    }

    fn left(&self, color: Color, size: Size) -> u32 {
        self.counts.get(&(color, size)).copied().unwrap_or(0)
    }
}

/// What the search may use and how far it looks.
#[derive(Debug, Clone)]
pub struct SearchOptions {
    pub style: Style,
    /// Only these pieces may be used (None: any number of each, in `palette`).
    pub stash: Option<Stash>,
    /// Colours in play when no stash is given (default: the four Zendo colours).
    pub palette: Vec<Color>,
    /// Koans in every arrangement the plans know, up to this many pieces.
    pub max_arranged: usize,
    /// Koans of pieces standing or lying on their own spots, up to this many pieces.
    pub max_pieces: usize,
    /// Koans on the table (for the tight-lipped style).
    pub table: Vec<KoanSummary>,
    /// At most this many candidates are built for real before giving up.
    pub max_realisations: usize,
}

impl Default for SearchOptions {
    fn default() -> SearchOptions {
        SearchOptions {
            style: Style::Helpful,
            stash: None,
            palette: Color::ZENDO.to_vec(),
            max_arranged: 3,
            max_pieces: 5,
            table: Vec::new(),
            max_realisations: 24,
        }
    }
}

/// A koan that tells the rule and the guess apart, built for real.
#[derive(Debug, Clone)]
pub struct CounterExample {
    pub plan: Plan,
    /// The realised koan (poses, derived attributes, the mark under the secret rule).
    pub scene: Scene,
    /// Mark under the secret rule (the koan's true mark).
    pub rule_mark: Mark,
    pub guess_mark: Mark,
    pub rule_reason: String,
    pub guess_reason: String,
}

/// What the search found.
#[derive(Debug, Clone)]
pub enum SearchResult {
    Found(Box<CounterExample>),
    /// No koan within the bound tells them apart.
    NotFound {
        /// The bound, in words.
        bound: String,
        /// Candidate koans checked.
        candidates: usize,
    },
}

#[derive(Debug, thiserror::Error)]
pub enum CounterError {
    #[error("building a candidate koan")]
    Realise(#[source] Box<dyn std::error::Error + Send + Sync>),
    #[error("marking a candidate koan")]
    Eval(#[from] EvalError),
}

/// Finds a koan `rule` and `guess` mark differently.
pub fn find_counterexample<R: Realiser>(
    rule: &Rule,
    guess: &Rule,
    options: &SearchOptions,
    realiser: &R,
) -> Result<SearchResult, CounterError> {
    let palette = match &options.stash {
        Some(stash) => stash.palette(),
        None => options.palette.clone(),
    };
    let mut mentioned = Vec::new();
    colors_in_cond(&rule.cond, &mut mentioned);
    colors_in_cond(&guess.cond, &mut mentioned);
    let mentioned: Vec<Color> = palette
        .iter()
        .copied()
        .filter(|c| mentioned.contains(c))
        .collect();
    let others: Vec<Color> = palette
        .iter()
        .copied()
        .filter(|c| !mentioned.contains(c))
        .collect();
    let mut search = Search {
        rule,
        guess,
        options,
        mentioned,
        others,
        candidates: 0,
        realisations: 0,
        directions_matter: uses_direction(&rule.cond) || uses_direction(&guess.cond),
        scored: Vec::new(),
        found: None,
        error: None,
        realiser,
    };
    let max = options.max_pieces.max(options.max_arranged);
    for n in 1..=max {
        let arranged = n <= options.max_arranged;
        let mut plan = Vec::with_capacity(n);
        let _ = search.dfs(&mut plan, n, arranged);
        if let Some(e) = search.error.take() {
            return Err(e);
        }
        if let Some(found) = search.found.take() {
            return Ok(SearchResult::Found(Box::new(found)));
        }
    }
    if options.style == Style::TightLipped {
        let mut scored = std::mem::take(&mut search.scored);
        scored.sort_by_key(|(score, _)| *score);
        for (_, plan) in scored {
            if search.realisations >= options.max_realisations {
                break;
            }
            if let Some(found) = search.verify(&plan)? {
                return Ok(SearchResult::Found(Box::new(found)));
            }
        }
    }
    let bound = if options.max_pieces > options.max_arranged {
        format!(
            "no koan of up to {} pieces in any arrangement koanscope builds, nor of up to {} pieces each standing or lying on its own spot, tells them apart",
            options.max_arranged, options.max_pieces
        )
    } else {
        format!(
            "no koan of up to {} pieces in any arrangement koanscope builds tells them apart",
            options.max_arranged
        )
    };
    let colors: Vec<&str> = palette.iter().map(|c| c.word()).collect();
    Ok(SearchResult::NotFound {
        bound: format!("{bound} (colours: {})", colors.join(", ")),
        candidates: search.candidates,
    })
}

struct Search<'a, R: Realiser> {
    rule: &'a Rule,
    guess: &'a Rule,
    options: &'a SearchOptions,
    mentioned: Vec<Color>,
    others: Vec<Color>,
    candidates: usize,
    realisations: usize,
    /// Either rule compares directions of pieces.
    directions_matter: bool,
    /// Tight-lipped: candidates with their distance from the table (smaller is closer).
    scored: Vec<(i64, Plan)>,
    found: Option<CounterExample>,
    error: Option<CounterError>,
    realiser: &'a R,
}

/// Ordering of free placements, so that pieces on their own spots come in one order only
/// (colours are ordered separately, among pieces of equal key).
fn free_key(p: &PlanPiece) -> Option<(u8, Size)> {
    let rank = match p.placement {
        Placement::Upright => 0,
        Placement::Flat { toward_front: true } => 1,
        Placement::Flat {
            toward_front: false,
        } => 2,
        Placement::UpsideDown => 3,
        _ => return None,
    };
    Some((rank, p.size))
}

fn color_index(c: Color) -> usize {
    Color::ALL.iter().position(|x| *x == c).unwrap_or(0)
}

impl<R: Realiser> Search<'_, R> {
    fn placements(&self, plan: &[PlanPiece], arranged: bool) -> Vec<Placement> {
        let mut out = vec![Placement::Upright, Placement::Flat { toward_front: true }];
        if !arranged {
            return out;
        }
        // Lying the other way only changes directions; rules that never compare them cannot
        // tell the two apart.
        if self.directions_matter {
            out.push(Placement::Flat {
                toward_front: false,
            });
        }
        let j = plan.len();
        let standing = |p: &PlanPiece| {
            matches!(
                p.placement,
                Placement::Upright | Placement::Touching(_) | Placement::OnTipOf(_)
            )
        };
        if let Some(prev) = plan.last()
            && matches!(prev.placement, Placement::Upright | Placement::Touching(_))
        {
            out.push(Placement::Touching(j - 1));
        }
        for (i, p) in plan.iter().enumerate() {
            let covered = plan.iter().any(|q| q.placement == Placement::Over(i));
            let across = |k: usize| plan.iter().any(|q| q.placement == Placement::Across(k));
            let topped = plan.iter().any(|q| q.placement == Placement::OnTipOf(i))
                || across(i)
                || (i > 0 && across(i - 1));
            // Two touching upright pieces of one size, nothing on either: a bed to lie across.
            if let Some(next) = plan.get(i + 1)
                && next.placement == Placement::Touching(i)
                && matches!(p.placement, Placement::Upright | Placement::Touching(_))
                && next.size == p.size
                && !topped
                && !across(i + 1)
                && !plan.iter().any(|q| {
                    matches!(q.placement, Placement::OnTipOf(k) | Placement::Over(k) if k == i || k == i + 1)
                })
            {
                out.push(Placement::Across(i));
            }
            let pointed = plan.iter().any(|q| q.placement == Placement::PointingAt(i));
            if matches!(p.placement, Placement::Upright | Placement::Touching(_)) && !pointed {
                out.push(Placement::PointingAt(i));
            }
            if standing(p) && !topped && !covered {
                out.push(Placement::OnTipOf(i));
            }
            let touched = plan.iter().any(|q| q.placement == Placement::Touching(i))
                || matches!(plan.get(i + 1), Some(q) if q.placement == Placement::Touching(i));
            if matches!(p.placement, Placement::Upright | Placement::Over(_))
                && !covered
                && !topped
                && !touched
            {
                out.push(Placement::Over(i));
            }
        }
        out.push(Placement::UpsideDown);
        out
    }

    fn colors(&self, plan: &[PlanPiece]) -> Vec<Color> {
        let mut out = self.mentioned.clone();
        // Colours no rule names are interchangeable: use them in one order only.
        for c in &self.others {
            let used = plan.iter().any(|p| p.color == *c);
            out.push(*c);
            if !used {
                break;
            }
        }
        out
    }

    fn size_fits(plan: &[PlanPiece], placement: Placement, size: Size) -> bool {
        match placement {
            Placement::OnTipOf(i) => Plan::tip_rest(plan[i].size, size).is_some(),
            Placement::Over(i) => size > plan[i].size,
            Placement::Across(i) => Plan::across_rest(plan[i].size, size).is_some(),
            _ => true,
        }
    }

    /// Shapes first (placements and sizes); each shape's facts are predicted once, then every
    /// colouring only repaints them.
    fn dfs(&mut self, plan: &mut Vec<PlanPiece>, n: usize, arranged: bool) -> ControlFlow<()> {
        if plan.len() == n {
            return self.colour_shape(plan);
        }
        for placement in self.placements(plan, arranged) {
            for size in [Size::Small, Size::Medium, Size::Large] {
                if !Self::size_fits(plan, placement, size) {
                    continue;
                }
                let piece = PlanPiece {
                    color: Color::Red,
                    size,
                    placement,
                };
                if let (Some(prev), Some(key)) = (plan.last(), free_key(&piece))
                    && let Some(prev_key) = free_key(prev)
                    && key < prev_key
                {
                    continue;
                }
                plan.push(piece);
                let flow = self.dfs(plan, n, arranged);
                plan.pop();
                flow?;
            }
        }
        ControlFlow::Continue(())
    }

    fn colour_shape(&mut self, plan: &mut [PlanPiece]) -> ControlFlow<()> {
        let shape = Plan {
            pieces: plan.to_vec(),
        };
        let Ok(mut summary) = shape.predict().summary() else {
            return ControlFlow::Continue(());
        };
        self.colour_dfs(plan, 0, &mut summary)
    }

    fn colour_dfs(
        &mut self,
        plan: &mut [PlanPiece],
        j: usize,
        summary: &mut KoanSummary,
    ) -> ControlFlow<()> {
        if j == plan.len() {
            let colours: Vec<Color> = plan.iter().map(|p| p.color).collect();
            summary.recolor(&colours);
            return self.visit(plan, summary);
        }
        for color in self.colors(&plan[..j]) {
            // Free pieces of the same placement and size are interchangeable: colours in order.
            if j > 0
                && free_key(&plan[j]).is_some()
                && free_key(&plan[j]) == free_key(&plan[j - 1])
                && color_index(color) < color_index(plan[j - 1].color)
            {
                continue;
            }
            if let Some(stash) = &self.options.stash {
                let size = plan[j].size;
                let used = plan[..j]
                    .iter()
                    .filter(|p| p.color == color && p.size == size)
                    .count() as u32;
                if used >= stash.left(color, size) {
                    continue;
                }
            }
            plan[j].color = color;
            self.colour_dfs(plan, j + 1, summary)?;
        }
        ControlFlow::Continue(())
    }

    fn visit(&mut self, plan: &[PlanPiece], summary: &KoanSummary) -> ControlFlow<()> {
        self.candidates += 1;
        if summary.white(self.rule) == summary.white(self.guess) {
            return ControlFlow::Continue(());
        }
        let plan = Plan {
            pieces: plan.to_vec(),
        };
        match self.options.style {
            Style::Helpful => {
                if self.realisations >= self.options.max_realisations {
                    return ControlFlow::Break(());
                }
                match self.verify(&plan) {
                    Ok(Some(found)) => {
                        self.found = Some(found);
                        ControlFlow::Break(())
                    }
                    Ok(None) => ControlFlow::Continue(()),
                    Err(e) => {
                        self.error = Some(e);
                        ControlFlow::Break(())
                    }
                }
            }
            Style::TightLipped => {
                let score = self.tight_score(summary, &plan);
                if self.scored.len() < 50_000 {
                    self.scored.push((score, plan));
                }
                ControlFlow::Continue(())
            }
        }
    }

    /// Smaller is better: close to a koan on the table, or else big and busy.
    fn tight_score(&self, summary: &KoanSummary, plan: &Plan) -> i64 {
        let f = summary.features();
        if self.options.table.is_empty() {
            // Many pieces, many relations, a mix of colours, sizes and orientations.
            let relations: i64 = f[f.len() - 4..].iter().map(|x| i64::from(*x)).sum();
            let variety = f[1..17].iter().filter(|x| **x > 0).count() as i64;
            return -(plan.pieces.len() as i64 * 100 + relations * 10 + variety);
        }
        self.options
            .table
            .iter()
            .map(|t| {
                t.features()
                    .iter()
                    .zip(&f)
                    .map(|(a, b)| (i64::from(*a) - i64::from(*b)).abs())
                    .sum::<i64>()
            })
            .min()
            .unwrap_or(0)
    }

    /// Builds the plan for real; the realised koan must still tell the rules apart.
    fn verify(&mut self, plan: &Plan) -> Result<Option<CounterExample>, CounterError> {
        self.realisations += 1;
        let Some(mut scene) = self
            .realiser
            .realise(plan)
            .map_err(|e| CounterError::Realise(Box::new(e)))?
        else {
            return Ok(None);
        };
        if scene.koans.len() != 1 || scene.koans[0].pieces.len() != plan.pieces.len() {
            return Ok(None);
        }
        let summary = KoanSummary::from_scene(&scene, &scene.koans[0])?;
        let (rule_mark, rule_reason) = summary.explain(self.rule);
        let (guess_mark, guess_reason) = summary.explain(self.guess);
        if rule_mark == guess_mark {
            return Ok(None);
        }
        scene.koans[0].mark = Some(rule_mark);
        Ok(Some(CounterExample {
            plan: plan.clone(),
            scene,
            rule_mark,
            guess_mark,
            rule_reason,
            guess_reason,
        }))
    }
}

fn colors_in_filter(f: &Filter, out: &mut Vec<Color>) {
    match f {
        Filter::Color(c) => out.push(*c),
        Filter::Rel(_, inner) | Filter::Not(inner) => colors_in_filter(inner, out),
        Filter::PointsThrough(a, b) => {
            colors_in_filter(a, out);
            colors_in_filter(b, out);
        }
        Filter::And(v) | Filter::Or(v) => v.iter().for_each(|f| colors_in_filter(f, out)),
        _ => {}
    }
}

/// Colours a condition names (the four Zendo colours for "each of the four colors").
fn colors_in_cond(c: &Cond, out: &mut Vec<Color>) {
    match c {
        Cond::And(v) | Cond::Or(v) => v.iter().for_each(|c| colors_in_cond(c, out)),
        Cond::Not(c) => colors_in_cond(c, out),
        Cond::Xor(a, b) | Cond::Iff(a, b) => {
            colors_in_cond(a, out);
            colors_in_cond(b, out);
        }
        Cond::Count { filter, .. }
        | Cond::Pips { filter, .. }
        | Cond::Kinds { filter, .. }
        | Cond::Group { filter, .. } => colors_in_filter(filter, out),
        Cond::Each { each, filter, .. } => {
            if *each == EachOf::FourColors {
                out.extend_from_slice(Color::ZENDO);
            }
            colors_in_filter(filter, out);
        }
        Cond::Compare { left, right, .. } => {
            colors_in_filter(left, out);
            colors_in_filter(right, out);
        }
        Cond::Majority { domain, pred }
        | Cond::All { domain, pred }
        | Cond::Unique { domain, pred } => {
            colors_in_filter(domain, out);
            colors_in_filter(pred, out);
        }
        Cond::AllSame { domain, .. } => colors_in_filter(domain, out),
        Cond::Plurality(AttrValue::Color(c)) => out.push(*c),
        Cond::Plurality(_) | Cond::Towers { .. } | Cond::Nests { .. } => {}
    }
}

fn filter_uses_direction(f: &Filter) -> bool {
    match f {
        Filter::Rel(r, inner) => {
            matches!(
                r,
                Relation::SameDirection
                    | Relation::OppositeDirection
                    | Relation::DifferentDirection
            ) || filter_uses_direction(inner)
        }
        Filter::Not(inner) => filter_uses_direction(inner),
        Filter::PointsThrough(a, b) => filter_uses_direction(a) || filter_uses_direction(b),
        Filter::And(v) | Filter::Or(v) => v.iter().any(filter_uses_direction),
        _ => false,
    }
}

/// Does the condition compare the directions pieces point in?
fn uses_direction(c: &Cond) -> bool {
    match c {
        Cond::And(v) | Cond::Or(v) => v.iter().any(uses_direction),
        Cond::Not(c) => uses_direction(c),
        Cond::Xor(a, b) | Cond::Iff(a, b) => uses_direction(a) || uses_direction(b),
        Cond::Kinds { key, filter, .. } | Cond::Group { key, filter, .. } => {
            *key == Key::Direction || filter_uses_direction(filter)
        }
        Cond::AllSame { key, domain } => *key == Key::Direction || filter_uses_direction(domain),
        Cond::Count { filter, .. } | Cond::Pips { filter, .. } | Cond::Each { filter, .. } => {
            filter_uses_direction(filter)
        }
        Cond::Compare { left, right, .. } => {
            filter_uses_direction(left) || filter_uses_direction(right)
        }
        Cond::Majority { domain, pred }
        | Cond::All { domain, pred }
        | Cond::Unique { domain, pred } => {
            filter_uses_direction(domain) || filter_uses_direction(pred)
        }
        Cond::Plurality(_) | Cond::Towers { .. } | Cond::Nests { .. } => false,
    }
}
