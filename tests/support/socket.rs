//! A page's WebSocket for the server tests: open it with a chosen
//! Origin, send JSON, and read the server's messages until one is wanted.
#![allow(dead_code)] // each test file uses part of it

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use std::time::Duration;
use tokio::net::TcpStream as AsyncTcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::protocol::frame::Frame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// Generous: these tests check behaviour, not speed.
pub const PATIENCE: Duration = Duration::from_secs(20);

/// How long [`Page::until`] reads messages that are not the one wanted (a
/// room that keeps changing, never to the state a test waits for, must
/// fail the test, not hold it for ever).
pub const UNTIL_PATIENCE: Duration = Duration::from_secs(120);

/// A page's read buffer: bytes per read from the socket.
const READ_BUFFER_BYTES: usize = 16 * 1024;

/// One page's WebSocket.
pub struct Page {
    socket: WebSocketStream<MaybeTlsStream<AsyncTcpStream>>,
    /// The room's state as last read, for the changes after moves.
    room: Option<Value>,
}

impl Page {
    /// Open `url` (`ws://...`) with this `Origin`; the handshake's HTTP
    /// status when it is refused.
    pub async fn open(url: &str, origin: Option<&str>) -> Result<Page, u16> {
        let mut request = url.into_client_request().expect("request");
        if let Some(origin) = origin {
            request
                .headers_mut()
                .insert("Origin", origin.parse().expect("header"));
        }
        // As a browser: Nagle's algorithm off, and a small read buffer
        // (tungstenite zeroes it before each read: 128 KiB by default was
        // a quarter of the load test's client CPU).
        let config = WebSocketConfig::default().read_buffer_size(READ_BUFFER_BYTES);
        match tokio_tungstenite::connect_async_with_config(request, Some(config), true).await {
            Ok((socket, _)) => Ok(Page { socket, room: None }),
            Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
                Err(response.status().as_u16())
            }
            Err(e) => panic!("WebSocket failed: {e}"),
        }
    }

    /// Send `message` if the socket is still open; false once it is not.
    pub async fn try_send(&mut self, message: Value) -> bool {
        self.socket
            .send(Message::Text(message.to_string().into()))
            .await
            .is_ok()
    }

    /// Whether the server has closed the socket (within a moment).
    pub async fn is_closed(&mut self) -> bool {
        loop {
            match tokio::time::timeout(PATIENCE, self.socket.next()).await {
                Ok(None) | Ok(Some(Err(_))) | Ok(Some(Ok(Message::Close(_)))) => return true,
                Ok(Some(Ok(_))) => continue,
                Err(_) => return false,
            }
        }
    }

    /// Send `bytes` in a text frame, UTF-8 or not, as a broken client
    /// would; false once the socket is closed.
    pub async fn try_send_raw_text(&mut self, bytes: Vec<u8>) -> bool {
        let frame = Frame::message(bytes, OpCode::Data(Data::Text), true);
        self.socket.send(Message::Frame(frame)).await.is_ok()
    }

    /// The code and reason of the close frame the server ends with,
    /// reading past anything before it; `None` if it ends without one.
    pub async fn close_frame(&mut self) -> Option<(u16, String)> {
        loop {
            match tokio::time::timeout(PATIENCE, self.socket.next()).await {
                Ok(Some(Ok(Message::Close(Some(frame))))) => {
                    return Some((u16::from(frame.code), frame.reason.to_string()));
                }
                Ok(Some(Ok(Message::Close(None))) | None | Some(Err(_))) => return None,
                Ok(Some(Ok(_))) => {}
                Err(_) => panic!("the socket stays open"),
            }
        }
    }

    /// Send `bytes` as a binary message if the socket is still open; false
    /// once it is not.
    pub async fn try_send_binary(&mut self, bytes: Vec<u8>) -> bool {
        self.socket
            .send(Message::Binary(bytes.into()))
            .await
            .is_ok()
    }

    /// Send a ping frame if the socket is still open; false once it is
    /// not.
    pub async fn try_send_ping(&mut self) -> bool {
        self.socket
            .send(Message::Ping(vec![0; 8].into()))
            .await
            .is_ok()
    }

    pub async fn send(&mut self, message: Value) {
        self.send_text(&message.to_string()).await;
    }

    pub async fn send_text(&mut self, text: &str) {
        self.socket
            .send(Message::Text(text.into()))
            .await
            .expect("send");
    }

    /// The next message of the server. The change a move made to a room
    /// (`room_move`) is applied to the state before and returned as the
    /// whole state (`room`), as the page does; it must follow that state.
    pub async fn next(&mut self) -> Value {
        let message: Value = serde_json::from_str(&self.next_text().await).expect("JSON");
        let message = match message["type"].as_str() {
            Some("room_move") => after_move(self.room.as_ref(), &message),
            _ => message,
        };
        if message["type"] == "room" {
            self.room = Some(message.clone());
        }
        message
    }

    /// The next message of the server as its text (for a client that
    /// parses only what it needs).
    pub async fn next_text(&mut self) -> Utf8Bytes {
        loop {
            let message = tokio::time::timeout(PATIENCE, self.socket.next())
                .await
                .expect("the server answers in time")
                .expect("the socket stays open")
                .expect("a message");
            if let Message::Text(text) = message {
                if std::env::var("GUI_TEST_TRACE").is_ok() {
                    eprintln!("<< {text}");
                }
                return text;
            }
        }
    }

    /// The next message of the server if one comes within `wait`; `None`
    /// otherwise (nothing is lost: the message is read on the next call).
    pub async fn next_within(&mut self, wait: Duration) -> Option<Value> {
        tokio::time::timeout(wait, self.next()).await.ok()
    }

    /// [`Page::next_text`] if a message comes within `wait`.
    pub async fn next_text_within(&mut self, wait: Duration) -> Option<Utf8Bytes> {
        tokio::time::timeout(wait, self.next_text()).await.ok()
    }

    /// Read messages until one passes `wanted`; the ones passed over are
    /// returned too, for tests that look at what came before.
    pub async fn until(&mut self, wanted: impl Fn(&Value) -> bool) -> (Value, Vec<Value>) {
        let deadline = tokio::time::Instant::now() + UNTIL_PATIENCE;
        let mut seen = Vec::new();
        loop {
            let message = self.next().await;
            if wanted(&message) {
                return (message, seen);
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "no wanted message in {UNTIL_PATIENCE:?}; the last was {message}"
            );
            seen.push(message);
        }
    }

    /// The next `state` message that passes `wanted`.
    pub async fn state(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        self.until(|m| m["type"] == "state" && wanted(m)).await.0
    }
}

/// The room state `before` with the change a move made (`change`, a
/// `room_move` message) applied; panics unless the change follows it.
pub fn after_move(before: Option<&Value>, change: &Value) -> Value {
    let mut room = before.expect("a room_move after a room state").clone();
    let moves = room["moves"].as_array().expect("moves").len();
    assert_eq!(change["id"], room["id"], "a change to another room");
    assert_eq!(
        change["seq"],
        room["seq"].as_u64().expect("seq") + 1,
        "{change}"
    );
    assert_eq!(change["game_no"], room["game_no"], "{change}");
    assert_eq!(change["ply"], moves + 1, "{change}");
    for (key, value) in change.as_object().expect("an object") {
        match key.as_str() {
            "type" | "ply" => {}
            "move" => room["moves"]
                .as_array_mut()
                .expect("moves")
                .push(value.clone()),
            _ => room[key] = value.clone(),
        }
    }
    room
}
