//! The scope tree the reader works on: the same shape as [`crate::tree`], but every node
//! borrows its text from the input (tags, keys and the values text of a line are slices of it),
//! so building it allocates only the node lists. Consecutive data lines of a scope are one
//! node, [`Item::Lines`] (their slice of the input and their number): the bulk of a file
//! (millions of rows of vertices and faces) costs no node per line, and a row is made into a
//! [`Data`] only while it is read. The values of a line stay one slice, checked
//! by the lexer and split into atoms ([`AtomRef`]) again only when the typed reader asks; bulk
//! rows of numbers are read straight from the slice (see [`super::scan`]).
//!
//! [`Item::to_owned`] makes the public, owned [`crate::tree`] nodes (for [`crate::Tree`] and
//! for the unknown items a document keeps), charging the same [`Budget`]; [`Item::view`]
//! borrows a tree built in code, for [`crate::Elem::from_tree`].

use crate::error::Error;
use crate::tree::{self, Atom, LineEnding, Pos};
use crate::MAX_DEPTH;

type Result<T> = std::result::Result<T, Error>;

/// A syntax error at a position.
pub(crate) fn syntax(line: u32, column: u32, message: impl Into<String>) -> Error {
    Error::Syntax {
        line,
        column,
        message: message.into(),
    }
}

pub(crate) fn char_len(s: &str) -> u32 {
    u32::try_from(s.chars().count()).unwrap_or(u32::MAX)
}

/// A whole file.
#[derive(Debug)]
pub(crate) struct Tree<'a> {
    pub bom: bool,
    pub line_ending: LineEnding,
    /// The version number's text and position.
    pub version: (&'a str, Pos),
    pub items: Vec<Item<'a>>,
}

/// A scope, an entry, a data line (see [`crate::tree::Item`]) or a run of data lines.
#[derive(Debug)]
pub(crate) enum Item<'a> {
    Scope(Scope<'a>),
    Entry(Entry<'a>),
    /// One data line of a tree built in code.
    Data(Data<'a>),
    /// Consecutive data lines read from a file.
    Lines(Run<'a>),
}

/// Consecutive data lines of one scope read from a file, each already checked by the lexer:
/// the text from the first line's first value to the end of the last line's values (blank
/// lines between them included), the first line's position and the number of data lines.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Run<'a> {
    pub text: &'a str,
    /// Where `text` starts in the file's decoded text (for the lexer, which extends runs).
    pub start: usize,
    pub pos: Pos,
    pub count: usize,
}

impl<'a> Run<'a> {
    /// The first data line, with the run's position.
    pub(crate) fn first(&self) -> Option<Data<'a>> {
        let (_, _, content, _) = LineSplit::new(self.text, 0).next()?;
        let (_, t) = trim(content);
        Some(data(t, self.pos.line, self.pos.column))
    }

    /// Calls `f` with each data line, in order, with the position the lexer gave it; stops at
    /// the first error. A plain loop, not an iterator chain: a run that is not read whole by
    /// [`super::scan`] can hold millions of rows, and the chain of
    /// `enumerate`/`filter_map`/`flatten` this replaces did not optimise to one.
    pub(crate) fn each(&self, mut f: impl FnMut(Data<'a>) -> Result<()>) -> Result<()> {
        let mut lines = LineSplit::new(self.text, self.pos.line.saturating_sub(1));
        // The run starts at the first value, so its first line's column is the run's.
        if let Some((line, _, content, _)) = lines.next() {
            let (_, t) = trim(content);
            f(data(t, line, self.pos.column))?;
        }
        for (line, _, content, _) in lines {
            let (col, t) = trim(content);
            if !t.is_empty() {
                f(data(t, line, col))?;
            }
        }
        Ok(())
    }
}

/// A data line's node: its trimmed values text at `line`:`col`.
fn data(text: &str, line: u32, col: u32) -> Data<'_> {
    Data {
        pos: Pos::new(line, col),
        values: Vals::Text { text, line, col },
    }
}

pub(crate) fn is_ws(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// Trims spaces and tabs; returns the 1-based column of the first kept character and the
/// trimmed text. Leading whitespace is ASCII, so its byte count is its character count.
pub(crate) fn trim(content: &str) -> (u32, &str) {
    let (lead, t) = trim_lead(content);
    (u32::try_from(lead).unwrap_or(u32::MAX).saturating_add(1), t)
}

/// Trims spaces and tabs; returns the number of leading bytes trimmed and the trimmed text.
/// Looks at bytes, not characters (every line goes through here twice): a space or a tab is
/// one byte that no multi-byte character contains, so both ends are character boundaries.
pub(crate) fn trim_lead(content: &str) -> (usize, &str) {
    let b = content.as_bytes();
    let lead = b.iter().take_while(|&&c| c == b' ' || c == b'\t').count();
    let end = b
        .iter()
        .rposition(|&c| c != b' ' && c != b'\t')
        .map_or(lead, |p| p + 1);
    (lead, content.get(lead..end).unwrap_or_default())
}

/// Splits text into lines on CRLF, LF or CR.
pub(crate) struct LineSplit<'a> {
    rest: &'a str,
    offset: usize,
    line: u32,
}

impl<'a> LineSplit<'a> {
    /// Lines of `text`, numbered from `before + 1`.
    pub(crate) fn new(text: &'a str, before: u32) -> Self {
        Self {
            rest: text,
            offset: 0,
            line: before,
        }
    }
}

impl<'a> Iterator for LineSplit<'a> {
    /// (1-based line number, byte offset of the line in the text, content without its
    /// ending, the ending if any).
    type Item = (u32, usize, &'a str, Option<LineEnding>);

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let bytes = self.rest.as_bytes();
        // memchr's word-at-a-time search instead of a byte loop: the lexer splits every line
        // of the file here, so this search is one of the reader's hottest loops.
        let end = memchr::memchr2(b'\r', b'\n', bytes).unwrap_or(bytes.len());
        let (ending, len) = match (bytes.get(end), bytes.get(end + 1)) {
            (Some(b'\r'), Some(b'\n')) => (Some(LineEnding::CrLf), 2),
            (Some(b'\r'), _) => (Some(LineEnding::Cr), 1),
            (Some(_), _) => (Some(LineEnding::Lf), 1),
            (None, _) => (None, 0),
        };
        let content = self.rest.get(..end).unwrap_or_default();
        let start = self.offset;
        self.rest = self.rest.get(end + len..).unwrap_or_default();
        self.offset += end + len;
        self.line = self.line.saturating_add(1);
        Some((self.line, start, content, ending))
    }
}

#[derive(Debug)]
pub(crate) struct Scope<'a> {
    pub pos: Pos,
    pub tag: &'a str,
    pub items: Vec<Item<'a>>,
}

#[derive(Debug)]
pub(crate) struct Entry<'a> {
    pub pos: Pos,
    pub key: &'a str,
    pub values: Vals<'a>,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Data<'a> {
    pub pos: Pos,
    pub values: Vals<'a>,
}

/// The values of an entry or a data line.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Vals<'a> {
    /// Values text read from a file: trimmed, already checked by the lexer, with the position
    /// of its first character.
    Text { text: &'a str, line: u32, col: u32 },
    /// The atoms of a tree built in code.
    Atoms(&'a [Atom]),
}

/// One value, borrowed (see [`crate::tree::Atom`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct AtomRef<'a> {
    pub pos: Pos,
    pub quoted: bool,
    pub group_start: bool,
    pub text: &'a str,
}

impl<'a> Item<'a> {
    pub(crate) fn pos(&self) -> Pos {
        match self {
            Item::Scope(s) => s.pos,
            Item::Entry(e) => e.pos,
            Item::Data(d) => d.pos,
            Item::Lines(r) => r.pos,
        }
    }

    /// The number of items of the public tree this node stands for (a run: its lines).
    pub(crate) fn width(&self) -> usize {
        match self {
            Item::Lines(r) => r.count,
            _ => 1,
        }
    }

    /// Calls `f` with each line of the node (once with the node itself unless it is a run).
    pub(crate) fn each_line(self, mut f: impl FnMut(Item<'a>) -> Result<()>) -> Result<()> {
        match self {
            Item::Lines(r) => r.each(|d| f(Item::Data(d))),
            other => f(other),
        }
    }

    /// The scope tag or entry key; `""` for a data line.
    pub(crate) fn name(&self) -> &'a str {
        match self {
            Item::Scope(s) => s.tag,
            Item::Entry(e) => e.key,
            Item::Data(_) | Item::Lines(_) => "",
        }
    }

    /// The owned nodes (one, or a run's lines), appended to `out`, their memory charged to
    /// `budget` (`out`'s room is the caller's to reserve).
    pub(crate) fn to_owned_into(
        &self,
        budget: &mut Budget,
        out: &mut Vec<tree::Item>,
    ) -> Result<()> {
        match self {
            Item::Lines(r) => {
                r.each(|d| {
                    out.push(Item::Data(d).to_owned(budget)?);
                    Ok(())
                })?;
            }
            other => out.push(other.to_owned(budget)?),
        }
        Ok(())
    }

    /// The owned node, its memory charged to `budget` (for a run, only its first line:
    /// [`Item::to_owned_into`] is the one caller, and gives runs line by line). Recursive: a
    /// tree read from a file is at most [`MAX_DEPTH`] deep, and [`Item::view`] refuses
    /// deeper trees built in code.
    fn to_owned(&self, budget: &mut Budget) -> Result<tree::Item> {
        let pos = self.pos();
        Ok(match self {
            Item::Scope(s) => {
                budget.spend(s.tag.len(), pos.line, pos.column)?;
                let mut items = Vec::new();
                let n = s.items.iter().map(Item::width).sum();
                budget.reserve(&mut items, n, pos.line, pos.column)?;
                for item in &s.items {
                    item.to_owned_into(budget, &mut items)?;
                }
                tree::Item::Scope(tree::Scope {
                    pos,
                    tag: s.tag.to_owned(),
                    items,
                })
            }
            Item::Entry(e) => {
                budget.spend(e.key.len(), pos.line, pos.column)?;
                tree::Item::Entry(tree::Entry {
                    pos,
                    key: e.key.to_owned(),
                    values: e.values.to_owned(budget, pos)?,
                })
            }
            Item::Data(d) => tree::Item::Data(tree::Data {
                pos,
                values: d.values.to_owned(budget, pos)?,
            }),
            Item::Lines(r) => match r.first() {
                Some(d) => return Item::Data(d).to_owned(budget),
                None => tree::Item::Data(tree::Data::default()),
            },
        })
    }

    /// Borrows a tree built in code; deeper than [`MAX_DEPTH`] is [`Error::LimitExceeded`].
    pub(crate) fn view(item: &'a tree::Item, depth: usize) -> Result<Item<'a>> {
        Ok(match item {
            tree::Item::Scope(s) => {
                if depth >= MAX_DEPTH {
                    return Err(Error::LimitExceeded {
                        line: s.pos.line,
                        column: s.pos.column,
                        limit: MAX_DEPTH,
                    });
                }
                Item::Scope(Scope {
                    pos: s.pos,
                    tag: &s.tag,
                    items: s
                        .items
                        .iter()
                        .map(|i| Item::view(i, depth + 1))
                        .collect::<Result<_>>()?,
                })
            }
            tree::Item::Entry(e) => Item::Entry(Entry {
                pos: e.pos,
                key: &e.key,
                values: Vals::Atoms(&e.values.atoms),
            }),
            tree::Item::Data(d) => Item::Data(Data {
                pos: d.pos,
                values: Vals::Atoms(&d.values.atoms),
            }),
        })
    }
}

impl<'a> Vals<'a> {
    /// Clears `out` and fills it with the atoms, in order.
    pub(crate) fn split_into(&self, out: &mut Vec<AtomRef<'a>>) -> Result<()> {
        out.clear();
        match *self {
            Vals::Text { text, line, col } => {
                split(text, line, col, |a| out.push(a))?;
            }
            Vals::Atoms(atoms) => out.extend(atoms.iter().map(|a| AtomRef {
                pos: a.pos,
                quoted: a.quoted,
                group_start: a.group_start,
                text: &a.text,
            })),
        }
        Ok(())
    }

    /// The atoms, in a new list.
    pub(crate) fn atoms(&self) -> Result<Vec<AtomRef<'a>>> {
        let mut out = Vec::new();
        self.split_into(&mut out)?;
        Ok(out)
    }

    /// The text of a line read from a file (`None` for a tree built in code).
    pub(crate) fn text(&self) -> Option<&'a str> {
        match *self {
            Vals::Text { text, .. } => Some(text),
            Vals::Atoms(_) => None,
        }
    }

    fn to_owned(self, budget: &mut Budget, pos: Pos) -> Result<tree::Values> {
        let (n, text_len) = match self {
            Vals::Text { text, .. } => (split(text, 0, 0, |_| {})?, text.len()),
            Vals::Atoms(atoms) => (atoms.len(), atoms.iter().map(|a| a.text.len()).sum()),
        };
        let cost = n
            .saturating_mul(std::mem::size_of::<Atom>())
            .saturating_add(text_len);
        budget.spend(cost, pos.line, pos.column)?;
        // Exact capacity: a line of one value would otherwise reserve four atoms.
        let mut atoms = Vec::with_capacity(n);
        match self {
            Vals::Text { text, line, col } => {
                split(text, line, col, |a| {
                    atoms.push(Atom {
                        pos: a.pos,
                        quoted: a.quoted,
                        group_start: a.group_start,
                        text: a.text.to_owned(),
                    })
                })?;
            }
            Vals::Atoms(list) => atoms.extend(list.iter().cloned()),
        }
        Ok(tree::Values { atoms })
    }
}

/// Whether [`split`] accepts `text` (values text of a data line or an entry). The lexer checks
/// every line of the file with this: one pass over the bytes with no column arithmetic and
/// no atom made. Only a line it refuses goes through [`split`], for the error and its
/// position (columns are counted only then). Keep the two in step: the test
/// `valid_agrees_with_split` below compares them.
pub(crate) fn valid(text: &str) -> bool {
    // Without quotes, a byte decides alone: one pass with a flag for "a value must come".
    // The class table makes it one load and one four-way branch per byte.
    let mut need_value = true;
    for &c in text.as_bytes() {
        match CLASS.get(usize::from(c)).copied().unwrap_or(OTHER) {
            VALUE => need_value = false,
            SPACE => {}
            DELIMITER if need_value => return false,
            DELIMITER => need_value = true,
            _ => return valid_quoted(text.as_bytes()),
        }
    }
    !need_value
}

/// Byte classes of [`valid`].
const VALUE: u8 = 0;
const SPACE: u8 = 1;
const DELIMITER: u8 = 2;
/// `"`, `{`, `}`, `=`: left to [`valid_quoted`].
const OTHER: u8 = 3;
// Indexing in a constant's initialiser is evaluated at compile time: out of bounds would
// fail the build, never a read.
#[allow(clippy::indexing_slicing)]
const CLASS: [u8; 256] = {
    let mut t = [VALUE; 256];
    t[b' ' as usize] = SPACE;
    t[b'\t' as usize] = SPACE;
    t[b':' as usize] = DELIMITER;
    t[b',' as usize] = DELIMITER;
    t[b'"' as usize] = OTHER;
    t[b'{' as usize] = OTHER;
    t[b'}' as usize] = OTHER;
    t[b'=' as usize] = OTHER;
    t
};

/// [`valid`] for a line with quotes: value by value, as [`split`] reads them.
fn valid_quoted(b: &[u8]) -> bool {
    let mut i = 0usize;
    loop {
        // A value: anything but a delimiter, or a quoted string.
        while matches!(b.get(i), Some(b' ' | b'\t')) {
            i += 1;
        }
        match b.get(i) {
            None | Some(b':' | b',') => return false,
            Some(b'"') => {
                let body = b.get(i + 1..).unwrap_or_default();
                match memchr::memchr(b'"', body) {
                    Some(close) => i += close + 2,
                    None => return false,
                }
                while matches!(b.get(i), Some(b' ' | b'\t')) {
                    i += 1;
                }
                match b.get(i) {
                    None => return true,
                    Some(b':' | b',') => i += 1,
                    Some(_) => return false,
                }
            }
            Some(_) => loop {
                match b.get(i) {
                    None => return true,
                    Some(b':' | b',') => {
                        i += 1;
                        break;
                    }
                    Some(b'"' | b'{' | b'}' | b'=') => return false,
                    Some(_) => i += 1,
                }
            },
        }
    }
}

/// Splits values text into atoms and groups, giving each to `sink`; returns their number.
/// `col0` is the column of the text's first character.
///
/// Scans bytes: every delimiter is ASCII, so delimiter positions are character boundaries;
/// columns are counted in characters over the consumed slices (in bytes when the whole text
/// is ASCII, the common case, where the two are the same).
pub(crate) fn split<'a>(
    text: &'a str,
    line: u32,
    col0: u32,
    mut sink: impl FnMut(AtomRef<'a>),
) -> Result<usize> {
    let b = text.as_bytes();
    let ascii = text.is_ascii();
    let width = |s: &str| {
        if ascii {
            u32::try_from(s.len()).unwrap_or(u32::MAX)
        } else {
            char_len(s)
        }
    };
    let slice = |from: usize, to: usize| text.get(from..to).unwrap_or_default();
    let mut count = 0;
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
                col = col.saturating_add(width(content)).saturating_add(2);
                i = end + 1;
                AtomRef {
                    pos: Pos::new(line, start_col),
                    quoted: true,
                    group_start,
                    text: content,
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
                col = col.saturating_add(width(raw));
                if let Some(&c) = b.get(stop).filter(|&&c| c != b':' && c != b',') {
                    return Err(syntax(
                        line,
                        col,
                        format!("unexpected `{}` in a value", char::from(c)),
                    ));
                }
                i = stop;
                AtomRef {
                    pos: Pos::new(line, start_col),
                    quoted: false,
                    group_start,
                    text: raw.trim_end_matches([' ', '\t']),
                }
            }
        };
        sink(atom);
        count += 1;
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
    Ok(count)
}

/// What [`Budget::new`] holds back from the trees for the reader's other small allocations.
const BOOKKEEPING: usize = 64 << 10;

/// The memory the trees may take (see [`crate::TREE_BUDGET_FACTOR`]): the borrowed tree's
/// node lists, and every owned node made from it.
#[derive(Debug)]
pub(crate) struct Budget {
    left: usize,
    limit: usize,
}

impl Budget {
    pub(crate) fn new(input: usize) -> Self {
        let limit = input
            .saturating_mul(crate::TREE_BUDGET_FACTOR)
            .saturating_add(1 << 20);
        // The reader's own bookkeeping (warnings, the error message, small lists) is not
        // counted node by node: a margin keeps it inside the limit too.
        Self {
            left: limit.saturating_sub(BOOKKEEPING),
            limit,
        }
    }

    /// No limit: for trees built in code, which do not come from input.
    pub(crate) fn unlimited() -> Self {
        Self {
            left: usize::MAX,
            limit: usize::MAX,
        }
    }

    pub(crate) fn spend(&mut self, bytes: usize, line: u32, column: u32) -> Result<()> {
        self.left = self.left.checked_sub(bytes).ok_or(Error::TooLarge {
            line,
            column,
            limit: self.limit,
        })?;
        Ok(())
    }

    /// Reserves room for exactly `n` more nodes in `list`, paid for first.
    pub(crate) fn reserve<T>(
        &mut self,
        list: &mut Vec<T>,
        n: usize,
        line: u32,
        column: u32,
    ) -> Result<()> {
        self.spend(n.saturating_mul(std::mem::size_of::<T>()), line, column)?;
        list.reserve_exact(n);
        Ok(())
    }

    /// Pushes `item` onto a list, paying for the list's growth before it happens: its whole
    /// capacity is counted, and while it moves, the old block too (a moving reallocation
    /// holds both), so Vec doubling cannot hide twice the budget.
    pub(crate) fn push<T>(
        &mut self,
        list: &mut Vec<T>,
        item: T,
        line: u32,
        column: u32,
    ) -> Result<()> {
        let node = std::mem::size_of::<T>();
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

#[cfg(test)]
mod tests {
    use super::{split, valid};

    /// `valid` accepts exactly what `split` accepts: every text of up to five characters over
    /// the characters the grammar cares about (and a plain one, a digit, a non-ASCII one).
    #[test]
    fn valid_agrees_with_split() {
        let alphabet = [' ', '\t', ':', ',', '"', '{', '}', '=', 'a', '1', 'é'];
        let mut texts = vec![String::new()];
        let mut checked = 0;
        for _ in 0..5 {
            let mut longer = Vec::with_capacity(texts.len() * alphabet.len());
            for t in &texts {
                for c in alphabet {
                    let mut n = t.clone();
                    n.push(c);
                    longer.push(n);
                }
            }
            for t in texts.iter().chain(&longer) {
                let by_split = split(t, 1, 1, |_| {}).is_ok();
                assert_eq!(valid(t), by_split, "{t:?}");
                checked += 1;
            }
            texts = longer;
        }
        assert!(checked > 150_000, "{checked}");
    }
}
