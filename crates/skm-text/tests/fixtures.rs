//! The generated fixtures: round trip, expected counts, truncation sweep, hostile counts.
//!
//! There are no real `.skm` samples (none is publicly known), so there is no samples.rs: the
//! fixtures and the texts built in these tests are the whole corpus.

use skm_text::Model as _;
use skm_text::{Encoding, Error, Skm};
use std::time::{Duration, Instant};
use test_support::{file_name, fixtures, read, truncation_sweep};

/// name, vertices, triangles, materials, attribute ranges, bones, textures
const EXPECTED: &[(&str, usize, usize, usize, usize, usize, usize)] = &[
    ("arm_skinned.skm", 20, 36, 1, 1, 5, 1),
    ("cube_static.skm", 24, 12, 2, 2, 0, 1),
];

#[test]
fn every_fixture_reads_cleanly_and_writes_back_byte_for_byte() {
    let files = fixtures("skm", "skm");
    assert_eq!(files.len(), EXPECTED.len());
    for (path, &(name, v, t, m, a, b, tex)) in files.iter().zip(EXPECTED) {
        assert_eq!(file_name(path), name);
        let bytes = read(path);
        assert!(skm_text::sniff(&bytes), "{name}: sniff");
        let (doc, warnings) = Skm::from_bytes_with_warnings(&bytes).unwrap();
        assert!(warnings.is_empty(), "{name}: {warnings:?}");
        assert_eq!(doc.encoding, Encoding::ShiftJis);
        assert_eq!(
            (
                doc.vertices.len(),
                doc.triangles.len(),
                doc.materials.len(),
                doc.attributes.len(),
                doc.bones.len()
            ),
            (v, t, m, a, b),
            "{name}"
        );
        assert_eq!(
            doc.materials.iter().filter(|m| m.texture.is_some()).count(),
            tex
        );
        assert_eq!(doc.adjacency.len(), t);
        let out = doc.to_bytes().unwrap();
        assert!(out == bytes, "{name}: rewrite differs");
        assert_eq!(Skm::from_bytes(&out).unwrap(), doc);
        // The other entry points agree.
        assert_eq!(Skm::read(&bytes[..]).unwrap(), doc);
        assert_eq!(Skm::from_path(path).unwrap(), doc);
        let mut sink = Vec::new();
        doc.write(&mut sink).unwrap();
        assert_eq!(sink, bytes);
    }
}

#[test]
fn the_arm_keeps_its_skinning_and_japanese_names() {
    let path = fixtures("skm", "skm")
        .into_iter()
        .find(|p| file_name(p) == "arm_skinned.skm")
        .unwrap();
    let doc = Skm::from_path(&path).unwrap();
    let names: Vec<String> = doc
        .bones
        .iter()
        .map(|b| doc.text(&b.name).into_owned())
        .collect();
    assert_eq!(names, ["*root", ">右腕", ">>右肘", ">左腕", ">>左肘"]);
    assert_eq!(doc.bones[1].name.raw, b">\x89\x45\x98\x72");
    let parents: Vec<i32> = doc.bones.iter().map(|b| b.parent).collect();
    assert_eq!(parents, [-1, 0, 1, 0, 3]);
    let sym: Vec<i32> = doc.bones.iter().map(|b| b.symmetric).collect();
    assert_eq!(sym, [-1, 3, 4, 1, 2]);
    assert_eq!(
        doc.text(doc.materials[0].texture.as_ref().unwrap()),
        "腕テクスチャ.bmp"
    );
    let v = doc.vertices[8];
    assert_eq!(v.palette(), [1, 2, 0, 2]);
    assert_eq!(v.weights4(), [0.5, 0.25, 0.0, 0.25]);
    assert_eq!(v.blend_indices, 0x0200_0201);
    let q = doc.bones[2].rotation();
    assert_eq!((q.v.z, q.s), (0.382_683_43, 0.923_879_5));
    // The two end caps and the open seams: a closed tube has every edge shared.
    assert!(doc.adjacency.iter().flatten().all(|&f| (f as usize) < 36));
    assert_eq!(doc.neighbour(0, 0), Some(doc.adjacency[0][0]));
}

#[test]
fn the_cube_is_closed_and_split_between_two_materials() {
    let path = fixtures("skm", "skm")
        .into_iter()
        .find(|p| file_name(p) == "cube_static.skm")
        .unwrap();
    let doc = Skm::from_path(&path).unwrap();
    assert!(doc.bones.is_empty());
    assert!(doc.materials[1].texture.is_none());
    assert_eq!(
        doc.materials[0].texture.as_ref().unwrap().raw,
        b"cube_wood.bmp"
    );
    assert_eq!(doc.materials[1].power, 12.5);
    assert!(doc.adjacency.iter().flatten().all(|&f| (f as usize) < 12));
    let r = doc.attributes[1];
    assert_eq!(
        (
            r.material,
            r.face_start,
            r.face_count,
            r.vertex_start,
            r.vertex_count
        ),
        (1, 6, 6, 12, 12)
    );
}

#[test]
fn no_truncation_panics_or_passes_for_the_whole() {
    for path in fixtures("skm", "skm") {
        let bytes = read(&path);
        let full = Skm::from_bytes(&bytes).unwrap();
        truncation_sweep(file_name(&path), &bytes, Skm::from_bytes, |_, doc| {
            // A prefix may read as a smaller document only by losing the Bone section (a
            // static mesh) or by shortening the very last number.
            doc.vertices == full.vertices
                && doc.triangles == full.triangles
                && doc.adjacency == full.adjacency
                && doc.materials == full.materials
                && doc.attributes.len() == full.attributes.len()
                && (doc.bones.is_empty() || doc.bones.len() == full.bones.len())
        });
    }
}

fn hostile(text: &str) -> Error {
    let start = Instant::now();
    let err = Skm::from_bytes(text.as_bytes()).unwrap_err();
    // A hang guard, not a timing assertion (the refusals take microseconds).
    assert!(start.elapsed() < Duration::from_secs(10), "{text:?}: hung");
    err
}

#[test]
fn huge_counts_fail_at_once_without_allocating() {
    let base = "Vertices: 0\r\nIndices: 0\r\nAdjacency: 0\r\nMaterials: 0\r\nAttributes: 0\r\n";
    let cases = [
        ("Vertices: 4294967295\r\n0 0 0\r\n".to_string(), (1, 11)),
        (
            "Vertices: 1\r\n0 0 0 0 0 0 0 0 0 0 0 0 0\r\nIndices: 4294967295\r\n".into(),
            (3, 10),
        ),
        (
            "Vertices: 0\r\nIndices: 0\r\nAdjacency: 4294967295\r\n".into(),
            (3, 12),
        ),
        (
            base.replace("Materials: 0", "Materials: 4000000000"),
            (4, 12),
        ),
        (
            base.replace("Attributes: 0", "Attributes: 4294967295"),
            (5, 13),
        ),
        (format!("{base}Bone: 4294967295\r\n\"a\"\r\n"), (6, 7)),
        (format!("{base}Bones: 100000000\r\n"), (6, 8)),
    ];
    for (text, pos) in cases {
        let err = hostile(&text);
        match err {
            Error::Truncated { .. } | Error::CountMismatch { .. } => {}
            ref e => panic!("{text:?}: unexpected {e}"),
        }
        assert_eq!(err.position(), Some(pos), "{text:?}: {err}");
    }
    // A count too large for 32 bits is a malformed number.
    let err = hostile("Vertices: 99999999999\r\n");
    assert!(matches!(err, Error::BadNumber { .. }), "{err}");
}

#[test]
fn mutated_fixtures_never_panic() {
    // Fixed-seed mutations: byte flips, deletions, and tokens spliced in at random places.
    const TOKENS: &[&[u8]] = &[
        b" ",
        b"\n",
        b"\r",
        b"\"",
        b"-",
        b"0x",
        b"4294967295",
        b"-1",
        b"1.#QNAN0",
        b"nan(0x1)",
        b"Bone:",
        b"Bones:",
        b"Indices:",
        b"99999999",
        b"1e39",
        b"\xEF\xBB\xBF",
        b"\x8D\x9C",
    ];
    let mut state: u64 = 0x0DDB_A11C_AFE5_EED5;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for path in fixtures("skm", "skm") {
        let original = read(&path);
        for _ in 0..3000 {
            let mut bytes = original.clone();
            for _ in 0..1 + next() % 3 {
                let at = (next() % (bytes.len() as u64 + 1)) as usize;
                match next() % 3 {
                    0 if at < bytes.len() => bytes[at] = next() as u8,
                    1 if at < bytes.len() => {
                        bytes.remove(at);
                    }
                    _ => {
                        let t = TOKENS[(next() % TOKENS.len() as u64) as usize];
                        bytes.splice(at..at, t.iter().copied());
                    }
                }
            }
            let result = std::panic::catch_unwind(|| Skm::from_bytes_with_warnings(&bytes));
            match result {
                Err(_) => panic!("panic on {:?}", String::from_utf8_lossy(&bytes)),
                Ok(Ok((doc, _))) => {
                    // Whatever reads must write, and read back as itself.
                    let out = doc.to_bytes().unwrap();
                    assert_eq!(Skm::from_bytes(&out).unwrap(), doc);
                }
                Ok(Err(e)) => {
                    assert!(e.position().is_some(), "{e}");
                }
            }
        }
    }
}
