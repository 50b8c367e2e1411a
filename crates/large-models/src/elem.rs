//! Elfreina `.elem`: text, one mesh container, written in Elfreina's own six-decimal style.

use crate::geometry::{self as geo, Geometry};
use crate::Error;
use elfreina_elem::{
    AnimationData, AnimationList, BlendList, BlendPart, BoneAnimation, BoneAnimationPart, Elem,
    HierarchyList, Material, Materials, Mesh, MeshContainer, MeshDataList, Node, RenderingMesh,
    RenderingMeshList, Setting, VertexBlend, WriteOptions,
};

fn mesh(g: &Geometry) -> Mesh {
    let mut mesh = Mesh {
        name: Some("Torus".into()),
        positions: g.positions.clone(),
        normals: g.normals.clone(),
        ..Mesh::default()
    };
    mesh.uv_sets[0] = g.uvs.clone();
    for t in &g.triangles {
        mesh.push_face(t);
    }
    mesh.attributes = std::iter::repeat_n(0, mesh.face_count()).collect();
    mesh
}

fn container(mesh: Mesh, vertex_format: &[&str]) -> MeshContainer {
    MeshContainer {
        name: Some("Torus".into()),
        vertex_format: vertex_format.iter().map(|s| (*s).into()).collect(),
        materials: Some(Materials {
            materials: vec![Material {
                name: Some("surface".into()),
                diffuse: Some([1.0, 0.8, 0.8, 0.8]),
                texture_filename: Some("torus.png".into()),
                ..Material::default()
            }],
            extra: Vec::new(),
        }),
        meshes: vec![mesh],
        ..MeshContainer::default()
    }
}

fn setting() -> Setting {
    Setting {
        soft_version: Some(1.1),
        load_type: Some("View".into()),
        ..Setting::default()
    }
}

fn write(doc: &Elem) -> Result<Vec<u8>, Error> {
    Ok(doc.to_bytes_with(&WriteOptions::six_decimals())?)
}

/// A static model: one container, one mesh.
pub fn static_from(g: &Geometry) -> Result<Vec<u8>, Error> {
    write(&Elem {
        setting: setting(),
        mesh_data: Some(MeshDataList {
            containers: vec![container(mesh(g), &["Position", "Normal", "Texture"])],
            extra: Vec::new(),
        }),
        ..Elem::default()
    })
}

/// The large static model: 1 000 000 vertices, 2 000 000 triangles.
pub fn large_static() -> Result<Vec<u8>, Error> {
    static_from(&geo::large_static())
}

fn bone_name(b: usize) -> String {
    format!("bone{b:02}")
}

fn node(b: usize) -> Node {
    Node {
        name: Some(bone_name(b)),
        init_posture: Some(geo::translation_rows(geo::bone_local(b))),
        children: (2 * b + 1..=2 * b + 2)
            .filter(|&c| c < geo::BONES)
            .map(node)
            .collect(),
        ..Node::default()
    }
}

/// The skinned model: 100 000 vertices blended over 72 bones (a binary-tree hierarchy), one
/// animation of 100 keys per bone.
pub fn skinned() -> Result<Vec<u8>, Error> {
    let g = geo::skinned();
    let mut m = mesh(&g);
    let mut parts: Vec<BlendPart> = (0..geo::BONES)
        .map(|b| BlendPart {
            bone_name: Some(bone_name(b)),
            transform_index: Some(b as u32),
            ..BlendPart::default()
        })
        .collect();
    for (v, inf) in g.influences.iter().enumerate() {
        for &(b, w) in inf {
            if w > 0.0 {
                parts[usize::from(b)].vertex_blends.push(VertexBlend {
                    vertex: v as u32,
                    weight: w,
                });
            }
        }
    }
    m.blend_list = BlendList {
        parts,
        extra: Vec::new(),
    };
    let mut c = container(m, &["Position", "Normal", "Texture", "Blend"]);
    c.bone_names = (0..geo::BONES).map(bone_name).collect();
    c.offset_matrices = (0..geo::BONES)
        .map(|b| {
            let p = geo::bone_position(b);
            geo::translation_rows([-p[0], -p[1], -p[2]])
        })
        .collect();
    let times: Vec<f64> = (0..geo::SAMPLES).map(geo::sample_time).collect();
    let anim_parts = (0..geo::BONES)
        .map(|b| BoneAnimationPart {
            node_name: Some(bone_name(b)),
            time_keys: times.clone(),
            trans_keys: vec![geo::bone_local(b); geo::SAMPLES],
            rotate_keys: (0..geo::SAMPLES).map(|s| geo::rotation(b, s)).collect(),
            scale_keys: vec![[1.0; 3]; geo::SAMPLES],
            ..BoneAnimationPart::default()
        })
        .collect();
    write(&Elem {
        setting: Setting {
            is_right_hand: Some(false),
            ..setting()
        },
        mesh_data: Some(MeshDataList {
            containers: vec![c],
            extra: Vec::new(),
        }),
        hierarchy: HierarchyList {
            nodes: vec![node(0)],
            extra: Vec::new(),
        },
        rendering: Some(RenderingMeshList {
            meshes: vec![RenderingMesh {
                name: Some("Torus".into()),
                hierarchy_names: (0..geo::BONES).map(bone_name).collect(),
                extra: Vec::new(),
            }],
            extra: Vec::new(),
        }),
        animation: Some(AnimationList {
            animations: vec![AnimationData {
                name: Some("Wave".into()),
                time_ms: Some((geo::sample_time(geo::SAMPLES - 1) * 1000.0).round() as i64),
                frames_per_second: Some(30),
                transition_time: Some(0),
                priority: Some(1),
                looped: Some(true),
                bone_animation: BoneAnimation {
                    time_keys: times,
                    parts: anim_parts,
                    extra: Vec::new(),
                },
                uv_animation: Default::default(),
                extra: Vec::new(),
            }],
            extra: Vec::new(),
        }),
        ..Elem::default()
    })
}
