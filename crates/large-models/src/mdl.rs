//! Altseed `.mdl` (version 2): 32-bit face indices; skinned parts are divided meshes of at most
//! 32 bone connectors.

use crate::geometry::{self as geo, f32s, Geometry};
use crate::Error;
use mdl_format::Model as _;
use mdl_format::{
    AnimationClip, AnimationSource, Bone, BoneConnector, BoneTransform, Curve, DividedMesh, Face,
    Interpolation, Keyframe, Material, MaterialRun, Matrix44, Mdl, Mesh, RotationOrder, Vertex,
};

fn vertex(g: &Geometry, v: usize) -> Vertex {
    let n = g.normals[v];
    Vertex {
        position: f32s(g.positions[v]),
        normal: f32s(n),
        // Any unit vector perpendicular to the normal.
        binormal: f32s(if n[1].abs() < 0.9 {
            [0.0, 1.0, 0.0]
        } else {
            [1.0, 0.0, 0.0]
        }),
        uv: f32s(g.uvs[v]),
        sub_uv: [0.0, 0.0],
        color: [255; 4],
        weights: [255, 0, 0, 0],
        bone_indices: [0; 4],
        original_bone_indices: [0; 4],
    }
}

fn faces(g: &Geometry, part: &geo::Part) -> Result<Vec<Face>, Error> {
    let base = part.vertices.start as u32;
    g.triangles[part.triangles.clone()]
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| i32::try_from(i - base));
            Ok(Face([a?, b?, c?]))
        })
        .collect()
}

fn bone(name: &str, parent: i32, t: [f64; 3]) -> Bone {
    Bone {
        name: name.into(),
        parent,
        rotation_order: RotationOrder::XYZ,
        transform: BoneTransform::Trs {
            translation: f32s(t).into(),
            rotation: [0.0; 4].into(),
            scaling: [1.0; 3].into(),
        },
    }
}

/// A static model: one bone, one mesh of one divided mesh holding every vertex.
pub fn static_from(g: &Geometry) -> Result<Vec<u8>, Error> {
    let all = geo::Part {
        vertices: 0..g.positions.len(),
        triangles: 0..g.triangles.len(),
    };
    let faces = faces(g, &all)?;
    let divided = DividedMesh {
        material_runs: vec![MaterialRun {
            material_index: 0,
            face_count: i32::try_from(faces.len())?,
        }],
        vertices: (0..g.positions.len()).map(|v| vertex(g, v)).collect(),
        faces,
        connectors: vec![BoneConnector {
            bone_index: 0,
            offset: Matrix44::translation(0.0, 0.0, 0.0),
        }],
    };
    Ok(Mdl {
        version: 2,
        bones: vec![bone("root", -1, [0.0; 3])],
        meshes: vec![Mesh {
            divided: vec![divided],
            materials: vec![Material::with_color("torus.png")],
        }],
        animation_sources: Vec::new(),
        clips: Vec::new(),
    }
    .to_bytes()?)
}

/// The large static model: 1 000 000 vertices, 2 000 000 triangles.
pub fn large_static() -> Result<Vec<u8>, Error> {
    static_from(&geo::large_static())
}

/// The skinned model: 72 bones, 4 divided meshes of 25 000 vertices (about 19 connectors
/// each), one animation source of 72 × 9 curves of 100 keys.
pub fn skinned() -> Result<Vec<u8>, Error> {
    let g = geo::skinned();
    let bones = (0..geo::BONES)
        .map(|b| {
            let parent = geo::parent(b).map_or(Ok(-1), i32::try_from)?;
            Ok(bone(&format!("bone{b:02}"), parent, geo::bone_local(b)))
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let divided = g
        .parts
        .iter()
        .map(|part| {
            let used = part.bones(&g);
            let slot = |b: u8| used.iter().position(|&u| u == b).unwrap_or(0) as u8;
            let vertices = part
                .vertices
                .clone()
                .map(|v| {
                    let [(b0, w0), (b1, _)] = g.influences[v];
                    let w0 = (w0 * 255.0).round() as u8;
                    Vertex {
                        weights: [w0, 255 - w0, 0, 0],
                        bone_indices: [slot(b0), slot(b1), 0, 0],
                        original_bone_indices: [b0, b1, 0, 0],
                        ..vertex(&g, v)
                    }
                })
                .collect();
            let faces = faces(&g, part)?;
            Ok(DividedMesh {
                material_runs: vec![MaterialRun {
                    material_index: 0,
                    face_count: i32::try_from(faces.len())?,
                }],
                vertices,
                faces,
                connectors: used
                    .iter()
                    .map(|&b| {
                        let p = f32s(geo::bone_position(usize::from(b)));
                        BoneConnector {
                            bone_index: i32::from(b),
                            offset: Matrix44::translation(-p[0], -p[1], -p[2]),
                        }
                    })
                    .collect(),
            })
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let curves = (0..geo::BONES)
        .flat_map(|b| {
            ["pos", "rot", "scl"].into_iter().flat_map(move |ch| {
                [0, 1, 2].into_iter().map(move |axis| {
                    let keys = (0..geo::SAMPLES)
                        .map(|s| {
                            let value = match ch {
                                "pos" => geo::bone_local(b)[axis],
                                // Euler degrees: only x turns.
                                "rot" if axis == 0 => geo::angle(b, s).to_degrees(),
                                "rot" => 0.0,
                                _ => 1.0,
                            };
                            Keyframe::new(s as f32, value as f32, Interpolation::LINEAR)
                        })
                        .collect();
                    Curve {
                        target: format!("bone{b:02}.{ch}.{}", ["x", "y", "z"][axis])
                            .as_str()
                            .into(),
                        keys,
                    }
                })
            })
        })
        .collect();
    Ok(Mdl {
        version: 2,
        bones,
        meshes: vec![Mesh {
            divided,
            materials: vec![Material::with_color("tube.png")],
        }],
        animation_sources: vec![AnimationSource {
            name: "wave".into(),
            curves,
        }],
        clips: vec![AnimationClip {
            name: "wave".into(),
            source_index: 0,
        }],
    }
    .to_bytes()?)
}
