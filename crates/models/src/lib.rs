//! Facade: being written.
#![forbid(unsafe_code)]
