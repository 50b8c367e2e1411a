//! `--base` with a glTF file that carries none of the extras an export writes (Blender without
//! "Custom Properties"): the base's extras of the scene, and of each material, node and clip of
//! the same name, come back.
//!
//! The extras hold what glTF has no place for: SMF render states, BMF and MDL file versions,
//! exact matrices, texture paths as the file wrote them, specular colours, light maps, the
//! textures the export could not find (the material's own fields in the base's scene). Without them, every importer falls
//! back on defaults, and an unedited model changes. The editor wrote no extras at all, so none
//! of them is an edit to keep. And the importers use an extra only where the scene still agrees
//! with it (a texture path where the scene's texture is that file, an exact matrix where the
//! node's transform is it), as they do when an editor keeps extras beside an edit: an edited
//! part keeps the edit.
//!
//! Only empty extras are filled (the mesh and skeleton welds may have given some back already).
//! Parts pair by name in order (the second `Material` with the base's second), an editor's
//! `.001` allowed. One
//! warning counts what came back.

use super::super::lenient::unique_stem;
use super::super::{blob, Material, SceneWarning, ValidScene};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::HashMap;

/// Gives the scene the base's extras (module docs); `bare`: the glTF file carried none.
pub(super) fn onto_base(
    scene: &mut Cow<'_, ValidScene>,
    base: &ValidScene,
    bare: bool,
) -> Vec<SceneWarning> {
    if !bare {
        return Vec::new();
    }
    let parts = scene.to_mut().parts_mut();
    let mut given = Vec::new();
    let mut fill = |mine: &mut Map<String, Value>, theirs: &Map<String, Value>| {
        if !mine.is_empty() || theirs.is_empty() {
            return false;
        }
        for (key, value) in theirs {
            mine.insert(
                key.clone(),
                blob::copy_with_blobs(value, &base.blobs, parts.blobs),
            );
        }
        true
    };
    if fill(parts.extras, &base.extras) {
        given.push("the scene's".to_owned());
    }
    let mut count = |what: &str, n: usize| {
        if n > 0 {
            given.push(format!("{n} {what}"));
        }
    };
    let mut materials = by_name(base.materials.iter().map(|m| m.name.as_str()));
    let mut textures = Vec::new();
    let mut renamed = 0;
    let n = (parts.materials.iter_mut())
        .filter_map(|m| {
            let theirs = base.materials.get(find(&mut materials, &m.name)?)?;
            renamed += usize::from(rename(&mut m.name, &theirs.name));
            let (parts, given) = fill_material(m, theirs);
            textures.extend(given);
            Some(fill(&mut m.extras, &theirs.extras) || parts)
        })
        .filter(|&done| done)
        .count();
    count("material(s)'", n);
    let nodes = (parts.nodes.iter_mut()).map(|n| (&mut n.name, &mut n.extras));
    let theirs = |i: usize| base.nodes.get(i).map(|n| (n.name.as_str(), &n.extras));
    let n = fill_named(nodes, base.nodes.len(), theirs, &mut fill, &mut renamed);
    count("node(s)'", n);
    let clips = (parts.animations.iter_mut()).map(|a| (&mut a.name, &mut a.extras));
    let theirs = |i: usize| base.animations.get(i).map(|a| (a.name.as_str(), &a.extras));
    let n = fill_named(
        clips,
        base.animations.len(),
        theirs,
        &mut fill,
        &mut renamed,
    );
    count("clip(s)'", n);
    let mut said = Vec::new();
    if !given.is_empty() {
        let names = if renamed > 0 {
            format!("; {renamed} name(s) an editor made unique (`.001`) given back as the base's")
        } else {
            String::new()
        };
        said.push(SceneWarning::other(
            "scene",
            format!(
                "the base's extras given back for {} of the same names (the file carries none; \
                 an importer uses each only where the scene still agrees with it){names}",
                given.join(", ")
            ),
        ));
    }
    if !textures.is_empty() {
        said.push(SceneWarning::other(
            "materials",
            format!(
                "textures the file does not name given back from the base: {} (an export keeps \
                 a texture it cannot find only in its extras, which this file lacks; a texture \
                 you removed in the editor comes back too: export with Include → Custom \
                 Properties to keep that edit)",
                textures.join(", ")
            ),
        ));
    }
    said
}

/// Gives `ours` the base material's parts that glTF carries only in extras, where `ours` has
/// none: specular colour and power, light and specular maps, and colour and normal textures
/// (the export writes a texture file it could not find as an extra). Whether it gave any, and
/// the textures it gave (a user may have removed one: the warning names them).
fn fill_material(ours: &mut Material, theirs: &Material) -> (bool, Vec<String>) {
    fn take<T: Clone>(mine: &mut Option<T>, theirs: &Option<T>) -> bool {
        let give = mine.is_none() && theirs.is_some();
        if give {
            mine.clone_from(theirs);
        }
        give
    }
    let mut textures = Vec::new();
    for (mine, theirs) in [
        (&mut ours.color_texture, &theirs.color_texture),
        (&mut ours.normal_texture, &theirs.normal_texture),
    ] {
        if take(mine, theirs) {
            textures.extend(
                theirs
                    .iter()
                    .map(|t| format!("{:?}'s texture {t:?}", ours.name)),
            );
        }
    }
    let given = [
        take(&mut ours.specular, &theirs.specular),
        take(&mut ours.light_map, &theirs.light_map),
        take(&mut ours.specular_texture, &theirs.specular_texture),
    ];
    (given.contains(&true) || !textures.is_empty(), textures)
}

/// Pairs each of `ours` (a name and its extras) with the base item of its name (of `count`,
/// `theirs` by index; [`find`]), gives back the name an editor made unique ([`rename`], counted
/// in `renamed`) and fills its extras with `fill`. Returns how many were filled.
fn fill_named<'a, 'b>(
    ours: impl Iterator<Item = (&'a mut String, &'a mut Map<String, Value>)>,
    count: usize,
    theirs: impl Fn(usize) -> Option<(&'b str, &'b Map<String, Value>)>,
    fill: &mut impl FnMut(&mut Map<String, Value>, &Map<String, Value>) -> bool,
    renamed: &mut usize,
) -> usize {
    let mut names = by_name((0..count).filter_map(|i| theirs(i).map(|(name, _)| name)));
    let mut filled = 0;
    for (name, extras) in ours {
        let Some((their_name, their_extras)) = find(&mut names, name).and_then(&theirs) else {
            continue;
        };
        *renamed += usize::from(rename(name, their_name));
        filled += usize::from(fill(extras, their_extras));
    }
    filled
}

/// Gives `name` the base's `theirs` when an editor made it unique (`.001`); whether it did.
fn rename(name: &mut String, theirs: &str) -> bool {
    let renamed = *name != theirs && unique_stem(name) == Some(theirs);
    if renamed {
        *name = theirs.to_owned();
    }
    renamed
}

/// The indices of each name, last first (so that [`find`] takes them in order).
fn by_name<'a>(names: impl Iterator<Item = &'a str>) -> HashMap<&'a str, Vec<usize>> {
    let mut map: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, name) in names.enumerate() {
        map.entry(name).or_default().push(i);
    }
    map.values_mut().for_each(|list| list.reverse());
    map
}

/// The next index of `name`, or of the name an editor made unique as it (`.001`): the k-th
/// item of a repeated name pairs with the base's k-th.
fn find(names: &mut HashMap<&str, Vec<usize>>, name: &str) -> Option<usize> {
    if let Some(i) = names.get_mut(name).and_then(Vec::pop) {
        return Some(i);
    }
    names.get_mut(unique_stem(name)?)?.pop()
}
