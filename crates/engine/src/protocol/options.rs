//! The engine's options: their UCI declarations, values and parsing.

use super::error::ProtocolError;
use super::eval_file::EMBEDDED;
use crate::search::{DEFAULT_HASH_MB, ELO_RANGE, SKILL_FULL, skill_for_elo};
use bashni_rules::{RuleSet, Variant};

/// Every option value the protocol can set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Variant, king landing, forced capture and draw rules (`UCI_Variant`,
    /// `KingLanding`, `ForcedCapture`, `NoProgressPlies`, `MaxPlies`).
    pub rules: RuleSet,
    /// `Threads`.
    pub threads: usize,
    /// `Hash`, in MiB.
    pub hash_mb: usize,
    /// `MultiPV`.
    pub multi_pv: usize,
    /// `Ponder`.
    pub ponder: bool,
    /// `Move Overhead`, in milliseconds.
    pub move_overhead: u64,
    /// `Skill Level`.
    pub skill_level: u32,
    /// `UCI_LimitStrength`: play at `UCI_Elo` instead of `Skill Level`.
    pub limit_strength: bool,
    /// `UCI_Elo`, used when `UCI_LimitStrength` is on.
    pub elo: u32,
    /// `EvalFile`: `embedded` (the default) for the network built into the
    /// binary, `linear` (or empty) for the linear evaluation, else the
    /// path of a network file.
    pub eval_file: String,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            rules: RuleSet::new(Variant::Bashni),
            threads: 1,
            hash_mb: DEFAULT_HASH_MB,
            multi_pv: 1,
            ponder: false,
            move_overhead: 10,
            skill_level: SKILL_FULL,
            limit_strength: false,
            elo: ELO_RANGE.0,
            eval_file: EMBEDDED.to_string(),
        }
    }
}

// The ranges of the spin options, declared by `uci`, checked by
// `setoption` and used by `bench`, from this one place.
/// `Threads`.
pub const THREADS: (u64, u64) = (1, 1024);
/// `Hash`, in MiB.
pub const HASH_MB: (u64, u64) = (1, 65536);
/// `MultiPV`.
pub const MULTI_PV: (u64, u64) = (1, 64);
/// `Move Overhead`, in milliseconds.
pub const MOVE_OVERHEAD: (u64, u64) = (0, 5000);
/// `Skill Level`.
pub const SKILL_LEVEL: (u64, u64) = (0, SKILL_FULL as u64);
const ELO: (u64, u64) = (ELO_RANGE.0 as u64, ELO_RANGE.1 as u64);
const NO_PROGRESS_PLIES: (u64, u64) = (0, 1000);
const MAX_PLIES: (u64, u64) = (0, 100_000);

fn spin_declaration(name: &str, default: impl std::fmt::Display, (min, max): (u64, u64)) -> String {
    format!("option name {name} type spin default {default} min {min} max {max}")
}

/// What a `setoption` changed, so the engine can act on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Nothing beyond the stored value.
    Value,
    /// The variant changed: a new game and rule set.
    Variant,
    /// The table size changed: make a new table.
    Hash,
    /// `Clear Hash` was pressed.
    ClearHash,
    /// The landing, capture or a draw rule of the current game.
    Rules,
    /// `EvalFile`: load the network it names (or drop it).
    EvalFile,
}

/// The `option` lines of the `uci` answer (Bashni defaults).
pub fn declarations() -> Vec<String> {
    let d = Options::default();
    vec![
        "option name UCI_Variant type combo default bashni var bashni var lasca".to_string(),
        spin_declaration("Threads", d.threads, THREADS),
        spin_declaration("Hash", d.hash_mb, HASH_MB),
        "option name Clear Hash type button".to_string(),
        spin_declaration("MultiPV", d.multi_pv, MULTI_PV),
        "option name Ponder type check default false".to_string(),
        spin_declaration("Move Overhead", d.move_overhead, MOVE_OVERHEAD),
        spin_declaration("Skill Level", d.skill_level, SKILL_LEVEL),
        "option name UCI_LimitStrength type check default false".to_string(),
        spin_declaration("UCI_Elo", d.elo, ELO),
        "option name KingLanding type combo default continue var continue var free".to_string(),
        format!(
            "option name ForcedCapture type check default {}",
            d.rules.forced_capture
        ),
        spin_declaration(
            "NoProgressPlies",
            d.rules.draw.no_progress_plies,
            NO_PROGRESS_PLIES,
        ),
        spin_declaration("MaxPlies", d.rules.draw.max_plies, MAX_PLIES),
        format!("option name EvalFile type string default {}", d.eval_file),
    ]
}

/// The value of option `name`, which must be there.
fn needed<'v>(name: &str, value: Option<&'v str>) -> Result<&'v str, ProtocolError> {
    value.ok_or_else(|| ProtocolError::MissingValue {
        option: name.to_string(),
    })
}

fn spin(name: &str, value: Option<&str>, (min, max): (u64, u64)) -> Result<u64, ProtocolError> {
    let text = needed(name, value)?;
    let n: i128 = text.parse().map_err(|_| ProtocolError::NotANumber {
        option: name.to_string(),
        text: text.to_string(),
    })?;
    match u64::try_from(n) {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(ProtocolError::OutOfRange {
            option: name.to_string(),
            value: n,
            min,
            max,
        }),
    }
}

fn check(name: &str, value: Option<&str>) -> Result<bool, ProtocolError> {
    match value.map(str::to_ascii_lowercase).as_deref() {
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        _ => Err(ProtocolError::NotABool {
            option: name.to_string(),
        }),
    }
}

/// A variant or king landing rule by name.
fn rule<T: std::str::FromStr<Err = bashni_rules::ParseRuleError>>(
    name: &str,
    value: Option<&str>,
) -> Result<T, ProtocolError> {
    needed(name, value)?
        .parse()
        .map_err(|error| ProtocolError::UnknownRule {
            option: name.to_string(),
            error,
        })
}

impl Options {
    /// The `Skill Level` to play: from `UCI_Elo` when `UCI_LimitStrength`
    /// is on, as in Stockfish.
    pub fn playing_skill(&self) -> u32 {
        if self.limit_strength {
            skill_for_elo(self.elo)
        } else {
            self.skill_level
        }
    }

    /// Apply `setoption name <name> value <value>`. On error nothing changes.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<Change, ProtocolError> {
        let lower = name.to_ascii_lowercase();
        let change = match lower.as_str() {
            "uci_variant" => {
                // A new variant brings its own draw rules; the landing
                // and capture rules stay as set.
                self.rules = RuleSet::new(rule(name, value)?)
                    .with_king_landing(self.rules.king_landing)
                    .with_forced_capture(self.rules.forced_capture);
                Change::Variant
            }
            "threads" => {
                self.threads = spin(name, value, THREADS)? as usize;
                Change::Value
            }
            "hash" => {
                self.hash_mb = spin(name, value, HASH_MB)? as usize;
                Change::Hash
            }
            "clear hash" => Change::ClearHash,
            "multipv" => {
                self.multi_pv = spin(name, value, MULTI_PV)? as usize;
                Change::Value
            }
            "ponder" => {
                self.ponder = check(name, value)?;
                Change::Value
            }
            "uci_limitstrength" => {
                self.limit_strength = check(name, value)?;
                Change::Value
            }
            "uci_elo" => {
                self.elo = spin(name, value, ELO)? as u32;
                Change::Value
            }
            "move overhead" => {
                self.move_overhead = spin(name, value, MOVE_OVERHEAD)?;
                Change::Value
            }
            "skill level" => {
                self.skill_level = spin(name, value, SKILL_LEVEL)? as u32;
                Change::Value
            }
            "kinglanding" => {
                self.rules.king_landing = rule(name, value)?;
                Change::Rules
            }
            "forcedcapture" => {
                self.rules.forced_capture = check(name, value)?;
                Change::Rules
            }
            "noprogressplies" => {
                self.rules.draw.no_progress_plies = spin(name, value, NO_PROGRESS_PLIES)? as u32;
                Change::Rules
            }
            "maxplies" => {
                self.rules.draw.max_plies = spin(name, value, MAX_PLIES)? as u32;
                Change::Rules
            }
            "evalfile" => {
                // UCI's way of writing an empty string is `<empty>`.
                let text = value.unwrap_or_default().trim();
                self.eval_file = if text == "<empty>" { "" } else { text }.to_string();
                Change::EvalFile
            }
            _ => return Err(ProtocolError::UnknownOption(name.to_string())),
        };
        Ok(change)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_values_change_nothing() {
        let mut o = Options::default();
        for (name, value) in [
            ("Threads", Some("0")),
            ("Hash", Some("x")),
            ("MultiPV", Some("-1")),
            ("Ponder", Some("maybe")),
            ("UCI_Variant", Some("chess")),
            ("KingLanding", None),
            ("ForcedCapture", Some("no")),
            ("ForcedCapture", None),
            ("Nope", Some("1")),
        ] {
            assert!(o.set(name, value).is_err(), "{name}");
        }
        assert_eq!(o, Options::default());
    }

    #[test]
    fn errors_name_the_option_and_the_value() {
        let mut o = Options::default();
        let message = |o: &mut Options, name, value| o.set(name, value).unwrap_err().to_string();
        assert_eq!(
            message(&mut o, "Threads", None),
            "option Threads needs a value"
        );
        assert_eq!(
            message(&mut o, "hash", Some("lots")),
            "option hash: 'lots' is not a whole number"
        );
        assert_eq!(
            o.set("MultiPV", Some("65")),
            Err(ProtocolError::OutOfRange {
                option: "MultiPV".into(),
                value: 65,
                min: 1,
                max: 64
            })
        );
        assert_eq!(
            message(&mut o, "UCI_Variant", Some("chess")),
            "option UCI_Variant: unknown variant 'chess' (expected bashni or lasca)"
        );
        assert_eq!(
            message(&mut o, "KingLanding", Some("anywhere")),
            "option KingLanding: unknown king landing 'anywhere' (expected continue or free)"
        );
        assert_eq!(
            message(&mut o, "Ponder", Some("yes")),
            "option Ponder takes true or false"
        );
        assert_eq!(message(&mut o, "Nope", None), "unknown option 'Nope'");
    }

    #[test]
    fn variant_resets_draw_rules() {
        let mut o = Options::default();
        o.set("maxplies", Some("99")).unwrap();
        o.set("UCI_Variant", Some("lasca")).unwrap();
        assert_eq!(o.rules, RuleSet::new(Variant::Lasca));
        o.set("uci_variant", Some("bashni")).unwrap();
        assert_eq!(o.rules, RuleSet::new(Variant::Bashni));
    }

    #[test]
    fn forced_capture_is_a_check_option_kept_across_variants() {
        let mut o = Options::default();
        assert!(o.rules.forced_capture);
        assert!(
            declarations().contains(&"option name ForcedCapture type check default true".into())
        );
        assert_eq!(o.set("forcedcapture", Some("FALSE")), Ok(Change::Rules));
        assert!(!o.rules.forced_capture);
        o.set("UCI_Variant", Some("lasca")).unwrap();
        assert!(
            !o.rules.forced_capture,
            "the variant keeps the capture rule"
        );
        o.set("ForcedCapture", Some("true")).unwrap();
        assert_eq!(o.rules, RuleSet::new(Variant::Lasca));
    }

    #[test]
    fn elo_plays_only_with_limit_strength() {
        let mut o = Options::default();
        assert_eq!(o.playing_skill(), SKILL_FULL);
        o.set("UCI_Elo", Some(&ELO_RANGE.0.to_string())).unwrap();
        assert_eq!(o.playing_skill(), SKILL_FULL);
        o.set("UCI_LimitStrength", Some("true")).unwrap();
        assert_eq!(o.playing_skill(), skill_for_elo(ELO_RANGE.0));
        assert!(o.playing_skill() < SKILL_FULL);
        assert!(
            o.set("UCI_Elo", Some(&(ELO_RANGE.1 + 1).to_string()))
                .is_err()
        );
    }
}
