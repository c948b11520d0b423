//! The client side of the protocol: one engine as a child process.
//!
//! A reader thread turns the engine's stdout into lines on a channel, so
//! every wait has a deadline and a hung engine never blocks the runner. The
//! engine's stderr is discarded (it would tear the progress bar).

use super::EngineSpec;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// How long `uci` -> `uciok` and `isready` -> `readyok` may take.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// A line longer than this is cut; the rest arrives as further lines. It
/// keeps a babbling engine from filling the memory.
const MAX_LINE_BYTES: u64 = 64 * 1024;

/// Why an engine could not go on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineFailure {
    /// It could not be started, exited, or closed its output.
    Crashed(String),
    /// It sent nothing useful before the deadline.
    Stalled(String),
    /// It answered its setup (`setoption`) with an error.
    Refused(String),
}

impl std::fmt::Display for EngineFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EngineFailure::Crashed(why) => write!(f, "crashed: {why}"),
            EngineFailure::Stalled(why) => write!(f, "stalled: {why}"),
            EngineFailure::Refused(why) => write!(f, "refused its setup: {why}"),
        }
    }
}

/// A running engine that has answered `uciok` and `readyok`.
pub struct Engine {
    name: String,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

/// What an engine answered to `go`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchReply {
    /// The move text after `bestmove` (empty if there was none).
    pub best_move: String,
    /// From `go` sent to `bestmove` read.
    pub elapsed: Duration,
}

impl Engine {
    /// Start an engine, do the handshake and send the setup commands
    /// (`setoption` lines), then wait for `readyok`.
    pub fn start(spec: &EngineSpec, setup: &[String]) -> Result<Engine, EngineFailure> {
        let mut child = Command::new(&spec.cmd)
            .args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| {
                EngineFailure::Crashed(format!("cannot start '{}': {e}", spec.cmd.display()))
            })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(EngineFailure::Crashed("no pipes to the engine".into()));
        };
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match reader
                    .by_ref()
                    .take(MAX_LINE_BYTES)
                    .read_until(b'\n', &mut buf)
                {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        // Engines are untrusted: bad UTF-8 becomes U+FFFD.
                        let line = String::from_utf8_lossy(&buf);
                        let line = line.trim_end_matches(['\n', '\r']).to_string();
                        if sender.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let mut engine = Engine {
            name: spec.name.clone(),
            child,
            stdin,
            lines,
        };
        engine.send("uci")?;
        engine.wait_for(Instant::now() + HANDSHAKE_TIMEOUT, "uciok", |l| {
            l == "uciok"
        })?;
        for line in setup {
            engine.send(line)?;
        }
        // An option the engine rejects would silently change the match.
        engine.send("isready")?;
        let mut refusals = Vec::new();
        engine.wait_for(Instant::now() + HANDSHAKE_TIMEOUT, "readyok", |l| {
            if l.starts_with("info string error") {
                refusals.push(l.to_string());
            }
            l == "readyok"
        })?;
        if !refusals.is_empty() {
            return Err(EngineFailure::Refused(refusals.join("; ")));
        }
        Ok(engine)
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Send one command line.
    pub fn send(&mut self, line: &str) -> Result<(), EngineFailure> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| EngineFailure::Crashed(format!("cannot write to the engine: {e}")))
    }

    /// Read lines until one passes `wanted`, and return it; `what` names the
    /// awaited line in the error.
    pub fn wait_for(
        &mut self,
        deadline: Instant,
        what: &str,
        mut wanted: impl FnMut(&str) -> bool,
    ) -> Result<String, EngineFailure> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    if wanted(line.trim()) {
                        return Ok(line);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Err(EngineFailure::Stalled(format!("no {what} in time")));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(EngineFailure::Crashed(format!(
                        "the engine exited while we waited for {what}"
                    )));
                }
            }
        }
    }

    /// `isready` and wait for `readyok`.
    pub fn sync(&mut self) -> Result<(), EngineFailure> {
        self.send("isready")?;
        self.wait_for(Instant::now() + HANDSHAKE_TIMEOUT, "readyok", |l| {
            l == "readyok"
        })?;
        Ok(())
    }

    /// Forget the previous game.
    pub fn new_game(&mut self) -> Result<(), EngineFailure> {
        self.send("ucinewgame")?;
        self.sync()
    }

    /// Set the position, start a search and wait for its `bestmove` until
    /// `timeout` after `go` is sent. `info` lines are skipped.
    pub fn search(
        &mut self,
        position: &str,
        go: &str,
        timeout: Duration,
    ) -> Result<SearchReply, EngineFailure> {
        // Whatever arrived since the last answer (a second `bestmove`, late
        // `info`) must not be taken for the answer to this `go`.
        while self.lines.try_recv().is_ok() {}
        self.send(position)?;
        let start = Instant::now();
        self.send(go)?;
        let line = self.wait_for(start + timeout, "bestmove", |l| {
            l.split_whitespace().next() == Some("bestmove")
        })?;
        let elapsed = start.elapsed();
        let best_move = line.split_whitespace().nth(1).unwrap_or("").to_string();
        Ok(SearchReply { best_move, elapsed })
    }
}

impl Drop for Engine {
    /// Ask politely, then make sure: no engine outlives the runner's use.
    fn drop(&mut self) {
        let _ = self.send("quit");
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
