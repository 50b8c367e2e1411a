//! A run whose largest input is 6 MiB or more executes itself again, once, with glibc's
//! `malloc` in huge pages (`GLIBC_TUNABLES=glibc.malloc.hugetlb=1`); a smaller one, or one whose
//! `GLIBC_TUNABLES` names that setting already, does not. The output is the same either way.
//! Only where glibc's tunables exist.
#![cfg(all(target_os = "linux", target_env = "gnu"))]

mod common;
use common::*;
use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Output};

const NOTE: &str = "running again with GLIBC_TUNABLES=";

/// `models -v ARGS` with `GLIBC_TUNABLES` as given (unset for `None`).
fn run(args: &[&OsStr], tunables: Option<&str>) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.arg("-v").args(args);
    match tunables {
        Some(t) => cmd.env("GLIBC_TUNABLES", t),
        None => cmd.env_remove("GLIBC_TUNABLES"),
    };
    cmd.output().expect("the models binary runs")
}

fn notes(out: &Output) -> usize {
    stderr(out).matches(NOTE).count()
}

/// Fails unless `what` stands exactly once in `text`.
fn once(text: &str, what: &str) {
    assert_eq!(text.matches(what).count(), 1, "{what:?} in:\n{text}");
}

/// A static SMF of `tori` tori (about 245 KB each).
fn write_model(path: &Path, tori: u32) {
    let geometry = large_models::geometry::tori(tori, 60, 60, 0.0);
    let bytes = large_models::smf::static_from(&geometry).unwrap();
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn a_large_input_runs_again_once_and_converts_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.smf");
    write_model(&big, 30);
    assert!(std::fs::metadata(&big).unwrap().len() >= 6 << 20);
    let (with, without) = (dir.path().join("with.glb"), dir.path().join("without.glb"));

    let out = run(&["convert".as_ref(), big.as_ref(), with.as_ref()], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Once: the executed run sees the setting and goes on (were it not passed, it would
    // execute itself again, and again). Executing did not fail.
    assert_eq!(notes(&out), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("GLIBC_TUNABLES=glibc.malloc.hugetlb=1,"),
        "{}",
        stderr(&out)
    );
    assert!(
        !stderr(&out).contains("cannot run again"),
        "{}",
        stderr(&out)
    );
    once(&stderr(&out), "wrote ");

    // Other tunables are kept, the setting added after them.
    let kept = dir.path().join("kept.glb");
    let out = run(
        &["convert".as_ref(), big.as_ref(), kept.as_ref()],
        Some("glibc.malloc.check=0"),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("GLIBC_TUNABLES=glibc.malloc.check=0:glibc.malloc.hugetlb=1,"),
        "{}",
        stderr(&out)
    );

    // The user's own choice of the setting stands: no second start.
    let out = run(
        &["convert".as_ref(), big.as_ref(), without.as_ref()],
        Some("glibc.malloc.hugetlb=0"),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(notes(&out), 0, "{}", stderr(&out));

    let bytes = |p: &Path| std::fs::read(p).unwrap();
    assert!(bytes(&with) == bytes(&without) && bytes(&kept) == bytes(&without));
}

#[test]
fn what_counts_is_the_largest_named_input() {
    let dir = tempfile::tempdir().unwrap();
    let (small, big) = (dir.path().join("small.smf"), dir.path().join("big.smf"));
    write_model(&small, 2);
    write_model(&big, 30);
    let glb = dir.path().join("out.glb");

    // A small file alone, and `info` on it: no second start.
    let out = run(&[OsStr::new("convert"), small.as_ref(), glb.as_ref()], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(notes(&out), 0, "{}", stderr(&out));
    let out = run(&[OsStr::new("info"), small.as_ref()], None);
    assert_eq!(notes(&out), 0, "{}", stderr(&out));

    // The large file as `info`'s second file, or as `--base`; not as an output to replace.
    let out = run(&[OsStr::new("info"), small.as_ref(), big.as_ref()], None);
    assert_eq!(notes(&out), 1, "{}", stderr(&out));
    assert_eq!(
        stdout(&out).lines().filter(|l| l.contains(".smf")).count(),
        2
    );
    let smf = dir.path().join("back.smf");
    let out = run(
        &[
            OsStr::new("convert"),
            glb.as_ref(),
            smf.as_ref(),
            "--base".as_ref(),
            big.as_ref(),
        ],
        None,
    );
    assert_eq!(notes(&out), 1, "{}", stderr(&out));
    std::fs::copy(&big, &glb).unwrap();
    let out = run(
        &[
            OsStr::new("convert"),
            small.as_ref(),
            glb.as_ref(),
            "--force".as_ref(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(notes(&out), 0, "{}", stderr(&out));

    // A model in a pack counts as its pack.
    let packed = dir.path().join("packed");
    std::fs::create_dir(&packed).unwrap();
    std::fs::copy(&big, packed.join("big.smf")).unwrap();
    let pack = dir.path().join("big.Pack");
    let out = run(
        &[
            "pack".as_ref(),
            "create".as_ref(),
            pack.as_ref(),
            packed.as_ref(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let inside = format!("{}::big.smf", pack.display());
    let out = run(&[OsStr::new("info"), inside.as_ref()], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(notes(&out), 1, "{}", stderr(&out));
    std::fs::remove_dir_all(&packed).unwrap();

    // A batch: each input named counts, and each file found in a folder, unless finding them
    // printed something (it would be printed twice).
    let outs = dir.path().join("outs");
    let batch = |inputs: &[&Path], more: &[&str]| {
        let mut args: Vec<&OsStr> = vec!["convert".as_ref(), "--out-dir".as_ref(), outs.as_ref()];
        args.extend(inputs.iter().map(|p| p.as_os_str()));
        args.extend(more.iter().map(OsStr::new));
        args.push("--force".as_ref());
        run(&args, None)
    };
    assert_eq!(notes(&batch(&[&small, &big], &[])), 1);
    let folder = dir.path().join("folder");
    std::fs::create_dir(&folder).unwrap();
    std::fs::rename(&big, folder.join("big.smf")).unwrap();
    let out = batch(&[&folder], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(notes(&out), 1, "{}", stderr(&out));
    once(&stderr(&out), "converted");
    std::fs::rename(&small, folder.join("small.smf")).unwrap();
    let out = batch(&[&folder], &["--dry-run"]);
    assert_eq!(notes(&out), 1, "{}", stderr(&out));
    // `info` walks its folders first, then reports each model once.
    let out = run(&[OsStr::new("info"), folder.as_ref()], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(notes(&out), 1, "{}", stderr(&out));
    once(&stdout(&out), "big.smf");
    // A link to a folder is passed over with a note: no second start.
    std::os::unix::fs::symlink(&outs, folder.join("linked")).unwrap();
    let out = batch(&[&folder], &["--recursive"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    once(&stderr(&out), "a link to a folder");
    assert_eq!(notes(&out), 0, "{}", stderr(&out));
    let out = run(
        &[OsStr::new("info"), "--recursive".as_ref(), folder.as_ref()],
        None,
    );
    once(&stderr(&out), "a link to a folder");
    assert_eq!(notes(&out), 0, "{}", stderr(&out));
}
