//! [`EngineOptions`]: an engine's `setoption` names and values in the order the user gave
//! them, written to and read from config files as a table in that order.

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Engine options (`setoption` name and value) in the order the user gave them: engines may
/// depend on it (Fairy-Stockfish takes `UCI_Variant` values only after `VariantPath` has
/// loaded them). Written as a map in config files (`options = { Hash = "64" }`), read back
/// in file order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EngineOptions(Vec<(String, String)>);

impl EngineOptions {
    /// Sets option `name` to `value`. A name given before (compared case-insensitively, as
    /// engines compare option names) is dropped from its place: the last value given wins,
    /// sent where it was given last.
    pub fn set(&mut self, name: &str, value: &str) {
        self.0
            .retain(|(given, _)| !given.eq_ignore_ascii_case(name));
        self.0.push((name.to_string(), value.to_string()));
    }

    /// The value given for `name` (case-insensitively), if any.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(given, _)| given.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// The (name, value) pairs in order.
    pub fn pairs(&self) -> &[(String, String)] {
        &self.0
    }
}

impl<N: AsRef<str>, V: AsRef<str>> FromIterator<(N, V)> for EngineOptions {
    /// Options set in iteration order, as by [`EngineOptions::set`].
    fn from_iter<I: IntoIterator<Item = (N, V)>>(pairs: I) -> Self {
        let mut options = EngineOptions::default();
        for (name, value) in pairs {
            options.set(name.as_ref(), value.as_ref());
        }
        options
    }
}

impl Serialize for EngineOptions {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, value) in &self.0 {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for EngineOptions {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct InOrder;
        impl<'de> Visitor<'de> for InOrder {
            type Value = EngineOptions;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a table of option names and string values")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<EngineOptions, A::Error> {
                let mut options = EngineOptions::default();
                while let Some((name, value)) = map.next_entry::<String, String>()? {
                    options.set(&name, &value);
                }
                Ok(options)
            }
        }
        deserializer.deserialize_map(InOrder)
    }
}
