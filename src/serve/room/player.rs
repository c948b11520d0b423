//! Who sits in a seat: a person by a checked display name and the hash of
//! the seat's token, or the engine.

use super::RoomError;
use crate::serve::shown_text::{could_pass_for_another, shows_as_it_reads};
use crate::serve::store::SeatRecord;
use crate::serve::token::TokenHash;

/// The longest display name, in characters.
pub const MAX_NAME_CHARS: usize = 40;

/// Who sits in a seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Player {
    /// The display name (checked by [`Player::human`]; escaping is the
    /// page's job).
    pub name: String,
    /// The hash of the seat's token; `None` for the engine.
    pub token_hash: Option<TokenHash>,
    /// Whether the engine sits here.
    pub engine: bool,
}

/// Whether `name` reads as an engine seat's ("bashni (Skill 5)"), spaces
/// aside (a page shows two as one).
fn poses_as_the_engine(name: &str) -> bool {
    let squeezed: String = name.chars().filter(|c| !c.is_whitespace()).collect();
    squeezed.to_lowercase().starts_with("bashni(")
}

impl Player {
    /// A person with `name` who holds the token hashing to `token_hash`.
    /// The name is trimmed; empty, too long or with a control, invisible
    /// or text-direction character, or any space but the plain one, or
    /// with letters that could pass for another's name, it is refused.
    pub fn human(name: &str, token_hash: TokenHash) -> Result<Player, RoomError> {
        let name = name.trim();
        if name.is_empty()
            || name.chars().count() > MAX_NAME_CHARS
            || !shows_as_it_reads(name)
            || poses_as_the_engine(name)
        {
            return Err(RoomError::BadName);
        }
        if could_pass_for_another(name) {
            return Err(RoomError::LookalikeLetters);
        }
        Ok(Player {
            name: name.to_owned(),
            token_hash: Some(token_hash),
            engine: false,
        })
    }

    /// This player's row for the store, in `seat`, taken at `joined_at_ms`.
    pub fn seat_record(&self, seat: u8, joined_at_ms: i64) -> SeatRecord {
        SeatRecord {
            seat,
            name: self.name.clone(),
            token_hash: self.token_hash.clone(),
            engine: self.engine,
            joined_at_ms,
        }
    }

    /// The engine, shown as `name`.
    pub fn engine(name: &str) -> Player {
        Player {
            name: name.to_owned(),
            token_hash: None,
            engine: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::serve::token::SeatToken;

    #[test]
    fn names_that_show_nothing_mislead_or_pose_as_the_engine_are_refused() {
        let hash = SeatToken::generate().hash();
        assert_eq!(Player::human("  ", hash.clone()), Err(RoomError::BadName));
        assert_eq!(Player::human("a\nb", hash.clone()), Err(RoomError::BadName));
        assert_eq!(
            Player::human("Ann\u{202E}nimda", hash.clone()),
            Err(RoomError::BadName),
            "a right-to-left override"
        );
        for (name, what) in [
            ("\u{200B}", "a zero-width space alone"),
            ("\u{FEFF}", "a byte-order mark"),
            ("x\u{2028}y", "a line separator"),
            ("\u{3164}", "a Hangul filler"),
            ("Ann\u{061C}nimda", "an Arabic letter mark"),
            ("A\u{00A0}nn", "a no-break space"),
            ("\u{2800}", "a Braille blank"),
            ("\u{1D173}\u{1D174}", "musical format characters"),
            ("\u{0301}\u{0301}\u{0301}", "marks alone"),
            ("A\u{0300}\u{0300}\u{0300}", "three marks on a letter"),
            ("bashni (Skill 20)", "the engine's name"),
            ("BASHNI (skill 20)", "the engine's name in capitals"),
            ("bashni  (Skill 20)", "the engine's name with two spaces"),
            ("bashni(Skill 20)", "the engine's name with none"),
        ] {
            assert_eq!(
                Player::human(name, hash.clone()),
                Err(RoomError::BadName),
                "{what}"
            );
        }
        for name in ["Аня", "Ann 李", "Αλέξης"] {
            assert!(
                Player::human(name, hash.clone()).is_ok(),
                "{name}: any script is welcome"
            );
        }
        assert_eq!(
            Player::human("\u{0410}nn", hash.clone()),
            Err(RoomError::LookalikeLetters),
            "a Cyrillic А passing for Ann"
        );
        assert!(
            Player::human("Nguyễn Thị", hash.clone()).is_ok(),
            "precomposed letters"
        );
        assert!(
            Player::human("Nguye\u{0302}\u{0303}n", hash.clone()).is_ok(),
            "two marks on a letter"
        );
        assert_eq!(
            Player::human(&"x".repeat(41), hash.clone()),
            Err(RoomError::BadName)
        );
        let html = Player::human(" <b>Ann</b> ", hash).expect("kept as text");
        assert_eq!(html.name, "<b>Ann</b>");
    }
}
