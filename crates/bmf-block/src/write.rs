//! [`Bmf`] → bytes: the mirror of `read.rs`, block for block.
//!
//! The output is what the Fbx2Bin tool writes (bmf.md §5, writer profile "Fbx2Bin"): blocks in
//! §3.7 order, sizes equal to element size × count, no padding. Anything the reader kept (header
//! padding, texture name units after the NUL, End sizes, garbage vertices) is written back.

use crate::error::{Error, Result};
use crate::layout::*;
use crate::model::*;
use binio::put::PutLe;

/// Serialises a document, checking first that it can be read back.
pub(crate) fn serialize(doc: &Bmf) -> Result<Vec<u8>> {
    check(doc)?;
    let mut out = Vec::with_capacity(encoded_len(doc));
    out.extend_from_slice(&doc.header.raw);
    if doc.header.version() == Version::V1_1 {
        block(
            &mut out,
            BLOCK_MESH_COUNT,
            len_u32(doc.meshes.len(), "mesh count")?,
        );
    }
    for mesh in &doc.meshes {
        write_mesh(&mut out, mesh)?;
    }
    Ok(out)
}

fn write_mesh(out: &mut Vec<u8>, mesh: &Mesh) -> Result<()> {
    let vertex_bytes = mesh.vertices.as_bytes();
    block(
        out,
        mesh.vertices.kind().block_type(),
        len_u32(vertex_bytes.len(), "vertex block")?,
    );
    out.extend_from_slice(vertex_bytes);

    let index_bytes = binio::pod::as_bytes(&mesh.indices);
    block(out, BLOCK_INDEX, len_u32(index_bytes.len(), "index block")?);
    out.extend_from_slice(index_bytes);

    block(
        out,
        BLOCK_MATERIAL_COUNT,
        len_u32(mesh.materials.len(), "material count")?,
    );
    for m in &mesh.materials {
        let name = binio::pod::as_bytes(m.texture.units());
        let size = len_u32(name.len(), "texture name")?
            .checked_add(MATERIAL_HEAD_SIZE)
            .ok_or_else(|| Error::Unwritable("texture name too long".into()))?;
        block(out, BLOCK_MATERIAL, size);
        let head = MaterialHead {
            start_index: m.start_index,
            index_count: m.index_count,
            diffuse: m.diffuse.into(),
            specular: m.specular.into(),
            ambient: m.ambient.into(),
            emissive: m.emissive.into(),
        };
        out.put_record(&head);
        out.extend_from_slice(name);
    }

    if let Some(skin) = &mesh.skin {
        block(out, BLOCK_BONE_COUNT, skin.bone_count);
        let matrix_bytes = binio::pod::as_bytes(&skin.matrices);
        block(
            out,
            BLOCK_ANIME_MATRIX,
            len_u32(matrix_bytes.len(), "AnimeMatrix block")?,
        );
        out.extend_from_slice(matrix_bytes);
    }

    block(out, BLOCK_END, mesh.end_size);
    Ok(())
}

fn block(out: &mut Vec<u8>, kind: u32, size: u32) {
    out.put_record(&BlockHeader { kind, size });
}

fn len_u32(len: usize, what: &str) -> Result<u32> {
    u32::try_from(len)
        .map_err(|_| Error::Unwritable(format!("{what} of {len} bytes exceeds 4 GiB")))
}

fn encoded_len(doc: &Bmf) -> usize {
    let mut n = 16 + 8;
    for m in &doc.meshes {
        n += 8 + m.vertices.as_bytes().len() + 8 + 2 * m.indices.len() + 8;
        n += m
            .materials
            .iter()
            .map(|x| 8 + 72 + 2 * x.texture.units().len())
            .sum::<usize>();
        n += m.skin.as_ref().map_or(0, |s| 16 + 64 * s.matrices.len());
        n += 8;
    }
    n
}

/// The structural rules a reader would enforce, checked before writing so that `to_bytes`
/// never produces a file that `from_bytes` rejects for its shape.
fn check(doc: &Bmf) -> Result<()> {
    let header = &doc.header.raw;
    if !header.starts_with(b"BDV1.") || !matches!(header[5], b'0' | b'1') || header[6] != 0 {
        return Err(Error::Unwritable(
            "header must be `BDV1.0` or `BDV1.1` followed by NUL".into(),
        ));
    }
    match (doc.header.version(), doc.meshes.len()) {
        (Version::V1_0, 1) => {}
        (Version::V1_0, n) => {
            return Err(Error::Unwritable(format!(
                "a BDV1.0 file holds exactly one mesh, not {n}"
            )))
        }
        (Version::V1_1, 0) => {
            return Err(Error::Unwritable(
                "a BDV1.1 file needs at least one mesh".into(),
            ))
        }
        (Version::V1_1, _) => {}
    }
    for (i, mesh) in doc.meshes.iter().enumerate() {
        let skinned = mesh.vertices.kind().is_skinned();
        match &mesh.skin {
            None if skinned => {
                return Err(Error::Unwritable(format!(
                    "mesh {i} has skinned vertices but no skin"
                )))
            }
            Some(_) if !skinned => {
                return Err(Error::Unwritable(format!(
                    "mesh {i} has a skin but static vertices"
                )))
            }
            Some(skin)
                if skin.bone_count == 0 || skin.matrices.len() % skin.bone_count as usize != 0 =>
            {
                return Err(Error::Unwritable(format!(
                    "mesh {i}: {} matrices are not a whole number of samples of {} bones",
                    skin.matrices.len(),
                    skin.bone_count
                )))
            }
            _ => {}
        }
        if mesh.indices.len() % 3 != 0 {
            return Err(Error::Unwritable(format!(
                "mesh {i}: index count is not a multiple of 3"
            )));
        }
        if mesh.vertices.len() > usize::from(u16::MAX) + 1 {
            return Err(Error::Unwritable(format!(
                "mesh {i}: {} vertices exceed the 65 536 that u16 indices can address",
                mesh.vertices.len()
            )));
        }
    }
    Ok(())
}
