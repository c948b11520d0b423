//! Text people type for others to read (display names, chat lines): it
//! must show as what it is. The page puts it into text nodes, so markup
//! is harmless; what is refused here is what misleads in plain text.

use unicode_script::{Script, UnicodeScript};

/// Characters a name or a chat line may not hold beside the control
/// characters: those that reorder the text around them (embeddings,
/// overrides, isolates, marks), which can make a text read as another's
/// or spill over the text after it; invisible ones (zero-width spaces
/// and joiners, fillers, the byte-order mark, soft hyphens, variation
/// selectors, tags), which can make two names that look the same
/// differ, or a text of nothing; and any space but the plain one (line
/// and paragraph separators).
fn is_unfit(c: char) -> bool {
    c.is_control()
        || (c.is_whitespace() && c != ' ')
        || matches!(
            c,
            '\u{00AD}'
                | '\u{034F}'
                | '\u{061C}'
                | '\u{115F}'
                | '\u{1160}'
                | '\u{17B4}'
                | '\u{17B5}'
                | '\u{180B}'..='\u{180F}'
                | '\u{200B}'..='\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{206F}'
                | '\u{2800}'
                | '\u{3164}'
                | '\u{FE00}'..='\u{FE0F}'
                | '\u{FEFF}'
                | '\u{FFA0}'
                | '\u{FFF9}'..='\u{FFFB}'
                | '\u{1D173}'..='\u{1D17A}'
                | '\u{E0000}'..='\u{E0FFF}'
        )
}

/// Whether `c` is a combining mark (of the blocks Latin, Greek and
/// Cyrillic names use): it draws on the character before it.
fn is_combining(c: char) -> bool {
    matches!(
        c,
        '\u{0300}'..='\u{036F}'
            | '\u{0483}'..='\u{0489}'
            | '\u{1AB0}'..='\u{1AFF}'
            | '\u{1DC0}'..='\u{1DFF}'
            | '\u{20D0}'..='\u{20FF}'
            | '\u{FE20}'..='\u{FE2F}'
    )
}

/// The most combining marks one character may carry (Vietnamese stacks
/// two); more pile up over the text around.
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
/// apart, but not in chat, where they mislead nobody.
fn builds_emoji(c: char) -> bool {
    matches!(c, '\u{200D}' | '\u{FE0E}' | '\u{FE0F}')
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

/// Whether `c` is a letter in a styled form that reads as a plain one:
/// fullwidth forms and mathematical alphanumerics ("Ａnn", "𝐀nn"),
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
            | '\u{1F100}'..='\u{1F1FF}'
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

/// Whether the name `text` could pass for another's: its letters mix
/// scripts whose letters look alike (a Cyrillic А, a Cherokee Ꭺ or a
/// Lisu ꓐ among Latin ones), beyond the mixes `SCRIPTS_TOGETHER`
/// allows, or take a styled form of plain letters. Letters of one script
/// (Greek, Cyrillic, Armenian...) are welcome, accents and all.
pub fn could_pass_for_another(text: &str) -> bool {
    let mut scripts: Vec<Script> = Vec::new();
    for c in text.chars().filter(|c| c.is_alphabetic()) {
        if styled_letter(c) {
            return true;
        }
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

/// Whether `text` shows as it reads as a chat line: as
/// [`shows_as_it_reads`], but with emoji sequences whole, and something
/// else than their joiners in it.
pub fn fits_a_chat_line(text: &str) -> bool {
    !text.chars().any(|c| is_unfit(c) && !builds_emoji(c))
        && marks_fit(text)
        && text.chars().any(|c| !builds_emoji(c))
}

/// Whether `text` shows as it reads: no control, invisible or
/// text-direction character, no space but the plain one, and at most
/// [`MAX_MARKS_PER_CHAR`] accents on a character, none alone.
pub fn shows_as_it_reads(text: &str) -> bool {
    !text.chars().any(is_unfit) && marks_fit(text)
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
            "\u{FF21}nn",
            "\u{1D400}nn",
            "\u{210C}ello",
            "\u{24B6}nn",
            "\u{1F170}nn",
            "\u{1D00}nn",
            "\u{0299}ob",
            "A\u{0274}\u{0274}",
            "\u{1D43}nn",
            "\u{01C0}nn",
            "\u{2170}van",
        ] {
            assert!(could_pass_for_another(lookalike), "{lookalike:?}");
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
            assert!(fits_a_chat_line(emoji), "{emoji:?}");
            assert!(!shows_as_it_reads(emoji), "{emoji:?} as a name");
        }
        for unfit in [
            "\u{200D}",
            "\u{FE0F}\u{200D}",
            "a\u{200B}b",
            "a\u{202E}b",
            "a\tb",
        ] {
            assert!(!fits_a_chat_line(unfit), "{unfit:?}");
        }
    }
}
