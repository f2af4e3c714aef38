//! The game's books: Zendo played by the rules of the seeds, kept as a log of events.
//!
//! - [`Game`] is the state machine: set-up with a committed secret rule ([`Secret`]), the two
//!   initial koans, turns (build, Master or Mondo, guesses), counter-examples, breaking down,
//!   katsu, corrections, Guidance Mode, surrender and reveal, Puzzle and Head-to-Head modes.
//!   An illegal move is refused with a [`GameError`] and changes nothing.
//! - [`Store`] keeps the events in one SQLite file (WAL, one event per transaction, each with the
//!   scene documents of the koans it concerns); the state is the fold of the logged events, so a
//!   killed process resumes where it was.
//! - [`narrate`] tells an event in either [`Vocabulary`].
//!
//! ```
//! use koanscope_game::{Event, Game, Mode, RuleSource, Secret, Setup, Stones, Vocabulary};
//! let secret = Secret::new("A koan has the Buddha-nature if it contains at least one red piece.");
//! let mut game = Game::new();
//! game.learn_secret(0, secret.clone()).unwrap();
//! game.apply(&Event::Created(Setup {
//!     mode: Mode::Standard,
//!     master: "Ann".into(),
//!     students: vec!["Bob".into(), "Cat".into()],
//!     stones: Stones::standard(2),
//!     vocabulary: Vocabulary::Zen,
//!     koanscope_master: false,
//!     rule_source: RuleSource::Typed,
//!     commitment: secret.commitment(),
//! })).unwrap();
//! assert_eq!(game.students()[0].guessing_stones, 0);
//! ```

mod commit;
mod error;
mod event;
mod game;
mod koan;
pub mod master;
pub mod narrate;
mod store;
mod vocab;

pub use commit::{Secret, commitment};
pub use error::GameError;
pub use event::{Event, Mode, RuleSource, Setup, Stones};
pub use game::{
    Ending, Game, GameKoan, GuessEnd, GuessRecord, Mondo, Note, Origin, Outcome, PendingGuess,
    Phase, Revealed, RoundScore, Student,
};
pub use koan::{KoanNo, check_koan_scene, fingerprint, table_scene};
pub use store::{
    Durability, LoggedCorrection, SessionId, SessionInfo, Store, StoreError, StoredEvent,
};
pub use vocab::{Vocabulary, Words, parse_mark};
