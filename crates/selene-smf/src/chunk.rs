//! Chunk identifiers and the bounds-checked chunk walker.
//!
//! An SMF file is a sequence of chunks, each an 8-byte header (`id`, `size`) and `size` payload
//! bytes, with no padding. Containers (FRM, ANIS, MESH, MTRL) start their payload with a fixed
//! struct followed by subchunks; the container's size covers both.

use crate::error::{Error, SizeProblem};
use std::fmt;

/// A chunk identifier: the four bytes exactly as stored in the file.
///
/// Selene uses Microsoft C multi-character literals (`'MESH'` is `0x4D455348`), which are stored
/// little-endian, so the file bytes are the characters reversed (`HSEM`), and a three-character
/// id has its NUL last (`'SMF'` is stored `FMS\0`). [`ChunkId::name`] gives the readable name.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct ChunkId(pub [u8; 4]);

macro_rules! ids {
    ($($(#[$doc:meta])* $name:ident = $bytes:expr;)*) => {
        impl ChunkId {
            $($(#[$doc])* pub const $name: ChunkId = ChunkId(*$bytes);)*
        }
    };
}

ids! {
    /// `SMF`: the file head.
    SMF = b"FMS\0";
    /// `FRM`: a frame.
    FRM = b"MRF\0";
    /// `ANIS`: an animation set.
    ANIS = b"SINA";
    /// `MESH`: a mesh.
    MESH = b"HSEM";
    /// `OBB`: an oriented bounding box (in FRM and MESH).
    OBB = b"BBO\0";
    /// `ANI`: the keys of one animated frame (in ANIS).
    ANI = b"INA\0";
    /// `BONE`: bone offsets (in MESH).
    BONE = b"ENOB";
    /// `V_PC`: positions and colours.
    V_PC = b"CP_V";
    /// `V_N`: normals.
    V_N = b"N_V\0";
    /// `V_B`: tangents.
    V_B = b"B_V\0";
    /// `V_A`: blend weights and indices.
    V_A = b"A_V\0";
    /// `V_UV`: two UV pairs.
    V_UV = b"VU_V";
    /// `IDX2`: 16-bit indices.
    IDX2 = b"2XDI";
    /// `IDX4`: 32-bit indices.
    IDX4 = b"4XDI";
    /// `MTRL`: a material.
    MTRL = b"LRTM";
    /// `C_AT`: collision attribute runs.
    C_AT = b"TA_C";
    /// `C_FC`: collision faces.
    C_FC = b"CF_C";
    /// `C_VX`: collision vertices.
    C_VX = b"XV_C";
    /// `TEXC`: colour texture name.
    TEXC = b"CXET";
    /// `TEXL`: light-map texture name.
    TEXL = b"LXET";
    /// `TEXE`: environment map name.
    TEXE = b"EXET";
    /// `TEXS`: specular map name.
    TEXS = b"SXET";
    /// `TEXN`: normal map name.
    TEXN = b"NXET";
    /// `DRAW`: draw type.
    DRAW = b"WARD";
    /// `ZTES`: depth test flag.
    ZTES = b"SETZ";
    /// `ZWRI`: depth write flag.
    ZWRI = b"IRWZ";
    /// `ATES`: alpha test flag.
    ATES = b"SETA";
    /// `ABND`: alpha test threshold.
    ABND = b"DNBA";
    /// `CULL`: back-face culling flag.
    CULL = b"LLUC";
    /// `LGT`: lighting flag.
    LGT = b"TGL\0";
    /// `DIFF`: diffuse colour.
    DIFF = b"FFID";
    /// `EMIS`: emissive colour.
    EMIS = b"SIME";
    /// `SPEC`: specular parameters.
    SPEC = b"CEPS";
    /// `BUMP`: parallax depth.
    BUMP = b"PMUB";
}

impl ChunkId {
    /// The id from its readable name (`"MESH"`, `"SMF"`): at most four ASCII characters.
    /// Returns `None` for longer names.
    pub fn from_name(name: &str) -> Option<Self> {
        let b = name.as_bytes();
        if b.is_empty() || b.len() > 4 {
            return None;
        }
        let mut out = [0u8; 4];
        for (slot, &c) in out.iter_mut().zip(b.iter().rev()) {
            *slot = c;
        }
        Some(Self(out))
    }

    /// The readable name: the file bytes reversed, without NULs, non-printable bytes as `\xNN`.
    pub fn name(&self) -> String {
        let mut s = String::new();
        for &b in self.0.iter().rev() {
            match b {
                0 => {}
                0x20..=0x7E => s.push(char::from(b)),
                _ => s.push_str(&format!("\\x{b:02X}")),
            }
        }
        s
    }

    /// The id as the `u32` multi-character literal value (`'MESH'` = `0x4D455348`).
    pub fn value(&self) -> u32 {
        u32::from_le_bytes(self.0)
    }
}

impl fmt::Display for ChunkId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl fmt::Debug for ChunkId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ChunkId({})", self.name())
    }
}

/// The deepest nesting the walker follows: file → MESH → MTRL → leaf. Unknown chunks are never
/// descended into, so the SMF grammar never exceeds this; the limit is enforced anyway.
pub const MAX_DEPTH: u32 = 3;

/// One chunk found by the walker.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RawChunk<'a> {
    pub id: ChunkId,
    /// Absolute offset of the 8-byte header.
    pub offset: u64,
    /// The payload (exactly `size` bytes).
    pub payload: &'a [u8],
}

impl RawChunk<'_> {
    /// Absolute offset of the payload.
    pub fn payload_offset(&self) -> u64 {
        self.offset + 8
    }

    /// Payload size.
    pub fn size(&self) -> u64 {
        self.payload.len() as u64
    }
}

/// Walks the children of one parent: each child header and payload is checked against the bytes
/// left in the parent with overflow-free arithmetic before it is sliced.
pub(crate) struct Walker<'a> {
    data: &'a [u8],
    pos: usize,
    base: u64,
    parent: Option<ChunkId>,
    depth: u32,
}

impl<'a> Walker<'a> {
    /// Walks `data` (the children area of `parent`, `None` for the file), whose first byte is
    /// at absolute offset `base`. `depth` is 0 for the file.
    pub fn new(
        data: &'a [u8],
        base: u64,
        parent: Option<ChunkId>,
        depth: u32,
    ) -> Result<Self, Error> {
        if depth > MAX_DEPTH {
            return Err(Error::LimitExceeded {
                offset: base,
                what: "chunk nesting depth",
                limit: u64::from(MAX_DEPTH),
            });
        }
        Ok(Self {
            data,
            pos: 0,
            base,
            parent,
            depth,
        })
    }

    /// Depth of the children this walker yields (1 = top-level chunks).
    pub fn child_depth(&self) -> u32 {
        self.depth + 1
    }

    fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// The next child, `Ok(None)` at the exact end of the parent.
    pub fn next_chunk(&mut self) -> Result<Option<RawChunk<'a>>, Error> {
        let rest = self.data.get(self.pos..).unwrap_or_default();
        if rest.is_empty() {
            return Ok(None);
        }
        let offset = self.offset();
        let (head, after) = match (rest.get(..8), rest.get(8..)) {
            (Some(h), Some(a)) => (h, a),
            _ => {
                return Err(match self.parent {
                    // At the top level a short tail means the file was cut.
                    None => Error::Truncated {
                        offset,
                        what: "chunk header",
                        needed: 8,
                        available: rest.len() as u64,
                    },
                    // Inside a container the children do not end at the container's end.
                    Some(parent) => Error::BadSize {
                        offset,
                        chunk: parent,
                        size: rest.len() as i64,
                        problem: SizeProblem::ChildrenDoNotFit,
                    },
                });
            }
        };
        let mut id = [0u8; 4];
        id.copy_from_slice(head.get(..4).unwrap_or(&[0; 4]));
        let id = ChunkId(id);
        let mut sz = [0u8; 4];
        sz.copy_from_slice(head.get(4..8).unwrap_or(&[0; 4]));
        let size = i32::from_le_bytes(sz);
        let Ok(len) = usize::try_from(size) else {
            return Err(Error::BadSize {
                offset,
                chunk: id,
                size: i64::from(size),
                problem: SizeProblem::Negative,
            });
        };
        let Some(payload) = after.get(..len) else {
            return Err(match self.parent {
                None => Error::Truncated {
                    offset: offset + 8,
                    what: "chunk payload",
                    needed: len as u64,
                    available: after.len() as u64,
                },
                Some(parent) => Error::BadSize {
                    offset,
                    chunk: id,
                    size: i64::from(size),
                    problem: SizeProblem::OverrunsParent {
                        parent,
                        available: after.len() as u64,
                    },
                },
            });
        };
        // `len <= after.len() == rest.len() - 8`, so this cannot overflow.
        self.pos += 8 + len;
        Ok(Some(RawChunk {
            id,
            offset,
            payload,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_reversed_multichar_literals() {
        assert_eq!(ChunkId::MESH.value(), 0x4D45_5348);
        assert_eq!(ChunkId::SMF.value(), 0x0053_4D46);
        assert_eq!(ChunkId::from_name("SMF"), Some(ChunkId::SMF));
        assert_eq!(ChunkId::from_name("V_PC"), Some(ChunkId::V_PC));
        assert_eq!(ChunkId::LGT.name(), "LGT");
        assert_eq!(ChunkId([0x01, b'A', 0, 0]).name(), "A\\x01");
        assert_eq!(ChunkId::from_name("TOOLONG"), None);
    }

    #[test]
    fn walker_checks_children_against_the_parent() {
        // One 2-byte child, then 3 stray bytes inside a container.
        let data = [b'X', 0, 0, 0, 2, 0, 0, 0, 9, 9, 1, 2, 3];
        let mut w = Walker::new(&data, 100, Some(ChunkId::MESH), 1).unwrap();
        let c = w.next_chunk().unwrap().unwrap();
        assert_eq!((c.offset, c.payload), (100, &[9u8, 9][..]));
        assert!(matches!(
            w.next_chunk(),
            Err(Error::BadSize {
                offset: 110,
                problem: SizeProblem::ChildrenDoNotFit,
                ..
            })
        ));
        assert!(Walker::new(&data, 0, None, MAX_DEPTH + 1).is_err());
    }
}
