//! A large model built through the public API, shared by the read and write benches.

use mdl_format::*;

/// A skinned grid of `side × side` vertices per divided mesh, `parts` divided meshes, with a
/// 64-bone chain, two materials and an animation source of 64 × 9 curves of 120 keys.
pub fn large_model(side: u32, parts: u32) -> Mdl {
    let bones: Vec<Bone> = (0..64)
        .map(|i| Bone {
            name: format!("骨{i:02}").as_str().into(),
            parent: i - 1,
            rotation_order: RotationOrder::XYZ,
            transform: BoneTransform::Trs {
                translation: [0.0, 1.0, 0.0].into(),
                rotation: [0.0, 0.0, 0.0, 0.0].into(),
                scaling: [1.0, 1.0, 1.0].into(),
            },
        })
        .collect();
    let divided = (0..parts)
        .map(|p| {
            let mut vertices = Vec::with_capacity((side * side) as usize);
            for y in 0..side {
                for x in 0..side {
                    let b = (y * 32 / side) as u8;
                    vertices.push(Vertex {
                        position: [x as f32, y as f32, p as f32],
                        normal: [0.0, 0.0, 1.0],
                        binormal: [0.0, 1.0, 0.0],
                        uv: [x as f32 / side as f32, y as f32 / side as f32],
                        sub_uv: [0.0, 0.0],
                        color: [255; 4],
                        weights: [128, 127, 0, 0],
                        bone_indices: [b, b.saturating_add(1).min(31), 0, 0],
                        original_bone_indices: [b, b, 0, 0],
                    });
                }
            }
            let mut faces = Vec::new();
            for y in 0..side - 1 {
                for x in 0..side - 1 {
                    let a = (y * side + x) as i32;
                    let s = side as i32;
                    faces.push(Face([a, a + s, a + 1]));
                    faces.push(Face([a + 1, a + s, a + s + 1]));
                }
            }
            let half = (faces.len() / 2) as i32;
            DividedMesh {
                material_runs: vec![
                    MaterialRun {
                        material_index: 1,
                        face_count: half,
                    },
                    MaterialRun {
                        material_index: 0,
                        face_count: faces.len() as i32 - half,
                    },
                ],
                vertices,
                faces,
                connectors: (0..32)
                    .map(|i| BoneConnector {
                        bone_index: i,
                        offset: Matrix44::translation(0.0, -(i as f32), 0.0),
                    })
                    .collect(),
            }
        })
        .collect();
    let curves = (0..64)
        .flat_map(|b| {
            ["pos", "rot", "scl"].into_iter().flat_map(move |ch| {
                ["x", "y", "z"].into_iter().map(move |ax| Curve {
                    target: format!("骨{b:02}.{ch}.{ax}").as_str().into(),
                    keys: (0..120)
                        .map(|t| Keyframe::new(t as f32, (t as f32).sin(), Interpolation::LINEAR))
                        .collect(),
                })
            })
        })
        .collect();
    Mdl {
        version: 2,
        bones,
        meshes: vec![Mesh {
            divided,
            materials: vec![Material::with_color("a.png"), Material::with_color("b.png")],
        }],
        animation_sources: vec![AnimationSource {
            name: "Take".into(),
            curves,
        }],
        clips: vec![AnimationClip {
            name: "Take".into(),
            source_index: 0,
        }],
    }
}
