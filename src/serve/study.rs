//! The analysis board's game: a start position (a variant's own, or one
//! set up in the editor) and a line of moves, every one checked by the
//! rules, with the ply the board shows. The page keeps only what it was
//! last sent and sends it back: each change is checked here again, so
//! nothing the page says is trusted.

use super::config::GameConfig;
use super::view::{LegalMove, ResultView, must_capture};
use super::wire::{RecordHeader, RecordedEnd, RulesSetup, clip, parse_variant};
use bashni_host::pdn::{PdnGame, parse_pasted_pdn, result_token, today};
use bashni_host::protocol::Command;
use bashni_rules::{self as rules, Colour, Variant};
use serde::Serialize;

/// The most moves a line may have (a game the draw rules end is far
/// shorter).
pub const MAX_STUDY_PLIES: usize = 1000;

/// A line of moves from a start position, shown at `cursor`.
#[derive(Clone, Debug)]
pub struct Study {
    config: GameConfig,
    line: rules::Game,
    shown: rules::Game,
    cursor: usize,
    /// How the record the line came from ended, where the rules do not
    /// end it; `None` once the line is another.
    recorded: Option<RecordedEnd>,
    /// Who played the game the line came from, where and when (kept
    /// while variations are played: they are still that game's).
    header: Option<RecordHeader>,
}

impl Study {
    /// The study of `moves` from `fen` (the variant's start if none),
    /// played by `rules` (the online rooms' if none), shown after
    /// `cursor` moves (all of them if none). The first thing wrong is the
    /// error: the rules, the position, or the move by number.
    pub fn new(
        variant: &str,
        rules: Option<&RulesSetup>,
        fen: Option<&str>,
        moves: &[String],
        cursor: Option<usize>,
    ) -> Result<Study, String> {
        let variant = parse_variant(variant)?;
        let config = match rules {
            Some(rules) => rules
                .check(variant)
                .map_err(|e| format!("rules: {}", e.0))?,
            // The rules the lobby's rooms play, so that a line analysed
            // here is played by them from "Play from here".
            None => GameConfig::online(variant),
        };
        let start = start_game(&config, fen)?;
        if moves.len() > MAX_STUDY_PLIES {
            return Err(format!("moves: at most {MAX_STUDY_PLIES}"));
        }
        let mut line = start.clone();
        for text in moves {
            // Named as the PDN's move list counts it ("move 3 (Black)").
            let (number, side) = (
                line.position().fullmove_number(),
                line.position().side_to_move(),
            );
            line.play_text(text).map_err(|e| {
                format!(
                    "move {number} ({side}) '{}': {}",
                    clip(text, CLIP),
                    clip(&e.to_string(), CLIP)
                )
            })?;
        }
        let cursor = cursor.unwrap_or(moves.len());
        if cursor > moves.len() {
            return Err(format!(
                "cursor {cursor}: the line has {} moves",
                moves.len()
            ));
        }
        let mut shown = start;
        for mv in &line.moves()[..cursor] {
            shown.play(mv);
        }
        Ok(Study {
            config,
            line,
            shown,
            cursor,
            recorded: None,
            header: None,
        })
    }

    /// The study with the end its record gives (checked): shown when the
    /// board is at the line's end, unless the rules end the game there.
    pub fn ending(self, recorded: Option<RecordedEnd>) -> Result<Study, String> {
        if let Some(end) = &recorded {
            end.check().map_err(|e| e.0)?;
        }
        let recorded = recorded.filter(|_| self.line.result().is_none());
        Ok(Study { recorded, ..self })
    }

    /// The study with the players, event and date of its game (checked).
    pub fn headed(self, header: Option<RecordHeader>) -> Result<Study, String> {
        if let Some(header) = &header {
            header.check().map_err(|e| e.0)?;
        }
        Ok(Study { header, ..self })
    }

    /// The first game of a PDN text, every move checked by the rules its
    /// tags name (a room's game keeps its own); shown at its end.
    pub fn from_pdn(text: &str) -> Result<(Study, usize), String> {
        let games = parse_pasted_pdn(text).map_err(|e| format!("PDN: {e}"))?;
        let game = games.first().ok_or("PDN: no game in it")?;
        let variant = game.tag("Variant").unwrap_or("bashni").to_ascii_lowercase();
        let rules = parse_variant(&variant)
            .and_then(|v| rules_of_tags(game, v))
            .map_err(|e| format!("PDN: {e}"))?;
        let study = Study::new(&variant, Some(&rules), game.tag("FEN"), &game.moves, None)
            .map_err(|e| format!("PDN: {e}"))?;
        let recorded = RecordedEnd::read(&game.result, game.tag("Termination"));
        let header = RecordHeader::of_tags(|name| game.tag(name));
        Ok((study.ending(recorded)?.headed(header)?, games.len()))
    }

    /// The variant played.
    pub fn variant(&self) -> Variant {
        self.config.variant
    }

    /// The rules the line is played by.
    pub fn config(&self) -> &GameConfig {
        &self.config
    }

    /// The `position` command of the position shown, for the engine.
    pub fn position_command(&self) -> Command {
        Command::Position {
            fen: self.line.start().to_fen(),
            moves: (self.line.moves()[..self.cursor].iter())
                .map(ToString::to_string)
                .collect(),
        }
    }

    /// The position shown, as a position string.
    pub fn fen(&self) -> String {
        self.shown.position().to_fen()
    }

    /// Whether White is to move in the position shown.
    pub fn white_to_move(&self) -> bool {
        self.shown.position().side_to_move() == Colour::White
    }

    /// Whether the game is over in the position shown.
    pub fn is_over(&self) -> bool {
        self.shown.result().is_some()
    }

    /// The whole line as PDN, with the end its record gave.
    pub fn to_pdn(&self) -> String {
        let recorded = self.recorded_end();
        let result = match (self.line.result(), &recorded) {
            (Some(end), _) => result_token(end.winner()),
            (None, Some(end)) => end.result,
            (None, None) => "*",
        };
        let termination = (self.recorded.as_ref())
            .filter(|end| !end.reason.is_empty())
            .map(|end| ("Termination", end.reason.clone()));
        let header = self.header.clone().unwrap_or_default();
        let known = |text: String, unknown: String| match text.is_empty() {
            true => unknown,
            false => text,
        };
        let tags = [
            (
                "Event",
                known(header.event, RecordHeader::BOARD_EVENT.into()),
            ),
            ("Date", known(header.date, today())),
            ("White", known(header.white, "?".into())),
            ("Black", known(header.black, "?".into())),
            ("Result", result.to_string()),
            ("FEN", self.line.start().to_fen()),
            ("Variant", self.variant().to_string()),
        ];
        PdnGame::new(
            (tags
                .into_iter()
                .chain(termination)
                .chain(self.config.pdn_tags()))
            .map(|(n, v)| (n.to_string(), v))
            .collect(),
            self.line.moves().iter().map(ToString::to_string).collect(),
            result,
        )
        .to_pdn()
    }

    /// What the page draws.
    pub fn view(&self) -> StudyView {
        let position = self.shown.position();
        let over = self.shown.result();
        StudyView {
            variant: self.variant().name(),
            rules: RulesSetup::of(&self.config),
            start_fen: self.line.start().to_fen(),
            fen: position.to_fen(),
            moves: self.line.moves().iter().map(ToString::to_string).collect(),
            cursor: self.cursor,
            last_move: self
                .cursor
                .checked_sub(1)
                .map(|i| LegalMove::of(&self.line.moves()[i])),
            legal: match over {
                Some(_) => Vec::new(),
                None => LegalMove::all_in(position),
            },
            capture_forced: over.is_none() && must_capture(position),
            to_move: position.side_to_move().name(),
            result: match over {
                Some(end) => Some(ResultView {
                    result: result_token(end.winner()),
                    reason: end.to_string(),
                }),
                None => self
                    .recorded_end()
                    .filter(|_| self.cursor == self.line.moves().len()),
            },
            recorded: self.recorded.clone(),
            header: self.header.clone(),
            note: None,
        }
    }

    /// The end the line's record gave, in the words of a game's result.
    fn recorded_end(&self) -> Option<ResultView> {
        let end = self.recorded.as_ref()?;
        Some(ResultView {
            result: end.check().ok()?,
            reason: match end.reason.is_empty() {
                true => "as recorded".to_owned(),
                false => end.reason.clone(),
            },
        })
    }
}

/// The rules a PDN game's tags name (as [`GameConfig::pdn_tags`] writes
/// them): each tag missing is the online rooms' rule, as for a line
/// entered by hand (a record from elsewhere names none, and the same
/// moves typed or pasted are played by the same rules).
fn rules_of_tags(game: &PdnGame, variant: Variant) -> Result<RulesSetup, String> {
    let mut rules = RulesSetup::of(&GameConfig::online(variant));
    if let Some(landing) = game.tag("KingLanding") {
        rules.king_landing = landing.trim().to_ascii_lowercase();
    }
    if let Some(forced) = game.tag("ForcedCapture") {
        rules.forced_capture = (forced.trim().to_ascii_lowercase().parse())
            .map_err(|_| format!("ForcedCapture '{}': true or false", clip(forced, CLIP)))?;
    }
    for (tag, value, unit) in [
        ("NoProgressPlies", &mut rules.no_progress_plies, "plies"),
        ("MaxPlies", &mut rules.max_plies, "plies"),
        (
            "Repetitions",
            &mut rules.repetitions,
            "times a position occurs",
        ),
    ] {
        if let Some(text) = game.tag(tag) {
            *value = (text.trim().parse()).map_err(|_| {
                format!(
                    "{tag} '{}': a number of {unit}, 0 for off",
                    clip(text, CLIP)
                )
            })?;
        }
    }
    Ok(rules)
}

/// The game before its first move: the variant's start, or `fen`.
fn start_game(config: &GameConfig, fen: Option<&str>) -> Result<rules::Game, String> {
    match fen.map(str::trim).filter(|f| !f.is_empty()) {
        None => Ok(rules::Game::new(config.rules())),
        Some(fen) => config
            .game_from(fen)
            .map_err(|e| format!("position '{}': {}", clip(fen, CLIP), clip(&e, CLIP))),
    }
}

/// The most of a client's text an error message repeats.
const CLIP: usize = 120;

/// The analysis board as the page draws it.
#[derive(Debug, Serialize)]
pub struct StudyView {
    /// `bashni` or `lasca`.
    pub variant: &'static str,
    /// The rules the line is played by, for the page to send back.
    pub rules: RulesSetup,
    /// The position before the first move.
    pub start_fen: String,
    /// The position shown.
    pub fen: String,
    /// The whole line, also the moves after the one shown.
    pub moves: Vec<String>,
    /// How many moves of the line are on the board.
    pub cursor: usize,
    /// The move that led to the position shown, for the marks.
    pub last_move: Option<LegalMove>,
    /// The legal moves of the position shown.
    pub legal: Vec<LegalMove>,
    /// Whether the side to move must capture.
    pub capture_forced: bool,
    /// `white` or `black`.
    pub to_move: &'static str,
    /// Once the game is over in the position shown (by the rules, or at
    /// the end of a record that says how it ended): the score and why.
    pub result: Option<ResultView>,
    /// The end the line's record gives, for the page to send back.
    pub recorded: Option<RecordedEnd>,
    /// Who played the line's game, where and when, to show and send back.
    pub header: Option<RecordHeader>,
    /// Something the player should know of what was read (a PDN of
    /// several games shows the first).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(moves: &[&str]) -> Vec<String> {
        moves.iter().map(|m| m.to_string()).collect()
    }

    #[test]
    fn a_line_is_shown_at_its_cursor() {
        let line = texts(&["c3-d4", "f6-g5"]);
        let study = Study::new("bashni", None, None, &line, Some(1)).expect("legal");
        let view = study.view();
        assert_eq!(
            (view.cursor, view.moves.len(), view.to_move),
            (1, 2, "black")
        );
        assert_eq!(view.last_move.map(|m| m.text), Some("c3-d4".to_string()));
        assert_eq!(
            study.position_command().to_string(),
            format!("position fen {} moves c3-d4", Variant::Bashni.start_fen())
        );
    }

    #[test]
    fn the_first_wrong_thing_is_named() {
        let error = |variant, fen, moves: &[&str], cursor| {
            Study::new(variant, None, fen, &texts(moves), cursor).expect_err("refused")
        };
        assert!(error("chess", None, &[], None).starts_with("variant"));
        assert!(error("bashni", Some("W:a2w 0 1"), &[], None).contains("a2"));
        assert!(
            error("bashni", None, &["c3-d4", "c3-d4"], None).starts_with("move 1 (Black) 'c3-d4'")
        );
        assert!(error("bashni", None, &["c3-d4"], Some(2)).starts_with("cursor 2"));
        // A long text is named, not sent back whole.
        let long = "x".repeat(30_000);
        let refused = error("bashni", None, &[long.as_str()], None);
        assert!(
            refused.starts_with("move 1 (White) 'xxx") && refused.len() < 300,
            "{} bytes",
            refused.len()
        );
    }

    #[test]
    fn captures_list_their_landings_and_jumped_squares() {
        let study =
            Study::new("bashni", None, Some("W:c3w,d4b,f6b 0 1"), &[], None).expect("valid");
        let legal = study.view().legal;
        assert_eq!(legal.len(), 1);
        assert_eq!(
            (legal[0].path.clone(), legal[0].jumped.clone()),
            (texts(&["e5", "g7"]), texts(&["d4", "f6"]))
        );
        assert!(study.view().capture_forced);
    }

    #[test]
    fn a_lasca_line_goes_out_as_pdn_and_comes_back() {
        let line = texts(&["a3-b4", "c5xa3"]);
        let study = Study::new("lasca", None, None, &line, None).expect("legal");
        let (back, games) = Study::from_pdn(&study.to_pdn()).expect("reads back");
        assert_eq!((back.variant(), games), (Variant::Lasca, 1));
        assert_eq!(back.fen(), study.fen());
        // Pasted moves without a result are an unfinished game; of
        // several games the first is shown, and their number said.
        let (pasted, games) = Study::from_pdn("1. c3-d4 f6-e5\n").expect("a move list");
        assert_eq!(
            (pasted.view().moves, games),
            (texts(&["c3-d4", "f6-e5"]), 1)
        );
        let (first, games) =
            Study::from_pdn(&format!("{}1. c3-d4\n", study.to_pdn())).expect("two");
        assert_eq!((first.variant(), games), (Variant::Lasca, 2));
        let broken = study.to_pdn().replace("c5xa3", "c5-d4");
        assert!(
            Study::from_pdn(&broken)
                .expect_err("bad")
                .contains("move 1 (Black) 'c5-d4'")
        );
    }

    #[test]
    fn a_game_is_read_by_the_rules_its_tags_name() {
        // White could take d4, but the room did not force captures.
        let pdn = |forced: &str| {
            format!(
                "[Variant \"bashni\"]\n[FEN \"W:c3w,g3w,d4b,h8b 0 1\"]\n[ForcedCapture \"{forced}\"]\n1. g3-h4 *\n"
            )
        };
        let (study, _) = Study::from_pdn(&pdn("false")).expect("legal where captures are free");
        assert!(!study.view().rules.forced_capture);
        assert!(study.to_pdn().contains("[ForcedCapture \"false\"]"));
        let (back, _) = Study::from_pdn(&study.to_pdn()).expect("reads back");
        assert_eq!(back.config(), study.config());
        let forced = Study::from_pdn(&pdn("true")).expect_err("a capture is compulsory");
        assert!(
            forced.starts_with("PDN: move 1 (White) 'g3-h4'"),
            "{forced}"
        );
        // Numbered squares, as draughts programs write them, are said so.
        let numbered = Study::from_pdn("[Variant \"bashni\"]\n1. 22-18 *\n").expect_err("numbers");
        assert_eq!(
            numbered,
            "PDN: move 1 (White) '22-18': malformed move '22-18': squares are named by file letter and rank (c3), not numbered"
        );
        let chess = Study::from_pdn("[Variant \"chess\"]\n*\n").expect_err("no such game");
        assert_eq!(chess, "PDN: variant 'chess': bashni or lasca");
        let unread = Study::from_pdn(&pdn("maybe")).expect_err("no such rule");
        assert_eq!(unread, "PDN: ForcedCapture 'maybe': true or false");
        let chess = Study::from_pdn("[Variant \"chess\"]\n1. e4 *\n").expect_err("no such game");
        assert!(chess.starts_with("PDN: variant"), "{chess}");
        // The page sends the rules back with the line; they are checked.
        let rules = RulesSetup {
            king_landing: "free".into(),
            ..study.view().rules
        };
        let lasca = Study::new("lasca", Some(&rules), None, &[], None)
            .expect_err("Lasca's kings do not fly");
        assert!(lasca.starts_with("rules: king_landing"), "{lasca}");
    }

    #[test]
    fn a_record_s_end_is_shown_at_the_line_s_end_and_kept_in_its_pdn() {
        let resigned =
            "[Variant \"bashni\"]\n[Termination \"Black resigned\"]\n1. c3-d4 f6-g5 2-0\n";
        let (study, _) = Study::from_pdn(resigned).expect("a resigned game");
        let result = study.view().result.expect("shown at the end");
        assert_eq!(
            (result.result, result.reason.as_str()),
            ("2-0", "Black resigned")
        );
        let (back, _) = Study::from_pdn(&study.to_pdn()).expect("reads back");
        assert_eq!(back.view().recorded, study.view().recorded);
        assert!(study.to_pdn().contains("[Termination \"Black resigned\"]"));
        // The page sends the end back with the line: not shown before
        // the last move, nor once the line is another.
        let recorded = study.view().recorded;
        let line = texts(&["c3-d4", "f6-g5"]);
        let at = |cursor| {
            Study::new("bashni", None, None, &line, Some(cursor))
                .and_then(|s| s.ending(recorded.clone()))
                .expect("legal")
                .view()
                .result
        };
        assert!(at(1).is_none() && at(2).is_some());
        assert!(
            Study::new("bashni", None, None, &line, None)
                .expect("legal")
                .view()
                .result
                .is_none()
        );
        // A chess form reads; an unfinished game has no end.
        let (chess, _) = Study::from_pdn("1. c3-d4 1/2-1/2\n").expect("a draw");
        let drawn = chess.view().result.expect("drawn");
        assert_eq!(
            (drawn.result, drawn.reason.as_str()),
            ("1-1", "as recorded")
        );
        assert!(!chess.to_pdn().contains("Termination"));
        let (going, _) = Study::from_pdn("1. c3-d4 *\n").expect("unfinished");
        assert!(going.view().result.is_none() && going.view().recorded.is_none());
        // What the page sends back is checked.
        let forged = |result: &str, reason: String| {
            let end = RecordedEnd {
                result: result.into(),
                reason,
            };
            Study::new("bashni", None, None, &[], None).and_then(|s| s.ending(Some(end)))
        };
        assert_eq!(
            forged("3-0", String::new()).expect_err("no such result"),
            "recorded.result: 2-0, 0-2 or 1-1"
        );
        assert!(
            forged("2-0", "x".repeat(121))
                .expect_err("long")
                .starts_with("recorded.reason")
        );
        assert!(
            forged("2-0", "a\u{1b}b".into()).is_err(),
            "a control character"
        );
    }

    #[test]
    fn the_rules_end_wins_over_the_record_s() {
        // Black has no move after the capture: the rules say White won,
        // whatever the record says.
        let pdn = "[Variant \"bashni\"]\n[FEN \"W:c3w,d4b 0 1\"]\n1. c3xe5 0-2\n";
        let (study, _) = Study::from_pdn(pdn).expect("legal");
        assert_eq!(study.view().result.map(|r| r.result), Some("2-0"));
        assert!(study.view().recorded.is_none());
    }

    #[test]
    fn a_record_s_players_event_and_date_are_shown_and_exported() {
        let pdn = "[Event \"Club game\"]\n[Date \"2026.11.30\"]\n[White \"Ann\"]\n[Black \"?\"]\n1. c3-d4 f6-e5 *\n";
        let (study, _) = Study::from_pdn(pdn).expect("reads");
        let header = study.view().header.expect("a header");
        assert_eq!((header.white.as_str(), header.black.as_str()), ("Ann", ""));
        assert_eq!(
            (header.event.as_str(), header.date.as_str()),
            ("Club game", "2026.11.30")
        );
        let out = study.to_pdn();
        for tag in [
            "[Event \"Club game\"]",
            "[Date \"2026.11.30\"]",
            "[White \"Ann\"]",
            "[Black \"?\"]",
        ] {
            assert!(out.contains(tag), "{tag} in {out}");
        }
        let (back, _) = Study::from_pdn(&out).expect("reads back");
        assert_eq!(back.view().header, Some(header.clone()));
        // A variation played from it is still that game's.
        let moves = texts(&["c3-d4", "f6-g5"]);
        let variation = Study::new("bashni", None, None, &moves, None)
            .and_then(|s| s.headed(Some(header.clone())))
            .expect("a variation");
        assert!(variation.to_pdn().contains("[White \"Ann\"]"));
        // The page sends back only what it was sent.
        let long = RecordHeader {
            event: "e".repeat(RecordHeader::FIELD_CHARS + 1),
            ..header
        };
        let refused = Study::new("bashni", None, None, &[], None)
            .and_then(|s| s.headed(Some(long)))
            .expect_err("too long");
        assert!(refused.starts_with("header.event: at most 80"), "{refused}");
        // Nothing known, no header.
        let (bare, _) = Study::from_pdn("1. c3-d4 *").expect("reads");
        assert!(bare.view().header.is_none());
        assert!(bare.to_pdn().contains("[White \"?\"]"));
        // The board's own export, read back, names nobody: its event and
        // its day of export are the board's, not a game's.
        let (again, _) = Study::from_pdn(&bare.to_pdn()).expect("reads back");
        assert!(again.view().header.is_none(), "{:?}", again.view().header);
    }

    #[test]
    fn a_new_line_is_played_by_the_online_rooms_rules() {
        let study = Study::new("lasca", None, None, &[], None).expect("the start");
        assert_eq!(*study.config(), GameConfig::online(Variant::Lasca));
        // Pasted without rule tags, the same moves are played by the same
        // rules as typed.
        for variant in ["bashni", "lasca"] {
            let typed = Study::new(variant, None, None, &[], None).expect("the start");
            let pdn = format!("[Variant \"{variant}\"]\n*\n");
            let (pasted, _) = Study::from_pdn(&pdn).expect("reads");
            assert_eq!(pasted.config(), typed.config(), "{variant}");
        }
        let (untagged, _) = Study::from_pdn("1. c3-d4 f6-e5 *").expect("reads");
        assert_eq!(*untagged.config(), GameConfig::online(Variant::Bashni));
    }

    #[test]
    fn a_board_without_one_side_is_refused() {
        let refused = |fen: &str| Study::new("bashni", None, Some(fen), &[], None).err();
        assert_eq!(
            refused("W: 0 1").as_deref(),
            Some("position 'W: 0 1': the board is empty")
        );
        assert_eq!(
            refused("B:c3w,e3W 0 1").as_deref(),
            Some("position 'B:c3w,e3W 0 1': Black has no piece on the board")
        );
        // A side whose every piece is buried still has pieces: it lost.
        assert_eq!(refused("W:c3bw 0 1"), None);
    }

    #[test]
    fn a_side_without_moves_has_lost() {
        let study =
            Study::new("bashni", None, Some("W:a1w,c3b,b2b 0 1"), &[], None).expect("valid");
        assert!(study.is_over());
        assert!(study.view().legal.is_empty());
        assert!(study.view().result.is_some_and(|r| r.result == "0-2"));
    }
}
