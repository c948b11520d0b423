//! Squares, moves and the position string of protocol.md: printing and
//! parsing with errors that say what is wrong and where.

use super::column::{Column, ColumnError, Piece};
use super::geometry::{Colour, Square, Variant};
use super::moves::Move;
use super::position::{MAX_COUNTER, Position};
use super::ruleset::RuleSet;
use std::fmt;

/// Why a square, move or position string was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotationError {
    /// Not a square name (`reason` says why).
    BadSquare {
        /// The text given.
        text: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A light square, which no piece ever stands on.
    UnplayableSquare {
        /// The square named.
        square: String,
    },
    /// The side to move is not `W` or `B`.
    BadSide {
        /// The text given.
        text: String,
    },
    /// A square listed with no pieces.
    EmptyColumn {
        /// The square named.
        square: String,
    },
    /// A piece letter other than `w`, `W`, `b`, `B`.
    BadPiece {
        /// The square of the column.
        square: String,
        /// The letter given.
        piece: char,
    },
    /// A column whose colours alternate, which no game can reach.
    AlternatingColours {
        /// The square of the column.
        square: String,
    },
    /// A column taller than the game's pieces allow.
    ColumnTooTall {
        /// The square of the column.
        square: String,
    },
    /// A square listed twice.
    DuplicateSquare {
        /// The square named.
        square: String,
    },
    /// A man on top of a column on its own promotion rank.
    PromotedMan {
        /// The square of the column.
        square: String,
    },
    /// More pieces of one colour than the game has.
    TooManyPieces {
        /// The colour with too many.
        colour: Colour,
        /// How many were given.
        count: u32,
        /// How many the game has.
        max: u32,
    },
    /// A counter that is not a number in range.
    BadNumber {
        /// Which counter.
        field: &'static str,
        /// The text given.
        text: String,
    },
    /// Text where none belongs.
    Garbage {
        /// The text given.
        text: String,
    },
    /// A position without `W:` or `B:` in front.
    NoSide {
        /// The text given.
        text: String,
    },
    /// A well-formed move that is not legal here.
    IllegalMove {
        /// The move given.
        text: String,
    },
    /// A plain move where every legal move is a capture (captures are
    /// compulsory and one is there to take).
    CaptureCompulsory {
        /// The move given.
        text: String,
    },
    /// A capture stopped part of the way: the chain must go on (a
    /// capture is taken whole, every piece it can).
    CaptureGoesOn {
        /// The move given.
        text: String,
        /// The legal captures it begins.
        whole: Vec<String>,
    },
    /// A shortened capture that matches more than one legal move.
    AmbiguousMove {
        /// The move given.
        text: String,
        /// The legal moves it could be.
        candidates: Vec<String>,
    },
    /// Text that is not a move at all.
    BadMove {
        /// The text given.
        text: String,
    },
    /// A move naming a square that is not one of the board's.
    BadMoveSquare {
        /// The move given.
        text: String,
        /// What is wrong with the square.
        square: Box<NotationError>,
    },
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use NotationError::*;
        match self {
            BadSquare { text, reason } => write!(f, "bad square '{text}': {reason}"),
            UnplayableSquare { square } => {
                write!(f, "square {square} is a light square, not playable")
            }
            BadSide { text } => write!(f, "bad side to move '{text}' (expected W or B)"),
            EmptyColumn { square } => write!(f, "column on {square} has no pieces"),
            BadPiece { square, piece } => write!(
                f,
                "column on {square}: bad piece '{piece}' (expected w, W, b or B)"
            ),
            AlternatingColours { square } => write!(
                f,
                "column on {square} alternates colours, which no game can reach"
            ),
            ColumnTooTall { square } => write!(f, "column on {square} is too tall"),
            DuplicateSquare { square } => write!(f, "square {square} is given twice"),
            PromotedMan { square } => write!(
                f,
                "column on {square} is led by a man on its own promotion rank (it would be a king)"
            ),
            TooManyPieces { colour, count, max } => write!(
                f,
                "{count} {} pieces, more than the {max} the game has",
                colour.name()
            ),
            BadNumber { field, text } => write!(f, "bad {field} '{text}'"),
            Garbage { text } => write!(f, "unexpected '{text}'"),
            NoSide { text } => write!(
                f,
                "'{text}' does not start with the side to move (W: or B:)"
            ),
            IllegalMove { text } => write!(f, "illegal move '{text}'"),
            CaptureCompulsory { text } => {
                write!(f, "illegal move '{text}': a capture is compulsory")
            }
            CaptureGoesOn { text, whole } => write!(
                f,
                "illegal move '{text}': the capture goes on ({})",
                whole.join(" or ")
            ),
            AmbiguousMove { text, candidates } => write!(
                f,
                "ambiguous move '{text}': could be {}",
                candidates.join(" or ")
            ),
            // Draughts programs often write squares as numbers (22-18).
            BadMove { text } if is_numbered(text) => write!(
                f,
                "malformed move '{text}': squares are named by file letter and rank (c3), not numbered"
            ),
            BadMove { text } => write!(f, "malformed move '{text}'"),
            BadMoveSquare { text, square } => write!(f, "malformed move '{text}': {square}"),
        }
    }
}

impl std::error::Error for NotationError {}

/// Whether `text` is a move in numbered squares (`22-18`, `9x18`).
fn is_numbered(text: &str) -> bool {
    text.split(['-', 'x', ':'])
        .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()))
}

/// Parse a square such as `c3` (upper case accepted) on the variant's board.
pub fn parse_square(variant: Variant, text: &str) -> Result<Square, NotationError> {
    let bad = |reason| NotationError::BadSquare {
        text: text.to_string(),
        reason,
    };
    let bytes = text.as_bytes();
    let (&file, rank) = bytes.split_first().ok_or(bad("empty"))?;
    let file = file.to_ascii_lowercase();
    if !file.is_ascii_lowercase() {
        return Err(bad("expected a file letter"));
    }
    let rank = std::str::from_utf8(rank)
        .ok()
        .filter(|r| !r.is_empty() && r.len() <= 2 && r.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|r| r.parse::<u8>().ok())
        .ok_or(bad("expected a rank number"))?;
    let g = variant.geometry();
    let sq = (rank >= 1)
        .then(|| g.square_on_board(file - b'a', rank - 1))
        .flatten()
        .ok_or(bad("off the board"))?;
    if !g.is_playable(sq) {
        return Err(NotationError::UnplayableSquare {
            square: sq.to_string(),
        });
    }
    Ok(sq)
}

/// The pieces of a column, top first, as in the position string (`Wbb`).
pub fn column_text(col: Column) -> String {
    col.pieces().map(piece_char).collect()
}

/// `w`, `W`, `b` or `B`.
pub fn piece_char(p: Piece) -> char {
    match (p.colour, p.king) {
        (Colour::White, false) => 'w',
        (Colour::White, true) => 'W',
        (Colour::Black, false) => 'b',
        (Colour::Black, true) => 'B',
    }
}

impl Position {
    /// The position string of protocol.md, columns in a1, c1, ... order.
    pub fn to_fen(&self) -> String {
        let mut s = String::new();
        s.push(if self.side == Colour::White { 'W' } else { 'B' });
        s.push(':');
        let mut first = true;
        for sq in self.geometry.squares() {
            let col = self.column(sq);
            if col.is_empty() {
                continue;
            }
            if !first {
                s.push(',');
            }
            first = false;
            s.push_str(&sq.to_string());
            s.extend(col.pieces().map(piece_char));
        }
        s.push_str(&format!(" {} {}", self.no_progress, self.fullmove));
        s
    }

    /// Parse a position string: `<side>:<col>,<col>... [<no-progress> <move>]`.
    /// The whole string may hold the two numbers after whitespace.
    /// The position is made for `rules` (its variant and landing rule).
    pub fn from_fen(rules: &RuleSet, text: &str) -> Result<Position, NotationError> {
        let mut tokens = text.split_whitespace();
        let board = tokens.next().ok_or(NotationError::Garbage {
            text: "empty position".to_string(),
        })?;
        let no_progress = parse_number(tokens.next(), "no-progress count", 0)?;
        let fullmove = parse_number(tokens.next(), "move number", 1)?;
        if fullmove == 0 {
            return Err(NotationError::BadNumber {
                field: "move number",
                text: "0".into(),
            });
        }
        if let Some(extra) = tokens.next() {
            return Err(NotationError::Garbage { text: extra.into() });
        }
        Position::from_board_token(rules, board, no_progress, fullmove)
    }

    fn from_board_token(
        rules: &RuleSet,
        board: &str,
        no_progress: u32,
        fullmove: u32,
    ) -> Result<Position, NotationError> {
        let (side, columns) = board.split_once(':').ok_or(NotationError::NoSide {
            text: board.to_string(),
        })?;
        let side = match side {
            "W" | "w" => Colour::White,
            "B" | "b" => Colour::Black,
            _ => return Err(NotationError::BadSide { text: side.into() }),
        };
        let variant = rules.variant;
        let mut pos = Position::empty(rules);
        pos.set_side(side);
        pos.set_counters(no_progress, fullmove);
        let g = variant.geometry();
        for item in columns.split(',').filter(|c| !c.is_empty()) {
            // The square is a letter and the digits after it; pieces follow.
            let split = item
                .char_indices()
                .skip(1)
                .find(|(_, c)| !c.is_ascii_digit())
                .map_or(item.len(), |(i, _)| i);
            let (sq_text, pieces_text) = item.split_at(split);
            let sq = parse_square(variant, sq_text)?;
            let name = sq.to_string();
            if !pos.column(sq).is_empty() {
                return Err(NotationError::DuplicateSquare { square: name });
            }
            let pieces = pieces_text
                .chars()
                .map(|c| match c {
                    'w' => Ok(Piece {
                        colour: Colour::White,
                        king: false,
                    }),
                    'W' => Ok(Piece {
                        colour: Colour::White,
                        king: true,
                    }),
                    'b' => Ok(Piece {
                        colour: Colour::Black,
                        king: false,
                    }),
                    'B' => Ok(Piece {
                        colour: Colour::Black,
                        king: true,
                    }),
                    _ => Err(NotationError::BadPiece {
                        square: name.clone(),
                        piece: c,
                    }),
                })
                .collect::<Result<Vec<_>, _>>()?;
            let col = Column::from_pieces(&pieces).map_err(|e| match e {
                ColumnError::AlternatingColours { .. } => NotationError::AlternatingColours {
                    square: name.clone(),
                },
                ColumnError::TooTall => NotationError::ColumnTooTall {
                    square: name.clone(),
                },
            })?;
            if col.is_empty() {
                return Err(NotationError::EmptyColumn { square: name });
            }
            if !col.top_is_king() && g.promotion[col.owner().index()].has(sq) {
                return Err(NotationError::PromotedMan { square: name });
            }
            pos.set(sq.index(), col);
        }
        for colour in [Colour::White, Colour::Black] {
            let count = pos.piece_count(colour);
            let max = variant.pieces_per_side();
            if count > max {
                return Err(NotationError::TooManyPieces { colour, count, max });
            }
        }
        Ok(pos)
    }

    /// Parse a move in input notation against the legal moves: `c3-d4`,
    /// `c3xe5xc7`, `:` for `x`, any case, and `c3xc7` (start and end only)
    /// when exactly one legal move matches.
    pub fn parse_move(&self, text: &str) -> Result<Move, NotationError> {
        let variant = self.variant();
        let lower = text.to_ascii_lowercase().replace(':', "x");
        let bad = || NotationError::BadMove {
            text: text.to_string(),
        };
        let (squares, capture) = if lower.contains('x') {
            (lower.split('x').collect::<Vec<_>>(), true)
        } else {
            (lower.split('-').collect::<Vec<_>>(), false)
        };
        if squares.len() < 2 || (!capture && squares.len() != 2) {
            return Err(bad());
        }
        let squares = squares
            .iter()
            .map(|s| parse_square(variant, s))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|square| match is_numbered(text) {
                // Numbered squares are a habit, told as such.
                true => bad(),
                false => NotationError::BadMoveSquare {
                    text: text.to_string(),
                    square: Box::new(square),
                },
            })?;
        let legal = self.legal_moves();
        let exact: Vec<&Move> = legal
            .iter()
            .filter(|m| {
                m.is_capture() == capture
                    && m.from() == squares[0]
                    && if capture {
                        m.landings().eq(squares[1..].iter().copied())
                    } else {
                        m.to() == squares[1]
                    }
            })
            .collect();
        if let [mv] = exact[..] {
            return Ok(*mv);
        }
        let shortened: Vec<&Move> = if capture && squares.len() == 2 {
            legal
                .iter()
                .filter(|m| m.is_capture() && m.from() == squares[0] && m.to() == squares[1])
                .collect()
        } else {
            Vec::new()
        };
        let must_capture = !capture && !legal.is_empty() && legal.iter().all(Move::is_capture);
        // Landings that begin longer captures: the chain was cut short.
        let mut goes_on: Vec<String> = legal
            .iter()
            .filter(|m| {
                capture
                    && m.is_capture()
                    && m.from() == squares[0]
                    && m.landings().count() > squares.len() - 1
                    && m.landings()
                        .take(squares.len() - 1)
                        .eq(squares[1..].iter().copied())
            })
            .map(ToString::to_string)
            .collect();
        goes_on.sort();
        match shortened[..] {
            [mv] => Ok(*mv),
            [] if must_capture => Err(NotationError::CaptureCompulsory {
                text: text.to_string(),
            }),
            [] if !goes_on.is_empty() => Err(NotationError::CaptureGoesOn {
                text: text.to_string(),
                whole: goes_on,
            }),
            [] => Err(NotationError::IllegalMove {
                text: text.to_string(),
            }),
            _ => Err(NotationError::AmbiguousMove {
                text: text.to_string(),
                candidates: shortened.iter().map(|m| m.to_string()).collect(),
            }),
        }
    }
}

fn parse_number(
    token: Option<&str>,
    field: &'static str,
    default: u32,
) -> Result<u32, NotationError> {
    match token {
        None => Ok(default),
        Some(t) => t
            .parse::<u32>()
            .ok()
            .filter(|&n| n <= MAX_COUNTER)
            .ok_or_else(|| NotationError::BadNumber {
                field,
                text: t.to_string(),
            }),
    }
}
