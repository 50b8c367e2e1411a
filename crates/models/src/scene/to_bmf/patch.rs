//! `--base` patching: wherever a part rebuilt from the scene equals the base's in value (within
//! the export's rounding and repairs), the base's exact part is kept, so an unedited export
//! patched onto its own file gives the file back byte for byte.

use super::super::{normalize3, normalize_weights, SceneWarning, SlotOrder};
use super::bake::close;
use bmf_block::{Bmf, Mesh, VertexView, Vertices};

/// How far a rebuilt value may be from what the export made of the base's and still be the
/// base's (normals are renormalised and weights rescaled on the way out).
const TOLERANCE: f32 = 1e-5;

/// Keeps the base's header, index blocks, vertices, materials, matrices and End sizes wherever
/// the rebuilt ones are the same in value; warns what was taken from the base.
pub(crate) fn patch(doc: &mut Bmf, base: &Bmf, warnings: &mut Vec<SceneWarning>) {
    if doc.meshes.len() != base.meshes.len() {
        warnings.push(warning(
            "bmf",
            format!(
                "the scene makes {} meshes, the base has {}: nothing taken from the base",
                doc.meshes.len(),
                base.meshes.len()
            ),
        ));
        return;
    }
    let mut taken = Vec::new();
    if doc.header.version() == base.header.version() && doc.header != base.header {
        doc.header = base.header;
        taken.push("the header".to_owned());
    }
    for (m, (mine, theirs)) in doc.meshes.iter_mut().zip(&base.meshes).enumerate() {
        if mine.vertices.kind() != theirs.vertices.kind() {
            warnings.push(warning(
                "bmf",
                format!(
                    "mesh {m} is {} in the scene and {} in the base: nothing of it taken from \
                 the base",
                    mine.vertices.kind().name(),
                    theirs.vertices.kind().name()
                ),
            ));
            continue;
        }
        let parts = patch_mesh(mine, theirs);
        if !parts.is_empty() {
            taken.push(format!("mesh {m}: {}", parts.join(", ")));
        }
    }
    if !taken.is_empty() {
        warnings.push(warning(
            "bmf",
            format!(
                "taken from the base where the scene has the same values: {}",
                taken.join("; ")
            ),
        ));
    }
}

/// Patches one mesh; returns the names of the parts taken from the base.
fn patch_mesh(mine: &mut Mesh, theirs: &Mesh) -> Vec<String> {
    let mut parts = Vec::new();
    // Index block and ranges: when every Material block draws the same triangles.
    let same_triangles = mine.materials.len() == theirs.materials.len()
        && mine
            .materials
            .iter()
            .zip(&theirs.materials)
            .all(|(a, b)| range(mine, a) == range(theirs, b) && range(theirs, b).is_some());
    if same_triangles && (mine.indices != theirs.indices || ranges_differ(mine, theirs)) {
        mine.indices.clone_from(&theirs.indices);
        for (a, b) in mine.materials.iter_mut().zip(&theirs.materials) {
            a.start_index = b.start_index;
            a.index_count = b.index_count;
        }
        parts.push("index block".to_owned());
    }
    // Materials, one by one.
    let mut materials = 0usize;
    for (a, b) in mine.materials.iter_mut().zip(&theirs.materials) {
        if a != b
            && same_material(a, b)
            && a.start_index == b.start_index
            && a.index_count == b.index_count
        {
            *a = b.clone();
            materials += 1;
        }
    }
    if materials > 0 {
        parts.push(format!("{materials} material(s)"));
    }
    // Vertices, one by one.
    let kept = patch_vertices(mine, theirs);
    if kept > 0 {
        parts.push(format!("{kept} vertices"));
    }
    // Matrices, one by one, when the skins have the same shape.
    if let (Some(a), Some(b)) = (mine.skin.as_mut(), theirs.skin.as_ref()) {
        if a.bone_count == b.bone_count && a.matrices.len() == b.matrices.len() {
            let mut n = 0usize;
            for (x, y) in a.matrices.iter_mut().zip(&b.matrices) {
                if bits(x) != bits(y) && close(y, x) {
                    *x = *y;
                    n += 1;
                }
            }
            if n > 0 {
                parts.push(format!("{n} skinning matrices"));
            }
        }
    }
    if mine.end_size != theirs.end_size {
        mine.end_size = theirs.end_size;
        parts.push("End size".to_owned());
    }
    parts
}

fn bits(m: &[f32; 16]) -> [u32; 16] {
    m.map(f32::to_bits)
}

/// The indices a Material block draws, if its range lies in the index block.
fn range<'a>(mesh: &'a Mesh, m: &bmf_block::Material) -> Option<&'a [u16]> {
    let start = usize::try_from(m.start_index).ok()?;
    let end = start.checked_add(usize::try_from(m.index_count).ok()?)?;
    mesh.indices.get(start..end)
}

fn ranges_differ(a: &Mesh, b: &Mesh) -> bool {
    a.materials
        .iter()
        .zip(&b.materials)
        .any(|(x, y)| x.start_index != y.start_index || x.index_count != y.index_count)
}

/// The scene's material is what the export made of the base's (non-finite colours zeroed,
/// diffuse and emissive RGB clamped to 0..1).
fn same_material(mine: &bmf_block::Material, base: &bmf_block::Material) -> bool {
    let finite = |v: [f32; 4]| v.map(|x| if x.is_finite() { x } else { 0.0 });
    let clamp = |v: [f32; 4]| finite(v).map(|x| x.clamp(0.0, 1.0));
    let near = |a: [f32; 4], b: [f32; 4]| a.iter().zip(&b).all(|(x, y)| (x - y).abs() <= TOLERANCE);
    let be: [f32; 4] = base.emissive.into();
    let emissive = {
        let c = clamp(be);
        [c[0], c[1], c[2], finite(be)[3]]
    };
    near(mine.diffuse.into(), clamp(base.diffuse.into()))
        && near(mine.specular.into(), finite(base.specular.into()))
        && near(mine.ambient.into(), finite(base.ambient.into()))
        && near(mine.emissive.into(), emissive)
        && mine.texture.to_string_lossy() == base.texture.to_string_lossy()
}

/// Replaces each rebuilt vertex that is what the export made of the base's by the base's;
/// returns how many were replaced (and differed in bytes).
fn patch_vertices(mine: &mut Mesh, theirs: &Mesh) -> usize {
    if mine.vertices.len() != theirs.vertices.len() {
        return 0;
    }
    let mut referenced = vec![false; theirs.vertices.len()];
    for &i in &mine.indices {
        if let Some(r) = referenced.get_mut(usize::from(i)) {
            *r = true;
        }
    }
    let bones = theirs
        .skin
        .as_ref()
        .map_or(0, |s| usize::try_from(s.bone_count).unwrap_or(0));
    let keep = |i: usize| -> bool {
        match (mine.vertices.get(i), theirs.vertices.get(i)) {
            (Some(a), Some(b)) => {
                same_vertex(&a, &b, referenced.get(i).copied().unwrap_or(false), bones)
            }
            _ => false,
        }
    };
    let size = theirs.vertices.kind().size();
    let (ours, base_bytes) = (mine.vertices.as_bytes(), theirs.vertices.as_bytes());
    // Only vertices whose bytes differ are replaced (and counted).
    let take: Vec<bool> = (0..referenced.len())
        .map(|i| {
            let span = i * size..(i + 1) * size;
            ours.get(span.clone()) != base_bytes.get(span) && keep(i)
        })
        .collect();
    let n = take.iter().filter(|&&t| t).count();
    fn copy<T: Copy>(a: &mut [T], b: &[T], take: &[bool]) {
        for ((x, y), &t) in a.iter_mut().zip(b).zip(take) {
            if t {
                *x = *y;
            }
        }
    }
    match (&mut mine.vertices, &theirs.vertices) {
        (Vertices::Plain(a), Vertices::Plain(b)) => copy(a, b, &take),
        (Vertices::Tangent(a), Vertices::Tangent(b)) => copy(a, b, &take),
        (Vertices::Skinned(a), Vertices::Skinned(b)) => copy(a, b, &take),
        (Vertices::SkinnedTangent(a), Vertices::SkinnedTangent(b)) => copy(a, b, &take),
        _ => {}
    }
    n
}

/// The rebuilt vertex `a` is what the export made of the base's `b`: an unreferenced vertex is
/// the export's zeroed one, a referenced one has the same position, UV and tangent bits, the
/// renormalised normal and the cleaned influences.
fn same_vertex(a: &VertexView, b: &VertexView, referenced: bool, bones: usize) -> bool {
    let near = |x: &[f32], y: &[f32]| x.iter().zip(y).all(|(p, q)| (p - q).abs() <= TOLERANCE);
    let finite = |v: [f32; 3]| v.map(|x| if x.is_finite() { x } else { 0.0 });
    let tangent_same = match (a.tangent, b.tangent) {
        (Some(x), Some(y)) => x.map(f32::to_bits) == y.map(f32::to_bits),
        _ => true,
    };
    if !tangent_same {
        return false;
    }
    if !referenced {
        let influences = match a.joints {
            Some((j, w)) => j == [0; 4] && w == [1.0, 0.0, 0.0, 0.0],
            None => true,
        };
        return a.position == [0.0; 3]
            && near(&a.normal, &[0.0, 1.0, 0.0])
            && a.uv == [0.0; 2]
            && influences;
    }
    let normal = normalize3(b.normal).unwrap_or([0.0, 1.0, 0.0]);
    let influences = match (a.joints, b.joints) {
        (Some((ja, wa)), Some((jb, wb))) => {
            let (ja, wa, _) = normalize_weights(ja.into_iter().zip(wa), bones, SlotOrder::Source);
            let (jb, wb, _) = normalize_weights(jb.into_iter().zip(wb), bones, SlotOrder::Source);
            ja == jb && near(&wa, &wb)
        }
        (None, None) => true,
        _ => false,
    };
    a.position.map(f32::to_bits) == finite(b.position).map(f32::to_bits)
        && a.uv.map(f32::to_bits)
            == b.uv
                .map(|x| if x.is_finite() { x } else { 0.0 })
                .map(f32::to_bits)
        && near(&a.normal, &normal)
        && influences
}

/// The one place this module makes a warning: `{place}: {message}`.
fn warning(place: &str, message: impl Into<String>) -> SceneWarning {
    SceneWarning::other(place, message)
}
