//! A copy of each animation's small extras in the scene's, for editors that drop the extras of
//! animations.
//!
//! Blender (3.4, checked) keeps the extras of scenes, nodes, meshes and materials as custom
//! properties, but writes none for animations. What the export keeps there is what makes a clip
//! the file's again: SMF's animation set order and last time (the game picks sets by index),
//! ELEM's loop, priority and transition times, MDL's source of each clip. Without it, the way
//! back reorders SMF sets and shortens clips to their last key, silently.
//!
//! The writer ([`small_copy`], [`with_copies`]) copies, for every animation written, each of
//! its extras entries whose JSON is at most [`SMALL_ENTRY_BYTES`] (the settings, not the exact
//! key arrays, which an editor's resampling makes useless anyway) into the scene's
//! `animation_extras`: one object per animation, in order, with its name (`of_animation`).
//! The reader ([`restore`]) gives an animation that has no extras of its own the copy of the
//! same name, says so once, and removes `animation_extras`, so our own file reads back as the
//! scene it was written from.

use serde_json::{Map, Value};

/// The scene extras key of the copies.
const KEY: &str = "animation_extras";

/// The key of a copy that holds its animation's name.
const NAME: &str = "of_animation";

/// The largest extras entry (its JSON) that is copied.
const SMALL_ENTRY_BYTES: usize = 256;

/// The copy of an animation's small extras entries (see the module docs), `None` when it has
/// none. Each entry's size is found by serialising at most [`SMALL_ENTRY_BYTES`] + 1 bytes of it,
/// so a large entry (exact keys: hundreds of KB) costs no more than a small one.
pub(crate) fn small_copy(name: &str, extras: &Map<String, Value>) -> Option<Value> {
    let mut copy = Map::new();
    for (k, v) in extras {
        if is_small(v) && !holds_blob_reference(v) {
            copy.insert(k.clone(), v.clone());
        }
    }
    if copy.is_empty() {
        return None;
    }
    copy.insert(NAME.into(), Value::String(name.to_owned()));
    Some(Value::Object(copy))
}

/// The scene's extras with the copies (one per animation written, in order; an empty object for
/// one without), when any copy is not empty.
pub(crate) fn with_copies(
    extras: &Map<String, Value>,
    copies: Vec<Option<Value>>,
) -> Option<Map<String, Value>> {
    if copies.iter().all(Option::is_none) {
        return None;
    }
    let mut out = extras.clone();
    let copies = copies
        .into_iter()
        .map(|c| c.unwrap_or_else(|| Value::Object(Map::new())));
    out.insert(KEY.into(), Value::Array(copies.collect()));
    Some(out)
}

/// Whether `v`'s JSON is at most [`SMALL_ENTRY_BYTES`], writing no more than one byte past it.
fn is_small(v: &Value) -> bool {
    struct Limit(usize);
    impl std::io::Write for Limit {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 = self.0.saturating_add(buf.len());
            if self.0 > SMALL_ENTRY_BYTES {
                return Err(std::io::ErrorKind::WriteZero.into());
            }
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    serde_json::to_writer(Limit(0), v).is_ok()
}

/// A blob reference names a view an editor does not keep either.
fn holds_blob_reference(v: &Value) -> bool {
    match v {
        Value::Object(m) => {
            m.contains_key(crate::scene::blob::KEY) || m.values().any(holds_blob_reference)
        }
        Value::Array(a) => a.iter().any(holds_blob_reference),
        _ => false,
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_small_entries_without_blob_references_are_copied() {
        let extras = json!({
            "loop": true,
            "smf_set": 2,
            "exact": "ab".repeat(200),
            "blob": {"bufferView": 0},
            "nested": [{"x": {"bufferView": 1}}],
        });
        let copy = small_copy("clip", extras.as_object().unwrap()).unwrap();
        assert_eq!(
            copy,
            json!({"loop": true, "smf_set": 2, "of_animation": "clip"})
        );
        assert!(small_copy("clip", &Map::new()).is_none());
        assert!(is_small(&json!("x".repeat(SMALL_ENTRY_BYTES - 2))));
        assert!(!is_small(&json!("x".repeat(SMALL_ENTRY_BYTES - 1))));
        assert!(with_copies(&Map::new(), vec![None, None]).is_none());
    }
}
