//! [`Pack`] → bytes, the mirror of `read.rs`: a pack the engine accepts. The table is sorted
//! by name CRC (the engine binary-searches it) and two equal CRCs are refused; the data
//! follows the table in byte-wise name order, as in every real pack; `DataCrc` is the CRC-32
//! of the bytes as stored; every offset stays within the engine's signed 32-bit range.

use crate::error::{Error, Result};
use crate::model::{Entry, Pack, ENTRY_SIZE, MAGIC, MAX_OFFSET, NAME_FIELD};
use std::borrow::Cow;

/// One entry ready to be written.
struct Placed<'e> {
    entry: &'e Entry<'e>,
    name_crc: u32,
    stored: Cow<'e, [u8]>,
    offset: u32,
}

pub(crate) fn serialize(pack: &Pack<'_>) -> Result<Vec<u8>> {
    let count = pack.entries.len();
    if count == 0 {
        return Err(Error::Unwritable(
            "a pack needs at least one entry (the engine refuses an empty one)".into(),
        ));
    }
    let table_end = (count as u64)
        .checked_mul(ENTRY_SIZE as u64)
        .and_then(|t| t.checked_add(8))
        .filter(|&t| t <= MAX_OFFSET)
        .ok_or_else(|| Error::Unwritable(format!("{count} entries do not fit a pack")))?;

    // Table order first, to refuse equal CRCs before any data is encrypted.
    let mut table: Vec<(u32, usize)> = pack
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.name_crc(), i))
        .collect();
    table.sort_unstable();
    for pair in table.windows(2) {
        if let [(crc_a, a), (crc_b, b)] = pair {
            if crc_a == crc_b {
                let name = |i: &usize| pack.entries.get(*i).map(|e| e.name().into_owned());
                return Err(Error::SameNameCrc {
                    name: name(b).unwrap_or_default(),
                    other: name(a).unwrap_or_default(),
                    crc: *crc_a,
                });
            }
        }
    }

    // Data order: byte-wise by name. Offsets are assigned in that order.
    let mut data_order: Vec<&Entry<'_>> = pack.entries.iter().collect();
    data_order.sort_by(|a, b| a.name_bytes().cmp(b.name_bytes()));
    let key = pack.key();
    let mut placed: Vec<Placed<'_>> = Vec::with_capacity(count);
    let mut end = table_end;
    for entry in data_order {
        let stored = entry.stored_bytes(key);
        let offset = end;
        end = end
            .checked_add(stored.len() as u64)
            .filter(|&e| e <= MAX_OFFSET)
            .ok_or_else(|| {
                Error::Unwritable(format!(
                    "the data would end beyond byte {MAX_OFFSET} (the engine's signed 32-bit limit) at `{}`",
                    entry.name()
                ))
            })?;
        placed.push(Placed {
            entry,
            name_crc: entry.name_crc(),
            stored,
            // Cannot fail: checked against MAX_OFFSET just above.
            offset: u32::try_from(offset).unwrap_or(u32::MAX),
        });
    }

    let mut out = Vec::with_capacity(end as usize);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(count as u32).to_le_bytes());
    let mut by_crc: Vec<&Placed<'_>> = placed.iter().collect();
    by_crc.sort_unstable_by_key(|p| p.name_crc);
    for p in &by_crc {
        write_record(&mut out, p)?;
    }
    for p in &placed {
        out.extend_from_slice(&p.stored);
    }
    Ok(out)
}

fn write_record(out: &mut Vec<u8>, p: &Placed<'_>) -> Result<()> {
    let name = p.entry.name_bytes();
    // Entries are built through checked constructors or the reader, which both keep names
    // below 64 bytes without NUL; checked again so a broken invariant cannot corrupt a table.
    if name.len() >= NAME_FIELD || name.contains(&0) {
        return Err(Error::UnwritableName {
            name: p.entry.name().into_owned(),
            reason: "it does not fit the 64-byte NUL-terminated name field".into(),
        });
    }
    let mut field = [0u8; NAME_FIELD];
    if let Some(dst) = field.get_mut(..name.len()) {
        dst.copy_from_slice(name);
    }
    out.extend_from_slice(&field);
    for value in [
        p.name_crc,
        crc32fast::hash(&p.stored),
        p.offset,
        p.stored.len() as u32,
        p.entry.encrypted_flag(),
    ] {
        out.extend_from_slice(&value.to_le_bytes());
    }
    Ok(())
}
