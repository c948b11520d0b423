//! The sync wrapper: one engine as a child process, for the match runner.
//!
//! A reader thread turns the engine's stdout into lines on a channel, so
//! every wait has a deadline and a hung engine never blocks the caller.
//! The engine's stderr is discarded (it would tear a progress bar). What
//! the lines mean is the [`Client`]'s business.

use crate::Error;
use crate::info::{Info, Score};
use crate::lines::{MAX_LINE_BYTES, engine_line};
use crate::protocol::{BestMove, Client, Command, Event, Go};
use crate::spec::EngineSpec;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::time::{Duration, Instant};

/// What an engine answered to `go`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchReply {
    /// The move text after `bestmove` (empty if there was none).
    pub best_move: String,
    /// From `go` sent to `bestmove` read.
    pub elapsed: Duration,
    /// The score of the last main-line `info` with one, if any.
    pub score: Option<Score>,
    /// The depth of the last main-line `info` with one.
    pub depth: Option<u32>,
}

/// A running engine that has answered `uciok` and `readyok`.
pub struct Engine {
    name: String,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    client: Client,
    /// The limit on `uciok` and `readyok`.
    handshake: Duration,
}

impl Engine {
    /// Start an engine, do the handshake, set `setup` (option, value) and
    /// wait for `readyok`; an option it refuses fails the start, since it
    /// would silently change what is measured.
    pub fn start(
        spec: &EngineSpec,
        setup: &[(String, String)],
        handshake: Duration,
    ) -> Result<Engine, Error> {
        let mut child = spec.command().spawn().map_err(|e| spec.start_failed(e))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(Error::Crashed("no pipes to the engine".into()));
        };
        let (sender, lines) = channel();
        std::thread::spawn(move || read_lines(stdout, sender));
        let mut engine = Engine {
            name: spec.name.clone(),
            child,
            stdin,
            lines,
            client: Client::new(),
            handshake,
        };
        let uci = engine.client.start();
        engine.send(&uci)?;
        engine.await_event(Instant::now() + handshake, "uciok", |e| {
            matches!(e, Event::UciOk)
        })?;
        for (name, value) in setup {
            engine.send(&Command::set_option(name, value))?;
        }
        let errors = engine.ready()?;
        if !errors.is_empty() {
            return Err(Error::Refused(errors.join("; ")));
        }
        Ok(engine)
    }

    /// The name the match knows it by.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the handshake learnt: its `id` and its options.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Send one command.
    pub fn send(&mut self, command: &Command) -> Result<(), Error> {
        self.send_line(&command.to_string())
    }

    /// Send a line as it is: a command [`Command`] has no form for (an
    /// engine's own `d`, or a malformed one on purpose). The client does
    /// not see it, so what it starts is the caller's to follow with
    /// [`Engine::next_line`].
    pub fn send_line(&mut self, line: &str) -> Result<(), Error> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| Error::Crashed(format!("cannot write to the engine: {e}")))
    }

    /// The next line of the engine as it is, past the client: for tests of
    /// an engine's own output. `Stalled` when none comes by `deadline`,
    /// `Crashed` once its output has closed.
    pub fn next_line(&mut self, deadline: Instant) -> Result<String, Error> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok(line) => Ok(line),
            Err(RecvTimeoutError::Timeout) => Err(Error::Stalled("no line in time".into())),
            Err(RecvTimeoutError::Disconnected) => {
                Err(Error::Crashed("the engine closed its output".into()))
            }
        }
    }

    /// `isready`, and the errors the engine reported before `readyok`.
    fn ready(&mut self) -> Result<Vec<String>, Error> {
        let isready = self.client.ready();
        self.send(&isready)?;
        let deadline = Instant::now() + self.handshake;
        match self.await_event(deadline, "readyok", |e| matches!(e, Event::ReadyOk { .. }))? {
            Event::ReadyOk { errors } => Ok(errors),
            _ => Ok(Vec::new()),
        }
    }

    /// Forget the previous game, and wait until the engine has.
    pub fn new_game(&mut self) -> Result<(), Error> {
        self.send(&Command::NewGame)?;
        self.ready().map(|_| ())
    }

    /// Set the position, start a search and wait for its `bestmove` until
    /// `timeout` after `go` is sent, keeping the main line's last depth and
    /// score.
    pub fn search(
        &mut self,
        position: Command,
        go: Go,
        timeout: Duration,
    ) -> Result<SearchReply, Error> {
        // Whatever arrived since the last answer (a second `bestmove`, late
        // `info`) is taken now, while no search runs, so it means nothing.
        while let Ok(line) = self.lines.try_recv() {
            let _ = self.client.feed(&line);
        }
        let [position, go] = self.client.go(position, go);
        self.send(&position)?;
        let start = Instant::now();
        self.send(&go)?;
        let mut main = MainLine::default();
        let answer = self.await_event(start + timeout, "bestmove", |event| {
            if let Event::Info(info) = event {
                main.note(info);
            }
            matches!(event, Event::BestMove(_))
        })?;
        let Event::BestMove(BestMove { text, .. }) = answer else {
            return Err(Error::Crashed("no bestmove".into()));
        };
        Ok(SearchReply {
            best_move: text,
            elapsed: start.elapsed(),
            score: main.score,
            depth: main.depth,
        })
    }

    /// Feed lines to the client until an event passes `wanted`, and return
    /// it; `what` names the awaited line in the error.
    fn await_event(
        &mut self,
        deadline: Instant,
        what: &str,
        mut wanted: impl FnMut(&Event) -> bool,
    ) -> Result<Event, Error> {
        loop {
            let line = self.next_line(deadline).map_err(|e| match e {
                Error::Stalled(_) => Error::Stalled(format!("no {what} in time")),
                _ => Error::Crashed(format!("the engine exited while we waited for {what}")),
            })?;
            if let Some(event) = self.client.feed(&line)
                && wanted(&event)
            {
                return Ok(event);
            }
        }
    }
}

/// The last depth and score of the main line.
#[derive(Default)]
struct MainLine {
    depth: Option<u32>,
    score: Option<Score>,
}

impl MainLine {
    fn note(&mut self, info: &Info) {
        if info.is_main_line() {
            self.depth = info.depth.or(self.depth);
            self.score = info.score.or(self.score);
        }
    }
}

/// Forward the engine's output lines until it closes.
fn read_lines(stdout: ChildStdout, sender: Sender<String>) {
    let mut reader = BufReader::new(stdout);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let read = (reader.by_ref().take(MAX_LINE_BYTES)).read_until(b'\n', &mut buf);
        match read {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                if sender.send(engine_line(&buf)).is_err() {
                    break;
                }
            }
        }
    }
}

impl Drop for Engine {
    /// Ask politely, then make sure: no engine outlives its use.
    fn drop(&mut self) {
        let _ = self.send(&Command::Quit);
        let deadline = Instant::now() + Duration::from_millis(200);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
