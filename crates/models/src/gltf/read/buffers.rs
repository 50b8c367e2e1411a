//! The container (GLB or JSON), the checks on the whole document, and the buffers.

use super::json_cost::json_cost;
use super::{reading_limit, ReadError, ReadOptions, ReadWarning, ReadWarningKind};
use crate::gltf::json;
use crate::gltf::Container;
use crate::Bytes;
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

/// Extensions this reader understands when a file requires them.
const SUPPORTED_REQUIRED: &[&str] = &["KHR_mesh_quantization"];

const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;

/// Which glTF container `head` (the first bytes of a file) is: `.glb` (magic `glTF`) or
/// `.gltf` (a JSON object with an `"asset"` member among its first bytes). Not part of
/// [`crate::detect`], whose [`crate::Format`] lists the five model formats only.
pub fn detect(head: &[u8]) -> Option<Container> {
    if head.starts_with(b"glTF") {
        return Some(Container::Glb);
    }
    let text = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let start = text.iter().position(|b| !b.is_ascii_whitespace())?;
    let rest = text.get(start..)?;
    // `"asset"` is required at the top level; generators write it first or near the start.
    if rest.first() == Some(&b'{') && rest.windows(7).any(|w| w == b"\"asset\"") {
        return Some(Container::Gltf);
    }
    None
}

/// A parsed glTF document and its embedded binary chunk.
pub(crate) struct Asset<'a> {
    pub root: json::Root,
    pub bin: Option<&'a [u8]>,
    pub input_len: u64,
    /// What the JSON's objects take in memory once read ([`json_cost`]).
    pub json_cost: u64,
    pub warnings: Vec<ReadWarning>,
}

fn warn(warnings: &mut Vec<ReadWarning>, at: &str, kind: ReadWarningKind) {
    warnings.push(ReadWarning {
        at: at.to_string(),
        kind,
    });
}

fn read_u32(bytes: &[u8], at: usize) -> Option<u32> {
    let b: [u8; 4] = bytes.get(at..at.checked_add(4)?)?.try_into().ok()?;
    Some(u32::from_le_bytes(b))
}

fn glb_error(offset: usize, message: impl Into<String>) -> ReadError {
    ReadError::Glb {
        offset: offset as u64,
        message: message.into(),
    }
}

impl<'a> Asset<'a> {
    /// Parses a `.glb` or `.gltf` JSON from memory and checks it as a whole.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, ReadError> {
        let mut warnings = Vec::new();
        let (json, bin) = if bytes.starts_with(b"glTF") {
            glb_chunks(bytes, &mut warnings)?
        } else {
            (bytes, None)
        };
        // Before anything is built: the JSON's objects are charged to the reading budget.
        let limit = reading_limit(bytes.len() as u64);
        let json_cost = json_cost(json, limit)?;
        let root: json::Root = serde_json::from_slice(json).map_err(|e| ReadError::Json {
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
        let mut asset = Asset {
            root,
            bin,
            input_len: bytes.len() as u64,
            json_cost,
            warnings,
        };
        // Not `gltf-json`'s own validation: it indexes arrays unchecked (a POSITION accessor
        // out of range panics). Every index is checked where it is used instead.
        asset.check_extensions()?;
        Ok(asset)
    }

    fn check_extensions(&mut self) -> Result<(), ReadError> {
        for (i, name) in self.root.extensions_required.iter().enumerate() {
            if !SUPPORTED_REQUIRED.contains(&name.as_str()) {
                return Err(ReadError::UnsupportedExtension {
                    at: format!("extensionsRequired[{i}]"),
                    name: name.clone(),
                });
            }
        }
        for (i, name) in self.root.extensions_used.iter().enumerate() {
            if !SUPPORTED_REQUIRED.contains(&name.as_str()) {
                warn(
                    &mut self.warnings,
                    &format!("extensionsUsed[{i}]"),
                    ReadWarningKind::NotCarried {
                        what: format!("the extension {name}"),
                    },
                );
            }
        }
        Ok(())
    }

    /// Every buffer's bytes: the GLB's BIN chunk, a `data:` URI, or (with `base`) a file
    /// beside the `.gltf`. Each is exactly `byteLength` long.
    pub fn load_buffers(
        &self,
        base: Option<&Path>,
        options: &ReadOptions,
    ) -> Result<Loaded<'a>, ReadError> {
        let mut files: HashMap<PathBuf, std::rc::Rc<Bytes>> = HashMap::new();
        let mut buffers = Vec::with_capacity(self.root.buffers.len());
        let mut input_len = self.input_len;
        for (i, buffer) in self.root.buffers.iter().enumerate() {
            let at = format!("buffers[{i}]");
            let length = usize::try_from(buffer.byte_length.0)
                .map_err(|_| ReadError::invalid(&at, "byteLength beyond this machine's memory"))?;
            let data: Source<'a> = match buffer.uri.as_deref() {
                None if i == 0 => match self.bin {
                    Some(bin) => Source::Borrowed(bin),
                    None => return Err(ReadError::invalid(at, "no uri and no GLB BIN chunk")),
                },
                None => {
                    return Err(ReadError::invalid(
                        at,
                        "no uri (only the first buffer of a GLB may have none)",
                    ))
                }
                Some(uri) if uri.starts_with("data:") => Source::Owned(std::rc::Rc::new(
                    Bytes::from(data_uri(uri).ok_or_else(|| {
                        ReadError::invalid(&at, "a data: URI that is not base64 application data")
                    })?),
                )),
                Some(uri) => {
                    let path =
                        resolve(uri, base, options).map_err(|message| ReadError::Resource {
                            at: format!("{at}.uri"),
                            message,
                        })?;
                    if let Some(data) = files.get(&path) {
                        Source::Owned(data.clone())
                    } else {
                        let data =
                            crate::input::read_input(&path).map_err(|e| ReadError::Resource {
                                at: format!("{at}.uri"),
                                message: e.to_string(),
                            })?;
                        input_len = input_len.saturating_add(data.len() as u64);
                        let data = std::rc::Rc::new(data);
                        files.insert(path, data.clone());
                        Source::Owned(data)
                    }
                }
            };
            if data.bytes().len() < length {
                return Err(ReadError::invalid(
                    at,
                    format!(
                        "byteLength {length} but only {} bytes of data",
                        data.bytes().len()
                    ),
                ));
            }
            buffers.push((data, length));
        }
        Ok(Loaded {
            buffers,
            input_len,
            json_cost: self.json_cost,
            shared: None,
        })
    }
}

/// A buffer's bytes, borrowed from the GLB or owned.
pub(crate) enum Source<'a> {
    Borrowed(&'a [u8]),
    /// A `data:` URI's bytes, or an external file's (mapped when large: `input::read_input`).
    Owned(std::rc::Rc<Bytes>),
}

impl Source<'_> {
    fn bytes(&self) -> &[u8] {
        match self {
            Source::Borrowed(b) => b,
            Source::Owned(v) => v,
        }
    }
}

/// The buffers, and the input's total size (the GLB or `.gltf` and every external file).
pub(crate) struct Loaded<'a> {
    buffers: Vec<(Source<'a>, usize)>,
    pub input_len: u64,
    /// What the JSON's objects already take of the reading budget.
    pub json_cost: u64,
    /// The whole input, when the reader owns it: tightly packed accessors of the GLB's own
    /// buffer are then read as views of it ([`crate::scene::Array`]), not copied.
    pub shared: Option<std::sync::Arc<crate::Bytes>>,
}

impl Loaded<'_> {
    /// Buffer `i`, cut to its `byteLength`.
    pub fn buffer(&self, i: usize) -> Option<&[u8]> {
        let (source, length) = self.buffers.get(i)?;
        source.bytes().get(..*length)
    }
}

/// The JSON and BIN chunks of a GLB.
fn glb_chunks<'a>(
    bytes: &'a [u8],
    warnings: &mut Vec<ReadWarning>,
) -> Result<(&'a [u8], Option<&'a [u8]>), ReadError> {
    let version = read_u32(bytes, 4).ok_or_else(|| glb_error(4, "truncated header"))?;
    if version != 2 {
        return Err(glb_error(4, format!("version {version}, not 2")));
    }
    let length = read_u32(bytes, 8).ok_or_else(|| glb_error(8, "truncated header"))? as usize;
    if length > bytes.len() {
        return Err(glb_error(
            8,
            format!("length {length} but the file has {} bytes", bytes.len()),
        ));
    }
    if length < bytes.len() {
        warn(
            warnings,
            "GLB",
            ReadWarningKind::Container {
                message: format!(
                    "{} bytes after the stated length {length} ignored",
                    bytes.len() - length
                ),
            },
        );
    }
    let bytes = bytes.get(..length).unwrap_or(bytes);
    let mut at = 12;
    let mut json = None;
    let mut bin = None;
    while at < bytes.len() {
        let chunk_len =
            read_u32(bytes, at).ok_or_else(|| glb_error(at, "truncated chunk header"))?;
        let kind =
            read_u32(bytes, at + 4).ok_or_else(|| glb_error(at + 4, "truncated chunk header"))?;
        let start = at + 8;
        let data = start
            .checked_add(chunk_len as usize)
            .and_then(|end| bytes.get(start..end))
            .ok_or_else(|| {
                glb_error(
                    at,
                    format!("chunk of {chunk_len} bytes runs past the end ({length})"),
                )
            })?;
        match kind {
            CHUNK_JSON if json.is_none() && at == 12 => json = Some(data),
            CHUNK_BIN if bin.is_none() && json.is_some() => bin = Some(data),
            CHUNK_JSON | CHUNK_BIN => {
                return Err(glb_error(at, "a JSON or BIN chunk out of place"));
            }
            other => warn(
                warnings,
                &format!("GLB byte {at}"),
                ReadWarningKind::Container {
                    message: format!("unknown chunk type {other:#010x} skipped"),
                },
            ),
        }
        at = start + data.len();
    }
    let json = json.ok_or_else(|| glb_error(12, "no JSON chunk"))?;
    Ok((json, bin))
}

/// The bytes of a base64 `data:` URI.
fn data_uri(uri: &str) -> Option<Vec<u8>> {
    let (head, payload) = uri.split_once(',')?;
    if !head.ends_with(";base64") {
        return None;
    }
    base64(payload.as_bytes())
}

/// Standard base64 (padding optional); `None` on any other character.
fn base64(text: &[u8]) -> Option<Vec<u8>> {
    let text = text
        .strip_suffix(b"==")
        .or_else(|| text.strip_suffix(b"="))
        .unwrap_or(text);
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 3);
    let mut acc = 0u32;
    let mut bits = 0u32;
    for &c in text {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// `%XX` escapes decoded (the rest kept); `None` if the result is not UTF-8.
pub(crate) fn percent_decode(uri: &str) -> Option<String> {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let hex = |k: usize| bytes.get(k).and_then(|&h| (h as char).to_digit(16));
        match (b, hex(i + 1), hex(i + 2)) {
            (b'%', Some(hi), Some(lo)) => {
                out.push((hi * 16 + lo) as u8);
                i += 3;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// The file a relative buffer URI names, refused when it is absolute, has a scheme, or leads
/// out of `base` (unless allowed).
fn resolve(uri: &str, base: Option<&Path>, options: &ReadOptions) -> Result<PathBuf, String> {
    let Some(base) = base else {
        return Err(format!(
            "external buffer {uri:?}: reading from memory, there is no folder to resolve it in"
        ));
    };
    let scheme = uri
        .split_once(':')
        .is_some_and(|(s, _)| !s.is_empty() && !s.contains('/') && s.len() > 1);
    if scheme {
        return Err(format!("buffer URI {uri:?} is not a relative file path"));
    }
    let decoded = percent_decode(uri).ok_or_else(|| format!("buffer URI {uri:?} is not UTF-8"))?;
    let relative = Path::new(&decoded);
    let outside = relative
        .components()
        .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir));
    if outside && !options.allow_outside {
        return Err(format!(
            "buffer URI {uri:?} leads out of the glTF's folder (refused unless allowed)"
        ));
    }
    Ok(base.join(relative))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_decodes_with_and_without_padding() {
        assert_eq!(base64(b"aGVsbG8=").unwrap(), b"hello");
        assert_eq!(base64(b"aGVsbG8").unwrap(), b"hello");
        assert_eq!(base64(b"AAEC").unwrap(), [0, 1, 2]);
        assert!(base64(b"a*b").is_none());
    }

    #[test]
    fn uris_leading_out_are_refused() {
        let base = Path::new("/tmp/x");
        let o = ReadOptions::default();
        assert!(resolve("a%20b.bin", Some(base), &o)
            .unwrap()
            .ends_with("a b.bin"));
        for bad in [
            "../a.bin",
            "/etc/passwd",
            "%2E%2E/a.bin",
            "file:///a.bin",
            "sub/../../a",
        ] {
            assert!(resolve(bad, Some(base), &o).is_err(), "{bad}");
        }
        assert!(resolve(
            "../a.bin",
            Some(base),
            &ReadOptions {
                allow_outside: true
            }
        )
        .is_ok());
        assert!(resolve("a.bin", None, &o).is_err());
    }

    #[test]
    fn detection() {
        assert_eq!(detect(b"glTF\x02\0\0\0"), Some(Container::Glb));
        assert_eq!(detect(b" {\n \"asset\": {}}"), Some(Container::Gltf));
        assert_eq!(detect(b"{\"x\": 1}"), None);
        assert_eq!(detect(b""), None);
    }
}
