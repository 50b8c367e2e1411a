//! A large conversion runs with glibc's `malloc` in transparent huge pages (issue 18).
//!
//! A model of several MB makes arrays of several MB (the document, the scene, the writer's
//! buffers), and glibc hands them out in 4 KiB pages, each faulted in and cleared on its own:
//! on a 68 MB SMF that is most of the CPU time. glibc can put its memory in 2 MiB pages instead
//! (`GLIBC_TUNABLES=glibc.malloc.hugetlb=1`), but reads that setting only when a program starts,
//! and a program cannot change it without `unsafe` code. So a run whose largest input is
//! [`LARGE_INPUT`] or more executes itself again, with the setting added: the same process
//! (same id, arguments and files), started anew, which costs about 0.5 ms. A smaller run does
//! not: a small conversion gains nothing from huge pages, and clearing a whole 2 MiB page would
//! cost it more than the pages it saves (BENCHMARKS.md).
//!
//! `convert` and `info` look at the files named on the command line first thing. Then a batch
//! (`convert --out-dir`) and `info` look at the files they found in folders, once gathered, if
//! gathering printed nothing (else that would be printed twice); a batch catches interruptions
//! only after that.
//!
//! `GLIBC_TUNABLES` naming `glibc.malloc.hugetlb` already, with any value, is left as it is:
//! that is how the executed process knows not to do it again, and how a user opts out
//! (`GLIBC_TUNABLES=glibc.malloc.hugetlb=0`, e.g. to keep a profiler on one process image).

use std::ffi::{OsStr, OsString};
use std::path::Path;

/// The size from which the largest input makes the run execute itself again: where the
/// saved page faults outweigh starting anew. Measured on generated SMF models (CPU time, 30
/// alternating runs): 3.9 MB gains 0.7 ms, 5.9 MB 1.8 ms, 8.3 MB 3.7 ms, against 0.5 ms for the
/// new start.
pub(crate) const LARGE_INPUT: u64 = 6 << 20;

/// The tunable added to `GLIBC_TUNABLES`.
const HUGE_PAGES: &str = "glibc.malloc.hugetlb=1";

/// Executes the program again with glibc's `malloc` in huge pages when the largest of `inputs`
/// (files on disk; a `PACK::NAME` counts as its pack; folders and missing files as nothing) is
/// [`LARGE_INPUT`] or more: see [`run_again_for`].
pub(crate) fn run_again_if_large<'a>(inputs: impl IntoIterator<Item = &'a Path>) {
    let file_size = |path: &Path| {
        std::fs::metadata(path)
            .ok()
            .filter(std::fs::Metadata::is_file)
            .map(|m| m.len())
    };
    // One `stat` for a file; a `PACK::NAME` (not a file itself) takes a second, its pack's.
    let largest = inputs
        .into_iter()
        .filter_map(|path| {
            file_size(path).or_else(|| file_size(&crate::pack::split_inner(path)?.0))
        })
        .max();
    run_again_for(largest.unwrap_or(0));
}

/// Executes the program again with glibc's `malloc` in huge pages when `largest` (the size of
/// the largest input, in bytes) is [`LARGE_INPUT`] or more. Returns only when it does not, or
/// when executing fails (said with `-v`): the run then goes on as it is. Call it before any
/// output, signal handler or thread of the run: the new start does all again.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub(crate) fn run_again_for(largest: u64) {
    use std::os::unix::process::CommandExt;
    if largest < LARGE_INPUT {
        return;
    }
    let Some(tunables) = with_huge_pages(std::env::var_os("GLIBC_TUNABLES").as_deref()) else {
        return;
    };
    let Ok(program) = std::env::current_exe() else {
        return;
    };
    let mut args = std::env::args_os();
    let name = args
        .next()
        .unwrap_or_else(|| program.clone().into_os_string());
    if crate::said::is_verbose() {
        eprintln!(
            "note: a large input ({:.1} MiB): running again with GLIBC_TUNABLES={}, glibc's memory in huge pages",
            largest as f64 / f64::from(1 << 20),
            tunables.to_string_lossy()
        );
    }
    let failed = std::process::Command::new(program)
        .arg0(name)
        .args(args)
        .env("GLIBC_TUNABLES", tunables)
        .exec();
    if crate::said::is_verbose() {
        eprintln!("note: cannot run again with huge pages ({failed}): going on without them");
    }
}

/// Elsewhere glibc's tunables do not exist.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub(crate) fn run_again_for(_: u64) {}

/// `GLIBC_TUNABLES` with the huge-page setting added (tunables are `name=value` pairs joined
/// by `:`), or `None` when it names that setting already.
fn with_huge_pages(current: Option<&OsStr>) -> Option<OsString> {
    let current = current.unwrap_or_default();
    let name = HUGE_PAGES.split('=').next().unwrap_or(HUGE_PAGES);
    let named = current
        .as_encoded_bytes()
        .split(|&b| b == b':')
        .any(|pair| pair.split(|&b| b == b'=').next() == Some(name.as_bytes()));
    if named {
        return None;
    }
    let mut tunables = current.to_os_string();
    if !tunables.is_empty() {
        tunables.push(":");
    }
    tunables.push(HUGE_PAGES);
    Some(tunables)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_setting_is_added_to_what_is_there() {
        let add = |current: Option<&str>| with_huge_pages(current.map(OsStr::new));
        assert_eq!(add(None), Some("glibc.malloc.hugetlb=1".into()));
        assert_eq!(add(Some("")), Some("glibc.malloc.hugetlb=1".into()));
        assert_eq!(
            add(Some("glibc.malloc.check=3")),
            Some("glibc.malloc.check=3:glibc.malloc.hugetlb=1".into())
        );
        // Named already, whatever its value: the executed run, or the user's choice.
        assert_eq!(add(Some("glibc.malloc.hugetlb=1")), None);
        assert_eq!(
            add(Some("glibc.malloc.check=3:glibc.malloc.hugetlb=0")),
            None
        );
        // A longer name that starts the same is another tunable.
        assert_eq!(
            add(Some("glibc.malloc.hugetlbx=2")),
            Some("glibc.malloc.hugetlbx=2:glibc.malloc.hugetlb=1".into())
        );
    }
}
