//! A check that no JSON object of a client's message names a key twice.
//! serde_json keeps the last of two, so `{"type": "resign", "type":
//! "offer_draw"}` would offer a draw: a proxy or a log reading the first
//! would see another action than the one taken.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::collections::HashSet;
use std::fmt;

/// Read `text` as JSON, only to refuse a key named twice in one object
/// (at any depth); serde's error says which and where.
pub fn check(text: &str) -> Result<(), serde_json::Error> {
    serde_json::from_str::<UniqueKeys>(text).map(|_| ())
}

/// Any JSON value whose objects name each key once.
struct UniqueKeys;

impl<'de> Deserialize<'de> for UniqueKeys {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(UniqueKeysVisitor)
    }
}

struct UniqueKeysVisitor;

impl<'de> Visitor<'de> for UniqueKeysVisitor {
    type Value = UniqueKeys;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<UniqueKeys, A::Error> {
        let mut seen = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                return Err(de::Error::custom(format_args!(
                    "the key '{}' appears twice in one object",
                    super::wire::clip(&key, 40)
                )));
            }
            map.next_value::<UniqueKeys>()?;
        }
        Ok(UniqueKeys)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<UniqueKeys, A::Error> {
        while seq.next_element::<UniqueKeys>()?.is_some() {}
        Ok(UniqueKeys)
    }

    fn visit_bool<E>(self, _: bool) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }
    fn visit_i64<E>(self, _: i64) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }
    fn visit_u64<E>(self, _: u64) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }
    fn visit_f64<E>(self, _: f64) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }
    fn visit_str<E>(self, _: &str) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }
    fn visit_unit<E>(self) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_named_twice_is_refused_at_any_depth() {
        assert!(check(r#"{"type":"move","text":"c3-d4"}"#).is_ok());
        assert!(check(r#"{"a":[{"b":1},{"b":2}],"c":{"b":null}}"#).is_ok());
        let twice = check(r#"{"type":"resign","type":"offer_draw"}"#).expect_err("twice");
        assert_eq!(
            twice.to_string(),
            "the key 'type' appears twice in one object at line 1 column 23"
        );
        let deep = check(r#"{"setup":{"rules":{"max_plies":1,"max_plies":2}}}"#);
        assert!(deep.is_err(), "in a nested object");
        assert!(
            check(r#"{"rooms":[{"room":"a","room":"b"}]}"#).is_err(),
            "in a list"
        );
    }
}
