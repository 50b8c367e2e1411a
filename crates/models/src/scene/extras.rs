//! Building the JSON values the converters put in `extras`.
//!
//! `json!` passes each non-literal value through `to_value`, which serialises a `Value` or a
//! `String` into a copy of itself: a tree of values built for the extras was built twice, and
//! a base64 or hex string of megabytes copied once more at each level it was nested in.
//! [`object`] takes the values themselves.

use serde_json::Value;

/// A JSON object of these entries, in this order, holding the values themselves.
pub(crate) fn object<const N: usize>(entries: [(&str, Value); N]) -> Value {
    Value::Object(
        entries
            .into_iter()
            .map(|(key, value)| (key.to_owned(), value))
            .collect(),
    )
}
