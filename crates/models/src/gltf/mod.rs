//! [`Scene`](crate::scene::Scene) → glTF 2.0: a binary `.glb`, or a `.gltf` JSON file with a `.bin` beside it.
//!
//! The writer serialises a [`ValidScene`]: the scene is already in glTF's conventions (see
//! [`crate::scene`]) and [`crate::scene::validate()`] has repaired what glTF forbids (non-unit
//! normals, weights that do not sum to one, non-finite values, …), each repair a
//! [`SceneWarning`]. The writer repairs nothing: it leaves out what glTF cannot hold (skins
//! without usable joints, meshes without triangles, empty animations), adds a common root for
//! a skin whose joints lie in separate trees, and makes glTF-only choices, each said in a
//! warning (ARCHITECTURE.md, "The writer's guarantee", keeps the list).
//!
//! * Accessors: `POSITION` carries `min`/`max`; `JOINTS_0` is `u8` (or `u16` beyond 256 joints),
//!   `WEIGHTS_0` sums to one; indices are `u16` below 65 536 vertices, `u32` above.
//! * One buffer, one buffer view per accessor, every view 4-byte aligned, `target` set on
//!   vertex and index views (so no `byteStride` is needed).
//! * One scene. Every transform is written as translation/rotation/scale.
//! * Textures: with [`GltfOptions::embed_textures`] the images found are embedded; with
//!   [`GltfOptions::texture_folder`] they are written beside the output and referred to; both
//!   convert TGA/BMP/DDS to PNG. Otherwise they are relative URIs as the source names them
//!   (only PNG and JPEG: glTF allows no other image URI).
//!
//! ```
//! use models::gltf::{to_glb, GltfOptions};
//! use models::scene::{validate, Scene};
//! let valid = validate(Scene::default());
//! let glb = to_glb(&valid.scene, &GltfOptions::default())?;
//! assert_eq!(&glb[..4], b"glTF");
//! # Ok::<(), models::gltf::Error>(())
//! ```

mod animation_extras;
mod names;
mod read;
mod textures;
mod write;

pub use textures::{
    HeldTexture, HeldTextures, TextureListings, MAX_TEXTURE_BYTES, MAX_TEXTURE_PIXELS,
};

use crate::output::{write_new_contents, Content, Overwrite};
use crate::scene::{SceneWarning, ValidScene};
use std::io::Write;
use std::path::{Path, PathBuf};

pub use gltf_json as json;
pub use read::{
    detect, read_glb, read_glb_shared, read_path, Import, ReadError, ReadOptions, ReadWarning,
    ReadWarningKind, ALLOCATION_FACTOR, MAX_NODE_DEPTH,
};

/// The texture-path policy ([`textures::locate_in`]) for [`crate::inspect`]: the file found,
/// or whether it is simply missing (true) or refused (false), and why.
pub(crate) fn locate_texture(
    base: &Path,
    dirs: &[PathBuf],
    raw: &str,
    allow_outside: bool,
    listings: &TextureListings,
) -> Result<PathBuf, (bool, String)> {
    textures::locate_in(base, dirs, raw, allow_outside, &mut listings.lock())
        .map_err(|e| (e.missing, e.reason))
}

/// Options of the glTF writer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GltfOptions {
    /// The model file the scene was converted from. Texture paths are resolved relative to its
    /// folder, and [`write_file`] never writes onto it.
    pub source: Option<PathBuf>,
    /// Embed the texture images found beside the source (TGA, BMP and DDS become PNG) instead
    /// of referring to them by relative URI.
    pub embed_textures: bool,
    /// With [`embed_textures`](Self::embed_textures): also read texture paths that are absolute
    /// or lead out of the source's folder through `..` (refused by default).
    pub allow_outside_textures: bool,
    /// Further folders searched, in order, for a texture not found beside the source: its
    /// relative path under each, then its file name alone (`--texture-dir`).
    pub texture_dirs: Vec<PathBuf>,
    /// Unless [`embed_textures`](Self::embed_textures): write the texture images found into
    /// this folder, relative to the output (e.g. `model_textures`), and refer to them by
    /// relative URI. PNG and JPEG are copied, TGA, BMP and DDS converted to PNG, so no URI
    /// names a format glTF does not allow; each file is written once. [`Gltf::images`] holds
    /// them; [`write_file`] writes them.
    pub texture_folder: Option<String>,
    /// The folder listings used to match texture names ignoring case: a new, empty one by
    /// default; a clone of one handle in the options of several conversions (a batch) makes
    /// them read each folder once.
    pub texture_listings: TextureListings,
    /// Textures held in memory, looked up by the name the model writes before the file
    /// system (with [`embed_textures`](Self::embed_textures) or a
    /// [`texture_folder`](Self::texture_folder)): for a model read out of an archive.
    pub held_textures: HeldTextures,
}

impl GltfOptions {
    /// Options for a scene converted from the file `source`.
    pub fn for_source(source: impl Into<PathBuf>) -> Self {
        Self {
            source: Some(source.into()),
            ..Self::default()
        }
    }

    /// The folder texture paths are relative to.
    pub(crate) fn texture_base(&self) -> PathBuf {
        match self.source.as_deref().and_then(Path::parent) {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        }
    }
}

/// What can make the glTF writer fail. (Bad data in the scene is repaired with a warning, not
/// an error.)
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The binary data does not fit a GLB (4 GiB) or a glTF index (u32).
    #[error("the glTF {what} would be {size} bytes or items, more than glTF can address")]
    TooLarge {
        /// What overflowed (`"buffer"`, `"GLB"`, `"accessor count"`, …).
        what: &'static str,
        /// Its size.
        size: u64,
    },
    /// The JSON could not be serialised.
    #[error("cannot serialise the glTF JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// The writer wrote other than the length it planned: a bug in the writer, reported
    /// rather than handing out a short or overlong `.glb`.
    #[error("the GLB writer did not write the {planned} bytes it planned ({reason}); this is a bug, please report it")]
    SizeMismatch {
        /// The planned length.
        planned: u64,
        /// What went wrong.
        reason: String,
    },
    /// The output path ends in neither `.glb` nor `.gltf`.
    #[error("{}: a glTF output must end in .glb or .gltf", .0.display())]
    UnknownExtension(PathBuf),
}

/// A glTF asset in memory: the JSON document, the binary buffer and the writer's warnings.
#[derive(Debug, Clone)]
pub struct Gltf {
    /// The glTF JSON document.
    pub root: json::Root,
    /// The contents of the single buffer (4-byte padded; empty when there is no binary data).
    pub bin: Vec<u8>,
    /// Everything the writer left out, chose or (index lists) trimmed, each saying what and
    /// where.
    pub warnings: Vec<SceneWarning>,
    /// The image files to write beside the output ([`GltfOptions::texture_folder`]): the
    /// path relative to the output's folder (with `/`, as in the URI before encoding) and the
    /// PNG or JPEG bytes.
    pub images: Vec<(String, Vec<u8>)>,
}

impl Gltf {
    /// Builds the glTF document for `scene`. The buffer has no URI (as in a GLB); see
    /// [`Gltf::to_gltf`] for the `.gltf` + `.bin` layout.
    pub fn from_scene(scene: &ValidScene, options: &GltfOptions) -> Result<Self, Error> {
        write::build(scene, options).map(write::Export::into_gltf)
    }

    /// The binary glTF (`.glb`) bytes, as [`to_glb`] gives them.
    pub fn to_glb(&self) -> Result<crate::Bytes, Error> {
        let json = serde_json::to_vec(&self.root)?;
        let glb = Glb::new(&json, self.bin.len())?;
        glb.write_exactly(|w| w.write_all(&self.bin))
    }

    /// The `.gltf` JSON text with its buffer pointing at `bin_uri` (a URI relative to the
    /// `.gltf`, e.g. `model.bin`; it is percent-encoded here), and the bytes of that `.bin`.
    pub fn to_gltf(&self, bin_uri: &str) -> Result<(String, Vec<u8>), Error> {
        Ok((
            gltf_json_text(self.root.clone(), bin_uri)?,
            self.bin.clone(),
        ))
    }
}

/// The `.gltf` JSON text of `root` with its buffer pointing at `bin_uri` (percent-encoded).
fn gltf_json_text(mut root: json::Root, bin_uri: &str) -> Result<String, Error> {
    if let Some(buffer) = root.buffers.first_mut() {
        buffer.uri = Some(textures::percent_encode(bin_uri));
    }
    Ok(serde_json::to_string_pretty(&root)?)
}

/// `scene` as a binary glTF (`.glb`): the JSON first, then the buffer written straight from
/// the scene into memory of exactly the `.glb`'s size. That memory is a vector, or on Linux,
/// for a `.glb` of 32 MiB or more, a fresh mapping backed by transparent huge pages (glibc
/// would map a vector that large anew anyway, and fault in its 4 KiB pages one by one: for a
/// 44 MB `.glb`, 27 ms against 7–8 ms). [`crate::Bytes`] derefs to the bytes; `into_vec`
/// gives a vector. To reuse one vector across many exports, see [`to_glb_into`].
pub fn to_glb(scene: &ValidScene, options: &GltfOptions) -> Result<crate::Bytes, Error> {
    to_glb_with_warnings(scene, options).map(|(glb, _)| glb)
}

/// `scene` as a binary glTF, as [`to_glb`] gives it, and the writer's warnings.
pub fn to_glb_with_warnings(
    scene: &ValidScene,
    options: &GltfOptions,
) -> Result<(crate::Bytes, Vec<SceneWarning>), Error> {
    let export = write::build(scene, options)?;
    let json = serde_json::to_vec(&export.root)?;
    let glb = Glb::new(&json, export.bin.len())?;
    let out = glb.write_exactly(|w| export.bin.write_to(w))?;
    Ok((out, export.warnings))
}

/// [`to_glb_with_warnings`] into `out`, which is cleared first and keeps its allocation: for a
/// process that exports many scenes, one reused vector instead of fresh memory per export,
/// which the kernel must clear (and for a vector of more than 32 MiB, glibc maps anew, every
/// 4 KiB page of it faulted in while it is written). `out` holds the `.glb` bytes afterwards
/// (nothing of them on error); the writer's warnings are returned.
pub fn to_glb_into(
    scene: &ValidScene,
    options: &GltfOptions,
    out: &mut Vec<u8>,
) -> Result<Vec<SceneWarning>, Error> {
    out.clear();
    // The JSON first, then the buffer straight from the scene into the exactly-sized vector.
    let export = write::build(scene, options)?;
    let json = serde_json::to_vec(&export.root)?;
    let glb = Glb::new(&json, export.bin.len())?;
    out.reserve_exact(glb.total);
    // Writing into a vector cannot fail.
    let _ = glb.write(out, |w| export.bin.write_to(w));
    Ok(export.warnings)
}

/// `scene` as a binary glTF streamed into `out` (the JSON first, then the buffer straight
/// from the scene, as [`write_file`] writes a `.glb`: never whole in memory), and the writer's
/// warnings. Pass a buffered writer: the buffer goes out in many small writes.
pub fn write_glb(
    scene: &ValidScene,
    options: &GltfOptions,
    out: &mut dyn Write,
) -> Result<Vec<SceneWarning>, crate::Error> {
    let export = write::build(scene, options)?;
    let json = exact_json(&export.root)?;
    let glb = Glb::new(&json, export.bin.len())?;
    glb.write(out, |w| export.bin.write_to(w))?;
    Ok(export.warnings)
}

/// `scene` as `.gltf` JSON whose buffer is the file `bin_uri`, and the bytes of that file.
pub fn to_gltf(
    scene: &ValidScene,
    options: &GltfOptions,
    bin_uri: &str,
) -> Result<(String, Vec<u8>), Error> {
    // The document is built for this call alone, so its buffer is moved out rather than copied.
    let gltf = Gltf::from_scene(scene, options)?;
    Ok((gltf_json_text(gltf.root, bin_uri)?, gltf.bin))
}

/// The container chosen by an output's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Container {
    /// Binary `.glb`.
    Glb,
    /// `.gltf` JSON with a `.bin` beside it.
    Gltf,
}

impl Container {
    /// `.glb` or `.gltf` (any case), else `None`.
    pub fn from_path(path: &Path) -> Option<Self> {
        let ext = path.extension()?.to_str()?;
        if ext.eq_ignore_ascii_case("glb") {
            Some(Container::Glb)
        } else if ext.eq_ignore_ascii_case("gltf") {
            Some(Container::Gltf)
        } else {
            None
        }
    }
}

/// The files [`write_file`] writes for `out`: `out` itself, and for a `.gltf` the `.bin` beside
/// it (when the scene has binary data; this function assumes it has).
pub fn output_files(out: &Path) -> Result<Vec<PathBuf>, Error> {
    match Container::from_path(out) {
        Some(Container::Glb) => Ok(vec![out.to_path_buf()]),
        Some(Container::Gltf) => Ok(vec![out.to_path_buf(), bin_path(out)]),
        None => Err(Error::UnknownExtension(out.to_path_buf())),
    }
}

/// The `.bin` written beside the `.gltf` `out`: the same stem, made valid UTF-8 (a byte that
/// is not becomes U+FFFD), so that the buffer's URI can name exactly this file.
pub fn bin_path(out: &Path) -> PathBuf {
    let stem = out.file_stem().unwrap_or_default().to_string_lossy();
    out.with_file_name(format!("{stem}.bin"))
}

/// Writes `scene` to `out`: a `.glb`, or a `.gltf` plus a `.bin` (see [`bin_path`]), chosen by
/// the extension, through [`crate::output::write_new_files`]: never onto
/// [`GltfOptions::source`], never over an existing file unless `overwrite` allows it, always
/// through temporary files renamed into place. A `.gltf` and its `.bin` are replaced together
/// or not at all: both are written and flushed before either is renamed, the `.bin` first;
/// if the `.gltf` cannot be renamed, the previous `.bin` is put back.
///
/// Returns the writer's warnings.
///
/// ```no_run
/// use models::gltf::{write_file, GltfOptions};
/// use models::output::Overwrite;
/// use models::scene::Scene;
///
/// let doc = models::open("Chara_R.bmf")?;
/// // The conversion's warnings, then validation's (every repair), in one list.
/// let valid = Scene::from_document(&doc)?.validated();
/// for w in &valid.warnings {
///     eprintln!("warning: {w}");
/// }
/// let options = GltfOptions::for_source("Chara_R.bmf");
/// for w in write_file(&valid.scene, "Chara_R.glb".as_ref(), &options, Overwrite::Never)? {
///     eprintln!("warning: {w}");
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_file(
    scene: &ValidScene,
    out: &Path,
    options: &GltfOptions,
    overwrite: Overwrite,
) -> Result<Vec<SceneWarning>, crate::Error> {
    let container =
        Container::from_path(out).ok_or_else(|| Error::UnknownExtension(out.to_path_buf()))?;
    let mut export = write::build(scene, options)?;
    let input = options.source.as_deref();
    // Images beside the output, then the buffer, then the output itself, written as one set:
    // either every file is replaced or none is, and the output never refers to a file not yet
    // in place (the set is renamed in this order).
    if !export.images.is_empty() && overwrite == Overwrite::Never && out.symlink_metadata().is_ok()
    {
        // Refused before the images' folder is made, as the set write below would refuse it.
        return Err(crate::Error::OutputExists(out.to_path_buf()));
    }
    let image_paths = image_paths(&export.images, out)?;
    let mut files: Vec<(&Path, Content<'_>)> = image_paths
        .iter()
        .zip(&export.images)
        .map(|(path, (_, bytes))| (path.as_path(), Content::Bytes(bytes)))
        .collect();
    // The binary data goes from the scene straight into the output file, never whole in
    // memory: the JSON (computed first) says where every chunk goes.
    let json;
    let bin_path = bin_path(out);
    let (glb, stream_glb, stream_bin);
    match container {
        Container::Glb => {
            json = exact_json(&export.root)?;
            glb = Glb::new(&json, export.bin.len())?;
            stream_glb = |w: &mut dyn Write| glb.write(w, |w| export.bin.write_to(w));
            files.push((out, Content::Stream(&stream_glb)));
        }
        Container::Gltf => {
            let bin_name = bin_path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if let Some(buffer) = export.root.buffers.first_mut() {
                buffer.uri = Some(textures::percent_encode(&bin_name));
            }
            json = serde_json::to_vec_pretty(&export.root).map_err(Error::Json)?;
            stream_bin = |w: &mut dyn Write| export.bin.write_to(w);
            if export.bin.len() > 0 {
                files.push((&bin_path, Content::Stream(&stream_bin)));
            }
            files.push((out, Content::Bytes(&json)));
        }
    }
    write_new_contents(&files, input, overwrite)?;
    Ok(export.warnings)
}

/// The compact JSON of `root`. A large one goes into a vector of exactly its length, counted
/// first, then written: with tens of MB of exact extras, a growing vector would hold up to
/// twice that (and three times while it moves), which made the writer, not the conversion,
/// the peak of a large MDL export (issue 18), and the second pass costs less than the page
/// faults it avoids. One of at most [`ONE_PASS_JSON`] bytes by [`json_estimate`] is written
/// once into a vector of that capacity: there the counting pass was half of the JSON's cost
/// (5 % of an animated character's conversion), and growth past a low estimate wastes at most
/// a few MB.
fn exact_json(root: &gltf_json::Root) -> Result<Vec<u8>, Error> {
    let estimate = json_estimate(root);
    if estimate <= ONE_PASS_JSON {
        let mut json = Vec::with_capacity(estimate);
        serde_json::to_writer(&mut json, root).map_err(Error::Json)?;
        return Ok(json);
    }
    struct Count(usize);
    impl Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 = self.0.saturating_add(buf.len());
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    serde_json::to_writer(&mut count, root).map_err(Error::Json)?;
    let mut json = Vec::with_capacity(count.0);
    serde_json::to_writer(&mut json, root).map_err(Error::Json)?;
    Ok(json)
}

/// The estimated length under which [`exact_json`] writes in one pass.
const ONE_PASS_JSON: usize = 1 << 20;

/// About the compact JSON length of `root`: its extras and names as they stand, and a
/// generous allowance for every object's keys, numbers and punctuation and every index in a
/// list (children, joints, a scene's nodes). An estimate, not a bound: it only chooses
/// between one pass and two in [`exact_json`].
fn json_estimate(root: &gltf_json::Root) -> usize {
    use gltf_json::Extras;
    /// An accessor with its bounds is about 200 bytes.
    const PER_OBJECT: usize = 256;
    /// A node index and its comma.
    const PER_INDEX: usize = 8;
    fn text(extras: &Extras, name: Option<&String>) -> usize {
        extras.as_deref().map_or(0, |raw| raw.get().len()) + name.map_or(0, String::len)
    }
    let mut objects = root.accessors.len()
        + root.buffers.len()
        + root.buffer_views.len()
        + root.cameras.len()
        + root.images.len()
        + root.samplers.len()
        + root.textures.len()
        + root.materials.len()
        + root.skins.len()
        + root.scenes.len()
        + root.nodes.len()
        + root.meshes.len()
        + root.animations.len();
    let mut bytes =
        text(&root.extras, None) + root.extensions_used.iter().map(String::len).sum::<usize>();
    for a in &root.accessors {
        bytes += text(&a.extras, a.name.as_ref());
    }
    for n in &root.nodes {
        bytes += text(&n.extras, n.name.as_ref());
        bytes += PER_INDEX * n.children.as_ref().map_or(0, Vec::len);
    }
    for m in &root.meshes {
        objects += m.primitives.len();
        bytes += text(&m.extras, m.name.as_ref());
        bytes += m
            .primitives
            .iter()
            .map(|p| text(&p.extras, None))
            .sum::<usize>();
    }
    for m in &root.materials {
        bytes += text(&m.extras, m.name.as_ref());
    }
    for a in &root.animations {
        objects += a.channels.len() + a.samplers.len();
        bytes += text(&a.extras, a.name.as_ref());
    }
    for s in &root.skins {
        bytes += text(&s.extras, s.name.as_ref()) + PER_INDEX * s.joints.len();
    }
    for s in &root.scenes {
        bytes += text(&s.extras, s.name.as_ref()) + PER_INDEX * s.nodes.len();
    }
    for i in &root.images {
        bytes += text(&i.extras, i.name.as_ref()) + i.uri.as_ref().map_or(0, String::len);
    }
    for t in &root.textures {
        bytes += text(&t.extras, t.name.as_ref());
    }
    bytes.saturating_add(objects.saturating_mul(PER_OBJECT))
}

/// Where [`Gltf::images`] go beside `out`; creates their folders.
fn image_paths(images: &[(String, Vec<u8>)], out: &Path) -> Result<Vec<PathBuf>, crate::Error> {
    let dir = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut paths = Vec::with_capacity(images.len());
    for (relative, _) in images {
        let path = relative
            .split('/')
            .fold(dir.clone(), |p, part| p.join(part));
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| crate::Error::Path {
                path: parent.to_path_buf(),
                source: Box::new(crate::Error::Io(e)),
            })?;
        }
        paths.push(path);
    }
    Ok(paths)
}

/// The layout of a GLB container: its JSON and BIN chunks (the BIN chunk only when the buffer
/// is not empty), each padded to 4 bytes.
struct Glb<'j> {
    json: &'j [u8],
    /// The BIN chunk's length, and the zeros after the buffer that pad it to 4 bytes.
    bin_len: usize,
    bin_pad: usize,
    /// The whole container's length.
    total: usize,
}

impl<'j> Glb<'j> {
    /// For `json` and a buffer of `buffer_len` bytes.
    fn new(json: &'j [u8], buffer_len: usize) -> Result<Self, Error> {
        let json_len = json.len().next_multiple_of(4);
        let bin_len = buffer_len.next_multiple_of(4);
        let total = 12 + 8 + json_len + if bin_len == 0 { 0 } else { 8 + bin_len };
        let glb = Self {
            json,
            bin_len,
            bin_pad: bin_len - buffer_len,
            total,
        };
        // Every length the headers hold must fit 32 bits.
        if u32::try_from(total).is_err() {
            return Err(Error::TooLarge {
                what: "GLB",
                size: total as u64,
            });
        }
        Ok(glb)
    }

    /// The container in memory of exactly its size ([`crate::Bytes`]); `bin` writes the
    /// buffer's `buffer_len` bytes.
    fn write_exactly(
        &self,
        bin: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
    ) -> Result<crate::Bytes, Error> {
        crate::Bytes::write_exactly(self.total, |out| self.write(out, |w| bin(w))).map_err(|e| {
            Error::SizeMismatch {
                planned: self.total as u64,
                reason: e.to_string(),
            }
        })
    }

    /// Writes the container; `bin` writes the buffer's `buffer_len` bytes.
    fn write<W: Write + ?Sized>(
        &self,
        out: &mut W,
        bin: impl FnOnce(&mut W) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        // Checked in `new`: every length is at most `total`.
        let u32_of = |n: usize| u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes();
        let json_len = self.json.len().next_multiple_of(4);
        out.write_all(b"glTF")?;
        out.write_all(&2u32.to_le_bytes())?;
        out.write_all(&u32_of(self.total))?;
        out.write_all(&u32_of(json_len))?;
        out.write_all(b"JSON")?;
        out.write_all(self.json)?;
        out.write_all(b"   ".get(..json_len - self.json.len()).unwrap_or_default())?;
        if self.bin_len > 0 {
            out.write_all(&u32_of(self.bin_len))?;
            out.write_all(b"BIN\0")?;
            bin(out)?;
            out.write_all([0u8; 3].get(..self.bin_pad).unwrap_or_default())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod json_estimate_tests {
    use super::{json_estimate, Gltf, GltfOptions};
    use crate::scene::Scene;

    /// On every fixture and sample of the five formats, the estimate covers the JSON (so the
    /// one pass never grows its vector) and stays within four times it plus 4 KiB (so the
    /// vector wastes little).
    #[test]
    fn the_json_estimate_covers_every_fixtures_json_and_wastes_little() {
        let mut checked = 0;
        for ext in ["bmf", "smf", "mdl", "elem", "skm"] {
            for path in test_support::fixtures_and_samples(ext) {
                let Ok(doc) = crate::open(&path) else {
                    continue;
                };
                let Ok(conversion) = Scene::from_document(&doc) else {
                    continue;
                };
                let valid = conversion.validated();
                let Ok(gltf) = Gltf::from_scene(&valid.scene, &GltfOptions::default()) else {
                    continue;
                };
                let json = serde_json::to_vec(&gltf.root).unwrap();
                let estimate = json_estimate(&gltf.root);
                assert!(
                    estimate >= json.len(),
                    "{}: {estimate} < {}",
                    path.display(),
                    json.len()
                );
                assert!(
                    estimate <= 4 * json.len() + 4096,
                    "{}: {estimate} for {}",
                    path.display(),
                    json.len()
                );
                checked += 1;
            }
        }
        assert!(checked >= 40, "only {checked} files converted");
    }
}
