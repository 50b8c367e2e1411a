//! `--base`: a mesh an editor gave back with its vertices split or reordered, and nothing else
//! changed, gets the base's vertices again.
//!
//! Blender writes one glTF vertex for each distinct corner. The normals it gives back for the
//! corners around one vertex differ in their last bits (it keeps custom normals as 16-bit
//! angles), so an unedited mesh comes back with more vertices than it went out with
//! (`block1.smf`: 16 → 20). A format's `--base` merge compares vertex lists pairwise, so it
//! then keeps none of the base's exact values, and the file changes.
//!
//! Here such a mesh is compared with the base's mesh of the same name. Two vertices match when
//! they have the same position (within [`POSITION_TOLERANCE`] of the mesh's extent) and every
//! other attribute within what an editor keeps of it ([`NORMAL_TOLERANCE`], [`COLOUR_STEPS`]).
//! * When the mesh has the base's triangles, corner for corner (an editor keeps them and their
//!   order), and each corner's vertex matches the base corner's, the mesh takes the base's
//!   vertices and triangles: the file comes back byte for byte, equal vertices of the base
//!   included.
//! * Otherwise (triangles edited or reordered), when each of its vertices matches a base vertex,
//!   the mesh takes the base's vertex list and its triangles are renumbered to it; a primitive
//!   whose triangles are then the base's in another order (a tool that reorders them for the
//!   vertex cache) takes the base's order.
//!
//! A mesh so matched is the base's, so the base's mesh extras are its own too: each entry the
//! editor dropped (Blender without "Custom Properties"), whose exact array the glTF reader cut
//! (Blender keeps the reference, not the buffer view), or that it wrote back equal in value but
//! not in form (−0 as `0` from a JavaScript tool), is given back with its blobs.
//!
//! One warning per mesh says what changed. A mesh with a vertex that matches none (moved,
//! added, recoloured) keeps the editor's vertices and extras.
//!
//! Memory: the base is converted and validated as an export would, within four times the
//! scene's cost ([`cost`]) plus 4 MiB (a base that needs more is not compared, with a
//! warning); then five bytes per base vertex (the sorted positions, which are taken), four per
//! vertex of the mesh (its matches) and four per corner (the renumbered triangles; eight more
//! while their order is compared with the base's). Work: one comparison of the whole mesh when
//! it is exactly the base's, else one per corner, or at most [`MAX_CANDIDATES`] per vertex,
//! and a sort of each primitive's triangles.

mod bare;
mod materials;
mod skeleton;
mod skins;
mod turn;

use crate::scene::Array;
use skeleton::unique_names;

use super::blob;
use super::validate::mesh_joint_counts;
use super::{cost, Budget, Indices, Mesh, Scene, SceneOptions, SceneWarning, ValidScene, Vertices};
use crate::{Document, Error};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::HashMap;

/// How far a normal may come back from an editor and still be the base's, per component.
/// Blender keeps custom normals as angles in the space of the faces around the corner: on the
/// fixtures' and samples' round trips through Blender 3.4, normals came back at most 4.3e-4 off,
/// except five vertices of the `Chara` BMF samples whose normals lie 84° from their faces', up
/// to 9.2e-3 off. This keeps twice that margin; a change of normal that small (about a degree)
/// is not one a user makes.
pub(crate) const NORMAL_TOLERANCE: f32 = 2e-2;

/// How far a colour byte may come back from an editor and still be the base's: Blender 3.4
/// keeps vertex colours as 8-bit sRGB, so a linear byte comes back one step off (191 → 190).
pub(crate) const COLOUR_STEPS: u8 = 1;

/// How far a position may come back, relative to the mesh's extent: Blender gives a skinned
/// mesh's positions back a few ulps off (it moves them to the armature and back).
const POSITION_TOLERANCE: f32 = 1e-5;

/// The most base vertices looked at for one vertex: a mesh with more vertices than this at
/// one place (a degenerate mesh) is left as the editor gave it, so that the search stays
/// linear in the vertex count.
const MAX_CANDIDATES: usize = 64;

/// `Budget::for_input` of the scene's cost divided by this gives the base's scene four times the
/// scene's cost (16 / 4), plus the converters' constant.
const BASE_COST_RATIO: u64 = 4;

/// Relative tolerance for UVs (an editor that flips V stores `1 − (1 − v)`).
const UV_TOLERANCE: f32 = 1e-5;

/// How far a skin weight may come back (editors renormalise weights in their own precision).
const WEIGHT_TOLERANCE: f32 = 1e-3;

/// `scene` with each mesh that matches the base's mesh of the same name given the base's
/// vertices and the exact arrays it lost (see the module docs), and one warning per mesh so
/// changed. Without a base, or when the base does not convert, or no mesh matches, `scene` as
/// it was and no warning.
pub(crate) fn onto_base<'a>(
    scene: Cow<'a, ValidScene>,
    base: Option<&Document>,
    bare: bool,
) -> (Cow<'a, ValidScene>, Vec<SceneWarning>) {
    let Some(base) = base else {
        return (scene, Vec::new());
    };
    if scene.meshes.is_empty() {
        return (scene, Vec::new());
    }
    // The base is usually the scene's own original, so its scene costs about as much: four
    // times the scene's cost (and the converters' constant) bounds what the weld may make of
    // a base that is much larger, or hostile.
    let options = SceneOptions {
        budget: Budget::for_input(cost(&scene) / BASE_COST_RATIO),
        ..SceneOptions::default()
    };
    let conversion = match Scene::from_document_with(base, &options) {
        Ok(conversion) => conversion,
        Err(Error::BudgetExceeded { .. }) => {
            let said = SceneWarning::other(
                "scene",
                "the base would make a scene over four times this one's size: no mesh was \
                 compared with the base's (an editor's split vertices stay split)",
            );
            return (scene, vec![said]);
        }
        Err(_) => return (scene, Vec::new()),
    };
    let base = super::validate(conversion.scene).scene;
    // The skeleton first: it puts each skin's joints in the base's order, so that the meshes'
    // joint indices compare with the base's.
    let mut scene = scene;
    let mut warnings = skeleton::onto_base(&mut scene, &base);
    warnings.extend(materials::onto_base(&mut scene, &base));
    let welds = plan(&scene, &base);
    if !welds.is_empty() {
        let said = apply(scene.to_mut(), &base, welds);
        warnings.splice(0..0, said);
    }
    warnings.extend(bare::onto_base(&mut scene, &base, bare));
    (scene, warnings)
}

/// One mesh to give the base's vertices, and its primitives' triangles renumbered to them.
struct Weld {
    mesh: usize,
    base_mesh: usize,
    /// `None`: the mesh has the base's vertices and triangles exactly.
    triangles: Option<Vec<Vec<u32>>>,
    /// The mesh had the base's vertex count and triangles already.
    unchanged: bool,
}

/// The meshes of `scene` to weld onto `base`'s, paired by name in order.
fn plan(scene: &Scene, base: &ValidScene) -> Vec<Weld> {
    let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, mesh) in base.meshes.iter().enumerate().rev() {
        by_name.entry(mesh.name.as_str()).or_default().push(i);
    }
    let joint_counts = mesh_joint_counts(scene);
    let mut welds = Vec::new();
    for (m, mesh) in scene.meshes.iter().enumerate() {
        let Some(b) = by_name.get_mut(mesh.name.as_str()).and_then(Vec::pop) else {
            continue;
        };
        let Some(base_mesh) = base.meshes.get(b) else {
            continue;
        };
        // Exactly the base's (an editor that changed nothing, or our own file): no vertex to
        // compare, only extras the editor may have lost.
        let exact = mesh.vertices == base_mesh.vertices
            && mesh.primitives.len() == base_mesh.primitives.len()
            && (mesh.primitives.iter().zip(&base_mesh.primitives))
                .all(|(p, q)| p.indices.as_slice() == q.indices.as_slice());
        if exact {
            if lost_extras(mesh, base_mesh).next().is_some() {
                welds.push(Weld {
                    mesh: m,
                    base_mesh: b,
                    triangles: None,
                    unchanged: true,
                });
            }
            continue;
        }
        let joints = joint_counts.get(m).copied().flatten();
        let Some(triangles) = renumbered(mesh, base_mesh, joints) else {
            continue;
        };
        // The same vertices, named by the same triangles: only the editor's rounding goes.
        let unchanged = mesh.vertices.positions.len() == base_mesh.vertices.positions.len()
            && mesh
                .primitives
                .iter()
                .zip(&triangles)
                .all(|(p, t)| p.indices.as_slice() == t.as_slice());
        welds.push(Weld {
            mesh: m,
            base_mesh: b,
            triangles: Some(triangles),
            unchanged,
        });
    }
    welds
}

/// Gives each planned mesh the base's vertices and its renumbered triangles.
fn apply(scene: &mut ValidScene, base: &ValidScene, welds: Vec<Weld>) -> Vec<SceneWarning> {
    let mut warnings = Vec::new();
    for weld in welds {
        let (Some(mesh), Some(base_mesh), Some(bounds)) = (
            scene.meshes.get(weld.mesh),
            base.meshes.get(weld.base_mesh),
            base.position_bounds(weld.base_mesh),
        ) else {
            continue;
        };
        let count = base_mesh.vertices.positions.len();
        let mut said = Vec::new();
        if weld.unchanged && mesh.vertices != base_mesh.vertices {
            said.push(
                "its vertices are the base's: each is the base's within an editor's precision \
                 (normals within 2e-2, colours within one step), and the base's exact values \
                 are kept"
                    .to_owned(),
            );
        } else if !weld.unchanged {
            said.push(format!(
                "its {} vertices are the base's {count} again: each matches a vertex of the \
                 base's mesh of that name within an editor's precision (an editor such as \
                 Blender splits vertices where its normals differ in their last bits)",
                mesh.vertices.positions.len()
            ));
        }
        let place = format!("mesh {} ({:?})", weld.mesh, mesh.name);
        if let Some(triangles) = weld.triangles {
            let indices = triangles
                .into_iter()
                .map(|t| Indices::checked(t, count))
                .collect();
            scene.replace_geometry(weld.mesh, base_mesh.vertices.clone(), bounds, indices);
        }
        let restored = restore_extras(scene, weld.mesh, base, weld.base_mesh);
        if !restored.is_empty() {
            said.push(format!(
                "the base's {} given back: the mesh is the base's, and the editor dropped them \
                 or the buffer views they named",
                restored.join(", ")
            ));
        }
        if !said.is_empty() {
            warnings.push(SceneWarning::other(place, said.join("; ")));
        }
    }
    warnings
}

/// The extras entries of the base's mesh `from` that mesh `mesh` lacks, whose exact arrays
/// the glTF reader cut (an editor kept the entry but not the buffer view it named), or that
/// are the base's in value only ([`same_in_value`]), copied
/// with their blobs: the mesh has the base's vertices now, so the base's exact arrays are its
/// own. Returns their keys.
fn restore_extras(
    scene: &mut ValidScene,
    mesh: usize,
    base: &ValidScene,
    from: usize,
) -> Vec<String> {
    let Some(theirs) = base.meshes.get(from).map(|m| &m.extras) else {
        return Vec::new();
    };
    let Some((extras, blobs)) = scene.mesh_extras_and_blobs(mesh) else {
        return Vec::new();
    };
    restore_lost(extras, theirs, &base.blobs, blobs)
}

/// Gives `mine` back the entries of `theirs` it lacks, whose blob references were cut, or that
/// are theirs in value only ([`lost_extras_of`]), copied with their blobs from `their_blobs` to
/// `my_blobs`. Returns the keys as `extras.<key>`.
fn restore_lost(
    mine: &mut Map<String, Value>,
    theirs: &Map<String, Value>,
    their_blobs: &[Array<u8>],
    my_blobs: &mut Vec<Array<u8>>,
) -> Vec<String> {
    let lost: Vec<String> = lost_extras_of(mine, theirs)
        .map(|(key, _)| key.clone())
        .collect();
    let mut restored = Vec::new();
    for key in lost {
        if let Some(value) = theirs.get(&key) {
            mine.insert(
                key.clone(),
                blob::copy_with_blobs(value, their_blobs, my_blobs),
            );
            restored.push(format!("extras.{key}"));
        }
    }
    restored
}

/// The entries of `base`'s extras that `mesh` lacks, whose blob references were cut, or that
/// are the base's in value only.
fn lost_extras<'a>(
    mesh: &'a Mesh,
    base: &'a Mesh,
) -> impl Iterator<Item = (&'a String, &'a Value)> {
    lost_extras_of(&mesh.extras, &base.extras)
}

fn lost_extras_of<'a>(
    mine: &'a Map<String, Value>,
    theirs: &'a Map<String, Value>,
) -> impl Iterator<Item = (&'a String, &'a Value)> {
    theirs
        .iter()
        .filter(|(key, value)| match mine.get(key.as_str()) {
            None => true,
            Some(kept) => blob::has_cut_ref(kept) || (kept != *value && same_in_value(kept, value)),
        })
}

/// Whether an extras value an editor wrote back is `base`'s in value, as JSON readers other
/// than ours keep it: numbers by value (JavaScript tools write −0 as `0`; Blender writes `1` as
/// `1.0` in a list with floats), booleans as `1`/`0` (Blender), the rest as it is.
fn same_in_value(kept: &Value, base: &Value) -> bool {
    let number = |v: &Value| match v {
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        _ => v.as_f64(),
    };
    match (kept, base) {
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_in_value(x, y))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(k, x)| b.get(k).is_some_and(|y| same_in_value(x, y)))
        }
        (Value::String(a), Value::String(b)) => a == b,
        (Value::Null, Value::Null) => true,
        (x, y) => matches!((number(x), number(y)), (Some(p), Some(q)) if p == q),
    }
}

/// `mesh`'s triangles, numbered into `base`'s vertices: the base's own triangles where each
/// corner matches the base's corner (an editor keeps the triangles and their order), else
/// through each vertex's match ([`matches()`]). `None` when a vertex or corner matches none,
/// when the two do not carry the same attributes (tangents aside: they are compared only where
/// both have them), or when a base vertex names a joint beyond `joints`, the joints `mesh` is
/// drawn with.
fn renumbered(mesh: &Mesh, base: &Mesh, joints: Option<usize>) -> Option<Vec<Vec<u32>>> {
    let (a, b) = (&mesh.vertices, &base.vertices);
    // The glTF writer gives a textured mesh without UVs a TEXCOORD_0 of zeros.
    let zeros = |uv: &Option<Array<[f32; 2]>>| uv.iter().flatten().flatten().all(|&x| x == 0.0);
    let same_attributes = a.normals.is_some() == b.normals.is_some()
        && (a.uv0.is_some() == b.uv0.is_some() || (b.uv0.is_none() && zeros(&a.uv0)))
        && a.uv1.is_some() == b.uv1.is_some()
        && a.colors.is_some() == b.colors.is_some()
        && a.joints.is_some() == b.joints.is_some()
        && a.weights.is_some() == b.weights.is_some();
    if !same_attributes || a.positions.is_empty() || b.positions.is_empty() {
        return None;
    }
    if let Some(list) = &b.joints {
        let limit = u16::try_from(joints?).unwrap_or(u16::MAX);
        if list.iter().flatten().any(|&j| j >= limit) {
            return None;
        }
    }
    let grid = Grid::new(a, b)?;
    if let Some(triangles) = by_corners(mesh, base, &grid) {
        return Some(triangles);
    }
    let matches = matches(a, b, &grid)?;
    let through = |list: &[u32]| -> Option<Vec<u32>> {
        let each = list
            .iter()
            .map(|&i| matches.get(usize::try_from(i).ok()?).copied());
        each.collect()
    };
    let mut triangles: Vec<Vec<u32>> = mesh
        .primitives
        .iter()
        .map(|p| through(&p.indices))
        .collect::<Option<_>>()?;
    // A tool that reorders triangles for the vertex cache (glTF-Transform's `reorder`) keeps
    // each primitive's triangles: then the base's order comes back too.
    if triangles.len() == base.primitives.len() {
        for (list, q) in triangles.iter_mut().zip(&base.primitives) {
            if same_triangles(list, &q.indices) {
                *list = q.indices.to_vec();
            }
        }
    }
    Some(triangles)
}

/// Whether two triangle lists hold the same triangles, each with its winding, in any order
/// and starting at any corner.
fn same_triangles(a: &[u32], b: &[u32]) -> bool {
    /// Each triangle turned to start at its least index (the winding kept), the list sorted.
    fn canonical(list: &[u32]) -> Vec<[u32; 3]> {
        let mut out: Vec<[u32; 3]> = list
            .chunks_exact(3)
            .map(|t| match *t {
                [x, y, z] if x <= y && x <= z => [x, y, z],
                [x, y, z] if y <= z => [y, z, x],
                [x, y, z] => [z, x, y],
                _ => [0; 3],
            })
            .collect();
        out.sort_unstable();
        out
    }
    a.len() == b.len() && a != b && canonical(a) == canonical(b)
}

/// The base's triangles, when `mesh` has as many primitives with as many corners, and each
/// corner's vertex matches the base corner's.
fn by_corners(mesh: &Mesh, base: &Mesh, grid: &Grid) -> Option<Vec<Vec<u32>>> {
    if mesh.primitives.len() != base.primitives.len() {
        return None;
    }
    let (a, b) = (&mesh.vertices, &base.vertices);
    let mut out = Vec::with_capacity(base.primitives.len());
    for (p, q) in mesh.primitives.iter().zip(&base.primitives) {
        if p.indices.len() != q.indices.len() {
            return None;
        }
        for (&i, &j) in p.indices.iter().zip(q.indices.iter()) {
            let (i, j) = (usize::try_from(i).ok()?, usize::try_from(j).ok()?);
            let (x, y) = (a.positions.get(i)?, b.positions.get(j)?);
            if !grid.near(*x, *y) || !same_vertex(a, i, b, j) {
                return None;
            }
        }
        out.push(q.indices.to_vec());
    }
    Some(out)
}

/// For each vertex of `mesh`, the index of a vertex of `base` it matches; `None` when one
/// matches none.
fn matches(mesh: &Vertices, base: &Vertices, grid: &Grid) -> Option<Vec<u32>> {
    // Base vertices sorted by grid cell: the candidates for a vertex are the runs of its cell
    // and the 26 around it.
    let mut sorted: Vec<u32> = (0..u32::try_from(base.positions.len()).ok()?).collect();
    let cell_of = |j: u32| base.positions.get(j as usize).map(|&p| grid.cell(p));
    sorted.sort_unstable_by_key(|&j| (cell_of(j), j));
    // A base with two equal vertices (both referenced) keeps both: a vertex takes a match no
    // vertex took yet before one that is taken, the first in the base's order.
    let mut taken = vec![false; base.positions.len()];
    let mut out = Vec::with_capacity(mesh.positions.len());
    for (i, &p) in mesh.positions.iter().enumerate() {
        let mut examined = 0;
        let (mut first, mut free) = (None, None);
        'cells: for cell in grid.around(p) {
            let start = sorted.partition_point(|&j| cell_of(j) < Some(cell));
            let run = sorted
                .get(start..)?
                .iter()
                .take_while(|&&j| cell_of(j) == Some(cell));
            for &j in run {
                examined += 1;
                if examined > MAX_CANDIDATES {
                    return None;
                }
                let q = base.positions.get(j as usize)?;
                if !grid.near(p, *q) || !same_vertex(mesh, i, base, j as usize) {
                    continue;
                }
                first.get_or_insert(j);
                if taken.get(j as usize) == Some(&false) {
                    free = Some(j);
                    break 'cells;
                }
            }
        }
        let found = free.or(first)?;
        if let Some(t) = taken.get_mut(found as usize) {
            *t = true;
        }
        out.push(found);
    }
    Some(out)
}

/// Positions compared within [`POSITION_TOLERANCE`] of the meshes' extent, through a grid of
/// cells that size: positions that close lie in the same cell or in neighbouring ones.
struct Grid {
    size: f32,
}

impl Grid {
    /// The grid for two meshes' positions (finite: the scenes are valid); `None` for a mesh
    /// so large that its cells would not fit an `i64`.
    fn new(mesh: &Vertices, base: &Vertices) -> Option<Self> {
        let extent = (mesh.positions.iter().chain(&base.positions))
            .flatten()
            .fold(0f32, |m, x| m.max(x.abs()));
        let size = (extent * POSITION_TOLERANCE).max(f32::MIN_POSITIVE);
        (extent / size < 1e15).then_some(Self { size })
    }

    fn cell(&self, p: [f32; 3]) -> [i64; 3] {
        // In range: |p| / size ≤ 1e15 (`new`).
        p.map(|x| (x / self.size).floor() as i64)
    }

    /// The cell of `p` and the 26 around it.
    fn around(&self, p: [f32; 3]) -> impl Iterator<Item = [i64; 3]> {
        let [x, y, z] = self.cell(p);
        let steps = [-1i64, 0, 1];
        steps.into_iter().flat_map(move |dx| {
            steps
                .into_iter()
                .flat_map(move |dy| steps.into_iter().map(move |dz| [x + dx, y + dy, z + dz]))
        })
    }

    fn near(&self, a: [f32; 3], b: [f32; 3]) -> bool {
        a.iter().zip(&b).all(|(x, y)| (x - y).abs() <= self.size)
    }
}

/// Whether vertex `i` of `a` is vertex `j` of `b` within an editor's precision (their positions
/// are near already).
fn same_vertex(a: &Vertices, i: usize, b: &Vertices, j: usize) -> bool {
    fn at<T: bytemuck::Pod>(list: &Option<Array<T>>, i: usize) -> Option<Option<T>> {
        list.as_ref().map(|l| l.get(i).copied())
    }
    let near = |x: f32, y: f32, tolerance: f32| (x - y).abs() <= tolerance;
    let normals = match (at(&a.normals, i), at(&b.normals, j)) {
        (Some(Some(x)), Some(Some(y))) => x
            .iter()
            .zip(&y)
            .all(|(x, y)| near(*x, *y, NORMAL_TOLERANCE)),
        (None, None) => true,
        _ => false,
    };
    let uv = |x: &Option<Array<[f32; 2]>>, y: &Option<Array<[f32; 2]>>| match (at(x, i), at(y, j)) {
        (Some(Some(x)), Some(Some(y))) => x
            .iter()
            .zip(&y)
            .all(|(x, y)| near(*x, *y, UV_TOLERANCE * x.abs().max(y.abs()).max(1.0))),
        (None, None) => true,
        (Some(Some(x)), None) => x == [0.0; 2],
        _ => false,
    };
    let tangents = match (at(&a.tangents, i), at(&b.tangents, j)) {
        (Some(Some([x @ .., xw])), Some(Some([y @ .., yw]))) => {
            x.iter()
                .zip(&y)
                .all(|(x, y)| near(*x, *y, NORMAL_TOLERANCE))
                && (xw < 0.0) == (yw < 0.0)
        }
        // Tangents derive from the normals and UVs: editors drop them, and the glTF writer
        // makes them for a normal-mapped mesh whose format stores none.
        _ => true,
    };
    let colours = match (&a.colors, &b.colors) {
        (Some(x), Some(y)) => match (x.get(i), y.get(j)) {
            (Some(x), Some(y)) => {
                let steps = f32::from(COLOUR_STEPS) + 0.5;
                x.iter().zip(&y).all(|(x, y)| near(*x, *y, steps / 255.0))
            }
            _ => false,
        },
        (None, None) => true,
        _ => false,
    };
    normals
        && uv(&a.uv0, &b.uv0)
        && uv(&a.uv1, &b.uv1)
        && tangents
        && colours
        && same_influences(a, i, b, j)
}

/// Whether two vertices are bound to the same joints with the same weights, whatever the slot
/// order (editors sort influences by weight and drop the empty ones).
fn same_influences(a: &Vertices, i: usize, b: &Vertices, j: usize) -> bool {
    /// The influences with a weight, by joint, and how many there are.
    fn influences(v: &Vertices, k: usize) -> Option<([(u16, f32); 4], usize)> {
        let joints = v.joints.as_ref()?.get(k)?;
        let weights = v.weights.as_ref()?.get(k)?;
        let mut list = [(u16::MAX, 0.0); 4];
        let mut n = 0;
        for (&joint, &weight) in joints.iter().zip(weights) {
            if weight > 0.0 {
                if let Some(slot) = list.get_mut(n) {
                    *slot = (joint, weight);
                }
                n += 1;
            }
        }
        list.sort_unstable_by_key(|(joint, _)| *joint);
        Some((list, n))
    }
    match (influences(a, i), influences(b, j)) {
        (Some((x, n)), Some((y, m))) => {
            n == m
                && x.iter()
                    .zip(&y)
                    .all(|(p, q)| p.0 == q.0 && (p.1 - q.1).abs() <= WEIGHT_TOLERANCE)
        }
        (None, None) => a.joints.is_none() && b.joints.is_none(),
        _ => false,
    }
}
