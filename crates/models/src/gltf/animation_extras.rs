//! A copy of each animation's small extras in the scene's, for editors that drop the extras of
//! animations.
//!
//! Blender (3.4, checked) keeps the extras of scenes, nodes, meshes and materials as custom
//! properties, but writes none for animations. What the export keeps there is what makes a clip
//! the file's again: SMF's animation set order and last time (the game picks sets by index),
//! ELEM's loop, priority and transition times, MDL's source of each clip. Without it, the way
//! back reorders SMF sets and shortens clips to their last key, silently.
//!
//! The writer ([`keep`]) copies, for every animation written, each of its extras entries whose
//! JSON is at most [`SMALL_ENTRY_BYTES`] (the settings, not the exact key arrays, which an
//! editor's resampling makes useless anyway) into the scene's `animation_extras`: one object per
//! animation, in order, with its name (`of_animation`). The reader ([`restore`]) gives an
//! animation that has no extras of its own the copy of the same name, says so once, and removes
//! `animation_extras`, so our own file reads back as the scene it was written from.

use super::json;
use serde_json::{Map, Value};

/// The scene extras key of the copies.
const KEY: &str = "animation_extras";

/// The key of a copy that holds its animation's name.
const NAME: &str = "of_animation";

/// The largest extras entry (its JSON) that is copied.
const SMALL_ENTRY_BYTES: usize = 256;

/// Copies the animations' small extras into the first scene's (see the module docs).
pub(crate) fn keep(root: &mut json::Root) -> Result<(), serde_json::Error> {
    let mut copies = Vec::new();
    for a in &root.animations {
        let Some(raw) = &a.extras else {
            copies.push(Value::Object(Map::new()));
            continue;
        };
        let extras: Map<String, Value> = serde_json::from_str(raw.get())?;
        let mut copy = Map::new();
        for (k, v) in extras {
            let text = serde_json::to_string(&v)?;
            // A blob reference names a view an editor does not keep either.
            if text.len() <= SMALL_ENTRY_BYTES && !text.contains("\"bufferView\"") {
                copy.insert(k, v);
            }
        }
        if !copy.is_empty() {
            copy.insert(
                NAME.into(),
                Value::String(a.name.clone().unwrap_or_default()),
            );
        }
        copies.push(Value::Object(copy));
    }
    if copies
        .iter()
        .all(|c| c.as_object().is_some_and(Map::is_empty))
    {
        return Ok(());
    }
    let Some(scene) = root.scenes.first_mut() else {
        return Ok(());
    };
    let mut extras: Map<String, Value> = match &scene.extras {
        Some(raw) => serde_json::from_str(raw.get())?,
        None => Map::new(),
    };
    extras.insert(KEY.into(), Value::Array(copies));
    scene.extras = Some(serde_json::value::to_raw_value(&extras)?);
    Ok(())
}

/// Gives each animation without extras of its own the copy of the same name from the scene's
/// extras, and removes the copies; how many animations got theirs back and the first place.
pub(crate) fn restore(scene: &mut crate::scene::Scene) -> Option<(usize, String)> {
    let Some(Value::Array(copies)) = scene.extras.remove(KEY) else {
        return None;
    };
    let mut restored = 0;
    let mut first = None;
    let mut used = vec![false; copies.len()];
    for (i, anim) in scene.animations.iter_mut().enumerate() {
        if !anim.extras.is_empty() {
            continue;
        }
        // The copy of the same name not yet given (in order: names may repeat); an editor may
        // have made the name unique.
        let found = copies.iter().enumerate().position(|(k, c)| {
            let name = c.get(NAME).and_then(Value::as_str);
            !used.get(k).copied().unwrap_or(true)
                && name
                    .is_some_and(|n| n == anim.name || super::names::editors_rename(&anim.name, n))
        });
        let Some(k) = found else { continue };
        if let Some(u) = used.get_mut(k) {
            *u = true;
        }
        let Some(Value::Object(copy)) = copies.get(k) else {
            continue;
        };
        anim.extras = copy
            .iter()
            .filter(|(key, _)| key.as_str() != NAME)
            .map(|(key, v)| (key.clone(), v.clone()))
            .collect();
        restored += 1;
        first.get_or_insert(format!("animations[{i}].extras"));
    }
    first.map(|at| (restored, at))
}
