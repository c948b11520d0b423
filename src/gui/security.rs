//! Who may drive the engine: only the page this server handed out.
//!
//! A web page on another site can make the user's browser send requests to
//! 127.0.0.1, so every request must name this server as its `Host` (which
//! also defeats DNS rebinding), a browser request must come from this
//! server's own `Origin`, and the WebSocket needs the per-run token that
//! only the printed URL carries.

use rand::RngExt;

/// A fresh random token: 128 bits as hex.
pub fn new_token() -> String {
    let bits: u128 = rand::rng().random();
    format!("{bits:032x}")
}

/// The names this server answers to.
fn own_hosts(port: u16) -> [String; 2] {
    [format!("127.0.0.1:{port}"), format!("localhost:{port}")]
}

/// Whether a `Host` header names this server.
pub fn host_allowed(host: Option<&str>, port: u16) -> bool {
    host.is_some_and(|h| {
        own_hosts(port)
            .iter()
            .any(|own| h.eq_ignore_ascii_case(own))
    })
}

/// Whether an `Origin` header is this server's own. A request without one
/// did not come from a script on another site.
pub fn origin_allowed(origin: Option<&str>, port: u16, required: bool) -> bool {
    match origin {
        None => !required,
        Some(origin) => own_hosts(port)
            .iter()
            .any(|own| origin.eq_ignore_ascii_case(&format!("http://{own}"))),
    }
}

/// Compare tokens in time independent of where they differ.
pub fn token_matches(given: Option<&str>, token: &str) -> bool {
    let Some(given) = given else {
        return false;
    };
    given.len() == token.len()
        && given
            .bytes()
            .zip(token.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_origins() {
        assert!(host_allowed(Some("127.0.0.1:8080"), 8080));
        assert!(host_allowed(Some("LOCALHOST:8080"), 8080));
        assert!(!host_allowed(Some("127.0.0.1:8081"), 8080));
        assert!(!host_allowed(Some("evil.example:8080"), 8080));
        assert!(!host_allowed(None, 8080));
        assert!(origin_allowed(Some("http://localhost:8080"), 8080, true));
        assert!(!origin_allowed(Some("http://evil.example"), 8080, true));
        assert!(!origin_allowed(Some("null"), 8080, false));
        assert!(!origin_allowed(None, 8080, true));
        assert!(origin_allowed(None, 8080, false));
    }

    #[test]
    fn tokens() {
        let token = new_token();
        assert_eq!(token.len(), 32);
        assert_ne!(token, new_token());
        assert!(token_matches(Some(&token), &token));
        assert!(!token_matches(Some("0"), &token));
        assert!(!token_matches(None, &token));
    }
}
