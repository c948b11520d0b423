//! What every fuzz target checks, as plain functions of the input bytes.
//! The targets in `fuzz_targets/` call them under libFuzzer; the stable
//! test `tests/fuzz_corpus.rs` includes this same file and replays every
//! committed corpus file through them, so a finding stays guarded without
//! a nightly toolchain. Bad input may be refused, never crash; a panic
//! here is a finding.
#![allow(dead_code)] // each target uses one of the checks

use bashni::analyse;
use bashni::serve::config::{Opponent, Strength};
use bashni::serve::room::{MAX_NAME_CHARS, Player};
use bashni::serve::study::Study;
use bashni::serve::token::SeatToken;
use bashni::serve::wire::{
    CLOCK_INCREMENT_SECONDS, CLOCK_MINUTES, ClientMessage, MAX_CLIENT_MESSAGE_BYTES,
    MAX_RULE_PLIES, RoomSetup, StrengthRanges,
};
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
pub const TARGETS: [(&str, Check); 8] = [
    ("position", position),
    ("move_text", move_text),
    ("protocol_line", protocol_line),
    ("pdn", pdn_reader),
    ("openings", openings_reader),
    ("analyse", analyse_reader),
    ("play", play),
    ("client_message", client_message),
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

/// What the play server does with a page's WebSocket message before any
/// room sees it (the bytes as text, invalid UTF-8 replaced as a lossy
/// reader would): read it or refuse it, and for a room setup check it
/// against the engine's strength ranges. An accepted setup keeps every
/// value within its bounds and reads back from its own JSON; names go
/// through the seat's name check, tokens through the token check, a
/// move's text is read in the start position of both variants, and a line
/// or a PDN for the analysis board is read by the rules or refused.
pub fn client_message(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(message) = ClientMessage::parse(&text) else {
        return; // refusing the text is an answer too
    };
    assert!(
        text.len() <= MAX_CLIENT_MESSAGE_BYTES,
        "{} bytes read",
        text.len()
    );
    let token_hash = SeatToken::parse("0123456789abcdef0123456789abcdef")
        .expect("a token")
        .hash();
    let name_check = |name: &str| {
        if let Ok(player) = Player::human(name, token_hash.clone()) {
            assert!(!player.name.is_empty() && player.name.chars().count() <= MAX_NAME_CHARS);
            assert!(
                !player.name.chars().any(char::is_control),
                "{:?}",
                player.name
            );
        }
    };
    match message {
        ClientMessage::Create { name, setup } => {
            name_check(&name);
            check_setup(&setup);
        }
        ClientMessage::Join { name, .. } => name_check(&name),
        ClientMessage::Open { token, .. } => {
            if let Some(token) = token.as_deref().and_then(SeatToken::parse) {
                assert_eq!(token.as_str().len(), 32);
                assert_eq!(token.hash().as_str().len(), 64);
            }
        }
        ClientMessage::Move { text } => {
            for variant in [Variant::Bashni, Variant::Lasca] {
                let start = Position::from_fen(&RuleSet::new(variant), variant.start_fen())
                    .expect("the start position");
                if let Ok(mv) = start.parse_move(&text) {
                    assert!(start.legal_moves().contains(&mv), "{text} read as {mv}");
                }
            }
        }
        ClientMessage::StudyPosition {
            variant,
            fen,
            moves,
            cursor,
            rules,
            recorded,
            header,
        } => {
            let study = Study::new(&variant, rules.as_ref(), fen.as_deref(), &moves, cursor)
                .and_then(|study| study.ending(recorded))
                .and_then(|study| study.headed(header));
            if let Ok(study) = study {
                let view = study.view();
                assert_eq!(view.moves.len(), moves.len(), "the whole line is kept");
                assert!(view.cursor <= moves.len());
                // The rules, the end and the header sent back read as the
                // line's own.
                let again = Study::new(&variant, Some(&view.rules), fen.as_deref(), &moves, cursor)
                    .and_then(|study| study.ending(view.recorded.clone()))
                    .and_then(|study| study.headed(view.header.clone()));
                assert!(
                    again.is_ok(),
                    "{:?} {:?} {:?}",
                    view.rules,
                    view.recorded,
                    view.header
                );
            }
        }
        ClientMessage::StudyPdn { text } => {
            if let Ok((study, _)) = Study::from_pdn(&text) {
                let back = Study::from_pdn(&study.to_pdn());
                let ended = |s: &Study| s.view().result.map(|r| (r.result, r.reason));
                let (back, _) = back.unwrap_or_else(|e| panic!("{text:?}: {e}"));
                assert_eq!(ended(&back), ended(&study), "{text:?}");
                // Who played it goes out and comes back.
                let players = |s: &Study| {
                    s.view()
                        .header
                        .map(|h| (h.white, h.black))
                        .unwrap_or_default()
                };
                assert_eq!(players(&back), players(&study), "{text:?}");
            }
        }
        _ => {}
    }
}

fn check_setup(setup: &RoomSetup) {
    let skill = bashni_engine::protocol::SKILL_RANGE;
    let ranges = StrengthRanges {
        skill: (
            u32::try_from(skill.0).unwrap_or(0),
            u32::try_from(skill.1).unwrap_or(u32::MAX),
        ),
        elo: search::ELO_RANGE,
    };
    let json = serde_json::to_string(setup).expect("a setup writes as JSON");
    let again: RoomSetup = serde_json::from_str(&json).expect("a setup reads back");
    assert_eq!(&again, setup, "written as {json}");
    let Ok((config, _colour)) = setup.check(&ranges) else {
        return;
    };
    let draw = config.game.draw;
    for value in [draw.no_progress_plies, draw.repetitions, draw.max_plies] {
        assert!(value <= MAX_RULE_PLIES, "{setup:?}");
    }
    assert_ne!(draw.repetitions, 1, "{setup:?}");
    if let Some(clock) = config.clock {
        let minutes = clock.base_ms as f64 / 60_000.0;
        let seconds = clock.increment_ms as f64 / 1000.0;
        let margin = 1e-3; // the milliseconds are rounded
        assert!(
            minutes >= CLOCK_MINUTES.0 - margin && minutes <= CLOCK_MINUTES.1 + margin,
            "{setup:?}"
        );
        assert!(
            seconds >= CLOCK_INCREMENT_SECONDS.0 - margin
                && seconds <= CLOCK_INCREMENT_SECONDS.1 + margin,
            "{setup:?}"
        );
    }
    let within = |value: u32, (low, high): (u32, u32)| (low..=high).contains(&value);
    match config.opponent {
        Opponent::Engine(Strength::Skill(s)) => assert!(within(s, ranges.skill), "{setup:?}"),
        Opponent::Engine(Strength::Elo(e)) => assert!(within(e, ranges.elo), "{setup:?}"),
        Opponent::Anyone | Opponent::LinkOnly => {}
    }
    // The rules and a first position come from it.
    let rules = config.game.rules();
    let start = Position::from_fen(&rules, rules.variant.start_fen()).expect("the start position");
    assert!(!start.legal_moves().is_empty());
}
