//! The players' chat, as the room's task runs it: a line is checked,
//! stored, then sent to the two seated players alone (a watch channel of
//! its own, which watchers' pages never subscribe to).

use super::Actor;
use crate::serve::store::{Write, unix_ms_now};
use crate::serve::view::{Json, ServerMessage};
use std::time::Instant;

impl Actor {
    /// `seat` says `text` in the chat: checked, stored, then sent to both
    /// players. Only two people talk: not to an engine, nor to an empty
    /// seat.
    pub(super) async fn say(&mut self, seat: u8, text: &str) -> Result<(), String> {
        match self.room.opponent(seat) {
            None => return Err("your opponent has not sat down yet: nobody reads the chat".into()),
            Some(p) if p.engine => return Err("there is no chat with the engine".into()),
            Some(_) => {}
        }
        let now = Instant::now();
        let line = self.chat.check_line(seat, text, now, unix_ms_now())?;
        let write = Write::ChatLine {
            room_id: self.room.id().to_owned(),
            line_no: self.chat.next_line_no(),
            line: line.clone(),
        };
        if let Err(e) = self.shared.writer.write(write).await {
            self.reread_chat().await;
            // The game waited on the store: the side to move could not
            // move meanwhile, and is given the wait back, unless its own
            // line held the game up (else its lines would stop its clock).
            let to_move = self.room.seat_to_move();
            if to_move != seat {
                self.room.give_back(now.elapsed());
                self.publish();
            }
            return Err(format!("not stored, not sent: {e}"));
        }
        self.chat.add(line, now);
        self.publish_chat();
        Ok(())
    }

    /// Take the chat as the store has it after a write that failed: a
    /// commit whose answer was lost may have stored the line after all,
    /// and the next line's number must follow it (else every later line
    /// would meet the stored one's number and be refused).
    async fn reread_chat(&mut self) {
        match self.shared.store.chat_lines(self.room.id()).await {
            Ok(lines) if lines.len() != self.chat.lines().len() => {
                self.chat.take_stored(lines);
                self.publish_chat();
            }
            Ok(_) => {}
            Err(e) => eprintln!(
                "bashni serve: room {}: chat not read back: {e}",
                self.room.id()
            ),
        }
    }

    /// Send the chat as it now stands to the seated pages.
    pub(super) fn publish_chat(&mut self) {
        let message = ServerMessage::Chat {
            room: self.room.id(),
            lines: self.chat.lines(),
        };
        match serde_json::to_string(&message) {
            Ok(text) => {
                self.chat_out.send_replace(Json::from(text));
            }
            Err(e) => eprintln!("bashni serve: room {}: {e}", self.room.id()),
        }
    }
}
