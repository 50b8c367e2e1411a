//! Text → [`Skm`]: the token parser and every validation rule.

use crate::error::{Error, Pos, Warning};
use crate::lex::{parse_f32, parse_u32, parse_word, show, Lexer, Tok};
use crate::model::{AttributeRange, Bone, Encoding, Material, Name, Skm, Vertex};
use crate::rules::{
    attribute_problem, bad_influence, guess_encoding, names, parent_cycle, top_used_palette,
};

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The section headers, in file order.
pub(crate) const HEADERS: [&str; 6] = [
    "Vertices:",
    "Indices:",
    "Adjacency:",
    "Materials:",
    "Attributes:",
    "Bone:",
];

/// Minimum text per row of each section: every value needs a character and a separator.
const VERTEX_MIN: u64 = 13 * 2;
const INDEX_MIN: u64 = 2;
const ADJACENCY_MIN: u64 = 3 * 2;
const MATERIAL_MIN: u64 = 19 * 2;
const ATTRIBUTE_MIN: u64 = 5 * 2;
const BONE_MIN: u64 = 14 * 2;

/// Warnings that repeat per row: kept once, with a count.
#[derive(Default)]
struct Repeated {
    first: Option<Pos>,
    count: u64,
    a: u64,
    b: u64,
}

impl Repeated {
    fn note(&mut self, at: Pos, a: u64, b: u64) {
        if self.first.is_none() {
            self.first = Some(at);
            self.a = a;
            self.b = b;
        }
        self.count += 1;
    }
}

struct Parser<'a> {
    lx: Lexer<'a>,
    warnings: Vec<Warning>,
    non_finite: Repeated,
    weights: Repeated,
    columns: [Repeated; 3],
    /// The section being read, its declared row count and the current row (for messages).
    section: &'static str,
    declared: u64,
    row: u64,
}

fn is_header(text: &[u8]) -> bool {
    text.last() == Some(&b':')
        && (HEADERS.iter().any(|h| h.as_bytes() == text) || text == b"Bones:")
}

impl<'a> Parser<'a> {
    fn enter(&mut self, section: &'static str, declared: u64) {
        self.section = section;
        self.declared = declared;
        self.row = 0;
    }

    /// The next token inside the rows of the current section.
    #[inline]
    fn tok(&mut self) -> Result<Tok<'a>, Error> {
        match self.lx.next()? {
            Some(t) => Ok(t),
            None => Err(Error::Truncated {
                at: self.lx.end_pos(),
                what: format!(
                    "the input ends inside row {} of {} of `{}`",
                    self.row, self.declared, self.section
                ),
            }),
        }
    }

    /// The error for a token that is not the number required: a section header in its place
    /// means the section has fewer rows than declared.
    #[cold]
    fn bad(&self, t: Tok<'a>, expected: &'static str) -> Error {
        if !t.quoted && is_header(t.text) {
            Error::CountMismatch {
                at: t.at,
                what: format!("rows of `{}`", self.section),
                declared: self.declared,
                found: self.row.to_string(),
            }
        } else {
            Error::BadNumber {
                at: t.at,
                expected,
                found: show(t.text),
            }
        }
    }

    #[inline]
    fn f32(&mut self) -> Result<f32, Error> {
        if let Some(v) = self.lx.plain_f32() {
            return Ok(v);
        }
        let t = self.tok()?;
        match parse_f32(t.text).filter(|_| !t.quoted) {
            Some(v) => {
                if !v.is_finite() {
                    self.non_finite.note(t.at, 0, 0);
                }
                Ok(v)
            }
            None => Err(self.bad(t, "a number")),
        }
    }

    #[inline]
    fn f32s<const N: usize>(&mut self) -> Result<[f32; N], Error> {
        let mut out = [0.0f32; N];
        for v in &mut out {
            *v = self.f32()?;
        }
        Ok(out)
    }

    #[inline]
    fn u32_at(&mut self) -> Result<(u32, Pos), Error> {
        if let Some(v) = self.lx.plain_u32() {
            return Ok(v);
        }
        let t = self.tok()?;
        match parse_u32(t.text).filter(|_| !t.quoted) {
            Some(v) => Ok((v, t.at)),
            None => Err(self.bad(t, "an unsigned integer")),
        }
    }

    #[inline]
    fn u32(&mut self) -> Result<u32, Error> {
        self.u32_at().map(|(v, _)| v)
    }

    #[inline]
    fn word_at(&mut self) -> Result<(u32, Pos), Error> {
        if let Some(v) = self.lx.plain_u32() {
            return Ok(v);
        }
        let t = self.tok()?;
        match parse_word(t.text).filter(|_| !t.quoted) {
            Some(v) => Ok((v, t.at)),
            None => Err(self.bad(
                t,
                "a 32-bit integer (decimal, negative decimal or 0x hexadecimal)",
            )),
        }
    }

    /// An informational index column: a mismatch with the position is a warning.
    fn index_column(&mut self, which: usize) -> Result<(), Error> {
        let (v, at) = self.u32_at()?;
        if u64::from(v) != self.row {
            if let Some(r) = self.columns.get_mut(which) {
                r.note(at, self.row, u64::from(v));
            }
        }
        Ok(())
    }

    /// A section header `Keyword: count` (or `Keyword:count`). `prev` is the section before,
    /// for the message when a row of it stands where the header should be.
    fn header(&mut self, keyword: &'static str) -> Result<(u32, Pos), Error> {
        let Some(t) = self.lx.next()? else {
            return Err(Error::MissingPart {
                at: self.lx.end_pos(),
                expected: keyword,
                found: "the end of the input".into(),
            });
        };
        self.header_from(t, keyword, keyword)
    }

    fn header_from(
        &mut self,
        t: Tok<'a>,
        keyword: &'static str,
        spelled: &'static str,
    ) -> Result<(u32, Pos), Error> {
        let count_tok = if t.quoted {
            None
        } else if t.text == spelled.as_bytes() {
            match self.lx.next()? {
                Some(c) => Some(c),
                None => {
                    return Err(Error::Truncated {
                        at: self.lx.end_pos(),
                        what: format!("the input ends before the count of `{keyword}`"),
                    })
                }
            }
        } else {
            t.text.strip_prefix(spelled.as_bytes()).map(|rest| Tok {
                text: rest,
                at: Pos {
                    line: t.at.line,
                    column: t.at.column.saturating_add(spelled.len() as u32),
                },
                quoted: false,
            })
        };
        let Some(c) = count_tok else {
            // A number where the header should be: the previous section has more rows than
            // it declared.
            if !t.quoted && parse_f32(t.text).is_some() && !self.section.is_empty() {
                return Err(Error::CountMismatch {
                    at: t.at,
                    what: format!("rows of `{}`", self.section),
                    declared: self.declared,
                    found: "more".into(),
                });
            }
            return Err(Error::MissingPart {
                at: t.at,
                expected: keyword,
                found: show(t.text),
            });
        };
        match parse_u32(c.text).filter(|_| !c.quoted) {
            Some(n) => Ok((n, c.at)),
            None => Err(Error::BadNumber {
                at: c.at,
                expected: "a count (an unsigned integer)",
                found: show(c.text),
            }),
        }
    }

    /// Refuses a count whose rows cannot fit in the remaining input, before any allocation.
    fn ensure(&self, count: u32, min: u64, at: Pos, keyword: &str) -> Result<usize, Error> {
        let need = u64::from(count).saturating_mul(min);
        // The last value of the file may lack its separator.
        if need > (self.lx.remaining() as u64).saturating_add(1) {
            return Err(Error::Truncated {
                at,
                what: format!(
                    "`{keyword} {count}` needs at least {need} more bytes, but only {} remain",
                    self.lx.remaining()
                ),
            });
        }
        Ok(count as usize)
    }
}

/// Reads a whole text.
pub(crate) fn parse(data: &[u8]) -> Result<(Skm, Vec<Warning>), Error> {
    let (bom, body) = match data.strip_prefix(BOM) {
        Some(rest) => (true, rest),
        None => (false, data),
    };
    let mut p = Parser::new(body, bom);
    let head = vertices(&mut p)?;
    rest(p, head, bom)
}

/// The consumed text released by [`parse_owned`] when it is at least this long: below it the
/// memory saved is not worth moving the rest of the text.
const RELEASE_MIN: usize = 16 << 20;

/// Like [`parse`], owning the text: once the vertex rows are read (most of a large file), the
/// text before the next token is released (the rest moved to the front, the buffer shrunk),
/// so the text and the whole document are never in memory together (issue 18: the reading
/// peak of a large file was both).
pub(crate) fn parse_owned(data: Vec<u8>) -> Result<(Skm, Vec<Warning>), Error> {
    parse_owned_from(data, RELEASE_MIN)
}

/// [`parse_owned`], releasing from `release_min` consumed bytes.
fn parse_owned_from(mut data: Vec<u8>, release_min: usize) -> Result<(Skm, Vec<Warning>), Error> {
    let bom = data.starts_with(BOM);
    let skip = if bom { BOM.len() } else { 0 };
    let (head, parked, cut) = {
        let mut p = Parser::new(data.get(skip..).unwrap_or_default(), bom);
        let head = vertices(&mut p)?;
        let cut = p.lx.offset();
        (head, p.park(), cut)
    };
    let (body, cut) = if cut >= release_min {
        data.drain(..skip.saturating_add(cut));
        data.shrink_to_fit();
        (data.as_slice(), cut)
    } else {
        (data.get(skip..).unwrap_or_default(), 0)
    };
    rest(parked.resume(body, cut), head, bom)
}

/// The vertex section, read first.
struct Head {
    vertices: Vec<Vertex>,
    /// The vertices whose top used palette index ([`top_used_palette`]) is larger than every
    /// earlier vertex's, with the position of their blend word: at most 255, and the first
    /// vertex whose palette index is not a bone is one of them, so its error has a position
    /// without the text (released by [`parse_owned`]).
    reach: Vec<(usize, Pos)>,
}

impl<'a> Parser<'a> {
    fn new(body: &'a [u8], bom: bool) -> Self {
        let mut p = Parser {
            lx: Lexer::new(body, if bom { BOM.len() } else { 0 }),
            warnings: Vec::new(),
            non_finite: Repeated::default(),
            weights: Repeated::default(),
            columns: Default::default(),
            section: "",
            declared: 0,
            row: 0,
        };
        if bom {
            p.warnings.push(Warning::Utf8Text {
                at: Pos { line: 1, column: 1 },
            });
        }
        p
    }

    /// The parser without its text (its lexer over no data, keeping its place).
    fn park(self) -> Parser<'static> {
        self.resume(&[], 0)
    }

    /// A parked parser going on over `data`, the parked text without its first `cut` bytes.
    fn resume<'b>(self, data: &'b [u8], cut: usize) -> Parser<'b> {
        Parser {
            lx: self.lx.rebased(data, cut),
            warnings: self.warnings,
            non_finite: self.non_finite,
            weights: self.weights,
            columns: self.columns,
            section: self.section,
            declared: self.declared,
            row: self.row,
        }
    }
}
/// The `Vertices:` section.
fn vertices(p: &mut Parser<'_>) -> Result<Head, Error> {
    // Vertices
    let first = p.lx.next()?;
    let first_ok = first.is_some_and(|t| !t.quoted && t.text.starts_with(b"Vertices:"));
    let (v_count, v_at) = match first {
        Some(t) if first_ok => p.header_from(t, "Vertices:", "Vertices:")?,
        Some(t) => {
            return Err(Error::NotThisFormat {
                at: t.at,
                found: show(t.text),
            })
        }
        None => {
            return Err(Error::NotThisFormat {
                at: p.lx.end_pos(),
                found: "an empty text".into(),
            })
        }
    };
    let n = p.ensure(v_count, VERTEX_MIN, v_at, "Vertices:")?;
    p.enter("Vertices:", n as u64);
    let mut vertices = Vec::with_capacity(n);
    let (mut reach, mut covered) = (Vec::new(), 0u8);
    for i in 0..n {
        p.row = i as u64;
        p.index_column(0)?;
        let row_at = p.lx.here();
        let position = p.f32s::<3>()?;
        let weights = p.f32s::<3>()?;
        let (blend_indices, blend_at) = p.word_at()?;
        let normal = p.f32s::<3>()?;
        let uv = p.f32s::<2>()?;
        let v = Vertex {
            position,
            weights,
            blend_indices,
            normal,
            uv,
        };
        let [b0, b1, b2] = weights;
        if b0 < 0.0 || b1 < 0.0 || b2 < 0.0 || b0 + b1 + b2 > 1.0 + 1e-4 {
            p.weights.note(row_at, i as u64, 0);
        }
        if blend_indices != 0 {
            let top = top_used_palette(&v);
            if top > covered {
                covered = top;
                reach.push((i, blend_at));
            }
        }
        vertices.push(v);
    }
    Ok(Head { vertices, reach })
}

/// Every section after `Vertices:` and the document rules.
fn rest(mut p: Parser<'_>, head: Head, bom: bool) -> Result<(Skm, Vec<Warning>), Error> {
    let Head { vertices, reach } = head;
    let n = vertices.len();
    let triangles = indices(&mut p, n)?;
    let faces = triangles.len();
    let adjacency = adjacency(&mut p, faces)?;
    let materials = materials(&mut p)?;
    let attributes = attributes(&mut p, materials.len(), faces, n)?;
    let (bones, parent_at) = bone_section(&mut p)?;

    if let Some(i) = parent_cycle(&bones) {
        return Err(Error::IndexOutOfRange {
            at: parent_at.get(i).copied().unwrap_or_default(),
            what: format!("bone {i}: its parent chain loops back to itself"),
        });
    }

    let mut doc = Skm {
        encoding: Encoding::ShiftJis,
        vertices,
        triangles,
        adjacency,
        materials,
        attributes,
        bones,
    };
    check_influences(&doc, &reach)?;

    doc.encoding = if bom {
        Encoding::Utf8
    } else {
        let e = guess_encoding(names(&doc));
        if e == Encoding::Utf8 {
            p.warnings.push(Warning::Utf8Text {
                at: Pos { line: 1, column: 1 },
            });
        }
        e
    };
    Ok((doc, p.into_warnings()))
}

/// The `Indices:` section: triangles whose corners are vertices.
fn indices(p: &mut Parser<'_>, n: usize) -> Result<Vec<[u32; 3]>, Error> {
    let (i_count, i_at) = p.header("Indices:")?;
    if i_count % 3 != 0 {
        return Err(Error::BadSize {
            at: i_at,
            count: u64::from(i_count),
        });
    }
    let faces = p.ensure(i_count, INDEX_MIN, i_at, "Indices:")? / 3;
    p.enter("Indices:", faces as u64);
    let mut triangles = Vec::with_capacity(faces);
    for f in 0..faces {
        p.row = f as u64;
        let mut tri = [0u32; 3];
        for slot in &mut tri {
            let (v, at) = p.u32_at()?;
            if v as usize >= n {
                return Err(Error::IndexOutOfRange {
                    at,
                    what: format!("triangle {f} uses vertex {v}, but there are only {n} vertices"),
                });
            }
            *slot = v;
        }
        triangles.push(tri);
    }
    Ok(triangles)
}

/// The `Adjacency:` section: one row per face, its words kept as written.
fn adjacency(p: &mut Parser<'_>, faces: usize) -> Result<Vec<[u32; 3]>, Error> {
    let (a_count, a_at) = p.header("Adjacency:")?;
    if a_count as usize != faces {
        return Err(Error::CountMismatch {
            at: a_at,
            what: "`Adjacency:` faces against `Indices:` / 3".into(),
            declared: u64::from(a_count),
            found: faces.to_string(),
        });
    }
    p.ensure(a_count, ADJACENCY_MIN, a_at, "Adjacency:")?;
    p.enter("Adjacency:", faces as u64);
    let mut adjacency = Vec::with_capacity(faces);
    for f in 0..faces {
        p.row = f as u64;
        let mut row = [0u32; 3];
        for slot in &mut row {
            *slot = p.word_at()?.0;
        }
        adjacency.push(row);
    }
    Ok(adjacency)
}

/// The `Materials:` section.
fn materials(p: &mut Parser<'_>) -> Result<Vec<Material>, Error> {
    let (m_count, m_at) = p.header("Materials:")?;
    let m = p.ensure(m_count, MATERIAL_MIN, m_at, "Materials:")?;
    p.enter("Materials:", m as u64);
    let mut materials = Vec::with_capacity(m);
    for i in 0..m {
        p.row = i as u64;
        p.index_column(1)?;
        let diffuse = p.f32s::<4>()?;
        let ambient = p.f32s::<4>()?;
        let specular = p.f32s::<4>()?;
        let emissive = p.f32s::<4>()?;
        let power = p.f32()?;
        let t = p.tok()?;
        let texture = (!t.text.eq_ignore_ascii_case(b"(NULL)")).then(|| Name::from_raw(t.text));
        materials.push(Material {
            diffuse,
            ambient,
            specular,
            emissive,
            power,
            texture,
        });
    }
    Ok(materials)
}

/// The `Attributes:` section: ranges of the `m` materials, `faces` faces and `n` vertices.
fn attributes(
    p: &mut Parser<'_>,
    m: usize,
    faces: usize,
    n: usize,
) -> Result<Vec<AttributeRange>, Error> {
    let (r_count, r_at) = p.header("Attributes:")?;
    let r = p.ensure(r_count, ATTRIBUTE_MIN, r_at, "Attributes:")?;
    p.enter("Attributes:", r as u64);
    let mut attributes = Vec::with_capacity(r);
    for i in 0..r {
        p.row = i as u64;
        let (material, id_at) = p.u32_at()?;
        let (face_start, fs_at) = p.u32_at()?;
        let face_count = p.u32()?;
        let (vertex_start, vs_at) = p.u32_at()?;
        let vertex_count = p.u32()?;
        let range = AttributeRange {
            material,
            face_start,
            face_count,
            vertex_start,
            vertex_count,
        };
        if let Some((which, what)) = attribute_problem(i, &range, m, faces, n) {
            let at = [id_at, fs_at, vs_at].get(which).copied().unwrap_or(id_at);
            return Err(Error::IndexOutOfRange { at, what });
        }
        attributes.push(range);
    }
    Ok(attributes)
}

/// The optional `Bone:` section (a static mesh ends before it), then the end of the text: the
/// bones and the position of each one's parent (for the cycle error).
fn bone_section(p: &mut Parser<'_>) -> Result<(Vec<Bone>, Vec<Pos>), Error> {
    let Some(t) = p.lx.next()? else {
        p.warnings
            .push(Warning::NoBoneSection { at: p.lx.end_pos() });
        return Ok((Vec::new(), Vec::new()));
    };
    let spelled = if !t.quoted && t.text.starts_with(b"Bones:") {
        p.warnings.push(Warning::BonesSpelling { at: t.at });
        "Bones:"
    } else {
        "Bone:"
    };
    let (b_count, b_at) = p.header_from(t, "Bone:", spelled)?;
    let b = p.ensure(b_count, BONE_MIN, b_at, "Bone:")?;
    p.enter("Bone:", b as u64);
    let mut bones = Vec::with_capacity(b);
    let mut parent_at = Vec::with_capacity(b);
    for i in 0..b {
        p.row = i as u64;
        let (bone, at) = bone(p, i, b)?;
        bones.push(bone);
        parent_at.push(at);
    }
    if let Some(t) = p.lx.next()? {
        if parse_f32(t.text).is_some() && !t.quoted {
            return Err(Error::CountMismatch {
                at: t.at,
                what: "rows of `Bone:`".into(),
                declared: b as u64,
                found: "more".into(),
            });
        }
        return Err(Error::TrailingData {
            at: t.at,
            found: show(t.text),
        });
    }
    Ok((bones, parent_at))
}

/// Row `i` of the `b` rows of `Bone:`, and the position of its parent.
fn bone(p: &mut Parser<'_>, i: usize, b: usize) -> Result<(Bone, Pos), Error> {
    let name = Name::from_raw(p.tok()?.text);
    p.index_column(2)?;
    let (parent, at) = p.word_at()?;
    let parent = parent as i32;
    if parent != -1 && usize::try_from(parent).map_or(true, |x| x >= b) {
        return Err(Error::IndexOutOfRange {
            at,
            what: format!("bone {i}: parent {parent} is neither -1 nor one of the {b} bones"),
        });
    }
    let (symmetric, s_at) = p.word_at()?;
    let symmetric = symmetric as i32;
    if symmetric != -1 && usize::try_from(symmetric).map_or(true, |x| x >= b) {
        p.warnings.push(Warning::SymmetricOutOfRange {
            at: s_at,
            bone: i as u64,
            symmetric: i64::from(symmetric),
        });
    }
    let begin = p.f32s::<3>()?;
    let end = p.f32s::<3>()?;
    let rotation = p.f32s::<4>()?;
    let bone = Bone {
        name,
        parent,
        symmetric,
        begin,
        end,
        rotation,
    };
    Ok((bone, at))
}

/// Refuses a vertex whose palette uses a bone that does not exist.
fn check_influences(doc: &Skm, reach: &[(usize, Pos)]) -> Result<(), Error> {
    let Some((v, k, idx)) = bad_influence(doc) else {
        return Ok(());
    };
    // That vertex is one of `reach` (see `Head`).
    let at = reach
        .iter()
        .find(|&&(i, _)| i == v)
        .map_or_else(Pos::default, |&(_, at)| at);
    Err(Error::IndexOutOfRange {
        at,
        what: format!(
            "vertex {v}: influence {k} uses bone {idx}, but there are only {} bones",
            doc.bones.len()
        ),
    })
}

impl Parser<'_> {
    /// Every warning, the per-row ones (kept once with a count) last, in a fixed order.
    fn into_warnings(self) -> Vec<Warning> {
        let mut warnings = self.warnings;
        for (r, section) in self
            .columns
            .iter()
            .zip(["Vertices:", "Materials:", "Bone:"])
        {
            if let Some(at) = r.first {
                warnings.push(Warning::IndexColumn {
                    section,
                    at,
                    expected: r.a,
                    found: r.b,
                    count: r.count,
                });
            }
        }
        if let Some(at) = self.weights.first {
            warnings.push(Warning::BadWeights {
                at,
                vertex: self.weights.a,
                count: self.weights.count,
            });
        }
        if let Some(at) = self.non_finite.first {
            warnings.push(Warning::NonFinite {
                at,
                count: self.non_finite.count,
            });
        }
        warnings
    }
}

#[cfg(test)]
mod tests {
    use super::{parse, parse_owned_from};

    fn texts() -> Vec<(String, Vec<u8>)> {
        let mut files = test_support::fixtures("skm", "skm");
        files.extend(test_support::fixtures("regressions/skm", "skm"));
        files
            .iter()
            .map(|p| (p.display().to_string(), test_support::read(p)))
            .collect()
    }

    /// Releasing the read text after the vertex rows changes nothing: the same document,
    /// warnings, errors and positions, for every fixture, every prefix of the small ones and
    /// (with a BOM) the same again.
    #[test]
    fn the_owned_reading_equals_the_borrowed_one() {
        for (name, bytes) in texts() {
            let mut bom = b"\xEF\xBB\xBF".to_vec();
            bom.extend_from_slice(&bytes);
            for text in [&bytes, &bom] {
                let step = (text.len() / 97).max(1);
                for end in (0..text.len()).step_by(step).chain([text.len()]) {
                    let cut = text.get(..end).unwrap_or_default();
                    assert_eq!(
                        format!("{:?}", parse(cut)),
                        format!("{:?}", parse_owned_from(cut.to_vec(), 0)),
                        "{name}, first {end} bytes"
                    );
                }
            }
        }
    }

    /// A palette index that is not a bone is reported at that vertex's blend word, read or
    /// owned (the text of the vertex rows is gone by then), for the first such vertex.
    #[test]
    fn a_palette_index_past_the_bones_has_its_position() {
        let text = test_support::read(
            &test_support::fixtures("skm", "skm")
                .into_iter()
                .find(|p| p.ends_with("arm_skinned.skm"))
                .expect("arm_skinned.skm"),
        );
        // Vertex rows are lines 2.. (ASCII; the names further on are Shift-JIS); token 7
        // (from 0) is the blend word.
        for (row, word) in [(3usize, "0x00000063"), (5, "0x00006300"), (0, "99")] {
            let mut lines: Vec<Vec<u8>> = text.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
            let line = lines.get_mut(row + 1).expect("a vertex row");
            let ascii = String::from_utf8(line.clone()).expect("an ASCII row");
            let mut tokens: Vec<&str> = ascii.split_whitespace().collect();
            tokens[7] = word;
            // Weights that use every influence.
            tokens[4..7].copy_from_slice(&["0.25"; 3]);
            let column = tokens[..7].iter().map(|t| t.len() + 1).sum::<usize>() + 1;
            *line = tokens.join(" ").into_bytes();
            let bytes = lines.join(&b'\n');
            let read = parse(&bytes).expect_err("palette past the bones");
            let owned = parse_owned_from(bytes, 0).expect_err("palette past the bones");
            assert_eq!(format!("{read:?}"), format!("{owned:?}"));
            let crate::Error::IndexOutOfRange { at, what } = read else {
                panic!("{read:?}")
            };
            assert_eq!(
                (at.line as usize, at.column as usize),
                (row + 2, column),
                "{what}"
            );
            assert!(what.starts_with(&format!("vertex {row}:")), "{what}");
        }
    }
}
