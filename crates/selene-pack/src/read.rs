//! Bytes → [`Pack`]: every validation rule of `shared/formats/pack.md`, each failure a typed
//! [`Error`] with the offset of the field concerned. The pack borrows the input.

use crate::crypt::{name_crc, Key};
use crate::error::{Error, Result, Warning};
use crate::model::{Entry, Pack, ENTRY_SIZE, MAGIC, MAX_OFFSET, NAME_FIELD};
use std::sync::Arc;

/// Does `bytes` start like a pack (the magic `KCAP`)?
pub fn sniff(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// One record of the entry table, as read.
struct Record<'a> {
    /// Offset of the record in the file.
    at: u64,
    name: &'a [u8],
    start: u64,
    size: u64,
}

impl Record<'_> {
    fn shown_name(&self) -> String {
        shown(self.name)
    }
    fn offset_field(&self) -> u64 {
        self.at + 0x48
    }
}

fn shown(name: &[u8]) -> String {
    encoding_rs::SHIFT_JIS
        .decode_without_bom_handling(name)
        .0
        .into_owned()
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    let field = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes(field.try_into().ok()?))
}

/// Parses a whole pack. Entries borrow `bytes`; encrypted ones decrypt with `key`.
pub(crate) fn parse(bytes: &[u8], key: Arc<Key>) -> Result<(Pack<'_>, Vec<Warning>)> {
    let file_len = bytes.len() as u64;
    if !sniff(bytes) {
        return Err(Error::NotThisFormat { offset: 0 });
    }
    let count = u32_at(bytes, 4).ok_or(Error::Truncated {
        offset: 4,
        what: "FileCount",
        needed: 4,
        available: file_len.saturating_sub(4),
    })?;
    if count == 0 {
        return Err(Error::Empty { offset: 4 });
    }
    // Checked before anything is allocated from `count`: the table must fit in the file.
    let table_len = u64::from(count) * ENTRY_SIZE as u64;
    let table_end = 8 + table_len;
    if table_end > file_len {
        return Err(Error::Truncated {
            offset: 8,
            what: "entry table",
            needed: table_len,
            available: file_len - 8,
        });
    }
    let mut warnings = Vec::new();
    let mut records: Vec<Record<'_>> = Vec::with_capacity(count as usize);
    let mut entries = Vec::with_capacity(count as usize);
    let mut previous: Option<(u32, &[u8])> = None;
    for at in (8..table_end).step_by(ENTRY_SIZE) {
        let (record, entry) = parse_record(bytes, at as usize, table_end, &key, &mut warnings)?;
        let crc = entry.name_crc();
        if let Some((prev_crc, prev_name)) = previous {
            if crc == prev_crc {
                return Err(Error::DuplicateNameCrc {
                    offset: at + 0x40,
                    name: record.shown_name(),
                    other: shown(prev_name),
                    crc,
                });
            }
            if crc < prev_crc {
                return Err(Error::Unsorted {
                    offset: at + 0x40,
                    name: record.shown_name(),
                    previous: prev_crc,
                    found: crc,
                });
            }
        }
        previous = Some((crc, record.name));
        records.push(record);
        entries.push(entry);
    }
    check_overlaps(&records)?;
    check_layout(&records, table_end, file_len, &mut warnings);
    Ok((Pack::from_parts(key, entries), warnings))
}

/// Reads and checks one 0x54-byte record at `at` (the table is known to hold it).
fn parse_record<'a>(
    bytes: &'a [u8],
    at: usize,
    table_end: u64,
    key: &Arc<Key>,
    warnings: &mut Vec<Warning>,
) -> Result<(Record<'a>, Entry<'a>)> {
    let at64 = at as u64;
    let truncated = || Error::Truncated {
        offset: at64,
        what: "entry record",
        needed: ENTRY_SIZE as u64,
        available: (bytes.len() as u64).saturating_sub(at64),
    };
    let field = bytes.get(at..at + NAME_FIELD).ok_or_else(truncated)?;
    let name = check_name_field(field, at64)?;
    let [stored_name_crc, data_crc, start, size, encrypted] =
        [0x40, 0x44, 0x48, 0x4C, 0x50].map(|o| u32_at(bytes, at + o));
    let (Some(stored_name_crc), Some(data_crc), Some(start), Some(size), Some(encrypted)) =
        (stored_name_crc, data_crc, start, size, encrypted)
    else {
        return Err(truncated());
    };
    let computed = name_crc(name);
    if computed != stored_name_crc {
        return Err(Error::NameCrcMismatch {
            offset: at64 + 0x40,
            name: shown(name),
            stored: stored_name_crc,
            computed,
        });
    }
    let record = Record {
        at: at64,
        name,
        start: u64::from(start),
        size: u64::from(size),
    };
    let end = record.start + record.size;
    if end > bytes.len() as u64 {
        return Err(Error::OutsideFile {
            offset: record.offset_field(),
            name: record.shown_name(),
            start: record.start,
            size: record.size,
            file_len: bytes.len() as u64,
        });
    }
    if end > MAX_OFFSET {
        return Err(Error::BeyondI32 {
            offset: record.offset_field(),
            name: record.shown_name(),
            end,
        });
    }
    if record.start < table_end {
        return Err(Error::OverlapsTable {
            offset: record.offset_field(),
            name: record.shown_name(),
            start: record.start,
            table_end,
        });
    }
    let stored = bytes
        .get(start as usize..end as usize)
        .ok_or_else(truncated)?;
    let computed = crc32fast::hash(stored);
    if computed != data_crc {
        warnings.push(Warning::DataCrcMismatch {
            offset: at64 + 0x44,
            name: record.shown_name(),
            stored: data_crc,
            computed,
        });
    }
    if encrypted > 1 {
        warnings.push(Warning::EncryptedFlag {
            offset: at64 + 0x50,
            name: record.shown_name(),
            value: encrypted,
        });
    }
    let entry = Entry::stored(name, encrypted, stored, key);
    Ok((record, entry))
}

/// The name in a 64-byte field: NUL-terminated, only NULs after it, valid CP932.
fn check_name_field(field: &[u8], at: u64) -> Result<&[u8]> {
    let bad = |reason| Error::BadName { offset: at, reason };
    let nul = field
        .iter()
        .position(|&b| b == 0)
        .ok_or(bad("has no NUL in its 64 bytes"))?;
    let (name, padding) = field.split_at(nul);
    if padding.iter().any(|&b| b != 0) {
        return Err(bad("has bytes other than NUL after its NUL"));
    }
    if encoding_rs::SHIFT_JIS
        .decode_without_bom_handling_and_without_replacement(name)
        .is_none()
    {
        return Err(bad("is not valid CP932"));
    }
    Ok(name)
}

/// No two entries' data may share a byte (empty entries share none).
fn check_overlaps(records: &[Record<'_>]) -> Result<()> {
    let mut by_start: Vec<&Record<'_>> = records.iter().filter(|r| r.size > 0).collect();
    by_start.sort_by_key(|r| (r.start, r.at));
    for pair in by_start.windows(2) {
        if let [a, b] = pair {
            if b.start < a.start + a.size {
                return Err(Error::Overlap {
                    offset: b.offset_field(),
                    name: b.shown_name(),
                    other: a.shown_name(),
                });
            }
        }
    }
    Ok(())
}

/// Warns when the data is not where the writer would put it: right after the table,
/// contiguous, in byte-wise name order, no trailing bytes. (A rewrite would then differ.)
fn check_layout(
    records: &[Record<'_>],
    table_end: u64,
    file_len: u64,
    warnings: &mut Vec<Warning>,
) {
    let mut by_name: Vec<&Record<'_>> = records.iter().collect();
    by_name.sort_by(|a, b| a.name.cmp(b.name));
    let mut expected = table_end;
    for r in by_name {
        if r.start != expected {
            warnings.push(Warning::Layout {
                offset: r.offset_field(),
                reason: format!(
                    "data of `{}` is at {}, not at {expected} (right after the table and the entries before it in byte-wise name order)",
                    r.shown_name(),
                    r.start
                ),
            });
            return;
        }
        expected += r.size;
    }
    if expected < file_len {
        warnings.push(Warning::Layout {
            offset: expected,
            reason: format!(
                "{} bytes after the last entry's data belong to no entry",
                file_len - expected
            ),
        });
    }
}
