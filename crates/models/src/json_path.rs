//! [`At`]: a place in a JSON document (`accessors[3]`, `nodes[2].extras.smf_obb`), spelt only
//! when a warning or an error names it.
//!
//! The glTF reader passes a place to every step that may fail, and walks the extras of every
//! object for blob references. Spelling each place up front was a `format!` per channel,
//! accessor, buffer view and extras entry: 12 % of an animated character's import (issue 18),
//! for text that almost never reaches a message. An `At` is a few words on the stack that
//! refer to their parent; `Display` spells the whole path.

use std::fmt::{self, Display};

/// A place in a JSON document, spelt by `Display`.
#[derive(Clone, Copy)]
#[cfg_attr(not(feature = "gltf"), allow(dead_code))] // the glTF reader makes the nested ones
pub(crate) enum At<'a> {
    /// A top-level name: `scene`.
    Top(&'a str),
    /// An item of a top-level list: `{list}[{index}]`.
    Item(&'a str, usize),
    /// An item of a list inside `parent`: `{parent}.{list}[{index}]`.
    Nested(&'a dyn Display, &'a str, usize),
    /// A field of `parent`: `{parent}.{field}`.
    Field(&'a dyn Display, &'a str),
    /// An item of the array `parent`: `{parent}[{index}]`.
    Index(&'a dyn Display, usize),
}

impl Display for At<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            At::Top(name) => f.write_str(name),
            At::Item(list, i) => write!(f, "{list}[{i}]"),
            At::Nested(parent, list, i) => write!(f, "{parent}.{list}[{i}]"),
            At::Field(parent, field) => write!(f, "{parent}.{field}"),
            At::Index(parent, i) => write!(f, "{parent}[{i}]"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::At;

    #[test]
    fn places_spell_as_json_paths() {
        let top = At::Top("scene");
        let node = At::Item("nodes", 2);
        let extras = At::Field(&node, "extras");
        let obb = At::Field(&extras, "smf_obb");
        let channel = At::Nested(&At::Item("animations", 0), "channels", 5);
        assert_eq!(top.to_string(), "scene");
        assert_eq!(obb.to_string(), "nodes[2].extras.smf_obb");
        assert_eq!(At::Index(&obb, 1).to_string(), "nodes[2].extras.smf_obb[1]");
        assert_eq!(channel.to_string(), "animations[0].channels[5]");
    }
}
