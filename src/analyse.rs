//! `analyse FILE`: search a file of set positions and report each one.
//!
//! A line is `<fen> [; bm <move> ...] [; id <name>]`; `#` starts a comment.

use crate::rules::{KingLanding, Move, Position, RuleSet, Variant};
use crate::search::{self, Config, Limits, Signals, score_text};
use crate::tt::{LockFreeTable, Table};
use anyhow::{Context, bail};
use serde::Serialize;

/// Options of `bashni analyse`.
#[derive(clap::Args, Debug)]
pub struct AnalyseArgs {
    /// The file of positions.
    pub file: std::path::PathBuf,
    #[arg(long, default_value = "bashni")]
    pub variant: Variant,
    #[arg(long, default_value = "continue")]
    pub king_landing: KingLanding,
    /// Search depth per position (the default when no limit is given: 10).
    #[arg(long, conflicts_with_all = ["movetime", "nodes"], value_parser = clap::value_parser!(u32).range(1..=100))]
    pub depth: Option<u32>,
    /// Milliseconds per position.
    #[arg(long, conflicts_with = "nodes")]
    pub movetime: Option<u64>,
    /// Nodes per position.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: Option<u64>,
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: u32,
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub multipv: u32,
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub hash: u32,
    /// One JSON object per position, then a summary object.
    #[arg(long)]
    pub json: bool,
}

/// One line of the file.
#[derive(Debug, Clone)]
pub struct Entry {
    pub line: usize,
    pub position: Position,
    pub best_moves: Vec<Move>,
    pub id: Option<String>,
}

/// Parse the positions file; errors name the line.
pub fn parse_file(text: &str, rules: RuleSet) -> anyhow::Result<Vec<Entry>> {
    let mut entries = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let mut fields = content.split(';').map(str::trim);
        let fen = fields.next().unwrap_or("");
        let position = Position::from_fen(&rules, fen)
            .with_context(|| format!("line {line}: bad position '{fen}'"))?;
        let mut entry = Entry {
            line,
            position,
            best_moves: Vec::new(),
            id: None,
        };
        for field in fields.filter(|f| !f.is_empty()) {
            match field.split_once(char::is_whitespace) {
                Some(("bm", moves)) => {
                    for text in moves.split_whitespace() {
                        let mv = entry
                            .position
                            .parse_move(text)
                            .with_context(|| format!("line {line}: bm"))?;
                        entry.best_moves.push(mv);
                    }
                }
                Some(("id", name)) => entry.id = Some(name.trim().trim_matches('"').to_string()),
                _ => bail!(
                    "line {line}: unknown field '{field}' (expected 'bm <move>' or 'id <name>')"
                ),
            }
        }
        entries.push(entry);
    }
    Ok(entries)
}

#[derive(Serialize)]
struct JsonLine<'a> {
    line: usize,
    id: Option<&'a str>,
    fen: String,
    bestmove: Option<String>,
    score: String,
    depth: u32,
    nodes: u64,
    pv: Vec<String>,
    lines: Vec<JsonPv>,
    solved: Option<bool>,
}

#[derive(Serialize)]
struct JsonPv {
    multipv: usize,
    score: String,
    pv: Vec<String>,
}

#[derive(Serialize)]
struct JsonSummary {
    positions: usize,
    solved: usize,
    with_best_move: usize,
}

/// Run `bashni analyse`.
pub fn run(args: AnalyseArgs) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let rules = RuleSet::new(args.variant).with_king_landing(args.king_landing);
    let entries = parse_file(&text, rules)?;
    let config = Config {
        threads: args.threads as usize,
        multi_pv: args.multipv as usize,
        draw_rules: rules.draw,
        ..Config::default()
    };
    let limits = Limits {
        depth: args
            .depth
            .or((args.movetime.is_none() && args.nodes.is_none()).then_some(10)),
        movetime: args.movetime,
        nodes: args.nodes,
        ..Limits::default()
    };
    let tt = LockFreeTable::try_with_megabytes(args.hash as usize)
        .with_context(|| format!("cannot allocate a {} MiB table", args.hash))?;
    let (mut solved, mut with_best_move) = (0, 0);
    for entry in &entries {
        tt.clear();
        // The last report of each MultiPV line is the one to show.
        let mut lines: Vec<search::Report> = Vec::new();
        let outcome = search::think(
            &entry.position,
            &[],
            &limits,
            &config,
            &tt,
            &Signals::default(),
            &mut |r| {
                lines.retain(|l| l.multipv != r.multipv);
                lines.push(r.clone());
            },
        );
        lines.sort_by_key(|l| l.multipv);
        let is_solved = (!entry.best_moves.is_empty())
            .then(|| outcome.best.is_some_and(|b| entry.best_moves.contains(&b)));
        if let Some(ok) = is_solved {
            with_best_move += 1;
            solved += ok as usize;
        }
        let best = outcome.best.map(|m| m.to_string());
        let pv_of = |r: &search::Report| r.pv.iter().map(|m| m.to_string()).collect::<Vec<_>>();
        let main_pv = lines.first().map(pv_of).unwrap_or_default();
        if args.json {
            let record = JsonLine {
                line: entry.line,
                id: entry.id.as_deref(),
                fen: entry.position.to_fen(),
                bestmove: best,
                score: score_text(outcome.score),
                depth: outcome.depth,
                nodes: outcome.nodes,
                pv: main_pv,
                lines: lines
                    .iter()
                    .map(|r| JsonPv {
                        multipv: r.multipv,
                        score: score_text(r.score),
                        pv: pv_of(r),
                    })
                    .collect(),
                solved: is_solved,
            };
            println!("{}", serde_json::to_string(&record)?);
        } else {
            let name = entry
                .id
                .clone()
                .unwrap_or_else(|| format!("line {}", entry.line));
            let verdict = match is_solved {
                Some(true) => "  solved",
                Some(false) => "  NOT solved",
                None => "",
            };
            println!(
                "{name}: bestmove {} score {} depth {} nodes {}{verdict}",
                best.as_deref().unwrap_or("(none)"),
                score_text(outcome.score),
                outcome.depth,
                outcome.nodes
            );
            for r in &lines {
                println!(
                    "  {} {} pv {}",
                    r.multipv,
                    score_text(r.score),
                    pv_of(r).join(" ")
                );
            }
        }
    }
    if args.json {
        let summary = JsonSummary {
            positions: entries.len(),
            solved,
            with_best_move,
        };
        println!("{}", serde_json::to_string(&summary)?);
    } else if with_best_move > 0 {
        println!("solved {solved}/{with_best_move}");
    }
    Ok(())
}
