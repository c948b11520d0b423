//! Parsing the arguments of `position`, `go` and `setoption`.

use super::error::ProtocolError;
use crate::search::{Clock, Limits, MAX_DEPTH};
use bashni_rules::{Game, Move, Position, RuleSet};

/// `position startpos|fen <fen> [moves m1 m2 ...]` under `rules`.
pub fn parse_position(args: &[&str], rules: RuleSet) -> Result<Game, ProtocolError> {
    let moves_at = args
        .iter()
        .position(|&t| t == "moves")
        .unwrap_or(args.len());
    let (setup, moves) = (&args[..moves_at], args.get(moves_at + 1..).unwrap_or(&[]));
    let mut game = match setup.first() {
        Some(&"startpos") => Game::new(rules),
        Some(&"fen") => {
            if setup.len() < 2 {
                return Err(ProtocolError::MissingFen);
            }
            let fen = setup[1..].join(" ");
            Game::from_fen(rules, &fen)
                .map_err(|error| ProtocolError::BadPosition { fen, error })?
        }
        other => {
            return Err(ProtocolError::PositionKind {
                got: other.map(|word| word.to_string()),
            });
        }
    };
    for (i, text) in moves.iter().enumerate() {
        game.play_text(text)
            .map_err(|error| ProtocolError::BadMove {
                number: i + 1,
                error,
            })?;
    }
    Ok(game)
}

/// What `go` asked for.
pub enum GoCommand {
    /// A search with these limits.
    Search(Limits),
    /// `go perft N`: a divide to this depth.
    Perft(u32),
}

const GO_KEYWORDS: [&str; 13] = [
    "depth",
    "nodes",
    "movetime",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "infinite",
    "ponder",
    "searchmoves",
    "mate",
    "perft",
];

fn number(keyword: &str, value: Option<&&str>) -> Result<u64, ProtocolError> {
    let text = value.ok_or_else(|| ProtocolError::GoMissingNumber {
        keyword: keyword.to_string(),
    })?;
    text.parse::<u64>()
        .map_err(|_| ProtocolError::GoNotANumber {
            keyword: keyword.to_string(),
            text: text.to_string(),
        })
}

fn positive(keyword: &str, value: Option<&&str>) -> Result<u64, ProtocolError> {
    match number(keyword, value)? {
        0 => Err(ProtocolError::GoZero {
            keyword: keyword.to_string(),
        }),
        n => Ok(n),
    }
}

/// `go ...` for the position `pos` (moves in `searchmoves` must be legal).
pub fn parse_go(args: &[&str], pos: &Position) -> Result<GoCommand, ProtocolError> {
    let mut limits = Limits::default();
    let (mut wtime, mut btime, mut winc, mut binc, mut moves_to_go) =
        (None, None, None, None, None);
    let mut i = 0;
    while i < args.len() {
        let keyword = args[i];
        let value = args.get(i + 1);
        i += 2;
        match keyword {
            "depth" => limits.depth = Some(positive(keyword, value)?.min(MAX_DEPTH as u64) as u32),
            "nodes" => limits.nodes = Some(positive(keyword, value)?),
            "movetime" => limits.movetime = Some(number(keyword, value)?),
            "wtime" => wtime = Some(number(keyword, value)?),
            "btime" => btime = Some(number(keyword, value)?),
            "winc" => winc = Some(number(keyword, value)?),
            "binc" => binc = Some(number(keyword, value)?),
            "movestogo" => moves_to_go = Some(positive(keyword, value)?),
            "mate" => limits.mate = Some(positive(keyword, value)?.min(MAX_DEPTH as u64) as u32),
            "perft" => {
                return Ok(GoCommand::Perft(
                    positive(keyword, value)?.min(MAX_DEPTH as u64) as u32,
                ));
            }
            "infinite" => {
                limits.infinite = true;
                i -= 1;
            }
            "ponder" => {
                limits.ponder = true;
                i -= 1;
            }
            "searchmoves" => {
                i -= 1;
                while let Some(text) = args.get(i).filter(|t| !GO_KEYWORDS.contains(t)) {
                    let mv: Move = pos.parse_move(text).map_err(ProtocolError::SearchMove)?;
                    limits.search_moves.push(mv);
                    i += 1;
                }
            }
            // As in UCI, unknown tokens are ignored.
            _ => i -= 1,
        }
    }
    let (time, increment) = match pos.side_to_move() {
        bashni_rules::Colour::White => (wtime, winc),
        bashni_rules::Colour::Black => (btime, binc),
    };
    match time {
        Some(time) => {
            limits.clock = Some(Clock {
                time,
                increment: increment.unwrap_or(0),
                moves_to_go,
            })
        }
        // A clock for the other side only: searching without a limit
        // would be worse than saying so.
        None if wtime.is_some() || btime.is_some() => {
            let missing = match pos.side_to_move() {
                bashni_rules::Colour::White => "wtime",
                bashni_rules::Colour::Black => "btime",
            };
            return Err(ProtocolError::MissingClock { missing });
        }
        // An increment or a move count is part of a clock that is missing.
        None => {
            let part = [("winc", winc), ("binc", binc), ("movestogo", moves_to_go)]
                .into_iter()
                .find_map(|(name, value)| value.map(|_| name));
            if let Some(part) = part {
                return Err(ProtocolError::ClockPartWithoutTime { part });
            }
        }
    }
    Ok(GoCommand::Search(limits))
}

/// `setoption name <N...> [value <V...>]`, or the short `setoption variant <V>`.
pub fn parse_setoption(args: &[&str]) -> Result<(String, Option<String>), ProtocolError> {
    match args {
        [word, value] if word.eq_ignore_ascii_case("variant") => {
            Ok(("UCI_Variant".into(), Some(value.to_string())))
        }
        [name_kw, rest @ ..] if *name_kw == "name" => {
            let value_at = rest.iter().position(|&t| t == "value");
            let name = rest[..value_at.unwrap_or(rest.len())].join(" ");
            if name.is_empty() {
                return Err(ProtocolError::MissingOptionName);
            }
            let value = value_at.map(|v| rest[v + 1..].join(" "));
            Ok((name, value.filter(|v| !v.is_empty())))
        }
        _ => Err(ProtocolError::SetoptionSyntax),
    }
}
