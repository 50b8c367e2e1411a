//! Names an editor changes on its own, and how the way back gives them back.
//!
//! Blender (3.4, checked) needs the names of its objects, meshes and materials unique and at
//! most 63 bytes long. It renames the second `Material` to `Material.001` and cuts a longer
//! name at a character boundary (a 32-character Japanese SMF name is 96 bytes of UTF-8), and
//! writes those names back into the glTF file. An SMF or BMF file often repeats a name (every
//! material `Material`, every mesh `No Name`), and `--base` matches parts by name, so an
//! unedited model came back with other names and none of its parts matched the base.
//!
//! The writer ([`keep`]) puts the name into the extras (`exported_name`) of every node, mesh
//! and material whose name is repeated in its list or longer than 63 bytes. The reader
//! ([`restore`]) gives such an item its exported name back when its glTF name is that name as
//! an editor makes it unique (`.001`) or cuts it, and says so; a name the user changed stays.
//! The key is removed either way, so our own file reads back as the scene it was written from.

use super::json;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// The extras key that holds an exported name.
const KEY: &str = "exported_name";

/// The longest name, in bytes, Blender keeps.
const EDITOR_NAME_BYTES: usize = 63;

/// Adds `exported_name` to the extras of every node, mesh and material whose name an editor
/// would change (repeated in its list, or longer than [`EDITOR_NAME_BYTES`]).
pub(crate) fn keep(root: &mut json::Root) -> Result<(), serde_json::Error> {
    keep_in(root.nodes.iter_mut().map(|n| (&n.name, &mut n.extras)))?;
    keep_in(root.meshes.iter_mut().map(|m| (&m.name, &mut m.extras)))?;
    keep_in(root.materials.iter_mut().map(|m| (&m.name, &mut m.extras)))
}

fn keep_in<'a>(
    items: impl Iterator<Item = (&'a Option<String>, &'a mut json::Extras)>,
) -> Result<(), serde_json::Error> {
    let items: Vec<_> = items.collect();
    let mut uses: HashMap<&str, usize> = HashMap::new();
    for (name, _) in &items {
        if let Some(name) = name {
            *uses.entry(name.as_str()).or_default() += 1;
        }
    }
    for (name, extras) in items {
        let Some(name) = name else { continue };
        let repeated = uses.get(name.as_str()).is_some_and(|&n| n > 1);
        if !repeated && name.len() <= EDITOR_NAME_BYTES {
            continue;
        }
        // The writer's extras are always an object (or none).
        let mut map: Map<String, Value> = match extras {
            Some(raw) => serde_json::from_str(raw.get())?,
            None => Map::new(),
        };
        if map.contains_key(KEY) {
            continue;
        }
        map.insert(KEY.into(), Value::String(name.clone()));
        *extras = Some(serde_json::value::to_raw_value(&map)?);
    }
    Ok(())
}

/// Gives back the exported names an editor changed (see the module docs) in the scene's nodes,
/// meshes and materials, removing `exported_name`; the count of names given back and the
/// first place, for one warning.
pub(crate) fn restore(scene: &mut crate::scene::Scene) -> Option<(usize, String)> {
    let mut restored = 0;
    let mut first = None;
    let mut visit = |at: String, name: &mut String, extras: &mut Map<String, Value>| {
        let Some(Value::String(exported)) = extras.get(KEY) else {
            return;
        };
        if *name != *exported && editors_rename(name, exported) {
            *name = exported.clone();
            restored += 1;
            first.get_or_insert(at);
        }
        extras.remove(KEY);
    };
    for (i, n) in scene.nodes.iter_mut().enumerate() {
        visit(format!("nodes[{i}].name"), &mut n.name, &mut n.extras);
    }
    for (i, m) in scene.meshes.iter_mut().enumerate() {
        visit(format!("meshes[{i}].name"), &mut m.name, &mut m.extras);
    }
    for (i, m) in scene.materials.iter_mut().enumerate() {
        visit(format!("materials[{i}].name"), &mut m.name, &mut m.extras);
    }
    first.map(|at| (restored, at))
}

/// True when `name` is `exported` as an editor makes it unique (`.001`, any three or more
/// digits) or cuts it to [`EDITOR_NAME_BYTES`] (then perhaps makes it unique too).
pub(super) fn editors_rename(name: &str, exported: &str) -> bool {
    let stem = crate::scene::lenient::unique_stem(name).unwrap_or(name);
    if stem != name && stem == exported {
        return true;
    }
    // Cut: within a character (at most 3 bytes of UTF-8) or a suffix of the limit.
    exported.len() > EDITOR_NAME_BYTES
        && !stem.is_empty()
        && exported.starts_with(stem)
        && name.len() + 4 > EDITOR_NAME_BYTES
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_editors_renames_are_recognised_and_a_users_are_not() {
        assert!(editors_rename("Material.001", "Material"));
        assert!(editors_rename("Material.1000", "Material"));
        assert!(!editors_rename("Material.01", "Material"));
        assert!(!editors_rename("Material.002x", "Material"));
        assert!(!editors_rename("Metal", "Material"));
        assert!(!editors_rename("Material.001", "Mat"));
        let long = "長い名前のフレーム".repeat(5); // 135 bytes
        let cut = &long[..63]; // 21 characters, as Blender keeps it
        assert!(editors_rename(cut, &long));
        let cut_unique = format!("{}.001", &long[..57]);
        assert!(editors_rename(&cut_unique, &long));
        assert!(
            !editors_rename(&long[..30], &long),
            "cut far below the limit: the user's"
        );
        assert!(!editors_rename("", &long));
    }
}
