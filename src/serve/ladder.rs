//! The ladder of computer rivals (docs/ladder.md), sans IO: who the
//! rivals are, when a rival plays a random move, the handicapped start
//! positions, the score, and a run as a state machine the server stores
//! field by field.
//!
//! The player is White and moves first. Rivals 1 to 7 search 1 to 7 plies
//! and sometimes play a uniformly random legal move; from rival 8 on the
//! rival is rival 7 and the player starts a man short, one more each level
//! (docs/ladder.md has the rules, the tables and the measured strengths).
//!
//! ```
//! use bashni::serve::ladder::{GameResult, Run, RunStatus};
//! use bashni_rules::Variant;
//!
//! let mut run = Run::new(Variant::Bashni, 42);
//! run.record_game(GameResult::Win, 41_700).unwrap();
//! assert_eq!(run.rival().map(|r| r.number), Some(2));
//! run.record_game(GameResult::Draw, 3_000).unwrap();
//! assert_eq!(run.status(), RunStatus::Drawn);
//! assert_eq!(run.score(), 10_000 + 9_999 - 417);
//! ```

use std::fmt;
use std::str::FromStr;

use bashni_rules::{Colour, Position, RuleSet, Variant, column_text, mix64};

/// Rivals 1 to 7 as (plies searched, percent of uniformly random moves).
/// They are the engine's `Skill Level` 0, 2, 4, 6, 8, 10 and 11
/// ([`Rival::skill_level`]); a test checks the two tables agree.
pub const SEARCH_RIVALS: [(u32, u32); 7] =
    [(1, 30), (2, 15), (3, 7), (4, 3), (5, 1), (6, 0), (7, 0)];

/// The most nodes a searching rival spends on one move, beside its depth
/// (`go depth D nodes N`). Depth alone is usually quick, but a Bashni
/// endgame of flying kings can take rival 7 over 30 million nodes (about
/// four seconds on the two-core machine of docs/benchmarks.md); the cap
/// keeps every answer within the ladder's one-second aim (about half a
/// second there). It binds
/// rarely: of rival 7's 8,977 Bashni moves in its match against rival 6,
/// three took over half a second (docs/ladder.md, "Time a rival takes").
pub const RIVAL_NODE_CAP: u64 = 4_000_000;

/// The highest rival number on any board: Bashni's, whose player has 12
/// men (see [`last_rival`]).
pub const MAX_RIVAL: u32 = 18;

/// Bashni: the squares of White's men that empty, in this order, from
/// rival 8 on (rival 8 empties the first, rival 18 the first eleven). Each
/// rank from the back, and within a rank from the edges towards the
/// centre, left edge first: the edge men are the least active, so each
/// level takes a little more, and the army stays balanced left and right.
pub const BASHNI_HANDICAP_SQUARES: [&str; 11] = [
    "a1", "g1", "c1", "e1", "b2", "h2", "d2", "f2", "a3", "g3", "c3",
];

/// Lasca: the same order on the 7x7 board, whose ranks 1 and 3 hold four
/// men and rank 2 three (rival 17 empties all ten).
pub const LASCA_HANDICAP_SQUARES: [&str; 10] =
    ["a1", "g1", "c1", "e1", "b2", "f2", "d2", "a3", "g3", "c3"];

/// The squares that empty on `variant`'s board, in order; the player's
/// last man stands on the one square of the start missing from this list
/// (e3 on both boards).
pub fn handicap_squares(variant: Variant) -> &'static [&'static str] {
    match variant {
        Variant::Bashni => &BASHNI_HANDICAP_SQUARES,
        Variant::Lasca => &LASCA_HANDICAP_SQUARES,
    }
}

/// The last rival of a run on `variant`'s board: the one that leaves the
/// player a single man (Bashni 18, Lasca 17). The next would leave none.
pub fn last_rival(variant: Variant) -> u32 {
    SEARCH_RIVALS.len() as u32 + variant.pieces_per_side() - 1
}

/// The rules a ladder game is played under: the variant's own (Bashni:
/// forced capture, drawn after 50 plies without a capture or a man move,
/// after 250 plies, or by threefold repetition; Lasca: no draw rule).
pub fn ladder_rules(variant: Variant) -> RuleSet {
    RuleSet::new(variant)
}

/// Why the ladder refused something.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LadderError {
    /// No rival has this number on this board.
    NoSuchRival {
        /// The number asked for.
        number: u32,
        /// The board.
        variant: Variant,
    },
    /// A game was recorded for a run that is already over.
    RunOver,
    /// Stored fields that no run can have (a restore).
    BadRecord(String),
    /// A handicapped start the rules refused (never expected: it is made
    /// from the start position).
    BadPosition(String),
}

impl fmt::Display for LadderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LadderError::NoSuchRival { number, variant } => {
                write!(
                    f,
                    "no rival {number} in {variant} (the last is {})",
                    last_rival(*variant)
                )
            }
            LadderError::RunOver => f.write_str("the run is over"),
            LadderError::BadRecord(why) => write!(f, "bad ladder record: {why}"),
            LadderError::BadPosition(why) => write!(f, "bad handicapped start: {why}"),
        }
    }
}

impl std::error::Error for LadderError {}

/// One rival of the ladder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rival {
    /// 1 for the first rival, up to [`MAX_RIVAL`].
    pub number: u32,
    /// Plies the engine searches (`go depth`).
    pub depth: u32,
    /// Percent of the rival's moves that are a uniformly random legal move.
    pub random_percent: u32,
    /// Men the player starts without (0 below rival 8).
    pub handicap: u32,
}

impl Rival {
    /// Rival `number` (1..=[`MAX_RIVAL`]); `None` outside that range.
    /// Whether a board has that rival: [`last_rival`].
    pub fn for_level(number: u32) -> Option<Rival> {
        let searchers = SEARCH_RIVALS.len() as u32;
        if number == 0 || number > MAX_RIVAL {
            return None;
        }
        // From rival 8 on the engine stays rival 7's; the player loses men.
        let (depth, random_percent) = SEARCH_RIVALS[(number.min(searchers) - 1) as usize];
        Some(Rival {
            number,
            depth,
            random_percent,
            handicap: number.saturating_sub(searchers),
        })
    }

    /// Rival `number` if `variant`'s board has it.
    pub fn in_variant(variant: Variant, number: u32) -> Result<Rival, LadderError> {
        Rival::for_level(number)
            .filter(|_| number <= last_rival(variant))
            .ok_or(LadderError::NoSuchRival { number, variant })
    }

    /// The engine's `Skill Level` that plays like this rival from an even
    /// start (0, 2, 4, 6, 8, 10, then 11 from rival 7 on).
    pub fn skill_level(&self) -> u32 {
        (2 * (self.number.min(SEARCH_RIVALS.len() as u32) - 1)).min(11)
    }
}

/// What the rival does on one of its turns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RivalChoice {
    /// Play the legal move with this index (in the order the server lists
    /// them; the same order on a replay).
    Random(usize),
    /// Ask the engine for its best move at full strength, `go depth D
    /// nodes N`.
    Search {
        /// The plies to search.
        depth: u32,
        /// The most nodes to spend ([`RIVAL_NODE_CAP`]).
        nodes: u64,
    },
}

/// Whether the rival plays a random move on this turn, decided from the
/// run's seed, the game's index in the run (0 for the first game), and the
/// game's ply: the same inputs always give the same choice, so a run can
/// be replayed from its seed and its moves. With no legal move there is
/// nothing to choose and the answer is `Search` (the game is over).
pub fn rival_choice(
    seed: u64,
    game: u32,
    ply: u32,
    rival: &Rival,
    legal_moves: usize,
) -> RivalChoice {
    let search = RivalChoice::Search {
        depth: rival.depth,
        nodes: RIVAL_NODE_CAP,
    };
    if legal_moves == 0 || rival.random_percent == 0 {
        return search;
    }
    // Two rounds of the mixer: the seed alone, then with the turn, so that
    // nearby seeds and nearby turns give unrelated draws.
    let turn = (u64::from(game) << 32) | u64::from(ply);
    let roll = mix64(mix64(seed) ^ turn);
    if roll % 100 >= u64::from(rival.random_percent) {
        return search;
    }
    // A second, independent draw picks the move: high half of a 128-bit
    // product, uniform without a modulo's bias.
    let pick = mix64(roll ^ 0x9E37_79B9_7F4A_7C15);
    let index = (u128::from(pick) * legal_moves as u128) >> 64;
    RivalChoice::Random(index as usize)
}

/// The position a game against `rival` starts from: the variant's start
/// with the first `rival.handicap` squares of [`handicap_squares`] empty,
/// White to move. Errors when the board has no such rival.
pub fn start_position(variant: Variant, rival: &Rival) -> Result<Position, LadderError> {
    let checked = Rival::in_variant(variant, rival.number)?;
    let rules = ladder_rules(variant);
    let fen = handicap_fen(variant, checked.handicap);
    // The text is built from the start position, so it always parses;
    // the error is kept rather than unwrapped all the same.
    Position::from_fen(&rules, &fen).map_err(|e| LadderError::BadPosition(e.to_string()))
}

/// The start position's text with the first `handicap` squares emptied.
fn handicap_fen(variant: Variant, handicap: u32) -> String {
    let start = Position::start(&ladder_rules(variant));
    let emptied = &handicap_squares(variant)[..handicap as usize];
    let columns: Vec<String> = start
        .geometry()
        .squares()
        .filter(|&sq| !start.column(sq).is_empty())
        .map(|sq| (sq.to_string(), start.column(sq)))
        .filter(|(name, _)| !emptied.contains(&name.as_str()))
        .map(|(name, column)| format!("{name}{}", column_text(column)))
        .collect();
    format!("W:{} 0 1", columns.join(","))
}

/// The name of a ladder room's engine seat; each game names its rival
/// by number after it ("Rival 3").
pub const RIVAL_SEAT: &str = "Rival";

/// A seat's name as game `game_no` shows it: a ladder's engine seat is
/// the rival of that game (a run plays rival n in its game n), any other
/// seat its own name.
pub fn seat_name_in_game(name: &str, engine: bool, game_no: u32) -> String {
    match engine && name == RIVAL_SEAT {
        true => format!("{RIVAL_SEAT} {game_no}"),
        false => name.to_owned(),
    }
}

/// The ladder's score: `wins` × 10000 plus a speed bonus of 9999 minus the
/// average thinking time per won game in tenths of a second (the total in
/// milliseconds divided by 100 × wins, rounded down), never below zero.
/// Without a win there is no average and the score is 0.
pub fn score(wins: u32, total_think_ms_of_won_games: u64) -> u64 {
    match average_think_tenths(wins, total_think_ms_of_won_games) {
        Some(tenths) => u64::from(wins) * 10_000 + 9_999u64.saturating_sub(tenths),
        None => 0,
    }
}

/// The average thinking time per won game as the score counts it: in
/// tenths of a second, rounded down; `None` without a win.
pub fn average_think_tenths(wins: u32, total_think_ms_of_won_games: u64) -> Option<u64> {
    (wins > 0).then(|| total_think_ms_of_won_games / (100 * u64::from(wins)))
}

/// How a game of the run ended, for the player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    /// The player won.
    Win,
    /// The player lost (no legal move, resigned, or left).
    Loss,
    /// Drawn by the rules.
    Draw,
}

/// Where a run stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunStatus {
    /// A game against the current rival is to be played or under way.
    Playing,
    /// Over: the player lost a game.
    Lost,
    /// Over: a game was drawn.
    Drawn,
    /// Over: the player beat the last rival.
    Complete,
}

impl RunStatus {
    /// The word the database keeps.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Playing => "playing",
            RunStatus::Lost => "lost",
            RunStatus::Drawn => "drawn",
            RunStatus::Complete => "complete",
        }
    }
}

impl fmt::Display for RunStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for RunStatus {
    type Err = LadderError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "playing" => Ok(RunStatus::Playing),
            "lost" => Ok(RunStatus::Lost),
            "drawn" => Ok(RunStatus::Drawn),
            "complete" => Ok(RunStatus::Complete),
            _ => Err(LadderError::BadRecord(format!("unknown status {s:?}"))),
        }
    }
}

/// One run up the ladder. The server keeps its fields (with the player's
/// name and device, which are the server's) and rebuilds it with
/// [`Run::restore`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    variant: Variant,
    seed: u64,
    wins: u32,
    think_ms_of_wins: u64,
    status: RunStatus,
}

impl Run {
    /// A new run against rival 1; `seed` decides the rivals' random moves.
    pub fn new(variant: Variant, seed: u64) -> Run {
        Run {
            variant,
            seed,
            wins: 0,
            think_ms_of_wins: 0,
            status: RunStatus::Playing,
        }
    }

    /// A run from its stored fields; refuses fields no run can reach (more
    /// wins than rivals, a run still playing after the last rival, a
    /// complete run short of it).
    pub fn restore(
        variant: Variant,
        seed: u64,
        wins: u32,
        think_ms_of_wins: u64,
        status: RunStatus,
    ) -> Result<Run, LadderError> {
        let last = last_rival(variant);
        let consistent = match status {
            RunStatus::Playing | RunStatus::Lost | RunStatus::Drawn => wins < last,
            RunStatus::Complete => wins == last,
        };
        if !consistent || (wins == 0 && think_ms_of_wins > 0) {
            return Err(LadderError::BadRecord(format!(
                "{wins} wins, {think_ms_of_wins} ms, {status} in {variant}"
            )));
        }
        Ok(Run {
            variant,
            seed,
            wins,
            think_ms_of_wins,
            status,
        })
    }

    /// The board.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// The seed of the rivals' random moves.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Games won so far.
    pub fn wins(&self) -> u32 {
        self.wins
    }

    /// The player's thinking time in the games won, milliseconds.
    pub fn think_ms_of_wins(&self) -> u64 {
        self.think_ms_of_wins
    }

    /// Where the run stands.
    pub fn status(&self) -> RunStatus {
        self.status
    }

    /// Whether the run is over.
    pub fn is_over(&self) -> bool {
        self.status != RunStatus::Playing
    }

    /// The index of the current game in the run (0 for the first), the
    /// `game` of [`rival_choice`].
    pub fn game_index(&self) -> u32 {
        self.wins
    }

    /// The rival of the current game; `None` once the run is over.
    pub fn rival(&self) -> Option<Rival> {
        if self.is_over() {
            return None;
        }
        Rival::for_level(self.wins + 1)
    }

    /// The current game's start position; `None` once the run is over.
    pub fn start_position(&self) -> Option<Position> {
        let rival = self.rival()?;
        start_position(self.variant, &rival).ok()
    }

    /// What the current rival does on its turn at `ply` with `legal_moves`
    /// moves to choose from; `None` once the run is over.
    pub fn rival_choice(&self, ply: u32, legal_moves: usize) -> Option<RivalChoice> {
        let rival = self.rival()?;
        Some(rival_choice(
            self.seed,
            self.game_index(),
            ply,
            &rival,
            legal_moves,
        ))
    }

    /// The score so far ([`score`]).
    pub fn score(&self) -> u64 {
        score(self.wins, self.think_ms_of_wins)
    }

    /// Record the current game: a win moves the run to the next rival (or
    /// completes it after the last), a loss or a draw ends it. `think_ms`
    /// is the player's thinking time in that game; only a won game's
    /// counts. Returns the new status.
    pub fn record_game(
        &mut self,
        result: GameResult,
        think_ms: u64,
    ) -> Result<RunStatus, LadderError> {
        if self.is_over() {
            return Err(LadderError::RunOver);
        }
        self.status = match result {
            GameResult::Loss => RunStatus::Lost,
            GameResult::Draw => RunStatus::Drawn,
            GameResult::Win => {
                self.wins += 1;
                self.think_ms_of_wins = self.think_ms_of_wins.saturating_add(think_ms);
                if self.wins == last_rival(self.variant) {
                    RunStatus::Complete
                } else {
                    RunStatus::Playing
                }
            }
        };
        Ok(self.status)
    }
}

/// The result of a finished ladder game for the player (White), from the
/// winner's colour (`None` for a draw).
pub fn result_for_player(winner: Option<Colour>) -> GameResult {
    match winner {
        Some(Colour::White) => GameResult::Win,
        Some(Colour::Black) => GameResult::Loss,
        None => GameResult::Draw,
    }
}

#[cfg(test)]
mod tests;
