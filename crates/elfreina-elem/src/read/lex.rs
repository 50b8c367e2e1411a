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

    // Header: the first non-blank line.
    let mut line_ending = LineEnding::CrLf;
    let mut found_header = false;
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
        line_ending = ending.unwrap_or_default();
        found_header = true;
        break;
    }
    if !found_header {
        return Err(Error::NotThisFormat {
            line: last_line.max(1),
            column: 1,
            found: String::new(),
        });
    }

    // `File Version <number>`.
    let mut version = None;
    for (line, _, content, _) in lines.by_ref() {
        last_line = line;
        let (column, t) = trim(content);
        if t.is_empty() {
            continue;
        }
        version = Some(read_version(line, column, t, warnings)?);
        break;
    }
    let version = version.ok_or_else(|| {
        syntax(
            last_line.saturating_add(1),
            1,
            "expected `File Version 1.00`, found the end of the file",
        )
    })?;

    // Body.
    let mut budget = Budget::new(text.len());
    let mut top: Vec<Item<'_>> = Vec::new();
    let mut stack: Vec<Scope<'_>> = Vec::new();
    for (line, offset, content, _) in lines {
        let (lead, t) = trim_lead(content);
        if t.is_empty() {
            continue;
        }
        let column = u32::try_from(lead).unwrap_or(u32::MAX).saturating_add(1);
        if valid(t) {
            // A data line, the bulk of a file: values that `split` accepts cannot start with
            // `}`, end with `{` or hold `=` outside quotes, so none of the checks below
            // applies; this skips them and the column arithmetic of `split`.
            let list = match stack.last_mut() {
                Some(parent) => &mut parent.items,
                None => &mut top,
            };
            let start = offset + lead;
            let pos = Pos::new(line, column);
            if let Some(item) = data_line(list, text, start..start + t.len(), pos) {
                budget.push(list, item, line, column)?;
            }
            continue;
        }
        if t == "}" {
            let scope = stack
                .pop()
                .ok_or_else(|| syntax(line, column, "`}` without a matching `{`"))?;
            let list = match stack.last_mut() {
                Some(parent) => &mut parent.items,
                None => &mut top,
            };
            budget.push(list, Item::Scope(scope), line, column)?;
            continue;
        }
        if t.starts_with('}') {
            return Err(syntax(
                line,
                column,
                format!("`}}` must be alone on its line, found {:?}", clip(t)),
            ));
        }
        let item = if let Some(tag) = t.strip_suffix('{') {
            let tag = tag.trim_end_matches(is_ws);
            if !is_ident(tag) {
                return Err(syntax(
                    line,
                    column,
                    format!("expected a tag name before `{{`, found {:?}", clip(tag)),
                ));
            }
            if stack.len() >= MAX_DEPTH {
                return Err(Error::LimitExceeded {
                    line,
                    column,
                    limit: MAX_DEPTH,
                });
            }
            stack.push(Scope {
                pos: Pos::new(line, column),
                tag,
                items: Vec::new(),
            });
            continue;
        } else if let Some(eq) = find_eq(t) {
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
            Item::Entry(Entry {
                pos: Pos::new(line, column),
                key,
                values,
            })
        } else {
            // Values `valid` refused: `split` gives the error and its position.
            checked(t, line, column)?;
            // Not reached unless `valid` and `split` disagree; then `split` is the rule.
            let start = offset + lead;
            let list = match stack.last_mut() {
                Some(parent) => &mut parent.items,
                None => &mut top,
            };
            match data_line(list, text, start..start + t.len(), Pos::new(line, column)) {
                Some(item) => item,
                None => continue,
            }
        };
        let list = match stack.last_mut() {
            Some(parent) => &mut parent.items,
            None => &mut top,
        };
        budget.push(list, item, line, column)?;
    }
    if let Some(open) = stack.last() {
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
        items: top,
    };
    Ok((tree, budget))
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
