//! A client's message read as JSON whose objects name no key twice.
//! serde_json keeps the last of two, so `{"type": "resign", "type":
//! "offer_draw"}` would offer a draw: a proxy or a log reading the first
//! would see another action than the one taken.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

/// Read `text` as a JSON value, refusing a key named twice in one object
/// (at any depth): one reading, whose error (serde's) says what and
/// where.
pub fn parse(text: &str) -> Result<Value, serde_json::Error> {
    serde_json::from_str::<UniqueKeys>(text).map(|read| read.0)
}

/// A JSON value whose objects name each key once.
struct UniqueKeys(Value);

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
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(de::Error::custom(format_args!(
                    "the key '{}' appears twice in one object",
                    super::wire::clip(&key, 40)
                )));
            }
            let UniqueKeys(value) = map.next_value()?;
            object.insert(key, value);
        }
        Ok(UniqueKeys(Value::Object(object)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<UniqueKeys, A::Error> {
        let mut items = Vec::new();
        while let Some(UniqueKeys(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(UniqueKeys(Value::Array(items)))
    }

    fn visit_bool<E>(self, b: bool) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys(Value::Bool(b)))
    }
    fn visit_i64<E>(self, n: i64) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys(Value::from(n)))
    }
    fn visit_u64<E>(self, n: u64) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys(Value::from(n)))
    }
    fn visit_f64<E>(self, n: f64) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys(Value::from(n)))
    }
    fn visit_str<E>(self, text: &str) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys(Value::String(text.to_owned())))
    }
    fn visit_string<E>(self, text: String) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys(Value::String(text)))
    }
    fn visit_unit<E>(self) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys(Value::Null))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_named_twice_is_refused_at_any_depth() {
        assert!(parse(r#"{"type":"move","text":"c3-d4"}"#).is_ok());
        // Read as serde_json reads it, numbers and all.
        let nested = r#"{"a":[{"b":1},{"b":-2.5}],"c":{"b":null,"d":[true,"x"]}}"#;
        let plain: Value = serde_json::from_str(nested).expect("JSON");
        assert_eq!(parse(nested).expect("each key once"), plain);
        let twice = parse(r#"{"type":"resign","type":"offer_draw"}"#).expect_err("twice");
        assert_eq!(
            twice.to_string(),
            "the key 'type' appears twice in one object at line 1 column 23"
        );
        let deep = parse(r#"{"setup":{"rules":{"max_plies":1,"max_plies":2}}}"#);
        assert!(deep.is_err(), "in a nested object");
        assert!(
            parse(r#"{"rooms":[{"room":"a","room":"b"}]}"#).is_err(),
            "in a list"
        );
        // serde's depth limit holds for this reading too: no stack overflow.
        let nested = parse(&"[".repeat(20_000)).expect_err("too deep");
        assert!(nested.to_string().contains("recursion limit"), "{nested}");
    }
}
