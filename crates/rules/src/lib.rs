//! The rule engine of koanscope: Zendo rules written the way players say them.
//!
//! - [`parse`] reads controlled English ("A koan has the Buddha-nature if it contains at least
//!   one red piece", "The structure must contain exactly two Medium-sized pyramids") into a
//!   [`Rule`], asks which reading is meant for indefinite numbers, and refuses "mu" phrases with
//!   the explicit readings offered.
//! - [`render::rule`] gives the canonical plain-English form, which parses back to the same rule.
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
