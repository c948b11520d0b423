//! Portable Draughts Notation: the games of a match as text.
//!
//! A game is a block of tags (`[Name "value"]`) and then the numbered moves
//! in the protocol's notation, ending with the result in the draughts form
//! (`2-0` White won, `0-2` Black won, `1-1` draw, `*` unfinished). The move
//! numbers follow the `[FEN]` tag: its move number, and `N...` first when
//! Black is to move. A comment in braces may follow any move (the runner
//! writes `{+0.12/12 0.51s}` there) or stand before the first move; a move
//! may carry a `?`, `??`, `!` or `!!` mark. Variations and annotation
//! glyphs other programs write are read past (see [`parse_pdn`]).

use crate::Error;
use bashni_rules::Colour;

/// One game: its tags in order, its moves and its result token.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PdnGame {
    /// The tags, name and value, in file order.
    pub tags: Vec<(String, String)>,
    /// The moves in the protocol's notation, without numbers or marks.
    pub moves: Vec<String>,
    /// The comment after each move (as many as `moves`; `None` for none).
    pub comments: Vec<Option<String>>,
    /// The mark after each move (`?`, `??`, `!`, `!!`; as many as `moves`).
    pub marks: Vec<Option<String>>,
    /// A comment before the first move.
    pub preface: Option<String>,
    /// The result token: `2-0`, `0-2`, `1-1` or `*` (or a chess form read
    /// from another program's file).
    pub result: String,
}

const RESULTS: [&str; 7] = ["2-0", "0-2", "1-1", "*", "1-0", "0-1", "1/2-1/2"];

/// The result token of a finished game: `2-0` when White won, `0-2` when
/// Black did, `1-1` for a draw (2 points a win, 1 a draw).
pub fn result_token(winner: Option<Colour>) -> &'static str {
    match winner {
        Some(Colour::White) => "2-0",
        Some(Colour::Black) => "0-2",
        None => "1-1",
    }
}

/// The winner of a result token (`None` inside for a draw); `None` for a
/// token that is not a finished draughts result.
pub fn winner_of(token: &str) -> Option<Option<Colour>> {
    [Some(Colour::White), Some(Colour::Black), None]
        .into_iter()
        .find(|&w| result_token(w) == token)
}

impl PdnGame {
    /// A game with no comments.
    pub fn new(tags: Vec<(String, String)>, moves: Vec<String>, result: &str) -> PdnGame {
        PdnGame {
            tags,
            comments: vec![None; moves.len()],
            marks: vec![None; moves.len()],
            moves,
            preface: None,
            result: result.to_string(),
        }
    }

    /// The value of a tag, if present.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The game as PDN text, ending in a blank line.
    pub fn to_pdn(&self) -> String {
        let mut out = String::new();
        for (name, value) in &self.tags {
            let value = value.replace('\\', "\\\\").replace('"', "\\\"");
            out += &format!("[{name} \"{value}\"]\n");
        }
        out.push('\n');
        let mut tokens = Vec::new();
        if let Some(text) = &self.preface {
            tokens.push(comment_token(text));
        }
        let (mut number, mut black) = self.tag("FEN").map_or((1, false), start_of);
        for (i, mv) in self.moves.iter().enumerate() {
            if !black {
                tokens.push(format!("{number}."));
            } else if i == 0 {
                tokens.push(format!("{number}..."));
            }
            let mark = self.marks.get(i).cloned().flatten().unwrap_or_default();
            tokens.push(format!("{mv}{mark}"));
            if let Some(Some(text)) = self.comments.get(i) {
                tokens.push(comment_token(text));
            }
            if black {
                number += 1;
            }
            black = !black;
        }
        tokens.push(self.result.clone());
        out += &wrap(&tokens, 79);
        out += "\n\n";
        out
    }
}

/// A comment in braces, in the form the reader gives back: a closing brace
/// inside would end it early, and runs of whitespace are one space (the
/// reader cannot tell a line break of the wrapping from a space).
fn comment_token(text: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    format!("{{{}}}", words.join(" ").replace('}', ")"))
}

/// Tokens joined by spaces into lines of at most `width` (a longer token,
/// such as a long comment, gets a line of its own and may be split at its
/// spaces).
fn wrap(tokens: &[String], width: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in tokens.iter().flat_map(|t| t.split(' ')) {
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            out += &line;
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line += word;
    }
    out += &line;
    out
}

/// The move number and whether Black moves first, from a position string.
fn start_of(fen: &str) -> (u32, bool) {
    let mut tokens = fen.split_whitespace();
    let black = tokens
        .next()
        .is_some_and(|board| board.starts_with(['B', 'b']));
    let number = tokens.nth(1).and_then(|n| n.parse().ok()).unwrap_or(1);
    (number, black)
}

/// One piece of move text.
enum Token {
    Word(String),
    Comment(String),
}

/// The move text of one game, split into words and comments line by
/// line as it is read (comments may span lines; each run of whitespace
/// in them becomes one space, since the writer wraps long comments). A
/// game's end, its result word outside a comment, is seen as each line
/// comes: tokenizing the whole text again after every line made a long
/// paste quadratic.
///
/// What other programs write beside the main line is read past, as
/// lidraughts reads it: variations in parentheses (nested, over lines,
/// with their own comments), numeric annotation glyphs (`$1`), and a
/// `;` comment running to the end of its line is a comment like `{...}`.
#[derive(Default)]
struct MoveText {
    tokens: Vec<Token>,
    /// The body of a comment not closed yet.
    open_comment: Option<String>,
    /// How many variations the text is inside (their moves are not the
    /// game's).
    variation_depth: usize,
}

impl MoveText {
    /// Read the next line of the move text.
    fn read(&mut self, line: &str) {
        let mut chars = line.chars().peekable();
        loop {
            if let Some(mut body) = self.open_comment.take() {
                if !read_comment(&mut body, &mut chars) {
                    // The line's end is whitespace within the comment.
                    if !body.ends_with(' ') {
                        body.push(' ');
                    }
                    self.open_comment = Some(body);
                    return;
                }
                self.push(Token::Comment(body.trim().to_string()));
                continue;
            }
            let Some(c) = chars.next() else {
                return;
            };
            match c {
                c if c.is_whitespace() => {}
                '{' => self.open_comment = Some(String::new()),
                '(' => self.variation_depth += 1,
                ')' if self.variation_depth > 0 => self.variation_depth -= 1,
                ';' => {
                    let rest: String = chars.collect();
                    let words: Vec<&str> = rest.split_whitespace().collect();
                    if !words.is_empty() {
                        self.push(Token::Comment(words.join(" ")));
                    }
                    return;
                }
                c => {
                    let mut word = String::from(c);
                    while let Some(&c) = chars.peek() {
                        if c.is_whitespace() || "{}();".contains(c) {
                            break;
                        }
                        word.push(c);
                        chars.next();
                    }
                    if !is_annotation_glyph(&word) {
                        self.push(Token::Word(word));
                    }
                }
            }
        }
    }

    /// Keep `token` if it is the main line's.
    fn push(&mut self, token: Token) {
        if self.variation_depth == 0 {
            self.tokens.push(token);
        }
    }

    /// Whether the text read ends its game: a result word last, outside
    /// a comment or a variation.
    fn ends_game(&self) -> bool {
        self.open_comment.is_none()
            && self.variation_depth == 0
            && matches!(self.tokens.last(), Some(Token::Word(last)) if result_of(last).is_some())
    }

    /// The words and comments read; an error while a comment or a
    /// variation is open.
    fn finish(self) -> Result<Vec<Token>, Error> {
        if self.open_comment.is_some() {
            return Err(Error::Pdn("a comment ('{') is not closed".into()));
        }
        if self.variation_depth > 0 {
            return Err(Error::Pdn("a variation ('(') is not closed".into()));
        }
        Ok(self.tokens)
    }
}

/// Whether `word` is a numeric annotation glyph (`$1`, `$14`), a mark
/// some programs write after a move.
fn is_annotation_glyph(word: &str) -> bool {
    word.strip_prefix('$')
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Read a comment's body on to its closing `}`: whether it came before
/// the line ended.
fn read_comment(body: &mut String, chars: &mut impl Iterator<Item = char>) -> bool {
    for c in chars {
        match c {
            '}' => return true,
            c if c.is_whitespace() => {
                if !body.ends_with(' ') {
                    body.push(' ');
                }
            }
            c => body.push(c),
        }
    }
    false
}

/// Read every game of a PDN text.
pub fn parse_pdn(text: &str) -> Result<Vec<PdnGame>, Error> {
    read_games(text, false)
}

/// Read every game of a PDN text as a person pastes it: the last game
/// may have no result (a bare list of moves), and is then unfinished
/// (`*`), as lidraughts reads it.
pub fn parse_pasted_pdn(text: &str) -> Result<Vec<PdnGame>, Error> {
    read_games(text, true)
}

/// [`parse_pdn`]; `unfinished_last`: a last game without a result is
/// read as unfinished rather than refused.
fn read_games(text: &str, unfinished_last: bool) -> Result<Vec<PdnGame>, Error> {
    let mut games = Vec::new();
    let mut game = PdnGame::default();
    let mut moves = MoveText::default();
    let mut in_moves = false;
    // Some editors start a saved file with a byte order mark.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for (index, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.starts_with('[') && !in_moves {
            let bad = || Error::Pdn(format!("line {}: bad tag '{line}'", index + 1));
            let tag = parse_tag(line).ok_or_else(bad)?;
            game.tags.push(tag);
            continue;
        }
        if line.is_empty() {
            continue;
        }
        in_moves = true;
        moves.read(line);
        if moves.ends_game() {
            fill_moves(&mut game, std::mem::take(&mut moves).tokens);
            games.push(std::mem::take(&mut game));
            in_moves = false;
        }
    }
    if in_moves || !game.tags.is_empty() {
        if !unfinished_last {
            return Err(Error::Pdn("the last game has no result".into()));
        }
        let mut tokens = moves.finish()?;
        tokens.push(Token::Word("*".into()));
        fill_moves(&mut game, tokens);
        games.push(game);
    }
    Ok(games)
}

/// Moves, marks and comments of one game from its tokens (the last is the
/// result).
fn fill_moves(game: &mut PdnGame, tokens: Vec<Token>) {
    for token in tokens {
        match token {
            Token::Comment(text) => match game.comments.last_mut() {
                Some(slot) => *slot = Some(text),
                None => game.preface = Some(text),
            },
            Token::Word(word) => {
                if let Some(result) = result_of(&word) {
                    game.result = result.to_string();
                    continue;
                }
                let mv = without_number(&word);
                let bare = mv.trim_end_matches(['?', '!']);
                if bare.is_empty() {
                    continue;
                }
                let mark = &mv[bare.len()..];
                game.moves.push(bare.to_string());
                game.comments.push(None);
                game.marks
                    .push((!mark.is_empty()).then(|| mark.to_string()));
            }
        }
    }
}

/// A move word without its move number (`12.` or `12...`; a number
/// alone, `12` or `12.46`, is no move); a word whose leading digits have
/// no dot is all move (`22-18` keeps its 22).
fn without_number(word: &str) -> &str {
    let rest = word.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
    let number = &word[..word.len() - rest.len()];
    match number.contains('.') || rest.is_empty() {
        true => rest,
        false => word,
    }
}

/// The result a word stands for, with or without a move number before it
/// (`27.*` is the result `*`, not a move: written back, it would read as
/// one; `27.1-1` is the result `1-1`).
fn result_of(word: &str) -> Option<&str> {
    let after_number = word
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start_matches('.');
    [word, without_number(word), after_number]
        .into_iter()
        .find(|w| RESULTS.contains(w))
}

fn parse_tag(line: &str) -> Option<(String, String)> {
    let inner = line.strip_prefix('[')?.strip_suffix(']')?;
    let (name, rest) = inner.split_once(char::is_whitespace)?;
    let quoted = rest.trim().strip_prefix('"')?.strip_suffix('"')?;
    let mut value = String::new();
    let mut chars = quoted.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            value.push(chars.next()?);
        } else {
            value.push(c);
        }
    }
    Some((name.to_string(), value))
}

/// Today's date as PDN writes it (`YYYY.MM.DD`, UTC).
pub fn today() -> String {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    date_of_unix_ms(ms)
}

/// The date of an instant (Unix milliseconds) as PDN writes it
/// (`YYYY.MM.DD`, UTC).
pub fn date_of_unix_ms(ms: i64) -> String {
    let (y, m, d) = civil_from_days(ms.div_euclid(86_400_000));
    format!("{y:04}.{m:02}.{d:02}")
}

/// Days since 1970-01-01 to a Gregorian date (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_utc_days() {
        assert_eq!(date_of_unix_ms(0), "1970.01.01");
        assert_eq!(date_of_unix_ms(86_400_000 - 1), "1970.01.01");
        assert_eq!(date_of_unix_ms(951_782_400_000), "2000.02.29");
        assert_eq!(date_of_unix_ms(1_796_256_000_000), "2026.12.03");
    }

    fn game(fen: &str, moves: &[&str], result: &str) -> PdnGame {
        PdnGame::new(
            vec![
                ("Event".into(), "test \"quoted\" \\ name".into()),
                ("FEN".into(), fen.into()),
            ],
            moves.iter().map(|m| m.to_string()).collect(),
            result,
        )
    }

    #[test]
    fn numbers_follow_the_fen() {
        let white = game("W:a1w,h8b 0 1", &["c3-d4", "f6-e5", "d4xf6"], "2-0");
        assert!(
            white
                .to_pdn()
                .ends_with("\n1. c3-d4 f6-e5 2. d4xf6 2-0\n\n"),
            "{}",
            white.to_pdn()
        );
        let black = game("B:a1w,h8b 4 7", &["f6-e5", "c3-d4"], "1-1");
        assert!(
            black.to_pdn().ends_with("\n7... f6-e5 8. c3-d4 1-1\n\n"),
            "{}",
            black.to_pdn()
        );
    }

    #[test]
    fn write_then_read_gives_the_same_games() {
        let long: Vec<String> = (0..60).map(|i| format!("c{}xe5xc7", i % 7)).collect();
        let long: Vec<&str> = long.iter().map(String::as_str).collect();
        let games = vec![
            game("W:a1w,h8b 0 1", &["c3-d4", "f6-e5", "d4xf6"], "2-0"),
            game("B:a1w,h8b 4 7", &[], "0-2"),
            game("B:a1w,h8b 0 3", &long, "1-1"),
        ];
        let text: String = games.iter().map(PdnGame::to_pdn).collect();
        assert!(text.lines().all(|l| l.len() <= 79));
        assert_eq!(parse_pdn(&text).unwrap(), games);
    }

    #[test]
    fn reader_skips_comments_and_rejects_unfinished_games() {
        let text = "[FEN \"W:a1w 0 1\"]\n\n1. c3-d4 {a comment} f6-e5 {two words} 1-1\n";
        let games = parse_pdn(text).unwrap();
        assert_eq!(games[0].moves, vec!["c3-d4", "f6-e5"]);
        assert!(parse_pdn("[FEN \"W:a1w\"]\n\n1. c3-d4\n").is_err());
        assert!(parse_pdn("[FEN \"W:a1w\"]\n\n1. c3-d4 {open 1-1\n").is_err());
        assert!(parse_pdn("[FEN W]\n").is_err());
    }

    #[test]
    fn a_game_ends_at_its_result_outside_comments_whatever_the_lines() {
        // A result inside a comment, even one over several lines, or
        // glued to a comment's end, is not the game's end; the next is.
        let text = "1. c3-d4 {they agreed\n1-1 but} f6-e5 {no}2-0\n[FEN \"W:a1w\"]\n1. a1-b2 1-1\n";
        let games = parse_pdn(text).unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].moves, vec!["c3-d4", "f6-e5"]);
        assert_eq!(
            (games[0].result.as_str(), games[1].result.as_str()),
            ("2-0", "1-1")
        );
        // A word made of a result and more is a move, not the end.
        let games = parse_pasted_pdn("1. c3-d4\n1-1x\n").unwrap();
        assert_eq!(games[0].result, "*");
        // Many short lines read once each (a 32 KB paste was quadratic).
        let lines = "c3-d4\n".repeat(20_000);
        let games = parse_pasted_pdn(&lines).unwrap();
        assert_eq!(games[0].moves.len(), 20_000);
    }

    #[test]
    fn variations_glyphs_and_line_comments_of_other_programs_are_read_past() {
        let text = "\u{feff}[Event \"club\"]\n\
            1. c3-d4 $1 f6-e5 (1... f6-g5 {a (side) note} 2. g3-h4\n\
            (2. a3-b4 b6-a5)) 2. d4xf6 ; White takes\n\
            g7xe5 $14 2-0\n";
        let games = parse_pdn(text).unwrap();
        assert_eq!(games.len(), 1);
        assert_eq!(games[0].tag("Event"), Some("club"));
        assert_eq!(games[0].moves, ["c3-d4", "f6-e5", "d4xf6", "g7xe5"]);
        assert_eq!(games[0].comments[2].as_deref(), Some("White takes"));
        assert_eq!(games[0].comments[1], None);
        assert_eq!(games[0].result, "2-0");
        // A result inside a variation is not the game's end.
        let games = parse_pdn("1. c3-d4 (1. a3-b4 2-0) f6-e5 1-1\n").unwrap();
        assert_eq!((games[0].moves.len(), games[0].result.as_str()), (2, "1-1"));
        let open = parse_pasted_pdn("1. c3-d4 (1. a3-b4 f6-e5\n").unwrap_err();
        assert_eq!(open.to_string(), "a variation ('(') is not closed");
    }

    #[test]
    fn a_pasted_move_list_without_a_result_is_an_unfinished_game() {
        let games = parse_pasted_pdn("1. c3-d4 f6-e5\n2. d4xf6\n").unwrap();
        assert_eq!(games.len(), 1);
        assert_eq!(games[0].moves, vec!["c3-d4", "f6-e5", "d4xf6"]);
        assert_eq!(games[0].result, "*");
        let two = parse_pasted_pdn("1. c3-d4 2-0\n\n[FEN \"W:a1w\"]\n1. a1-b2\n").unwrap();
        assert_eq!((two.len(), two[1].result.as_str()), (2, "*"));
        assert_eq!(parse_pasted_pdn("1. c3-d4 2-0\n").unwrap()[0].result, "2-0");
        assert!(parse_pasted_pdn("1. c3-d4 {open\n").is_err());
        assert!(parse_pasted_pdn("").unwrap().is_empty());
        // Numbers with or without their dot are no moves; numbered
        // squares are moves, whole, for the rules to refuse.
        let numbers = parse_pasted_pdn("1 c3-d4 2.f6-e5 3... 22-18 12.46\n").unwrap();
        assert_eq!(numbers[0].moves, vec!["c3-d4", "f6-e5", "22-18"]);
    }

    #[test]
    fn comments_and_marks_survive_a_round_trip() {
        let mut g = game("W:a1w,h8b 0 1", &["c3-d4", "f6-e5", "d4xf6"], "2-0");
        g.preface = Some("summary: White 0 mistakes".into());
        g.comments = vec![
            Some("+0.12/12 0.51s".into()),
            None,
            Some(
                "a long comment that goes on and on "
                    .repeat(4)
                    .trim()
                    .into(),
            ),
        ];
        g.marks = vec![None, Some("??".into()), Some("!".into())];
        let text = g.to_pdn();
        assert!(text.contains("1. c3-d4 {+0.12/12 0.51s} f6-e5??"), "{text}");
        assert!(text.lines().all(|l| l.len() <= 79), "{text}");
        assert_eq!(parse_pdn(&text).unwrap(), vec![g]);
    }

    #[test]
    fn result_tokens_read_back() {
        for winner in [Some(Colour::White), Some(Colour::Black), None] {
            assert_eq!(winner_of(result_token(winner)), Some(winner));
        }
        assert_eq!(winner_of("1-0"), None);
        assert_eq!(winner_of("*"), None);
    }

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(today().len(), 10);
    }
}
