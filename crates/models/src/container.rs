//! Containers: files that hold models rather than being one. Only Selene `.Pack` archives so
//! far. A container is never a [`crate::Document`]; [`crate::detect`] keeps answering for
//! models only, and [`detect_container`] answers for containers.

/// A container format. Never feature-gated, like [`crate::Format`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Container {
    /// A Selene/Lue `.Pack` archive (magic `KCAP`), read with [`crate::pack`].
    Pack,
}

impl Container {
    /// The short lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Container::Pack => "pack",
        }
    }

    /// True when support for this container is compiled in (its cargo feature is on).
    pub fn is_enabled(self) -> bool {
        match self {
            Container::Pack => cfg!(feature = "pack"),
        }
    }
}

impl std::fmt::Display for Container {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Detects a container from the first bytes of a file (the magic `KCAP` for a pack). Returns
/// `None` when no enabled container matches.
///
/// ```
/// assert_eq!(models::detect_container(b"KCAP\x01\0\0\0"), Some(models::Container::Pack));
/// assert_eq!(models::detect(b"KCAP\x01\0\0\0"), None); // not a model
/// assert_eq!(models::detect_container(b"FMS\0"), None);
/// ```
pub fn detect_container(bytes: &[u8]) -> Option<Container> {
    #[cfg(feature = "pack")]
    if selene_pack::sniff(bytes) {
        return Some(Container::Pack);
    }
    let _ = bytes;
    None
}
