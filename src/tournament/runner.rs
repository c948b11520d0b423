//! The match: the worker threads that play the schedule's games in
//! parallel, the running score, the PDN file and the final report.
//!
//! Each worker owns its engine processes (one per engine of the match,
//! started when first needed) and reuses them from game to game
//! (`ucinewgame`); an engine that failed is dropped (killed) and a fresh
//! one started for the worker's next game with it.

use super::MatchOptions;
use super::game::{GameOutcome, GameResult, SearchLimit, Termination, play_game};
use super::report::{Scoreboard, SprtStatus};
use super::schedule::{Plan, Scheduled};
use super::stats::SprtDecision;
use anyhow::{Context, bail};
use bashni_host::Error;
use bashni_host::blocking::Engine;
use bashni_host::pdn::{PdnGame, parse_pdn, today};
use bashni_rules::{Colour, KingLanding};
use indicatif::{ProgressBar, ProgressStyle};
use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::channel;
use std::time::Duration;

/// The running totals, shared by the workers.
struct Tally {
    board: Scoreboard,
    finished: usize,
    /// The SPRT's verdict and the game count when it first came; games
    /// already running then still finish and count, but do not undo it.
    decided: Option<(SprtDecision, usize)>,
}

impl Tally {
    fn count(&mut self, game: &Scheduled, result: GameResult, termination: &Termination) {
        let half_points = match (result, game.first_is_white) {
            (GameResult::Draw, _) => 1,
            (GameResult::WhiteWins, true) | (GameResult::BlackWins, false) => 2,
            _ => 0,
        };
        self.board.scores[game.pairing].add(&game.pair.to_string(), half_points);
        *self
            .board
            .terminations
            .entry(termination.kind())
            .or_insert(0) += 1;
        self.finished += 1;
    }
}

/// A finished game as the runner records it.
struct Record<'a> {
    game: &'a Scheduled,
    outcome: GameOutcome,
}

/// Run the whole match and print its report on stdout.
pub fn run(args: MatchOptions) -> anyhow::Result<()> {
    let plan = Plan::from_args(&args)?;
    warn_about(&args, &plan);
    // Fail early and plainly on an engine that cannot even start.
    for (spec, setup) in plan.engines.iter().zip(&plan.setup) {
        Engine::start(spec, setup, plan.handshake)
            .map_err(|e| anyhow::anyhow!("engine '{}' {e}", spec.name))?;
    }
    let names: Vec<String> = plan.engines.iter().map(|e| e.name.clone()).collect();
    let mut tally = Tally {
        board: Scoreboard::new(names.clone(), plan.pairings.clone()),
        finished: 0,
        decided: None,
    };
    let mut to_play = match args.shard {
        Some((k, n)) => plan.shard(k, n),
        None => (0..plan.schedule.len()).collect(),
    };
    let planned = to_play.len();
    if args.resume {
        resume(&plan, args.pdn.as_deref(), &mut tally, &mut to_play)?;
    }
    let pdn = match &args.pdn {
        Some(path) => Some(
            File::options()
                .create(true)
                .append(true)
                .open(path)
                .with_context(|| format!("cannot open PDN file '{}'", path.display()))?,
        ),
        None => None,
    };
    bashni_engine::outln!(
        "Match {}: {} games, {}, {}, {} opening(s), concurrency {}",
        names.join(" vs "),
        to_play.len(),
        plan.settings.rules.variant,
        plan.limit_text,
        plan.openings.len(),
        args.concurrency
    );
    let already = tally.finished;
    let shared = MatchState {
        plan: &plan,
        tally: Mutex::new(tally),
        pdn: Mutex::new(pdn),
        pdn_path: args.pdn.clone(),
        planned,
        to_play,
        next_game: AtomicUsize::new(0),
        stop: AtomicBool::new(false),
        failure: Mutex::new(None),
        bar: progress_bar(planned, already),
        date: today(),
    };
    shared.play_all(args.concurrency as usize);
    shared.bar.finish_and_clear();
    if let Some(e) = lock(&shared.failure).take() {
        return Err(e);
    }
    shared.print_summary(&lock(&shared.tally));
    Ok(())
}

/// Warnings about a plan that runs but may not measure what was meant.
fn warn_about(args: &MatchOptions, plan: &Plan) {
    let per_pairing = args.games * args.rounds;
    if per_pairing % 2 == 1 {
        let opening = plan.schedule.last().map_or(0, |g| g.opening) + 1;
        eprintln!(
            "warning: {per_pairing} games per pairing is odd: opening {opening} is played with one colour only, so its bias is not cancelled"
        );
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if args.concurrency as usize > cores {
        eprintln!(
            "warning: --concurrency {} is above the {cores} cores: the engines share cores and the clocks measure the machine's load",
            args.concurrency
        );
    }
}

/// Count the games the PDN file already holds and drop them from the
/// games to play.
fn resume(
    plan: &Plan,
    path: Option<&std::path::Path>,
    tally: &mut Tally,
    to_play: &mut Vec<usize>,
) -> anyhow::Result<()> {
    let Some(path) = path else {
        bail!("--resume needs --pdn");
    };
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => bail!("cannot read '{}': {e}", path.display()),
    };
    let games = parse_pdn(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    for pdn in &games {
        let game = plan
            .game_of(pdn)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let Some(position) = to_play.iter().position(|&i| i == game.index) else {
            continue;
        };
        to_play.remove(position);
        let result = GameResult::from_pdn(&pdn.result).ok_or_else(|| {
            anyhow::anyhow!("game {}: bad result '{}'", game.index + 1, pdn.result)
        })?;
        let termination: Termination = pdn
            .tag("Termination")
            .unwrap_or("")
            .parse()
            .map_err(|e| anyhow::anyhow!("game {}: {e}", game.index + 1))?;
        tally.count(game, result, &termination);
    }
    bashni_engine::outln!(
        "Resuming: {} game(s) already in {}",
        tally.finished,
        path.display()
    );
    Ok(())
}

/// A bar over the planned games, the resumed ones already done.
fn progress_bar(games: usize, done: usize) -> ProgressBar {
    let bar = ProgressBar::new(games as u64);
    bar.set_position(done as u64);
    if let Ok(style) =
        ProgressStyle::with_template("{bar:30} {pos}/{len} games  {msg}  [{elapsed_precise}]")
    {
        bar.set_style(style);
    }
    bar
}

/// What the worker threads share.
struct MatchState<'a> {
    plan: &'a Plan,
    tally: Mutex<Tally>,
    pdn: Mutex<Option<File>>,
    pdn_path: Option<PathBuf>,
    /// How many games this run was to play (its shard), resumed ones too.
    planned: usize,
    /// Schedule indices still to play, in order.
    to_play: Vec<usize>,
    /// The next entry of `to_play` to hand out.
    next_game: AtomicUsize,
    /// No new game starts once set (SPRT decided, or an error).
    stop: AtomicBool,
    failure: Mutex<Option<anyhow::Error>>,
    bar: ProgressBar,
    date: String,
}

impl MatchState<'_> {
    /// Play the games on `concurrency` workers; Ctrl-C ends the match with
    /// the summary of the games finished so far.
    fn play_all(&self, concurrency: usize) {
        let (interrupted, signal) = channel();
        if let Err(e) = ctrlc::set_handler(move || {
            let _ = interrupted.send(());
        }) {
            eprintln!("warning: Ctrl-C will not print a summary: {e}");
        }
        let done = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let workers: Vec<_> = (0..concurrency.min(self.to_play.len()))
                .map(|_| scope.spawn(|| self.work()))
                .collect();
            let done = &done;
            scope.spawn(move || {
                while !done.load(Ordering::SeqCst) {
                    if signal.recv_timeout(Duration::from_millis(50)).is_ok() {
                        self.interrupt();
                    }
                }
            });
            for worker in workers {
                let _ = worker.join();
            }
            done.store(true, Ordering::SeqCst);
        });
    }

    /// Ctrl-C: hold the PDN file and the totals so no game is half
    /// written or counted, print the summary and exit. Games still running
    /// are lost; their engines see their input close.
    fn interrupt(&self) -> ! {
        self.stop.store(true, Ordering::SeqCst);
        let _pdn = lock(&self.pdn);
        let tally = lock(&self.tally);
        self.bar.finish_and_clear();
        bashni_engine::outln!("\nInterrupted: the games still running are not counted.");
        self.print_summary(&tally);
        let _ = std::io::stdout().flush();
        std::process::exit(130);
    }

    fn print_summary(&self, tally: &Tally) {
        bashni_engine::outln!("");
        bashni_engine::outln!("Games: {} of {} played", tally.finished, self.planned);
        let sprt = self.plan.sprt.map(|sprt| SprtStatus {
            sprt,
            decided: tally.decided,
        });
        tally.board.print(sprt.as_ref());
        if let Some(path) = &self.pdn_path {
            bashni_engine::outln!("PDN: {}", path.display());
        }
    }

    /// One worker: take the next game of the schedule until none is left
    /// or the match stops. Its engines die with it.
    fn work(&self) {
        let mut engines: Vec<Option<Engine>> = self.plan.engines.iter().map(|_| None).collect();
        while !self.stop.load(Ordering::SeqCst) {
            let next = self.next_game.fetch_add(1, Ordering::SeqCst);
            let Some(&index) = self.to_play.get(next) else {
                break;
            };
            let game = &self.plan.schedule[index];
            match play_scheduled(self.plan, game, &mut engines) {
                Ok(outcome) => self.record(&Record { game, outcome }),
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
        let game = record.game;
        t.count(game, record.outcome.result, &record.outcome.termination);
        let (white, black) = plan.colours(game);
        let score = t.board.score_line(game.pairing);
        self.bar.suspend(|| {
            bashni_engine::outln!(
                "Finished game {} ({} vs {}, opening {}): {} {{{}}}",
                game.index + 1,
                plan.name(white),
                plan.name(black),
                game.opening + 1,
                record.outcome.result.pdn(),
                record.outcome.termination,
            );
            bashni_engine::outln!("{score}");
        });
        // The message first, so the redraw that `inc` causes shows it.
        self.bar.set_message(score);
        self.bar.inc(1);
        if let Some(sprt) = &plan.sprt
            && t.decided.is_none()
        {
            let decision = sprt.decide(t.board.llr(sprt));
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

/// Play a game of the schedule with the worker's engines, starting or
/// restarting them as needed.
fn play_scheduled(
    plan: &Plan,
    game: &Scheduled,
    engines: &mut [Option<Engine>],
) -> anyhow::Result<GameOutcome> {
    let (white, black) = plan.colours(game);
    for (colour, e) in [(Colour::White, white), (Colour::Black, black)] {
        let ready = match engines[e].take() {
            Some(mut engine) => engine.new_game().map(|()| engine),
            None => Engine::start(&plan.engines[e], &plan.setup[e], plan.handshake)
                .and_then(|mut engine| engine.new_game().map(|()| engine)),
        };
        match ready {
            Ok(engine) => engines[e] = Some(engine),
            Err(failure) => return Ok(setup_forfeit(plan.name(e), colour, failure)),
        }
    }
    let (w, b) = pick_two(engines, white, black);
    let (Some(w), Some(b)) = (w.as_mut(), b.as_mut()) else {
        bail!("internal error: an engine vanished");
    };
    let odds = [plan.engines[white].tc, plan.engines[black].tc];
    let outcome = play_game([w, b], &plan.openings[game.opening], &plan.settings, odds)?;
    if let Some(colour) = outcome.failed {
        // Dropping kills the process; the next game starts a fresh one.
        let e = if colour == Colour::White {
            white
        } else {
            black
        };
        engines[e] = None;
    }
    Ok(outcome)
}

/// Two distinct elements of a slice, mutably.
fn pick_two<T>(items: &mut [T], a: usize, b: usize) -> (&mut T, &mut T) {
    assert_ne!(a, b, "an engine cannot play itself");
    if a < b {
        let (left, right) = items.split_at_mut(b);
        (&mut left[a], &mut right[0])
    } else {
        let (left, right) = items.split_at_mut(a);
        (&mut right[0], &mut left[b])
    }
}

/// The game lost by an engine that could not get ready for it.
fn setup_forfeit(name: &str, colour: Colour, failure: Error) -> GameOutcome {
    let name = name.to_string();
    let termination = match failure {
        Error::Stalled(_) => Termination::Stalled(name),
        Error::Refused(why) => Termination::SetupRefused { engine: name, why },
        // Starting an engine fails only so; anything else is a crash too.
        _ => Termination::Crashed(name),
    };
    GameOutcome {
        result: match colour {
            Colour::White => GameResult::BlackWins,
            Colour::Black => GameResult::WhiteWins,
        },
        termination,
        moves: Vec::new(),
        failed: Some(colour),
    }
}

fn pdn_game(plan: &Plan, record: &Record, date: &str) -> PdnGame {
    let (white, black) = plan.colours(record.game);
    let outcome = &record.outcome;
    let mut tags = vec![
        ("Event", "bashni match".to_string()),
        ("Site", "?".to_string()),
        ("Date", date.to_string()),
        ("Round", record.game.round.clone()),
        ("White", plan.name(white).to_string()),
        ("Black", plan.name(black).to_string()),
        ("Result", outcome.result.pdn().to_string()),
        ("SetUp", "1".to_string()),
        ("FEN", plan.openings[record.game.opening].clone()),
        ("Variant", plan.settings.rules.variant.to_string()),
    ];
    if plan.settings.rules.king_landing != KingLanding::default() {
        tags.push(("KingLanding", plan.settings.rules.king_landing.to_string()));
    }
    if !plan.settings.rules.forced_capture {
        tags.push(("ForcedCapture", "false".to_string()));
    }
    tags.push(("TimeControl", pdn_time_control(plan.settings.limit)));
    // Time odds, as cutechess writes them: the side's own control.
    for (tag, engine) in [("WhiteTimeControl", white), ("BlackTimeControl", black)] {
        if let Some(tc) = plan.engines[engine].tc {
            tags.push((tag, tc.to_string()));
        }
    }
    if !matches!(plan.settings.limit, SearchLimit::Clock(_)) {
        tags.push(("SearchLimit", plan.limit_text.clone()));
    }
    tags.push(("PlyCount", outcome.moves.len().to_string()));
    tags.push(("Termination", outcome.termination.to_string()));
    // Which schedule game this is, and its pair: `resume` and `stats`
    // read them back.
    tags.push(("GameNumber", (record.game.index + 1).to_string()));
    tags.push(("Pair", (record.game.pair + 1).to_string()));
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

#[cfg(test)]
mod tests {
    use super::*;
    use bashni_host::clock::TimeControl;

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

    #[test]
    fn two_distinct_elements() {
        let mut v = [1, 2, 3];
        let (a, b) = pick_two(&mut v, 2, 0);
        std::mem::swap(a, b);
        assert_eq!(v, [3, 2, 1]);
    }
}
