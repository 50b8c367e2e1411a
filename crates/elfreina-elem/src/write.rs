//! Typed model (or scope tree) → text, in the canonical style: UTF-8 without BOM, CRLF, one
//! tab per level, `Tag {`, `Key=value` without spaces, counts before their data, strings
//! always quoted, floats in the shortest plain decimal that reads back to the same `f64`.
//!
//! The writer refuses every document the reader would refuse (a count that disagrees with its
//! data, an index out of range, a string holding `"` or a line break, …), so that
//! `parse(write(doc)) == doc` holds for every document it writes.

use crate::error::Error;
use crate::model::*;
use crate::number::{parse_f64, push_f64, push_u64, FloatStyle, Num};
use crate::rules::{is_ident, known, UV_TAGS};
use crate::tree::{Item, LineEnding, Scope, Tree, Values};
use crate::{HEADER, MAX_DEPTH};

/// Options of the writer. The default is the canonical style.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteOptions {
    /// How finite floats are spelled (default: shortest round-trip decimal).
    pub float_style: FloatStyle,
    /// Start with a UTF-8 BOM (default: no).
    pub bom: bool,
    /// Line ending (default: CRLF).
    pub line_ending: LineEnding,
    /// One tab per nesting level (default: true); false removes indentation, as Elfreina's
    /// save option does.
    pub indent: bool,
    /// Refuse NaN and infinity with [`Error::BadNumber`] instead of writing the MSVC spellings
    /// `1.#QNAN`, `-1.#IND`, `1.#INF`, … (default: false, so every document read can be
    /// written back).
    pub reject_non_finite: bool,
}

impl Default for WriteOptions {
    fn default() -> Self {
        Self {
            float_style: FloatStyle::Shortest,
            bom: false,
            line_ending: LineEnding::CrLf,
            indent: true,
            reject_non_finite: false,
        }
    }
}

impl WriteOptions {
    /// Elfreina's six-decimal style (`1.000000`), otherwise canonical. Lossy.
    pub fn six_decimals() -> Self {
        Self {
            float_style: FloatStyle::SixDecimals,
            ..Self::default()
        }
    }
}

type Result<T> = std::result::Result<T, Error>;

struct W<'o> {
    out: String,
    depth: usize,
    opts: &'o WriteOptions,
    eol: &'static str,
    path: Vec<String>,
}

fn doc_error(path: &[String], message: impl std::fmt::Display) -> String {
    if path.is_empty() {
        message.to_string()
    } else {
        format!("{}: {message}", path.join(" > "))
    }
}

impl<'o> W<'o> {
    fn new(opts: &'o WriteOptions, capacity: usize) -> Self {
        let mut out = String::with_capacity(capacity);
        if opts.bom {
            out.push('\u{FEFF}');
        }
        Self {
            out,
            depth: 0,
            opts,
            eol: opts.line_ending.as_str(),
            path: Vec::new(),
        }
    }

    fn bad_string(&self, message: impl std::fmt::Display) -> Error {
        Error::BadString {
            line: 0,
            column: 0,
            message: doc_error(&self.path, message),
        }
    }

    fn mismatch(&self, key: &str, declared: usize, what: &str, found: usize) -> Error {
        Error::CountMismatch {
            line: 0,
            column: 0,
            key: doc_error(&self.path, key),
            declared: declared as u64,
            what: what.to_owned(),
            found: found as u64,
        }
    }

    fn out_of_range(&self, what: &str, index: u32, len: usize) -> Error {
        Error::IndexOutOfRange {
            line: 0,
            column: 0,
            what: doc_error(&self.path, what),
            index: i64::from(index),
            len: len as u64,
        }
    }

    fn line_start(&mut self) {
        if self.opts.indent {
            for _ in 0..self.depth {
                self.out.push('\t');
            }
        }
    }

    fn header(&mut self, version: &str) -> Result<()> {
        match parse_f64(version) {
            Some(Num::Finite(v)) if v < 2.0 => {}
            _ => {
                return Err(Error::UnsupportedVersion {
                    line: 0,
                    column: 0,
                    version: version.to_owned(),
                })
            }
        }
        self.out.push_str(HEADER);
        self.out.push_str(self.eol);
        self.out.push_str("File Version ");
        self.out.push_str(version);
        self.out.push_str(self.eol);
        Ok(())
    }

    fn open(&mut self, tag: &str) -> Result<()> {
        if self.depth >= MAX_DEPTH {
            return Err(Error::LimitExceeded {
                line: 0,
                column: 0,
                limit: MAX_DEPTH,
            });
        }
        self.line_start();
        self.out.push_str(tag);
        self.out.push_str(" {");
        self.out.push_str(self.eol);
        self.depth += 1;
        self.path.push(tag.to_owned());
        Ok(())
    }

    fn close(&mut self) {
        self.depth = self.depth.saturating_sub(1);
        self.path.pop();
        self.line_start();
        self.out.push('}');
        self.out.push_str(self.eol);
    }

    fn key(&mut self, key: &str) {
        self.line_start();
        self.out.push_str(key);
        self.out.push('=');
    }

    fn end(&mut self) {
        self.out.push_str(self.eol);
    }

    fn string(&mut self, s: &str) -> Result<()> {
        if s.contains(['"', '\r', '\n']) {
            return Err(self.bad_string(format!(
                "the string {s:?} holds a quote or a line break, which the format cannot hold"
            )));
        }
        self.out.push('"');
        self.out.push_str(s);
        self.out.push('"');
        Ok(())
    }

    fn num(&mut self, v: f64) -> Result<()> {
        if self.opts.reject_non_finite && !v.is_finite() {
            return Err(Error::BadNumber {
                line: 0,
                column: 0,
                expected: "a finite number",
                found: doc_error(&self.path, v),
            });
        }
        push_f64(&mut self.out, v, self.opts.float_style);
        Ok(())
    }

    fn int(&mut self, v: impl std::fmt::Display) {
        use std::fmt::Write;
        let _ = write!(self.out, "{v}");
    }

    fn nums(&mut self, row: &[f64]) -> Result<()> {
        for (i, &v) in row.iter().enumerate() {
            if i > 0 {
                self.out.push(':');
            }
            self.num(v)?;
        }
        Ok(())
    }

    fn key_str(&mut self, key: &str, v: &Option<String>) -> Result<()> {
        if let Some(v) = v {
            self.key(key);
            self.string(v)?;
            self.end();
        }
        Ok(())
    }

    fn key_int(&mut self, key: &str, v: Option<impl std::fmt::Display>) {
        if let Some(v) = v {
            self.key(key);
            self.int(v);
            self.end();
        }
    }

    fn key_f64(&mut self, key: &str, v: Option<f64>) -> Result<()> {
        if let Some(v) = v {
            self.key(key);
            self.num(v)?;
            self.end();
        }
        Ok(())
    }

    fn key_row(&mut self, key: &str, v: Option<&[f64]>) -> Result<()> {
        if let Some(v) = v {
            self.key(key);
            self.nums(v)?;
            self.end();
        }
        Ok(())
    }

    fn key_bool(&mut self, key: &str, v: Option<bool>) {
        if let Some(v) = v {
            self.key(key);
            self.out.push_str(if v { "True" } else { "False" });
            self.end();
        }
    }

    /// A scope of numeric rows, omitted when empty.
    fn rows<const N: usize>(&mut self, tag: &str, rows: &[[f64; N]]) -> Result<()> {
        if rows.is_empty() {
            return Ok(());
        }
        self.open(tag)?;
        for row in rows {
            self.line_start();
            self.nums(row)?;
            self.end();
        }
        self.close();
        Ok(())
    }

    fn raw_rows(&mut self, tag: &str, rows: &[Vec<f64>]) -> Result<()> {
        if rows.is_empty() {
            return Ok(());
        }
        self.open(tag)?;
        for row in rows {
            if row.is_empty() {
                return Err(Error::BadRowWidth {
                    line: 0,
                    column: 0,
                    scope: doc_error(&self.path, tag),
                    expected: "at least 1 value".into(),
                    found: 0,
                });
            }
            self.line_start();
            self.nums(row)?;
            self.end();
        }
        self.close();
        Ok(())
    }

    fn time_keys(&mut self, keys: &[f64]) -> Result<()> {
        if keys.is_empty() {
            return Ok(());
        }
        self.open("TimeKeys")?;
        for &t in keys {
            self.line_start();
            self.num(t)?;
            self.end();
        }
        self.close();
        Ok(())
    }

    /// A scope of strings, omitted when empty.
    fn strings(&mut self, tag: &str, list: &[String]) -> Result<()> {
        if list.is_empty() {
            return Ok(());
        }
        self.open(tag)?;
        for s in list {
            self.line_start();
            self.string(s)?;
            self.end();
        }
        self.close();
        Ok(())
    }

    fn values(&mut self, values: &Values) -> Result<()> {
        if values.atoms.is_empty() {
            return Err(self.bad_string("an entry or data line without values"));
        }
        for (i, atom) in values.atoms.iter().enumerate() {
            if i > 0 {
                self.out.push(if atom.group_start { ':' } else { ',' });
            }
            if atom.quoted {
                self.string(&atom.text)?;
            } else {
                let t = &atom.text;
                let bad = t.is_empty()
                    || t.starts_with([' ', '\t'])
                    || t.ends_with([' ', '\t'])
                    || t.contains(['"', ':', ',', '{', '}', '=', '\r', '\n']);
                if bad {
                    return Err(self.bad_string(format!("{t:?} cannot be written as a bare value")));
                }
                self.out.push_str(t);
            }
        }
        Ok(())
    }

    /// Writes tree items (unknown parts, or a whole tree) with an explicit stack. `known`
    /// names are refused: the reader would take them for the typed parts.
    fn items(&mut self, items: &[Item], known: &[&str]) -> Result<()> {
        if let Some(item) = items
            .iter()
            .find(|i| !i.name().is_empty() && known.contains(&i.name()))
        {
            return Err(Error::UnexpectedPart {
                line: 0,
                column: 0,
                message: doc_error(
                    &self.path,
                    format!("an unknown part is named `{}`, a known name", item.name()),
                ),
            });
        }
        let base = self.depth;
        let mut stack: Vec<std::slice::Iter<'_, Item>> = vec![items.iter()];
        while let Some(top) = stack.last_mut() {
            match top.next() {
                None => {
                    stack.pop();
                    if self.depth > base {
                        self.close();
                    }
                }
                Some(Item::Scope(s)) => {
                    if !is_ident(&s.tag) {
                        return Err(self.bad_string(format!("{:?} is not a valid tag", s.tag)));
                    }
                    self.open(&s.tag)?;
                    stack.push(s.items.iter());
                }
                Some(Item::Entry(e)) => {
                    if !is_ident(&e.key) {
                        return Err(self.bad_string(format!("{:?} is not a valid key", e.key)));
                    }
                    self.key(&e.key);
                    self.values(&e.values)?;
                    self.end();
                }
                Some(Item::Data(d)) => {
                    self.line_start();
                    self.values(&d.values)?;
                    self.end();
                }
            }
        }
        Ok(())
    }

    /// A scope kept verbatim, written under `tag`.
    fn verbatim_scope(&mut self, tag: &str, s: &Scope) -> Result<()> {
        self.open(tag)?;
        self.items(&s.items, &[])?;
        self.close();
        Ok(())
    }

    // ---- the typed model, in canonical order ------------------------------------------

    fn elem(&mut self, doc: &Elem) -> Result<()> {
        self.header(&doc.version)?;
        if !doc.setting.is_empty() {
            self.setting(&doc.setting)?;
        }
        if let Some(m) = &doc.mesh_data {
            self.open("MeshDataList")?;
            self.key_int("MeshContainerCount", Some(m.containers.len()));
            for c in &m.containers {
                self.container(c)?;
            }
            self.items(&m.extra, known::MESH_DATA)?;
            self.close();
        }
        if !doc.hierarchy.is_empty() {
            self.open("HierarchyList")?;
            for n in &doc.hierarchy.nodes {
                self.node(n)?;
            }
            self.items(&doc.hierarchy.extra, known::HIERARCHY)?;
            self.close();
        }
        if let Some(r) = &doc.rendering {
            self.rendering(r)?;
        }
        if let Some(a) = &doc.animation {
            self.animations(a)?;
        }
        self.items(&doc.extra, known::TOP)
    }

    fn setting(&mut self, s: &Setting) -> Result<()> {
        self.open("Setting")?;
        self.key_f64("ElfreinaSoftVersion", s.soft_version)?;
        self.key_int("ElfreinaBetaVersion", s.beta_version);
        self.key_str("LoadType", &s.load_type)?;
        self.key_bool("IsRightHand", s.is_right_hand);
        self.items(&s.extra, known::SETTING)?;
        self.close();
        Ok(())
    }

    fn container(&mut self, c: &MeshContainer) -> Result<()> {
        self.open("MeshContainer")?;
        self.key_str("Name", &c.name)?;
        let (names, matrices) = (c.bone_names.len(), c.offset_matrices.len());
        if names == matrices {
            self.key_int("BoneCount", Some(names));
        } else if names > 0 && matrices > 0 {
            return Err(self.mismatch("BoneNames", names, "OffsetMatrices", matrices));
        }
        // With only one of the two lists, BoneCount is left out: the reader infers it.
        self.key_int("MeshCount", Some(c.meshes.len()));
        self.strings("VertexFormat", &c.vertex_format)?;
        self.strings("BoneNames", &c.bone_names)?;
        self.rows("OffsetMatrices", &c.offset_matrices)?;
        if let Some(m) = &c.materials {
            self.open("Materials")?;
            self.key_int("MaterialCount", Some(m.materials.len()));
            for mat in &m.materials {
                self.material(mat)?;
            }
            self.items(&m.extra, known::MATERIALS)?;
            self.close();
        }
        let materials = c.material_list().len();
        let bones = c.bone_count();
        for mesh in &c.meshes {
            self.mesh(mesh, materials, bones)?;
        }
        self.items(&c.extra, known::CONTAINER)?;
        self.close();
        Ok(())
    }

    fn material(&mut self, m: &Material) -> Result<()> {
        self.open("Material")?;
        self.key_str("Name", &m.name)?;
        self.key_row("Diffuse", m.diffuse.as_ref().map(|c| &c[..]))?;
        self.key_row("Ambient", m.ambient.as_ref().map(|c| &c[..]))?;
        self.key_row("Emissive", m.emissive.as_ref().map(|c| &c[..]))?;
        self.key_row("Specular", m.specular.as_ref().map(|c| &c[..]))?;
        self.key_f64("SpecularSharpness", m.specular_sharpness)?;
        self.key_str("TextureFilename", &m.texture_filename)?;
        self.items(&m.extra, known::MATERIAL)?;
        self.close();
        Ok(())
    }

    fn mesh(&mut self, m: &Mesh, materials: usize, bones: usize) -> Result<()> {
        self.open("Mesh")?;
        let v = m.positions.len();
        let f = m.face_sizes.len();
        let uv_lens = m.uv_sets.iter().zip(UV_TAGS).map(|(s, t)| (t, s.len()));
        let lens = [("Normals", m.normals.len()), ("Diffuse", m.diffuse.len())];
        for (what, n) in lens.into_iter().chain(uv_lens) {
            if n != 0 && n != v {
                return Err(self.mismatch("VertexCount", v, what, n));
            }
        }
        if !m.attributes.is_empty() && m.attributes.len() != f {
            return Err(self.mismatch("FaceCount", f, "Attributes", m.attributes.len()));
        }
        let corners: usize = m
            .face_sizes
            .runs()
            .iter()
            .map(|&(n, k)| (n as usize).saturating_mul(k as usize))
            .fold(0, usize::saturating_add);
        if corners != m.face_indices.len() {
            return Err(self.mismatch(
                "the sum of face_sizes",
                corners,
                "face_indices",
                m.face_indices.len(),
            ));
        }
        self.key_str("Name", &m.name)?;
        self.key_int("VertexCount", Some(v));
        self.key_int("FaceCount", Some(f));
        self.rows("Positions", &m.positions)?;
        self.rows("Normals", &m.normals)?;
        self.rows("Diffuse", &m.diffuse)?;
        if !m.blend_list.is_empty() {
            self.blend_list(&m.blend_list, v, bones)?;
        }
        if let Some(s) = &m.blends {
            self.verbatim_scope("Blends", s)?;
        }
        if let Some(s) = &m.blend_indices {
            self.verbatim_scope("BlendIndices", s)?;
        }
        let sets = m.uv_sets.iter().filter(|s| !s.is_empty()).count();
        for (set, (rows, tag)) in m.uv_sets.iter().zip(UV_TAGS).enumerate() {
            let tag = if set == 0 && sets == 1 {
                "TextureUV"
            } else {
                tag
            };
            self.rows(tag, rows)?;
        }
        if f > 0 {
            self.open("VertexIndices")?;
            for face in m.faces() {
                if face.len() < 3 {
                    return Err(Error::BadRowWidth {
                        line: 0,
                        column: 0,
                        scope: doc_error(&self.path, "face"),
                        expected: "at least 3 corners".into(),
                        found: face.len(),
                    });
                }
                self.line_start();
                push_u64(&mut self.out, face.len() as u64);
                for (k, &i) in face.iter().enumerate() {
                    if i as usize >= v {
                        return Err(self.out_of_range("vertex index", i, v));
                    }
                    self.out.push(if k == 0 { ',' } else { ':' });
                    push_u64(&mut self.out, u64::from(i));
                }
                self.end();
            }
            self.close();
        }
        if !m.attributes.is_empty() {
            self.open("Attributes")?;
            for a in m.attributes.iter() {
                if a as usize >= materials {
                    return Err(self.out_of_range("material index", a, materials));
                }
                self.line_start();
                push_u64(&mut self.out, u64::from(a));
                self.end();
            }
            self.close();
        }
        self.items(&m.extra, known::MESH)?;
        self.close();
        Ok(())
    }

    fn blend_list(&mut self, b: &BlendList, vertices: usize, bones: usize) -> Result<()> {
        self.open("BlendList")?;
        for p in &b.parts {
            self.open("BlendPart")?;
            self.key_str("BoneName", &p.bone_name)?;
            if let Some(i) = p.transform_index {
                if i as usize >= bones {
                    return Err(self.out_of_range("TransformIndex", i, bones));
                }
            }
            self.key_int("TransformIndex", p.transform_index);
            if !p.vertex_blends.is_empty() {
                self.open("VertexBlend")?;
                for vb in &p.vertex_blends {
                    if vb.vertex as usize >= vertices {
                        return Err(self.out_of_range("vertex index", vb.vertex, vertices));
                    }
                    self.line_start();
                    self.int(vb.vertex);
                    self.out.push(',');
                    self.num(vb.weight)?;
                    self.end();
                }
                self.close();
            }
            self.items(&p.extra, known::BLEND_PART)?;
            self.close();
        }
        self.items(&b.extra, known::BLEND_LIST)?;
        self.close();
        Ok(())
    }

    /// Recursive; `open` stops at [`MAX_DEPTH`], so the recursion is bounded.
    fn node(&mut self, n: &Node) -> Result<()> {
        self.open("Node")?;
        self.key_str("NodeName", &n.name)?;
        self.key_row("InitPostureMatrix", n.init_posture.as_ref().map(|m| &m[..]))?;
        for c in &n.children {
            self.node(c)?;
        }
        self.items(&n.extra, known::NODE)?;
        self.close();
        Ok(())
    }

    fn rendering(&mut self, r: &RenderingMeshList) -> Result<()> {
        self.open("RenderingMeshList")?;
        self.key_int("RenderingMeshCount", Some(r.meshes.len()));
        for m in &r.meshes {
            self.open("RenderingMesh")?;
            self.key_str("RenderingMeshName", &m.name)?;
            self.key_int("HierarchyNamesCount", Some(m.hierarchy_names.len()));
            self.strings("HierarchyNames", &m.hierarchy_names)?;
            self.items(&m.extra, known::RENDERING_MESH)?;
            self.close();
        }
        self.items(&r.extra, known::RENDERING)?;
        self.close();
        Ok(())
    }

    fn animations(&mut self, a: &AnimationList) -> Result<()> {
        self.open("AnimationList")?;
        self.key_int("AnimationCount", Some(a.animations.len()));
        for d in &a.animations {
            self.open("AnimationData")?;
            self.key_str("AnimationName", &d.name)?;
            self.key_int("AnimationTime", d.time_ms);
            self.key_int("FrameParSecond", d.frames_per_second);
            self.key_int("TransitionTime", d.transition_time);
            self.key_int("Priority", d.priority);
            self.key_bool("Loop", d.looped);
            if !d.bone_animation.is_empty() {
                self.bone_animation(&d.bone_animation)?;
            }
            if !d.uv_animation.is_empty() {
                self.uv_animation(&d.uv_animation)?;
            }
            self.items(&d.extra, known::ANIMATION)?;
            self.close();
        }
        self.items(&a.extra, known::ANIMATIONS)?;
        self.close();
        Ok(())
    }

    fn bone_animation(&mut self, b: &BoneAnimation) -> Result<()> {
        self.open("BoneAnimation")?;
        self.time_keys(&b.time_keys)?;
        for p in &b.parts {
            self.open("AnimationPart")?;
            let lens = [
                ("TimeKeys", p.time_keys.len()),
                ("TransKeys", p.trans_keys.len()),
                ("RotateKeys", p.rotate_keys.len()),
                ("ScaleKeys", p.scale_keys.len()),
            ];
            let mut present = lens.into_iter().filter(|(_, n)| *n > 0);
            if let Some((first, len)) = present.next() {
                if let Some((what, n)) = present.find(|(_, n)| *n != len) {
                    return Err(self.mismatch(first, len, what, n));
                }
            }
            self.key_str("NodeName", &p.node_name)?;
            self.key_int("TransitionTime", p.transition_time);
            self.key_str("InterpolationType", &p.interpolation_type)?;
            self.time_keys(&p.time_keys)?;
            self.rows("TransKeys", &p.trans_keys)?;
            self.rows("RotateKeys", &p.rotate_keys)?;
            self.rows("ScaleKeys", &p.scale_keys)?;
            self.items(&p.extra, known::BONE_PART)?;
            self.close();
        }
        self.items(&b.extra, known::KEYED_ANIMATION)?;
        self.close();
        Ok(())
    }

    fn uv_animation(&mut self, u: &UvAnimation) -> Result<()> {
        self.open("UVAnimation")?;
        self.time_keys(&u.time_keys)?;
        for p in &u.parts {
            self.open("AnimationPart")?;
            self.key_str("MeshContainerName", &p.mesh_container_name)?;
            self.key_str("MaterialName", &p.material_name)?;
            self.time_keys(&p.time_keys)?;
            self.raw_rows("TransKeys", &p.trans_keys)?;
            self.raw_rows("RotateKeys", &p.rotate_keys)?;
            self.raw_rows("ScaleKeys", &p.scale_keys)?;
            self.items(&p.extra, known::UV_PART)?;
            self.close();
        }
        self.items(&u.extra, known::KEYED_ANIMATION)?;
        self.close();
        Ok(())
    }
}

/// Writes a typed document.
pub(crate) fn elem(doc: &Elem, opts: &WriteOptions) -> Result<String> {
    let mut w = W::new(opts, estimate(doc));
    w.elem(doc)?;
    Ok(w.out)
}

/// Writes a scope tree (its own `bom` and `line_ending` are ignored: `opts` decide).
pub(crate) fn tree(tree: &Tree, opts: &WriteOptions) -> Result<String> {
    let mut w = W::new(opts, 4096);
    w.header(&tree.version.text)?;
    w.items(&tree.items, &[])?;
    Ok(w.out)
}

/// A rough output size, to allocate once.
fn estimate(doc: &Elem) -> usize {
    let rows: usize = doc
        .containers()
        .iter()
        .flat_map(|c| &c.meshes)
        .map(|m| {
            m.positions.len() * 3
                + m.normals.len()
                + m.diffuse.len()
                + m.uv_sets.iter().map(Vec::len).sum::<usize>()
                + m.face_sizes.len()
        })
        .sum();
    4096 + rows * 40
}
