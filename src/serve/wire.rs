//! What the page and the play server say to each other over the
//! WebSocket: one JSON object per message, tagged by `type`.
//!
//! Everything a client sends is untrusted: [`ClientMessage::parse`] turns
//! a text into a message or into one [`WireError`] that says what is wrong
//! and where; [`RoomSetup::check`] turns a creator's choices into a
//! [`RoomConfig`] only from whitelisted values (a variant by name, a clock
//! within bounds, a strength within the engine's range), never engine
//! commands or options.

use super::config::{GameConfig, Opponent, RoomConfig, Strength};
use super::token::{SeatToken, TokenHash, is_hex128};
use bashni_host::clock::TimeControl;
use bashni_host::pdn::{result_token, winner_of};
use bashni_rules::{Colour, DrawRules, KingLanding, Variant};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The largest message a client may send, in bytes: room for the PDN of
/// a long game pasted into the analysis board (a room setup or a move is
/// far below it).
pub const MAX_CLIENT_MESSAGE_BYTES: usize = 32 * 1024;

/// Clocks a creator may choose: minutes from this range…
pub const CLOCK_MINUTES: (f64, f64) = (0.25, 180.0);
/// …and an increment in seconds from this one.
pub const CLOCK_INCREMENT_SECONDS: (f64, f64) = (0.0, 180.0);

/// The largest draw-rule values a creator may set (plies, repetitions).
pub const MAX_RULE_PLIES: u32 = 1000;

/// The shortest game length a room may set: a limit below it ends games
/// before they have begun.
pub const MIN_GAME_PLIES: u32 = 20;

/// What a client asks for.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientMessage {
    /// Send me the lobby, and again whenever it changes.
    Lobby {},
    /// Create a room and sit in its first seat.
    Create {
        /// The creator's display name.
        name: String,
        /// What the room plays.
        setup: RoomSetup,
    },
    /// Take the free seat of a room.
    Join {
        /// The room's id.
        room: String,
        /// The display name.
        name: String,
    },
    /// Meet the first player waiting for this game, or wait for one in a
    /// new room.
    Quick {
        /// `bashni` or `lasca`.
        variant: String,
        /// `M+S` (minutes and seconds per move), or none for no clock.
        #[serde(default)]
        clock: Option<String>,
        /// The display name.
        name: String,
        /// The browser's device id (32 hex digits): not paired with its
        /// own other tab.
        device: String,
    },
    /// Show me a room: as a watcher, or in my seat if `token` is mine.
    Open {
        /// The room's id.
        room: String,
        /// The seat token the browser kept, if any.
        #[serde(default)]
        token: Option<String>,
    },
    /// Leave the room shown: a watcher stops watching; a creator still
    /// alone in a room closes it.
    Leave {},
    /// Play a move in the room shown, in the rules' notation.
    Move {
        /// The move (`c3-d4`, `c3xe5xg7`).
        text: String,
    },
    /// Resign the game.
    Resign {},
    /// Call the game off before both sides have moved.
    Abort {},
    /// Offer a draw (accepts one offered by the other side).
    OfferDraw {},
    /// Accept the draw offered.
    AcceptDraw {},
    /// Decline the draw offered.
    DeclineDraw {},
    /// Ask to take the last move back.
    Takeback {},
    /// Grant the other side's takeback.
    AcceptTakeback {},
    /// Refuse the other side's takeback.
    DeclineTakeback {},
    /// Ask for a rematch with colours swapped.
    Rematch {},
    /// Decline the other seat's rematch request.
    DeclineRematch {},
    /// End the game the opponent left (gone for `--claim-after-seconds`)
    /// as won.
    ClaimWin {},
    /// End the game the opponent left as a draw.
    ClaimDraw {},
    /// Say a line in the room's chat (the two players only).
    Say {
        /// The line.
        text: String,
    },
    /// Annotate the finished game for everyone in the room.
    Analyse {},
    /// Start a run up the ladder of rivals.
    Ladder {
        /// `bashni` or `lasca`.
        variant: String,
        /// The display name.
        name: String,
        /// The browser's device id (32 hex digits it made and keeps): the
        /// best run is kept per name and device.
        device: String,
    },
    /// Send the ladder's best runs.
    Leaderboard {
        /// `bashni` or `lasca`.
        variant: String,
    },
    /// Send the best score of `name` on this browser in `variant`'s
    /// ladder (the lobby shows it before a run).
    LadderBest {
        /// `bashni` or `lasca`.
        variant: String,
        /// The display name.
        name: String,
        /// The browser's device id (32 hex digits).
        device: String,
    },
    /// Show this line on the analysis board (every move checked).
    StudyPosition {
        /// `bashni` or `lasca`.
        variant: String,
        /// The start position (the variant's own if none).
        #[serde(default)]
        fen: Option<String>,
        /// The moves from it.
        #[serde(default)]
        moves: Vec<String>,
        /// How many of them the board shows (all if none).
        #[serde(default)]
        cursor: Option<usize>,
        /// The rules the line is played by (the lobby rooms' if none).
        #[serde(default)]
        rules: Option<RulesSetup>,
        /// The end an imported record gives its line, as it was sent.
        #[serde(default)]
        recorded: Option<RecordedEnd>,
        /// Who played the game, where and when, as it was sent.
        #[serde(default)]
        header: Option<RecordHeader>,
    },
    /// Put the first game of this PDN text on the analysis board.
    StudyPdn {
        /// The PDN text, as pasted.
        text: String,
    },
    /// Send the analysis board's game as PDN.
    StudyExport {},
    /// Analyse the analysis board's position with the engine, with this
    /// many lines (the server caps the search).
    StudyAnalyse {
        /// Lines, one per move: 1 to 5.
        lines: u32,
    },
    /// Stop the analysis.
    StudyStop {},
    /// Send a game of the room shown, position by position.
    Replay {
        /// 1 for the room's first game.
        game: u32,
    },
    /// Say whether a person may take this display name, and why not (the
    /// page says it at its field, before the name is used).
    CheckName {
        /// The name as typed.
        name: String,
    },
    /// Send the lines of my own games: the rooms I keep a seat token for.
    YourGames {
        /// At most [`MAX_YOUR_GAMES`], newest last.
        rooms: Vec<SeatClaim>,
    },
}

/// The most rooms one request for a browser's own games may name.
pub const MAX_YOUR_GAMES: usize = 50;

/// A room and the seat token a browser keeps for it.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeatClaim {
    /// The room's id.
    pub room: String,
    /// The token given with the seat.
    pub token: String,
}

impl SeatClaim {
    /// `claims` as room ids with the hashes of their tokens; too many, or
    /// one that is no room id or token, is refused, saying which.
    pub fn check_all(claims: &[SeatClaim]) -> Result<Vec<(String, TokenHash)>, String> {
        if claims.len() > MAX_YOUR_GAMES {
            return Err(format!(
                "your games: {} rooms asked for, at most {MAX_YOUR_GAMES}",
                claims.len()
            ));
        }
        let mut checked: Vec<(String, TokenHash)> = Vec::with_capacity(claims.len());
        for (place, claim) in (1..).zip(claims) {
            if !is_hex128(&claim.room) {
                return Err(format!(
                    "your games: room {place} of the list is no room id"
                ));
            }
            let token = SeatToken::parse(&claim.token).ok_or_else(|| {
                format!("your games: the token of room {place} of the list is no seat token")
            })?;
            // A room named twice is read once.
            if !checked.iter().any(|(room, _)| *room == claim.room) {
                checked.push((claim.room.clone(), token.hash()));
            }
        }
        Ok(checked)
    }
}

/// A variant a client named.
pub fn parse_variant(text: &str) -> Result<Variant, String> {
    text.parse()
        .map_err(|_| format!("variant '{}': bashni or lasca", clip(text, 40)))
}

/// Why a client's message was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireError(pub String);

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for WireError {}

impl ClientMessage {
    /// Read a client's text. Too long, not JSON, not an object, an
    /// unknown type or field: one error saying what and where (serde's
    /// line and column for the JSON, the message's type for its fields).
    pub fn parse(text: &str) -> Result<ClientMessage, WireError> {
        if text.len() > MAX_CLIENT_MESSAGE_BYTES {
            return Err(WireError(format!(
                "message of {} bytes; at most {MAX_CLIENT_MESSAGE_BYTES}",
                text.len()
            )));
        }
        // serde's text repeats what it could not read: cut short.
        let bad = |what: String| WireError(format!("bad message: {}", clip(&what, 200)));
        // Read once, a key named twice refused (serde would keep the last).
        let value = super::unique_keys::parse(text).map_err(|e| bad(e.to_string()))?;
        // A JSON array would be read field by field in order: refused.
        let Some(object) = value.as_object() else {
            return Err(bad("a JSON object with a \"type\" expected".into()));
        };
        let kind = (object.get("type").and_then(serde_json::Value::as_str))
            .map(|k| clip(k, 40).to_owned());
        if let Some(key) = list_in_place_of_object(&value) {
            return Err(bad(format!(
                "'{}' is a list, or holds one: only 'moves' and 'rooms' are lists, of moves and of objects",
                clip(key, 40)
            )));
        }
        ClientMessage::deserialize(value).map_err(|e| match kind {
            Some(kind) => bad(format!("'{kind}': {e}")),
            None => bad(e.to_string()),
        })
    }
}

/// The first field of `value`, at any depth, that holds a list where a
/// message has none: serde reads a list into an object's fields by their
/// order, so `"rules": [true, "free", 30, 3, 0]` would pass for rules.
/// The lines of moves and the rooms of a browser's own games are the only
/// lists a message has, and neither holds a list.
fn list_in_place_of_object(value: &serde_json::Value) -> Option<&str> {
    let object = value.as_object()?;
    object.iter().find_map(|(key, field)| match field {
        serde_json::Value::Array(items) if key == "moves" || key == "rooms" => {
            items.iter().find_map(|item| match item {
                serde_json::Value::Array(_) => Some(key.as_str()),
                _ => list_in_place_of_object(item),
            })
        }
        serde_json::Value::Array(_) => Some(key.as_str()),
        serde_json::Value::Object(_) => list_in_place_of_object(field),
        _ => None,
    })
}

/// A creator's choices for a new room, as the page sends them.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RoomSetup {
    /// `bashni` or `lasca`.
    pub variant: String,
    /// The game's rules.
    pub rules: RulesSetup,
    /// `M+S`: minutes each plus seconds per move (`5+3`), or none.
    #[serde(default)]
    pub clock: Option<String>,
    /// `white`, `black` or `random`: the creator's colour in game 1.
    pub colour: String,
    /// `anyone`, `link` or `engine`.
    pub opponent: String,
    /// The engine's `Skill Level`, for `engine`.
    #[serde(default)]
    pub skill: Option<u32>,
    /// The engine's `UCI_Elo`, for `engine` (instead of `skill`).
    #[serde(default)]
    pub elo: Option<u32>,
    /// The position the games start from (the variant's start if none),
    /// checked by the rules.
    #[serde(default)]
    pub start: Option<String>,
}

/// A client's text cut to at most `chars` characters, for an answer that
/// names it: a long text is not sent back whole.
pub fn clip(text: &str, chars: usize) -> &str {
    text.char_indices()
        .nth(chars)
        .map_or(text, |(at, _)| &text[..at])
}

fn default_king_landing() -> String {
    "continue".into()
}

/// How an imported game ended where the rules do not end it (a
/// resignation, a loss on time, an agreed draw), as its record says: the
/// analysis board shows it at the line's end, and the page sends it back
/// with the line.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RecordedEnd {
    /// `2-0`, `0-2` or `1-1`.
    pub result: String,
    /// Why, in the record's words (its `Termination` tag); empty if it
    /// gives none.
    #[serde(default)]
    pub reason: String,
}

impl RecordedEnd {
    /// The most characters of a record's reason kept.
    pub const REASON_CHARS: usize = 120;

    /// The end a record's result token and reason give, if the token is a
    /// finished game's (the chess forms other programs write read too).
    pub fn read(token: &str, reason: Option<&str>) -> Option<RecordedEnd> {
        let result = match token.trim() {
            "2-0" | "1-0" => "2-0",
            "0-2" | "0-1" => "0-2",
            "1-1" | "1/2-1/2" => "1-1",
            _ => return None,
        };
        Some(RecordedEnd {
            result: result.to_owned(),
            reason: record_text(reason.unwrap_or_default(), Self::REASON_CHARS),
        })
    }

    /// The result token, if it is one of a finished game, and the reason
    /// within its length: the page sends back only what it was sent.
    pub fn check(&self) -> Result<&'static str, WireError> {
        let token = winner_of(&self.result)
            .map(result_token)
            .ok_or_else(|| WireError("recorded.result: 2-0, 0-2 or 1-1".into()))?;
        check_record_text("recorded.reason", &self.reason, Self::REASON_CHARS)?;
        Ok(token)
    }
}

/// A record's text as the board keeps it: without control characters,
/// cut to `chars` characters, trimmed.
fn record_text(text: &str, chars: usize) -> String {
    let kept: String = (text.chars())
        .filter(|c| !c.is_control())
        .take(chars)
        .collect();
    kept.trim().to_owned()
}

/// Whether `text`, a record's `field` as the page sent it back, is one the
/// board could have sent: within `chars` characters, none a control one.
fn check_record_text(field: &str, text: &str, chars: usize) -> Result<(), WireError> {
    if text.chars().count() > chars || text.chars().any(char::is_control) {
        return Err(WireError(format!(
            "{field}: at most {chars} characters, none a control character"
        )));
    }
    Ok(())
}

/// Who played a game on the analysis board, and where and when: an
/// imported record's `White`, `Black`, `Event` and `Date` tags, or a room
/// game's players. The board shows them and exports them, and the page
/// sends them back with the line; an empty field is not known.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RecordHeader {
    /// Who played White.
    #[serde(default)]
    pub white: String,
    /// Who played Black.
    #[serde(default)]
    pub black: String,
    /// The event.
    #[serde(default)]
    pub event: String,
    /// The date, as the record writes it.
    #[serde(default)]
    pub date: String,
}

impl RecordHeader {
    /// The most characters of a field kept.
    pub const FIELD_CHARS: usize = 80;

    /// The event the analysis board writes into a line it exports when
    /// its record named none: read back, it names no event.
    pub const BOARD_EVENT: &'static str = "bashni analysis board";

    /// The header a record's tags give (`tag` reads one by name): a tag
    /// missing or `?` is not known, a field is cut to its length without
    /// control characters. None if no player and no event is known: a
    /// date alone (the board's own export has its day) says nothing of
    /// whose game it is.
    pub fn of_tags<'a>(tag: impl Fn(&str) -> Option<&'a str>) -> Option<RecordHeader> {
        let field = |name: &str| -> String {
            let text = record_text(tag(name).unwrap_or_default(), Self::FIELD_CHARS);
            match text.as_str() {
                "?" | "-" | Self::BOARD_EVENT => String::new(),
                _ => text,
            }
        };
        let header = RecordHeader {
            white: field("White"),
            black: field("Black"),
            event: field("Event"),
            date: field("Date"),
        };
        let named = [&header.white, &header.black, &header.event];
        named.iter().any(|text| !text.is_empty()).then_some(header)
    }

    /// Each field within its length and without control characters: the
    /// page sends back only what it was sent.
    pub fn check(&self) -> Result<(), WireError> {
        let fields = [
            ("white", &self.white),
            ("black", &self.black),
            ("event", &self.event),
            ("date", &self.date),
        ];
        for (name, text) in fields {
            check_record_text(&format!("header.{name}"), text, Self::FIELD_CHARS)?;
        }
        Ok(())
    }
}

/// A game's rules as the page sends them (a new room's, or the analysis
/// board's line's), and as the analysis board is sent them back.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RulesSetup {
    /// Whether captures are compulsory.
    pub forced_capture: bool,
    /// `continue` or `free` (where a flying king lands).
    #[serde(default = "default_king_landing")]
    pub king_landing: String,
    /// Draw after this many plies without a capture or a man move (0: off;
    /// the usual 15 moves are 30 plies).
    pub no_progress_plies: u32,
    /// Draw when a position occurs this often (0: off; 3 is threefold).
    pub repetitions: u32,
    /// Draw after this many plies in all (0: off).
    #[serde(default)]
    pub max_plies: u32,
}

impl RulesSetup {
    /// The rules of `game`, as the page sends them.
    pub fn of(game: &GameConfig) -> RulesSetup {
        RulesSetup {
            forced_capture: game.forced_capture,
            king_landing: game.king_landing.to_string(),
            no_progress_plies: game.draw.no_progress_plies,
            repetitions: game.draw.repetitions,
            max_plies: game.draw.max_plies,
        }
    }

    /// The game these rules make in `variant`, or what is wrong with them.
    pub fn check(&self, variant: Variant) -> Result<GameConfig, WireError> {
        let bad = |what: &str| Err(WireError(what.to_owned()));
        let king_landing: KingLanding = match self.king_landing.parse() {
            Ok(k) => k,
            Err(_) => return bad("king_landing: continue or free"),
        };
        // Where kings step one square (Lasca) where they land is never a
        // choice, and a room must not claim a rule its game cannot have.
        if !variant.flying_kings() && king_landing != KingLanding::default() {
            return bad("king_landing: this variant's kings do not fly, so only continue");
        }
        for (name, value) in [
            ("no_progress_plies", self.no_progress_plies),
            ("repetitions", self.repetitions),
            ("max_plies", self.max_plies),
        ] {
            if value > MAX_RULE_PLIES {
                return Err(WireError(format!("{name}: at most {MAX_RULE_PLIES}")));
            }
        }
        if self.repetitions == 1 {
            return bad("repetitions: 0 (off) or at least 2");
        }
        // The page counts these in moves (half the plies): an odd count
        // would read "3.5-move draw".
        if self.no_progress_plies % 2 == 1 {
            return bad("no_progress_plies: an even number of plies (whole moves), 0 for off");
        }
        if (1..MIN_GAME_PLIES).contains(&self.max_plies) {
            return Err(WireError(format!(
                "max_plies: 0 (off) or at least {MIN_GAME_PLIES}"
            )));
        }
        Ok(GameConfig {
            forced_capture: self.forced_capture,
            king_landing,
            draw: DrawRules {
                no_progress_plies: self.no_progress_plies,
                max_plies: self.max_plies,
                repetitions: self.repetitions,
            },
            ..GameConfig::new(variant)
        })
    }
}

/// The strengths a client may pick from, as the server announces them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct StrengthRanges {
    /// `Skill Level` from, to.
    pub skill: (u32, u32),
    /// `UCI_Elo` from, to.
    pub elo: (u32, u32),
}

impl RoomSetup {
    /// The room's configuration and the creator's colour (`None`: drawn at
    /// random by the caller), or what is wrong with the setup.
    pub fn check(
        &self,
        ranges: &StrengthRanges,
    ) -> Result<(RoomConfig, Option<Colour>), WireError> {
        let bad = |what: &str| Err(WireError(what.to_owned()));
        let variant = parse_variant(&self.variant).map_err(WireError)?;
        let game = self.rules.check(variant)?;
        let colour = match self.colour.as_str() {
            "random" => None,
            name => match Colour::from_name(name) {
                Some(colour) => Some(colour),
                None => return bad("colour: white, black or random"),
            },
        };
        let clock = match &self.clock {
            None => None,
            Some(text) if text.trim().is_empty() => None,
            Some(text) => Some(parse_clock(text)?),
        };
        let opponent = self.opponent(ranges)?;
        Ok((
            RoomConfig {
                game,
                clock,
                opponent,
            },
            colour,
        ))
    }

    /// The start position asked for, checked by the rules of `config`:
    /// `None` for the variant's own.
    pub fn start_position(&self, config: &RoomConfig) -> Result<Option<String>, WireError> {
        let Some(fen) = self
            .start
            .as_deref()
            .map(str::trim)
            .filter(|f| !f.is_empty())
        else {
            return Ok(None);
        };
        match config.game.game_from(fen) {
            Ok(game) if game.result().is_some() => Err(WireError(
                "start: the game is already over in that position".into(),
            )),
            Ok(_) => Ok(Some(fen.to_owned())),
            Err(e) => Err(WireError(format!("start: {e}"))),
        }
    }

    fn opponent(&self, ranges: &StrengthRanges) -> Result<Opponent, WireError> {
        let within = |value: u32, (low, high): (u32, u32), name: &str| {
            if (low..=high).contains(&value) {
                Ok(value)
            } else {
                Err(WireError(format!("{name}: {low} to {high}")))
            }
        };
        match (self.opponent.as_str(), self.skill, self.elo) {
            ("anyone", None, None) => Ok(Opponent::Anyone),
            ("link", None, None) => Ok(Opponent::LinkOnly),
            ("engine", Some(skill), None) => Ok(Opponent::Engine(Strength::Skill(within(
                skill,
                ranges.skill,
                "skill",
            )?))),
            ("engine", None, Some(elo)) => Ok(Opponent::Engine(Strength::Elo(within(
                elo, ranges.elo, "elo",
            )?))),
            ("engine", _, _) => Err(WireError(
                "engine: give exactly one of skill and elo".into(),
            )),
            ("anyone" | "link", _, _) => Err(WireError(
                "skill and elo are only for an engine opponent".into(),
            )),
            _ => Err(WireError("opponent: anyone, link or engine".into())),
        }
    }
}

/// `M+S`: minutes (a fraction allowed) and an increment in seconds, as
/// online rooms write clocks (`5+3`, `1+0`, `0.5+1`).
pub fn parse_clock(text: &str) -> Result<TimeControl, WireError> {
    let bad = || {
        WireError(format!(
            "clock '{}': minutes+seconds such as 5+3, minutes {} to {}, seconds {} to {}",
            clip(text, 20),
            CLOCK_MINUTES.0,
            CLOCK_MINUTES.1,
            CLOCK_INCREMENT_SECONDS.0,
            CLOCK_INCREMENT_SECONDS.1
        ))
    };
    let (minutes, seconds) = text.trim().split_once('+').unwrap_or((text.trim(), "0"));
    let minutes: f64 = minutes.trim().parse().map_err(|_| bad())?;
    let seconds: f64 = seconds.trim().parse().map_err(|_| bad())?;
    let in_range = |v: f64, (low, high): (f64, f64)| v.is_finite() && (low..=high).contains(&v);
    if !in_range(minutes, CLOCK_MINUTES) || !in_range(seconds, CLOCK_INCREMENT_SECONDS) {
        return Err(bad());
    }
    Ok(TimeControl {
        moves: 0,
        base_ms: (minutes * 60_000.0).round() as u64,
        increment_ms: (seconds * 1000.0).round() as u64,
    })
}

/// `M+S` of a clock, the inverse of [`parse_clock`].
pub fn clock_text(clock: &TimeControl) -> String {
    let minutes = clock.base_ms as f64 / 60_000.0;
    let seconds = clock.increment_ms as f64 / 1000.0;
    format!("{minutes}+{seconds}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranges() -> StrengthRanges {
        StrengthRanges {
            skill: (0, 20),
            elo: (800, 2400),
        }
    }

    fn setup() -> RoomSetup {
        RoomSetup {
            variant: "bashni".into(),
            rules: RulesSetup {
                forced_capture: true,
                king_landing: "continue".into(),
                no_progress_plies: 30,
                repetitions: 3,
                max_plies: 0,
            },
            clock: Some("5+3".into()),
            colour: "white".into(),
            opponent: "anyone".into(),
            skill: None,
            elo: None,
            start: None,
        }
    }

    #[test]
    fn a_start_position_is_checked_by_the_rules() {
        let with = |fen: &str| RoomSetup {
            start: Some(fen.into()),
            ..setup()
        };
        let checked = |s: RoomSetup| {
            let (config, _) = s.check(&ranges()).expect("valid setup");
            s.start_position(&config)
        };
        assert_eq!(checked(setup()), Ok(None));
        assert_eq!(
            checked(with("W:c3w,f6b 0 1")),
            Ok(Some("W:c3w,f6b 0 1".into()))
        );
        assert!(
            checked(with("W:c4w,f6b 0 1"))
                .expect_err("light square")
                .0
                .contains("c4")
        );
        assert!(
            checked(with("W:a1w,c3b,b2b 0 1"))
                .expect_err("over")
                .0
                .contains("over")
        );
        // Black moves first and White, with no piece, loses at once.
        assert_eq!(
            checked(with("B:f6b 0 1")),
            Err(WireError("start: White has no piece on the board".into()))
        );
    }

    #[test]
    fn a_setup_becomes_the_online_configuration() {
        let (config, colour) = setup().check(&ranges()).expect("valid");
        assert_eq!(config.game, GameConfig::online(Variant::Bashni));
        assert_eq!(
            config.clock.map(|c| (c.base_ms, c.increment_ms)),
            Some((300_000, 3_000))
        );
        assert_eq!(config.opponent, Opponent::Anyone);
        assert_eq!(colour, Some(Colour::White));
    }

    #[test]
    fn only_whitelisted_strengths_and_values_pass() {
        let engine = |skill, elo| RoomSetup {
            opponent: "engine".into(),
            skill,
            elo,
            ..setup()
        };
        assert_eq!(
            engine(Some(5), None).check(&ranges()).map(|c| c.0.opponent),
            Ok(Opponent::Engine(Strength::Skill(5)))
        );
        for wrong in [
            engine(Some(21), None),
            engine(None, Some(100)),
            engine(Some(1), Some(900)),
            engine(None, None),
        ] {
            assert!(wrong.check(&ranges()).is_err(), "{wrong:?}");
        }
        let skill_for_people = RoomSetup {
            skill: Some(3),
            ..setup()
        };
        assert!(skill_for_people.check(&ranges()).is_err());
        let plies = |no_progress_plies, max_plies| RoomSetup {
            rules: RulesSetup {
                no_progress_plies,
                max_plies,
                ..setup().rules
            },
            ..setup()
        };
        for (wrong, field) in [
            (plies(7, 0), "no_progress_plies"),
            (plies(30, 1), "max_plies"),
            (plies(30, 19), "max_plies"),
        ] {
            let error = wrong.check(&ranges()).expect_err(field);
            assert!(error.0.starts_with(field), "{error}");
        }
        for right in [plies(0, 0), plies(2, 20), plies(30, 1000)] {
            assert!(right.check(&ranges()).is_ok(), "{right:?}");
        }
        let landing = |variant: &str, king_landing: &str| RoomSetup {
            variant: variant.into(),
            rules: RulesSetup {
                king_landing: king_landing.into(),
                ..setup().rules
            },
            ..setup()
        };
        assert!(landing("bashni", "free").check(&ranges()).is_ok());
        assert!(landing("lasca", "continue").check(&ranges()).is_ok());
        let error = landing("lasca", "free").check(&ranges()).expect_err("free");
        assert!(error.0.starts_with("king_landing"), "{error}");
        for (field, value) in [
            ("variant", "chess"),
            ("colour", "green"),
            ("opponent", "Hash"),
        ] {
            let mut s = setup();
            match field {
                "variant" => s.variant = value.into(),
                "colour" => s.colour = value.into(),
                _ => s.opponent = value.into(),
            }
            let error = s.check(&ranges()).expect_err(field);
            assert!(error.0.starts_with(field), "{error}");
        }
    }

    #[test]
    fn clocks_are_minutes_plus_seconds_within_bounds() {
        assert_eq!(parse_clock("5+3").map(|c| c.base_ms), Ok(300_000));
        assert_eq!(parse_clock("0.5").map(|c| c.increment_ms), Ok(0));
        assert_eq!(clock_text(&parse_clock("5+3").expect("clock")), "5+3");
        for bad in ["", "x+1", "0+1", "181+0", "5+-1", "NaN+1", "inf+0", "5+3+1"] {
            assert!(parse_clock(bad).is_err(), "{bad}");
        }
        let none = RoomSetup {
            clock: Some(" ".into()),
            ..setup()
        };
        assert_eq!(none.check(&ranges()).map(|c| c.0.clock), Ok(None));
    }

    #[test]
    fn client_messages_parse_or_say_what_is_wrong() {
        assert_eq!(
            ClientMessage::parse(r#"{"type":"move","text":"c3-d4"}"#),
            Ok(ClientMessage::Move {
                text: "c3-d4".into()
            })
        );
        assert_eq!(
            ClientMessage::parse(r#"{"type":"your_games","rooms":[{"room":"r","token":"t"}]}"#),
            Ok(ClientMessage::YourGames {
                rooms: vec![SeatClaim {
                    room: "r".into(),
                    token: "t".into()
                }]
            })
        );
        for (text, expected) in [
            ("not json", "bad message"),
            (r#"{"type":"setoption","name":"Hash"}"#, "unknown variant"),
            (
                r#"{"type":"move","text":"c3-d4","go":"infinite"}"#,
                "unknown field",
            ),
            // A message without fields takes none either.
            (
                r#"{"type":"resign","foo":1}"#,
                "'resign': unknown field `foo`",
            ),
            // Fields by position are no message.
            (r#"["move","c3-d4"]"#, "a JSON object"),
            // Of a key named twice, serde would keep the last.
            (
                r#"{"type":"move","text":"c3-d4","text":"e3-f4"}"#,
                "bad message: the key 'text' appears twice in one object at line 1 column 36",
            ),
            // A field missing is named with the message it is missing from.
            (
                r#"{"type":"study_pdn"}"#,
                "'study_pdn': missing field `text`",
            ),
            // Nor are an object's fields read from a list in order.
            (
                r#"{"type":"study_position","variant":"bashni","rules":[true,"free",30,3,0]}"#,
                "'rules' is a list",
            ),
            // Nor a room's claim from a list inside the list of rooms.
            (
                r#"{"type":"your_games","rooms":[["0123456789abcdef0123456789abcdef","0123456789abcdef0123456789abcdef"]]}"#,
                "'rooms' is a list, or holds one",
            ),
            (
                r#"{"type":"your_games","rooms":[{"room":"a","token":"b","x":1}]}"#,
                "'your_games': unknown field `x`",
            ),
        ] {
            let error = ClientMessage::parse(text).expect_err(text);
            assert!(error.0.contains(expected), "{text}: {error}");
        }
        let huge = format!(
            r#"{{"type":"move","text":"{}"}}"#,
            "x".repeat(MAX_CLIENT_MESSAGE_BYTES)
        );
        assert!(
            ClientMessage::parse(&huge)
                .expect_err("huge")
                .0
                .contains("at most")
        );
        // What serde could not read comes back cut short.
        let long_field = format!(r#"{{"type":"move","{}":1}}"#, "y".repeat(30_000));
        let error = ClientMessage::parse(&long_field).expect_err("unknown field");
        assert!(error.0.len() < 300, "{} bytes", error.0.len());
    }
}
