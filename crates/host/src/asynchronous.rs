//! The async wrapper (tokio): one engine as a child process, for the
//! board's server, where one task waits on the page and the engine at once.
//!
//! The engine's lines go to a channel the caller owns, tagged with the
//! engine's generation so that lines of an engine already replaced are
//! told apart. The caller hands every line back to [`Engine::feed`],
//! where the [`Client`] says what it meant.

use crate::Error;
use crate::lines::{MAX_LINE_BYTES, engine_line};
use crate::protocol::{Client, Command, Event, Go, HANDSHAKE_TIMEOUT};
use crate::spec::EngineSpec;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command as Process};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

/// What the engine process did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineEvent {
    /// A line of the engine of this generation.
    Line(u64, String),
    /// The output of the engine of this generation closed: it exited or
    /// crashed.
    Exited(u64),
}

/// A running engine that has answered `uciok` and `readyok`.
pub struct Engine {
    generation: u64,
    client: Client,
    child: Child,
    stdin: ChildStdin,
}

impl Engine {
    /// Start the engine, run the handshake and set `setup` (option,
    /// value). Its lines go to `events`; the handshake reads them from
    /// `inbox`, the receiver of `events`, which the caller keeps polling
    /// afterwards.
    pub async fn start(
        spec: &EngineSpec,
        generation: u64,
        setup: &[(String, String)],
        events: UnboundedSender<EngineEvent>,
        inbox: &mut UnboundedReceiver<EngineEvent>,
    ) -> Result<Engine, Error> {
        let mut child = Process::from(spec.command())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| spec.start_failed(e))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(Error::Crashed("no pipes to the engine".into()));
        };
        tokio::spawn(read_lines(stdout, generation, events));
        let mut engine = Engine {
            generation,
            client: Client::new(),
            child,
            stdin,
        };
        let uci = engine.client.start();
        engine.send(&uci).await?;
        engine
            .await_event(inbox, "uciok", |e| matches!(e, Event::UciOk))
            .await?;
        for (name, value) in setup {
            engine.send(&Command::set_option(name, value)).await?;
        }
        let isready = engine.client.ready();
        engine.send(&isready).await?;
        let ready = |e: &Event| matches!(e, Event::ReadyOk { .. });
        match engine.await_event(inbox, "readyok", ready).await? {
            Event::ReadyOk { errors } if !errors.is_empty() => {
                Err(Error::Refused(errors.join("; ")))
            }
            _ => Ok(engine),
        }
    }

    /// The generation its events carry.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// What the handshake learnt, and what the engine is doing.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Take a line of this engine: what it meant.
    pub fn feed(&mut self, line: &str) -> Option<Event> {
        self.client.feed(line)
    }

    /// Send one command.
    pub async fn send(&mut self, command: &Command) -> Result<(), Error> {
        let text = format!("{command}\n");
        let write = async {
            self.stdin.write_all(text.as_bytes()).await?;
            self.stdin.flush().await
        };
        (write.await).map_err(|e| Error::Crashed(format!("cannot write to the engine: {e}")))
    }

    /// Start a search (see [`Client::go`]).
    pub async fn go(&mut self, position: Command, go: Go) -> Result<(), Error> {
        for command in self.client.go(position, go) {
            self.send(&command).await?;
        }
        Ok(())
    }

    /// Stop the running search, whose answer will be dropped.
    pub async fn stop(&mut self) -> Result<(), Error> {
        match self.client.stop() {
            Some(stop) => self.send(&stop).await,
            None => Ok(()),
        }
    }

    /// Wait during the handshake for the event that passes `wanted`.
    async fn await_event(
        &mut self,
        inbox: &mut UnboundedReceiver<EngineEvent>,
        what: &str,
        mut wanted: impl FnMut(&Event) -> bool,
    ) -> Result<Event, Error> {
        let wait = async {
            while let Some(event) = inbox.recv().await {
                match event {
                    EngineEvent::Line(g, line) if g == self.generation => {
                        if let Some(event) = self.client.feed(&line)
                            && wanted(&event)
                        {
                            return Ok(event);
                        }
                    }
                    EngineEvent::Exited(g) if g == self.generation => {
                        let how = self.exit_status().await;
                        return Err(Error::Crashed(format!("the engine {how} before {what}")));
                    }
                    _ => {}
                }
            }
            Err(Error::Crashed(format!("the engine was gone before {what}")))
        };
        tokio::time::timeout(HANDSHAKE_TIMEOUT, wait)
            .await
            .unwrap_or_else(|_| Err(Error::Stalled(format!("no {what} in time"))))
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
        let _ = self.send(&Command::Quit).await;
        if tokio::time::timeout(Duration::from_millis(300), self.child.wait())
            .await
            .is_err()
        {
            let _ = self.child.kill().await;
        }
    }
}

/// Forward the engine's output lines until it closes.
async fn read_lines(stdout: ChildStdout, generation: u64, events: UnboundedSender<EngineEvent>) {
    let mut reader = BufReader::new(stdout);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let mut limited = (&mut reader).take(MAX_LINE_BYTES);
        match limited.read_until(b'\n', &mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                if events
                    .send(EngineEvent::Line(generation, engine_line(&buf)))
                    .is_err()
                {
                    return;
                }
            }
        }
    }
    let _ = events.send(EngineEvent::Exited(generation));
}
