//! A page's WebSocket for the server tests: open it with a chosen
//! Origin, send JSON, and read the server's messages until one is wanted.
#![allow(dead_code)] // each test file uses part of it

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use std::time::Duration;
use tokio::net::TcpStream as AsyncTcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// Generous: these tests check behaviour, not speed.
pub const PATIENCE: Duration = Duration::from_secs(20);

/// A page's read buffer: bytes per read from the socket.
const READ_BUFFER_BYTES: usize = 16 * 1024;

/// One page's WebSocket.
pub struct Page {
    socket: WebSocketStream<MaybeTlsStream<AsyncTcpStream>>,
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
            Ok((socket, _)) => Ok(Page { socket }),
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

    pub async fn send(&mut self, message: Value) {
        self.send_text(&message.to_string()).await;
    }

    pub async fn send_text(&mut self, text: &str) {
        self.socket
            .send(Message::Text(text.into()))
            .await
            .expect("send");
    }

    /// The next message of the server.
    pub async fn next(&mut self) -> Value {
        serde_json::from_str(&self.next_text().await).expect("JSON")
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
        let mut seen = Vec::new();
        loop {
            let message = self.next().await;
            if wanted(&message) {
                return (message, seen);
            }
            seen.push(message);
        }
    }

    /// The next `state` message that passes `wanted`.
    pub async fn state(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        self.until(|m| m["type"] == "state" && wanted(m)).await.0
    }
}
