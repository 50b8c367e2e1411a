//! The key table (passphrase → CRC-32 seed → signed MT19937 → 64 KiB of key bytes), the
//! engine's name CRC, and the XOR that encrypts and decrypts an entry.

use crate::error::{Error, Result};

/// The passphrase the engine uses when none is given, or when the given one is shorter than
/// [`MIN_PASSPHRASE_LEN`] bytes.
pub const DEFAULT_PASSPHRASE: &str = "Selene.Default.Password";

/// Passphrases shorter than this many CP932 bytes are replaced by [`DEFAULT_PASSPHRASE`].
pub const MIN_PASSPHRASE_LEN: usize = 8;

/// Length of the key table in bytes; the index restarts at 0 for each entry.
pub const KEY_TABLE_LEN: usize = 65_536;

const WORDS: usize = KEY_TABLE_LEN / 8;

/// The 64 KiB key table derived from a passphrase.
///
/// Cheap to share (the packs read with it keep an `Arc` to it); building one runs 65 536
/// Mersenne Twister steps (well under a millisecond).
#[derive(Clone, PartialEq, Eq)]
pub struct Key {
    /// The bytes the table was derived from (the default passphrase's when the given one was
    /// absent or short): two keys are equal exactly when these are.
    pass: Vec<u8>,
    /// The table as native-endian 64-bit words, so that XOR runs eight bytes at a time.
    words: Box<[u64]>,
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the passphrase itself: it may be a secret of the game's publisher.
        f.debug_struct("Key")
            .field("is_default", &self.is_default())
            .finish_non_exhaustive()
    }
}

impl Default for Key {
    /// The key of [`DEFAULT_PASSPHRASE`].
    fn default() -> Self {
        Key::from_cp932(DEFAULT_PASSPHRASE.as_bytes())
    }
}

impl Key {
    /// The key of a passphrase given as text: converted to CP932 first, as the engine sees
    /// it. `None`, or fewer than 8 CP932 bytes, gives the default key. Fails when the text
    /// has a character CP932 cannot represent.
    pub fn new(passphrase: Option<&str>) -> Result<Self> {
        let Some(text) = passphrase else {
            return Ok(Key::default());
        };
        let (bytes, _, unmappable) = encoding_rs::SHIFT_JIS.encode(text);
        if unmappable {
            return Err(Error::PassphraseNotCp932 {
                character: first_unmappable(text),
            });
        }
        Ok(Key::from_cp932(&bytes))
    }

    /// The key of a passphrase given as its CP932 bytes (fewer than 8 give the default key).
    pub fn from_cp932(pass: &[u8]) -> Self {
        let pass = if pass.len() < MIN_PASSPHRASE_LEN {
            DEFAULT_PASSPHRASE.as_bytes()
        } else {
            pass
        };
        let mut rng = SignedMt19937::new(crc32fast::hash(pass) as i32);
        let mut words = vec![0u64; WORDS].into_boxed_slice();
        let table: &mut [u8] = bytemuck::cast_slice_mut(&mut words);
        for (t, p) in table.iter_mut().zip(pass.iter().cycle()) {
            // Bits 16..23 of the signed output: the arithmetic shift does not reach them.
            *t = p ^ ((rng.next() >> 16) & 0xFF) as u8;
        }
        Key {
            pass: pass.to_vec(),
            words,
        }
    }

    /// True when this is the key of [`DEFAULT_PASSPHRASE`].
    pub fn is_default(&self) -> bool {
        self.pass == DEFAULT_PASSPHRASE.as_bytes()
    }

    /// The 65 536 bytes of the table.
    pub fn table(&self) -> &[u8] {
        bytemuck::cast_slice(&self.words)
    }

    /// XORs `data` in place with the table, starting at table index 0: this both encrypts
    /// and decrypts an entry. Runs eight bytes at a time.
    pub fn apply(&self, data: &mut [u8]) {
        for block in data.chunks_mut(KEY_TABLE_LEN) {
            let wide_len = block.len() - block.len() % 8;
            let (wide, tail) = block.split_at_mut(wide_len);
            // `[u8; 8]` has alignment 1, so this cast of a multiple of 8 bytes cannot fail.
            if let Ok(wide) = bytemuck::try_cast_slice_mut::<u8, [u8; 8]>(wide) {
                for (d, k) in wide.iter_mut().zip(self.words.iter()) {
                    *d = (u64::from_ne_bytes(*d) ^ k).to_ne_bytes();
                }
            }
            let rest = self.table().get(wide_len..).unwrap_or_default();
            for (d, k) in tail.iter_mut().zip(rest) {
                *d ^= k;
            }
        }
    }

    /// A decrypted (or encrypted) copy of `stored`. Copies and XORs one table length at a
    /// time, so the XOR pass runs on bytes still in cache.
    pub fn applied(&self, stored: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(stored.len());
        for block in stored.chunks(KEY_TABLE_LEN) {
            let start = out.len();
            out.extend_from_slice(block);
            if let Some(fresh) = out.get_mut(start..) {
                self.apply(fresh);
            }
        }
        out
    }
}

/// The first character of `text` that CP932 cannot represent.
fn first_unmappable(text: &str) -> char {
    text.chars()
        .find(|c| {
            let mut buf = [0u8; 4];
            encoding_rs::SHIFT_JIS.encode(c.encode_utf8(&mut buf)).2
        })
        .unwrap_or('\u{FFFD}')
}

/// Is `b` the lead byte of a CP932 double-byte character?
fn is_lead_byte(b: u8) -> bool {
    matches!(b, 0x81..=0x9F | 0xE0..=0xFE)
}

/// The name as the engine looks it up: ASCII `a`–`z` upper-cased, `/` turned into `\`, both
/// bytes of a CP932 double-byte character copied unchanged.
pub fn converted_name(name: &[u8]) -> impl Iterator<Item = u8> + '_ {
    let mut trail = false;
    name.iter().map(move |&b| {
        if trail {
            trail = false;
            b
        } else if is_lead_byte(b) {
            trail = true;
            b
        } else if b == b'/' {
            b'\\'
        } else {
            b.to_ascii_uppercase()
        }
    })
}

/// The CRC-32 of the [converted name](converted_name): the `NameCrc` the engine looks up.
pub fn name_crc(name: &[u8]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    // Converted through a small buffer: names are at most 63 bytes, no allocation needed.
    let mut buf = [0u8; 64];
    let mut used = 0;
    for converted in converted_name(name) {
        if used == buf.len() {
            hasher.update(&buf);
            used = 0;
        }
        if let Some(slot) = buf.get_mut(used) {
            *slot = converted;
            used += 1;
        }
    }
    hasher.update(buf.get(..used).unwrap_or_default());
    hasher.finalize()
}

/// Mersenne Twister MT19937 computed in signed 32-bit integers, as in Selene's
/// `Math/Random.cpp`: every right shift is arithmetic. Its stream differs from the standard
/// unsigned generator's.
struct SignedMt19937 {
    state: [i32; 624],
    index: usize,
}

impl SignedMt19937 {
    const N: usize = 624;
    const M: usize = 397;
    const MATRIX_A: i32 = 0x9908_B0DF_u32 as i32;
    const UPPER: i32 = i32::MIN;
    const LOWER: i32 = i32::MAX;

    fn new(seed: i32) -> Self {
        let mut state = [0i32; 624];
        let mut prev = seed;
        for (i, s) in state.iter_mut().enumerate() {
            if i > 0 {
                prev = 1_812_433_253_i32
                    .wrapping_mul(prev ^ (prev >> 30))
                    .wrapping_add(i as i32);
            }
            *s = prev;
        }
        SignedMt19937 {
            state,
            index: Self::N,
        }
    }

    fn twist(&mut self) {
        let mix = |hi: i32, lo: i32, far: i32| {
            let y = (hi & Self::UPPER) | (lo & Self::LOWER);
            far ^ (y >> 1) ^ if y & 1 != 0 { Self::MATRIX_A } else { 0 }
        };
        let s = &mut self.state;
        // The three loops of the reference code are one loop over k with indices mod N.
        for k in 0..Self::N {
            let next = s.get((k + 1) % Self::N).copied().unwrap_or_default();
            let far = s.get((k + Self::M) % Self::N).copied().unwrap_or_default();
            if let Some(cur) = s.get_mut(k) {
                *cur = mix(*cur, next, far);
            }
        }
        self.index = 0;
    }

    fn next(&mut self) -> i32 {
        if self.index >= Self::N {
            self.twist();
        }
        let mut y = self.state.get(self.index).copied().unwrap_or_default();
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9D2C_5680_u32 as i32;
        y ^= (y << 15) & 0xEFC6_0000_u32 as i32;
        y ^= y >> 18;
        y
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_of_packpass_starts_with_the_spec_check_value() {
        let key = Key::new(Some("PackPass")).unwrap();
        assert_eq!(
            &key.table()[..16],
            &[
                0x1f, 0x35, 0x57, 0xf1, 0xd1, 0xa6, 0x54, 0x75, 0x35, 0xfe, 0x32, 0x01, 0x84, 0x58,
                0x54, 0x53
            ]
        );
        assert_eq!(key.table().len(), KEY_TABLE_LEN);
        assert!(!key.is_default());
    }

    #[test]
    fn short_or_absent_passphrases_give_the_default_key() {
        let default = Key::default();
        assert!(default.is_default());
        assert_eq!(Key::new(None).unwrap(), default);
        assert_eq!(Key::new(Some("")).unwrap(), default);
        assert_eq!(Key::new(Some("1234567")).unwrap(), default);
        assert_ne!(Key::new(Some("12345678")).unwrap(), default);
        // Four kana are eight CP932 bytes: long enough although only four characters.
        assert_ne!(Key::new(Some("パスワド")).unwrap(), default);
        assert_eq!(Key::new(Some("パスワ")).unwrap(), default);
    }

    /// The textbook unsigned MT19937, to show that the signed one really differs.
    fn unsigned_mt(seed: u32, count: usize) -> Vec<u32> {
        let mut mt = [0u32; 624];
        mt[0] = seed;
        for i in 1..624 {
            mt[i] = 1_812_433_253u32
                .wrapping_mul(mt[i - 1] ^ (mt[i - 1] >> 30))
                .wrapping_add(i as u32);
        }
        let mut out = Vec::new();
        let mut idx = 624;
        while out.len() < count {
            if idx == 624 {
                for k in 0..624 {
                    let y = (mt[k] & 0x8000_0000) | (mt[(k + 1) % 624] & 0x7fff_ffff);
                    mt[k] =
                        mt[(k + 397) % 624] ^ (y >> 1) ^ if y & 1 == 1 { 0x9908_b0df } else { 0 };
                }
                idx = 0;
            }
            let mut y = mt[idx];
            idx += 1;
            y ^= y >> 11;
            y ^= (y << 7) & 0x9d2c_5680;
            y ^= (y << 15) & 0xefc6_0000;
            y ^= y >> 18;
            out.push(y);
        }
        out
    }

    #[test]
    fn the_signed_generator_differs_from_the_standard_one() {
        let reference = unsigned_mt(5489, 2000);
        assert_eq!(reference[0], 3_499_211_612, "the textbook first output");
        let mut signed = SignedMt19937::new(5489);
        let ours: Vec<u32> = (0..2000).map(|_| signed.next() as u32).collect();
        // Seeding already shifts negative values (>> 30), so the streams part at once.
        assert_ne!(ours[0], reference[0]);
        assert_ne!(ours, reference);
    }

    #[test]
    fn non_cp932_passphrase_is_refused_naming_the_character() {
        let err = Key::new(Some("password😀")).unwrap_err();
        assert!(err.to_string().contains('😀'), "{err}");
    }

    #[test]
    fn apply_is_its_own_inverse_and_restarts_the_table_at_each_call() {
        let key = Key::new(Some("PackPass")).unwrap();
        for len in [0, 1, 7, 8, 9, 65_535, 65_536, 65_537, 200_003] {
            let plain: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
            let enc = key.applied(&plain);
            for (j, (e, p)) in enc.iter().zip(&plain).enumerate() {
                assert_eq!(*e, p ^ key.table()[j % KEY_TABLE_LEN], "byte {j} of {len}");
            }
            let mut back = enc.clone();
            key.apply(&mut back);
            assert_eq!(back, plain);
        }
    }

    #[test]
    fn name_crc_uppercases_ascii_only_and_keeps_trail_bytes() {
        assert_eq!(name_crc(b"ui/d4.png"), crc32fast::hash(b"UI\\D4.PNG"));
        // ヂ is 83 61: the trail byte 0x61 ('a') must stay lower-case.
        let name = b"\x83\x61a";
        assert_eq!(name_crc(name), crc32fast::hash(b"\x83\x61A"));
        // Longer than the 64-byte buffer: chunking must not change the result.
        let long: Vec<u8> = (0..200).map(|i| b'a' + (i % 26) as u8).collect();
        let upper: Vec<u8> = long.iter().map(u8::to_ascii_uppercase).collect();
        assert_eq!(name_crc(&long), crc32fast::hash(&upper));
    }
}
