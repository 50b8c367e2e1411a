//! The fast path for the bulk scopes of a `Mesh` (`Positions`, `Normals`, `Diffuse`, the UV
//! sets, `VertexIndices`, `Attributes`): their lines are parsed straight into arrays while
//! lexing, instead of into one owned [`Atom`](crate::tree::Atom) per value (which costs an
//! allocation per number and about 15× the file size in memory).
//!
//! The fast path only accepts what the scope-tree path reads without an error or a warning:
//! plain finite numbers, `n,i0:i1:…` faces and single indices with digits only. Anything else
//! (and any error later on) makes [`super::elem`] read the whole file again through the scope
//! tree, so errors, warnings and their positions are exactly those of the tree path.

use std::collections::HashMap;

use crate::error::Error;
use crate::number::{parse_f64, Num};
use crate::read::typed::UV_TAGS;

/// What a bulk scope holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Rows of this many numbers separated by `:`.
    Row(usize),
    /// `n,i0:i1:…` faces.
    Faces,
    /// One material index per line.
    Attributes,
}

impl Kind {
    /// The kind of a scope tag directly inside a `Mesh`, as `typed::Ctx::mesh` reads it.
    pub(crate) fn of(tag: &str) -> Option<Kind> {
        let uv = tag
            .strip_prefix("Texture")
            .and_then(|t| t.strip_suffix("UV"))
            .is_some_and(|n| n.is_empty() || UV_TAGS.contains(&tag));
        match tag {
            _ if uv => Some(Kind::Row(2)),
            "Positions" | "Normals" => Some(Kind::Row(3)),
            "Diffuse" => Some(Kind::Row(4)),
            "VertexIndices" => Some(Kind::Faces),
            "Attributes" => Some(Kind::Attributes),
            _ => None,
        }
    }
}

/// The error that makes [`super::elem`] take the scope-tree path; never returned to users.
pub(crate) fn refused() -> Error {
    Error::Syntax {
        line: 0,
        column: 0,
        message: "the bulk fast path does not take this file".into(),
    }
}

/// The parsed content of one bulk scope.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Rows {
    /// Rows of 2 numbers.
    F2(Vec<[f64; 2]>),
    /// Rows of 3 numbers.
    F3(Vec<[f64; 3]>),
    /// Rows of 4 numbers.
    F4(Vec<[f64; 4]>),
    /// Faces: corner counts and the concatenated corner indices (not yet range-checked).
    Faces {
        /// Corner count of each face.
        sizes: Vec<u32>,
        /// Every face's corners.
        indices: Vec<u32>,
    },
    /// Material indices (not yet range-checked).
    Attributes(Vec<u32>),
}

impl Rows {
    pub(crate) fn new(kind: Kind) -> Option<Rows> {
        Some(match kind {
            Kind::Row(2) => Rows::F2(Vec::new()),
            Kind::Row(3) => Rows::F3(Vec::new()),
            Kind::Row(4) => Rows::F4(Vec::new()),
            Kind::Row(_) => return None,
            Kind::Faces => Rows::Faces {
                sizes: Vec::new(),
                indices: Vec::new(),
            },
            Kind::Attributes => Rows::Attributes(Vec::new()),
        })
    }

    /// Adds one trimmed, non-empty line; `None` when the fast path does not take it.
    pub(crate) fn push(&mut self, line: &str) -> Option<()> {
        match self {
            Rows::F2(v) => v.push(row(line)?),
            Rows::F3(v) => v.push(row(line)?),
            Rows::F4(v) => v.push(row(line)?),
            Rows::Faces { sizes, indices } => {
                let (n, corners) = line.split_once(',')?;
                let n = digits(n)?;
                let before = indices.len();
                for c in corners.split(':') {
                    indices.push(digits(c)?);
                }
                let count = indices.len() - before;
                if n < 3 || n as usize != count {
                    return None;
                }
                sizes.push(n);
            }
            Rows::Attributes(v) => v.push(digits(line)?),
        }
        Some(())
    }
}

/// Trims spaces and tabs.
fn trim(s: &str) -> &str {
    s.trim_matches(|c| c == ' ' || c == '\t')
}

/// One plain finite number with nothing the value scanner would treat specially.
fn number(s: &str) -> Option<f64> {
    let s = trim(s);
    if s.is_empty()
        || s.bytes()
            .any(|b| matches!(b, b',' | b'"' | b'{' | b'}' | b'='))
    {
        return None;
    }
    match parse_f64(s)? {
        Num::Finite(v) => Some(v),
        Num::NonFinite(_) => None,
    }
}

/// `N` numbers separated by `:`.
fn row<const N: usize>(line: &str) -> Option<[f64; N]> {
    if line.ends_with('{') {
        return None;
    }
    let mut out = [0.0; N];
    let mut parts = line.split(':');
    for slot in &mut out {
        *slot = number(parts.next()?)?;
    }
    parts.next().is_none().then_some(out)
}

/// An unsigned integer of at most 9 digits (so it fits `u32` and needs no overflow check).
fn digits(s: &str) -> Option<u32> {
    let s = trim(s);
    if s.is_empty() || s.len() > 9 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(s.bytes().fold(0, |acc, b| acc * 10 + u32::from(b - b'0')))
}

/// The bulk scopes read by the fast path, keyed by the position of their tag.
#[derive(Debug, Default)]
pub(crate) struct Table {
    scopes: HashMap<(u32, u32), Rows>,
}

impl Table {
    pub(crate) fn insert(&mut self, line: u32, column: u32, rows: Rows) {
        self.scopes.insert((line, column), rows);
    }

    /// The rows of the scope whose tag is at `line`:`column`, once.
    pub(crate) fn take(&mut self, line: u32, column: u32) -> Option<Rows> {
        self.scopes.remove(&(line, column))
    }

    /// True when every fast-path scope was used by the typed reader.
    pub(crate) fn is_empty(&self) -> bool {
        self.scopes.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_plain_rows_only() {
        let mut r = Rows::new(Kind::Row(3)).unwrap();
        assert_eq!(r.push("1.5:-2: 3e2"), Some(()));
        assert_eq!(r, Rows::F3(vec![[1.5, -2.0, 300.0]]));
        for bad in [
            "1:2",
            "1:2:3:4",
            "1:2,3",
            "1:\"2\":3",
            "1:2:1.#QNAN",
            "1::3",
            "a:b:c",
        ] {
            assert_eq!(r.push(bad), None, "{bad}");
        }
    }

    #[test]
    fn takes_faces_and_attributes() {
        let mut f = Rows::new(Kind::Faces).unwrap();
        assert_eq!(f.push("3,0:1:2"), Some(()));
        assert_eq!(f.push("4, 3 : 4:5:6"), Some(()));
        assert_eq!(
            f,
            Rows::Faces {
                sizes: vec![3, 4],
                indices: vec![0, 1, 2, 3, 4, 5, 6]
            }
        );
        for bad in [
            "2,0:1",
            "3,0:1",
            "3:0:1:2",
            "3,0,1:2",
            "3,+0:1:2",
            "3,0:1:9999999999",
        ] {
            // A refused line refuses the whole file: what it left behind does not matter.
            let mut fresh = Rows::new(Kind::Faces).unwrap();
            assert_eq!(fresh.push(bad), None, "{bad}");
        }
        let mut a = Rows::new(Kind::Attributes).unwrap();
        assert_eq!(a.push("7"), Some(()));
        assert_eq!(a.push("-1"), None);
        assert_eq!(a.push("1:2"), None);
    }

    /// The tree path alone, as `read::elem` falls back to it.
    fn tree_path(bytes: &[u8]) -> Result<(crate::Elem, Vec<crate::Warning>), Error> {
        let mut warnings = Vec::new();
        let tree = crate::read::tree(bytes, &mut warnings)?;
        let doc = crate::read::typed::elem(tree, &mut warnings)?;
        Ok((doc, warnings))
    }

    /// Fast path and tree path agree on every fixture and sample, on every line-level
    /// corruption of a small fixture (documents, warnings, errors and their positions).
    #[test]
    fn fast_path_equals_tree_path() {
        let mut files = test_support::fixtures("elem", "elem");
        files.extend(test_support::samples("elem", "elem").unwrap_or_default());
        assert!(!files.is_empty());
        for path in &files {
            let bytes = test_support::read(path);
            let fast = crate::read::elem(&bytes);
            let tree = tree_path(&bytes);
            assert_eq!(
                format!("{fast:?}"),
                format!("{tree:?}"),
                "{}",
                path.display()
            );
        }
        // The fixtures are canonical files: the fast path alone must take them.
        for path in test_support::fixtures("elem", "elem") {
            let bytes = test_support::read(&path);
            let text = std::str::from_utf8(&bytes).unwrap_or_default();
            let mut warnings = Vec::new();
            let mut table = Table::default();
            let doc = crate::read::lex::lex_with(text, false, &mut warnings, Some(&mut table))
                .and_then(|t| crate::read::typed::elem_with(t, &mut warnings, table));
            assert!(doc.is_ok(), "{}: {doc:?}", path.display());
        }
        let small = files
            .iter()
            .map(|p| test_support::read(p))
            .min_by_key(Vec::len)
            .unwrap_or_default();
        let text = String::from_utf8_lossy(&small).into_owned();
        let lines: Vec<&str> = text.split("\r\n").collect();
        let edits = [
            "",
            "1:2",
            "3,0:1:99",
            "1.#QNAN:0:0",
            "+1:2:3",
            "x",
            "}",
            "A {",
            "K=1",
        ];
        for i in 0..lines.len() {
            for edit in edits {
                let mut changed = lines.clone();
                changed[i] = edit;
                let bytes = changed.join("\r\n").into_bytes();
                let fast = crate::read::elem(&bytes);
                let tree = tree_path(&bytes);
                assert_eq!(
                    format!("{fast:?}"),
                    format!("{tree:?}"),
                    "line {i} = {edit:?}"
                );
            }
        }
    }

    #[test]
    fn kinds_follow_the_typed_reader() {
        assert_eq!(Kind::of("TextureUV"), Some(Kind::Row(2)));
        assert_eq!(Kind::of("Texture8UV"), Some(Kind::Row(2)));
        assert_eq!(Kind::of("Texture9UV"), None);
        assert_eq!(Kind::of("Diffuse"), Some(Kind::Row(4)));
        assert_eq!(Kind::of("BlendList"), None);
    }
}
