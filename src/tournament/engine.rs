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

/// How long `uci` -> `uciok` and `isready` -> `readyok` may take unless
/// `--timeout-ms` says otherwise.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// A line longer than this is cut; the rest arrives as further lines. It
/// keeps a babbling engine from filling the memory.
pub const MAX_LINE_BYTES: u64 = 64 * 1024;

/// One line as read from an engine (at most `MAX_LINE_BYTES`), as text:
/// engines are untrusted, so bad UTF-8 becomes U+FFFD; the line end goes.
pub fn engine_line(bytes: &[u8]) -> String {
    let line = String::from_utf8_lossy(bytes);
    line.trim_end_matches(['\n', '\r']).to_string()
}

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
    /// The limit on `uciok` and `readyok`.
    handshake: Duration,
}

/// A score as an engine reports it, from the side to move's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineScore {
    /// Centipawns (a man is about 100).
    Cp(i32),
    /// Mate in this many moves; negative when the side to move is mated.
    Mate(i32),
}

impl EngineScore {
    /// The score as a number for thresholds: centipawns, a mate as far
    /// beyond any material score.
    pub fn centipawns(self) -> i32 {
        match self {
            EngineScore::Cp(cp) => cp,
            EngineScore::Mate(n) if n > 0 => 100_000 - n,
            EngineScore::Mate(n) => -100_000 - n,
        }
    }

    /// The score from the other side's view.
    pub fn negate(self) -> EngineScore {
        match self {
            EngineScore::Cp(cp) => EngineScore::Cp(-cp),
            EngineScore::Mate(n) => EngineScore::Mate(-n),
        }
    }

    /// The score in `info` words: `cp 12`, `mate -3`.
    fn parse(words: &[&str]) -> Option<EngineScore> {
        match words {
            ["cp", n, ..] => n.parse().ok().map(EngineScore::Cp),
            ["mate", n, ..] => n.parse().ok().map(EngineScore::Mate),
            _ => None,
        }
    }
}

/// Cutechess's form: pawns with a sign (`+0.12`), a mate as `+M3` / `-M3`.
impl std::fmt::Display for EngineScore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            EngineScore::Cp(cp) => write!(f, "{:+.2}", f64::from(cp) / 100.0),
            EngineScore::Mate(n) if n >= 0 => write!(f, "+M{n}"),
            EngineScore::Mate(n) => write!(f, "-M{}", -n),
        }
    }
}

/// What an engine answered to `go`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchReply {
    /// The move text after `bestmove` (empty if there was none).
    pub best_move: String,
    /// From `go` sent to `bestmove` read.
    pub elapsed: Duration,
    /// The score of the last `info` line with one (the main line's, when
    /// the engine reports several), if any.
    pub score: Option<EngineScore>,
    /// The depth of that last `info` line.
    pub depth: Option<u32>,
}

/// The depth and score of an `info` line, if it has them and is about the
/// main line (`multipv 1` or no `multipv`).
fn info_fields(line: &str) -> Option<(Option<u32>, Option<EngineScore>)> {
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.first() != Some(&"info") {
        return None;
    }
    let after = |key: &str| {
        words
            .iter()
            .position(|w| *w == key)
            .map(|i| &words[i + 1..])
    };
    if after("multipv")
        .and_then(|w| w.first())
        .is_some_and(|n| *n != "1")
    {
        return None;
    }
    let depth = after("depth").and_then(|w| w.first()?.parse().ok());
    let score = after("score").and_then(EngineScore::parse);
    Some((depth, score))
}

impl Engine {
    /// Start an engine, do the handshake and send the setup commands
    /// (`setoption` lines), then wait for `readyok`.
    pub fn start(
        spec: &EngineSpec,
        setup: &[String],
        handshake: Duration,
    ) -> Result<Engine, EngineFailure> {
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
                        if sender.send(engine_line(&buf)).is_err() {
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
            handshake,
        };
        engine.send("uci")?;
        engine.wait_for(Instant::now() + handshake, "uciok", |l| l == "uciok")?;
        for line in setup {
            engine.send(line)?;
        }
        // An option the engine rejects would silently change the match.
        engine.send("isready")?;
        let mut refusals = Vec::new();
        engine.wait_for(Instant::now() + handshake, "readyok", |l| {
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
        self.wait_for(Instant::now() + self.handshake, "readyok", |l| {
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
        let (mut depth, mut score) = (None, None);
        let line = self.wait_for(start + timeout, "bestmove", |l| {
            if let Some((d, s)) = info_fields(l) {
                depth = d.or(depth);
                score = s.or(score);
            }
            l.split_whitespace().next() == Some("bestmove")
        })?;
        let elapsed = start.elapsed();
        let best_move = line.split_whitespace().nth(1).unwrap_or("").to_string();
        Ok(SearchReply {
            best_move,
            elapsed,
            score,
            depth,
        })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_lines_give_depth_and_score() {
        assert_eq!(
            info_fields("info depth 12 seldepth 20 multipv 1 score cp -35 nodes 9 pv c3-d4"),
            Some((Some(12), Some(EngineScore::Cp(-35))))
        );
        assert_eq!(
            info_fields("info depth 7 score mate 3 upperbound"),
            Some((Some(7), Some(EngineScore::Mate(3))))
        );
        assert_eq!(info_fields("info depth 7 multipv 2 score cp 5"), None);
        assert_eq!(info_fields("info string hello"), Some((None, None)));
        assert_eq!(info_fields("info depth x score cp"), Some((None, None)));
        assert_eq!(info_fields("bestmove c3-d4"), None);
    }

    #[test]
    fn scores_print_as_cutechess_does() {
        assert_eq!(EngineScore::Cp(12).to_string(), "+0.12");
        assert_eq!(EngineScore::Cp(-105).to_string(), "-1.05");
        assert_eq!(EngineScore::Cp(0).to_string(), "+0.00");
        assert_eq!(EngineScore::Mate(3).to_string(), "+M3");
        assert_eq!(EngineScore::Mate(-2).to_string(), "-M2");
        assert!(EngineScore::Mate(-2).centipawns() < EngineScore::Cp(-5000).centipawns());
        assert_eq!(EngineScore::Mate(4).negate(), EngineScore::Mate(-4));
    }
}
