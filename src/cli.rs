//! The command line: the engine on stdin/stdout by default, and
//! subcommands for people and scripts.

use bashni_engine::bench;
use bashni_engine::perft::{divide_parallel, perft_parallel};
use bashni_engine::search::{DEFAULT_HASH_MB, MAX_DEPTH};
use bashni_engine::tt::{DashMapTable, LockFreeTable};
use bashni_rules::{KingLanding, Position, RuleSet, Variant};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::time::Instant;

#[derive(Parser, Debug)]
#[command(
    name = "bashni",
    version,
    about = "An engine for column draughts (Bashni and Lasca)",
    after_help = "With no subcommand, bashni starts the engine protocol on stdin/stdout."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Count the leaves of the legal move tree (draw rules ignored).
    Perft {
        /// Depth in plies.
        #[arg(value_parser = clap::value_parser!(u32).range(0..=64))]
        depth: u32,
        #[arg(long, default_value = "bashni")]
        variant: Variant,
        #[arg(long, default_value = "continue")]
        king_landing: KingLanding,
        /// Whether a side that can capture must (`false`: plain moves are
        /// legal beside captures).
        #[arg(long, default_value_t = true, action = clap::ArgAction::Set,
            value_parser = clap::builder::BoolishValueParser::new())]
        forced_capture: bool,
        /// A position string; the start position by default.
        #[arg(long)]
        fen: Option<String>,
        /// One line per root move, sorted by move text.
        #[arg(long)]
        divide: bool,
        /// Share the root moves out over this many threads.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
        threads: u32,
    },
    /// Search the built-in bench positions to a fixed depth (the
    /// protocol's `bench` takes the same arguments).
    Bench {
        #[command(flatten)]
        options: BenchArgs,
        /// The transposition table: the engine's lock-free one, or the
        /// DashMap-backed one kept for comparison.
        #[arg(long, value_enum, default_value_t = TableKind::LockFree)]
        tt: TableKind,
    },
    /// Search a file of set positions (EPD-style: `<fen> bm <move>; id "..";`).
    Analyse(crate::analyse::AnalyseArgs),
    /// Play engine-vs-engine games over the protocol.
    Match(crate::tournament::MatchArgs),
    /// Play the engine against itself and write quiet positions with results.
    Selfplay(crate::selfplay::SelfplayArgs),
    /// Join self-play data files (e.g. the shards of `selfplay --shard`)
    /// into one, complete games only, refusing overlapping games.
    MergeData(crate::selfplay::merge::MergeArgs),
    /// Make an opening book of distinct, roughly balanced positions.
    Openings(crate::openings::OpeningsArgs),
    /// Fit the evaluation's weights to self-play data (Texel's method).
    Tune(crate::tune::TuneArgs),
    /// Fit the learned evaluation (a network) to self-play data and
    /// write the network file.
    Train(crate::train::TrainArgs),
    /// Replay the games of a PDN file and write them with the engine's
    /// scores, best moves and `?`/`??` marks.
    Annotate(crate::annotate::AnnotateArgs),
    /// One report (Elo, pentanomial, SPRT, cross table) from PDN files.
    Stats(crate::tournament::merge::StatsArgs),
    /// The play server for one person on this computer, with the same page
    /// (docs/gui.md).
    Gui(crate::gui::GuiArgs),
    /// The play server: lobby, public rooms, engine seats, stored games
    /// (docs/serve.md).
    Serve(crate::serve::ServeArgs),
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum TableKind {
    LockFree,
    Dashmap,
}

/// clap's error as one line, as every other error is: its first line
/// with the lines it lists under it (the arguments missing), up to the
/// blank line before its usage.
fn one_line_error(text: &str) -> String {
    let said: Vec<&str> = (text.lines())
        .take_while(|line| !line.trim().is_empty())
        .map(str::trim)
        .collect();
    match said.is_empty() {
        true => "error: bad command line".to_string(),
        false => said.join(" "),
    }
}

/// Parse the command line and run; returns the process exit code.
pub fn run() -> i32 {
    // A negative number is a value, so that its option's parser names
    // the option ("invalid value '-1' for '--games <GAMES>'"), not an
    // unknown argument '-1'.
    let command = Cli::command().mut_subcommands(|sub| sub.allow_negative_numbers(true));
    let parsed = command
        .try_get_matches()
        .and_then(|matches| Cli::from_arg_matches(&matches));
    let cli = match parsed {
        Ok(cli) => cli,
        // Help and version go to stdout as clap prints them.
        Err(e) if !e.use_stderr() => e.exit(),
        Err(e) => {
            eprintln!("{}", one_line_error(&e.to_string()));
            return 2;
        }
    };
    let result = match cli.command {
        None => return bashni_engine::protocol::run_stdio(),
        Some(Command::Bench { options, tt }) => run_bench(&options, tt),
        Some(Command::Perft {
            depth,
            variant,
            king_landing,
            forced_capture,
            fen,
            divide,
            threads,
        }) => run_perft(
            depth,
            RuleSet::new(variant)
                .with_king_landing(king_landing)
                .with_forced_capture(forced_capture),
            fen.as_deref(),
            divide,
            threads as usize,
        ),
        Some(Command::Analyse(args)) => crate::analyse::run(args),
        Some(Command::Match(args)) => crate::tournament::run_match(args),
        Some(Command::Selfplay(args)) => crate::selfplay::run(args),
        Some(Command::Openings(args)) => crate::openings::run(args),
        Some(Command::Tune(args)) => crate::tune::run(args),
        Some(Command::Train(args)) => crate::train::run(args),
        Some(Command::MergeData(args)) => crate::selfplay::merge::run(args),
        Some(Command::Stats(args)) => crate::tournament::merge::run(args),
        Some(Command::Annotate(args)) => crate::annotate::run(args),
        Some(Command::Gui(args)) => crate::gui::run(args),
        Some(Command::Serve(args)) => crate::serve::run(args),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e:#}");
            2
        }
    }
}

/// Build a position for a subcommand from an optional FEN.
pub fn setup_position(rules: &RuleSet, fen: Option<&str>) -> anyhow::Result<Position> {
    match fen {
        Some(fen) => {
            Position::from_fen(rules, fen).map_err(|e| anyhow::anyhow!("bad position '{fen}': {e}"))
        }
        None => Ok(Position::start(rules)),
    }
}

/// The arguments of `bench`, with the ranges the protocol's `bench` checks.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Search threads.
    #[arg(long, default_value_t = 1,
        value_parser = clap::value_parser!(u32).range(bench::THREADS.0 as i64..=bench::THREADS.1 as i64))]
    threads: u32,
    /// Depth searched per position.
    #[arg(long, default_value_t = bench::DEFAULT_DEPTH,
        value_parser = clap::value_parser!(u32).range(1..=MAX_DEPTH as i64))]
    depth: u32,
    /// Hash size in MiB (the engine's default).
    #[arg(long = "hash", default_value_t = DEFAULT_HASH_MB as u32,
        value_parser = clap::value_parser!(u32).range(bench::HASH_MB.0 as i64..=bench::HASH_MB.1 as i64))]
    hash_mb: u32,
    /// Without it every position is searched with the default evaluation
    /// (its variant's built-in network); `linear` alone: with the linear
    /// one. A network file, or `embedded` for the built-in networks (may
    /// be given once per variant): only the positions of a variant with a
    /// network are searched, each with the linear evaluation and with the
    /// network, and both speeds are printed.
    #[arg(long = "eval-file")]
    eval_files: Vec<String>,
    /// Search the positions of this opening book (as `match --openings`
    /// reads it) instead of the built-in ones.
    #[arg(long)]
    book: Option<std::path::PathBuf>,
    /// The book's variant (with `--book`).
    #[arg(long)]
    variant: Option<Variant>,
    /// Only the book's first N positions (with `--book`).
    #[arg(long)]
    count: Option<usize>,
}

/// The positions of `--book`, if given: the first `--count` of them.
fn bench_book(args: &BenchArgs) -> anyhow::Result<Option<Vec<(Variant, Position)>>> {
    let (path, variant) = match (&args.book, args.variant) {
        (Some(path), Some(variant)) => (path, variant),
        (Some(_), None) => anyhow::bail!("--book needs --variant (the book's variant)"),
        (None, _) if args.variant.is_some() || args.count.is_some() => {
            anyhow::bail!("--variant and --count choose from a --book")
        }
        (None, _) => return Ok(None),
    };
    let rules = RuleSet::new(variant);
    let book = crate::selfplay::read_book(variant, path)?;
    let count = args.count.unwrap_or(book.len());
    book.iter()
        .take(count)
        .map(|fen| Ok((variant, Position::from_fen(&rules, fen)?)))
        .collect::<anyhow::Result<_>>()
        .map(Some)
}

fn run_bench(args: &BenchArgs, tt: TableKind) -> anyhow::Result<()> {
    let options = bench::BenchOptions {
        threads: args.threads,
        depth: args.depth,
        hash_mb: args.hash_mb,
        eval_files: args.eval_files.clone(),
        positions: bench_book(args)?,
    };
    let report = match tt {
        TableKind::LockFree => bench::run_with::<LockFreeTable>(&options)?,
        TableKind::Dashmap => bench::run_with::<DashMapTable>(&options)?,
    };
    report
        .lines
        .iter()
        .for_each(|l| bashni_engine::outln!("{l}"));
    Ok(())
}

fn run_perft(
    depth: u32,
    rules: RuleSet,
    fen: Option<&str>,
    show_divide: bool,
    threads: usize,
) -> anyhow::Result<()> {
    let pos = setup_position(&rules, fen)?;
    let start = Instant::now();
    let total = if show_divide {
        let lines = divide_parallel(&pos, depth, threads);
        for (mv, count) in &lines {
            bashni_engine::outln!("{mv}: {count}");
        }
        lines.iter().map(|(_, n)| n).sum()
    } else {
        perft_parallel(&pos, depth, threads)
    };
    let secs = start.elapsed().as_secs_f64();
    bashni_engine::outln!("Nodes searched: {total}");
    bashni_engine::outln!(
        "Time: {:.3} s, {:.1} Mnps",
        secs,
        total as f64 / secs.max(1e-9) / 1e6
    );
    Ok(())
}
