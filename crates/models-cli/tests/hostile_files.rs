//! Issue 12, end to end: the CLI's file handling against hostile setups built in each test.
//! Output-name clashes and outputs that are inputs, unknown output extensions, the umask and
//! `--force`'s mode, interruption by signals, `.gltf` + `.bin` replaced together, non-UTF-8
//! output names, link loops, FIFOs and devices.

#![cfg(unix)]

mod common;
use common::*;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A hang guard, not a timing assertion: a run that takes this long has hung (every run here
/// takes well under a second, or a few seconds for the signal tests).
const HUNG: Duration = Duration::from_secs(120);

/// Waits for `child`, killing it (and failing the test) if it runs longer than [`HUNG`].
fn wait_or_kill(mut child: Child, what: &str) -> Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > HUNG {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: hung");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    child.wait_with_output().unwrap()
}

/// Runs `cmd` with stdin closed and the output captured, guarded against hangs.
fn run(cmd: &mut Command, what: &str) -> Output {
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_or_kill(child, what)
}

/// Runs the binary with `args`.
fn models(args: &[&dyn AsRef<OsStr>]) -> Output {
    let mut cmd = Command::new(BIN);
    for a in args {
        cmd.arg(a);
    }
    let what = format!("{:?}", cmd.get_args().collect::<Vec<_>>());
    run(&mut cmd, &what)
}

/// Runs the binary through `sh -c '<prefix>; exec models "$@"'`.
fn models_in_shell(prefix: &str, args: &[&dyn AsRef<OsStr>]) -> Output {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!("{prefix}; exec \"$0\" \"$@\""))
        .arg(BIN);
    for a in args {
        cmd.arg(a);
    }
    run(&mut cmd, prefix)
}

/// Checks that a run succeeded and that its stderr contains `text`; returns the stderr.
fn succeeded_saying(o: &Output, text: &str) -> String {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains(text), "{err}");
    err
}

/// A generated fixture (`cargo xtask regen-fixtures`).
fn fixture(format: &str, name: &str) -> PathBuf {
    test_support::workspace_root().join(format!("fixtures/{format}/{name}"))
}

/// Every file under `dir` (recursively, not following links), relative to it, sorted.
fn files_under(dir: &Path) -> Vec<String> {
    fn walk(top: &Path, dir: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            // No unwrap: a file may be renamed away while the folder is read.
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                walk(top, &path, out);
            } else {
                let rel = path.strip_prefix(top).unwrap();
                out.push(rel.to_string_lossy().into_owned());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

fn temporaries_under(dir: &Path) -> Vec<String> {
    files_under(dir)
        .into_iter()
        .filter(|f| f.ends_with(".tmp"))
        .collect()
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success(), "mkfifo {}", path.display());
}

fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// The vertex count of a converted .glb, to tell which input it came from.
fn glb_vertices(path: &Path) -> usize {
    let g = gltf::Gltf::from_slice(&std::fs::read(path).unwrap()).unwrap();
    g.document
        .meshes()
        .flat_map(|m| m.primitives())
        .filter_map(|p| p.get(&gltf::Semantic::Positions).map(|a| a.count()))
        .sum()
}

#[test]
fn batch_inputs_with_the_same_name_all_get_their_own_output() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    let cube = fixture("bmf", "static_cube.bmf");
    let arm = fixture("bmf", "skinned_arm.bmf");
    std::fs::copy(&cube, a.join("m.bmf")).unwrap();
    std::fs::copy(&arm, b.join("m.bmf")).unwrap();

    // Explicit files: m.glb and m-1.glb, in the order given, with a note; --dry-run shows the
    // same plan.
    let out = dir.path().join("out");
    let o = models(&[
        &"convert",
        &"--dry-run",
        &"--out-dir",
        &out,
        &a.join("m.bmf"),
        &b.join("m.bmf"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let planned = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        planned.contains("m.glb") && planned.contains("m-1.glb"),
        "{planned}"
    );
    assert!(stderr(&o).contains("note:"), "{}", stderr(&o));
    assert!(!out.exists());
    let o = models(&[
        &"convert",
        &"--out-dir",
        &out,
        &a.join("m.bmf"),
        &b.join("m.bmf"),
    ]);
    let err = succeeded_saying(&o, "converted 2, failed 0,");
    assert!(err.contains("(of 2 inputs)"), "{err}");
    assert!(
        err.lines().any(|l| l.starts_with("note:")
            && l.contains("m-1.glb")
            && l.contains("also the output of")),
        "the clash is said: {err}"
    );
    assert_eq!(files_under(&out), ["m-1.glb", "m.glb"]);
    assert_ne!(
        glb_vertices(&out.join("m.glb")),
        glb_vertices(&out.join("m-1.glb"))
    );

    // Folders: each keeps its place below their common folder.
    let out = dir.path().join("out-folders");
    let o = models(&[&"convert", &"--to", &"gltf", &"--out-dir", &out, &a, &b]);
    let err = succeeded_saying(&o, "converted 2, failed 0,");
    assert!(err.contains("(of 2 inputs)"), "{err}");
    assert_eq!(
        files_under(&out),
        ["a/m.bin", "a/m.gltf", "b/m.bin", "b/m.gltf"]
    );

    // A name that a renamed output would take is kept by its own input.
    let out = dir.path().join("out-taken");
    std::fs::copy(&cube, dir.path().join("m-1.bmf")).unwrap();
    let o = models(&[
        &"convert",
        &"--out-dir",
        &out,
        &a.join("m.bmf"),
        &b.join("m.bmf"),
        &dir.path().join("m-1.bmf"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(files_under(&out), ["m-1.glb", "m-2.glb", "m.glb"]);
    assert_eq!(
        glb_vertices(&out.join("m-1.glb")),
        glb_vertices(&out.join("m.glb")),
        "m-1.glb is the conversion of m-1.bmf (a cube), not of b/m.bmf"
    );
}

#[test]
fn a_batch_never_writes_onto_an_input_even_with_force() {
    let dir = tempfile::tempdir().unwrap();
    let cube = fixture("bmf", "static_cube.bmf");
    let smf = fixture("smf", "collision_box.smf");
    for (from, to) in [(&cube, "q.bmf"), (&smf, "q.smf"), (&cube, "q.bmf.glb")] {
        std::fs::copy(from, dir.path().join(to)).unwrap();
    }
    let before = std::fs::read(dir.path().join("q.bmf.glb")).unwrap();
    let inputs: Vec<PathBuf> = ["q.bmf", "q.smf", "q.bmf.glb"]
        .iter()
        .map(|n| dir.path().join(n))
        .collect();
    let o = models(&[
        &"convert",
        &"--force",
        &"--out-dir",
        &dir.path(),
        &inputs[0],
        &inputs[1],
        &inputs[2],
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(std::fs::read(dir.path().join("q.bmf.glb")).unwrap(), before);
    assert!(err.contains("converted 3, failed 0"), "{err}");
    assert!(
        err.lines()
            .any(|l| l.starts_with("note:") && l.contains("q.bmf.glb is an input")),
        "{err}"
    );
    let written: Vec<String> = files_under(dir.path())
        .into_iter()
        .filter(|f| !["q.bmf", "q.smf", "q.bmf.glb"].contains(&f.as_str()))
        .collect();
    assert_eq!(written, ["q.bmf-1.glb", "q.bmf-2.glb", "q.smf.glb"]);
}

#[test]
fn an_output_extension_of_no_known_format_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let cube = fixture("bmf", "static_cube.bmf");
    for name in ["y.obj", "y", "y.txt"] {
        let out = dir.path().join(name);
        let o = models(&[&"convert", &cube, &out]);
        assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
        assert!(stderr(&o).contains(".glb, .gltf"), "{}", stderr(&o));
        assert!(!out.exists(), "{name} was written");
    }
    assert!(files_under(dir.path()).is_empty());
}

#[test]
fn new_files_follow_the_umask_and_force_keeps_the_mode() {
    let dir = tempfile::tempdir().unwrap();
    let cube = fixture("bmf", "static_cube.bmf");
    let (glb, gltf, bin, bmf) = (
        dir.path().join("a.glb"),
        dir.path().join("b.gltf"),
        dir.path().join("b.bin"),
        dir.path().join("c.bmf"),
    );
    for out in [&glb, &gltf, &bmf] {
        let o = models_in_shell("umask 022", &[&"convert", &cube, out]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    for path in [&glb, &gltf, &bin, &bmf] {
        assert_eq!(mode(path), 0o644, "{}", path.display());
    }
    let private = dir.path().join("p.glb");
    let o = models_in_shell("umask 077", &[&"convert", &cube, &private]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(mode(&private), 0o600);

    // --force keeps the mode of the file it replaces, whatever the umask.
    use std::os::unix::fs::PermissionsExt;
    for path in [&glb, &gltf, &bin, &bmf] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o664)).unwrap();
    }
    for out in [&glb, &gltf, &bmf] {
        let o = models_in_shell("umask 077", &[&"convert", &"--force", &cube, out]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    for path in [&glb, &gltf, &bin, &bmf] {
        assert_eq!(mode(path), 0o664, "{}", path.display());
    }
}

/// Starts `models` with `args`, its output piped to nothing but stderr.
fn spawn(args: &[&OsStr]) -> Child {
    Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Sends `signal` (`INT`, `TERM`, …) to `child`.
fn send(signal: &str, child: &Child) {
    let sent = Command::new("kill")
        .args(["-s", signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
}

/// A large generated BMF (1 000 000 vertices: its `.glb` is tens of MB, so its temporary file
/// lives long enough to be seen) alone in a new folder `in`, with an empty `out` beside it.
struct LargeInput {
    _dir: tempfile::TempDir,
    big: PathBuf,
    out: PathBuf,
}

fn large_input() -> LargeInput {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("in");
    let out = dir.path().join("out");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::create_dir_all(&out).unwrap();
    let big = src.join("big00.bmf");
    std::fs::write(&big, large_models::bmf::large_static().unwrap()).unwrap();
    LargeInput {
        _dir: dir,
        big,
        out,
    }
}

/// Starts `models` with `args`, waits until a temporary file exists under `out`, sends
/// `signal`, and checks that the process ends with 128 + its number and leaves no temporary
/// file. Returns what stands under `out` then.
fn interrupt(args: &[&OsStr], out: &Path, signal: &str, number: i32) -> Vec<String> {
    let mut child = spawn(args);
    let start = Instant::now();
    loop {
        if !temporaries_under(out).is_empty() {
            break;
        }
        if let Some(status) = child.try_wait().unwrap() {
            panic!("{args:?} ended ({status}) before a temporary file was seen");
        }
        if start.elapsed() > HUNG {
            let _ = child.kill();
            panic!("no temporary file appeared");
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    send(signal, &child);
    let o = wait_or_kill(child, signal);
    assert!(
        temporaries_under(out).is_empty(),
        "{signal} left {:?}",
        temporaries_under(out)
    );
    assert_eq!(
        o.status.code(),
        Some(128 + number),
        "{signal}: {}",
        stderr(&o)
    );
    files_under(out)
}

/// A batch over many large generated inputs: its outputs are written from several threads,
/// and a handler thread catches the signal.
fn interrupt_a_batch(signal: &str, number: i32) {
    let LargeInput { _dir, big, out } = large_input();
    let src = big.parent().unwrap();
    // Hard links: one copy on disk, many inputs.
    for i in 1..40 {
        std::fs::hard_link(&big, src.join(format!("big{i:02}.bmf"))).unwrap();
    }
    let args = [
        OsStr::new("convert"),
        OsStr::new("--out-dir"),
        out.as_os_str(),
        src.as_os_str(),
    ];
    let left = interrupt(&args, &out, signal, number);
    assert!(left.len() < 40, "the batch was interrupted, not finished");
}

/// One large conversion: written from the main thread alone, with no handler thread; the
/// signal is seen at the output's next write or sync, before the rename.
fn interrupt_one_conversion(signal: &str, number: i32) {
    let LargeInput { _dir, big, out } = large_input();
    let glb = out.join("big.glb");
    let args = [OsStr::new("convert"), big.as_os_str(), glb.as_os_str()];
    // The temporary takes tens of MB of writes and their sync: the signal comes before the
    // rename, and the output never appears.
    let left = interrupt(&args, &out, signal, number);
    assert!(left.is_empty(), "{signal}: {left:?}");
}

#[test]
fn sigint_removes_the_temporary_file_of_one_conversion() {
    interrupt_one_conversion("INT", 2);
}

#[test]
fn sigterm_removes_the_temporary_file_of_one_conversion() {
    interrupt_one_conversion("TERM", 15);
}

#[test]
fn sighup_removes_the_temporary_file_of_one_conversion() {
    interrupt_one_conversion("HUP", 1);
}

/// True once the process `pid` catches `signal` (its `SigCgt` mask in `/proc`).
fn catches(pid: u32, signal: u32) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigCgt:"))
        .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .is_some_and(|mask| mask & (1 << (signal - 1)) != 0)
}

/// A signal that comes once the handlers are in place but (most likely) before the output's
/// temporary exists, while the large input is parsed and converted: the process ends with
/// 128 + its number all the same, and leaves nothing.
#[test]
fn a_signal_before_the_output_ends_one_conversion_with_128_plus_its_number() {
    let LargeInput { _dir, big, out } = large_input();
    let glb = out.join("big.glb");
    let child = spawn(&[OsStr::new("convert"), big.as_os_str(), glb.as_os_str()]);
    let start = Instant::now();
    while !catches(child.id(), 2) {
        assert!(start.elapsed() < HUNG, "SIGINT never caught");
        std::thread::yield_now();
    }
    send("INT", &child);
    let o = wait_or_kill(child, "INT");
    assert_eq!(o.status.code(), Some(130), "{:?}: {}", o.status, stderr(&o));
    assert!(files_under(&out).is_empty(), "{:?}", files_under(&out));
}

#[test]
fn sigint_removes_the_temporary_files() {
    interrupt_a_batch("INT", 2);
}

#[test]
fn sigterm_removes_the_temporary_files() {
    interrupt_a_batch("TERM", 15);
}

#[test]
fn sighup_removes_the_temporary_files() {
    interrupt_a_batch("HUP", 1);
}

#[test]
fn a_gltf_and_its_bin_are_replaced_together_or_not_at_all() {
    let dir = tempfile::tempdir().unwrap();
    let arm = fixture("bmf", "skinned_arm.bmf");
    let gltf = dir.path().join("arm.gltf");
    let bin = dir.path().join("arm.bin");
    let old = |gltf_bytes: &[u8], bin_bytes: &[u8]| {
        std::fs::write(&gltf, gltf_bytes).unwrap();
        std::fs::write(&bin, bin_bytes).unwrap();
    };

    // A write that fails half-way (a file-size limit of 512 bytes; the .gltf is larger).
    old(b"old gltf", b"old bin");
    let o = models_in_shell(
        "trap '' XFSZ; ulimit -f 1",
        &[&"convert", &"--force", &arm, &gltf],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).to_lowercase().contains("file too large"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(&gltf).unwrap(), b"old gltf");
    assert_eq!(std::fs::read(&bin).unwrap(), b"old bin");
    assert!(temporaries_under(dir.path()).is_empty());

    // The .gltf's rename fails after the .bin's succeeded (a folder holds its name): the old
    // .bin is put back.
    std::fs::remove_file(&gltf).unwrap();
    std::fs::create_dir(&gltf).unwrap();
    let o = models(&[&"convert", &"--force", &arm, &gltf]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("arm.gltf"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&bin).unwrap(), b"old bin");
    assert!(gltf.is_dir());
    assert_eq!(files_under(dir.path()), ["arm.bin"]);

    // Without obstacles both are replaced.
    std::fs::remove_dir(&gltf).unwrap();
    old(b"old gltf", b"old bin");
    let o = models(&[&"convert", &"--force", &arm, &gltf]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_ne!(std::fs::read(&gltf).unwrap(), b"old gltf");
    assert_ne!(std::fs::read(&bin).unwrap(), b"old bin");
    assert_eq!(files_under(dir.path()), ["arm.bin", "arm.gltf"]);
}

#[cfg(target_os = "linux")]
#[test]
fn a_non_utf8_gltf_name_refers_to_the_bin_it_writes() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let gltf = dir.path().join(OsStr::from_bytes(b"bad\xff.gltf"));
    let o = models(&[&"convert", &fixture("bmf", "skinned_arm.bmf"), &gltf]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&gltf).unwrap()).unwrap();
    let uri = json["buffers"][0]["uri"].as_str().unwrap();
    assert_eq!(uri, "bad%EF%BF%BD.bin");
    // The file it names (percent-decoded) is the one written, and holds the whole buffer.
    let bin = dir.path().join("bad\u{FFFD}.bin");
    let length = json["buffers"][0]["byteLength"].as_u64().unwrap();
    assert_eq!(std::fs::metadata(&bin).unwrap().len(), length);
    assert_eq!(files_under(dir.path()).len(), 2);
}

#[test]
fn recursive_walks_skip_links_to_folders_fifos_and_devices_and_end() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("in");
    std::fs::create_dir_all(src.join("sub")).unwrap();
    let cube = fixture("bmf", "static_cube.bmf");
    std::fs::copy(&cube, src.join("x.bmf")).unwrap();
    std::fs::copy(&cube, src.join("sub/y.bmf")).unwrap();
    // Two loops (each alone made the old walk repeat itself; both, never end), a FIFO and a
    // device under model names, and a link to a model file (followed).
    std::os::unix::fs::symlink(".", src.join("loop")).unwrap();
    std::os::unix::fs::symlink("..", src.join("sub/up")).unwrap();
    mkfifo(&src.join("pipe.smf"));
    std::os::unix::fs::symlink("/dev/zero", src.join("zero.bmf")).unwrap();
    std::os::unix::fs::symlink("x.bmf", src.join("alias.bmf")).unwrap();

    let out = dir.path().join("out");
    let o = models(&[
        &"convert",
        &"--dry-run",
        &"--recursive",
        &"--out-dir",
        &out,
        &src,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // One `IN -> OUT` line per model (each is followed by its missing texture, cube.png).
    let planned = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(
        planned.lines().filter(|l| l.contains(" -> ")).count(),
        3,
        "{planned}"
    );
    assert!(!out.exists());

    let o = models(&[&"convert", &"--recursive", &"--out-dir", &out, &src]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(files_under(&out), ["alias.glb", "sub/y.glb", "x.glb"]);
    for (name, says) in [
        ("loop", "link to a folder"),
        ("up", "link to a folder"),
        ("pipe.smf", "a FIFO"),
        ("zero.bmf", "a character device"),
    ] {
        assert!(
            err.lines()
                .any(|l| l.starts_with("note:") && l.contains(name) && l.contains(says)),
            "{name}: {err}"
        );
    }
    assert!(
        err.contains("converted 3, failed 0,") && err.contains("(of 3 inputs)"),
        "{err}"
    );
    assert!(err.contains("skipped 4"), "{err}");
}

#[test]
fn named_inputs_that_are_not_regular_files_are_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.bmf");
    mkfifo(&fifo);
    let folder = dir.path().join("folder.bmf");
    std::fs::create_dir(&folder).unwrap();
    let zero = Path::new("/dev/zero");
    let out = dir.path().join("o.glb");
    for input in [fifo.as_path(), zero, folder.as_path()] {
        for dry_run in [false, true] {
            let mut args: Vec<&dyn AsRef<OsStr>> = vec![&"convert", &input, &out];
            if dry_run {
                args.push(&"--dry-run");
            }
            let o = models(&args);
            let err = stderr(&o);
            assert_eq!(o.status.code(), Some(1), "{err}");
            // A folder is told to use --out-dir instead.
            let why = if input == folder {
                "is a folder; to convert the models in it, use --out-dir"
            } else {
                "not a regular file"
            };
            assert!(
                err.contains(&*input.to_string_lossy()) && err.contains(why),
                "{err}"
            );
            assert!(!out.exists());
        }
    }
    // In a batch, each is named and counted, and the good file is still converted.
    let batch = dir.path().join("batch");
    let o = models(&[
        &"convert",
        &"--out-dir",
        &batch,
        &fifo,
        &zero,
        &fixture("bmf", "static_cube.bmf"),
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("converted 1, failed 2"), "{err}");
    assert_eq!(err.matches("not a regular file").count(), 2, "{err}");

    // detect and info neither wait on the FIFO nor read the device.
    for command in ["detect", "info"] {
        let o = models(&[&command, &fifo, &zero, &fixture("bmf", "static_cube.bmf")]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{command}: {err}");
        assert_eq!(
            err.matches("not a regular file").count(),
            2,
            "{command}: {err}"
        );
        assert!(
            String::from_utf8_lossy(&o.stdout).contains("static_cube.bmf"),
            "{command}: the regular file is still read"
        );
    }
}
