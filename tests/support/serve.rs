//! `bashni serve` run as an operator would run it, for the play server's
//! tests: the process on a free port of 127.0.0.1 and a database of the
//! test's choosing, pages (WebSocket clients) that act as a browser would,
//! and `kill -9`.
#![allow(dead_code)] // each test file uses part of it

use crate::socket::Page;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// A running `bashni serve` or `bashni gui`; killed when dropped.
pub struct Serve {
    child: Child,
    /// Its port on 127.0.0.1.
    pub port: u16,
    /// How many unfinished rooms it said it restored (`serve` only).
    pub restored: usize,
    /// The first line it printed.
    pub banner: String,
    /// Its database and extra arguments, to start it again (`serve` only).
    relaunch: Option<(String, Vec<String>)>,
}

impl Serve {
    /// Start `bashni serve` on `database` with extra arguments, and read
    /// the line it prints once it listens.
    pub fn start(database: &str, args: &[&str]) -> Serve {
        Serve::start_on(0, database, args)
    }

    /// Kill this server with SIGKILL and start it again on its port,
    /// database and arguments: the pages reconnect to the same address.
    pub fn restart(&mut self) {
        self.kill9();
        let (database, args) = self.relaunch.take().expect("a `serve` to restart");
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        *self = Serve::start_on(self.port, &database, &args);
    }

    fn start_on(port: u16, database: &str, args: &[&str]) -> Serve {
        let mut command = Command::new(env!("CARGO_BIN_EXE_bashni"));
        let listen = format!("127.0.0.1:{port}");
        command
            .args(["serve", "--listen", &listen, "--database", database])
            .args(args);
        let mut serve = Serve::launch(command);
        let args = args.iter().map(|a| a.to_string()).collect();
        serve.relaunch = Some((database.to_string(), args));
        serve.restored = serve
            .banner
            .split_whitespace()
            .nth(2)
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no count in {:?}", serve.banner));
        serve
    }

    /// Start `bashni gui` with these arguments (and environment), and read
    /// the line it prints once it listens.
    pub fn gui(args: &[&str], env: &[(&str, &str)]) -> Serve {
        let mut command = Command::new(env!("CARGO_BIN_EXE_bashni"));
        command.arg("gui").args(args).envs(env.iter().copied());
        Serve::launch(command)
    }

    /// Run `command`, and read the address from its first line.
    fn launch(mut command: Command) -> Serve {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("bashni starts");
        let stdout = child.stdout.take().expect("stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("the server prints its address");
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://127.0.0.1:"))
            .unwrap_or_else(|| panic!("no address in {line:?}"));
        let port = url
            .trim_start_matches("http://127.0.0.1:")
            .trim_end_matches('/')
            .parse()
            .expect("a port");
        Serve {
            child,
            port,
            restored: 0,
            banner: line.trim_end().to_string(),
            relaunch: None,
        }
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Its memory from /proc (Linux): the resident set now and its peak
    /// (`VmRSS`, `VmHWM`), in bytes; `None` where /proc does not say.
    pub fn memory(&self) -> Option<(u64, u64)> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).ok()?;
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|rest| {
                    rest.trim()
                        .trim_end_matches("kB")
                        .trim()
                        .parse::<u64>()
                        .ok()
                })
                .map(|kib| kib * 1024)
        };
        Some((field("VmRSS:")?, field("VmHWM:")?))
    }

    /// The CPU time it has used so far (user and system), from /proc
    /// (Linux, 100 clock ticks a second); `None` where /proc does not say.
    pub fn cpu_time(&self) -> Option<std::time::Duration> {
        cpu_time_of(&format!("/proc/{}/stat", self.pid()))
    }

    /// The page's origin.
    pub fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// A page as a browser opens it (its welcome read).
    pub async fn page(&self) -> Page {
        let mut page = Page::open(
            &format!("ws://127.0.0.1:{}/ws", self.port),
            Some(&self.origin()),
        )
        .await
        .expect("the page connects");
        let welcome = page.next().await;
        assert_eq!(welcome["type"], "welcome", "{welcome}");
        page
    }

    /// The processes it started that are still running (its engines),
    /// from /proc (Linux).
    pub fn children(&self) -> Vec<u32> {
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        entries
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
            .filter(|&pid| {
                proc_stat(pid).is_some_and(|(state, parent)| parent == self.pid() && state != "Z")
            })
            .collect()
    }

    /// `kill -9`: no chance to flush or say goodbye.
    pub fn kill9(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// A raw HTTP GET with the given Host and extra headers: the status
    /// and the body.
    pub fn get(&self, path: &str, host: &str, headers: &[(&str, &str)]) -> (u16, String) {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        let mut request = format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
        for (name, value) in headers {
            request += &format!("{name}: {value}\r\n");
        }
        request += "\r\n";
        stream.write_all(request.as_bytes()).expect("send");
        let mut response = String::new();
        let _ = stream.read_to_string(&mut response);
        let status = response
            .split_whitespace()
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or_else(|| panic!("no status in {response:?}"));
        let body = response
            .split_once("\r\n\r\n")
            .map_or("", |(_, b)| b)
            .to_string();
        (status, body)
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        self.kill9();
    }
}

/// The user and system CPU time in a /proc `stat` file (100 ticks a
/// second): of a server, or of the test itself with `/proc/self/stat`.
pub fn cpu_time_of(stat: &str) -> Option<std::time::Duration> {
    let text = std::fs::read_to_string(stat).ok()?;
    // The fields after the command name, which is in parentheses.
    let fields: Vec<&str> = text.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(std::time::Duration::from_millis(ticks * 10))
}

/// A process's state letter and parent, from /proc (Linux); `None` once
/// it is gone.
pub fn proc_stat(pid: u32) -> Option<(String, u32)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command name, which is in parentheses.
    let mut fields = text.rsplit_once(')')?.1.split_whitespace();
    let state = fields.next()?.to_string();
    Some((state, fields.next()?.parse().ok()?))
}

/// Whether process `pid` has exited (gone, or a zombie not yet reaped).
pub fn exited(pid: u32) -> bool {
    proc_stat(pid).is_none_or(|(state, _)| state == "Z")
}

/// An engine spec whose first process exits on `go` (and leaves the file
/// `marker` behind), and every later one is this program: an engine that
/// crashes once and is then replaced.
pub fn crash_once_engine(marker: &std::path::Path) -> String {
    once_engine("crashonce", marker)
}

/// An engine spec whose first process (which leaves the file `marker`
/// behind) answers every search with a move that is not legal and lives
/// on, and every later one is this program.
pub fn illegal_once_engine(marker: &std::path::Path) -> String {
    once_engine("illegalonce", marker)
}

/// An engine spec that plays as this program but reports, in each
/// position, the score `scores[k]` (centipawns, side to move's view) for
/// a position `k` plies into the game, the last one beyond; with
/// `delay_s`, it waits that many seconds before each search.
pub fn proxy_engine(scores: &[i32], delay_s: Option<f64>) -> String {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/fake_engine.sh");
    let scores: Vec<String> = scores.iter().map(i32::to_string).collect();
    let delay = delay_s.map_or(String::new(), |s| format!(",arg={s}"));
    format!(
        "cmd={script},arg=proxy,arg={},arg={}{delay}",
        env!("CARGO_BIN_EXE_bashni"),
        scores.join(":")
    )
}

/// The fake engine in `mode` for its first process, this program after.
fn once_engine(mode: &str, marker: &std::path::Path) -> String {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/fake_engine.sh");
    format!(
        "cmd={script},arg={mode},arg={},arg={}",
        marker.display(),
        env!("CARGO_BIN_EXE_bashni")
    )
}

/// A room setup as the page's form sends it.
pub fn setup(opponent: &str, clock: Option<&str>, colour: &str) -> Value {
    json!({
        "variant": "bashni",
        "rules": {"forced_capture": true, "king_landing": "continue",
                  "no_progress_plies": 30, "repetitions": 3, "max_plies": 0},
        "clock": clock, "colour": colour, "opponent": opponent
    })
}

/// Create a room as `name`: its id and the creator's token.
pub async fn create(page: &mut Page, name: &str, setup: Value) -> (String, String) {
    page.send(json!({"type": "create", "name": name, "setup": setup}))
        .await;
    let (seated, _) = page
        .until(|m| m["type"] == "seated" || m["type"] == "error")
        .await;
    assert_eq!(seated["type"], "seated", "{seated}");
    (
        seated["room"].as_str().expect("room").to_string(),
        seated["token"].as_str().expect("token").to_string(),
    )
}

/// The next room state that passes `wanted`.
pub async fn room_state(page: &mut Page, wanted: impl Fn(&Value) -> bool) -> Value {
    page.until(|m| m["type"] == "room" && wanted(m)).await.0
}

/// The next error message.
pub async fn error(page: &mut Page) -> String {
    let (error, _) = page.until(|m| m["type"] == "error").await;
    error["message"].as_str().expect("message").to_string()
}

/// The moves of a room state.
pub fn moves(state: &Value) -> Vec<String> {
    state["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| m.as_str().expect("text").to_string())
        .collect()
}

/// The first legal move of a room state.
pub fn first_legal(state: &Value) -> String {
    state["legal"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no legal move in {state}"))
        .to_string()
}
