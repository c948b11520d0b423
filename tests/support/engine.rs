//! The engine binary driven through stdin/stdout, as a host drives it.
//!
//! The conversation goes through the match runner's own wrapper
//! (`bashni_host::blocking`), so the tests and `bashni match` start and
//! read the engine the same way: every wait has a deadline, and a silent
//! engine fails the test instead of hanging it. A failure of the engine
//! panics with the wrapper's reason. After the handshake the tests read
//! the raw lines, since the engine's own output is what they check.

use bashni_host::Error;
use bashni_host::blocking::Engine as Client;
use bashni_host::protocol::HANDSHAKE_TIMEOUT;
use bashni_host::spec::EngineSpec;
use std::io::Write;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Generous: these tests check behaviour, not speed.
const PATIENCE: Duration = Duration::from_secs(20);

/// The engine after its handshake (`uci`, `isready`).
pub struct Engine {
    client: Client,
}

#[track_caller]
fn ok<T>(result: Result<T, Error>) -> T {
    result.unwrap_or_else(|e| panic!("engine {e}"))
}

impl Engine {
    pub fn start() -> Engine {
        Engine::start_command(env!("CARGO_BIN_EXE_bashni"), &[])
    }

    /// The engine started by another command (a shell that limits it,
    /// say), which must end up running the binary.
    pub fn start_command(cmd: &str, args: &[&str]) -> Engine {
        let spec = EngineSpec {
            name: "bashni".into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            ..EngineSpec::new(cmd)
        };
        Engine {
            client: ok(Client::start(&spec, &[], HANDSHAKE_TIMEOUT)),
        }
    }

    #[track_caller]
    pub fn send(&mut self, command: &str) {
        ok(self.client.send_line(command));
    }

    /// The next line, trimmed.
    #[track_caller]
    pub fn line(&mut self) -> String {
        let deadline = Instant::now() + PATIENCE;
        ok(self.client.next_line(deadline)).trim().to_string()
    }

    /// The next line, or `None` when none comes within `wait`.
    #[track_caller]
    pub fn line_within(&mut self, wait: Duration) -> Option<String> {
        match self.client.next_line(Instant::now() + wait) {
            Ok(line) => Some(line.trim().to_string()),
            Err(Error::Stalled(_)) => None,
            Err(e) => panic!("engine {e}"),
        }
    }

    /// All lines (trimmed) up to and including the first that starts with
    /// `prefix`.
    #[track_caller]
    pub fn until(&mut self, prefix: &str) -> Vec<String> {
        let mut seen = Vec::new();
        let deadline = Instant::now() + PATIENCE;
        loop {
            let line = ok(self.client.next_line(deadline)).trim().to_string();
            let done = line.starts_with(prefix);
            seen.push(line);
            if done {
                return seen;
            }
        }
    }

    /// Synchronise with `isready` and return what came before `readyok`.
    #[track_caller]
    pub fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        let mut lines = self.until("readyok");
        lines.pop();
        lines
    }

    #[track_caller]
    pub fn fen(&mut self) -> String {
        self.send("d");
        let lines = self.until("Key:");
        let fen = lines
            .iter()
            .find_map(|l| l.strip_prefix("Fen: "))
            .expect("a Fen line");
        fen.to_string()
    }

    /// Whether the engine closes its output, that is exits, within five
    /// seconds; its remaining lines are skipped.
    pub fn exits(&mut self) -> bool {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            match self.client.next_line(deadline) {
                Ok(_) => {}
                Err(e) => return matches!(e, Error::Crashed(_)),
            }
        }
    }

    #[track_caller]
    pub fn bestmove(&mut self) -> String {
        bestmove_in(&self.until("bestmove"))
    }
}

/// The move of the `bestmove` line that ends `lines` (as read by
/// `Engine::until("bestmove")`), for tests that also read the lines
/// before it.
#[track_caller]
pub fn bestmove_in(lines: &[String]) -> String {
    let last = lines.last().expect("bestmove line");
    last.split_whitespace().nth(1).expect("a move").to_string()
}

fn spawn(stdout: Stdio) -> (Child, ChildStdin) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_bashni"))
        .stdin(Stdio::piped())
        .stdout(stdout)
        .spawn()
        .expect("engine starts");
    let stdin = child.stdin.take().expect("stdin");
    (child, stdin)
}

/// Run the engine on `input` until it exits by itself; all of its stdout.
pub fn run_piped(input: &[u8]) -> String {
    let (child, mut stdin) = spawn(Stdio::piped());
    stdin.write_all(input).expect("write");
    drop(stdin);
    let output = child.wait_with_output().expect("engine exits");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Send `commands`, wait `pause`, send `last` with the input still open,
/// and return how the engine exited, or `None` when it is still running
/// five seconds later (it is killed then). The match runner's client
/// cannot tell the exit status: it hides its process.
pub fn exit_after(commands: &str, pause: Duration, last: &str) -> Option<ExitStatus> {
    let (mut child, mut stdin) = spawn(Stdio::null());
    writeln!(stdin, "{commands}").expect("write");
    std::thread::sleep(pause);
    writeln!(stdin, "{last}").expect("write");
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if let Some(status) = child.try_wait().expect("wait") {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}
