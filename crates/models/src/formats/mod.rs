//! Per-format summaries: one file per format, each documenting what its figures count.

#[cfg(feature = "bmf")]
pub(crate) mod bmf;
#[cfg(feature = "elem")]
pub(crate) mod elem;
#[cfg(feature = "mdl")]
pub(crate) mod mdl;
#[cfg(feature = "skm")]
pub(crate) mod skm;
#[cfg(feature = "smf")]
pub(crate) mod smf;
