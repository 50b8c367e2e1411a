//! What a glTF JSON will take in memory once read, worked out before it is read, so that the
//! reader's bound (decoded data and the JSON's own objects together within
//! [`ALLOCATION_FACTOR`](super::ALLOCATION_FACTOR) × the input + 1 MiB) holds for the JSON too.
//!
//! Why a pass of its own: `gltf-json` deserialises the whole document at once, and an object
//! costs far more in memory than in text. `{}` is three bytes of a `nodes` array (with its
//! comma) but up to 1 150 bytes once read: the `gltf-json` node, the scene's node and a
//! doubling vector's two buffers. A 3 MB file of empty nodes took 510 MB. Charging the JSON's
//! objects first refuses such a file before anything is built.
//!
//! Two ways, the cheap one first:
//! * [`quick_bound`]: counts of `{`, `[` and `,` (`memchr`) times the most any object, array or
//!   element costs, plus every byte as text. Never less than the walk; when it leaves three
//!   quarters of the budget to the decoded data (an ordinary file), it is the charge.
//! * The walk ([`Scan`]): object by object, by kind, skipping strings eight bytes at a time and
//!   then with `memchr` (a serde walk decodes and validates every string: 16 % of an animated
//!   character's import, whose clip keeps 231 KB of exact keys as text, against 9.5 % for this
//!   walk and 1.3 % with the quick bound first). It says where the budget ran out.
//!
//! The costs are per kind of object, measured with the counting allocator on files made of
//! one kind only, at counts just past a power of two (the most per object), and rounded up;
//! `crates/alloc-counter/tests/gltf_read_bounds.rs` checks that every such file, at the edge of
//! refusal too, is either refused or read within the bound.

use super::ReadError;
use serde::de;

/// What an object of each kind costs once read, in bytes: the `gltf-json` struct, the scene's
/// counterpart and the warnings it may bring. An element of any array (an index, a number) is
/// [`ELEMENT`]; extras are JSON values ([`VALUE`], [`MEMBER`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Root,
    Node,
    Material,
    Mesh,
    Primitive,
    Accessor,
    BufferView,
    Buffer,
    Image,
    Texture,
    Sampler,
    Camera,
    Skin,
    Animation,
    Channel,
    AnimationSampler,
    Scene,
    /// An `extensionsUsed` or `extensionsRequired` entry (an unsupported one is a warning).
    ExtensionName,
    /// A primitive's `attributes` or a morph target: one entry per member.
    Attributes,
    /// A list of indices or numbers of any length (`children`, a scene's `nodes`, `joints`,
    /// `weights`): an element each.
    Index,
    /// `extras`, and an accessor's `min` and `max`: read into a tree of JSON values.
    Values,
    /// `extensions`: none that `gltf-json` reads in this build, so nothing is kept.
    Ignored,
    /// Any other part of the schema, and members it does not name: a texture reference, a
    /// channel's target, `asset`, fixed-size number arrays (a matrix, a colour).
    Other,
}

/// An element of a list of indices or numbers ([`Kind::Index`]): measured 34 at most
/// (`gltf-json`'s index, the scene's, and a doubling vector's two buffers).
const ELEMENT: u64 = 48;
/// A JSON value inside `extras` or an accessor's `min` and `max` (a `serde_json::Value`, its
/// share of the vector or map holding it): measured 220 at most.
const VALUE: u64 = 256;
/// A member of an object inside `extras`, on top of its value (the key and the map's entry):
/// measured 305 with its value.
const MEMBER: u64 = 96;
/// A member of a primitive's `attributes` or of a morph target: measured 57 at most.
const ATTRIBUTE: u64 = 80;
/// A string's text is held up to this many times: `gltf-json`'s copy (the raw text of
/// `extras`), the scene's, and a decoded `data:` URI or a name made unique beside them
/// (measured: 2.6 bytes a byte of a long name).
const STRING_COPIES: u64 = 4;

impl Kind {
    /// An object of this kind. In the comments, the most measured per object on files of
    /// that kind alone, at counts just past a power of two: a vector that doubles holds its
    /// old and new buffers at once, three times its elements.
    fn object(self) -> u64 {
        match self {
            Kind::Root => 0,
            Kind::Node => 1536,      // 1152, 1300 with a camera (a warning each)
            Kind::Material => 1536,  // 1312 (its texture references are Other objects)
            Kind::Mesh => 1344,      // 1152
            Kind::Primitive => 512,  // 438
            Kind::Accessor => 1152,  // 960
            Kind::BufferView => 320, // 264
            Kind::Buffer => 384,     // (a buffer is refused before its list is read)
            Kind::Image => 384,      // 312
            Kind::Texture => 224,    // 168
            Kind::Sampler => 192,    // 144
            Kind::Camera => 512,     // 408
            Kind::Skin => 512,       // 442
            Kind::Animation => 640,  // 553
            Kind::Channel => 512,    // (refused without samplers: gltf-json's 94 × 3, the scene's)
            Kind::AnimationSampler => 256, // (gltf-json's 63 × 3)
            Kind::Scene => 256,      // 217
            // 72 (a morph target), 114 (a texture reference)
            Kind::ExtensionName | Kind::Attributes | Kind::Index | Kind::Other => 128,
            Kind::Values => VALUE,
            Kind::Ignored => 0,
        }
    }

    /// An element of a list of this kind (an object in it costs [`Kind::object`] as well). A
    /// list of objects holds its objects only; a fixed-size array ([`Kind::Other`]) is part
    /// of the object holding it, and one too long is refused by `gltf-json` when it is read.
    fn element(self) -> u64 {
        match self {
            // A warning each (an unsupported extension): measured 324 at most.
            Kind::ExtensionName => 384,
            Kind::Index => ELEMENT,
            _ => 0,
        }
    }

    /// What the member `key` of an object of this kind holds: a value of that kind, or a list
    /// of them (the two are charged alike).
    fn member(self, key: &[u8]) -> Kind {
        match (self, key) {
            (Kind::Values | Kind::Ignored, _) => self,
            (_, b"extras") => Kind::Values,
            (_, b"extensions") => Kind::Ignored,
            (Kind::Root, b"nodes") => Kind::Node,
            (Kind::Root, b"materials") => Kind::Material,
            (Kind::Root, b"meshes") => Kind::Mesh,
            (Kind::Root, b"accessors") => Kind::Accessor,
            (Kind::Root, b"bufferViews") => Kind::BufferView,
            (Kind::Root, b"buffers") => Kind::Buffer,
            (Kind::Root, b"images") => Kind::Image,
            (Kind::Root, b"textures") => Kind::Texture,
            (Kind::Root, b"samplers") => Kind::Sampler,
            (Kind::Root, b"cameras") => Kind::Camera,
            (Kind::Root, b"skins") => Kind::Skin,
            (Kind::Root, b"animations") => Kind::Animation,
            (Kind::Root, b"scenes") => Kind::Scene,
            (Kind::Root, b"extensionsUsed" | b"extensionsRequired") => Kind::ExtensionName,
            (Kind::Mesh, b"primitives") => Kind::Primitive,
            (Kind::Primitive, b"attributes") => Kind::Attributes,
            (Kind::Primitive, b"targets") => Kind::Attributes,
            (Kind::Animation, b"channels") => Kind::Channel,
            (Kind::Animation, b"samplers") => Kind::AnimationSampler,
            (Kind::Accessor, b"min" | b"max") => Kind::Values,
            (Kind::Node, b"children" | b"weights")
            | (Kind::Mesh, b"weights")
            | (Kind::Scene, b"nodes")
            | (Kind::Skin, b"joints") => Kind::Index,
            _ => Kind::Other,
        }
    }

    /// The cost of one member of an object of this kind, on top of its value's.
    fn member_cost(self) -> u64 {
        match self {
            Kind::Values => MEMBER,
            Kind::Attributes => ATTRIBUTE,
            _ => 0,
        }
    }

    /// The name of a top-level list of this kind, for the error's place.
    fn list_name(self) -> &'static str {
        match self {
            Kind::Node => "nodes",
            Kind::Material => "materials",
            Kind::Mesh => "meshes",
            Kind::Accessor => "accessors",
            Kind::BufferView => "bufferViews",
            Kind::Buffer => "buffers",
            Kind::Image => "images",
            Kind::Texture => "textures",
            Kind::Sampler => "samplers",
            Kind::Camera => "cameras",
            Kind::Skin => "skins",
            Kind::Animation => "animations",
            Kind::Scene => "scenes",
            Kind::ExtensionName => "extensionsUsed",
            _ => "",
        }
    }
}

/// The memory reading `json` will take for its objects (see the module's docs), or an error if
/// that passes `limit`: [`ReadError::JsonTooLarge`] with the line, column and list element
/// where it did, or [`ReadError::Json`] for JSON that does not parse.
///
/// When [`quick_bound`] leaves three quarters of `limit` to the decoded data, that bound is the
/// cost and the JSON is not walked: an ordinary file's JSON is a small part of its budget, and
/// walking a large one (an animated model's clips) took 9 % of its import.
pub(super) fn json_cost(json: &[u8], limit: u64) -> Result<u64, ReadError> {
    let quick = quick_bound(json);
    if quick <= limit / 4 {
        return Ok(quick);
    }
    let mut scan = Scan {
        json,
        at: 0,
        used: 0,
        limit,
        stack: Vec::new(),
        next: Kind::Root,
        list: "",
    };
    match scan.run() {
        Ok(()) => Ok(scan.used),
        Err(Stop::Over) => {
            let (line, column) = line_and_column(json, scan.at);
            let at = match (scan.list, scan.stack.get(1)) {
                ("", _) | (_, None) => "the JSON".to_string(),
                (list, Some(frame)) => format!("{list}[{}]", frame.index.saturating_sub(1)),
            };
            Err(ReadError::JsonTooLarge {
                line,
                column,
                at,
                needed: scan.used,
                limit,
            })
        }
        // Not JSON, or nested deeper than serde_json reads: serde_json says where and why.
        // Should it read what this pass could not follow, the file is refused all the same,
        // for its objects would not have been counted.
        Err(Stop::Unfollowed) => match serde_json::from_slice::<de::IgnoredAny>(json) {
            Err(e) => Err(ReadError::Json {
                line: e.line(),
                column: e.column(),
                message: e.to_string(),
            }),
            Ok(_) => {
                let (line, column) = line_and_column(json, scan.at);
                Err(ReadError::Json {
                    line,
                    column,
                    message: "JSON that the reader's first pass (its memory bound) cannot follow"
                        .into(),
                })
            }
        },
    }
}

/// The most an object of any kind costs ([`Kind::object`]).
const MOST_OBJECT: u64 = 1536;
/// The most an element of a list costs beside its object's or value's cost
/// ([`Kind::element`]).
const MOST_ELEMENT: u64 = 384;

/// At least what [`json_cost`]'s walk would charge `json`, from counts of its `{`, `[` and `,`
/// (those in strings too, so never fewer than the walk sees): an object costs at most
/// [`MOST_OBJECT`] and its first member, an array a value and its first element, every other
/// member or element follows a comma, and every byte of text is charged at most
/// [`STRING_COPIES`] times.
fn quick_bound(json: &[u8]) -> u64 {
    let count = |byte| memchr::memchr_iter(byte, json).count() as u64;
    let member = MEMBER + VALUE;
    let after_comma = MOST_ELEMENT.max(member);
    let object = MOST_OBJECT + after_comma;
    let array = VALUE + after_comma;
    (count(b'{').saturating_mul(object))
        .saturating_add(count(b'[').saturating_mul(array))
        .saturating_add(count(b',').saturating_mul(after_comma))
        .saturating_add((json.len() as u64).saturating_mul(STRING_COPIES))
        .saturating_add(VALUE)
}

/// serde_json's depth limit: deeper JSON does not read.
const MAX_DEPTH: usize = 128;

/// Why a scan stopped early.
enum Stop {
    /// The running total passed the limit.
    Over,
    /// Not JSON (or too deep) at `at`.
    Unfollowed,
}

/// An open object or array.
struct Frame {
    /// What its members or elements are.
    kind: Kind,
    object: bool,
    /// Values begun in it so far.
    index: usize,
}

/// A structural pass over the JSON: strings are skipped with `memchr`, not decoded (a
/// member's name only when it holds an escape).
struct Scan<'a> {
    json: &'a [u8],
    at: usize,
    used: u64,
    limit: u64,
    stack: Vec<Frame>,
    /// What the next value is expected to be.
    next: Kind,
    /// The top-level list being read (for the error's place).
    list: &'static str,
}

impl Scan<'_> {
    fn charge(&mut self, bytes: u64) -> Result<(), Stop> {
        self.used = self.used.saturating_add(bytes);
        if self.used > self.limit {
            return Err(Stop::Over);
        }
        Ok(())
    }

    fn peek(&self) -> Option<u8> {
        self.json.get(self.at).copied()
    }

    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    fn run(&mut self) -> Result<(), Stop> {
        self.value()?;
        loop {
            self.skip_whitespace();
            let Some(frame) = self.stack.last() else {
                // The document's one value is done: only whitespace may follow.
                return match self.peek() {
                    None => Ok(()),
                    Some(_) => Err(Stop::Unfollowed),
                };
            };
            let object = frame.object;
            match self.peek() {
                Some(b',') => {
                    self.at += 1;
                    if object {
                        self.member_name()?;
                    }
                    self.value()?;
                }
                Some(b'}') if object => self.close(),
                Some(b']') if !object => self.close(),
                _ => return Err(Stop::Unfollowed),
            }
        }
    }

    fn close(&mut self) {
        self.at += 1;
        self.stack.pop();
        if self.stack.len() == 1 {
            self.list = "";
        }
    }

    /// A member's name and its colon; sets what its value is.
    fn member_name(&mut self) -> Result<(), Stop> {
        self.skip_whitespace();
        let kind = self.stack.last().map_or(Kind::Other, |f| f.kind);
        let begin = self.at;
        let (start, end, escaped) = self.string()?;
        let raw = self.json.get(start..end).ok_or(Stop::Unfollowed)?;
        let member = if escaped {
            // Rare: decoded as gltf-json will decode it, so "n\u006fdes" is `nodes` here too.
            let quoted = self.json.get(start - 1..=end).ok_or(Stop::Unfollowed)?;
            let name: String = serde_json::from_slice(quoted).map_err(|_| Stop::Unfollowed)?;
            kind.member(name.as_bytes())
        } else {
            kind.member(raw)
        };
        let name_cost = match kind.member_cost() {
            0 => 0,
            cost => cost.saturating_add((raw.len() as u64).saturating_mul(STRING_COPIES)),
        };
        self.charge(name_cost).inspect_err(|_| self.at = begin)?;
        if self.stack.len() == 1 {
            self.list = member.list_name();
        }
        self.next = member;
        self.skip_whitespace();
        if self.peek() != Some(b':') {
            return Err(Stop::Unfollowed);
        }
        self.at += 1;
        Ok(())
    }

    /// Starts the next value: a whole scalar, or the opening of an object or array (and its
    /// first member or element).
    fn value(&mut self) -> Result<(), Stop> {
        self.skip_whitespace();
        let kind = match self.stack.last_mut() {
            Some(frame) if !frame.object => {
                frame.index += 1;
                let kind = frame.kind;
                // An element of a list: charged whether it is an object or not.
                self.charge(kind.element())?;
                kind
            }
            _ => self.next,
        };
        match self.peek() {
            Some(b'{') => {
                // Charged first: an error's place is the value's first byte.
                self.charge(kind.object())?;
                self.at += 1;
                self.open(kind, true)?;
                self.skip_whitespace();
                if self.peek() == Some(b'}') {
                    self.close();
                    return Ok(());
                }
                self.member_name()?;
                self.value()
            }
            Some(b'[') => {
                if kind == Kind::Values {
                    self.charge(VALUE)?;
                }
                self.at += 1;
                self.open(kind, false)?;
                self.skip_whitespace();
                if self.peek() == Some(b']') {
                    self.close();
                    return Ok(());
                }
                self.value()
            }
            Some(b'"') => {
                let begin = self.at;
                let (start, end, _) = self.string()?;
                self.scalar(kind, end - start, begin)
            }
            Some(b'-' | b'0'..=b'9' | b't' | b'f' | b'n') => {
                let begin = self.at;
                while let Some(b'-' | b'+' | b'.' | b'0'..=b'9' | b'a'..=b'z' | b'E') = self.peek()
                {
                    self.at += 1;
                }
                self.scalar(kind, 0, begin)
            }
            _ => Err(Stop::Unfollowed),
        }
    }

    fn open(&mut self, kind: Kind, object: bool) -> Result<(), Stop> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(Stop::Unfollowed);
        }
        self.stack.push(Frame {
            kind,
            object,
            index: 0,
        });
        Ok(())
    }

    /// A scalar of `text` bytes of string (0 for others). A JSON value inside `extras` costs
    /// [`VALUE`] (an element of a list of the schema's was charged by the list); a string is
    /// held up to [`STRING_COPIES`] times.
    /// An error's place is the scalar's first byte, `begin`.
    fn scalar(&mut self, kind: Kind, text: usize, begin: usize) -> Result<(), Stop> {
        let value = match kind {
            Kind::Values => VALUE,
            Kind::Ignored => return Ok(()),
            _ => 0,
        };
        let text = (text as u64).saturating_mul(STRING_COPIES);
        self.charge(value.saturating_add(text))
            .inspect_err(|_| self.at = begin)
    }

    /// The string at `at` (its opening quote): the bounds of its raw text, and whether it
    /// holds an escape. `at` ends after its closing quote.
    fn string(&mut self) -> Result<(usize, usize, bool), Stop> {
        if self.peek() != Some(b'"') {
            return Err(Stop::Unfollowed);
        }
        let start = self.at + 1;
        // Most strings are short names: looked at eight bytes at a time before memchr's set-up.
        let head = self.json.get(start..).unwrap_or_default();
        let head = head.get(..32).unwrap_or(head);
        match quote_or_backslash(head) {
            Some(n) if head.get(n) == Some(&b'"') => {
                self.at = start + n + 1;
                return Ok((start, start + n, false));
            }
            _ => {}
        }
        let mut at = start;
        let mut escaped = false;
        loop {
            let rest = self.json.get(at..).ok_or(Stop::Unfollowed)?;
            let found = memchr::memchr2(b'"', b'\\', rest).ok_or(Stop::Unfollowed)?;
            let stop = at + found;
            if self.json.get(stop) == Some(&b'"') {
                self.at = stop + 1;
                return Ok((start, stop, escaped));
            }
            // A backslash: the next byte is escaped (`\"` does not end the string).
            escaped = true;
            at = stop + 2;
        }
    }
}

/// The first `"` or `\` in `bytes`, eight bytes at a time (a word with either byte has a
/// high bit set in its mask; bytes after the first match may show false ones, which
/// `trailing_zeros` never reaches).
fn quote_or_backslash(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let has = |word: u64, byte: u8| {
        let v = word ^ (ONES * u64::from(byte));
        v.wrapping_sub(ONES) & !v & HIGHS
    };
    let mut words = bytes.chunks_exact(8);
    let mut offset = 0;
    for word in &mut words {
        let word = u64::from_le_bytes(word.try_into().unwrap_or_default());
        let found = has(word, b'"') | has(word, b'\\');
        if found != 0 {
            return Some(offset + (found.trailing_zeros() / 8) as usize);
        }
        offset += 8;
    }
    let rest = words.remainder().iter();
    rest.clone()
        .position(|&b| b == b'"' || b == b'\\')
        .map(|n| offset + n)
}

/// The 1-based line and column (in bytes) of byte `at`.
fn line_and_column(json: &[u8], at: usize) -> (usize, usize) {
    let before = json.get(..at).unwrap_or(json);
    let line = memchr::memchr_iter(b'\n', before).count() + 1;
    let column = at - memchr::memrchr(b'\n', before).map_or(0, |n| n + 1) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cost(json: &str) -> u64 {
        walked(json.as_bytes())
    }

    #[test]
    fn objects_cost_their_kind_and_lists_their_elements() {
        let empty = cost(r#"{"asset":{"version":"2.0"}}"#);
        let node = cost(r#"{"asset":{"version":"2.0"},"nodes":[{}]}"#);
        assert_eq!(node - empty, Kind::Node.object());
        let children = cost(r#"{"asset":{"version":"2.0"},"nodes":[{"children":[1,2,3]}]}"#);
        // A list's vector is part of its object; its elements are not.
        assert_eq!(children - node, 3 * ELEMENT);
        // A fixed-size array is part of its object: nothing more.
        let matrix = cost(
            r#"{"asset":{"version":"2.0"},"nodes":[{"matrix":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]}]}"#,
        );
        assert_eq!(matrix, node);
        // Extras: every value, and every member with its name.
        let extras = cost(r#"{"asset":{"version":"2.0"},"nodes":[{"extras":{"ab":[0,1]}}]}"#);
        let values = 4 * VALUE; // the object, the array, two numbers
        assert_eq!(extras - node, values + MEMBER + 2 * STRING_COPIES);
        // Extensions are not kept by this build's gltf-json.
        let ext =
            cost(r#"{"asset":{"version":"2.0"},"nodes":[{"extensions":{"X":[{},{},"abc"]}}]}"#);
        assert_eq!(ext, node);
    }

    #[test]
    fn an_escaped_name_is_charged_as_the_member_it_names() {
        let plain = cost(r#"{"asset":{"version":"2.0"},"nodes":[{},{},{}]}"#);
        let escaped = cost(r#"{"asset":{"version":"2.0"},"n\u006fdes":[{},{},{}]}"#);
        assert_eq!(plain, escaped);
        // An escaped quote does not end a string, in the first 32 bytes or after them.
        for pad in [0, 40] {
            let name = format!("{}\\\"}}]", "x".repeat(pad));
            let json =
                format!(r#"{{"asset":{{"version":"2.0","generator":"{name}"}},"nodes":[{{}}]}}"#);
            assert!(cost(&json) > plain - 2 * Kind::Node.object(), "{json}");
        }
    }

    #[test]
    fn over_the_limit_says_where() {
        let json = format!(
            r#"{{"asset":{{"version":"2.0"}},"nodes":[{}]}}"#,
            ["{}"; 100].join(",")
        );
        let limit = 10 * Kind::Node.object();
        match json_cost(json.as_bytes(), limit) {
            Err(ReadError::JsonTooLarge {
                line,
                column,
                at,
                needed,
                limit: l,
            }) => {
                assert_eq!((line, at.as_str(), l), (1, "nodes[9]", limit));
                assert!(needed > limit);
                // At the tenth node's opening brace.
                assert_eq!(json.as_bytes().get(column - 1), Some(&b'{'));
                assert_eq!(
                    json.get(..column - 1).map(|s| s.matches("{}").count()),
                    Some(9)
                );
            }
            other => panic!("{other:?}"),
        }
        let lines = "{\n\"asset\":{},\n\"extras\":{\"a\":[0,\n0,0,0]}}";
        // The extras object, its member "a", the array and two numbers fit; the third does not.
        let two_numbers = 4 * VALUE + MEMBER + STRING_COPIES + VALUE;
        match json_cost(lines.as_bytes(), two_numbers) {
            Err(ReadError::JsonTooLarge {
                line, column, at, ..
            }) => {
                assert_eq!((line, column, at.as_str()), (4, 3, "the JSON"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn json_it_cannot_follow_gets_serde_jsons_error() {
        for bad in [
            "",
            "{",
            r#"{"a":}"#,
            r#"{"a":1]"#,
            "[1 2]",
            "{} x",
            r#"{"a""#,
            r#""abc"#,
        ] {
            let expected = serde_json::from_str::<de::IgnoredAny>(bad).unwrap_err();
            // A limit of 0: the quick bound never suffices, so the walk runs.
            match json_cost(bad.as_bytes(), 0) {
                Err(ReadError::Json {
                    line,
                    column,
                    message,
                }) => {
                    assert_eq!(
                        (line, column),
                        (expected.line(), expected.column()),
                        "{bad}"
                    );
                    assert_eq!(message, expected.to_string(), "{bad}");
                }
                other => panic!("{bad}: {other:?}"),
            }
        }
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert!(matches!(
            json_cost(deep.as_bytes(), 0),
            Err(ReadError::Json { .. })
        ));
        let fine = format!("{}{}", "[".repeat(100), "]".repeat(100));
        assert!(json_cost(fine.as_bytes(), 0).is_ok());
    }

    /// The walk alone, as when the quick bound does not leave room enough.
    fn walked(json: &[u8]) -> u64 {
        let mut scan = Scan {
            json,
            at: 0,
            used: 0,
            limit: u64::MAX,
            stack: Vec::new(),
            next: Kind::Root,
            list: "",
        };
        assert!(scan.run().is_ok(), "{}", String::from_utf8_lossy(json));
        scan.used
    }

    #[test]
    fn the_quick_bound_is_the_cost_while_it_leaves_three_quarters_of_the_limit() {
        let json = br#"{"asset":{"version":"2.0"},"nodes":[{},{}]}"#;
        let quick = quick_bound(json);
        assert!(quick > walked(json));
        assert_eq!(json_cost(json, 4 * quick).ok(), Some(quick));
        assert_eq!(json_cost(json, 4 * quick - 1).ok(), Some(walked(json)));
    }

    #[test]
    fn the_quick_bound_is_never_less_than_the_walk() {
        use Kind::*;
        let kinds = [
            Root,
            Node,
            Material,
            Mesh,
            Primitive,
            Accessor,
            BufferView,
            Buffer,
            Image,
            Texture,
            Sampler,
            Camera,
            Skin,
            Animation,
            Channel,
            AnimationSampler,
            Scene,
            ExtensionName,
            Attributes,
            Index,
            Values,
            Ignored,
            Other,
        ];
        for kind in kinds {
            assert!(
                kind.object() <= MOST_OBJECT && kind.element() <= MOST_ELEMENT,
                "{kind:?}"
            );
        }
        let lists = [
            "nodes",
            "materials",
            "meshes",
            "accessors",
            "bufferViews",
            "buffers",
            "images",
            "textures",
            "samplers",
            "cameras",
            "skins",
            "animations",
            "scenes",
            "extensionsUsed",
        ];
        let items = [
            "{}",
            "0",
            "[]",
            "\"\"",
            "{\"extras\":{\"a\":[1,{}]}}",
            "{\"children\":[1,2]}",
        ];
        let mut files = vec![
            r#"{"meshes":[{"primitives":[{"attributes":{"A":0,"B":1},"targets":[{},{}]}]}]}"#
                .to_string(),
            r#"{"animations":[{"channels":[{},{}],"samplers":[{},{}]}]}"#.to_string(),
            r#"{"accessors":[{"min":[0,1,2],"max":[[],{}]}],"extras":{"k":{"l":["m"]}}}"#
                .to_string(),
        ];
        for list in lists {
            for item in items {
                files.push(format!(r#"{{"{list}":[{item},{item},{item}]}}"#));
            }
        }
        for json in files {
            let bytes = json.as_bytes();
            assert!(quick_bound(bytes) >= walked(bytes), "{json}");
        }
    }

    #[test]
    fn quote_or_backslash_finds_the_first() {
        let mut bytes: Vec<u8> = (0..200u32).map(|i| (i * 37 % 251) as u8).collect();
        bytes.retain(|&b| b != b'"' && b != b'\\');
        for at in 0..bytes.len() {
            for mark in [b'"', b'\\'] {
                let mut with = bytes.clone();
                with[at] = mark;
                // A second one later must not be found first.
                if let Some(later) = with.get_mut(at + 3) {
                    *later = b'"';
                }
                assert_eq!(quote_or_backslash(&with), Some(at), "{at}");
            }
        }
        assert_eq!(quote_or_backslash(&bytes), None);
    }
}
