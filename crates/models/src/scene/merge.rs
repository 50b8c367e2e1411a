//! Merging the animations of several scenes of one character into one scene.
//!
//! BaseCross's Fbx2Bin bakes one animation per file, so a game ships one `.bmf` per animation
//! of the same character (same meshes, same bones; only the AnimeMatrix samples differ). Since
//! a converted BMF's rest pose is the bind pose (identity joints, see `from_bmf`), such files
//! convert to scenes that are equal except for their animations, and [`merge_clips`] makes one
//! scene of them: the first input's nodes, meshes, materials and skins, and one clip per input.
//! Nothing here is BMF-specific: any scenes that are equal but for their animations merge.

use super::{cost, Budget, Conversion, Scene, SceneWarning};

/// One scene to merge, and the name its clip gets (e.g. the file stem).
#[derive(Debug, Clone)]
pub struct ClipSource {
    /// The clip's name; with several animations in the scene, `<clip>_<animation name>`.
    pub clip: String,
    /// The converted scene.
    pub scene: Scene,
}

/// Why scenes could not be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// No scene was given.
    #[error("no scene to merge")]
    NoInput,
    /// Input `index` differs from the first in something other than its animations.
    #[error("{clip:?} does not match {first:?}: {difference}")]
    Mismatch {
        /// The position of the mismatching input (0 is the first).
        index: usize,
        /// Its clip name.
        clip: String,
        /// The first input's clip name.
        first: String,
        /// What differs, e.g. "27 bones in the first, 22 here".
        difference: String,
    },
    /// The merged scene would pass the conversion budget.
    #[error(transparent)]
    Budget(#[from] crate::Error),
}

/// Merges scenes that are equal but for their animations into the first one, with every
/// input's animations as clips named after the input (renamed `<clip>_2`, … with a warning
/// when a name repeats). An input without animation adds no clip (warning). The merged scene is
/// charged to `budget` (give it the budget of all the inputs' bytes together).
pub fn merge_clips(inputs: Vec<ClipSource>, budget: &mut Budget) -> Result<Conversion, MergeError> {
    let mut inputs = inputs.into_iter();
    let first = inputs.next().ok_or(MergeError::NoInput)?;
    let first_clip = first.clip.clone();
    let mut merged = first.scene.clone();
    merged.animations.clear();
    let mut warnings = Vec::new();
    let mut names = std::collections::HashSet::new();
    for (index, source) in std::iter::once(first).chain(inputs).enumerate() {
        if let Some(difference) = difference(&merged, &source.scene) {
            return Err(MergeError::Mismatch {
                index,
                clip: source.clip,
                first: first_clip,
                difference,
            });
        }
        if source.scene.animations.is_empty() {
            warnings.push(warning(
                &format!("{:?}", source.clip),
                "no animation; no clip added",
            ));
        }
        let several = source.scene.animations.len() > 1;
        let blobs = source.scene.blobs;
        for mut animation in source.scene.animations {
            if index > 0 {
                // Blobs an animation's extras name (an SMF clip's exact keys) are its own
                // scene's; the merged scene has the first input's, so they are copied over.
                for value in animation.extras.values_mut() {
                    *value = super::blob::copy_with_blobs(value, &blobs, &mut merged.blobs);
                }
            }
            let wanted = if several {
                format!("{}_{}", source.clip, animation.name)
            } else {
                source.clip.clone()
            };
            let name = unique_name(&wanted, &mut names);
            if name != wanted {
                warnings.push(warning(
                    "",
                    format!("clip name {wanted:?} repeats; this one is named {name:?}"),
                ));
            }
            animation.name = name;
            merged.animations.push(animation);
        }
    }
    budget.charge(
        cost(&merged),
        || "the merged scene and its glTF".into(),
        || format!("{} merged clips", merged.animations.len()),
    )?;
    Ok(Conversion {
        scene: merged,
        warnings,
    })
}

/// `wanted`, or `wanted_2`, `wanted_3`, … the first not yet in `taken`; records it.
fn unique_name(wanted: &str, taken: &mut std::collections::HashSet<String>) -> String {
    let mut name = wanted.to_owned();
    let mut k = 2usize;
    while taken.contains(&name) {
        name = format!("{wanted}_{k}");
        k += 1;
    }
    taken.insert(name.clone());
    name
}

/// What differs between `first` (animations ignored) and `other`, in words; `None` when they
/// are equal but for their animations.
fn difference(first: &Scene, other: &Scene) -> Option<String> {
    let differ =
        |what: &str, a: String, b: String| Some(format!("{what}: {a} in the first, {b} here"));
    if first.meshes.len() != other.meshes.len() {
        return differ(
            "mesh count",
            first.meshes.len().to_string(),
            other.meshes.len().to_string(),
        );
    }
    for (i, (a, b)) in first.meshes.iter().zip(&other.meshes).enumerate() {
        let (va, vb) = (a.vertices.positions.len(), b.vertices.positions.len());
        if va != vb {
            return differ(
                &format!("mesh {i} vertices"),
                va.to_string(),
                vb.to_string(),
            );
        }
        let triangles =
            |m: &super::Mesh| -> usize { m.primitives.iter().map(|p| p.indices.len() / 3).sum() };
        if triangles(a) != triangles(b) {
            return differ(
                &format!("mesh {i} triangles"),
                triangles(a).to_string(),
                triangles(b).to_string(),
            );
        }
        if a != b || !same_blobs(&a.extras, first, &b.extras, other) {
            return Some(format!(
                "mesh {i}: same counts but different vertex data, triangles or materials"
            ));
        }
    }
    let bones = |s: &Scene| -> String {
        let counts: Vec<String> = s.skins.iter().map(|k| k.joints.len().to_string()).collect();
        if counts.is_empty() {
            "no bones".into()
        } else {
            format!("{} bones", counts.join(" + "))
        }
    };
    if bones(first) != bones(other) {
        return differ("bone count", bones(first), bones(other));
    }
    if first.skins != other.skins {
        return Some("the skins differ (joints or inverse bind matrices)".into());
    }
    if first.materials.len() != other.materials.len() {
        return differ(
            "material count",
            first.materials.len().to_string(),
            other.materials.len().to_string(),
        );
    }
    if let Some(k) =
        (0..first.materials.len()).find(|&k| first.materials.get(k) != other.materials.get(k))
    {
        return Some(format!("material {k} differs (colours or texture)"));
    }
    if first.nodes.len() != other.nodes.len() {
        return differ(
            "node count",
            first.nodes.len().to_string(),
            other.nodes.len().to_string(),
        );
    }
    if let Some((i, node)) = first
        .nodes
        .iter()
        .enumerate()
        .find(|&(i, n)| other.nodes.get(i) != Some(n))
    {
        return Some(format!(
            "node {i} ({:?}) differs (name, rest transform, children, mesh or skin)",
            node.name
        ));
    }
    if first.roots != other.roots {
        return Some("the root nodes differ".into());
    }
    None
}

/// Whether the blobs that extras `a` (of `first`) and `b` (of `other`) name hold the same
/// bytes: equal extras name blobs by number, and each scene numbers its own.
fn same_blobs(
    a: &serde_json::Map<String, serde_json::Value>,
    first: &Scene,
    b: &serde_json::Map<String, serde_json::Value>,
    other: &Scene,
) -> bool {
    let (mut mine, mut theirs) = (Vec::new(), Vec::new());
    a.values()
        .for_each(|v| super::blob::named(v, &first.blobs, &mut mine));
    b.values()
        .for_each(|v| super::blob::named(v, &other.blobs, &mut theirs));
    mine == theirs
}

/// The one place this module makes a warning: `{place}: {message}`.
fn warning(place: &str, message: impl Into<String>) -> SceneWarning {
    SceneWarning::other(place, message)
}
