//! Text → borrowed scope tree ([`super::spans`]): lines, the header, scopes, entries, data.
//! Every line's values are checked here (so that errors come in file order) but stay one
//! slice of the input.

use crate::error::{clip, Error, Warning, WarningKind};
use crate::number::{parse_f64, Num};
use crate::read::spans::{
    char_len, is_ws, split, syntax, trim, trim_lead, valid, Budget, Entry, Item, LineSplit, Run,
    Scope, Tree, Vals,
};
use crate::rules::is_ident;
use crate::tree::{LineEnding, Pos};
use crate::{HEADER, MAX_DEPTH};

/// Parses decoded text (BOM already removed) into a scope tree that borrows from it; returns
/// the budget left for what is built from the tree.
pub(crate) fn lex<'a>(
    text: &'a str,
    bom: bool,
    warnings: &mut Vec<Warning>,
) -> Result<(Tree<'a>, Budget), Error> {
    let mut lines = LineSplit::new(text, 0);
    let (line_ending, last_line) = header(&mut lines)?;
    let version = file_version(&mut lines, last_line, warnings)?;
    let mut body = Body {
        budget: Budget::new(text.len()),
        top: Vec::new(),
        stack: Vec::new(),
    };
    for (line, offset, content, _) in lines {
        let (lead, t) = trim_lead(content);
        if t.is_empty() {
            continue;
        }
        let column = u32::try_from(lead).unwrap_or(u32::MAX).saturating_add(1);
        if valid(t) {
            // A data line, the bulk of a file: values that `split` accepts cannot start with
            // `}`, end with `{` or hold `=` outside quotes, so none of the checks of
            // `Body::structure` applies; this skips them and the column arithmetic of `split`.
            body.data(text, offset + lead, t, Pos::new(line, column))?;
            continue;
        }
        body.structure(text, offset + lead, t, line, column)?;
    }
    if let Some(open) = body.stack.last() {
        return Err(syntax(
            open.pos.line,
            open.pos.column,
            format!(
                "scope `{}` is still open at the end of the file (missing `}}`)",
                clip(open.tag)
            ),
        ));
    }
    let tree = Tree {
        bom,
        line_ending,
        version,
        items: body.top,
    };
    Ok((tree, body.budget))
}

/// The header, the first non-blank line: the file's line ending and the number of the last
/// line read.
fn header(lines: &mut LineSplit<'_>) -> Result<(LineEnding, u32), Error> {
    let mut last_line = 0;
    for (line, _, content, ending) in lines.by_ref() {
        last_line = line;
        let (column, t) = trim(content);
        if t.is_empty() {
            continue;
        }
        if t != HEADER {
            return Err(Error::NotThisFormat {
                line,
                column,
                found: clip(t),
            });
        }
        return Ok((ending.unwrap_or_default(), last_line));
    }
    Err(Error::NotThisFormat {
        line: last_line.max(1),
        column: 1,
        found: String::new(),
    })
}

/// `File Version <number>`, the next non-blank line after the header (`last_line`).
fn file_version<'a>(
    lines: &mut LineSplit<'a>,
    mut last_line: u32,
    warnings: &mut Vec<Warning>,
) -> Result<(&'a str, Pos), Error> {
    for (line, _, content, _) in lines.by_ref() {
        last_line = line;
        let (column, t) = trim(content);
        if t.is_empty() {
            continue;
        }
        return read_version(line, column, t, warnings);
    }
    Err(syntax(
        last_line.saturating_add(1),
        1,
        "expected `File Version 1.00`, found the end of the file",
    ))
}

/// The body's items as they are read: the top-level list, the scopes still open, and the
/// budget their lists spend.
struct Body<'a> {
    budget: Budget,
    top: Vec<Item<'a>>,
    stack: Vec<Scope<'a>>,
}

/// The list new items go to: the innermost open scope's, else the top level's.
fn innermost<'s, 'a>(
    stack: &'s mut [Scope<'a>],
    top: &'s mut Vec<Item<'a>>,
) -> &'s mut Vec<Item<'a>> {
    match stack.last_mut() {
        Some(parent) => &mut parent.items,
        None => top,
    }
}

impl<'a> Body<'a> {
    /// A data line `t`, at byte `start` of `text`, checked.
    // `always`: called once a data line, the bulk of a file; as a call it cost the lexer
    // 1.7 % more instructions (callgrind, `models info` of the large skinned ELEM).
    #[inline(always)]
    fn data(&mut self, text: &'a str, start: usize, t: &'a str, pos: Pos) -> Result<(), Error> {
        let list = innermost(&mut self.stack, &mut self.top);
        if let Some(item) = data_line(list, text, start..start + t.len(), pos) {
            self.budget.push(list, item, pos.line, pos.column)?;
        }
        Ok(())
    }

    /// A line that `valid` refused: `}`, `tag {`, `key = values`, or values in error.
    fn structure(
        &mut self,
        text: &'a str,
        start: usize,
        t: &'a str,
        line: u32,
        column: u32,
    ) -> Result<(), Error> {
        if t == "}" {
            let scope = self
                .stack
                .pop()
                .ok_or_else(|| syntax(line, column, "`}` without a matching `{`"))?;
            let list = innermost(&mut self.stack, &mut self.top);
            return self.budget.push(list, Item::Scope(scope), line, column);
        }
        if t.starts_with('}') {
            return Err(syntax(
                line,
                column,
                format!("`}}` must be alone on its line, found {:?}", clip(t)),
            ));
        }
        if let Some(tag) = t.strip_suffix('{') {
            return self.open(tag, line, column);
        }
        if let Some(eq) = find_eq(t) {
            let item = entry(t, eq, line, column)?;
            let list = innermost(&mut self.stack, &mut self.top);
            return self.budget.push(list, item, line, column);
        }
        // Values `valid` refused: `split` gives the error and its position.
        checked(t, line, column)?;
        // Not reached unless `valid` and `split` disagree; then `split` is the rule.
        self.data(text, start, t, Pos::new(line, column))
    }

    /// `tag {`: a scope opens (`tag` still holds the blanks before the `{`).
    fn open(&mut self, tag: &'a str, line: u32, column: u32) -> Result<(), Error> {
        let tag = tag.trim_end_matches(is_ws);
        if !is_ident(tag) {
            return Err(syntax(
                line,
                column,
                format!("expected a tag name before `{{`, found {:?}", clip(tag)),
            ));
        }
        if self.stack.len() >= MAX_DEPTH {
            return Err(Error::LimitExceeded {
                line,
                column,
                limit: MAX_DEPTH,
            });
        }
        self.stack.push(Scope {
            pos: Pos::new(line, column),
            tag,
            items: Vec::new(),
        });
        Ok(())
    }
}

/// `key = values` (`=` at byte `eq` of `t`), its values checked.
fn entry(t: &str, eq: usize, line: u32, column: u32) -> Result<Item<'_>, Error> {
    let key = t.get(..eq).unwrap_or_default().trim_end_matches(is_ws);
    if !is_ident(key) {
        return Err(syntax(
            line,
            column,
            format!("expected a key name before `=`, found {:?}", clip(key)),
        ));
    }
    let head = t.get(..=eq).unwrap_or_default();
    let rest = t.get(eq + 1..).unwrap_or_default();
    let values = checked(rest, line, column.saturating_add(char_len(head)))?;
    Ok(Item::Entry(Entry {
        pos: Pos::new(line, column),
        key,
        values,
    }))
}

/// A data line (its values at `values` in `text`, checked) onto its scope's `list`: the run
/// the list ends with grows over it (`None`), or it starts a new run, returned.
fn data_line<'a>(
    list: &mut [Item<'a>],
    text: &'a str,
    values: std::ops::Range<usize>,
    pos: Pos,
) -> Option<Item<'a>> {
    if let Some(Item::Lines(run)) = list.last_mut() {
        // Only blank lines can stand between the run and this line: any other line would be
        // the list's last item, or belong to another list.
        run.text = text.get(run.start..values.end).unwrap_or_default();
        run.count += 1;
        return None;
    }
    Some(Item::Lines(Run {
        text: text.get(values.clone()).unwrap_or_default(),
        start: values.start,
        pos,
        count: 1,
    }))
}

/// Values text, checked: its atoms are split again when the typed reader asks for them.
fn checked(text: &str, line: u32, col: u32) -> Result<Vals<'_>, Error> {
    split(text, line, col, |_| {})?;
    Ok(Vals::Text { text, line, col })
}

fn read_version<'a>(
    line: u32,
    column: u32,
    t: &'a str,
    warnings: &mut Vec<Warning>,
) -> Result<(&'a str, Pos), Error> {
    let expected = || {
        syntax(
            line,
            column,
            format!("expected `File Version 1.00`, found {:?}", clip(t)),
        )
    };
    let rest = t.strip_prefix("File Version").ok_or_else(expected)?;
    let number = rest.trim_start_matches(is_ws);
    if number.len() == rest.len() || number.is_empty() {
        return Err(expected());
    }
    let vcol = column.saturating_add(char_len(t).saturating_sub(char_len(number)));
    let value = match parse_f64(number) {
        Some(Num::Finite(v)) => v,
        _ => return Err(expected()),
    };
    if value >= 2.0 {
        return Err(Error::UnsupportedVersion {
            line,
            column: vcol,
            version: clip(number),
        });
    }
    if value != 1.0 {
        warnings.push(Warning::new(
            line,
            vcol,
            WarningKind::VersionNot100 {
                version: clip(number),
            },
        ));
    }
    Ok((number, Pos::new(line, vcol)))
}

/// The byte index of the first `=` outside quotes.
fn find_eq(t: &str) -> Option<usize> {
    let mut quoted = false;
    for (i, b) in t.bytes().enumerate() {
        match b {
            b'"' => quoted = !quoted,
            b'=' if !quoted => return Some(i),
            _ => {}
        }
    }
    None
}
