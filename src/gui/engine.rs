//! The engine child process, driven over the text protocol as any GUI
//! would drive it. Everything it sends is untrusted: lines are cut at a
//! length limit and bad UTF-8 is replaced, and its exit is an event, not an
//! error of the server.

use crate::tournament::EngineSpec;
use crate::tournament::engine::{HANDSHAKE_TIMEOUT, MAX_LINE_BYTES, engine_line};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;

/// What the engine process did, tagged with the engine's generation so
/// that lines of an engine already replaced are told apart.
#[derive(Debug)]
pub enum EngineEvent {
    Line(u64, String),
    /// Its output closed: it exited or crashed. The text says how.
    Exited(u64, String),
}

/// A running engine that has answered `uciok` and `readyok`.
pub struct Engine {
    pub generation: u64,
    /// The option names it declared in answer to `uci`.
    options: Vec<String>,
    child: Child,
    stdin: ChildStdin,
}

impl Engine {
    /// Start the engine, run the handshake and send `setup` (`setoption`
    /// lines). Its lines then go to `events`; the handshake reads them from
    /// `events` too, so `events` must be the session's receiver's sender and
    /// the caller passes the receiver to wait on.
    pub async fn start(
        spec: &EngineSpec,
        generation: u64,
        setup: &[String],
        events: mpsc::UnboundedSender<EngineEvent>,
        inbox: &mut mpsc::UnboundedReceiver<EngineEvent>,
    ) -> Result<Engine, String> {
        let mut child = Command::new(&spec.cmd)
            .args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot start engine '{}': {e}", spec.cmd.display()))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err("no pipes to the engine".into());
        };
        tokio::spawn(read_lines(stdout, generation, events));
        let mut engine = Engine {
            generation,
            options: Vec::new(),
            child,
            stdin,
        };
        engine.send("uci").await?;
        let mut options = Vec::new();
        engine
            .await_line(inbox, "uciok", |l| {
                if let Some(name) = option_name(l) {
                    options.push(name.to_string());
                }
                l == "uciok"
            })
            .await?;
        engine.options = options;
        for line in setup {
            engine.send(line).await?;
        }
        engine.send("isready").await?;
        let mut refusals = Vec::new();
        engine
            .await_line(inbox, "readyok", |l| {
                if let Some(error) = l.strip_prefix("info string error: ") {
                    refusals.push(error.to_string());
                }
                l == "readyok"
            })
            .await?;
        if refusals.is_empty() {
            Ok(engine)
        } else {
            Err(format!("engine refused its setup: {}", refusals.join("; ")))
        }
    }

    /// Whether the engine declared the option `name` (names are
    /// case-insensitive).
    pub fn declares(&self, name: &str) -> bool {
        self.options.iter().any(|o| o.eq_ignore_ascii_case(name))
    }

    /// Send one command line.
    pub async fn send(&mut self, line: &str) -> Result<(), String> {
        let text = format!("{line}\n");
        let write = async {
            self.stdin.write_all(text.as_bytes()).await?;
            self.stdin.flush().await
        };
        write
            .await
            .map_err(|e| format!("cannot write to the engine: {e}"))
    }

    /// Wait during the handshake for the line that passes `wanted`.
    async fn await_line(
        &mut self,
        inbox: &mut mpsc::UnboundedReceiver<EngineEvent>,
        what: &str,
        mut wanted: impl FnMut(&str) -> bool,
    ) -> Result<(), String> {
        let wait = async {
            while let Some(event) = inbox.recv().await {
                match event {
                    EngineEvent::Line(g, line) if g == self.generation && wanted(line.trim()) => {
                        return Ok(());
                    }
                    EngineEvent::Exited(g, how) if g == self.generation => {
                        return Err(format!("engine {how} before {what}"));
                    }
                    _ => {}
                }
            }
            Err(format!("engine gone before {what}"))
        };
        tokio::time::timeout(HANDSHAKE_TIMEOUT, wait)
            .await
            .unwrap_or_else(|_| Err(format!("engine sent no {what} in time")))
    }

    /// How the process ended, once its output has closed.
    pub async fn exit_status(&mut self) -> String {
        match tokio::time::timeout(Duration::from_millis(500), self.child.wait()).await {
            Ok(Ok(status)) => format!("exited ({status})"),
            _ => "closed its output".into(),
        }
    }

    /// Ask it to quit, and kill it if it does not within a moment.
    pub async fn shut_down(mut self) {
        let _ = self.send("quit").await;
        if tokio::time::timeout(Duration::from_millis(300), self.child.wait())
            .await
            .is_err()
        {
            let _ = self.child.kill().await;
        }
    }
}

/// The name in `option name <name> type ...`.
fn option_name(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("option name ")?;
    rest.split_once(" type ").map(|(name, _)| name.trim())
}

/// Forward the engine's output lines until it closes.
async fn read_lines(
    stdout: tokio::process::ChildStdout,
    generation: u64,
    events: mpsc::UnboundedSender<EngineEvent>,
) {
    let mut reader = BufReader::new(stdout);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match (&mut reader)
            .take(MAX_LINE_BYTES)
            .read_until(b'\n', &mut buf)
            .await
        {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                let line = engine_line(&buf);
                if events.send(EngineEvent::Line(generation, line)).is_err() {
                    return;
                }
            }
        }
    }
    let _ = events.send(EngineEvent::Exited(generation, "closed".into()));
}
