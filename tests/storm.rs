//! Protocol storms: the real binary gets seeded random streams of valid and
//! invalid commands (`go` of every kind, `stop` at random moments, commands
//! sent mid-search, `Threads` and `Hash` changed between searches), and the
//! test keeps a model of what the engine should hold. After every round it
//! checks that each valid `go` gave exactly one `bestmove`, legal in the
//! position set at that moment (and inside `searchmoves`), that an
//! erroneous command gave one error line and no `bestmove`, that every
//! `isready` was answered, and that `d` shows the position of the model.
//!
//! CI runs a few fixed seeds; `BASHNI_STORM_ROUNDS=N` (rounds per seed) and
//! `BASHNI_STORM_SEEDS=N` (seeds per test) scale it for a long run.
//! Commands are also queued behind a search that waits for `stop`, whose
//! `stop` comes later (`BASHNI_STORM_QUEUE_BEHIND_WAITING=0` stops them
//! first, as before the fix reproduced by the tests at the end).

mod support;

use bashni_rules::{Colour, KingLanding, Position, RuleSet, Variant, perft};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::time::{Duration, Instant};
use support::engine::Engine;

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The position the engine should hold, and the rules it was set under.
struct Model {
    variant: Variant,
    landing: KingLanding,
    position: Position,
}

impl Model {
    fn new() -> Model {
        Model {
            variant: Variant::Bashni,
            landing: KingLanding::Continue,
            position: Position::start(&RuleSet::default()),
        }
    }

    fn rules(&self) -> RuleSet {
        RuleSet::new(self.variant).with_king_landing(self.landing)
    }

    fn start_position(&self) -> Position {
        Position::start(&self.rules())
    }

    fn parse_fen(&self, fen: &str) -> Position {
        Position::from_fen(&self.rules(), fen)
            .unwrap_or_else(|e| panic!("the test's own position {fen:?}: {e}"))
    }
}

/// What one command must produce, in the order the commands were sent.
enum Expect {
    /// A `go` that starts a search: one `bestmove`, legal in `position`.
    Search {
        position: Box<Position>,
        search_moves: Vec<String>,
    },
    /// `go perft`: the total of the rules core's perft (or the perft
    /// stopped, by a `stop` read while it ran).
    Perft(u64),
    /// `d`: this FEN and key.
    Board { fen: String, key: String },
}

/// A search that ends only on `stop` (or on `ponderhit`, when it has a limit).
#[derive(Clone, Copy, PartialEq)]
enum Waiting {
    No,
    ForStop,
    ForStopOrPonderhit,
}

/// Sent commands of one round and what they must produce.
#[derive(Default)]
struct Round {
    sent: Vec<String>,
    expects: Vec<Expect>,
    errors: usize,
    readies: usize,
    ucis: usize,
}

struct Storm {
    engine: Engine,
    rng: StdRng,
    model: Model,
    round: Round,
    waiting: Waiting,
    /// Send commands that wait for the search behind one that waits for
    /// `stop` (on unless `BASHNI_STORM_QUEUE_BEHIND_WAITING=0`).
    queue_behind_waiting: bool,
    /// Totals over the whole storm, for the long run's report.
    commands: u64,
    searches: u64,
}

/// Bashni positions worth a visit: no legal move, a pending capture chain,
/// kings, and tall columns.
const BASHNI_SPECIALS: [&str; 4] = [
    "W:a1w,b2b,c3b 0 1",
    "W:c3w,d4bw,f6b 0 1",
    "B:c3W,e5bww,g7B,h8b 0 30",
    "W:a1wbbbbbbbbbbb,h8bwwwwwwwwwww 0 1",
];

impl Storm {
    fn new(seed: u64) -> Storm {
        Storm {
            engine: Engine::start(),
            rng: StdRng::seed_from_u64(seed),
            model: Model::new(),
            round: Round::default(),
            waiting: Waiting::No,
            queue_behind_waiting: env_number("BASHNI_STORM_QUEUE_BEHIND_WAITING", 1) != 0,
            commands: 0,
            searches: 0,
        }
    }

    fn send(&mut self, line: &str) {
        self.round.sent.push(line.to_string());
        self.commands += 1;
        self.engine.send(line);
    }

    /// A command that must be refused with one error line.
    fn send_invalid(&mut self, line: &str) {
        self.round.errors += 1;
        self.send(line);
    }

    fn chance(&mut self, percent: u32) -> bool {
        self.rng.random_range(0..100) < percent
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.rng.random_range(0..items.len())]
    }

    fn legal_texts(position: &Position) -> Vec<String> {
        position
            .legal_moves()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    /// Up to `plies` random legal moves from `from`: their texts and the end.
    fn random_line(&mut self, from: &Position, plies: usize) -> (Vec<String>, Position) {
        let mut position = from.clone();
        let mut texts = Vec::new();
        for _ in 0..plies {
            let moves = position.legal_moves();
            if moves.is_empty() {
                break;
            }
            let mv = moves[self.rng.random_range(0..moves.len())];
            texts.push(mv.to_string());
            position.make(&mv);
        }
        (texts, position)
    }

    fn with_moves(setup: String, moves: &[String]) -> String {
        if moves.is_empty() {
            setup
        } else {
            format!("{setup} moves {}", moves.join(" "))
        }
    }

    /// A valid `position` command; the model follows it.
    fn position(&mut self) {
        let start = self.model.start_position();
        let (setup, from) = match self.rng.random_range(0..4) {
            0 | 1 => ("position startpos".to_string(), start),
            2 => {
                let plies = self.rng.random_range(0..40);
                let (_, middle) = self.random_line(&start, plies);
                (format!("position fen {}", middle.to_fen()), middle)
            }
            _ if self.model.variant == Variant::Bashni => {
                let fen = self.pick(&BASHNI_SPECIALS);
                (format!("position fen {fen}"), self.model.parse_fen(fen))
            }
            _ => ("position startpos".to_string(), start),
        };
        let plies = self.rng.random_range(0..80);
        let (moves, end) = self.random_line(&from, plies);
        self.send(&Self::with_moves(setup, &moves));
        self.model.position = end;
    }

    /// A `position` command that must change nothing.
    fn invalid_position(&mut self) {
        let start = self.model.start_position();
        let plies = self.rng.random_range(0..20);
        let (mut moves, _) = self.random_line(&start, plies);
        moves.push(
            self.pick(&["zz", "a1-a1", "c3-d4-e5x", "k9-k10"])
                .to_string(),
        );
        let line = match self.rng.random_range(0..5) {
            0 => Self::with_moves("position startpos".into(), &moves),
            1 => "position fen W:c3wbw 0 1".into(),
            2 => "position fen".into(),
            3 => "position banana".into(),
            _ => "position".into(),
        };
        self.send_invalid(&line);
    }

    fn setoption(&mut self) {
        let line = match self.rng.random_range(0..12) {
            0..=2 => format!(
                "setoption name Threads value {}",
                self.rng.random_range(1..=8)
            ),
            3 | 4 => format!(
                "setoption name Hash value {}",
                self.rng.random_range(1..=64)
            ),
            5 => format!(
                "setoption name MultiPV value {}",
                self.rng.random_range(1..=4)
            ),
            6 => format!(
                "setoption name Skill Level value {}",
                self.pick(&["0", "0", "2", "5"])
            ),
            7 => format!(
                "setoption name Move Overhead value {}",
                self.rng.random_range(0..=30)
            ),
            8 => "setoption name Clear Hash".to_string(),
            9 => {
                let landing = self.pick(&["continue", "free"]);
                self.model.landing = landing.parse().expect("a landing rule");
                // The position stays; only its capture rule changes.
                self.model.position = self.model.parse_fen(&self.model.position.to_fen());
                format!("setoption name KingLanding value {landing}")
            }
            10 if self.chance(40) => {
                let variant = self.pick(&["bashni", "lasca"]);
                self.model.variant = variant.parse().expect("a variant");
                self.model.position = self.model.start_position();
                if self.chance(50) {
                    format!("setoption variant {variant}")
                } else {
                    format!("setoption name UCI_Variant value {variant}")
                }
            }
            _ => format!(
                "setoption name {} value {}",
                self.pick(&["NoProgressPlies", "MaxPlies"]),
                self.rng.random_range(0..=300)
            ),
        };
        self.send(&line);
    }

    fn invalid_setoption(&mut self) {
        let line = self.pick(&[
            "setoption name Threads value 0",
            "setoption name Threads value 1025",
            "setoption name Threads value many",
            "setoption name Hash value 0",
            "setoption name Hash value 65537",
            "setoption name Hash",
            "setoption name NoSuchOption value 3",
            "setoption name UCI_Variant value chess",
            "setoption name KingLanding value sideways",
            "setoption name Ponder value maybe",
            "setoption",
            "setoption name",
        ]);
        self.send_invalid(line);
    }

    /// Before a new search starts, the one waiting for `stop` must get it.
    fn release(&mut self) {
        let ponderhit = self.chance(50);
        match self.waiting {
            Waiting::No => {}
            Waiting::ForStopOrPonderhit if ponderhit => self.send("ponderhit"),
            _ => self.send("stop"),
        }
        self.waiting = Waiting::No;
    }

    fn clock(&mut self) -> String {
        let mut clock = format!(
            "wtime {} btime {}",
            self.rng.random_range(0..1500),
            self.rng.random_range(0..1500)
        );
        if self.chance(50) {
            let inc = self.rng.random_range(0..50);
            clock += &format!(" winc {inc} binc {inc}");
        }
        if self.chance(30) {
            clock += &format!(" movestogo {}", self.rng.random_range(1..20));
        }
        clock
    }

    /// A valid `go`; the model records what it must answer.
    fn go(&mut self) {
        self.release();
        let position = self.model.position.clone();
        let legal = Self::legal_texts(&position);
        let mut search_moves = Vec::new();
        let (args, waiting) = match self.rng.random_range(0..10) {
            0 => (
                format!("depth {}", self.rng.random_range(1..=5)),
                Waiting::No,
            ),
            1 => (
                format!("nodes {}", self.rng.random_range(1..20_000)),
                Waiting::No,
            ),
            2 => (
                format!("movetime {}", self.rng.random_range(0..40)),
                Waiting::No,
            ),
            3 => (self.clock(), Waiting::No),
            4 => ("infinite".to_string(), Waiting::ForStop),
            5 => (
                format!("ponder {}", self.clock()),
                Waiting::ForStopOrPonderhit,
            ),
            6 => ("ponder".to_string(), Waiting::ForStop),
            7 if !legal.is_empty() => {
                let count = self.rng.random_range(1..=legal.len());
                search_moves = legal[..count].to_vec();
                let depth = self.rng.random_range(1..=4);
                (
                    format!("depth {depth} searchmoves {}", search_moves.join(" ")),
                    Waiting::No,
                )
            }
            8 => {
                let depth = self.rng.random_range(1..=3);
                let mut p = position.clone();
                self.round.expects.push(Expect::Perft(perft(&mut p, depth)));
                self.send(&format!("go perft {depth}"));
                return;
            }
            _ => (
                format!(
                    "mate {} depth {}",
                    self.rng.random_range(1..=3),
                    self.rng.random_range(1..=5)
                ),
                Waiting::No,
            ),
        };
        self.round.expects.push(Expect::Search {
            position: Box::new(position),
            search_moves,
        });
        self.searches += 1;
        self.waiting = waiting;
        self.send(&format!("go {args}"));
    }

    /// A `go` that must be refused: no search, no `bestmove`.
    fn invalid_go(&mut self) {
        let missing_clock = match self.model.position.side_to_move() {
            Colour::White => "go btime 1000",
            Colour::Black => "go wtime 1000",
        };
        let line = self.pick(&[
            "go depth 0",
            "go nodes 0",
            "go depth -3",
            "go movetime soon",
            "go wtime 100 btime 100 movestogo 0",
            "go mate 0",
            "go perft 0",
            "go searchmoves zz",
            "go depth",
            missing_clock,
        ]);
        self.send_invalid(line);
    }

    fn board(&mut self) {
        self.round.expects.push(Expect::Board {
            fen: self.model.position.to_fen(),
            key: format!("{:016x}", self.model.position.key()),
        });
        self.send("d");
    }

    fn isready(&mut self) {
        self.round.readies += 1;
        self.send("isready");
    }

    /// Anything at all, some of it sent while a search runs.
    fn random_command(&mut self) {
        let roll = self.rng.random_range(0..100);
        // isready, stop, ponderhit, debug and pauses act at once; any other
        // command waits for the search. Unless switched off, it is queued
        // behind a search that waits for `stop`, whose `stop` comes later
        // (the `stop_read_before_its_search_started_*` tests pin this).
        let at_once = matches!(roll, 57..=64 | 71..=79 | 83 | 84 | 91..);
        if !at_once && !self.queue_behind_waiting {
            self.release();
        }
        match roll {
            0..=19 => self.go(),
            20..=24 => self.invalid_go(),
            25..=36 => self.position(),
            37..=40 => self.invalid_position(),
            41..=52 => self.setoption(),
            53..=56 => self.invalid_setoption(),
            57..=64 => self.isready(),
            65..=70 => self.board(),
            71..=76 => {
                self.send("stop");
                self.waiting = Waiting::No;
            }
            77..=79 => {
                // Acts on a ponder search only; never needed by one without limit.
                if self.waiting == Waiting::ForStopOrPonderhit {
                    self.waiting = Waiting::No;
                }
                if self.waiting == Waiting::No {
                    self.send("ponderhit");
                }
            }
            80..=82 => self.send("ucinewgame"),
            83 | 84 => {
                let on = self.pick(&["debug on", "debug off"]);
                self.send(on);
            }
            85 => {
                self.round.ucis += 1;
                self.send("uci");
            }
            86..=88 => {
                let word = self.pick(&["frobnicate", "go_", "POSITION startpos", "Stop"]);
                self.send_invalid(word);
            }
            89 => self.send_invalid("позиция startpos"),
            90 => {
                let blank = self.pick(&["", "   ", "\t"]);
                self.send(blank);
            }
            _ => {
                let pause = self.rng.random_range(0..20);
                std::thread::sleep(Duration::from_millis(pause));
            }
        }
        if self.waiting == Waiting::ForStop && self.chance(30) {
            // `stop` at a random moment of the search.
            let pause = self.rng.random_range(0..30);
            std::thread::sleep(Duration::from_millis(pause));
            self.release();
        }
    }

    /// End the round with `d` and check everything it produced.
    fn finish_round(&mut self) {
        self.release();
        self.board();
        let boards = self
            .round
            .expects
            .iter()
            .filter(|e| matches!(e, Expect::Board { .. }))
            .count();
        let mut lines = Vec::new();
        let round = std::mem::take(&mut self.round);
        let engine = &mut self.engine;
        let check = catch_unwind(AssertUnwindSafe(|| {
            let mut keys = 0;
            while keys < boards {
                let line = engine.line();
                keys += usize::from(line.starts_with("Key: "));
                lines.push(line);
            }
            check_round(&round, &lines)
        }));
        if let Err(panic) = check {
            eprintln!("commands of the failed round:");
            round.sent.iter().for_each(|l| eprintln!("> {l}"));
            lines.iter().for_each(|l| eprintln!("< {l}"));
            resume_unwind(panic);
        }
    }

    /// Quit must end the process at once.
    fn quit(mut self) {
        self.send("quit");
        assert!(self.engine.exits(), "engine did not quit");
    }
}

/// Match the output of a round against its expectations, in order.
fn check_round(round: &Round, lines: &[String]) {
    let mut expects = round.expects.iter();
    let mut fen = None;
    let (mut errors, mut readies, mut ucis) = (0, 0, 0);
    for line in lines {
        if line.starts_with("info string error: ") {
            errors += 1;
        } else if line == "readyok" {
            readies += 1;
        } else if line == "uciok" {
            ucis += 1;
        } else if let Some(rest) = line.strip_prefix("bestmove ") {
            match expects.next() {
                Some(Expect::Search {
                    position,
                    search_moves,
                }) => check_bestmove(position, search_moves, rest),
                _ => panic!("'{line}' answers no search"),
            }
        } else if line == "info string perft stopped: no count" {
            // A `stop` read while a `go perft` runs ends it.
            match expects.next() {
                Some(Expect::Perft(_)) => {}
                _ => panic!("'{line}' answers no go perft"),
            }
        } else if let Some(total) = line.strip_prefix("Nodes searched: ") {
            match expects.next() {
                Some(Expect::Perft(want)) => assert_eq!(total, want.to_string(), "perft total"),
                _ => panic!("'{line}' answers no go perft"),
            }
        } else if let Some(text) = line.strip_prefix("Fen: ") {
            fen = Some(text.to_string());
        } else if let Some(key_text) = line.strip_prefix("Key: ") {
            match expects.next() {
                Some(Expect::Board { fen: want, key }) => {
                    assert_eq!(fen.take().as_deref(), Some(want.as_str()), "d: position");
                    assert_eq!(key_text, key, "d: key of {want}");
                }
                _ => panic!("'{line}' answers no d"),
            }
        }
    }
    assert!(expects.next().is_none(), "some command got no answer");
    assert_eq!(errors, round.errors, "error lines");
    assert_eq!(readies, round.readies, "readyok lines");
    assert_eq!(ucis, round.ucis, "uciok lines");
}

/// `rest` is what follows `bestmove `: a legal move (inside `searchmoves`
/// when given) and perhaps `ponder <move legal after it>`.
fn check_bestmove(position: &Position, search_moves: &[String], rest: &str) {
    let words: Vec<&str> = rest.split_whitespace().collect();
    let legal = position.legal_moves();
    if legal.is_empty() {
        assert_eq!(words, ["(none)"], "no legal move in {}", position.to_fen());
        return;
    }
    let best = legal
        .iter()
        .find(|m| m.to_string() == words[0])
        .unwrap_or_else(|| panic!("bestmove {rest} is illegal in {}", position.to_fen()));
    if !search_moves.is_empty() {
        assert!(
            search_moves.iter().any(|m| m == words[0]),
            "bestmove {rest} is outside searchmoves {search_moves:?}"
        );
    }
    match words[1..] {
        [] => {}
        ["ponder", ponder] => {
            let mut after = position.clone();
            after.make(best);
            assert!(
                Storm::legal_texts(&after).iter().any(|m| m == ponder),
                "ponder move {ponder} is illegal after {} in {}",
                words[0],
                position.to_fen()
            );
        }
        _ => panic!("malformed bestmove line 'bestmove {rest}'"),
    }
}

/// One storm: `rounds` rounds of a few commands each, checked per round.
fn storm(seed: u64, rounds: u64) -> (u64, u64) {
    let mut storm = Storm::new(seed);
    for round in 0..rounds {
        let commands = storm.rng.random_range(1..12);
        for _ in 0..commands {
            storm.random_command();
        }
        let finished = catch_unwind(AssertUnwindSafe(|| storm.finish_round()));
        if let Err(panic) = finished {
            eprintln!("storm seed {seed} failed in round {round}");
            resume_unwind(panic);
        }
    }
    let totals = (storm.commands, storm.searches);
    storm.quit();
    totals
}

fn storms(first_seed: u64) {
    let seeds = env_number("BASHNI_STORM_SEEDS", 2);
    let rounds = env_number("BASHNI_STORM_ROUNDS", 40);
    let start = Instant::now();
    let (mut commands, mut searches) = (0, 0);
    for seed in first_seed..first_seed + seeds {
        let (c, s) = storm(seed, rounds);
        commands += c;
        searches += s;
    }
    eprintln!(
        "storm seeds {first_seed}..{}: {rounds} rounds each, {commands} commands, \
         {searches} searches, {:.1} s",
        first_seed + seeds,
        start.elapsed().as_secs_f64()
    );
}

#[test]
fn storm_seeds_1_and_2() {
    storms(1);
}

#[test]
fn storm_seeds_1001_and_1002() {
    storms(1001);
}

/// A long stream without rounds: commands pile up behind searches, and
/// only the end is checked.
#[test]
fn storm_without_pauses_keeps_its_state() {
    let mut storm = Storm::new(77);
    for _ in 0..env_number("BASHNI_STORM_ROUNDS", 40) * 5 {
        storm.random_command();
    }
    storm.finish_round();
    storm.quit();
}

/// Send `text` in one write and collect the output until a line starting
/// with `last` (or until `patience` has passed).
fn burst(text: &str, last: &str, patience: Duration) -> Vec<String> {
    let mut e = Engine::start();
    e.send(text.trim_end()); // one write: the reader gets every line at once
    let deadline = Instant::now() + patience;
    let mut lines = Vec::new();
    while Instant::now() < deadline {
        if let Some(line) = e.line_within(Duration::from_millis(100)) {
            let done = line.starts_with(last);
            lines.push(line);
            if done {
                break;
            }
        }
    }
    e.send("quit");
    lines
}

fn count(lines: &[String], prefix: &str) -> usize {
    lines.iter().filter(|l| l.starts_with(prefix)).count()
}

/// A GUI may send `go infinite`, `d` and `stop` in one write. The reader
/// thread reads `stop` before the controller has started the search; the
/// `stop` must still reach that search, or `d` (which waits for it) and
/// everything after it would hang.
#[test]
fn stop_read_before_its_search_started_still_ends_it() {
    let lines = burst("go infinite\nd\nstop\n", "Key:", Duration::from_secs(10));
    assert_eq!(count(&lines, "bestmove"), 1, "{lines:#?}");
    assert_eq!(count(&lines, "Key:"), 1, "{lines:#?}");
}

/// The same with `ponderhit` for a ponder search with a clock.
#[test]
fn ponderhit_read_before_its_search_started_still_reaches_it() {
    let lines = burst(
        "go ponder wtime 300 btime 300\nd\nponderhit\n",
        "Key:",
        Duration::from_secs(10),
    );
    assert_eq!(count(&lines, "bestmove"), 1, "{lines:#?}");
    assert_eq!(count(&lines, "Key:"), 1, "{lines:#?}");
}

/// An `isready` sent right after `bestmove` must wait for the commands
/// sent ahead of it (it once overtook them 116 of 300 times on a loaded
/// 2-core machine, when the search cleared its flag after `bestmove`).
/// Fifty tries make a pass by chance negligible.
#[test]
fn isready_right_after_bestmove_waits_for_earlier_commands() {
    let mut e = Engine::start();
    for _ in 0..50 {
        e.send("go depth 1");
        e.until("bestmove");
        e.send("setoption name NoSuchOption value 1");
        e.send("isready");
        let first = e.line();
        assert!(first.starts_with("info string error: "), "got '{first}'");
        assert_eq!(e.until("readyok").len(), 1);
    }
}
