//! [`Scene`](super::Scene) → Elfreina `.elem`: the mirror of `from_elem.rs`, undoing exactly
//! what it applied.
//!
//! * **Handedness.** z is mirrored back and every triangle's winding reversed back, unless the
//!   scene says `elem_setting.is_right_hand = true` (the export then did neither).
//! * **Nodes.** Every node becomes a `HierarchyList` `Node` (its local matrix, mirrored back, as
//!   `InitPostureMatrix`), except the nodes the export made itself: mesh holders
//!   (`extras.elem_mesh_node`, or a skinned mesh's childless node) and bones the file had no
//!   node for (`extras.elem_added_bone`).
//! * **Containers.** Meshes are grouped into `MeshContainer`s by `extras.elem_container`
//!   (the export's), else one container per skin, else one per mesh. A skin's joints are the
//!   container's `BoneNames`, its inverse bind matrices (mirrored back) the `OffsetMatrices`.
//!   A container's `Materials` are the scene materials the export marked as its own
//!   (`extras.elem_container`), then those its primitives use.
//! * **Faces.** Each triangle becomes a face of three corners with its primitive's material as
//!   attribute, or, where the export kept the file's faces (`extras.elem_faces`: quads, n-gons,
//!   interleaved materials) and they still make the scene's triangles, those faces.
//! * **Animation.** One `AnimationData` per clip; one bone `AnimationPart` per animated node:
//!   the keys are `InitPosture⁻¹ · T·R·S` decomposed and mirrored back, at the union of the
//!   node's channel times, as fractions of `AnimationTime` (ms).
//! * **Exact values.** The scene holds `f32`; every number comes back as its shortest decimal,
//!   except where the export kept the file's `f64` (`elem_*` extras, [`hint`]) and it still
//!   agrees with the scene. So an unedited export comes back as the same document.
//! * **Base.** With `--base` (an ELEM document), what the scene does not carry comes from it:
//!   the `Setting`, the version, unknown top-level items and the unknown items of containers,
//!   meshes and materials of the same name; one warning lists what was taken.

mod anim;
pub(crate) mod hint;
mod mesh;

use super::{mirror_z_matrix, ImportOptions, Imported, SceneWarning, ValidScene};
use crate::scene::lenient;
use crate::scene::Array;
use crate::{Error, Format};
use elfreina_elem as elem;
use serde_json::Value;
use std::collections::HashMap;

/// Deepest `Node` nesting written: the reader refuses scopes deeper than `elem::MAX_DEPTH`,
/// and `HierarchyList` is one level.
const MAX_NODE_DEPTH: usize = elem::MAX_DEPTH - 2;

pub(crate) struct Ctx<'a> {
    warnings: Vec<SceneWarning>,
    /// Mirror z back (the default); false when the scene came from a right-handed file.
    mirror: bool,
    options: &'a ImportOptions,
    /// The scene's blobs, which hold the kept `f64` rows of large meshes (`hint::Kept`).
    blobs: &'a [Array<u8>],
}

impl Ctx<'_> {
    /// The one place this module makes a warning: `elem: {place}: {message}`, the place
    /// naming the mesh, material, bone, … (its warnings have always printed that way).
    fn warn(&mut self, place: &str, message: String) {
        self.warnings
            .push(SceneWarning::other(format!("elem: {place}"), message));
    }

    /// A name the ELEM writer can write (no `"`, CR or LF): as it is, replaced with a
    /// warning under `replace_bad_names`, else [`Error::FormatLimit`].
    fn name(&mut self, place: &str, name: &str) -> Result<String, Error> {
        if !name.contains(['"', '\r', '\n']) {
            return Ok(name.to_owned());
        }
        if self.options.replace_bad_names {
            let fixed = name.replace(['"', '\r', '\n'], "_");
            self.warn(
                place,
                format!("name {name:?} holds a quote or line break; written as {fixed:?}"),
            );
            return Ok(fixed);
        }
        Err(Error::FormatLimit {
            format: Format::Elem,
            place: place.to_owned(),
            what: format!("name {name:?} holds a quote or a line break, which ELEM strings cannot"),
        })
    }

    /// A glTF column-major matrix as the file's 16 values (row-major, row vectors: the same
    /// array), mirrored back. `+ 0.0` gives the export's positive zeros.
    fn file_matrix(&self, m: [f32; 16]) -> elem::Matrix {
        let m = if self.mirror { mirror_z_matrix(m) } else { m };
        m.map(|v| hint::shortest(v) + 0.0)
    }
}

fn flag(extras: &serde_json::Map<String, Value>, key: &str) -> bool {
    extras.get(key).and_then(lenient::flag) == Some(true)
}

pub(crate) fn convert(
    scene: &ValidScene,
    base: Option<&elem::Elem>,
    options: &ImportOptions,
) -> Result<Imported<elem::Elem>, Error> {
    let setting = scene.extras.get("elem_setting").and_then(Value::as_object);
    let right_handed = setting.is_some_and(|s| flag(s, "is_right_hand"));
    let mut cx = Ctx {
        warnings: Vec::new(),
        mirror: !right_handed,
        options,
        blobs: &scene.blobs,
    };
    let mut doc = elem::Elem::default();
    scene_level(scene, &mut doc, &mut cx);
    let parents = parents(scene);
    let holder: Vec<bool> = (0..scene.nodes.len())
        .map(|i| is_holder(scene, i))
        .collect();
    doc.hierarchy = hierarchy(scene, &holder, &mut cx)?;
    mesh::containers(scene, &holder, &parents, &mut doc, &mut cx)?;
    anim::animations(scene, &holder, &mut doc, &mut cx)?;
    if let Some(base) = base {
        take_from_base(&mut doc, base, scene, &mut cx);
    }
    Ok(Imported {
        document: doc,
        warnings: cx.warnings,
    })
}

/// Version and `Setting` from the export's extras; a scene from elsewhere gets the setting
/// Elfreina itself writes (`LoadType="View"`).
fn scene_level(scene: &ValidScene, doc: &mut elem::Elem, cx: &mut Ctx<'_>) {
    if let Some(v) = scene
        .extras
        .get("elem_file_version")
        .and_then(Value::as_str)
    {
        doc.version = v.to_owned();
    }
    match scene.extras.get("elem_setting").and_then(Value::as_object) {
        Some(s) => {
            let st = &mut doc.setting;
            st.soft_version = s.get("elfreina_soft_version").and_then(hint::num_of);
            st.beta_version = s.get("elfreina_beta_version").and_then(lenient::int);
            st.load_type = s
                .get("load_type")
                .and_then(Value::as_str)
                .map(str::to_owned);
            st.is_right_hand = s.get("is_right_hand").and_then(lenient::flag);
        }
        None if scene.extras.get("source_format").and_then(Value::as_str) != Some("elem") => {
            doc.setting.load_type = Some("View".to_owned());
        }
        None => {}
    }
    // Unknown top-level items, kept by the export as ELEM text of a document holding only
    // them.
    if let Some(text) = scene.extras.get("elem_unknown").and_then(Value::as_str) {
        match elem::Elem::parse(text) {
            Ok(d) => doc.extra = d.extra,
            Err(e) => cx.warn(
                "scene extras.elem_unknown",
                format!("not ELEM text ({e}); unknown items not written"),
            ),
        }
    }
}

/// The parent of every node (the first one, when a scene names a child twice).
pub(crate) fn parents(scene: &ValidScene) -> Vec<Option<usize>> {
    let mut parent = vec![None; scene.nodes.len()];
    for (i, n) in scene.nodes.iter().enumerate() {
        for &c in &n.children {
            if let Some(p) = parent.get_mut(c) {
                if p.is_none() && c != i {
                    *p = Some(i);
                }
            }
        }
    }
    parent
}

/// True for a node that only holds a mesh (made by the export, or a skinned mesh's childless
/// node, whose transform glTF ignores): not a `HierarchyList` node.
fn is_holder(scene: &ValidScene, i: usize) -> bool {
    let Some(n) = scene.nodes.get(i) else {
        return false;
    };
    n.mesh.is_some()
        && (flag(&n.extras, "elem_mesh_node") || (n.skin.is_some() && n.children.is_empty()))
}

/// True for a node written as a `HierarchyList` node.
pub(crate) fn in_hierarchy(scene: &ValidScene, holder: &[bool], i: usize) -> bool {
    scene.nodes.get(i).is_some_and(|n| {
        !holder.get(i).copied().unwrap_or(false) && !flag(&n.extras, "elem_added_bone")
    })
}

fn hierarchy(
    scene: &ValidScene,
    holder: &[bool],
    cx: &mut Ctx<'_>,
) -> Result<elem::HierarchyList, Error> {
    let mut visited = vec![false; scene.nodes.len()];
    let mut list = elem::HierarchyList::default();
    for &r in &scene.roots {
        list.nodes
            .extend(hier_nodes(scene, holder, r, 1, &mut visited, cx)?);
    }
    // Nodes no root reaches (the writer would not write them either) are left out.
    let unreached = (0..scene.nodes.len())
        .filter(|&i| !visited.get(i).copied().unwrap_or(true) && in_hierarchy(scene, holder, i))
        .count();
    if unreached > 0 {
        cx.warn(
            "HierarchyList",
            format!("{unreached} nodes under no scene root left out"),
        );
    }
    Ok(list)
}

/// The hierarchy nodes of node `i`: itself with its subtree, or, for a node that is not
/// written, its children's.
fn hier_nodes(
    scene: &ValidScene,
    holder: &[bool],
    i: usize,
    depth: usize,
    visited: &mut [bool],
    cx: &mut Ctx<'_>,
) -> Result<Vec<elem::Node>, Error> {
    let Some(n) = scene.nodes.get(i) else {
        return Ok(Vec::new());
    };
    match visited.get_mut(i) {
        Some(v) if !*v => *v = true,
        _ => return Ok(Vec::new()),
    }
    let own = in_hierarchy(scene, holder, i);
    let child_depth = if own { depth + 1 } else { depth };
    let mut children = Vec::new();
    for &c in &n.children {
        children.extend(hier_nodes(scene, holder, c, child_depth, visited, cx)?);
    }
    if !own {
        return Ok(children);
    }
    let place = format!("node {:?}", n.name);
    if depth > MAX_NODE_DEPTH {
        return Err(Error::FormatLimit {
            format: Format::Elem,
            place,
            what: format!("nodes nested deeper than {MAX_NODE_DEPTH}"),
        });
    }
    let name = cx.name(&place, &n.name)?;
    let made = cx.file_matrix(n.transform.to_matrix());
    let init_posture = match n.extras.get("elem_init_posture") {
        // The file's own matrix (or its absence) while it is still the node's transform.
        Some(Value::Null) if made == IDENTITY_F64 => None,
        Some(kept) => match hint::row_of::<16>(kept) {
            Some(k) if hint::all_agree(&k, &made) => Some(k),
            _ => Some(made),
        },
        None => Some(made),
    };
    Ok(vec![elem::Node {
        name: Some(name),
        init_posture,
        children,
        extra: Vec::new(),
    }])
}

const IDENTITY_F64: elem::Matrix = [
    1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
];

/// `--base`: what the scene does not carry, from the base document.
fn take_from_base(doc: &mut elem::Elem, base: &elem::Elem, scene: &ValidScene, cx: &mut Ctx<'_>) {
    let mut taken = Vec::new();
    if !scene.extras.contains_key("elem_setting") && doc.setting != base.setting {
        doc.setting = base.setting.clone();
        taken.push("Setting".to_owned());
    }
    if !scene.extras.contains_key("elem_file_version") && doc.version != base.version {
        doc.version = base.version.clone();
        taken.push("File Version".to_owned());
    }
    if doc.extra.is_empty() && !base.extra.is_empty() {
        doc.extra = base.extra.clone();
        taken.push(format!("{} unknown top-level items", base.extra.len()));
    }
    let base_containers: HashMap<&str, &elem::MeshContainer> = base
        .containers()
        .iter()
        .filter_map(|c| Some((c.name.as_deref()?, c)))
        .collect();
    let mut unknown = 0usize;
    for c in doc
        .mesh_data
        .iter_mut()
        .flat_map(|m| m.containers.iter_mut())
    {
        let Some(b) = c.name.as_deref().and_then(|n| base_containers.get(n)) else {
            continue;
        };
        if c.extra.is_empty() && !b.extra.is_empty() {
            c.extra = b.extra.clone();
            unknown += b.extra.len();
        }
        for m in &mut c.meshes {
            let bm = b.meshes.iter().find(|x| x.name == m.name);
            if let Some(bm) = bm.filter(|bm| m.extra.is_empty() && !bm.extra.is_empty()) {
                m.extra = bm.extra.clone();
                unknown += bm.extra.len();
            }
        }
        for m in c
            .materials
            .iter_mut()
            .flat_map(|ms| ms.materials.iter_mut())
        {
            let bm = b.material_list().iter().find(|x| x.name == m.name);
            if let Some(bm) = bm.filter(|bm| m.extra.is_empty() && !bm.extra.is_empty()) {
                m.extra = bm.extra.clone();
                unknown += bm.extra.len();
            }
        }
    }
    if unknown > 0 {
        taken.push(format!(
            "{unknown} unknown items of containers, meshes and materials"
        ));
    }
    if !taken.is_empty() {
        cx.warn("base", format!("taken from the base: {}", taken.join(", ")));
    }
}
