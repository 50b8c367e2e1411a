//! Hostile inputs for the conversion (issue 12), generated deterministically: files that are
//! small or ordinary for a reader but once made the scene conversion or the glTF writer
//! allocate, write or loop far beyond their size. Shared by `conversion_bounds.rs` (bigger
//! instances, with figures) and `regressions.rs` (whose `amplifying-*` corpus files are the
//! small instances below, checked to be byte-identical to what these functions make).

#![allow(dead_code)]

use bmf_block as bmf;
use mdl_format as mdl;
use selene_smf as smf;
use skm_text as skm;
use skm_text::Model as _;

/// A BMF of one skinned triangle whose BoneCount is `bones` and whose AnimeMatrix is empty.
pub fn bmf_many_bones(bones: u32) -> Vec<u8> {
    let vertex = |x: f32| bmf::SkinnedVertex {
        position: [x, 0.0, 0.0],
        normal: [0.0, 1.0, 0.0],
        uv: [0.0, 0.0],
        bone_indices: [0; 4],
        weights: [1.0, 0.0, 0.0, 0.0],
    };
    let mesh = bmf::Mesh::new(
        bmf::Vertices::Skinned(vec![vertex(0.0), vertex(1.0), vertex(2.0)]),
        vec![0, 1, 2],
        vec![material(0, 3)],
        Some(bmf::Skin {
            bone_count: bones,
            matrices: Vec::new(),
        }),
    );
    bmf::Bmf::new(vec![mesh]).to_bytes().unwrap()
}

fn material(start: u32, count: u32) -> bmf::Material {
    let c = |v: f32| [v, v, v, 1.0].into();
    bmf::Material {
        start_index: start,
        index_count: count,
        diffuse: c(0.8),
        specular: c(0.0),
        ambient: c(0.2),
        emissive: c(0.0),
        texture: bmf::TextureName::new(""),
    }
}

/// A strip of `triangles` triangles (`triangles + 2` vertices), as index triples.
fn strip(triangles: usize) -> Vec<[u32; 3]> {
    (0..triangles as u32).map(|t| [t, t + 1, t + 2]).collect()
}

/// A static BMF of `triangles` triangles and `materials` materials that all cover every index.
pub fn bmf_overlapping(triangles: usize, materials: usize) -> Vec<u8> {
    let vertices = (0..triangles + 2)
        .map(|v| bmf::Vertex {
            position: [v as f32, (v % 2) as f32, 0.0],
            normal: [0.0, 0.0, -1.0],
            uv: [0.0, 0.0],
        })
        .collect();
    let indices: Vec<u16> = strip(triangles)
        .into_iter()
        .flatten()
        .map(|i| i as u16)
        .collect();
    let count = indices.len() as u32;
    let mesh = bmf::Mesh::new(
        bmf::Vertices::Plain(vertices),
        indices,
        (0..materials).map(|_| material(0, count)).collect(),
        None,
    );
    bmf::Bmf::new(vec![mesh]).to_bytes().unwrap()
}

/// An SMF of `triangles` triangles and `materials` materials that all cover every triangle.
pub fn smf_overlapping(triangles: usize, materials: usize) -> Vec<u8> {
    let vertices = (0..triangles + 2)
        .map(|v| smf::VertexPc {
            position: [v as f32, (v % 2) as f32, 0.0],
            bgra: [0xFF; 4],
        })
        .collect();
    let indices = strip(triangles).into_iter().flatten().collect();
    let mut mesh = smf::Mesh::new("strip", vertices, smf::Indices::U32(indices)).unwrap();
    for k in 0..materials {
        let m = smf::Material::new(
            &format!("m{k}"),
            (0, triangles as i32),
            (0, triangles as i32 + 2),
        )
        .unwrap();
        mesh.materials.push(m);
    }
    smf::Smf {
        frames: vec![smf::Frame::new("FRAME_ROOT", 0, -1).unwrap()],
        meshes: vec![mesh],
        ..smf::Smf::default()
    }
    .to_bytes()
    .unwrap()
}

/// An SMF whose `frames` frames form one parent chain, the last carrying a one-triangle mesh.
pub fn smf_frame_chain(frames: usize) -> Vec<u8> {
    let vertices = (0..3)
        .map(|v| smf::VertexPc {
            position: [v as f32, (v % 2) as f32, 0.0],
            bgra: [0xFF; 4],
        })
        .collect();
    let mesh = smf::Mesh::new("tri", vertices, smf::Indices::U32(vec![0, 1, 2])).unwrap();
    let frames = (0..frames)
        .map(|f| {
            let mesh = if f + 1 == frames { 0 } else { -1 };
            smf::Frame::new(&format!("f{f}"), mesh, f as i32 - 1).unwrap()
        })
        .collect();
    smf::Smf {
        frames,
        meshes: vec![mesh],
        ..smf::Smf::default()
    }
    .to_bytes()
    .unwrap()
}

fn skm_doc(triangles: usize) -> skm::Skm {
    skm::Skm {
        encoding: skm::Encoding::ShiftJis,
        vertices: (0..triangles + 2)
            .map(|v| skm::Vertex {
                position: [v as f32, (v % 2) as f32, 0.0],
                weights: [1.0, 0.0, 0.0],
                blend_indices: 0,
                normal: [0.0, 0.0, -1.0],
                uv: [0.0, 0.0],
            })
            .collect(),
        triangles: strip(triangles),
        adjacency: vec![[u32::MAX; 3]; triangles],
        materials: vec![skm::Material {
            diffuse: [0.8, 0.8, 0.8, 1.0],
            ambient: [0.2, 0.2, 0.2, 1.0],
            specular: [0.0, 0.0, 0.0, 1.0],
            emissive: [0.0, 0.0, 0.0, 1.0],
            power: 0.0,
            texture: None,
        }],
        attributes: Vec::new(),
        bones: Vec::new(),
    }
}

/// An SKM of `triangles` triangles with `ranges` attribute ranges that all cover every face.
pub fn skm_overlapping(triangles: usize, ranges: usize) -> Vec<u8> {
    let mut doc = skm_doc(triangles);
    doc.attributes = (0..ranges)
        .map(|_| skm::AttributeRange {
            material: 0,
            face_start: 0,
            face_count: triangles as u32,
            vertex_start: 0,
            vertex_count: triangles as u32 + 2,
        })
        .collect();
    doc.to_bytes().unwrap()
}

/// An SKM with one triangle and `bones` bones in one parent chain.
pub fn skm_bone_chain(bones: usize) -> Vec<u8> {
    let mut doc = skm_doc(1);
    doc.bones = (0..bones)
        .map(|b| skm::Bone {
            name: skm::Name::from_raw(format!("b{b}").into_bytes()),
            parent: b as i32 - 1,
            symmetric: -1,
            begin: [0.0, b as f32 * 0.01, 0.0],
            end: [0.0, b as f32 * 0.01 + 0.01, 0.0],
            rotation: [0.0, 0.0, 0.0, 1.0],
        })
        .collect();
    doc.to_bytes().unwrap()
}

fn mdl_bone(name: &str, parent: i32) -> mdl::Bone {
    mdl::Bone {
        name: name.into(),
        parent,
        rotation_order: mdl::RotationOrder::XYZ,
        transform: mdl::BoneTransform::Trs {
            translation: [0.0, 0.1, 0.0].into(),
            rotation: [0.0; 4].into(),
            scaling: [1.0; 3].into(),
        },
    }
}

/// A cubic curve of `keys` keys, `span` frames apart.
fn cubic_curve(target: &str, keys: usize, span: f32) -> mdl::Curve {
    mdl::Curve {
        target: target.into(),
        keys: (0..keys)
            .map(|k| {
                let value = if k % 2 == 0 { 0.0 } else { 1.0 };
                mdl::Keyframe::new(k as f32 * span, value, mdl::Interpolation::CUBIC)
            })
            .collect(),
    }
}

/// An MDL with one bone and one source of one `keys`-key cubic curve (segments `span` frames
/// long), played by `clips` clips.
pub fn mdl_shared_clips(clips: usize, keys: usize, span: f32) -> Vec<u8> {
    mdl::Mdl {
        version: 2,
        bones: vec![mdl_bone("b", -1)],
        meshes: Vec::new(),
        animation_sources: vec![mdl::AnimationSource {
            name: "take".into(),
            curves: vec![cubic_curve("b.pos.x", keys, span)],
        }],
        clips: (0..clips)
            .map(|c| mdl::AnimationClip {
                name: format!("clip{c}").as_str().into(),
                source_index: 0,
            })
            .collect(),
    }
    .to_bytes()
    .unwrap()
}

/// An MDL of `curves` bones, one source with a 2-key linear `pos.x` curve per bone, played by
/// `clips` clips.
pub fn mdl_many_clips(clips: usize, curves: usize) -> Vec<u8> {
    mdl::Mdl {
        version: 2,
        bones: (0..curves)
            .map(|b| mdl_bone(&format!("b{b}"), -1))
            .collect(),
        meshes: Vec::new(),
        animation_sources: vec![mdl::AnimationSource {
            name: "take".into(),
            curves: (0..curves)
                .map(|b| mdl::Curve {
                    target: format!("b{b}.pos.x").as_str().into(),
                    keys: vec![
                        mdl::Keyframe::new(0.0, 0.0, mdl::Interpolation::LINEAR),
                        mdl::Keyframe::new(1.0, 1.0, mdl::Interpolation::LINEAR),
                    ],
                })
                .collect(),
        }],
        clips: (0..clips)
            .map(|c| mdl::AnimationClip {
                name: format!("c{c}").as_str().into(),
                source_index: 0,
            })
            .collect(),
    }
    .to_bytes()
    .unwrap()
}

/// An MDL of `bones` bones in one chain and one clip with a linear `pos.y` curve per bone.
pub fn mdl_bone_chain(bones: usize) -> Vec<u8> {
    let curves = (0..bones)
        .map(|b| mdl::Curve {
            target: format!("b{b}.pos.y").as_str().into(),
            keys: vec![
                mdl::Keyframe::new(0.0, 0.1, mdl::Interpolation::LINEAR),
                mdl::Keyframe::new(10.0, 0.2, mdl::Interpolation::LINEAR),
            ],
        })
        .collect();
    mdl::Mdl {
        version: 2,
        bones: (0..bones)
            .map(|b| mdl_bone(&format!("b{b}"), b as i32 - 1))
            .collect(),
        meshes: Vec::new(),
        animation_sources: vec![mdl::AnimationSource {
            name: "take".into(),
            curves,
        }],
        clips: vec![mdl::AnimationClip {
            name: "clip".into(),
            source_index: 0,
        }],
    }
    .to_bytes()
    .unwrap()
}

/// The small amplifying inputs of the regression corpus: (format folder, file name, bytes).
pub fn corpus() -> Vec<(&'static str, &'static str, Vec<u8>)> {
    vec![
        (
            "bmf",
            "amplifying-bones-2e31.bmf",
            bmf_many_bones(i32::MAX as u32),
        ),
        ("bmf", "amplifying-overlap.bmf", bmf_overlapping(600, 200)),
        ("smf", "amplifying-overlap.smf", smf_overlapping(600, 200)),
        ("smf", "amplifying-frame-chain.smf", smf_frame_chain(300)),
        ("skm", "amplifying-overlap.skm", skm_overlapping(300, 200)),
        ("skm", "amplifying-bone-chain.skm", skm_bone_chain(300)),
        (
            "mdl",
            "amplifying-shared-clips.mdl",
            mdl_shared_clips(500, 10, 10_000.0),
        ),
        ("mdl", "amplifying-bone-chain.mdl", mdl_bone_chain(300)),
        (
            "mdl",
            "amplifying-many-clips.mdl",
            mdl_many_clips(2_000, 30),
        ),
    ]
}
