//! Texture references: relative URIs by default, or images embedded from beside the input.

use std::path::{Path, PathBuf};

/// The result of looking a texture path up for embedding.
pub(crate) enum Embedded {
    /// PNG or JPEG bytes and their MIME type.
    Image(Vec<u8>, &'static str),
    /// Not embedded; the reason (for a warning).
    Refused(String),
}

/// Splits a texture path as written in a model (either separator) into its components,
/// and says whether it is absolute (`/x`, `\x`, `C:\x`, `\\server\x`).
fn split(raw: &str) -> (bool, Vec<&str>) {
    let bytes = raw.as_bytes();
    let drive = matches!(bytes, [d, b':', ..] if d.is_ascii_alphabetic());
    let absolute = drive || raw.starts_with('/') || raw.starts_with('\\');
    let rest = if drive {
        raw.get(2..).unwrap_or_default()
    } else {
        raw
    };
    let parts = rest
        .split(['/', '\\'])
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    (absolute, parts)
}

/// The relative URI a texture path is written as (separators become `/`, everything outside
/// the unreserved set is percent-encoded). An absolute path keeps only its file name, and the
/// second value says so (for a warning).
pub(crate) fn relative_uri(raw: &str) -> Option<(String, bool)> {
    let (absolute, parts) = split(raw);
    if absolute {
        let name = parts.last()?;
        return Some((percent_encode(name), true));
    }
    if parts.is_empty() {
        return None;
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

/// Resolves `raw` against `base` for embedding. Refuses absolute paths and paths that leave
/// `base` (lexically through `..`, or through a symbolic link) unless `allow_outside`.
fn resolve(base: &Path, raw: &str, allow_outside: bool) -> Result<PathBuf, String> {
    let (absolute, parts) = split(raw);
    if absolute && !allow_outside {
        return Err(format!(
            "texture path {raw:?} is absolute; refused (use --allow-outside-textures to read it)"
        ));
    }
    let mut rel: Vec<&str> = Vec::new();
    for part in parts {
        if part == ".." {
            if rel.pop().is_none() {
                if !allow_outside {
                    return Err(format!(
                        "texture path {raw:?} leads out of the input's folder; refused (use --allow-outside-textures to read it)"
                    ));
                }
                rel.push("..");
            }
        } else {
            rel.push(part);
        }
    }
    let mut path = if absolute {
        let drive_or_root = if raw.starts_with(['/', '\\']) {
            "/"
        } else {
            ""
        };
        PathBuf::from(drive_or_root)
    } else {
        base.to_path_buf()
    };
    for part in &rel {
        path.push(part);
    }
    if !path.is_file() {
        // Files made on Windows name their textures in any case.
        if let Some(found) = case_insensitive(&path) {
            path = found;
        }
    }
    if !allow_outside && !absolute {
        if let (Ok(real), Ok(real_base)) = (path.canonicalize(), base.canonicalize()) {
            if !real.starts_with(&real_base) {
                return Err(format!(
                    "texture path {raw:?} leads out of the input's folder through a link; refused (use --allow-outside-textures to read it)"
                ));
            }
        }
    }
    Ok(path)
}

/// A file in the same folder whose name equals `path`'s ignoring ASCII case.
fn case_insensitive(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_str()?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .find(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.eq_ignore_ascii_case(name))
        })
        .map(|e| e.path())
}

/// Reads the image `raw` names (relative to `base`) and returns it as PNG or JPEG bytes.
pub(crate) fn embed(base: &Path, raw: &str, allow_outside: bool) -> Embedded {
    let path = match resolve(base, raw, allow_outside) {
        Ok(p) => p,
        Err(reason) => return Embedded::Refused(reason),
    };
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            return Embedded::Refused(format!(
                "texture {raw:?} not embedded: cannot read {}: {e}",
                path.display()
            ))
        }
    };
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Embedded::Image(bytes, "image/png");
    }
    if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        return Embedded::Image(bytes, "image/jpeg");
    }
    let decoded = match image::ImageFormat::from_path(&path) {
        Ok(format) => image::load_from_memory_with_format(&bytes, format),
        Err(_) => image::load_from_memory(&bytes),
    };
    let img = match decoded {
        Ok(img) => img,
        Err(e) => {
            return Embedded::Refused(format!(
                "texture {raw:?} not embedded: cannot decode {}: {e}",
                path.display()
            ))
        }
    };
    let mut png = std::io::Cursor::new(Vec::new());
    let encoded = img
        .write_to(&mut png, image::ImageFormat::Png)
        .or_else(|_| {
            png = std::io::Cursor::new(Vec::new());
            image::DynamicImage::ImageRgba8(img.to_rgba8())
                .write_to(&mut png, image::ImageFormat::Png)
        });
    match encoded {
        Ok(()) => Embedded::Image(png.into_inner(), "image/png"),
        Err(e) => Embedded::Refused(format!(
            "texture {raw:?} not embedded: cannot convert {} to PNG: {e}",
            path.display()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn escaping_paths_are_refused_unless_allowed() {
        let base = Path::new("/nonexistent/models");
        assert!(resolve(base, r"..\x.png", false).is_err());
        assert!(resolve(base, "a/../../x.png", false).is_err());
        assert!(resolve(base, "/etc/x.png", false).is_err());
        assert!(resolve(base, r"C:\x.png", false).is_err());
        assert_eq!(
            resolve(base, r"a\..\tex\x.png", false).unwrap(),
            base.join("tex/x.png")
        );
        assert_eq!(
            resolve(base, "../x.png", true).unwrap(),
            base.join("../x.png")
        );
    }
}
