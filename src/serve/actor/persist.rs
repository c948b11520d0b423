//! What the store keeps of a room's events: an action's events become
//! the writes the writer stores together (a move and the result it
//! brings, the offers they leave).

use super::Actor;
use crate::serve::room::{Event, Room};
use crate::serve::store::{GameRecord, MoveRecord, NewGame, Work, Write, unix_ms_now};

/// Whether `event` is an offer, an answer to one, or a rematch request;
/// or a takeback, which clears the stored offers but not when each side
/// last offered a draw.
pub(super) fn changes_offers(event: &Event) -> bool {
    matches!(
        event,
        Event::DrawOffered { .. }
            | Event::DrawDeclined { .. }
            | Event::TakebackRequested { .. }
            | Event::TakebackDeclined { .. }
            | Event::TookBack { .. }
            | Event::RematchOffered { .. }
            | Event::RematchDeclined { .. }
    )
}

/// What the store keeps of `event` in `room` at `now_ms` (Unix
/// milliseconds), if anything: the offers an action leaves are written
/// after all its events (see `Actor::work_of_all`).
pub(super) fn work_of(room: &Room, event: &Event, now_ms: i64) -> Result<Option<Work>, String> {
    let room_id = room.id().to_owned();
    let work = match event {
        Event::SeatTaken { seat, .. } => {
            let player = room
                .player(*seat)
                .ok_or_else(|| format!("nobody sits in seat {seat}"))?;
            Work::Other(Write::Seat {
                room_id,
                seat: player.seat_record(*seat, now_ms),
            })
        }
        Event::GameStarted {
            game_no,
            white_seat,
            clock_ms,
            start_fen,
        } => Work::Other(Write::GameStart {
            room_id,
            game: NewGame {
                game_no: *game_no,
                white_seat: *white_seat,
                started_at_ms: now_ms,
                clock_ms: *clock_ms,
                start_fen: start_fen.clone(),
            },
        }),
        Event::Moved {
            game_no,
            ply,
            text,
            elapsed_ms,
            clock_ms,
        } => Work::Move(MoveRecord {
            room_id,
            game_no: *game_no,
            ply: *ply,
            text: text.clone(),
            elapsed_ms: *elapsed_ms,
            clock_ms: *clock_ms,
            moved_at_ms: now_ms,
        }),
        Event::TookBack {
            game_no,
            plies,
            clock_ms,
        } => Work::Other(Write::TakeBack {
            room_id,
            game_no: *game_no,
            keep_plies: *plies,
            clock_ms: *clock_ms,
            turn_started_at_ms: now_ms,
        }),
        Event::GameOver {
            game_no,
            outcome,
            clock_ms,
        } => Work::Other(Write::GameEnd {
            room_id,
            game_no: *game_no,
            result: outcome.record(*clock_ms, now_ms),
        }),
        Event::DrawOffered { .. }
        | Event::DrawDeclined { .. }
        | Event::TakebackRequested { .. }
        | Event::TakebackDeclined { .. }
        | Event::RematchOffered { .. }
        | Event::RematchDeclined { .. } => return Ok(None),
    };
    Ok(Some(work))
}

/// What an event leaves in its game's stored record, to tell whether it
/// was stored.
pub(super) enum StoredMark<'a> {
    /// The game's row.
    Game { game_no: u32 },
    /// The move at its ply.
    Move {
        game_no: u32,
        ply: u32,
        text: &'a str,
    },
    /// The game's result.
    Result { game_no: u32 },
}

impl<'a> StoredMark<'a> {
    /// The mark `event` leaves, if one of its own.
    pub(super) fn of(event: &'a Event) -> Option<StoredMark<'a>> {
        match event {
            Event::GameStarted { game_no, .. } => Some(StoredMark::Game { game_no: *game_no }),
            Event::Moved {
                game_no, ply, text, ..
            } => Some(StoredMark::Move {
                game_no: *game_no,
                ply: *ply,
                text,
            }),
            Event::GameOver { game_no, .. } => Some(StoredMark::Result { game_no: *game_no }),
            _ => None,
        }
    }

    /// The game it is in.
    pub(super) fn game_no(&self) -> u32 {
        match self {
            StoredMark::Game { game_no }
            | StoredMark::Move { game_no, .. }
            | StoredMark::Result { game_no } => *game_no,
        }
    }

    /// Whether `game` (its stored record) has it.
    pub(super) fn is_in(&self, game: &GameRecord) -> bool {
        match self {
            StoredMark::Game { game_no } => game.game_no == *game_no,
            StoredMark::Move { ply, text, .. } => (ply.checked_sub(1))
                .and_then(|i| game.moves.get(usize::try_from(i).ok()?))
                .is_some_and(|mv| mv.ply == *ply && mv.text == *text),
            StoredMark::Result { .. } => game.result.is_some(),
        }
    }
}

impl Actor {
    /// What the store keeps of `events`, in order, and then of the offers
    /// they leave pending (written from the room as the events left it,
    /// so that a restart brings them back).
    pub(super) fn work_of_all(&self, events: &[Event]) -> Result<Vec<Work>, String> {
        let now_ms = unix_ms_now();
        let mut work = Vec::with_capacity(events.len() + 1);
        for event in events {
            work.extend(work_of(&self.room, event, now_ms)?);
        }
        if events.iter().any(changes_offers) {
            work.push(Work::Other(Write::Offers {
                room_id: self.room.id().to_owned(),
                game_no: self.room.game_no(),
                offers: self.room.offers_record(),
            }));
        }
        Ok(work)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::serve::config::{GameConfig, Opponent, RoomConfig};
    use crate::serve::room::Player;
    use crate::serve::token::SeatToken;
    use bashni_rules::{Colour, Variant};
    use std::time::Instant;

    #[test]
    fn a_move_is_found_stored_by_its_ply_and_text() {
        let game = GameRecord::first_with(vec![
            MoveRecord::bare(1, "c3-d4"),
            MoveRecord::bare(2, "f6-g5"),
        ]);
        let moved = |ply, text: &str| Event::Moved {
            game_no: 1,
            ply,
            text: text.into(),
            elapsed_ms: 0,
            clock_ms: None,
        };
        let found = |event: &Event| StoredMark::of(event).is_some_and(|m| m.is_in(&game));
        assert!(found(&moved(2, "f6-g5")));
        assert!(!found(&moved(2, "f6-e5")), "another move at that ply");
        assert!(!found(&moved(3, "g3-h4")), "not stored yet");
        assert!(!found(&moved(0, "c3-d4")));
        let over = Event::GameOver {
            game_no: 1,
            outcome: crate::serve::room::Outcome {
                winner: None,
                reason: crate::serve::room::EndReason::DrawAgreed,
            },
            clock_ms: None,
        };
        assert!(!found(&over), "no result stored");
        assert!(StoredMark::of(&Event::DrawOffered { by: Colour::White }).is_none());
    }

    #[test]
    fn an_event_is_stored_as_it_happened_at_the_time_given() {
        let config = RoomConfig {
            game: GameConfig::online(Variant::Bashni),
            clock: None,
            opponent: Opponent::Anyone,
        };
        let ann = Player::human("Ann", SeatToken::generate().hash()).expect("a name");
        let room = Room::new("r".into(), config, ann, Colour::White, Instant::now());
        let taken = |seat| Event::SeatTaken {
            seat,
            name: "Ann".into(),
            engine: false,
        };
        match work_of(&room, &taken(0), 1234) {
            Ok(Some(Work::Other(Write::Seat { room_id, seat }))) => {
                assert_eq!((room_id.as_str(), seat.seat), ("r", 0));
                assert_eq!((seat.name.as_str(), seat.joined_at_ms), ("Ann", 1234));
            }
            other => panic!("a seat row, not {other:?}"),
        }
        assert!(work_of(&room, &taken(1), 0).is_err(), "nobody sits there");
        let moved = Event::Moved {
            game_no: 2,
            ply: 7,
            text: "c3-d4".into(),
            elapsed_ms: 900,
            clock_ms: Some([1, 2]),
        };
        match work_of(&room, &moved, 5678) {
            Ok(Some(Work::Move(mv))) => {
                assert_eq!((mv.game_no, mv.ply, mv.text.as_str()), (2, 7, "c3-d4"));
                assert_eq!(
                    (mv.elapsed_ms, mv.clock_ms, mv.moved_at_ms),
                    (900, Some([1, 2]), 5678)
                );
            }
            other => panic!("a move row, not {other:?}"),
        }
        let offered = Event::DrawOffered { by: Colour::White };
        assert!(
            matches!(work_of(&room, &offered, 0), Ok(None)),
            "offers are stored with the room's offers record"
        );
    }
}
