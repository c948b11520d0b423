//! What every fuzz target checks, as plain functions of the input bytes.
//! The targets in `fuzz_targets/` call them under libFuzzer; the stable
//! test `tests/fuzz_corpus.rs` includes this same file and replays every
//! committed corpus file through them, so a finding stays guarded without
//! a nightly toolchain. Bad input may be refused, never crash; a panic
//! here is a finding.
#![allow(dead_code)] // each target uses one of the checks

use bashni::analyse;
use bashni_engine::protocol::{
    Change, GoCommand, Options, board_text, parse_go, parse_position, parse_setoption,
};
use bashni_engine::search::{self, Config, Limits};
use bashni_engine::tt::{LockFreeTable, Table};
use bashni_host::{openings, pdn};
use bashni_rules::{Colour, Game, KingLanding, Move, Position, RuleSet, Variant, divide, perft};
use std::sync::OnceLock;

/// A check of one input: returns, or panics with what is wrong.
pub type Check = fn(&[u8]);

/// Every check by target name: the names of `fuzz_targets/*.rs` and of
/// the corpus directories.
pub const TARGETS: [(&str, Check); 7] = [
    ("position", position),
    ("move_text", move_text),
    ("protocol_line", protocol_line),
    ("pdn", pdn_reader),
    ("openings", openings_reader),
    ("analyse", analyse_reader),
    ("play", play),
];

const LANDINGS: [KingLanding; 2] = [KingLanding::Continue, KingLanding::Free];

/// The single place that turns text into a position, so that a change of
/// the rules API touches one line.
fn parse_fen(variant: Variant, landing: KingLanding, text: &str) -> Option<Position> {
    Position::from_fen(&rules(variant, landing), text).ok()
}

fn rules(variant: Variant, landing: KingLanding) -> RuleSet {
    RuleSet::new(variant).with_king_landing(landing)
}

fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

/// A position's own invariants: its key is the key from scratch, its
/// string reads back to the same position, its legal moves agree with the
/// counters, each move reads back from its own text, and the board prints.
fn check_position(pos: &Position) {
    let fen = pos.to_fen();
    assert_eq!(
        pos.key(),
        pos.key_from_scratch(),
        "incremental key of {fen}"
    );
    let again = parse_fen(pos.variant(), pos.king_landing(), &fen)
        .unwrap_or_else(|| panic!("{fen} does not read back"));
    assert!(again == *pos, "{fen} reads back as {}", again.to_fen());
    let legal = pos.legal_moves();
    assert_eq!(pos.count_moves(), legal.len(), "count_moves of {fen}");
    assert_eq!(
        pos.has_capture(),
        legal.iter().any(Move::is_capture),
        "has_capture of {fen}"
    );
    for mv in &legal {
        let text = mv.to_string();
        match pos.parse_move(&text) {
            Ok(back) => assert!(back == *mv, "{text} reads back as {back} in {fen}"),
            Err(e) => panic!("{text}, legal in {fen}, does not read back: {e}"),
        }
    }
    let board = board_text(pos);
    assert!(board.contains(&fen), "d of {fen} lacks its position string");
}

/// A position string, read in both variants.
pub fn position(data: &[u8]) {
    let Some(text) = text(data) else { return };
    for variant in Variant::ALL {
        for landing in LANDINGS {
            if let Some(pos) = parse_fen(variant, landing, text) {
                check_position(&pos);
            }
        }
    }
}

/// Move text, without a position (squares, and the start position) and
/// with one: the input is `<position>\n<move> <move> ...`.
pub fn move_text(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let (fen, moves) = text.split_once('\n').unwrap_or(("", text));
    for variant in Variant::ALL {
        let start = Position::start(&RuleSet::new(variant));
        for word in moves.split_whitespace() {
            let _ = bashni_rules::parse_square(variant, word);
            if let Ok(mv) = start.parse_move(word) {
                assert!(start.legal_moves().contains(&mv), "{word} at the start");
            }
        }
        for landing in LANDINGS {
            if let Some(pos) = parse_fen(variant, landing, fen) {
                play_texts(pos, moves);
            }
        }
    }
}

/// Play the words of `moves` that are legal, one after the other.
fn play_texts(mut pos: Position, moves: &str) {
    for word in moves.split_whitespace() {
        let Ok(mv) = pos.parse_move(word) else {
            continue;
        };
        assert!(
            pos.legal_moves().contains(&mv),
            "{word} in {}",
            pos.to_fen()
        );
        pos.make(&mv);
        assert_eq!(pos.key(), pos.key_from_scratch(), "key after {word}");
    }
}

/// The controller's work for each line of the input, through the same
/// public parsers, options and search the engine's controller uses: the
/// options and position it holds stay consistent whatever the lines say.
pub fn protocol_line(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let mut controller = Controller::default();
    for line in text.lines().take(64) {
        controller.execute(line);
    }
}

struct Controller {
    options: Options,
    game: Game,
}

impl Default for Controller {
    fn default() -> Controller {
        let options = Options::default();
        Controller {
            game: Game::new(options.rules),
            options,
        }
    }
}

impl Controller {
    fn execute(&mut self, line: &str) {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let Some((&word, args)) = tokens.split_first() else {
            return;
        };
        match word {
            "setoption" => self.set_option(args),
            "position" => {
                let before = self.game.position().clone();
                match parse_position(args, self.options.rules) {
                    Ok(game) => self.game = game,
                    Err(e) => {
                        assert!(!e.to_string().is_empty());
                        assert!(*self.game.position() == before, "a bad position changed it");
                    }
                }
            }
            "go" => {
                if let Ok(command) = parse_go(args, self.game.position()) {
                    go(&self.game, command);
                }
            }
            "d" => {
                let _ = board_text(self.game.position());
            }
            "eval" => {
                let _ = bashni_engine::eval::explain(self.game.position());
            }
            _ => {}
        }
        let pos = self.game.position();
        assert_eq!(
            *self.game.rules(),
            self.options.rules,
            "rules after '{line}'"
        );
        assert_eq!(
            pos.variant(),
            self.options.rules.variant,
            "variant after '{line}'"
        );
        assert_eq!(pos.key(), pos.key_from_scratch(), "key after '{line}'");
    }

    fn set_option(&mut self, args: &[&str]) {
        let Ok((name, value)) = parse_setoption(args) else {
            return;
        };
        let before = self.options.clone();
        match self.options.set(&name, value.as_deref()) {
            Ok(Change::Variant) => self.game = Game::new(self.options.rules),
            Ok(Change::Rules) => self.game.set_rules(self.options.rules),
            Ok(_) => {}
            Err(_) => assert_eq!(
                before, self.options,
                "a refused setoption changed an option"
            ),
        }
    }
}

/// Run a `go` the controller accepted, kept small: perft to depth 2, a
/// search to depth 2 within 2,000 nodes. Its answer must be legal.
fn go(game: &Game, command: GoCommand) {
    let pos = game.position();
    let limits = match command {
        GoCommand::Perft(depth) => {
            let depth = depth.min(2);
            let total: u64 = divide(pos, depth).iter().map(|(_, n)| n).sum();
            assert_eq!(total, perft(&mut pos.clone(), depth), "divide and perft");
            return;
        }
        GoCommand::Search(limits) => limits,
    };
    let small = Limits {
        depth: Some(limits.depth.unwrap_or(2).min(2)),
        nodes: Some(limits.nodes.unwrap_or(2_000).min(2_000)),
        search_moves: limits.search_moves.clone(),
        mate: limits.mate,
        ..Limits::default()
    };
    // One small table for every run, emptied so that runs stay independent.
    static TABLE: OnceLock<LockFreeTable> = OnceLock::new();
    let tt = TABLE.get_or_init(|| LockFreeTable::with_megabytes(1));
    tt.clear();
    let outcome = search::Searcher::new(tt, Config::default()).search(
        pos,
        game.repetition_keys(),
        &small,
        &mut |_| {},
    );
    let mut allowed = pos.legal_moves();
    if !limits.search_moves.is_empty() {
        allowed.retain(|m| limits.search_moves.contains(m));
    }
    match outcome.best {
        Some(best) => assert!(allowed.contains(&best), "bestmove {best} not allowed"),
        None => assert!(allowed.is_empty(), "no bestmove with moves to play"),
    }
}

/// The PDN reader; each game read is written and read back unchanged,
/// and its moves are played from its `FEN` tag as far as they are legal.
pub fn pdn_reader(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let Ok(games) = pdn::parse_pdn(text) else {
        return;
    };
    for game in games {
        let written = game.to_pdn();
        match pdn::parse_pdn(&written) {
            Ok(again) => assert_eq!(again, vec![game.clone()], "PDN written as {written:?}"),
            Err(e) => panic!("PDN written as {written:?} does not read back: {e}"),
        }
        let variant = game
            .tag("Variant")
            .and_then(|v| v.parse().ok())
            .unwrap_or(Variant::Bashni);
        let landing = game
            .tag("KingLanding")
            .and_then(|v| v.parse().ok())
            .unwrap_or_default();
        let start = match game.tag("FEN") {
            Some(fen) => parse_fen(variant, landing, fen),
            None => Some(Position::start(&rules(variant, landing))),
        };
        if let Some(pos) = start {
            play_texts(pos, &game.moves.join(" "));
        }
    }
}

/// The opening book reader: every position it accepts is valid and has a
/// legal move.
pub fn openings_reader(data: &[u8]) {
    let Some(text) = text(data) else { return };
    for variant in Variant::ALL {
        let Ok(book) = openings::parse_openings(variant, text) else {
            continue;
        };
        assert!(!book.is_empty(), "an empty book was accepted");
        for fen in book {
            let pos = parse_fen(variant, KingLanding::default(), &fen)
                .unwrap_or_else(|| panic!("the book accepted {fen:?}"));
            assert!(!pos.legal_moves().is_empty(), "{fen} has no move");
        }
    }
}

/// The `analyse` file reader: its best moves are legal in their positions.
pub fn analyse_reader(data: &[u8]) {
    let Some(text) = text(data) else { return };
    for variant in Variant::ALL {
        for landing in LANDINGS {
            let Ok(entries) = analyse::parse_file(text, rules(variant, landing)) else {
                continue;
            };
            for entry in entries {
                let legal = entry.position.legal_moves();
                for mv in &entry.best_moves {
                    assert!(legal.contains(mv), "bm {mv} on line {}", entry.line);
                }
            }
        }
    }
}

/// A fuzzed position (the input up to the first newline; the start
/// position when it does not parse), then the remaining bytes pick legal
/// moves one by one. Every position on the way passes `check_position`;
/// make/unmake restores position and key; nothing leaves the board.
pub fn play(data: &[u8]) {
    let (head, choices) = match data.iter().position(|&b| b == b'\n') {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (&data[..0], data),
    };
    let selector = choices.first().copied().unwrap_or(0);
    let variant = Variant::ALL[usize::from(selector & 1)];
    let landing = LANDINGS[usize::from(selector >> 1 & 1)];
    let mut pos = text(head)
        .and_then(|fen| parse_fen(variant, landing, fen))
        .unwrap_or_else(|| Position::start(&rules(variant, landing)));
    let pieces = |p: &Position| [Colour::White, Colour::Black].map(|c| p.piece_count(c));
    let counts = pieces(&pos);
    for &choice in choices.iter().skip(1).take(100) {
        check_position(&pos);
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        let mv = legal[usize::from(choice) % legal.len()];
        let before = pos.clone();
        let undo = pos.make(&mv);
        assert_eq!(pos.key(), pos.key_from_scratch(), "key after {mv}");
        assert_eq!(pieces(&pos), counts, "pieces after {mv}");
        pos.unmake(&mv, undo);
        assert!(pos == before, "unmake {mv} in {}", before.to_fen());
        pos.make(&mv);
    }
}
