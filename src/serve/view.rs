//! What the server tells the page: the lobby, a room's whole state, and
//! replies. A room's state is built once per change and sent to every
//! viewer as it is (the page knows its own seat from its token), so the
//! page draws from it alone: the position, the legal moves with the
//! squares to click, the clocks, the offers and the result. No rules
//! knowledge is needed in the page. After a move, a viewer that has the
//! state before gets only what the move changed ([`RoomMove`]).

use super::chat::ChatLine;
use super::climb::ClimbView;
use super::config::{Opponent, RoomConfig, Strength};
use super::engines::PvLine;
use super::history::YourGameView;
use super::ladder::seat_name_in_game;
use super::room::{Allowed, Phase, Room, millis};
use super::store::AnalysisRecord;
use super::study::StudyView;
use super::wire::{RulesSetup, StrengthRanges, clock_text};
use bashni_rules::{Colour, Move, Position, Variant};
use serde::{Serialize, Serializer};
use std::collections::HashSet;
use std::time::{Duration, Instant};

/// A message as it goes out: JSON text whose clones share one buffer, so
/// a state sent to every viewer of a room is serialized once and never
/// copied (a clone is a reference count).
pub type Json = axum::extract::ws::Utf8Bytes;

/// A message to the page.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage<'a> {
    /// Sent first: what the server offers.
    Welcome(&'a Welcome),
    /// The public rooms.
    Lobby {
        /// Newest last.
        rooms: &'a [LobbyRoom],
    },
    /// You sit in `seat` of `room`; keep `token` to come back.
    Seated {
        /// The room's id.
        room: &'a str,
        /// 0 or 1.
        seat: u8,
        /// The secret that proves the seat is yours.
        token: &'a str,
    },
    /// You left the room.
    Left,
    /// This browser already waits for the quick game it asked for, in
    /// `room`: the page goes there.
    QuickWaiting {
        /// The room's id.
        room: &'a str,
    },
    /// The rooms a browser sits in, newest first.
    YourGames {
        /// A line each.
        games: &'a [YourGameView],
    },
    /// Whether a person may take `name`, and why not.
    NameChecked {
        /// The name as asked about (the page drops an answer about a
        /// name it no longer shows).
        name: &'a str,
        /// Why it is refused; none if it may be taken.
        problem: Option<&'a str>,
    },
    /// A player's best score in a variant's ladder, none before a run
    /// scored.
    LadderBest {
        /// `bashni` or `lasca`.
        variant: &'a str,
        /// The best score.
        best: Option<u64>,
    },
    /// The ladder's best runs.
    Leaderboard {
        /// `bashni` or `lasca`.
        variant: &'a str,
        /// Best first.
        lines: &'a [BoardLineView],
    },
    /// The analysis board.
    Study(&'a StudyView),
    /// The engine's lines on the analysis board's position.
    StudyLines {
        /// The position analysed (the page drops lines of another).
        fen: &'a str,
        /// `starting`, `waiting for a free engine`, `analysing`, `done`,
        /// `stopped`, `the game is over here`, or what went wrong: words
        /// to show.
        status: &'a str,
        /// Whether the analysis goes on.
        running: bool,
        /// Best first, one per move.
        lines: &'a [PvLine],
        /// Whether the engine is on: each position shown is analysed.
        engine_on: bool,
    },
    /// The analysis board's game as PDN.
    StudyPdn {
        /// The PDN text.
        text: &'a str,
    },
    /// The room a page asked to open is not there to show: the page
    /// goes back to the lobby.
    NoRoom {
        /// The id the page asked for, as it sent it.
        room: &'a str,
        /// Why, for the player.
        message: &'a str,
    },
    /// A position (or PDN) for the analysis board was refused: the
    /// editor that sent it shows why beside itself.
    StudyRefused {
        /// What is wrong with it.
        message: &'a str,
    },
    /// What the two players of `room` said, oldest first: sent to them
    /// alone, whole, whenever a line is added.
    Chat {
        /// The room's id (a page drops the chat of a room it left).
        room: &'a str,
        /// Every line.
        lines: &'a [ChatLine],
    },
    /// Something you asked for was refused.
    Error {
        /// What and where.
        message: &'a str,
    },
}

/// One legal move as the page needs it: the text to send back, and the
/// squares to click (the start, then every landing).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct LegalMove {
    /// The move in the rules' notation.
    pub text: String,
    /// The square it starts from.
    pub from: String,
    /// Every landing, in order (one square for a plain move).
    pub path: Vec<String>,
    /// Squares of the columns jumped, for the last-move marks.
    pub jumped: Vec<String>,
}

impl LegalMove {
    /// Every legal move of `position`.
    pub fn all_in(position: &Position) -> Vec<LegalMove> {
        position.legal_moves().iter().map(LegalMove::of).collect()
    }

    /// The view of `mv`.
    pub fn of(mv: &Move) -> LegalMove {
        let path = if mv.is_capture() {
            mv.landings().map(|s| s.to_string()).collect()
        } else {
            vec![mv.to().to_string()]
        };
        LegalMove {
            text: mv.to_string(),
            from: mv.from().to_string(),
            path,
            jumped: mv.jumped().map(|s| s.to_string()).collect(),
        }
    }
}

/// A line of the ladder's leaderboard.
#[derive(Debug, Serialize)]
pub struct BoardLineView {
    /// The player's name (the page escapes it).
    pub name: String,
    /// The best score.
    pub best: u64,
    /// The most wins in one run.
    pub wins: u32,
}

/// What the server offers, sent once to every connection.
#[derive(Debug, Serialize)]
pub struct Welcome {
    /// The variants with their boards and start positions.
    pub variants: Vec<VariantInfo>,
    /// The engine strengths a room may ask for.
    pub strength: StrengthRanges,
    /// Clocks the page lists (`M+S`); any within the bounds is taken.
    pub clocks: Vec<&'static str>,
    /// The minutes a clock a creator sets may start with.
    pub clock_minutes: (f64, f64),
    /// The seconds it may add a move.
    pub clock_increment_seconds: (f64, f64),
    /// The usual online configuration (15 moves = 30 plies, threefold).
    pub online_no_progress_plies: u32,
    /// The largest message the server reads, in bytes of its JSON: the
    /// page says a pasted game is too long before sending it.
    pub max_message_bytes: usize,
}

/// A variant as the page needs it.
#[derive(Debug, Serialize)]
pub struct VariantInfo {
    /// `bashni` or `lasca`.
    pub name: &'static str,
    /// What the page calls it.
    pub title: &'static str,
    /// Squares per side.
    pub size: u8,
    /// The start position.
    pub start_fen: &'static str,
    /// Whether its kings fly (so where they land after a capture may be
    /// a room's choice).
    pub flying_kings: bool,
}

impl VariantInfo {
    /// Both variants.
    pub fn all() -> Vec<VariantInfo> {
        Variant::ALL
            .into_iter()
            .map(|variant| VariantInfo {
                name: variant.name(),
                title: match variant {
                    Variant::Bashni => "Bashni 8×8",
                    Variant::Lasca => "Lasca 7×7",
                },
                size: variant.geometry().size,
                start_fen: variant.start_fen(),
                flying_kings: variant.flying_kings(),
            })
            .collect()
    }
}

/// Whether the side to move in `position` must capture (the orange cue).
pub fn must_capture(position: &Position) -> bool {
    position.forced_capture() && position.has_capture()
}

/// A room's configuration as the page shows it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ConfigView {
    /// `bashni` or `lasca`.
    pub variant: &'static str,
    /// The game's rules, as a new room's setup or the analysis board
    /// takes them.
    pub rules: RulesSetup,
    /// `M+S`, or none.
    pub clock: Option<String>,
    /// `anyone`, `link` or `engine`.
    pub opponent: &'static str,
    /// The engine's Skill Level, if it plays at one.
    pub skill: Option<u32>,
    /// The engine's Elo, if it plays at one.
    pub elo: Option<u32>,
}

impl ConfigView {
    /// The view of `config`.
    pub fn of(config: &RoomConfig) -> ConfigView {
        let (skill, elo) = match config.opponent {
            Opponent::Engine(Strength::Skill(s)) => (Some(s), None),
            Opponent::Engine(Strength::Elo(e)) => (None, Some(e)),
            _ => (None, None),
        };
        ConfigView {
            variant: config.game.variant.name(),
            rules: RulesSetup::of(&config.game),
            clock: config.clock.as_ref().map(clock_text),
            opponent: config.opponent.kind(),
            skill,
            elo,
        }
    }
}

/// A line of the lobby.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct LobbyRoom {
    /// The room's id.
    pub id: String,
    /// What it plays.
    pub config: ConfigView,
    /// Who plays White, and Black (`None`: the seat is free): a joiner
    /// sees which colour they would get.
    pub players: [Option<String>; 2],
    /// How many watch.
    pub watchers: usize,
    /// `waiting`, `playing` or `over`.
    pub phase: &'static str,
    /// Whether its games start from a position the creator set: a joiner
    /// sees it before sitting down.
    pub from_position: bool,
}

/// A seat as the page shows it.
#[derive(Debug, Serialize)]
pub struct SeatView {
    /// The display name (the page escapes it).
    pub name: String,
    /// Whether the engine sits here.
    pub engine: bool,
    /// Whether the player has a page open on the room.
    pub online: bool,
    /// White or black in the current game.
    pub colour: &'static str,
}

/// How a game ended, as the page shows it.
#[derive(Debug, Serialize)]
pub struct ResultView {
    /// `2-0`, `0-2`, `1-1`, or `*` for an aborted game.
    pub result: &'static str,
    /// Why, in words.
    pub reason: String,
}

/// A room's whole state: what every viewer draws.
#[derive(Debug, Serialize)]
pub struct RoomView<'a> {
    /// Always `room`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Counts every state sent for this room, so the page can tell the
    /// newest.
    pub seq: u64,
    /// The room's id.
    pub id: String,
    /// What it plays.
    pub config: ConfigView,
    /// The seats, seat 0 first.
    pub seats: [Option<SeatView>; 2],
    /// How many watch (seated players not counted).
    pub watchers: usize,
    /// `waiting`, `playing` or `over`.
    pub phase: &'static str,
    /// 1, then one more per rematch.
    pub game_no: u32,
    /// The start position.
    pub start_fen: String,
    /// The moves played.
    pub moves: MoveTexts<'a>,
    /// The position, the moves to choose from, the clocks and offers.
    #[serde(flatten)]
    pub turn: &'a TurnView,
    /// The result, once over.
    pub result: Option<ResultView>,
    /// Which seats asked for a rematch.
    pub rematch: [bool; 2],
    /// The analysis of the finished game, once asked for.
    pub analysis: Option<AnalysisView>,
    /// Whether the finished game may be analysed now (it has moves, was
    /// not aborted, and no analysis of it runs or is done).
    pub may_analyse: bool,
    /// The ladder run played in the room, if any.
    pub ladder: Option<ClimbView>,
}

/// What a move changes in a room's state: part of every [`RoomView`],
/// and all of a [`RoomMove`].
#[derive(Debug, Serialize)]
pub struct TurnView {
    /// The position now.
    pub fen: String,
    /// The last move with its squares, for the marks.
    pub last_move: Option<LegalMove>,
    /// The legal moves of the side to move (none unless playing).
    pub legal: Vec<LegalMove>,
    /// The moves the side waiting for its turn may have when it comes:
    /// every move it has after some move of the side to move, a
    /// recapture included (none unless playing, or when the engine
    /// waits). A player may pick one ahead (a premove), which the page
    /// plays once the turn comes if it is legal then.
    pub premoves: Vec<LegalMove>,
    /// Whether the side to move must capture (the orange cue).
    pub capture_forced: bool,
    /// `white` or `black`.
    pub to_move: &'static str,
    /// Clocks (White's, Black's) in milliseconds when this was sent, or
    /// none; only the side to move's runs, and only once both sides have
    /// made their first move.
    pub clock_ms: Option<[i64; 2]>,
    /// Whether a side has yet to make its first move: no clock runs, and
    /// either player may abort the game.
    pub first_moves: bool,
    /// With a clock, before both sides have moved: the milliseconds left
    /// when this was sent for the side to move to make its first move
    /// before the game is aborted.
    pub abort_in_ms: Option<u64>,
    /// Who offers a draw (`white`, `black`).
    pub draw_offer: Option<&'static str>,
    /// Who asks for a takeback.
    pub takeback: Option<&'static str>,
    /// What White, and Black, may do now: exactly what the server would
    /// accept, so the page offers nothing else.
    pub may: [Allowed; 2],
    /// For White, and Black, whose opponent has left the game: the
    /// milliseconds when this was sent before they may claim it (0: they
    /// may); none while the opponent is here.
    pub claim_in_ms: [Option<u64>; 2],
    /// What the engine seat is doing, in words (`thinking`, `waiting for
    /// a free engine: 2 ahead`).
    pub engine_status: Option<String>,
}

impl TurnView {
    /// The turn in `room` at `now`, where White and Black `may` do what
    /// it says, and may claim the game their opponent left in `claim_in`.
    pub fn of(
        room: &Room,
        may: [Allowed; 2],
        claim_in: [Option<Duration>; 2],
        engine_status: Option<String>,
        now: Instant,
    ) -> TurnView {
        let position = room.game().position();
        let playing = room.phase() == Phase::Playing;
        TurnView {
            fen: position.to_fen(),
            last_move: room.game().moves().last().map(LegalMove::of),
            legal: match playing {
                true => LegalMove::all_in(position),
                false => Vec::new(),
            },
            premoves: match playing && waiting_side_is_a_person(room) {
                true => moves_after_any_reply(position),
                false => Vec::new(),
            },
            capture_forced: playing && must_capture(position),
            to_move: position.side_to_move().name(),
            clock_ms: room.clock_ms(now),
            first_moves: room.first_moves_pending(),
            abort_in_ms: room.abort_in(now).map(millis),
            draw_offer: room.draw_offer().map(Colour::name),
            takeback: room.takeback_request().map(Colour::name),
            may,
            claim_in_ms: claim_in.map(|wait| wait.map(millis)),
            engine_status,
        }
    }
}

/// Every move the side not to move in `position` has after some move of
/// the side to move, each once, in the order first met: what a premove
/// may be picked from, recaptures of columns not yet taken included.
fn moves_after_any_reply(position: &Position) -> Vec<LegalMove> {
    let mut seen = HashSet::new();
    let mut moves = Vec::new();
    for reply in position.legal_moves().iter() {
        let mut after = position.clone();
        after.make(reply);
        for mv in after.legal_moves().iter() {
            // Most moves come again after other replies: the view (a
            // string per square) is built for the first only.
            if seen.insert(mv.to_string()) {
                moves.push(LegalMove::of(mv));
            }
        }
    }
    moves
}

/// Whether a person waits for the turn in `room` (the engine picks no
/// move ahead: it is sent none).
fn waiting_side_is_a_person(room: &Room) -> bool {
    let waiting = !room.game().position().side_to_move();
    room.player(room.seat_of(waiting))
        .is_some_and(|p| !p.engine)
}

/// A room's state after one more move, as the change from the state
/// numbered one less: the page that has that state appends the move and
/// takes the turn; a page that has not gets the whole state instead. A
/// room's whole state carries every move of the game, so sending it on
/// every move made the messages, and the work of writing and reading
/// them, grow with the game.
#[derive(Debug, Serialize)]
pub struct RoomMove<'a> {
    /// Always `room_move`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The state's number: one more than the state it changes.
    pub seq: u64,
    /// The room's id.
    pub id: &'a str,
    /// The game.
    pub game_no: u32,
    /// The game's plies, this move included.
    pub ply: usize,
    /// The move, in the rules' notation.
    #[serde(rename = "move")]
    pub text: String,
    /// The turn after it.
    #[serde(flatten)]
    pub turn: &'a TurnView,
}

impl<'a> RoomMove<'a> {
    /// The change the last move of `room` made, as state `seq`, with the
    /// `turn` it leads to.
    pub fn of(room: &'a Room, seq: u64, turn: &'a TurnView) -> Self {
        let moves = room.game().moves();
        RoomMove {
            kind: "room_move",
            seq,
            id: room.id(),
            game_no: room.game_no(),
            ply: moves.len(),
            text: moves.last().map(ToString::to_string).unwrap_or_default(),
            turn,
        }
    }
}

/// Where a finished game's analysis stands.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum AnalysisStatus {
    /// Searching the game's positions.
    Running,
    /// Every move judged.
    Done,
    /// The engine failed (the server's log says why); it may be asked
    /// again.
    Failed,
}

/// A finished game's analysis as the page shows it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct AnalysisView {
    /// `running`, `done` or `failed`.
    pub status: AnalysisStatus,
    /// The game analysed.
    pub game_no: u32,
    /// Per move: `?`, `??` or none.
    pub marks: Vec<Option<String>>,
    /// Per position after each move: the score in centipawns from White's
    /// view (mates capped at ±1000).
    pub evals: Vec<i32>,
}

impl AnalysisView {
    /// Game `game_no`'s analysis as stored.
    pub fn stored(game_no: u32, record: &AnalysisRecord) -> AnalysisView {
        AnalysisView {
            status: AnalysisStatus::Done,
            game_no,
            marks: record.marks.clone(),
            evals: record.evals.clone(),
        }
    }

    /// Game `game_no`'s analysis failed.
    pub fn failed(game_no: u32) -> AnalysisView {
        AnalysisView {
            status: AnalysisStatus::Failed,
            game_no,
            marks: Vec::new(),
            evals: Vec::new(),
        }
    }

    /// What the store keeps of it.
    pub fn record(&self) -> AnalysisRecord {
        AnalysisRecord {
            marks: self.marks.clone(),
            evals: self.evals.clone(),
        }
    }
}

/// What the room's task knows beside the [`Room`].
pub struct Extras<'a> {
    /// The state's number.
    pub seq: u64,
    /// Pages open per seat.
    pub online: [bool; 2],
    /// Watchers.
    pub watchers: usize,
    /// The analysis, if any.
    pub analysis: Option<&'a AnalysisView>,
    /// Whether the game may be analysed now.
    pub may_analyse: bool,
    /// The ladder run played in the room, if any.
    pub ladder: Option<ClimbView>,
}

/// The phase in one word.
pub fn phase_name(phase: Phase) -> &'static str {
    match phase {
        Phase::Waiting => "waiting",
        Phase::Playing => "playing",
        Phase::Over(_) => "over",
    }
}

/// The moves of a game as their texts, written while the state is
/// serialized: the whole list goes out on every move, and a `String` per
/// move was a large part of the server's allocations.
#[derive(Debug)]
pub struct MoveTexts<'a>(pub &'a [Move]);

impl Serialize for MoveTexts<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(MoveText))
    }
}

/// One move as its text.
struct MoveText<'a>(&'a Move);

impl Serialize for MoveText<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self.0)
    }
}

impl<'a> RoomView<'a> {
    /// The state of `room` in its `turn`.
    pub fn of(room: &'a Room, extras: Extras<'_>, turn: &'a TurnView) -> RoomView<'a> {
        let game = room.game();
        let seats = [0u8, 1].map(|seat| {
            room.player(seat).map(|p| SeatView {
                name: seat_name_in_game(&p.name, p.engine, room.game_no()),
                engine: p.engine,
                online: p.engine || extras.online[usize::from(seat)],
                colour: room.colour_of(seat).name(),
            })
        });
        RoomView {
            kind: "room",
            seq: extras.seq,
            id: room.id().to_owned(),
            config: ConfigView::of(room.config()),
            seats,
            watchers: extras.watchers,
            phase: phase_name(room.phase()),
            game_no: room.game_no(),
            start_fen: game.start().to_fen(),
            moves: MoveTexts(game.moves()),
            turn,
            result: match room.phase() {
                Phase::Over(outcome) => Some(ResultView {
                    result: outcome.result_token(),
                    reason: outcome.to_string(),
                }),
                _ => None,
            },
            rematch: room.rematch_requests(),
            analysis: extras.analysis.cloned(),
            may_analyse: extras.may_analyse,
            ladder: extras.ladder,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bashni_rules::{RuleSet, Variant};

    /// After 1. c3-d4, White waits: it may pick ahead the recapture
    /// d4xf6 that only Black's f6-e5 makes possible, and only White's
    /// moves.
    #[test]
    fn a_premove_may_be_a_capture_the_opponent_has_yet_to_allow() {
        let mut position = Position::start(&RuleSet::new(Variant::Bashni));
        let first = position.parse_move("c3-d4").expect("a legal move");
        position.make(&first);
        let ahead = moves_after_any_reply(&position);
        let texts: Vec<&str> = ahead.iter().map(|m| m.text.as_str()).collect();
        assert!(texts.contains(&"d4xf6"), "{texts:?}");
        assert!(texts.contains(&"d4-c5"), "{texts:?}");
        let white: Vec<String> = position
            .commanded_by(Colour::White)
            .iter()
            .map(|sq| sq.to_string())
            .collect();
        assert!(
            ahead.iter().all(|m| white.contains(&m.from)),
            "White's columns only"
        );
        let unique: HashSet<&str> = texts.iter().copied().collect();
        assert_eq!(unique.len(), texts.len(), "each once");
    }
}
