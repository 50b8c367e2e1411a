//! The pack and its entries: what a `.Pack` *is*. No I/O here.

use crate::crypt::{converted_name, name_crc, Key};
use crate::error::{Error, Result};
use std::borrow::Cow;
use std::sync::Arc;

/// Magic of a pack: the first four bytes.
pub const MAGIC: &[u8; 4] = b"KCAP";
/// Size of one record of the entry table.
pub const ENTRY_SIZE: usize = 0x54;
/// Size of the name field, NUL terminator included: names have at most 63 bytes.
pub const NAME_FIELD: usize = 64;
/// The largest offset or end of data the engine can address (it uses signed 32-bit ints).
pub const MAX_OFFSET: u64 = 0x7FFF_FFFF;

/// A Selene `.Pack` archive: entries and the key their encrypted data is XORed with.
///
/// A pack read by [`Pack::from_bytes_with_key`] borrows the input: its entries hold slices of
/// it and decrypt on demand ([`Entry::data`]). A pack built in code holds whatever the
/// entries were given. [`Pack::to_bytes`] writes a pack the engine accepts: table sorted by
/// name CRC, data in byte-wise name order right after it, the right data CRCs.
#[derive(Debug, Clone)]
pub struct Pack<'a> {
    key: Arc<Key>,
    /// The entries: in table order for a pack that was read; in any order for a pack being
    /// built (the writer sorts).
    pub entries: Vec<Entry<'a>>,
}

/// One file inside a pack.
#[derive(Debug, Clone)]
pub struct Entry<'a> {
    /// The CP932 bytes of the name, without the NUL.
    name: Cow<'a, [u8]>,
    /// The raw `Encrypted` field: 0 or 1 in every real pack; the engine treats any non-zero
    /// value as 1, and the raw value is kept for the rewrite.
    encrypted: u32,
    contents: Contents<'a>,
}

/// An entry's bytes: the plain data, or the stored (XORed) data and the key that decrypts it.
#[derive(Debug, Clone)]
enum Contents<'a> {
    Plain(Cow<'a, [u8]>),
    Stored { bytes: Cow<'a, [u8]>, key: Arc<Key> },
}

impl<'a> Pack<'a> {
    /// An empty pack whose encrypted entries will be XORed with `key`.
    pub fn new(key: Key) -> Self {
        Pack {
            key: Arc::new(key),
            entries: Vec::new(),
        }
    }

    pub(crate) fn from_parts(key: Arc<Key>, entries: Vec<Entry<'a>>) -> Self {
        Pack { key, entries }
    }

    /// The key encrypted entries are XORed with.
    pub fn key(&self) -> &Key {
        &self.key
    }

    /// Uses another key from now on. Entries read with the old key keep decrypting with it;
    /// the writer re-encrypts them with the new one.
    pub fn set_key(&mut self, key: Key) {
        self.key = Arc::new(key);
    }

    /// Adds an entry (the writer sorts; the order of pushes does not matter).
    pub fn push(&mut self, entry: Entry<'a>) {
        self.entries.push(entry);
    }

    /// The entry the engine would find under `name` (compared as the engine does:
    /// ASCII case-insensitive, `/` and `\` alike). `None` when the name has a character
    /// CP932 lacks or no entry matches.
    pub fn find(&self, name: &str) -> Option<&Entry<'a>> {
        let (bytes, _, unmappable) = encoding_rs::SHIFT_JIS.encode(name);
        if unmappable {
            return None;
        }
        self.entries
            .iter()
            .find(|e| converted_name(&e.name).eq(converted_name(&bytes)))
    }

    /// A copy that owns all its bytes (no longer borrows the input).
    pub fn into_owned(self) -> Pack<'static> {
        Pack {
            key: self.key,
            entries: self.entries.into_iter().map(Entry::into_owned).collect(),
        }
    }
}

impl<'a> Entry<'a> {
    /// An entry named `name` (converted to CP932; `\` or `/` separates folders) holding the
    /// plain bytes `data`, to be encrypted with the pack's key when `encrypted`.
    ///
    /// Fails when the name has a character CP932 lacks, is empty, holds a NUL or takes more
    /// than 63 CP932 bytes.
    pub fn new(name: &str, data: impl Into<Cow<'a, [u8]>>, encrypted: bool) -> Result<Self> {
        Entry::from_cp932_name(cp932_name(name)?, data, encrypted)
    }

    /// Like [`Entry::new`] with the name given as its CP932 bytes (checked to be valid CP932).
    pub fn from_cp932_name(
        name: impl Into<Cow<'a, [u8]>>,
        data: impl Into<Cow<'a, [u8]>>,
        encrypted: bool,
    ) -> Result<Self> {
        let name = name.into();
        check_name(&name)?;
        Ok(Entry {
            name,
            encrypted: u32::from(encrypted),
            contents: Contents::Plain(data.into()),
        })
    }

    pub(crate) fn stored(name: &'a [u8], encrypted: u32, bytes: &'a [u8], key: &Arc<Key>) -> Self {
        let contents = if encrypted == 0 {
            Contents::Plain(Cow::Borrowed(bytes))
        } else {
            Contents::Stored {
                bytes: Cow::Borrowed(bytes),
                key: Arc::clone(key),
            }
        };
        Entry {
            name: Cow::Borrowed(name),
            encrypted,
            contents,
        }
    }

    /// The name decoded from CP932 (lossless for every name the reader accepts).
    pub fn name(&self) -> Cow<'_, str> {
        encoding_rs::SHIFT_JIS
            .decode_without_bom_handling(&self.name)
            .0
    }

    /// The raw CP932 bytes of the name.
    pub fn name_bytes(&self) -> &[u8] {
        &self.name
    }

    /// The `NameCrc` of this entry: the CRC-32 of its converted name.
    pub fn name_crc(&self) -> u32 {
        name_crc(&self.name)
    }

    /// The data's size in bytes (the same encrypted or not).
    pub fn size(&self) -> usize {
        match &self.contents {
            Contents::Plain(b) | Contents::Stored { bytes: b, .. } => b.len(),
        }
    }

    /// Whether the data is stored XORed with the key (any non-zero `Encrypted` value).
    pub fn is_encrypted(&self) -> bool {
        self.encrypted != 0
    }

    /// The raw `Encrypted` field (0 or 1, unless a reader warning said otherwise).
    pub fn encrypted_flag(&self) -> u32 {
        self.encrypted
    }

    /// The plain data: borrowed when the entry is not encrypted, decrypted into a new buffer
    /// when it is. A wrong passphrase gives garbage of the right size: nothing in the format
    /// tells.
    pub fn data(&self) -> Cow<'a, [u8]> {
        match &self.contents {
            Contents::Plain(b) => b.clone(),
            Contents::Stored { bytes, key } => Cow::Owned(key.applied(bytes)),
        }
    }

    /// The first `len` bytes of the plain data (fewer if the entry is shorter), decrypting
    /// only those: enough to recognise a format by its magic without decrypting the rest.
    pub fn head(&self, len: usize) -> Vec<u8> {
        match &self.contents {
            Contents::Plain(b) => b.get(..len).unwrap_or(b).to_vec(),
            Contents::Stored { bytes, key } => key.applied(bytes.get(..len).unwrap_or(bytes)),
        }
    }

    /// The bytes as they will be stored in a pack whose key is `key`.
    pub(crate) fn stored_bytes(&self, key: &Key) -> Cow<'_, [u8]> {
        match (&self.contents, self.is_encrypted()) {
            (Contents::Stored { bytes, key: own }, true) if **own == *key => Cow::Borrowed(bytes),
            (Contents::Stored { bytes, key: own }, true) => {
                let mut v = own.applied(bytes);
                key.apply(&mut v);
                Cow::Owned(v)
            }
            (Contents::Plain(b), true) => Cow::Owned(key.applied(b)),
            (Contents::Plain(b), false) => Cow::Borrowed(b),
            // Not reachable from the reader (flag 0 is read as plain), but an entry could be
            // built so: the stored bytes decrypt to the data.
            (Contents::Stored { bytes, key: own }, false) => Cow::Owned(own.applied(bytes)),
        }
    }

    /// A copy that owns its bytes.
    pub fn into_owned(self) -> Entry<'static> {
        Entry {
            name: Cow::Owned(self.name.into_owned()),
            encrypted: self.encrypted,
            contents: match self.contents {
                Contents::Plain(b) => Contents::Plain(Cow::Owned(b.into_owned())),
                Contents::Stored { bytes, key } => Contents::Stored {
                    bytes: Cow::Owned(bytes.into_owned()),
                    key,
                },
            },
        }
    }
}

/// `name` (or a part of one) in CP932, as [`Entry::new`] stores it; fails on a character
/// CP932 lacks. The other rules of a name (length, NUL) are [`Entry::from_cp932_name`]'s.
///
/// ```
/// assert_eq!(selene_pack::cp932_name("電車").unwrap(), b"\x93\x64\x8e\xd4");
/// assert!(selene_pack::cp932_name("🚃").is_err());
/// ```
pub fn cp932_name(name: &str) -> Result<Vec<u8>> {
    let (bytes, _, unmappable) = encoding_rs::SHIFT_JIS.encode(name);
    if unmappable {
        let c = name
            .chars()
            .find(|c| {
                let mut buf = [0u8; 4];
                encoding_rs::SHIFT_JIS.encode(c.encode_utf8(&mut buf)).2
            })
            .unwrap_or('\u{FFFD}');
        return Err(Error::UnwritableName {
            name: name.to_owned(),
            reason: format!("the character {c:?} (U+{:04X}) has no CP932 code", c as u32),
        });
    }
    Ok(bytes.into_owned())
}

/// Checks that a name can be stored: 1 to 63 bytes, no NUL, valid CP932.
pub(crate) fn check_name(name: &[u8]) -> Result<()> {
    let shown = || {
        encoding_rs::SHIFT_JIS
            .decode_without_bom_handling(name)
            .0
            .into_owned()
    };
    let reason = if name.is_empty() {
        "it is empty".to_owned()
    } else if name.len() >= NAME_FIELD {
        format!(
            "it takes {} CP932 bytes; the name field holds at most {}",
            name.len(),
            NAME_FIELD - 1
        )
    } else if name.contains(&0) {
        "it contains a NUL".to_owned()
    } else if encoding_rs::SHIFT_JIS
        .decode_without_bom_handling_and_without_replacement(name)
        .is_none()
    {
        "its bytes are not valid CP932".to_owned()
    } else {
        return Ok(());
    };
    Err(Error::UnwritableName {
        name: shown(),
        reason,
    })
}
