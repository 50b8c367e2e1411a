//! Large exact arrays of the extras as bytes beside the scene ([`Scene::blobs`]), not as text.
//!
//! An extras value `{"bufferView": i}` names blob `i`. The glTF writer puts blob `i` in buffer
//! view `i` (the blobs' views come first), so those extras are written as they are and name the
//! right view of the file; the reader copies each view the extras name into the scene's blobs
//! (once per view, within its decoding budget) and renumbers the extras to match. The bytes are
//! the source's own, little-endian, so glTF tools that ignore extras see only unused views.
//!
//! This is the one place that makes and reads the reference; the converters use [`put`] on the
//! way out and [`get`] (or [`bytes_or`], which still reads the old text forms) on the way back.

// The writer and reader (feature `gltf`) and each format's converters use different parts.
#![cfg_attr(
    not(all(feature = "gltf", feature = "smf", feature = "bmf", feature = "mdl")),
    allow(dead_code)
)]

use super::Scene;
use crate::json_path::At;
use crate::scene::Array;
use serde_json::{json, Map, Value};
use std::borrow::Cow;
use std::fmt::Display;

/// The key of a blob reference.
pub(crate) const KEY: &str = "bufferView";

/// Keeps `bytes` as a new blob of `blobs`; the extras value naming it.
pub(crate) fn put(blobs: &mut Vec<Array<u8>>, bytes: Vec<u8>) -> Value {
    blobs.push(bytes.into());
    json!({ KEY: blobs.len() - 1 })
}

/// Below this many bytes an array stays text in the JSON (hex, base64): a view each would only
/// lengthen the file. Also keeps empty arrays out of views (glTF views are never empty).
pub(crate) const SMALL: usize = 1024;

/// `bytes` as a blob when they are large, else as the text `text` makes of them.
pub(crate) fn put_or_text(
    blobs: &mut Vec<Array<u8>>,
    bytes: Vec<u8>,
    text: impl FnOnce(&[u8]) -> String,
) -> Value {
    if bytes.len() < SMALL {
        Value::String(text(&bytes))
    } else {
        put(blobs, bytes)
    }
}

/// The blob `value` names (`{"bufferView": i}`), if it is one of `blobs`.
pub(crate) fn get<'a>(blobs: &'a [Array<u8>], value: &Value) -> Option<&'a [u8]> {
    let i = usize::try_from(super::lenient::uint(value.as_object()?.get(KEY)?)?).ok()?;
    blobs.get(i).map(|b| b.as_slice())
}

/// The bytes of an extras value: a blob, or the text form of earlier exports decoded by
/// `text` (hex, base64).
pub(crate) fn bytes_or<'a>(
    blobs: &'a [Array<u8>],
    value: &Value,
    text: impl FnOnce(&str) -> Option<Vec<u8>>,
) -> Option<Cow<'a, [u8]>> {
    match value {
        Value::String(s) => text(s).map(Cow::Owned),
        _ => get(blobs, value).map(Cow::Borrowed),
    }
}

/// Every blob reference in `scene`'s extras (at any depth), in a fixed order: the scene's,
/// then nodes', meshes', materials' and animations'. `visit` may rewrite each; it gets the
/// reference's place, spelt only if it is displayed.
pub(crate) fn for_each_ref(scene: &mut Scene, mut visit: impl FnMut(&dyn Display, &mut Value)) {
    let mut walk = |owner: At<'_>, map: &mut Map<String, Value>| {
        let extras = At::Field(&owner, "extras");
        for (key, value) in map.iter_mut() {
            refs_in(&At::Field(&extras, key), value, &mut visit);
        }
    };
    walk(At::Top("scene"), &mut scene.extras);
    for (i, n) in scene.nodes.iter_mut().enumerate() {
        walk(At::Item("nodes", i), &mut n.extras);
    }
    for (i, m) in scene.meshes.iter_mut().enumerate() {
        walk(At::Item("meshes", i), &mut m.extras);
    }
    for (i, m) in scene.materials.iter_mut().enumerate() {
        walk(At::Item("materials", i), &mut m.extras);
    }
    for (i, a) in scene.animations.iter_mut().enumerate() {
        walk(At::Item("animations", i), &mut a.extras);
    }
}

/// The references in one extras value: objects with an integer `bufferView` key.
fn refs_in(at: &dyn Display, value: &mut Value, visit: &mut impl FnMut(&dyn Display, &mut Value)) {
    match value {
        Value::Object(o) => {
            if o.get(KEY).is_some_and(Value::is_u64) {
                visit(at, value);
                return;
            }
            // Only containers can hold a reference: long arrays of numbers are not walked.
            for (key, v) in o.iter_mut().filter(|(_, v)| is_container(v)) {
                refs_in(&At::Field(at, key), v, visit);
            }
        }
        Value::Array(a) => {
            for (i, v) in a.iter_mut().enumerate().filter(|(_, v)| is_container(v)) {
                refs_in(&At::Index(at, i), v, visit);
            }
        }
        _ => {}
    }
}

/// Whether `value` holds a reference the glTF reader cut (`{"bufferView": null}`: the view it
/// named held another tool's data).
pub(crate) fn has_cut_ref(value: &Value) -> bool {
    match value {
        Value::Object(o) => match o.get(KEY) {
            Some(v) => v.is_null(),
            None => o.values().any(has_cut_ref),
        },
        Value::Array(a) => a.iter().any(has_cut_ref),
        _ => false,
    }
}

/// `value` (an extras value of a scene whose blobs are `from`) for a scene whose blobs are
/// `to`: each blob it names copied to the end of `to`, and the reference renumbered (a
/// reference to no blob of `from` is cut, `null`).
pub(crate) fn copy_with_blobs(value: &Value, from: &[Array<u8>], to: &mut Vec<Array<u8>>) -> Value {
    match value {
        Value::Object(o) if o.get(KEY).is_some_and(Value::is_u64) => match get(from, value) {
            Some(bytes) => put(to, bytes.to_vec()),
            None => json!({ KEY: null }),
        },
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (k.clone(), copy_with_blobs(v, from, to)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(|v| copy_with_blobs(v, from, to)).collect()),
        other => other.clone(),
    }
}

/// The blobs `value` names, in order (`None` for a reference to no blob of `blobs`), for
/// comparing extras of two scenes by what they hold rather than by blob number.
pub(crate) fn named<'a>(value: &Value, blobs: &'a [Array<u8>], out: &mut Vec<Option<&'a [u8]>>) {
    match value {
        Value::Object(o) if o.get(KEY).is_some_and(Value::is_u64) => out.push(get(blobs, value)),
        Value::Object(o) => o.values().for_each(|v| named(v, blobs, out)),
        Value::Array(a) => a.iter().for_each(|v| named(v, blobs, out)),
        _ => {}
    }
}

fn is_container(v: &Value) -> bool {
    v.is_object() || v.is_array()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_name_their_blob_and_text_still_reads() {
        let mut blobs = Vec::new();
        let a = put(&mut blobs, vec![1, 2, 3]);
        let b = put(&mut blobs, vec![4]);
        assert_eq!(b, json!({ "bufferView": 1 }));
        assert_eq!(get(&blobs, &a), Some(&[1u8, 2, 3][..]));
        assert_eq!(get(&blobs, &json!({ "bufferView": 2 })), None);
        assert_eq!(get(&blobs, &json!("0102")), None);
        let text = |s: &str| Some(s.as_bytes().to_vec());
        assert_eq!(bytes_or(&blobs, &b, text).as_deref(), Some(&[4u8][..]));
        assert_eq!(
            bytes_or(&blobs, &json!("x"), text).as_deref(),
            Some(&b"x"[..])
        );
    }

    #[test]
    fn every_reference_is_visited_once() {
        let mut scene = Scene::default();
        scene.extras.insert("a".into(), json!({ "bufferView": 0 }));
        scene.extras.insert(
            "b".into(),
            json!({ "x": [{ "bufferView": 1, "n": 2 }, 3], "y": { "bufferView": "no" } }),
        );
        let mut seen = Vec::new();
        for_each_ref(&mut scene, |at, v| {
            seen.push(at.to_string());
            *v = json!({ "bufferView": 7 });
        });
        assert_eq!(seen, ["scene.extras.a", "scene.extras.b.x[0]"]);
        assert_eq!(scene.extras["b"]["x"][0], json!({ "bufferView": 7 }));
    }
}
