//! `analyse FILE`: search a file of set positions and report each one.
//!
//! A line is EPD-style: a position (in the protocol's notation, or
//! `startpos`) and then operations, each ended by `;`:
//! `<fen> bm c3-d4; id "book 1";`. The operations are `bm <move>...` (the
//! best moves: solved when the engine picks one), `am <move>...` (moves to
//! avoid: solved when it picks none), `id <name>` (quoted or not) and
//! `variant bashni|lasca`, which lets one file mix both variants (without
//! it a line is in `--variant`). The older form with a `;` before the first
//! operation (`<fen> ; bm c3-d4 ; id x`) reads the same. `#` starts a
//! comment outside quotes.

use crate::search_args::{Networks, SearchArgs};
use anyhow::{Context, bail};
use bashni_engine::search::{self, Config, Limits, MATE, is_mate_score, score_text};
use bashni_engine::tt::{LockFreeTable, Table};
use bashni_rules::{KingLanding, Move, Position, RuleSet, Variant};
use serde::Serialize;

/// The depth of each search when no limit is given.
const DEFAULT_DEPTH: u32 = 10;

/// Options of `bashni analyse`.
#[derive(clap::Args, Debug)]
pub struct AnalyseArgs {
    /// The file of positions.
    pub file: std::path::PathBuf,
    /// The variant of lines that do not name one.
    #[arg(long, default_value = "bashni")]
    pub variant: Variant,
    #[arg(long, default_value = "continue")]
    /// The landing rule of Bashni's flying kings.
    pub king_landing: KingLanding,
    #[command(flatten)]
    /// How long to search each position.
    pub search: SearchArgs,
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    /// Lines reported per position.
    pub multipv: u32,
    /// One JSON object per position, then a summary object.
    #[arg(long)]
    pub json: bool,
}

/// One line of the file.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The line of the file it came from (1-based).
    pub line: usize,
    /// The rules it is played under.
    pub rules: RuleSet,
    /// The position.
    pub position: Position,
    /// `bm`: moves that solve it.
    pub best_moves: Vec<Move>,
    /// `am`: moves that fail it.
    pub avoid_moves: Vec<Move>,
    /// `id`: its name, if given.
    pub id: Option<String>,
}

impl Entry {
    /// Whether `best` solves the line; `None` when it has no `bm`/`am`.
    fn solved_by(&self, best: Option<Move>) -> Option<bool> {
        if self.best_moves.is_empty() && self.avoid_moves.is_empty() {
            return None;
        }
        Some(best.is_some_and(|b| {
            (self.best_moves.is_empty() || self.best_moves.contains(&b))
                && !self.avoid_moves.contains(&b)
        }))
    }
}

/// Parse the positions file; errors name the line. `rules` is for lines
/// that name no variant.
pub fn parse_file(text: &str, rules: RuleSet) -> anyhow::Result<Vec<Entry>> {
    let mut entries = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let content = strip_comment(raw).trim();
        if content.is_empty() {
            continue;
        }
        entries.push(parse_line(line, content, rules).with_context(|| format!("line {line}"))?);
    }
    if entries.is_empty() {
        bail!("no positions in the file (each line: a position or startpos, then operations)");
    }
    Ok(entries)
}

/// The text before a `#` that is not inside quotes.
fn strip_comment(line: &str) -> &str {
    let mut quoted = false;
    for (i, c) in line.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '#' if !quoted => return &line[..i],
            _ => {}
        }
    }
    line
}

/// Split at `;` outside quotes; empty pieces are dropped. A quote left
/// open is an error (the rest of the line would be one name).
fn operations(text: &str) -> anyhow::Result<Vec<&str>> {
    let mut pieces = Vec::new();
    let (mut start, mut quoted) = (0, false);
    for (i, c) in text.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ';' if !quoted => {
                pieces.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if quoted {
        bail!("a quote '\"' is not closed");
    }
    pieces.push(text[start..].trim());
    pieces.retain(|p| !p.is_empty());
    Ok(pieces)
}

/// The text up to the first space or `;`, if any.
fn first_word(text: &str) -> Option<&str> {
    let word = text.split(|c: char| c.is_whitespace() || c == ';').next()?;
    (!word.is_empty()).then_some(word)
}

/// The position part of a line: the board and up to two counters (or
/// `startpos`), and the rest. A `;` ends the position too (`W:c3w;`).
fn split_position(content: &str) -> (String, &str) {
    let content = content.trim_start();
    let mut position = first_word(content).unwrap_or("").to_string();
    let mut rest = content[position.len()..].trim_start();
    if position != "startpos" {
        for _ in 0..2 {
            let Some(word) = first_word(rest) else {
                break;
            };
            if !word.chars().all(|c| c.is_ascii_digit()) {
                break;
            }
            position = format!("{position} {word}");
            rest = rest[word.len()..].trim_start();
        }
    }
    (position, rest)
}

fn parse_line(line: usize, content: &str, default_rules: RuleSet) -> anyhow::Result<Entry> {
    let (fen, rest) = split_position(content);
    let ops = operations(rest)?;
    let mut rules = default_rules;
    for op in &ops {
        if let Some(("variant", name)) = op.split_once(char::is_whitespace) {
            let variant: Variant = name.trim().parse().map_err(anyhow::Error::msg)?;
            rules = RuleSet::new(variant).with_king_landing(default_rules.king_landing);
        }
    }
    let position = match fen.as_str() {
        "startpos" => Position::start(&rules),
        _ => Position::from_fen(&rules, &fen)
            .with_context(|| format!("bad {} position '{fen}'", rules.variant))?,
    };
    let mut entry = Entry {
        line,
        rules,
        position,
        best_moves: Vec::new(),
        avoid_moves: Vec::new(),
        id: None,
    };
    for op in ops {
        let (code, operand) = op.split_once(char::is_whitespace).unwrap_or((op, ""));
        match code {
            "bm" | "am" => {
                for text in operand.split_whitespace() {
                    let mv = entry
                        .position
                        .parse_move(text)
                        .with_context(|| format!("{code} {text}"))?;
                    match code {
                        "bm" => entry.best_moves.push(mv),
                        _ => entry.avoid_moves.push(mv),
                    }
                }
            }
            "id" => entry.id = Some(operand.trim().trim_matches('"').to_string()),
            "variant" => {}
            _ => bail!(
                "unknown operation '{op}' (expected bm <move>, am <move>, id <name> or variant <name>)"
            ),
        }
    }
    Ok(entry)
}

/// A score as JSON: `{"cp": 11}` or `{"mate": -3}` (moves, from the side
/// to move's view).
#[derive(Serialize, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum JsonScore {
    /// Centipawns, side to move's view.
    Cp(i32),
    /// Mate in this many moves (negative: mated).
    Mate(i32),
}

impl JsonScore {
    /// The JSON form of a search score.
    pub fn from_search(score: i32) -> JsonScore {
        if is_mate_score(score) {
            let moves = (MATE - score.abs() + 1) / 2;
            JsonScore::Mate(if score > 0 { moves } else { -moves })
        } else {
            JsonScore::Cp(score)
        }
    }
}

#[derive(Serialize)]
struct JsonLine<'a> {
    line: usize,
    id: Option<&'a str>,
    variant: String,
    fen: String,
    bestmove: Option<String>,
    score: JsonScore,
    depth: u32,
    nodes: u64,
    pv: Vec<String>,
    lines: Vec<JsonPv>,
    solved: Option<bool>,
}

#[derive(Serialize)]
struct JsonPv {
    multipv: usize,
    score: JsonScore,
    pv: Vec<String>,
}

#[derive(Serialize)]
struct JsonSummary {
    positions: usize,
    solved: usize,
    with_best_move: usize,
}

/// What the search said about one line.
struct Analysis {
    outcome: search::Outcome,
    /// The last report of each MultiPV line, in order.
    lines: Vec<search::Report>,
    solved: Option<bool>,
}

fn pv_text(report: &search::Report) -> Vec<String> {
    report.pv.iter().map(|m| m.to_string()).collect()
}

/// Run `bashni analyse`.
pub fn run(args: AnalyseArgs) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let rules = RuleSet::new(args.variant).with_king_landing(args.king_landing);
    let entries = parse_file(&text, rules)?;
    let limits = args.search.limits(DEFAULT_DEPTH);
    let tt = args.search.table()?;
    let networks = Networks::new(&args.search.eval_file);
    let (mut solved, mut with_best_move) = (0, 0);
    for entry in &entries {
        let config = Config {
            threads: args.search.threads as usize,
            multi_pv: args.multipv as usize,
            draw_rules: entry.rules.draw,
            network: networks.for_variant(entry.rules.variant)?,
            ..Config::default()
        };
        let analysis = analyse_entry(entry, &limits, &config, &tt);
        if let Some(ok) = analysis.solved {
            with_best_move += 1;
            solved += ok as usize;
        }
        if args.json {
            print_json(entry, &analysis)?;
        } else {
            print_text(entry, &analysis);
        }
    }
    if args.json {
        let summary = JsonSummary {
            positions: entries.len(),
            solved,
            with_best_move,
        };
        bashni_engine::outln!("{}", serde_json::to_string(&summary)?);
    } else if with_best_move > 0 {
        bashni_engine::outln!("solved {solved}/{with_best_move}");
    }
    Ok(())
}

fn analyse_entry(entry: &Entry, limits: &Limits, config: &Config, tt: &LockFreeTable) -> Analysis {
    tt.clear();
    let mut lines: Vec<search::Report> = Vec::new();
    let outcome =
        search::Searcher::new(tt, config.clone()).search(&entry.position, &[], limits, &mut |r| {
            lines.retain(|l| l.multipv != r.multipv);
            lines.push(r.clone());
        });
    lines.sort_by_key(|l| l.multipv);
    let solved = entry.solved_by(outcome.best);
    Analysis {
        outcome,
        lines,
        solved,
    }
}

fn print_json(entry: &Entry, analysis: &Analysis) -> anyhow::Result<()> {
    let outcome = &analysis.outcome;
    let record = JsonLine {
        line: entry.line,
        id: entry.id.as_deref(),
        variant: entry.rules.variant.to_string(),
        fen: entry.position.to_fen(),
        bestmove: outcome.best.map(|m| m.to_string()),
        score: JsonScore::from_search(outcome.score),
        depth: outcome.depth,
        nodes: outcome.nodes,
        pv: analysis.lines.first().map(pv_text).unwrap_or_default(),
        lines: analysis
            .lines
            .iter()
            .map(|r| JsonPv {
                multipv: r.multipv,
                score: JsonScore::from_search(r.score),
                pv: pv_text(r),
            })
            .collect(),
        solved: analysis.solved,
    };
    bashni_engine::outln!("{}", serde_json::to_string(&record)?);
    Ok(())
}

fn print_text(entry: &Entry, analysis: &Analysis) {
    let outcome = &analysis.outcome;
    let name = entry
        .id
        .clone()
        .unwrap_or_else(|| format!("line {}", entry.line));
    let verdict = match analysis.solved {
        Some(true) => "  solved",
        Some(false) => "  NOT solved",
        None => "",
    };
    bashni_engine::outln!(
        "{name}: bestmove {} score {} depth {} nodes {}{verdict}",
        outcome.best.map_or("(none)".into(), |m| m.to_string()),
        score_text(outcome.score),
        outcome.depth,
        outcome.nodes
    );
    for r in &analysis.lines {
        bashni_engine::outln!(
            "  {} {} pv {}",
            r.multipv,
            score_text(r.score),
            pv_text(r).join(" ")
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bashni() -> RuleSet {
        RuleSet::new(Variant::Bashni)
    }

    #[test]
    fn epd_lines_old_lines_and_startpos() {
        let text = concat!(
            "W:a3w,c3b,a7w bm a3-b4; id \"sac; quiet # 2\";  # a comment\n",
            "B:h2b,d4b,f4w 0 7 ; bm d4-e3 ; id sac-quiet-1\n",
            "startpos am a3-b4; variant lasca;\n",
            "startpos\n",
            "W:c3w,f6b 0 3;id tight\n",
        );
        let entries = parse_file(text, bashni()).unwrap();
        assert_eq!(entries.len(), 5);
        assert_eq!(entries[4].id.as_deref(), Some("tight"));
        assert_eq!(entries[4].position.fullmove_number(), 3);
        assert_eq!(entries[0].id.as_deref(), Some("sac; quiet # 2"));
        assert_eq!(entries[0].best_moves[0].to_string(), "a3-b4");
        assert_eq!(entries[1].position.fullmove_number(), 7);
        assert_eq!(entries[1].line, 2);
        assert_eq!(entries[2].rules.variant, Variant::Lasca);
        assert_eq!(
            entries[2].position.to_fen(),
            Position::start(&RuleSet::new(Variant::Lasca)).to_fen()
        );
        assert_eq!(entries[2].avoid_moves.len(), 1);
        assert_eq!(entries[3].rules.variant, Variant::Bashni);
        // bm solves by inclusion, am by exclusion.
        let bm = entries[0].best_moves[0];
        assert_eq!(entries[0].solved_by(Some(bm)), Some(true));
        assert_eq!(
            entries[2].solved_by(entries[2].avoid_moves.first().copied()),
            Some(false)
        );
        assert_eq!(entries[3].solved_by(None), None);
    }

    #[test]
    fn bad_lines_name_their_line() {
        for (text, expected) in [
            ("startpos\nW:z9w bm a1-b2;\n", "line 2"),
            ("startpos variant chess;\n", "line 1"),
            ("startpos bm e1-f2;\n", "line 1"),
            ("startpos ce 35;\n", "unknown operation"),
            ("startpos id café \"x;\n", "line 1: a quote"),
            ("# nothing but a comment\n", "no positions"),
        ] {
            let err = format!("{:#}", parse_file(text, bashni()).unwrap_err());
            assert!(err.contains(expected), "{text}: {err}");
        }
    }

    #[test]
    fn scores_in_json_are_numbers() {
        assert_eq!(
            serde_json::to_string(&JsonScore::from_search(11)).unwrap(),
            r#"{"cp":11}"#
        );
        assert_eq!(
            serde_json::to_string(&JsonScore::from_search(MATE - 5)).unwrap(),
            r#"{"mate":3}"#
        );
        assert_eq!(JsonScore::from_search(-(MATE - 2)), JsonScore::Mate(-1));
    }
}
