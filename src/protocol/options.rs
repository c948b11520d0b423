//! The engine's options: their UCI declarations, values and parsing.

use crate::rules::{KingLanding, Variant};

/// Every option value the protocol can set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub variant: Variant,
    pub threads: usize,
    pub hash_mb: usize,
    pub multi_pv: usize,
    pub ponder: bool,
    pub move_overhead: u64,
    pub skill_level: u32,
    pub king_landing: KingLanding,
    pub no_progress_plies: u32,
    pub max_plies: u32,
}

/// Draw-rule defaults of a variant: (NoProgressPlies, MaxPlies).
pub fn draw_defaults(variant: Variant) -> (u32, u32) {
    match variant {
        Variant::Bashni => (50, 250),
        Variant::Lasca => (0, 0),
    }
}

impl Default for Options {
    fn default() -> Self {
        let (no_progress_plies, max_plies) = draw_defaults(Variant::Bashni);
        Options {
            variant: Variant::Bashni,
            threads: 1,
            hash_mb: 64,
            multi_pv: 1,
            ponder: false,
            move_overhead: 10,
            skill_level: 0,
            king_landing: KingLanding::Continue,
            no_progress_plies,
            max_plies,
        }
    }
}

/// What a `setoption` changed, so the engine can act on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Nothing beyond the stored value.
    Value,
    Variant,
    Hash,
    ClearHash,
    KingLanding,
}

/// The `option` lines of the `uci` answer (Bashni defaults).
pub fn declarations() -> Vec<String> {
    let d = Options::default();
    vec![
        "option name UCI_Variant type combo default bashni var bashni var lasca".to_string(),
        format!(
            "option name Threads type spin default {} min 1 max 1024",
            d.threads
        ),
        format!(
            "option name Hash type spin default {} min 1 max 65536",
            d.hash_mb
        ),
        "option name Clear Hash type button".to_string(),
        format!(
            "option name MultiPV type spin default {} min 1 max 64",
            d.multi_pv
        ),
        "option name Ponder type check default false".to_string(),
        format!(
            "option name Move Overhead type spin default {} min 0 max 5000",
            d.move_overhead
        ),
        "option name Skill Level type spin default 0 min 0 max 7".to_string(),
        "option name KingLanding type combo default continue var continue var free".to_string(),
        format!(
            "option name NoProgressPlies type spin default {} min 0 max 1000",
            d.no_progress_plies
        ),
        format!(
            "option name MaxPlies type spin default {} min 0 max 100000",
            d.max_plies
        ),
    ]
}

fn spin(name: &str, value: Option<&str>, min: u64, max: u64) -> Result<u64, String> {
    let text = value.ok_or_else(|| format!("option {name} needs a value"))?;
    let n: u64 = text
        .parse()
        .map_err(|_| format!("option {name}: '{text}' is not a whole number"))?;
    if n < min || n > max {
        return Err(format!("option {name}: {n} is outside {min}..{max}"));
    }
    Ok(n)
}

impl Options {
    /// Apply `setoption name <name> value <value>`. On error nothing changes.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<Change, String> {
        let lower = name.to_ascii_lowercase();
        let change = match lower.as_str() {
            "uci_variant" => {
                let text = value.ok_or("option UCI_Variant needs a value")?;
                self.variant = text.parse()?;
                (self.no_progress_plies, self.max_plies) = draw_defaults(self.variant);
                Change::Variant
            }
            "threads" => {
                self.threads = spin(name, value, 1, 1024)? as usize;
                Change::Value
            }
            "hash" => {
                self.hash_mb = spin(name, value, 1, 65536)? as usize;
                Change::Hash
            }
            "clear hash" => Change::ClearHash,
            "multipv" => {
                self.multi_pv = spin(name, value, 1, 64)? as usize;
                Change::Value
            }
            "ponder" => {
                self.ponder = match value.map(str::to_ascii_lowercase).as_deref() {
                    Some("true") => true,
                    Some("false") => false,
                    _ => return Err(format!("option {name} takes true or false")),
                };
                Change::Value
            }
            "move overhead" => {
                self.move_overhead = spin(name, value, 0, 5000)?;
                Change::Value
            }
            "skill level" => {
                self.skill_level = spin(name, value, 0, 7)? as u32;
                Change::Value
            }
            "kinglanding" => {
                let text = value.ok_or("option KingLanding needs a value")?;
                self.king_landing = text.parse()?;
                Change::KingLanding
            }
            "noprogressplies" => {
                self.no_progress_plies = spin(name, value, 0, 1000)? as u32;
                Change::Value
            }
            "maxplies" => {
                self.max_plies = spin(name, value, 0, 100_000)? as u32;
                Change::Value
            }
            _ => return Err(format!("unknown option '{name}'")),
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
            ("Nope", Some("1")),
        ] {
            assert!(o.set(name, value).is_err(), "{name}");
        }
        assert_eq!(o, Options::default());
    }

    #[test]
    fn variant_resets_draw_rules() {
        let mut o = Options::default();
        o.set("maxplies", Some("99")).unwrap();
        o.set("UCI_Variant", Some("lasca")).unwrap();
        assert_eq!((o.no_progress_plies, o.max_plies), (0, 0));
        o.set("uci_variant", Some("bashni")).unwrap();
        assert_eq!((o.no_progress_plies, o.max_plies), (50, 250));
    }
}
