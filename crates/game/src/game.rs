//! The game as a state machine: [`Game::apply`] takes one [`Event`], checks it against the rules
//! of Zendo (booklet and 2017 text) and either refuses it, changing nothing, or applies it and
//! says what followed ([`Outcome`]). Replaying a log is folding its events in order.

use std::collections::{BTreeMap, BTreeSet};

use koanscope_rules::{Rule, check_guess, mark_scene, parse_rule};
use koanscope_scene::{Mark, Scene};

use crate::commit::{Secret, commitment};
use crate::error::GameError;
use crate::event::{Event, Mode, Setup, Stones};
use crate::koan::{KoanNo, check_koan_scene, fingerprint, table_scene};

/// A student and the stones in front of them.
#[derive(Debug, Clone, PartialEq)]
pub struct Student {
    pub name: String,
    pub guessing_stones: u32,
    pub surrendered: bool,
    /// Official guesses disproved by a counter-example (Head-to-Head adds 2 points each).
    pub disproved: u32,
}

/// How a koan came to the table.
#[derive(Debug, Clone, PartialEq)]
pub enum Origin {
    Initial,
    Built { student: String },
    CounterExample { student: String, guess: String },
    Guidance,
}

/// A Mondo on one koan: the answers (revealed once the koan is marked) and who got a stone.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Mondo {
    pub answers: BTreeMap<String, Mark>,
    pub revealed: bool,
    pub awarded: Vec<String>,
}

/// A koan in the books.
#[derive(Debug, Clone, PartialEq)]
pub struct GameKoan {
    pub no: KoanNo,
    /// The koan's document as it was built (one koan, derived attributes).
    pub scene: Scene,
    pub mark: Option<Mark>,
    /// The secret rule's reading of the koan, when the rule is known here.
    pub reason: Option<String>,
    pub in_play: bool,
    pub disturbed: bool,
    pub origin: Origin,
    pub mondo: Option<Mondo>,
    /// Marks it carried before a correction, oldest first.
    pub corrected_from: Vec<Mark>,
}

/// Where the turn stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Phase {
    /// Before set-up.
    Unset,
    /// The Master builds the two initial koans.
    Initial,
    /// The student builds a koan.
    Build { student: String },
    /// The koan is built; the student says "Master" or "Mondo".
    Call { student: String, koan: KoanNo },
    /// The Master marks the koan (after a Mondo, once every student has answered).
    Marking { student: String, koan: KoanNo },
    /// The koan is marked; the student may guess, or pass.
    Guessing { student: String },
    /// Guidance Mode: the Master builds koans, anyone may guess, no stones.
    Guidance,
    /// The game (or this round) is over.
    Over,
}

/// An official or not-yet-official guess.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingGuess {
    pub student: String,
    pub text: String,
    pub rule: Rule,
    pub official: bool,
    /// A stone was spent (to be returned on retraction).
    pub stone: bool,
    /// Koans in play that contradict it, as last checked.
    pub contradicted_by: Vec<KoanNo>,
    /// Counter-examples built for it that did not disprove it (they stay on the table).
    pub failed_counter_examples: Vec<KoanNo>,
}

/// A guess and how it ended, for the report.
#[derive(Debug, Clone, PartialEq)]
pub struct GuessRecord {
    pub round: u32,
    pub student: String,
    /// Every wording, the last one the one that counted.
    pub texts: Vec<String>,
    pub end: GuessEnd,
}

#[derive(Debug, Clone, PartialEq)]
pub enum GuessEnd {
    Open,
    Retracted,
    Disproved { koan: KoanNo },
    Stands,
}

/// How a game (or a round) ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Ending {
    Won { student: String, guess: String },
    AllSurrendered,
}

/// A finished Head-to-Head (or Puzzle) round: who solved, and the score (lower is better).
#[derive(Debug, Clone, PartialEq)]
pub struct RoundScore {
    pub solver: String,
    pub master: String,
    /// `None` when the solver gave up.
    pub score: Option<u32>,
    pub koans: u32,
    pub disproved_guesses: u32,
}

/// The revealed rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Revealed {
    pub text: String,
    pub round: u32,
}

/// What followed from an event, for people watching (and for the store: the koans concerned).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Outcome {
    /// Koans the event concerns (their scene documents are stored with the event).
    pub koans: Vec<KoanNo>,
    pub notes: Vec<Note>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Note {
    /// What the secret rule says of a koan (the Master's console only).
    RuleSays {
        koan: KoanNo,
        mark: Mark,
        reason: String,
    },
    /// The Master marked against the rule engine's reading, as a judgment call.
    JudgmentCall {
        koan: KoanNo,
    },
    /// A koan in play contradicts the guess.
    Contradiction {
        koan: KoanNo,
        marked: Mark,
        guess_says: Mark,
        reason: String,
    },
    GuessClear,
    MondoRevealed {
        answers: Vec<(String, Mark)>,
    },
    StoneAwarded {
        student: String,
    },
    /// The Master had no guessing stone left to award.
    NoStoneToAward {
        student: String,
    },
    /// A stone awarded for a wrong answer is taken back after a correction.
    StoneTakenBack {
        student: String,
        taken: bool,
    },
    StoneReturned {
        student: String,
    },
    /// The counter-example is marked as the guess would mark it: it stays, another is needed.
    CounterExampleFails {
        koan: KoanNo,
    },
    GuessDisproved {
        student: String,
        koan: KoanNo,
    },
    Won {
        student: String,
    },
    AllSurrendered,
    Turn {
        student: String,
    },
    RoundScored(RoundScore),
    RuleVerified {
        text: String,
    },
}

/// The state of one game: the fold of its events.
#[derive(Debug, Clone, PartialEq)]
pub struct Game {
    setup: Option<Setup>,
    /// The Master's secrets by round, when this copy of the books is the Master's.
    secrets: BTreeMap<u32, (Secret, Rule)>,
    round: u32,
    commitment: String,
    master: String,
    students: Vec<Student>,
    koans: Vec<GameKoan>,
    /// Marking stones in front of the Master: white, black.
    marking: [u32; 2],
    guessing_pool: u32,
    phase: Phase,
    guess: Option<PendingGuess>,
    guidance: bool,
    ending: Option<Ending>,
    revealed: Vec<Revealed>,
    rounds: Vec<RoundScore>,
    guesses: Vec<GuessRecord>,
    events: u64,
    /// Folding a log: the Master's logged marks stand even where today's rule engine reads a
    /// koan otherwise (the books record what happened; the engine may have changed since).
    replaying: bool,
}

impl Default for Game {
    fn default() -> Game {
        Game::new()
    }
}

fn idx(m: Mark) -> usize {
    match m {
        Mark::White => 0,
        Mark::Black => 1,
    }
}

fn other(m: Mark) -> Mark {
    match m {
        Mark::White => Mark::Black,
        Mark::Black => Mark::White,
    }
}

impl Game {
    /// A game before set-up, with no secret known (a student's copy of the books).
    pub fn new() -> Game {
        Game {
            setup: None,
            secrets: BTreeMap::new(),
            round: 0,
            commitment: String::new(),
            master: String::new(),
            students: Vec::new(),
            koans: Vec::new(),
            marking: [0, 0],
            guessing_pool: 0,
            phase: Phase::Unset,
            guess: None,
            guidance: false,
            ending: None,
            revealed: Vec::new(),
            rounds: Vec::new(),
            guesses: Vec::new(),
            events: 0,
            replaying: false,
        }
    }

    /// Gives this copy of the books the Master's secret for a round (0 first): marks are then
    /// checked against the rule. The secret must parse; its commitment is checked at set-up.
    pub fn learn_secret(&mut self, round: u32, secret: Secret) -> Result<(), GameError> {
        let rule = parse_rule(&secret.text).map_err(GameError::Rule)?;
        if self.setup.is_some() && round == self.round && secret.commitment() != self.commitment {
            return Err(GameError::SecretMismatch);
        }
        self.secrets.insert(round, (secret, rule));
        Ok(())
    }

    // ---- reading the state ----

    pub fn setup(&self) -> Option<&Setup> {
        self.setup.as_ref()
    }
    pub fn mode(&self) -> Mode {
        self.setup
            .as_ref()
            .map(|s| s.mode)
            .unwrap_or(Mode::Standard)
    }
    pub fn round(&self) -> u32 {
        self.round
    }
    pub fn commitment(&self) -> &str {
        &self.commitment
    }
    pub fn master(&self) -> &str {
        &self.master
    }
    pub fn students(&self) -> &[Student] {
        &self.students
    }
    pub fn student(&self, name: &str) -> Option<&Student> {
        self.students.iter().find(|s| s.name == name)
    }
    pub fn koans(&self) -> &[GameKoan] {
        &self.koans
    }
    pub fn koan(&self, no: KoanNo) -> Option<&GameKoan> {
        self.koans.iter().find(|k| k.no == no)
    }
    pub fn koans_in_play(&self) -> impl Iterator<Item = &GameKoan> {
        self.koans.iter().filter(|k| k.in_play)
    }
    pub fn phase(&self) -> &Phase {
        &self.phase
    }
    pub fn guess(&self) -> Option<&PendingGuess> {
        self.guess.as_ref()
    }
    pub fn guidance(&self) -> bool {
        self.guidance
    }
    pub fn ending(&self) -> Option<&Ending> {
        self.ending.as_ref()
    }
    pub fn revealed(&self) -> &[Revealed] {
        &self.revealed
    }
    pub fn rounds(&self) -> &[RoundScore] {
        &self.rounds
    }
    pub fn guesses(&self) -> &[GuessRecord] {
        &self.guesses
    }
    /// Marking stones left in front of the Master: (white, black).
    pub fn marking_stones(&self) -> (u32, u32) {
        (self.marking[0], self.marking[1])
    }
    pub fn guessing_pool(&self) -> u32 {
        self.guessing_pool
    }
    pub fn events_applied(&self) -> u64 {
        self.events
    }
    /// The secret rule of the current round, when this copy of the books knows it.
    pub fn secret(&self) -> Option<&Secret> {
        self.secrets.get(&self.round).map(|(s, _)| s)
    }
    pub fn secret_rule(&self) -> Option<&Rule> {
        self.secrets.get(&self.round).map(|(_, r)| r)
    }
    /// Whether the whole game (every round) is over.
    pub fn finished(&self) -> bool {
        self.phase == Phase::Over
            && (self.mode() != Mode::HeadToHead || self.round >= 1)
            && self.revealed.iter().any(|r| r.round == self.round)
    }

    /// Head-to-Head: the winner (lower score) once both rounds are scored; `None` on a tie.
    pub fn match_winner(&self) -> Option<&str> {
        let [a, b] = self.rounds.as_slice() else {
            return None;
        };
        match (a.score, b.score) {
            (Some(x), Some(y)) if x < y => Some(&a.solver),
            (Some(x), Some(y)) if y < x => Some(&b.solver),
            (Some(_), None) => Some(&a.solver),
            (None, Some(_)) => Some(&b.solver),
            _ => None,
        }
    }

    /// What the secret rule says of a koan document.
    pub fn rule_mark(&self, scene: &Scene) -> Result<(Mark, String), GameError> {
        let rule = self.secret_rule().ok_or(GameError::NoSecret)?;
        check_koan_scene(scene)?;
        let marks = mark_scene(rule, scene).map_err(GameError::Eval)?;
        let m = marks
            .into_iter()
            .next()
            .ok_or_else(|| GameError::KoanDocument("it has no koan".into()))?;
        Ok((m.mark, m.reason))
    }

    /// The koans in play as one scene, each with its number and mark.
    pub fn table(&self) -> Scene {
        table_scene(self.koans_in_play().map(|k| (k.no, &k.scene, k.mark)))
    }

    /// The next koan's number.
    pub fn next_koan(&self) -> KoanNo {
        self.koans.len() as KoanNo + 1
    }

    /// The student whose turn it is, if any.
    pub fn turn(&self) -> Option<&str> {
        match &self.phase {
            Phase::Build { student }
            | Phase::Call { student, .. }
            | Phase::Marking { student, .. }
            | Phase::Guessing { student } => Some(student),
            _ => None,
        }
    }

    /// The active students who have not answered the open Mondo.
    pub fn awaiting_answers(&self) -> Vec<String> {
        let Phase::Marking { koan, .. } = &self.phase else {
            return Vec::new();
        };
        let Some(mondo) = self.koan(*koan).and_then(|k| k.mondo.as_ref()) else {
            return Vec::new();
        };
        self.students
            .iter()
            .filter(|s| !s.surrendered && !mondo.answers.contains_key(&s.name))
            .map(|s| s.name.clone())
            .collect()
    }

    /// The phase in words, for errors and the console.
    pub fn describe_phase(&self) -> String {
        if let Some(g) = &self.guess {
            return if g.official {
                format!("{}'s official guess awaits a counter-example", g.student)
            } else {
                format!("{}'s guess is not official yet", g.student)
            };
        }
        match &self.phase {
            Phase::Unset => "the game is not set up".into(),
            Phase::Initial => {
                let n = self.koans.len();
                format!("the Master is building the initial koans ({n} of 2 built)")
            }
            Phase::Build { student } => format!("{student} is to build a koan"),
            Phase::Call { student, koan } => {
                format!("{student} is to call Master or Mondo for koan {koan}")
            }
            Phase::Marking { koan, .. } => {
                let missing = self.awaiting_answers();
                if missing.is_empty() {
                    format!("the Master is to mark koan {koan}")
                } else {
                    format!("Mondo on koan {koan}, waiting for {}", missing.join(", "))
                }
            }
            Phase::Guessing { student } => {
                format!("{student} may guess the rule or pass")
            }
            Phase::Guidance => "Guidance Mode: the Master builds koans, anyone may guess".into(),
            Phase::Over => match &self.ending {
                Some(Ending::Won { student, .. }) => format!("the game is over: {student} won"),
                _ => "the game is over".into(),
            },
        }
    }

    /// The phase in a vocabulary's words (the text is the game's own, names aside).
    pub fn describe_phase_in(&self, v: crate::vocab::Vocabulary) -> String {
        let text = self.describe_phase();
        if v == crate::vocab::Vocabulary::Zen {
            return text;
        }
        let w = v.words();
        text.replace(
            "Master or Mondo",
            &format!("{} or {}", w.call_master, w.call_mondo),
        )
        .replace("Mondo", w.call_mondo)
        .replace("Master", w.master)
        .replace("koans", w.koans)
        .replace("koan", w.koan)
    }

    // ---- applying events ----

    /// Applies one event. A refused event changes nothing.
    pub fn apply(&mut self, event: &Event) -> Result<Outcome, GameError> {
        let mut next = self.clone();
        let outcome = next.step(event)?;
        next.events += 1;
        *self = next;
        Ok(outcome)
    }

    /// Applies one event read from the books: as [`Game::apply`], but the Master's logged marks
    /// stand even where today's rule engine reads the koan otherwise.
    pub fn apply_logged(&mut self, event: &Event) -> Result<Outcome, GameError> {
        self.replaying = true;
        let result = self.apply(event);
        self.replaying = false;
        result
    }

    /// Folds a log of events (the Master's secrets, if known, given by round). The log holds
    /// only moves that were accepted, so marks are not refused again; a secret today's rule
    /// engine cannot read is left out (the books still replay, without the rule's readings).
    pub fn replay<'a>(
        events: impl IntoIterator<Item = &'a Event>,
        secrets: impl IntoIterator<Item = (u32, Secret)>,
    ) -> Result<Game, (u64, GameError)> {
        let mut game = Game::new();
        for (round, s) in secrets {
            match game.learn_secret(round, s) {
                Ok(()) | Err(GameError::Rule(_)) => {}
                Err(e) => return Err((0, e)),
            }
        }
        game.replaying = true;
        for (i, e) in events.into_iter().enumerate() {
            // Mutated in place: no copy needed, a failure here means a damaged log.
            game.step(e).map_err(|err| (i as u64, err))?;
            game.events += 1;
        }
        game.replaying = false;
        Ok(game)
    }

    fn not_now(&self, what: &str) -> GameError {
        GameError::NotNow {
            what: what.to_string(),
            now: self.describe_phase(),
        }
    }

    fn active_student(&self, name: &str) -> Result<usize, GameError> {
        let i = self
            .students
            .iter()
            .position(|s| s.name == name)
            .ok_or_else(|| GameError::NotAStudent {
                name: name.to_string(),
            })?;
        if self.students[i].surrendered {
            return Err(GameError::Surrendered {
                name: name.to_string(),
            });
        }
        Ok(i)
    }

    fn koan_index(&self, no: KoanNo) -> Result<usize, GameError> {
        self.koans
            .iter()
            .position(|k| k.no == no)
            .ok_or(GameError::UnknownKoan(no))
    }

    /// The next active student after `name` in turn order.
    fn next_after(&self, name: &str) -> Option<String> {
        let n = self.students.len();
        let start = self.students.iter().position(|s| s.name == name)?;
        (1..=n)
            .map(|d| &self.students[(start + d) % n])
            .find(|s| !s.surrendered)
            .map(|s| s.name.clone())
    }

    fn first_active(&self) -> Option<String> {
        self.students
            .iter()
            .find(|s| !s.surrendered)
            .map(|s| s.name.clone())
    }

    fn stones_used(&self) -> bool {
        self.mode() == Mode::Standard && !self.guidance
    }

    /// Checks a Master's mark against the secret rule (when known): the rule's reading, or a
    /// refusal when the two disagree and the Master did not call it a judgment.
    fn check_mark(
        &self,
        scene: &Scene,
        mark: Mark,
        judgment: bool,
    ) -> Result<Option<(Mark, String)>, GameError> {
        if self.secret_rule().is_none() {
            return Ok(None);
        }
        let (rule_says, reason) = self.rule_mark(scene)?;
        if rule_says != mark && !judgment && !self.replaying {
            return Err(GameError::MarkDisagrees {
                mark,
                rule_says,
                reason,
            });
        }
        Ok(Some((rule_says, reason)))
    }

    fn take_marking_stone(&mut self, mark: Mark) -> Result<(), GameError> {
        let n = &mut self.marking[idx(mark)];
        if *n == 0 {
            return Err(GameError::NoMarkingStone(mark));
        }
        *n -= 1;
        Ok(())
    }

    fn add_koan(&mut self, scene: &Scene, mark: Option<Mark>, origin: Origin) -> KoanNo {
        let no = self.next_koan();
        let mut scene = scene.clone();
        // The game keeps the mark; the document carries it too, so a stored scene reads alone.
        for k in &mut scene.koans {
            k.id = no;
            k.mark = mark;
        }
        for p in &mut scene.pieces {
            p.koan = Some(no);
        }
        self.koans.push(GameKoan {
            no,
            scene,
            mark,
            reason: None,
            in_play: true,
            disturbed: false,
            origin,
            mondo: None,
            corrected_from: Vec::new(),
        });
        no
    }

    fn set_mark(&mut self, i: usize, mark: Mark) {
        let k = &mut self.koans[i];
        k.mark = Some(mark);
        for d in &mut k.scene.koans {
            d.mark = Some(mark);
        }
    }

    fn rule_note(koan: KoanNo, reading: &Option<(Mark, String)>, mark: Mark) -> Vec<Note> {
        let mut notes = Vec::new();
        if let Some((rule_says, reason)) = reading {
            notes.push(Note::RuleSays {
                koan,
                mark: *rule_says,
                reason: reason.clone(),
            });
            if *rule_says != mark {
                notes.push(Note::JudgmentCall { koan });
            }
        }
        notes
    }

    fn step(&mut self, event: &Event) -> Result<Outcome, GameError> {
        if let Event::Created(setup) = event {
            return self.create(setup);
        }
        if self.setup.is_none() {
            return Err(GameError::NotStarted);
        }
        // Katsu: nothing goes on until the disturbed koans are restored.
        let disturbed: Vec<KoanNo> = self
            .koans
            .iter()
            .filter(|k| k.disturbed)
            .map(|k| k.no)
            .collect();
        if !disturbed.is_empty() && !matches!(event, Event::Restored { .. } | Event::Katsu { .. }) {
            return Err(GameError::Disturbed { koans: disturbed });
        }
        match event {
            Event::Created(_) => unreachable!("handled above"),
            Event::InitialKoan {
                mark,
                scene,
                judgment,
            } => self.initial_koan(*mark, scene, *judgment),
            Event::Built { student, scene } => self.built(student, scene),
            Event::CallMaster { student } => self.call(student, false),
            Event::CallMondo { student } => self.call(student, true),
            Event::Answer { student, answer } => self.answer(student, *answer),
            Event::Marked { mark, judgment } => self.marked(*mark, *judgment),
            Event::Guess { student, text } => self.guess_made(student, text),
            Event::ChangeGuess { text } => self.change_guess(text),
            Event::Retract => self.retract(),
            Event::Official => self.official(),
            Event::CounterExample {
                mark,
                scene,
                judgment,
            } => self.counter_example(*mark, scene, *judgment),
            Event::GuessStands => self.guess_stands(),
            Event::Pass { student } => self.pass(student),
            Event::BreakDown { koans } => self.break_down(koans),
            Event::Katsu { koan, .. } => self.katsu(*koan),
            Event::Restored { koan, scene } => self.restored(*koan, scene.as_ref()),
            Event::Corrected {
                koan,
                mark,
                judgment,
            } => self.corrected(*koan, *mark, *judgment),
            Event::Guidance => self.guidance_on(),
            Event::GuidanceKoan {
                mark,
                scene,
                judgment,
            } => self.guidance_koan(*mark, scene, *judgment),
            Event::Surrender { student } => self.surrender(student),
            Event::Reveal { text, salt } => self.reveal(text, salt),
            Event::NextRound {
                rule_source,
                commitment,
            } => self.next_round(rule_source, commitment),
        }
    }

    fn create(&mut self, setup: &Setup) -> Result<Outcome, GameError> {
        if self.setup.is_some() {
            return Err(GameError::AlreadyStarted);
        }
        let bad = |m: &str| Err(GameError::Setup(m.to_string()));
        let name_ok =
            |n: &str| !n.trim().is_empty() && n.trim() == n && !n.contains(char::is_whitespace);
        if !name_ok(&setup.master) {
            return bad("the Master needs a name (one word)");
        }
        if let Some(n) = setup.students.iter().find(|n| !name_ok(n)) {
            return Err(GameError::Setup(format!(
                "student name {n:?}: names are one word"
            )));
        }
        let unique: BTreeSet<&String> = setup.students.iter().collect();
        if unique.len() != setup.students.len() {
            return bad("two students have the same name");
        }
        if setup.students.contains(&setup.master) {
            return bad("the Master is not also a student");
        }
        match setup.mode {
            Mode::Standard if setup.students.len() < 2 => {
                return bad(
                    "a standard game needs at least two students (with one, play Puzzle or Head-to-Head)",
                );
            }
            Mode::Puzzle | Mode::HeadToHead if setup.students.len() != 1 => {
                return bad("Puzzle and Head-to-Head are for two players: one Master, one student");
            }
            _ => {}
        }
        if setup.commitment.len() != 64 || !setup.commitment.bytes().all(|b| b.is_ascii_hexdigit())
        {
            return bad("the rule commitment must be a sha256 in hex");
        }
        if let Some((secret, _)) = self.secrets.get(&0)
            && secret.commitment() != setup.commitment
        {
            return Err(GameError::SecretMismatch);
        }
        let Stones {
            marking,
            guessing,
            initial_guessing,
        } = setup.stones;
        let n = setup.students.len() as u32;
        let stones_used = setup.mode == Mode::Standard;
        let given = if stones_used { initial_guessing } else { 0 };
        if stones_used && given * n > guessing {
            return bad("not enough guessing stones to give every student their first ones");
        }
        self.setup = Some(setup.clone());
        self.commitment = setup.commitment.clone();
        self.master = setup.master.clone();
        self.students = setup
            .students
            .iter()
            .map(|name| Student {
                name: name.clone(),
                guessing_stones: given,
                surrendered: false,
                disproved: 0,
            })
            .collect();
        self.marking = [marking, marking];
        self.guessing_pool = guessing - given * n;
        self.phase = Phase::Initial;
        Ok(Outcome::default())
    }

    fn initial_koan(
        &mut self,
        mark: Mark,
        scene: &Scene,
        judgment: bool,
    ) -> Result<Outcome, GameError> {
        if self.phase != Phase::Initial {
            return Err(self.not_now("an initial koan"));
        }
        check_koan_scene(scene)?;
        if let Some(k) = self.koans.iter().find(|k| k.mark == Some(mark)) {
            let _ = k;
            return Err(GameError::InitialMarkTaken(mark));
        }
        let reason = self.check_mark(scene, mark, judgment)?;
        self.take_marking_stone(mark)?;
        let no = self.add_koan(scene, Some(mark), Origin::Initial);
        if let Some(k) = self.koans.last_mut() {
            k.reason = reason.as_ref().map(|r| r.1.clone());
        }
        let mut out = Outcome {
            koans: vec![no],
            notes: Self::rule_note(no, &reason, mark),
        };
        if self.koans.len() == 2 {
            let first = self.first_active().ok_or(GameError::NotStarted)?;
            out.notes.push(Note::Turn {
                student: first.clone(),
            });
            self.phase = Phase::Build { student: first };
        }
        Ok(out)
    }

    fn guard_no_guess(&self) -> Result<(), GameError> {
        if let Some(g) = &self.guess {
            return Err(GameError::GuessOpen {
                student: g.student.clone(),
            });
        }
        Ok(())
    }

    fn built(&mut self, student: &str, scene: &Scene) -> Result<Outcome, GameError> {
        self.active_student(student)?;
        self.guard_no_guess()?;
        let mut notes = Vec::new();
        match &self.phase {
            Phase::Build { student: s } if s == student => {}
            Phase::Build { student: s } => {
                return Err(GameError::NotYourTurn {
                    name: student.into(),
                    expected: s.clone(),
                });
            }
            // Building the next koan ends the previous student's turn.
            Phase::Guessing { student: s } => {
                let next = self.next_after(s).unwrap_or_else(|| s.clone());
                if next != student {
                    return Err(GameError::NotYourTurn {
                        name: student.into(),
                        expected: next,
                    });
                }
                notes.push(Note::Turn {
                    student: student.to_string(),
                });
            }
            Phase::Guidance => {
                return Err(GameError::NotNow {
                    what: "a student's koan".into(),
                    now: "in Guidance Mode the Master builds every koan".into(),
                });
            }
            _ => return Err(self.not_now("building a koan")),
        }
        check_koan_scene(scene)?;
        let no = self.add_koan(
            scene,
            None,
            Origin::Built {
                student: student.to_string(),
            },
        );
        // In two-player modes there is no Mondo: the Master marks every new koan.
        self.phase = if self.mode() == Mode::Standard {
            Phase::Call {
                student: student.to_string(),
                koan: no,
            }
        } else {
            Phase::Marking {
                student: student.to_string(),
                koan: no,
            }
        };
        Ok(Outcome {
            koans: vec![no],
            notes,
        })
    }

    fn call(&mut self, student: &str, mondo: bool) -> Result<Outcome, GameError> {
        self.active_student(student)?;
        let what = if mondo {
            "calling Mondo"
        } else {
            "calling Master"
        };
        if mondo && self.mode() != Mode::Standard {
            return Err(GameError::NotInMode {
                what: "Mondo (Quiz)".into(),
                mode: self.mode().word(),
            });
        }
        let Phase::Call { student: s, koan } = self.phase.clone() else {
            return Err(self.not_now(what));
        };
        if s != student {
            return Err(GameError::NotYourTurn {
                name: student.into(),
                expected: s,
            });
        }
        if mondo {
            let i = self.koan_index(koan)?;
            self.koans[i].mondo = Some(Mondo::default());
        }
        self.phase = Phase::Marking { student: s, koan };
        Ok(Outcome {
            koans: vec![koan],
            notes: Vec::new(),
        })
    }

    fn answer(&mut self, student: &str, answer: Mark) -> Result<Outcome, GameError> {
        let Phase::Marking { koan, .. } = self.phase.clone() else {
            return Err(self.not_now("a Mondo answer"));
        };
        let i = self.koan_index(koan)?;
        if self.koans[i].mondo.is_none() {
            return Err(GameError::NotNow {
                what: "a Mondo answer".into(),
                now: format!("koan {koan} was called Master, not Mondo"),
            });
        }
        self.active_student(student)?;
        let mondo = self.koans[i].mondo.get_or_insert_with(Mondo::default);
        if mondo.answers.contains_key(student) {
            return Err(GameError::AlreadyAnswered {
                student: student.to_string(),
            });
        }
        mondo.answers.insert(student.to_string(), answer);
        // The answer stays hidden until the koan is marked.
        Ok(Outcome {
            koans: vec![koan],
            notes: Vec::new(),
        })
    }

    fn marked(&mut self, mark: Mark, judgment: bool) -> Result<Outcome, GameError> {
        let Phase::Marking { student, koan } = self.phase.clone() else {
            // The commonest slip: marking the koan that was just marked.
            if let Phase::Guessing { .. } = &self.phase
                && let Some(k) = self.koans.iter().rev().find(|k| k.in_play)
                && let Some(m) = k.mark
            {
                return Err(GameError::AlreadyMarked {
                    koan: k.no,
                    mark: m,
                });
            }
            return Err(self.not_now("marking a koan"));
        };
        let missing = self.awaiting_answers();
        if !missing.is_empty() {
            return Err(GameError::AwaitingAnswers { missing });
        }
        let i = self.koan_index(koan)?;
        let reason = self.check_mark(&self.koans[i].scene, mark, judgment)?;
        self.take_marking_stone(mark)?;
        self.set_mark(i, mark);
        self.koans[i].reason = reason.as_ref().map(|r| r.1.clone());
        let mut notes = Self::rule_note(koan, &reason, mark);
        if let Some(mondo) = self.koans[i].mondo.clone() {
            notes.push(Note::MondoRevealed {
                answers: mondo.answers.iter().map(|(s, m)| (s.clone(), *m)).collect(),
            });
            let mut awarded = Vec::new();
            for (name, answer) in &mondo.answers {
                if *answer != mark {
                    continue;
                }
                notes.push(self.award(name));
                awarded.push(name.clone());
            }
            if let Some(m) = self.koans[i].mondo.as_mut() {
                m.revealed = true;
                m.awarded = awarded;
            }
        }
        self.after_turn_marked(&student, &mut notes);
        Ok(Outcome {
            koans: vec![koan],
            notes,
        })
    }

    fn award(&mut self, name: &str) -> Note {
        if self.guessing_pool == 0 {
            return Note::NoStoneToAward {
                student: name.to_string(),
            };
        }
        self.guessing_pool -= 1;
        if let Some(s) = self.students.iter_mut().find(|s| s.name == name) {
            s.guessing_stones += 1;
        }
        Note::StoneAwarded {
            student: name.to_string(),
        }
    }

    fn after_turn_marked(&mut self, student: &str, notes: &mut Vec<Note>) {
        let still_in = self.student(student).is_some_and(|s| !s.surrendered);
        if still_in {
            self.phase = Phase::Guessing {
                student: student.to_string(),
            };
        } else if let Some(next) = self.next_after(student) {
            notes.push(Note::Turn {
                student: next.clone(),
            });
            self.phase = Phase::Build { student: next };
        }
    }

    fn check_against_table(&self, rule: &Rule) -> Result<Vec<Note>, GameError> {
        let table = self.table();
        let check = check_guess(rule, &table).map_err(GameError::Eval)?;
        Ok(check
            .contradictions
            .into_iter()
            .map(|c| Note::Contradiction {
                koan: c.koan,
                marked: c.marked,
                guess_says: c.guess_says,
                reason: c.reason,
            })
            .collect())
    }

    fn contradicted(notes: &[Note]) -> Vec<KoanNo> {
        notes
            .iter()
            .filter_map(|n| match n {
                Note::Contradiction { koan, .. } => Some(*koan),
                _ => None,
            })
            .collect()
    }

    fn guess_made(&mut self, student: &str, text: &str) -> Result<Outcome, GameError> {
        let i = self.active_student(student)?;
        self.guard_no_guess()?;
        match &self.phase {
            Phase::Guessing { student: s } if s == student => {}
            Phase::Guessing { student: s } => {
                return Err(GameError::NotYourTurn {
                    name: student.into(),
                    expected: s.clone(),
                });
            }
            Phase::Guidance => {}
            _ => {
                return Err(GameError::NotNow {
                    what: "a guess".into(),
                    now: format!(
                        "{}; a guess comes after your koan is marked",
                        self.describe_phase()
                    ),
                });
            }
        }
        let stone = self.stones_used();
        if stone && self.students[i].guessing_stones == 0 {
            return Err(GameError::NoGuessingStone {
                student: student.to_string(),
            });
        }
        let rule = parse_rule(text).map_err(GameError::Guess)?;
        let notes = self.check_against_table(&rule)?;
        if stone {
            self.students[i].guessing_stones -= 1;
            self.guessing_pool += 1;
        }
        let contradicted_by = Self::contradicted(&notes);
        self.guess = Some(PendingGuess {
            student: student.to_string(),
            text: text.to_string(),
            rule,
            official: false,
            stone,
            contradicted_by: contradicted_by.clone(),
            failed_counter_examples: Vec::new(),
        });
        self.guesses.push(GuessRecord {
            round: self.round,
            student: student.to_string(),
            texts: vec![text.to_string()],
            end: GuessEnd::Open,
        });
        Ok(self.guess_outcome(notes, contradicted_by))
    }

    fn guess_outcome(&self, mut notes: Vec<Note>, koans: Vec<KoanNo>) -> Outcome {
        if koans.is_empty() {
            notes.push(Note::GuessClear);
        }
        Outcome { koans, notes }
    }

    fn open_guess(&self) -> Result<&PendingGuess, GameError> {
        let g = self.guess.as_ref().ok_or(GameError::NoGuess)?;
        if g.official {
            return Err(GameError::AlreadyOfficial);
        }
        Ok(g)
    }

    fn change_guess(&mut self, text: &str) -> Result<Outcome, GameError> {
        self.open_guess()?;
        let rule = parse_rule(text).map_err(GameError::Guess)?;
        let notes = self.check_against_table(&rule)?;
        let contradicted_by = Self::contradicted(&notes);
        if let Some(g) = self.guess.as_mut() {
            g.text = text.to_string();
            g.rule = rule;
            g.contradicted_by = contradicted_by.clone();
        }
        if let Some(r) = self.guesses.last_mut() {
            r.texts.push(text.to_string());
        }
        Ok(self.guess_outcome(notes, contradicted_by))
    }

    fn retract(&mut self) -> Result<Outcome, GameError> {
        let g = self.open_guess()?.clone();
        let mut notes = Vec::new();
        if g.stone {
            if let Some(s) = self.students.iter_mut().find(|s| s.name == g.student) {
                s.guessing_stones += 1;
            }
            self.guessing_pool = self.guessing_pool.saturating_sub(1);
            notes.push(Note::StoneReturned {
                student: g.student.clone(),
            });
        }
        self.guess = None;
        if let Some(r) = self.guesses.last_mut() {
            r.end = GuessEnd::Retracted;
        }
        Ok(Outcome {
            koans: Vec::new(),
            notes,
        })
    }

    fn official(&mut self) -> Result<Outcome, GameError> {
        let g = self.open_guess()?.clone();
        // Checked again: a koan may have been corrected since the guess was stated.
        let notes = self.check_against_table(&g.rule)?;
        let koans = Self::contradicted(&notes);
        if !koans.is_empty() {
            return Err(GameError::Contradicted { koans });
        }
        if let Some(g) = self.guess.as_mut() {
            g.official = true;
            g.contradicted_by.clear();
        }
        Ok(Outcome::default())
    }

    fn counter_example(
        &mut self,
        mark: Mark,
        scene: &Scene,
        judgment: bool,
    ) -> Result<Outcome, GameError> {
        let g = self.guess.clone().ok_or(GameError::NoGuess)?;
        if !g.official {
            return Err(GameError::NotOfficial);
        }
        check_koan_scene(scene)?;
        let reason = self.check_mark(scene, mark, judgment)?;
        let guess_says = {
            let marks = mark_scene(&g.rule, scene).map_err(GameError::Eval)?;
            marks.first().map(|m| m.mark).unwrap_or(other(mark))
        };
        self.take_marking_stone(mark)?;
        let no = self.add_koan(
            scene,
            Some(mark),
            Origin::CounterExample {
                student: g.student.clone(),
                guess: g.text.clone(),
            },
        );
        if let Some(k) = self.koans.last_mut() {
            k.reason = reason.as_ref().map(|r| r.1.clone());
        }
        let mut notes = Self::rule_note(no, &reason, mark);
        if guess_says == mark {
            // The booklet's "misunderstood guess": the koan stays, the Master builds another.
            if let Some(p) = self.guess.as_mut() {
                p.failed_counter_examples.push(no);
            }
            notes.push(Note::CounterExampleFails { koan: no });
        } else {
            if let Some(s) = self.students.iter_mut().find(|s| s.name == g.student) {
                s.disproved += 1;
            }
            self.guess = None;
            if let Some(r) = self.guesses.last_mut() {
                r.end = GuessEnd::Disproved { koan: no };
            }
            notes.push(Note::GuessDisproved {
                student: g.student,
                koan: no,
            });
        }
        Ok(Outcome {
            koans: vec![no],
            notes,
        })
    }

    fn guess_stands(&mut self) -> Result<Outcome, GameError> {
        let g = self.guess.clone().ok_or(GameError::NoGuess)?;
        if !g.official {
            return Err(GameError::NotOfficial);
        }
        self.guess = None;
        if let Some(r) = self.guesses.last_mut() {
            r.end = GuessEnd::Stands;
        }
        self.ending = Some(Ending::Won {
            student: g.student.clone(),
            guess: g.text,
        });
        self.phase = Phase::Over;
        let mut notes = vec![Note::Won {
            student: g.student.clone(),
        }];
        if self.mode() != Mode::Standard {
            let score = self.score_round(Some(&g.student));
            notes.push(Note::RoundScored(score));
        }
        Ok(Outcome {
            koans: Vec::new(),
            notes,
        })
    }

    /// Head-to-Head score: every koan of the round (in play or broken down) plus two per
    /// disproved guess.
    fn score_round(&mut self, solver: Option<&str>) -> RoundScore {
        let student = self.students.first().cloned();
        let name = student.as_ref().map(|s| s.name.clone()).unwrap_or_default();
        let disproved = student.as_ref().map(|s| s.disproved).unwrap_or(0);
        let koans = self.koans.len() as u32;
        let score = RoundScore {
            solver: name,
            master: self.master.clone(),
            score: solver.map(|_| koans + 2 * disproved),
            koans,
            disproved_guesses: disproved,
        };
        self.rounds.push(score.clone());
        score
    }

    fn pass(&mut self, student: &str) -> Result<Outcome, GameError> {
        self.active_student(student)?;
        self.guard_no_guess()?;
        let Phase::Guessing { student: s } = self.phase.clone() else {
            return Err(self.not_now("passing"));
        };
        if s != student {
            return Err(GameError::NotYourTurn {
                name: student.into(),
                expected: s,
            });
        }
        let next = self.next_after(&s).unwrap_or(s);
        self.phase = Phase::Build {
            student: next.clone(),
        };
        Ok(Outcome {
            koans: Vec::new(),
            notes: vec![Note::Turn { student: next }],
        })
    }

    fn break_down(&mut self, koans: &[KoanNo]) -> Result<Outcome, GameError> {
        if self.phase == Phase::Over {
            return Err(GameError::Over);
        }
        if koans.is_empty() {
            return Err(self.not_now("breaking down no koan"));
        }
        let mut seen = BTreeSet::new();
        for no in koans {
            let i = self.koan_index(*no)?;
            let k = &self.koans[i];
            if !k.in_play || !seen.insert(*no) {
                return Err(GameError::KoanNotInPlay(*no));
            }
            if k.mark.is_none() {
                return Err(GameError::KoanNotMarked(*no));
            }
        }
        for no in koans {
            let i = self.koan_index(*no)?;
            self.koans[i].in_play = false;
            if let Some(m) = self.koans[i].mark {
                self.marking[idx(m)] += 1;
            }
        }
        Ok(Outcome {
            koans: koans.to_vec(),
            notes: Vec::new(),
        })
    }

    fn katsu(&mut self, koan: KoanNo) -> Result<Outcome, GameError> {
        let i = self.koan_index(koan)?;
        if !self.koans[i].in_play {
            return Err(GameError::KoanNotInPlay(koan));
        }
        self.koans[i].disturbed = true;
        Ok(Outcome {
            koans: vec![koan],
            notes: Vec::new(),
        })
    }

    fn restored(&mut self, koan: KoanNo, scene: Option<&Scene>) -> Result<Outcome, GameError> {
        let i = self.koan_index(koan)?;
        if !self.koans[i].disturbed {
            return Err(GameError::NotDisturbed(koan));
        }
        if let Some(scene) = scene {
            check_koan_scene(scene)?;
            let logged = fingerprint(&self.koans[i].scene);
            let now = fingerprint(scene);
            if logged != now {
                return Err(GameError::NotAsLogged { koan, logged, now });
            }
        }
        // The logged document stays the koan's: the table is back to its previous state.
        self.koans[i].disturbed = false;
        Ok(Outcome {
            koans: vec![koan],
            notes: Vec::new(),
        })
    }

    fn corrected(
        &mut self,
        koan: KoanNo,
        mark: Mark,
        judgment: bool,
    ) -> Result<Outcome, GameError> {
        if self.phase == Phase::Over {
            return Err(GameError::Over);
        }
        let i = self.koan_index(koan)?;
        if !self.koans[i].in_play {
            return Err(GameError::KoanNotInPlay(koan));
        }
        let old = self.koans[i].mark.ok_or(GameError::KoanNotMarked(koan))?;
        if old == mark {
            return Err(GameError::SameMark { koan, mark });
        }
        let reason = self.check_mark(&self.koans[i].scene, mark, judgment)?;
        self.take_marking_stone(mark)?;
        self.marking[idx(old)] += 1;
        self.set_mark(i, mark);
        self.koans[i].reason = reason.as_ref().map(|r| r.1.clone());
        self.koans[i].corrected_from.push(old);
        let mut notes = Self::rule_note(koan, &reason, mark);
        // A Mondo on a mismarked koan paid the wrong students: settle it as it should have been.
        if let Some(mondo) = self.koans[i].mondo.clone()
            && mondo.revealed
        {
            for name in &mondo.awarded {
                let taken = match self.students.iter_mut().find(|s| &s.name == name) {
                    Some(s) if s.guessing_stones > 0 => {
                        s.guessing_stones -= 1;
                        true
                    }
                    _ => false,
                };
                if taken {
                    self.guessing_pool += 1;
                }
                notes.push(Note::StoneTakenBack {
                    student: name.clone(),
                    taken,
                });
            }
            let mut awarded = Vec::new();
            for (name, answer) in &mondo.answers {
                if *answer == mark {
                    notes.push(self.award(name));
                    awarded.push(name.clone());
                }
            }
            if let Some(m) = self.koans[i].mondo.as_mut() {
                m.awarded = awarded;
            }
        }
        Ok(Outcome {
            koans: vec![koan],
            notes,
        })
    }

    fn guidance_on(&mut self) -> Result<Outcome, GameError> {
        self.guard_no_guess()?;
        match self.phase {
            Phase::Build { .. } | Phase::Guessing { .. } => {}
            Phase::Guidance => {
                return Err(GameError::NotNow {
                    what: "Guidance Mode".into(),
                    now: "Guidance Mode is on already".into(),
                });
            }
            _ => return Err(self.not_now("switching to Guidance Mode")),
        }
        self.guidance = true;
        self.phase = Phase::Guidance;
        Ok(Outcome::default())
    }

    fn guidance_koan(
        &mut self,
        mark: Mark,
        scene: &Scene,
        judgment: bool,
    ) -> Result<Outcome, GameError> {
        if self.phase != Phase::Guidance {
            return Err(GameError::NotNow {
                what: "a guidance koan".into(),
                now: format!("{} (switch to Guidance Mode first)", self.describe_phase()),
            });
        }
        self.guard_no_guess()?;
        check_koan_scene(scene)?;
        let reason = self.check_mark(scene, mark, judgment)?;
        self.take_marking_stone(mark)?;
        let no = self.add_koan(scene, Some(mark), Origin::Guidance);
        if let Some(k) = self.koans.last_mut() {
            k.reason = reason.as_ref().map(|r| r.1.clone());
        }
        Ok(Outcome {
            koans: vec![no],
            notes: Self::rule_note(no, &reason, mark),
        })
    }

    fn surrender(&mut self, student: &str) -> Result<Outcome, GameError> {
        if self.phase == Phase::Over {
            return Err(GameError::Over);
        }
        let i = self.active_student(student)?;
        if self.guess.as_ref().is_some_and(|g| g.student == student) {
            return Err(GameError::GuessOpen {
                student: student.to_string(),
            });
        }
        self.students[i].surrendered = true;
        let mut notes = Vec::new();
        if self.students.iter().all(|s| s.surrendered) {
            self.ending = Some(Ending::AllSurrendered);
            self.phase = Phase::Over;
            notes.push(Note::AllSurrendered);
            if self.mode() != Mode::Standard {
                let score = self.score_round(None);
                notes.push(Note::RoundScored(score));
            }
            return Ok(Outcome {
                koans: Vec::new(),
                notes,
            });
        }
        // The turn moves on if it was theirs and nothing is half done.
        match self.phase.clone() {
            Phase::Build { student: s } | Phase::Guessing { student: s } if s == student => {
                if let Some(next) = self.next_after(&s) {
                    notes.push(Note::Turn {
                        student: next.clone(),
                    });
                    self.phase = Phase::Build { student: next };
                }
            }
            Phase::Call { student: s, koan } if s == student => {
                // Their koan still gets marked: the Master marks it at once.
                self.phase = Phase::Marking { student: s, koan };
            }
            _ => {}
        }
        Ok(Outcome {
            koans: Vec::new(),
            notes,
        })
    }

    fn reveal(&mut self, text: &str, salt: &str) -> Result<Outcome, GameError> {
        if self.phase != Phase::Over {
            return Err(GameError::NotOver);
        }
        if self.revealed.iter().any(|r| r.round == self.round) {
            return Err(GameError::AlreadyRevealed);
        }
        if commitment(text, salt) != self.commitment {
            return Err(GameError::CommitmentMismatch);
        }
        self.revealed.push(Revealed {
            text: text.to_string(),
            round: self.round,
        });
        Ok(Outcome {
            koans: Vec::new(),
            notes: vec![Note::RuleVerified {
                text: text.to_string(),
            }],
        })
    }

    fn next_round(
        &mut self,
        rule_source: &crate::event::RuleSource,
        new_commitment: &str,
    ) -> Result<Outcome, GameError> {
        if self.mode() != Mode::HeadToHead {
            return Err(GameError::NotInMode {
                what: "a second round".into(),
                mode: self.mode().word(),
            });
        }
        if self.round >= 1 {
            return Err(GameError::Over);
        }
        if self.phase != Phase::Over || !self.revealed.iter().any(|r| r.round == 0) {
            return Err(GameError::NotNow {
                what: "the second round".into(),
                now: "the first round must end and its rule be revealed".into(),
            });
        }
        if new_commitment.len() != 64 {
            return Err(GameError::Setup(
                "the rule commitment must be a sha256 in hex".into(),
            ));
        }
        if let Some((secret, _)) = self.secrets.get(&1)
            && secret.commitment() != new_commitment
        {
            return Err(GameError::SecretMismatch);
        }
        // Roles swap: the solver of round one is the Master of round two.
        let solver = self
            .students
            .first()
            .map(|s| s.name.clone())
            .unwrap_or_default();
        let master = std::mem::replace(&mut self.master, solver);
        self.students = vec![Student {
            name: master.clone(),
            guessing_stones: 0,
            surrendered: false,
            disproved: 0,
        }];
        if let Some(setup) = self.setup.as_mut() {
            setup.rule_source = rule_source.clone();
        }
        let stones = self.setup.as_ref().map(|s| s.stones.marking).unwrap_or(0);
        self.round = 1;
        self.commitment = new_commitment.to_string();
        self.koans.clear();
        self.marking = [stones, stones];
        self.guess = None;
        self.guidance = false;
        self.ending = None;
        self.phase = Phase::Initial;
        Ok(Outcome::default())
    }
}
