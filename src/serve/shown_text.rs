//! Text people type for others to read (display names, chat lines): it
//! must show as what it is. The page puts it into text nodes, so markup
//! is harmless; what is refused here is what misleads in plain text.

use unicode_properties::{GeneralCategory, UnicodeEmoji, UnicodeGeneralCategory};
use unicode_script::{Script, UnicodeScript};

/// Characters a name or a chat line may not hold: control characters;
/// format characters (Unicode's category Cf: text-direction embeddings,
/// overrides, isolates and marks, which can make a text read as another's
/// or spill over the text after it; zero-width spaces and joiners, the
/// byte-order mark, soft hyphens, tags, Arabic number signs); any space
/// but the plain one (line and paragraph separators); and the other
/// characters that show nothing (fillers, blanks, variation selectors),
/// which can make two names that look the same differ, or a text of
/// nothing; and characters with no agreed shape (private use, unassigned
/// and noncharacters), which each font draws its own way or as a box.
fn is_unfit(c: char) -> bool {
    c.is_control()
        || (c.is_whitespace() && c != ' ')
        || matches!(
            c.general_category(),
            GeneralCategory::Format | GeneralCategory::PrivateUse | GeneralCategory::Unassigned
        )
        || matches!(
            c,
            '\u{034F}'
                | '\u{115F}'
                | '\u{1160}'
                | '\u{17B4}'
                | '\u{17B5}'
                | '\u{180B}'..='\u{180F}'
                | '\u{2800}'
                | '\u{3164}'
                | '\u{FE00}'..='\u{FE0F}'
                | '\u{FFA0}'
                | '\u{1D159}'
                | '\u{E0100}'..='\u{E01EF}'
        )
}

/// Whether `c` is a combining mark that draws on the character before it
/// (nonspacing or enclosing, in any script); spacing marks take room of
/// their own.
fn is_combining(c: char) -> bool {
    matches!(
        c.general_category(),
        GeneralCategory::NonspacingMark | GeneralCategory::EnclosingMark
    )
}

/// The most combining marks one character may carry (Vietnamese stacks
/// two, as do Thai's vowel and tone marks); more pile up over the text
/// around.
pub const MAX_MARKS_PER_CHAR: usize = 2;

/// Whether the marks of `text` sit on characters, at most
/// [`MAX_MARKS_PER_CHAR`] on each: a text of marks alone shows nothing.
fn marks_fit(text: &str) -> bool {
    let mut run = 0;
    for (i, c) in text.chars().enumerate() {
        run = if is_combining(c) { run + 1 } else { 0 };
        if (i == 0 && run > 0) || run > MAX_MARKS_PER_CHAR {
            return false;
        }
    }
    true
}

/// What emoji are built with: the zero-width joiner between the emoji of
/// a sequence (a family, a rainbow flag) and the selectors of emoji or
/// text presentation (phone keyboards add them to a heart). Invisible,
/// they are refused in names, where they would tell two lookalike names
/// apart, but not in chat inside emoji, where they mislead nobody.
fn builds_emoji(c: char) -> bool {
    matches!(c, '\u{200D}' | '\u{FE0E}' | '\u{FE0F}')
}

/// The first emoji builder of a chat line (its index from 0) that sits
/// outside emoji. Inside, it is a joiner between two (after a selector or
/// a skin tone too), a selector right after one, or after a keycap's
/// digit, `#` or `*` (`1️⃣`). Anywhere else (a joiner inside a number)
/// it only hides something.
fn first_stray_builder(text: &str) -> Option<usize> {
    let chars: Vec<char> = text.chars().collect();
    let at = |i: Option<usize>| i.and_then(|i| chars.get(i)).copied();
    // Unicode counts digits, `#` and `*` as emoji: only keycaps make them so.
    let emoji =
        |c: Option<char>| c.is_some_and(|c| c.is_emoji_char() && !c.is_ascii() && !builds_emoji(c));
    let keycap = |i: usize| {
        at(i.checked_sub(1)).is_some_and(|c| c.is_ascii_digit() || c == '#' || c == '*')
            && at(Some(i + 1)) == Some('\u{20E3}')
    };
    (0..chars.len()).find(|&i| match chars[i] {
        '\u{200D}' => {
            let before = at(i.checked_sub(1));
            !((emoji(before) || before == Some('\u{FE0F}')) && emoji(at(Some(i + 1))))
        }
        '\u{FE0E}' | '\u{FE0F}' => !(emoji(at(i.checked_sub(1))) || keycap(i)),
        _ => false,
    })
}

/// The spaces French puts before `:` `;` `!` `?` and inside guillemets
/// (no-break and narrow no-break): plain in chat, where no name could
/// pass for another with them.
fn is_french_space(c: char) -> bool {
    matches!(c, '\u{00A0}' | '\u{202F}')
}

/// The sets of scripts a name may mix, as Unicode's security guidelines
/// allow for identifiers ("highly restrictive", UTS #39): Latin with the
/// scripts written beside it in China, Japan and Korea.
const SCRIPTS_TOGETHER: [&[Script]; 3] = [
    &[
        Script::Latin,
        Script::Han,
        Script::Hiragana,
        Script::Katakana,
    ],
    &[Script::Latin, Script::Han, Script::Bopomofo],
    &[Script::Latin, Script::Han, Script::Hangul],
];

/// Whether `c` is a letter or digit in a styled form that reads as a
/// plain one: fullwidth forms and mathematical alphanumerics ("Ａnn",
/// "𝐀nn", "Bob𝟏"),
/// letterlike symbols and number forms ("ℌ", "Ⅳ"), enclosed letters
/// ("Ⓐ", "🅰"), small capitals and modifier letters ("ᴀ", "ɴ", "ᵃ"), and
/// the click letters that pass for an l or a pipe ("ǀ").
fn styled_letter(c: char) -> bool {
    matches!(
        c,
        '\u{FF01}'..='\u{FF5E}'
            | '\u{1D400}'..='\u{1D7FF}'
            | '\u{2100}'..='\u{218F}'
            | '\u{2460}'..='\u{24FF}'
            | '\u{1F100}'..='\u{1F1E5}'
            | '\u{1D00}'..='\u{1DBF}'
            | '\u{02B0}'..='\u{02FF}'
            | '\u{01C0}'..='\u{01C3}'
            | '\u{0262}'
            | '\u{026A}'
            | '\u{0274}'
            | '\u{0276}'
            | '\u{0280}'
            | '\u{0281}'
            | '\u{028F}'
            | '\u{0299}'
            | '\u{029B}'
            | '\u{029C}'
            | '\u{029F}'
    )
}

/// The first character of the name `text` (its place from 1, and it)
/// that is a styled form of a plain one ("Ａnn", "Ann１"), if any.
pub fn first_styled(text: &str) -> Option<(usize, char)> {
    (1..).zip(text.chars()).find(|&(_, c)| styled_letter(c))
}

/// Whether the name `text` could pass for another's: its letters mix
/// scripts whose letters look alike (a Cyrillic А, a Cherokee Ꭺ or a
/// Lisu ꓐ among Latin ones), beyond the mixes `SCRIPTS_TOGETHER`
/// allows. Letters of one script (Greek, Cyrillic, Armenian...) are
/// welcome, accents and all.
pub fn could_pass_for_another(text: &str) -> bool {
    let mut scripts: Vec<Script> = Vec::new();
    for c in text.chars().filter(|c| c.is_alphabetic()) {
        let script = c.script();
        if !matches!(script, Script::Common | Script::Inherited) && !scripts.contains(&script) {
            scripts.push(script);
        }
    }
    scripts.len() > 1
        && !SCRIPTS_TOGETHER
            .iter()
            .any(|allowed| scripts.iter().all(|s| allowed.contains(s)))
}

/// Why `text` does not show as it reads as a chat line, if it does not:
/// as for a name, but with emoji sequences whole and the spaces of
/// French typing (a line of emoji builders alone has them outside emoji).
pub fn unshown_in_chat(text: &str) -> Option<Unshown> {
    let allowed = |c: char| builds_emoji(c) || is_french_space(c);
    let unfit = text.chars().position(|c| is_unfit(c) && !allowed(c));
    let first = [unfit, first_stray_builder(text)]
        .into_iter()
        .flatten()
        .min();
    unshown_at(text, first)
}

/// Why a name does not show as it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unshown {
    /// Its `at`th character (from 1) is a control, invisible,
    /// text-direction, private-use or unassigned character, or a space
    /// but the plain one.
    Unseen {
        /// Where, from 1.
        at: usize,
        /// Which.
        c: char,
    },
    /// Marks pile up: more than [`MAX_MARKS_PER_CHAR`] on a character,
    /// or one with none under it.
    Marks,
}

impl Unshown {
    /// Why, in words, of `what` (`the name`, `the chat line`).
    pub fn describe(&self, what: &str) -> String {
        match self {
            Unshown::Unseen { at, c } => format!(
                "character {at} of {what} (U+{:04X}) is a control, invisible, text-direction, private-use or unassigned character, or a space but the plain one",
                u32::from(*c)
            ),
            Unshown::Marks => format!(
                "{what} has at most {MAX_MARKS_PER_CHAR} accents on a letter, and none alone"
            ),
        }
    }
}

/// Why the name `text` does not show as it reads, if it does not.
pub fn unshown_in_name(text: &str) -> Option<Unshown> {
    unshown_at(text, text.chars().position(is_unfit))
}

/// Why `text` does not show as it reads: its character at `unseen` (from
/// 0), if any, is not seen as it is; else marks may pile up.
fn unshown_at(text: &str, unseen: Option<usize>) -> Option<Unshown> {
    if let Some(i) = unseen {
        let c = text.chars().nth(i).unwrap_or(char::REPLACEMENT_CHARACTER);
        return Some(Unshown::Unseen { at: i + 1, c });
    }
    (!marks_fit(text)).then_some(Unshown::Marks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_made_of_lookalike_scripts_or_styled_letters_could_pass_for_another() {
        for lookalike in [
            "\u{0410}nn",
            "B\u{043E}b",
            "\u{0391}lex",
            "\u{13AA}nn",
            "\u{A4D0}ob",
            "\u{15F7}ob",
            "\u{2C80}nn",
        ] {
            assert!(could_pass_for_another(lookalike), "{lookalike:?}");
        }
        for (styled, at) in [
            ("\u{FF21}nn", 1),
            ("\u{1D400}nn", 1),
            ("\u{210C}ello", 1),
            ("\u{24B6}nn", 1),
            ("\u{1F170}nn", 1),
            ("\u{1D00}nn", 1),
            ("\u{0299}ob", 1),
            ("A\u{0274}\u{0274}", 2),
            ("\u{1D43}nn", 1),
            ("\u{01C0}nn", 1),
            ("\u{2170}van", 1),
            ("Ann\u{FF11}", 4),
            ("Bob\u{1D7CF}", 4),
            ("Ann\u{2460}", 4),
        ] {
            assert_eq!(first_styled(styled).map(|(i, _)| i), Some(at), "{styled:?}");
        }
        for name in [
            "Ann",
            "Аня",
            "Αλέξης",
            "Nguyễn Thị",
            "Łukasz Żółć",
            "Ђорђе",
            "Ann 李",
            "山田 Taro ひろし",
            "김 Kim",
            "Аня 2000",
            "O'Brien",
            "Анна-Мария",
        ] {
            assert!(!could_pass_for_another(name), "{name:?}");
        }
    }

    #[test]
    fn emoji_sequences_are_chat_but_not_names() {
        for emoji in [
            "❤\u{FE0F}",
            "🤷\u{200D}♂\u{FE0F}",
            "👨\u{200D}👩\u{200D}👧",
            "1\u{FE0F}\u{20E3}",
        ] {
            assert_eq!(unshown_in_chat(emoji), None, "{emoji:?}");
            assert!(unshown_in_name(emoji).is_some(), "{emoji:?} as a name");
        }
        for unfit in [
            "\u{200D}",
            "\u{FE0F}\u{200D}",
            "a\u{200B}b",
            "a\u{202E}b",
            "a\tb",
            "a\u{200D}\u{200D}\u{200D}b",
            "a\u{FE0F}",
            "1\u{200D}2",
            "👨\u{200D}",
            "\u{0E2A}\u{0E47}\u{0E47}\u{0E47}\u{0E47}",
        ] {
            assert!(unshown_in_chat(unfit).is_some(), "{unfit:?}");
        }
        for french in ["bonjour\u{202F}!", "«\u{00A0}oui\u{00A0}»"] {
            assert_eq!(unshown_in_chat(french), None, "{french:?}");
        }
        assert_eq!(
            unshown_in_chat("❤\u{FE0F}\u{200D}🔥"),
            None,
            "a heart on fire"
        );
        assert_eq!(unshown_in_chat("👍🏽"), None, "a skin tone");
        // Where, said as for a name.
        let unseen = |at, c| Some(Unshown::Unseen { at, c });
        assert_eq!(unshown_in_chat("1\u{200D}2"), unseen(2, '\u{200D}'));
        assert_eq!(unshown_in_chat("ab\u{200B}\u{200D}"), unseen(3, '\u{200B}'));
        // No agreed shape: private use, unassigned, noncharacters.
        for c in ['\u{E000}', '\u{0378}', '\u{FFFF}', '\u{10FFFF}', '\u{FDD0}'] {
            assert_eq!(unshown_in_name(&format!("Ann{c}")), unseen(4, c), "{c:?}");
        }
        assert_eq!(
            unshown_in_chat("a\u{0301}\u{0301}\u{0301}"),
            Some(Unshown::Marks)
        );
    }
}
