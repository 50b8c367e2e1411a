//! The inputs of a batch (`convert --out-dir`, `info`): files as given, folders walked, models
//! inside packs. Moved out of `convert.rs` unchanged so that `info` gathers files exactly as
//! `convert` does.

use crate::said;
use models::Format;
use std::path::{Path, PathBuf};

/// One input of a batch: the file, and where it lands under the output folder (its path
/// relative to the folder argument it was found in, or its name for a file argument).
pub(crate) struct Input {
    pub(crate) path: PathBuf,
    pub(crate) rel: PathBuf,
}

/// What gathering the inputs of a batch found besides them.
#[derive(Default)]
pub(crate) struct Gathered {
    pub(crate) inputs: Vec<Input>,
    /// Arguments or entries that could not be used (each reported as an error).
    pub(crate) failed: usize,
    /// Folder entries passed over (each reported with a note): not regular files, links to
    /// folders.
    pub(crate) skipped: usize,
    /// Packs opened, named or found in folders (which may print warnings of their own).
    pub(crate) packs: usize,
    /// Folders in which nothing was found (each said in a note).
    empty_folders: usize,
    /// Sub-folders a walk without `--recursive` did not enter (named in the empty note).
    folders_not_walked: usize,
    /// The size of the largest file input (not counting models inside packs).
    pub(crate) largest: u64,
}

impl Gathered {
    /// Whether gathering printed nothing: no error, no note, no pack opened.
    pub(crate) fn said_nothing(&self) -> bool {
        self.failed == 0 && self.skipped == 0 && self.packs == 0 && self.empty_folders == 0
    }

    /// The counts a folder walk's notes compare before and after it.
    fn tally(&self) -> Tally {
        Tally {
            inputs: self.inputs.len(),
            said: self.failed + self.skipped + self.packs,
            folders_not_walked: self.folders_not_walked,
        }
    }

    /// Adds a file input of `len` bytes.
    fn push(&mut self, input: Input, len: u64) {
        self.largest = self.largest.max(len);
        self.inputs.push(input);
    }
}

/// [`Gathered`]'s counts at one moment.
#[derive(Clone, Copy)]
struct Tally {
    inputs: usize,
    /// Errors and skip notes printed, and packs opened (which say what they hold).
    said: usize,
    folders_not_walked: usize,
}

impl Tally {
    /// No input found and nothing printed since `before`.
    fn found_nothing_since(self, before: Tally) -> bool {
        self.inputs == before.inputs && self.said == before.said
    }
}

/// The inputs named on the command line: files as they are, folders walked. Several folder
/// arguments keep their place relative to the deepest folder that holds them all (`a b` →
/// `DIR/a/…`, `DIR/b/…`), so that their files can never clash; a single folder's files go
/// straight into DIR. A folder's `.glb`/`.gltf` files are inputs only `with_gltf` (for a model
/// output): a folder converted to glTF twice must not take the first run's outputs in.
pub(crate) fn gather(
    paths: &[PathBuf],
    recursive: bool,
    password: &crate::pack::PasswordArg,
    with_gltf: bool,
) -> Gathered {
    let mut gathered = Gathered::default();
    let mut folders: Vec<(&PathBuf, PathBuf)> = Vec::new(); // (argument, canonical)
    for path in paths {
        match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => match path.canonicalize() {
                Ok(canonical) => folders.push((path, canonical)),
                Err(e) => {
                    eprintln!("error: {}: {e}", said::shown(path));
                    gathered.failed += 1;
                }
            },
            Ok(m) if m.is_file() && crate::pack::is_pack(path) => {
                gather_pack(path, password, Path::new(""), &mut gathered);
            }
            Ok(m) => match models::input::not_regular_kind(&m) {
                None => {
                    let name = path.file_name().map(PathBuf::from).unwrap_or_default();
                    let input = Input {
                        path: path.clone(),
                        rel: name,
                    };
                    gathered.push(input, m.len());
                }
                Some(kind) => {
                    crate::report(Err(models::Error::NotRegularFile(kind).at(path)));
                    gathered.failed += 1;
                }
            },
            // Not a file: perhaps a model inside a pack (`PACK::NAME`).
            Err(e) => match crate::pack::batch_input(path) {
                Some((path, rel)) => gathered.inputs.push(Input { path, rel }),
                None => {
                    let folder = path.as_os_str().to_string_lossy().ends_with(['/', '\\']);
                    eprintln!("error: {}", said::io_text(path, &e, folder));
                    gathered.failed += 1;
                }
            },
        }
    }
    let root = common_ancestor(folders.iter().map(|(_, c)| c.as_path()));
    for (folder, canonical) in &folders {
        let prefix = match &root {
            Some(root) if folders.len() > 1 => canonical.strip_prefix(root).unwrap_or(canonical),
            _ => Path::new(""),
        };
        let walk = Walk {
            top: folder,
            prefix,
            recursive,
            with_gltf,
            password,
        };
        let before = gathered.tally();
        walk_folder(&walk, folder, &mut gathered);
        say_what_a_walk_left(&walk, before, &mut gathered);
    }
    gathered
}

/// The models inside the pack at `path`, each landing under `folder` (the pack's own place
/// for a pack found in a folder, nothing for a pack argument) at its path in the pack.
fn gather_pack(
    path: &Path,
    password: &crate::pack::PasswordArg,
    folder: &Path,
    found: &mut Gathered,
) {
    found.packs += 1;
    match crate::pack::models_inside(path, password) {
        Ok(inside) => {
            found.failed += inside.refused;
            found
                .inputs
                .extend(inside.models.into_iter().map(|(path, rel)| Input {
                    path,
                    rel: folder.join(rel),
                }));
        }
        Err(e) => {
            eprintln!("{}", said::error_line(&e));
            found.failed += 1;
        }
    }
}

/// The note after walking one folder argument, so that nothing is passed over in silence:
/// when the walk found, skipped, refused and opened nothing, that it held no model file.
/// `before`: the tally before this walk.
fn say_what_a_walk_left(walk: &Walk<'_>, before: Tally, found: &mut Gathered) {
    let top = said::shown(walk.top);
    if found.tally().found_nothing_since(before) {
        let hint = if found.folders_not_walked > before.folders_not_walked {
            " (--recursive walks its sub-folders)"
        } else {
            ""
        };
        eprintln!("note: {top}: no model file found{hint}");
        found.empty_folders += 1;
    }
}

/// The deepest folder that contains every path given (all absolute).
fn common_ancestor<'a>(mut paths: impl Iterator<Item = &'a Path>) -> Option<PathBuf> {
    let mut common = paths.next()?.to_path_buf();
    for path in paths {
        while !path.starts_with(&common) {
            if !common.pop() {
                return None;
            }
        }
    }
    Some(common)
}

/// How a folder argument is walked.
struct Walk<'a> {
    /// The folder argument: inputs are named relative to it.
    top: &'a Path,
    /// Put before each relative name (several folder arguments keep their places).
    prefix: &'a Path,
    /// Walk the sub-folders too.
    recursive: bool,
    /// Take `.glb`/`.gltf` files too.
    with_gltf: bool,
    /// The passphrase of the packs found.
    password: &'a crate::pack::PasswordArg,
}

/// The entries of `dir` with their types (not following links), sorted by path, so that
/// walks are reproducible. Shared by the folder walks of batches and of `pack create`.
pub(crate) fn sorted_entries(
    dir: &Path,
) -> std::io::Result<Vec<(PathBuf, Option<std::fs::FileType>)>> {
    let mut entries: Vec<(PathBuf, Option<std::fs::FileType>)> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .map(|e| (e.path(), e.file_type().ok()))
        .collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(entries)
}

/// The model files in `dir` (by extension; glTF files too with `walk.with_gltf`), with their
/// path relative to `walk.top` under `walk.prefix`; sub-folders too when `walk.recursive`.
/// Sorted, so batches are reproducible.
///
/// Links to folders are never followed (so no link can make the walk loop or visit a folder
/// twice): each is skipped with a note. Links to files are followed. Entries with a model
/// extension that are not regular files (FIFOs, devices, sockets) are skipped with a note,
/// never opened.
fn walk_folder(walk: &Walk<'_>, dir: &Path, found: &mut Gathered) {
    let entries = match sorted_entries(dir) {
        Ok(entries) => entries,
        Err(e) => {
            eprintln!("error: {}", said::io_text(dir, &e, true));
            found.failed += 1;
            return;
        }
    };
    for (path, file_type) in entries {
        let is_link = file_type.is_some_and(|t| t.is_symlink());
        if file_type.is_some_and(|t| t.is_dir()) {
            if walk.recursive {
                walk_folder(walk, &path, found);
            } else {
                found.folders_not_walked += 1;
            }
            continue;
        }
        let target = std::fs::metadata(&path);
        if is_link && target.as_ref().is_ok_and(std::fs::Metadata::is_dir) {
            if walk.recursive {
                eprintln!(
                    "note: {}: a link to a folder; skipped (links to folders are not followed)",
                    said::shown(&path)
                );
                found.skipped += 1;
            }
            continue;
        }
        let is_gltf = walk.with_gltf && models::gltf::Container::from_path(&path).is_some();
        if Format::from_path(&path).is_none() && !is_gltf {
            // A Selene pack: its models, under a folder of the pack's name (`Data.Pack/…`, so
            // that they never mix with a sibling folder `Data`). Other `.pack` files (git's)
            // are passed over like any file that is not a model.
            let pack_name = path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("pack"));
            if pack_name && crate::pack::is_pack(&path) {
                let rel = path.strip_prefix(walk.top).unwrap_or(&path);
                gather_pack(&path, walk.password, &walk.prefix.join(rel), found);
            }
            continue;
        }
        match target.map(|m| (models::input::not_regular_kind(&m), m.len())) {
            Ok((None, len)) => {
                let rel = path.strip_prefix(walk.top).unwrap_or(&path);
                let input = Input {
                    rel: walk.prefix.join(rel),
                    path,
                };
                found.push(input, len);
            }
            Ok((Some(kind), _)) => {
                eprintln!(
                    "note: {}: {kind}, not a regular file; skipped",
                    said::shown(&path)
                );
                found.skipped += 1;
            }
            Err(e) => {
                eprintln!("error: {}: {e}", said::shown(&path));
                found.failed += 1;
            }
        }
    }
}
