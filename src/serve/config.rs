//! What a room is created with: the game's rules, the clock, and who may
//! take the other seat. The store keeps it column by column; the room
//! builds its [`RuleSet`] from it.

use bashni_host::clock::TimeControl;
use bashni_rules::{Colour, DrawRules, Game, KingLanding, RuleSet, Variant};

/// The game configuration a room's creator picks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameConfig {
    /// Bashni or Lasca.
    pub variant: Variant,
    /// Whether a capture must be taken when one is possible (the rules'
    /// `ForcedCapture`, docs/rules.md); rooms may turn it off.
    pub forced_capture: bool,
    /// Where a flying king may land after a capture.
    pub king_landing: KingLanding,
    /// The draw rules (0 turns one off).
    pub draw: DrawRules,
}

impl GameConfig {
    /// The 15-move rule of the usual online rooms: 15 moves each without a
    /// capture or a man move, that is 30 plies.
    pub const FIFTEEN_MOVES_PLIES: u32 = 30;

    /// A variant with its own rules and forced capture.
    pub fn new(variant: Variant) -> GameConfig {
        GameConfig {
            variant,
            forced_capture: true,
            king_landing: KingLanding::default(),
            draw: DrawRules::for_variant(variant),
        }
    }

    /// The configuration most online rooms play: forced
    /// capture, drawn after 15 moves (30 plies) without a capture or a man
    /// move, or by threefold repetition; no ply limit.
    pub fn online(variant: Variant) -> GameConfig {
        GameConfig {
            draw: DrawRules {
                no_progress_plies: GameConfig::FIFTEEN_MOVES_PLIES,
                max_plies: 0,
                repetitions: 3,
            },
            ..GameConfig::new(variant)
        }
    }

    /// The PDN tags that say these rules (the engine's option names,
    /// and `Repetitions`), so that a game read back is played by them.
    /// Where kings land is said only where kings fly (Bashni).
    pub fn pdn_tags(&self) -> Vec<(&'static str, String)> {
        let landing = ("KingLanding", self.king_landing.to_string());
        let flying = self.variant.flying_kings();
        flying
            .then_some(landing)
            .into_iter()
            .chain([
                ("ForcedCapture", self.forced_capture.to_string()),
                ("NoProgressPlies", self.draw.no_progress_plies.to_string()),
                ("MaxPlies", self.draw.max_plies.to_string()),
                ("Repetitions", self.draw.repetitions.to_string()),
            ])
            .collect()
    }

    /// The rule set games in this room are played under.
    pub fn rules(&self) -> RuleSet {
        // Built through the builders, not a struct literal, so that a new
        // `RuleSet` field takes its default here.
        RuleSet::new(self.variant)
            .with_king_landing(self.king_landing)
            .with_forced_capture(self.forced_capture)
            .with_draw_rules(self.draw)
    }

    /// The game from `fen` under these rules, for a room or the analysis
    /// board to start from. A position without a piece of one side is
    /// refused although the rules read it: nothing ever leaves the board,
    /// so no game reaches it (the editor's empty board would be one).
    pub fn game_from(&self, fen: &str) -> Result<Game, String> {
        let game = Game::from_fen(self.rules(), fen).map_err(|e| e.to_string())?;
        let missing = [Colour::White, Colour::Black]
            .map(|colour| (game.position().piece_count(colour) == 0).then_some(colour));
        match missing {
            [None, None] => Ok(game),
            [Some(_), Some(_)] => Err("the board is empty".into()),
            [Some(side), None] | [None, Some(side)] => {
                Err(format!("{side} has no piece on the board"))
            }
        }
    }
}

/// Nodes per position when a finished game is analysed (its marks and
/// graph), whatever engine the server runs.
pub const ANALYSIS_NODES: u64 = 20_000;

/// An engine's strength as a client may choose it: only these two
/// whitelisted settings, never engine options or commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strength {
    /// `Skill Level` (0 to 20).
    Skill(u32),
    /// `UCI_Elo`.
    Elo(u32),
}

/// `Skill 5`, `Elo 1500`.
impl std::fmt::Display for Strength {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Strength::Skill(level) => write!(f, "Skill {level}"),
            Strength::Elo(elo) => write!(f, "Elo {elo}"),
        }
    }
}

/// Who may take the seat the creator left free.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opponent {
    /// Anyone: the room is listed in the lobby.
    Anyone,
    /// Only who has the link: a private room, not listed.
    LinkOnly,
    /// The engine at this strength.
    Engine(Strength),
}

impl Opponent {
    /// The name the store keeps: `anyone`, `link` or `engine`.
    pub fn kind(&self) -> &'static str {
        match self {
            Opponent::Anyone => "anyone",
            Opponent::LinkOnly => "link",
            Opponent::Engine(_) => "engine",
        }
    }
}

/// Everything a room is created with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoomConfig {
    /// The rules.
    pub game: GameConfig,
    /// The clock, or `None` for a game without one.
    pub clock: Option<TimeControl>,
    /// Who may take the other seat.
    pub opponent: Opponent,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_online_configuration_draws_after_fifteen_moves_and_threefold() {
        let config = GameConfig::online(Variant::Bashni);
        let rules = config.rules();
        assert_eq!(rules.draw.no_progress_plies, 30);
        assert_eq!(rules.draw.repetitions, 3);
        assert_eq!(rules.draw.max_plies, 0);
        assert!(config.forced_capture);
        assert_eq!(
            GameConfig::new(Variant::Lasca).rules(),
            RuleSet::new(Variant::Lasca)
        );
    }

    #[test]
    fn optional_captures_reach_the_rules() {
        let config = GameConfig {
            forced_capture: false,
            ..GameConfig::online(Variant::Bashni)
        };
        assert!(!config.rules().forced_capture);
    }

    #[test]
    fn a_game_says_where_kings_land_only_where_they_fly() {
        let named = |variant| {
            GameConfig::online(variant)
                .pdn_tags()
                .iter()
                .map(|(tag, _)| *tag)
                .collect::<Vec<_>>()
        };
        assert_eq!(named(Variant::Bashni)[0], "KingLanding");
        assert!(!named(Variant::Lasca).contains(&"KingLanding"));
        assert_eq!(named(Variant::Lasca).len(), 4, "the other rules still");
    }
}
