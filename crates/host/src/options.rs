//! The options an engine declares in answer to `uci`
//! (`option name <name> type <type> [default ..] [min ..] [max ..] [var ..]`).

/// What kind of option, with what the declaration says about its values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// A whole number in a range.
    Spin {
        /// The engine's default.
        default: i64,
        /// The least value.
        min: i64,
        /// The greatest value.
        max: i64,
    },
    /// `true` or `false`.
    Check {
        /// The engine's default.
        default: bool,
    },
    /// One of a list of words.
    Combo {
        /// The engine's default.
        default: String,
        /// The words allowed.
        vars: Vec<String>,
    },
    /// An action without a value.
    Button,
    /// Free text.
    Text {
        /// The engine's default.
        default: String,
    },
}

/// One declared option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineOption {
    /// Its name, as declared (names compare without case).
    pub name: String,
    /// Its kind and values.
    pub kind: OptionKind,
}

/// The keywords of a declaration after the name.
const KEYWORDS: [&str; 5] = ["default", "min", "max", "var", "type"];

impl EngineOption {
    /// Parse an `option` line; `None` for another line or a declaration
    /// that does not read (a spin without its range, an unknown type).
    pub fn parse(line: &str) -> Option<EngineOption> {
        let rest = line.trim().strip_prefix("option name ")?;
        let (name, rest) = rest.split_once(" type ")?;
        let mut words = rest.split_whitespace();
        let kind_word = words.next()?;
        let fields = Fields::read(words);
        let kind = match kind_word {
            "spin" => OptionKind::Spin {
                default: fields.value("default")?.parse().ok()?,
                min: fields.value("min")?.parse().ok()?,
                max: fields.value("max")?.parse().ok()?,
            },
            "check" => OptionKind::Check {
                default: fields.value("default")?.eq_ignore_ascii_case("true"),
            },
            "combo" => OptionKind::Combo {
                default: fields.value("default").unwrap_or_default(),
                vars: fields.vars,
            },
            "button" => OptionKind::Button,
            "string" => OptionKind::Text {
                default: fields.value("default").unwrap_or_default(),
            },
            _ => return None,
        };
        let name = name.trim().to_string();
        (!name.is_empty()).then_some(EngineOption { name, kind })
    }

    /// The range of a spin option.
    pub fn range(&self) -> Option<(i64, i64)> {
        match self.kind {
            OptionKind::Spin { min, max, .. } => Some((min, max)),
            _ => None,
        }
    }
}

/// The values after each keyword; a value may have spaces (`default`
/// of a string option), so it runs to the next keyword.
#[derive(Default)]
struct Fields {
    values: Vec<(String, String)>,
    vars: Vec<String>,
}

impl Fields {
    fn read<'a>(words: impl Iterator<Item = &'a str>) -> Fields {
        let mut fields = Fields::default();
        let mut current: Option<(&str, Vec<&str>)> = None;
        for word in words {
            if KEYWORDS.contains(&word) {
                fields.finish(current.take());
                current = Some((word, Vec::new()));
            } else if let Some((_, value)) = current.as_mut() {
                value.push(word);
            }
        }
        fields.finish(current);
        fields
    }

    fn finish(&mut self, field: Option<(&str, Vec<&str>)>) {
        let Some((key, words)) = field else { return };
        let value = words.join(" ");
        match key {
            "var" => self.vars.push(value),
            _ => self.values.push((key.to_string(), value)),
        }
    }

    fn value(&self, key: &str) -> Option<String> {
        let found = self.values.iter().find(|(k, _)| k == key);
        found.map(|(_, v)| v.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_of_every_kind() {
        let spin =
            EngineOption::parse("option name Move Overhead type spin default 10 min 0 max 5000")
                .unwrap();
        assert_eq!(spin.name, "Move Overhead");
        assert_eq!(spin.range(), Some((0, 5000)));
        let combo = EngineOption::parse(
            "option name UCI_Variant type combo default bashni var bashni var lasca",
        )
        .unwrap();
        assert_eq!(
            combo.kind,
            OptionKind::Combo {
                default: "bashni".into(),
                vars: vec!["bashni".into(), "lasca".into()]
            }
        );
        let check = EngineOption::parse("option name Ponder type check default false").unwrap();
        assert_eq!(check.kind, OptionKind::Check { default: false });
        let button = EngineOption::parse("option name Clear Hash type button").unwrap();
        assert_eq!((button.name.as_str(), button.range()), ("Clear Hash", None));
        let text =
            EngineOption::parse("option name Book File type string default my book.bin").unwrap();
        assert_eq!(
            text.kind,
            OptionKind::Text {
                default: "my book.bin".into()
            }
        );
    }

    #[test]
    fn broken_declarations_give_nothing() {
        for line in [
            "option name Hash type spin default 16 min 1",
            "option name Hash type spin default x min 1 max 4",
            "option name Hash type dial",
            "option name  type button",
            "option Hash",
            "id name x",
        ] {
            assert_eq!(EngineOption::parse(line), None, "{line}");
        }
    }
}
