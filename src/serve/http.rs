//! The HTTP side of the play server: the page (ES modules built into the
//! binary: no build step, nothing from another site), the WebSocket, and
//! a room's game as a PDN download.
//!
//! Every request passes a guard first. On a loopback address the `Host`
//! must name this server (which defeats DNS rebinding); everywhere, a
//! browser request that carries an `Origin` must come from the page's
//! own origin, and the WebSocket requires one.

use super::connection;
use super::history;
use super::hub::Hub;
use super::store::StoreError;
use super::token::is_hex128;
use axum::Router;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{ConnectInfo, Path, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use std::net::SocketAddr;
use std::sync::Arc;

/// The page's files: (path, content type, text).
const ASSETS: &[(&str, &str, &str)] = &[
    ("style.css", "text/css", include_str!("assets/style.css")),
    ("main.js", "text/javascript", include_str!("assets/main.js")),
    (
        "network.js",
        "text/javascript",
        include_str!("assets/network.js"),
    ),
    (
        "board.js",
        "text/javascript",
        include_str!("assets/board.js"),
    ),
    (
        "lobby.js",
        "text/javascript",
        include_str!("assets/lobby.js"),
    ),
    ("room.js", "text/javascript", include_str!("assets/room.js")),
    ("chat.js", "text/javascript", include_str!("assets/chat.js")),
    (
        "sound.js",
        "text/javascript",
        include_str!("assets/sound.js"),
    ),
    (
        "replay.js",
        "text/javascript",
        include_str!("assets/replay.js"),
    ),
    (
        "analysis.js",
        "text/javascript",
        include_str!("assets/analysis.js"),
    ),
    ("text.js", "text/javascript", include_str!("assets/text.js")),
    (
        "variants.js",
        "text/javascript",
        include_str!("assets/variants.js"),
    ),
    (
        "study.js",
        "text/javascript",
        include_str!("assets/study.js"),
    ),
    (
        "editor.js",
        "text/javascript",
        include_str!("assets/editor.js"),
    ),
    ("runs.js", "text/javascript", include_str!("assets/runs.js")),
    (
        "numbering.js",
        "text/javascript",
        include_str!("assets/numbering.js"),
    ),
    (
        "typing.js",
        "text/javascript",
        include_str!("assets/typing.js"),
    ),
    (
        "pdnfile.js",
        "text/javascript",
        include_str!("assets/pdnfile.js"),
    ),
    (
        "favicon.svg",
        "image/svg+xml",
        include_str!("assets/favicon.svg"),
    ),
];

const INDEX_HTML: &str = include_str!("assets/index.html");

/// What the handlers share.
pub struct HttpState {
    /// The rooms.
    pub hub: Arc<Hub>,
    /// `Some(port)` when the server listens on a loopback address: then
    /// only `127.0.0.1:port` and `localhost:port` are accepted as `Host`.
    pub loopback_port: Option<u16>,
}

type Shared = State<Arc<HttpState>>;

/// The router of the play server.
pub fn router(state: Arc<HttpState>) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/room/{id}", get(room_page))
        .route("/analysis", get(index))
        .route("/editor", get(index))
        .route("/assets/{file}", get(asset))
        .route("/pdn/{id}", get(pdn))
        .route("/ws", get(socket))
        .fallback(not_found)
        .layer(middleware::from_fn_with_state(state.clone(), guard))
        .with_state(state)
}

fn header_text(headers: &HeaderMap, name: header::HeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Whether `host` is a name this server answers to.
pub fn host_allowed(host: Option<&str>, loopback_port: Option<u16>) -> bool {
    let Some(host) = host else {
        return false;
    };
    match loopback_port {
        Some(port) => [
            format!("127.0.0.1:{port}"),
            format!("localhost:{port}"),
            format!("[::1]:{port}"),
        ]
        .iter()
        .any(|own| host.eq_ignore_ascii_case(own)),
        None => !host.is_empty(),
    }
}

/// Whether `origin` is the page's own: `http://` or `https://` and the
/// very `Host` the request was sent to (behind a TLS proxy the browser
/// says `https`).
pub fn same_origin(origin: &str, host: &str) -> bool {
    ["http://", "https://"].iter().any(|scheme| {
        origin
            .strip_prefix(scheme)
            .is_some_and(|rest| rest.eq_ignore_ascii_case(host))
    })
}

async fn guard(State(state): Shared, request: Request, next: Next) -> Response {
    let headers = request.headers();
    let host = header_text(headers, header::HOST);
    if !host_allowed(host, state.loopback_port) {
        return (StatusCode::FORBIDDEN, "forbidden: wrong Host\n").into_response();
    }
    if let Some(origin) = header_text(headers, header::ORIGIN)
        && !same_origin(origin, host.unwrap_or(""))
    {
        return (StatusCode::FORBIDDEN, "forbidden: foreign Origin\n").into_response();
    }
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    // The page runs only its own scripts: no inline code, nothing from
    // another site, and it cannot be framed.
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        header::HeaderValue::from_static(
            "default-src 'self'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
        ),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        header::HeaderValue::from_static("nosniff"),
    );
    response
}

async fn index() -> Html<&'static str> {
    Html(INDEX_HTML)
}

/// A room's page, for an address that can name a room (whether the room
/// exists, the page learns from the server when it opens it).
async fn room_page(Path(id): Path<String>) -> Response {
    if is_hex128(&id) {
        Html(INDEX_HTML).into_response()
    } else {
        not_found().await
    }
}

/// Any other address: a page that says so and leads back to the lobby,
/// instead of an empty 404.
async fn not_found() -> Response {
    let page = "<!doctype html><meta charset=\"utf-8\"><title>Not found - bashni</title>\
                <link rel=\"stylesheet\" href=\"/assets/style.css\">\
                <header><h1><a href=\"/\">bashni</a></h1></header>\
                <main><p class=\"panel\">There is no page at this address. \
                <a href=\"/\">Go to the lobby</a>.</p></main>\n";
    (StatusCode::NOT_FOUND, Html(page)).into_response()
}

async fn asset(Path(file): Path<String>) -> Response {
    match ASSETS.iter().find(|(name, _, _)| *name == file) {
        Some((_, content_type, text)) => {
            ([(header::CONTENT_TYPE, *content_type)], *text).into_response()
        }
        None => (StatusCode::NOT_FOUND, "no such file\n").into_response(),
    }
}

/// Every game of a room as PDN, from the store (a finished room need
/// not be in memory).
async fn pdn(State(state): Shared, Path(id): Path<String>) -> Response {
    if !is_hex128(&id) {
        return (StatusCode::NOT_FOUND, "no such room\n").into_response();
    }
    let stored = match state.hub.shared.store.stored_room(&id).await {
        // A room closed before anyone joined, or whose games were all
        // called off, has no game to give.
        Ok(Some(room)) if !room.games.iter().any(history::kept_in_pdn) => {
            return (StatusCode::NOT_FOUND, "no game was played in this room\n").into_response();
        }
        Ok(Some(room)) => room,
        Ok(None) => return (StatusCode::NOT_FOUND, "no such room\n").into_response(),
        Err(StoreError::Busy) => return busy(),
        Err(e) => return (StatusCode::SERVICE_UNAVAILABLE, format!("{e}\n")).into_response(),
    };
    match history::pdn(&stored) {
        Ok(text) => (
            [
                (
                    header::CONTENT_TYPE,
                    "application/x-pdn; charset=utf-8".to_string(),
                ),
                (
                    header::CONTENT_DISPOSITION,
                    format!("attachment; filename=\"bashni-{}.pdn\"", &id[..8]),
                ),
            ],
            text,
        )
            .into_response(),
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n")).into_response(),
    }
}

/// The answer to a download that waited too long for its turn among the
/// reads of stored games ([`StoreError::Busy`]): come back soon.
fn busy() -> Response {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        [(header::RETRY_AFTER, "2")],
        format!("{}\n", StoreError::Busy),
    )
        .into_response()
}

/// A connection's read buffer: room for every usual client message (a
/// move, a room setup, a line on the analysis board) twice over; a rare
/// larger one (a pasted PDN, up to the message limit) is read in several
/// chunks. The WebSocket's default (128 KiB) is zeroed before every read
/// and kept per connection: with 550 connections under the load test that
/// was a fifth of the server's CPU (memset) and 70 MB of its memory.
const READ_BUFFER_BYTES: usize = 8 * 1024;

async fn socket(
    State(state): Shared,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Response {
    if header_text(&headers, header::ORIGIN).is_none() {
        return (StatusCode::FORBIDDEN, "forbidden: no Origin\n").into_response();
    }
    let hub = Arc::clone(&state.hub);
    let addr = super::listener::client_of(peer.ip());
    if !hub.connect(addr) {
        return (
            StatusCode::TOO_MANY_REQUESTS,
            "too many connections from your address\n",
        )
            .into_response();
    }
    // Twice what a message may be: one a little too long is read and
    // answered with what the limit is; beyond, the socket is closed as
    // soon as a frame's header says so (a frame is otherwise read whole
    // before its message is measured).
    let transport_limit = 2 * super::wire::MAX_CLIENT_MESSAGE_BYTES;
    upgrade
        .max_frame_size(transport_limit)
        .max_message_size(transport_limit)
        .read_buffer_size(READ_BUFFER_BYTES)
        .on_failed_upgrade({
            let hub = Arc::clone(&hub);
            move |_| hub.disconnect(addr)
        })
        .on_upgrade(move |socket| async move {
            connection::serve(socket, Arc::clone(&hub), addr).await;
            hub.disconnect(addr);
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_origins() {
        assert!(host_allowed(Some("127.0.0.1:8080"), Some(8080)));
        assert!(host_allowed(Some("LOCALHOST:8080"), Some(8080)));
        // The address a server on IPv6 loopback prints for its page.
        assert!(host_allowed(Some("[::1]:8080"), Some(8080)));
        assert!(!host_allowed(Some("evil.example:8080"), Some(8080)));
        assert!(!host_allowed(Some("127.0.0.1:8081"), Some(8080)));
        assert!(host_allowed(Some("play.example.org"), None));
        assert!(!host_allowed(None, None));
        assert!(same_origin("http://127.0.0.1:8080", "127.0.0.1:8080"));
        assert!(same_origin("https://play.example.org", "play.example.org"));
        assert!(!same_origin("http://evil.example", "play.example.org"));
        assert!(!same_origin("null", "play.example.org"));
        assert!(!same_origin(
            "http://play.example.org.evil",
            "play.example.org"
        ));
    }
}
