//! End-to-end tests of the `models` binary: output, exit codes, and the no-clobber rules.

mod common;
use common::*;
use std::ffi::OsStr;
use std::path::PathBuf;

#[test]
fn detect_names_each_format_and_unknown() {
    let dir = tempfile::tempdir().unwrap();
    let midi = dir.path().join("song.smf");
    std::fs::write(&midi, b"MThd\0\0\0\x06\0\x01\0\x02\0\x60").unwrap();
    let cube = fixture("bmf", "static_cube.bmf");
    let out = models(&[&"detect", &cube, &midi]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("static_cube.bmf: bmf"), "{text}");
    assert!(text.contains("song.smf: unknown"), "{text}");
}

#[test]
fn info_json_has_exactly_the_documented_keys() {
    let out = models(&[&"info", &"--json", &fixture("bmf", "skinned_arm.bmf")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let line = stdout(&out);
    let v: serde_json::Value = serde_json::from_str(line.trim()).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "path",
            "format",
            "version",
            "meshes",
            "vertices",
            "faces",
            "materials",
            "bones",
            "animations",
            "textures",
            "details",
            "model",
            "warnings"
        ]
    );
    assert_eq!(v["format"], "bmf");
    assert_eq!(v["version"], "BDV1.0");
    assert_eq!(v["vertices"], 12);
    assert_eq!(v["faces"], 16);
    assert_eq!(v["bones"], 2);
    assert_eq!(v["animations"], 1);
    assert_eq!(v["textures"], serde_json::json!(["arm.png"]));
    assert_eq!(
        v["details"]["vertex_kinds"],
        serde_json::json!(["SkinedVertex"])
    );
    assert_eq!(v["details"]["animation_samples"], serde_json::json!([5]));
}

#[test]
fn a_bad_file_is_reported_with_path_and_offset_and_the_others_still_run() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("broken.bmf");
    let mut bytes = std::fs::read(fixture("bmf", "static_cube.bmf")).unwrap();
    bytes.truncate(100);
    std::fs::write(&bad, &bytes).unwrap();
    let good = fixture("bmf", "static_cube.bmf");
    let out = models(&[&"info", &bad, &good]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("broken.bmf") && err.contains("at byte 0x10"),
        "{err}"
    );
    assert!(
        stdout(&out).contains("static_cube.bmf: bmf BDV1.0"),
        "the good file is still summarised"
    );

    let missing = models(&[&"info", &dir.path().join("nope.bmf")]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(stderr(&missing).contains("nope.bmf"));
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(models(&[]).status.code(), Some(2));
    assert_eq!(models(&[&"info"]).status.code(), Some(2));
    assert_eq!(models(&[&"frobnicate"]).status.code(), Some(2));
    assert_eq!(
        models(&[&"convert", &"only-one-arg"]).status.code(),
        Some(2)
    );
}

#[test]
fn convert_rewrites_byte_for_byte_and_never_clobbers() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.bmf");
    let original = std::fs::read(fixture("bmf", "multi_three_meshes.bmf")).unwrap();
    std::fs::write(&input, &original).unwrap();
    let output = dir.path().join("out.bmf");

    let out = models(&[&"convert", &input, &output]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read(&output).unwrap(), original);

    // An existing output is refused and left untouched without --force.
    std::fs::write(&output, b"keep me").unwrap();
    let out = models(&[&"convert", &input, &output]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("already exists"), "{}", stderr(&out));
    assert_eq!(std::fs::read(&output).unwrap(), b"keep me");

    // --force replaces it.
    let out = models(&[&"convert", &"--force", &input, &output]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read(&output).unwrap(), original);

    // The input is never the output, even with --force and through another spelling.
    let same = dir.path().join(".").join("in.bmf");
    let out = models(&[&"convert", &"--force", &input, &same]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("is the input file"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(&input).unwrap(), original);

    // Another target format goes through the scene and is written in that format.
    let out = models(&[&"convert", &input, &dir.path().join("x.mdl")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let written = std::fs::read(dir.path().join("x.mdl")).unwrap();
    assert_eq!(models::detect(&written), Some(models::Format::Mdl));

    no_temporary_files(dir.path());
}

#[test]
fn convert_into_a_missing_folder_fails_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let out = models(&[
        &"convert",
        &fixture("bmf", "static_cube.bmf"),
        &dir.path().join("no/such/dir/x.bmf"),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no/such/dir: folder does not exist"),
        "{}",
        stderr(&out)
    );
    // In the system's words, not the bare kind that tempfile's wrapping leaves.
    assert!(
        !stderr(&out).contains("entity not found"),
        "{}",
        stderr(&out)
    );
    // A file where the folder should be.
    let file = dir.path().join("a_file");
    std::fs::write(&file, b"x").unwrap();
    let out = models(&[
        &"convert",
        &fixture("bmf", "static_cube.bmf"),
        &file.join("x.glb"),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("a_file: not a folder"),
        "{}",
        stderr(&out)
    );
}

/// Every path the command line prints is shown exactly and safely: bytes that are not UTF-8
/// (CP932 names unpacked by an old archiver) as `\xNN`, so that two such names differ on
/// screen, and control characters escaped, so that a file name cannot clear the terminal.
/// Paths typed on the command line and paths found in a folder alike.
#[cfg(unix)]
#[test]
fn file_names_are_shown_exactly_and_safely() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let models_dir = dir.path().join("in");
    std::fs::create_dir(&models_dir).unwrap();
    let smf = std::fs::read(fixture("smf", "collision_box.smf")).unwrap();
    let names: [&[u8]; 4] = [b"\x83e.smf", b"\x83f.smf", b"a\x1b[2Jb.smf", b"\x84e.smf"];
    let files: Vec<PathBuf> = names
        .iter()
        .map(|n| models_dir.join(OsStr::from_bytes(n)))
        .collect();
    for f in &files {
        std::fs::write(f, &smf).unwrap();
    }
    let glb = dir.path().join(OsStr::from_bytes(b"\x83g.glb"));
    let out_dir = dir.path().join("out");
    let runs: Vec<Vec<&dyn AsRef<OsStr>>> = vec![
        vec![&"detect", &files[0], &files[2]],
        vec![&"info", &models_dir],
        vec![&"convert", &"--dry-run", &files[2], &glb],
        vec![&"convert", &files[0], &glb],
        // The output exists now: the error names it.
        vec![&"convert", &files[0], &glb],
        vec![&"convert", &"-v", &"--out-dir", &out_dir, &models_dir],
    ];
    let mut all = String::new();
    for (i, args) in runs.iter().enumerate() {
        let run = models(args);
        let text = format!("{}{}", stdout(&run), stderr(&run));
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{fffd}'),
            "run {i}: {text}"
        );
        all.push_str(&text);
    }
    for shown in ["\\x83e.smf", "\\x83f.smf", "a\\u{1b}[2Jb.smf", "\\x83g.glb"] {
        assert!(all.contains(shown), "{shown} is not shown: {all}");
    }
    assert!(all.contains("\\x83g.glb already exists"), "{all}");
    // Names that differ only in bytes that are not UTF-8 do not clash.
    assert!(!all.contains("written to"), "{all}");
    for name in [&b"\x83e.glb"[..], b"\x84e.glb"] {
        assert!(out_dir.join(OsStr::from_bytes(name)).is_file(), "{all}");
    }
}

#[test]
fn rate_options_accept_only_sensible_numbers() {
    let input = fixture("bmf", "static_cube.bmf");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.glb");
    for option in ["--bmf-fps", "--mdl-fps", "--smf-ticks-per-second"] {
        for bad in ["1e-40", "0", "-30", "nan", "inf", "abc", "0.5", "1e9"] {
            let o = models(&[&"convert", &format!("{option}={bad}"), &input, &out]);
            assert_eq!(o.status.code(), Some(2), "{option} {bad}: {}", stderr(&o));
            assert!(
                stderr(&o).contains("from 1 to"),
                "{option} {bad}: {}",
                stderr(&o)
            );
            assert!(!out.exists());
        }
    }
    let o = models(&[
        &"convert",
        &"--bmf-fps",
        &"29.97",
        &"--mdl-fps",
        &"1000",
        &"--smf-ticks-per-second",
        &"160",
        &input,
        &out,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn the_smf_rate_guess_names_the_cli_option() {
    let input = fixture("smf", "skinned_animated.smf");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.glb");
    let o = models(&[&"convert", &input, &out]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o)
            .contains("4800 ticks per second is a guess (set it with --smf-ticks-per-second)"),
        "{}",
        stderr(&o)
    );
    let out2 = dir.path().join("o2.glb");
    let o = models(&[&"convert", &"--smf-ticks-per-second", &"160", &input, &out2]);
    assert!(
        stderr(&o).contains("160 ticks per second is a guess"),
        "{}",
        stderr(&o)
    );
}

/// The warning lines of stderr (grouped by default), of `-v` and of `--quiet`.
fn warning_lines(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Vec<String> {
    let o = models(args);
    stderr(&o)
        .lines()
        .filter(|l| l.starts_with("warning: ") || l.starts_with("note: "))
        .map(str::to_string)
        .collect()
}

#[test]
fn warnings_are_grouped_by_kind_listed_with_v_and_hidden_with_quiet() {
    let input = fixture("smf", "unknown_chunks.smf");
    let grouped = warning_lines(&[&"info", &input]);
    let each = warning_lines(&[&"info", &"-v", &input]);
    let quiet = warning_lines(&[&"info", &"--quiet", &input]);
    assert!(each.len() > 2, "{each:?}");
    // `info` converts the model too: the conversion's warnings follow the reader's (which say
    // `at byte`); the reader's are checked here.
    let reader = |lines: &[String]| -> Vec<String> {
        lines
            .iter()
            .filter(|l| l.contains(": at byte "))
            .cloned()
            .collect()
    };
    let (grouped, each) = (reader(&grouped), reader(&each));
    let (chunks, others): (Vec<&String>, Vec<&String>) =
        each.iter().partition(|l| l.contains("unknown chunk"));
    assert!(chunks.len() > 2 && others.len() == 1, "{each:?}");
    // One line per kind, the first of its kind with the count of the others.
    assert_eq!(
        grouped,
        [
            format!(
                "{} (and {} more like it; -v lists each)",
                chunks[0],
                chunks.len() - 1
            ),
            others[0].clone()
        ],
        "{each:?}"
    );
    assert!(quiet.is_empty(), "{quiet:?}");
    // --quiet and -v together are a usage error.
    assert_eq!(
        models(&[&"info", &"-q", &"-v", &input]).status.code(),
        Some(2)
    );
}

#[test]
fn systematic_notes_show_only_with_v() {
    // Every SMF with OBBs gets the OBB note; every MDL with binormals the binormal note.
    for (format, name, note) in [
        ("smf", "collision_box.smf", "OBB(s) kept only in extras"),
        ("mdl", "static_quad_v1.mdl", "binormals not exported"),
        ("bmf", "static_tangent_quad.bmf", "stored tangents of"),
    ] {
        let input = fixture(format, name);
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("o.glb");
        let grouped = warning_lines(&[&"convert", &input, &out]);
        assert!(!grouped.iter().any(|l| l.contains(note)), "{grouped:?}");
        let out = dir.path().join("v.glb");
        let each = warning_lines(&[&"convert", &"-v", &input, &out]);
        assert!(
            each.iter()
                .any(|l| l.starts_with("note: ") && l.contains(note)),
            "{name}: {each:?}"
        );
        let out = dir.path().join("q.glb");
        assert!(warning_lines(&[&"convert", &"-q", &input, &out]).is_empty());
    }
}

#[test]
fn messages_say_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.glb");
    // A folder to single-file convert: suggests --out-dir; nothing written.
    let models_dir = test_support::workspace_root().join("fixtures").join("bmf");
    let o = models(&[&"convert", &models_dir, &out]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("is a folder; to convert the models in it, use --out-dir"),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists());
    // A missing file or folder says so plainly.
    let missing = dir.path().join("missing.smf");
    let o = models(&[&"info", &missing]);
    assert!(
        stderr(&o).contains("missing.smf: file does not exist"),
        "{}",
        stderr(&o)
    );
    let missing_dir = format!("{}/", dir.path().join("nope").display());
    let o = models(&[&"convert", &"--out-dir", &dir.path(), &missing_dir]);
    assert!(
        stderr(&o).contains("nope/: folder does not exist"),
        "{}",
        stderr(&o)
    );
    // glTF input to glTF output: nothing to convert; the way back is to a model format.
    let glb = dir.path().join("in.glb");
    std::fs::write(&glb, b"glTF").unwrap();
    let o = models(&[&"convert", &glb, &out]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("is glTF already") && stderr(&o).contains("convert IN.glb OUT.smf"),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists());
}

#[test]
fn info_of_a_folder_lists_its_models() {
    let folder = test_support::workspace_root().join("fixtures").join("bmf");
    let o = models(&[&"info", &"--json", &folder]);
    assert!(o.status.success(), "{}", stderr(&o));
    let files = std::fs::read_dir(&folder)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "bmf")
        })
        .count();
    assert!(files > 1);
    assert_eq!(stdout(&o).lines().count(), files, "{}", stdout(&o));
}

/// A folder walk opens the packs in a folder, for `info` and a batch alike: their models land
/// under a folder of the pack's name; a `.pack` file that is no Selene pack (git's) is passed
/// over. A folder with no model file is said in a note (with a hint when it has sub-folders a
/// walk without `--recursive` did not enter).
#[test]
fn a_folder_walk_opens_packs_and_says_when_it_found_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (packs, empty, nested) = (
        dir.path().join("packs"),
        dir.path().join("empty"),
        dir.path().join("nested"),
    );
    for d in [&packs, &empty, &nested.join("sub")] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::copy(fixture("pack", "models.Pack"), packs.join("Data.PACK")).unwrap();
    std::fs::write(packs.join("objects.pack"), b"PACK\0\0\0\x02").unwrap();
    std::fs::copy(
        fixture("bmf", "static_cube.bmf"),
        nested.join("sub").join("cube.bmf"),
    )
    .unwrap();
    let out = dir.path().join("out");
    let info = models(&[&"info", &packs]);
    assert!(info.status.success(), "{}", stderr(&info));
    let inner = "Data.PACK::Model\\collision_box.smf: smf";
    assert!(stdout(&info).contains(inner), "{}", stdout(&info));
    assert!(!stderr(&info).contains("objects.pack"), "{}", stderr(&info));
    let batch = models(&[&"convert", &"--out-dir", &out, &packs]);
    assert!(batch.status.success(), "{}", stderr(&batch));
    assert!(
        stderr(&batch).contains("converted 2, failed 0"),
        "{}",
        stderr(&batch)
    );
    for name in ["collision_box.glb", "skinned_animated.glb"] {
        assert!(out.join("Data.PACK").join("Model").join(name).is_file());
    }
    let nothing = stderr(&models(&[&"info", &empty]));
    assert!(nothing.contains("no model file found\n"), "{nothing}");
    let hint = stderr(&models(&[&"info", &nested]));
    assert!(
        hint.contains("no model file found (--recursive walks its sub-folders)"),
        "{hint}"
    );
    // A folder whose only model entry was skipped (a FIFO) has that said, not "nothing".
    #[cfg(target_os = "linux")]
    {
        let fifo_only = dir.path().join("fifo_only");
        std::fs::create_dir(&fifo_only).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(fifo_only.join("pipe.bmf"))
            .status()
            .unwrap();
        assert!(made.success());
        let skipped = stderr(&models(&[&"info", &fifo_only]));
        assert!(skipped.contains("not a regular file; skipped"), "{skipped}");
        assert!(!skipped.contains("no model file"), "{skipped}");
    }
    let walked = models(&[&"info", &"--recursive", &nested]);
    assert!(walked.status.success());
    assert!(
        !stderr(&walked).contains("no model file"),
        "{}",
        stderr(&walked)
    );
    assert!(stdout(&walked).contains("cube.bmf"), "{}", stdout(&walked));
}

#[test]
fn help_names_the_formats_and_wrote_names_every_file() {
    let help = stdout(&models(&[&"--help"]));
    for ext in [".smf", ".skm", ".elem", ".mdl", ".bmf"] {
        assert!(help.contains(ext), "{help}");
    }
    let help = stdout(&models(&[&"convert", &"--help"]));
    assert!(help.contains("\n  models convert IN OUT"), "{help}");
    assert!(
        help.contains("\n  models convert [--to glb|gltf|smf|bmf|mdl|elem|skm] --out-dir"),
        "{help}"
    );
    // The way back, on a line of its own.
    assert!(
        help.contains("\n  models convert IN.glb|IN.gltf|IN.<model> OUT.<model> [--base FILE]"),
        "{help}"
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.gltf");
    let o = models(&[&"convert", &fixture("bmf", "static_cube.bmf"), &out]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("x.gltf (") && stderr(&o).contains("x.bin ("),
        "{}",
        stderr(&o)
    );
}
