//! A room as a sans-IO state machine: two seats, one game at a time (a
//! rematch starts the next with colours swapped), the server's clocks,
//! draw offers, takebacks and the result. It reads no clock and does no
//! I/O: the caller passes the time in (`now`), stores what the returned
//! [`Event`]s say (moves first: a move is broadcast only once stored), and
//! broadcasts them. Moves are validated by `bashni-rules`, the clocks kept
//! by `bashni_host::clock::Clocks`.
//!
//! Who acts is a seat number (0: the creator's, 1: the other); a client
//! becomes one by its seat token ([`Room::authenticate`]), an engine seat
//! is driven by the server directly.

mod asking;
mod outcome;
mod player;

use asking::Asked;
pub use outcome::{AbortCause, EndReason, Outcome};
pub use player::{MAX_NAME_CHARS, NameFault, Player};

use super::config::{Opponent, RoomConfig};
use super::store::{GameRecord, LoadedRoom, OffersRecord, RoomStatus};
use super::token::{SeatToken, TokenHash};
use bashni_host::clock::Clocks;
use bashni_host::protocol::Go;
use bashni_rules::{Colour, Game, Move};
use std::fmt;
use std::time::{Duration, Instant};

/// The longest move text accepted from a client (a capture of every
/// piece on the board fits easily).
pub const MAX_MOVE_TEXT: usize = 128;

/// How far below zero a clock may fall before the side loses on time: the
/// server measures at its own door, so no margin is granted.
pub const FLAG_MARGIN: Duration = Duration::ZERO;

/// The plies that no clock is charged for: each side's first move, as on
/// lichess, so a game does not start with a clock running against a
/// player who has only just sat down.
const FREE_PLIES: usize = 2;

/// How long a side may take over its first move in a game with a clock
/// before the game is aborted: its clock does not run then, so without a
/// limit one absent player would hold the other forever.
pub const FIRST_MOVE_WAIT: Duration = Duration::from_secs(30);

/// Games one room may play (the first and its rematches): a room's
/// history is loaded whole for a replay or its PDN, and two players
/// aborting and rematching in a loop would otherwise grow it without end.
pub const MAX_GAMES_PER_ROOM: u32 = 100;

/// Where the room stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Waiting for the second seat to be taken.
    Waiting,
    /// A game is being played.
    Playing,
    /// The game has ended; a rematch may follow.
    Over(Outcome),
}

/// What happened, for the caller to store and then broadcast.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// Someone took a seat.
    SeatTaken {
        /// The seat.
        seat: u8,
        /// Who.
        name: String,
        /// Whether it is the engine.
        engine: bool,
    },
    /// A game started (the first, or a rematch).
    GameStarted {
        /// 1 for the first game, one more for each rematch.
        game_no: u32,
        /// The seat that plays White.
        white_seat: u8,
        /// Both clocks (White's, Black's), or `None` without a clock.
        clock_ms: Option<[i64; 2]>,
        /// The position it starts from, if not the variant's.
        start_fen: Option<String>,
    },
    /// A move was played.
    Moved {
        /// The game.
        game_no: u32,
        /// 1 for the game's first move.
        ply: u32,
        /// The move in the rules' output notation.
        text: String,
        /// The time charged to the mover, in milliseconds.
        elapsed_ms: u64,
        /// Both clocks after the move, or `None`.
        clock_ms: Option<[i64; 2]>,
    },
    /// A side offered a draw.
    DrawOffered {
        /// Who offered.
        by: Colour,
    },
    /// A side declined the draw offered.
    DrawDeclined {
        /// Who declined.
        by: Colour,
    },
    /// A side asked to take its last move back.
    TakebackRequested {
        /// Who asked.
        by: Colour,
    },
    /// A side declined the takeback asked for.
    TakebackDeclined {
        /// Who declined.
        by: Colour,
    },
    /// Moves were taken back: the game now has `plies` moves.
    TookBack {
        /// The game.
        game_no: u32,
        /// How many moves are left.
        plies: u32,
        /// Both clocks now, or `None`.
        clock_ms: Option<[i64; 2]>,
    },
    /// A seat asked for a rematch.
    RematchOffered {
        /// Who asked.
        seat: u8,
    },
    /// A seat declined the other's rematch request.
    RematchDeclined {
        /// Whose request was declined.
        seat: u8,
    },
    /// The game ended.
    GameOver {
        /// The game.
        game_no: u32,
        /// How.
        outcome: Outcome,
        /// Both clocks as they stopped (the side to move charged its last
        /// turn, a clock that ran out at zero), or `None` without a clock.
        clock_ms: Option<[i64; 2]>,
    },
}

/// Why a room refused an action. None of them changes the room.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RoomError {
    /// No such seat (only 0 and 1), or nobody sits there.
    NoSuchSeat,
    /// The seat is taken.
    SeatTaken,
    /// This seat is the engine's, or the engine's seat was offered to a
    /// person.
    WrongPlayer,
    /// The name does not pass [`Player::human`]'s checks (empty, too
    /// long, characters that show nothing or mislead, the engine's name),
    /// and which.
    BadName(NameFault),
    /// The name mixes scripts whose letters look alike, or styles plain
    /// letters: it could pass for another's.
    LookalikeLetters,
    /// No game is being played.
    NotPlaying,
    /// The game is still on (a rematch needs it over).
    StillPlaying,
    /// It is the other side's turn.
    NotYourTurn,
    /// The move is malformed or illegal here, and why (in words that say
    /// so: the rules' own message).
    IllegalMove(String),
    /// There is no offer or request from the other side to answer.
    NothingToAnswer,
    /// There is no move of yours to take back.
    NothingToTakeBack,
    /// Both sides have moved: the game can no longer be aborted.
    TooLateToAbort,
    /// A takeback may not undo a side's first move.
    FirstMovesStay,
    /// Before both sides have moved a game is aborted, not drawn.
    DrawBeforeFirstMoves,
    /// This side offered a draw fewer than
    /// twenty plies (ten moves) ago: `plies` to wait.
    DrawOfferedLately {
        /// Plies until it may offer again.
        plies: usize,
    },
    /// This side's takeback was declined, and no move was played since.
    TakebackDeclined,
    /// This seat's rematch request was declined (it may still accept
    /// the other's).
    RematchDeclined,
    /// Before both sides have moved a game the opponent left is aborted,
    /// not claimed.
    ClaimBeforeFirstMoves,
    /// The other seat is the engine's, which would decline at once: no
    /// draw offers or takebacks are made to it.
    EngineDeclines,
    /// The room has played [`MAX_GAMES_PER_ROOM`] games.
    GamesUsedUp,
    /// The opponent has not left the game (or is the engine, which never
    /// does): nothing to claim.
    OpponentHere,
    /// Stored moves do not replay (a restart found them corrupt).
    Corrupt(String),
}

impl fmt::Display for RoomError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RoomError::NoSuchSeat => f.write_str("no such seat"),
            RoomError::SeatTaken => f.write_str("the seat is taken"),
            RoomError::WrongPlayer => f.write_str("this seat is not for this player"),
            RoomError::BadName(fault) => fault.fmt(f),
            RoomError::LookalikeLetters => f.write_str(
                "a name's letters come from one script (Latin may stand with Chinese, Japanese or Korean), in their plain forms: mixed, a Cyrillic or Cherokee letter can pass for a Latin one",
            ),
            RoomError::NotPlaying => f.write_str("no game is being played"),
            RoomError::StillPlaying => f.write_str("the game is still on"),
            RoomError::NotYourTurn => f.write_str("it is not your turn"),
            RoomError::IllegalMove(why) => f.write_str(why),
            RoomError::NothingToAnswer => f.write_str("nothing to answer"),
            RoomError::NothingToTakeBack => f.write_str("no move of yours to take back"),
            RoomError::FirstMovesStay => {
                f.write_str("a takeback cannot undo either side's first move")
            }
            RoomError::ClaimBeforeFirstMoves => {
                f.write_str("before both sides have moved a game is aborted, not claimed")
            }
            RoomError::DrawBeforeFirstMoves => {
                f.write_str("before both sides have moved a game is aborted, not drawn")
            }
            RoomError::DrawOfferedLately { plies } => {
                let moves = plies.div_ceil(2);
                let unit = if moves == 1 { "move" } else { "moves" };
                write!(f, "you offered a draw lately: you may again in {moves} {unit}")
            }
            RoomError::TakebackDeclined => f.write_str(
                "your takeback was declined: you may ask again once a move has been played",
            ),
            RoomError::RematchDeclined => f.write_str(
                "your rematch request was declined: \"New game\" starts another room",
            ),
            RoomError::EngineDeclines => {
                f.write_str("the engine declines draw offers and takebacks")
            }
            RoomError::GamesUsedUp => write!(
                f,
                "a room plays at most {MAX_GAMES_PER_ROOM} games: start a new game"
            ),
            RoomError::OpponentHere => {
                f.write_str("your opponent has not left the game: nothing to claim")
            }
            RoomError::TooLateToAbort => {
                f.write_str("both sides have moved: the game can no longer be aborted")
            }
            RoomError::Corrupt(what) => write!(f, "stored game does not replay: {what}"),
        }
    }
}

impl std::error::Error for RoomError {}

/// What a seat may do at one moment: exactly what the room's actions
/// accept then (each is asked the same question), so a page offers
/// nothing that would be refused.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Allowed {
    /// Call the game off ([`Room::abort`]).
    pub abort: bool,
    /// Resign ([`Room::resign`]).
    pub resign: bool,
    /// Offer a draw ([`Room::offer_draw`]).
    pub offer_draw: bool,
    /// In how many moves a draw may be offered again, while this side
    /// waits for that after its last offer (the page says so beside a
    /// dimmed button rather than hiding it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offer_draw_in_moves: Option<usize>,
    /// Ask for a takeback ([`Room::request_takeback`]).
    pub takeback: bool,
    /// Ask for a rematch ([`Room::offer_rematch`]).
    pub rematch: bool,
    /// End the game the opponent left, won or drawn ([`Room::claim`]):
    /// the room's task knows whether the opponent has been gone long
    /// enough, and sets it.
    pub claim: bool,
}

/// One room.
#[derive(Clone, Debug)]
pub struct Room {
    id: String,
    config: RoomConfig,
    seats: [Option<Player>; 2],
    game_no: u32,
    white_seat: u8,
    /// The position every game of the room starts from (the variant's,
    /// or a ladder's handicap), and its text when it is not the variant's.
    start: Game,
    start_fen: Option<String>,
    game: Game,
    clocks: Option<Clocks>,
    /// Both clocks as they stopped when the game ended ([`Event::GameOver`]).
    stopped_clock_ms: Option<[i64; 2]>,
    /// The side to move's thinking in the turn a game ended in (a
    /// resignation, a flag, a claim), which no move charged: a game's
    /// thinking shown after it counts it. Not stored: a game brought
    /// back finished shows its moves' time alone.
    last_turn_ms: u64,
    /// The time charged for each move of the game, to rebuild the clocks
    /// after a takeback.
    elapsed_ms: Vec<u64>,
    /// The time each side (White's, Black's) spent on moves that
    /// takebacks undid, and on the turns they ended: the clocks rebuilt
    /// from the moves are charged it, as time spent stays spent.
    spent_on_undone: [Duration; 2],
    /// When the side to move's turn began.
    turn_began: Instant,
    phase: Phase,
    draw_offer: Option<Colour>,
    takeback_request: Option<Colour>,
    /// How lately each side asked: offers are not made without end.
    asked: Asked,
    rematch: [bool; 2],
}

impl Room {
    /// A room whose creator sits in seat 0 and will play `creator_colour`
    /// in the first game; it waits for the other seat.
    pub fn new(
        id: String,
        config: RoomConfig,
        creator: Player,
        creator_colour: Colour,
        now: Instant,
    ) -> Room {
        Room {
            id,
            config,
            seats: [Some(creator), None],
            game_no: 1,
            white_seat: match creator_colour {
                Colour::White => 0,
                Colour::Black => 1,
            },
            start: Game::new(config.game.rules()),
            start_fen: None,
            game: Game::new(config.game.rules()),
            clocks: config.clock.map(Clocks::new),
            stopped_clock_ms: None,
            last_turn_ms: 0,
            elapsed_ms: Vec::new(),
            spent_on_undone: [Duration::ZERO; 2],
            turn_began: now,
            phase: Phase::Waiting,
            draw_offer: None,
            takeback_request: None,
            asked: Asked::default(),
            rematch: [false; 2],
        }
    }

    /// The room as a restart finds it in the store: the moves replayed by
    /// the rules, the clocks by the time each move was charged, and the
    /// side to move charged `thinking` already (from its turn's start to
    /// the server's last heartbeat, [`thought_before_stop`](GameRecord::thought_before_stop):
    /// the downtime is not charged), counted from `now`.
    pub fn restore(
        loaded: &LoadedRoom,
        thinking: Duration,
        now: Instant,
    ) -> Result<Room, RoomError> {
        let mut seats: [Option<Player>; 2] = [None, None];
        for s in &loaded.seats {
            let slot = seats
                .get_mut(usize::from(s.seat))
                .ok_or_else(|| RoomError::Corrupt(format!("seat {}", s.seat)))?;
            *slot = Some(Player {
                name: s.name.clone(),
                token_hash: s.token_hash.clone(),
                engine: s.engine,
            });
        }
        let creator = seats[0]
            .clone()
            .ok_or_else(|| RoomError::Corrupt("no creator seat".into()))?;
        let mut room = Room::new(
            loaded.id.clone(),
            loaded.config,
            creator,
            loaded.opening.creator_colour,
            now,
        );
        if let Some(fen) = &loaded.opening.start_fen {
            room = room
                .with_start(fen)
                .map_err(|e| RoomError::Corrupt(e.to_string()))?;
        }
        room.seats = seats;
        if let Some(game) = &loaded.game {
            room.resume(game, loaded.status, thinking, now)?;
        }
        Ok(room)
    }

    /// Play the stored `game` again in this room (fresh from the store,
    /// seats taken) and take its result, clocks and offers as stored; the
    /// side to move has been thinking for `thinking` at `now`.
    fn resume(
        &mut self,
        game: &GameRecord,
        status: RoomStatus,
        thinking: Duration,
        now: Instant,
    ) -> Result<(), RoomError> {
        if game.white_seat > 1 {
            return Err(RoomError::Corrupt(format!(
                "white seat {}",
                game.white_seat
            )));
        }
        self.game_no = game.game_no;
        self.white_seat = game.white_seat;
        if let Some(fen) = &game.start_fen {
            self.set_start(fen)
                .map_err(|e| RoomError::Corrupt(e.to_string()))?;
            self.game = self.start.clone();
        }
        for (i, mv) in game.moves.iter().enumerate() {
            if usize::try_from(mv.ply).ok() != Some(i + 1) {
                return Err(RoomError::Corrupt(format!("ply {} at {}", mv.ply, i + 1)));
            }
            self.replay(&mv.text, mv.elapsed_ms)?;
        }
        self.turn_began = now.checked_sub(thinking).unwrap_or(now);
        self.phase = self.stored_phase(game, status)?;
        match &game.result {
            Some(result) => self.stopped_clock_ms = result.clock_ms,
            None => self.take_stored_clocks(game.clock_ms)?,
        }
        if let Some(offers) = &game.offers {
            self.restore_offers(offers);
        }
        Ok(())
    }

    /// The phase of the stored `game`, its moves played again: over with
    /// its stored result, or by the rules if moves that ended it were
    /// stored before the result was; else being played.
    fn stored_phase(&self, game: &GameRecord, status: RoomStatus) -> Result<Phase, RoomError> {
        if let Some(result) = &game.result {
            return Outcome::from_stored(&result.reason, self.game.result())
                .filter(|o| o.result_token() == result.result)
                .map(Phase::Over)
                .ok_or_else(|| {
                    RoomError::Corrupt(format!("result {} ({})", result.result, result.reason))
                });
        }
        if status == RoomStatus::Finished {
            return Err(RoomError::Corrupt(
                "a finished room without a result".into(),
            ));
        }
        Ok(match self.game.result() {
            Some(end) => Phase::Over(Outcome::of(EndReason::Rules(end))),
            None => Phase::Playing,
        })
    }

    /// Bring the clocks rebuilt from the stored moves to the clocks stored
    /// with the game: they are less by the time spent on moves takebacks
    /// undid. Stored clocks above the rebuilt ones would be time given
    /// back, which nothing does: the store is corrupt.
    fn take_stored_clocks(&mut self, stored: Option<[i64; 2]>) -> Result<(), RoomError> {
        let (Some(clocks), Some(stored)) = (self.clocks.as_ref(), stored) else {
            return Ok(());
        };
        for side in [Colour::White, Colour::Black] {
            let rebuilt = clocks.left_ms()[side.index()];
            let kept = stored[side.index()];
            let spent = rebuilt
                .checked_sub(kept)
                .and_then(|d| u64::try_from(d).ok());
            let spent = spent.ok_or_else(|| {
                RoomError::Corrupt(format!(
                    "{side}'s clock stored at {kept} ms, above the {rebuilt} ms its moves leave"
                ))
            })?;
            self.spent_on_undone[side.index()] = Duration::from_millis(spent);
        }
        self.charge_spent_on_undone();
        Ok(())
    }

    /// Charge the clocks, as rebuilt from the game's moves, the time spent
    /// on moves takebacks undid.
    fn charge_spent_on_undone(&mut self) {
        if let Some(clocks) = self.clocks.as_mut() {
            for side in [Colour::White, Colour::Black] {
                clocks.spend(side, self.spent_on_undone[side.index()]);
            }
        }
    }

    /// Take back the offers a game had pending when they were stored,
    /// unless a move has been played since (a move clears them), and
    /// what each side asked lately.
    fn restore_offers(&mut self, offers: &OffersRecord) {
        if self.phase != Phase::Waiting {
            self.asked = Asked::restored(offers, self.game.moves().len());
        }
        if usize::try_from(offers.at_ply).ok() != Some(self.game.moves().len()) {
            return;
        }
        match self.phase {
            Phase::Playing => {
                self.draw_offer = offers.draw_offer;
                self.takeback_request = offers.takeback_by;
            }
            Phase::Over(_) => self.rematch = offers.rematch,
            Phase::Waiting => {}
        }
    }

    /// The offers pending now, as the store keeps them.
    pub fn offers_record(&self) -> OffersRecord {
        let mut offers = OffersRecord {
            at_ply: u32::try_from(self.game.moves().len()).unwrap_or(u32::MAX),
            draw_offer: self.draw_offer,
            takeback_by: self.takeback_request,
            rematch: self.rematch,
            ..OffersRecord::default()
        };
        self.asked.record_into(&mut offers);
        offers
    }

    /// Play a stored move again: legal by the rules, charged as it was.
    fn replay(&mut self, text: &str, elapsed_ms: u64) -> Result<(), RoomError> {
        let mv = self
            .game
            .position()
            .parse_move(text)
            .map_err(|e| RoomError::Corrupt(format!("{text}: {e}")))?;
        self.play_charged(&mv, Duration::from_millis(elapsed_ms));
        Ok(())
    }

    /// Play `mv`, which took `elapsed`, and charge the mover's clock for
    /// it (and give its increment) unless it is one of the [`FREE_PLIES`],
    /// before which no clock runs. The caller has checked that the move is
    /// legal and came in time.
    fn play_charged(&mut self, mv: &Move, elapsed: Duration) {
        let side = self.game.position().side_to_move();
        let clocks_run = self.game.moves().len() >= FREE_PLIES;
        if let Some(clocks) = self.clocks.as_mut().filter(|_| clocks_run) {
            // In time, the caller says: it cannot flag.
            let _ = clocks.charge(side, elapsed, Duration::MAX);
        }
        self.game.play(mv);
        self.elapsed_ms.push(millis(elapsed));
    }

    /// The room's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// What it was created with.
    pub fn config(&self) -> &RoomConfig {
        &self.config
    }

    /// Whether its opponent is the engine.
    pub fn against_the_engine(&self) -> bool {
        matches!(self.config.opponent, Opponent::Engine(_))
    }

    /// Where it stands.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The current (or last) game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The current game's number: 1, then one more for each rematch.
    pub fn game_no(&self) -> u32 {
        self.game_no
    }

    /// Who sits in `seat`.
    pub fn player(&self, seat: u8) -> Option<&Player> {
        self.seats.get(usize::from(seat))?.as_ref()
    }

    /// The seat that plays White in the current game.
    pub fn white_seat(&self) -> u8 {
        self.white_seat
    }

    /// The colour `seat` plays in the current game.
    pub fn colour_of(&self, seat: u8) -> Colour {
        if seat == self.white_seat {
            Colour::White
        } else {
            Colour::Black
        }
    }

    /// The seat that plays `colour` in the current game.
    pub fn seat_of(&self, colour: Colour) -> u8 {
        match colour {
            Colour::White => self.white_seat,
            Colour::Black => 1 - self.white_seat,
        }
    }

    /// The seat whose turn it is.
    pub fn seat_to_move(&self) -> u8 {
        self.seat_of(self.game.position().side_to_move())
    }

    /// The pending draw offer, by whom.
    pub fn draw_offer(&self) -> Option<Colour> {
        self.draw_offer
    }

    /// The pending takeback request, by whom.
    pub fn takeback_request(&self) -> Option<Colour> {
        self.takeback_request
    }

    /// Which seats asked for a rematch of the game that is over.
    pub fn rematch_requests(&self) -> [bool; 2] {
        self.rematch
    }

    /// Seat by `token_hash` the person in `seat` from now on; the token
    /// the seat had seats nobody. The engine's seat has no token.
    pub fn reissue(&mut self, seat: u8, token_hash: TokenHash) -> Result<(), RoomError> {
        match self
            .seats
            .get_mut(usize::from(seat))
            .and_then(Option::as_mut)
        {
            Some(player) if !player.engine => {
                player.token_hash = Some(token_hash);
                Ok(())
            }
            _ => Err(RoomError::WrongPlayer),
        }
    }

    /// The seat whose token this is, if any. Both seats' hashes are
    /// compared in full, so the time taken tells nothing.
    pub fn authenticate(&self, token: &SeatToken) -> Option<u8> {
        let mut found = None;
        for (seat, player) in (0u8..).zip(&self.seats) {
            let hash = player.as_ref().and_then(|p| p.token_hash.as_ref());
            if hash.is_some_and(|h| h.matches(token)) {
                found = Some(seat);
            }
        }
        found
    }

    /// The clocks as they run now (White's, Black's), the side to move's
    /// charged for its thinking so far; `None` without a clock.
    pub fn clock_ms(&self, now: Instant) -> Option<[i64; 2]> {
        let clocks = self.clocks.as_ref()?;
        Some(match self.phase {
            Phase::Playing if self.first_moves_pending() => clocks.left_ms(),
            Phase::Playing => {
                clocks.left_while(self.game.position().side_to_move(), self.thinking(now))
            }
            Phase::Over(_) => self.stopped_clock_ms.unwrap_or(clocks.left_ms()),
            Phase::Waiting => clocks.left_ms(),
        })
    }

    /// When the side to move has lost on time if it has not moved (the
    /// first millisecond its clock is below the margin), or before both
    /// sides have moved, when the game is aborted: the instant to call
    /// [`Room::check_time`]. Never without a clock.
    pub fn deadline(&self) -> Option<Instant> {
        if self.phase != Phase::Playing {
            return None;
        }
        let clocks = self.clocks.as_ref()?;
        let wait = match self.first_moves_pending() {
            true => self.waits_for_a_first_move().then_some(FIRST_MOVE_WAIT)?,
            false => clocks.deadline(self.game.position().side_to_move(), FLAG_MARGIN),
        };
        self.turn_began.checked_add(wait + Duration::from_millis(1))
    }

    /// The search limit of the side to move at `now` as the clocks give
    /// it (its thinking so far charged, unless no clock runs yet), or
    /// `None` in a game without a clock.
    pub fn engine_go(&self, now: Instant) -> Option<Go> {
        let clocks = self.clocks.as_ref()?;
        let thinking = match self.first_moves_pending() {
            true => Duration::ZERO,
            false => self.thinking(now),
        };
        Some(clocks.go_while(self.game.position().side_to_move(), thinking))
    }

    /// Whether a game is being played in which a side has yet to make its
    /// first move: no clock runs, and either player may abort it.
    pub fn first_moves_pending(&self) -> bool {
        self.phase == Phase::Playing && self.game.moves().len() < FREE_PLIES
    }

    /// Whether, in a game with a clock, a person is to make their first
    /// move, which aborts the game if it does not come within
    /// [`FIRST_MOVE_WAIT`]. An engine is never waited for so: its delay
    /// (a busy engine pool) is the server's, not the player's.
    fn waits_for_a_first_move(&self) -> bool {
        let engine = self.player(self.seat_to_move()).is_some_and(|p| p.engine);
        self.clocks.is_some() && self.first_moves_pending() && !engine
    }

    /// How long the side to move has left to make its first move before
    /// the game is aborted, at `now`; `None` once both have moved,
    /// without a clock, or for the engine.
    pub fn abort_in(&self, now: Instant) -> Option<Duration> {
        self.waits_for_a_first_move()
            .then(|| FIRST_MOVE_WAIT.saturating_sub(self.thinking(now)))
    }

    fn thinking(&self, now: Instant) -> Duration {
        now.saturating_duration_since(self.turn_began)
    }

    /// Give the side to move back `waited`: time the server spent on a
    /// write the store did not take (a database that does not answer),
    /// which is no player's thinking.
    pub fn give_back(&mut self, waited: Duration) {
        self.turn_began = self
            .turn_began
            .checked_add(waited)
            .unwrap_or(self.turn_began);
    }

    /// Take the free seat (seat 1). A person may take it unless the room
    /// is the engine's, the engine only then. With both seats taken the
    /// first game starts, its clock running from `now`.
    pub fn join(&mut self, player: Player, now: Instant) -> Result<Vec<Event>, RoomError> {
        if self.seats[1].is_some() {
            return Err(RoomError::SeatTaken);
        }
        if player.engine != self.against_the_engine() {
            return Err(RoomError::WrongPlayer);
        }
        let event = Event::SeatTaken {
            seat: 1,
            name: player.name.clone(),
            engine: player.engine,
        };
        self.seats[1] = Some(player);
        let mut events = vec![event];
        events.push(self.start_game(now));
        Ok(events)
    }

    /// Games start from `fen` (a position of this room's variant)
    /// instead of the variant's start: a ladder's handicap.
    pub fn with_start(mut self, fen: &str) -> Result<Room, RoomError> {
        self.set_start(fen)?;
        self.game = self.start.clone();
        Ok(self)
    }

    /// Whether the room's games start from a position other than the
    /// variant's (one its creator set, or a ladder's handicap), as the
    /// page tells it from the state's `start_fen`: a set start that is
    /// the usual one (a ladder's first rival) is no set position.
    pub fn from_set_position(&self) -> bool {
        self.start.position().to_fen() != self.config.game.variant.start_fen()
    }

    fn set_start(&mut self, fen: &str) -> Result<(), RoomError> {
        self.start = Game::from_fen(self.config.game.rules(), fen)
            .map_err(|e| RoomError::IllegalMove(format!("bad start position: {e}")))?;
        self.start_fen = Some(fen.to_owned());
        Ok(())
    }

    /// Once a game is over, start the next one from `fen` with the same
    /// colours (a ladder's next rival), its clock running from `now`.
    pub fn next_game_from(&mut self, fen: &str, now: Instant) -> Result<Vec<Event>, RoomError> {
        if !matches!(self.phase, Phase::Over(_)) {
            return Err(RoomError::StillPlaying);
        }
        self.set_start(fen)?;
        self.game_no += 1;
        Ok(vec![self.start_game(now)])
    }

    /// The time charged to `colour` over the current game's moves.
    pub fn thinking_ms(&self, colour: Colour) -> u64 {
        self.elapsed_ms
            .iter()
            .enumerate()
            .filter(|&(ply, _)| self.mover(ply) == colour)
            .map(|(_, ms)| *ms)
            .sum()
    }

    /// The time `colour` has spent in the current game at `now`: its
    /// moves' time and, on its turn, the turn so far (in a game being
    /// played) or until the game ended.
    pub fn thinking_ms_at(&self, colour: Colour, now: Instant) -> u64 {
        let turn = match self.phase {
            _ if self.game.position().side_to_move() != colour => 0,
            Phase::Playing => millis(self.thinking(now)),
            Phase::Over(_) => self.last_turn_ms,
            Phase::Waiting => 0,
        };
        self.thinking_ms(colour).saturating_add(turn)
    }

    /// Who made the game's move at index `ply` (0 for the first).
    fn mover(&self, ply: usize) -> Colour {
        let first = self.start.position().side_to_move();
        if ply.is_multiple_of(2) { first } else { !first }
    }

    fn start_game(&mut self, now: Instant) -> Event {
        self.game = self.start.clone();
        self.clocks = self.config.clock.map(Clocks::new);
        self.stopped_clock_ms = None;
        self.last_turn_ms = 0;
        self.elapsed_ms.clear();
        self.spent_on_undone = [Duration::ZERO; 2];
        self.turn_began = now;
        self.phase = Phase::Playing;
        self.draw_offer = None;
        self.takeback_request = None;
        self.asked = Asked::default();
        self.rematch = [false; 2];
        Event::GameStarted {
            game_no: self.game_no,
            white_seat: self.white_seat,
            clock_ms: self.clocks.as_ref().map(Clocks::left_ms),
            start_fen: self.start_fen.clone(),
        }
    }

    /// The colour of `seat` in a game being played, if someone sits there.
    fn playing_colour(&self, seat: u8) -> Result<Colour, RoomError> {
        if self.player(seat).is_none() {
            return Err(RoomError::NoSuchSeat);
        }
        if self.phase != Phase::Playing {
            return Err(RoomError::NotPlaying);
        }
        Ok(self.colour_of(seat))
    }

    /// End the game at `now`: the clocks stop as they run then, the side
    /// to move charged for its turn so far and none below zero.
    fn end(&mut self, reason: EndReason, now: Instant) -> Event {
        let clock_ms = self.clock_ms(now).map(|left| left.map(|ms| ms.max(0)));
        let outcome = Outcome::of(reason);
        self.phase = Phase::Over(outcome);
        self.stopped_clock_ms = clock_ms;
        self.last_turn_ms = millis(self.thinking(now));
        self.draw_offer = None;
        self.takeback_request = None;
        Event::GameOver {
            game_no: self.game_no,
            outcome,
            clock_ms,
        }
    }

    /// `seat` plays `text` at `now`. Refused, changing nothing, when it is
    /// not that seat's turn or the move is not legal. A legal move that
    /// comes after the mover's clock ran out is not played: the game is
    /// lost on time. Otherwise the move is played, the mover's clock
    /// charged (and given its increment), any pending offer lapses, and the
    /// game ends if the rules say so.
    pub fn play(&mut self, seat: u8, text: &str, now: Instant) -> Result<Vec<Event>, RoomError> {
        let colour = self.playing_colour(seat)?;
        let side = self.game.position().side_to_move();
        if colour != side {
            return Err(RoomError::NotYourTurn);
        }
        if text.len() > MAX_MOVE_TEXT {
            return Err(RoomError::IllegalMove(format!(
                "a move is at most {MAX_MOVE_TEXT} characters"
            )));
        }
        let mv = self
            .game
            .position()
            .parse_move(text)
            .map_err(|e| RoomError::IllegalMove(e.to_string()))?;
        let too_late = self.check_time(now);
        if !too_late.is_empty() {
            return Ok(too_late);
        }
        let elapsed = self.thinking(now);
        self.play_charged(&mv, elapsed);
        let elapsed_ms = millis(elapsed);
        self.turn_began = now;
        self.draw_offer = None;
        self.takeback_request = None;
        self.asked.position_changed();
        let mut events = vec![Event::Moved {
            game_no: self.game_no,
            ply: u32::try_from(self.game.moves().len()).unwrap_or(u32::MAX),
            text: mv.to_string(),
            elapsed_ms,
            clock_ms: self.clocks.as_ref().map(Clocks::left_ms),
        }];
        if let Some(end) = self.game.result() {
            events.push(self.end(EndReason::Rules(end), now));
        }
        Ok(events)
    }

    /// Whether the side to move has run out of time by `now`: if so the
    /// game ends, lost on time, or aborted if it was that side's first
    /// move. Call it at [`Room::deadline`].
    pub fn check_time(&mut self, now: Instant) -> Vec<Event> {
        if self.phase != Phase::Playing {
            return Vec::new();
        }
        let Some(clocks) = &self.clocks else {
            return Vec::new();
        };
        if self.first_moves_pending() {
            return match self.waits_for_a_first_move() && self.thinking(now) > FIRST_MOVE_WAIT {
                true => {
                    let side = self.game.position().side_to_move();
                    vec![self.end(EndReason::Aborted(AbortCause::NoFirstMove(side)), now)]
                }
                false => Vec::new(),
            };
        }
        let side = self.game.position().side_to_move();
        let left = clocks.left_while(side, self.thinking(now))[side.index()];
        let margin = i64::try_from(FLAG_MARGIN.as_millis()).unwrap_or(i64::MAX);
        if left < -margin {
            vec![self.end(EndReason::Time { loser: side }, now)]
        } else {
            Vec::new()
        }
    }

    /// `seat` resigns the game at `now`.
    pub fn resign(&mut self, seat: u8, now: Instant) -> Result<Vec<Event>, RoomError> {
        let colour = self.playing_colour(seat)?;
        Ok(vec![
            self.end(EndReason::Resignation { loser: colour }, now),
        ])
    }

    /// `seat` calls the game off at `now`, as either player may before
    /// both sides have moved: no result.
    pub fn abort(&mut self, seat: u8, now: Instant) -> Result<Vec<Event>, RoomError> {
        let colour = self.may_abort(seat)?;
        Ok(vec![
            self.end(EndReason::Aborted(AbortCause::By(colour)), now),
        ])
    }

    fn may_abort(&self, seat: u8) -> Result<Colour, RoomError> {
        let colour = self.playing_colour(seat)?;
        match self.first_moves_pending() {
            true => Ok(colour),
            false => Err(RoomError::TooLateToAbort),
        }
    }

    /// `seat` ends the game its opponent left at `now`: won if `won`,
    /// else drawn. Whether the opponent has been gone long enough is the
    /// room's task's to know (it sees the pages); here, that the game may
    /// be claimed at all ([`Room::may_claim`]).
    pub fn claim(&mut self, seat: u8, won: bool, now: Instant) -> Result<Vec<Event>, RoomError> {
        let colour = self.may_claim(seat)?;
        Ok(vec![self.end(EndReason::Left { gone: !colour, won }, now)])
    }

    /// Whether `seat` could claim the game if its opponent left: a game
    /// under way between two people, past both first moves (before them
    /// a game is aborted). Its colour, if so.
    pub fn may_claim(&self, seat: u8) -> Result<Colour, RoomError> {
        let colour = self.playing_colour(seat)?;
        if self.opponent(seat).is_none_or(|p| p.engine) {
            return Err(RoomError::OpponentHere);
        }
        if self.first_moves_pending() {
            return Err(RoomError::ClaimBeforeFirstMoves);
        }
        Ok(colour)
    }

    /// `seat` offers a draw at `now`; if the other side had offered one,
    /// this accepts it. The offer lapses with the next move.
    pub fn offer_draw(&mut self, seat: u8, now: Instant) -> Result<Vec<Event>, RoomError> {
        let colour = self.may_offer_draw(seat)?;
        match self.draw_offer {
            Some(by) if by != colour => Ok(vec![self.end(EndReason::DrawAgreed, now)]),
            Some(_) => Ok(Vec::new()),
            None => {
                self.draw_offer = Some(colour);
                self.asked.offered_draw(colour, self.game.moves().len());
                Ok(vec![Event::DrawOffered { by: colour }])
            }
        }
    }

    fn may_offer_draw(&self, seat: u8) -> Result<Colour, RoomError> {
        let colour = self.playing_colour(seat)?;
        // The engine first: a ladder game, which is never aborted, must
        // not be told to abort instead.
        self.opponent_is_a_person(seat)?;
        if self.first_moves_pending() {
            return Err(RoomError::DrawBeforeFirstMoves);
        }
        // Answering the other side's offer is always allowed; a new
        // offer waits its turn.
        let wait = self.asked.draw_wait(colour, self.game.moves().len());
        if wait > 0 && self.draw_offer.is_none() {
            return Err(RoomError::DrawOfferedLately { plies: wait });
        }
        Ok(colour)
    }

    /// Who sits opposite `seat`, if anyone.
    pub fn opponent(&self, seat: u8) -> Option<&Player> {
        self.player(1 - seat.min(1))
    }

    /// Offers and requests go to people only: the engine would decline.
    fn opponent_is_a_person(&self, seat: u8) -> Result<(), RoomError> {
        match self.opponent(seat).is_some_and(|p| p.engine) {
            true => Err(RoomError::EngineDeclines),
            false => Ok(()),
        }
    }

    /// `seat` accepts the draw the other side offered: drawn, 1-1.
    pub fn accept_draw(&mut self, seat: u8, now: Instant) -> Result<Vec<Event>, RoomError> {
        let colour = self.playing_colour(seat)?;
        if self.draw_offer != Some(!colour) {
            return Err(RoomError::NothingToAnswer);
        }
        Ok(vec![self.end(EndReason::DrawAgreed, now)])
    }

    /// `seat` declines the draw the other side offered.
    pub fn decline_draw(&mut self, seat: u8) -> Result<Vec<Event>, RoomError> {
        let colour = self.playing_colour(seat)?;
        if self.draw_offer != Some(!colour) {
            return Err(RoomError::NothingToAnswer);
        }
        self.draw_offer = None;
        Ok(vec![Event::DrawDeclined { by: colour }])
    }

    /// How many plies a takeback for `colour` undoes: its last move, and
    /// the opponent's reply if there is one.
    fn takeback_plies(&self, colour: Colour) -> Result<usize, RoomError> {
        let plies = if self.game.position().side_to_move() == colour {
            2
        } else {
            1
        };
        if self.game.moves().len() < plies {
            return Err(RoomError::NothingToTakeBack);
        }
        // Once the clocks run they never stop again: a takeback does not
        // reach back into the first moves (before both sides have moved,
        // a game is aborted instead).
        if self.game.moves().len() - plies < FREE_PLIES {
            return Err(RoomError::FirstMovesStay);
        }
        Ok(plies)
    }

    /// `seat` asks to take back its last move.
    pub fn request_takeback(&mut self, seat: u8) -> Result<Vec<Event>, RoomError> {
        let colour = self.may_ask_takeback(seat)?;
        // Asked again while it waits: nothing new to tell or store.
        if self.takeback_request == Some(colour) {
            return Ok(Vec::new());
        }
        self.takeback_request = Some(colour);
        Ok(vec![Event::TakebackRequested { by: colour }])
    }

    /// Whether `seat` may ask for a takeback: a game is on against a
    /// person and it has a move to take back that is not a first move.
    fn may_ask_takeback(&self, seat: u8) -> Result<Colour, RoomError> {
        let colour = self.playing_colour(seat)?;
        self.opponent_is_a_person(seat)?;
        self.takeback_plies(colour)?;
        if self.asked.takeback_declined(colour) {
            return Err(RoomError::TakebackDeclined);
        }
        Ok(colour)
    }

    /// `seat` grants the other side's takeback: its last move (and the
    /// reply to it) are undone and the turn starts again at `now`. Time
    /// spent stays spent (as on lichess): each clock is as it was after
    /// the move before, less what its side spent on the undone moves and
    /// on the turn now ended. Only the undone moves' increments go, as
    /// they are earned again when moves are played again.
    pub fn accept_takeback(&mut self, seat: u8, now: Instant) -> Result<Vec<Event>, RoomError> {
        let colour = self.playing_colour(seat)?;
        let Some(by) = self.takeback_request.filter(|&by| by != colour) else {
            return Err(RoomError::NothingToAnswer);
        };
        let plies = self.takeback_plies(by)?;
        let keep = self.game.moves().len() - plies;
        let spent = self.spent_since(keep, now);
        for (total, more) in self.spent_on_undone.iter_mut().zip(spent) {
            *total += more;
        }
        let moves: Vec<_> = self.game.moves()[..keep].to_vec();
        let elapsed: Vec<u64> = self.elapsed_ms[..keep].to_vec();
        self.game = self.start.clone();
        self.clocks = self.config.clock.map(Clocks::new);
        self.elapsed_ms.clear();
        for (mv, ms) in moves.iter().zip(elapsed) {
            self.play_charged(mv, Duration::from_millis(ms));
        }
        self.charge_spent_on_undone();
        self.turn_began = now;
        self.takeback_request = None;
        self.draw_offer = None;
        self.asked.position_changed();
        Ok(vec![Event::TookBack {
            game_no: self.game_no,
            plies: u32::try_from(keep).unwrap_or(u32::MAX),
            clock_ms: self.clocks.as_ref().map(Clocks::left_ms),
        }])
    }

    /// The time each side (White's, Black's) has spent since the first
    /// `plies` plies, the side to move's turn until `now` included.
    fn spent_since(&self, plies: usize, now: Instant) -> [Duration; 2] {
        let mut spent = [Duration::ZERO; 2];
        spent[self.game.position().side_to_move().index()] = self.thinking(now);
        for (ply, &ms) in self.elapsed_ms.iter().enumerate().skip(plies) {
            spent[self.mover(ply).index()] += Duration::from_millis(ms);
        }
        spent
    }

    /// `seat` declines the other side's takeback.
    pub fn decline_takeback(&mut self, seat: u8) -> Result<Vec<Event>, RoomError> {
        let colour = self.playing_colour(seat)?;
        if self.takeback_request.is_none_or(|by| by == colour) {
            return Err(RoomError::NothingToAnswer);
        }
        self.takeback_request = None;
        self.asked.declined_takeback(!colour);
        Ok(vec![Event::TakebackDeclined { by: colour }])
    }

    /// `seat` asks for a rematch once the game is over; when both seats
    /// have asked, the next game starts at `now` with colours swapped.
    pub fn offer_rematch(&mut self, seat: u8, now: Instant) -> Result<Vec<Event>, RoomError> {
        self.may_ask_rematch(seat)?;
        let index = usize::from(seat);
        let mut events = Vec::new();
        if !self.rematch[index] {
            self.rematch[index] = true;
            events.push(Event::RematchOffered { seat });
        }
        if self.rematch == [true; 2] {
            self.game_no += 1;
            self.white_seat = 1 - self.white_seat;
            events.push(self.start_game(now));
        }
        Ok(events)
    }

    /// `seat` declines the rematch the other seat asked for, which may
    /// not ask again after this game.
    pub fn decline_rematch(&mut self, seat: u8) -> Result<Vec<Event>, RoomError> {
        self.may_ask_rematch(seat)?;
        let asker = 1 - seat;
        if !self.rematch[usize::from(asker)] {
            return Err(RoomError::NothingToAnswer);
        }
        self.rematch[usize::from(asker)] = false;
        self.asked.declined_rematch(asker);
        Ok(vec![Event::RematchDeclined { seat: asker }])
    }

    /// Whether `seat` may ask for a rematch, or accept one: a request
    /// declined is not made again, but the other's may still be accepted.
    fn may_ask_rematch(&self, seat: u8) -> Result<(), RoomError> {
        if self.player(seat).is_none() {
            return Err(RoomError::NoSuchSeat);
        }
        let accepting = self.rematch[usize::from(1 - seat)];
        if self.asked.rematch_declined(seat) && !accepting {
            return Err(RoomError::RematchDeclined);
        }
        match self.phase {
            Phase::Over(_) if self.game_no >= MAX_GAMES_PER_ROOM => Err(RoomError::GamesUsedUp),
            Phase::Over(_) => Ok(()),
            Phase::Playing => Err(RoomError::StillPlaying),
            Phase::Waiting => Err(RoomError::NotPlaying),
        }
    }

    /// What the person in `seat` may do now (nothing for the engine's
    /// seat or an empty one): each answer is the check its action makes.
    pub fn allowed(&self, seat: u8) -> Allowed {
        if self.player(seat).is_none_or(|p| p.engine) {
            return Allowed::default();
        }
        let draw = self.may_offer_draw(seat);
        Allowed {
            abort: self.may_abort(seat).is_ok(),
            resign: self.playing_colour(seat).is_ok(),
            offer_draw: draw.is_ok(),
            offer_draw_in_moves: match draw {
                Err(RoomError::DrawOfferedLately { plies }) => Some(plies.div_ceil(2)),
                _ => None,
            },
            takeback: self.may_ask_takeback(seat).is_ok(),
            rematch: self.may_ask_rematch(seat).is_ok(),
            claim: false,
        }
    }
}

/// A span in whole milliseconds, as the store keeps times and the page
/// shows them.
pub fn millis(span: Duration) -> u64 {
    u64::try_from(span.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::serve::config::{GameConfig, Strength};
    use crate::serve::store::{MoveRecord, Opening, SeatRecord};
    use bashni_host::clock::TimeControl;
    use bashni_rules::{DrawRules, GameEnd, Variant};

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    fn config(clock: Option<&str>) -> RoomConfig {
        RoomConfig {
            game: GameConfig::online(Variant::Bashni),
            clock: clock.map(|c| c.parse::<TimeControl>().expect("time control")),
            opponent: Opponent::Anyone,
        }
    }

    /// A room with both seats taken (seat 0 White), the game started at
    /// `t0`; the two seats' tokens.
    fn playing(clock: Option<&str>, t0: Instant) -> (Room, [SeatToken; 2]) {
        playing_with(config(clock), t0)
    }

    fn playing_with(config: RoomConfig, t0: Instant) -> (Room, [SeatToken; 2]) {
        let tokens = [SeatToken::generate(), SeatToken::generate()];
        let ann = Player::human("Ann", tokens[0].hash()).expect("name");
        let bob = Player::human("Bob", tokens[1].hash()).expect("name");
        let mut room = Room::new("r".into(), config, ann, Colour::White, t0);
        assert_eq!(room.phase(), Phase::Waiting);
        let events = room.join(bob, t0).expect("join");
        assert_eq!(
            events[0],
            Event::SeatTaken {
                seat: 1,
                name: "Bob".into(),
                engine: false
            }
        );
        assert!(matches!(
            events[1],
            Event::GameStarted {
                game_no: 1,
                white_seat: 0,
                ..
            }
        ));
        assert_eq!(room.phase(), Phase::Playing);
        (room, tokens)
    }

    /// A legal move for the side to move.
    fn a_move(room: &Room) -> String {
        room.game().position().legal_moves()[0].to_string()
    }

    /// A room Ann created at `t0` against the engine at Skill 5, playing
    /// `colour`; the engine's seat still free.
    fn engine_room(clock: Option<&str>, colour: Colour, t0: Instant) -> Room {
        let ann = Player::human("Ann", SeatToken::generate().hash()).expect("name");
        let config = RoomConfig {
            opponent: Opponent::Engine(Strength::Skill(5)),
            ..config(clock)
        };
        Room::new("e".into(), config, ann, colour, t0)
    }

    /// Both sides make their first move at `at` (no clock runs for them:
    /// nothing is charged or given).
    fn past_first_moves(room: &mut Room, at: Instant) {
        for seat in [0, 1] {
            room.play(seat, &a_move(room), at).expect("first move");
        }
        assert!(!room.first_moves_pending());
    }

    /// The room's deadline, and what checking the time there does (at
    /// the millisecond before, nothing).
    fn at_the_deadline(room: &mut Room) -> (Instant, Vec<Event>) {
        let deadline = room.deadline().expect("a deadline");
        let before = room.check_time(deadline - Duration::from_millis(1));
        assert!(before.is_empty(), "{before:?}");
        (deadline, room.check_time(deadline))
    }

    fn moved(events: &[Event]) -> usize {
        events
            .iter()
            .filter(|e| matches!(e, Event::Moved { .. }))
            .count()
    }

    fn outcome(room: &Room) -> Outcome {
        match room.phase() {
            Phase::Over(outcome) => outcome,
            other => panic!("game not over: {other:?}"),
        }
    }

    #[test]
    fn nobody_else_can_move_for_you() {
        let t0 = Instant::now();
        let (mut room, tokens) = playing(None, t0);
        assert_eq!(room.authenticate(&tokens[0]), Some(0));
        assert_eq!(room.authenticate(&tokens[1]), Some(1));
        assert_eq!(room.authenticate(&SeatToken::generate()), None);
        // Seat 1 (Black) cannot play White's move, nor an empty seat.
        let mv = a_move(&room);
        assert_eq!(room.play(1, &mv, t0), Err(RoomError::NotYourTurn));
        assert_eq!(room.play(2, &mv, t0), Err(RoomError::NoSuchSeat));
        assert_eq!(room.game().moves().len(), 0);
        // A third person cannot sit down either.
        let eve = Player::human("Eve", SeatToken::generate().hash()).expect("name");
        assert_eq!(room.join(eve, t0), Err(RoomError::SeatTaken));
    }

    #[test]
    fn a_move_out_of_turn_or_illegal_is_refused_and_changes_nothing() {
        let t0 = Instant::now();
        let (mut room, _) = playing(Some("60"), t0);
        past_first_moves(&mut room, t0);
        let first = a_move(&room);
        let events = room.play(0, &first, t0 + secs(1)).expect("move");
        assert_eq!(moved(&events), 1);
        assert!(matches!(
            &events[0],
            Event::Moved {
                ply: 3,
                elapsed_ms: 1000,
                clock_ms: Some([59_000, 60_000]),
                ..
            }
        ));
        // White again: out of turn.
        assert_eq!(
            room.play(0, &first, t0 + secs(2)),
            Err(RoomError::NotYourTurn)
        );
        // Black: illegal and malformed moves.
        for bad in ["c3-d4", "z9-z8", "<script>", "", &"c3-d4".repeat(40)] {
            assert!(
                matches!(
                    room.play(1, bad, t0 + secs(2)),
                    Err(RoomError::IllegalMove(_))
                ),
                "{bad}"
            );
        }
        assert_eq!(room.game().moves().len(), 3);
        assert_eq!(room.clock_ms(t0 + secs(1)), Some([59_000, 60_000]));
        // Black's clock runs from White's move.
        assert_eq!(room.clock_ms(t0 + secs(4)), Some([59_000, 57_000]));
    }

    #[test]
    fn no_clock_runs_until_both_sides_have_made_a_first_move() {
        let t0 = Instant::now();
        let (mut room, _) = playing(Some("60"), t0);
        assert_eq!(room.clock_ms(t0 + secs(20)), Some([60_000, 60_000]));
        assert_eq!(room.abort_in(t0 + secs(20)), Some(secs(10)));
        let events = room.play(0, &a_move(&room), t0 + secs(20)).expect("white");
        assert!(matches!(
            events[..],
            [Event::Moved {
                elapsed_ms: 20_000,
                clock_ms: Some([60_000, 60_000]),
                ..
            }]
        ));
        // Black's wait starts anew from White's move.
        assert_eq!(
            room.deadline(),
            Some(t0 + secs(50) + Duration::from_millis(1))
        );
        assert_eq!(room.clock_ms(t0 + secs(45)), Some([60_000, 60_000]));
        room.play(1, &a_move(&room), t0 + secs(45)).expect("black");
        assert_eq!(room.abort_in(t0 + secs(45)), None);
        // From here the side to move's clock runs.
        assert_eq!(room.clock_ms(t0 + secs(46)), Some([59_000, 60_000]));
        assert_eq!(
            room.deadline(),
            Some(t0 + secs(105) + Duration::from_millis(1))
        );
        assert_eq!(
            room.thinking_ms(Colour::White),
            20_000,
            "the time thought is kept"
        );
    }

    #[test]
    fn a_first_move_not_made_in_time_aborts_the_game() {
        let t0 = Instant::now();
        let aborted = Outcome {
            winner: None,
            reason: EndReason::Aborted(AbortCause::NoFirstMove(Colour::White)),
        };
        let (mut room, _) = playing(Some("60"), t0);
        let (deadline, events) = at_the_deadline(&mut room);
        assert_eq!(deadline, t0 + FIRST_MOVE_WAIT + Duration::from_millis(1));
        assert!(matches!(
            events[..],
            [Event::GameOver {
                clock_ms: Some([60_000, 60_000]),
                ..
            }]
        ));
        assert_eq!(outcome(&room), aborted);
        assert_eq!(outcome(&room).result_token(), "*");
        assert_eq!(
            outcome(&room).to_string(),
            "White made no first move in time"
        );
        // A first move that comes too late is not played.
        let (mut room, _) = playing(Some("60"), t0);
        let late = room.play(0, &a_move(&room), t0 + secs(31)).expect("late");
        assert_eq!(moved(&late), 0);
        assert_eq!(outcome(&room), aborted);
        // Without a clock a game may wait for its first move.
        let (mut room, _) = playing(None, t0);
        assert_eq!(room.deadline(), None);
        assert_eq!(room.abort_in(t0), None);
        assert!(room.check_time(t0 + secs(3600)).is_empty());
    }

    #[test]
    fn the_engine_is_given_the_clocks_as_they_run() {
        let t0 = Instant::now();
        let (mut room, _) = playing(Some("60+2"), t0);
        let full = Go::Clock {
            wtime: 60_000,
            btime: 60_000,
            winc: 2_000,
            binc: 2_000,
            moves_to_go: None,
        };
        assert_eq!(
            room.engine_go(t0 + secs(9)),
            Some(full),
            "no clock runs yet"
        );
        past_first_moves(&mut room, t0);
        let Some(Go::Clock { wtime, btime, .. }) = room.engine_go(t0 + secs(5)) else {
            panic!("a clock");
        };
        assert_eq!((wtime, btime), (55_000, 60_000), "White's thinking charged");
        let (untimed, _) = playing(None, t0);
        assert_eq!(untimed.engine_go(t0), None);
    }

    #[test]
    fn a_room_plays_a_bounded_number_of_games() {
        let t0 = Instant::now();
        let (mut room, _) = playing(None, t0);
        for _ in 1..MAX_GAMES_PER_ROOM {
            room.abort(0, t0).expect("abort");
            room.offer_rematch(0, t0).expect("rematch");
            room.offer_rematch(1, t0).expect("rematch");
        }
        assert_eq!(room.game_no(), MAX_GAMES_PER_ROOM);
        room.abort(0, t0).expect("abort");
        assert_eq!(room.offer_rematch(0, t0), Err(RoomError::GamesUsedUp));
        assert!(!room.allowed(0).rematch);
    }

    #[test]
    fn no_draw_offer_or_takeback_is_made_to_the_engine() {
        let t0 = Instant::now();
        let mut room = engine_room(None, Colour::White, t0);
        room.join(Player::engine("bashni skill 5"), t0)
            .expect("engine joins");
        assert_eq!(
            room.offer_draw(0, t0),
            Err(RoomError::EngineDeclines),
            "also before the first moves"
        );
        for _ in 0..2 {
            past_first_moves(&mut room, t0);
        }
        assert_eq!(room.offer_draw(0, t0), Err(RoomError::EngineDeclines));
        room.play(0, &a_move(&room), t0)
            .expect("a move to take back");
        assert_eq!(room.request_takeback(0), Err(RoomError::EngineDeclines));
        let allowed = room.allowed(0);
        assert!(allowed.resign && !allowed.offer_draw && !allowed.takeback);
        assert_eq!(room.allowed(1), Allowed::default(), "the engine's seat");
    }

    /// Over random games (moves, offers, takebacks, resignations,
    /// rematches), what `allowed` tells a seat is exactly what its
    /// actions then accept.
    #[test]
    fn what_a_seat_is_allowed_is_what_its_actions_accept() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let t0 = Instant::now();
        let (mut room, _) = playing(Some("5+3"), t0);
        let mut checked = [0usize; 5];
        for step in 0..3000 {
            for seat in [0, 1] {
                let allowed = room.allowed(seat);
                let accepts = |act: &dyn Fn(&mut Room, u8) -> bool| act(&mut room.clone(), seat);
                let answers = [
                    (allowed.abort, accepts(&|r, s| r.abort(s, t0).is_ok())),
                    (allowed.resign, accepts(&|r, s| r.resign(s, t0).is_ok())),
                    (
                        allowed.offer_draw,
                        accepts(&|r, s| r.offer_draw(s, t0).is_ok()),
                    ),
                    (
                        allowed.takeback,
                        accepts(&|r, s| r.request_takeback(s).is_ok()),
                    ),
                    (
                        allowed.rematch,
                        accepts(&|r, s| r.offer_rematch(s, t0).is_ok()),
                    ),
                ];
                for (i, (told, accepted)) in answers.into_iter().enumerate() {
                    assert_eq!(told, accepted, "step {step}, seat {seat}, action {i}");
                    checked[i] += usize::from(told);
                }
            }
            let seat = rng.random_range(0..2u8);
            let _ = match rng.random_range(0..20) {
                0 => room.resign(seat, t0),
                1 => room.offer_draw(seat, t0),
                2 => room.request_takeback(seat),
                3 => room.accept_takeback(seat, t0),
                4 => room.abort(seat, t0),
                5..=7 => room.offer_rematch(seat, t0),
                _ if room.phase() == Phase::Playing => {
                    let to_move = room.seat_to_move();
                    let legal = room.game().position().legal_moves();
                    let mv = legal[rng.random_range(0..legal.len())].to_string();
                    room.play(to_move, &mv, t0)
                }
                _ => Ok(Vec::new()),
            };
        }
        assert!(
            checked.iter().all(|&n| n > 0),
            "every action was allowed at times: {checked:?}"
        );
    }

    #[test]
    fn an_engine_is_not_held_to_the_first_move_wait_but_its_opponent_is() {
        let t0 = Instant::now();
        let mut room = engine_room(Some("60"), Colour::Black, t0);
        room.join(Player::engine("bashni skill 5"), t0)
            .expect("engine joins");
        // The engine, White, waits for a free engine as long as it takes.
        assert_eq!(room.deadline(), None);
        assert_eq!(room.abort_in(t0), None);
        assert!(room.check_time(t0 + secs(100)).is_empty());
        room.play(1, &a_move(&room), t0 + secs(100))
            .expect("engine moves");
        assert_eq!(room.abort_in(t0 + secs(110)), Some(secs(20)));
        room.check_time(t0 + secs(131));
        assert_eq!(
            outcome(&room).reason,
            EndReason::Aborted(AbortCause::NoFirstMove(Colour::Black)),
            "Ann, Black, made no first move in time"
        );
    }

    #[test]
    fn either_player_may_abort_until_both_have_moved() {
        let t0 = Instant::now();
        for seat in [0, 1] {
            let (mut room, _) = playing(None, t0);
            room.abort(seat, t0).expect("abort at once");
            let by = room.colour_of(seat);
            assert_eq!(
                outcome(&room).reason,
                EndReason::Aborted(AbortCause::By(by))
            );
            assert_eq!(room.abort(seat, t0), Err(RoomError::NotPlaying));
        }
        let (mut room, _) = playing(Some("60+3"), t0);
        room.play(0, &a_move(&room), t0).expect("white");
        assert!(room.first_moves_pending());
        let events = room.abort(0, t0 + secs(2)).expect("abort after one move");
        assert!(matches!(
            events[..],
            [Event::GameOver {
                clock_ms: Some([60_000, 60_000]),
                ..
            }]
        ));
        assert_eq!(room.abort(2, t0), Err(RoomError::NoSuchSeat));
        let (mut room, _) = playing(None, t0);
        past_first_moves(&mut room, t0);
        assert_eq!(room.abort(1, t0), Err(RoomError::TooLateToAbort));
        assert_eq!(room.phase(), Phase::Playing);
        // A rematch after an aborted game is a new game like any other.
        room.resign(1, t0).expect("resign");
        room.offer_rematch(0, t0).expect("rematch");
        room.offer_rematch(1, t0).expect("rematch");
        assert!(room.first_moves_pending());
    }

    #[test]
    fn a_flag_falls_on_a_late_move_and_at_the_deadline() {
        let t0 = Instant::now();
        let (mut room, _) = playing(Some("1+1"), t0);
        // Each side has its 1 s once both have moved.
        past_first_moves(&mut room, t0);
        // A move after the clock ran out is not played: lost on time.
        let late = room
            .play(0, &a_move(&room), t0 + secs(3))
            .expect("late move");
        assert_eq!(moved(&late), 0);
        assert_eq!(
            outcome(&room),
            Outcome {
                winner: Some(Colour::Black),
                reason: EndReason::Time {
                    loser: Colour::White
                }
            }
        );
        assert_eq!(outcome(&room).result_token(), "0-2");
        assert_eq!(room.game().moves().len(), 2);
        assert_eq!(
            room.clock_ms(t0 + secs(10)),
            Some([0, 1_000]),
            "the clock that ran out shows zero, and both stay stopped"
        );
        assert_eq!(
            room.play(0, "c3-d4", t0 + secs(3)),
            Err(RoomError::NotPlaying)
        );

        // Without a move, the server's check at the deadline decides it.
        let (mut room, _) = playing(Some("1+1"), t0);
        past_first_moves(&mut room, t0);
        room.play(0, &a_move(&room), t0 + Duration::from_millis(400))
            .expect("in time");
        let (deadline, events) = at_the_deadline(&mut room);
        // Black has 1 s from White's move.
        assert_eq!(deadline, t0 + Duration::from_millis(1401));
        assert!(matches!(
            events[..],
            [Event::GameOver {
                outcome: Outcome {
                    winner: Some(Colour::White),
                    ..
                },
                ..
            }]
        ));
        assert_eq!(room.deadline(), None);
        // White: 1 s, less 0.4 s thought, plus the 1 s increment.
        assert_eq!(room.clock_ms(deadline + secs(5)), Some([1_600, 0]));
        // No clock, no flag.
        let (mut room, _) = playing(None, t0);
        assert!(room.check_time(t0 + secs(1_000_000)).is_empty());
        assert_eq!(room.deadline(), None);
    }

    #[test]
    fn a_draw_offer_accepted_ends_the_game_drawn() {
        let t0 = Instant::now();
        let (mut room, _) = playing(None, t0);
        assert_eq!(
            room.offer_draw(0, t0),
            Err(RoomError::DrawBeforeFirstMoves),
            "a game is aborted before both have moved, not drawn"
        );
        past_first_moves(&mut room, t0);
        assert_eq!(room.accept_draw(1, t0), Err(RoomError::NothingToAnswer));
        assert_eq!(
            room.offer_draw(0, t0),
            Ok(vec![Event::DrawOffered { by: Colour::White }])
        );
        assert_eq!(room.offer_draw(0, t0), Ok(vec![]), "offered once");
        assert_eq!(
            room.accept_draw(0, t0),
            Err(RoomError::NothingToAnswer),
            "not your own"
        );
        let events = room.accept_draw(1, t0).expect("accept");
        assert!(matches!(events[..], [Event::GameOver { game_no: 1, .. }]));
        assert_eq!(outcome(&room).winner, None);
        assert_eq!(outcome(&room).result_token(), "1-1");
        assert_eq!(outcome(&room).to_string(), "draw agreed");
    }

    #[test]
    fn a_game_the_opponent_left_is_claimed_won_or_drawn_between_people_only() {
        let t0 = Instant::now();
        let (mut room, _) = playing(None, t0);
        assert_eq!(
            room.claim(0, true, t0),
            Err(RoomError::ClaimBeforeFirstMoves),
            "before both have moved a game is aborted"
        );
        past_first_moves(&mut room, t0);
        let mut drawn = room.clone();
        let events = room.claim(1, true, t0).expect("claimed");
        assert!(matches!(events[..], [Event::GameOver { game_no: 1, .. }]));
        assert_eq!(outcome(&room).winner, Some(Colour::Black));
        assert_eq!(outcome(&room).to_string(), "White left the game");
        assert_eq!(room.claim(0, true, t0), Err(RoomError::NotPlaying));
        drawn.claim(0, false, t0).expect("drawn");
        assert_eq!(outcome(&drawn).winner, None);
        assert_eq!(
            outcome(&drawn).to_string(),
            "Black left; White called it a draw"
        );
        let mut engine = engine_room(None, Colour::White, t0);
        engine
            .join(Player::engine("bashni (Skill 5)"), t0)
            .expect("engine");
        past_first_moves(&mut engine, t0);
        assert_eq!(
            engine.claim(0, true, t0),
            Err(RoomError::OpponentHere),
            "the engine never leaves"
        );
    }

    #[test]
    fn a_draw_offer_can_be_declined_and_lapses_with_a_move() {
        let t0 = Instant::now();
        let (mut room, _) = playing(None, t0);
        past_first_moves(&mut room, t0);
        room.offer_draw(1, t0).expect("offer");
        assert_eq!(
            room.decline_draw(0),
            Ok(vec![Event::DrawDeclined { by: Colour::White }])
        );
        assert_eq!(room.draw_offer(), None);
        // Not again at once: ten moves later (the move count is even).
        assert_eq!(
            room.offer_draw(1, t0),
            Err(RoomError::DrawOfferedLately { plies: 20 })
        );
        assert!(!room.allowed(1).offer_draw);
        assert_eq!(
            room.allowed(1).offer_draw_in_moves,
            Some(10),
            "the page says when"
        );
        assert_eq!(room.allowed(0).offer_draw_in_moves, None);
        room.offer_draw(0, t0).expect("White's own offer");
        room.play(0, &a_move(&room), t0).expect("move");
        assert_eq!(room.draw_offer(), None, "a move lapses the offer");
        assert_eq!(room.accept_draw(1, t0), Err(RoomError::NothingToAnswer));
        for _ in 0..19 {
            let seat = room.seat_to_move();
            room.play(seat, &a_move(&room), t0).expect("move");
        }
        // Both offering is agreeing, whenever White offered last.
        room.offer_draw(1, t0)
            .expect("offer again, twenty plies on");
        room.offer_draw(0, t0).expect("counter-offer");
        assert_eq!(outcome(&room).reason, EndReason::DrawAgreed);
    }

    #[test]
    fn a_resignation_or_a_draw_stops_the_clocks_where_they_ran() {
        let t0 = Instant::now();
        let (mut room, _) = playing(Some("60"), t0);
        past_first_moves(&mut room, t0);
        room.play(0, &a_move(&room), t0 + secs(1)).expect("move");
        let events = room.resign(1, t0 + secs(5)).expect("resign");
        assert!(matches!(
            events[..],
            [Event::GameOver {
                clock_ms: Some([59_000, 56_000]),
                ..
            }]
        ));
        assert_eq!(room.clock_ms(t0 + secs(60)), Some([59_000, 56_000]));

        let (mut room, _) = playing(Some("60"), t0);
        past_first_moves(&mut room, t0);
        room.offer_draw(0, t0 + secs(2)).expect("offer");
        room.accept_draw(1, t0 + secs(3)).expect("accept");
        assert_eq!(room.clock_ms(t0 + secs(60)), Some([57_000, 60_000]));
        // The next game's clocks start full.
        room.offer_rematch(0, t0 + secs(61)).expect("rematch");
        room.offer_rematch(1, t0 + secs(61)).expect("rematch");
        assert_eq!(room.clock_ms(t0 + secs(61)), Some([60_000, 60_000]));
    }

    #[test]
    fn resigning_loses() {
        let t0 = Instant::now();
        let (mut room, _) = playing(None, t0);
        room.resign(1, t0).expect("resign");
        assert_eq!(outcome(&room).winner, Some(Colour::White));
        assert_eq!(outcome(&room).to_string(), "Black resigned");
        assert_eq!(room.resign(0, t0), Err(RoomError::NotPlaying));
    }

    #[test]
    fn a_takeback_undoes_the_last_move_or_two() {
        let t0 = Instant::now();
        let (mut room, _) = playing(Some("60+1"), t0);
        assert_eq!(room.request_takeback(0), Err(RoomError::NothingToTakeBack));
        room.play(0, &a_move(&room), t0 + secs(5)).expect("white");
        // A first move: no clock runs, nothing is charged or given.
        assert_eq!(room.clock_ms(t0 + secs(5)), Some([60_000, 60_000]));
        // Black has no move to take back; White's first move stays.
        assert_eq!(room.request_takeback(1), Err(RoomError::NothingToTakeBack));
        assert_eq!(room.request_takeback(0), Err(RoomError::FirstMovesStay));
        // Five more moves, the last four charged; on its turn White takes
        // back its last move and Black's reply.
        let mut kept = None;
        for (ply, at) in [10, 12, 15, 16, 17].into_iter().enumerate() {
            let seat = u8::from(ply % 2 == 0);
            room.play(seat, &a_move(&room), t0 + secs(at))
                .expect("move");
            if ply == 2 {
                kept = Some(room.game().position().clone());
            }
        }
        room.request_takeback(1)
            .expect("black asks (white to move: one reply undone too)");
        assert_eq!(room.decline_takeback(1), Err(RoomError::NothingToAnswer));
        assert_eq!(
            room.decline_takeback(0),
            Ok(vec![Event::TakebackDeclined { by: Colour::White }])
        );
        assert_eq!(
            room.request_takeback(1),
            Err(RoomError::TakebackDeclined),
            "not again in the same position"
        );
        assert!(!room.allowed(1).takeback);
        room.request_takeback(0).expect("white asks");
        assert_eq!(
            room.request_takeback(0),
            Ok(Vec::new()),
            "asked again: no news"
        );
        let events = room.accept_takeback(1, t0 + secs(20)).expect("accept");
        // White's third move and Black's reply are gone.
        assert!(matches!(events[..], [Event::TookBack { plies: 4, .. }]));
        assert_eq!(room.game().moves().len(), 4);
        assert_eq!(Some(room.game().position()), kept.as_ref());
        // Time spent stays spent: the clocks as after ply 4 (the first
        // moves free, then White charged 2 s and Black 3 s, each move
        // given 1 s), less the undone moves' second each and White's 3 s
        // on the turn the takeback ended. The undone moves' increments go.
        assert_eq!(room.clock_ms(t0 + secs(20)), Some([55_000, 57_000]));
        assert_eq!(room.game().position().side_to_move(), Colour::White);
        // Back to where both had made their first move, but no further:
        // the earlier takeback's time stays spent too.
        room.request_takeback(0).expect("white asks again");
        room.accept_takeback(1, t0 + secs(21)).expect("accept");
        assert_eq!(room.game().moves().len(), 2);
        assert_eq!(
            room.clock_ms(t0 + secs(21)),
            Some([60_000 - 4_000 - 3_000, 60_000 - 1_000 - 3_000])
        );
        assert!(!room.first_moves_pending(), "the clocks run on");
        assert_eq!(room.request_takeback(0), Err(RoomError::FirstMovesStay));
        room.play(0, &a_move(&room), t0 + secs(22)).expect("white");
        assert_eq!(room.request_takeback(1), Err(RoomError::FirstMovesStay));
        // What the page is told it may ask for says the same.
        assert!(room.allowed(0).takeback);
        assert!(!room.allowed(1).takeback);
        room.resign(1, t0 + secs(23)).expect("resign");
        assert!(!room.allowed(0).takeback, "not once over");
    }

    #[test]
    fn the_rules_end_the_game() {
        let t0 = Instant::now();
        let mut config = config(None);
        config.game.draw = DrawRules {
            no_progress_plies: 0,
            max_plies: 2,
            repetitions: 0,
        };
        let (mut room, _) = playing_with(config, t0);
        room.play(0, &a_move(&room), t0).expect("white");
        let events = room.play(1, &a_move(&room), t0).expect("black");
        assert_eq!(moved(&events), 1);
        assert!(matches!(events.last(), Some(Event::GameOver { .. })));
        assert_eq!(outcome(&room).winner, None);
        assert!(matches!(
            outcome(&room).reason,
            EndReason::Rules(GameEnd::Draw(_))
        ));
        assert_eq!(room.play(0, &a_move(&room), t0), Err(RoomError::NotPlaying));
    }

    #[test]
    fn a_declined_rematch_is_not_asked_again_but_the_decliner_may_still_ask() {
        let t0 = Instant::now();
        let (mut room, _) = playing(Some("60"), t0);
        assert_eq!(room.decline_rematch(1), Err(RoomError::StillPlaying));
        room.resign(0, t0).expect("resign");
        assert_eq!(room.decline_rematch(1), Err(RoomError::NothingToAnswer));
        room.offer_rematch(0, t0).expect("asked");
        assert_eq!(
            room.decline_rematch(1),
            Ok(vec![Event::RematchDeclined { seat: 0 }])
        );
        assert_eq!(room.rematch_requests(), [false, false]);
        assert_eq!(room.offer_rematch(0, t0), Err(RoomError::RematchDeclined));
        assert!(!room.allowed(0).rematch, "the page offers it no more");
        // The same after a restart: the store's offers bring it back.
        let mut restored = room.clone();
        restored.asked = Asked::default();
        restored.restore_offers(&room.offers_record());
        assert_eq!(
            restored.offer_rematch(0, t0),
            Err(RoomError::RematchDeclined)
        );
        // The decliner changes their mind: asked, the other accepts.
        room.offer_rematch(1, t0).expect("asked the other way");
        let events = room.offer_rematch(0, t0).expect("accepted");
        assert!(matches!(
            events.last(),
            Some(Event::GameStarted { game_no: 2, .. })
        ));
        assert!(room.allowed(0).abort, "a new game, asked of anew");
    }

    #[test]
    fn a_rematch_swaps_colours() {
        let t0 = Instant::now();
        let (mut room, tokens) = playing(Some("60"), t0);
        room.play(0, &a_move(&room), t0 + secs(3)).expect("move");
        assert_eq!(room.offer_rematch(0, t0), Err(RoomError::StillPlaying));
        room.resign(0, t0).expect("resign");
        assert_eq!(
            room.offer_rematch(0, t0),
            Ok(vec![Event::RematchOffered { seat: 0 }])
        );
        assert_eq!(room.offer_rematch(0, t0), Ok(vec![]), "asked once");
        let events = room.offer_rematch(1, t0 + secs(9)).expect("rematch");
        assert_eq!(
            events,
            vec![
                Event::RematchOffered { seat: 1 },
                Event::GameStarted {
                    game_no: 2,
                    white_seat: 1,
                    clock_ms: Some([60_000, 60_000]),
                    start_fen: None,
                }
            ]
        );
        assert_eq!(room.phase(), Phase::Playing);
        assert_eq!(room.game().moves().len(), 0);
        assert_eq!(room.colour_of(0), Colour::Black);
        assert_eq!(room.colour_of(1), Colour::White);
        assert_eq!(room.seat_of(Colour::White), 1);
        // Seat 1 now moves first; the tokens still name the same seats.
        assert_eq!(room.authenticate(&tokens[1]), Some(1));
        assert_eq!(
            room.play(0, &a_move(&room), t0 + secs(9)),
            Err(RoomError::NotYourTurn)
        );
        room.play(1, &a_move(&room), t0 + secs(10))
            .expect("new white");
    }

    #[test]
    fn engine_rooms_take_only_the_engine() {
        let t0 = Instant::now();
        let mut room = engine_room(None, Colour::Black, t0);
        let bob = Player::human("Bob", SeatToken::generate().hash()).expect("name");
        assert_eq!(room.join(bob, t0), Err(RoomError::WrongPlayer));
        room.join(Player::engine("bashni skill 5"), t0)
            .expect("engine joins");
        assert_eq!(room.white_seat(), 1, "the creator chose Black");
        // The server moves for the engine seat.
        room.play(1, &a_move(&room), t0).expect("engine moves");
        let mut open = Room::new(
            "o".into(),
            super::tests::config(None),
            Player::human("Ann", SeatToken::generate().hash()).expect("name"),
            Colour::White,
            t0,
        );
        assert_eq!(
            open.join(Player::engine("x"), t0),
            Err(RoomError::WrongPlayer)
        );
    }

    /// What the store keeps of `events`: the moves played, less those
    /// taken back, and the clocks after the last (`None` until a move or a
    /// takeback).
    fn store_events(
        records: &mut Vec<MoveRecord>,
        clocks: &mut Option<[i64; 2]>,
        events: Vec<Event>,
    ) {
        for event in events {
            match event {
                Event::Moved {
                    ply,
                    text,
                    elapsed_ms,
                    clock_ms,
                    ..
                } => {
                    records.push(MoveRecord {
                        room_id: "r".into(),
                        game_no: 1,
                        ply,
                        text,
                        elapsed_ms,
                        clock_ms,
                        moved_at_ms: 0,
                    });
                    *clocks = clock_ms;
                }
                Event::TookBack {
                    plies, clock_ms, ..
                } => {
                    records.truncate(usize::try_from(plies).expect("plies"));
                    *clocks = clock_ms;
                }
                _ => {}
            }
        }
    }

    /// `room`, a game being played with Ann and Bob seated, as the store
    /// keeps it.
    fn loaded(
        room: &Room,
        tokens: &[SeatToken; 2],
        moves: &[MoveRecord],
        clock_ms: Option<[i64; 2]>,
    ) -> LoadedRoom {
        let seat = |seat: u8, name: &str, token: &SeatToken| SeatRecord {
            seat,
            name: name.into(),
            token_hash: Some(token.hash()),
            engine: false,
            joined_at_ms: 0,
        };
        LoadedRoom {
            id: "r".into(),
            config: *room.config(),
            status: RoomStatus::Playing,
            created_at_ms: 0,
            opening: Opening {
                creator_colour: Colour::White,
                start_fen: None,
                quick_device: None,
            },
            seats: vec![seat(0, "Ann", &tokens[0]), seat(1, "Bob", &tokens[1])],
            game: Some(GameRecord {
                clock_ms,
                ..GameRecord::first_with(moves.to_vec())
            }),
            chat: Vec::new(),
        }
    }

    #[test]
    fn a_restored_room_resumes_with_its_moves_and_clocks() {
        let t0 = Instant::now();
        let (mut room, tokens) = playing(Some("60+2"), t0);
        let (mut records, mut clock_ms) = (Vec::new(), None);
        let mut t = t0;
        for (i, think) in [3u64, 5, 7].into_iter().enumerate() {
            t += secs(think);
            let seat = u8::from(i % 2 == 1);
            let events = room.play(seat, &a_move(&room), t).expect("move");
            store_events(&mut records, &mut clock_ms, events);
        }
        let loaded = loaded(&room, &tokens, &records, clock_ms);
        // Black's turn began at 1000 s (wall clock); the last heartbeat
        // was at 1004 s; the server restarts an hour later.
        let mut game = loaded.game.clone().expect("game");
        game.turn_started_at_ms = 1_000_000;
        assert_eq!(game.thought_before_stop(Some(1_004_000)), secs(4));
        assert_eq!(game.thought_before_stop(Some(999_000)), secs(0));
        assert_eq!(game.thought_before_stop(None), secs(0));
        let later = t0 + secs(3600);
        let thinking = game.thought_before_stop(Some(1_004_000));
        let restored = Room::restore(&loaded, thinking, later).expect("restore");
        assert_eq!(restored.game().position(), room.game().position());
        assert_eq!(restored.clock_ms(later), room.clock_ms(t + secs(4)));
        // The first two moves free, White's third charged 7 s (2 s
        // given), Black 4 s into its turn.
        assert_eq!(
            restored.clock_ms(later),
            Some([60_000 - 7_000 + 2_000, 60_000 - 4_000])
        );
        assert_eq!(restored.authenticate(&tokens[1]), Some(1));
        assert_eq!(restored.phase(), Phase::Playing);
        // A stored move that does not replay is reported, not played.
        let mut corrupt = loaded.clone();
        if let Some(game) = &mut corrupt.game {
            game.moves[1].text = "a1-h8".into();
        }
        assert!(matches!(
            Room::restore(&corrupt, secs(0), later),
            Err(RoomError::Corrupt(_))
        ));
        let mut gap = loaded;
        if let Some(game) = &mut gap.game {
            game.moves.remove(0);
        }
        assert!(matches!(
            Room::restore(&gap, secs(0), later),
            Err(RoomError::Corrupt(_))
        ));
    }

    #[test]
    fn time_spent_on_moves_taken_back_stays_spent_across_a_restart() {
        let t0 = Instant::now();
        let (mut room, tokens) = playing(Some("60+2"), t0);
        let (mut records, mut clock_ms) = (Vec::new(), None);
        for (i, at) in [1u64, 2, 10, 20, 25].into_iter().enumerate() {
            let seat = u8::from(i % 2 == 1);
            let events = room
                .play(seat, &a_move(&room), t0 + secs(at))
                .expect("move");
            store_events(&mut records, &mut clock_ms, events);
        }
        room.request_takeback(0).expect("white asks");
        let events = room.accept_takeback(1, t0 + secs(30)).expect("accept");
        store_events(&mut records, &mut clock_ms, events);
        // As after ply 4 (White charged 8 s, Black 10 s, each given 2 s),
        // less White's 5 s on its undone move and Black's 5 s thinking.
        let after = room.clock_ms(t0 + secs(30));
        assert_eq!(after, Some([54_000 - 5_000, 52_000 - 5_000]));
        assert_eq!(clock_ms, after, "stored as they are");
        let restored = Room::restore(&loaded(&room, &tokens, &records, clock_ms), secs(0), t0)
            .expect("restore");
        assert_eq!(restored.game().position(), room.game().position());
        assert_eq!(restored.clock_ms(t0), after);
        // And the next takeback adds to what the first one spent: White's
        // 1 s move and Black's 2 s.
        let mut restored = restored;
        let events = restored
            .play(0, &a_move(&restored), t0 + secs(1))
            .expect("white");
        store_events(&mut records, &mut clock_ms, events);
        restored.request_takeback(0).expect("white asks");
        restored.accept_takeback(1, t0 + secs(3)).expect("accept");
        assert_eq!(
            restored.clock_ms(t0 + secs(3)),
            Some([54_000 - 5_000 - 1_000, 52_000 - 5_000 - 2_000])
        );
        // Stored clocks above what the moves leave were time given back.
        let generous = loaded(&room, &tokens, &records[..2], Some([61_000, 60_000]));
        assert!(matches!(
            Room::restore(&generous, secs(0), t0),
            Err(RoomError::Corrupt(_))
        ));
    }

    #[test]
    fn a_ladder_room_starts_each_game_from_its_position_and_counts_each_sides_time() {
        let t0 = Instant::now();
        let handicap = "W:c1w,e1w,g1w,b2w,d2w,f2w,h2w,a3w,c3w,e3w,g3w,b6b,d6b,f6b,h6b,a7b,c7b,e7b,g7b,b8b,d8b,f8b,h8b 0 1";
        let token = SeatToken::generate();
        let ann = Player::human("Ann", token.hash()).expect("name");
        let config = RoomConfig {
            opponent: Opponent::Engine(Strength::Skill(20)),
            ..config(None)
        };
        let mut room = Room::new("r".into(), config, ann, Colour::White, t0)
            .with_start(handicap)
            .expect("a position");
        let events = room.join(Player::engine("Rival"), t0).expect("join");
        assert!(matches!(
            &events[1],
            Event::GameStarted { start_fen: Some(fen), .. } if fen == handicap
        ));
        assert_eq!(room.game().start().to_fen(), handicap);
        room.play(0, "c3-d4", t0 + secs(3)).expect("White");
        room.play(1, "f6-g5", t0 + secs(4)).expect("Black");
        room.play(0, "b2-c3", t0 + secs(9)).expect("White");
        assert_eq!(room.thinking_ms(Colour::White), 8_000);
        assert_eq!(room.thinking_ms(Colour::Black), 1_000);
        // Black's unfinished turn counts while it runs, and once the
        // game ends in it, for as long as the game is shown.
        let black_at = |room: &Room, s| room.thinking_ms_at(Colour::Black, t0 + secs(s));
        assert_eq!(black_at(&room, 11), 3_000);
        assert_eq!(
            room.next_game_from(handicap, t0),
            Err(RoomError::StillPlaying)
        );
        room.resign(1, t0 + secs(12)).expect("resign");
        assert_eq!(black_at(&room, 60), 4_000);
        let events = room
            .next_game_from(Variant::Bashni.start_fen(), t0 + secs(10))
            .expect("next");
        assert!(matches!(
            &events[0],
            Event::GameStarted {
                game_no: 2,
                white_seat: 0,
                ..
            }
        ));
        assert_eq!(room.game().moves().len(), 0);
        assert_eq!(black_at(&room, 60), 0, "a new game's count");
        assert_eq!(room.game().start().to_fen(), Variant::Bashni.start_fen());
        assert!(room.clone().with_start("not a position").is_err());
    }
}
