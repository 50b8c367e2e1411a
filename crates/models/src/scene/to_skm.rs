//! [`ValidScene`] → EditAnimation `.skm`: the mirror of `from_skm.rs`,
//! following `shared/formats/skm.md` §4 backwards and §5's writer profile.
//!
//! * **Handedness:** positions, normals and bone points `z → −z`, quaternions
//!   [`mirror_z_quat`](super::mirror_z_quat), every triangle `(a, b, c) → (a, c, b)` (clockwise
//!   front faces again), UVs unchanged. All sign flips and reorderings: an export comes back bit
//!   for bit.
//! * **One mesh.** SKM holds one D3DX mesh: every scene mesh is appended in order (a warning
//!   when there are several), at the first node that draws it; a static mesh's node transform
//!   (with its ancestors) is applied to its vertices, a skinned one is in bind space already.
//!   Tangents, a second UV set and vertex colours are dropped (warning); missing normals are
//!   computed, missing UVs are 0.
//! * **Faces and attribute ranges:** one range per primitive with a material (its faces and
//!   the span of vertices they use); a primitive without material gives faces in no range. The
//!   export's table (`extras.attribute_ranges`) is used instead while the primitives are still
//!   what the export made of it, so overlapping ranges and uncovered faces come back in place.
//! * **Adjacency:** computed from the triangles as D3DX's `GenerateAdjacency` does (see
//!   [`adjacency`](mod@adjacency)); the export's own (`extras.skm_adjacency`, kept only when it
//!   differs) is used while the faces are the export's.
//! * **Skinning:** the bones are the skins' joints (all skins merged, a warning when several),
//!   parents from the node tree (the nearest ancestor that is a joint), begin points from the
//!   inverse bind matrices (translation only: a bind rotation is lost, warning), end point,
//!   symmetric partner and initial posture from the nodes' extras (else the first child's
//!   begin, −1, identity). Influences: the export's words (`extras.skm_blend`) where they still
//!   give the scene's influences, else the scene's, largest first (so the implied fourth
//!   weight is the smallest), renormalised. An influence on a bone past 255 cannot be written
//!   (`Error::FormatLimit`: the palette holds bytes). A static mesh in a skinned file follows
//!   the bone above its node (bone 0 when none).
//! * **Materials:** every scene material in order: base colour → diffuse, emissive RGB and
//!   `extras.emissive_alpha` (else 1) → emissive, [`Material::specular`](super::Material) →
//!   specular and power (else black, 0), `extras.ambient` → ambient (else black), the colour
//!   texture → the texture name (`(NULL)` when none). Material names, normal, light and
//!   specular maps, alpha modes and double-sidedness are not held (warning).
//! * **Names** are encoded in the scene's `extras.skm_encoding` (else Shift-JIS): a name that
//!   does not encode, or holds a `"` or a line break, is `Error::FormatLimit` or, with
//!   [`ImportOptions::replace_bad_names`], replaced (warning). The export keeps raw names and
//!   texture names that text cannot carry (`extras.skm_name`, `extras.skm_texture`).
//! * **Animation:** SKM has none (it lives in the unspecified `.bnf`): every clip is dropped,
//!   with one warning naming them.
//!
//! **`--base`:** with a base document, its encoding is used when the scene does not name one,
//! and each part rebuilt from the scene that equals the base's (adjacency for the same
//! triangles and positions; bones equal but for a zero's sign) is the base's.

use super::{ImportOptions, Imported, Scene, SceneWarning, ValidScene};
use crate::{Error, Format};
use serde_json::Value;
use skm_text::{Encoding, Material, Name, Skm};

mod adjacency;
mod bones;
mod geometry;

pub(crate) use adjacency::adjacency;
pub(crate) use adjacency::matches as adjacency_matches;

/// Builds an SKM document from a validated scene; see the module docs.
pub(crate) fn convert(
    scene: &ValidScene,
    base: Option<&Skm>,
    options: &ImportOptions,
) -> Result<Imported<Skm>, Error> {
    let scene: &Scene = scene;
    let encoding = match scene.extras.get("skm_encoding").and_then(Value::as_str) {
        Some("utf-8") => Encoding::Utf8,
        Some(_) => Encoding::ShiftJis,
        None => base.map_or(Encoding::ShiftJis, |b| b.encoding),
    };
    let mut cx = Ctx {
        scene,
        options,
        encoding,
        warnings: Vec::new(),
    };
    animations(&mut cx);
    let tree = bones::Tree::new(scene);
    let bones = bones::bones(&mut cx, &tree)?;
    let mut geometry = geometry::Geometry::default();
    let mut written = 0usize;
    for i in 0..scene.meshes.len() {
        let nodes: Vec<usize> = (0..scene.nodes.len())
            .filter(|&n| scene.nodes.get(n).and_then(|x| x.mesh) == Some(i))
            .collect();
        let place = format!("mesh {i}");
        if nodes.len() > 1 {
            cx.warn(
                &place,
                format!(
                    "drawn by {} nodes; SKM has no instancing, written once (at the first node)",
                    nodes.len()
                ),
            );
        }
        let node = nodes.first().copied();
        let skinned = node
            .and_then(|n| scene.nodes.get(n))
            .and_then(|n| n.skin)
            .filter(|_| {
                let v = scene.meshes.get(i).map(|m| &m.vertices);
                v.is_some_and(|v| v.joints.is_some() && v.weights.is_some())
            });
        let before = geometry.triangles.len();
        geometry.add(
            &mut cx,
            &tree,
            &bones,
            i,
            &geometry::Placement { node, skinned },
        )?;
        written += usize::from(geometry.triangles.len() > before);
    }
    if written > 1 {
        cx.warn(
            "scene",
            format!("{written} meshes merged into the one SKM mesh"),
        );
    }
    if geometry.triangles.is_empty() {
        return Err(cx.limit(
            "scene",
            "no mesh with triangles; an SKM file holds one mesh".into(),
        ));
    }
    let materials = materials(&mut cx)?;
    let triangles = std::mem::take(&mut geometry.triangles);
    let vertices = std::mem::take(&mut geometry.vertices);
    let adjacency = match geometry.adjacency.take() {
        Some(a) if written == 1 => a,
        _ => adjacency(&vertices, &triangles),
    };
    let mut doc = Skm {
        encoding,
        vertices,
        triangles,
        adjacency,
        materials,
        attributes: geometry.attributes,
        bones: bones.bones,
    };
    check_counts(&mut cx, &mut doc)?;
    if let Some(base) = base {
        patch(&mut doc, base, &mut cx);
    }
    Ok(Imported {
        document: doc,
        warnings: cx.warnings,
    })
}

/// What the conversion needs at hand: the scene, the options, the names' encoding, warnings.
pub(super) struct Ctx<'a> {
    scene: &'a Scene,
    options: &'a ImportOptions,
    encoding: Encoding,
    warnings: Vec<SceneWarning>,
}

impl Ctx<'_> {
    /// The one place that makes this module's warnings.
    /// `skm: {place}: {message}`, the place naming the mesh, material, skin, … (its warnings
    /// have always printed that way).
    fn warn(&mut self, place: &str, message: String) {
        self.warnings
            .push(SceneWarning::other(format!("skm: {place}"), message));
    }

    fn limit(&self, place: &str, what: String) -> Error {
        Error::FormatLimit {
            format: Format::Skm,
            place: format!("skm {place}"),
            what,
        }
    }

    /// `text` as a name of the document's encoding; see the module docs.
    fn name(&mut self, text: &str, place: &str) -> Result<Name, Error> {
        let quotable = !text.contains(['"', '\r', '\n']);
        if let Some(name) = Name::encode(text, self.encoding).filter(|_| quotable) {
            return Ok(name);
        }
        let why = if quotable {
            "has a character CP932 cannot encode"
        } else {
            "holds a `\"` or a line break, which a quoted SKM string cannot"
        };
        if !self.options.replace_bad_names {
            return Err(self.limit(place, format!("name {text:?} {why}")));
        }
        let replaced: String = text
            .chars()
            .map(|c| {
                let mut buf = [0u8; 4];
                let ok = !matches!(c, '"' | '\r' | '\n')
                    && Name::encode(c.encode_utf8(&mut buf), self.encoding).is_some();
                if ok {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        self.warn(
            place,
            format!("name {text:?} {why}; replaced by {replaced:?}"),
        );
        Ok(Name::encode(&replaced, self.encoding).unwrap_or_default())
    }

    /// A bone's name: the export's raw bytes (`extras.skm_name`) while the node still has
    /// the name the export gave it, else the node's name.
    fn bone_name(&mut self, node: &super::Node, bone: usize) -> Result<Name, Error> {
        if let Some(raw) = bones::raw_bytes(node.extras.get("skm_name")) {
            let text = raw.decode(self.encoding);
            let given = if text.is_empty() {
                format!("bone_{bone}")
            } else {
                text.into_owned()
            };
            if given == node.name {
                return Ok(raw);
            }
        }
        self.name(&node.name, &format!("bone {bone} ({:?})", node.name))
    }
}

/// SKM holds no animation: one warning naming every clip.
fn animations(cx: &mut Ctx<'_>) {
    let clips = &cx.scene.animations;
    if clips.is_empty() {
        return;
    }
    let names: Vec<String> = clips.iter().map(|a| format!("{:?}", a.name)).collect();
    cx.warn(
        "scene",
        format!(
            "no animation in SKM: {} clips dropped ({})",
            clips.len(),
            names.join(", ")
        ),
    );
}

/// Every scene material, in order; see the module docs.
fn materials(cx: &mut Ctx<'_>) -> Result<Vec<Material>, Error> {
    let scene = cx.scene;
    let mut out = Vec::with_capacity(scene.materials.len());
    let mut renamed = Vec::new();
    let mut unheld = 0usize;
    for (i, m) in scene.materials.iter().enumerate() {
        if !m.name.is_empty() && m.name != format!("material_{i}") {
            renamed.push(format!("{:?}", m.name));
        }
        unheld += usize::from(
            m.normal_texture.is_some()
                || m.light_map.is_some()
                || m.specular_texture.is_some()
                || m.alpha_mode == super::AlphaMode::Mask
                || m.double_sided,
        );
        let floats = |key: &str| m.extras.get(key).and_then(bones::floats::<4>);
        let (specular, power) = m.specular.unwrap_or(([0.0, 0.0, 0.0, 1.0], 0.0));
        let emissive_alpha = m
            .extras
            .get("emissive_alpha")
            .and_then(Value::as_f64)
            .map_or(1.0, |a| a as f32);
        let [er, eg, eb] = m.emissive;
        let mut material = Material {
            diffuse: m.base_color,
            ambient: floats("ambient").unwrap_or([0.0, 0.0, 0.0, 1.0]),
            specular,
            emissive: [er, eg, eb, emissive_alpha],
            power,
            texture: None,
        };
        raw_colours(m, &mut material);
        let place = format!("material {i} ({:?})", m.name);
        material.texture = match m.color_texture.as_deref() {
            Some(t) => match bones::raw_bytes(m.extras.get("skm_texture")) {
                Some(raw) if raw.decode(cx.encoding).trim() == t => Some(raw),
                _ => Some(cx.name(t, &format!("{place} texture"))?),
            },
            None => bones::raw_bytes(m.extras.get("skm_texture"))
                .filter(|raw| raw.decode(cx.encoding).trim().is_empty()),
        };
        if material
            .texture
            .as_ref()
            .is_some_and(|t| t.raw.eq_ignore_ascii_case(b"(NULL)"))
        {
            cx.warn(
                &place,
                "a texture named `(NULL)` reads as no texture in SKM; written as none".into(),
            );
            material.texture = None;
        }
        out.push(material);
    }
    if !renamed.is_empty() {
        cx.warn(
            "materials",
            format!("SKM stores no material names: {} lost", renamed.join(", ")),
        );
    }
    if unheld > 0 {
        cx.warn(
            "materials",
            format!(
                "{unheld} materials have normal, light or specular maps, alpha masks or two \
                 sides, which SKM cannot hold; dropped"
            ),
        );
    }
    Ok(out)
}

/// The file's colours as the export kept them (`extras.skm_colours`, only when it had to clamp
/// or replace some), while the scene's are still what the export made of them.
fn raw_colours(m: &super::Material, material: &mut Material) {
    let Some(raw) = m
        .extras
        .get("skm_colours")
        .and_then(Value::as_str)
        .and_then(super::raw64::decode_f32)
    else {
        return;
    };
    let [d @ .., power] = &raw[..] else { return };
    let power = *power;
    let Ok::<[f32; 16], _>(c) = d.try_into() else {
        return;
    };
    let diffuse = [c[0], c[1], c[2], c[3]];
    let emissive = [c[12], c[13], c[14]];
    let unit = |x: f32, fallback: f32| {
        if x.is_finite() {
            x.clamp(0.0, 1.0)
        } else {
            fallback
        }
    };
    let same = |a: f32, b: f32| (a - b).abs() <= 1e-6;
    let agrees = diffuse
        .iter()
        .zip(&m.base_color)
        .all(|(&r, &s)| same(unit(r, 1.0), s))
        && emissive
            .iter()
            .zip(&m.emissive)
            .all(|(&r, &s)| same(unit(r, 0.0), s));
    if agrees {
        material.diffuse = diffuse;
        material.ambient = [c[4], c[5], c[6], c[7]];
        material.specular = [c[8], c[9], c[10], c[11]];
        material.emissive = [c[12], c[13], c[14], c[15]];
        material.power = power;
    }
}

/// The counts an SKM header declares are 32-bit; names the reader would take for UTF-8 are
/// written in UTF-8.
fn check_counts(cx: &mut Ctx<'_>, doc: &mut Skm) -> Result<(), Error> {
    for (count, what) in [
        (doc.vertices.len(), "vertices"),
        (doc.triangles.len().saturating_mul(3), "indices"),
        (doc.materials.len(), "materials"),
        (doc.bones.len(), "bones"),
    ] {
        if u32::try_from(count).is_err() {
            return Err(cx.limit("scene", format!("{count} {what}: more than a 32-bit count")));
        }
    }
    if doc.encoding != Encoding::ShiftJis {
        return Ok(());
    }
    let names = || {
        doc.materials
            .iter()
            .filter_map(|m| m.texture.as_ref())
            .chain(doc.bones.iter().map(|b| &b.name))
    };
    let mut non_ascii = names().filter(|n| !n.raw.is_ascii()).peekable();
    if non_ascii.peek().is_none() || !non_ascii.all(|n| std::str::from_utf8(&n.raw).is_ok()) {
        return Ok(());
    }
    // Shift-JIS bytes that are all valid UTF-8 would read back as UTF-8 (the reader's guess).
    let utf8 = |n: &mut Name| *n = Name::from_raw(n.decode(Encoding::ShiftJis).as_bytes());
    for m in &mut doc.materials {
        if let Some(t) = m.texture.as_mut() {
            utf8(t);
        }
    }
    for b in &mut doc.bones {
        utf8(&mut b.name);
    }
    doc.encoding = Encoding::Utf8;
    cx.warn(
        "scene",
        "the Shift-JIS names would all read back as UTF-8; the file is written in UTF-8".into(),
    );
    Ok(())
}

/// With a base: its adjacency when the triangles and positions are the same, and its bones'
/// begin, end and rotation where they are the rebuilt ones in value but not in bits (a zero's
/// sign: a JavaScript tool writes −0 as `0`, which the mirror back turns into −0).
fn patch(doc: &mut Skm, base: &Skm, cx: &mut Ctx<'_>) {
    let bits = |b: &skm_text::Bone| {
        (
            b.begin.map(f32::to_bits),
            b.end.map(f32::to_bits),
            b.rotation.map(f32::to_bits),
        )
    };
    let mut zeros = 0usize;
    if doc.bones.len() == base.bones.len() {
        for (mine, theirs) in doc.bones.iter_mut().zip(&base.bones) {
            let same = mine.begin == theirs.begin
                && mine.end == theirs.end
                && mine.rotation == theirs.rotation;
            if same && bits(mine) != bits(theirs) {
                mine.begin = theirs.begin;
                mine.end = theirs.end;
                mine.rotation = theirs.rotation;
                zeros += 1;
            }
        }
    }
    if zeros > 0 {
        cx.warn(
            "base",
            format!("{zeros} bone(s): begin, end and rotation taken from the base (equal, but for a zero's sign)"),
        );
    }
    let same_positions = doc.vertices.len() == base.vertices.len()
        && doc
            .vertices
            .iter()
            .zip(&base.vertices)
            .all(|(a, b)| a.position.map(f32::to_bits) == b.position.map(f32::to_bits));
    if same_positions && doc.triangles == base.triangles && doc.adjacency != base.adjacency {
        doc.adjacency.clone_from(&base.adjacency);
        cx.warn("base", "adjacency taken from the base".into());
    }
}
