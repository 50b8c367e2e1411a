//! The facade's warning: a format crate's typed warning, kept as it is.

use crate::Format;

/// Something unusual but readable that a reader reported (see each format crate's `Warning`).
/// `Display` gives the crate's own message, which names the position.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Warning {
    /// A BMF reader warning.
    #[cfg(feature = "bmf")]
    Bmf(bmf_block::Warning),
    /// An SMF reader warning.
    #[cfg(feature = "smf")]
    Smf(selene_smf::Warning),
    /// An MDL reader warning.
    #[cfg(feature = "mdl")]
    Mdl(mdl_format::Warning),
    /// An ELEM reader warning.
    #[cfg(feature = "elem")]
    Elem(elfreina_elem::Warning),
    /// An SKM reader warning.
    #[cfg(feature = "skm")]
    Skm(skm_text::Warning),
}

/// Evaluates an expression with the crate warning inside a [`Warning`].
macro_rules! with_warning {
    ($warning:expr, $w:ident => $body:expr) => {
        match $warning {
            #[cfg(feature = "bmf")]
            Warning::Bmf(ref $w) => $body,
            #[cfg(feature = "smf")]
            Warning::Smf(ref $w) => $body,
            #[cfg(feature = "mdl")]
            Warning::Mdl(ref $w) => $body,
            #[cfg(feature = "elem")]
            Warning::Elem(ref $w) => $body,
            #[cfg(feature = "skm")]
            Warning::Skm(ref $w) => $body,
        }
    };
}

impl Warning {
    /// The format whose reader reported it.
    pub fn format(&self) -> Format {
        match *self {
            #[cfg(feature = "bmf")]
            Warning::Bmf(_) => Format::Bmf,
            #[cfg(feature = "smf")]
            Warning::Smf(_) => Format::Smf,
            #[cfg(feature = "mdl")]
            Warning::Mdl(_) => Format::Mdl,
            #[cfg(feature = "elem")]
            Warning::Elem(_) => Format::Elem,
            #[cfg(feature = "skm")]
            Warning::Skm(_) => Format::Skm,
        }
    }
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        with_warning!(*self, w => std::fmt::Display::fmt(w, f))
    }
}

macro_rules! from_crate_warning {
    ($($feature:literal => $Variant:ident($ty:ty),)*) => {$(
        #[cfg(feature = $feature)]
        impl From<$ty> for Warning {
            fn from(w: $ty) -> Self {
                Warning::$Variant(w)
            }
        }
    )*};
}

from_crate_warning! {
    "bmf" => Bmf(bmf_block::Warning),
    "smf" => Smf(selene_smf::Warning),
    "mdl" => Mdl(mdl_format::Warning),
    "elem" => Elem(elfreina_elem::Warning),
    "skm" => Skm(skm_text::Warning),
}
