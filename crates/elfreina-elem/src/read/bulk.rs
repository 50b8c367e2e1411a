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
use crate::rules::UV_TAGS;

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

    /// Reads the lines of a bulk scope from the start of `text` up to (not including) the line
    /// that closes it (`}` alone), or to the end. Returns the bytes and lines consumed, or
    /// `None` when the fast path does not take a line.
    pub(crate) fn scan(&mut self, text: &str) -> Option<(usize, u32)> {
        let mut s = Scan {
            b: text.as_bytes(),
            i: 0,
        };
        let mut lines = 0u32;
        loop {
            let start = s.i;
            s.ws();
            if s.i == s.b.len() {
                return Some((s.i, lines));
            }
            if s.eol() {
                lines = lines.saturating_add(1);
                continue;
            }
            if s.peek() == Some(b'}') {
                s.i += 1;
                s.ws();
                return (s.i == s.b.len() || s.eol()).then_some((start, lines));
            }
            match self {
                Rows::F2(v) => v.push(s.row()?),
                Rows::F3(v) => v.push(s.row()?),
                Rows::F4(v) => v.push(s.row()?),
                Rows::Faces { sizes, indices } => {
                    let n = s.digits()?;
                    s.ws();
                    s.eat(b',')?;
                    let before = indices.len();
                    loop {
                        s.ws();
                        indices.push(s.digits()?);
                        s.ws();
                        if s.eat(b':').is_none() {
                            break;
                        }
                    }
                    let count = indices.len() - before;
                    if n < 3 || n as usize != count {
                        return None;
                    }
                    sizes.push(n);
                }
                Rows::Attributes(v) => {
                    v.push(s.digits()?);
                    s.ws();
                }
            }
            if !(s.i == s.b.len() || s.eol()) {
                return None;
            }
            lines = lines.saturating_add(1);
        }
    }
}

/// A byte cursor over the text of a bulk scope.
struct Scan<'a> {
    b: &'a [u8],
    i: usize,
}

impl Scan<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        (self.peek() == Some(c)).then(|| self.i += 1)
    }

    /// Consumes one line ending (CRLF, CR or LF).
    fn eol(&mut self) -> bool {
        match self.peek() {
            Some(b'\r') => {
                self.i += 1;
                let _ = self.eat(b'\n');
                true
            }
            Some(b'\n') => {
                self.i += 1;
                true
            }
            _ => false,
        }
    }

    fn digit_run(&mut self) -> usize {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        self.i - start
    }

    /// An unsigned integer of 1 to 9 digits (so it fits `u32` without an overflow check).
    fn digits(&mut self) -> Option<u32> {
        let start = self.i;
        let n = self.digit_run();
        if n == 0 || n > 9 {
            return None;
        }
        let digits = self.b.get(start..self.i)?;
        Some(
            digits
                .iter()
                .fold(0, |acc, &d| acc * 10 + u32::from(d - b'0')),
        )
    }

    /// One number of the specification's grammar
    /// (`[+-] (digits [. [digits]] | . digits) [(e|E) [+-] digits]`), followed by a space, a
    /// tab, `:`, a line ending or the end. The scan only finds the token's end and checks the
    /// grammar; `fast-float2` computes the value, so the bits are those of
    /// [`parse_f64`](crate::number::parse_f64).
    fn number(&mut self) -> Option<f64> {
        let start = self.i;
        if matches!(self.peek(), Some(b'-' | b'+')) {
            self.i += 1;
        }
        let mut digits = self.digit_run();
        if self.peek() == Some(b'.') {
            self.i += 1;
            digits += self.digit_run();
        }
        if digits == 0 {
            return None;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.peek(), Some(b'-' | b'+')) {
                self.i += 1;
            }
            if self.digit_run() == 0 {
                return None;
            }
        }
        if !matches!(
            self.peek(),
            None | Some(b' ' | b'\t' | b':' | b'\r' | b'\n')
        ) {
            return None;
        }
        let text = self.b.get(start..self.i)?;
        fast_float2::parse::<f64, _>(text).ok()
    }

    /// `N` numbers separated by `:`.
    fn row<const N: usize>(&mut self) -> Option<[f64; N]> {
        let mut out = [0.0; N];
        for (k, slot) in out.iter_mut().enumerate() {
            self.ws();
            *slot = self.number()?;
            self.ws();
            if k + 1 < N {
                self.eat(b':')?;
            }
        }
        Some(out)
    }
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
    use crate::number::{parse_f64, Num};

    fn scan(kind: Kind, text: &str) -> Option<(Rows, usize, u32)> {
        let mut rows = Rows::new(kind)?;
        let (consumed, lines) = rows.scan(text)?;
        Some((rows, consumed, lines))
    }

    #[test]
    fn takes_plain_rows_up_to_the_closing_brace() {
        let text = "1.5:-2: 3e2\r\n\r\n\t-0:.5:7.\r\n\t}\r\nNext";
        let (rows, consumed, lines) = scan(Kind::Row(3), text).unwrap();
        assert_eq!(rows, Rows::F3(vec![[1.5, -2.0, 300.0], [-0.0, 0.5, 7.0]]));
        assert_eq!(&text[consumed..], "\t}\r\nNext");
        assert_eq!(lines, 3);
        let Rows::F3(v) = rows else { unreachable!() };
        assert!(v[1][0].is_sign_negative());
        for bad in [
            "1:2\n}",
            "1:2:3:4\n}",
            "1:2,3\n}",
            "1:\"2\":3\n}",
            "1:2:1.#QNAN\n}",
            "1::3\n}",
            "a:b:c\n}",
            "1:2:3 {\n}",
            "1:2:3\n}x",
            "1:2:3e\n}",
        ] {
            assert!(scan(Kind::Row(3), bad).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn numbers_have_the_bits_of_the_tree_path() {
        for text in [
            "0.1",
            "-11.001263",
            "123456789.123456",
            "1e22",
            "1e23",
            "4.9e-324",
            "1e-400",
            "1e400",
            "9007199254740993",
            "12345678901234567890123",
            "0.000000",
            "-0.000000",
            "+3.25E+02",
            "1.7976931348623157e308",
        ] {
            let line = format!("{text}:{text}\n}}");
            let (rows, _, _) = scan(Kind::Row(2), &line).unwrap();
            let expected = match parse_f64(text) {
                Some(Num::Finite(v)) => v,
                _ => panic!("{text} is a number"),
            };
            assert_eq!(rows, Rows::F2(vec![[expected; 2]]), "{text}");
            let Rows::F2(v) = rows else { unreachable!() };
            assert_eq!(v[0][0].to_bits(), expected.to_bits(), "{text}");
        }
    }

    #[test]
    fn takes_faces_and_attributes() {
        let (faces, _, _) = scan(Kind::Faces, "3,0:1:2\n4, 3 : 4:5:6\n}").unwrap();
        assert_eq!(
            faces,
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
            "3,0:1:2.0",
        ] {
            assert!(scan(Kind::Faces, &format!("{bad}\n}}")).is_none(), "{bad}");
        }
        let (a, _, _) = scan(Kind::Attributes, "7\n 0 \n}").unwrap();
        assert_eq!(a, Rows::Attributes(vec![7, 0]));
        assert!(scan(Kind::Attributes, "-1\n}").is_none());
        assert!(scan(Kind::Attributes, "1:2\n}").is_none());
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
