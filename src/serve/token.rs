//! Seat tokens: no accounts, so the secret a browser keeps is what makes a
//! seat its own. A token is 128 random bits (32 hex digits); the database
//! keeps only its SHA-256 hash, so a leaked database does not let anyone
//! move for a player, and tokens are compared in constant time.

use rand::RngExt;
use sha2::{Digest, Sha256};
use std::fmt;

/// A fresh random identifier or token: 128 bits as 32 lowercase hex
/// digits. Room ids are made the same way, so a link-only room's id
/// cannot be guessed either.
pub fn random_hex128() -> String {
    let bits: u128 = rand::rng().random();
    format!("{bits:032x}")
}

/// Whether `text` has the form of [`random_hex128`]'s output: 32
/// lowercase hex digits (a room id or a token a client sent).
pub fn is_hex128(text: &str) -> bool {
    text.len() == 32 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// A seat token as the client holds it. Never stored; only its
/// [`TokenHash`] is.
#[derive(Clone, PartialEq, Eq)]
pub struct SeatToken(String);

impl SeatToken {
    /// A new random token.
    pub fn generate() -> SeatToken {
        SeatToken(random_hex128())
    }

    /// A token a client sent; `None` unless it has the form of a token
    /// (32 lowercase hex digits), so nothing else is ever hashed or stored.
    pub fn parse(text: &str) -> Option<SeatToken> {
        is_hex128(text).then(|| SeatToken(text.to_owned()))
    }

    /// The text to hand to the client (once, when it takes the seat).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Its hash, as the database keeps it.
    pub fn hash(&self) -> TokenHash {
        let digest = Sha256::digest(self.0.as_bytes());
        let mut hex = String::with_capacity(64);
        for byte in digest.iter() {
            hex.push_str(&format!("{byte:02x}"));
        }
        TokenHash(hex)
    }
}

/// Tokens are secrets: a debug print shows only that one is there.
impl fmt::Debug for SeatToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SeatToken(..)")
    }
}

/// The SHA-256 hash of a seat token, as 64 lowercase hex digits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenHash(String);

impl TokenHash {
    /// A hash read back from the database; `None` unless it has the form
    /// of one.
    pub fn from_stored(text: &str) -> Option<TokenHash> {
        (text.len() == 64 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
            .then(|| TokenHash(text.to_owned()))
    }

    /// The hex text the database stores.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `token` hashes to this, compared in time independent of
    /// where the hashes differ.
    pub fn matches(&self, token: &SeatToken) -> bool {
        constant_time_eq(token.hash().0.as_bytes(), self.0.as_bytes())
    }
}

/// Equality of two byte strings that takes the same time wherever they
/// differ (only the lengths, which are public, may end it early).
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len()
        && std::hint::black_box(a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y))) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_hex_and_hash_to_sha256() {
        let token = SeatToken::generate();
        assert_eq!(token.as_str().len(), 32);
        assert_ne!(token, SeatToken::generate());
        assert_eq!(SeatToken::parse(token.as_str()), Some(token.clone()));
        let hash = token.hash();
        assert_eq!(hash.as_str().len(), 64);
        assert!(hash.matches(&token));
        assert!(!hash.matches(&SeatToken::generate()));
        assert_eq!(TokenHash::from_stored(hash.as_str()), Some(hash));
        // A known vector (`echo -n 000…0 | sha256sum`).
        let known = SeatToken("00000000000000000000000000000000".into()).hash();
        assert_eq!(
            known.as_str(),
            "84e0c0eafaa95a34c293f278ac52e45ce537bab5e752a00e6959a13ae103b65a"
        );
        assert!(!format!("{token:?}").contains(token.as_str()));
    }

    #[test]
    fn malformed_tokens_are_refused() {
        for bad in [
            "",
            "0",
            "<script>",
            &"A".repeat(32),
            &"0".repeat(33),
            &"g".repeat(32),
        ] {
            assert_eq!(SeatToken::parse(bad), None, "{bad}");
        }
        assert_eq!(TokenHash::from_stored("x"), None);
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"ab"));
    }
}
