//! What the two players of a room say to each other: lines checked,
//! limited and kept in order. Sans-IO, as the room is: the room's task
//! stores a line before it is shown, and hands the time in.
//!
//! Only the two seated people write and read it (as a game's players'
//! chat on lichess): watchers are never sent it, so nobody kibitzes to a
//! player, and what players say stays between them.

use super::shown_text::unshown_in_chat;
use serde::Serialize;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// The longest line, in characters (lichess's is as long).
pub const MAX_LINE_CHARS: usize = 140;

/// The lines a room keeps: enough for any game's talk, and a bound on
/// what each new line sends again to the two players.
pub const MAX_LINES: usize = 200;

/// A seat says at most this many lines…
pub const LINES_PER_WINDOW: usize = 5;
/// …in any window of this length.
pub const WINDOW: Duration = Duration::from_secs(10);

/// One line said.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChatLine {
    /// The seat that said it (the page names it from the room's seats).
    pub seat: u8,
    /// What was said, trimmed.
    pub text: String,
    /// When, in Unix milliseconds.
    pub sent_at_ms: i64,
}

/// A room's chat.
#[derive(Clone, Debug, Default)]
pub struct Chat {
    lines: Vec<ChatLine>,
    /// When each seat said its last lines, within [`WINDOW`].
    recent: [VecDeque<Instant>; 2],
}

impl Chat {
    /// A chat that has said `lines` (as stored).
    pub fn new(lines: Vec<ChatLine>) -> Chat {
        Chat {
            lines,
            recent: Default::default(),
        }
    }

    /// Every line, oldest first.
    pub fn lines(&self) -> &[ChatLine] {
        &self.lines
    }

    /// The line `seat` says with `text` at `now` (`now_ms` on the wall
    /// clock), or why it may not: empty, too long, not plain text, the
    /// same as that seat's last line, too fast, or the room's chat full.
    /// Nothing is kept until [`Chat::add`].
    pub fn check_line(
        &mut self,
        seat: u8,
        text: &str,
        now: Instant,
        now_ms: i64,
    ) -> Result<ChatLine, String> {
        let text = text.trim();
        if text.is_empty() || text.chars().count() > MAX_LINE_CHARS {
            return Err(format!("a chat line has 1 to {MAX_LINE_CHARS} characters"));
        }
        if let Some(unshown) = unshown_in_chat(text) {
            return Err(unshown.describe("the chat line"));
        }
        if self.lines.len() >= MAX_LINES {
            return Err(format!("this room's chat is full ({MAX_LINES} lines)"));
        }
        let seat = seat.min(1);
        if self
            .lines
            .iter()
            .rev()
            .find(|l| l.seat == seat)
            .is_some_and(|l| l.text == text)
        {
            return Err("you said that just now".into());
        }
        let recent = &mut self.recent[usize::from(seat)];
        while recent
            .front()
            .is_some_and(|t| now.duration_since(*t) >= WINDOW)
        {
            recent.pop_front();
        }
        if recent.len() >= LINES_PER_WINDOW {
            return Err(format!(
                "at most {LINES_PER_WINDOW} chat lines in {} seconds: wait a moment",
                WINDOW.as_secs()
            ));
        }
        Ok(ChatLine {
            seat,
            text: text.to_owned(),
            sent_at_ms: now_ms,
        })
    }

    /// The number the next line is stored under: 1 for the first.
    pub fn next_line_no(&self) -> u32 {
        u32::try_from(self.lines.len() + 1).unwrap_or(u32::MAX)
    }

    /// Take `lines`, the room's chat as the store has it, for the lines
    /// kept so far.
    pub fn take_stored(&mut self, lines: Vec<ChatLine>) {
        self.lines = lines;
    }

    /// Keep `line`, said at `now` (once stored).
    pub fn add(&mut self, line: ChatLine, now: Instant) {
        self.recent[usize::from(line.seat.min(1))].push_back(now);
        self.lines.push(line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn say(chat: &mut Chat, seat: u8, text: &str, now: Instant) -> Result<ChatLine, String> {
        let line = chat.check_line(seat, text, now, 0)?;
        chat.add(line.clone(), now);
        Ok(line)
    }

    /// A line the store kept though its write was reported failed is
    /// taken from the store: the next line is numbered after it.
    #[test]
    fn the_stored_chat_numbers_the_next_line() {
        let now = Instant::now();
        let mut chat = Chat::new(Vec::new());
        let first = say(&mut chat, 0, "hi", now).expect("said");
        let lost = chat.check_line(1, "hello", now, 0).expect("fit");
        assert_eq!(chat.next_line_no(), 2);
        chat.take_stored(vec![first, lost]);
        assert_eq!(chat.next_line_no(), 3);
        assert_eq!(chat.lines()[1].text, "hello");
    }

    #[test]
    fn a_line_is_trimmed_plain_text_of_at_most_its_length() {
        let mut chat = Chat::default();
        let now = Instant::now();
        assert_eq!(
            say(&mut chat, 0, "  good luck ", now).map(|l| l.text),
            Ok("good luck".into())
        );
        for bad in ["", "   ", "a\nb", "left\u{202E}right", "\u{200B}"] {
            assert!(chat.check_line(1, bad, now, 0).is_err(), "{bad:?}");
        }
        assert!(
            chat.check_line(1, &"é".repeat(MAX_LINE_CHARS), now, 0)
                .is_ok()
        );
        assert!(
            chat.check_line(1, &"é".repeat(MAX_LINE_CHARS + 1), now, 0)
                .is_err()
        );
        assert!(
            chat.check_line(1, "<b>hi</b>", now, 0).is_ok(),
            "markup is only text"
        );
        assert_eq!(
            chat.lines().len(),
            1,
            "a refused or unsaid line is not kept"
        );
    }

    #[test]
    fn a_seat_may_not_repeat_itself_or_flood() {
        let mut chat = Chat::default();
        let start = Instant::now();
        say(&mut chat, 0, "hi", start).expect("said");
        assert!(say(&mut chat, 0, "hi", start).is_err(), "the same again");
        say(&mut chat, 1, "hi", start).expect("the other seat may say it");
        for n in 1..LINES_PER_WINDOW {
            say(&mut chat, 0, &format!("line {n}"), start).expect("within the burst");
        }
        assert!(
            say(&mut chat, 0, "one more", start).is_err(),
            "over the burst"
        );
        assert!(
            say(&mut chat, 1, "one more", start).is_ok(),
            "each seat its own count"
        );
        let later = start + WINDOW;
        assert!(
            say(&mut chat, 0, "one more", later).is_ok(),
            "the window has passed"
        );
    }

    #[test]
    fn a_full_chat_takes_no_more_lines() {
        let now = Instant::now();
        let lines = (0..MAX_LINES)
            .map(|n| ChatLine {
                seat: 0,
                text: n.to_string(),
                sent_at_ms: 0,
            })
            .collect();
        let mut chat = Chat::new(lines);
        assert!(
            chat.check_line(1, "anyone?", now, 0)
                .unwrap_err()
                .contains("full")
        );
    }
}
