//! `bashni openings`: an opening book of distinct positions that a search
//! judges level, for matches and self-play.

use crate::progress_bar;
use crate::selfplay::game_rng;
use anyhow::{Context, bail};
use bashni_engine::nnue::Network;
use bashni_engine::protocol::{LINEAR, load_eval_file};
use bashni_engine::search::{Config, Limits, Searcher};
use bashni_engine::tt::{LockFreeTable, Table};
use bashni_rules::{Position, RuleSet, Variant};
use rand::RngExt;
use rayon::prelude::*;
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// `bashni openings`: a book of distinct, roughly balanced positions.
#[derive(clap::Args, Debug)]
pub struct OpeningsArgs {
    /// The game the book is for.
    #[arg(long, default_value = "bashni")]
    pub variant: Variant,
    /// Positions in the book.
    #[arg(long, default_value_t = 4000)]
    pub count: usize,
    /// Fewest random plies from the start.
    #[arg(long, default_value_t = 6)]
    pub min_plies: u32,
    /// Most random plies from the start.
    #[arg(long, default_value_t = 10)]
    pub max_plies: u32,
    /// Depth of the search that judges balance.
    #[arg(long, default_value_t = 4)]
    pub depth: u32,
    /// Largest |score| (centi-men, side to move) a kept position may have.
    #[arg(long, default_value_t = 40)]
    pub max_score: i32,
    /// Seeds the random plies (with each candidate's index).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Candidates judged at once.
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
    /// The evaluation of the judging search, as the engine's `EvalFile`:
    /// `linear` (the default, which judged the first books,
    /// `openings-<variant>-4000.txt`), `embedded` or a network file. A
    /// deeper search with a network judges balance far better.
    #[arg(long, default_value = "linear")]
    pub eval_file: String,
    /// Output file (overwritten); standard output when not given.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Candidate `index`: random plies from the start, kept when no capture is
/// pending, the game goes on, and the judging search finds it level.
fn opening_candidate(
    args: &OpeningsArgs,
    network: &Option<Arc<Network>>,
    index: u64,
    tt: &LockFreeTable,
) -> Option<Position> {
    let rules = RuleSet::new(args.variant);
    let mut rng = game_rng(args.seed, index);
    let mut pos = Position::start(&rules);
    let plies = rng.random_range(args.min_plies..=args.max_plies.max(args.min_plies));
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return None;
        }
        pos.make(&moves[rng.random_range(0..moves.len())]);
    }
    if pos.has_capture() || pos.legal_moves().is_empty() {
        return None;
    }
    (judge(args, network, &pos, tt).abs() <= args.max_score).then_some(pos)
}

/// The score of a `--depth` search of `pos` (side to move's view) with
/// the judging evaluation, from an empty table, so that it depends on
/// the position alone.
fn judge(
    args: &OpeningsArgs,
    network: &Option<Arc<Network>>,
    pos: &Position,
    tt: &LockFreeTable,
) -> i32 {
    tt.clear();
    let limits = Limits {
        depth: Some(args.depth),
        ..Limits::default()
    };
    let config = Config {
        draw_rules: RuleSet::new(args.variant).draw,
        network: network.clone(),
        ..Config::default()
    };
    Searcher::new(tt, config)
        .search(pos, &[], &limits, &mut |_| {})
        .score
}

/// The book: candidates in index order, duplicates (same position and side
/// to move) dropped, until `count` are kept. Candidates are judged in
/// parallel batches; the result depends only on the arguments.
pub fn make_book(args: &OpeningsArgs) -> anyhow::Result<Vec<String>> {
    const BATCH: u64 = 256;
    let network = load_eval_file(&args.eval_file, args.variant).context("--eval-file")?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.max(1))
        .build()?;
    let mut seen = HashSet::new();
    let mut book = Vec::new();
    let mut next = 0u64;
    // Level positions grow rare and repeat as a book fills up: the bar
    // shows how many candidates each kept one costs.
    let bar = progress_bar(args.count as u64, "positions", false);
    while book.len() < args.count {
        if next > 1000 * args.count as u64 + 10_000 {
            bail!("only {} positions found; loosen --max-score", book.len());
        }
        let batch: Vec<Option<Position>> = pool.install(|| {
            (next..next + BATCH)
                .into_par_iter()
                .map_init(
                    || LockFreeTable::with_megabytes(1),
                    |tt, i| opening_candidate(args, &network, i, tt),
                )
                .collect()
        });
        next += BATCH;
        for pos in batch.into_iter().flatten() {
            if book.len() < args.count && seen.insert(pos.key()) {
                book.push(pos.to_fen());
            }
        }
        bar.set_position(book.len() as u64);
        bar.set_message(format!("from {next} candidates"));
    }
    bar.finish_and_clear();
    Ok(book)
}

/// `bashni openings`: write the book with a header saying how it was made.
pub fn run(args: OpeningsArgs) -> anyhow::Result<()> {
    let start = Instant::now();
    let book = make_book(&args)?;
    // The linear evaluation judged the first books: their headers stay as they were.
    let judge = if args.eval_file == LINEAR {
        String::new()
    } else {
        format!(" --eval-file {}", args.eval_file)
    };
    let mut text = format!(
        "# {} openings: {} distinct positions (position and side to move).\n\
         # Made by `bashni openings --variant {} --count {} --min-plies {} --max-plies {} \
         --depth {} --max-score {} --seed {}{judge}`:\n\
         # uniformly random plies from the start, kept when no capture is pending\n\
         # and a depth-{} search scores them within +-{} centi-men.\n",
        args.variant,
        book.len(),
        args.variant,
        args.count,
        args.min_plies,
        args.max_plies,
        args.depth,
        args.max_score,
        args.seed,
        args.depth,
        args.max_score
    );
    for fen in &book {
        text.push_str(fen);
        text.push('\n');
    }
    match &args.out {
        Some(path) => std::fs::write(path, text)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => print!("{text}"),
    }
    eprintln!(
        "{} positions in {:.1} s",
        book.len(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small Lasca book's arguments, judged at depth 6 within 30.
    fn args(extra: &[&str]) -> OpeningsArgs {
        let mut argv = vec!["openings", "--variant", "lasca", "--count", "12"];
        argv.extend_from_slice(&["--depth", "6", "--max-score", "30", "--threads", "1"]);
        argv.extend_from_slice(extra);
        crate::parse_args(&argv)
    }

    #[test]
    fn a_book_is_reproducible_distinct_and_level_by_its_judge() {
        let tt = LockFreeTable::with_megabytes(1);
        for judge_name in [LINEAR, "embedded"] {
            let args = args(&["--eval-file", judge_name]);
            let network = load_eval_file(judge_name, Variant::Lasca).unwrap();
            let book = make_book(&args).unwrap();
            assert_eq!(book, make_book(&args).unwrap(), "{judge_name}");
            assert_eq!(book.len(), 12);
            let rules = RuleSet::new(Variant::Lasca);
            let positions: Vec<Position> = book
                .iter()
                .map(|fen| Position::from_fen(&rules, fen).unwrap())
                .collect();
            let keys: HashSet<u64> = positions.iter().map(Position::key).collect();
            assert_eq!(keys.len(), 12, "distinct positions");
            for pos in &positions {
                assert!(!pos.has_capture() && !pos.legal_moves().is_empty());
                let score = judge(&args, &network, pos, &tt);
                assert!(score.abs() <= 30, "{judge_name}: {score} in {pos:?}");
            }
        }
    }

    #[test]
    fn the_judging_evaluation_decides_what_is_level() {
        let linear = make_book(&args(&["--eval-file", LINEAR])).unwrap();
        let learned = make_book(&args(&["--eval-file", "embedded"])).unwrap();
        assert_ne!(linear, learned);
    }

    #[test]
    fn the_file_names_its_command_and_reads_back_as_the_book() {
        let path = std::env::temp_dir().join(format!("bashni-book-{}.txt", std::process::id()));
        let mut args = args(&["--eval-file", "embedded", "--seed", "5"]);
        args.out = Some(path.clone());
        let book = make_book(&args).unwrap();
        run(args).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        assert!(text.contains(
            "`bashni openings --variant lasca --count 12 --min-plies 6 --max-plies 10 \
             --depth 6 --max-score 30 --seed 5 --eval-file embedded`"
        ));
        let read = bashni_host::openings::parse_openings(Variant::Lasca, &text).unwrap();
        assert_eq!(read, book);
    }

    #[test]
    fn an_eval_file_that_does_not_load_is_named_in_the_error() {
        let args = args(&["--eval-file", "/nonexistent/net.nnue"]);
        let error = format!("{:#}", make_book(&args).unwrap_err());
        assert!(error.contains("--eval-file"), "{error}");
        assert!(error.contains("/nonexistent/net.nnue"), "{error}");
    }
}
