//! y_kim EditAnimation `.skm` → [`Scene`], following `skm.md` §4 ("Semantics for
//! a glTF converter").
//!
//! * **Handedness.** D3DX data: left-handed (assumed), Y up, clockwise front faces. Positions,
//!   normals and bone points are mirrored across the XY plane (`z → −z`), quaternions become
//!   [`mirror_z_quat`]`(q)`, and every triangle's winding is reversed. UVs are unchanged (both
//!   top-left origin).
//! * **Mesh.** One mesh, one primitive per attribute range (`id faceStart faceCount …`), in file
//!   order, with material `id`. Faces no range covers get a primitive without material (warning).
//!   The raw attribute table goes to the mesh's `extras.attribute_ranges`. Adjacency is
//!   derived data: kept (`extras.skm_adjacency`) only when it is not what the triangles give
//!   (`to_skm::adjacency`, D3DX's rule); a warning either way.
//! * **For the way back** (`to_skm.rs`), what the scene cannot hold exactly goes to `skm_*`
//!   extras, base64 of the raw little-endian words (`scene/raw64.rs`): the mesh's
//!   `skm_blend` (every vertex's `b0 b1 b2` bits and palette word, when any is non-zero: the
//!   scene's influences are merged, sorted and renormalised), `skm_normals` (when some normal
//!   is not exactly its renormalised self), the scene's `skm_encoding`, and on bones and
//!   materials `skm_name` / `skm_texture` (raw bytes, when the text does not give them back),
//!   `skm_symmetric` (a partner index out of range), `skm_colours` (the material's 17 floats,
//!   when glTF cannot hold them: diffuse or emissive outside 0..1, which validation clamps,
//!   or a non-finite specular, ambient or power, set to 0 here).
//! * **Materials** (D3DMATERIAL8, `R G B A`): diffuse → base colour (alpha < 1 → blend mode),
//!   emissive RGB → emissive, specular + power → [`Material::specular`], ambient →
//!   `extras.ambient`; a texture name (`(NULL)` = none) → the colour texture, backslashes turned
//!   into slashes.
//! * **Skinning** (only when the file has bones): `JOINTS_0` = the four bytes of `blendIndices`
//!   (low byte first), `WEIGHTS_0` = `(b0, b1, b2, 1 − b0 − b1 − b2)`; a slightly negative
//!   implied weight is clamped to 0; repeated joints are merged and zero-weight slots set to
//!   joint 0 ([`normalize_weights`]).
//! * **Bind pose — a choice.** The file stores, per bone, a parent, a begin point (the rotation
//!   centre), an end point and an "initial posture" quaternion that the seed says is needed
//!   only for mirroring poses. Following skm.md §4, the rest pose is **translation only**: a
//!   bone node's translation is `begin − parent.begin` (a root's is `begin`), its rotation is
//!   the identity, and its inverse bind matrix is `translation(−begin)` (all mirrored). The
//!   quaternion is *not* applied; it is kept in the node's `extras.initial_rotation` (converted
//!   to glTF axes), and a warning says so whenever a bone has a non-identity quaternion. The end
//!   point (converted) and the symmetric-partner index also go to `extras`.
//! * **Animation:** none (it lives in the unspecified `.bnf` companion).

use super::shared::SharedTriangles;
use super::{
    mirror_z, mirror_z_quat, normalize_weights, translation_matrix, AlphaMode, Conversion,
    Material, Mesh, Node, Primitive, Scene, SceneOptions, SceneWarning, Skin, SlotOrder, Transform,
    Vertices,
};
use crate::scene::Array;
use serde_json::{json, Value};
use skm_text::{Encoding, Name, Skm};

struct Ctx {
    warnings: Vec<SceneWarning>,
}

impl Ctx {
    /// The one place this module makes a warning: `{place}: {message}` (the place is empty
    /// for the file's one mesh, the only one SKM has).
    fn warn(&mut self, place: &str, message: impl Into<String>) {
        self.warnings.push(SceneWarning::other(place, message));
    }
}

/// Replaces non-finite components by `fallback`; true when anything changed.
fn finite<const N: usize>(v: [f32; N], fallback: f32) -> ([f32; N], bool) {
    let bad = v.iter().any(|x| !x.is_finite());
    (v.map(|x| if x.is_finite() { x } else { fallback }), bad)
}

pub(crate) fn convert(doc: &Skm, options: &SceneOptions) -> Conversion {
    let _ = options;
    let mut cx = Ctx {
        warnings: Vec::new(),
    };
    let mut scene = Scene::default();
    scene
        .extras
        .insert("source_format".into(), Value::from("skm"));
    scene.extras.insert(
        "skm_encoding".into(),
        Value::from(match doc.encoding {
            Encoding::ShiftJis => "shift_jis",
            Encoding::Utf8 => "utf-8",
        }),
    );

    materials(doc, &mut scene, &mut cx);
    let skin = bones(doc, &mut scene, &mut cx);
    let mut mesh = Mesh {
        name: "skm".into(),
        ..Mesh::default()
    };
    mesh.vertices = vertices(doc, skin.is_some(), &mut cx);
    mesh.primitives = primitives(doc, &mut cx);
    mesh.extras.insert(
        "attribute_ranges".into(),
        json!(doc
            .attributes
            .iter()
            .map(|a| [
                a.material,
                a.face_start,
                a.face_count,
                a.vertex_start,
                a.vertex_count
            ])
            .collect::<Vec<_>>()),
    );
    keep_raw(doc, &mut scene.blobs, &mut mesh.extras);
    if !doc.adjacency.is_empty() {
        cx.warn(
            "",
            format!(
            "Adjacency ({} faces) has no glTF meaning: kept in the mesh's extras only where it \
             differs from the one the triangles give",
            doc.adjacency.len()
        ),
        );
    }
    if mesh.primitives.is_empty() {
        if !doc.vertices.is_empty() {
            cx.warn(
                "",
                format!(
                    "no triangles; the {} vertices are not converted",
                    doc.vertices.len()
                ),
            );
        }
    } else {
        let m = scene.meshes.len();
        scene.meshes.push(mesh);
        let n = scene.nodes.len();
        scene.nodes.push(Node {
            name: "skm".into(),
            mesh: Some(m),
            skin,
            ..Node::default()
        });
        scene.roots.push(n);
    }
    Conversion {
        scene,
        warnings: cx.warnings,
    }
}

fn materials(doc: &Skm, scene: &mut Scene, cx: &mut Ctx) {
    for (i, m) in doc.materials.iter().enumerate() {
        let mut out = Material {
            name: format!("material_{i}"),
            ..Material::default()
        };
        // Diffuse and emissive go to the scene as written: `scene::validate` clamps them (its
        // one repair of them, with its warning). Specular, ambient and power are not its to
        // repair, and extras cannot say a non-finite number: those become 0 here.
        let (specular, b1) = finite(m.specular, 0.0);
        let (ambient, b2) = finite(m.ambient, 0.0);
        let (power, b3) = finite([m.power], 0.0);
        let non_finite = b1 || b2 || b3;
        if non_finite {
            cx.warn(
                &format!("material {i}"),
                "non-finite specular, ambient or power values set to 0 (the file's values \
                 are in extras.skm_colours)",
            );
        }
        out.base_color = m.diffuse;
        if m.diffuse[3] < 1.0 {
            out.alpha_mode = AlphaMode::Blend;
        }
        out.emissive = [m.emissive[0], m.emissive[1], m.emissive[2]];
        out.specular = Some((specular, power[0]));
        out.extras.insert("ambient".into(), json!(ambient));
        if m.emissive[3] != 1.0 {
            out.extras
                .insert("emissive_alpha".into(), json!(m.emissive[3]));
        }
        let outside = |v: &[f32]| v.iter().any(|x| !(0.0..=1.0).contains(x));
        if non_finite || outside(&m.diffuse) || outside(&m.emissive[..3]) {
            // The file's values, which glTF cannot give back (validation clamps diffuse and
            // emissive), for the way back while the scene still has what they gave.
            let raw: Vec<f32> = [m.diffuse, m.ambient, m.specular, m.emissive]
                .iter()
                .flatten()
                .copied()
                .chain([m.power])
                .collect();
            out.extras
                .insert("skm_colours".into(), json!(super::raw64::encode_f32(&raw)));
        }
        if let Some(name) = &m.texture {
            let raw = doc.text(name);
            let raw = raw.trim();
            if !raw.is_empty() {
                // As written: the glTF writer's one texture-path policy resolves it.
                out.color_texture = Some(raw.to_owned());
            }
            if !survives(doc, name, raw) {
                out.extras.insert("skm_texture".into(), json!(name.raw));
            }
        }
        scene.materials.push(out);
    }
}

/// The bone nodes and the skin (`None` for a static mesh).
fn bones(doc: &Skm, scene: &mut Scene, cx: &mut Ctx) -> Option<usize> {
    let count = doc.bones.len();
    if count == 0 {
        return None;
    }
    let base = scene.nodes.len();
    let parents = tree_parents(doc, cx);
    let begins = begin_points(doc, cx);
    let mut rotated = Vec::new();
    for (i, b) in doc.bones.iter().enumerate() {
        let parent = parents.get(i).copied().flatten();
        let node = bone_node(doc, i, b, &begins, parent, &mut rotated);
        scene.nodes.push(node);
    }
    for (i, parent) in parents.iter().enumerate() {
        match parent.and_then(|p| scene.nodes.get_mut(base + p)) {
            Some(p) => p.children.push(base + i),
            None => scene.roots.push(base + i),
        }
    }
    if !rotated.is_empty() {
        cx.warn(
            "bind pose",
            format!(
                "the initial-posture quaternions of {} bones ({}) are not applied (the \
             rest pose is translation only, skm.md §4); kept in extras.initial_rotation",
                rotated.len(),
                rotated.join(", ")
            ),
        );
    }
    let roots: Vec<usize> = (0..count)
        .filter(|&i| parents.get(i).copied().flatten().is_none())
        .collect();
    let skin = Skin {
        name: "skm".into(),
        joints: (base..base + count).collect(),
        inverse_bind_matrices: begins
            .iter()
            .map(|b| translation_matrix(b.map(|x| -x)))
            .collect(),
        skeleton: match roots.as_slice() {
            [one] => Some(base + one),
            _ => None,
        },
    };
    scene.skins.push(skin);
    Some(scene.skins.len() - 1)
}

/// Each bone's parent, making a tree: a parent that is out of range or closes a cycle makes
/// the bone a root (warned).
fn tree_parents(doc: &Skm, cx: &mut Ctx) -> Vec<Option<usize>> {
    let count = doc.bones.len();
    let mut parents: Vec<Option<usize>> = doc
        .bones
        .iter()
        .map(|b| b.parent_index().filter(|&p| p < count))
        .collect();
    let mut broken = Vec::new();
    for (i, b) in doc.bones.iter().enumerate() {
        if b.parent >= 0 && parents.get(i).copied().flatten().is_none() {
            broken.push(i);
        }
    }
    break_cycles(&mut parents, &mut broken);
    if !broken.is_empty() {
        cx.warn(
            &format!("bones {broken:?}"),
            "parent out of range or in a cycle; made roots",
        );
    }
    parents
}

/// Makes the lowest bone of each parent cycle a root, adding it to `broken`.
fn break_cycles(parents: &mut [Option<usize>], broken: &mut Vec<usize>) {
    let count = parents.len();
    // Each bone is walked once (state: 0 unseen, 1 on the current walk, 2 done), so a chain
    // of 120 000 bones costs 120 000 steps, not 120 000²/2. A walk that meets itself has found
    // a cycle: its lowest bone becomes a root.
    let mut state = vec![0u8; count];
    let mut walk: Vec<usize> = Vec::new();
    for i in 0..count {
        walk.clear();
        let mut at = i;
        while let Some(s) = state.get_mut(at) {
            match *s {
                0 => {
                    *s = 1;
                    walk.push(at);
                    match parents.get(at).copied().flatten() {
                        Some(p) => at = p,
                        None => break,
                    }
                }
                1 => {
                    let from = walk.iter().rposition(|&x| x == at).unwrap_or(0);
                    if let Some(&lowest) = walk.get(from..).and_then(|c| c.iter().min()) {
                        if let Some(slot) = parents.get_mut(lowest) {
                            *slot = None;
                        }
                        broken.push(lowest);
                    }
                    break;
                }
                _ => break,
            }
        }
        for &w in &walk {
            if let Some(s) = state.get_mut(w) {
                *s = 2;
            }
        }
    }
}

/// Each bone's begin point in glTF axes, a non-finite one set to 0 (warned).
fn begin_points(doc: &Skm, cx: &mut Ctx) -> Vec<[f32; 3]> {
    let mut begins = Vec::with_capacity(doc.bones.len());
    let mut non_finite = 0usize;
    for b in &doc.bones {
        let (p, bad) = finite(b.begin, 0.0);
        non_finite += usize::from(bad);
        begins.push(mirror_z(p));
    }
    if non_finite > 0 {
        cx.warn(
            "",
            format!("{non_finite} bones have a non-finite begin point (set to 0)"),
        );
    }
    begins
}

/// Bone `i`'s node: translated from its parent's begin point; what glTF cannot hold (end
/// point, initial rotation, symmetric bone, raw name) in extras. A bone with an initial
/// rotation adds its name to `rotated`.
fn bone_node(
    doc: &Skm,
    i: usize,
    b: &skm_text::Bone,
    begins: &[[f32; 3]],
    parent: Option<usize>,
    rotated: &mut Vec<String>,
) -> Node {
    let count = doc.bones.len();
    let name = doc.text(&b.name).into_owned();
    let begin = begins.get(i).copied().unwrap_or_default();
    let origin = parent
        .and_then(|p| begins.get(p).copied())
        .unwrap_or([0.0; 3]);
    let translation = [
        begin[0] - origin[0],
        begin[1] - origin[1],
        begin[2] - origin[2],
    ];
    let (end, _) = finite(b.end, 0.0);
    let (q, _) = finite(b.rotation, 0.0);
    let q = mirror_z_quat(q);
    if (q[0].abs() + q[1].abs() + q[2].abs()) > 1e-6 {
        rotated.push(name.clone());
    }
    let mut node = Node {
        name: if name.is_empty() {
            format!("bone_{i}")
        } else {
            name
        },
        transform: Transform::Trs {
            translation,
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
        },
        ..Node::default()
    };
    node.extras.insert("end".into(), json!(mirror_z(end)));
    node.extras.insert("initial_rotation".into(), json!(q));
    node.extras.insert(
        "symmetric".into(),
        match b.symmetric_index().filter(|&s| s < count) {
            Some(s) => json!(s),
            None => Value::Null,
        },
    );
    if b.symmetric != -1 && b.symmetric_index().filter(|&s| s < count).is_none() {
        node.extras
            .insert("skm_symmetric".into(), json!(b.symmetric));
    }
    if !survives(doc, &b.name, &node.name) {
        node.extras.insert("skm_name".into(), json!(b.name.raw));
    }
    node
}

/// Does `name` come back from the scene's `text` (encoded in the document's encoding)?
fn survives(doc: &Skm, name: &Name, text: &str) -> bool {
    Name::encode(text, doc.encoding).is_some_and(|n| n == *name)
}

/// What the scene's vertex attributes cannot hold exactly, in the mesh's extras for the way
/// back (`to_skm`), each used there only while the scene still agrees with it: the blend
/// weights and palette words as written (`skm_blend`: the scene's influences are merged,
/// sorted and renormalised), the file's normals when some are not unit length (`skm_normals`),
/// and the adjacency when it is not the one the triangles give (`skm_adjacency`). Each is a
/// blob of `blobs` from 1 KiB up (`scene/blob.rs`: its bytes as they are, no base64 text
/// written, copied and counted in the JSON, issue 18), else base64 text as before.
fn keep_raw(doc: &Skm, blobs: &mut Vec<Array<u8>>, extras: &mut serde_json::Map<String, Value>) {
    if doc
        .vertices
        .iter()
        .any(|v| v.blend_indices != 0 || v.weights.iter().any(|w| w.to_bits() != 0))
    {
        let words: Vec<u32> = doc
            .vertices
            .iter()
            .flat_map(|v| {
                let [a, b, c] = v.weights.map(f32::to_bits);
                [a, b, c, v.blend_indices]
            })
            .collect();
        let bytes = binio::pod::as_bytes(&words).to_vec();
        extras.insert("skm_blend".into(), super::raw64::put(blobs, bytes));
    }
    // A normal needs no copy when it comes back bit for bit: validation keeps a normal that
    // is unit already (`validate::near_unit`, the same for the mirrored one) as it is, after
    // the glTF reader as before the SKM writer, and changes every other one (normalised, its
    // squared length moves by more than `NEAR_UNIT_SQUARE`, so its bits differ).
    if doc
        .vertices
        .iter()
        .any(|v| !super::validate::near_unit(v.normal))
    {
        let normals: Vec<f32> = doc.vertices.iter().flat_map(|v| v.normal).collect();
        extras.insert("skm_normals".into(), super::raw64::put_f32(blobs, &normals));
    }
    if !super::to_skm::adjacency_matches(&doc.vertices, &doc.triangles, &doc.adjacency) {
        let bytes = binio::pod::as_bytes(&doc.adjacency).to_vec();
        extras.insert("skm_adjacency".into(), super::raw64::put(blobs, bytes));
    }
}

fn vertices(doc: &Skm, skinned: bool, cx: &mut Ctx) -> Vertices {
    let n = doc.vertices.len();
    let (mut positions, mut normals, mut uv0) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    // Non-finite positions and UVs and zero, non-finite or not unit normals go to the scene
    // as they are: validation repairs them, once, with its warnings.
    for v in &doc.vertices {
        positions.push(mirror_z(v.position));
        normals.push(mirror_z(v.normal));
        uv0.push(v.uv);
    }
    let mut out = Vertices {
        positions: positions.into(),
        normals: Some(normals.into()),
        uv0: Some(uv0.into()),
        ..Vertices::default()
    };
    if skinned {
        let bones = doc.bones.len();
        let (mut clamped, mut out_of_range, mut other) = (0usize, 0usize, 0usize);
        let mut joints = Vec::with_capacity(n);
        let mut weights = Vec::with_capacity(n);
        for v in &doc.vertices {
            let mut w = v.weights4();
            if w[3] < 0.0 {
                // Rounding (b0 + b1 + b2 slightly above 1) or a real excess: clamp.
                if w[3] < -1e-4 {
                    clamped += 1;
                }
                w[3] = 0.0;
            }
            let palette = v.palette();
            let infl = palette.iter().map(|&j| u32::from(j)).zip(w);
            let (j, w, fixes) = normalize_weights(infl, bones, SlotOrder::LargestFirst);
            out_of_range += fixes.out_of_range as usize;
            if fixes.invalid > 0 || fixes.empty {
                other += 1;
            }
            joints.push(j);
            weights.push(w);
        }
        if clamped > 0 {
            cx.warn(
                "",
                format!(
                "{clamped} vertices have b0 + b1 + b2 > 1: the implied fourth weight was clamped \
                 to 0 and the weights renormalised"
            ),
            );
        }
        if out_of_range > 0 {
            cx.warn(
                "",
                format!("{out_of_range} non-zero influences name a bone out of range; ignored"),
            );
        }
        if other > 0 {
            cx.warn(
                "",
                format!(
                "{other} vertices have negative or no usable weights; repaired (no weight: bound \
                 to bone 0)"
            ),
            );
        }
        out.joints = Some(joints.into());
        out.weights = Some(weights.into());
    } else if doc.vertices.iter().any(|v| v.blend_indices != 0) {
        cx.warn(
            "",
            "blend indices present but the file has no bones; the mesh is not skinned",
        );
    }
    out
}

fn primitives(doc: &Skm, cx: &mut Ctx) -> Vec<Primitive> {
    let faces = doc.triangles.len();
    let vcount = doc.vertices.len();
    let triangle = |f: usize| match doc.triangles.get(f) {
        // Clockwise (D3D) → counter-clockwise (glTF) after the z mirror.
        Some(&[a, b, c]) if [a, b, c].iter().all(|&i| (i as usize) < vcount) => Some([a, c, b]),
        _ => None,
    };
    // Attribute ranges may overlap: each primitive is a range of one shared list.
    let (shared, bad_index) = SharedTriangles::new(faces, vcount, triangle);
    let mut covered = vec![false; faces];
    let mut prims = Vec::new();
    let (mut bad_range, mut bad_material) = (0usize, 0usize);
    for a in &doc.attributes {
        let start = (a.face_start as usize).min(faces);
        let end = (a.face_start as usize).saturating_add(a.face_count as usize);
        if end > faces {
            bad_range += 1;
        }
        let end = end.min(faces);
        if let Some(c) = covered.get_mut(start..end) {
            c.fill(true);
        }
        let indices = shared.range(start, end);
        if indices.is_empty() {
            continue;
        }
        let material = (a.material as usize) < doc.materials.len();
        if !material {
            bad_material += 1;
        }
        prims.push(Primitive {
            indices,
            material: material.then_some(a.material as usize),
        });
    }
    let uncovered: Vec<usize> = (0..faces)
        .filter(|&f| !covered.get(f).copied().unwrap_or(true))
        .collect();
    if !uncovered.is_empty() {
        if !doc.attributes.is_empty() || !doc.materials.is_empty() {
            cx.warn(
                "",
                format!(
                    "{} faces are in no attribute range; drawn without material",
                    uncovered.len()
                ),
            );
        }
        let indices: Vec<u32> = uncovered
            .into_iter()
            .filter_map(triangle)
            .flatten()
            .collect();
        if !indices.is_empty() {
            prims.push(Primitive {
                indices: indices.into(),
                material: None,
            });
        }
    }
    if bad_range > 0 {
        cx.warn(
            "",
            format!("{bad_range} attribute ranges extend past the last face; cut"),
        );
    }
    if bad_material > 0 {
        cx.warn(
            "",
            format!(
            "{bad_material} attribute ranges name a material that does not exist; drawn without \
             material"
        ),
        );
    }
    if bad_index > 0 {
        cx.warn(
            "",
            format!("{bad_index} triangles with a vertex index out of range skipped"),
        );
    }
    prims
}
