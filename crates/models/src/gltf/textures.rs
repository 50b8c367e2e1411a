//! Texture references: relative URIs by default, or images embedded from beside the input.

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// The result of looking a texture path up for embedding.
pub(crate) enum Embedded {
    /// PNG or JPEG bytes and their MIME type.
    Image(Vec<u8>, &'static str),
    /// Not embedded; the reason (for a warning).
    Refused(String),
}

/// The largest texture file read for embedding: 64 MiB.
pub const MAX_TEXTURE_BYTES: u64 = 64 << 20;

/// The largest texture embedded, in pixels (width × height): 8192 × 8192. Each side is at most
/// 16 384 (glTF viewers' usual limit), and decoding never allocates more than 256 MiB.
pub const MAX_TEXTURE_PIXELS: u64 = 8192 * 8192;

/// Textures a caller holds in memory, by the name a model writes for them: for a model read
/// out of an archive, the archive's entries its texture names reach, which no file path
/// reaches. The glTF writer and [`crate::inspect::TextureLookup`] look here before the file
/// system. Cheap to clone (shared).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct HeldTextures(Arc<BTreeMap<String, HeldTexture>>);

/// A texture a caller holds ([`HeldTextures`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldTexture {
    /// Where it came from, for messages (`Data.Pack::Model\train.png`); its extension tells
    /// a TGA, which has no magic.
    pub name: String,
    /// Its bytes, at most [`MAX_TEXTURE_BYTES`]; or why they were not read.
    pub bytes: Result<Vec<u8>, String>,
}

impl HeldTextures {
    /// The textures, each by the name a model writes for it.
    pub fn new(textures: impl IntoIterator<Item = (String, HeldTexture)>) -> Self {
        Self(Arc::new(textures.into_iter().collect()))
    }

    /// The texture a model names `raw`, if held.
    pub fn get(&self, raw: &str) -> Option<&HeldTexture> {
        self.0.get(raw)
    }

    /// Whether none is held.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl std::fmt::Debug for HeldTextures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.0.values().map(|t| &t.name))
            .finish()
    }
}

/// How a texture path as written in a model starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Root {
    /// Relative to the model's folder.
    Relative,
    /// `/x` or `\x`: from the root of the current drive.
    Rooted,
    /// `C:\x`, `C:x` or `\\server\share\x`: a Windows drive or network path.
    Windows,
}

/// Splits a texture path as written in a model (either separator) into its components
/// (without empty and `.` ones), and says how it starts.
fn split(raw: &str) -> (Root, Vec<&str>) {
    let raw = raw.trim();
    let bytes = raw.as_bytes();
    let drive = matches!(bytes, [d, b':', ..] if d.is_ascii_alphabetic());
    let unc = raw.starts_with(r"\\") || raw.starts_with("//");
    let root = if drive || unc {
        Root::Windows
    } else if raw.starts_with(['/', '\\']) {
        Root::Rooted
    } else {
        Root::Relative
    };
    let rest = if drive {
        raw.get(2..).unwrap_or_default()
    } else {
        raw
    };
    let parts = rest
        .split(['/', '\\'])
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    (root, parts)
}

/// The relative URI a texture path is written as (separators become `/`, everything outside
/// the unreserved set is percent-encoded). An absolute path keeps only its file name, and the
/// second value says so (for a warning). `None` when the path names no file: empty, or
/// ending in `..` (a URI is never empty or `..`).
pub(crate) fn relative_uri(raw: &str) -> Option<(String, bool)> {
    let (root, parts) = split(raw);
    let name = parts.last()?;
    if *name == ".." {
        return None;
    }
    if root != Root::Relative {
        return Some((percent_encode(name), true));
    }
    Some((percent_encode(&parts.join("/")), false))
}

/// Percent-encodes everything but RFC 3986 unreserved characters and `/`.
pub(crate) fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// [`locate_from`], the texture path policy, alone (no `--texture-dir` folders), with the
/// reason for a refusal as text: for tests.
#[cfg(test)]
pub(crate) fn locate(base: &Path, raw: &str, allow_outside: bool) -> Result<PathBuf, String> {
    let listings = &mut Listings::default();
    locate_in(base, &[], raw, allow_outside, listings).map_err(|r| r.reason)
}

/// The largest folder whose listing [`Listings`] keeps: 16 384 names (a few MiB at most). A
/// larger one is read again for each lookup, as before there were listings (the memory kept
/// stays bounded whatever the folder).
const MAX_LISTED_NAMES: usize = 1 << 14;

/// The most names [`Listings`] keeps over all its folders: 65 536 (a few MiB). A listing that
/// would go beyond it empties the others first, so a batch over many folders keeps the recent
/// ones and its memory stays bounded.
const MAX_KEPT_NAMES: usize = 1 << 16;

/// The folders listed while textures are looked up (a component not found as written is
/// matched ignoring ASCII case): each folder is read once, however many texture names are
/// looked up in it, for one model or, through [`TextureListings`], for a whole batch. A
/// Windows-made model in a game folder of thousands of files may name hundreds of textures in
/// another case; reading the folder for each one made that quadratic, and so did reading it
/// again for each model of a batch converted from that folder.
#[derive(Debug, Default)]
pub(crate) struct Listings {
    /// A folder's UTF-8 names by their ASCII lowercase form, each the least in name order of
    /// those that share it; `None` for a folder that cannot be read or has more than
    /// [`MAX_LISTED_NAMES`] entries.
    folders: HashMap<PathBuf, Option<HashMap<String, OsString>>>,
    /// The names kept in `folders`, at most [`MAX_KEPT_NAMES`].
    names: usize,
    /// How many times a folder was read (for tests).
    reads: usize,
}

/// Folder listings shared by every conversion whose [`GltfOptions`](super::GltfOptions) hold a
/// clone of this handle: the texture lookups of a batch read each folder once, not once per
/// model (`models convert --out-dir` shares one). A folder is listed when a texture name is
/// first matched in it ignoring case, and that listing is used while the handle lives: a file
/// added to the folder later is found under its exact name (always looked for first), not in
/// another case. A handle is a cache and changes no result, so any two compare equal.
///
/// ```
/// use models::gltf::{GltfOptions, TextureListings};
/// let shared = TextureListings::default();
/// let first = GltfOptions {
///     texture_listings: shared.clone(),
///     ..GltfOptions::for_source("models/a.smf")
/// };
/// let second = GltfOptions {
///     texture_listings: shared,
///     ..GltfOptions::for_source("models/b.smf")
/// };
/// # let _ = (first, second);
/// ```
#[derive(Clone, Default)]
pub struct TextureListings(Arc<Mutex<Listings>>);

impl TextureListings {
    /// The listings, locked for one lookup (a lookup that panicked left them consistent:
    /// each change is a single insert).
    pub(crate) fn lock(&self) -> MutexGuard<'_, Listings> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl std::fmt::Debug for TextureListings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // `try_lock`: printing options while a lookup holds the lock must not wait for it.
        let folders = self.0.try_lock().ok().map(|l| l.folders.len());
        f.debug_struct("TextureListings")
            .field("folders", &folders)
            .finish()
    }
}

impl PartialEq for TextureListings {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for TextureListings {}

impl Listings {
    /// The entry of `dir` whose name equals `part` ignoring ASCII case (the least in name
    /// order), if any.
    fn any_case(&mut self, dir: &Path, part: &str) -> Option<OsString> {
        if !self.folders.contains_key(dir) {
            self.reads += 1;
            let listing = list_folder(dir, MAX_LISTED_NAMES);
            let names = listing.as_ref().map_or(0, HashMap::len);
            if self.names + names > MAX_KEPT_NAMES {
                self.folders.clear();
                self.names = 0;
            }
            self.names += names;
            self.folders.insert(dir.to_path_buf(), listing);
        }
        match self.folders.get(dir) {
            Some(Some(names)) => names.get(&part.to_ascii_lowercase()).cloned(),
            _ => {
                self.reads += 1;
                scan_folder(dir, part)
            }
        }
    }
}

/// A file name as the text a texture name is compared with: UTF-8, or on Unix a name that is
/// not UTF-8 decoded as CP932 (a Japanese name unpacked on Linux by an archiver that did not
/// convert it: the name the engine sees on Windows); `None` for any other name.
pub(crate) fn name_text(name: &std::ffi::OsStr) -> Option<std::borrow::Cow<'_, str>> {
    if let Some(text) = name.to_str() {
        return Some(text.into());
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        binio::sjis::decode_strict(name.as_bytes())
    }
    #[cfg(not(unix))]
    None
}

/// The names of `dir` as texts ([`name_text`]) by their ASCII lowercase form (a texture name
/// is text, so no other name can match one); `None` when it cannot be read or holds more than
/// `limit` entries.
fn list_folder(dir: &Path, limit: usize) -> Option<HashMap<String, OsString>> {
    let mut names: HashMap<String, OsString> = HashMap::new();
    for (k, entry) in std::fs::read_dir(dir).ok()?.enumerate() {
        if k >= limit {
            return None;
        }
        let Ok(entry) = entry else { continue };
        let name = entry.file_name();
        let Some(key) = name_text(&name).map(|t| t.to_ascii_lowercase()) else {
            continue;
        };
        match names.get_mut(&key) {
            Some(kept) if *kept <= name => {}
            Some(kept) => *kept = name,
            None => {
                names.insert(key, name);
            }
        }
    }
    Some(names)
}

/// [`Listings::any_case`] for a folder it does not keep: one pass over its entries.
fn scan_folder(dir: &Path, part: &str) -> Option<OsString> {
    std::fs::read_dir(dir).ok().and_then(|entries| {
        entries
            .filter_map(|e| e.ok())
            .map(|e| e.file_name())
            .filter(|n| name_text(n).is_some_and(|n| n.eq_ignore_ascii_case(part)))
            .min()
    })
}

/// Why [`locate_in`] found no file.
#[derive(Debug)]
pub(crate) struct NotUsed {
    /// True when the file simply does not exist (grouped into one warning per model).
    pub missing: bool,
    /// The message.
    pub reason: String,
}

/// [`locate_from`], then, for a relative path not found beside the model, each of `dirs` in turn
/// (`--texture-dir`): the whole relative path under it, then the file name alone. A file found
/// in one of `dirs` must lie inside it (after links) unless `allow_outside`.
pub(crate) fn locate_in(
    base: &Path,
    dirs: &[PathBuf],
    raw: &str,
    allow_outside: bool,
    listings: &mut Listings,
) -> Result<PathBuf, NotUsed> {
    let first = match locate_from(base, raw, allow_outside, listings) {
        Ok(found) => return Ok(found),
        Err(e) => e,
    };
    let (root, parts) = split(raw);
    if !first.missing || root != Root::Relative {
        return Err(first);
    }
    let name = parts.last().copied().unwrap_or_default();
    for dir in dirs {
        for candidate in [raw, name] {
            if let Ok(found) = locate_from(dir, candidate, allow_outside, listings) {
                return Ok(found);
            }
        }
    }
    Err(first)
}

/// The texture path policy, the same for every format: finds the real file `raw` names and
/// returns its canonical path (so that every spelling of one file gives the same path).
///
/// * A relative path is looked up from `base` (the model's folder), `/` and `\` alike, each
///   component matched ignoring ASCII case when no exact match exists (files made on Windows
///   name their textures in any case), and on Unix also against names that are not UTF-8
///   read as CP932 (Japanese names an archiver unpacked without converting them).
/// * An absolute path (`/x`, `\x`, `C:\x`, `\\server\x`), a path that leaves `base` through
///   `..`, or one whose real file lies outside `base` through a link, is refused unless
///   `allow_outside`. With it, `/x` and `\x` are read from the root; a Windows drive or
///   network path is read only on Windows (elsewhere it would be read against the current
///   folder), and otherwise refused.
/// * Only a regular file is accepted (never a folder, FIFO or device).
///
/// [`locate_in`] is this policy plus the `--texture-dir` folders.
fn locate_from(
    base: &Path,
    raw: &str,
    allow_outside: bool,
    listings: &mut Listings,
) -> Result<PathBuf, NotUsed> {
    let refused = |reason: String| NotUsed {
        missing: false,
        reason,
    };
    let hint = "use GltfOptions::allow_outside_textures to read it";
    let (root, parts) = split(raw);
    if parts.last().is_none_or(|p| *p == "..") {
        return Err(refused(format!("texture path {raw:?} names no file")));
    }
    if root != Root::Relative && !allow_outside {
        return Err(refused(format!(
            "texture path {raw:?} is absolute; refused ({hint})"
        )));
    }
    let mut path = match root {
        Root::Relative => base.to_path_buf(),
        Root::Rooted => PathBuf::from("/"),
        Root::Windows if cfg!(windows) => return regular_file(Path::new(raw.trim()), raw),
        Root::Windows => {
            return Err(refused(format!(
                "texture path {raw:?} is a Windows drive or network path, which cannot be read on this system"
            )))
        }
    };
    let mut depth = 0usize;
    // Why the last component, matched in any case, is absent (then so is the file).
    let mut absent = None;
    for part in parts {
        absent = None;
        if part == ".." {
            if depth == 0 && root == Root::Relative && !allow_outside {
                return Err(refused(format!(
                    "texture path {raw:?} leads out of the input's folder; refused ({hint})"
                )));
            }
            // Lexically, as Windows does: `a\..` is nothing even when `a` does not exist.
            if depth > 0 {
                depth -= 1;
                path.pop();
            } else {
                path.push("..");
            }
        } else {
            depth += 1;
            (path, absent) = component_any_case(path, part, listings);
        }
    }
    if let Some(e) = absent {
        // What resolving the whole path would say, without its `readlink` per component.
        return Err(not_found(&path, raw, &e));
    }
    let real = regular_file(&path, raw)?;
    if root == Root::Relative && !allow_outside {
        let real_base = base
            .canonicalize()
            .map_err(|e| refused(format!("texture {raw:?}: cannot resolve its folder: {e}")))?;
        if !real.starts_with(&real_base) {
            return Err(refused(format!(
                "texture path {raw:?} leads out of the input's folder through a link; refused ({hint})"
            )));
        }
    }
    Ok(real)
}

/// `dir/part`, or the entry of `dir` whose name equals `part` ignoring ASCII case when
/// `dir/part` does not exist (the first in name order, so the choice is stable). With
/// `dir/part` and why it could not be read when neither exists.
fn component_any_case(
    dir: PathBuf,
    part: &str,
    listings: &mut Listings,
) -> (PathBuf, Option<std::io::Error>) {
    let exact = dir.join(part);
    let e = match exact.symlink_metadata() {
        Ok(_) => return (exact, None),
        Err(e) => e,
    };
    match listings.any_case(&dir, part) {
        Some(name) => (dir.join(name), None),
        None => (exact, Some(e)),
    }
}

/// Why the texture `raw`, looked for at `path`, is not used: `e`, from reading `path`.
fn not_found(path: &Path, raw: &str, e: &std::io::Error) -> NotUsed {
    NotUsed {
        missing: e.kind() == std::io::ErrorKind::NotFound,
        reason: format!(
            "texture {raw:?} not found: cannot read {}: {e}",
            path.display()
        ),
    }
}

/// The canonical path of `path` if it is (or links to) a regular file.
fn regular_file(path: &Path, raw: &str) -> Result<PathBuf, NotUsed> {
    let real = path.canonicalize().map_err(|e| not_found(path, raw, &e))?;
    let meta = std::fs::metadata(&real).map_err(|e| NotUsed {
        missing: false,
        reason: format!("texture {raw:?}: cannot read {}: {e}", real.display()),
    })?;
    if !meta.is_file() {
        return Err(NotUsed {
            missing: false,
            reason: format!(
                "texture {raw:?}: {} is not a regular file; not read",
                real.display()
            ),
        });
    }
    Ok(real)
}

/// Reads the regular file `path` if it holds at most [`MAX_TEXTURE_BYTES`], through
/// [`crate::input::open_regular`] (the same rules as model inputs: no FIFO, device or folder,
/// an open that never waits, never more than the size the metadata states).
fn read_bounded(path: &Path, raw: &str) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let refuse = |e: &dyn std::fmt::Display| format!("texture {raw:?} not embedded: {e}");
    let (file, len) = crate::input::open_regular(path).map_err(|e| refuse(&e))?;
    if len > MAX_TEXTURE_BYTES {
        return Err(format!(
            "texture {raw:?} not embedded: {} is larger than {MAX_TEXTURE_BYTES} bytes",
            path.display()
        ));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.take(len)
        .read_to_end(&mut bytes)
        .map_err(|e| refuse(&format_args!("cannot read {}: {e}", path.display())))?;
    Ok(bytes)
}

/// Decodes `bytes` within the bounds ([`MAX_TEXTURE_PIXELS`], 16 384 a side).
fn decode(bytes: &[u8], path: &Path, raw: &str) -> Result<image::DynamicImage, String> {
    let refuse = |e: &dyn std::fmt::Display| {
        format!(
            "texture {raw:?} not embedded: cannot decode {}: {e}",
            path.display()
        )
    };
    let mut reader = image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| refuse(&e))?;
    if reader.format().is_none() {
        if let Ok(format) = image::ImageFormat::from_path(path) {
            reader.set_format(format);
        }
    }
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(16_384);
    limits.max_image_height = Some(16_384);
    limits.max_alloc = Some(MAX_TEXTURE_PIXELS * 4);
    reader.limits(limits);
    let img = reader.decode().map_err(|e| refuse(&e))?;
    let pixels = u64::from(img.width()) * u64::from(img.height());
    if pixels > MAX_TEXTURE_PIXELS {
        return Err(format!(
            "texture {raw:?} not embedded: {} is {}x{} pixels, more than {MAX_TEXTURE_PIXELS}",
            path.display(),
            img.width(),
            img.height()
        ));
    }
    Ok(img)
}

/// Reads the regular file `path` (found by [`locate_in`]) and returns it as PNG or JPEG bytes:
/// a PNG or JPEG as is, once it decodes; TGA, BMP and DDS converted to PNG. Refused (for a
/// warning) when it is too large or does not decode.
pub(crate) fn load(path: &Path, raw: &str) -> Embedded {
    read_bounded(path, raw).map_or_else(Embedded::Refused, |bytes| load_bytes(bytes, path, raw))
}

/// [`load`] of bytes already read (a [`HeldTexture`]'s); `path` names them in messages, and
/// its extension tells a TGA.
pub(crate) fn load_bytes(bytes: Vec<u8>, path: &Path, raw: &str) -> Embedded {
    let loaded = decode(&bytes, path, raw).and_then(|img| {
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            return Ok(Embedded::Image(bytes, "image/png"));
        }
        if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
            return Ok(Embedded::Image(bytes, "image/jpeg"));
        }
        to_png(img, path, raw)
    });
    loaded.unwrap_or_else(Embedded::Refused)
}

fn to_png(img: image::DynamicImage, path: &Path, raw: &str) -> Result<Embedded, String> {
    let mut png = std::io::Cursor::new(Vec::new());
    let encoded = img
        .write_to(&mut png, image::ImageFormat::Png)
        .or_else(|_| {
            png = std::io::Cursor::new(Vec::new());
            image::DynamicImage::ImageRgba8(img.to_rgba8())
                .write_to(&mut png, image::ImageFormat::Png)
        });
    match encoded {
        Ok(()) => Ok(Embedded::Image(png.into_inner(), "image/png")),
        Err(e) => Err(format!(
            "texture {raw:?} not embedded: cannot convert {} to PNG: {e}",
            path.display()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A texture whose last component is absent is refused with what resolving its whole
    /// path says (the reason, and whether it is simply missing), without resolving it: through
    /// an absent folder, beside the model, and through a file taken for a folder.
    #[test]
    fn an_absent_texture_is_refused_as_resolving_its_path_would() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("file.png"), b"x").unwrap();
        for raw in [
            "absent.png",
            "nodir/absent.png",
            "file.png/absent.png",
            "a/../b.png",
        ] {
            let listings = &mut Listings::default();
            let got = locate_from(dir.path(), raw, false, listings).unwrap_err();
            let path = raw
                .split('/')
                .fold(dir.path().to_path_buf(), |p, c| match c {
                    ".." => p.parent().unwrap().to_path_buf(),
                    c => p.join(c),
                });
            let resolved = regular_file(&path, raw).unwrap_err();
            assert_eq!(got.reason, resolved.reason, "{raw}");
            assert_eq!(got.missing, resolved.missing, "{raw}");
            assert_eq!(got.missing, raw != "file.png/absent.png", "{raw}");
        }
    }

    /// Clones of one handle share its listings (a batch reads a folder once); another handle
    /// reads the folder again; a listing that would keep more than `MAX_KEPT_NAMES` names
    /// empties the others first.
    #[test]
    fn a_shared_handle_lists_each_folder_once_for_all_its_users() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Tex.PNG"), b"x").unwrap();
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        std::fs::write(sub.join("A.png"), b"x").unwrap();
        let lookup = |raw: &str, handle: &TextureListings| {
            let found = locate_in(dir.path(), &[], raw, false, &mut handle.lock()).unwrap();
            found.file_name().unwrap().to_owned()
        };
        let shared = TextureListings::default();
        let clone = shared.clone();
        assert_eq!(lookup("tex.png", &shared), "Tex.PNG");
        assert_eq!(lookup("TEX.png", &clone), "Tex.PNG");
        assert_eq!(shared.lock().reads, 1);
        let other = TextureListings::default();
        assert_eq!(lookup("tex.PNG", &other), "Tex.PNG");
        assert_eq!((other.lock().reads, shared.lock().reads), (1, 1));
        assert_eq!(shared, other); // a cache: equal whatever it holds

        // `SUB` is matched in the kept listing; listing `sub` then empties it.
        shared.lock().names = MAX_KEPT_NAMES;
        assert_eq!(lookup("SUB/a.png", &shared), "A.png");
        let kept = shared.lock();
        assert_eq!((kept.folders.len(), kept.names, kept.reads), (1, 1, 2));
        assert!(kept.folders.contains_key(&sub));
    }

    /// Names looked up ignoring case in one folder read it once, and give what a scan of the
    /// folder gives: the least name in name order of those that match; a folder over the
    /// limit is not kept, and then each lookup scans it.
    #[test]
    fn each_folder_is_listed_once_for_lookups_ignoring_case() {
        let dir = tempfile::tempdir().unwrap();
        let tex = dir.path().join("TEX");
        std::fs::create_dir(&tex).unwrap();
        for name in ["Hero.png", "Sword.PNG", "b.png", "B.PNG"] {
            std::fs::write(tex.join(name), b"x").unwrap();
        }
        let listings = &mut Listings::default();
        let found = |raw: &str, listings: &mut Listings| {
            let found = locate_in(dir.path(), &[], raw, false, listings).unwrap();
            found.file_name().unwrap().to_owned()
        };
        assert_eq!(found("tex/hero.png", listings), "Hero.png");
        assert_eq!(listings.reads, 2); // the model's folder (for `TEX`) and `TEX`
        assert_eq!(found(r"Tex\SWORD.png", listings), "Sword.PNG");
        assert_eq!(found("tex/B.png", listings), "B.PNG");
        assert_eq!(listings.reads, 2);
        for part in ["b.png", "HERO.PNG", "sword.png", "none.png"] {
            let kept = list_folder(&tex, MAX_LISTED_NAMES).unwrap();
            let kept = kept.get(&part.to_ascii_lowercase()).cloned();
            assert_eq!(kept, scan_folder(&tex, part), "{part}");
        }
        assert!(list_folder(&tex, 4).is_some());
        assert!(list_folder(&tex, 3).is_none());
        let over = &mut Listings::default();
        over.folders.insert(tex.clone(), None);
        assert_eq!(over.any_case(&tex, "hero.PNG"), Some("Hero.png".into()));
        assert_eq!(over.any_case(&tex, "sword.png"), Some("Sword.PNG".into()));
        assert_eq!(over.reads, 2);
    }

    /// A folder and a file whose names are CP932 bytes (not UTF-8) are found by the texture
    /// name the model gives as text, through the listing and through a scan alike; bytes that
    /// are not CP932 either match nothing.
    #[cfg(unix)]
    #[test]
    fn names_that_are_not_utf8_are_matched_as_cp932() {
        use std::ffi::OsStr;
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        let tex = dir
            .path()
            .join(OsStr::from_bytes(b"\x83e\x83N\x83X\x83`\x83\x83")); // テクスチャ
        std::fs::create_dir(&tex).unwrap();
        let file = OsStr::from_bytes(b"\x93\x64\x8e\xd4.PNG"); // 電車.PNG
        std::fs::write(tex.join(file), b"x").unwrap();
        std::fs::write(tex.join(OsStr::from_bytes(b"\xff.png")), b"x").unwrap();
        let found = locate_in(
            dir.path(),
            &[],
            r"テクスチャ\電車.png",
            false,
            &mut Listings::default(),
        )
        .unwrap();
        assert_eq!(found.file_name().unwrap(), file);
        assert_eq!(scan_folder(&tex, "電車.png").as_deref(), Some(file));
        assert_eq!(list_folder(&tex, MAX_LISTED_NAMES).unwrap().len(), 1);
    }

    #[test]
    fn uris_use_forward_slashes_and_are_encoded() {
        assert_eq!(
            relative_uri(r"tex\crate 1.png"),
            Some(("tex/crate%201.png".into(), false))
        );
        assert_eq!(relative_uri(r"C:\work\a.tga"), Some(("a.tga".into(), true)));
        assert_eq!(
            relative_uri("./../up/b.bmp"),
            Some(("../up/b.bmp".into(), false))
        );
        assert_eq!(
            relative_uri("テクスチャ.png").map(|u| u.0),
            Some("%E3%83%86%E3%82%AF%E3%82%B9%E3%83%81%E3%83%A3.png".into())
        );
        assert_eq!(relative_uri(""), None);
    }

    #[test]
    fn names_that_are_no_file_make_no_uri() {
        assert_eq!(relative_uri(".."), None);
        assert_eq!(relative_uri(r"a\.."), None);
        assert_eq!(relative_uri("./"), None);
        assert_eq!(relative_uri(r"C:\"), None);
        assert_eq!(
            relative_uri(r"\\server\share\t.png"),
            Some(("t.png".into(), true))
        );
    }

    #[test]
    fn escaping_paths_are_refused_unless_allowed() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("models");
        std::fs::create_dir_all(base.join("Tex")).unwrap();
        std::fs::write(base.join("Tex/X.png"), b"x").unwrap();
        std::fs::write(dir.path().join("up.png"), b"x").unwrap();
        let inside = base.join("Tex/X.png").canonicalize().unwrap();
        let up = dir.path().join("up.png").canonicalize().unwrap();
        for raw in [
            r"..\up.png",
            "a/../../up.png",
            "/etc/hostname",
            r"C:\x.png",
            r"\\srv\x.png",
        ] {
            let err = locate(&base, raw, false).unwrap_err();
            assert!(
                err.contains("GltfOptions::allow_outside_textures"),
                "{raw}: {err}"
            );
        }
        // Every spelling of one file gives the same real path: case, separators, `.`, `..`.
        for raw in [
            r"a\..\tex\x.png",
            "./Tex/X.png",
            "TEX/x.PNG",
            r".\tex\.\X.png",
        ] {
            assert_eq!(locate(&base, raw, false).unwrap(), inside, "{raw}");
        }
        assert_eq!(locate(&base, "../up.png", true).unwrap(), up);
        // Absolute paths follow the same rules as relative ones once allowed.
        let absolute = up.to_str().unwrap();
        assert!(locate(&base, absolute, false).is_err());
        assert_eq!(locate(&base, absolute, true).unwrap(), up);
        // A drive path is never read against the current folder.
        let err = locate(&base, r"C:\x.png", true).unwrap_err();
        assert!(cfg!(windows) || err.contains("Windows drive"), "{err}");
        // Folders, `..` and empty names are no texture.
        for raw in ["Tex", "..", "", "Tex/.."] {
            assert!(locate(&base, raw, true).is_err(), "{raw:?}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn only_regular_files_are_read() {
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero.png")).unwrap();
        let err = locate(dir.path(), "zero.png", true).unwrap_err();
        assert!(err.contains("not a regular file"), "{err}");
        let err = locate(dir.path(), "/dev/zero", true).unwrap_err();
        assert!(err.contains("not a regular file"), "{err}");
        let fifo = dir.path().join("pipe.png");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let err = locate(dir.path(), "pipe.png", false).unwrap_err();
            assert!(err.contains("not a regular file"), "{err}");
        }
        // A link out of the folder is refused unless allowed.
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("o.png"), b"x").unwrap();
        std::os::unix::fs::symlink(outside.path().join("o.png"), dir.path().join("l.png")).unwrap();
        assert!(locate(dir.path(), "l.png", false)
            .unwrap_err()
            .contains("through a link"));
        assert!(locate(dir.path(), "l.png", true).is_ok());
    }
}
