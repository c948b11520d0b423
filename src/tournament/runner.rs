//! The match: the schedule, the worker threads that play games in parallel,
//! the running score, the PDN file and the final report.
//!
//! Each worker owns one pair of engine processes and reuses them from game
//! to game (`ucinewgame`); an engine that failed is dropped (killed) and a
//! fresh one started for the worker's next game.

use super::adjudication::Adjudication;
use super::engine::HANDSHAKE_TIMEOUT;
use super::engine::{Engine, EngineFailure};
use super::game::{GameOutcome, GameResult, GameSettings, SearchLimit, Termination, play_game};
use super::openings::{order, parse_openings};
use super::pdn::{PdnGame, today};
use super::stats::{Sprt, SprtDecision, Wdl, elo_estimate};
use super::{EngineSpec, MatchOptions, TimeControl};
use crate::rules::{Colour, DrawRules, KingLanding};
use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressStyle};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

/// Default draw adjudication by ply count for Lasca, whose own rules have
/// none; a few times a normal game's length.
const LASCA_MAX_PLIES: u32 = 300;
/// Default `--timeout-ms` for `--depth` and `--nodes`.
const FIXED_WORK_TIMEOUT: Duration = Duration::from_secs(60);

/// What every worker needs to know; read-only.
struct Plan {
    engines: [EngineSpec; 2],
    /// `setoption` lines per engine, in the order sent.
    setup: [Vec<String>; 2],
    openings: Vec<String>,
    opening_order: Vec<usize>,
    games_per_round: u32,
    total_games: usize,
    settings: GameSettings,
    limit_text: String,
    sprt: Option<Sprt>,
    /// The limit on the engines' `uciok` and `readyok`.
    handshake: Duration,
}

impl Plan {
    fn from_args(args: MatchOptions) -> anyhow::Result<Plan> {
        let [first, second]: [EngineSpec; 2] =
            args.engines.try_into().map_err(|given: Vec<EngineSpec>| {
                anyhow::anyhow!("a match needs exactly two --engine, got {}", given.len())
            })?;
        let mut engines = [first, second];
        if engines[0].name == engines[1].name {
            for (i, engine) in engines.iter_mut().enumerate() {
                engine.name = format!("{}-{}", engine.name, i + 1);
            }
        }

        let variant = args.variant;
        let openings = match &args.openings {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("cannot read openings '{}'", path.display()))?;
                parse_openings(variant, &text)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?
            }
            None => vec![variant.start_fen().to_string()],
        };
        let opening_order = order(openings.len(), args.seed);

        let limit = if let Some(ms) = args.movetime {
            SearchLimit::MoveTime(ms)
        } else if let Some(depth) = args.depth {
            SearchLimit::Depth(depth)
        } else if let Some(nodes) = args.nodes {
            SearchLimit::Nodes(nodes)
        } else {
            SearchLimit::Clock(args.tc.unwrap_or(TimeControl {
                moves: 0,
                base_ms: 10_000,
                increment_ms: 100,
            }))
        };
        let hang_timeout = match (args.timeout_ms, limit) {
            (Some(ms), _) => Duration::from_millis(ms),
            (None, SearchLimit::MoveTime(ms)) => Duration::from_millis(2 * ms + 5_000),
            (None, _) => FIXED_WORK_TIMEOUT,
        };
        let limit_text = match limit {
            SearchLimit::Clock(tc) => format!("tc {tc}"),
            SearchLimit::MoveTime(ms) => format!("movetime {ms}"),
            SearchLimit::Depth(d) => format!("depth {d}"),
            SearchLimit::Nodes(n) => format!("nodes {n}"),
        };
        // The variant's own draw rules; Lasca has none, so the runner sets
        // a ply limit of its own.
        let rules = DrawRules::for_variant(variant);
        let default_max_plies = match rules.max_plies {
            0 => LASCA_MAX_PLIES,
            plies => plies,
        };
        let no_progress_plies = rules.no_progress_plies;

        // The variant first: setting it resets the draw options.
        let mut common = vec![format!("setoption name UCI_Variant value {variant}")];
        if let Some(rule) = args.king_landing {
            common.push(format!("setoption name KingLanding value {rule}"));
        }
        if let Some(plies) = args.max_plies {
            common.push(format!("setoption name MaxPlies value {plies}"));
        }
        let setup = engines.clone().map(|spec| {
            let mut lines = common.clone();
            lines.extend(
                spec.options
                    .iter()
                    .map(|(name, value)| format!("setoption name {name} value {value}")),
            );
            lines
        });

        let total_games = args.games as usize * args.rounds as usize;
        Ok(Plan {
            engines,
            setup,
            openings,
            opening_order,
            games_per_round: args.games,
            total_games,
            settings: GameSettings {
                variant,
                king_landing: args.king_landing.unwrap_or_default(),
                limit,
                max_plies: args.max_plies.unwrap_or(default_max_plies),
                no_progress_plies,
                hang_timeout,
                time_margin: Duration::from_millis(args.time_margin_ms),
                adjudication: Adjudication {
                    resign: args.resign,
                    draw: args.draw,
                },
            },
            limit_text,
            sprt: args.sprt,
            handshake: args
                .timeout_ms
                .map_or(HANDSHAKE_TIMEOUT, Duration::from_millis),
        })
    }

    /// The opening of game `index`: each opening serves two games in a row.
    fn opening(&self, index: usize) -> (usize, &str) {
        let slot = self.opening_order[(index / 2) % self.openings.len()];
        (slot, &self.openings[slot])
    }

    /// The first engine has White in even games.
    fn first_is_white(index: usize) -> bool {
        index.is_multiple_of(2)
    }

    fn round_tag(&self, index: usize) -> String {
        let per_round = self.games_per_round as usize;
        format!("{}.{}", index / per_round + 1, index % per_round + 1)
    }
}

/// The running totals, shared by the workers.
#[derive(Default)]
struct Tally {
    wdl: Wdl,
    terminations: BTreeMap<String, u32>,
    finished: usize,
    /// The SPRT's verdict and the game count when it first came; games
    /// already running then still finish and count, but do not undo it.
    decided: Option<(SprtDecision, usize)>,
}

/// A finished game as the runner records it.
struct Record {
    index: usize,
    opening: usize,
    first_is_white: bool,
    outcome: GameOutcome,
}

impl Record {
    /// The first engine's point of view: Some(true) a win, Some(false) a
    /// loss, None a draw.
    fn first_won(&self) -> Option<bool> {
        match self.outcome.result {
            GameResult::Draw => None,
            GameResult::WhiteWins => Some(self.first_is_white),
            GameResult::BlackWins => Some(!self.first_is_white),
        }
    }
}

/// Run the whole match and print its report on stdout.
pub fn run(args: MatchOptions) -> anyhow::Result<()> {
    let pdn_path = args.pdn.clone();
    let concurrency = args.concurrency as usize;
    let plan = Plan::from_args(args)?;

    // Fail early and plainly on an engine that cannot even start.
    for (spec, setup) in plan.engines.iter().zip(&plan.setup) {
        Engine::start(spec, setup, plan.handshake)
            .map_err(|e| anyhow::anyhow!("engine '{}' {e}", spec.name))?;
    }
    let pdn = match &pdn_path {
        Some(path) => Some(
            File::options()
                .create(true)
                .append(true)
                .open(path)
                .with_context(|| format!("cannot open PDN file '{}'", path.display()))?,
        ),
        None => None,
    };

    let [first, second] = [&plan.engines[0].name, &plan.engines[1].name];
    println!(
        "Match {first} vs {second}: {} games, {}, {}, {} opening(s), concurrency {concurrency}",
        plan.total_games,
        plan.settings.variant,
        plan.limit_text,
        plan.openings.len()
    );
    let bar = ProgressBar::new(plan.total_games as u64);
    if let Ok(style) =
        ProgressStyle::with_template("{bar:30} {pos}/{len} games  {msg}  [{elapsed_precise}]")
    {
        bar.set_style(style);
    }

    let shared = Shared {
        plan: &plan,
        tally: Mutex::new(Tally::default()),
        pdn: Mutex::new(pdn),
        next_game: AtomicUsize::new(0),
        stop: AtomicBool::new(false),
        failure: Mutex::new(None),
        bar,
        date: today(),
    };
    std::thread::scope(|scope| {
        for _ in 0..concurrency.min(plan.total_games) {
            scope.spawn(|| shared.work());
        }
    });
    shared.bar.finish_and_clear();

    if let Some(e) = lock(&shared.failure).take() {
        return Err(e);
    }
    print_report(&plan, &lock(&shared.tally), pdn_path.as_deref());
    Ok(())
}

/// What the worker threads share.
struct Shared<'a> {
    plan: &'a Plan,
    tally: Mutex<Tally>,
    pdn: Mutex<Option<File>>,
    next_game: AtomicUsize,
    /// No new game starts once set (SPRT decided, or an error).
    stop: AtomicBool,
    failure: Mutex<Option<anyhow::Error>>,
    bar: ProgressBar,
    date: String,
}

impl Shared<'_> {
    /// One worker: take the next game of the schedule until none is left
    /// or the match stops. Its engines die with it.
    fn work(&self) {
        let mut engines: [Option<Engine>; 2] = [None, None];
        while !self.stop.load(Ordering::SeqCst) {
            let index = self.next_game.fetch_add(1, Ordering::SeqCst);
            if index >= self.plan.total_games {
                break;
            }
            match play_scheduled(self.plan, index, &mut engines) {
                Ok(record) => self.record(&record),
                Err(e) => self.fail(e),
            }
        }
    }

    fn fail(&self, error: anyhow::Error) {
        self.stop.store(true, Ordering::SeqCst);
        lock(&self.failure).get_or_insert(error);
    }

    /// Write a finished game to the PDN, count it, show it, and ask the
    /// SPRT whether to go on.
    fn record(&self, record: &Record) {
        let plan = self.plan;
        let pdn_text = pdn_game(plan, record, &self.date).to_pdn();
        if let Some(file) = lock(&self.pdn).as_mut() {
            // One write per game, flushed at once: an interrupted match
            // keeps every finished game.
            if let Err(e) = file
                .write_all(pdn_text.as_bytes())
                .and_then(|()| file.flush())
            {
                self.fail(anyhow::anyhow!("cannot write the PDN file: {e}"));
            }
        }
        let mut t = lock(&self.tally);
        match record.first_won() {
            Some(true) => t.wdl.wins += 1,
            Some(false) => t.wdl.losses += 1,
            None => t.wdl.draws += 1,
        }
        *t.terminations
            .entry(record.outcome.termination.kind())
            .or_insert(0) += 1;
        t.finished += 1;
        let [first, second] = [&plan.engines[0].name, &plan.engines[1].name];
        let (white, black) = if record.first_is_white {
            (first, second)
        } else {
            (second, first)
        };
        self.bar.suspend(|| {
            println!(
                "Finished game {} ({white} vs {black}, opening {}): {} {{{}}}; {}",
                record.index + 1,
                record.opening + 1,
                record.outcome.result.pdn(),
                record.outcome.termination,
                score_line(first, &t.wdl),
            )
        });
        // The message first, so the redraw that `inc` causes shows it.
        self.bar.set_message(score_line(first, &t.wdl));
        self.bar.inc(1);
        if let Some(sprt) = &plan.sprt
            && t.decided.is_none()
        {
            let decision = sprt.decision(&t.wdl);
            if decision != SprtDecision::Continue {
                t.decided = Some((decision, t.finished));
                self.stop.store(true, Ordering::SeqCst);
            }
        }
    }
}

/// Lock a mutex even if another worker panicked while holding it: the
/// totals are plain counters and stay meaningful.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Play game `index` of the schedule with the worker's engines, starting
/// or restarting them as needed.
fn play_scheduled(
    plan: &Plan,
    index: usize,
    engines: &mut [Option<Engine>; 2],
) -> anyhow::Result<Record> {
    let (opening, fen) = plan.opening(index);
    let first_is_white = Plan::first_is_white(index);
    // Engine index of each colour.
    let by_colour = if first_is_white { [0, 1] } else { [1, 0] };
    let record = |outcome| Record {
        index,
        opening,
        first_is_white,
        outcome,
    };

    for colour in [Colour::White, Colour::Black] {
        let e = by_colour[colour.index()];
        let ready = match engines[e].take() {
            Some(mut engine) => engine.new_game().map(|()| engine),
            None => Engine::start(&plan.engines[e], &plan.setup[e], plan.handshake)
                .and_then(|mut engine| engine.new_game().map(|()| engine)),
        };
        match ready {
            Ok(engine) => engines[e] = Some(engine),
            Err(failure) => {
                let name = plan.engines[e].name.clone();
                let termination = match failure {
                    EngineFailure::Crashed(_) => Termination::Crashed(name),
                    EngineFailure::Stalled(_) => Termination::Stalled(name),
                    EngineFailure::Refused(why) => Termination::SetupRefused { engine: name, why },
                };
                let result = match colour {
                    Colour::White => GameResult::BlackWins,
                    Colour::Black => GameResult::WhiteWins,
                };
                return Ok(record(GameOutcome {
                    result,
                    termination,
                    moves: Vec::new(),
                    failed: Some(colour),
                }));
            }
        }
    }

    let [a, b] = engines;
    let (Some(a), Some(b)) = (a.as_mut(), b.as_mut()) else {
        bail!("internal error: an engine vanished");
    };
    let pair = if first_is_white { [a, b] } else { [b, a] };
    let outcome = play_game(pair, fen, &plan.settings)?;
    if let Some(colour) = outcome.failed {
        // Dropping kills the process; the next game starts a fresh one.
        engines[by_colour[colour.index()]] = None;
    }
    Ok(record(outcome))
}

fn pdn_game(plan: &Plan, record: &Record, date: &str) -> PdnGame {
    let (white, black) = if record.first_is_white {
        (0, 1)
    } else {
        (1, 0)
    };
    let (_, fen) = plan.opening(record.index);
    let outcome = &record.outcome;
    let mut tags = vec![
        ("Event", "bashni match".to_string()),
        ("Site", "?".to_string()),
        ("Date", date.to_string()),
        ("Round", plan.round_tag(record.index)),
        ("White", plan.engines[white].name.clone()),
        ("Black", plan.engines[black].name.clone()),
        ("Result", outcome.result.pdn().to_string()),
        ("SetUp", "1".to_string()),
        ("FEN", fen.to_string()),
        ("Variant", plan.settings.variant.to_string()),
    ];
    if plan.settings.king_landing != KingLanding::default() {
        tags.push(("KingLanding", plan.settings.king_landing.to_string()));
    }
    tags.push(("TimeControl", pdn_time_control(plan.settings.limit)));
    if !matches!(plan.settings.limit, SearchLimit::Clock(_)) {
        tags.push(("SearchLimit", plan.limit_text.clone()));
    }
    tags.push(("PlyCount", outcome.moves.len().to_string()));
    tags.push(("Termination", outcome.termination.to_string()));
    let mut game = PdnGame::new(
        tags.into_iter().map(|(n, v)| (n.to_string(), v)).collect(),
        outcome.moves.iter().map(|m| m.text.clone()).collect(),
        outcome.result.pdn(),
    );
    game.comments = outcome.moves.iter().map(|m| Some(m.comment())).collect();
    game
}

/// The `[TimeControl]` value in PGN/PDN form: `40/60+0.6`, `10+0.1` (the
/// clock in seconds), `0.02/move` for a fixed time per move (cutechess's
/// form), `-` (no clock) for fixed depth or nodes.
fn pdn_time_control(limit: SearchLimit) -> String {
    match limit {
        SearchLimit::Clock(tc) => tc.to_string(),
        SearchLimit::MoveTime(ms) => format!("{}/move", ms as f64 / 1000.0),
        SearchLimit::Depth(_) | SearchLimit::Nodes(_) => "-".to_string(),
    }
}

fn score_line(first: &str, wdl: &Wdl) -> String {
    let score = wdl
        .score()
        .map_or(String::from("-"), |s| format!("{:.1}%", 100.0 * s));
    format!(
        "{first}: W/D/L {}/{}/{} ({score})",
        wdl.wins, wdl.draws, wdl.losses
    )
}

fn print_report(plan: &Plan, tally: &Tally, pdn_path: Option<&std::path::Path>) {
    let [first, second] = [&plan.engines[0].name, &plan.engines[1].name];
    let wdl = &tally.wdl;
    println!();
    println!("Games: {} of {} played", tally.finished, plan.total_games);
    println!(
        "Score of {first} vs {second}: W/D/L {}/{}/{} from {first}'s view, {}",
        wdl.wins,
        wdl.draws,
        wdl.losses,
        wdl.score().map_or("no games".to_string(), |s| format!(
            "score {:.1}%",
            100.0 * s
        ))
    );
    if let Some(est) = elo_estimate(wdl).filter(|e| e.elo.is_finite()) {
        println!(
            "Elo difference: {:.1} +/- {:.1} (95% interval {:.1} .. {:.1})",
            est.elo,
            est.margin(),
            est.lower,
            est.upper
        );
    } else if wdl.games() > 0 {
        let elo = if wdl.wins > 0 { "+inf" } else { "-inf" };
        println!("Elo difference: {elo} (one side scored every point: no interval)");
    }
    if let Some(sprt) = &plan.sprt {
        let verdict = match tally.decided {
            Some((decision, games)) => format!("{decision} after {games} games"),
            None => "no decision yet".to_string(),
        };
        println!(
            "SPRT elo0={} elo1={} alpha={} beta={}: LLR {:.3}, bounds {:.3} .. {:.3}: {verdict}",
            sprt.elo0,
            sprt.elo1,
            sprt.alpha,
            sprt.beta,
            sprt.llr(wdl),
            sprt.lower_bound(),
            sprt.upper_bound(),
        );
    }
    let ends: Vec<String> = tally
        .terminations
        .iter()
        .map(|(kind, n)| format!("{kind} {n}"))
        .collect();
    println!("Terminations: {}", ends.join(", "));
    if let Some(path) = pdn_path {
        println!("PDN: {}", path.display());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        options: MatchOptions,
    }

    fn plan(args: &[&str]) -> Plan {
        let cli =
            Cli::try_parse_from(std::iter::once("match").chain(args.iter().copied())).unwrap();
        Plan::from_args(cli.options).unwrap()
    }

    #[test]
    fn schedule_pairs_openings_swaps_colours_and_numbers_rounds() {
        let book = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/bench-positions/openings-bashni.txt"
        );
        let p = plan(&[
            "--engine",
            "a",
            "--engine",
            "b",
            "--games",
            "3",
            "--rounds",
            "2",
            "--openings",
            book,
        ]);
        assert_eq!(p.total_games, 6);
        let slots: Vec<usize> = (0..6).map(|i| p.opening(i).0).collect();
        assert_eq!(slots, [0, 0, 1, 1, 2, 2]);
        let whites: Vec<bool> = (0..6).map(Plan::first_is_white).collect();
        assert_eq!(whites, [true, false, true, false, true, false]);
        let rounds: Vec<String> = (0..6).map(|i| p.round_tag(i)).collect();
        assert_eq!(rounds, ["1.1", "1.2", "1.3", "2.1", "2.2", "2.3"]);
        assert_eq!(
            p.settings.limit,
            SearchLimit::Clock(TimeControl {
                moves: 0,
                base_ms: 10_000,
                increment_ms: 100
            })
        );
        assert_eq!(
            (p.settings.max_plies, p.settings.no_progress_plies),
            (250, 50)
        );
    }

    #[test]
    fn setup_sends_the_variant_first_and_names_stay_apart() {
        let p = plan(&[
            "--engine",
            "cmd=x/eng,option.Hash=8",
            "--engine",
            "x/eng",
            "--variant",
            "lasca",
            "--max-plies",
            "90",
            "--depth",
            "3",
        ]);
        assert_eq!(p.engines[0].name, "eng-1");
        assert_eq!(p.engines[1].name, "eng-2");
        assert_eq!(
            p.setup[0],
            [
                "setoption name UCI_Variant value lasca",
                "setoption name MaxPlies value 90",
                "setoption name Hash value 8"
            ]
        );
        assert_eq!(p.setup[1].len(), 2);
        assert_eq!(
            (p.settings.max_plies, p.settings.no_progress_plies),
            (90, 0)
        );
        assert_eq!(p.settings.hang_timeout, FIXED_WORK_TIMEOUT);
        let p = plan(&[
            "--engine",
            "a",
            "--engine",
            "b",
            "--movetime",
            "100",
            "--variant",
            "lasca",
        ]);
        assert_eq!(p.settings.hang_timeout, Duration::from_millis(5_200));
        assert_eq!(p.settings.max_plies, LASCA_MAX_PLIES);
    }

    #[test]
    fn time_controls_in_pdn_form() {
        let clock = TimeControl {
            moves: 40,
            base_ms: 60_000,
            increment_ms: 600,
        };
        assert_eq!(pdn_time_control(SearchLimit::Clock(clock)), "40/60+0.6");
        assert_eq!(pdn_time_control(SearchLimit::MoveTime(20)), "0.02/move");
        assert_eq!(pdn_time_control(SearchLimit::Depth(4)), "-");
    }
}
