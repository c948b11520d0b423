//! The text protocol on stdin/stdout (protocol.md).
//!
//! A reader thread owns stdin. It answers `isready`, `debug` and `quit`
//! itself while a search runs, and queues every command (in order) for the
//! controller, which runs on the calling thread. The controller starts each
//! search on its own thread and waits for it only when a later command
//! needs the engine; so neither the reader nor the search ever waits for
//! the other.
//!
//! `stop`, `ponderhit`, `quit` and the end of input act when they are read,
//! even on a search the controller has not started yet (it may be queued
//! behind a command that waits for an earlier search): the reader counts
//! the `go` lines it has queued, and each signal covers every search up to
//! that count.

mod display;
mod error;
mod eval_file;
mod options;
mod parse;

pub use display::{board_text, info_line};
pub use error::ProtocolError;
pub use eval_file::{EMBEDDED, EvalFileError, LINEAR, load as load_eval_file};
pub use options::{
    Change, HASH_MB as HASH_RANGE, MOVE_OVERHEAD as MOVE_OVERHEAD_RANGE,
    MULTI_PV as MULTI_PV_RANGE, Options, SKILL_LEVEL as SKILL_RANGE, THREADS as THREADS_RANGE,
    declarations,
};
pub use parse::{GoCommand, parse_go, parse_position, parse_setoption};

use crate::perft::divide_until;
use crate::search::{self, Config, Limits, Searcher, Signals};
use crate::tt::{LockFreeTable, Table};
use bashni_rules::{Colour, Game, GameEnd};
use std::io::BufRead;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Print one protocol line (stdout is line-buffered and locked per call).
fn send(line: &str) {
    crate::outln!("{line}");
}

fn error(message: &str) {
    send(&format!("info string error: {}", cut_error(message)));
}

/// The most characters of an error's message sent: an error quotes what
/// it refuses, and a line of megabytes chokes the host that reads it.
const ERROR_CHARS: usize = 300;

/// `message` within [`ERROR_CHARS`], saying how long it was if cut.
fn cut_error(message: &str) -> std::borrow::Cow<'_, str> {
    match message.char_indices().nth(ERROR_CHARS) {
        None => message.into(),
        Some((end, _)) => format!(
            "{}... (cut: {} bytes in all)",
            &message[..end],
            message.len()
        )
        .into(),
    }
}

/// What the reader passes to the controller, in the order read.
enum Input {
    Line(String),
    /// A line that is not UTF-8: reported, never carried out.
    Undecodable,
}

/// State the reader thread shares with the controller.
#[derive(Default)]
struct Flags {
    /// A search (or perft, or bench) runs: the reader answers at once.
    searching: AtomicBool,
    debug: AtomicBool,
    read: Mutex<ReadSoFar>,
}

impl Flags {
    fn read(&self) -> MutexGuard<'_, ReadSoFar> {
        self.read.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// What the reader has read that applies to searches by their number (the
/// count of `go` lines up to and including theirs), started or not.
#[derive(Default)]
struct ReadSoFar {
    /// `go` lines queued for the controller.
    gos: u64,
    /// Every search up to this number is stopped.
    stopped_up_to: u64,
    /// Every search up to this number has had its `ponderhit`.
    ponderhit_up_to: u64,
    /// Standard input is closed: a search without a limit ends at once.
    input_ended: bool,
    /// The latest search the controller started has no limit of its own.
    unbounded_search: bool,
}

/// Run the engine on stdin/stdout until `quit` or end of input.
pub fn run_stdio() -> i32 {
    let signals = Arc::new(Signals::default());
    let flags = Arc::new(Flags::default());
    // The table comes first: under a tight memory limit the reader
    // thread's own allocations must not take its room.
    let Some(mut controller) = Controller::new(Arc::clone(&signals), Arc::clone(&flags)) else {
        error("not even a 1 MiB hash table fits in memory; the engine cannot start");
        return 1;
    };
    let (queue, commands) = mpsc::channel::<Input>();
    std::thread::spawn(move || read_stdin(queue, &signals, &flags));
    for input in commands {
        let go_on = match input {
            Input::Line(line) => controller.execute(&line),
            Input::Undecodable => {
                error("a line of input is not valid UTF-8; ignored");
                true
            }
        };
        if !go_on {
            break;
        }
    }
    controller.finish_search();
    0
}

fn read_stdin(queue: mpsc::Sender<Input>, signals: &Signals, flags: &Flags) {
    let mut stdin = std::io::stdin().lock();
    let mut bytes = Vec::new();
    loop {
        bytes.clear();
        if !matches!(stdin.read_until(b'\n', &mut bytes), Ok(n) if n > 0) {
            break;
        }
        let Ok(text) = std::str::from_utf8(&bytes) else {
            if queue.send(Input::Undecodable).is_err() {
                return;
            }
            continue;
        };
        let line = text.trim_end_matches(['\n', '\r']).to_string();
        let mut tokens = line.split_whitespace();
        let word = tokens.next();
        signal_searches_read(word, signals, flags);
        // While a search (or perft, or bench) runs, these act at once.
        if flags.searching.load(Ordering::SeqCst) {
            match word {
                Some("quit") => quit_now(flags),
                Some("isready") => {
                    send("readyok");
                    continue;
                }
                Some("debug") => {
                    flags
                        .debug
                        .store(tokens.next() == Some("on"), Ordering::SeqCst);
                    continue;
                }
                _ => {}
            }
        }
        if queue.send(Input::Line(line)).is_err() {
            return;
        }
    }
    // End of input means `quit` once the queued work is done: a search
    // with a limit may finish; one without (it would wait for a `stop`
    // that can no longer come) ends now.
    let mut read = flags.read();
    read.input_ended = true;
    if read.unbounded_search {
        signals.stop.store(true, Ordering::SeqCst);
    }
}

/// Count a `go` line, or apply `stop`, `quit` or `ponderhit` to every
/// search read so far, running or still queued.
fn signal_searches_read(word: Option<&str>, signals: &Signals, flags: &Flags) {
    let mut read = flags.read();
    match word {
        Some("go") => read.gos += 1,
        Some("stop" | "quit") => {
            read.stopped_up_to = read.gos;
            signals.stop.store(true, Ordering::SeqCst);
        }
        Some("ponderhit") => {
            read.ponderhit_up_to = read.gos;
            signals.ponderhit.store(true, Ordering::SeqCst);
        }
        _ => {}
    }
}

/// `quit` during a search (already stopped): let it print its bestmove,
/// but wait no longer than a moment.
fn quit_now(flags: &Flags) -> ! {
    let deadline = Instant::now() + Duration::from_millis(100);
    while flags.searching.load(Ordering::SeqCst) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(1));
    }
    // The search clears the flag while it holds stdout for its bestmove.
    let _whole_lines = std::io::stdout().lock();
    std::process::exit(0);
}

/// The controller: options, the current game position and the search.
struct Controller {
    options: Options,
    game: Game,
    tt: Arc<LockFreeTable>,
    signals: Arc<Signals>,
    flags: Arc<Flags>,
    search: Option<JoinHandle<()>>,
    /// `EvalFile`: the linear evaluation or a network.
    eval: eval_file::Evaluation,
    /// `go` lines carried out so far: the number of the latest search.
    gos: u64,
}

impl Controller {
    /// A controller with the default options, or a smaller table than the
    /// default `Hash` if memory is that short (`None`: not even 1 MiB).
    fn new(signals: Arc<Signals>, flags: Arc<Flags>) -> Option<Controller> {
        let mut options = Options::default();
        let tt = std::iter::successors(Some(options.hash_mb), |&mb| (mb > 1).then_some(mb / 2))
            .find_map(new_table)?;
        let made_mb = tt.size_in_bytes() >> 20;
        if made_mb < options.hash_mb {
            options.hash_mb = made_mb;
            error(&format!(
                "option Hash: the default does not fit in memory; using {} MiB",
                options.hash_mb
            ));
        }
        let eval = eval_file::Evaluation::embedded(options.rules.variant);
        options.eval_file = eval.value().to_string();
        Some(Controller {
            game: Game::new(options.rules),
            tt,
            options,
            signals,
            flags,
            search: None,
            eval,
            gos: 0,
        })
    }

    fn finish_search(&mut self) {
        if let Some(handle) = self.search.take() {
            let _ = handle.join();
        }
    }

    /// Run `work` (perft, bench) as if searching, so that `quit` and
    /// `isready` are answered while it runs.
    fn busy<R>(&self, work: impl FnOnce() -> R) -> R {
        self.flags.searching.store(true, Ordering::SeqCst);
        let result = work();
        self.flags.searching.store(false, Ordering::SeqCst);
        result
    }

    /// The `eval` answer: the linear evaluation term by term, then the
    /// network's score where one is in force, as the search uses it.
    fn explain_eval(&self) -> String {
        let pos = self.game.position();
        let terms = crate::eval::explain(pos);
        let Some(network) = self.eval.network() else {
            return format!(
                "the linear evaluation (EvalFile linear), which the search uses:\n{terms}"
            );
        };
        let own = network.evaluate_position(pos);
        let white = match pos.side_to_move() {
            Colour::White => own,
            Colour::Black => -own,
        };
        format!(
            "the linear evaluation's terms (EvalFile linear), for comparison:\n{terms}\n\
             the network (EvalFile {}), which the search uses:\n\
             network score, White's view: {white}\n\
             network score, side to move ({}): {own}",
            self.eval.value(),
            pos.side_to_move(),
        )
    }

    fn debug(&self, message: &str) {
        if self.flags.debug.load(Ordering::SeqCst) {
            send(&format!("info string {message}"));
        }
    }

    /// Carry out one command line; false means quit.
    fn execute(&mut self, line: &str) -> bool {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let Some((&word, args)) = tokens.split_first() else {
            return true;
        };
        match word {
            "isready" => {
                send("readyok");
                return true;
            }
            // The reader has already signalled these to the searches.
            "stop" => {
                self.finish_search();
                return true;
            }
            "ponderhit" => return true,
            "quit" => return false,
            "debug" => {
                self.flags
                    .debug
                    .store(args.first() == Some(&"on"), Ordering::SeqCst);
                return true;
            }
            _ => {}
        }
        // Everything else waits for a running search to end.
        self.finish_search();
        if word == "go" {
            self.gos += 1;
        }
        let result = match word {
            "uci" => {
                send(&format!("id name bashni {}", env!("CARGO_PKG_VERSION")));
                send("id author the bashni developers");
                declarations().iter().for_each(|l| send(l));
                send("uciok");
                Ok(())
            }
            "ucinewgame" => {
                self.tt.clear();
                Ok(())
            }
            "setoption" => self.set_option(args),
            "position" => parse_position(args, self.options.rules).map(|game| {
                self.game = game;
            }),
            "go" => self.go(args),
            "d" => {
                send(&board_text(self.game.position()));
                Ok(())
            }
            "eval" => {
                send(&self.explain_eval());
                Ok(())
            }
            "bench" => crate::bench::BenchOptions::from_args(args)
                .and_then(|options| {
                    self.busy(|| crate::bench::run(&options))
                        .map(|r| r.lines.iter().for_each(|l| send(l)))
                })
                .map_err(ProtocolError::Bench),
            _ => Err(ProtocolError::UnknownCommand(word.to_string())),
        };
        if let Err(e) = result {
            error(&e.to_string());
        }
        true
    }

    fn set_option(&mut self, args: &[&str]) -> Result<(), ProtocolError> {
        let (name, value) = parse_setoption(args)?;
        match self.options.set(&name, value.as_deref())? {
            Change::Value => {}
            // The key knows neither the variant nor the landing rule, so
            // the table's entries no longer apply after either changes.
            Change::Variant => {
                self.game = Game::new(self.options.rules);
                self.tt.clear();
                let variant = self.options.rules.variant;
                if let Err(e) = self.eval.reload(variant) {
                    error(&format!(
                        "{e}; evaluating {variant} with the linear evaluation"
                    ));
                }
            }
            // The position stays; only its rules change. The key knows
            // neither the landing nor the capture rule, so after a change
            // of either the table goes too.
            Change::Rules => {
                let (old, new) = (self.game.rules(), &self.options.rules);
                if old.king_landing != new.king_landing || old.forced_capture != new.forced_capture
                {
                    self.tt.clear();
                }
                self.game.set_rules(self.options.rules);
            }
            Change::Hash => self.resize_table()?,
            Change::ClearHash => self.tt.clear(),
            Change::EvalFile => {
                let variant = self.options.rules.variant;
                (self.eval.set(&self.options.eval_file, variant))
                    .inspect_err(|_| self.options.eval_file = self.eval.value().to_string())?
            }
        }
        self.debug(&format!("{name} set"));
        Ok(())
    }

    /// Make a table of the `Hash` size. The old one goes first, so memory
    /// never holds both; if the new size cannot be had, the old size is
    /// made again (it fitted before).
    fn resize_table(&mut self) -> Result<(), ProtocolError> {
        let wanted = self.options.hash_mb;
        let old_mb = self.tt.size_in_bytes() >> 20;
        if let Some(placeholder) = LockFreeTable::try_with_megabytes(1) {
            self.tt = Arc::new(placeholder);
        }
        if let Some(table) = new_table(wanted) {
            self.tt = table;
            return Ok(());
        }
        if let Some(table) = new_table(old_mb) {
            self.tt = table;
        }
        self.options.hash_mb = self.tt.size_in_bytes() >> 20;
        Err(ProtocolError::HashTooLarge {
            wanted,
            kept: self.options.hash_mb,
        })
    }

    fn go(&mut self, args: &[&str]) -> Result<(), ProtocolError> {
        let pos = self.game.position();
        let limits = match parse_go(args, pos)? {
            GoCommand::Perft(depth) => {
                let start = Instant::now();
                // Only a `stop` read while the count runs ends it: one
                // read before (a `quit` queued behind it counts as one)
                // would leave `go perft 6` then `quit`, piped, no count.
                self.signals.stop.store(false, Ordering::SeqCst);
                let stop = &self.signals.stop;
                let threads = self.options.threads;
                let counted = self.busy(|| divide_until(pos, depth, threads, stop));
                let Some(lines) = counted else {
                    send("info string perft stopped: no count");
                    return Ok(());
                };
                for (mv, count) in &lines {
                    send(&format!("{mv}: {count}"));
                }
                let total: u64 = lines.iter().map(|(_, n)| n).sum();
                self.debug(&format!("perft took {} ms", start.elapsed().as_millis()));
                send(&format!("Nodes searched: {total}"));
                return Ok(());
            }
            GoCommand::Search(limits) => limits,
        };
        // A side with no legal move has lost, whatever the counters say.
        if let Some(GameEnd::Draw(reason)) = self.game.result() {
            send(&format!(
                "info string the position is already drawn ({reason}); playing on"
            ));
        }
        let config = Config {
            threads: self.options.threads,
            multi_pv: self.options.multi_pv,
            skill_level: self.options.playing_skill(),
            move_overhead: self.options.move_overhead,
            draw_rules: self.game.rules().draw,
            network: self.eval.network(),
        };
        self.arm_signals(!limits.is_bounded());
        let pos = pos.clone();
        let history = self.game.repetition_keys().to_vec();
        let tt = Arc::clone(&self.tt);
        let signals = Arc::clone(&self.signals);
        let flags = Arc::clone(&self.flags);
        self.search = Some(std::thread::spawn(move || {
            run_search(&pos, &history, &limits, &config, &*tt, &signals, &flags);
        }));
        Ok(())
    }

    /// Set the signals for the search about to start: those the reader
    /// has already read for it (it may have been queued a while) hold.
    fn arm_signals(&self, unbounded: bool) {
        let mut read = self.flags.read();
        let stop = self.gos <= read.stopped_up_to || (unbounded && read.input_ended);
        self.signals.stop.store(stop, Ordering::SeqCst);
        let ponderhit = self.gos <= read.ponderhit_up_to;
        self.signals.ponderhit.store(ponderhit, Ordering::SeqCst);
        read.unbounded_search = unbounded;
        self.flags.searching.store(true, Ordering::SeqCst);
    }
}

/// A table of `mb` MiB with every page already touched (as Stockfish does):
/// otherwise the search itself would take the page faults, and a big table
/// would make it overrun its time.
fn new_table(mb: usize) -> Option<Arc<LockFreeTable>> {
    let table = LockFreeTable::try_with_megabytes(mb)?;
    table.clear();
    Some(Arc::new(table))
}

/// One search on its own thread: `info` lines, then `bestmove`.
fn run_search<T: Table>(
    pos: &bashni_rules::Position,
    history: &[u64],
    limits: &Limits,
    config: &Config,
    tt: &T,
    signals: &Signals,
    flags: &Flags,
) {
    let searcher = Searcher::new(tt, config.clone()).with_signals(signals);
    let outcome = searcher.search(pos, history, limits, &mut |report| {
        send(&info_line(report));
    });
    if outcome.refused_threads > 0 {
        send(&format!(
            "info string the system refused {} search threads; searched with {}",
            outcome.refused_threads,
            config.threads.max(1) - outcome.refused_threads
        ));
    }
    if outcome.best.is_none() {
        // As Stockfish: the host learns that the side to move has lost.
        send("info depth 0 score mate 0");
    }
    if flags.debug.load(Ordering::SeqCst)
        && let Some(line) = time_line(&outcome)
    {
        send(&line);
    }
    // UCI: after `go infinite` or `go ponder` the answer waits for `stop`
    // (or, when pondering, for `ponderhit`).
    while !signals.stop.load(Ordering::SeqCst)
        && (limits.infinite || (limits.ponder && !signals.ponderhit.load(Ordering::SeqCst)))
    {
        std::thread::sleep(Duration::from_millis(1));
    }
    if outcome.random_move {
        send("info string skill level: random move");
    }
    // Clear the flag before `bestmove`, holding stdout so that nothing is
    // printed in between: a command sent after `bestmove` is then queued
    // behind those sent before it, and `quit` waits for the whole line.
    let _bestmove_first = std::io::stdout().lock();
    flags.searching.store(false, Ordering::SeqCst);
    match (outcome.best, outcome.ponder) {
        (Some(best), Some(ponder)) => send(&format!("bestmove {best} ponder {ponder}")),
        (Some(best), None) => send(&format!("bestmove {best}")),
        (None, _) => send("bestmove (none)"),
    }
}

/// The time plan of a timed search and what it used (debug output), so a
/// host can check a move against its plan.
fn time_line(outcome: &search::Outcome) -> Option<String> {
    let budget = outcome.budget?;
    Some(format!(
        "info string time plan {} soft {} hard {} used {} ms",
        budget.optimum.as_millis(),
        outcome.soft_limit.unwrap_or(budget.optimum).as_millis(),
        budget.maximum.as_millis(),
        outcome.elapsed.as_millis()
    ))
}
