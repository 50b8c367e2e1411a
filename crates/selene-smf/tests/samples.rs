//! The real sample files: parse without error or warning, rewrite byte for byte, and match the
//! figures of `shared/samples/smf/PROVENANCE.md`.

use selene_smf::Model as _;
use selene_smf::{ChunkId, DrawMode, Smf};
use test_support::{file_name, read, samples};

/// One row of the PROVENANCE "Expected reader results" table.
struct Expected {
    file: &'static str,
    vertices: usize,
    triangles: usize,
    /// (PolygonStart, PolygonCount, VertexStart, VertexCount) per material.
    materials: &'static [(i32, i32, i32, i32)],
    mesh_chunks: &'static str,
    textures: &'static [&'static str],
    /// C_AT runs, C_FC faces, C_VX vertices.
    collision: Option<(usize, usize, usize)>,
}

const UNTEXTURED: &str = "OBB V_PC V_N IDX2 MTRL";
const TEXTURED: &str = "OBB V_PC V_N V_B V_UV IDX2 MTRL";
const TEXTURED3: &str = "OBB V_PC V_N V_B V_UV IDX2 MTRL MTRL MTRL";

const EXPECTED: &[Expected] = &[
    Expected {
        file: "hashireisen2d__Data_For_Tool_Model_PointObject.smf",
        vertices: 8,
        triangles: 12,
        materials: &[(0, 12, 0, 8)],
        mesh_chunks: UNTEXTURED,
        textures: &[],
        collision: None,
    },
    Expected {
        file: "hashireisen2d__Data_Model_block1.smf",
        vertices: 16,
        triangles: 10,
        materials: &[(0, 10, 0, 16)],
        mesh_chunks: "OBB V_PC V_N V_B V_UV IDX2 MTRL C_AT C_FC C_VX",
        textures: &["ground2.png"],
        collision: Some((1, 10, 16)),
    },
    Expected {
        file: "hashireisen2d__Data_Model_floor1.smf",
        vertices: 28,
        triangles: 22,
        materials: &[(0, 22, 0, 28)],
        mesh_chunks: TEXTURED,
        textures: &["ground2.png"],
        collision: None,
    },
    Expected {
        file: "hashireisen2d__Data_Model_floor1_another.smf",
        vertices: 12,
        triangles: 6,
        materials: &[(0, 2, 0, 4), (2, 2, 4, 4), (4, 2, 8, 4)],
        mesh_chunks: TEXTURED3,
        textures: &["ground3.bmp", "ground.bmp", "ground2.png"],
        collision: None,
    },
    Expected {
        file: "hashireisen2d__Data_Model_floor2.smf",
        vertices: 38,
        triangles: 32,
        materials: &[(0, 32, 0, 38)],
        mesh_chunks: TEXTURED,
        textures: &["ground2.png"],
        collision: None,
    },
    Expected {
        file: "hashireisen2d__Data_Model_floor2_another.smf",
        vertices: 16,
        triangles: 8,
        materials: &[(0, 2, 0, 4), (2, 2, 4, 4), (4, 4, 8, 8)],
        mesh_chunks: TEXTURED3,
        textures: &["ground2.png", "ground3.bmp", "ground.bmp"],
        collision: None,
    },
    Expected {
        file: "hashireisen2d__Data_Model_hahen.smf",
        vertices: 24,
        triangles: 12,
        materials: &[(0, 12, 0, 24)],
        mesh_chunks: TEXTURED,
        textures: &["block_normal.bmp"],
        collision: None,
    },
    Expected {
        file: "hashireisen2d__Data_Texture_hahenn_hahen.smf",
        vertices: 24,
        triangles: 12,
        materials: &[(0, 12, 0, 24)],
        mesh_chunks: TEXTURED,
        textures: &["block_normal.bmp"],
        collision: None,
    },
];

/// The MESH subchunk ids, in file order, read straight from the bytes.
fn mesh_subchunks(doc: &Smf) -> String {
    let ids = doc.chunk_ids();
    let mesh_kinds = [
        ChunkId::OBB,
        ChunkId::BONE,
        ChunkId::V_PC,
        ChunkId::V_N,
        ChunkId::V_B,
        ChunkId::V_A,
        ChunkId::V_UV,
        ChunkId::IDX2,
        ChunkId::IDX4,
        ChunkId::MTRL,
        ChunkId::C_AT,
        ChunkId::C_FC,
        ChunkId::C_VX,
    ];
    let start = ids
        .iter()
        .position(|&i| i == ChunkId::MESH)
        .expect("a MESH");
    ids[start + 1..]
        .iter()
        .filter(|i| mesh_kinds.contains(i))
        .map(|i| i.name())
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn every_sample_parses_cleanly_and_round_trips() {
    let Some(files) = samples("smf", "smf") else {
        return;
    };
    assert_eq!(files.len(), EXPECTED.len(), "sample folder content changed");
    for path in &files {
        let name = file_name(path);
        let bytes = read(path);
        assert!(selene_smf::sniff(&bytes), "{name}: sniff");
        let (doc, warnings) =
            Smf::from_bytes_with_warnings(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(warnings.is_empty(), "{name}: warnings {warnings:?}");
        let out = doc
            .to_bytes()
            .unwrap_or_else(|e| panic!("{name}: write: {e}"));
        assert!(out == bytes, "{name}: rewrite differs from the input");
    }
}

#[test]
fn samples_match_provenance() {
    let Some(files) = samples("smf", "smf") else {
        return;
    };
    for e in EXPECTED {
        let path = files
            .iter()
            .find(|p| file_name(p) == e.file)
            .unwrap_or_else(|| panic!("{} missing", e.file));
        let doc = Smf::from_bytes(&read(path)).unwrap();
        let f = e.file;
        // Common to all eight files.
        assert_eq!(doc.frames.len(), 1, "{f}");
        assert_eq!(doc.meshes.len(), 1, "{f}");
        assert_eq!(doc.animation_sets.len(), 0, "{f}");
        let frame = &doc.frames[0];
        assert_eq!(frame.name.text(), "FRAME_ROOT", "{f}");
        assert_eq!(frame.transform, selene_smf::IDENTITY, "{f}");
        assert_eq!((frame.mesh, frame.parent), (0, -1), "{f}");
        assert!(frame.obb.is_some(), "{f}");
        assert!(frame.name.raw[10..].iter().all(|&b| b == 0), "{f}");
        let mesh = &doc.meshes[0];
        assert_eq!(mesh.name.text(), "No Name", "{f}");
        assert_eq!(mesh.obb, frame.obb, "{f}: FRM and MESH OBB");
        assert!(mesh.bones.is_none() && mesh.blend.is_none(), "{f}");
        assert!(mesh.vertices.iter().all(|v| v.bgra == [0xFF; 4]), "{f}");
        // Per-file figures.
        assert_eq!(mesh.vertices.len(), e.vertices, "{f}");
        assert_eq!(mesh.triangle_count(), e.triangles, "{f}");
        assert!(matches!(mesh.indices, selene_smf::Indices::U16(_)), "{f}");
        assert_eq!(mesh_subchunks(&doc), e.mesh_chunks, "{f}");
        let ranges: Vec<_> = mesh
            .materials
            .iter()
            .map(|m| {
                (
                    m.polygon_start,
                    m.polygon_count,
                    m.vertex_start,
                    m.vertex_count,
                )
            })
            .collect();
        assert_eq!(ranges, e.materials, "{f}");
        for m in &mesh.materials {
            assert_eq!(m.name.text(), "Material", "{f}");
            assert_eq!(m.draw, Some(DrawMode::Normal), "{f}");
            let flags = (
                m.z_test,
                m.z_write,
                m.alpha_test,
                m.alpha_threshold,
                m.cull,
                m.lighting,
            );
            assert_eq!(
                flags,
                (Some(1), Some(1), Some(1), Some(0), Some(1), Some(1)),
                "{f}"
            );
        }
        let textures: Vec<String> = mesh
            .materials
            .iter()
            .filter_map(|m| m.texture.as_ref().map(|t| t.text().into_owned()))
            .collect();
        assert_eq!(textures, e.textures, "{f}");
        let collision = mesh.collision_runs.as_ref().map(|r| {
            (
                r.len(),
                mesh.collision_faces.as_ref().map_or(0, Vec::len),
                mesh.collision_vertices.as_ref().map_or(0, Vec::len),
            )
        });
        assert_eq!(collision, e.collision, "{f}");
        if let Some(runs) = &mesh.collision_runs {
            let r = runs[0];
            assert_eq!((r.start, r.count, r.attribute), (0, 10, 0), "{f}");
            // C_VX is a copy of V_PC + V_N in block1.
            let n = mesh.normals.as_ref().unwrap();
            for ((cv, v), n) in mesh
                .collision_vertices
                .as_ref()
                .unwrap()
                .iter()
                .zip(&mesh.vertices)
                .zip(n)
            {
                assert_eq!(cv.position, v.position, "{f}");
                assert_eq!(cv.normal, n.0, "{f}");
            }
        }
    }
}

#[test]
fn point_object_obb_is_the_unit_cube() {
    let Some(files) = samples("smf", "smf") else {
        return;
    };
    let path = files
        .iter()
        .find(|p| file_name(p).contains("PointObject"))
        .unwrap();
    let doc = Smf::from_bytes(&read(path)).unwrap();
    let obb = doc.meshes[0].obb.unwrap();
    assert_eq!(obb.center, [0.0; 3]);
    assert_eq!(obb.lengths, [1.0; 3]);
    assert_eq!(
        obb.axes,
        [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    );
    let xs: Vec<f32> = doc.meshes[0]
        .vertices
        .iter()
        .map(|v| v.position[0].abs())
        .collect();
    assert!(xs.iter().all(|&x| x == 0.5));
}
