//! Generated fixtures and hand-made hostile inputs: round trips, truncations, validation errors.

use bmf_block::Model as _;
use bmf_block::{Bmf, Error};

fn all_inputs() -> Vec<(String, Vec<u8>)> {
    let mut files = test_support::fixtures("bmf", "bmf");
    files.extend(test_support::samples("bmf", "bmf").unwrap_or_default());
    files
        .iter()
        .map(|p| (test_support::file_name(p).to_owned(), test_support::read(p)))
        .collect()
}

#[test]
fn every_fixture_round_trips_byte_for_byte() {
    for path in test_support::fixtures("bmf", "bmf") {
        let bytes = test_support::read(&path);
        let (doc, warnings) = Bmf::from_bytes_with_warnings(&bytes).unwrap();
        assert!(warnings.is_empty(), "{}: {warnings:?}", path.display());
        assert_eq!(doc.to_bytes().unwrap(), bytes, "{}", path.display());
    }
}

#[test]
fn every_truncation_of_every_fixture_and_sample_is_an_error() {
    for (name, bytes) in all_inputs() {
        test_support::truncation_sweep(&name, &bytes, Bmf::from_bytes, |_, _| false);
    }
}

/// A header plus blocks, for hand-made inputs.
fn file(header: &[u8; 6], blocks: &[(u32, u32, &[u8])]) -> Vec<u8> {
    let mut out = header.to_vec();
    out.resize(16, 0);
    for (kind, size, payload) in blocks {
        out.extend(kind.to_le_bytes());
        out.extend(size.to_le_bytes());
        out.extend(*payload);
    }
    out
}

#[test]
fn forty_bytes_claiming_four_billion_vertices_fail_at_once() {
    // A vertex block whose size claims 4 294 967 264 bytes = 134 217 727 vertices, in a 40-byte file.
    let mut bytes = file(b"BDV1.0", &[(0, 0xFFFF_FFE0, &[0; 16])]);
    bytes.truncate(40);
    assert_eq!(bytes.len(), 40);
    // Refused at the block's header, before anything is read for the claim (its memory is
    // measured in crates/alloc-counter/tests/alloc_bounds.rs). The time is only a hang guard:
    // a reader looping over the claimed vertices would take far longer.
    let start = std::time::Instant::now();
    let err = Bmf::from_bytes(&bytes).unwrap_err();
    assert!(matches!(err, Error::Truncated { offset: 16, .. }), "{err}");
    assert!(start.elapsed().as_secs() < 10, "hung");

    // The same claim through the multi-mesh count and the material count.
    let multi = file(b"BDV1.1", &[(9, u32::MAX, &[])]);
    assert!(matches!(
        Bmf::from_bytes(&multi),
        Err(Error::Truncated { offset: 16, .. })
    ));
    let materials = file(b"BDV1.0", &[(0, 0, &[]), (1, 0, &[]), (3, u32::MAX, &[])]);
    assert!(matches!(
        Bmf::from_bytes(&materials),
        Err(Error::Truncated { offset: 32, .. })
    ));
}

fn cube() -> Vec<u8> {
    let path = test_support::fixtures("bmf", "bmf")
        .into_iter()
        .find(|p| test_support::file_name(p) == "static_cube.bmf")
        .unwrap();
    test_support::read(&path)
}

fn put_u32(bytes: &mut [u8], at: usize, v: u32) {
    bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn put_u16(bytes: &mut [u8], at: usize, v: u16) {
    bytes[at..at + 2].copy_from_slice(&v.to_le_bytes());
}

// Layout of static_cube.bmf: header 16, vertex block at 16 (24 × 32 bytes), index block at 792
// (36 indices), MaterialCount at 872, Material at 880 (size 72 + 2·9), End at 978.
const VERTEX_AT: usize = 16;
const INDEX_AT: usize = 16 + 8 + 24 * 32;
const MATERIAL_COUNT_AT: usize = INDEX_AT + 8 + 72;
const MATERIAL_AT: usize = MATERIAL_COUNT_AT + 8;
const END_AT: usize = MATERIAL_AT + 8 + 72 + 18;

#[test]
fn the_cube_layout_is_as_the_tests_assume() {
    let bytes = cube();
    assert_eq!(bytes.len(), END_AT + 8);
    assert_eq!(&bytes[INDEX_AT..INDEX_AT + 4], &1u32.to_le_bytes());
    assert_eq!(&bytes[MATERIAL_AT..MATERIAL_AT + 4], &2u32.to_le_bytes());
    assert_eq!(&bytes[END_AT..END_AT + 4], &100u32.to_le_bytes());
}

#[test]
fn each_validation_rule_gives_its_typed_error_and_offset() {
    let check =
        |mutate: &dyn Fn(&mut Vec<u8>), want: &dyn Fn(&Error) -> bool, offset: Option<u64>| {
            let mut bytes = cube();
            mutate(&mut bytes);
            let err = Bmf::from_bytes(&bytes).unwrap_err();
            assert!(want(&err), "unexpected error: {err}");
            if offset.is_some() {
                assert_eq!(err.offset(), offset, "{err}");
            }
        };
    // Wrong magic, unsupported version.
    check(
        &|b| b[0] = b'X',
        &|e| matches!(e, Error::NotThisFormat { .. }),
        Some(0),
    );
    check(
        &|b| b[5] = b'2',
        &|e| matches!(e, Error::UnsupportedVersion { .. }),
        Some(0),
    );
    // Unknown block where the vertex block belongs; out-of-order block.
    check(
        &|b| put_u32(b, VERTEX_AT, 42),
        &|e| matches!(e, Error::UnexpectedBlock { found: 42, .. }),
        Some(16),
    );
    check(
        &|b| put_u32(b, INDEX_AT, 3),
        &|e| matches!(e, Error::UnexpectedBlock { found: 3, .. }),
        Some(INDEX_AT as u64),
    );
    // A vertex size that does not divide by 32.
    check(
        &|b| put_u32(b, VERTEX_AT + 4, 24 * 32 - 4),
        &|e| matches!(e, Error::BadSize { .. }),
        Some(16),
    );
    // An index out of range.
    check(
        &|b| put_u16(b, INDEX_AT + 8 + 10, 24),
        &|e| {
            matches!(
                e,
                Error::IndexOutOfRange {
                    index: 24,
                    limit: 24,
                    ..
                }
            )
        },
        Some((INDEX_AT + 18) as u64),
    );
    // A material range beyond the indices.
    check(
        &|b| put_u32(b, MATERIAL_AT + 8, 3),
        &|e| matches!(e, Error::IndexOutOfRange { .. }),
        Some(MATERIAL_AT as u64 + 8),
    );
    // A texture name without its NUL.
    check(
        &|b| put_u16(b, END_AT - 2, u16::from(b'x')),
        &|e| matches!(e, Error::BadString { .. }),
        Some(MATERIAL_AT as u64 + 80),
    );
    // A material block of odd length.
    check(
        &|b| put_u32(b, MATERIAL_AT + 4, 89),
        &|e| matches!(e, Error::BadSize { .. }),
        Some(MATERIAL_AT as u64),
    );
    // Missing End.
    check(
        &|b| put_u32(b, END_AT, 5),
        &|e| matches!(e, Error::UnexpectedBlock { found: 5, .. }),
        Some(END_AT as u64),
    );
    check(
        &|b| b.truncate(END_AT),
        &|e| matches!(e, Error::Truncated { .. }),
        Some(END_AT as u64),
    );
    // Trailing bytes.
    check(
        &|b| b.extend([0, 0]),
        &|e| matches!(e, Error::TrailingData { len: 2, .. }),
        Some(END_AT as u64 + 8),
    );
}

#[test]
fn skin_rules_are_enforced_on_referenced_vertices_only() {
    let path = test_support::fixtures("bmf", "bmf")
        .into_iter()
        .find(|p| test_support::file_name(p) == "skinned_arm.bmf")
        .unwrap();
    let doc = Bmf::from_path(&path).unwrap();

    // A bone index ≥ B with weight in a referenced vertex is an error.
    let mut bad = doc.clone();
    if let bmf_block::Vertices::Skinned(v) = &mut bad.meshes[0].vertices {
        v[3].bone_indices[0] = 2;
    }
    let err = Bmf::from_bytes(&bad.to_bytes().unwrap()).unwrap_err();
    assert!(
        matches!(
            err,
            Error::IndexOutOfRange {
                what: "bone index",
                index: 2,
                limit: 2,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(err.offset(), Some(16 + 8 + 3 * 64));

    // The same garbage in a vertex no index uses is accepted and kept.
    let mut unused = doc.clone();
    if let bmf_block::Vertices::Skinned(v) = &mut unused.meshes[0].vertices {
        v.push(bmf_block::SkinnedVertex {
            bone_indices: [0xCDCD_CDCD; 4],
            weights: [f32::NAN; 4],
            ..v[0]
        });
    }
    let bytes = unused.to_bytes().unwrap();
    let (again, warnings) = Bmf::from_bytes_with_warnings(&bytes).unwrap();
    assert!(warnings.is_empty());
    assert_eq!(again.to_bytes().unwrap(), bytes);

    // A matrix block that is not a multiple of the bone count.
    let mut odd = doc.clone();
    odd.meshes[0].skin.as_mut().unwrap().bone_count = 3;
    assert!(odd.to_bytes().is_err(), "the writer refuses it too");
    let mut bytes = doc.to_bytes().unwrap();
    let bone_count_at = bytes.len() - 8 - (8 + 64 * 10) - 8;
    assert_eq!(
        &bytes[bone_count_at..bone_count_at + 8],
        &[5, 0, 0, 0, 2, 0, 0, 0]
    );
    put_u32(&mut bytes, bone_count_at + 4, 3);
    let err = Bmf::from_bytes(&bytes).unwrap_err();
    assert!(
        matches!(
            err,
            Error::BadSize {
                what: "AnimeMatrix block",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn misaligned_blocks_read_correctly() {
    // An empty texture name (74-byte material) plus an odd index count would misalign; here a
    // 15-unit name (like `Tx_Checker.tga`) leaves the End block 2 bytes off.
    let mut doc = Bmf::from_bytes(&cube()).unwrap();
    doc.meshes[0].materials[0].texture = bmf_block::TextureName::new("Tx_Checker.tga");
    let bytes = doc.to_bytes().unwrap();
    assert_eq!((bytes.len() - 8) % 4, 2);
    assert_eq!(Bmf::from_bytes(&bytes).unwrap(), doc);
}

fn fixture(name: &str) -> Vec<u8> {
    let path = test_support::fixtures("bmf", "bmf")
        .into_iter()
        .find(|p| test_support::file_name(p) == name)
        .unwrap_or_else(|| panic!("fixture {name} missing"));
    test_support::read(&path)
}

/// The suspicious-vertex warnings of `bytes`: (offset, reason).
fn suspicious(bytes: &[u8]) -> Vec<(u64, &'static str)> {
    let (_, warnings) = Bmf::from_bytes_with_warnings(bytes).unwrap();
    warnings
        .into_iter()
        .filter_map(|w| match w {
            bmf_block::Warning::SuspiciousVertex { offset, reason } => Some((offset, reason)),
            _ => None,
        })
        .collect()
}

/// Where the vertex `v` (its bytes, unique in the file) starts in `file`.
fn offset_of(file: &[u8], v: &[u8]) -> u64 {
    file.windows(v.len())
        .position(|w| w == v)
        .expect("vertex in file") as u64
}

#[test]
fn suspicious_vertices_warn_once_at_the_first_one() {
    // A non-finite normal component in the last vertex a triangle uses.
    let bytes = fixture("static_cube.bmf");
    let mut doc = Bmf::from_bytes(&bytes).unwrap();
    assert_eq!(suspicious(&bytes), []);
    let last = usize::from(*doc.meshes[0].indices.iter().max().unwrap());
    let bmf_block::Vertices::Plain(vs) = &mut doc.meshes[0].vertices else {
        panic!("static_cube has plain vertices")
    };
    vs[last].normal[2] = f32::INFINITY;
    let bad = bytemuck::bytes_of(&vs[last]).to_vec();
    let out = doc.to_bytes().unwrap();
    assert_eq!(
        suspicious(&out),
        [(offset_of(&out, &bad), "has a non-finite float")]
    );

    // Weights that do not sum to 1 in the last vertex of a skinned mesh.
    let bytes = fixture("skinned_arm.bmf");
    let mut doc = Bmf::from_bytes(&bytes).unwrap();
    assert_eq!(suspicious(&bytes), []);
    let last = usize::from(*doc.meshes[0].indices.iter().max().unwrap());
    let bmf_block::Vertices::Skinned(vs) = &mut doc.meshes[0].vertices else {
        panic!("skinned_arm has skinned vertices")
    };
    vs[last].weights = [0.5, 0.25, 0.0, 0.0];
    let bad = bytemuck::bytes_of(&vs[last]).to_vec();
    let out = doc.to_bytes().unwrap();
    assert_eq!(
        suspicious(&out),
        [(offset_of(&out, &bad), "has weights that do not sum to 1")]
    );
}
