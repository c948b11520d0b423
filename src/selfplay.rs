//! Self-play: the engine against itself at a fixed node count per move,
//! for training data (quiet positions labelled with the game's result,
//! docs/tuning.md), and the big opening books, made with a shallow search.
//!
//! One search thread per game and a fresh table per game make every game a
//! function of its index and the seed, so a run is reproducible and can be
//! resumed: games already in the output file are skipped. A resumed run,
//! or one with a larger `--games` and otherwise the same command, leaves
//! the file as one run would (one origin line, naming the larger count).
//! The lines of the data file are [`record`]'s.

pub mod merge;
pub mod record;

use anyhow::{Context, bail};
use bashni_engine::nnue::Network;
use bashni_engine::protocol::{EMBEDDED, load_eval_file};
use bashni_engine::search::{Config, Limits, Searcher, is_mate_score};
use bashni_engine::tt::{LockFreeTable, Table};
use bashni_rules::{DrawRules, Game, GameEnd, Position, RuleSet, Variant};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;
use record::{DataLine, SelfplayRecord, origin_line};
use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// `bashni selfplay`.
#[derive(clap::Args, Debug)]
pub struct SelfplayArgs {
    /// The game to play.
    #[arg(long, default_value = "bashni")]
    pub variant: Variant,
    /// Games to play (game indices 0..games).
    #[arg(long, default_value_t = 1000)]
    pub games: u64,
    /// Nodes searched per move.
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: u64,
    /// Opening book (one position per line, `#` comments); the start
    /// position when not given.
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// Uniformly random plies played after the opening.
    #[arg(long, default_value_t = 2)]
    pub random_plies: u32,
    /// Positions this many plies or fewer into the game are not written.
    #[arg(long, default_value_t = 8)]
    pub skip_plies: u32,
    /// Seeds the random openings and plies (with each game's index).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output file; appended to, and the games the same command wrote in
    /// it are skipped (a run with more games than the file's extends it).
    /// A file that is not self-play data is refused, left as it is.
    #[arg(long)]
    pub out: PathBuf,
    /// Games played at once (one search thread each).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub threads: u64,
    /// Hash per game in MiB.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub hash: u64,
    /// A game this long is a draw (Lasca's own rules know no draw), and
    /// a position occurring three times draws in either variant.
    #[arg(long, default_value_t = 300)]
    pub max_plies: u32,
    /// No progress bar (for logs).
    #[arg(long)]
    pub quiet: bool,
    /// The evaluation both sides play with, as the engine's `EvalFile`:
    /// `embedded` (the built-in network, the engine's default), `linear`,
    /// or a network file. A network's own games are data for its
    /// successor.
    #[arg(long, default_value = EMBEDDED)]
    pub eval_file: String,
    /// Play only slice K of N of the games (`--shard 2/8`): game indices
    /// are dealt out in turn (index % N == K - 1), so shards are disjoint,
    /// each game is the one a whole run plays, and `bashni merge-data`
    /// joins the shards' files.
    #[arg(long, value_parser = parse_shard)]
    pub shard: Option<(u64, u64)>,
}

/// `K/N` with 1 <= K <= N.
pub(crate) fn parse_shard(text: &str) -> Result<(u64, u64), String> {
    let bad = || format!("shard '{text}' is not K/N with 1 <= K <= N");
    let (k, n) = text.split_once('/').ok_or_else(bad)?;
    let (k, n): (u64, u64) = (k.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
    if k == 0 || k > n {
        return Err(bad());
    }
    Ok((k, n))
}

/// Whether game `index` is in the shard (every game without one).
pub(crate) fn in_shard(shard: Option<(u64, u64)>, index: u64) -> bool {
    shard.is_none_or(|(k, n)| index % n == k - 1)
}

/// A small, well-mixed random stream for game `index` of a run seeded
/// with `seed`: every game gets its own, whatever order games run in.
pub(crate) fn game_rng(seed: u64, index: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// One finished game: its result from White's view and the positions to
/// write.
pub struct PlayedGame {
    /// 1, 0.5 or 0.
    pub white_result: f64,
    /// Plies played from the opening position on.
    pub plies: usize,
    /// Quiet positions met in the game.
    pub positions: Vec<Position>,
    /// The search's score of each of `positions`, from White's view.
    pub scores: Vec<i32>,
}

/// Play game `index`: an opening from `openings` (or the start), a few
/// random plies, then the engine at `nodes` per move for both sides. A
/// search that finds a forced win ends the game as won.
pub fn play_game(
    variant: Variant,
    openings: &[String],
    index: u64,
    args: &SelfplayArgs,
    network: Option<&Arc<Network>>,
    tt: &LockFreeTable,
) -> anyhow::Result<PlayedGame> {
    let rules = selfplay_rules(variant, args.max_plies);
    let mut rng = game_rng(args.seed, index);
    let mut game = match openings.len() {
        0 => Game::new(rules),
        n => {
            let fen = &openings[rng.random_range(0..n)];
            Game::from_fen(rules, fen).map_err(|e| anyhow::anyhow!("opening '{fen}': {e}"))?
        }
    };
    for _ in 0..args.random_plies {
        let moves = game.position().legal_moves();
        if moves.is_empty() {
            break;
        }
        game.play(&moves[rng.random_range(0..moves.len())]);
    }
    tt.clear();
    let config = Config {
        draw_rules: rules.draw,
        network: network.cloned(),
        ..Config::default()
    };
    let limits = Limits {
        nodes: Some(args.nodes),
        ..Limits::default()
    };
    let searcher = Searcher::new(tt, config);
    let mut positions = Vec::new();
    let mut scores = Vec::new();
    let white_result = loop {
        if let Some(end) = game.result() {
            break result_for_white(end);
        }
        let pos = game.position();
        let keys = game.repetition_keys();
        let outcome = searcher.search(pos, keys, &limits, &mut |_| {});
        let Some(best) = outcome.best else {
            bail!("game {index}: no move in {}", pos.to_fen());
        };
        if is_mate_score(outcome.score) {
            let mover_wins = outcome.score > 0;
            break if mover_wins == (pos.side_to_move() == bashni_rules::Colour::White) {
                1.0
            } else {
                0.0
            };
        }
        if game.moves().len() > args.skip_plies as usize && is_quiet(pos) {
            positions.push(pos.clone());
            let white = pos.side_to_move() == bashni_rules::Colour::White;
            scores.push(if white { outcome.score } else { -outcome.score });
        }
        game.play(&best);
    };
    Ok(PlayedGame {
        white_result,
        plies: game.moves().len(),
        positions,
        scores,
    })
}

/// The variant's rules with a ply limit and threefold repetition added, so
/// every game ends.
fn selfplay_rules(variant: Variant, max_plies: u32) -> RuleSet {
    let own = RuleSet::new(variant);
    let draw = DrawRules {
        max_plies: match own.draw.max_plies {
            0 => max_plies,
            own => own.min(max_plies),
        },
        repetitions: 3,
        ..own.draw
    };
    own.with_draw_rules(draw)
}

/// No capture pending: the static evaluation means what it says.
fn is_quiet(pos: &Position) -> bool {
    !pos.has_capture()
}

fn result_for_white(end: GameEnd) -> f64 {
    match end.winner() {
        Some(bashni_rules::Colour::White) => 1.0,
        Some(bashni_rules::Colour::Black) => 0.0,
        None => 0.5,
    }
}

/// The text of one game for the data file: a [`SelfplayRecord`] line per
/// position and the closing [`record::GameEnd`] marker that says the game
/// is complete.
pub fn game_block(variant: Variant, index: u64, game: &PlayedGame) -> String {
    let mut block = String::new();
    for (position, &score) in game.positions.iter().zip(&game.scores) {
        let record = SelfplayRecord {
            position: position.clone(),
            result: game.white_result,
            game: index,
            score: Some(score),
        };
        block.push_str(&format!("{record}\n"));
    }
    let end = record::GameEnd {
        game: index,
        variant,
        result: game.white_result,
        plies: game.plies,
        positions: game.positions.len(),
    };
    block.push_str(&format!("{end}\n"));
    block
}

/// What a data file already holds: its complete games, each with the
/// command of the origin line above it, and the commands its origin
/// lines name.
#[derive(Debug, Default)]
struct Existing {
    games: Vec<(u64, Option<String>)>,
    origins: Vec<String>,
}

impl Existing {
    /// The games this run need not play: those a command of the same
    /// shape wrote (another variant's or seed's game 3 is another game).
    fn done_by(&self, args: &SelfplayArgs) -> HashSet<u64> {
        let (shape, _) = game_shape(&command_line(args, args.games));
        let same =
            |origin: &Option<String>| origin.as_deref().is_some_and(|o| game_shape(o).0 == shape);
        (self.games.iter())
            .filter(|(_, origin)| same(origin))
            .map(|(game, _)| *game)
            .collect()
    }
}

/// Read a data file for resuming. A block cut short by an interrupted
/// write (after the last marker) is cut off the file; a file with a
/// line that is no self-play data is refused, never cut.
fn read_existing(path: &Path) -> anyhow::Result<Existing> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Ok(Existing::default());
    };
    let mut existing = Existing::default();
    let mut complete_len = 0;
    let mut offset = 0;
    for (index, line) in text.split_inclusive('\n').enumerate() {
        offset += line.len();
        if !line.ends_with('\n') {
            break; // the torn end of a write
        }
        let data = record::parse_numbered(index, line.trim_end()).with_context(|| {
            format!(
                "{} is not self-play data, so nothing is added to it: choose another --out",
                path.display()
            )
        })?;
        match data {
            DataLine::Origin(command) => existing.origins.push(command),
            DataLine::GameEnd(end) => {
                existing
                    .games
                    .push((end.game, existing.origins.last().cloned()));
                complete_len = offset;
            }
            DataLine::Record(_) | DataLine::Comment => {}
        }
    }
    if complete_len < text.len() {
        let file = OpenOptions::new().write(true).open(path)?;
        file.set_len(complete_len as u64)?;
    }
    Ok(existing)
}

/// A self-play command without its `--games` and `--out` (which do not
/// change any game: a game is a function of its index and the rest),
/// and its `--games`.
fn game_shape(command: &str) -> (String, Option<u64>) {
    let command = command.split(" --out ").next().unwrap_or(command);
    let mut words = command.split(' ');
    let (mut shape, mut games) = (Vec::new(), None);
    while let Some(word) = words.next() {
        match word {
            "--games" => games = words.next().and_then(|n| n.parse().ok()),
            _ => shape.push(word),
        }
    }
    (shape.join(" "), games)
}

/// The origin line that a fresh run would put on top of the file, when
/// every origin already in it names this run but for `--games`: games
/// are seeded by index, so a resumed or extended run then holds what one
/// run of the largest `--games` writes, and says so. `None` when another
/// command wrote some of the games (its origin line is kept, and this
/// run's is added after it).
fn single_origin(args: &SelfplayArgs, existing: &Existing) -> Option<String> {
    if existing.origins.is_empty() && !existing.games.is_empty() {
        return None; // games of an unknown command
    }
    let (shape, _) = game_shape(&command_line(args, args.games));
    let mut games = args.games;
    for origin in &existing.origins {
        let (other, other_games) = game_shape(origin);
        if other != shape {
            return None;
        }
        games = games.max(other_games?);
    }
    Some(origin_line(&command_line(args, games)))
}

/// Put `origin` alone on top of the file (the games stay in order), via
/// a temporary file renamed over it so an interrupt loses nothing.
fn set_single_origin(path: &Path, origin: &str) -> anyhow::Result<()> {
    let text = match std::fs::read_to_string(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        read => read.with_context(|| format!("cannot read {}", path.display()))?,
    };
    let mut new = format!("{origin}\n");
    for line in text.split_inclusive('\n') {
        if record::origin_command(line.trim_end()).is_none() {
            new.push_str(line);
        }
    }
    if new == text {
        return Ok(());
    }
    let temp = path.with_extension("origin-tmp");
    std::fs::write(&temp, new).with_context(|| format!("cannot write {}", path.display()))?;
    std::fs::rename(&temp, path).with_context(|| format!("cannot replace {}", path.display()))?;
    Ok(())
}

/// Read an opening book: the position strings, comments and blanks skipped.
pub fn read_book(variant: Variant, path: &Path) -> anyhow::Result<Vec<String>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read openings {}", path.display()))?;
    bashni_host::openings::parse_openings(variant, &text)
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}

/// The output file, open for appending, with origin lines that name the
/// command(s) that wrote its games (`train` and `tune` record them).
fn open_output(args: &SelfplayArgs, existing: &Existing, adding: bool) -> anyhow::Result<File> {
    let single = single_origin(args, existing);
    if let Some(origin) = &single {
        set_single_origin(&args.out, origin)?;
    }
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&args.out)
        .with_context(|| format!("cannot open {}", args.out.display()))?;
    if single.is_none() && adding {
        writeln!(&file, "{}", origin_line(&command_line(args, args.games)))?;
    }
    Ok(file)
}

/// `bashni selfplay`: play the games not yet in the output file, rayon
/// across games, appending each game whole as it ends.
pub fn run(args: SelfplayArgs) -> anyhow::Result<()> {
    let openings = match &args.openings {
        Some(path) => read_book(args.variant, path)?,
        None => Vec::new(),
    };
    let network = load_eval_file(&args.eval_file, args.variant).context("--eval-file")?;
    let existing = read_existing(&args.out)?;
    let done = &existing.done_by(&args);
    let todo: Vec<u64> = (0..args.games)
        .filter(|&i| in_shard(args.shard, i) && !done.contains(&i))
        .collect();
    let out = Mutex::new(open_output(&args, &existing, !todo.is_empty())?);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads as usize)
        .build()?;
    let bar = crate::progress_bar(todo.len() as u64, "games", args.quiet);
    let written = AtomicU64::new(0);
    let start = Instant::now();
    pool.install(|| {
        todo.par_iter().try_for_each_init(
            || LockFreeTable::with_megabytes(args.hash as usize),
            |tt, &index| -> anyhow::Result<()> {
                let game = play_game(args.variant, &openings, index, &args, network.as_ref(), tt)?;
                let block = game_block(args.variant, index, &game);
                write_block(&out, &block)?;
                let total = written.fetch_add(game.positions.len() as u64, Ordering::Relaxed)
                    + game.positions.len() as u64;
                bar.inc(1);
                bar.set_message(format!("{total} positions"));
                Ok(())
            },
        )
    })?;
    bar.finish();
    let secs = start.elapsed().as_secs_f64().max(1e-3);
    let positions = written.load(Ordering::Relaxed);
    println!(
        "{} games ({} already done), {positions} positions in {secs:.1} s: {:.0} positions/s, {:.2} games/s",
        todo.len(),
        done.len(),
        positions as f64 / secs,
        todo.len() as f64 / secs
    );
    Ok(())
}

/// The command that plays these games again, as a run of `games` games
/// (the flags that shape them; `--threads` and `--quiet` do not).
pub fn command_line(args: &SelfplayArgs, games: u64) -> String {
    let openings = match &args.openings {
        Some(path) => format!(" --openings {}", path.display()),
        None => String::new(),
    };
    let shard = match args.shard {
        Some((k, n)) => format!(" --shard {k}/{n}"),
        None => String::new(),
    };
    format!(
        "bashni selfplay --variant {} --games {} --nodes {}{openings} --random-plies {} \
         --skip-plies {} --seed {} --hash {} --max-plies {}{shard} --eval-file {} --out {}",
        args.variant,
        games,
        args.nodes,
        args.random_plies,
        args.skip_plies,
        args.seed,
        args.hash,
        args.max_plies,
        args.eval_file,
        args.out.display()
    )
}

/// Append one whole game and flush, so an interrupt loses at most the
/// game being written (cut off on resume).
fn write_block(out: &Mutex<File>, block: &str) -> anyhow::Result<()> {
    let mut file = out.lock().unwrap_or_else(|e| e.into_inner());
    file.write_all(block.as_bytes())?;
    file.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(extra: &[&str]) -> SelfplayArgs {
        let mut argv = vec!["selfplay", "--out", "unused", "--nodes", "300"];
        argv.extend_from_slice(extra);
        crate::parse_args(&argv)
    }

    #[test]
    fn games_are_reproducible_and_write_only_quiet_later_positions() {
        let args = args(&["--skip-plies", "4", "--variant", "lasca"]);
        let tt = LockFreeTable::with_megabytes(1);
        let book = vec![Variant::Lasca.start_fen().to_string()];
        let first = play_game(Variant::Lasca, &book, 3, &args, None, &tt).unwrap();
        let again = play_game(Variant::Lasca, &book, 3, &args, None, &tt).unwrap();
        assert_eq!(first.positions, again.positions);
        assert_eq!(first.white_result, again.white_result);
        let other = play_game(Variant::Lasca, &book, 4, &args, None, &tt).unwrap();
        assert_ne!(first.positions, other.positions, "games differ by index");
        assert!(!first.positions.is_empty());
        for pos in &first.positions {
            assert_eq!(pos.variant(), Variant::Lasca);
            assert!(!pos.has_capture(), "{pos:?}");
            assert!(pos.game_ply() > 4, "{pos:?}");
        }
    }

    #[test]
    fn resuming_keeps_complete_games_and_cuts_a_torn_one() {
        let path = std::env::temp_dir().join(format!("bashni-selfplay-{}.txt", std::process::id()));
        let game = PlayedGame {
            white_result: 0.5,
            plies: 10,
            positions: vec![
                Position::from_fen(&RuleSet::new(Variant::Bashni), "W:c3w,f6b 0 1").unwrap(),
            ],
            scores: vec![12],
        };
        let whole = game_block(Variant::Bashni, 0, &game) + &game_block(Variant::Bashni, 2, &game);
        let torn = &game_block(Variant::Bashni, 5, &game)[..10];
        std::fs::write(&path, format!("{whole}{torn}")).unwrap();
        let existing = read_existing(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        let games: Vec<u64> = existing.games.iter().map(|(game, _)| *game).collect();
        assert_eq!(games, [0, 2]);
        assert_eq!(text, whole, "the torn game is cut off");
        assert!(whole.starts_with("W:c3w,f6b 0 1\t0.5\tbashni\t0\t12\n# game 0 "));
    }

    /// Self-play `games` games of the Lasca start into `path`.
    fn play_into(path: &Path, games: &str, seed: &str) {
        let out = path.to_str().unwrap();
        let argv = ["--variant", "lasca", "--games", games, "--seed", seed];
        let mut args = args(&[&argv[..], &["--threads", "1", "--quiet"]].concat());
        args.out = out.into();
        args.nodes = 60;
        run(args).unwrap();
    }

    #[test]
    fn a_network_plays_its_own_games_and_the_origin_names_it() {
        let args = args(&["--variant", "lasca", "--eval-file", "embedded"]);
        let network = load_eval_file("embedded", Variant::Lasca).unwrap();
        assert!(network.is_some(), "the build carries a Lasca network");
        let tt = LockFreeTable::with_megabytes(1);
        let book = vec![Variant::Lasca.start_fen().to_string()];
        let linear = play_game(Variant::Lasca, &book, 3, &args, None, &tt).unwrap();
        let learned = play_game(Variant::Lasca, &book, 3, &args, network.as_ref(), &tt).unwrap();
        assert_ne!(
            linear.scores, learned.scores,
            "the scores are the network's"
        );
        assert!(command_line(&args, 5).contains(" --eval-file embedded --out "));
    }

    #[test]
    fn an_eval_file_that_does_not_load_stops_the_run_before_any_game() {
        let dir = std::env::temp_dir().join(format!("bashni-sp-net-{}", std::process::id()));
        let mut args = args(&["--variant", "lasca", "--eval-file", "/nonexistent/net.nnue"]);
        args.out = dir.join("data.txt");
        let error = format!("{:#}", run(args).unwrap_err());
        assert!(error.contains("--eval-file"), "{error}");
        assert!(error.contains("/nonexistent/net.nnue"), "{error}");
        assert!(!dir.exists(), "nothing was written");
    }

    #[test]
    fn extending_a_run_writes_what_one_longer_run_writes() {
        let path = std::env::temp_dir().join(format!("bashni-extend-{}.txt", std::process::id()));
        play_into(&path, "5", "7");
        let fresh = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        play_into(&path, "2", "7");
        play_into(&path, "5", "7");
        let extended = std::fs::read_to_string(&path).unwrap();
        play_into(&path, "3", "7"); // asks for fewer: nothing changes
        let again = std::fs::read_to_string(&path).unwrap();
        play_into(&path, "6", "8"); // another seed: its own origin line
        let mixed = std::fs::read_to_string(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        assert_eq!(extended, fresh);
        assert_eq!(again, fresh);
        assert!(fresh.starts_with("# made by: bashni selfplay --variant lasca --games 5 "));
        assert_eq!(fresh.matches("# made by").count(), 1);
        assert_eq!(fresh.matches("\n# game ").count(), 5);
        let origins: Vec<&str> = mixed
            .lines()
            .filter(|l| l.starts_with("# made by"))
            .collect();
        assert_eq!(origins.len(), 2, "{origins:?}");
        assert!(origins[1].contains("--games 6 ") && origins[1].contains("--seed 8 "));
        assert!(mixed.starts_with(&fresh), "the first run's games are kept");
        assert_eq!(
            mixed.matches("\n# game ").count(),
            11,
            "another seed's games 0 to 4 are other games, all six played"
        );
    }

    #[test]
    fn a_file_that_is_not_self_play_data_is_refused_and_kept() {
        let path = std::env::temp_dir().join(format!("bashni-notes-{}.txt", std::process::id()));
        let notes = "my important notes\nline two\n";
        std::fs::write(&path, notes).unwrap();
        let mut args = args(&["--games", "1", "--quiet"]);
        args.out = path.clone();
        let error = format!("{:#}", run(args).unwrap_err());
        let kept = std::fs::read_to_string(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        assert_eq!(kept, notes, "nothing cut, nothing added");
        assert!(error.contains("is not self-play data"), "{error}");
        assert!(error.contains("line 1"), "{error}");
    }
}
