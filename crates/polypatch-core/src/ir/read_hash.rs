//! The stale-read guard's key: the sha256 of a file's bytes as the writer of an edit read
//! them.

use std::fmt;
use std::str::FromStr;

#[cfg(feature = "serde")]
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The sha256 of a file's bytes as an agent (or a person) read them, before writing an
/// edit against them: the stale-read guard.
///
/// Given for a file ([`FileEdit::read_hash`](crate::FileEdit::read_hash), or
/// [`ApplyOptions::read_hash`](crate::ApplyOptions::read_hash) for any dialect), the
/// file's edits are refused with [`FailureKind::ChangedSinceRead`](crate::FailureKind)
/// when its content is no longer the one read (someone changed it after the writer read
/// it, so the edit was written against an old view), unless
/// [`StaleRead::ExactOnly`](crate::StaleRead::ExactOnly) lets edits that still match the file exactly through.
///
/// Written `sha256:` and 64 lowercase hex digits; [`ReadHash::parse`] also takes the bare
/// digits, in either case.
///
/// ```
/// use polypatch_core::ReadHash;
///
/// let hash = ReadHash::of(b"hello\n");
/// assert_eq!(hash.to_string(), "sha256:5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03");
/// assert_eq!(ReadHash::parse("5891B5B522D5DF086D0FF0B110FBD9D21BB4FC7163AF34D08286A2E846F6BE03"), Ok(hash));
/// assert!(ReadHash::parse("sha256:5891b5").is_err());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReadHash([u8; 32]);

/// What the prefix of a written [`ReadHash`] says.
const PREFIX: &str = "sha256:";

impl ReadHash {
    /// The hash of `bytes`, the whole file as read (a byte order mark and `\r\n` included).
    #[cfg(feature = "stale-read")]
    #[cfg_attr(docsrs, doc(cfg(feature = "stale-read")))]
    pub fn of(bytes: &[u8]) -> Self {
        use sha2::Digest as _;
        ReadHash(sha2::Sha256::digest(bytes).into())
    }

    /// Reads a hash written as `sha256:` and 64 hex digits, or the digits alone (either
    /// case; spaces around it are ignored).
    pub fn parse(text: &str) -> Result<Self, InvalidReadHash> {
        let invalid = || InvalidReadHash(text.to_owned());
        let trimmed = text.trim();
        let hex = match trimmed.get(..PREFIX.len()) {
            Some(prefix) if prefix.eq_ignore_ascii_case(PREFIX) => &trimmed[PREFIX.len()..],
            _ => trimmed,
        };
        if hex.len() != 64 {
            return Err(invalid());
        }
        let mut bytes = [0u8; 32];
        for (byte, pair) in bytes.iter_mut().zip(hex.as_bytes().chunks_exact(2)) {
            let digit = |b: u8| char::from(b).to_digit(16).ok_or_else(invalid);
            *byte = u8::try_from(digit(pair[0])? * 16 + digit(pair[1])?).map_err(|_| invalid())?;
        }
        Ok(ReadHash(bytes))
    }

    /// The 64 hex digits, without the `sha256:` prefix.
    pub fn hex(&self) -> String {
        use fmt::Write as _;
        self.0.iter().fold(String::with_capacity(64), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        })
    }
}

impl fmt::Display for ReadHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{PREFIX}{}", self.hex())
    }
}

impl fmt::Debug for ReadHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ReadHash({self})")
    }
}

impl FromStr for ReadHash {
    type Err = InvalidReadHash;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        ReadHash::parse(text)
    }
}

#[cfg(feature = "serde")]
impl Serialize for ReadHash {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(feature = "serde")]
impl<'de> Deserialize<'de> for ReadHash {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        ReadHash::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// A string of `sha256:` and 64 hex digits (the bare digits are read too).
#[cfg(feature = "schemars")]
impl schemars::JsonSchema for ReadHash {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ReadHash".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": "^\\s*([sS][hH][aA]256:)?[0-9a-fA-F]{64}\\s*$",
            "description": "The sha256 of the file's bytes as they were read: `sha256:` and 64 hex digits.",
        })
    }
}

/// A text given as a [`ReadHash`] is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{0}` is not a file hash: write `sha256:` and the 64 hex digits of the file's sha256, as `polypatch hash FILE` prints it"
)]
pub struct InvalidReadHash(pub String);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_reads_back_as_it_is_written_and_refuses_what_is_not_one() {
        let hash = ReadHash::parse("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855").unwrap();
        assert_eq!(hash.hex(), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        #[cfg(feature = "stale-read")]
        assert_eq!(ReadHash::of(b""), hash);
        for written in [hash.to_string(), hash.hex(), hash.hex().to_uppercase(), format!("  SHA256:{}\n", hash.hex())] {
            assert_eq!(ReadHash::parse(&written), Ok(hash), "{written:?}");
        }
        #[cfg(feature = "serde")]
        {
            let json = serde_json::to_string(&hash).unwrap();
            assert_eq!(json, format!("\"{hash}\""));
            assert_eq!(serde_json::from_str::<ReadHash>(&json).unwrap(), hash);
            assert!(
                serde_json::from_str::<ReadHash>("\"abc\"").unwrap_err().to_string().contains("is not a file hash")
            );
        }
        let short = &hash.hex()[..63];
        for bad in
            ["", "sha256:", short, &format!("{short}g"), &format!("sha1:{}", hash.hex()), "é".repeat(32).as_str()]
        {
            let err = ReadHash::parse(bad).unwrap_err();
            assert_eq!(err, InvalidReadHash(bad.to_owned()));
        }
        assert_eq!(
            InvalidReadHash("abc".into()).to_string(),
            "`abc` is not a file hash: write `sha256:` and the 64 hex digits of the file's sha256, as `polypatch hash \
             FILE` prints it"
        );
    }
}
