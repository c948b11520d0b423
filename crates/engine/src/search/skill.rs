//! Playing strength below full: `UCI_Elo` to `Skill Level`, through the
//! calibration table measured with the match runner (docs/strength.md).

use super::params::{SKILL_ELO, SKILL_FULL};

/// The `UCI_Elo` range the engine offers: the weakest and the full level.
pub const ELO_RANGE: (u32, u32) = (SKILL_ELO[0].1, SKILL_ELO[SKILL_ELO.len() - 1].1);

/// The strongest calibrated `Skill Level` whose measured Elo is at most
/// `elo` (the weakest level below the range, full strength above it).
pub fn skill_for_elo(elo: u32) -> u32 {
    SKILL_ELO
        .iter()
        .rev()
        .find(|&&(_, rating)| rating <= elo)
        .map_or(SKILL_ELO[0].0, |&(level, _)| level)
        .min(SKILL_FULL)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_increasing_and_ends_at_full_strength() {
        assert!(
            SKILL_ELO
                .windows(2)
                .all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1)
        );
        assert_eq!(SKILL_ELO[SKILL_ELO.len() - 1].0, SKILL_FULL);
    }

    #[test]
    fn elo_maps_onto_the_calibrated_levels() {
        let (low, high) = ELO_RANGE;
        assert_eq!(skill_for_elo(0), SKILL_ELO[0].0);
        assert_eq!(skill_for_elo(low), SKILL_ELO[0].0);
        assert_eq!(skill_for_elo(high), SKILL_FULL);
        assert_eq!(skill_for_elo(u32::MAX), SKILL_FULL);
        for w in SKILL_ELO.windows(2) {
            // Just below the next level's rating plays the level before it.
            assert_eq!(skill_for_elo(w[1].1 - 1), w[0].0);
            assert_eq!(skill_for_elo(w[1].1), w[1].0);
        }
    }
}
