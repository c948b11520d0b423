//! Reading an engine's output safely: a line longer than a limit is cut
//! (the rest arrives as further lines), so a babbling engine cannot fill
//! the memory, and bad UTF-8 becomes U+FFFD.

/// A line longer than this is cut.
pub const MAX_LINE_BYTES: u64 = 64 * 1024;

/// One line as read from an engine (at most `MAX_LINE_BYTES`), as text
/// without its line end.
pub fn engine_line(bytes: &[u8]) -> String {
    let line = String::from_utf8_lossy(bytes);
    line.trim_end_matches(['\n', '\r']).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_lose_their_ends_and_bad_bytes() {
        assert_eq!(engine_line(b"uciok\r\n"), "uciok");
        assert_eq!(engine_line(b"\xff ok\n"), "\u{fffd} ok");
    }
}
