//! How a game ended: the winner and why, in the words the store keeps
//! and the page shows.

use crate::serve::store::ResultRecord;
use bashni_host::pdn::result_token;
use bashni_rules::{Colour, DrawReason, GameEnd};
use std::fmt;

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndReason {
    /// The rules ended it (no legal move, or a draw rule).
    Rules(GameEnd),
    /// This side's clock ran out.
    Time {
        /// Who ran out of time.
        loser: Colour,
    },
    /// This side resigned.
    Resignation {
        /// Who resigned.
        loser: Colour,
    },
    /// A draw offer was accepted.
    DrawAgreed,
    /// This side's player left the game (no page on it for as long as
    /// the server waits), and the other claimed the win, or a draw.
    Left {
        /// Who left.
        gone: Colour,
        /// Whether the other side claimed the win (else a draw).
        won: bool,
    },
    /// The game was called off before both sides had moved, and why. No
    /// one won and it is no draw.
    Aborted(AbortCause),
}

/// Why a game was aborted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AbortCause {
    /// This side's player called it off.
    By(Colour),
    /// This side let [`super::FIRST_MOVE_WAIT`] pass without a first move.
    NoFirstMove(Colour),
    /// Stored before the cause was kept.
    Unknown,
}

/// How a game ended: the winner (`None` for a draw) and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The winner, or `None` for a draw.
    pub winner: Option<Colour>,
    /// Why.
    pub reason: EndReason,
}

impl Outcome {
    pub(super) fn of(reason: EndReason) -> Outcome {
        let winner = match reason {
            EndReason::Rules(end) => end.winner(),
            EndReason::Time { loser } | EndReason::Resignation { loser } => Some(!loser),
            EndReason::Left { gone, won } => won.then_some(!gone),
            EndReason::DrawAgreed | EndReason::Aborted(_) => None,
        };
        Outcome { winner, reason }
    }

    /// The PDN result: `2-0`, `0-2`, `1-1`, or `*` for an aborted game.
    pub fn result_token(&self) -> &'static str {
        match self.reason {
            EndReason::Aborted(_) => "*",
            _ => result_token(self.winner),
        }
    }

    /// The row the store keeps of this outcome, the clocks as they
    /// stopped (`None` without a clock), at `finished_at_ms`.
    pub fn record(&self, clock_ms: Option<[i64; 2]>, finished_at_ms: i64) -> ResultRecord {
        ResultRecord {
            result: self.result_token().to_owned(),
            reason: self.to_string(),
            finished_at_ms,
            clock_ms,
        }
    }

    /// The outcome a stored reason stands for (the words [`Outcome`]'s
    /// `Display` wrote), or the rules' end when the game's moves end it.
    pub(super) fn from_stored(reason: &str, end_by_rules: Option<GameEnd>) -> Option<Outcome> {
        if let Some(end) = end_by_rules {
            return Some(Outcome::of(EndReason::Rules(end)));
        }
        let loser = |words: &str| match words {
            "White" => Some(Colour::White),
            "Black" => Some(Colour::Black),
            _ => None,
        };
        let reason = if reason == "draw agreed" {
            EndReason::DrawAgreed
        } else if reason == "game aborted" {
            EndReason::Aborted(AbortCause::Unknown)
        } else if let Some(who) = reason.strip_suffix(" aborted the game") {
            EndReason::Aborted(AbortCause::By(loser(who)?))
        } else if let Some(who) = reason.strip_suffix(" made no first move in time") {
            EndReason::Aborted(AbortCause::NoFirstMove(loser(who)?))
        } else if let Some(who) = reason.strip_suffix(" lost on time") {
            EndReason::Time { loser: loser(who)? }
        } else if let Some(who) = reason.strip_suffix(" resigned") {
            EndReason::Resignation { loser: loser(who)? }
        } else if let Some(who) = reason.strip_suffix(" left the game") {
            EndReason::Left {
                gone: loser(who)?,
                won: true,
            }
        } else if let Some((who, claimer)) = reason
            .strip_suffix(" called it a draw")
            .and_then(|r| r.split_once(" left; "))
        {
            let gone = loser(who)?;
            if loser(claimer)? != !gone {
                return None;
            }
            EndReason::Left { gone, won: false }
        } else {
            return None;
        };
        Some(Outcome::of(reason))
    }
}

/// Why, in words, as the store keeps it and the page shows it.
impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.reason {
            // Counted in moves, as the room's rules are shown ("7-move
            // draw"), not in the rules' plies.
            EndReason::Rules(GameEnd::Draw(DrawReason::NoProgress(plies))) if plies % 2 == 0 => {
                let moves = plies / 2;
                write!(f, "draw after {moves} moves without a capture or man move")
            }
            EndReason::Rules(end) => write!(f, "{end}"),
            EndReason::Time { loser } => write!(f, "{loser} lost on time"),
            EndReason::Resignation { loser } => write!(f, "{loser} resigned"),
            EndReason::DrawAgreed => f.write_str("draw agreed"),
            EndReason::Left { gone, won: true } => write!(f, "{gone} left the game"),
            EndReason::Left { gone, won: false } => {
                write!(f, "{gone} left; {} called it a draw", !gone)
            }
            EndReason::Aborted(AbortCause::By(side)) => write!(f, "{side} aborted the game"),
            EndReason::Aborted(AbortCause::NoFirstMove(side)) => {
                write!(f, "{side} made no first move in time")
            }
            EndReason::Aborted(AbortCause::Unknown) => f.write_str("game aborted"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_outcome_reads_back_as_it_was_written() {
        let reasons = [
            EndReason::DrawAgreed,
            EndReason::Aborted(AbortCause::Unknown),
            EndReason::Aborted(AbortCause::By(Colour::Black)),
            EndReason::Aborted(AbortCause::NoFirstMove(Colour::White)),
            EndReason::Time {
                loser: Colour::White,
            },
            EndReason::Time {
                loser: Colour::Black,
            },
            EndReason::Resignation {
                loser: Colour::White,
            },
            EndReason::Resignation {
                loser: Colour::Black,
            },
            EndReason::Left {
                gone: Colour::Black,
                won: true,
            },
            EndReason::Left {
                gone: Colour::White,
                won: false,
            },
        ];
        for reason in reasons {
            let outcome = Outcome::of(reason);
            assert_eq!(
                Outcome::from_stored(&outcome.to_string(), None),
                Some(outcome)
            );
        }
        let end = GameEnd::NoLegalMove {
            loser: Colour::Black,
        };
        let by_rules = Outcome::of(EndReason::Rules(end));
        assert_eq!(
            Outcome::from_stored(&by_rules.to_string(), Some(end)),
            Some(by_rules)
        );
        // A draw rule counted in moves, as the room shows its rules.
        let quiet = GameEnd::Draw(DrawReason::NoProgress(14));
        assert_eq!(
            Outcome::of(EndReason::Rules(quiet)).to_string(),
            "draw after 7 moves without a capture or man move"
        );
        assert_eq!(Outcome::from_stored("Grey resigned", None), None);
        assert_eq!(
            Outcome::from_stored("White left; White called it a draw", None),
            None,
            "who left is not who claimed"
        );
        assert_eq!(Outcome::from_stored("the moon fell", None), None);
    }
}
