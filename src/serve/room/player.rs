//! Who sits in a seat: a person by a checked display name and the hash of
//! the seat's token, or the engine.

use super::RoomError;
use crate::serve::shown_text::{Unshown, could_pass_for_another, first_styled, unshown_in_name};
use crate::serve::store::SeatRecord;
use crate::serve::token::TokenHash;
use std::fmt;

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

/// Why a display name is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameFault {
    /// Nothing but spaces.
    Empty,
    /// More than [`MAX_NAME_CHARS`] characters: this many.
    TooLong(usize),
    /// It does not show as it reads.
    Unshown(Unshown),
    /// Its `at`th character (from 1) is a styled form of a plain one
    /// ("Ａnn", "Ann１").
    Styled {
        /// Where, from 1.
        at: usize,
        /// Which.
        c: char,
    },
    /// It reads as the engine's seat ("Engine (Skill 5)", or "bashni
    /// (Skill 5)" as rooms stored before named it) or a ladder rival's
    /// ("Rival 3").
    Engine,
    /// Two spaces in a row, which a page shows as one: "Ann  Lee" would
    /// pass for "Ann Lee".
    DoubleSpace,
}

impl fmt::Display for NameFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NameFault::Empty => f.write_str("a name needs a character other than a space"),
            NameFault::TooLong(n) => {
                write!(f, "a name has at most {MAX_NAME_CHARS} characters, not {n}")
            }
            NameFault::Unshown(unshown) => f.write_str(&unshown.describe("the name")),
            NameFault::Styled { at, c } => write!(
                f,
                "character {at} of the name (U+{:04X}) is a styled form of a letter, digit or sign: write it plainly",
                u32::from(*c)
            ),
            NameFault::DoubleSpace => f.write_str("a name has no two spaces in a row"),
            NameFault::Engine => f.write_str(
                "a name may not read as the engine's (\"Engine (Skill 5)\") or a ladder rival's (\"Rival 3\")",
            ),
        }
    }
}

/// Whether `name` reads as an engine seat's ("Engine (Skill 5)", or
/// "bashni (Skill 5)" as older rooms have it) or a ladder rival's
/// ("Rival 3"), read by its [`skeleton`]: "RivaI 3" with a capital I, or
/// "Engine ❨Skill 5❩" with ornament brackets, reads as the real one.
fn poses_as_the_engine(name: &str) -> bool {
    let name = skeleton(name);
    let engine = ["engine", "bashni"].iter().any(|seat| {
        let strength = name.strip_prefix(&skeleton(seat));
        strength.is_some_and(|s| s.starts_with(&skeleton("skill")) || s.starts_with("elo"))
    });
    // "Rival 3", "Rival #3.", "Rival l" (a letter for the digit), but not
    // "Rivals of Ann".
    let rival = (name.strip_prefix(&skeleton("rival"))).is_some_and(|rest| {
        rest.chars()
            .all(|c| c.is_ascii_digit() || matches!(c, 'l' | 'o'))
    });
    engine || rival
}

/// `name` as it looks at a glance: its letters and digits alone, lower
/// case, with the letters that pass for one another made one (i, I and
/// l; o and 0), so that names differing only there compare equal.
fn skeleton(name: &str) -> String {
    (name.chars())
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .map(|c| match c {
            'i' => 'l',
            '0' => 'o',
            c => c,
        })
        .collect()
}

/// What is wrong with the trimmed display name `name`, if anything.
fn name_fault(name: &str) -> Option<NameFault> {
    let chars = name.chars().count();
    if chars == 0 {
        return Some(NameFault::Empty);
    }
    if chars > MAX_NAME_CHARS {
        return Some(NameFault::TooLong(chars));
    }
    if let Some(unshown) = unshown_in_name(name) {
        return Some(NameFault::Unshown(unshown));
    }
    if let Some((at, c)) = first_styled(name) {
        return Some(NameFault::Styled { at, c });
    }
    if poses_as_the_engine(name) {
        return Some(NameFault::Engine);
    }
    name.contains("  ").then_some(NameFault::DoubleSpace)
}

impl Player {
    /// A person with `name` who holds the token hashing to `token_hash`.
    /// The name is trimmed; empty, too long or with a control, invisible
    /// or text-direction character, or any space but the plain one, or
    /// with letters that could pass for another's name, it is refused.
    pub fn human(name: &str, token_hash: TokenHash) -> Result<Player, RoomError> {
        let name = Player::check_name(name)?;
        Ok(Player {
            name: name.to_owned(),
            token_hash: Some(token_hash),
            engine: false,
        })
    }

    /// `name` trimmed, if a person may take it ([`Player::human`]).
    pub fn check_name(name: &str) -> Result<&str, RoomError> {
        let name = name.trim();
        if let Some(fault) = name_fault(name) {
            return Err(RoomError::BadName(fault));
        }
        if could_pass_for_another(name) {
            return Err(RoomError::LookalikeLetters);
        }
        Ok(name)
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
    fn names_that_show_nothing_mislead_or_pose_as_the_engine_are_refused_saying_why() {
        let hash = SeatToken::generate().hash();
        let fault = |name: &str| match Player::human(name, hash.clone()) {
            Err(RoomError::BadName(fault)) => Some(fault),
            _ => None,
        };
        let unseen = |at: usize, c: char| Some(NameFault::Unshown(Unshown::Unseen { at, c }));
        assert_eq!(fault("  "), Some(NameFault::Empty));
        assert_eq!(fault(&"x".repeat(41)), Some(NameFault::TooLong(41)));
        for (name, expected, what) in [
            ("a\nb", unseen(2, '\n'), "a line break"),
            (
                "Ann\u{202E}nimda",
                unseen(4, '\u{202E}'),
                "a right-to-left override",
            ),
            (
                "\u{200B}",
                unseen(1, '\u{200B}'),
                "a zero-width space alone",
            ),
            ("\u{FEFF}", unseen(1, '\u{FEFF}'), "a byte-order mark"),
            ("x\u{2028}y", unseen(2, '\u{2028}'), "a line separator"),
            ("\u{3164}", unseen(1, '\u{3164}'), "a Hangul filler"),
            (
                "Ann\u{061C}nimda",
                unseen(4, '\u{061C}'),
                "an Arabic letter mark",
            ),
            (
                "A\u{0600}nn",
                unseen(2, '\u{0600}'),
                "an Arabic number sign",
            ),
            ("A\u{00A0}nn", unseen(2, '\u{00A0}'), "a no-break space"),
            ("\u{2800}", unseen(1, '\u{2800}'), "a Braille blank"),
            ("\u{1D159}", unseen(1, '\u{1D159}'), "a blank notehead"),
            (
                "\u{1D173}\u{1D174}",
                unseen(1, '\u{1D173}'),
                "musical format characters",
            ),
            (
                "\u{0301}\u{0301}\u{0301}",
                Some(NameFault::Unshown(Unshown::Marks)),
                "marks alone",
            ),
            (
                "A\u{0300}\u{0300}\u{0300}",
                Some(NameFault::Unshown(Unshown::Marks)),
                "three marks on a letter",
            ),
            (
                "\u{0E2A}\u{0E47}\u{0E47}\u{0E47}",
                Some(NameFault::Unshown(Unshown::Marks)),
                "Thai marks piled up",
            ),
            (
                "Z\u{0591}\u{0591}\u{0591}",
                Some(NameFault::Unshown(Unshown::Marks)),
                "Hebrew accents piled on a Latin letter",
            ),
            (
                "bashni (Skill 20)",
                Some(NameFault::Engine),
                "the engine's name",
            ),
            (
                "BASHNI (skill 20)",
                Some(NameFault::Engine),
                "the engine's name in capitals",
            ),
            (
                "bashni  (Skill 20)",
                Some(NameFault::Engine),
                "the engine's name with two spaces",
            ),
            (
                "bashni(Skill 20)",
                Some(NameFault::Engine),
                "the engine's name with none",
            ),
            (
                "Engine (Elo 1500)",
                Some(NameFault::Engine),
                "the engine's seat as named now",
            ),
            ("Rival 3", Some(NameFault::Engine), "a ladder rival's name"),
            ("RivaI 3", Some(NameFault::Engine), "a capital I for the l"),
            ("Rival 10", Some(NameFault::Engine), "a rival past nine"),
            (
                "Engine \u{2768}Skill 5\u{2769}",
                Some(NameFault::Engine),
                "ornament brackets",
            ),
            ("Engine Ed", None, "a name that starts as the engine's"),
            ("Ann  Lee", Some(NameFault::DoubleSpace), "two spaces"),
            ("rival", Some(NameFault::Engine), "the rival's seat"),
            (
                "Rival #3.",
                Some(NameFault::Engine),
                "a rival's name dressed up",
            ),
            (
                "Ann\u{2122}",
                Some(NameFault::Styled {
                    at: 4,
                    c: '\u{2122}',
                }),
                "a trade mark sign",
            ),
        ] {
            assert_eq!(fault(name), expected, "{what}");
        }
        assert_eq!(
            RoomError::BadName(NameFault::Unshown(Unshown::Unseen {
                at: 4,
                c: '\u{202E}'
            }))
            .to_string(),
            "character 4 of the name (U+202E) is a control, invisible, text-direction, private-use or unassigned character, or a space but the plain one"
        );
        for name in [
            "Аня",
            "Ann 李",
            "Αλέξης",
            "Rivals of Ann",
            "Ann 🇫🇷",
            "สมชาย",
        ] {
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
        let html = Player::human(" <b>Ann</b> ", hash).expect("kept as text");
        assert_eq!(html.name, "<b>Ann</b>");
    }
}
