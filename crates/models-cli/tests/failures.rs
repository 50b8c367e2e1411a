//! Issue 8, end to end: how the `models` binary fails. A batch goes on past bad files and
//! names them; a write that fails half-way leaves neither a partial output nor a temporary
//! file (and an existing output intact); a folder that cannot be written is reported clearly.

mod common;
use common::*;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Every generated fixture of the five formats.
fn fixtures() -> Vec<PathBuf> {
    let root = test_support::workspace_root().join("fixtures");
    let mut out = Vec::new();
    for format in ["bmf", "smf", "mdl", "elem", "skm"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join(format))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        out.extend(files);
    }
    assert!(out.len() >= 10, "run cargo xtask regen-fixtures");
    out
}

fn files_ending(dir: &Path, suffix: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(suffix))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn a_batch_of_fifty_with_three_corrupt_files_converts_the_other_forty_seven() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("in");
    let out = dir.path().join("out");
    std::fs::create_dir_all(&src).unwrap();
    let fixtures = fixtures();
    for i in 0..47 {
        let from = &fixtures[i % fixtures.len()];
        let ext = from.extension().unwrap().to_str().unwrap();
        std::fs::copy(from, src.join(format!("good_{i:02}.{ext}"))).unwrap();
    }
    // A truncated binary file, a file that is no model at all, and a text file whose count
    // line is broken.
    let mut truncated = std::fs::read(&fixtures[0]).unwrap();
    truncated.truncate(truncated.len() / 2);
    std::fs::write(src.join("bad_truncated.bmf"), truncated).unwrap();
    std::fs::write(
        src.join("bad_garbage.smf"),
        b"not a model, whatever the name says",
    )
    .unwrap();
    std::fs::write(src.join("bad_count.skm"), b"Vertices: lots\r\n").unwrap();

    let o = models(&[&"convert", &"--out-dir", &out, &src]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    for bad in ["bad_truncated.bmf", "bad_garbage.smf", "bad_count.skm"] {
        let line = err
            .lines()
            .find(|l| l.starts_with("error:") && l.contains(bad))
            .unwrap_or_else(|| panic!("{bad} is not named on stderr:\n{err}"));
        // The reason follows the path.
        let reason = &line[line.find(bad).unwrap() + bad.len()..];
        assert!(reason.trim_start_matches(':').trim().len() > 10, "{line}");
    }
    assert!(
        err.contains("converted 47, failed 3"),
        "closing line: {err}"
    );
    let written = files_ending(&out, ".glb");
    assert_eq!(written.len(), 47, "{written:?}");
    assert!(
        written.iter().all(|n| n.starts_with("good_")),
        "{written:?}"
    );
    assert!(files_ending(&out, ".tmp").is_empty());
}

/// Runs the binary with a file-size limit of one 512-byte block, so that writing any output
/// larger than that fails half-way with `EFBIG` (the signal that would kill the process is
/// ignored, as the shell's `trap ''` is inherited across `exec`).
#[cfg(target_os = "linux")]
fn models_with_tiny_file_limit(args: &[&Path]) -> Output {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg("trap '' XFSZ; ulimit -f 1; exec \"$0\" \"$@\"")
        .arg(BIN);
    cmd.args(args);
    cmd.output().expect("sh runs")
}

#[cfg(target_os = "linux")]
#[test]
fn a_write_that_fails_half_way_leaves_no_partial_output_and_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let input = test_support::workspace_root().join("fixtures/bmf/skinned_arm.bmf");
    assert!(std::fs::metadata(&input).unwrap().len() > 512);

    // A new output: nothing may appear.
    let glb = dir.path().join("arm.glb");
    let o = models_with_tiny_file_limit(&[Path::new("convert"), &input, &glb]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("arm.glb") && err.to_lowercase().contains("file too large"),
        "{err}"
    );
    assert!(!glb.exists(), "a partial output was left");
    assert!(
        files_ending(dir.path(), ".tmp").is_empty(),
        "a temporary file was left"
    );

    // An existing output with --force: it must stay as it was.
    let bmf = dir.path().join("arm.bmf");
    std::fs::write(&bmf, b"the user's old file").unwrap();
    let o =
        models_with_tiny_file_limit(&[Path::new("convert"), Path::new("--force"), &input, &bmf]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(std::fs::read(&bmf).unwrap(), b"the user's old file");
    assert!(files_ending(dir.path(), ".tmp").is_empty());

    // The same in batch mode.
    let out = dir.path().join("out");
    let o =
        models_with_tiny_file_limit(&[Path::new("convert"), Path::new("--out-dir"), &out, &input]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        files_ending(&out, "").is_empty(),
        "{:?}",
        files_ending(&out, "")
    );
}

/// A folder the test cannot write to: a `chmod 555` folder, or, when the tests run as root
/// (which ignores permissions), sysfs, where nobody can create files.
#[cfg(unix)]
fn unwritable_folder(scratch: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch.join("read-only");
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    if std::fs::write(dir.join("probe"), b"").is_err() {
        return Some(dir);
    }
    let sys = PathBuf::from("/sys/kernel");
    (sys.is_dir() && std::fs::write(sys.join("models-probe"), b"").is_err()).then_some(sys)
}

#[cfg(unix)]
#[test]
fn output_into_a_read_only_folder_fails_with_a_clear_message() {
    let scratch = tempfile::tempdir().unwrap();
    let Some(dir) = unwritable_folder(scratch.path()) else {
        panic!("no unwritable folder found to test with");
    };
    let input = test_support::workspace_root().join("fixtures/bmf/static_cube.bmf");
    let o = models(&[&"convert", &input, &dir.join("cube.glb")]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let line = err.lines().find(|l| l.starts_with("error:")).unwrap_or("");
    assert!(
        line.contains(dir.to_str().unwrap()) && line.to_lowercase().contains("permission denied"),
        "the message names the folder and the reason: {err}"
    );
    assert!(
        !line.contains(".tmp"),
        "no temporary file name in the message: {line}"
    );
    // Batch mode says the same.
    let o = models(&[&"convert", &"--out-dir", &dir, &input]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).to_lowercase().contains("permission denied"),
        "{}",
        stderr(&o)
    );
    // Let the temporary folder be removed.
    #[allow(clippy::permissions_set_readonly_false)]
    if dir.starts_with(scratch.path()) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// The progress bar appears when stderr is a terminal (here a pseudo-terminal from
/// util-linux `script`); `batch_converts_the_good_files_and_names_the_bad_ones` checks that
/// nothing of it appears when stderr is not one.
#[cfg(target_os = "linux")]
#[test]
fn a_batch_on_a_terminal_shows_a_progress_bar() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: util-linux `script` is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let fixtures = test_support::workspace_root().join("fixtures");
    let command = format!(
        "'{BIN}' convert --out-dir '{}' '{}' '{}'",
        dir.path().join("out").display(),
        fixtures.join("bmf").display(),
        fixtures.join("mdl").display(),
    );
    let o = Command::new("script")
        .args(["-q", "-e", "-c", &command, "/dev/null"])
        .env("TERM", "xterm")
        .output()
        .expect("script runs");
    let shown = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{shown}");
    let total = ["bmf", "mdl"]
        .iter()
        .map(|f| std::fs::read_dir(fixtures.join(f)).unwrap().count())
        .sum::<usize>();
    assert!(
        shown.contains(&format!("/{total} ")) && shown.contains("\u{1b}["),
        "no progress bar on the terminal: {shown:?}"
    );
}
