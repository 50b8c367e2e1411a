//! Bytes → text → borrowed scope tree → typed model, in one pass over the text and one
//! parser: imports go one way, `lex` → `spans` → `typed` (with `scan`, the fast readings of
//! a plain data line).
//!
//! * [`lex`]: text to a [`spans::Tree`] that borrows from the text (lines, header, scopes with
//!   an explicit stack; every line's values checked, kept as one slice);
//! * [`typed`]: [`spans::Tree`] to [`Elem`] with every validation rule; plain rows of numbers
//!   and indices are read straight from their slice ([`scan`]), any other line atom by atom.

pub(crate) mod lex;
pub(crate) mod scan;
pub(crate) mod spans;
pub(crate) mod typed;

use std::borrow::Cow;

use crate::error::{Error, Warning, WarningKind};
use crate::model::Elem;
use crate::tree::{self, Tree};

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Removes an optional BOM and decodes UTF-8; invalid UTF-8 is decoded as CP932 with a
/// warning (rule 8), except an incomplete character at the very end, which is truncation.
fn decode<'a>(bytes: &'a [u8], warnings: &mut Vec<Warning>) -> Result<(Cow<'a, str>, bool), Error> {
    let (bytes, bom) = match bytes.strip_prefix(BOM) {
        Some(rest) => (rest, true),
        None => (bytes, false),
    };
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok((Cow::Borrowed(text), bom)),
        Err(e) if e.error_len().is_none() => {
            let valid = bytes.get(..e.valid_up_to()).unwrap_or_default();
            let text = std::str::from_utf8(valid).unwrap_or_default();
            let line = text.bytes().filter(|&b| b == b'\n').count() + 1;
            let last = text.rsplit('\n').next().unwrap_or_default();
            Err(Error::Syntax {
                line: u32::try_from(line).unwrap_or(u32::MAX),
                column: u32::try_from(last.chars().count() + 1).unwrap_or(u32::MAX),
                message: "the input ends inside a UTF-8 character".into(),
            })
        }
        Err(_) => {
            warnings.push(Warning::new(0, 0, WarningKind::DecodedAsCp932));
            Ok((Cow::Owned(binio::sjis::decode(bytes).into_owned()), bom))
        }
    }
}

/// Reads the scope tree of a whole file, as owned nodes.
pub(crate) fn tree(bytes: &[u8], warnings: &mut Vec<Warning>) -> Result<Tree, Error> {
    let (text, bom) = decode(bytes, warnings)?;
    let (spans, mut budget) = lex::lex(&text, bom, warnings)?;
    let mut items = Vec::new();
    let n = spans.items.iter().map(spans::Item::width).sum();
    budget.reserve(&mut items, n, 0, 0)?;
    for item in &spans.items {
        item.to_owned_into(&mut budget, &mut items)?;
    }
    let (version, pos) = spans.version;
    Ok(Tree {
        bom: spans.bom,
        line_ending: spans.line_ending,
        version: tree::Atom {
            pos,
            ..tree::Atom::bare(version)
        },
        items,
    })
}

/// Reads a whole file into the typed model.
pub(crate) fn elem(bytes: &[u8]) -> Result<(Elem, Vec<Warning>), Error> {
    let mut warnings = Vec::new();
    let (text, bom) = decode(bytes, &mut warnings)?;
    let (spans, budget) = lex::lex(&text, bom, &mut warnings)?;
    let doc = typed::elem(spans, budget, &mut warnings)?;
    Ok((doc, warnings))
}

/// Gives meaning to a tree built in code (or read with [`tree()`]).
pub(crate) fn from_tree(tree: &Tree, warnings: &mut Vec<Warning>) -> Result<Elem, Error> {
    let items = tree
        .items
        .iter()
        .map(|i| spans::Item::view(i, 0))
        .collect::<Result<_, _>>()?;
    let view = spans::Tree {
        bom: tree.bom,
        line_ending: tree.line_ending,
        version: (&tree.version.text, tree.version.pos),
        items,
    };
    typed::elem(view, spans::Budget::unlimited(), warnings)
}

#[cfg(test)]
mod tests {
    use crate::error::{Error, Warning};
    use crate::model::Elem;

    /// The general reading alone: the owned tree, then the typed reader over it (a tree
    /// built in code has no line text, so no line is read by [`super::scan`]).
    fn general(bytes: &[u8]) -> Result<(Elem, Vec<Warning>), Error> {
        let mut warnings = Vec::new();
        let tree = super::tree(bytes, &mut warnings)?;
        let doc = super::from_tree(&tree, &mut warnings)?;
        Ok((doc, warnings))
    }

    /// The fast line readings and the general one agree on every fixture and sample and on
    /// every line-level corruption of a small fixture: documents, warnings, errors and their
    /// positions.
    #[test]
    fn fast_readings_equal_the_general_reading() {
        let mut files = test_support::fixtures("elem", "elem");
        files.extend(test_support::samples("elem", "elem").unwrap_or_default());
        assert!(!files.is_empty());
        for path in &files {
            let bytes = test_support::read(path);
            let fast = super::elem(&bytes);
            assert_eq!(
                format!("{fast:?}"),
                format!("{:?}", general(&bytes)),
                "{}",
                path.display()
            );
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
            "3,0:1:2 x",
            "1.#QNAN:0:0",
            "+1:2:3",
            "x",
            "}",
            "A {",
            "K=1",
            "7",
        ];
        for i in 0..lines.len() {
            for edit in edits {
                let mut changed = lines.clone();
                changed[i] = edit;
                let bytes = changed.join("\r\n").into_bytes();
                assert_eq!(
                    format!("{:?}", super::elem(&bytes)),
                    format!("{:?}", general(&bytes)),
                    "line {i} = {edit:?}"
                );
            }
        }
    }

    /// A run of data lines keeps every line's own position: blank lines, other indentation
    /// and every line ending inside the run count as they did with one node per line.
    #[test]
    fn data_lines_in_one_run_keep_their_positions() {
        let head = "Elfreina Extension Model File\nFile Version 1.00\n";
        let body = "MeshDataList {\nMeshContainer {\nMesh {\nPositions {\n  1:2:3\r\n\n\r\t\t4:5:x\n}\n}\n}\n}\n";
        let err = super::elem(format!("{head}{body}").as_bytes()).unwrap_err();
        assert_eq!(err.position(), Some((10, 7)), "{err}");
        let tree =
            crate::Tree::from_bytes(format!("{head}A {{\n 1\r\n\n\t\t2:3\r4\n}}\n").as_bytes())
                .unwrap();
        let crate::Item::Scope(a) = &tree.items[0] else {
            panic!("{tree:?}")
        };
        let found: Vec<(u32, u32, usize)> = a
            .items
            .iter()
            .map(|i| match i {
                crate::Item::Data(d) => (d.pos.line, d.pos.column, d.values.atoms.len()),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(found, [(4, 2, 1), (6, 3, 2), (7, 1, 1)]);
    }
}
