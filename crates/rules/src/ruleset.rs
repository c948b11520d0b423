//! The rules a game is played under — variant, king landing, forced
//! capture and draw rules — and the ways a game can end (docs/rules.md).

use super::geometry::{Colour, Variant};
use super::position::{KingLanding, Position};

/// A rule given by name that the engine does not know: what was asked
/// for, and the names it accepts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseRuleError {
    /// A variant other than `bashni` or `lasca`.
    UnknownVariant(String),
    /// A king landing rule other than `continue` or `free`.
    UnknownKingLanding(String),
}

impl std::fmt::Display for ParseRuleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParseRuleError::UnknownVariant(text) => {
                write!(f, "unknown variant '{text}' (expected bashni or lasca)")
            }
            ParseRuleError::UnknownKingLanding(text) => {
                write!(
                    f,
                    "unknown king landing '{text}' (expected continue or free)"
                )
            }
        }
    }
}

impl std::error::Error for ParseRuleError {}

/// The draw rules in force (the `NoProgressPlies` and `MaxPlies` options,
/// and repetition); 0 turns a rule off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawRules {
    /// Drawn after this many plies in a row with no capture and no man move.
    pub no_progress_plies: u32,
    /// Drawn once the game has this many plies.
    pub max_plies: u32,
    /// Drawn when a position occurs this many times with the same side to
    /// move (3: threefold repetition).
    pub repetitions: u32,
}

impl DrawRules {
    /// No draw rule at all.
    pub const NONE: DrawRules = DrawRules {
        no_progress_plies: 0,
        max_plies: 0,
        repetitions: 0,
    };

    /// A variant's own rules: Bashni is drawn after 50 plies without
    /// progress, after 250 plies in all, or by threefold repetition; Lasca's
    /// own rules know no draw.
    pub fn for_variant(variant: Variant) -> DrawRules {
        match variant {
            Variant::Bashni => DrawRules {
                no_progress_plies: 50,
                max_plies: 250,
                repetitions: 3,
            },
            Variant::Lasca => DrawRules::NONE,
        }
    }

    /// Whether `pos` is drawn by a counting rule (no progress, ply limit).
    /// Repetition needs the game's history: see [`super::Game`].
    #[inline]
    pub fn is_draw(&self, pos: &Position) -> bool {
        (self.no_progress_plies > 0 && pos.no_progress_plies() >= self.no_progress_plies)
            || (self.max_plies > 0 && pos.game_ply() >= self.max_plies)
    }

    /// Which counting rule draws `pos`, if one does.
    pub fn reason(&self, pos: &Position) -> Option<DrawReason> {
        if self.no_progress_plies > 0 && pos.no_progress_plies() >= self.no_progress_plies {
            Some(DrawReason::NoProgress(self.no_progress_plies))
        } else if self.max_plies > 0 && pos.game_ply() >= self.max_plies {
            Some(DrawReason::PlyLimit(self.max_plies))
        } else {
            None
        }
    }
}

/// Why a game is drawn; each carries the limit of its rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawReason {
    /// This many plies in a row without a capture or a man move.
    NoProgress(u32),
    /// The game reached this many plies.
    PlyLimit(u32),
    /// The position occurred this many times.
    Repetition(u32),
}

impl std::fmt::Display for DrawReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DrawReason::NoProgress(n) => write!(f, "no-progress rule ({n} plies)"),
            DrawReason::PlyLimit(n) => write!(f, "ply limit ({n} plies)"),
            DrawReason::Repetition(3) => f.write_str("threefold repetition"),
            DrawReason::Repetition(n) => write!(f, "{n}-fold repetition"),
        }
    }
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameEnd {
    /// The side to move has no legal move (or no column) and loses.
    NoLegalMove {
        /// The side that could not move.
        loser: Colour,
    },
    /// A draw rule ended the game.
    Draw(DrawReason),
}

impl GameEnd {
    /// The winner, or `None` for a draw.
    pub fn winner(&self) -> Option<Colour> {
        match self {
            GameEnd::NoLegalMove { loser } => Some(!*loser),
            GameEnd::Draw(_) => None,
        }
    }
}

impl std::fmt::Display for GameEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GameEnd::NoLegalMove { loser } => write!(f, "{loser} has no legal move"),
            GameEnd::Draw(reason) => write!(f, "draw by {reason}"),
        }
    }
}

/// Everything that decides which moves are legal and when a game ends.
/// Every position is made with one ([`Position::from_fen`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuleSet {
    /// Bashni or Lasca.
    pub variant: Variant,
    /// Where a flying king may land after a capture (Bashni only).
    pub king_landing: KingLanding,
    /// Whether a side that can capture must (`ForcedCapture`, both
    /// variants; on by default). Off, plain moves stay legal beside the
    /// captures, but a capture once begun is still a whole chain.
    pub forced_capture: bool,
    /// When a game is drawn.
    pub draw: DrawRules,
}

impl RuleSet {
    /// A variant with its own default rules.
    pub fn new(variant: Variant) -> RuleSet {
        RuleSet {
            variant,
            king_landing: KingLanding::default(),
            forced_capture: true,
            draw: DrawRules::for_variant(variant),
        }
    }

    /// The same rules with another king landing rule.
    pub fn with_king_landing(self, king_landing: KingLanding) -> RuleSet {
        RuleSet {
            king_landing,
            ..self
        }
    }

    /// The same rules with captures compulsory (`true`, the default) or
    /// optional (`false`).
    pub fn with_forced_capture(self, forced_capture: bool) -> RuleSet {
        RuleSet {
            forced_capture,
            ..self
        }
    }

    /// The same rules with other draw rules.
    pub fn with_draw_rules(self, draw: DrawRules) -> RuleSet {
        RuleSet { draw, ..self }
    }
}

impl Default for RuleSet {
    fn default() -> RuleSet {
        RuleSet::new(Variant::Bashni)
    }
}

impl From<Variant> for RuleSet {
    fn from(variant: Variant) -> RuleSet {
        RuleSet::new(variant)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bashni_counts_no_progress_plies_and_repetition_lasca_does_not() {
        let bashni = RuleSet::new(Variant::Bashni);
        let lasca = RuleSet::new(Variant::Lasca);
        let stale = Position::from_fen(&bashni, "W:a1W,h8B 50 10").unwrap();
        assert_eq!(bashni.draw.reason(&stale), Some(DrawReason::NoProgress(50)));
        assert_eq!(
            DrawReason::NoProgress(50).to_string(),
            "no-progress rule (50 plies)"
        );
        // Move 126 with White to move is ply 250.
        let long = Position::from_fen(&bashni, "W:a1W,h8B 0 126").unwrap();
        assert_eq!(bashni.draw.reason(&long), Some(DrawReason::PlyLimit(250)));
        let fresh = Position::from_fen(&bashni, "W:a1W,h8B 49 125").unwrap();
        assert!(!bashni.draw.is_draw(&fresh));
        assert_eq!(bashni.draw.repetitions, 3);
        let lasca_long = Position::from_fen(&lasca, "W:a1W,g7B 999 9999").unwrap();
        assert!(!lasca.draw.is_draw(&lasca_long));
        assert_eq!(lasca.draw, DrawRules::NONE);
    }

    #[test]
    fn unknown_rule_names_are_typed_errors_that_name_the_choices() {
        let variant = "chess".parse::<Variant>().unwrap_err();
        assert_eq!(variant, ParseRuleError::UnknownVariant("chess".into()));
        assert_eq!(
            variant.to_string(),
            "unknown variant 'chess' (expected bashni or lasca)"
        );
        let landing = "anywhere".parse::<KingLanding>().unwrap_err();
        assert_eq!(
            landing.to_string(),
            "unknown king landing 'anywhere' (expected continue or free)"
        );
        assert_eq!("LASCA".parse::<Variant>(), Ok(Variant::Lasca));
        assert_eq!("Free".parse::<KingLanding>(), Ok(KingLanding::Free));
    }

    #[test]
    fn a_rule_set_carries_its_landing_rule_into_positions() {
        let free = RuleSet::new(Variant::Bashni).with_king_landing(KingLanding::Free);
        let pos = Position::start(&free);
        assert_eq!(pos.king_landing(), KingLanding::Free);
        assert_eq!(
            Position::start(&RuleSet::default()).king_landing(),
            KingLanding::Continue
        );
    }

    #[test]
    fn a_rule_set_carries_its_capture_rule_into_positions() {
        assert!(RuleSet::new(Variant::Lasca).forced_capture);
        let optional = RuleSet::new(Variant::Lasca).with_forced_capture(false);
        assert!(!Position::start(&optional).forced_capture());
        assert!(Position::start(&RuleSet::default()).forced_capture());
    }
}
