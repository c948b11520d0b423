//! A room's games as the store keeps them, read back for people: every
//! game of the room as one PDN file (a ladder run is all its rivals), and
//! one game position by position, so a finished game can be replayed move
//! by move; both with the game's analysis once one was made; and a line
//! for each room a browser sits in, for its list of its own games. All
//! come from the store alone, not from the rooms' tasks: a finished room
//! may have left memory, and what was stored is what every viewer saw.

use super::config::{ANALYSIS_NODES, RoomConfig};
use super::ladder::seat_name_in_game;
use super::store::{GameRecord, RoomStatus, StoredRoom, YourRoom};
use super::view::{AnalysisView, ConfigView, LegalMove, ResultView};
use bashni_host::clock::Clocks;
use bashni_host::pdn::{PdnGame, date_of_unix_ms, result_token, winner_of};
use bashni_rules::{Colour, Game};
use serde::Serialize;

/// One game of a room, position by position.
#[derive(Debug, Serialize)]
pub struct ReplayView {
    /// Always `replay`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The room's id.
    pub room: String,
    /// The game shown: 1 for the room's first.
    pub game_no: u32,
    /// How many games the room has stored.
    pub games: u32,
    /// The seat that played White (0: the room's creator).
    pub white_seat: u8,
    /// Who played White.
    pub white: String,
    /// Who played Black.
    pub black: String,
    /// The position the game started from.
    pub start_fen: String,
    /// Both clocks at the start (White's, Black's), or none without a
    /// clock.
    pub start_clock_ms: Option<[i64; 2]>,
    /// Every move with the position after it.
    pub plies: Vec<PlyView>,
    /// The result, if the game has ended.
    pub result: Option<ResultView>,
    /// Both clocks as they stopped at the end, if the game has ended with
    /// a clock: a flag fallen, or a resignation's thinking, is not in the
    /// last move's clocks.
    pub end_clock_ms: Option<[i64; 2]>,
    /// The game's analysis, if one was stored.
    pub analysis: Option<AnalysisView>,
}

/// A move of a replay and the position it led to.
#[derive(Debug, Serialize)]
pub struct PlyView {
    /// The move with its squares, for the marks.
    #[serde(rename = "move")]
    pub played: LegalMove,
    /// The position after it.
    pub fen: String,
    /// Both clocks after it as stored, or none without a clock.
    pub clock_ms: Option<[i64; 2]>,
}

/// Game `game_no` of `room`, replayed by the rules from its start.
pub fn replay(room: &StoredRoom, game_no: u32) -> Result<ReplayView, String> {
    let game = room
        .games
        .iter()
        .find(|g| g.game_no == game_no)
        .ok_or_else(|| format!("room {} has no game {game_no}", room.id))?;
    let mut board = start_of(&room.config, game)?;
    let mut plies = Vec::with_capacity(game.moves.len());
    for record in &game.moves {
        let played = board
            .play_text(&record.text)
            .map_err(|e| format!("stored move {} of game {game_no}: {e}", record.ply))?;
        plies.push(PlyView {
            played: LegalMove::of(&played),
            fen: board.position().to_fen(),
            clock_ms: record.clock_ms,
        });
    }
    let [white, black] = names(room, game);
    Ok(ReplayView {
        kind: "replay",
        room: room.id.clone(),
        game_no,
        games: room.game_count,
        white_seat: game.white_seat,
        white,
        black,
        start_fen: board.start().to_fen(),
        start_clock_ms: room.config.clock.map(|c| Clocks::new(c).left_ms()),
        plies,
        result: game.result.as_ref().map(|r| ResultView {
            result: result_static(&r.result),
            reason: r.reason.clone(),
        }),
        end_clock_ms: game.result.as_ref().and_then(|r| r.clock_ms),
        analysis: game
            .analysis
            .as_ref()
            .map(|a| AnalysisView::stored(game_no, a)),
    })
}

/// Every game of `room` as PDN, game 1 first, with the room's rules as
/// tags; a game still being played has the result `*`.
pub fn pdn(room: &StoredRoom) -> Result<String, String> {
    let mut text = String::new();
    for game in room.games.iter().filter(|g| kept_in_pdn(g)) {
        text.push_str(&pdn_game(room, game)?.to_pdn());
        text.push('\n');
    }
    Ok(text)
}

/// Whether `game` goes into the room's PDN: not one called off (it was
/// no game, and PDN's `*` would say it goes on).
pub fn kept_in_pdn(game: &GameRecord) -> bool {
    game.result
        .as_ref()
        .is_none_or(|r| winner_of(&r.result).is_some())
}

fn pdn_game(room: &StoredRoom, game: &GameRecord) -> Result<PdnGame, String> {
    let config = &room.config;
    let start = start_of(config, game)?.start().to_fen();
    let result = game
        .result
        .as_ref()
        .map_or("*", |r| result_static(&r.result));
    let [white, black] = names(room, game);
    let mut tags = vec![
        ("Event", "bashni serve".to_string()),
        ("Site", format!("room {}", room.id)),
        ("Date", date_of_unix_ms(game.started_at_ms)),
        ("Round", game.game_no.to_string()),
        ("White", white),
        ("Black", black),
        ("Result", result.to_string()),
        ("Variant", config.game.variant.to_string()),
        ("FEN", start),
    ];
    tags.extend(config.game.pdn_tags());
    if let Some(clock) = &config.clock {
        // In seconds (`300+3`), as PGN's tag is read everywhere; the
        // room's `5+3` is minutes.
        tags.push(("TimeControl", clock.to_string()));
    }
    if let Some(r) = &game.result {
        tags.push(("Termination", r.reason.clone()));
    }
    if game.analysis.is_some() {
        tags.push((
            "Annotator",
            format!("bashni serve, {ANALYSIS_NODES} nodes a position"),
        ));
    }
    let mut pdn = PdnGame::new(
        tags.into_iter().map(|(n, v)| (n.to_string(), v)).collect(),
        game.moves.iter().map(|m| m.text.clone()).collect(),
        result,
    );
    // The store reads back only an analysis with one mark and one score
    // a move.
    if let Some(analysis) = &game.analysis {
        pdn.marks = analysis.marks.clone();
        pdn.comments = analysis.evals.iter().map(|&cp| Some(pawns(cp))).collect();
    }
    Ok(pdn)
}

/// A room a browser sits in, from its seat's side, as its list of its
/// own games shows it.
#[derive(Debug, Serialize)]
pub struct YourGameView {
    /// The room's id.
    pub room: String,
    /// What it plays.
    pub config: ConfigView,
    /// The browser's colour in the latest game.
    pub colour: &'static str,
    /// Who sits in the other seat, as the latest game names them; none
    /// while it is free.
    pub opponent: Option<String>,
    /// `waiting`, `playing` or `over`.
    pub phase: &'static str,
    /// Whether the browser's side is to move in a game being played.
    pub your_move: bool,
    /// How the latest game ended, once it has.
    pub result: Option<ResultView>,
    /// The games the room has played (a rematch, a ladder's rivals).
    pub games: u32,
    /// The moves of the latest game.
    pub plies: usize,
    /// When it last changed (a move, the end, or its start), in Unix
    /// milliseconds: the list is newest first.
    pub at_ms: i64,
    /// Where the ladder run played in the room stands, if it is a run's:
    /// a game won is no end while the run goes on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<RunLine>,
}

/// A ladder run as a list of games shows it.
#[derive(Debug, Serialize)]
pub struct RunLine {
    /// The rivals beaten.
    pub wins: u32,
    /// `playing`, `lost`, `drawn` or `complete`.
    pub status: String,
}

/// The line of `room` in its player's list; none for a room closed
/// before anyone took the other seat (there was no game to come back
/// to).
pub fn your_game(room: &YourRoom) -> Option<YourGameView> {
    let other = room.seats.iter().find(|s| s.seat != room.your_seat);
    if other.is_none() && room.status == RoomStatus::Finished {
        return None;
    }
    let game = room.latest.as_ref();
    let game_no = game.map_or(1, |g| g.game_no);
    let white_seat = match game {
        Some(g) => g.white_seat,
        None if room.creator_colour == Colour::White => 0,
        None => 1,
    };
    let colour = if white_seat == room.your_seat {
        Colour::White
    } else {
        Colour::Black
    };
    let result = game.and_then(|g| g.result.as_ref());
    let phase = match (room.status, result) {
        (_, Some(_)) => "over",
        (RoomStatus::Open, None) => "waiting",
        _ => "playing",
    };
    let plies = game.map_or(0, |g| g.moves.len());
    let at_ms = (game.and_then(|g| Some(g.result.as_ref()?.finished_at_ms)))
        .or_else(|| game.and_then(|g| Some(g.moves.last()?.moved_at_ms)))
        .or_else(|| game.map(|g| g.started_at_ms))
        .unwrap_or(room.created_at_ms);
    Some(YourGameView {
        room: room.id.clone(),
        config: ConfigView::of(&room.config),
        colour: colour.name(),
        opponent: other.map(|s| seat_name_in_game(&s.name, s.engine, game_no)),
        phase,
        your_move: phase == "playing"
            && game.is_some_and(|g| to_move(&room.config, g) == Some(colour)),
        result: result.map(|r| ResultView {
            result: result_static(&r.result),
            reason: r.reason.clone(),
        }),
        games: game_no,
        plies,
        at_ms,
        run: room.run.as_ref().map(|run| RunLine {
            wins: run.wins,
            status: run.status.clone(),
        }),
    })
}

/// The side to move after `game`'s moves: its start's, turned once a
/// move; none if its stored start does not read.
fn to_move(config: &RoomConfig, game: &GameRecord) -> Option<Colour> {
    let first = start_of(config, game).ok()?.position().side_to_move();
    Some(if game.moves.len().is_multiple_of(2) {
        first
    } else {
        !first
    })
}

/// A score in centipawns as pawns with a sign (`+0.35`, `-10.00` for a
/// mate, which the analysis counts as 1000).
fn pawns(cp: i32) -> String {
    format!("{:+.2}", f64::from(cp) / 100.0)
}

/// The game's start: its own position (a ladder's handicap) or the
/// variant's.
fn start_of(config: &RoomConfig, game: &GameRecord) -> Result<Game, String> {
    match &game.start_fen {
        None => Ok(Game::new(config.game.rules())),
        Some(fen) => Game::from_fen(config.game.rules(), fen)
            .map_err(|e| format!("stored start of game {}: {e}", game.game_no)),
    }
}

/// White's and Black's names in `game` ([`seat_name_in_game`]).
fn names(room: &StoredRoom, game: &GameRecord) -> [String; 2] {
    let name = |seat: u8| match room.seats.iter().find(|s| s.seat == seat) {
        Some(s) => seat_name_in_game(&s.name, s.engine, game.game_no),
        None => "?".to_string(),
    };
    [name(game.white_seat), name(1 - game.white_seat.min(1))]
}

/// The stored result as one of the three tokens, or `*` for an aborted
/// game (the store writes nothing else; anything else also reads `*`).
fn result_static(result: &str) -> &'static str {
    winner_of(result).map_or("*", result_token)
}
