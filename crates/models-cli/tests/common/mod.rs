//! Helpers shared by the CLI's integration tests: run the binary, find a fixture, read its
//! output. Each test file uses a part of them, hence `dead_code` is allowed here only.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The `models` binary that Cargo built for these tests.
pub const BIN: &str = env!("CARGO_BIN_EXE_models");

/// Runs the binary with `args` and waits for it.
pub fn models(args: &[&dyn AsRef<OsStr>]) -> Output {
    let mut cmd = Command::new(BIN);
    for a in args {
        cmd.arg(a);
    }
    cmd.output().expect("the models binary runs")
}

/// A generated fixture (`cargo xtask regen-fixtures`); a missing one fails the test at once.
pub fn fixture(format: &str, name: &str) -> PathBuf {
    let path = test_support::workspace_root()
        .join("fixtures")
        .join(format)
        .join(name);
    assert!(
        path.is_file(),
        "{} missing: run cargo xtask regen-fixtures",
        path.display()
    );
    path
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Every file under `dir`, recursively, not following links.
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Fails if a temporary output (`.models-XXXXXX.tmp`, see `models::output`) is left under
/// `dir`.
pub fn no_temporary_files(dir: &Path) {
    let leftovers: Vec<_> = walk(dir)
        .into_iter()
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with(".models-") || name.ends_with(".tmp")
        })
        .collect();
    assert!(leftovers.is_empty(), "stray temporary files: {leftovers:?}");
}
