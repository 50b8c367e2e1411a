//! `models pack list|extract|create` and models read straight from packs by `detect`, `info`
//! and `convert`, end to end. Packs holding models are built here by our own writer from the
//! generated SMF fixtures and the shared SMF samples (the real packs hold no model).

mod common;
use common::*;

use models::pack::{Entry, Key, Pack};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const PASS: &str = "電車でGO!パスワード";

/// Every SMF fixture, and the shared SMF samples when present: (inner name, bytes).
fn smf_models() -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = test_support::fixtures("smf", "smf")
        .iter()
        .map(|p| {
            let name = format!("Model\\fixtures\\{}", test_support::file_name(p));
            (name, test_support::read(p))
        })
        .collect();
    if let Some(samples) = test_support::samples("smf", "smf") {
        for p in samples {
            // Sample names are long; the pack's name field holds 63 bytes.
            let stem = test_support::file_name(&p).trim_end_matches(".smf");
            let short: String = stem
                .chars()
                .rev()
                .take(40)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            v.push((
                format!("Model\\samples\\{short}.smf"),
                test_support::read(&p),
            ));
        }
    }
    v
}

/// A pack of the SMF models plus a text file and a PNG, written by our writer.
fn model_pack(dir: &Path, key: Key) -> (PathBuf, Vec<(String, Vec<u8>)>) {
    let smfs = smf_models();
    let mut pack = Pack::new(key);
    for (name, bytes) in &smfs {
        pack.push(Entry::new(name, bytes.as_slice(), true).unwrap());
    }
    pack.push(Entry::new("Script\\readme.txt", b"not a model".as_slice(), true).unwrap());
    pack.push(Entry::new("UI\\logo.png", b"\x89PNG\r\n\x1a\n".as_slice(), true).unwrap());
    let path = dir.join("Models.Pack");
    std::fs::write(&path, pack.to_bytes().unwrap()).unwrap();
    (path, smfs)
}

/// (meshes, vertices, accessors, nodes, animations) of a .glb.
fn glb_counts(path: &Path) -> (usize, usize, usize, usize, usize) {
    let g = gltf::Gltf::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let d = &g.document;
    let vertices = d
        .meshes()
        .flat_map(|m| m.primitives().collect::<Vec<_>>())
        .filter_map(|p| p.get(&gltf::Semantic::Positions).map(|a| a.count()))
        .sum();
    (
        d.meshes().count(),
        vertices,
        d.accessors().count(),
        d.nodes().count(),
        d.animations().count(),
    )
}

#[test]
fn list_prints_name_size_encrypted_as_text_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let (pack, smfs) = model_pack(dir.path(), Key::new(Some(PASS)).unwrap());
    let out = models(&[&"pack", &"list", &pack, &"--json", &"--password", &PASS]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        !stderr(&out).contains("wrong passphrase"),
        "{}",
        stderr(&out)
    );
    let lines: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), smfs.len() + 2);
    for (name, bytes) in &smfs {
        let line = lines.iter().find(|l| l["name"] == name.as_str()).unwrap();
        assert_eq!(line["size"], bytes.len());
        assert_eq!(line["encrypted"], true);
        assert_eq!(line.as_object().unwrap().len(), 3);
    }
    let text = models(&[&"pack", &"list", &pack, &"--password", &PASS]);
    assert!(
        stdout(&text).contains("encrypted  Script\\readme.txt"),
        "{}",
        stdout(&text)
    );

    // Without the passphrase: the listing still works, and the doubt is said once.
    let wrong = models(&[&"pack", &"list", &pack]);
    assert_eq!(wrong.status.code(), Some(0));
    let err = stderr(&wrong);
    assert_eq!(err.matches("wrong passphrase?").count(), 1, "{err}");
    assert!(
        err.contains(&format!("{} of {}", smfs.len() + 1, smfs.len() + 1)),
        "{err}"
    );
}

#[test]
fn real_packs_extract_and_create_back_byte_for_byte() {
    let Some(packs) = test_support::samples("pack", "Pack") else {
        return;
    };
    for original in packs {
        let dir = tempfile::tempdir().unwrap();
        let x = dir.path().join("x");
        let out = models(&[
            &"pack",
            &"extract",
            &original,
            &x,
            &"--password",
            &"PackPass",
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(
            !stderr(&out).contains("wrong passphrase"),
            "{}",
            stderr(&out)
        );
        let again = models(&[
            &"pack",
            &"extract",
            &original,
            &x,
            &"--password",
            &"PackPass",
        ]);
        assert_eq!(
            again.status.code(),
            Some(1),
            "no clobbering without --force"
        );
        assert!(stderr(&again).contains("already exists"));
        let forced = models(&[
            &"pack",
            &"extract",
            &original,
            &x,
            &"--password",
            &"PackPass",
            &"--force",
        ]);
        assert_eq!(forced.status.code(), Some(0), "{}", stderr(&forced));

        let rebuilt = dir.path().join("re.Pack");
        let out = models(&[&"pack", &"create", &rebuilt, &x, &"--password", &"PackPass"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(std::fs::read(&rebuilt).unwrap() == std::fs::read(&original).unwrap());
        let out = models(&[&"pack", &"create", &rebuilt, &x, &"--password", &"PackPass"]);
        assert_eq!(out.status.code(), Some(1), "no clobbering without --force");
        no_temporary_files(dir.path());

        // The default passphrase decrypts garbage: said once, not per entry.
        let y = dir.path().join("y");
        let wrong = models(&[&"pack", &"extract", &original, &y]);
        let err = stderr(&wrong);
        assert!(err.matches("wrong passphrase?").count() <= 1, "{err}");
    }
}

#[test]
fn extract_refuses_names_that_leave_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    let mut pack = Pack::new(Key::default());
    for name in [
        "..\\evil.txt",
        "\\abs.txt",
        "C:\\drive.txt",
        "a\\..\\..\\up.txt",
        "a\\\\b.txt",
        "ok\\good.txt",
    ] {
        pack.push(Entry::new(name, name.as_bytes(), true).unwrap());
    }
    let path = dir.path().join("evil.Pack");
    std::fs::write(&path, pack.to_bytes().unwrap()).unwrap();
    let x = dir.path().join("sub").join("x");
    let out = models(&[&"pack", &"extract", &path, &x]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert_eq!(err.matches("refused").count(), 5, "{err}");
    assert!(err.contains("extracted 1 of 6"), "{err}");
    assert_eq!(
        walk(dir.path().join("sub").as_path()),
        [x.join("ok").join("good.txt")]
    );
    assert_eq!(
        std::fs::read(x.join("ok/good.txt")).unwrap(),
        b"ok\\good.txt"
    );
}

#[test]
fn create_refuses_names_cp932_lacks_and_no_encrypt_stores_plain() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("Model")).unwrap();
    std::fs::write(src.join("Model").join("電車.txt"), b"kana ok").unwrap();
    std::fs::write(src.join("한.txt"), b"hangul").unwrap();
    let out_pack = dir.path().join("o.Pack");
    let out = models(&[&"pack", &"create", &out_pack, &src]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("'한'") && err.contains("CP932") && err.contains("nothing written"),
        "{err}"
    );
    assert!(!out_pack.exists());
    let missing = models(&[&"pack", &"create", &out_pack, &dir.path().join("nope")]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        stderr(&missing).contains("nope: folder does not exist"),
        "{}",
        stderr(&missing)
    );

    std::fs::remove_file(src.join("한.txt")).unwrap();
    // Two names the engine cannot tell apart.
    std::fs::create_dir_all(src.join("model")).unwrap();
    std::fs::write(src.join("model").join("電車.TXT"), b"upper").unwrap();
    let out = models(&[&"pack", &"create", &out_pack, &src]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("same NameCrc") && !err.contains("at byte"),
        "{err}"
    );
    assert!(!out_pack.exists());
    std::fs::remove_dir_all(src.join("model")).unwrap();
    let out = models(&[&"pack", &"create", &out_pack, &src, &"--no-encrypt"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let bytes = std::fs::read(&out_pack).unwrap();
    assert!(bytes.windows(7).any(|w| w == b"kana ok"), "stored plain");
    let list = models(&[&"pack", &"list", &out_pack, &"--json"]);
    let v: serde_json::Value = serde_json::from_str(stdout(&list).trim()).unwrap();
    assert_eq!(v["name"], "Model\\電車.txt");
    assert_eq!(v["encrypted"], false);

    // A link back to the folder (a loop) and a FIFO: skipped with a note, never followed or
    // opened; the pack is the same.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&src, src.join("loop")).unwrap();
        let fifo = src.join("pipe.bin");
        let made = Command::new("mkfifo").arg(&fifo).status();
        let again = dir.path().join("again.Pack");
        let out = models(&[&"pack", &"create", &again, &src, &"--no-encrypt"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains("a link to a folder; skipped"), "{err}");
        if made.is_ok_and(|s| s.success()) {
            assert!(err.contains("a FIFO, not a regular file; skipped"), "{err}");
        }
        assert!(std::fs::read(&again).unwrap() == bytes);
    }
}

/// A file name that is not UTF-8 (CP932 bytes, as an archiver that does not convert names
/// leaves a Japanese name on Linux) is stored as those bytes, with a note naming the entry;
/// bytes that are not CP932 either are refused. `extract` writes the name back as UTF-8.
#[cfg(unix)]
#[test]
fn create_takes_names_that_are_not_utf8_as_cp932() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    let folder = src.join(OsStr::from_bytes(b"\x83\x82\x83\x66\x83\x8b")); // モデル
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join(OsStr::from_bytes(b"\x93\x64\x8e\xd4.txt")),
        b"cp932",
    )
    .unwrap(); // 電車
    std::fs::write(folder.join("ascii.txt"), b"ascii").unwrap();
    let out_pack = dir.path().join("o.Pack");
    let out = models(&[&"pack", &"create", &out_pack, &src]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("not UTF-8; its bytes are taken as CP932: `モデル\\電車.txt`")
            && err.contains("\\x93d\\x8e\\xd4.txt"),
        "{err}"
    );
    let pack = std::fs::read(&out_pack).unwrap();
    let pack = Pack::from_bytes(&pack).unwrap();
    let mut names: Vec<String> = pack.entries.iter().map(|e| e.name().into_owned()).collect();
    names.sort();
    assert_eq!(names, ["モデル\\ascii.txt", "モデル\\電車.txt"]);
    let extracted = dir.path().join("x");
    let out = models(&[&"pack", &"extract", &out_pack, &extracted]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read(extracted.join("モデル").join("電車.txt")).unwrap(),
        b"cp932"
    );
    // Neither UTF-8 nor CP932: refused, nothing written.
    std::fs::write(folder.join(OsStr::from_bytes(b"\xff.txt")), b"bad").unwrap();
    let again = dir.path().join("again.Pack");
    let out = models(&[&"pack", &"create", &again, &src]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("not valid CP932"), "{}", stderr(&out));
    assert!(!again.exists());
}

/// `T.Pack` in `dir`, and the model it holds: `collision_box.smf` (which names `block.png`) as
/// `<folder>\\box.smf` for each of `folders`, and the 1×1 PNG as `Model\\BLOCK.png` and as
/// `block.png` at the root.
fn texture_pack(dir: &Path, folders: &[&str]) -> (PathBuf, Vec<u8>) {
    let smf = test_support::read(&fixture("smf", "collision_box.smf"));
    let png = test_support::PNG_1X1;
    let mut pack = Pack::new(Key::new(None).unwrap());
    for folder in folders {
        let name = format!("{folder}\\box.smf");
        pack.push(Entry::new(&name, smf.as_slice(), true).unwrap());
    }
    pack.push(Entry::new("Model\\BLOCK.png", png, true).unwrap());
    pack.push(Entry::new("block.png", png, true).unwrap());
    let path = dir.join("T.Pack");
    std::fs::write(&path, pack.to_bytes().unwrap()).unwrap();
    (path, smf)
}

/// The textures a model in a pack names are found in the pack: beside the model's entry, or
/// else from the pack's root. `convert` embeds them (or writes them beside a `.gltf`), `info`
/// and a dry run say they are found, a batch does the same; a texture the pack lacks is still
/// looked up beside the pack file.
#[test]
fn textures_in_the_pack_are_found() {
    let dir = tempfile::tempdir().unwrap();
    let (path, smf) = texture_pack(dir.path(), &["Model", "Root", "Bare"]);
    let png = test_support::PNG_1X1;
    let model = |folder: &str| format!("{}::{folder}\\box.smf", path.display());
    for folder in ["Model", "Root"] {
        let out = dir.path().join(format!("{folder}.glb"));
        let run = models(&[&"convert", &model(folder), &out]);
        assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
        assert!(!stderr(&run).contains("not found"), "{}", stderr(&run));
        let glb = ::gltf::Gltf::from_slice(&std::fs::read(&out).unwrap()).unwrap();
        assert_eq!(glb.images().count(), 1, "{folder}: embedded");
        let info = models(&[&"info", &model(folder)]);
        assert!(
            stdout(&info).contains("block.png (found)"),
            "{}",
            stdout(&info)
        );
    }
    let dry = models(&[
        &"convert",
        &"--dry-run",
        &model("Model"),
        &dir.path().join("d.glb"),
    ]);
    assert!(
        stdout(&dry).contains("Model\\BLOCK.png"),
        "{}",
        stdout(&dry)
    );
    let gltf = dir.path().join("g.gltf");
    let run = models(&[&"convert", &model("Model"), &gltf]);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert_eq!(
        std::fs::read(dir.path().join("g_textures").join("BLOCK.png")).unwrap(),
        png
    );
    let batch = dir.path().join("batch");
    let run = models(&[&"convert", &"--out-dir", &batch, &path]);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    for folder in ["Model", "Root"] {
        let glb = std::fs::read(batch.join(folder).join("box.glb")).unwrap();
        assert_eq!(::gltf::Gltf::from_slice(&glb).unwrap().images().count(), 1);
    }
    // `Bare\box.smf` finds `block.png` at the root too; with the root's entry gone, and a
    // file beside the pack, the file is used.
    let mut pack = Pack::new(Key::new(None).unwrap());
    pack.push(Entry::new("Bare\\box.smf", smf.as_slice(), true).unwrap());
    std::fs::write(&path, pack.to_bytes().unwrap()).unwrap();
    let missing = models(&[&"info", &model("Bare")]);
    assert!(
        stdout(&missing).contains("block.png (MISSING)"),
        "{}",
        stdout(&missing)
    );
    std::fs::write(dir.path().join("block.png"), png).unwrap();
    let beside = models(&[&"info", &model("Bare")]);
    assert!(
        stdout(&beside).contains("block.png (found)"),
        "{}",
        stdout(&beside)
    );
}

/// As the engine reads files (Selene's `CFileManager::Load`), a loose file in the pack's root
/// folder (`T\` beside `T.Pack`, any case) comes before the pack's entry at the same place:
/// beside the model's entry, then from the root. A modder's edited texture is the one used.
#[test]
fn a_loose_file_in_the_packs_folder_comes_before_its_entry() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = texture_pack(dir.path(), &["Model", "Root"]);
    let png = test_support::PNG_1X1;
    let model = |folder: &str| format!("{}::{folder}\\box.smf", path.display());
    // Edited copies, told apart by what follows the image's end.
    let edited = |mark: &[u8]| [png, mark].concat();
    let loose = dir.path().join("t");
    std::fs::create_dir_all(loose.join("MODEL")).unwrap();
    std::fs::write(loose.join("MODEL").join("block.png"), edited(b"beside")).unwrap();
    std::fs::write(loose.join("block.png"), edited(b"root")).unwrap();
    let written = |folder: &str| {
        let gltf = dir.path().join(format!("{folder}.gltf"));
        let run = models(&[&"convert", &"--force", &model(folder), &gltf]);
        assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
        let textures = dir.path().join(format!("{folder}_textures"));
        let name = std::fs::read_dir(&textures)
            .unwrap()
            .next()
            .unwrap()
            .unwrap();
        std::fs::read(name.path()).unwrap()
    };
    // Beside the model: the loose file before the entry; and before the root's loose file.
    assert_eq!(written("Model"), edited(b"beside"));
    // From the root: the loose root file before the root entry.
    assert_eq!(written("Root"), edited(b"root"));
    let dry = models(&[
        &"convert",
        &"--dry-run",
        &model("Root"),
        &dir.path().join("d.glb"),
    ]);
    assert!(
        stdout(&dry).contains(&format!("t{}block.png", std::path::MAIN_SEPARATOR)),
        "{}",
        stdout(&dry)
    );
    // Without the loose file beside the model, the entry beside it comes before the root's
    // loose file (the engine tries each place in turn, the folder before the pack).
    std::fs::remove_file(loose.join("MODEL").join("block.png")).unwrap();
    assert_eq!(written("Model"), png);
}

/// A pack whose own name is not UTF-8 (CP932 bytes on Linux) works as any other: named as
/// `PACK::NAME`, converted whole, or found in a folder.
#[cfg(unix)]
#[test]
fn a_pack_whose_name_is_not_utf8_works() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("game");
    std::fs::create_dir(&folder).unwrap();
    let pack = folder.join(OsStr::from_bytes(b"\x93\x64\x8e\xd4.Pack")); // 電車.Pack
    std::fs::copy(fixture("pack", "models.Pack"), &pack).unwrap();
    let mut inner = pack.clone().into_os_string();
    inner.push("::Model/collision_box.smf");
    let det = models(&[&"detect", &inner]);
    assert_eq!(det.status.code(), Some(0), "{}", stderr(&det));
    assert!(
        stdout(&det).ends_with("collision_box.smf: smf\n"),
        "{}",
        stdout(&det)
    );
    let out = dir.path().join("out");
    for input in [&pack, &folder] {
        let run = models(&[&"convert", &"-q", &"--out-dir", &out, input, &"--force"]);
        assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
        assert!(
            stderr(&run).contains("converted 2, failed 0"),
            "{}",
            stderr(&run)
        );
    }
    let from_walk = out.join(OsStr::from_bytes(b"\x93\x64\x8e\xd4.Pack"));
    assert!(from_walk.join("Model").join("collision_box.glb").is_file());
}

/// A batch of a pack says what it passes over: a model entry whose name would leave the
/// output folder is an error that fails the batch (the others are converted), and a pack with
/// no model gets a note.
#[test]
fn a_batch_of_a_pack_says_what_it_passes_over() {
    let dir = tempfile::tempdir().unwrap();
    let smf = test_support::read(&fixture("smf", "collision_box.smf"));
    let mut pack = Pack::new(Key::new(None).unwrap());
    pack.push(Entry::new("..\\evil.smf", smf.as_slice(), true).unwrap());
    pack.push(Entry::new("Model\\ok.smf", smf.as_slice(), true).unwrap());
    let path = dir.path().join("T.Pack");
    std::fs::write(&path, pack.to_bytes().unwrap()).unwrap();
    let out = dir.path().join("out");
    let run = models(&[&"convert", &"-q", &"--out-dir", &out, &path]);
    assert_eq!(run.status.code(), Some(1), "{}", stderr(&run));
    let err = stderr(&run);
    assert!(err.contains("refused as an output path"), "{err}");
    assert!(err.contains("converted 1, failed 1"), "{err}");
    assert!(out.join("Model").join("ok.glb").is_file());

    let mut empty = Pack::new(Key::new(None).unwrap());
    empty.push(Entry::new("readme.txt", b"text".as_slice(), true).unwrap());
    std::fs::write(&path, empty.to_bytes().unwrap()).unwrap();
    for args in [
        vec![OsStr::new("info"), dir.path().as_os_str()],
        vec![
            OsStr::new("convert"),
            OsStr::new("--out-dir"),
            out.as_os_str(),
            path.as_os_str(),
        ],
    ] {
        let run = run_with(&args);
        assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
        assert!(
            stderr(&run).contains("T.Pack: no model among its 1 entries"),
            "{args:?}: {}",
            stderr(&run)
        );
    }
}

/// `pack replace` writes a copy of a pack with some entries' data replaced: every other
/// entry byte for byte (a plain one stays plain), each replaced one under its name and
/// encryption. Refused with nothing written: a wrong passphrase (even when every checkable
/// entry is replaced), a file not of the entry's kind, an entry not in the pack, the pack
/// itself as the output.
#[test]
fn replace_patches_entries_and_keeps_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = test_support::fixtures("smf", "smf");
    let (old, new) = (
        test_support::read(&fixtures[0]),
        test_support::read(&fixtures[1]),
    );
    let key = Key::new(Some(PASS)).unwrap();
    let mut pack = Pack::new(key.clone());
    pack.push(Entry::new("Model\\a.smf", old.as_slice(), true).unwrap());
    pack.push(Entry::new("readme.txt", b"plain".as_slice(), false).unwrap());
    pack.push(Entry::new("Script\\x.bin", b"\x01\x02".as_slice(), true).unwrap());
    let path = dir.path().join("P.Pack");
    std::fs::write(&path, pack.to_bytes().unwrap()).unwrap();
    let file = dir.path().join("new.smf");
    std::fs::write(&file, &new).unwrap();
    let mut arg = std::ffi::OsString::from("model/A.SMF=");
    arg.push(&file);
    let out = dir.path().join("N.Pack");
    let run = models(&[&"pack", &"replace", &path, &out, &arg, &"--password", &PASS]);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert!(stderr(&run).contains("1 replaced"), "{}", stderr(&run));
    let (original, written) = (std::fs::read(&path).unwrap(), std::fs::read(&out).unwrap());
    let (before, after) = (
        Pack::from_bytes_with_key(&original, key.clone()).unwrap(),
        Pack::from_bytes_with_key(&written, key.clone()).unwrap(),
    );
    let a = after.find("Model\\a.smf").unwrap();
    assert_eq!((&*a.data(), a.is_encrypted()), (new.as_slice(), true));
    for name in ["readme.txt", "Script\\x.bin"] {
        let (b, n) = (before.find(name).unwrap(), after.find(name).unwrap());
        assert_eq!(b.data(), n.data(), "{name}");
        assert_eq!(b.encrypted_flag(), n.encrypted_flag(), "{name}");
    }
    // Refusals: nothing is written.
    let refused = dir.path().join("R.Pack");
    let smf_arg = arg.clone();
    let mut bmf_arg = std::ffi::OsString::from("Model\\a.smf=");
    bmf_arg.push(fixture("bmf", "static_cube.bmf"));
    let cases: [(Vec<&dyn AsRef<OsStr>>, &str); 4] = [
        (vec![&smf_arg], "wrong passphrase?"),
        (vec![&bmf_arg, &"--password", &PASS], "not the kind of file"),
        (
            vec![&"nope.smf=x", &"--password", &PASS],
            "no entry named `nope.smf`",
        ),
        (vec![&"Model\\a.smf", &"--password", &PASS], "NAME=FILE"),
    ];
    for (args, says) in cases {
        let mut all: Vec<&dyn AsRef<OsStr>> = vec![&"pack", &"replace", &path, &refused];
        all.extend(args);
        let run = models(&all);
        assert_eq!(run.status.code(), Some(1), "{says}");
        assert!(stderr(&run).contains(says), "{says}: {}", stderr(&run));
        assert!(!refused.exists(), "{says}");
    }
    // Never onto the pack, nor onto a replacement's file.
    for input in [&path, &file] {
        let onto = models(&[
            &"pack",
            &"replace",
            &path,
            input,
            &arg,
            &"--password",
            &PASS,
            &"--force",
        ]);
        assert_eq!(onto.status.code(), Some(1));
        assert!(
            stderr(&onto).contains("is the input file"),
            "{}",
            stderr(&onto)
        );
    }
    assert_eq!(std::fs::read(&path).unwrap(), original);
    assert_eq!(std::fs::read(&file).unwrap(), new);
}

#[test]
fn models_in_a_pack_are_detected_summarised_and_converted() {
    let dir = tempfile::tempdir().unwrap();
    let key = Key::new(Some(PASS)).unwrap();
    let (pack, smfs) = model_pack(dir.path(), key);

    let det = models(&[&"detect", &pack, &"--password", &PASS]);
    assert_eq!(det.status.code(), Some(0), "{}", stderr(&det));
    let text = stdout(&det);
    for (name, _) in &smfs {
        assert!(
            text.contains(&format!("Models.Pack::{name}: smf")),
            "{text}"
        );
    }
    assert!(!text.contains("readme"), "only models are listed");
    // Each `PACK::NAME` that `detect PACK` prints is an input `detect` takes too, as the
    // engine looks names up (any ASCII case, `/` for `\`); other entries are `unknown`.
    let (first, _) = &smfs[0];
    let typed = format!(
        "{}::{}",
        pack.display(),
        first.replace('\\', "/").to_uppercase()
    );
    let readme = format!("{}::Script\\readme.txt", pack.display());
    let det = models(&[&"detect", &typed, &readme, &"--password", &PASS]);
    assert_eq!(det.status.code(), Some(0), "{}", stderr(&det));
    assert_eq!(
        stdout(&det),
        format!("{typed}: smf\n{readme}: unknown\n"),
        "{}",
        stderr(&det)
    );
    let folder = models(&[&"detect", &dir.path()]);
    assert_eq!(folder.status.code(), Some(1));
    assert!(
        stderr(&folder).contains("`models info"),
        "{}",
        stderr(&folder)
    );

    let info = models(&[&"info", &"--json", &pack, &"--password", &PASS]);
    assert_eq!(info.status.code(), Some(0), "{}", stderr(&info));
    let infos: Vec<serde_json::Value> = stdout(&info)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(infos.len(), smfs.len());
    for (name, bytes) in &smfs {
        let line = infos
            .iter()
            .find(|v| v["path"].as_str().unwrap().ends_with(&format!("::{name}")))
            .unwrap_or_else(|| panic!("{name} in info"));
        let direct = models::from_bytes(bytes).unwrap().summary();
        assert_eq!(line["vertices"], direct.vertices, "{name}");
        assert_eq!(line["faces"], direct.faces, "{name}");
    }

    // Every model inside, keeping the inner folders.
    let out_dir = dir.path().join("out");
    let conv = models(&[
        &"convert",
        &"--out-dir",
        &out_dir,
        &pack,
        &"--password",
        &PASS,
    ]);
    assert_eq!(conv.status.code(), Some(0), "{}", stderr(&conv));
    for (name, _) in &smfs {
        let rel: PathBuf = name.split('\\').collect();
        let glb = out_dir.join(rel.with_extension("glb"));
        let g = gltf::Gltf::from_slice(&std::fs::read(&glb).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", glb.display()));
        assert!(g.document.nodes().count() > 0, "{}", glb.display());
    }
    no_temporary_files(&out_dir);

    // One model, named as the engine finds it (case and separator do not matter).
    let (first, bytes) = &smfs[0];
    let lookup = format!(
        "{}::{}",
        pack.display(),
        first.replace('\\', "/").to_lowercase()
    );
    let one = dir.path().join("one.glb");
    let conv = models(&[&"convert", &lookup, &one, &"--password", &PASS]);
    assert_eq!(conv.status.code(), Some(0), "{}", stderr(&conv));
    // The same as converting the model from a file on disk (the figures; the scene name
    // differs).
    let plain = dir.path().join("direct.smf");
    std::fs::write(&plain, bytes).unwrap();
    let direct = dir.path().join("direct.glb");
    let conv = models(&[&"convert", &plain, &direct]);
    assert_eq!(conv.status.code(), Some(0), "{}", stderr(&conv));
    assert_eq!(glb_counts(&one), glb_counts(&direct));

    // One model in batch mode: its stored folders, whatever the case typed; the scene is
    // named after the entry.
    let one_dir = dir.path().join("one");
    let conv = models(&[
        &"convert",
        &"--out-dir",
        &one_dir,
        &lookup,
        &"--password",
        &PASS,
    ]);
    assert_eq!(conv.status.code(), Some(0), "{}", stderr(&conv));
    let rel: PathBuf = first.split('\\').collect();
    let glb = one_dir.join(rel.with_extension("glb"));
    let g = gltf::Gltf::from_slice(&std::fs::read(&glb).unwrap()).unwrap();
    let stem = rel.file_stem().unwrap().to_str().unwrap();
    assert_eq!(g.document.scenes().next().unwrap().name(), Some(stem));

    // Same-format extraction of one model gives its bytes back.
    let copy = dir.path().join("copy.smf");
    let conv = models(&[&"convert", &lookup, &copy, &"--password", &PASS]);
    assert_eq!(conv.status.code(), Some(0), "{}", stderr(&conv));
    assert!(std::fs::read(&copy).unwrap() == *bytes);

    // A pack without a name, an unknown name, a wrong passphrase.
    let bare = models(&[&"convert", &pack, &dir.path().join("x.glb")]);
    assert_eq!(bare.status.code(), Some(1));
    assert!(stderr(&bare).contains("::NAME"), "{}", stderr(&bare));
    let missing = format!("{}::Model\\nope.smf", pack.display());
    let bad = models(&[
        &"convert",
        &missing,
        &dir.path().join("x.glb"),
        &"--password",
        &PASS,
    ]);
    assert!(stderr(&bad).contains("no entry named"), "{}", stderr(&bad));
    let wrong = models(&[&"convert", &lookup, &dir.path().join("w.glb")]);
    assert_eq!(wrong.status.code(), Some(1));
    assert_eq!(
        stderr(&wrong).matches("wrong passphrase?").count(),
        1,
        "{}",
        stderr(&wrong)
    );
}

/// `models` with these arguments, an empty one left out (no flag given).
fn run_with(args: &[&OsStr]) -> Output {
    Command::new(BIN)
        .args(args.iter().filter(|a| !a.is_empty()))
        .output()
        .expect("the models binary runs")
}

/// The stderr of a successful `convert --out-dir` of `pack` (into a fresh folder) with `args`.
fn batch_stderr(pack: &Path, args: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let mut all = vec![
        OsStr::new("convert"),
        OsStr::new("--out-dir"),
        dir.path().as_os_str(),
    ];
    all.push(pack.as_os_str());
    all.extend(args.iter().map(OsStr::new));
    let out = run_with(&all);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    stderr(&out)
}

/// A pack's own warnings are said as every file's are: grouped by kind by default, each with
/// `-v`, none with `-q` (the pack fixtures: three entries with a zero `DataCrc`, and entries
/// under a passphrase read without it).
#[test]
fn pack_warnings_are_grouped_listed_with_v_and_silent_with_q() {
    let zero_crc = fixture("pack", "zero_data_crc.Pack");
    let passphrase = fixture("pack", "passphrase.Pack");
    for command in [&["pack", "list"][..], &["detect"], &["info"]] {
        let said = |flag: &str, pack: &Path| {
            let mut args: Vec<&OsStr> = vec![flag.as_ref()];
            args.extend(command.iter().map(OsStr::new));
            args.push(pack.as_os_str());
            let out = run_with(&args);
            assert_eq!(out.status.code(), Some(0), "{command:?}: {}", stderr(&out));
            stderr(&out)
        };
        let grouped = said("", &zero_crc);
        assert_eq!(
            grouped.matches("DataCrc of").count(),
            1,
            "{command:?}: {grouped}"
        );
        assert!(
            grouped.contains("(and 2 more like it; -v lists each)"),
            "{command:?}: {grouped}"
        );
        let each = said("-v", &zero_crc);
        assert_eq!(each.matches("DataCrc of").count(), 3, "{command:?}: {each}");
        for flag in ["", "-v"] {
            let doubt = said(flag, &passphrase);
            assert_eq!(
                doubt.matches("wrong passphrase?").count(),
                1,
                "{command:?} {flag}: {doubt}"
            );
        }
        for pack in [&zero_crc, &passphrase] {
            let quiet = said("-q", pack);
            assert!(!quiet.contains("warning"), "{command:?} -q: {quiet}");
        }
    }
    // Nothing to report in a pack is said in a note, as for a folder.
    let info = stderr(&run_with(&[OsStr::new("info"), passphrase.as_os_str()]));
    let last = info.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("note: ")
            && last.ends_with("passphrase.Pack: no model among its 3 entries"),
        "{info}"
    );
    // A batch reads the pack once to find its models and again for each: said once.
    let batch = batch_stderr(&zero_crc, &[]);
    assert_eq!(batch.matches("DataCrc of").count(), 1, "{batch}");
    // The engine's fallback for a short passphrase is a warning too: silent with -q.
    let short = |flag: &str| {
        let list = ["pack", "list"].map(OsStr::new);
        let password = ["--password", "short"].map(OsStr::new);
        stderr(&run_with(
            &[
                &[OsStr::new(flag)][..],
                &list,
                &[zero_crc.as_os_str()],
                &password,
            ]
            .concat(),
        ))
    };
    assert!(short("").contains("--password is shorter than 8 bytes"));
    assert!(!short("-q").contains("warning"), "{}", short("-q"));
    // Once a run, though a batch asks for the key for the pack and for each model in it.
    let batch = batch_stderr(&fixture("pack", "models.Pack"), &["--password", "short"]);
    assert_eq!(batch.matches("--password is shorter").count(), 1, "{batch}");
}

/// Names from a pack reach the terminal escaped, as every name from a file does: a control
/// sequence in an entry name cannot clear the screen through `pack list`, `detect`, `info`,
/// `pack extract` or a batch.
#[test]
fn entry_names_with_control_characters_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let smf = test_support::read(&fixture("smf", "collision_box.smf"));
    let mut pack = Pack::new(Key::new(None).unwrap());
    for name in ["Model\\\u{1b}[2Jevil.smf", "..\\\u{1b}[2Jout.smf"] {
        pack.push(Entry::new(name, smf.as_slice(), true).unwrap());
    }
    let path = dir.path().join("evil.Pack");
    std::fs::write(&path, pack.to_bytes().unwrap()).unwrap();
    let (pack, out) = (path.as_os_str(), dir.path().join("out"));
    let out = out.as_os_str();
    for args in [
        vec![OsStr::new("pack"), OsStr::new("list"), pack],
        vec![OsStr::new("detect"), pack],
        vec![OsStr::new("info"), pack],
        vec![OsStr::new("pack"), OsStr::new("extract"), pack, out],
        vec![OsStr::new("convert"), OsStr::new("--out-dir"), out, pack],
    ] {
        let run = run_with(&args);
        let (o, e) = (stdout(&run), stderr(&run));
        assert!(
            !o.contains('\u{1b}') && !e.contains('\u{1b}'),
            "{args:?}: {o:?} {e:?}"
        );
        assert!(
            format!("{o}{e}").contains("\\u{1b}[2J"),
            "{args:?}: the name is shown, escaped: {o:?} {e:?}"
        );
    }
}
