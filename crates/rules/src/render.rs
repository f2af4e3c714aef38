//! The canonical plain-English form of a rule: what the Master is shown as "understood", and a
//! text that parses back to the very same tree.

use crate::ast::{
    AttrValue, CmpOp, Cond, EachOf, Filter, Key, Measure, Polarity, Quant, Relation, Rule,
};

/// "A koan has the Buddha-nature if and only if ...".
pub fn rule(r: &Rule) -> String {
    let head = match r.polarity {
        Polarity::Has => "A koan has the Buddha-nature if and only if",
        Polarity::HasNot => "A koan does not have the Buddha-nature if and only if",
    };
    format!("{head} {}.", cond(&r.cond))
}

/// The condition alone ("it contains at least one red piece").
pub fn cond(c: &Cond) -> String {
    cond_at(c, Level::Top)
}

#[derive(Clone, Copy, PartialEq)]
enum Level {
    Top,
    AndItem,
    OrItem,
    Unary,
}

fn cond_at(c: &Cond, level: Level) -> String {
    match c {
        Cond::And(items) => {
            let s = join_items(items, " and ");
            if level == Level::Unary {
                format!("({s})")
            } else {
                s
            }
        }
        Cond::Or(items) => {
            let s = join_items(items, " or ");
            if matches!(level, Level::AndItem | Level::Unary) {
                format!("({s})")
            } else {
                s
            }
        }
        Cond::Not(x) => match contains_item(x) {
            Some(item) => format!("it does not contain {item}"),
            None => format!("it is not true that {}", cond_at(x, Level::Unary)),
        },
        Cond::Xor(a, b) => format!(
            "either {} or {} but not both",
            cond_at(a, Level::AndItem),
            cond_at(b, Level::AndItem)
        ),
        Cond::Iff(a, b)
            if contains_item(a).is_some()
                && contains_item(b).is_some()
                && !matches!(**a, Cond::Unique { .. })
                && !matches!(**b, Cond::Unique { .. }) =>
        {
            format!(
                "it contains both {} and {} or neither of these",
                contains_item(a).unwrap_or_default(),
                contains_item(b).unwrap_or_default()
            )
        }
        Cond::Iff(a, b) => format!(
            "both {} and {} or neither",
            cond_at(a, Level::Unary),
            cond_at(b, Level::Unary)
        ),
        other => match contains_item(other) {
            Some(item) => format!("it contains {item}"),
            None => explicit_clause(other),
        },
    }
}

/// Items joined by a connective; a "contains" item right after another one drops the repeated
/// "it contains" ("it contains exactly two pieces and no yellow pieces").
fn join_items(items: &[Cond], sep: &str) -> String {
    let level = if sep == " and " {
        Level::AndItem
    } else {
        Level::OrItem
    };
    let mut out = String::new();
    let mut previous_was_contains = false;
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        let as_item = contains_item(item);
        match (&as_item, previous_was_contains) {
            (Some(text), true) => out.push_str(text),
            _ => out.push_str(&cond_at(item, level)),
        }
        previous_was_contains = as_item.is_some() && !matches!(item, Cond::Unique { .. });
    }
    out
}

/// The words after "it contains", for conditions said that way.
fn contains_item(c: &Cond) -> Option<String> {
    Some(match c {
        // "only X" is "no piece that is not X" (a koan always has a piece).
        Cond::Count {
            filter: Filter::Not(inner),
            quant: Quant::Exactly(0),
        } => format!("only {}", np(inner, true)),
        Cond::Count { filter, quant } => quant_np(*quant, filter),
        Cond::Kinds { key, filter, quant } => {
            let noun = kinds_noun(
                *key,
                !matches!(
                    quant,
                    Quant::Exactly(1) | Quant::AtLeast(1) | Quant::AtMost(1)
                ),
            );
            if *filter == Filter::Any {
                format!("{} {noun}", quant_words(*quant))
            } else {
                format!("{} of {} {noun}", np(filter, true), quant_words(*quant))
            }
        }
        Cond::Group { key, filter, quant } => {
            let suffix = match key {
                Key::Direction => "pointing in the same direction".to_string(),
                k => format!("of the same {}", kinds_noun(*k, false)),
            };
            format!("{} {suffix}", quant_np(*quant, filter))
        }
        Cond::Each {
            each,
            filter,
            quant,
        } => {
            let suffix = match each {
                EachOf::FourColors => "of each of the four colors",
                EachOf::Sizes => "of each size",
            };
            format!("{} {suffix}", quant_np(*quant, filter))
        }
        Cond::Compare {
            measure: Measure::Count,
            op,
            left,
            right,
        } => match op {
            CmpOp::More => format!("more {} than {}", np(left, true), np(right, true)),
            CmpOp::Fewer => format!("fewer {} than {}", np(left, true), np(right, true)),
            CmpOp::AsMany => format!("as many {} as {}", np(left, true), np(right, true)),
        },
        Cond::Majority {
            domain: Filter::Any,
            pred,
        } => format!("a majority of {}", np(pred, true)),
        Cond::Plurality(v) => {
            let f = match v {
                AttrValue::Color(c) => Filter::Color(*c),
                AttrValue::Size(s) => Filter::Size(*s),
                AttrValue::Orientation(o) => Filter::Orientation(*o),
            };
            format!("a plurality of {}", np(&f, true))
        }
        Cond::Unique { domain, pred } => {
            let one = np_with(domain, false, superlative(domain).is_some());
            format!("exactly one {one} and it is {}", pred_text(pred))
        }
        Cond::Towers {
            size,
            quant,
            stacks,
        } => {
            let noun = if *stacks { "stack" } else { "tower" };
            format!(
                "{} of {}",
                quant_noun(*quant, noun),
                quant_noun(*size, "piece")
            )
        }
        Cond::Nests { size, quant } => {
            format!(
                "{} of {}",
                quant_noun(*quant, "nest"),
                quant_noun(*size, "piece")
            )
        }
        _ => return None,
    })
}

fn explicit_clause(c: &Cond) -> String {
    match c {
        Cond::Pips { filter, quant } => {
            let q = match quant {
                Quant::Odd => "odd".to_string(),
                Quant::Even => "even".to_string(),
                Quant::Exactly(n) => format!("exactly {}", number(*n)),
                q => quant_words(*q),
            };
            if *filter == Filter::Any {
                format!("its pip count is {q}")
            } else {
                format!("the pip count of its {} is {q}", np(filter, true))
            }
        }
        Cond::Compare {
            measure: Measure::Pips,
            op,
            left,
            right,
        } => {
            let (l, r) = (np(left, true), np(right, true));
            match op {
                CmpOp::More => format!("its {l} have more pips than its {r}"),
                CmpOp::Fewer => format!("its {l} have fewer pips than its {r}"),
                CmpOp::AsMany => format!("its {l} have as many pips as its {r}"),
            }
        }
        Cond::Majority { domain, pred } => format!(
            "a majority of its {} are {}",
            domain_np(domain),
            pred_text(pred)
        ),
        Cond::All { domain, pred } => {
            format!("all of its {} are {}", domain_np(domain), pred_text(pred))
        }
        Cond::AllSame { domain, key } => format!(
            "all of its {} are the same {}",
            domain_np(domain),
            kinds_noun(*key, false)
        ),
        // Everything else is said with "it contains" (see `contains_item`).
        other => format!("it contains {}", contains_item(other).unwrap_or_default()),
    }
}

fn kinds_noun(key: Key, plural: bool) -> &'static str {
    match (key, plural) {
        (Key::Color, false) => "color",
        (Key::Color, true) => "colors",
        (Key::Size, false) => "size",
        (Key::Size, true) => "sizes",
        (Key::ColorAndSize, false) => "color and size",
        (Key::ColorAndSize, true) => "colors and sizes",
        (Key::Orientation, false) => "orientation",
        (Key::Orientation, true) => "orientations",
        (Key::Direction, _) => "direction",
    }
}

fn number(n: u32) -> String {
    const WORDS: &[&str] = &[
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve",
    ];
    WORDS
        .get(n as usize)
        .map(|w| w.to_string())
        .unwrap_or_else(|| n.to_string())
}

/// "exactly two", "at least one", "an odd number of"...
pub fn quant_words(q: Quant) -> String {
    match q {
        Quant::Exactly(0) => "no".into(),
        Quant::Exactly(n) => format!("exactly {}", number(n)),
        Quant::AtLeast(n) => format!("at least {}", number(n)),
        Quant::AtMost(n) => format!("at most {}", number(n)),
        Quant::Odd => "an odd number of".into(),
        Quant::Even => "an even number of".into(),
        Quant::Indefinite(n) => number(n),
    }
}

fn singular(q: Quant) -> bool {
    matches!(
        q,
        Quant::Exactly(1) | Quant::AtLeast(1) | Quant::AtMost(1) | Quant::Indefinite(1)
    )
}

fn quant_np(q: Quant, f: &Filter) -> String {
    format!("{} {}", quant_words(q), np(f, !singular(q)))
}

fn quant_noun(q: Quant, noun: &str) -> String {
    let s = if singular(q) { "" } else { "s" };
    format!("{} {noun}{s}", quant_words(q))
}

/// The noun phrase "upright red pieces touching another piece".
pub fn plural_np(f: &Filter) -> String {
    np(f, true)
}

/// The noun phrase for one piece or for several.
pub fn np(f: &Filter, plural: bool) -> String {
    np_with(f, plural, false)
}

/// A domain that is one superlative reads best as an adjective ("all of its largest pieces");
/// elsewhere "largest red piece" could mean the largest of the red ones, so a superlative is said
/// as "among the largest pieces".
pub(crate) fn domain_np(f: &Filter) -> String {
    np_with(f, true, superlative(f).is_some())
}

fn superlative(f: &Filter) -> Option<&'static str> {
    Some(match f {
        Filter::Largest => "largest",
        Filter::Smallest => "smallest",
        Filter::Highest => "highest",
        Filter::Lowest => "lowest",
        _ => return None,
    })
}

fn np_with(f: &Filter, plural: bool, superlative_adjective: bool) -> String {
    let parts: Vec<&Filter> = match f {
        Filter::And(v) => v.iter().collect(),
        Filter::Any => Vec::new(),
        other => vec![other],
    };
    let mut adjectives: Vec<(u8, String)> = Vec::new();
    let mut modifiers = Vec::new();
    let mut others = Vec::new();
    for p in parts {
        if !superlative_adjective && let Some(word) = superlative(p) {
            modifiers.push(format!("among the {word} pieces"));
        } else if let Some(a) = adjective(p) {
            adjectives.push(a);
        } else if let Some(m) = modifier(p) {
            modifiers.push(m);
        } else {
            others.push(p.clone());
        }
    }
    adjectives.sort_by_key(|(rank, _)| *rank);
    let mut s: Vec<String> = adjectives.into_iter().map(|(_, w)| w).collect();
    s.push(if plural { "pieces" } else { "piece" }.into());
    let mut text = s.join(" ");
    if !modifiers.is_empty() {
        text.push(' ');
        text.push_str(&modifiers.join(" and "));
    }
    if !others.is_empty() {
        let rest = pred_text(&Filter::and(others));
        if !modifiers.is_empty() {
            text.push_str(" and");
        }
        text.push_str(&format!(
            " that {} ({rest})",
            if plural { "are" } else { "is" }
        ));
    }
    text
}

/// A single-word adjective and where it goes in front of the noun.
fn adjective_word(f: &Filter) -> Option<(u8, String)> {
    Some(match f {
        Filter::Largest => (0, "largest".into()),
        Filter::Smallest => (0, "smallest".into()),
        Filter::Highest => (0, "highest".into()),
        Filter::Lowest => (0, "lowest".into()),
        Filter::Grounded(true) => (1, "grounded".into()),
        Filter::Grounded(false) => (1, "ungrounded".into()),
        Filter::Stacked => (2, "stacked".into()),
        Filter::Rel(Relation::NestedIn, inner) if **inner == Filter::Any => (2, "nested".into()),
        Filter::Rel(Relation::InsertedInto, inner) if **inner == Filter::Any => {
            (2, "inserted".into())
        }
        Filter::Size(s) => (3, s.word().into()),
        Filter::Orientation(o) => (4, o.word().into()),
        Filter::UpsideDown => (4, "upside-down".into()),
        Filter::Color(c) => (6, c.word().into()),
        _ => return None,
    })
}

/// An adjective, "non-X", or "X or Y" alternatives.
fn adjective(f: &Filter) -> Option<(u8, String)> {
    if let Some(a) = adjective_word(f) {
        return Some(a);
    }
    match f {
        Filter::Not(inner) => {
            let (_, w) = adjective_word(inner)?;
            if w == "ungrounded" {
                return None;
            }
            Some((5, format!("non-{w}")))
        }
        Filter::Or(alternatives) => {
            let words: Option<Vec<String>> = alternatives
                .iter()
                .map(|a| adjective_word(a).map(|(_, w)| w))
                .collect();
            let words = words?;
            let n = words.len();
            let text = if n == 2 {
                format!("{} or {}", words[0], words[1])
            } else {
                format!("{}, or {}", words[..n - 1].join(", "), words[n - 1])
            };
            Some((7, text))
        }
        _ => None,
    }
}

/// The object of a relation: "another piece", "a blue piece", "a piece that is (...)".
fn object(f: &Filter) -> String {
    if *f == Filter::Any {
        return "another piece".into();
    }
    // Superlatives are said as "among the largest pieces", which would attach to the outer noun.
    let plain = |p: &Filter| adjective(p).is_some() && superlative(p).is_none();
    let simple = match f {
        Filter::And(v) => v.iter().all(plain),
        other => plain(other),
    };
    let phrase = if simple {
        np(f, false)
    } else {
        format!("piece that is ({})", pred_text(f))
    };
    let article = if phrase.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {phrase}")
}

/// A participle phrase after a noun: "touching a blue piece", "not pointing at another piece".
fn modifier(f: &Filter) -> Option<String> {
    match f {
        Filter::Not(inner) => {
            let m = relation_phrase(inner)?;
            Some(format!("not {m}"))
        }
        other => relation_phrase(other),
    }
}

fn relation_phrase(f: &Filter) -> Option<String> {
    Some(match f {
        Filter::Rel(r, inner) => {
            if matches!(r, Relation::NestedIn | Relation::InsertedInto) && **inner == Filter::Any {
                return None;
            }
            let o = object(inner);
            match r {
                Relation::Touching => format!("touching {o}"),
                Relation::PointingAt => format!("pointing at {o}"),
                Relation::PointingFirstAt => format!("pointing first at {o}"),
                Relation::PointedAtBy => format!("pointed at by {o}"),
                Relation::InsertedInto => format!("inserted into {o}"),
                Relation::FullyInsertedInto => format!("fully inserted into {o}"),
                Relation::Receiving => format!("with {o} inserted into it"),
                Relation::NestedIn => format!("nested in {o}"),
                Relation::Holding => format!("holding {o}"),
                Relation::On => format!("on top of {o}"),
                Relation::Under => format!("under {o}"),
                Relation::Higher => format!("higher than {o}"),
                Relation::Lower => format!("lower than {o}"),
                Relation::Larger => format!("larger than {o}"),
                Relation::Smaller => format!("smaller than {o}"),
                Relation::SameColor => format!("the same color as {o}"),
                Relation::SameSize => format!("the same size as {o}"),
                Relation::SameDirection => format!("pointing in the same direction as {o}"),
                Relation::OppositeDirection => {
                    format!("pointing in the opposite direction to {o}")
                }
                Relation::DifferentDirection => {
                    format!("pointing in a different direction from {o}")
                }
            }
        }
        Filter::PointsThrough(via, target) => {
            format!("pointing through {} at {}", object(via), object(target))
        }
        Filter::InTower => "in a tower".into(),
        Filter::TopOfTower => "at the top of a tower".into(),
        Filter::BottomOfTower => "at the bottom of a tower".into(),
        _ => return None,
    })
}

/// A predicate after "is"/"are": "upright", "red or blue", "not touching another piece".
pub fn pred_text(f: &Filter) -> String {
    match f {
        Filter::Or(v) => v.iter().map(pred_and).collect::<Vec<_>>().join(" or "),
        other => pred_and(other),
    }
}

fn pred_and(f: &Filter) -> String {
    match f {
        Filter::And(v) => v.iter().map(pred_unary).collect::<Vec<_>>().join(" and "),
        Filter::Or(_) => format!("({})", pred_text(f)),
        other => pred_unary(other),
    }
}

fn pred_unary(f: &Filter) -> String {
    match f {
        Filter::And(_) | Filter::Or(_) => format!("({})", pred_text(f)),
        Filter::Not(inner) => format!("not {}", pred_unary(inner)),
        Filter::Any => "a piece".into(),
        other => adjective_word(other)
            .map(|(_, w)| w)
            .or_else(|| relation_phrase(other))
            .unwrap_or_else(|| format!("({})", np(other, false))),
    }
}
