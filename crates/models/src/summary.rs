//! The same figures for any document.

use crate::Format;

/// Figures that mean the same thing for every format, plus format-specific `details`.
///
/// The per-format definitions (what counts as a mesh, a bone, an animation) follow the
/// specifications in `shared/formats` and are documented in `crate::formats::<format>`.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// The detected format.
    pub format: Format,
    /// The format's own version text (e.g. `BDV1.0`, `0x20071101`, `2`, `1.00`, `-`).
    pub version: String,
    /// Number of meshes.
    pub meshes: u64,
    /// Vertices, summed over all meshes.
    pub vertices: u64,
    /// Triangles (or polygons where the format stores polygons), summed over all meshes.
    pub faces: u64,
    /// Materials, summed over all meshes.
    pub materials: u64,
    /// Size of the skeleton.
    pub bones: u64,
    /// Number of animations.
    pub animations: u64,
    /// Distinct texture file names, in order of first use.
    pub textures: Vec<String>,
    /// Format-specific figures, as JSON (printed by `models info --json` under `details`).
    pub details: serde_json::Map<String, serde_json::Value>,
}

/// Collects the distinct non-empty strings of `names`, keeping the order of first appearance.
/// (A set of the names seen keeps this linear: a file may name one texture per material, and
/// materials are counted in the thousands in hostile files.)
pub(crate) fn distinct_in_order<I, S>(names: I) -> Vec<String>
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut seen = std::collections::HashSet::new();
    let mut out: Vec<String> = Vec::new();
    for name in names {
        let name = name.as_ref();
        if !name.is_empty() && seen.insert(name.to_owned()) {
            out.push(name.to_owned());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn distinct_names_keep_their_first_order() {
        let names = ["b", "", "a", "b", "c", "a"];
        assert_eq!(super::distinct_in_order(names), ["b", "a", "c"]);
    }
}
