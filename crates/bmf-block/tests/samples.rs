//! The real Fbx2Bin files in ../shared/samples/bmf: every one reads without error or warning,
//! reports the counts in its PROVENANCE.md, and is rewritten byte for byte.

use bmf_block::Model as _;
use bmf_block::{Bmf, VertexKind};

/// Expected figures per mesh: (vertex kind, V, I, texture, material block size, B, S).
type MeshRow = (
    VertexKind,
    usize,
    usize,
    &'static str,
    usize,
    Option<(u32, usize)>,
);

fn expected(name: &str) -> Option<(&'static str, Vec<MeshRow>)> {
    use VertexKind::*;
    let chara = |k| vec![(k, 4176, 5904, "Chara_R.png", 96, None)];
    let tx = |k, v: [usize; 3], i: [usize; 3], skin: Option<(u32, usize)>| {
        (0..3)
            .map(|m| (k, v[m], i[m], "Tx_Checker.tga", 102, skin))
            .collect::<Vec<_>>()
    };
    Some(match name.get(..2)? {
        "01" | "02" => ("BDV1.0", chara(Plain)),
        "03" => (
            "BDV1.0",
            vec![(Plain, 5370, 30729, "Character_2.png", 104, None)],
        ),
        "04" => ("BDV1.0", vec![(Tangent, 84, 84, "Checker.png", 96, None)]),
        "05" => (
            "BDV1.0",
            vec![(Skinned, 4176, 5904, "Chara_R.png", 96, Some((22, 101)))],
        ),
        "07" => (
            "BDV1.0",
            vec![(SkinnedTangent, 84, 84, "Checker.png", 96, Some((3, 31)))],
        ),
        "08" => ("BDV1.1", tx(Plain, [18, 18, 313], [84, 84, 1866], None)),
        "09" => ("BDV1.1", tx(Plain, [84, 84, 1866], [84, 84, 1866], None)),
        "10" => (
            "BDV1.1",
            tx(Skinned, [18, 313, 18], [84, 1866, 84], Some((27, 31))),
        ),
        _ => return None,
    })
}

#[test]
fn every_sample_reads_cleanly_with_its_provenance_counts_and_round_trips() {
    let Some(samples) = test_support::samples("bmf", "bmf") else {
        return;
    };
    assert_eq!(samples.len(), 9, "PROVENANCE.md lists 9 files");
    for path in samples {
        let name = test_support::file_name(&path);
        let bytes = test_support::read(&path);
        let (doc, warnings) =
            Bmf::from_bytes_with_warnings(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            warnings.is_empty(),
            "{name}: unexpected warnings {warnings:?}"
        );

        let (version, meshes) =
            expected(name).unwrap_or_else(|| panic!("{name}: not in PROVENANCE"));
        assert_eq!(doc.header.version().as_str(), version, "{name}");
        assert_eq!(doc.meshes.len(), meshes.len(), "{name}: meshes");
        for (mesh, (kind, v, i, tex, block, skin)) in doc.meshes.iter().zip(meshes) {
            assert_eq!(mesh.vertices.kind(), kind, "{name}");
            assert_eq!(mesh.vertices.len(), v, "{name}: V");
            assert_eq!(mesh.indices.len(), i, "{name}: I");
            assert_eq!(mesh.materials.len(), 1, "{name}: M");
            let m = &mesh.materials[0];
            assert_eq!(m.texture.to_string_lossy(), tex, "{name}");
            assert_eq!(
                72 + 2 * m.texture.units().len(),
                block,
                "{name}: material block size"
            );
            assert_eq!(
                (m.start_index, m.index_count as usize),
                (0, i),
                "{name}: material range"
            );
            let found = mesh.skin.as_ref().map(|s| (s.bone_count, s.sample_count()));
            assert_eq!(found, skin, "{name}: bones and samples");
        }

        assert!(
            doc.to_bytes().unwrap() == bytes,
            "{name}: rewrite differs from the original"
        );
    }
}

#[test]
fn debug_fill_vertices_survive_the_round_trip() {
    let Some(samples) = test_support::samples("bmf", "bmf") else {
        return;
    };
    let path = samples
        .iter()
        .find(|p| test_support::file_name(p).starts_with("05"))
        .unwrap();
    let doc = Bmf::from_path(path).unwrap();
    let garbage = doc.meshes[0]
        .vertices
        .iter()
        .filter(|v| v.joints.is_some_and(|(j, _)| j[0] == 0xCDCD_CDCD))
        .count();
    assert_eq!(
        garbage, 6,
        "PROVENANCE: 6 unreferenced vertices hold the MSVC debug fill"
    );
}

#[test]
fn sample_07_starts_with_identity_matrices_keeping_negative_zero() {
    let Some(samples) = test_support::samples("bmf", "bmf") else {
        return;
    };
    let path = samples
        .iter()
        .find(|p| test_support::file_name(p).starts_with("07"))
        .unwrap();
    let doc = Bmf::from_path(path).unwrap();
    let skin = doc.meshes[0].skin.as_ref().unwrap();
    for b in 0..3 {
        let m = skin.matrices[b];
        for (k, v) in m.iter().enumerate() {
            let want = if k % 5 == 0 { 1.0 } else { 0.0 };
            assert!((v - want).abs() < 1e-6, "bone {b} element {k} = {v}");
        }
    }
    let negative_zeros = skin
        .matrices
        .iter()
        .flatten()
        .filter(|v| v.to_bits() == 0x8000_0000)
        .count();
    assert!(
        negative_zeros > 0,
        "the sample has -0.0 entries that must be kept"
    );
}
