//! Bytes → text → scope tree → typed model.
//!
//! * [`lex`]: text to [`Tree`] (lines, header, scopes with an explicit stack, values);
//! * [`typed`]: [`Tree`] to [`Elem`] with every validation rule.

pub(crate) mod bulk;
pub(crate) mod lex;
pub(crate) mod typed;

use std::borrow::Cow;

use crate::error::{Error, Warning, WarningKind};
use crate::model::Elem;
use crate::tree::Tree;

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

/// Reads the scope tree of a whole file.
pub(crate) fn tree(bytes: &[u8], warnings: &mut Vec<Warning>) -> Result<Tree, Error> {
    let (text, bom) = decode(bytes, warnings)?;
    lex::lex(&text, bom, warnings)
}

/// Reads a whole file into the typed model: first with the bulk fast path ([`bulk`]); if that
/// refuses the file or anything fails, again through the scope tree alone, so that errors and
/// warnings are always those of the tree path.
pub(crate) fn elem(bytes: &[u8]) -> Result<(Elem, Vec<Warning>), Error> {
    let mut warnings = Vec::new();
    let (text, bom) = decode(bytes, &mut warnings)?;
    let decoded = warnings.len();
    let mut table = bulk::Table::default();
    let fast = lex::lex_with(&text, bom, &mut warnings, Some(&mut table))
        .and_then(|tree| typed::elem_with(tree, &mut warnings, table));
    if let Ok(doc) = fast {
        return Ok((doc, warnings));
    }
    warnings.truncate(decoded);
    let tree = lex::lex(&text, bom, &mut warnings)?;
    let doc = typed::elem(tree, &mut warnings)?;
    Ok((doc, warnings))
}
