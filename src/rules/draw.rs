//! The draw rules that end a game by counting: no progress, and a ply limit.
//! (Repetition needs the game's history, which the position does not keep.)

use super::geometry::Variant;
use super::position::Position;

/// The counting draw rules in force (the `NoProgressPlies` and `MaxPlies`
/// options); 0 turns a rule off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawRules {
    /// Drawn after this many plies in a row with no capture and no man move.
    pub no_progress_plies: u32,
    /// Drawn once the game has this many plies.
    pub max_plies: u32,
}

impl DrawRules {
    /// A variant's own rules: Bashni is drawn after 50 plies without
    /// progress or 250 in all (seed 004); Lasca has no draw rule (seed 003).
    pub fn for_variant(variant: Variant) -> DrawRules {
        match variant {
            Variant::Bashni => DrawRules {
                no_progress_plies: 50,
                max_plies: 250,
            },
            Variant::Lasca => DrawRules {
                no_progress_plies: 0,
                max_plies: 0,
            },
        }
    }

    /// Whether `pos` is drawn by one of these rules.
    #[inline]
    pub fn is_draw(&self, pos: &Position) -> bool {
        (self.no_progress_plies > 0 && pos.no_progress_plies() >= self.no_progress_plies)
            || (self.max_plies > 0 && pos.game_ply() >= self.max_plies)
    }

    /// Which rule draws `pos`, in words, if one does.
    pub fn reason(&self, pos: &Position) -> Option<String> {
        if self.no_progress_plies > 0 && pos.no_progress_plies() >= self.no_progress_plies {
            Some(format!(
                "no-progress rule ({} plies)",
                self.no_progress_plies
            ))
        } else if self.max_plies > 0 && pos.game_ply() >= self.max_plies {
            Some(format!("ply limit ({} plies)", self.max_plies))
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bashni_counts_no_progress_and_plies_lasca_does_not() {
        let bashni = DrawRules::for_variant(Variant::Bashni);
        let lasca = DrawRules::for_variant(Variant::Lasca);
        let stale = Position::from_fen(Variant::Bashni, "W:a1W,h8B 50 10").unwrap();
        assert_eq!(
            bashni.reason(&stale).as_deref(),
            Some("no-progress rule (50 plies)")
        );
        // Move 126 with White to move is ply 250.
        let long = Position::from_fen(Variant::Bashni, "W:a1W,h8B 0 126").unwrap();
        assert_eq!(
            bashni.reason(&long).as_deref(),
            Some("ply limit (250 plies)")
        );
        let fresh = Position::from_fen(Variant::Bashni, "W:a1W,h8B 49 125").unwrap();
        assert!(!bashni.is_draw(&fresh));
        let lasca_long = Position::from_fen(Variant::Lasca, "W:a1W,g7B 999 9999").unwrap();
        assert!(!lasca.is_draw(&lasca_long));
    }
}
