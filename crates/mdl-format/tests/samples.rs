//! Every real sample: parses (or is rejected, for the legacy one), round-trips byte for byte,
//! and holds the figures listed in `shared/samples/mdl/PROVENANCE.md`.

use mdl_format::Model as _;
use mdl_format::{BoneTransform, Error, Interpolation, Material, Mdl, RotationOrder, Warning};
use test_support::{file_name, read, samples};

/// (file, version, bone names, vertices, faces, material runs, connector bones,
///  colour textures, sources (name, curves, keys), clips (name, source)).
struct Expected {
    file: &'static str,
    version: i32,
    bones: &'static [&'static str],
    vertices: usize,
    faces: usize,
    runs: &'static [(i32, i32)],
    connectors: &'static [i32],
    textures: &'static [&'static str],
    sources: &'static [(&'static str, usize, usize)],
    clips: &'static [(&'static str, i32)],
    not_bone_warnings: usize,
}

const EXPECTED: &[Expected] = &[
    Expected {
        file: "altseed_Plain1.mdl",
        version: 1,
        bones: &["RootNode", "Plane"],
        vertices: 4,
        faces: 2,
        runs: &[(0, 2)],
        connectors: &[1],
        textures: &[""],
        sources: &[],
        clips: &[],
        not_bone_warnings: 0,
    },
    Expected {
        file: "altseed_Sphere1.mdl",
        version: 1,
        bones: &["RootNode", "Sphere"],
        vertices: 482,
        faces: 960,
        runs: &[(0, 960)],
        connectors: &[1],
        textures: &[""],
        sources: &[],
        clips: &[],
        not_bone_warnings: 0,
    },
    Expected {
        file: "altseed_Test_Box.mdl",
        version: 1,
        bones: &["RootNode", "Cube", "Armature", "Bone"],
        vertices: 24,
        faces: 12,
        runs: &[(0, 12)],
        connectors: &[3],
        textures: &[""],
        sources: &[("Default Take", 36, 36)],
        clips: &[("Default Take", 0)],
        not_bone_warnings: 18,
    },
    Expected {
        file: "altseed_Test_Animation.mdl",
        version: 1,
        bones: &["RootNode", "Cube", "Armature", "Bone", "Bone_001"],
        vertices: 124,
        faces: 84,
        runs: &[(1, 2), (0, 82)],
        connectors: &[4, 3],
        textures: &["Texture/A.png", ""],
        sources: &[("Default Take", 45, 181), ("anime1", 45, 179)],
        clips: &[("Default Take", 0), ("anime1", 1)],
        not_bone_warnings: 36,
    },
    Expected {
        file: "cube_exp_Box_9e27932.mdl",
        version: 2,
        bones: &["RootNode", "Cube"],
        vertices: 24,
        faces: 12,
        runs: &[(0, 12)],
        connectors: &[1],
        textures: &[""],
        sources: &[],
        clips: &[],
        not_bone_warnings: 0,
    },
];

const LEGACY: &str = "altseed_legacy_Box_ec3d076a.mdl";

#[test]
fn samples_parse_round_trip_and_match_provenance() {
    let Some(files) = samples("mdl", "mdl") else {
        return;
    };
    let mut checked = 0;
    for path in &files {
        let name = file_name(path);
        let bytes = read(path);
        assert!(mdl_format::sniff(&bytes), "{name}: sniff");
        if name == LEGACY {
            continue;
        }
        let (doc, warnings) =
            Mdl::from_bytes_with_warnings(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(doc.to_bytes().unwrap(), bytes, "{name}: round trip");

        let exp = EXPECTED
            .iter()
            .find(|e| e.file == name)
            .unwrap_or_else(|| panic!("{name}: no expected figures"));
        assert_eq!(doc.version, exp.version, "{name}");
        let names: Vec<String> = doc.bones.iter().map(|b| b.name.to_string_lossy()).collect();
        assert_eq!(names, exp.bones, "{name}: bones");
        assert_eq!(doc.bones[0].parent, -1, "{name}");
        assert!(doc
            .bones
            .iter()
            .all(|b| b.rotation_order == RotationOrder::XYZ));
        for b in &doc.bones {
            match (&b.transform, doc.version) {
                (BoneTransform::Matrix(_), 1) | (BoneTransform::Trs { .. }, 2) => {}
                other => panic!("{name}: transform {other:?}"),
            }
        }
        assert_eq!(doc.meshes.len(), 1, "{name}: meshes");
        let mesh = &doc.meshes[0];
        assert_eq!(mesh.divided.len(), 1, "{name}: divided meshes");
        let d = &mesh.divided[0];
        assert_eq!(d.vertices.len(), exp.vertices, "{name}: vertices");
        assert_eq!(d.faces.len(), exp.faces, "{name}: faces");
        let runs: Vec<(i32, i32)> = d
            .material_runs
            .iter()
            .map(|r| (r.material_index, r.face_count))
            .collect();
        assert_eq!(runs, exp.runs, "{name}: runs");
        let conns: Vec<i32> = d.connectors.iter().map(|c| c.bone_index).collect();
        assert_eq!(conns, exp.connectors, "{name}: connectors");
        assert!(d
            .vertices
            .iter()
            .all(|v| v.weights.iter().map(|&w| u32::from(w)).sum::<u32>() == 255));
        let textures: Vec<String> = mesh
            .materials
            .iter()
            .map(|m| match m {
                Material::Internal {
                    raw_type: 0,
                    color,
                    normal,
                    metalness,
                } => {
                    assert!(normal.is_empty() && metalness.is_empty());
                    color.to_string_lossy()
                }
                other => panic!("{name}: material {other:?}"),
            })
            .collect();
        assert_eq!(textures, exp.textures, "{name}: materials");
        let sources: Vec<(String, usize, usize)> = doc
            .animation_sources
            .iter()
            .map(|s| {
                (
                    s.name.to_string_lossy(),
                    s.curves.len(),
                    s.curves.iter().map(|c| c.keys.len()).sum(),
                )
            })
            .collect();
        let want: Vec<(String, usize, usize)> = exp
            .sources
            .iter()
            .map(|&(n, c, k)| (n.to_owned(), c, k))
            .collect();
        assert_eq!(sources, want, "{name}: sources");
        for key in doc
            .animation_sources
            .iter()
            .flat_map(|s| &s.curves)
            .flat_map(|c| &c.keys)
        {
            assert_eq!(key.interpolation, Interpolation::LINEAR);
            assert_eq!(key.left_handle, [key.time, key.value]);
            assert_eq!(key.right_handle, [key.time, key.value]);
        }
        let clips: Vec<(String, i32)> = doc
            .clips
            .iter()
            .map(|c| (c.name.to_string_lossy(), c.source_index))
            .collect();
        let want: Vec<(String, i32)> = exp.clips.iter().map(|&(n, i)| (n.to_owned(), i)).collect();
        assert_eq!(clips, want, "{name}: clips");

        // The only warnings: curves aimed at "Camera" and "Lamp", which are not bones.
        assert_eq!(
            warnings.len(),
            exp.not_bone_warnings,
            "{name}: {warnings:?}"
        );
        for w in &warnings {
            match w {
                Warning::TargetNotABone { target, .. } => assert!(
                    target.starts_with("Camera.") || target.starts_with("Lamp."),
                    "{name}: {target}"
                ),
                other => panic!("{name}: unexpected warning {other}"),
            }
        }
        checked += 1;
    }
    assert_eq!(checked, EXPECTED.len(), "every stable sample was checked");
}

#[test]
fn cube_exp_bone_is_trs_in_degrees() {
    let Some(files) = samples("mdl", "mdl") else {
        return;
    };
    let Some(path) = files
        .iter()
        .find(|p| file_name(p) == "cube_exp_Box_9e27932.mdl")
    else {
        return;
    };
    let doc = Mdl::from_bytes(&read(path)).unwrap();
    match doc.bones[1].transform {
        BoneTransform::Trs {
            translation,
            rotation,
            scaling,
        } => {
            assert_eq!(<[f32; 3]>::from(translation), [0.0, 0.0, 0.0]);
            let r = <[f32; 4]>::from(rotation);
            assert!((r[0] + 90.0).abs() < 1e-3, "{r:?}");
            assert_eq!(&r[1..], [0.0, 0.0, 0.0]);
            assert_eq!(<[f32; 3]>::from(scaling), [1.0, 1.0, 1.0]);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn test_animation_bone_translation_is_at_3_7_11() {
    let Some(files) = samples("mdl", "mdl") else {
        return;
    };
    let Some(path) = files
        .iter()
        .find(|p| file_name(p) == "altseed_Test_Animation.mdl")
    else {
        return;
    };
    let doc = Mdl::from_bytes(&read(path)).unwrap();
    let BoneTransform::Matrix(m) = doc.bones[3].transform else {
        panic!("matrix expected");
    };
    assert_eq!(doc.bones[3].name, "Bone");
    assert_eq!(m.0[3], 0.0);
    assert_eq!(m.0[7], 0.0);
    assert!((m.0[11] - -2.73661).abs() < 1e-4, "{}", m.0[11]);
}

#[test]
fn legacy_sample_is_rejected_as_unsupported_layout() {
    let Some(files) = samples("mdl", "mdl") else {
        return;
    };
    let Some(path) = files.iter().find(|p| file_name(p) == LEGACY) else {
        return;
    };
    let err = Mdl::from_bytes(&read(path)).unwrap_err();
    match &err {
        Error::UnsupportedLayout { offset: 8, layout } => {
            assert!(layout.contains("2014 development layout"))
        }
        other => panic!("expected UnsupportedLayout, got {other:?}"),
    }
    assert!(err.to_string().contains("2014 development layout"), "{err}");
}

#[test]
fn legacy_sample_reads_as_legacy_and_round_trips() {
    let Some(files) = samples("mdl", "mdl") else {
        return;
    };
    for path in &files {
        let name = file_name(path);
        let bytes = read(path);
        if name != LEGACY {
            assert!(
                mdl_format::LegacyMdl::from_bytes(&bytes).is_err(),
                "{name} is not legacy"
            );
            continue;
        }
        let (doc, warnings) = mdl_format::LegacyMdl::from_bytes_with_warnings(&bytes).unwrap();
        assert_eq!(doc.to_bytes().unwrap(), bytes, "legacy round trip");
        assert_eq!(doc.version, 1);
        assert_eq!(doc.mesh_groups.len(), 1);
        let g = &doc.mesh_groups[0];
        assert_eq!(g.meshes.len(), 1);
        assert_eq!(g.meshes[0].vertices.len(), 24);
        assert_eq!(g.meshes[0].faces.len(), 12);
        assert_eq!(g.meshes[0].bone_offsets.len(), 1);
        let bones: Vec<String> = g.bones.iter().map(|b| b.name.to_string()).collect();
        assert_eq!(bones, ["Armature", "Bone"]);
        assert_eq!(g.materials.len(), 1);
        assert_eq!(doc.animation_sources.len(), 1);
        let s = &doc.animation_sources[0];
        assert_eq!(s.name, "Default Take");
        assert_eq!(s.curves.len(), 18);
        assert!(s.curves.iter().all(|c| c.keys.len() == 1));
        assert_eq!(doc.clips.len(), 1);
        assert_eq!(doc.clips[0].source_index, 0);
        assert!(warnings.is_empty(), "{warnings:?}");
    }
}
