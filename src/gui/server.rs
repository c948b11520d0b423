//! The HTTP side: the page and its assets, built into the binary, and the
//! WebSocket that carries one session per page. Every request passes the
//! checks of `security` first.

use super::security::{host_allowed, origin_allowed, token_matches};
use super::session::Session;
use axum::Router;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Query, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use bashni_host::asynchronous::EngineEvent;
use bashni_host::spec::EngineSpec;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

const INDEX_HTML: &str = include_str!("assets/index.html");
const APP_JS: &str = include_str!("assets/app.js");
const STYLE_CSS: &str = include_str!("assets/style.css");

/// A page message larger than this is refused (a PDN of a long game is a
/// few kilobytes).
const MAX_MESSAGE_BYTES: usize = 1 << 20;

/// How often gathered analysis lines go out to the page.
const ANALYSIS_FLUSH: Duration = Duration::from_millis(100);

/// What every handler needs.
pub struct AppState {
    pub port: u16,
    pub token: String,
    pub engine: EngineSpec,
}

type Shared = State<Arc<AppState>>;

pub fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/app.js", get(|| asset("text/javascript", APP_JS)))
        .route("/style.css", get(|| asset("text/css", STYLE_CSS)))
        .route("/ws", get(socket))
        .layer(middleware::from_fn_with_state(state.clone(), guard))
        .with_state(state)
}

fn header(headers: &HeaderMap, name: header::HeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Refuse any request not addressed to this server by name, or sent by a
/// page of another origin.
async fn guard(State(state): Shared, request: Request, next: Next) -> Response {
    let headers = request.headers();
    if !host_allowed(header(headers, header::HOST), state.port) {
        return (StatusCode::FORBIDDEN, "forbidden: wrong Host\n").into_response();
    }
    if !origin_allowed(header(headers, header::ORIGIN), state.port, false) {
        return (StatusCode::FORBIDDEN, "forbidden: foreign Origin\n").into_response();
    }
    next.run(request).await
}

async fn asset(content_type: &'static str, body: &'static str) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, content_type)], body)
}

fn token_ok(state: &AppState, query: &HashMap<String, String>) -> bool {
    token_matches(query.get("token").map(String::as_str), &state.token)
}

async fn index(State(state): Shared, Query(query): Query<HashMap<String, String>>) -> Response {
    if !token_ok(&state, &query) {
        let text = "forbidden: open the URL that `bashni gui` printed (it carries the token)\n";
        return (StatusCode::FORBIDDEN, text).into_response();
    }
    Html(INDEX_HTML).into_response()
}

/// The WebSocket needs the token and a page of this server's origin.
async fn socket(
    State(state): Shared,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Response {
    if !token_ok(&state, &query) {
        return (StatusCode::FORBIDDEN, "forbidden: missing or wrong token\n").into_response();
    }
    if !origin_allowed(header(&headers, header::ORIGIN), state.port, true) {
        return (StatusCode::FORBIDDEN, "forbidden: no Origin\n").into_response();
    }
    let engine = state.engine.clone();
    upgrade
        .max_message_size(MAX_MESSAGE_BYTES)
        .on_upgrade(move |socket| run_session(socket, engine))
}

/// One page's session until the page goes away.
async fn run_session(mut socket: WebSocket, engine: EngineSpec) {
    let (events, mut inbox) = mpsc::unbounded_channel::<EngineEvent>();
    let mut session = Session::start(engine, events, &mut inbox).await;
    session.push_state();
    let mut flush = tokio::time::interval(ANALYSIS_FLUSH);
    loop {
        if !send_all(&mut socket, &mut session).await {
            break;
        }
        tokio::select! {
            message = socket.recv() => match message {
                Some(Ok(Message::Text(text))) => session.on_client(&text, &mut inbox).await,
                Some(Ok(Message::Binary(_))) => session.on_client("binary", &mut inbox).await,
                Some(Ok(_)) => {}
                Some(Err(_)) | None => break,
            },
            Some(event) = inbox.recv() => session.on_engine(event).await,
            _ = flush.tick() => {}
        }
    }
    session.close().await;
}

/// Send what the session has queued; false once the page is gone.
async fn send_all(socket: &mut WebSocket, session: &mut Session) -> bool {
    for message in session.take_outbox() {
        let Ok(text) = serde_json::to_string(&message) else {
            continue;
        };
        if socket.send(Message::Text(text.into())).await.is_err() {
            return false;
        }
    }
    true
}
