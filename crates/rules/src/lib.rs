//! The rule engine of koanscope: Zendo rules written the way players say them.
//!
//! - [`parse`] reads controlled English ("A koan has the Buddha-nature if it contains at least
//!   one red piece", "The structure must contain exactly two Medium-sized pyramids") into a
//!   [`Rule`], asks which reading is meant for indefinite numbers, and refuses "mu" phrases with
//!   the explicit readings offered.
//! - [`render::rule`] gives the canonical plain-English form, which parses back to the same rule.
//! - [`KoanSummary`] compiles a koan of a scene (attributes and relations derived by the geometry
//!   engine) into bit masks once; [`KoanSummary::explain`] marks it with the reason in words, and
//!   [`mark_scene`] marks every koan of a scene.
//! - [`Library`] is the rule library (`data/library.toml`), [`check_guess`] lists the koans on the
//!   table a guess contradicts, and [`find_counterexample`] searches build [`Plan`]s for a koan
//!   the rule and a guess mark differently, built for real by a [`Realiser`] (the
//!   `koanscope-builder` crate implements it with the geometry engine).
//!
//! ```
//! use koanscope_rules::{Sketch, parse_rule, render};
//! let rule = parse_rule("Must contain zero Large's, or zero Small's.").unwrap();
//! assert_eq!(
//!     render::rule(&rule),
//!     "A koan has the Buddha-nature if and only if it contains no large pieces or no small pieces."
//! );
//! let koan = Sketch::parse("red large upright, blue small flat").unwrap().summary().unwrap();
//! let (mark, reason) = koan.explain(&rule);
//! assert_eq!((mark.word(), reason.as_str()), ("black", "contains 1 large piece; contains 1 small piece"));
//! ```
//!
//! Terms mean what `docs/zendo-terms.md` says.

pub mod ast;
pub mod counter;
mod error;
pub mod eval;
mod guess;
mod lexer;
pub mod library;
mod parser;
pub mod plan;
pub mod render;
pub mod sketch;

pub use ast::{
    AttrValue, CmpOp, Cond, EachOf, Filter, Key, Measure, Polarity, Quant, Relation, Rule,
};
pub use counter::{
    CounterExample, Realiser, SearchOptions, SearchResult, Stash, Style, find_counterexample,
};
pub use error::ParseError;
pub use eval::{EvalError, KoanMark, KoanSummary, PieceFacts, mark_scene};
pub use guess::{Contradiction, GuessCheck, check_guess};
pub use library::{Difficulty, Library, LibraryRule};
pub use parser::{Parsed, parse, parse_rule};
pub use plan::{Placement, Plan, PlanPiece};
pub use sketch::Sketch;
