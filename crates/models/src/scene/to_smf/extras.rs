//! Reading back what `from_smf` put into `extras` (the inverse of its `*_json` helpers).
//! Malformed extras are never an error: the part is left out with a warning.

use super::super::mirror_z;
use super::Ctx;
use crate::scene::blob;
use crate::scene::lenient;
use crate::scene::Array;
use selene_smf as smf;
use serde_json::{Map, Value};
use std::borrow::Cow;

/// A float (JSON `null`, which is how a non-finite float was written, is NaN).
fn float(v: &Value) -> Option<f32> {
    match v {
        Value::Null => Some(f32::NAN),
        v => v.as_f64().map(|x| x as f32),
    }
}

fn floats<const N: usize>(v: Option<&Value>) -> Option<[f32; N]> {
    let list = v?.as_array()?;
    if list.len() != N {
        return None;
    }
    let mut out = [0.0; N];
    for (o, x) in out.iter_mut().zip(list) {
        *o = float(x)?;
    }
    Some(out)
}

/// A float field of an extras map.
pub(super) fn f32_at(m: &Map<String, Value>, key: &str) -> Option<f32> {
    m.get(key).and_then(Value::as_f64).map(|x| x as f32)
}

/// `[a, b]` of two `i32`.
pub(super) fn i32_pair(v: Option<&Value>) -> Option<[i32; 2]> {
    match v?.as_array()?.as_slice() {
        [a, b] => Some([
            i32::try_from(lenient::int(a)?).ok()?,
            i32::try_from(lenient::int(b)?).ok()?,
        ]),
        _ => None,
    }
}

/// `extras.smf_obb` back in file axes; `false` (`0` from Blender, `null` from earlier exports)
/// is "no OBB".
pub(super) fn obb_from(v: &Value, place: &str, ctx: &mut Ctx<'_>) -> Option<smf::Obb> {
    if v.is_null() || lenient::flag(v) == Some(false) {
        return None;
    }
    let parsed = (|| {
        let axes = v.get("axes")?.as_array()?;
        let mut out_axes = [[0.0; 3]; 3];
        if axes.len() != 3 {
            return None;
        }
        for (o, a) in out_axes.iter_mut().zip(axes) {
            *o = mirror_z(floats::<3>(Some(a))?);
        }
        Some(smf::Obb {
            center: mirror_z(floats::<3>(v.get("center"))?),
            axes: out_axes,
            lengths: floats::<3>(v.get("lengths"))?,
        })
    })();
    if parsed.is_none() {
        ctx.warn(
            &format!("smf {place}"),
            "extras.smf_obb is malformed; no OBB written",
        );
    }
    parsed
}

/// Each byte's hex digit value, 0xFF for anything else.
// Const evaluation: an index out of range would fail the build, not panic at run time.
#[allow(clippy::indexing_slicing)]
const HEX: [u8; 256] = {
    let mut t = [0xFF; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        t[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

/// The file's raw bytes kept in `extras[key]` (`smf_*_hex`): a blob of the scene, or hex text
/// (every large array of earlier exports, and small ones still).
pub(super) fn raw_bytes<'a>(
    extras: &Map<String, Value>,
    key: &str,
    blobs: &'a [Array<u8>],
) -> Option<Cow<'a, [u8]>> {
    blob::bytes_or(blobs, extras.get(key)?, unhex)
}

/// Bytes from lowercase or uppercase hex; `None` on an odd length or another character.
/// Branch-free per pair (a bad digit is remembered and checked once at the end): the large
/// models' vertex arrays come back through here.
pub(super) fn unhex(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    if b.len() % 2 != 0 {
        return None;
    }
    let digit = |c: u8| HEX.get(usize::from(c)).copied().unwrap_or(0xFF);
    let mut bad = 0u8;
    let out: Vec<u8> = b
        .chunks_exact(2)
        .map(|p| {
            let (h, l) = match *p {
                [h, l] => (digit(h), digit(l)),
                _ => (0xFF, 0xFF), // chunks_exact: always two bytes
            };
            bad |= h | l;
            (h << 4) | (l & 0x0F)
        })
        .collect();
    (bad & 0xF0 == 0).then_some(out)
}

fn chunk_id(v: &Value) -> Option<smf::ChunkId> {
    let raw = u32::try_from(lenient::uint(v)?).ok()?;
    Some(smf::ChunkId(raw.to_le_bytes()))
}

/// `extras.smf_unknown` back as unknown chunks, each where it stood.
pub(super) fn unknown_from(
    v: Option<&Value>,
    place: &str,
    ctx: &mut Ctx<'_>,
) -> Vec<smf::UnknownChunk> {
    let Some(v) = v else {
        return Vec::new();
    };
    let list = v.as_array().map_or(&[][..], Vec::as_slice);
    let mut out = Vec::with_capacity(list.len());
    let mut bad = usize::from(!v.is_array());
    for u in list {
        let after = match u.get("after") {
            None | Some(Value::Null) => Some(None),
            Some(Value::Array(a)) => match a.as_slice() {
                [id, index] => chunk_id(id)
                    .zip(lenient::uint(index))
                    .and_then(|(id, index)| {
                        Some(Some(smf::Anchor {
                            id,
                            index: u32::try_from(index).ok()?,
                        }))
                    }),
                _ => None,
            },
            Some(_) => None,
        };
        let id = u.get("id").and_then(chunk_id);
        let data = u.get("hex").and_then(Value::as_str).and_then(unhex);
        match (after, id, data) {
            (Some(after), Some(id), Some(data)) => out.push(smf::UnknownChunk { after, id, data }),
            _ => bad += 1,
        }
    }
    if bad > 0 {
        ctx.warn(
            &format!("smf {place}"),
            format!("{bad} malformed entr(ies) of extras.smf_unknown left out"),
        );
    }
    out
}

type Collision = (
    Option<Vec<smf::CollisionRun>>,
    Option<Vec<smf::CollisionFace>>,
    Option<Vec<smf::CollisionVertex>>,
);

fn int(v: Option<&Value>) -> Option<i32> {
    i32::try_from(lenient::int(v?)?).ok()
}

/// `extras.smf_collision` back as C_AT, C_FC, C_VX (file axes and winding).
pub(super) fn collision_from(v: Option<&Value>, place: &str, ctx: &mut Ctx<'_>) -> Collision {
    let Some(v) = v else {
        return (None, None, None);
    };
    let mut bad = 0usize;
    let mut list = |key: &str| -> Option<&Vec<Value>> {
        let l = v.get(key)?;
        if !l.is_array() {
            bad += 1;
        }
        l.as_array()
    };
    let (runs, faces, verts) = (list("runs"), list("faces"), list("vertices"));
    let runs = runs.map(|l| {
        l.iter()
            .filter_map(|r| {
                let run = (|| {
                    Some(smf::CollisionRun {
                        start: int(r.get("start"))?,
                        count: int(r.get("count"))?,
                        attribute: int(r.get("attribute"))?,
                    })
                })();
                bad += usize::from(run.is_none());
                run
            })
            .collect()
    });
    let faces = faces.map(|l| {
        l.iter()
            .filter_map(|f| {
                let face = (|| {
                    let i = f.get("indices")?.as_array()?;
                    let [a, b, c] = i.as_slice() else {
                        return None;
                    };
                    Some(smf::CollisionFace {
                        attribute: int(f.get("attribute"))?,
                        indices: [int(Some(a))?, int(Some(c))?, int(Some(b))?],
                        normal: mirror_z(floats::<3>(f.get("normal"))?),
                        d: float(f.get("d")?)?,
                    })
                })();
                bad += usize::from(face.is_none());
                face
            })
            .collect()
    });
    let verts = verts.map(|l| {
        l.iter()
            .filter_map(|x| {
                let vertex = (|| {
                    let c = x.get("color_rgba")?.as_array()?;
                    let byte = |v: &Value| u8::try_from(lenient::uint(v)?).ok();
                    let [r, g, b, a] = c.as_slice() else {
                        return None;
                    };
                    Some(smf::CollisionVertex {
                        position: mirror_z(floats::<3>(x.get("position"))?),
                        bgra: [byte(b)?, byte(g)?, byte(r)?, byte(a)?],
                        normal: mirror_z(floats::<3>(x.get("normal"))?),
                    })
                })();
                bad += usize::from(vertex.is_none());
                vertex
            })
            .collect()
    });
    if bad > 0 {
        ctx.warn(
            &format!("smf {place}"),
            format!("{bad} malformed entr(ies) of extras.smf_collision left out"),
        );
    }
    // Faces must name existing vertices and runs existing faces (edited extras, or entries
    // left out above): Selene indexes with them unchecked, and the reader refuses the file.
    let fault = smf::collision_fault(
        runs.as_deref().unwrap_or_default(),
        faces.as_deref().unwrap_or_default(),
        verts.as_ref().map_or(0, Vec::len),
    );
    if let Some(fault) = fault {
        ctx.warn(
            &format!("smf {place}"),
            format!("extras.smf_collision: {fault}; the collision data left out"),
        );
        return (None, None, None);
    }
    (runs, faces, verts)
}

/// Floats from the hex of their little-endian bytes (`from_smf`'s `*_hex` extras).
fn floats_of_hex(v: Option<&Value>) -> Option<Vec<f32>> {
    binio::pod::vec_from_bytes::<f32>(&unhex(v?.as_str()?)?)
}

/// Whether `a` and `b` are equal to within float rounding (relative 1e-6, absolute near 0).
fn near(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0)
}

/// Whether the quaternions are the same within rounding, `q` and `−q` being one rotation.
fn same_rotation(a: [f32; 4], b: [f32; 4]) -> bool {
    let neg = b.map(|x| -x);
    a.iter().zip(&b).all(|(x, y)| near(*x, *y)) || a.iter().zip(&neg).all(|(x, y)| near(*x, *y))
}

/// The file's own frame matrix (`extras.smf_matrix_hex`) while the node still has the
/// transform the export gave it (its TRS within rounding); `None` otherwise.
pub(super) fn raw_matrix(
    extras: &Map<String, Value>,
    transform: &super::Transform,
) -> Option<[f32; 16]> {
    let raw: [f32; 16] = floats_of_hex(extras.get("smf_matrix_hex"))?
        .try_into()
        .ok()?;
    let (t, q, s) = match *transform {
        super::Transform::Trs {
            translation,
            rotation,
            scale,
        } => (translation, rotation, scale),
        super::Transform::Matrix(m) => {
            let (t, q, s, _) = super::super::decompose(m);
            (t, q, s)
        }
    };
    let (et, eq, es) = super::super::from_smf::exported_trs(raw);
    let same3 = |a: [f32; 3], b: [f32; 3]| a.iter().zip(&b).all(|(x, y)| near(*x, *y));
    (same3(t, et) && same3(s, es) && same_rotation(q, eq)).then_some(raw)
}

/// The file's rotation keys of `node` (`extras.smf_rotations_hex` of its animation: hex, or a
/// blob of `blobs`) while the channel's keys `values` (x, y, z, w each, glTF axes) are still
/// those keys as the export wrote them (normalised, z mirrored, maybe negated); `None`
/// otherwise.
pub(super) fn raw_rotations(
    extras: &Map<String, Value>,
    blobs: &[Array<u8>],
    node: usize,
    values: &[f32],
) -> Option<Vec<[f32; 4]>> {
    let by_node = extras.get("smf_rotations_hex")?.as_object()?;
    let bytes = raw_bytes(by_node, &node.to_string(), blobs)?;
    let raw = binio::pod::vec_from_bytes::<f32>(&bytes)?;
    if raw.len() != values.len() {
        return None;
    }
    let mut out = Vec::with_capacity(raw.len() / 4);
    for (r, v) in raw.chunks_exact(4).zip(values.chunks_exact(4)) {
        let (&[x, y, z, w], &[a, b, c, d]) = (r, v) else {
            return None;
        };
        let exported = super::super::normalize_quat([x, y, -z, w]);
        if !same_rotation(exported, [a, b, c, d]) {
            return None;
        }
        out.push([x, y, z, w]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::unhex;

    #[test]
    fn unhex_takes_both_cases_and_refuses_the_rest() {
        assert_eq!(unhex("00ffA59z").as_deref(), None);
        assert_eq!(unhex("00ffA5").as_deref(), Some(&[0x00, 0xFF, 0xA5][..]));
        assert_eq!(unhex("").as_deref(), Some(&[][..]));
        assert_eq!(unhex("abc").as_deref(), None);
        assert_eq!(unhex("g0").as_deref(), None);
        assert_eq!(unhex("éé").as_deref(), None);
        assert_eq!(unhex("/0").as_deref(), None);
    }
}
