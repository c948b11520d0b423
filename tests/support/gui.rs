//! `bashni gui` run as a user would run it, for the GUI tests: the server
//! process, the URL it printed, and a WebSocket client that acts as a page.
#![allow(dead_code)] // each test file uses part of it

use crate::socket::Page;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

pub use crate::socket::PATIENCE;

/// A running `bashni gui`; killed when dropped.
pub struct Server {
    child: Child,
    pub port: u16,
    pub token: String,
    pub url: String,
}

impl Server {
    /// Start `bashni gui` with extra arguments and read the URL it prints.
    pub fn start(args: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_bashni"))
            .arg("gui")
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("bashni gui starts");
        let stdout = child.stdout.take().expect("stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("the server prints its URL");
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no URL in {line:?}"))
            .to_string();
        let rest = url
            .strip_prefix("http://127.0.0.1:")
            .expect("bound to 127.0.0.1");
        let (port, query) = rest.split_once('/').expect("a path");
        let token = query.strip_prefix("?token=").expect("a token").to_string();
        Server {
            child,
            port: port.parse().expect("a port"),
            token,
            url,
        }
    }

    /// The server with a fake engine from tests/fixtures/fake_engine.sh.
    pub fn with_fake_engine(mode: &str) -> Server {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/fake_engine.sh");
        Server::start(&["--engine", &format!("cmd={script},arg={mode}")])
    }

    pub fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// A raw HTTP GET with the given extra headers (Host is given apart, so
    /// a test can lie about it); returns the status code.
    pub fn get(&self, path: &str, host: &str, headers: &[(&str, &str)]) -> u16 {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        stream.set_read_timeout(Some(PATIENCE)).expect("timeout");
        let mut request = format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
        for (name, value) in headers {
            request += &format!("{name}: {value}\r\n");
        }
        request += "\r\n";
        stream.write_all(request.as_bytes()).expect("send");
        let mut response = String::new();
        let _ = stream.read_to_string(&mut response);
        response
            .split_whitespace()
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or_else(|| panic!("no status in {response:?}"))
    }

    /// Open the page's WebSocket with a chosen token and Origin; the
    /// handshake's HTTP status when it is refused.
    pub async fn connect(&self, token: Option<&str>, origin: Option<&str>) -> Result<Page, u16> {
        let query = token.map_or(String::new(), |t| format!("?token={t}"));
        Page::open(&format!("ws://127.0.0.1:{}/ws{query}", self.port), origin).await
    }

    /// A page as the browser opens it.
    pub async fn page(&self) -> Page {
        self.connect(Some(&self.token), Some(&self.origin()))
            .await
            .expect("the page connects")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Settings as the page sends them.
pub fn settings(mode: &str, engine_side: &str) -> Value {
    serde_json::json!({
        "type": "settings", "mode": mode, "engine_side": engine_side,
        "movetime_ms": 50, "skill": 20, "multipv": 3
    })
}
