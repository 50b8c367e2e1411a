//! Text → scope tree: lines, the header, scopes, entries, data and values.

use crate::error::{clip, Error, Warning, WarningKind};
use crate::number::{parse_f64, Num};
use crate::read::bulk::{self, Kind, Rows, Table};
use crate::rules::is_ident;
use crate::tree::{Atom, Data, Entry, Item, LineEnding, Pos, Scope, Tree, Values};
use crate::{HEADER, MAX_DEPTH};

/// A syntax error at a position.
pub(crate) fn syntax(line: u32, column: u32, message: impl Into<String>) -> Error {
    Error::Syntax {
        line,
        column,
        message: message.into(),
    }
}

fn is_ws(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// Splits text into lines on CRLF, LF or CR.
struct Lines<'a> {
    rest: &'a str,
    line: u32,
}

impl<'a> Iterator for Lines<'a> {
    /// (1-based line number, content without its ending, the ending if any).
    type Item = (u32, &'a str, Option<LineEnding>);

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let bytes = self.rest.as_bytes();
        let end = bytes
            .iter()
            .position(|&b| b == b'\r' || b == b'\n')
            .unwrap_or(bytes.len());
        let (ending, len) = match (bytes.get(end), bytes.get(end + 1)) {
            (Some(b'\r'), Some(b'\n')) => (Some(LineEnding::CrLf), 2),
            (Some(b'\r'), _) => (Some(LineEnding::Cr), 1),
            (Some(_), _) => (Some(LineEnding::Lf), 1),
            (None, _) => (None, 0),
        };
        let content = self.rest.get(..end).unwrap_or_default();
        self.rest = self.rest.get(end + len..).unwrap_or_default();
        self.line = self.line.saturating_add(1);
        Some((self.line, content, ending))
    }
}

/// Trims spaces and tabs; returns the 1-based column of the first kept character and the
/// trimmed text. Leading whitespace is ASCII, so its byte count is its character count.
fn trim(content: &str) -> (u32, &str) {
    let trimmed_start = content.trim_start_matches(is_ws);
    let lead = content.len() - trimmed_start.len();
    (
        u32::try_from(lead).unwrap_or(u32::MAX).saturating_add(1),
        trimmed_start.trim_end_matches(is_ws),
    )
}

fn char_len(s: &str) -> u32 {
    u32::try_from(s.chars().count()).unwrap_or(u32::MAX)
}

/// Parses decoded text (BOM already removed) into a scope tree.
pub(crate) fn lex(text: &str, bom: bool, warnings: &mut Vec<Warning>) -> Result<Tree, Error> {
    lex_with(text, bom, warnings, None)
}

/// [`lex`], and with `bulk`, the fast path of [`super::bulk`]: the bulk scopes directly inside a
/// `Mesh` are parsed into `bulk` and left empty in the tree. Fails (with an error that only
/// means "take the tree path") on any line the fast path does not take.
pub(crate) fn lex_with(
    text: &str,
    bom: bool,
    warnings: &mut Vec<Warning>,
    mut bulk: Option<&mut Table>,
) -> Result<Tree, Error> {
    let mut lines = Lines {
        rest: text,
        line: 0,
    };

    // Header: the first non-blank line.
    let mut line_ending = LineEnding::CrLf;
    let mut found_header = false;
    let mut last_line = 0;
    for (line, content, ending) in lines.by_ref() {
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
    for (line, content, _) in lines.by_ref() {
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
    let mut top: Vec<Item> = Vec::new();
    let mut stack: Vec<Scope> = Vec::new();
    while let Some((line, content, _)) = lines.next() {
        let (column, t) = trim(content);
        if t.is_empty() {
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
            if let Some(table) = bulk.as_deref_mut() {
                let in_mesh = stack.last().is_some_and(|p| p.tag == "Mesh");
                if let Some(mut rows) = Kind::of(tag).and_then(Rows::new).filter(|_| in_mesh) {
                    // The fast path reads the scope's lines up to its `}`.
                    let (consumed, count) = rows.scan(lines.rest).ok_or_else(bulk::refused)?;
                    lines.rest = lines.rest.get(consumed..).unwrap_or_default();
                    lines.line = lines.line.saturating_add(count);
                    table.insert(line, column, rows);
                }
            }
            budget.spend(tag.len(), line, column)?;
            stack.push(Scope {
                pos: Pos::new(line, column),
                tag: tag.to_owned(),
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
            let values = parse_values(rest, line, column.saturating_add(char_len(head)))?;
            Item::Entry(Entry {
                pos: Pos::new(line, column),
                key: key.to_owned(),
                values,
            })
        } else {
            Item::Data(Data {
                pos: Pos::new(line, column),
                values: parse_values(t, line, column)?,
            })
        };
        budget.spend(item_cost(&item), line, column)?;
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
                clip(&open.tag)
            ),
        ));
    }
    Ok(Tree {
        bom,
        line_ending,
        version,
        items: top,
    })
}

/// The memory the scope tree may take (see [`crate::TREE_BUDGET_FACTOR`]).
struct Budget {
    left: usize,
    limit: usize,
}

impl Budget {
    fn new(input: usize) -> Self {
        let limit = input
            .saturating_mul(crate::TREE_BUDGET_FACTOR)
            .saturating_add(1 << 20);
        Self { left: limit, limit }
    }

    fn spend(&mut self, bytes: usize, line: u32, column: u32) -> Result<(), Error> {
        self.left = self.left.checked_sub(bytes).ok_or(Error::TooLarge {
            line,
            column,
            limit: self.limit,
        })?;
        Ok(())
    }

    /// Pushes `item` onto a scope's list, paying for the list's growth before it happens:
    /// its whole capacity is counted, and while it moves, the old block too (a moving
    /// reallocation holds both), so Vec doubling cannot hide twice the budget.
    fn push(
        &mut self,
        list: &mut Vec<Item>,
        item: Item,
        line: u32,
        column: u32,
    ) -> Result<(), Error> {
        let node = std::mem::size_of::<Item>();
        let old = list.capacity();
        if list.len() == old {
            let new = old.saturating_mul(2).max(4);
            // The old block is already paid for; both are held while the list moves.
            self.spend(new.saturating_mul(node), line, column)?;
            list.reserve_exact(new - old);
            self.left = self.left.saturating_add(old.saturating_mul(node));
        }
        list.push(item);
        Ok(())
    }
}

/// The heap bytes an entry or data line takes in the tree besides its node in the parent's
/// list: its key, its atoms and their text.
fn item_cost(item: &Item) -> usize {
    let (key, values) = match item {
        Item::Entry(e) => (e.key.len(), &e.values),
        Item::Data(d) => (0, &d.values),
        Item::Scope(s) => (s.tag.len(), &Values::default()),
    };
    key + values.atoms.capacity() * std::mem::size_of::<Atom>()
        + values.atoms.iter().map(|a| a.text.len()).sum::<usize>()
}

fn read_version(
    line: u32,
    column: u32,
    t: &str,
    warnings: &mut Vec<Warning>,
) -> Result<Atom, Error> {
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
    Ok(Atom {
        pos: Pos::new(line, vcol),
        quoted: false,
        group_start: true,
        text: number.to_owned(),
    })
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

/// The number of atoms in a well-formed values text: one more than the `:` and `,` outside
/// quoted strings (an upper bound when the text is malformed, never more than its length).
fn atom_count(b: &[u8]) -> usize {
    let mut quoted = false;
    let mut count = 1;
    for &c in b {
        match c {
            b'"' => quoted = !quoted,
            b':' | b',' if !quoted => count += 1,
            _ => {}
        }
    }
    count
}

/// Splits `values` text into atoms and groups. `col0` is the column of its first character.
///
/// Scans bytes: every delimiter is ASCII, so delimiter positions are character boundaries;
/// columns are counted in characters over the consumed slices.
pub(crate) fn parse_values(text: &str, line: u32, col0: u32) -> Result<Values, Error> {
    let b = text.as_bytes();
    let slice = |from: usize, to: usize| text.get(from..to).unwrap_or_default();
    // Exact capacity: a line of one value would otherwise reserve four atoms (160 bytes),
    // which made short unknown lines cost 50 times their size.
    let mut atoms = Vec::with_capacity(atom_count(b));
    let mut i = 0usize;
    let mut col = col0;
    let mut group_start = true;
    let skip_ws = |i: &mut usize, col: &mut u32| {
        let n = b
            .get(*i..)
            .unwrap_or_default()
            .iter()
            .take_while(|&&c| c == b' ' || c == b'\t')
            .count();
        *i += n;
        *col = col.saturating_add(u32::try_from(n).unwrap_or(u32::MAX));
    };
    loop {
        skip_ws(&mut i, &mut col);
        let start_col = col;
        let atom = match b.get(i) {
            None => {
                return Err(syntax(
                    line,
                    col,
                    "expected a value, found the end of the line",
                ))
            }
            Some(&c @ (b':' | b',')) => {
                return Err(syntax(
                    line,
                    col,
                    format!("expected a value before `{}`", char::from(c)),
                ))
            }
            Some(b'"') => {
                let body = i + 1;
                let close = b
                    .get(body..)
                    .unwrap_or_default()
                    .iter()
                    .position(|&c| c == b'"')
                    .ok_or_else(|| syntax(line, start_col, "unterminated string"))?;
                let end = body + close;
                let content = slice(body, end);
                col = col.saturating_add(char_len(content)).saturating_add(2);
                i = end + 1;
                Atom {
                    pos: Pos::new(line, start_col),
                    quoted: true,
                    group_start,
                    text: content.to_owned(),
                }
            }
            Some(_) => {
                let stop = b
                    .get(i..)
                    .unwrap_or_default()
                    .iter()
                    .position(|c| matches!(c, b':' | b',' | b'"' | b'{' | b'}' | b'='))
                    .map_or(b.len(), |p| i + p);
                let raw = slice(i, stop);
                col = col.saturating_add(char_len(raw));
                if let Some(&c) = b.get(stop).filter(|&&c| c != b':' && c != b',') {
                    return Err(syntax(
                        line,
                        col,
                        format!("unexpected `{}` in a value", char::from(c)),
                    ));
                }
                i = stop;
                Atom {
                    pos: Pos::new(line, start_col),
                    quoted: false,
                    group_start,
                    text: raw.trim_end_matches(is_ws).to_owned(),
                }
            }
        };
        atoms.push(atom);
        skip_ws(&mut i, &mut col);
        match b.get(i) {
            None => break,
            Some(b':') => group_start = true,
            Some(b',') => group_start = false,
            Some(_) => {
                let c = slice(i, b.len()).chars().next().unwrap_or('?');
                return Err(syntax(
                    line,
                    col,
                    format!("expected `:`, `,` or the end of the line after a value, found `{c}`"),
                ));
            }
        }
        i += 1;
        col = col.saturating_add(1);
    }
    Ok(Values { atoms })
}
