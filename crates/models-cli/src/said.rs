//! Warnings as the CLI prints them: grouped by kind (one line per kind with a count) by
//! default, each one with `-v`, none with `--quiet`. Notes (what a conversion always does with
//! a part glTF cannot carry, true of every file that has it) are shown only with `-v`.

use models::scene::{SceneWarning, SceneWarningKind};
use std::fmt::Write as _;
use std::path::Path;
use std::sync::OnceLock;

/// How much the CLI says about warnings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Verbosity {
    /// No warnings or notes.
    Quiet,
    /// One line per kind of warning; no notes.
    #[default]
    Grouped,
    /// Every warning and note.
    Verbose,
}

static VERBOSITY: OnceLock<Verbosity> = OnceLock::new();

pub(crate) fn set_verbosity(v: Verbosity) {
    // Set once, from main, before anything is printed.
    let _ = VERBOSITY.set(v);
}

fn verbosity() -> Verbosity {
    VERBOSITY.get().copied().unwrap_or_default()
}

/// Whether `-v` was given: every warning and note is printed.
pub(crate) fn is_verbose() -> bool {
    verbosity() == Verbosity::Verbose
}

/// Whether `-q` was given: no warning or note is printed.
pub(crate) fn is_quiet() -> bool {
    verbosity() == Verbosity::Quiet
}

/// One warning: its text, the key of its kind (warnings of one kind differ only in numbers
/// and quoted names), and whether it is a note.
#[derive(Debug, Clone)]
pub(crate) struct Said {
    text: String,
    kind: String,
    note: bool,
}

impl Said {
    /// A reader's typed warning (a model reader's, or the pack reader's): its kind is its
    /// variant (`Mdl(CurveTarget…)`, `DataCrcMismatch`).
    pub(crate) fn reader(w: &(impl std::fmt::Debug + std::fmt::Display)) -> Self {
        // `Mdl(NonBoneCurve { .. })` → `Mdl(NonBoneCurve`; a crate whose warning is a struct
        // with a `kind` field (`Smf(Warning { offset: 24, kind: UnknownChunk { .. } })`) →
        // `Smf(UnknownChunk`.
        let debug = format!("{w:?}");
        let variant = |s: &str| -> String {
            s.split([' ', '{', ',', '('])
                .next()
                .unwrap_or_default()
                .to_string()
        };
        let format = variant(&debug);
        let inner = match debug.find("kind: ") {
            Some(at) => variant(&debug[at + "kind: ".len()..]),
            None => variant(debug.get(format.len() + 1..).unwrap_or_default()),
        };
        let kind = format!("{format}({inner}");
        Self {
            text: escape(&w.to_string()),
            kind,
            note: false,
        }
    }

    /// Any other warning (the glTF reader's): its kind is its text with numbers and quoted
    /// names blanked.
    pub(crate) fn plain(text: &str) -> Self {
        Self {
            kind: kind_of_text(text),
            text: escape(text),
            note: false,
        }
    }

    /// A conversion's (or the glTF writer's) warning.
    pub(crate) fn scene(w: &SceneWarning) -> Self {
        let text = match w.kind() {
            // The library names no option; the CLI names its own.
            SceneWarningKind::SmfRateGuess => {
                format!("{w} (set it with --smf-ticks-per-second)")
            }
            _ => with_flags(&w.to_string()),
        };
        Self {
            kind: kind_of_text(&text),
            text: escape(&text),
            note: w.kind() == SceneWarningKind::Note,
        }
    }
}

impl Said {
    /// The glTF reader's warning: `JSON-PATH: what`; its kind is the text with the numbers of
    /// the path blanked (`meshes[#].primitives[#]: …`).
    pub(crate) fn gltf_reader(w: &models::gltf::ReadWarning) -> Self {
        let text = w.to_string();
        Self {
            kind: format!("gltf:{}", kind_of_text(&text)),
            text: escape(&text),
            note: false,
        }
    }

    /// A warning of the command line's own (an option that did nothing for this file, …).
    pub(crate) fn cli(text: &str) -> Self {
        Self {
            kind: format!("cli:{}", kind_of_text(text)),
            text: escape(text),
            note: false,
        }
    }
}

/// The text with its numbers and quoted names blanked: `bone 3 "Arm"` → `bone # "…"`.
fn kind_of_text(text: &str) -> String {
    let mut kind = String::with_capacity(text.len());
    let mut in_quote = false;
    let mut in_number = false;
    for c in text.chars() {
        // A number runs on through hex digits, `x` and `.` (`0x1a`, `1.5`).
        if in_number && (c.is_ascii_hexdigit() || c == 'x' || c == '.') {
            continue;
        }
        in_number = false;
        if c == '"' {
            in_quote = !in_quote;
            if in_quote {
                kind.push_str("\"…");
            } else {
                kind.push('"');
            }
        } else if in_quote {
        } else if c.is_ascii_digit() {
            in_number = true;
            kind.push('#');
        } else {
            kind.push(c);
        }
    }
    kind
}

/// Control characters (from names inside a file) written as escapes, so that a file cannot
/// move the cursor or recolour the terminal.
pub(crate) fn escape(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return text.to_string();
    }
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().collect()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// A path as the CLI prints it: control characters escaped as [`escape`] does, and bytes that
/// are not UTF-8 (a CP932 name unpacked by an old archiver) as `\xNN`, so that two such names
/// are told apart instead of both showing U+FFFD. Every path in a message goes through here.
pub(crate) fn shown(path: &Path) -> String {
    let bytes = path.as_os_str().as_encoded_bytes();
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(&escape(chunk.valid()));
        for b in chunk.invalid() {
            // Writing to a String cannot fail.
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    out
}

/// What went wrong with `path`, in words a user acts on: "file does not exist" rather than the
/// system's "No such file or directory" (or "entity not found"); `folder` when a folder was
/// expected. An error with its own words (the library's "folder does not exist") keeps them.
pub(crate) fn io_text(path: &Path, e: &std::io::Error, folder: bool) -> String {
    let path = shown(path);
    if e.kind() == std::io::ErrorKind::NotFound && e.get_ref().is_none() {
        let what = if folder { "folder" } else { "file" };
        format!("{path}: {what} does not exist")
    } else {
        format!("{path}: {e}")
    }
}

/// A library error as printed: a missing file said plainly, control characters escaped, and
/// the command line's flags named (see [`hinted`]).
pub(crate) fn error_text(e: &models::Error) -> String {
    if let models::Error::Path { path, source } = e {
        if let models::Error::Io(io) = source.as_ref() {
            return io_text(path, io, false);
        }
    }
    let text = escape(&hinted(e));
    // The library's text spells the path it names lossily (`Path::display`); the CLI shows
    // every byte of it.
    match e.path() {
        Some(path) if path.to_str().is_none() => {
            text.replacen(&escape(&path.display().to_string()), &shown(path), 1)
        }
        _ => text,
    }
}

/// An error line as printed: `error: ` and the text with control characters escaped (a name
/// from a file inside a message cannot reach the terminal as it is).
pub(crate) fn error_line(text: &str) -> String {
    format!("error: {}", escape(text))
}

/// A library error's text with the command line's flags: option names replaced by flags
/// ([`with_flags`]) and, for an output that exists, the flag that replaces it.
fn hinted(e: &models::Error) -> String {
    let mut inner = e;
    while let models::Error::Path { source, .. } = inner {
        inner = source;
    }
    let text = with_flags(&e.to_string());
    match inner {
        models::Error::OutputExists(_) => format!("{text} (use --force to overwrite)"),
        _ => text,
    }
}

/// The library names its own options (`GltfOptions::texture_dirs`, …) in its messages; the
/// command line names the flags that set them instead.
const FLAGS: [(&str, &str); 3] = [
    (
        "GltfOptions::allow_outside_textures",
        "--allow-outside-textures",
    ),
    ("GltfOptions::texture_dirs", "--texture-dir"),
    ("SceneOptions::bmf_fps", "--bmf-fps"),
];

/// `text` with the library's option names replaced by the command line's flags.
pub(crate) fn with_flags(text: &str) -> String {
    FLAGS
        .iter()
        .fold(text.to_owned(), |t, (option, flag)| t.replace(option, flag))
}

/// The lines to print for `path`'s warnings at the current verbosity.
pub(crate) fn lines(path: &Path, said: &[Said]) -> Vec<String> {
    let path = shown(path);
    match verbosity() {
        Verbosity::Quiet => Vec::new(),
        Verbosity::Verbose => said
            .iter()
            .map(|s| {
                let label = if s.note { "note" } else { "warning" };
                format!("{label}: {path}: {}", s.text)
            })
            .collect(),
        Verbosity::Grouped => {
            // Kinds in the order they first appear, each with its first text and a count.
            let mut groups: Vec<(&str, &str, usize)> = Vec::new();
            for s in said.iter().filter(|s| !s.note) {
                match groups.iter_mut().find(|g| g.0 == s.kind) {
                    Some(g) => g.2 += 1,
                    None => groups.push((&s.kind, &s.text, 1)),
                }
            }
            groups
                .into_iter()
                .map(|(_, text, n)| match n {
                    1 => format!("warning: {path}: {text}"),
                    n => format!(
                        "warning: {path}: {text} (and {} more like it; -v lists each)",
                        n - 1
                    ),
                })
                .collect()
        }
    }
}

/// Whether any of `said` is printed as a warning (not a note) at the current verbosity's
/// grouping: what the batch summary counts as "warned".
pub(crate) fn any_warning(said: &[Said]) -> bool {
    said.iter().any(|s| !s.note)
}

/// Prints `path`'s warnings on stderr.
pub(crate) fn print(path: &Path, said: &[Said]) {
    for line in lines(path, said) {
        eprintln!("{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_blank_numbers_and_quoted_names() {
        assert_eq!(
            kind_of_text("at byte 0x1a: curve target \"Lamp.x\" of 12"),
            "at byte #: curve target \"…\" of #"
        );
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(escape("a\u{1b}[2Jb\n"), "a\\u{1b}[2Jb\\n");
        assert_eq!(escape("plain"), "plain");
    }

    /// Bytes that are not UTF-8 are shown one by one, so two such names differ on screen;
    /// Japanese names that are UTF-8 are shown as they are.
    #[cfg(unix)]
    #[test]
    fn paths_show_bytes_that_are_not_utf8() {
        use std::os::unix::ffi::OsStrExt;
        let cp932 = Path::new(std::ffi::OsStr::from_bytes(b"dir/\x83e\x83X\x83g.smf"));
        assert_eq!(shown(cp932), "dir/\\x83e\\x83X\\x83g.smf");
        assert_eq!(
            shown(Path::new("電車/a\u{1b}[31m.smf")),
            "電車/a\\u{1b}[31m.smf"
        );
    }
}
