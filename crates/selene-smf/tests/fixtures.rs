//! Generated fixtures: round trip, what each one covers, the truncation sweep over every
//! fixture and sample, hostile sizes and every validation rule with its offset.

use selene_smf::Model as _;
use selene_smf::{
    ChunkId, DrawMode, Error, Indices, Material, Mesh, SizeProblem, Smf, VertexPc, WarningKind,
};
use test_support::{file_name, fixtures, read, samples, truncation_sweep};

fn fixture(name: &str) -> Vec<u8> {
    let path = fixtures("smf", "smf")
        .into_iter()
        .find(|p| file_name(p) == name)
        .unwrap_or_else(|| panic!("fixture {name} missing"));
    read(&path)
}

#[test]
fn every_fixture_round_trips() {
    let files = fixtures("smf", "smf");
    assert_eq!(files.len(), 5);
    for path in files {
        let name = file_name(&path);
        let bytes = read(&path);
        let doc = Smf::from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(doc.to_bytes().unwrap() == bytes, "{name}: rewrite differs");
        // The model itself is stable through a second round.
        let again = Smf::from_bytes(&doc.to_bytes().unwrap()).unwrap();
        assert_eq!(format!("{again:?}"), format!("{doc:?}"), "{name}");
    }
}

#[test]
fn textured_materials_cover_every_mtrl_subchunk() {
    let doc = Smf::from_bytes(&fixture("textured_materials.smf")).unwrap();
    let mesh = &doc.meshes[0];
    assert_eq!(mesh.materials.len(), 3);
    let ids = doc.chunk_ids();
    for id in [
        ChunkId::TEXC,
        ChunkId::TEXL,
        ChunkId::TEXE,
        ChunkId::TEXS,
        ChunkId::TEXN,
        ChunkId::DRAW,
        ChunkId::ZTES,
        ChunkId::ZWRI,
        ChunkId::ATES,
        ChunkId::ABND,
        ChunkId::CULL,
        ChunkId::LGT,
        ChunkId::DIFF,
        ChunkId::EMIS,
        ChunkId::SPEC,
        ChunkId::BUMP,
        ChunkId::V_B,
        ChunkId::V_UV,
    ] {
        assert!(ids.contains(&id), "{id} missing");
    }
    let m = &mesh.materials[0];
    assert_eq!(m.texture.as_ref().unwrap().text(), "tex/壁_color.png");
    assert_eq!(m.draw, Some(DrawMode::Blend));
    assert_eq!(m.specular.unwrap().refractive, 16.0);
    assert_eq!(m.bump, Some(0.03125));
    assert_eq!(mesh.materials[2].draw, Some(DrawMode::Unknown(9)));
    assert_eq!(
        doc.texture_names(),
        [
            "tex/壁_color.png",
            "tex/wall_light.bmp",
            "tex/sky_cube.dds",
            "tex/wall_spec.png",
            "tex/wall_normal.png",
            "tex/glow.png",
            "tex/floor_normal.png"
        ]
    );
    // LGT is written right after CULL in every material.
    for (k, id) in ids.iter().enumerate() {
        if *id == ChunkId::CULL {
            assert_eq!(ids[k + 1], ChunkId::LGT);
        }
    }
}

#[test]
fn skinned_animated_has_bones_blend_and_keys() {
    let doc = Smf::from_bytes(&fixture("skinned_animated.smf")).unwrap();
    assert_eq!(doc.frames.len(), 3);
    assert_eq!(
        doc.frames.iter().map(|f| f.parent).collect::<Vec<_>>(),
        [-1, 0, 1]
    );
    let mesh = &doc.meshes[0];
    assert_eq!(mesh.bones.as_ref().unwrap().len(), 2);
    assert_eq!(mesh.blend.as_ref().unwrap().len(), 12);
    let set = &doc.animation_sets[0];
    assert_eq!(set.name.text(), "振る");
    assert_eq!(set.last_time, 4800);
    let ani = &set.animations[1];
    assert_eq!(ani.target_frame, 2);
    assert_eq!(
        (
            ani.scale_keys.len(),
            ani.rotation_keys.len(),
            ani.translation_keys.len()
        ),
        (3, 3, 2)
    );
    assert_eq!(ani.translation_keys[1].value, [1.5, 0.0, 0.0]);
}

#[test]
fn large_mesh_uses_idx4() {
    let doc = Smf::from_bytes(&fixture("large_idx4.smf")).unwrap();
    let mesh = &doc.meshes[0];
    assert!(mesh.vertices.len() > 65_535);
    assert!(matches!(mesh.indices, Indices::U32(_)));
    assert!(mesh.indices.iter().any(|i| i > 65_535));
}

#[test]
fn collision_and_unknown_fixtures() {
    let doc = Smf::from_bytes(&fixture("collision_box.smf")).unwrap();
    let m = &doc.meshes[0];
    assert_eq!(m.collision_runs.as_ref().unwrap().len(), 3);
    assert_eq!(m.collision_faces.as_ref().unwrap().len(), 12);
    assert_eq!(m.collision_vertices.as_ref().unwrap().len(), 24);

    let (doc, warnings) = Smf::from_bytes_with_warnings(&fixture("unknown_chunks.smf")).unwrap();
    let unknown: Vec<String> = warnings
        .iter()
        .filter_map(|w| match &w.kind {
            WarningKind::UnknownChunk { chunk, .. } => Some(chunk.name()),
            _ => None,
        })
        .collect();
    assert_eq!(
        unknown,
        [
            "INFO", "NOTE", "NOTE", "SEP", "ANIX", "HEAD", "V_X", "GLOW", "TEXX", "OBB", "XTRA",
            "TAIL"
        ]
    );
    assert!(warnings
        .iter()
        .any(|w| w.kind == WarningKind::NameGarbageAfterNul));
    assert_eq!(doc.meshes[1].name.raw[40], 0x5A);
    assert_eq!(doc.meshes[1].name.text(), "三角");
}

/// Every proper prefix is an error, except one the format cannot tell from a whole file: a cut
/// exactly before trailing *unknown* top-level chunks (the head counts only FRM, ANIS and MESH).
/// Such a prefix must then be exactly that smaller document.
#[test]
fn every_prefix_of_every_file_is_an_error() {
    let mut files = fixtures("smf", "smf");
    files.extend(samples("smf", "smf").unwrap_or_default());
    for path in files {
        let bytes = read(&path);
        let full = Smf::from_bytes(&bytes).unwrap();
        truncation_sweep(
            file_name(&path),
            &bytes,
            Smf::from_bytes,
            |len, doc: &Smf| {
                doc.unknown.len() < full.unknown.len()
                    && doc.to_bytes().is_ok_and(|b| b[..] == bytes[..len])
            },
        );
    }
}

// ---- hand-built files for the validation rules ------------------------------------------

fn chunk(id: ChunkId, payload: &[u8]) -> Vec<u8> {
    let mut out = id.0.to_vec();
    out.extend_from_slice(&(payload.len() as i32).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

fn head(guid: u32, meshes: i32, frames: i32, sets: i32) -> Vec<u8> {
    let mut p = Vec::new();
    for v in [guid as i32, meshes, frames, sets] {
        p.extend_from_slice(&v.to_le_bytes());
    }
    chunk(ChunkId::SMF, &p)
}

/// A minimal valid model: one triangle, one material.
fn triangle() -> Smf {
    let v = vec![
        VertexPc::new([0.0, 0.0, 0.0].into()),
        VertexPc::new([0.0, 1.0, 0.0].into()),
        VertexPc::new([1.0, 0.0, 0.0].into()),
    ];
    let mut mesh = Mesh::new("m", v, Indices::U16(vec![0, 1, 2])).unwrap();
    mesh.materials
        .push(Material::new("Material", (0, 1), (0, 3)).unwrap());
    Smf {
        meshes: vec![mesh],
        ..Smf::default()
    }
}

fn err_of(bytes: &[u8]) -> Error {
    Smf::from_bytes(bytes).expect_err("must be rejected")
}

#[test]
fn sniff_accepts_smf_and_rejects_midi() {
    let bytes = triangle().to_bytes().unwrap();
    assert!(selene_smf::sniff(&bytes));
    assert!(selene_smf::sniff(&bytes[..12]));
    assert!(!selene_smf::sniff(&bytes[..11]));
    assert!(!selene_smf::sniff(b"MThd\0\0\0\x06\0\x01\0\x02\x01\xE0"));
    assert!(!selene_smf::sniff(b"spring map file\0"));
    assert!(matches!(
        err_of(b"MThd\0\0\0\x06\0\x01\0\x02"),
        Error::NotThisFormat { offset: 0, .. }
    ));
}

#[test]
fn guid_errors_name_the_guid() {
    let e = err_of(&head(0x0100, 0, 0, 0));
    assert!(matches!(
        e,
        Error::UnsupportedVersion {
            offset: 8,
            found: 0x0100
        }
    ));
    assert!(e.to_string().contains("pre-2007"), "{e}");
    let e = err_of(&head(0x2008_0101, 0, 0, 0));
    assert!(e.to_string().contains("0x20080101"), "{e}");
}

#[test]
fn two_gigabyte_chunk_in_a_small_file_fails_fast() {
    let mut bytes = head(selene_smf::GUID, 1, 0, 0);
    bytes.extend_from_slice(&ChunkId::MESH.0);
    bytes.extend_from_slice(&0x7FFF_FFF0i32.to_le_bytes());
    bytes.extend_from_slice(&[0; 80]);
    assert!(matches!(
        err_of(&bytes),
        Error::Truncated { offset: 32, .. }
    ));

    // Inside a container: a V_PC claiming 2 GB overruns its MESH.
    let mut mesh = vec![0u8; 68];
    mesh.extend_from_slice(&ChunkId::V_PC.0);
    mesh.extend_from_slice(&i32::MAX.to_le_bytes());
    mesh.extend_from_slice(&[0; 16]);
    let mut bytes = head(selene_smf::GUID, 1, 0, 0);
    bytes.extend(chunk(ChunkId::MESH, &mesh));
    let e = err_of(&bytes);
    assert!(
        matches!(
            e,
            Error::BadSize {
                offset: 100,
                problem: SizeProblem::OverrunsParent { .. },
                ..
            }
        ),
        "{e:?}"
    );
    // A negative size.
    let mut bytes = head(selene_smf::GUID, 0, 0, 0);
    bytes.extend_from_slice(&ChunkId::FRM.0);
    bytes.extend_from_slice(&(-1i32).to_le_bytes());
    assert!(matches!(
        err_of(&bytes),
        Error::BadSize {
            offset: 24,
            problem: SizeProblem::Negative,
            ..
        }
    ));
    // A huge ANI key count.
    let mut ani = Vec::new();
    for v in [0i32, 0x0FFF_FFFF, 0x0FFF_FFFF, 0x0FFF_FFFF] {
        ani.extend_from_slice(&v.to_le_bytes());
    }
    let mut anis = vec![0u8; 64];
    anis.extend_from_slice(&1i32.to_le_bytes());
    anis.extend_from_slice(&0i32.to_le_bytes());
    anis.extend(chunk(ChunkId::ANI, &ani));
    let mut bytes = head(selene_smf::GUID, 0, 0, 1);
    bytes.extend(chunk(ChunkId::ANIS, &anis));
    assert!(matches!(
        err_of(&bytes),
        Error::BadSize {
            problem: SizeProblem::KeyCounts { .. },
            ..
        }
    ));
}

/// Offset of the first occurrence of `id` in `bytes`.
fn find(bytes: &[u8], id: ChunkId) -> usize {
    bytes
        .windows(4)
        .position(|w| w == id.0)
        .expect("chunk present")
}

fn patch_i32(bytes: &mut [u8], at: usize, v: i32) {
    bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

#[test]
fn validation_errors_carry_offsets() {
    let good = triangle().to_bytes().unwrap();
    assert!(Smf::from_bytes(&good).is_ok());

    // Head count disagrees with the chunks present.
    let mut b = good.clone();
    patch_i32(&mut b, 12, 2);
    assert!(matches!(
        err_of(&b),
        Error::CountMismatch {
            offset: 12,
            declared: 2,
            found: 1,
            ..
        }
    ));

    // Index out of range.
    let mut doc = triangle();
    doc.meshes[0].indices = Indices::U16(vec![0, 1, 3]);
    let b = doc.to_bytes().unwrap();
    let at = (find(&b, ChunkId::IDX2) + 8 + 4) as u64;
    assert!(matches!(err_of(&b), Error::IndexOutOfRange { offset, .. } if offset == at));

    // Material polygon range.
    let mut doc = triangle();
    doc.meshes[0].materials[0].polygon_count = 2;
    let b = doc.to_bytes().unwrap();
    let at = (find(&b, ChunkId::MTRL) + 8 + 64) as u64;
    assert!(matches!(err_of(&b), Error::IndexOutOfRange { offset, .. } if offset == at));
    // Material vertex range.
    let mut doc = triangle();
    doc.meshes[0].materials[0].vertex_start = 1;
    let b = doc.to_bytes().unwrap();
    let at = (find(&b, ChunkId::MTRL) + 8 + 72) as u64;
    assert!(matches!(err_of(&b), Error::IndexOutOfRange { offset, .. } if offset == at));

    // V_N count disagrees with V_PC.
    let mut doc = triangle();
    doc.meshes[0].normals = Some(vec![selene_smf::Vec3([0.0; 3]); 2]);
    let b = doc.to_bytes().unwrap();
    let at = find(&b, ChunkId::V_N) as u64;
    assert!(
        matches!(err_of(&b), Error::CountMismatch { offset, declared: 3, found: 2, .. } if offset == at)
    );

    // V_A bone index ≥ BONE count.
    let mut doc = triangle();
    doc.frames.push(selene_smf::Frame::new("f", 0, -1).unwrap());
    doc.meshes[0].bones = Some(vec![selene_smf::Bone {
        offset: selene_smf::IDENTITY,
        frame: 0,
    }]);
    let blend = selene_smf::BlendVertex {
        weight: 1.0,
        indices: [0, 5, 0, 0],
    };
    doc.meshes[0].blend = Some(vec![blend; 3]);
    assert!(
        Smf::from_bytes(&doc.to_bytes().unwrap()).is_ok(),
        "index[1] unused at weight 1"
    );
    doc.meshes[0].blend.as_mut().unwrap()[2].indices[0] = 1;
    let b = doc.to_bytes().unwrap();
    let at = (find(&b, ChunkId::V_A) + 8 + 2 * 8 + 4) as u64;
    assert!(matches!(err_of(&b), Error::IndexOutOfRange { offset, .. } if offset == at));

    // Size not a multiple of the element size.
    let mut b = good.clone();
    let at = find(&b, ChunkId::V_PC);
    let mut broken = b[..at].to_vec();
    broken.extend(chunk(ChunkId::V_PC, &b[at + 8..at + 8 + 47]));
    broken.extend_from_slice(&b[at + 8 + 48..]);
    // Fix the MESH size (one byte shorter).
    let m = find(&broken, ChunkId::MESH);
    let size = i32::from_le_bytes(broken[m + 4..m + 8].try_into().unwrap());
    patch_i32(&mut broken, m + 4, size - 1);
    let e = err_of(&broken);
    assert!(
        matches!(e, Error::BadSize { offset, problem: SizeProblem::NotMultiple { element: 16 }, .. } if offset == at as u64),
        "{e:?}"
    );
    b.truncate(b.len() - 1);
    assert!(Smf::from_bytes(&b).is_err());
}

#[test]
fn structural_rules() {
    // Second SMF head.
    let mut b = triangle().to_bytes().unwrap();
    b.extend(head(selene_smf::GUID, 0, 0, 0));
    assert!(matches!(err_of(&b), Error::UnexpectedPart { .. }));

    // IDX2 and IDX4 both present / missing V_PC.
    let mut mesh = vec![0u8; 68];
    mesh.extend(chunk(ChunkId::V_PC, &[0; 16]));
    mesh.extend(chunk(ChunkId::IDX2, &[0; 6]));
    mesh.extend(chunk(ChunkId::IDX4, &[0; 12]));
    let mut b = head(selene_smf::GUID, 1, 0, 0);
    b.extend(chunk(ChunkId::MESH, &mesh));
    assert!(matches!(
        err_of(&b),
        Error::UnexpectedPart {
            chunk: ChunkId::IDX4,
            ..
        }
    ));
    let mut b = head(selene_smf::GUID, 1, 0, 0);
    b.extend(chunk(ChunkId::MESH, &[0u8; 68]));
    assert!(matches!(err_of(&b), Error::MissingPart { offset: 24, .. }));

    // A frame whose parent is itself.
    let mut doc = triangle();
    doc.frames
        .push(selene_smf::Frame::new("loop", 0, 0).unwrap());
    assert!(matches!(
        err_of(&doc.to_bytes().unwrap()),
        Error::IndexOutOfRange { offset: 0xA4, .. }
    ));

    // An ANI size that disagrees with its counts.
    let mut doc = triangle();
    doc.frames.push(selene_smf::Frame::new("f", 0, -1).unwrap());
    doc.animation_sets.push(selene_smf::AnimationSet {
        name: selene_smf::name("a").unwrap(),
        last_time: 1,
        animations: vec![selene_smf::Animation::default()],
        unknown: Vec::new(),
    });
    let mut b = doc.to_bytes().unwrap();
    let at = find(&b, ChunkId::ANI);
    patch_i32(&mut b, at + 8 + 8, 1);
    assert!(matches!(
        err_of(&b),
        Error::BadSize {
            problem: SizeProblem::KeyCounts {
                expected: Some(36),
                ..
            },
            ..
        }
    ));
}

#[test]
fn non_canonical_order_warns_and_is_rewritten_canonically() {
    // MTRL with LGT before CULL.
    let mut mtrl = selene_smf::name("Material").unwrap().raw;
    for v in [0i32, 1, 0, 3] {
        mtrl.extend_from_slice(&v.to_le_bytes());
    }
    mtrl.extend(chunk(ChunkId::LGT, &0u32.to_le_bytes()));
    mtrl.extend(chunk(ChunkId::CULL, &1u32.to_le_bytes()));
    mtrl.extend(chunk(ChunkId::DIFF, &[0; 16]));
    let mut mesh = selene_smf::name("m").unwrap().raw;
    mesh.extend_from_slice(&1i32.to_le_bytes());
    mesh.extend(chunk(ChunkId::V_PC, &[0; 48]));
    mesh.extend(chunk(ChunkId::IDX2, &[0, 0, 1, 0, 2, 0]));
    mesh.extend(chunk(ChunkId::MTRL, &mtrl));
    let mut b = head(selene_smf::GUID, 1, 0, 0);
    b.extend(chunk(ChunkId::MESH, &mesh));
    let (doc, w) = Smf::from_bytes_with_warnings(&b).unwrap();
    assert!(matches!(
        w[0].kind,
        WarningKind::NonCanonicalOrder {
            chunk: ChunkId::CULL,
            ..
        }
    ));
    let m = &doc.meshes[0].materials[0];
    assert_eq!((m.cull, m.lighting), (Some(1), Some(0)));
    let out = doc.to_bytes().unwrap();
    assert!(find(&out, ChunkId::CULL) < find(&out, ChunkId::LGT));
    assert_eq!(out.len(), b.len());
}

#[test]
fn writer_rejects_bad_names() {
    let mut doc = triangle();
    doc.meshes[0].name.raw.truncate(10);
    assert!(matches!(doc.to_bytes(), Err(Error::BadString { .. })));
    assert!(selene_smf::name(&"x".repeat(64)).is_none());
}

#[test]
fn error_is_send_sync_static_and_reports_offsets() {
    fn assert_traits<T: Send + Sync + 'static + std::error::Error>() {}
    assert_traits::<Error>();
    let e = err_of(b"FMS\0\x10\0\0\0\x01\x11\x07\x20\0\0");
    assert_eq!(e.offset(), Some(8));
    assert!(e.to_string().starts_with("at byte 0x8:"), "{e}");
}

#[test]
fn non_finite_vertex_data_warns_once_per_chunk() {
    let finite = {
        let mut doc = triangle();
        let mesh = &mut doc.meshes[0];
        mesh.normals = Some(vec![selene_smf::Vec3([0.0, 0.0, 1.0]); 3]);
        mesh.uvs = Some(vec![selene_smf::UvVertex::default(); 3]);
        doc
    };
    let non_finite_chunks = |doc: &Smf| {
        let bytes = doc.to_bytes().unwrap();
        let (_, warnings) = Smf::from_bytes_with_warnings(&bytes).unwrap();
        warnings
            .iter()
            .filter_map(|w| match w.kind {
                WarningKind::NonFinite { chunk } => Some(chunk),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(non_finite_chunks(&finite), []);
    // Each bad value in the last component of the last vertex, the last one a check meets.
    let mut doc = finite.clone();
    let mesh = &mut doc.meshes[0];
    mesh.vertices[2].position[2] = f32::NAN;
    if let Some(n) = &mut mesh.normals {
        n[2].0[2] = f32::INFINITY;
    }
    if let Some(u) = &mut mesh.uvs {
        u[2].uv2[1] = f32::NEG_INFINITY;
    }
    assert_eq!(
        non_finite_chunks(&doc),
        [ChunkId::V_PC, ChunkId::V_N, ChunkId::V_UV]
    );
}
