//! Meshes, skins and materials → `MeshContainer`s and the `RenderingMeshList`.

use super::hint::{self, agrees, all_agree, shortest, Kept};
use super::{in_hierarchy, Ctx};
use crate::scene::lenient;
use crate::scene::Array;
use crate::scene::{
    mirror_z, normalize_weights, relative_texture_path, Material, Mesh, Primitive, SlotOrder,
    ValidScene,
};
use crate::Error;
use elfreina_elem as elem;
use serde_json::Value;
use std::collections::HashMap;

/// The meshes of one container: (holder node, mesh) pairs in node order.
struct Group {
    name: String,
    skin: Option<usize>,
    members: Vec<(usize, usize)>,
}

fn groups(scene: &ValidScene) -> Vec<Group> {
    let mut out: Vec<Group> = Vec::new();
    let mut by_key: HashMap<(String, Option<usize>), usize> = HashMap::new();
    for (ni, n) in scene.nodes.iter().enumerate() {
        let Some(mi) = n.mesh.filter(|&m| m < scene.meshes.len()) else {
            continue;
        };
        let Some(mesh) = scene.meshes.get(mi) else {
            continue;
        };
        let skin = n.skin.filter(|&s| s < scene.skins.len());
        let named = mesh.extras.get("elem_container").and_then(Value::as_str);
        let (key, name) = match (named, skin) {
            (Some(c), _) => ((format!("c:{c}"), skin), c.to_owned()),
            (None, Some(s)) => (
                (format!("s:{s}"), skin),
                scene
                    .skins
                    .get(s)
                    .map(|k| k.name.clone())
                    .filter(|k| !k.is_empty())
                    .unwrap_or_else(|| mesh.name.clone()),
            ),
            (None, None) => ((format!("n:{ni}"), None), mesh.name.clone()),
        };
        let slot = *by_key.entry(key).or_insert_with(|| {
            out.push(Group {
                name,
                skin,
                members: Vec::new(),
            });
            out.len() - 1
        });
        if let Some(g) = out.get_mut(slot) {
            g.members.push((ni, mi));
        }
    }
    // Distinct container names: RenderingMeshName and UV animation parts refer to them.
    let mut seen: HashMap<String, usize> = HashMap::new();
    for g in &mut out {
        let count = seen.entry(g.name.clone()).or_insert(0);
        *count += 1;
        if *count > 1 {
            g.name = format!("{}_{}", g.name, *count - 1);
        }
    }
    out
}

pub(super) fn containers(
    scene: &ValidScene,
    holder: &[bool],
    parents: &[Option<usize>],
    doc: &mut elem::Elem,
    cx: &mut Ctx<'_>,
) -> Result<(), Error> {
    let mut list = elem::MeshDataList::default();
    let mut rendering = elem::RenderingMeshList::default();
    for g in groups(scene) {
        let place = format!("container {:?}", g.name);
        let mut c = elem::MeshContainer {
            name: Some(cx.name(&place, &g.name)?),
            ..elem::MeshContainer::default()
        };
        let first = g.members.first().and_then(|&(_, m)| scene.meshes.get(m));
        let (mat_local, materials) = container_materials(scene, &g, cx)?;
        if let Some(s) = g.skin.and_then(|s| scene.skins.get(s)) {
            for (i, &j) in s.joints.iter().enumerate() {
                let name = scene.nodes.get(j).map_or("", |n| n.name.as_str());
                c.bone_names.push(cx.name(&place, name)?);
                let ibm = s
                    .inverse_bind_matrices
                    .get(i)
                    .copied()
                    .unwrap_or(crate::scene::IDENTITY);
                let made = cx.file_matrix(ibm);
                let kept = first
                    .and_then(|m| m.extras.get("elem_offset_matrices"))
                    .and_then(Value::as_array)
                    .and_then(|a| a.get(i))
                    .and_then(hint::row_of::<16>)
                    .filter(|k| all_agree(k, &made));
                c.offset_matrices.push(kept.unwrap_or(made));
            }
        }
        for &(ni, mi) in &g.members {
            let (Some(node), Some(mesh)) = (scene.nodes.get(ni), scene.meshes.get(mi)) else {
                continue;
            };
            let skinned = node.skin.is_some() && g.skin.is_some();
            let m = one_mesh(mesh, &mat_local, skinned, &c.bone_names, cx)?;
            c.meshes.push(m);
        }
        c.vertex_format = vertex_format(first, &c);
        if !materials.is_empty()
            || first.is_some_and(|m| {
                m.extras.get("elem_materials_scope").and_then(lenient::flag) == Some(true)
            })
        {
            c.materials = Some(elem::Materials {
                materials,
                extra: Vec::new(),
            });
        }
        if let Some(r) = rendering_mesh(scene, holder, parents, &g, &c, cx)? {
            rendering.meshes.push(r);
        }
        list.containers.push(c);
    }
    if !list.containers.is_empty() {
        doc.mesh_data = Some(list);
    }
    if !rendering.meshes.is_empty() {
        doc.rendering = Some(rendering);
    }
    Ok(())
}

/// The container's materials: those the export marked as its own, then those it uses; with
/// the local index of every scene material in the list.
fn container_materials(
    scene: &ValidScene,
    g: &Group,
    cx: &mut Ctx<'_>,
) -> Result<(HashMap<usize, u32>, Vec<elem::Material>), Error> {
    let mut order: Vec<usize> = scene
        .materials
        .iter()
        .enumerate()
        .filter(|(_, m)| m.extras.get("elem_container").and_then(Value::as_str) == Some(&g.name))
        .map(|(i, _)| i)
        .collect();
    for &(_, mi) in &g.members {
        for p in scene
            .meshes
            .get(mi)
            .iter()
            .flat_map(|m| m.primitives.iter())
        {
            if let Some(mat) = p.material.filter(|&m| m < scene.materials.len()) {
                if !order.contains(&mat) {
                    order.push(mat);
                }
            }
        }
    }
    let mut local = HashMap::new();
    let mut out = Vec::new();
    for (k, &mi) in order.iter().enumerate() {
        local.insert(mi, u32::try_from(k).unwrap_or(u32::MAX));
        if let Some(m) = scene.materials.get(mi) {
            out.push(material(m, cx)?);
        }
    }
    Ok((local, out))
}

fn argb(c: [f32; 4]) -> elem::Argb {
    [
        shortest(c[3]),
        shortest(c[0]),
        shortest(c[1]),
        shortest(c[2]),
    ]
}

/// A kept colour when its export (clamped into 0..1, non-finite → `fallback`) still is `now`.
fn kept_color(kept: Option<elem::Argb>, now: elem::Argb, fallback: f64) -> Option<elem::Argb> {
    let k = kept?;
    let exported = k.map(|v| {
        if v.is_finite() {
            v.clamp(0.0, 1.0)
        } else {
            fallback
        }
    });
    all_agree(&exported, &now).then_some(k)
}

fn material(m: &Material, cx: &mut Ctx<'_>) -> Result<elem::Material, Error> {
    let place = format!("material {:?}", m.name);
    let kept = m.extras.get("elem_material").and_then(Value::as_object);
    let kept_row = |key: &str| kept.and_then(|k| k.get(key)).and_then(hint::row_of::<4>);
    let absent = |key: &str| kept.is_some_and(|k| k.get(key) == Some(&Value::Null));
    let mut out = elem::Material {
        name: Some(cx.name(&place, &m.name)?),
        ..elem::Material::default()
    };
    let diffuse = argb(m.base_color);
    out.diffuse = if absent("diffuse") && m.base_color == [1.0; 4] {
        None
    } else {
        Some(kept_color(kept_row("diffuse"), diffuse, 1.0).unwrap_or(diffuse))
    };
    let ambient = m
        .extras
        .get("ambient")
        .and_then(hint::row_of::<4>)
        .map(|c| [c[3], c[0], c[1], c[2]].map(|v| shortest(v as f32)));
    out.ambient = match (kept_row("ambient"), ambient) {
        (Some(k), Some(now)) if all_agree(&k, &now) => Some(k),
        (_, now) => now,
    };
    let alpha = m
        .extras
        .get("emissive_alpha")
        .and_then(hint::num_of)
        .unwrap_or(1.0);
    let e = m.emissive;
    let emissive = [alpha, shortest(e[0]), shortest(e[1]), shortest(e[2])];
    out.emissive = if absent("emissive") && e == [0.0; 3] {
        None
    } else {
        Some(kept_color(kept_row("emissive"), emissive, 0.0).unwrap_or(emissive))
    };
    if let Some((spec, power)) = m.specular {
        let s = argb(spec);
        out.specular = if absent("specular") && spec == [0.0, 0.0, 0.0, 1.0] {
            None
        } else {
            Some(
                kept_row("specular")
                    .filter(|k| all_agree(k, &s))
                    .unwrap_or(s),
            )
        };
        let p = shortest(power);
        let kp = kept.and_then(|k| k.get("specular_sharpness"));
        out.specular_sharpness = match kp {
            Some(Value::Null) if power == 0.0 => None,
            Some(v) => Some(hint::num_of(v).filter(|k| agrees(*k, p)).unwrap_or(p)),
            None => Some(p),
        };
    }
    let texture = m.color_texture.clone();
    let kept_tex = kept.and_then(|k| k.get("texture_filename"));
    out.texture_filename = match (kept_tex, texture) {
        // The file's spelling (backslashes, "" for none) while it still names this texture.
        (Some(Value::String(k)), Some(t)) if same_texture(k, &t) => Some(k.clone()),
        (Some(Value::String(k)), None) if k.is_empty() => Some(String::new()),
        (Some(Value::Null), None) => None,
        (_, Some(t)) => Some(cx.name(&place, &t)?),
        (_, None) => Some(String::new()),
    };
    Ok(out)
}

/// True when the file's texture path `kept` is `now` as the glTF writer and reader give it
/// back (`/` for `\\`, an absolute path reduced to its file name).
fn same_texture(kept: &str, now: &str) -> bool {
    kept == now || relative_texture_path(kept).0 == relative_texture_path(now).0
}

fn vertex_format(first: Option<&Mesh>, c: &elem::MeshContainer) -> Vec<String> {
    if let Some(list) = first
        .and_then(|m| m.extras.get("elem_vertex_format"))
        .and_then(Value::as_array)
    {
        return list
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect();
    }
    let any = |f: &dyn Fn(&elem::Mesh) -> bool| c.meshes.iter().any(f);
    let mut out = vec!["Position".to_owned()];
    if any(&|m| !m.normals.is_empty()) {
        out.push("Normal".into());
    }
    if any(&|m| !m.blend_list.is_empty()) {
        out.push("Blend".into());
    }
    if any(&|m| !m.diffuse.is_empty()) {
        out.push("Diffuse".into());
    }
    let sets = c
        .meshes
        .iter()
        .map(|m| m.uv_sets.iter().filter(|s| !s.is_empty()).count())
        .max()
        .unwrap_or(0);
    match sets {
        0 => {}
        1 => out.push("Texture".into()),
        n => out.extend((1..=n).map(|k| format!("Texture{k}"))),
    }
    out
}

/// The container's `RenderingMesh`: the export's (`elem_rendering`; `false` or `null`: none), else the skin's joints,
/// else the hierarchy node a rigid mesh hangs under.
fn rendering_mesh(
    scene: &ValidScene,
    holder: &[bool],
    parents: &[Option<usize>],
    g: &Group,
    c: &elem::MeshContainer,
    cx: &mut Ctx<'_>,
) -> Result<Option<elem::RenderingMesh>, Error> {
    let first = g.members.first().and_then(|&(_, m)| scene.meshes.get(m));
    let entry = |names: Vec<String>| elem::RenderingMesh {
        name: c.name.clone(),
        hierarchy_names: names,
        extra: Vec::new(),
    };
    if let Some(kept) = first.and_then(|m| m.extras.get("elem_rendering")) {
        return Ok(kept.as_array().map(|names| {
            entry(
                names
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect(),
            )
        }));
    }
    if g.skin.is_some() {
        return Ok(Some(entry(c.bone_names.clone())));
    }
    let Some(&(ni, _)) = g.members.first() else {
        return Ok(None);
    };
    // A rigid mesh: the node itself when it is written, else the written node above it.
    let at = if in_hierarchy(scene, holder, ni) {
        Some(ni)
    } else {
        parents
            .get(ni)
            .copied()
            .flatten()
            .filter(|&p| in_hierarchy(scene, holder, p))
    };
    match at.and_then(|n| scene.nodes.get(n)) {
        Some(n) => {
            let name = cx.name(&format!("node {:?}", n.name), &n.name)?;
            Ok(Some(entry(vec![name])))
        }
        None => Ok(None),
    }
}

/// One scene mesh as an ELEM `Mesh`.
fn one_mesh(
    mesh: &Mesh,
    mat_local: &HashMap<usize, u32>,
    skinned: bool,
    bone_names: &[String],
    cx: &mut Ctx<'_>,
) -> Result<elem::Mesh, Error> {
    let place = format!("mesh {:?}", mesh.name);
    let ex = &mesh.extras;
    let v = &mesh.vertices;
    let mut m = elem::Mesh {
        name: Some(cx.name(&place, &mesh.name)?),
        ..elem::Mesh::default()
    };
    let mirror = cx.mirror;
    let back = |p: [f32; 3]| if mirror { mirror_z(p) } else { p };
    let blobs = cx.blobs;
    m.positions = rows(
        blobs,
        &v.positions,
        ex.get("elem_positions"),
        back,
        // What validation makes of a kept row: each non-finite coordinate 0.
        |k: [f64; 3]| k.map(|x| if x.is_finite() { x } else { 0.0 }),
    );
    if let Some(n) = &v.normals {
        // Validation's unit normal; a zero or non-finite one is (0, 1, 0).
        m.normals = rows(blobs, n, ex.get("elem_normals"), back, |k: [f64; 3]| {
            let len = k.iter().map(|x| x * x).sum::<f64>().sqrt();
            if len.is_finite() && len > 1e-12 {
                k.map(|x| x / len)
            } else {
                [0.0, 1.0, 0.0]
            }
        });
    }
    if let Some(colors) = &v.colors {
        m.diffuse = rows(
            blobs,
            &colors.to_floats(),
            ex.get("elem_colors"),
            |c: [f32; 4]| [c[3], c[0], c[1], c[2]],
            |k: elem::Argb| {
                k.map(|x| {
                    if x.is_finite() {
                        x.clamp(0.0, 1.0)
                    } else {
                        1.0
                    }
                })
            },
        );
    }
    uv_sets(&mut m, mesh, cx);
    faces(&mut m, mesh, mat_local, &place, cx);
    if skinned {
        m.blend_list = blend_list(mesh, bone_names);
    }
    Ok(m)
}

/// Rows of a vertex attribute: each the scene's value, put in the file's order by `back` and
/// spelled [`shortest`], or the file's kept row when its export (`export`) still is that value.
fn rows<T: Copy, const N: usize>(
    blobs: &[Array<u8>],
    values: &[T],
    kept: Option<&Value>,
    back: impl Fn(T) -> [f32; N],
    export: impl Fn([f64; N]) -> [f64; N],
) -> Vec<[f64; N]> {
    let mut kept = Kept::<N>::of(blobs, kept, values.len());
    values
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let scene = back(v);
            match kept.as_mut().and_then(|k| k.row(i)) {
                Some(k) if surely_agree(&export(k), &scene) => k,
                Some(k) if all_agree(&export(k), &scene.map(shortest)) => k,
                _ => scene.map(shortest),
            }
        })
        .collect()
}

/// True when `kept` agrees with the shortest spellings of `scene` for certain, without
/// spelling them (the slow part of the way back): each is within half the tolerance of the
/// `f32` itself, and a shortest spelling is within half an `f32` step of it, far less than the
/// other half. False says nothing: then the spellings decide.
fn surely_agree<const N: usize>(kept: &[f64; N], scene: &[f32; N]) -> bool {
    kept.iter().zip(scene).all(|(&k, &s)| {
        let s = f64::from(s);
        s.is_finite() && (k - s).abs() <= 0.4e-5 * k.abs().max(s.abs()).max(1.0)
    })
}

fn uv_sets(m: &mut elem::Mesh, mesh: &Mesh, cx: &mut Ctx<'_>) {
    let v = &mesh.vertices;
    // The file's set numbers (and how many sets it had: a zero TEXCOORD_0 the glTF writer
    // added for a texture is not a set of the file).
    let kept: Option<Vec<usize>> = mesh
        .extras
        .get("elem_uv_sets")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|s| lenient::uint(s).map(|s| s as usize))
                .collect()
        });
    let present = [v.uv0.as_ref(), v.uv1.as_ref()];
    for (k, (uv, key)) in present
        .into_iter()
        .zip(["elem_uv0", "elem_uv1"])
        .enumerate()
    {
        let Some(uv) = uv else { continue };
        let set = match &kept {
            Some(list) => match list.get(k) {
                Some(&s) => s,
                None => continue,
            },
            None => k,
        };
        let rows = rows(
            cx.blobs,
            uv,
            mesh.extras.get(key),
            |t: [f32; 2]| t,
            // What validation makes of a kept row: each non-finite coordinate 0.
            |k: [f64; 2]| k.map(|x| if x.is_finite() { x } else { 0.0 }),
        );
        match m.uv_sets.get_mut(set) {
            Some(slot) if slot.is_empty() => *slot = rows,
            _ => cx.warn(
                &format!("mesh {:?}", mesh.name),
                format!(
                    "UV set {} kept in extras is not a free set; TEXCOORD_{k} dropped",
                    set + 1
                ),
            ),
        }
    }
}

/// Fan triangulation of faces, as `from_elem` does it: one list per material in order of
/// first use, each face `(0, k, k+1)` reversed to `(0, k+1, k)` when mirroring.
fn fan_groups(
    sizes: &[u32],
    indices: &[u32],
    attributes: &[u32],
    vertex_count: usize,
    material_count: usize,
    mirror: bool,
) -> Vec<(Option<u32>, Vec<u32>)> {
    let mut lists: Vec<(Option<u32>, Vec<u32>)> = Vec::new();
    let mut rest = indices;
    for (f, &n) in sizes.iter().enumerate() {
        let n = (n as usize).min(rest.len());
        let (face, tail) = rest.split_at(n);
        rest = tail;
        if face.len() < 3 || face.iter().any(|&i| i as usize >= vertex_count) {
            continue;
        }
        let material = attributes
            .get(f)
            .copied()
            .filter(|&a| (a as usize) < material_count);
        let slot = match lists.iter().position(|(m, _)| *m == material) {
            Some(s) => s,
            None => {
                lists.push((material, Vec::new()));
                lists.len() - 1
            }
        };
        let Some((_, out)) = lists.get_mut(slot) else {
            continue;
        };
        let Some((&c0, others)) = face.split_first() else {
            continue;
        };
        for pair in others.windows(2) {
            let &[a, b] = pair else { continue };
            out.extend_from_slice(&if mirror { [c0, b, a] } else { [c0, a, b] });
        }
    }
    lists
}

fn faces(
    m: &mut elem::Mesh,
    mesh: &Mesh,
    mat_local: &HashMap<usize, u32>,
    place: &str,
    cx: &mut Ctx<'_>,
) {
    let local = |p: &Primitive| p.material.and_then(|g| mat_local.get(&g).copied());
    let scene_lists: Vec<(Option<u32>, &[u32])> = mesh
        .primitives
        .iter()
        .map(|p| (local(p), p.indices.as_slice()))
        .collect();
    if let Some(k) = mesh.extras.get("elem_faces").and_then(Value::as_object) {
        let ints = |key: &str| -> Option<Vec<u32>> {
            k.get(key)?
                .as_array()?
                .iter()
                .map(|v| lenient::uint(v).and_then(|x| u32::try_from(x).ok()))
                .collect()
        };
        if let (Some(sizes), Some(indices)) = (ints("sizes"), ints("indices")) {
            let attributes = ints("attributes").unwrap_or_default();
            let made = fan_groups(
                &sizes,
                &indices,
                &attributes,
                m.positions.len(),
                mat_local.len(),
                cx.mirror,
            );
            let same = made.len() == scene_lists.len()
                && made
                    .iter()
                    .zip(&scene_lists)
                    .all(|((ma, mi), (sa, si))| ma == sa && mi.as_slice() == *si);
            if same {
                m.face_sizes = sizes.into();
                m.face_indices = indices;
                m.attributes = attributes.into();
                return;
            }
            cx.warn(
                place,
                "the file's faces kept in extras no longer make the scene's triangles; \
                 written as triangles"
                    .into(),
            );
        }
    }
    let any_material = scene_lists.iter().any(|(mat, _)| mat.is_some());
    let mut unassigned = 0usize;
    for (mat, list) in &scene_lists {
        for tri in list.chunks_exact(3) {
            let &[a, b, c] = tri else { continue };
            m.push_face(&if cx.mirror { [a, c, b] } else { [a, b, c] });
            if any_material {
                if mat.is_none() {
                    unassigned += 1;
                }
                m.attributes.push(mat.unwrap_or(0));
            }
        }
    }
    if unassigned > 0 {
        cx.warn(
            place,
            format!("{unassigned} faces without material get the container's material 0"),
        );
    }
}

/// `BlendList` from `JOINTS_0`/`WEIGHTS_0` (joint = palette index), or the file's kept one
/// (`elem_blend`) while it still packs into the scene's joints and weights.
fn blend_list(mesh: &Mesh, bone_names: &[String]) -> elem::BlendList {
    let v = &mesh.vertices;
    let (Some(joints), Some(weights)) = (&v.joints, &v.weights) else {
        return elem::BlendList::default();
    };
    if let Some(kept) = mesh
        .extras
        .get("elem_blend")
        .and_then(|k| kept_blend(k, bone_names))
    {
        if packs_into(&kept, joints, weights, bone_names) {
            return kept;
        }
    }
    let mut rows: Vec<Vec<elem::VertexBlend>> = vec![Vec::new(); bone_names.len()];
    for (i, (j, w)) in joints.iter().zip(weights).enumerate() {
        for (&j, &w) in j.iter().zip(w) {
            if w > 0.0 {
                if let Some(r) = rows.get_mut(usize::from(j)) {
                    r.push(elem::VertexBlend {
                        vertex: u32::try_from(i).unwrap_or(u32::MAX),
                        weight: shortest(w),
                    });
                }
            }
        }
    }
    let parts = rows
        .into_iter()
        .enumerate()
        .filter(|(_, r)| !r.is_empty())
        .map(|(j, r)| elem::BlendPart {
            bone_name: bone_names.get(j).cloned(),
            transform_index: u32::try_from(j).ok(),
            vertex_blends: r,
            extra: Vec::new(),
        })
        .collect();
    elem::BlendList {
        parts,
        extra: Vec::new(),
    }
}

/// The kept `BlendList`: `{"parts": [{"transform_index": i, "bone_name": s, "blends": [v, w,
/// …]}, …]}` (an absent key: none), or the earlier exports' `[TransformIndex|null,
/// BoneName|null, [v, w, …]]` per part.
fn kept_blend(v: &Value, bone_names: &[String]) -> Option<elem::BlendList> {
    let mut out = elem::BlendList::default();
    for p in v.get("parts")?.as_array()? {
        let (ti, name, pairs) = match p {
            Value::Object(part) => (
                part.get("transform_index"),
                part.get("bone_name"),
                part.get("blends")?,
            ),
            Value::Array(list) => match list.as_slice() {
                [ti, name, pairs] => (Some(ti), Some(name), pairs),
                _ => return None,
            },
            _ => return None,
        };
        let transform_index = match ti {
            None | Some(Value::Null) => None,
            Some(t) => Some(u32::try_from(lenient::uint(t)?).ok()?),
        };
        if transform_index.is_some_and(|t| t as usize >= bone_names.len()) {
            return None;
        }
        let pairs = pairs.as_array()?;
        let mut vertex_blends = Vec::with_capacity(pairs.len() / 2);
        for pair in pairs.chunks_exact(2) {
            let [vi, w] = pair else { return None };
            vertex_blends.push(elem::VertexBlend {
                vertex: u32::try_from(lenient::uint(vi)?).ok()?,
                weight: hint::num_of(w)?,
            });
        }
        out.parts.push(elem::BlendPart {
            bone_name: name.and_then(Value::as_str).map(str::to_owned),
            transform_index,
            vertex_blends,
            extra: Vec::new(),
        });
    }
    Some(out)
}

/// True when `kept` gives the scene's joints and weights, packed as `from_elem` packs them.
fn packs_into(
    kept: &elem::BlendList,
    joints: &[[u16; 4]],
    weights: &[[f32; 4]],
    bone_names: &[String],
) -> bool {
    let mut influences: Vec<Vec<(u16, f32)>> = vec![Vec::new(); joints.len()];
    for p in &kept.parts {
        let joint = p.transform_index.map(|t| t as usize).or_else(|| {
            let name = p.bone_name.as_deref()?;
            bone_names.iter().position(|b| b == name)
        });
        let Some(joint) = joint.and_then(|j| u16::try_from(j).ok()) else {
            continue;
        };
        for vb in &p.vertex_blends {
            if let Some(list) = influences.get_mut(vb.vertex as usize) {
                list.push((joint, vb.weight as f32));
            }
        }
    }
    influences
        .iter()
        .zip(joints.iter().zip(weights))
        .all(|(list, (j, w))| {
            let list = list.iter().map(|&(j, w)| (u32::from(j), w));
            let (pj, pw, _) = normalize_weights(list, usize::MAX, SlotOrder::LargestFirst);
            pj.iter()
                .zip(pw)
                .zip(j.iter().zip(w))
                .all(|((a, x), (b, y))| {
                    (x == 0.0 && *y == 0.0) || (a == b && (x - y).abs() <= 1e-5)
                })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sure_agreement_is_an_agreement_of_the_spellings() {
        let file = [-11.080580f64, 0.123456789, 1e6 + 0.3];
        let scene = file.map(|x| x as f32);
        assert!(surely_agree(&file, &scene));
        assert!(all_agree(&file, &scene.map(shortest)));
        // An edit, or a value just past the sure half of the tolerance: the spellings decide.
        let edited = [scene[0] + 0.001, scene[1], scene[2]];
        assert!(!surely_agree(&file, &edited));
        assert!(!surely_agree(&[1.0], &[1.000_005]));
        assert!(!surely_agree(&[f64::NAN], &[0.0]));
    }
}
