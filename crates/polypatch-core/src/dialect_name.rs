//! The name of a dialect, as plans, reports, errors and JSON documents carry it (below
//! the IR and the renderers, which both name dialects).

use std::borrow::{Borrow, Cow};
use std::fmt;

/// The name of a dialect: `"ai-patch"`, `"unified"`, `"ap"`, `"applydiff"`, `"aptix"`, a
/// dialect of your own ([`Dialect::name`](crate::Dialect::name)), or `"polypatch"` for a
/// refusal that belongs to no dialect (an unknown format).
///
/// The set of dialects is open (a registry takes a caller's own), so this is a name, not
/// an enum: a dialect's name as its [`Dialect::name`](crate::Dialect::name) gives it,
/// without a copy, or one read back from JSON. It displays and serializes as the name
/// itself, so the JSON reports are unchanged, and compares with a `&str`:
///
/// ```
/// use polypatch_core::DialectName;
///
/// const UNIFIED: DialectName = DialectName::new("unified");
/// assert_eq!(UNIFIED, "unified");
/// assert_eq!(UNIFIED.as_str(), "unified");
/// assert_eq!(UNIFIED.to_string(), "unified");
/// # #[cfg(feature = "serde")] // serde_json: core's `serde` feature
/// # {
/// assert_eq!(serde_json::to_string(&UNIFIED).unwrap(), "\"unified\"");
/// let back: DialectName = serde_json::from_str("\"mine\"").unwrap();
/// assert_eq!(back, DialectName::from(String::from("mine")));
/// # }
/// ```
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DialectName(Cow<'static, str>);

impl DialectName {
    /// The name `name` (a [`Dialect::name`](crate::Dialect::name)).
    pub const fn new(name: &'static str) -> Self {
        DialectName(Cow::Borrowed(name))
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether the name is empty: a plan built by hand may say no dialect.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The impls a name held as a `Cow<'static, str>` newtype shares with the others of its
/// kind ([`DialectName`], [`ErrorKind`](crate::ErrorKind)): it displays, serializes and reads
/// back from JSON as the name itself, compares with a `str`, and its JSON Schema is a
/// string's.
macro_rules! name_impls {
    ($name:ident) => {
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        #[cfg(feature = "serde")]
        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(&self.0)
            }
        }

        #[cfg(feature = "serde")]
        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                <String as serde::Deserialize>::deserialize(deserializer)
                    .map(|name| $name(std::borrow::Cow::Owned(name)))
            }
        }

        /// The schema of a string, as the field had before it was a type.
        #[cfg(feature = "schemars")]
        impl schemars::JsonSchema for $name {
            fn inline_schema() -> bool {
                true
            }

            fn schema_name() -> std::borrow::Cow<'static, str> {
                <String as schemars::JsonSchema>::schema_name()
            }

            fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
                <String as schemars::JsonSchema>::json_schema(generator)
            }
        }
    };
}

pub(crate) use name_impls;

name_impls!(DialectName);

impl fmt::Debug for DialectName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl From<&'static str> for DialectName {
    fn from(name: &'static str) -> Self {
        DialectName::new(name)
    }
}

impl From<String> for DialectName {
    fn from(name: String) -> Self {
        DialectName(Cow::Owned(name))
    }
}

impl AsRef<str> for DialectName {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for DialectName {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl PartialEq<String> for DialectName {
    fn eq(&self, other: &String) -> bool {
        self.0 == other.as_str()
    }
}

impl PartialEq<DialectName> for str {
    fn eq(&self, other: &DialectName) -> bool {
        self == other.0
    }
}

impl PartialEq<DialectName> for &str {
    fn eq(&self, other: &DialectName) -> bool {
        *self == other.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_its_text_in_json_and_compares_with_strings() {
        let name = DialectName::new("ai-patch");
        #[cfg(feature = "serde")]
        {
            assert_eq!(serde_json::to_string(&name).unwrap(), "\"ai-patch\"");
            assert_eq!(serde_json::from_str::<DialectName>("\"ai-patch\"").unwrap(), name);
        }
        assert_eq!(name, "ai-patch");
        assert_eq!("ai-patch", name);
        assert_eq!(name, *"ai-patch");
        assert_eq!(name, String::from("ai-patch"));
        assert_ne!(name, "unified");
        assert_eq!(format!("{name} {name:?}"), "ai-patch \"ai-patch\"");
        assert!(DialectName::default().is_empty());
    }
}
