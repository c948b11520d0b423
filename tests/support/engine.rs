//! The engine binary driven through stdin/stdout, for the integration
//! tests: lines arrive through a channel so a silent engine fails the test
//! instead of hanging it.
#![allow(dead_code)] // each test file uses part of it

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

/// Generous: these tests check behaviour, not speed.
const PATIENCE: Duration = Duration::from_secs(20);

pub struct Engine {
    pub child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Engine {
    pub fn start() -> Engine {
        Engine::spawn(Command::new(env!("CARGO_BIN_EXE_bashni")))
    }

    /// The engine started by `command` (a shell that limits it, say).
    pub fn spawn(mut command: Command) -> Engine {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("engine starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Engine {
            child,
            stdin,
            lines,
        }
    }

    pub fn send(&mut self, command: &str) {
        writeln!(self.stdin, "{command}").expect("engine reads stdin");
        self.stdin.flush().expect("flush");
    }

    /// Send bytes as they are (for input that is not UTF-8).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).expect("engine reads stdin");
        self.stdin.flush().expect("flush");
    }

    pub fn line(&mut self) -> String {
        match self.lines.recv_timeout(PATIENCE) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => panic!("engine said nothing for {PATIENCE:?}"),
            Err(RecvTimeoutError::Disconnected) => panic!("engine closed stdout"),
        }
    }

    /// The next line, or `None` when none comes within `wait`.
    pub fn line_within(&mut self, wait: Duration) -> Option<String> {
        match self.lines.recv_timeout(wait) {
            Ok(line) => Some(line),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => panic!("engine closed stdout"),
        }
    }

    /// All lines up to and including the first that starts with `prefix`.
    pub fn until(&mut self, prefix: &str) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            let line = self.line();
            let done = line.starts_with(prefix);
            seen.push(line);
            if done {
                return seen;
            }
        }
    }

    /// Synchronise with `isready` and return what came before `readyok`.
    pub fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        let mut lines = self.until("readyok");
        lines.pop();
        lines
    }

    pub fn fen(&mut self) -> String {
        self.send("d");
        let lines = self.until("Key:");
        let fen = lines
            .iter()
            .find(|l| l.starts_with("Fen: "))
            .expect("a Fen line");
        fen["Fen: ".len()..].to_string()
    }

    pub fn bestmove(&mut self) -> String {
        let lines = self.until("bestmove");
        let last = lines.last().expect("bestmove line");
        last.split_whitespace().nth(1).expect("a move").to_string()
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Run the engine on `input` until it exits by itself; all of its stdout.
pub fn run_piped(input: &[u8]) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_bashni"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("engine starts");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("write");
    let output = child.wait_with_output().expect("engine exits");
    String::from_utf8_lossy(&output.stdout).into_owned()
}
