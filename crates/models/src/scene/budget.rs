//! The conversion budget: how much a conversion may allocate and write for an input of a given
//! size, and the accounting that enforces it.
//!
//! **Rule.** For an input of `n` bytes, [`Scene::from_document_with`](super::Scene) and the glTF
//! writer together stay within **64 × n + 16 MiB** of memory, and the `.glb` within the same.
//! The converter enforces it on the scene: the scene's [`cost`] may not exceed **16 × n +
//! 4 MiB** (a quarter), because writing holds the scene, the binary buffer, the JSON and the
//! finished `.glb` at once (each at most about the scene's cost: see [`cost`]).
//!
//! Converters charge the budget *before* they allocate wherever a file can ask for much more
//! than its own size (a declared bone count with no data behind it, curve resampling), so a
//! hostile file is refused with [`Error::BudgetExceeded`] naming
//! the limit and the place, instead of allocating until the process aborts. The whole scene is
//! charged once more at the end, which bounds what the writer will make of it.

use super::{Animation, Mesh, Scene};
use crate::hash::{address_set, AddressSet};
use crate::{Error, Position};

/// Bytes of budget per input byte for the scene (a quarter of the documented 64).
pub const SCENE_BYTES_PER_INPUT_BYTE: u64 = 16;
/// The constant part of the scene's budget (a quarter of the documented 16 MiB).
pub const SCENE_BYTES_CONSTANT: u64 = 4 << 20;
/// What one JSON object (node, accessor, channel, sampler, material, …) may cost in the glTF
/// text, generously: names and extras are counted on top.
pub(crate) const JSON_OBJECT: u64 = 256;

/// Where a charge comes from: a description, and the position in the file when known.
pub(crate) struct Place {
    pub(crate) text: String,
    pub(crate) position: Option<Position>,
}

impl From<String> for Place {
    fn from(text: String) -> Self {
        Self {
            text,
            position: None,
        }
    }
}

/// A conversion budget in bytes, and how much of it is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    limit: u64,
    used: u64,
    input_len: Option<u64>,
}

impl Budget {
    /// The budget for an input of `input_len` bytes: 16 × input + 4 MiB for the scene (so that
    /// scene plus writer stay within 64 × input + 16 MiB).
    pub fn for_input(input_len: u64) -> Self {
        Self {
            limit: input_len
                .saturating_mul(SCENE_BYTES_PER_INPUT_BYTE)
                .saturating_add(SCENE_BYTES_CONSTANT),
            used: 0,
            input_len: Some(input_len),
        }
    }

    /// No limit (the structural bounds of the converters still apply).
    pub fn unlimited() -> Self {
        Self {
            limit: u64::MAX,
            used: 0,
            input_len: None,
        }
    }

    /// The limit in bytes.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Bytes charged so far.
    pub fn used(&self) -> u64 {
        self.used
    }

    /// Charges `bytes` for `what` at `place`, or refuses when the total would pass the limit.
    pub(crate) fn charge<P: Into<Place>>(
        &mut self,
        bytes: u64,
        what: impl FnOnce() -> String,
        place: impl FnOnce() -> P,
    ) -> Result<(), Error> {
        let total = self.used.saturating_add(bytes);
        if total > self.limit {
            let place = place().into();
            return Err(Error::BudgetExceeded {
                place: place.text,
                position: place.position,
                what: what(),
                needed: total,
                limit: self.limit,
                input_len: self.input_len,
            });
        }
        self.used = total;
        Ok(())
    }
}

/// The most a format writer may make of a scene (the way back), in bytes: 16 × the scene's
/// [`cost`] + 16 MiB. The cost counts a shared index list or key array once, but a format
/// without sharing writes it once per use (SMF and MDL copy each primitive's range, SMF each
/// channel's keys), so a small scene could ask for gigabytes; the writers charge what they
/// expand against this limit first. BMF's animation bake has the same bound.
pub(crate) fn writing_limit(scene: &Scene) -> u64 {
    cost(scene)
        .saturating_mul(WRITE_BYTES_PER_SCENE_BYTE)
        .saturating_add(WRITE_BYTES_CONSTANT)
}

/// Bytes a format writer may make per byte of the scene's [`cost`].
pub const WRITE_BYTES_PER_SCENE_BYTE: u64 = 16;
/// The constant part of a format writer's limit (16 MiB).
pub const WRITE_BYTES_CONSTANT: u64 = 16 << 20;

impl Budget {
    /// The budget of a format writer for `scene`: [`writing_limit`].
    pub(crate) fn for_writing(scene: &Scene) -> Self {
        Self {
            limit: writing_limit(scene),
            used: 0,
            input_len: None,
        }
    }

    /// The budget of a format writer's animation keys: [`Self::for_writing`], or, when the
    /// scene has no animation to charge, none at all (so that a static model's import does
    /// not compute the cost, which serialises every extras map).
    pub(crate) fn for_keys(scene: &Scene) -> Self {
        if scene.animations.is_empty() {
            Self::unlimited()
        } else {
            Self::for_writing(scene)
        }
    }
}

/// Refuses a scene whose primitives' index ranges, each counted once per primitive (as the
/// format writers copy them, 4 bytes an index at most), would pass [`writing_limit`]:
/// overlapping ranges of one shared list (BMF and SMF materials can overlap) would otherwise
/// multiply into the output.
pub(crate) fn check_index_uses(scene: &Scene) -> Result<(), Error> {
    // Without a list used by more than one primitive, the copies are the lists the scene's
    // cost already counts: nothing to check, and no cost to compute (it serialises extras).
    let shared = scene.meshes.iter().any(|mesh| {
        let mut lists = address_set(mesh.primitives.len());
        !mesh
            .primitives
            .iter()
            .all(|p| lists.insert(std::sync::Arc::as_ptr(p.indices.list())))
    });
    if !shared {
        return Ok(());
    }
    let mut budget = Budget::for_writing(scene);
    for (m, mesh) in scene.meshes.iter().enumerate() {
        let indices: u64 = mesh
            .primitives
            .iter()
            .map(|p| p.indices.as_slice().len() as u64)
            .sum();
        budget.charge(
            indices.saturating_mul(4),
            || {
                format!(
                    "{indices} indices (each primitive's range copied; the scene costs {} \
                     bytes, and a writer may make 16 × that + 16 MiB)",
                    cost(scene)
                )
            },
            || format!("mesh {m} ({:?})", mesh.name),
        )?;
    }
    Ok(())
}

impl Default for Budget {
    fn default() -> Self {
        Self::unlimited()
    }
}

fn len_bytes<T>(v: &[T]) -> u64 {
    (std::mem::size_of_val(v) as u64).saturating_add(JSON_OBJECT)
}

/// What a scene costs in memory and in glTF output, generously: every array's bytes (a shared
/// index list or key array once, as the glTF writer writes it once), plus 256 bytes per node,
/// mesh, primitive, material, skin joint, animation, channel.
pub fn cost(scene: &Scene) -> u64 {
    let mut total: u64 = 0;
    let mut add = |n: u64| total = total.saturating_add(n);
    for node in &scene.nodes {
        add(JSON_OBJECT + node.name.len() as u64 + 8 * node.children.len() as u64);
        add(extras_len(&node.extras));
    }
    add(8 * scene.roots.len() as u64);
    for mesh in &scene.meshes {
        add(mesh_cost(mesh));
    }
    for m in &scene.materials {
        add(JSON_OBJECT + m.name.len() as u64 + extras_len(&m.extras));
        for t in [
            &m.color_texture,
            &m.normal_texture,
            &m.light_map,
            &m.specular_texture,
        ]
        .into_iter()
        .flatten()
        {
            add(JSON_OBJECT + t.len() as u64);
        }
    }
    for skin in &scene.skins {
        add(JSON_OBJECT + skin.name.len() as u64);
        add(len_bytes(&skin.joints) + len_bytes(&skin.inverse_bind_matrices));
    }
    let channels = scene
        .animations
        .iter()
        .map(|a| a.channels.len())
        .sum::<usize>();
    let mut keys = address_set(channels.saturating_mul(2));
    for a in &scene.animations {
        add(animation_cost(a, &mut keys));
    }
    add(extras_len(&scene.extras));
    for blob in &scene.blobs {
        add(blob.len() as u64);
    }
    total
}

fn mesh_cost(mesh: &Mesh) -> u64 {
    let v = &mesh.vertices;
    let mut total = JSON_OBJECT + mesh.name.len() as u64 + extras_len(&mesh.extras);
    total = total
        .saturating_add(len_bytes(&v.positions))
        .saturating_add(v.normals.as_deref().map_or(0, len_bytes))
        .saturating_add(v.tangents.as_deref().map_or(0, len_bytes))
        .saturating_add(v.uv0.as_deref().map_or(0, len_bytes))
        .saturating_add(v.uv1.as_deref().map_or(0, len_bytes))
        .saturating_add(v.colors.as_ref().map_or(0, |c| match c {
            super::Colors::Bytes(b) => len_bytes(b),
            super::Colors::Floats(f) => len_bytes(f),
        }))
        .saturating_add(v.joints.as_deref().map_or(0, len_bytes))
        .saturating_add(v.weights.as_deref().map_or(0, len_bytes));
    // A shared index list counts once (the writer writes it once, or copies non-overlapping
    // ranges, which add up to at most the list); an unshared primitive counts its own indices.
    let mut lists = address_set(mesh.primitives.len());
    for p in &mesh.primitives {
        let list = p.indices.list();
        if lists.insert(std::sync::Arc::as_ptr(list)) {
            total = total.saturating_add(list.len() as u64 * 4);
        }
        total = total.saturating_add(JSON_OBJECT);
    }
    total
}

/// Key arrays shared between channels (clips of one MDL source, BMF sample times) are held and
/// written once; each channel still has its channel and sampler objects.
fn animation_cost(a: &Animation, seen: &mut AddressSet<*const Vec<f32>>) -> u64 {
    let mut total = JSON_OBJECT + a.name.len() as u64 + extras_len(&a.extras);
    for ch in &a.channels {
        total = total.saturating_add(2 * JSON_OBJECT);
        for keys in [&ch.times, &ch.values] {
            if seen.insert(keys.as_ptr()) {
                total = total.saturating_add(len_bytes(keys));
            }
        }
    }
    total
}

/// The length of the extras as compact JSON, as serde_json writes it, worked out rather than
/// written: a large model's exact extras are tens of MB of base64 and hex, and escaping them
/// only to count them cost as much as writing them (issue 18; 4 % of a skinned SMF export).
fn extras_len(m: &serde_json::Map<String, serde_json::Value>) -> u64 {
    if m.is_empty() {
        return 0;
    }
    object_len(m)
}

fn object_len(m: &serde_json::Map<String, serde_json::Value>) -> u64 {
    // `{`, `}`, and a `:` per entry and a `,` between entries.
    let punctuation = 2 + (2 * m.len() as u64).saturating_sub(1);
    m.iter().fold(punctuation, |total, (key, value)| {
        total
            .saturating_add(string_len(key))
            .saturating_add(json_len(value))
    })
}

fn json_len(v: &serde_json::Value) -> u64 {
    use serde_json::Value;
    match v {
        Value::Null | Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(n) => number_len(n),
        Value::String(s) => string_len(s),
        Value::Array(items) => {
            let punctuation = 2 + (items.len() as u64).saturating_sub(1);
            items.iter().fold(punctuation, |total, item| {
                total.saturating_add(json_len(item))
            })
        }
        Value::Object(m) => object_len(m),
    }
}

/// A number's length, spelled by serde_json's own formatting to stay exact, into a counter
/// rather than a string (extras can hold thousands of numbers: collision meshes, OBBs).
fn number_len(n: &serde_json::Number) -> u64 {
    struct Count(u64);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 = self.0.saturating_add(buf.len() as u64);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    serde_json::to_writer(&mut count, n).map_or(0, |()| count.0)
}

/// Whether JSON escapes some byte of `s` (`"`, `\\` or a control character). One branch-free
/// pass, which vectorises: the extras' strings are mostly long runs of hex or base64.
pub(crate) fn needs_escape(s: &str) -> bool {
    s.bytes().fold(false, |any, b| {
        any | (b < 0x20) | (b == b'"') | (b == b'\\')
    })
}

/// A JSON string's length with its quotes and escapes: serde_json escapes `"`, `\` and the
/// control characters, five of them as two characters (`\b \t \n \f \r`), the others as
/// six (`\u00XX`).
fn string_len(s: &str) -> u64 {
    let bytes = s.as_bytes();
    let escapes = if needs_escape(s) {
        bytes
            .iter()
            .map(|&b| match b {
                b'"' | b'\\' | 0x08 | 0x09 | 0x0A | 0x0C | 0x0D => 1,
                0..=0x1F => 5,
                _ => 0,
            })
            .sum()
    } else {
        0
    };
    (bytes.len() as u64).saturating_add(2 + escapes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Map, Value};

    /// The worked-out length is serde_json's own, for every kind of value and every byte a
    /// string may need escaped.
    #[test]
    fn extras_len_is_the_written_length() {
        let every_ascii: String = (0u8..0x80).map(char::from).collect();
        let mut m = Map::new();
        m.insert("plain".into(), json!("0123456789abcdef"));
        m.insert("ascii".into(), Value::String(every_ascii));
        m.insert("k\"ey\n\u{1}".into(), json!("é€😀 \u{7f}\u{1f}\\"));
        m.insert(
            "numbers".into(),
            json!([
                0,
                -1,
                u64::MAX,
                i64::MIN,
                0.1,
                -0.0,
                1e300,
                5e-324,
                1.5e-7,
                123456.789
            ]),
        );
        m.insert(
            "nested".into(),
            json!({"a": [[], {}, [null, true, false]], "b": {}}),
        );
        m.insert("empty".into(), json!(""));
        assert_eq!(extras_len(&m), serde_json::to_vec(&m).unwrap().len() as u64);
        for (key, value) in &m {
            let one = Map::from_iter([(key.clone(), value.clone())]);
            assert_eq!(
                extras_len(&one),
                serde_json::to_vec(&one).unwrap().len() as u64,
                "{key}"
            );
        }
        assert_eq!(extras_len(&Map::new()), 0);
    }
}
