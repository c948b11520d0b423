//! The match: the worker threads that play the schedule's games in
//! parallel, the running score, the PDN file and the final report.
//!
//! Each worker owns its engine processes (one per engine of the match,
//! started when first needed) and reuses them from game to game
//! (`ucinewgame`); an engine that failed is dropped (killed) and a fresh
//! one started for the worker's next game with it.

use super::MatchOptions;
use super::engine::{Engine, EngineFailure};
use super::game::{GameOutcome, GameResult, SearchLimit, Termination, play_game};
use super::pdn::{PdnGame, today};
use super::report::{Scoreboard, SprtStatus};
use super::schedule::{Plan, Scheduled};
use super::stats::SprtDecision;
use crate::rules::{Colour, KingLanding};
use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressStyle};
use std::fs::File;
use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The running totals, shared by the workers.
struct Tally {
    board: Scoreboard,
    finished: usize,
    /// The SPRT's verdict and the game count when it first came; games
    /// already running then still finish and count, but do not undo it.
    decided: Option<(SprtDecision, usize)>,
}

/// A finished game as the runner records it.
struct Record<'a> {
    game: &'a Scheduled,
    outcome: GameOutcome,
}

impl Record<'_> {
    /// Half points of the pairing's first engine: 2 a win, 1 a draw.
    fn first_half_points(&self) -> u32 {
        match (self.outcome.result, self.game.first_is_white) {
            (GameResult::Draw, _) => 1,
            (GameResult::WhiteWins, true) | (GameResult::BlackWins, false) => 2,
            _ => 0,
        }
    }
}

/// Run the whole match and print its report on stdout.
pub fn run(args: MatchOptions) -> anyhow::Result<()> {
    let plan = Plan::from_args(&args)?;
    let concurrency = args.concurrency as usize;
    // Fail early and plainly on an engine that cannot even start.
    for (spec, setup) in plan.engines.iter().zip(&plan.setup) {
        Engine::start(spec, setup, plan.handshake)
            .map_err(|e| anyhow::anyhow!("engine '{}' {e}", spec.name))?;
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
    let names: Vec<String> = plan.engines.iter().map(|e| e.name.clone()).collect();
    println!(
        "Match {}: {} games, {}, {}, {} opening(s), concurrency {concurrency}",
        names.join(" vs "),
        plan.schedule.len(),
        plan.settings.variant,
        plan.limit_text,
        plan.openings.len()
    );
    let shared = Shared {
        plan: &plan,
        tally: Mutex::new(Tally {
            board: Scoreboard::new(names, plan.pairings.clone()),
            finished: 0,
            decided: None,
        }),
        pdn: Mutex::new(pdn),
        next_game: AtomicUsize::new(0),
        stop: AtomicBool::new(false),
        failure: Mutex::new(None),
        bar: progress_bar(plan.schedule.len()),
        date: today(),
    };
    std::thread::scope(|scope| {
        for _ in 0..concurrency.min(plan.schedule.len()) {
            scope.spawn(|| shared.work());
        }
    });
    shared.bar.finish_and_clear();
    if let Some(e) = lock(&shared.failure).take() {
        return Err(e);
    }
    let tally = lock(&shared.tally);
    println!();
    println!(
        "Games: {} of {} played",
        tally.finished,
        plan.schedule.len()
    );
    let sprt = plan.sprt.map(|sprt| SprtStatus {
        sprt,
        decided: tally.decided,
    });
    tally.board.print(sprt.as_ref());
    if let Some(path) = &args.pdn {
        println!("PDN: {}", path.display());
    }
    Ok(())
}

fn progress_bar(games: usize) -> ProgressBar {
    let bar = ProgressBar::new(games as u64);
    if let Ok(style) =
        ProgressStyle::with_template("{bar:30} {pos}/{len} games  {msg}  [{elapsed_precise}]")
    {
        bar.set_style(style);
    }
    bar
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
        let mut engines: Vec<Option<Engine>> = self.plan.engines.iter().map(|_| None).collect();
        while !self.stop.load(Ordering::SeqCst) {
            let next = self.next_game.fetch_add(1, Ordering::SeqCst);
            let Some(game) = self.plan.schedule.get(next) else {
                break;
            };
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
        let board = &mut t.board;
        board.scores[game.pairing].add(&game.pair.to_string(), record.first_half_points());
        *board
            .terminations
            .entry(record.outcome.termination.kind())
            .or_insert(0) += 1;
        t.finished += 1;
        let (white, black) = plan.colours(game);
        let score = t.board.score_line(game.pairing);
        self.bar.suspend(|| {
            println!(
                "Finished game {} ({} vs {}, opening {}): {} {{{}}}",
                game.index + 1,
                plan.name(white),
                plan.name(black),
                game.opening + 1,
                record.outcome.result.pdn(),
                record.outcome.termination,
            );
            println!("{score}");
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
    let outcome = play_game([w, b], &plan.openings[game.opening], &plan.settings)?;
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
fn setup_forfeit(name: &str, colour: Colour, failure: EngineFailure) -> GameOutcome {
    let name = name.to_string();
    let termination = match failure {
        EngineFailure::Crashed(_) => Termination::Crashed(name),
        EngineFailure::Stalled(_) => Termination::Stalled(name),
        EngineFailure::Refused(why) => Termination::SetupRefused { engine: name, why },
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
    use crate::tournament::TimeControl;

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
