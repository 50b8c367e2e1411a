//! The lossless scope tree: what an `.elem` file *says*, before any meaning is given to it.
//!
//! A file is a header, a version and a list of [`Item`]s; an item is a scope (`Tag {` … `}`),
//! an entry (`Key=values`) or a bare data line. Values are atoms (bare text or quoted strings)
//! split on `:` into groups and on `,` inside a group. Order is kept, nothing is interpreted,
//! and every node knows its 1-based line and column.
//!
//! Positions are metadata: two nodes compare equal when their content is equal, wherever they
//! were read (see [`Pos`]).

/// A 1-based line and column (columns count characters, not bytes). `0:0` means "not read
/// from a file" (built in code).
///
/// **Equality ignores positions:** `Pos` values always compare equal, so that trees and
/// documents compare by content (`parse(write(doc)) == doc` although the layout changed).
/// Compare `line` and `column` directly when the position itself matters.
#[derive(Debug, Clone, Copy, Default)]
pub struct Pos {
    /// 1-based line, 0 when unknown.
    pub line: u32,
    /// 1-based column in characters, 0 when unknown.
    pub column: u32,
}

impl PartialEq for Pos {
    fn eq(&self, _other: &Self) -> bool {
        true
    }
}

impl Pos {
    /// A position.
    pub fn new(line: u32, column: u32) -> Self {
        Self { line, column }
    }
}

/// The line-ending style of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LineEnding {
    /// `\r\n` (the canonical style).
    #[default]
    CrLf,
    /// `\n`.
    Lf,
    /// `\r`.
    Cr,
}

impl LineEnding {
    /// The line-ending bytes.
    pub fn as_str(self) -> &'static str {
        match self {
            LineEnding::CrLf => "\r\n",
            LineEnding::Lf => "\n",
            LineEnding::Cr => "\r",
        }
    }
}

/// A whole file as a scope tree.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Tree {
    /// The file started with a UTF-8 byte-order mark.
    pub bom: bool,
    /// The line ending of the first line (files mixing styles are accepted).
    pub line_ending: LineEnding,
    /// The version text after `File Version` (e.g. `1.00`), with its position.
    pub version: Atom,
    /// The items of the global scope, in file order.
    pub items: Vec<Item>,
}

/// One line-level element of a scope.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// `Tag {` … `}`.
    Scope(Scope),
    /// `Key=values`.
    Entry(Entry),
    /// A line of bare values.
    Data(Data),
}

impl Item {
    /// Where the item starts.
    pub fn pos(&self) -> Pos {
        match self {
            Item::Scope(s) => s.pos,
            Item::Entry(e) => e.pos,
            Item::Data(d) => d.pos,
        }
    }

    /// The scope tag or entry key; `""` for a data line.
    pub fn name(&self) -> &str {
        match self {
            Item::Scope(s) => &s.tag,
            Item::Entry(e) => &e.key,
            Item::Data(_) => "",
        }
    }
}

/// A scope: `Tag {`, its items, `}`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Scope {
    /// Position of the tag.
    pub pos: Pos,
    /// The tag (an identifier).
    pub tag: String,
    /// The items inside, in file order.
    pub items: Vec<Item>,
}

impl Scope {
    /// An empty scope named `tag`, built in code.
    pub fn new(tag: impl Into<String>) -> Self {
        Self {
            pos: Pos::default(),
            tag: tag.into(),
            items: Vec::new(),
        }
    }
}

/// A `Key=values` line.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Entry {
    /// Position of the key.
    pub pos: Pos,
    /// The key (an identifier).
    pub key: String,
    /// The values after `=`.
    pub values: Values,
}

/// A line of bare data.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Data {
    /// Position of the first value.
    pub pos: Pos,
    /// The values.
    pub values: Values,
}

/// The values of an entry or data line: atoms, split into groups by `:` and inside a group by
/// `,`. Stored flat; [`Atom::group_start`] marks the first atom of each group.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Values {
    /// Every atom in order.
    pub atoms: Vec<Atom>,
}

impl Values {
    /// Builds values from groups of atoms (each group non-empty).
    pub fn from_groups(groups: impl IntoIterator<Item = Vec<Atom>>) -> Self {
        let mut atoms = Vec::new();
        for group in groups {
            for (i, mut atom) in group.into_iter().enumerate() {
                atom.group_start = i == 0;
                atoms.push(atom);
            }
        }
        Self { atoms }
    }

    /// The groups (split on `:`), each a slice of atoms (split on `,`).
    pub fn groups(&self) -> impl Iterator<Item = &[Atom]> + '_ {
        let mut rest: &[Atom] = &self.atoms;
        std::iter::from_fn(move || {
            if rest.is_empty() {
                return None;
            }
            let len = rest
                .iter()
                .skip(1)
                .position(|a| a.group_start)
                .map_or(rest.len(), |p| p + 1);
            let (group, tail) = rest.split_at(len);
            rest = tail;
            Some(group)
        })
    }

    /// Number of groups.
    pub fn group_count(&self) -> usize {
        self.atoms
            .iter()
            .enumerate()
            .filter(|(i, a)| *i == 0 || a.group_start)
            .count()
    }

    /// True when every group holds exactly one atom (a plain `a:b:c` row).
    pub fn is_simple(&self) -> bool {
        self.atoms.iter().skip(1).all(|a| a.group_start)
    }
}

/// One value: bare text (numbers, booleans, identifiers) or a quoted string.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Atom {
    /// Position of the first character (the opening quote of a string).
    pub pos: Pos,
    /// True for a `"…"` string.
    pub quoted: bool,
    /// True when this atom starts a `:`-separated group (always true for the first atom);
    /// false when it follows a `,`.
    pub group_start: bool,
    /// The text: a bare value trimmed of spaces and tabs, or a string without its quotes.
    pub text: String,
}

impl Atom {
    /// A bare atom built in code.
    pub fn bare(text: impl Into<String>) -> Self {
        Self {
            pos: Pos::default(),
            quoted: false,
            group_start: true,
            text: text.into(),
        }
    }

    /// A quoted string atom built in code.
    pub fn string(text: impl Into<String>) -> Self {
        Self {
            pos: Pos::default(),
            quoted: true,
            group_start: true,
            text: text.into(),
        }
    }
}
