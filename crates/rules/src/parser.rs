//! Controlled English to [`Rule`]: a recursive-descent parser over the words of `lexer`.
//!
//! Precedence, loosest first: "or", "and", then one clause. A list under one "contains"
//! ("it contains exactly two pieces and no yellow pieces") follows the same precedence as whole
//! clauses, so the canonical rendering can leave the repeated "it contains" out.

use koanscope_scene::{Color, Orientation, Size};

use crate::ast::{
    AttrValue, CmpOp, Cond, EachOf, Filter, Key, Measure, Polarity, Quant, Relation, Rule,
};
use crate::error::{MuSite, ParseError};
use crate::lexer::{Token, lex};
use crate::render;

/// What the parser made of a text.
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed {
    /// One rule, unambiguous.
    Rule(Rule),
    /// The text is indefinite ("contains two upright pieces"): pick one of the readings.
    NeedsChoice {
        question: String,
        readings: Vec<Rule>,
    },
}

impl Parsed {
    /// The rule, when the text needed no choice.
    pub fn rule(self) -> Option<Rule> {
        match self {
            Parsed::Rule(r) => Some(r),
            Parsed::NeedsChoice { .. } => None,
        }
    }
}

/// Reads a rule (or a guess) written in the controlled English of the seeds.
///
/// ```
/// use koanscope_rules::{parse, Parsed};
/// let parsed = parse("A koan has the Buddha-nature if it contains at least one red piece.").unwrap();
/// assert!(matches!(parsed, Parsed::Rule(_)));
/// ```
pub fn parse(text: &str) -> Result<Parsed, ParseError> {
    let tokens = lex(text);
    if tokens.is_empty() {
        return Err(ParseError::Empty);
    }
    let mut first = Parser::new(&tokens, 0);
    let rule = first.rule()?;
    if let Some(site) = first.mu_site.take() {
        // Parse again once per explicit reading so each reading is a whole rule.
        let mut readings = Vec::new();
        for choice in 0..site.readings {
            let mut p = Parser::new(&tokens, choice);
            readings.push(p.rule()?);
        }
        return Err(ParseError::Mu {
            column: site.column,
            phrase: site.phrase,
            presumes: site.presumes,
            readings,
        });
    }
    let open = first.indefinite.clone();
    if open.is_empty() {
        return Ok(Parsed::Rule(rule));
    }
    let mut count = 0usize;
    let mut probe = rule.clone();
    probe.cond.visit_quants(&mut |q| {
        if matches!(q, Quant::Indefinite(_)) {
            count += 1;
        }
    });
    // Each open number reads as "exactly" or "at least"; more than four at once is refused.
    if count > 4 {
        return Err(ParseError::TooManyChoices {
            column: open[0].0,
            count,
        });
    }
    let mut readings = Vec::new();
    for combo in 0..(1u32 << count) {
        let mut r = rule.clone();
        let mut i = 0;
        r.cond.visit_quants(&mut |q| {
            if let Quant::Indefinite(n) = *q {
                *q = if combo >> i & 1 == 0 {
                    Quant::Exactly(n)
                } else {
                    Quant::AtLeast(n)
                };
                i += 1;
            }
        });
        readings.push(r);
    }
    let phrases: Vec<String> = open
        .iter()
        .map(|(col, word)| format!("\"{word}\" (column {col})"))
        .collect();
    let question = if phrases.len() == 1 {
        let word = &open[0].1;
        format!(
            "Does {} mean exactly {word} or at least {word}?",
            phrases[0]
        )
    } else {
        format!(
            "Each of {} may mean exactly that number or at least that number: which reading is meant?",
            phrases.join(", ")
        )
    };
    Ok(Parsed::NeedsChoice { question, readings })
}

/// Parses a text that must be one unambiguous rule (a rendering, a library entry).
pub fn parse_rule(text: &str) -> Result<Rule, ParseError> {
    match parse(text)? {
        Parsed::Rule(r) => Ok(r),
        Parsed::NeedsChoice { question, readings } => Err(ParseError::Indefinite {
            question,
            readings: readings.iter().map(render::rule).collect(),
        }),
    }
}

type R<T> = Result<T, ParseError>;

const COLORS: &[(&str, Color)] = &[
    ("red", Color::Red),
    ("yellow", Color::Yellow),
    ("green", Color::Green),
    ("blue", Color::Blue),
    ("black", Color::Black),
    ("orange", Color::Orange),
    ("cyan", Color::Cyan),
    ("purple", Color::Purple),
    ("white", Color::White),
    ("clear", Color::Clear),
];

const SIZES: &[(&str, Size)] = &[
    ("small", Size::Small),
    ("medium", Size::Medium),
    ("large", Size::Large),
];

const NUMBERS: &[&str] = &[
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve",
];

/// Words that can only end a rule or a phrase.
const ENDS: &[&str] = &["", ".", "…", "!", ";", ")", "otherwise"];

struct Parser<'a> {
    tokens: &'a [Token],
    pos: usize,
    /// A "contains" is in force: a bare noun phrase continues its list.
    contains: bool,
    /// Which explicit reading to take at a "mu" phrase.
    mu_choice: usize,
    mu_site: Option<MuSite>,
    /// Bare numbers met, (column, word), in reading order.
    indefinite: Vec<(usize, String)>,
    /// Nesting depth, bounded so that no text can exhaust the stack.
    depth: usize,
}

/// Deeper nesting than any rule a person says.
const MAX_DEPTH: usize = 40;

impl<'a> Parser<'a> {
    fn new(tokens: &'a [Token], mu_choice: usize) -> Parser<'a> {
        Parser {
            tokens,
            pos: 0,
            contains: false,
            mu_choice,
            mu_site: None,
            indefinite: Vec::new(),
            depth: 0,
        }
    }

    fn enter(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.invalid("the rule nests too deeply"));
        }
        Ok(())
    }

    // ---- token helpers ----

    fn word(&self, k: usize) -> &str {
        self.tokens
            .get(self.pos + k)
            .map(|t| t.word.as_str())
            .unwrap_or("")
    }

    fn at(&self, w: &str) -> bool {
        self.word(0) == w
    }

    fn at_any(&self, ws: &[&str]) -> bool {
        ws.contains(&self.word(0))
    }

    fn at_seq(&self, seq: &[&str]) -> bool {
        seq.iter().enumerate().all(|(k, w)| self.word(k) == *w)
    }

    fn eat(&mut self, w: &str) -> bool {
        if self.at(w) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn eat_any(&mut self, ws: &[&str]) -> bool {
        if self.at_any(ws) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn eat_seq(&mut self, seq: &[&str]) -> bool {
        if self.at_seq(seq) {
            self.pos += seq.len();
            true
        } else {
            false
        }
    }

    fn column(&self) -> usize {
        match self.tokens.get(self.pos) {
            Some(t) => t.column,
            None => self
                .tokens
                .last()
                .map(|t| t.column + t.text.chars().count())
                .unwrap_or(1),
        }
    }

    fn fail(&self, expected: &[&str]) -> ParseError {
        let expected: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
        match self.tokens.get(self.pos) {
            Some(t) => ParseError::not_understood(t.column, &t.text, expected),
            None => ParseError::Unfinished {
                column: self.column(),
                expected,
            },
        }
    }

    fn expect(&mut self, w: &str) -> R<()> {
        if self.eat(w) {
            Ok(())
        } else {
            Err(self.fail(&[w]))
        }
    }

    fn expect_any(&mut self, ws: &[&str]) -> R<()> {
        if self.eat_any(ws) {
            Ok(())
        } else {
            Err(self.fail(ws))
        }
    }

    fn invalid(&self, message: impl Into<String>) -> ParseError {
        ParseError::Invalid {
            column: self.column(),
            message: message.into(),
        }
    }

    /// A "mu" phrase: remember it, and go on with the reading this pass was asked for.
    fn mu(
        &mut self,
        column: usize,
        start: usize,
        end: usize,
        presumes: &str,
        readings: Vec<Cond>,
    ) -> Cond {
        let phrase = self.tokens[start.min(end)..end]
            .iter()
            .map(|t| t.text.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        if self.mu_site.is_none() {
            self.mu_site = Some(MuSite {
                column,
                phrase,
                presumes: presumes.to_string(),
                readings: readings.len(),
            });
        }
        let k = self.mu_choice.min(readings.len() - 1);
        readings[k].clone()
    }

    fn number_word(w: &str) -> Option<u32> {
        if let Some(n) = NUMBERS.iter().position(|x| *x == w) {
            return Some(n as u32);
        }
        if !w.is_empty() && w.len() <= 6 && w.bytes().all(|b| b.is_ascii_digit()) {
            return w.parse().ok();
        }
        None
    }

    fn number(&self, k: usize) -> Option<u32> {
        Self::number_word(self.word(k))
    }

    fn expect_number(&mut self) -> R<u32> {
        match self.number(0) {
            Some(n) => {
                self.pos += 1;
                Ok(n)
            }
            None => Err(self.fail(&["a number"])),
        }
    }

    // ---- rule ----

    fn rule(&mut self) -> R<Rule> {
        while self.eat_any(&["•", "-", "*"]) {}
        let (polarity, must) = self.prefix()?;
        let cond = if must {
            self.must_body()?
        } else {
            self.cond_or()?
        };
        self.suffix(polarity)?;
        while self.eat_any(&[".", "…", "!"]) {}
        if self.pos < self.tokens.len() {
            return Err(self.fail(&["and", "or", "the end of the rule"]));
        }
        Ok(Rule { polarity, cond })
    }

    /// "A koan has the Buddha-nature if (and only if)", "A koan does not have ...", "The structure
    /// must", or nothing (a bare condition, as in the booklet's list of beginner rules).
    fn prefix(&mut self) -> R<(Polarity, bool)> {
        let save = self.pos;
        self.eat_any(&["a", "the", "any"]);
        if self.eat_any(&["koan", "structure"]) {
            if self.eat("must") {
                return Ok((Polarity::Has, true));
            }
            let polarity = if self.eat_any(&["has", "possesses"]) {
                Polarity::Has
            } else if self.eat_seq(&["does", "not", "have"])
                || self.eat_seq(&["doesn't", "have"])
                || self.eat_seq(&["lacks"])
            {
                Polarity::HasNot
            } else if self.eat_any(&["follows"]) {
                self.expect("the")?;
                self.expect("rule")?;
                return self.if_words(Polarity::Has);
            } else {
                return Err(self.fail(&["has", "does not have", "must"]));
            };
            self.eat("the");
            if !(self.eat("buddha-nature") || self.eat_seq(&["buddha", "nature"])) {
                return Err(self.fail(&["the Buddha-nature"]));
            }
            return self.if_words(polarity);
        }
        self.pos = save;
        if self.eat("must") {
            return Ok((Polarity::Has, true));
        }
        Ok((Polarity::Has, false))
    }

    fn if_words(&mut self, polarity: Polarity) -> R<(Polarity, bool)> {
        if self.eat("iff") {
            self.eat("…");
            return Ok((polarity, false));
        }
        self.expect("if")?;
        if !self.eat_seq(&["(", "and", "only", "if", ")"]) {
            self.eat_seq(&["and", "only", "if"]);
        }
        self.eat_any(&["…", ":", ","]);
        Ok((polarity, false))
    }

    /// After "must": "contain X", "not contain X", "either contain both A and B or neither".
    fn must_body(&mut self) -> R<Cond> {
        if self.at("either") {
            // "must either contain both A and B or neither of these pieces".
            self.contains = true;
            return self.cond_or();
        }
        if self.eat_seq(&["not", "contain"]) || self.eat_seq(&["not", "have"]) {
            self.contains = true;
            let item = self.contains_item()?;
            self.contains = false;
            return Ok(Cond::not(item));
        }
        self.expect_any(&["contain", "have", "include"])?;
        self.contains = true;
        self.cond_or()
    }

    /// "; otherwise it does" after a negative rule (or "otherwise it does not" after a positive one).
    fn suffix(&mut self, polarity: Polarity) -> R<()> {
        let save = self.pos;
        self.eat_any(&[",", ";"]);
        if !self.eat("otherwise") {
            self.pos = save;
            return Ok(());
        }
        self.eat(",");
        let column = self.column();
        let says_has = if self.eat_seq(&["it", "does", "not"])
            || self.eat_seq(&["it", "doesn't"])
            || self.eat("not")
        {
            false
        } else if self.eat_seq(&["it", "does"]) {
            true
        } else {
            return Err(self.fail(&["it does", "it does not"]));
        };
        self.eat_seq(&["have", "the", "buddha-nature"]);
        if says_has == (polarity == Polarity::Has) {
            return Err(ParseError::Invalid {
                column,
                message: "the \"otherwise\" part gives the same mark as the rule itself".into(),
            });
        }
        Ok(())
    }

    // ---- conditions ----

    fn cond_or(&mut self) -> R<Cond> {
        let mut items = vec![self.cond_and()?];
        loop {
            let comma = usize::from(self.at(","));
            if self.word(comma) != "or" {
                break;
            }
            // "or both" closes an inclusive either; "or neither" closes a both-or-neither.
            let next = self.word(comma + 1);
            if next == "neither" || self.or_both_closes(comma) {
                break;
            }
            self.pos += comma + 1;
            self.eat("if");
            items.push(self.cond_and()?);
        }
        Ok(Cond::or(items))
    }

    fn cond_and(&mut self) -> R<Cond> {
        let mut items = vec![self.cond_unary()?];
        loop {
            let comma = usize::from(self.at(","));
            let w = self.word(comma);
            let joins = w == "and"
                || w == "but" && self.word(comma + 1) != "not"
                || (w == "with" && self.contains && comma == 0);
            if !joins {
                break;
            }
            self.pos += comma + 1;
            self.eat("if");
            items.push(self.cond_unary()?);
        }
        Ok(Cond::and(items))
    }

    fn cond_unary(&mut self) -> R<Cond> {
        self.enter()?;
        let c = self.cond_unary_inner();
        self.depth -= 1;
        c
    }

    fn cond_unary_inner(&mut self) -> R<Cond> {
        if self.eat_seq(&["it", "is", "not", "true", "that"])
            || self.eat_seq(&["it", "is", "not", "the", "case", "that"])
        {
            self.contains = false;
            let inner = self.cond_unary()?;
            self.contains = false;
            return Ok(Cond::not(inner));
        }
        if self.eat("(") {
            let inner = self.cond_or()?;
            self.expect(")")?;
            return Ok(inner);
        }
        if self.eat("either") {
            if self.eat_any(&["contain", "contains"]) {
                self.contains = true;
            }
            let mut items = vec![self.cond_and()?];
            // "either (contain) both A and B or neither": the "either" only opens the phrase.
            if matches!(items[0], Cond::Iff(..)) && !self.at("or") {
                return Ok(items.remove(0));
            }
            while self.at("or") && !self.or_both_closes(0) {
                self.pos += 1;
                items.push(self.cond_and()?);
            }
            if items.len() < 2 {
                return Err(self.fail(&["or"]));
            }
            if self.or_both_closes(0) || self.at(",") && self.or_both_closes(1) {
                self.eat(",");
                self.pos += 2;
                return Ok(Cond::or(items));
            }
            if items.len() == 2
                && (self.eat_seq(&["but", "not", "both"])
                    || self.eat_seq(&[",", "but", "not", "both"]))
            {
                let b = items.pop().unwrap_or(Cond::And(Vec::new()));
                let a = items.pop().unwrap_or(Cond::And(Vec::new()));
                return Ok(Cond::Xor(Box::new(a), Box::new(b)));
            }
            return Ok(Cond::or(items));
        }
        if self.at("both") {
            return self.both_or_neither(false);
        }
        if self.eat("neither") {
            let a = self.cond_unary()?;
            self.expect("nor")?;
            let b = self.cond_unary()?;
            return Ok(Cond::not(Cond::or(vec![a, b])));
        }
        self.clause()
    }

    /// "or both" closing an inclusive "either A or B or both" (not "or both A and B ...").
    fn or_both_closes(&self, k: usize) -> bool {
        self.word(k) == "or"
            && self.word(k + 1) == "both"
            && (ENDS.contains(&self.word(k + 2))
                || matches!(self.word(k + 2), "," | "and" | "or" | "but"))
    }

    /// "both A and B" (a conjunction) or "both A and B or neither (of these pieces)".
    fn both_or_neither(&mut self, needs_neither: bool) -> R<Cond> {
        self.expect("both")?;
        let a = self.cond_unary()?;
        self.expect("and")?;
        let b = self.cond_unary()?;
        let save = self.pos;
        self.eat(",");
        if self.eat_seq(&["or", "neither"]) {
            if !(self.eat_seq(&["of", "these", "pieces"])
                || self.eat_seq(&["of", "these"])
                || self.eat_seq(&["of", "them"]))
            {
                self.eat_seq(&["of", "these", "things"]);
            }
            return Ok(Cond::Iff(Box::new(a), Box::new(b)));
        }
        self.pos = save;
        if needs_neither {
            return Err(self.fail(&["or neither"]));
        }
        Ok(Cond::and(vec![a, b]))
    }

    fn clause(&mut self) -> R<Cond> {
        let column = self.column();
        // Pip counts first: "it has a pip count of..." would otherwise read as "it has" = contains.
        if let Some(c) = self.pips_clause()? {
            self.contains = false;
            return Ok(c);
        }
        if self.eat_seq(&["it", "does", "not", "contain"])
            || self.eat_seq(&["it", "doesn't", "contain"])
            || self.eat_seq(&["it", "does", "not", "have"])
            || self.eat_seq(&["it", "doesn't", "have"])
        {
            self.contains = true;
            let item = self.contains_item()?;
            // A list after a negated "contains" would be ambiguous (neither? not both?).
            self.contains = false;
            return Ok(Cond::not(item));
        }
        if self.eat_seq(&["it", "contains"])
            || self.eat_seq(&["it", "has"])
            || self.eat_seq(&["it", "includes"])
            || self.eat_seq(&["it", "consists", "of"])
            || self.eat_seq(&["there", "is"])
            || self.eat_seq(&["there", "are"])
            || self.eat_any(&["contains", "contain"])
        {
            self.contains = true;
            return self.cond_unary();
        }
        if self.at("all") || self.at("every") || self.at("each") {
            self.contains = false;
            return self.all_clause(column);
        }
        if self.at_any(&["its", "the"]) {
            if let Some(c) = self.superlative_mu(column)? {
                self.contains = false;
                return Ok(c);
            }
            if let Some(c) = self.its_pieces_clause()? {
                self.contains = false;
                return Ok(c);
            }
        }
        if !self.contains && self.at("no") && self.number(1).is_some() {
            // "no two pieces are the same color", "no two pieces point in the same direction".
            let n = self.number(1).unwrap_or(2);
            self.pos += 2;
            let head = self.np_head()?;
            let filter = self.postmods(head)?;
            let key = if self.same_direction_predicate() {
                Key::Direction
            } else {
                self.expect_any(&["are", "have"])?;
                match self.same_key()? {
                    Some(k) => k,
                    None => return Err(self.fail(&["the same color", "the same size"])),
                }
            };
            return Ok(Cond::not(Cond::Group {
                key,
                filter,
                quant: Quant::AtLeast(n),
            }));
        }
        if !self.contains && self.at("no") && self.number(1).is_none() {
            // "no piece is red": nothing passes both.
            self.pos += 1;
            let head = self.np_head()?;
            let domain = self.postmods(head)?;
            self.expect_any(&["is", "are"])?;
            let pred = self.pred_or(&domain)?;
            return Ok(Cond::Count {
                filter: Filter::and(vec![domain, pred]),
                quant: Quant::Exactly(0),
            });
        }
        if let Some(c) = self.of_its_clause()? {
            self.contains = false;
            return Ok(c);
        }
        if self.contains {
            return self.contains_item();
        }
        if self.at("it") && self.pos + 1 < self.tokens.len() {
            self.pos += 1;
            return Err(self.fail(&["contains", "has", "does not contain", "is not true that"]));
        }
        Err(self.fail(&[
            "it contains",
            "all of its pieces",
            "its pip count",
            "a majority of its pieces",
        ]))
    }

    /// "none of its pieces are P", "at least one of its pieces is P", "a majority of its pieces
    /// are P", "exactly two of its pieces are P".
    fn of_its_clause(&mut self) -> R<Option<Cond>> {
        let save = self.pos;
        let quant = if self.eat_seq(&["none", "of"]) {
            Some(Quant::Exactly(0))
        } else if self.eat_seq(&["any", "of"]) || self.eat_seq(&["some", "of"]) {
            Some(Quant::AtLeast(1))
        } else if self.eat_seq(&["a", "majority", "of"])
            || self.eat_seq(&["the", "majority", "of"])
            || self.eat_seq(&["most", "of"])
            || self.eat_seq(&["more", "than", "half", "of"])
        {
            None
        } else {
            match self.quant_prefix(false)? {
                Some(q) if self.eat("of") => Some(q),
                _ => {
                    self.pos = save;
                    return Ok(None);
                }
            }
        };
        if !self.eat_any(&["its", "the"]) {
            self.pos = save;
            return Ok(None);
        }
        let head = self.np_head()?;
        let domain = self.postmods(head)?;
        self.eat_seq(&["in", "it"]);
        self.expect_any(&["are", "is"])?;
        let pred = self.pred_or(&domain)?;
        Ok(Some(match quant {
            Some(quant) => Cond::Count {
                filter: Filter::and(vec![domain, pred]),
                quant,
            },
            None => Cond::Majority { domain, pred },
        }))
    }

    /// "its largest piece is green", "the largest piece in it is red": refused ("mu").
    fn superlative_mu(&mut self, column: usize) -> R<Option<Cond>> {
        let save = self.pos;
        self.pos += 1;
        let sup = match self.word(0) {
            "largest" | "biggest" => Filter::Largest,
            "smallest" => Filter::Smallest,
            "highest" | "tallest" => Filter::Highest,
            "lowest" => Filter::Lowest,
            _ => {
                self.pos = save;
                return Ok(None);
            }
        };
        self.pos += 1;
        if !self.eat_any(&["piece", "pyramid"]) {
            self.pos = save;
            return Ok(None);
        }
        self.eat_seq(&["in", "it"]);
        self.eat_seq(&["in", "the", "koan"]);
        if !self.eat("is") {
            self.pos = save;
            return Ok(None);
        }
        let pred = self.pred_or(&sup)?;
        let end = self.pos;
        let name = match sup {
            Filter::Largest => "largest",
            Filter::Smallest => "smallest",
            Filter::Highest => "highest",
            _ => "lowest",
        };
        let readings = vec![
            Cond::All {
                domain: sup.clone(),
                pred: pred.clone(),
            },
            Cond::Count {
                filter: Filter::and(vec![sup.clone(), pred.clone()]),
                quant: Quant::AtLeast(1),
            },
            Cond::Unique { domain: sup, pred },
        ];
        let c = self.mu(
            column,
            save,
            end,
            &format!("that a koan has exactly one {name} piece, but it may have several"),
            readings,
        );
        Ok(Some(c))
    }

    /// "all of its pieces are flat", "all its pieces are the same color", "all of its red pieces
    /// are upright" (refused: there may be none), "all its pieces point in the same direction".
    fn all_clause(&mut self, column: usize) -> R<Cond> {
        let start = self.pos;
        let singular = self.eat_any(&["every", "each"]);
        if !singular {
            self.expect("all")?;
            self.eat("of");
            self.expect_any(&["its", "the"])?;
        } else {
            if !self.eat_seq(&["one", "of", "its"]) {
                let _ = self.eat_seq(&["of", "its"]) || self.eat_seq(&["of", "the"]);
            }
        }
        let domain = self.np_head()?;
        self.eat_seq(&["in", "it"]);
        self.eat_seq(&["in", "the", "koan"]);
        let maybe_empty = !domain.never_empty();
        let what = render::plural_np(&domain);
        // Same direction: presumes two pieces whatever the domain.
        if self.same_direction_predicate() {
            let end = self.pos;
            let differ = Filter::and(vec![
                domain.clone(),
                Filter::rel(Relation::DifferentDirection, domain.clone()),
            ]);
            let readings = vacuous_or_not(&domain, differ, 2);
            let c = self.mu(
                column,
                start,
                end,
                &format!("that there are at least two {what} to compare, but there may be fewer"),
                readings,
            );
            return Ok(c);
        }
        self.expect_any(&["are", "is"])?;
        self.eat("all");
        if let Some(key) = self.same_key()? {
            if !maybe_empty {
                return Ok(Cond::AllSame { domain, key });
            }
            let end = self.pos;
            let readings = vec![
                Cond::Kinds {
                    key,
                    filter: domain.clone(),
                    quant: Quant::AtMost(1),
                },
                Cond::Kinds {
                    key,
                    filter: domain.clone(),
                    quant: Quant::Exactly(1),
                },
            ];
            let c = self.mu(
                column,
                start,
                end,
                &format!("that the koan has {what}, but it may have none"),
                readings,
            );
            return Ok(c);
        }
        let pred = self.pred_or(&domain)?;
        if !maybe_empty {
            return Ok(Cond::All { domain, pred });
        }
        let end = self.pos;
        let failing = Filter::and(vec![domain.clone(), Filter::not(pred.clone())]);
        let readings = vacuous_or_not(&domain, failing, 1);
        let c = self.mu(
            column,
            start,
            end,
            &format!("that the koan has {what}, but it may have none"),
            readings,
        );
        Ok(c)
    }

    /// "point in the same direction", "are all pointing the same direction" ("in" optional).
    fn same_direction_predicate(&mut self) -> bool {
        let save = self.pos;
        self.eat_any(&["are", "is"]);
        self.eat("all");
        if self.eat_any(&["point", "points", "pointing"]) {
            self.eat("in");
            if self.eat_seq(&["the", "same", "direction"]) && !self.at("as") {
                return true;
            }
        }
        self.pos = save;
        false
    }

    /// "the same color", "the same size", "the same color and size", "of the same ...".
    fn same_key(&mut self) -> R<Option<Key>> {
        let save = self.pos;
        self.eat("of");
        if !self.eat_seq(&["the", "same"]) {
            self.pos = save;
            return Ok(None);
        }
        let first = self.key_word();
        if self.at("as") {
            // "the same color as X" is a relation, not a shared attribute.
            self.pos = save;
            return Ok(None);
        }
        let Some(first) = first else {
            return Err(self.fail(&["color", "size", "orientation"]));
        };
        if self.at("and")
            && matches!(
                self.word(1),
                "color" | "colour" | "size" | "orientation" | "colors" | "sizes"
            )
        {
            self.pos += 1;
            let Some(second) = self.key_word() else {
                return Err(self.fail(&["color", "size"]));
            };
            return match (first, second) {
                (Key::Color, Key::Size) | (Key::Size, Key::Color) => Ok(Some(Key::ColorAndSize)),
                _ => Err(self.invalid("only \"the same color and size\" combines two attributes")),
            };
        }
        Ok(Some(first))
    }

    fn key_word(&mut self) -> Option<Key> {
        let key = match self.word(0) {
            "color" | "colour" | "colors" | "colours" => Key::Color,
            "size" | "sizes" => Key::Size,
            "orientation" | "orientations" => Key::Orientation,
            _ => return None,
        };
        self.pos += 1;
        Some(key)
    }

    /// "its pieces have more pips than ...", "its pieces are of exactly two colors".
    fn its_pieces_clause(&mut self) -> R<Option<Cond>> {
        let save = self.pos;
        if !self.eat("its") {
            return Ok(None);
        }
        let left = match self.np_head() {
            Ok(f) => f,
            Err(_) => {
                self.pos = save;
                return Ok(None);
            }
        };
        let left = self.postmods(left)?;
        if self.eat("have") {
            let op = if self.eat("more") {
                CmpOp::More
            } else if self.eat_any(&["fewer", "less"]) {
                CmpOp::Fewer
            } else if self.eat_seq(&["as", "many"]) {
                CmpOp::AsMany
            } else {
                return Err(self.fail(&["more pips than", "fewer pips than", "as many pips as"]));
            };
            self.expect("pips")?;
            self.expect_any(&["than", "as"])?;
            self.expect("its")?;
            let right = self.np_head()?;
            let right = self.postmods(right)?;
            return Ok(Some(Cond::Compare {
                measure: Measure::Pips,
                op,
                left,
                right,
            }));
        }
        if self.eat_seq(&["are", "of"]) {
            let quant = self.count_quant()?;
            let Some(key) = self.key_word() else {
                return Err(self.fail(&["colors", "sizes", "orientations"]));
            };
            return Ok(Some(Cond::Kinds {
                key,
                filter: left,
                quant,
            }));
        }
        self.pos = save;
        Ok(None)
    }

    /// The pip count of the whole koan or of some of its pieces.
    fn pips_clause(&mut self) -> R<Option<Cond>> {
        let filter;
        if self.eat_seq(&["its", "pip", "count", "is"])
            || self.eat_seq(&["its", "total", "pip", "count", "is"])
            || self.eat_seq(&["its", "pip-count", "is"])
        {
            filter = Filter::Any;
        } else if self.eat_seq(&["it", "has", "a", "pip", "count", "of"])
            || self.eat_seq(&["it", "has", "a", "total", "pip", "count", "of"])
        {
            let quant = self.pip_quant()?;
            return Ok(Some(Cond::Pips {
                filter: Filter::Any,
                quant,
            }));
        } else if self.eat_seq(&["it", "has", "an", "odd", "pip", "count"]) {
            return Ok(Some(Cond::Pips {
                filter: Filter::Any,
                quant: Quant::Odd,
            }));
        } else if self.eat_seq(&["it", "has", "an", "even", "pip", "count"]) {
            return Ok(Some(Cond::Pips {
                filter: Filter::Any,
                quant: Quant::Even,
            }));
        } else if self.eat_seq(&["the", "pip", "count", "of", "its"])
            || self.eat_seq(&["the", "total", "pip", "count", "of", "its"])
        {
            let head = self.np_head()?;
            filter = self.postmods(head)?;
            self.expect("is")?;
        } else {
            // "its red pieces have a pip count of ..." / "its pieces have an odd pip count".
            let save = self.pos;
            if self.eat("its")
                && let Ok(head) = self.np_head()
            {
                let f = self.postmods(head)?;
                if self.eat_seq(&["have", "a", "pip", "count", "of"])
                    || self.eat_seq(&["have", "a", "total", "pip", "count", "of"])
                {
                    let quant = self.pip_quant()?;
                    return Ok(Some(Cond::Pips { filter: f, quant }));
                }
                for (words, quant) in [
                    (&["have", "an", "odd", "pip", "count"], Quant::Odd),
                    (&["have", "an", "even", "pip", "count"], Quant::Even),
                ] {
                    if self.eat_seq(words) {
                        return Ok(Some(Cond::Pips { filter: f, quant }));
                    }
                }
            }
            self.pos = save;
            return Ok(None);
        }
        let quant = self.pip_quant()?;
        Ok(Some(Cond::Pips { filter, quant }))
    }

    /// A pip total: "odd", "even", "exactly 7", "at least 5", "7" (a total is exact).
    fn pip_quant(&mut self) -> R<Quant> {
        if self.eat("odd") {
            return Ok(Quant::Odd);
        }
        if self.eat("even") {
            return Ok(Quant::Even);
        }
        if self.eat("exactly") {
            return Ok(Quant::Exactly(self.expect_number()?));
        }
        if self.eat_seq(&["at", "least"]) {
            return Ok(Quant::AtLeast(self.expect_number()?));
        }
        if self.eat_seq(&["at", "most"]) {
            return Ok(Quant::AtMost(self.expect_number()?));
        }
        if self.eat_seq(&["more", "than"]) {
            return Ok(Quant::AtLeast(self.expect_number()? + 1));
        }
        if self.eat_any(&["fewer", "less"]) {
            self.expect("than")?;
            return self.fewer_than();
        }
        if let Some(n) = self.number(0) {
            self.pos += 1;
            if self.eat_seq(&["or", "more"]) {
                return Ok(Quant::AtLeast(n));
            }
            if self.eat_seq(&["or", "fewer"]) || self.eat_seq(&["or", "less"]) {
                return Ok(Quant::AtMost(n));
            }
            return Ok(Quant::Exactly(n));
        }
        Err(self.fail(&["odd", "even", "exactly", "at least", "at most", "a number"]))
    }

    fn fewer_than(&mut self) -> R<Quant> {
        let n = self.expect_number()?;
        if n == 0 {
            return Err(self.invalid("nothing is fewer than zero"));
        }
        Ok(Quant::AtMost(n - 1))
    }

    /// A count in front of a noun phrase, or None when the phrase has none (a bare plural).
    /// `record`: remember a lone number as an open reading (its column and word).
    fn quant_prefix(&mut self, record: bool) -> R<Option<Quant>> {
        let w = self.word(0).to_string();
        let w = w.as_str();
        if self.eat_seq(&["at", "least"])
            || self.eat_seq(&["no", "fewer", "than"])
            || self.eat_seq(&["no", "less", "than"])
        {
            return Ok(Some(Quant::AtLeast(self.expect_number()?)));
        }
        if self.eat_seq(&["at", "most"]) || self.eat_seq(&["no", "more", "than"]) {
            return Ok(Some(Quant::AtMost(self.expect_number()?)));
        }
        if self.eat("exactly") {
            return Ok(Some(Quant::Exactly(self.expect_number()?)));
        }
        if self.word(0) == "more" && self.word(1) == "than" && self.number(2).is_some() {
            self.pos += 2;
            return Ok(Some(Quant::AtLeast(self.expect_number()? + 1)));
        }
        if (w == "fewer" || w == "less") && self.word(1) == "than" && self.number(2).is_some() {
            self.pos += 2;
            return Ok(Some(self.fewer_than()?));
        }
        if self.eat_seq(&["an", "odd", "number", "of"]) {
            return Ok(Some(Quant::Odd));
        }
        if self.eat_seq(&["an", "even", "number", "of"]) {
            return Ok(Some(Quant::Even));
        }
        if w == "no" || w == "zero" {
            self.pos += 1;
            return Ok(Some(Quant::Exactly(0)));
        }
        if let Some(n) = self.number(0) {
            let column = self.column();
            let text = self.tokens[self.pos].text.clone();
            self.pos += 1;
            if self.eat_seq(&["or", "more"]) {
                return Ok(Some(Quant::AtLeast(n)));
            }
            if self.eat_seq(&["or", "fewer"]) || self.eat_seq(&["or", "less"]) {
                return Ok(Some(Quant::AtMost(n)));
            }
            if record {
                self.indefinite.push((column, text));
            }
            return Ok(Some(Quant::Indefinite(n)));
        }
        // "a", "an", "any", "some": at least one, the reading the seeds give their own rules
        // ("it contains a piece pointing at another piece").
        if (w == "a" || w == "an" || w == "any" || w == "some")
            && !matches!(self.word(1), "majority" | "plurality")
        {
            self.pos += 1;
            return Ok(Some(Quant::AtLeast(1)));
        }
        Ok(None)
    }

    /// The count for "of exactly two colors" and similar.
    fn count_quant(&mut self) -> R<Quant> {
        match self.quant_prefix(true)? {
            Some(q) => Ok(q),
            None => Err(self.fail(&["exactly", "at least", "at most", "a number"])),
        }
    }

    /// One item of a "contains" list.
    fn contains_item(&mut self) -> R<Cond> {
        // "two or three pieces of the same size and color": either exact number.
        if let (Some(n), "or", Some(m)) = (self.number(0), self.word(1), self.number(2)) {
            self.pos += 2;
            // Read the phrase once with the second number, then put the first one in.
            let open_before = self.indefinite.len();
            let second = self.contains_item()?;
            if self.indefinite.len() > open_before {
                // The second number is not open: "two or three" is exact.
                self.indefinite.remove(open_before);
            }
            let mut exact_m = second.clone();
            let mut first = second;
            let mut k = 0;
            let set = |q: &mut Quant, value: u32, k: &mut usize| {
                if *k == 0 {
                    *q = Quant::Exactly(value);
                }
                *k += 1;
            };
            exact_m.visit_quants(&mut |q| set(q, m, &mut k));
            k = 0;
            first.visit_quants(&mut |q| set(q, n, &mut k));
            return Ok(Cond::or(vec![first, exact_m]));
        }
        // Comparisons.
        let op = if self.at("more") && self.number(1).is_none() && self.word(1) != "than" {
            Some(CmpOp::More)
        } else if self.at_any(&["fewer", "less"]) && self.word(1) != "than" {
            Some(CmpOp::Fewer)
        } else {
            None
        };
        if let Some(op) = op {
            self.pos += 1;
            let left = self.np()?;
            self.expect("than")?;
            let right = self.np()?;
            return Ok(Cond::Compare {
                measure: Measure::Count,
                op,
                left,
                right,
            });
        }
        if self.eat_seq(&["as", "many"]) || self.eat_seq(&["the", "same", "number", "of"]) {
            let left = self.np()?;
            self.expect("as")?;
            let right = self.np()?;
            return Ok(Cond::Compare {
                measure: Measure::Count,
                op: CmpOp::AsMany,
                left,
                right,
            });
        }
        if self.eat_seq(&["a", "majority", "of"]) || self.eat_seq(&["the", "majority", "of"]) {
            let pred = self.np()?;
            return Ok(Cond::Majority {
                domain: Filter::Any,
                pred,
            });
        }
        if self.eat_seq(&["a", "plurality", "of"]) || self.eat_seq(&["the", "plurality", "of"]) {
            let column = self.column();
            let f = self.np()?;
            let value = match f {
                Filter::Color(c) => AttrValue::Color(c),
                Filter::Size(s) => AttrValue::Size(s),
                Filter::Orientation(o) => AttrValue::Orientation(o),
                _ => {
                    return Err(ParseError::Invalid {
                        column,
                        message: "a plurality is of one colour, size or orientation".into(),
                    });
                }
            };
            return Ok(Cond::Plurality(value));
        }
        if self.eat("only") {
            let f = self.np()?;
            return Ok(Cond::Count {
                filter: Filter::not(f),
                quant: Quant::Exactly(0),
            });
        }
        // "all three sizes", "all four colors".
        if self.eat_seq(&["all", "four", "colors"]) || self.eat_seq(&["all", "four", "colours"]) {
            return Ok(Cond::Each {
                each: EachOf::FourColors,
                filter: Filter::Any,
                quant: Quant::AtLeast(1),
            });
        }
        if self.eat_seq(&["all", "three", "sizes"]) {
            return Ok(Cond::Each {
                each: EachOf::Sizes,
                filter: Filter::Any,
                quant: Quant::AtLeast(1),
            });
        }
        let quant = self.quant_prefix(true)?;
        // "no two pieces of the same color".
        if quant == Some(Quant::Exactly(0))
            && let Some(n) = self.number(0)
        {
            self.pos += 1;
            let head = self.np_head()?;
            let filter = self.postmods(head)?;
            let Some(key) = self.group_suffix()? else {
                return Err(self.fail(&["of the same color", "of the same size"]));
            };
            return Ok(Cond::not(Cond::Group {
                key,
                filter,
                quant: Quant::AtLeast(n),
            }));
        }
        // "exactly three colors".
        if let Some(q) = quant
            && let Some(key) = self.kinds_noun()
        {
            return Ok(Cond::Kinds {
                key,
                filter: Filter::Any,
                quant: q,
            });
        }
        // Towers, stacks and nests.
        if self.at_any(&["tower", "towers", "stack", "stacks", "nest", "nests"]) {
            let noun = self.word(0).to_string();
            self.pos += 1;
            let size = if self.eat("of") {
                let s = self.count_quant()?;
                self.expect_any(&["pieces", "piece", "pyramids"])?;
                s
            } else {
                Quant::AtLeast(2)
            };
            let quant = quant.unwrap_or(Quant::AtLeast(1));
            return Ok(if noun.starts_with("nest") {
                Cond::Nests { size, quant }
            } else {
                Cond::Towers {
                    size,
                    quant,
                    stacks: noun.starts_with("stack"),
                }
            });
        }
        let head = self.np_head()?;
        // "a piece such that there is no larger piece in the koan, it is the only such piece,
        // and it is green".
        if self.at_seq(&["such", "that"]) {
            return self.such_that(head, quant);
        }
        let filter = self.postmods(head)?;
        if let Some(key) = self.group_suffix()? {
            let quant = quant.unwrap_or(Quant::AtLeast(2));
            return Ok(Cond::Group { key, filter, quant });
        }
        let count_follows = self.number(1).is_some()
            || matches!(
                self.word(1),
                "exactly" | "at" | "no" | "zero" | "more" | "fewer" | "less"
            )
            || (self.word(1) == "an" && matches!(self.word(2), "odd" | "even"));
        if quant.is_none() && self.at("of") && count_follows {
            self.pos += 1;
            let q = self.count_quant()?;
            let Some(key) = self.kinds_noun() else {
                return Err(self.fail(&["colors", "sizes", "orientations"]));
            };
            return Ok(Cond::Kinds {
                key,
                filter,
                quant: q,
            });
        }
        if let Some(each) = self.each_suffix() {
            return Ok(Cond::Each {
                each,
                filter,
                quant: quant.unwrap_or(Quant::AtLeast(1)),
            });
        }
        // "two red pieces or more" settles the number after the noun.
        let quant = match quant {
            Some(Quant::Indefinite(n)) if self.at("or") => {
                let q = if self.eat_seq(&["or", "more"]) {
                    Some(Quant::AtLeast(n))
                } else if self.eat_seq(&["or", "fewer"]) || self.eat_seq(&["or", "less"]) {
                    Some(Quant::AtMost(n))
                } else {
                    None
                };
                if q.is_some() {
                    self.indefinite.pop();
                }
                q.or(quant)
            }
            other => other,
        };
        // A bare plural ("it contains red pieces") reads as at least one, as the booklet does.
        let quant = quant.unwrap_or(Quant::AtLeast(1));
        let clause_follows = self.word(3) == "not"
            && (self.word(4) == "true" || self.word(4) == "the" && self.word(5) == "case");
        if quant == Quant::Exactly(1)
            && !clause_follows
            && (self.eat_seq(&["and", "it", "is"]) || self.eat_seq(&["and", "it's"]))
        {
            let pred = self.pred_or(&filter)?;
            return Ok(Cond::Unique {
                domain: filter,
                pred,
            });
        }
        let count = Cond::Count {
            filter: filter.clone(),
            quant,
        };
        if self.eat_seq(&["and", "they", "are", "all"])
            || self.eat_seq(&["and", "they're", "all"])
            || self.eat_seq(&["and", "all", "of", "them", "are"])
            || self.eat_seq(&["and", "they", "all", "are"])
        {
            let pred = self.pred_or(&filter)?;
            return Ok(Cond::and(vec![
                count,
                Cond::Count {
                    filter: Filter::and(vec![filter, Filter::not(pred)]),
                    quant: Quant::Exactly(0),
                },
            ]));
        }
        Ok(count)
    }

    fn such_that(&mut self, head: Filter, quant: Option<Quant>) -> R<Cond> {
        self.expect("such")?;
        self.expect("that")?;
        let mut domain = vec![head];
        let mut pred = Vec::new();
        let mut unique = false;
        loop {
            if self.eat_seq(&["there", "is", "no"]) {
                let sup = match self.word(0) {
                    "larger" | "bigger" => Filter::Largest,
                    "smaller" => Filter::Smallest,
                    "higher" | "taller" => Filter::Highest,
                    "lower" => Filter::Lowest,
                    _ => return Err(self.fail(&["larger", "smaller", "higher", "lower"])),
                };
                self.pos += 1;
                self.expect_any(&["piece", "pieces"])?;
                if !self.eat_seq(&["in", "the", "koan"]) {
                    self.eat_seq(&["in", "it"]);
                }
                if unique {
                    pred.push(sup)
                } else {
                    domain.push(sup)
                }
            } else if self.eat_seq(&["it", "is", "the", "only", "such", "piece"]) {
                unique = true;
            } else if self.eat_seq(&["it", "is"]) {
                let all = Filter::and(domain.clone());
                let p = self.pred_or(&all)?;
                if unique { pred.push(p) } else { domain.push(p) }
            } else {
                return Err(self.fail(&["there is no larger piece", "it is"]));
            }
            if self.eat_seq(&[",", "and"]) || self.eat(",") || self.eat("and") {
                continue;
            }
            break;
        }
        if unique {
            return Ok(Cond::Unique {
                domain: Filter::and(domain),
                pred: Filter::and(pred),
            });
        }
        Ok(Cond::Count {
            filter: Filter::and(domain),
            quant: quant.unwrap_or(Quant::AtLeast(1)),
        })
    }

    fn kinds_noun(&mut self) -> Option<Key> {
        if matches!(self.word(0), "color" | "colors" | "colour" | "colours")
            && self.word(1) == "and"
            && matches!(self.word(2), "size" | "sizes")
        {
            self.pos += 3;
            return Some(Key::ColorAndSize);
        }
        let key = match self.word(0) {
            "color" | "colors" | "colour" | "colours" => Key::Color,
            "size" | "sizes" => Key::Size,
            "orientation" | "orientations" => Key::Orientation,
            _ => return None,
        };
        self.pos += 1;
        Some(key)
    }

    /// "of the same color", "that are (all) the same size", "pointing in the same direction".
    fn group_suffix(&mut self) -> R<Option<Key>> {
        if self.eat_seq(&["pointing", "in", "the", "same", "direction"])
            || self.eat_seq(&["that", "point", "in", "the", "same", "direction"])
            || self.eat_seq(&["that", "are", "pointing", "in", "the", "same", "direction"])
            || self.eat_seq(&["all", "pointing", "in", "the", "same", "direction"])
        {
            return Ok(Some(Key::Direction));
        }
        let save = self.pos;
        if self.eat_seq(&["that", "are"]) || self.eat_seq(&["which", "are"]) {
            self.eat("all");
        } else if self.at_seq(&["all", "of", "the", "same"]) || self.at_seq(&["all", "the", "same"])
        {
            self.pos += 1;
        }
        match self.same_key()? {
            Some(k) => Ok(Some(k)),
            None => {
                self.pos = save;
                Ok(None)
            }
        }
    }

    fn each_suffix(&mut self) -> Option<EachOf> {
        for (seq, each) in [
            (
                &["of", "each", "of", "the", "four", "colors"][..],
                EachOf::FourColors,
            ),
            (
                &["of", "each", "of", "the", "four", "colours"][..],
                EachOf::FourColors,
            ),
            (&["of", "each", "color"][..], EachOf::FourColors),
            (&["of", "each", "colour"][..], EachOf::FourColors),
            (&["of", "every", "color"][..], EachOf::FourColors),
            (
                &["of", "each", "of", "the", "three", "sizes"][..],
                EachOf::Sizes,
            ),
            (&["of", "each", "size"][..], EachOf::Sizes),
            (&["of", "every", "size"][..], EachOf::Sizes),
        ] {
            if self.eat_seq(seq) {
                return Some(each);
            }
        }
        None
    }

    // ---- noun phrases ----

    /// A noun phrase with its modifiers.
    fn np(&mut self) -> R<Filter> {
        let head = self.np_head()?;
        self.postmods(head)
    }

    /// One adjective (or "red or blue" alternatives) at the cursor, and whether the word may also
    /// stand as a noun ("exactly one Small", "zero yellow's").
    fn adjective_at(&self, k: usize) -> Option<(Filter, bool, usize)> {
        let w = self.word(k);
        for (name, c) in COLORS {
            if w == *name {
                return Some((Filter::Color(*c), true, 1));
            }
        }
        for (name, s) in SIZES {
            if w == *name || w == format!("{name}-sized") {
                return Some((Filter::Size(*s), true, 1));
            }
            if w == *name && self.word(k + 1) == "sized" {
                return Some((Filter::Size(*s), false, 2));
            }
        }
        let f = match w {
            "upright" | "standing" => Filter::Orientation(Orientation::Upright),
            "flat" | "lying-down" => Filter::Orientation(Orientation::Flat),
            "lying" if matches!(self.word(k + 1), "down" | "flat") => {
                return Some((Filter::Orientation(Orientation::Flat), false, 2));
            }
            "weird" => Filter::Orientation(Orientation::Weird),
            "upside-down" => Filter::UpsideDown,
            "upside" if self.word(k + 1) == "down" => return Some((Filter::UpsideDown, false, 2)),
            "grounded" => Filter::Grounded(true),
            "ungrounded" => Filter::Grounded(false),
            "largest" | "biggest" => Filter::Largest,
            "smallest" => Filter::Smallest,
            "highest" => Filter::Highest,
            "lowest" => Filter::Lowest,
            "stacked" => Filter::Stacked,
            "nested" => Filter::rel(Relation::NestedIn, Filter::Any),
            "inserted" => Filter::rel(Relation::InsertedInto, Filter::Any),
            _ => {
                if let Some(rest) = w.strip_prefix("non-") {
                    return Self::simple_adjective(rest).map(|f| (Filter::not(f), false, 1));
                }
                return None;
            }
        };
        Some((f, false, 1))
    }

    fn simple_adjective(w: &str) -> Option<Filter> {
        for (name, c) in COLORS {
            if w == *name {
                return Some(Filter::Color(*c));
            }
        }
        for (name, s) in SIZES {
            if w == *name {
                return Some(Filter::Size(*s));
            }
        }
        Some(match w {
            "upright" => Filter::Orientation(Orientation::Upright),
            "flat" => Filter::Orientation(Orientation::Flat),
            "weird" => Filter::Orientation(Orientation::Weird),
            "grounded" => Filter::Grounded(true),
            "upside-down" => Filter::UpsideDown,
            "largest" => Filter::Largest,
            "smallest" => Filter::Smallest,
            "highest" => Filter::Highest,
            "lowest" => Filter::Lowest,
            "stacked" => Filter::Stacked,
            "nested" => Filter::rel(Relation::NestedIn, Filter::Any),
            "inserted" => Filter::rel(Relation::InsertedInto, Filter::Any),
            _ => return None,
        })
    }

    /// A plural noun made of a size or colour ("Larges", "Large's", "reds", "yellow's").
    fn plural_noun_at(&self, k: usize) -> Option<Filter> {
        let w = self.word(k);
        let stem = w.strip_suffix("'s").or_else(|| w.strip_suffix('s'))?;
        for (name, c) in COLORS {
            if stem == *name {
                return Some(Filter::Color(*c));
            }
        }
        for (name, s) in SIZES {
            if stem == *name {
                return Some(Filter::Size(*s));
            }
        }
        None
    }

    /// Adjectives and a noun: "upright yellow Large", "medium-sized pyramids", "red or blue pieces".
    fn np_head(&mut self) -> R<Filter> {
        let mut parts = Vec::new();
        let mut last_can_be_noun = false;
        loop {
            if let Some(f) = self.plural_noun_at(0) {
                self.pos += 1;
                parts.push(f);
                return Ok(Filter::and(parts));
            }
            let Some((f, noun_ok, len)) = self.adjective_at(0) else {
                break;
            };
            self.pos += len;
            let mut alternatives = vec![f];
            let mut can_be_noun = noun_ok;
            loop {
                // "red or blue", "red, blue, or green".
                let skip = if self.at("or") {
                    1
                } else if self.at(",") && self.word(1) == "or" {
                    2
                } else if self.at(",") {
                    1
                } else {
                    break;
                };
                match self.adjective_at(skip) {
                    Some((g, n, glen)) if !self.word(skip).is_empty() => {
                        // A comma alone only lists adjectives when an "or" closes the list.
                        if skip == 1 && self.at(",") && !self.list_closes_with_or(skip + glen) {
                            break;
                        }
                        self.pos += skip + glen;
                        alternatives.push(g);
                        can_be_noun = n;
                    }
                    _ => break,
                }
            }
            parts.push(Filter::or(alternatives));
            last_can_be_noun = can_be_noun;
        }
        if self.eat_any(&["piece", "pieces", "pyramid", "pyramids", "one", "ones"]) {
            return Ok(Filter::and(parts));
        }
        if self.eat_seq(&["another", "piece"]) {
            return Ok(Filter::and(parts));
        }
        if last_can_be_noun {
            return Ok(Filter::and(parts));
        }
        Err(self.fail(&[
            "piece",
            "pieces",
            "red",
            "large",
            "upright",
            "a colour, size or orientation",
        ]))
    }

    fn list_closes_with_or(&self, mut k: usize) -> bool {
        loop {
            match self.word(k) {
                "," => k += 1,
                "or" => return self.adjective_at(k + 1).is_some(),
                _ => match self.adjective_at(k) {
                    Some((_, _, len)) => k += len,
                    None => return false,
                },
            }
        }
    }

    /// Participle phrases and "that" clauses after a noun: "pointing at another piece",
    /// "that are touching each other", "touching the table".
    fn postmods(&mut self, head: Filter) -> R<Filter> {
        let mut parts = vec![head.clone()];
        loop {
            // A group suffix is not a modifier: leave it to the caller.
            if self.looks_like_group_suffix() {
                break;
            }
            if self.at_any(&["that", "which"]) {
                let save = self.pos;
                self.pos += 1;
                if self.eat_any(&["is", "are"]) {
                    if self.at("(") {
                        self.pos += 1;
                        let p = self.pred_or(&head)?;
                        self.expect(")")?;
                        parts.push(p);
                    } else {
                        parts.push(self.pred_or(&head)?);
                    }
                } else if let Some(f) = self.rel_phrase(&head)? {
                    parts.push(f);
                } else {
                    self.pos = save;
                    break;
                }
            } else if self.at("not") && self.rel_starts(1) {
                self.pos += 1;
                let Some(f) = self.rel_phrase(&head)? else {
                    return Err(self.fail(&["touching", "pointing at"]));
                };
                parts.push(Filter::not(f));
            } else if let Some(f) = self.rel_phrase(&head)? {
                parts.push(f);
            } else if self.at_seq(&["in", "it"]) {
                self.pos += 2;
                continue;
            } else if self.at("among") && matches!(self.word(1), "the" | "its") {
                self.pos += 2;
                let sup = match self.word(0) {
                    "largest" => Filter::Largest,
                    "smallest" => Filter::Smallest,
                    "highest" => Filter::Highest,
                    "lowest" => Filter::Lowest,
                    _ => return Err(self.fail(&["largest", "smallest", "highest", "lowest"])),
                };
                self.pos += 1;
                self.eat("pieces");
                parts.push(sup);
            } else {
                break;
            }
            // "... and pointing at ...", "... and that is ...".
            if self.at("and")
                && (self.rel_starts(1)
                    || self.word(1) == "among"
                    || matches!(self.word(1), "that" | "which")
                    || (self.word(1) == "not" && self.rel_starts(2)))
                && !self.group_suffix_at(1)
            {
                self.pos += 1;
                continue;
            }
            if self.at("and") || self.at(",") {
                break;
            }
        }
        Ok(Filter::and(parts))
    }

    fn looks_like_group_suffix(&self) -> bool {
        self.group_suffix_at(0)
    }

    fn group_suffix_at(&self, k: usize) -> bool {
        let w = |i: usize| self.word(k + i);
        (w(0) == "pointing" && w(1) == "in" && w(2) == "the" && w(3) == "same" && w(5) != "as")
            || (matches!(w(0), "that" | "which")
                && ((w(1) == "are"
                    && (w(2) == "the" && w(3) == "same"
                        || w(2) == "all" && w(3) == "the" && w(4) == "same"
                        || w(2) == "pointing" && w(4) == "the" && w(5) == "same" && w(7) != "as"))
                    || (w(1) == "point" && w(3) == "the" && w(4) == "same" && w(6) != "as")))
            || (w(0) == "of" && w(1) == "the" && w(2) == "same" && w(4) != "as")
            || (w(0) == "all" && (w(1) == "the" || w(1) == "of" || w(1) == "pointing"))
    }

    /// Does a relation phrase start `k` words ahead?
    fn rel_starts(&self, k: usize) -> bool {
        let next = self.word(k + 1);
        match self.word(k) {
            "touching" | "touch" | "touches" | "pointing" | "point" | "points" | "fully"
            | "partially" | "inside" | "within" | "holding" | "under" | "beneath" | "below"
            | "underneath" => true,
            // Words that are also adjectives start a relation only with their preposition.
            "nested" => matches!(next, "in" | "inside" | "within"),
            "inserted" => matches!(next, "into" | "in"),
            "stacked" => next == "on",
            "pointed" => next == "at",
            "higher" | "lower" | "larger" | "bigger" | "smaller" => next == "than",
            "on" => matches!(next, "top" | "the" | "a" | "an" | "another"),
            "first" => next == "pointing",
            "in" => matches!(next, "a" | "contact"),
            "at" | "off" => next == "the",
            "with" => matches!(next, "a" | "an" | "another"),
            "the" => next == "same",
            "of" => next == "the" && self.word(k + 2) == "same",
            _ => false,
        }
    }

    /// One relation phrase, already resolved to the filter of the pieces it describes.
    fn rel_phrase(&mut self, head: &Filter) -> R<Option<Filter>> {
        let save = self.pos;
        let w = self.word(0).to_string();
        let rel = match w.as_str() {
            "touching" | "touch" | "touches" => {
                self.pos += 1;
                if self.eat_seq(&["the", "table"]) || self.eat_seq(&["the", "playing", "surface"]) {
                    return Ok(Some(Filter::Grounded(true)));
                }
                Relation::Touching
            }
            "pointing" | "point" | "points" => {
                self.pos += 1;
                if self.eat_any(&["at", "to", "toward", "towards"]) {
                    if self.eat("nothing") {
                        return Ok(Some(Filter::not(Filter::rel(
                            Relation::PointingAt,
                            Filter::Any,
                        ))));
                    }
                    Relation::PointingAt
                } else if self.eat_seq(&["first", "at"]) {
                    Relation::PointingFirstAt
                } else if self.eat("through") {
                    let via = self.object()?;
                    self.expect_any(&["at", "to"])?;
                    let target = self.object()?;
                    return Ok(Some(Filter::PointsThrough(Box::new(via), Box::new(target))));
                } else if self.eat_seq(&["in", "the", "same", "direction", "as"]) {
                    Relation::SameDirection
                } else if self.eat_seq(&["in", "the", "opposite", "direction", "to"])
                    || self.eat_seq(&["in", "the", "opposite", "direction", "from"])
                    || self.eat_seq(&["in", "the", "opposite", "direction", "as"])
                    || self.eat_seq(&["opposite", "to"])
                    || self.eat_seq(&["away", "from"])
                {
                    Relation::OppositeDirection
                } else if self.eat_seq(&["in", "a", "different", "direction", "from"])
                    || self.eat_seq(&["in", "a", "different", "direction", "than"])
                    || self.eat_seq(&["in", "a", "different", "direction", "to"])
                {
                    Relation::DifferentDirection
                } else if self.eat_seq(&["in", "opposite", "directions"]) {
                    return Ok(Some(Filter::rel(Relation::OppositeDirection, head.clone())));
                } else if self.eat_seq(&["in", "different", "directions"]) {
                    return Ok(Some(Filter::rel(
                        Relation::DifferentDirection,
                        head.clone(),
                    )));
                } else {
                    self.pos = save;
                    return Ok(None);
                }
            }
            "first" if self.word(1) == "pointing" => {
                self.pos += 2;
                self.expect("at")?;
                Relation::PointingFirstAt
            }
            "pointed" => {
                self.pos += 1;
                self.expect("at")?;
                self.expect("by")?;
                Relation::PointedAtBy
            }
            "inserted" if matches!(self.word(1), "into" | "in") => {
                self.pos += 2;
                Relation::InsertedInto
            }
            "fully" => {
                self.pos += 1;
                self.expect("inserted")?;
                if !self.eat_any(&["into", "in"]) {
                    return Ok(Some(Filter::rel(Relation::FullyInsertedInto, Filter::Any)));
                }
                Relation::FullyInsertedInto
            }
            "partially" => {
                self.pos += 1;
                self.expect("inserted")?;
                let other = if self.eat_any(&["into", "in"]) {
                    self.object_filter()?
                } else {
                    Filter::Any
                };
                return Ok(Some(Filter::and(vec![
                    Filter::rel(Relation::InsertedInto, other.clone()),
                    Filter::not(Filter::rel(Relation::FullyInsertedInto, other)),
                ])));
            }
            "nested" if matches!(self.word(1), "in" | "inside" | "within") => {
                self.pos += 2;
                Relation::NestedIn
            }
            "inside" | "within" => {
                self.pos += 1;
                Relation::NestedIn
            }
            "holding" => {
                self.pos += 1;
                Relation::Holding
            }
            "stacked" if self.word(1) == "on" => {
                self.pos += 2;
                Relation::On
            }
            "on" if self.word(1) == "top" && self.word(2) == "of" => {
                if self.word(3) == "a" && matches!(self.word(4), "tower" | "stack") {
                    self.pos += 5;
                    return Ok(Some(Filter::TopOfTower));
                }
                self.pos += 3;
                Relation::On
            }
            "on" => {
                self.pos += 1;
                if self.eat_seq(&["the", "table"]) {
                    return Ok(Some(Filter::Grounded(true)));
                }
                Relation::On
            }
            "off" if self.word(1) == "the" && self.word(2) == "table" => {
                self.pos += 3;
                return Ok(Some(Filter::Grounded(false)));
            }
            "under" | "beneath" | "below" | "underneath" => {
                self.pos += 1;
                Relation::Under
            }
            "higher" | "lower" | "larger" | "bigger" | "smaller" if self.word(1) == "than" => {
                self.pos += 2;
                match w.as_str() {
                    "higher" => Relation::Higher,
                    "lower" => Relation::Lower,
                    "smaller" => Relation::Smaller,
                    _ => Relation::Larger,
                }
            }
            "the" | "of" => {
                let k = usize::from(w == "of");
                if self.word(k) == "the" && self.word(k + 1) == "same" && self.word(k + 3) == "as" {
                    let rel = match self.word(k + 2) {
                        "color" | "colour" => Relation::SameColor,
                        "size" => Relation::SameSize,
                        _ => return Ok(None),
                    };
                    self.pos += k + 4;
                    rel
                } else {
                    return Ok(None);
                }
            }
            "in" => {
                if self.eat_seq(&["in", "a", "tower"]) {
                    return Ok(Some(Filter::InTower));
                }
                if self.eat_seq(&["in", "a", "stack"]) {
                    return Ok(Some(Filter::Stacked));
                }
                if self.eat_seq(&["in", "contact", "with"]) {
                    Relation::Touching
                } else {
                    return Ok(None);
                }
            }
            "at" => {
                if self.eat_seq(&["at", "the", "top", "of", "a", "tower"]) {
                    return Ok(Some(Filter::TopOfTower));
                }
                if self.eat_seq(&["at", "the", "bottom", "of", "a", "tower"]) {
                    return Ok(Some(Filter::BottomOfTower));
                }
                return Ok(None);
            }
            "with" => {
                // "with a piece inserted into it", "with a piece inside it", "with a piece on it".
                self.pos += 1;
                let Ok(other) = self.object_filter() else {
                    self.pos = save;
                    return Ok(None);
                };
                let rel = if self.eat_seq(&["inserted", "into", "it"])
                    || self.eat_seq(&["inserted", "in", "it"])
                {
                    Relation::Receiving
                } else if self.eat_seq(&["inside", "it"]) || self.eat_seq(&["nested", "in", "it"]) {
                    Relation::Holding
                } else if self.eat_seq(&["on", "top", "of", "it"]) || self.eat_seq(&["on", "it"]) {
                    Relation::Under
                } else {
                    self.pos = save;
                    return Ok(None);
                };
                return Ok(Some(Filter::rel(rel, other)));
            }
            _ => return Ok(None),
        };
        // The object.
        if self.eat_seq(&["each", "other"]) || self.eat_seq(&["one", "another"]) {
            return Ok(Some(Filter::rel(rel, head.clone())));
        }
        if self.eat("nothing")
            || self.eat_seq(&["no", "other", "piece"])
            || self.eat_seq(&["no", "other", "pieces"])
        {
            return Ok(Some(Filter::not(Filter::rel(rel, Filter::Any))));
        }
        if self.eat("no") {
            let f = self.np_head()?;
            return Ok(Some(Filter::not(Filter::rel(rel, f))));
        }
        let other = self.object_filter()?;
        Ok(Some(Filter::rel(rel, other)))
    }

    /// The object of a relation: "a blue piece", "another piece", "other pieces", "any piece".
    fn object(&mut self) -> R<Filter> {
        self.object_filter()
    }

    fn object_filter(&mut self) -> R<Filter> {
        self.eat_any(&["a", "an", "another", "any", "some", "other", "the"]);
        self.eat_seq(&["at", "least", "one"]);
        self.eat_any(&["other"]);
        let head = self.np_head()?;
        if self.at_seq(&["that", "is", "("]) {
            self.pos += 3;
            let p = self.pred_or(&head)?;
            self.expect(")")?;
            return Ok(Filter::and(vec![head, p]));
        }
        // A relative clause belongs to the nearest noun: "pointing at a piece that is upright".
        if matches!(self.word(0), "that" | "which")
            && self.word(1) == "is"
            && self.pred_starts(2)
            && !self.group_suffix_at(0)
        {
            self.pos += 2;
            let p = self.pred_or(&head)?;
            return Ok(Filter::and(vec![head, p]));
        }
        Ok(head)
    }

    // ---- predicates ("is upright", "are touching each other") ----

    fn pred_or(&mut self, head: &Filter) -> R<Filter> {
        let mut parts = vec![self.pred_and(head)?];
        while self.at("or") && self.pred_starts(1) {
            self.pos += 1;
            parts.push(self.pred_and(head)?);
        }
        Ok(Filter::or(parts))
    }

    fn pred_and(&mut self, head: &Filter) -> R<Filter> {
        let mut parts = vec![self.pred_unary(head)?];
        while self.at("and") && self.pred_starts(1) {
            self.pos += 1;
            parts.push(self.pred_unary(head)?);
        }
        Ok(Filter::and(parts))
    }

    fn pred_starts(&self, k: usize) -> bool {
        // A bracket opens a predicate only if a predicate word follows ("(it contains" does not).
        self.word(k) == "not"
            || (self.word(k) == "(" && self.pos + k < self.tokens.len() && self.pred_starts(k + 1))
            || self.adjective_at(k).is_some()
            || self.rel_starts(k)
    }

    fn pred_unary(&mut self, head: &Filter) -> R<Filter> {
        self.enter()?;
        let p = self.pred_unary_inner(head);
        self.depth -= 1;
        p
    }

    fn pred_unary_inner(&mut self, head: &Filter) -> R<Filter> {
        if self.eat("not") {
            return Ok(Filter::not(self.pred_unary(head)?));
        }
        if self.eat("(") {
            let p = self.pred_or(head)?;
            self.expect(")")?;
            return Ok(p);
        }
        if let Some(f) = self.rel_phrase(head)? {
            return Ok(f);
        }
        if let Some((f, _, len)) = self.adjective_at(0) {
            self.pos += len;
            // "an upright red piece" after "is": the noun is optional.
            return Ok(f);
        }
        if self.eat_any(&["a", "an"]) {
            let f = self.np_head()?;
            return Ok(f);
        }
        Err(self.fail(&["upright", "flat", "red", "touching", "pointing at", "not"]))
    }
}

/// The two readings of "all its X …" when there may be too few X: true when none of `failing`
/// exists (vacuously so, the western reading), or only when there are at least `minimum` X too.
fn vacuous_or_not(domain: &Filter, failing: Filter, minimum: u32) -> Vec<Cond> {
    let none_fail = Cond::Count {
        filter: failing,
        quant: Quant::Exactly(0),
    };
    let enough = Cond::Count {
        filter: domain.clone(),
        quant: Quant::AtLeast(minimum),
    };
    vec![none_fail.clone(), Cond::and(vec![enough, none_fail])]
}
