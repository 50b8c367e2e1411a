//! Shift-JIS text that keeps its raw bytes.
//!
//! Old Japanese tools wrote names in Shift-JIS (code page 932), often into fixed-size,
//! NUL-padded fields whose padding is not always zero. A [`SjisField`] keeps every byte so a
//! writer reproduces the input exactly, and decodes the part before the first NUL for display.

use encoding_rs::SHIFT_JIS;
use std::borrow::Cow;

/// Raw bytes of a Shift-JIS text field, decoded lazily.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct SjisField {
    /// Every byte of the field as stored, padding included.
    pub raw: Vec<u8>,
}

impl SjisField {
    /// Wraps raw bytes.
    pub fn from_raw(raw: impl Into<Vec<u8>>) -> Self {
        Self { raw: raw.into() }
    }

    /// Encodes `text` as Shift-JIS, NUL-padded to `size` bytes. Returns `None` when the text
    /// has a character Shift-JIS cannot represent, or does not fit with its terminating NUL.
    pub fn encode_padded(text: &str, size: usize) -> Option<Self> {
        let raw = encode(text)?;
        if raw.len() >= size {
            return None;
        }
        let mut raw = raw.into_owned();
        raw.resize(size, 0);
        Some(Self { raw })
    }

    /// The bytes before the first NUL.
    pub fn text_bytes(&self) -> &[u8] {
        let end = self
            .raw
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(self.raw.len());
        self.raw.get(..end).unwrap_or_default()
    }

    /// The text before the first NUL, decoded (invalid sequences become U+FFFD).
    pub fn text(&self) -> Cow<'_, str> {
        decode(self.text_bytes())
    }
}

/// Decodes Shift-JIS bytes; invalid sequences become U+FFFD.
pub fn decode(bytes: &[u8]) -> Cow<'_, str> {
    SHIFT_JIS.decode_without_bom_handling(bytes).0
}

/// Decodes Shift-JIS bytes, or `None` if any sequence is invalid.
pub fn decode_strict(bytes: &[u8]) -> Option<Cow<'_, str>> {
    SHIFT_JIS.decode_without_bom_handling_and_without_replacement(bytes)
}

/// Encodes text as Shift-JIS, or `None` if a character is not representable.
pub fn encode(text: &str) -> Option<Cow<'_, [u8]>> {
    let (bytes, _, unmappable) = SHIFT_JIS.encode(text);
    (!unmappable).then_some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_padding_and_decodes_japanese() {
        let f = SjisField::encode_padded("骨", 8).unwrap();
        assert_eq!(f.raw.len(), 8);
        assert_eq!(f.text(), "骨");
        let mut dirty = f.clone();
        dirty.raw[6] = 0xCD;
        assert_eq!(dirty.text(), "骨");
        assert_ne!(dirty, f);
        assert!(SjisField::encode_padded("too long", 4).is_none());
    }
}
