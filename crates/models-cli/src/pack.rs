//! `models pack list|extract|create`, and models read straight from a pack by `info`,
//! `detect` and `convert`.
//!
//! A model inside a pack is named `PACK::INNER`, e.g. `Data.Pack::Model\train.smf`: the path
//! of the pack, two colons, and the entry's name as the engine looks it up (ASCII
//! case-insensitive, `/` or `\` as the folder separator). The split is made at the first
//! `::` whose left side is an existing pack file, so a plain file whose name holds `::`
//! still works.

use crate::said::{self, Said};
use models::gltf::{HeldTexture, HeldTextures};
use models::output::{write_new_file, Overwrite};
use models::pack::{Entry, Key, Pack};
use models::{Format, Parsed};
use serde_json::json;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

/// The separator between a pack's path and an entry name.
pub(crate) const INNER_SEPARATOR: &str = "::";

/// `--password`, shared by every command that reads or writes packs.
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct PasswordArg {
    /// Passphrase of the pack(s). Without it, or when shorter than 8 bytes in CP932, the
    /// engine's default passphrase is used (as the engine does).
    #[arg(long, value_name = "P")]
    pub(crate) password: Option<String>,
}

impl PasswordArg {
    /// The key, with a warning when the engine would replace the passphrase by its default:
    /// once a run, though a batch asks for the key for every pack and every model in it.
    pub(crate) fn key(&self) -> Result<Key, String> {
        static SAID: std::sync::Once = std::sync::Once::new();
        let key = Key::new(self.password.as_deref()).map_err(|e| format!("--password: {e}"))?;
        if self.password.is_some() && key.is_default() && !said::is_quiet() {
            SAID.call_once(|| {
                eprintln!(
                    "warning: --password is shorter than 8 bytes in CP932: the engine uses its default passphrase instead, and so does models"
                );
            });
        }
        Ok(key)
    }
}

#[derive(Debug, clap::Subcommand)]
pub(crate) enum PackCommand {
    /// List the entries of a pack: name, size, encrypted.
    List {
        /// The `.Pack` file.
        pack: PathBuf,
        #[command(flatten)]
        password: PasswordArg,
        /// One JSON object per line (`name`, `size`, `encrypted`) instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Extract every entry into DIR, `\` in names becoming folders. Names that would leave
    /// DIR (`..`, absolute paths, drive letters) are refused.
    Extract {
        /// The `.Pack` file.
        pack: PathBuf,
        /// The folder to extract into (created if missing).
        dir: PathBuf,
        #[command(flatten)]
        password: PasswordArg,
        /// Overwrite existing files.
        #[arg(long)]
        force: bool,
    },
    /// Create a pack from every file under DIR (sub-folders become `\` in names), encrypted
    /// with the passphrase, sorted and laid out as the engine expects.
    Create {
        /// The `.Pack` file to write.
        out: PathBuf,
        /// The folder whose files go into the pack.
        dir: PathBuf,
        #[command(flatten)]
        password: PasswordArg,
        /// Store the entries unencrypted.
        #[arg(long)]
        no_encrypt: bool,
        /// Overwrite OUT if it exists.
        #[arg(long)]
        force: bool,
    },
    /// Write a copy of PACK with the data of some entries replaced by files: every other entry
    /// is kept byte for byte, and each replaced one keeps its name and its encryption.
    Replace {
        /// The `.Pack` file to copy (never written).
        pack: PathBuf,
        /// The `.Pack` file to write.
        out: PathBuf,
        /// An entry, as the engine looks it up (`Model\train.smf`, any ASCII case), and the
        /// file whose bytes become its data.
        #[arg(required = true, value_name = "NAME=FILE")]
        replacements: Vec<std::ffi::OsString>,
        #[command(flatten)]
        password: PasswordArg,
        /// Overwrite OUT if it exists.
        #[arg(long)]
        force: bool,
    },
}

pub(crate) fn run(command: &PackCommand) -> bool {
    let result = match command {
        PackCommand::List {
            pack,
            password,
            json,
        } => list(pack, password, *json),
        PackCommand::Extract {
            pack,
            dir,
            password,
            force,
        } => extract(pack, dir, password, *force),
        PackCommand::Create {
            out,
            dir,
            password,
            no_encrypt,
            force,
        } => create(out, dir, password, *no_encrypt, *force),
        PackCommand::Replace {
            pack,
            out,
            replacements,
            password,
            force,
        } => replace(pack, out, replacements, password, *force),
    };
    match result {
        Ok(ok) => ok,
        Err(e) => {
            eprintln!("{}", said::error_line(&e));
            false
        }
    }
}

/// Is `path` a pack (by its first bytes)? Only regular files are opened.
pub(crate) fn is_pack(path: &Path) -> bool {
    models::input::read_head(path, 8)
        .is_ok_and(|head| models::detect_container(&head) == Some(models::Container::Pack))
}

/// Reads a pack file and parses it with `key`, printing its reader warnings as every file's
/// are (grouped by kind, each with `-v`, none with `-q`, names from the file escaped). The
/// caller keeps the bytes; the pack borrows them.
fn read_pack<'a>(path: &Path, bytes: &'a [u8], key: &Key) -> Result<Pack<'a>, String> {
    let (pack, warnings) = Pack::from_bytes_with_warnings(bytes, key.clone())
        .map_err(|e| format!("{}: {e}", said::shown(path)))?;
    if !warnings.is_empty() && first_warnings_of(path) {
        let said: Vec<Said> = warnings.iter().map(Said::reader).collect();
        said::print(path, &said);
    }
    Ok(pack)
}

/// Whether this run has not yet said `path`'s own warnings (and now counts them as said). A
/// batch reads a pack once to find its models, then again for the models it converts (once
/// for all of them when it converts several, [`shared_pack`]): the pack's table is the same
/// each time, so its warnings are said once.
fn first_warnings_of(path: &Path) -> bool {
    static SAID: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
    let mut said = SAID.lock().unwrap_or_else(PoisonError::into_inner);
    if said.iter().any(|p| p == path) {
        return false;
    }
    said.push(path.to_path_buf());
    true
}

/// A whole file, read only if it is a regular one (no FIFO, device or folder), into a mapping
/// when it is large (`models::input::read_input`): a pack is read whole to get one entry out.
fn read_file(path: &Path) -> Result<models::Bytes, String> {
    models::input::read_input(path).map_err(|e| said::error_text(&e))
}

/// The magic a model or image entry must start with, judged by its extension; `None` for
/// other entries (scripts, data, TGA which has no magic).
fn expected_magic(name: &str) -> Option<fn(&[u8]) -> bool> {
    let ext = name.rsplit_once('.')?.1.to_ascii_lowercase();
    if let Some(format) = Format::from_path(format!("x.{ext}")) {
        return Some(match format {
            Format::Smf => |h: &[u8]| Format::Smf.sniff(h),
            Format::Bmf => |h: &[u8]| Format::Bmf.sniff(h),
            Format::Mdl => |h: &[u8]| Format::Mdl.sniff(h),
            Format::Elem => |h: &[u8]| Format::Elem.sniff(h),
            Format::Skm => |h: &[u8]| Format::Skm.sniff(h),
        });
    }
    match ext.as_str() {
        "png" => Some(|h: &[u8]| h.starts_with(b"\x89PNG")),
        "jpg" | "jpeg" => Some(|h: &[u8]| h.starts_with(b"\xFF\xD8\xFF")),
        "bmp" => Some(|h: &[u8]| h.starts_with(b"BM")),
        "dds" => Some(|h: &[u8]| h.starts_with(b"DDS ")),
        _ => None,
    }
}

/// Says "wrong passphrase?" once when encrypted model or image entries do not start with
/// their format's magic after decryption. Nothing in the format itself can tell.
fn check_passphrase(path: &Path, pack: &Pack<'_>) {
    if let Some(text) = passphrase_doubt(pack) {
        said::print(path, &[Said::cli(&text)]);
    }
}

/// Why the pack's key looks wrong: encrypted model or image entries that do not start with
/// their format's magic after decryption; `None` when none is wrong (or none can be checked).
fn passphrase_doubt(pack: &Pack<'_>) -> Option<String> {
    let mut checked = 0usize;
    let mut bad: Vec<String> = Vec::new();
    for entry in pack.entries.iter().filter(|e| e.is_encrypted()) {
        let name = entry.name();
        if let Some(matches) = expected_magic(&name) {
            checked += 1;
            if !matches(&entry.head(64)) {
                bad.push(name.into_owned());
            }
        }
    }
    bad.first().map(|first| {
        format!(
            "{} of {checked} encrypted model or image entries do not start with their format's magic after decryption (first: `{first}`): wrong passphrase? (--password)",
            bad.len()
        )
    })
}

/// The entries in byte-wise name order (the order of their data in the file).
fn by_name<'p, 'a>(pack: &'p Pack<'a>) -> Vec<&'p Entry<'a>> {
    let mut entries: Vec<&Entry<'a>> = pack.entries.iter().collect();
    entries.sort_by(|a, b| a.name_bytes().cmp(b.name_bytes()));
    entries
}

fn list(path: &Path, password: &PasswordArg, as_json: bool) -> Result<bool, String> {
    let key = password.key()?;
    let bytes = read_file(path)?;
    let pack = read_pack(path, &bytes, &key)?;
    for entry in by_name(&pack) {
        if as_json {
            let line = json!({
                "name": entry.name(),
                "size": entry.size(),
                "encrypted": entry.is_encrypted(),
            });
            outln!("{line}");
        } else {
            let flag = if entry.is_encrypted() {
                "encrypted"
            } else {
                "plain"
            };
            outln!(
                "{:>10}  {flag:<9}  {}",
                entry.size(),
                said::escape(&entry.name())
            );
        }
    }
    check_passphrase(path, &pack);
    Ok(true)
}

/// The relative path an entry name maps to under the extraction folder, or why it is refused.
/// `\` and `/` both separate folders (the engine treats them alike).
pub(crate) fn safe_relative_path(name: &str) -> Result<PathBuf, &'static str> {
    if name.starts_with(['\\', '/']) {
        return Err("it is an absolute path");
    }
    let mut rel = PathBuf::new();
    for part in name.split(['\\', '/']) {
        if part.is_empty() {
            return Err("it has an empty folder name");
        }
        if part == "." || part == ".." {
            return Err("it has a `.` or `..` folder");
        }
        if part.contains(':') {
            return Err("it has a drive letter or a `:`");
        }
        // A single component by construction; checked again against platform rules.
        match Path::new(part).components().next() {
            Some(Component::Normal(_)) if Path::new(part).components().count() == 1 => {}
            _ => return Err("it is not a plain file or folder name here"),
        }
        rel.push(part);
    }
    Ok(rel)
}

fn extract(path: &Path, dir: &Path, password: &PasswordArg, force: bool) -> Result<bool, String> {
    let key = password.key()?;
    let bytes = read_file(path)?;
    let pack = read_pack(path, &bytes, &key)?;
    check_passphrase(path, &pack);
    let overwrite = overwrite(force);
    let (mut written, mut failed) = (0usize, 0usize);
    for entry in by_name(&pack) {
        let name = entry.name();
        let outcome = safe_relative_path(&name)
            .map_err(|why| format!("{}: entry `{name}` refused: {why}", said::shown(path)))
            .and_then(|rel| {
                let out = dir.join(rel);
                if let Some(parent) = out.parent() {
                    std::fs::create_dir_all(parent)
                        .map_err(|e| format!("{}: {e}", said::shown(parent)))?;
                }
                write_new_file(&out, &entry.data(), Some(path), overwrite)
                    .map_err(|e| said::error_text(&e))
            });
        match outcome {
            Ok(()) => written += 1,
            Err(e) => {
                // The entry's name is the file's: escaped, as every name from a file is.
                eprintln!("{}", said::error_line(&e));
                failed += 1;
            }
        }
    }
    eprintln!(
        "extracted {written} of {} entries into {} ({failed} failed)",
        pack.entries.len(),
        said::shown(dir)
    );
    Ok(failed == 0)
}

/// Every regular file under `dir`, sorted, sub-folders included. As in `convert`'s folder
/// walk, links to folders are not followed (no loop, no folder twice) and entries that are not
/// regular files (FIFOs, devices, sockets) are never opened: both are skipped with a note.
fn files_under(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = crate::gather::sorted_entries(dir).map_err(|e| said::io_text(dir, &e, true))?;
    for (path, file_type) in entries {
        if file_type.is_some_and(|t| t.is_dir()) {
            files_under(&path, out)?;
            continue;
        }
        let metadata =
            std::fs::metadata(&path).map_err(|e| format!("{}: {e}", said::shown(&path)))?;
        if metadata.is_dir() {
            eprintln!("note: {}: a link to a folder; skipped", said::shown(&path));
        } else if let Some(kind) = models::input::not_regular_kind(&metadata) {
            eprintln!(
                "note: {}: {kind}, not a regular file; skipped",
                said::shown(&path)
            );
        } else {
            out.push(path);
        }
    }
    Ok(())
}

/// The entry name of `rel`, a file's path under the folder being packed: its parts joined with
/// `\`, each in CP932. On Unix a part that is not UTF-8 is taken as CP932 bytes already (what
/// an archiver that does not convert names leaves on Linux; [`Entry::from_cp932_name`] checks
/// them); the flag says whether one was.
fn entry_name(rel: &Path) -> Result<(Vec<u8>, bool), models::pack::Error> {
    let mut name = Vec::new();
    let mut taken_as_cp932 = false;
    for (i, part) in rel.components().enumerate() {
        if i > 0 {
            name.push(b'\\');
        }
        let part = part.as_os_str();
        match part.to_str() {
            Some(text) => name.extend(models::pack::cp932_name(text)?),
            #[cfg(unix)]
            None => {
                use std::os::unix::ffi::OsStrExt;
                taken_as_cp932 = true;
                name.extend_from_slice(part.as_bytes());
            }
            #[cfg(not(unix))]
            None => name.extend(models::pack::cp932_name(&part.to_string_lossy())?),
        }
    }
    Ok((name, taken_as_cp932))
}

/// `pack replace`: PACK copied to OUT with the named entries' data replaced. Refused, with
/// nothing written, when an entry is not in the pack or named twice, when a model or image
/// entry would get bytes that are not of its format, or when the passphrase does not decrypt
/// the pack (the replaced entries would be encrypted with a key the game does not use).
fn replace(
    path: &Path,
    out: &Path,
    replacements: &[std::ffi::OsString],
    password: &PasswordArg,
    force: bool,
) -> Result<bool, String> {
    let key = password.key()?;
    let bytes = read_file(path)?;
    let mut pack = read_pack(path, &bytes, &key)?;
    // Judged on the entries as they are: replaced ones would hide a wrong key.
    let doubt = passphrase_doubt(&pack);
    let mut replaced: Vec<usize> = Vec::new();
    let out_file = out.canonicalize().ok();
    for replacement in replacements {
        let (name, file) = split_replacement(replacement)?;
        // The replacements are inputs too: never written onto.
        if out_file.is_some() && file.canonicalize().ok() == out_file {
            return Err(said::error_text(&models::Error::OutputIsInput(
                out.to_path_buf(),
            )));
        }
        let entry = find_entry(path, &pack, &name)?;
        // Names are unique in a pack (their CRCs are): the entry's place by its name.
        let Some(at) = pack
            .entries
            .iter()
            .position(|e| e.name_bytes() == entry.name_bytes())
        else {
            return Err(format!("`{}` is not in the pack", said::escape(&name)));
        };
        if replaced.contains(&at) {
            return Err(format!("`{}` is named twice", said::escape(&entry.name())));
        }
        let data = models::input::read_regular_file(&file).map_err(|e| said::error_text(&e))?;
        if let Some(matches) = expected_magic(&entry.name()) {
            if !matches(&data) {
                return Err(format!(
                    "{}: not the kind of file `{}` holds (its first bytes do not match its extension)",
                    said::shown(&file),
                    said::escape(&entry.name())
                ));
            }
        }
        let new = Entry::from_cp932_name(entry.name_bytes().to_vec(), data, entry.is_encrypted())
            .map_err(|e| e.to_string())?;
        replaced.push(at);
        if let Some(slot) = pack.entries.get_mut(at) {
            *slot = new;
        }
    }
    let encrypts = replaced
        .iter()
        .any(|&at| pack.entries.get(at).is_some_and(Entry::is_encrypted));
    if let Some(doubt) = doubt.filter(|_| encrypts) {
        return Err(format!(
            "{}: {doubt}; nothing written: the replaced entries would be encrypted with a key the game does not use",
            said::shown(path)
        ));
    }
    let len = write_pack(&pack, out, Some(path), force)?;
    eprintln!(
        "wrote {} ({} entries, {} replaced, {len} bytes)",
        said::shown(out),
        pack.entries.len(),
        replaced.len(),
    );
    Ok(true)
}

/// `--force` as the output rules take it.
fn overwrite(force: bool) -> Overwrite {
    if force {
        Overwrite::Allowed
    } else {
        Overwrite::Never
    }
}

/// Writes `pack` to `out` by the output rules (never onto `input`, nor over a file without
/// `force`); its size.
fn write_pack(
    pack: &Pack<'_>,
    out: &Path,
    input: Option<&Path>,
    force: bool,
) -> Result<usize, String> {
    let bytes = pack
        .to_bytes()
        .map_err(|e| format!("{}: {e}", said::shown(out)))?;
    write_new_file(out, &bytes, input, overwrite(force)).map_err(|e| said::error_text(&e))?;
    Ok(bytes.len())
}

/// `NAME=FILE` split at its first `=`: the entry name (text) and the file's path (any bytes).
fn split_replacement(arg: &std::ffi::OsStr) -> Result<(String, PathBuf), String> {
    let bytes = arg.as_encoded_bytes();
    let at = bytes
        .iter()
        .position(|&b| b == b'=')
        .filter(|&at| at > 0 && at + 1 < bytes.len())
        .ok_or_else(|| {
            format!(
                "`{}`: give each replacement as NAME=FILE",
                said::shown(Path::new(arg))
            )
        })?;
    let name = std::str::from_utf8(bytes.get(..at).unwrap_or_default()).map_err(|_| {
        format!(
            "`{}`: the entry name is not UTF-8",
            said::shown(Path::new(arg))
        )
    })?;
    let file = pack_path_of(bytes.get(at + 1..).unwrap_or_default()).ok_or_else(|| {
        format!(
            "`{}`: the file's path is not UTF-8",
            said::shown(Path::new(arg))
        )
    })?;
    Ok((name.to_owned(), file))
}

fn create(
    out: &Path,
    dir: &Path,
    password: &PasswordArg,
    no_encrypt: bool,
    force: bool,
) -> Result<bool, String> {
    let key = password.key()?;
    let mut files = Vec::new();
    files_under(dir, &mut files)?;
    let out_canonical = out.canonicalize().ok();
    let mut pack = Pack::new(key);
    let mut refused = 0usize;
    for file in &files {
        if out_canonical.is_some() && file.canonicalize().ok() == out_canonical {
            eprintln!(
                "warning: {}: skipped, it is the pack being written",
                said::shown(file)
            );
            continue;
        }
        let rel = file.strip_prefix(dir).unwrap_or(file);
        // A vector: the entry keeps it.
        let data = models::input::read_regular_file(file).map_err(|e| said::error_text(&e))?;
        let entry = entry_name(rel).and_then(|(name, taken)| {
            Ok((Entry::from_cp932_name(name, data, !no_encrypt)?, taken))
        });
        match entry {
            Ok((entry, taken_as_cp932)) => {
                if taken_as_cp932 && !said::is_quiet() {
                    eprintln!(
                        "note: {}: a name that is not UTF-8; its bytes are taken as CP932: `{}`",
                        said::shown(file),
                        said::escape(&entry.name())
                    );
                }
                pack.push(entry);
            }
            Err(e) => {
                // The name in the message is the file system's: escaped.
                let text = format!("{}: {e}", said::shown(file));
                eprintln!("{}", said::error_line(&text));
                refused += 1;
            }
        }
    }
    if refused > 0 {
        return Err(format!(
            "{refused} file name(s) cannot be stored in a pack; nothing written"
        ));
    }
    let len = write_pack(&pack, out, None, force)?;
    eprintln!(
        "wrote {} ({} entries, {len} bytes)",
        said::shown(out),
        pack.entries.len(),
    );
    Ok(true)
}

/// `PACK::INNER` split into the pack's path and the entry name, when the left side is an
/// existing pack and the whole is not itself an existing file. The pack's path is taken as
/// bytes, so a pack whose name is not UTF-8 (CP932 on Linux) works too; the entry name is
/// text.
pub(crate) fn split_inner(path: &Path) -> Option<(PathBuf, String)> {
    if path.is_file() {
        return None;
    }
    let bytes = path.as_os_str().as_encoded_bytes();
    let separator = INNER_SEPARATOR.as_bytes();
    let mut from = 0;
    while let Some(pos) = bytes
        .get(from..)?
        .windows(separator.len())
        .position(|w| w == separator)
    {
        let at = from + pos;
        let pack = pack_path_of(bytes.get(..at)?)?;
        if is_pack(&pack) {
            let inner = std::str::from_utf8(bytes.get(at + separator.len()..)?).ok()?;
            return Some((pack, inner.to_owned()));
        }
        from = at + separator.len();
    }
    None
}

/// The path whose bytes are `bytes`, the left side of `PACK::INNER`.
#[cfg(unix)]
fn pack_path_of(bytes: &[u8]) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    Some(PathBuf::from(std::ffi::OsStr::from_bytes(bytes)))
}

/// The path whose bytes are `bytes` (UTF-8 only: elsewhere a path's bytes are not its own).
#[cfg(not(unix))]
fn pack_path_of(bytes: &[u8]) -> Option<PathBuf> {
    std::str::from_utf8(bytes).ok().map(PathBuf::from)
}

/// The file on disk behind `path`: the pack for `PACK::INNER`, else `path` itself. Outputs
/// are checked against it (never written onto an input) and textures are looked up beside it.
pub(crate) fn source_file(path: &Path) -> PathBuf {
    split_inner(path).map_or_else(|| path.to_path_buf(), |(pack, _)| pack)
}

/// The model's name without folders and extension, for the glTF scene: the entry's for
/// `PACK::INNER` (`Model\\train.smf` gives `train`), else the file's.
pub(crate) fn model_stem(path: &Path) -> String {
    let name = match split_inner(path) {
        Some((_, inner)) => inner
            .rsplit(['\\', '/'])
            .next()
            .unwrap_or_default()
            .to_owned(),
        None => path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
    };
    match name.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem.to_owned(),
        _ => name,
    }
}

/// A `PACK::INNER` batch input: `(path, output path relative to the output folder)`, the
/// entry's folders kept (as stored in the pack, whatever the case typed) as for a whole pack.
/// `None` when `path` is not of that form or names no entry (the conversion then says why).
pub(crate) fn batch_input(path: &Path) -> Option<(PathBuf, PathBuf)> {
    let (pack_path, inner) = split_inner(path)?;
    // Names need no key: the structure reads the same with any.
    let bytes = read_file(&pack_path).ok()?;
    let pack = Pack::from_bytes(&bytes).ok();
    let name = pack
        .as_ref()
        .and_then(|p| p.find(&inner))
        .map_or(inner, |e| e.name().into_owned());
    let rel = safe_relative_path(&name).ok()?;
    expect_uses(&pack_path, 1);
    Some((path.to_path_buf(), rel))
}

/// The path shown for an entry: `PACK::INNER`.
fn inner_path(pack: &Path, name: &str) -> PathBuf {
    // Built from the pack's own bytes: a name that is not UTF-8 stays exact.
    let mut inner = pack.as_os_str().to_owned();
    inner.push(INNER_SEPARATOR);
    inner.push(name);
    PathBuf::from(inner)
}

/// A model in a pack, or a plain file: opens `path` either way. A pack named without `::`
/// is refused with a hint.
/// Reads the model at `path` (a file, or `PACK::NAME`); returns it with the size of its bytes
/// (the file's, or the entry's once decrypted), from which the conversion budget follows.
pub(crate) fn open_with_warnings(
    path: &Path,
    password: &PasswordArg,
) -> Result<(Parsed, u64), String> {
    open_model(path, password, false).map(|(parsed, len, _)| (parsed, len))
}

/// [`open_with_warnings`], and for a model in a pack the textures it names that the pack
/// holds ([`held_textures`]); none for a plain file.
pub(crate) fn open_with_textures(
    path: &Path,
    password: &PasswordArg,
) -> Result<(Parsed, u64, HeldTextures), String> {
    open_model(path, password, true)
}

fn open_model(
    path: &Path,
    password: &PasswordArg,
    with_textures: bool,
) -> Result<(Parsed, u64, HeldTextures), String> {
    let Some((pack_path, inner)) = split_inner(path) else {
        if is_pack(path) {
            return Err(format!(
                "{}: a pack holds models but is not one: name one as `{}{INNER_SEPARATOR}NAME`, or use --out-dir to convert them all",
                said::shown(path),
                said::shown(path)
            ));
        }
        let parsed = models::open_with_upgrades(path).map_err(|e| said::error_text(&e))?;
        let len = std::fs::metadata(path).map_or(0, |m| m.len());
        return Ok((parsed, len, HeldTextures::default()));
    };
    let key = password.key()?;
    if let Some(pack) = shared_pack(&pack_path, &key)? {
        return open_entry(&pack_path, &pack, &inner, with_textures);
    }
    let bytes = read_file(&pack_path)?;
    let pack = read_pack(&pack_path, &bytes, &key)?;
    open_entry(&pack_path, &pack, &inner, with_textures)
}

/// The model entry `inner` of `pack` (read from `pack_path`), parsed, with its size and, when
/// asked, the textures it names that the pack holds.
fn open_entry(
    pack_path: &Path,
    pack: &Pack<'_>,
    inner: &str,
    with_textures: bool,
) -> Result<(Parsed, u64, HeldTextures), String> {
    let entry = find_entry(pack_path, pack, inner)?;
    let data = entry.data();
    let shown = inner_path(pack_path, &entry.name());
    let Some(format) = models::detect_with_hint(&data, &*entry.name()) else {
        check_passphrase(pack_path, pack);
        return Err(format!(
            "{}: not a model of a known format",
            said::shown(&shown)
        ));
    };
    let parsed =
        models::parse_with_upgrades(format, &data).map_err(|e| said::error_text(&e.at(&shown)))?;
    let textures = if with_textures {
        held_textures(pack_path, pack, &entry.name(), &parsed)
    } else {
        HeldTextures::default()
    };
    Ok((parsed, data.len() as u64, textures))
}

/// The textures the model `parsed` (the entry `model` of `pack`) names that the pack holds,
/// by the name the model writes. A name is looked up beside the model's entry first
/// (`Model\train.smf` naming `train.png`: `Model\train.png`, where a tool that unpacks the
/// pack puts it beside the model, and where dend-mod-gui looks for it), then as written from
/// the pack's root (the game's data root, which the SMF spec says the game resolves it from).
/// At each place a loose file in the pack's root folder comes before the entry, as the engine
/// reads them (Selene's `CFileManager::Load`: the folder `Data\`, then `Data.Pack`): a
/// modder's edited `Data\Model\train.png` is the texture the game shows.
/// An entry larger than `MAX_TEXTURE_BYTES` is held as refused, never decrypted.
fn held_textures(pack_path: &Path, pack: &Pack<'_>, model: &str, parsed: &Parsed) -> HeldTextures {
    let folder = model.rfind(['\\', '/']).map_or("", |at| &model[..at]);
    let names = parsed.document.summary().textures;
    let loose = LooseRoot::of(pack_path);
    HeldTextures::new(names.into_iter().filter_map(|raw| {
        let places = [beside(folder, &raw), Some(raw.clone())];
        let mut found = None;
        for place in places.into_iter().flatten() {
            if let Some(texture) = loose.as_ref().and_then(|l| l.texture(&place)) {
                return Some((raw, texture));
            }
            if let Some(entry) = pack.find(&place) {
                found = Some(entry);
                break;
            }
        }
        let entry = found?;
        let bytes = if entry.size() as u64 > models::gltf::MAX_TEXTURE_BYTES {
            Err(format!(
                "larger than {} bytes",
                models::gltf::MAX_TEXTURE_BYTES
            ))
        } else {
            Ok(entry.data().into_owned())
        };
        let name = said::shown(&inner_path(pack_path, &entry.name()));
        Some((raw, HeldTexture { name, bytes }))
    }))
}

/// The folder the engine reads loose files from before a pack: the pack's name without its
/// extension, beside it (`Data.Pack`: `Data`), matched in any ASCII case as the engine's
/// Windows file system does.
struct LooseRoot {
    /// The pack's own folder, where the lookup starts.
    lookup: models::inspect::TextureLookup,
    /// The root folder's name (`Data`).
    stem: String,
}

impl LooseRoot {
    fn of(pack_path: &Path) -> Option<Self> {
        let stem = pack_path.file_stem()?.to_str()?.to_string();
        Some(Self {
            lookup: models::inspect::TextureLookup::beside(pack_path),
            stem,
        })
    }

    /// The loose file at the pack-relative `place` (`Model\train.png`), read whole, if it
    /// exists; one larger than `MAX_TEXTURE_BYTES` is held as refused, unread.
    fn texture(&self, place: &str) -> Option<HeldTexture> {
        let status = self.lookup.status(&format!("{}\\{place}", self.stem));
        let models::inspect::TextureStatus::Found(path) = status else {
            return None;
        };
        let limit = models::gltf::MAX_TEXTURE_BYTES;
        // Read at most one byte past the limit: a file that grows meanwhile is refused too.
        let read = || -> std::io::Result<Vec<u8>> {
            let mut bytes = Vec::new();
            std::fs::File::open(&path)?
                .take(limit + 1)
                .read_to_end(&mut bytes)?;
            Ok(bytes)
        };
        let too_large = format!("larger than {limit} bytes");
        let bytes = match std::fs::metadata(&path) {
            Ok(m) if m.len() > limit => Err(too_large),
            _ => match read() {
                Ok(bytes) if bytes.len() as u64 > limit => Err(too_large),
                Ok(bytes) => Ok(bytes),
                Err(e) => Err(said::io_text(&path, &e, false)),
            },
        };
        Some(HeldTexture {
            name: said::shown(&path),
            bytes,
        })
    }
}

/// `raw` (a texture name as a model writes it) taken relative to the pack folder `folder`:
/// `\` and `/` alike, `.` and `..` resolved; `None` when it climbs above the pack's root or is
/// absolute (a drive, or a leading separator).
fn beside(folder: &str, raw: &str) -> Option<String> {
    if raw.starts_with(['\\', '/']) || raw.contains(':') {
        return None;
    }
    let mut parts: Vec<&str> = folder
        .split(['\\', '/'])
        .filter(|p| !p.is_empty())
        .collect();
    for part in raw.split(['\\', '/']) {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    Some(parts.join("\\"))
}

/// The entry `inner` of `pack` (read from `pack_path`), found as the engine finds it.
fn find_entry<'p, 'a>(
    pack_path: &Path,
    pack: &'p Pack<'a>,
    inner: &str,
) -> Result<&'p Entry<'a>, String> {
    pack.find(inner).ok_or_else(|| {
        format!(
            "{}: no entry named `{}` in the pack (see `models pack list`)",
            said::shown(pack_path),
            said::escape(inner)
        )
    })
}

/// A pack a batch opens for several of its models, and how many of those are still to come.
struct Shared {
    uses_left: usize,
    /// Read and checked at the first use.
    pack: Option<Arc<Pack<'static>>>,
}

/// The packs of this run that a batch converts several models from. A pack is read whole to
/// get one entry out (its table is checked against all of its data), so without these a batch
/// of a pack of N models would read and check the whole pack N times (quadratic: 18 s instead
/// of 1 s for 200 models of 490 KB). Each is kept from its first model to its last, so memory
/// holds only the packs whose models are being converted, not all the packs of the batch.
static SHARED: Mutex<BTreeMap<PathBuf, Shared>> = Mutex::new(BTreeMap::new());

/// Says that this run's batch opens `uses` more models of the pack at `path` (one password
/// per run, so one key per pack).
fn expect_uses(path: &Path, uses: usize) {
    let mut shared = SHARED.lock().unwrap_or_else(PoisonError::into_inner);
    shared
        .entry(path.to_path_buf())
        .or_insert(Shared {
            uses_left: 0,
            pack: None,
        })
        .uses_left += uses;
}

/// The pack at `path` for one of the models a batch said it opens ([`expect_uses`]), read
/// and checked at the first and dropped after the last; `None` for a pack opened for one model
/// only (read as it is, with no copy). The lock is held while a pack is read, so that two
/// threads wanting the same pack read it once.
fn shared_pack(path: &Path, key: &Key) -> Result<Option<Arc<Pack<'static>>>, String> {
    let mut shared = SHARED.lock().unwrap_or_else(PoisonError::into_inner);
    let Some(this) = shared
        .get_mut(path)
        .filter(|s| s.uses_left > 1 || s.pack.is_some())
    else {
        shared.remove(path);
        return Ok(None);
    };
    this.uses_left = this.uses_left.saturating_sub(1);
    let pack = match &this.pack {
        Some(pack) => Arc::clone(pack),
        None => {
            let bytes = read_file(path)?;
            let pack = Arc::new(read_pack(path, &bytes, key)?.into_owned());
            this.pack = Some(Arc::clone(&pack));
            pack
        }
    };
    if this.uses_left == 0 {
        shared.remove(path);
    }
    Ok(Some(pack))
}

/// The models inside a pack, for a batch (`convert --out-dir`, `info` of a folder).
pub(crate) struct Inside {
    /// `(PACK::INNER, relative output path)` for each entry whose decrypted bytes are a
    /// model, in name order.
    pub(crate) models: Vec<(PathBuf, PathBuf)>,
    /// Model entries refused, each with an error printed: their names would leave the output
    /// folder.
    pub(crate) refused: usize,
}

/// The models inside the pack at `path` ([`Inside`]); a note when it holds none.
pub(crate) fn models_inside(path: &Path, password: &PasswordArg) -> Result<Inside, String> {
    let key = password.key()?;
    let bytes = read_file(path)?;
    let pack = read_pack(path, &bytes, &key)?;
    check_passphrase(path, &pack);
    let mut inside = Inside {
        models: Vec::new(),
        refused: 0,
    };
    for entry in by_name(&pack) {
        let name = entry.name();
        if models::detect_with_hint(&entry.head(64), &*name).is_none() {
            continue;
        }
        match safe_relative_path(&name) {
            Ok(rel) => inside.models.push((inner_path(path, &name), rel)),
            Err(why) => {
                eprintln!(
                    "error: {}: entry `{}` refused as an output path: {why}",
                    said::shown(path),
                    said::escape(&name)
                );
                inside.refused += 1;
            }
        }
    }
    if inside.models.is_empty() && inside.refused == 0 {
        say_no_model(path, &pack);
    }
    expect_uses(path, inside.models.len());
    Ok(inside)
}

/// The note for a pack that holds no model: nothing it holds is passed over in silence.
fn say_no_model(path: &Path, pack: &Pack<'_>) {
    eprintln!(
        "note: {}: no model among its {} entries",
        said::shown(path),
        pack.entries.len()
    );
}

/// `models detect` on a pack: the pack, then each model inside with its inner path.
pub(crate) fn detect(path: &Path, password: &PasswordArg) -> Result<(), String> {
    let key = password.key()?;
    let bytes = read_file(path)?;
    let pack = read_pack(path, &bytes, &key)?;
    outln!(
        "{}: pack ({} entries)",
        said::shown(path),
        pack.entries.len()
    );
    for entry in by_name(&pack) {
        let name = entry.name();
        if let Some(format) = models::detect_with_hint(&entry.head(64), &*name) {
            outln!("{}: {format}", said::shown(&inner_path(path, &name)));
        }
    }
    check_passphrase(path, &pack);
    Ok(())
}

/// `models detect PACK::NAME`: the format of that entry, from its first bytes once decrypted
/// (`unknown` for none of the five), as `detect PACK` lists it.
pub(crate) fn detect_entry(path: &Path, password: &PasswordArg) -> Result<&'static str, String> {
    let Some((pack_path, inner)) = split_inner(path) else {
        return Err(format!("{}: not `PACK::NAME`", said::shown(path)));
    };
    let key = password.key()?;
    let bytes = read_file(&pack_path)?;
    let pack = read_pack(&pack_path, &bytes, &key)?;
    let entry = find_entry(&pack_path, &pack, &inner)?;
    Ok(models::detect_with_hint(&entry.head(64), &*entry.name()).map_or("unknown", Format::name))
}

/// `models info` on a pack: every model inside, parsed, with its inner path and its size.
/// Returns false when a model fails to read or `each` returns false (the others are still reported).
pub(crate) fn info(
    path: &Path,
    password: &PasswordArg,
    mut each: impl FnMut(&Path, &Parsed, u64, HeldTextures) -> bool,
) -> Result<bool, String> {
    let key = password.key()?;
    let bytes = read_file(path)?;
    let pack = read_pack(path, &bytes, &key)?;
    check_passphrase(path, &pack);
    let mut ok = true;
    let mut found = 0usize;
    for entry in by_name(&pack) {
        let name = entry.name();
        let shown = inner_path(path, &name);
        let Some(format) = models::detect_with_hint(&entry.head(64), &*name) else {
            continue;
        };
        found += 1;
        let data = entry.data();
        match models::parse_with_upgrades(format, &data) {
            Ok(parsed) => {
                let held = held_textures(path, &pack, &name, &parsed);
                ok &= each(&shown, &parsed, data.len() as u64, held);
            }
            Err(e) => {
                eprintln!("error: {}", said::error_text(&e.at(&shown)));
                ok = false;
            }
        }
    }
    if found == 0 {
        say_no_model(path, &pack);
    }
    Ok(ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pack of three SMF fixtures (`m0.smf` …) and a text file.
    fn write_pack(path: &Path) {
        let smf = test_support::read(&test_support::fixtures("smf", "smf")[0]);
        let mut pack = Pack::new(Key::new(None).unwrap());
        for name in ["m0.smf", "m1.smf", "m2.smf"] {
            pack.push(Entry::new(name, smf.as_slice(), true).unwrap());
        }
        pack.push(Entry::new("readme.txt", b"text".as_slice(), true).unwrap());
        std::fs::write(path, pack.to_bytes().unwrap()).unwrap();
    }

    /// A texture name is taken beside the model's folder in the pack, `\` and `/` alike,
    /// `.` and `..` resolved, never above the pack's root or from an absolute path.
    #[test]
    fn texture_names_are_resolved_beside_the_model() {
        assert_eq!(
            beside("Model", "train.png").as_deref(),
            Some("Model\\train.png")
        );
        assert_eq!(
            beside("Model\\Train", "../Tex/./a.tga").as_deref(),
            Some("Model\\Tex\\a.tga")
        );
        assert_eq!(beside("", "a.png").as_deref(), Some("a.png"));
        assert_eq!(beside("Model", "../../a.png"), None);
        assert_eq!(beside("Model", "\\a.png"), None);
        assert_eq!(beside("Model", "C:\\a.png"), None);
    }

    /// A batch reads a pack once for all the models it lists in it (`models_inside`, then
    /// `open_with_warnings` for each): the later models still open after the file changed,
    /// and the pack is dropped after its last model. A model named alone is read as it is.
    #[test]
    fn a_pack_is_read_once_for_all_its_models_in_a_batch() {
        let dir = tempfile::tempdir().unwrap();
        let password = PasswordArg { password: None };
        let path = dir.path().join("a.Pack");
        write_pack(&path);
        let models = models_inside(&path, &password).unwrap().models;
        assert_eq!(models.len(), 3);
        assert!(open_with_warnings(&models[0].0, &password).is_ok());
        // Still a pack's magic and count, but its table is cut off: a new read would fail.
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..8]).unwrap();
        for (model, _) in &models[1..] {
            assert!(
                open_with_warnings(model, &password).is_ok(),
                "not read again"
            );
        }
        assert!(!SHARED.lock().unwrap().contains_key(&path), "dropped");
        assert!(open_with_warnings(&models[0].0, &password).is_err());

        let one = dir.path().join("one.Pack");
        write_pack(&one);
        let (alone, _) = batch_input(&inner_path(&one, "m1.smf")).unwrap();
        assert!(open_with_warnings(&alone, &password).is_ok());
        assert!(!SHARED.lock().unwrap().contains_key(&one), "not kept");
    }
}
