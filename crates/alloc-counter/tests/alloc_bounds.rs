//! Issue 8: allocation and time bounds of every reader, measured with a counting allocator.
//!
//! * A file of at most 64 bytes (ELEM: 128, see below) whose counts or sizes claim gigabytes fails
//!   with a peak allocation under 1 MiB. Its time is printed, not asserted (a loaded machine
//!   would make a timing assertion flaky); [`HUNG`] only catches a reader that loops over a
//!   claimed count.
//! * Reading any fixture or sample peaks under 2 × the file size + 1 MiB.
//! * Text formats: a 100 MB line without a newline, scopes nested 100 000 deep and a number of
//!   10 000 digits fail cleanly (an error, no panic, bounded memory).
//!
//! The counters are per thread (see `alloc_counter`), so the test harness's parallel threads do
//! not disturb each other's measurements.

use alloc_counter::{measure, Counting};
use bmf_block::Model as _;
use std::time::{Duration, Instant};

#[global_allocator]
static ALLOC: Counting = Counting;

const MIB: usize = 1 << 20;

/// A hang guard, not a timing assertion: each hostile file is refused in microseconds, and a
/// reader that looped over its claimed billions of elements would take far longer than this.
const HUNG: Duration = Duration::from_secs(10);

/// Parses `bytes` with `parse`, returning whether it failed, the peak allocation and the time.
fn run<T, E>(bytes: &[u8], parse: impl FnOnce(&[u8]) -> Result<T, E>) -> (bool, usize, Duration) {
    let start = Instant::now();
    let (failed, peak) = measure(|| parse(bytes).is_err());
    (failed, peak, start.elapsed())
}

/// The tiny hostile files, one or more per format, each at most 64 bytes.
fn hostile_files() -> Vec<(&'static str, Vec<u8>)> {
    let mut out = Vec::new();

    // BMF: a vertex block claiming 0xFFFF_FFE0 bytes; a material block claiming u32::MAX.
    let bmf = |header: &[u8; 6], blocks: &[(u32, u32)]| {
        let mut b = header.to_vec();
        b.resize(16, 0);
        for (kind, size) in blocks {
            b.extend(kind.to_le_bytes());
            b.extend(size.to_le_bytes());
        }
        b.extend([0; 16]);
        b
    };
    out.push(("bmf vertex block 4 GB", bmf(b"BDV1.0", &[(0, 0xFFFF_FFE0)])));
    out.push((
        "bmf material block 4 GB",
        bmf(b"BDV1.0", &[(0, 0), (1, 0), (3, u32::MAX)]),
    ));
    out.push(("bmf BDV1.1 multi 4 GB", bmf(b"BDV1.1", &[(9, u32::MAX)])));

    // SMF: a MESH chunk claiming 2 GB; a MESH claiming 2^31 - 1 meshes in the header.
    let smf_head = |meshes: i32| {
        let mut b = selene_smf::ChunkId::SMF.0.to_vec();
        b.extend(16i32.to_le_bytes());
        for v in [selene_smf::GUID as i32, meshes, 0, 0] {
            b.extend(v.to_le_bytes());
        }
        b
    };
    let mut smf = smf_head(1);
    smf.extend(selene_smf::ChunkId::MESH.0);
    smf.extend(0x7FFF_FFF0i32.to_le_bytes());
    smf.extend([0; 16]);
    out.push(("smf MESH chunk 2 GB", smf));
    out.push(("smf 2^31-1 meshes", smf_head(i32::MAX)));

    // MDL: 2^31 - 1 bones; 2^31 - 1 mesh groups.
    for (what, at) in [("mdl 2^31-1 bones", 8usize), ("mdl 2^31-1 vertices", 12)] {
        let mut b = b"MDL\0\x01\0\0\0".to_vec();
        b.resize(64, 0);
        b[at..at + 4].copy_from_slice(&i32::MAX.to_le_bytes());
        out.push((what, b));
    }

    // ELEM: counts near i64::MAX and u32::MAX.
    const HEAD: &str = "Elfreina Extension Model File\nFile Version 1.00\n";
    out.push((
        "elem MeshContainerCount i64::MAX",
        format!("{HEAD}MeshDataList{{\nMeshContainerCount=9223372036854775807\n}}").into_bytes(),
    ));
    out.push((
        "elem AnimationCount 4e9",
        format!("{HEAD}AnimationList{{\nAnimationCount=4000000000\n}}").into_bytes(),
    ));

    // SKM: every section claiming 2^32 - 1 entries.
    for text in [
        "Vertices: 4294967295\r\n0 0 0\r\n",
        "Vertices: 0\r\nIndices: 4294967295\r\n",
        "Vertices: 0\r\nIndices: 0\r\nAdjacency: 4294967295\r\n",
        "Vertices: 0\r\nIndices: 0\r\nAdjacency: 0\r\nMaterials: 4000000000\r\n",
    ] {
        out.push(("skm huge count", text.as_bytes().to_vec()));
    }
    out
}

#[test]
fn tiny_files_claiming_gigabytes_fail_fast_and_small() {
    let mut formats = std::collections::BTreeSet::new();
    for (what, bytes) in hostile_files() {
        // ELEM's fixed two-line header alone takes 48 bytes and no count can be declared
        // outside a named list scope, so its shortest count-claiming file is about 100 bytes.
        let limit = if what.starts_with("elem") { 128 } else { 64 };
        assert!(bytes.len() <= limit, "{what}: {} bytes", bytes.len());
        let format = models::detect(&bytes).unwrap_or_else(|| panic!("{what}: not detected"));
        formats.insert(format.to_string());
        // Warm up once (lazy statics, first-touch page faults), then measure.
        let _ = models::from_bytes(&bytes);
        let (failed, peak, time) = run(&bytes, models::from_bytes);
        assert!(failed, "{what}: accepted");
        assert!(peak < MIB, "{what}: peak {peak} bytes");
        assert!(time < HUNG, "{what}: hung ({time:?})");
        eprintln!("{what}: refused in {time:?}, peak {peak} bytes");
        // The format crate directly, too (the facade adds nothing, but be sure).
        let direct = match format {
            models::Format::Bmf => run(&bytes, bmf_block::Bmf::from_bytes).1,
            models::Format::Smf => run(&bytes, selene_smf::Smf::from_bytes).1,
            models::Format::Mdl => run(&bytes, mdl_format::Mdl::from_bytes).1,
            models::Format::Elem => run(&bytes, elfreina_elem::Elem::from_bytes).1,
            models::Format::Skm => run(&bytes, skm_text::Skm::from_bytes).1,
        };
        assert!(direct < MIB, "{what}: direct peak {direct} bytes");
    }
    assert_eq!(
        formats.len(),
        5,
        "one case per format at least: {formats:?}"
    );
}

/// Every fixture (always) and sample (when the shared folder is present) of every format.
fn all_files() -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for (fmt, ext) in [
        ("bmf", "bmf"),
        ("smf", "smf"),
        ("mdl", "mdl"),
        ("elem", "elem"),
        ("skm", "skm"),
    ] {
        files.extend(test_support::fixtures(fmt, ext));
        files.extend(test_support::samples(fmt, ext).unwrap_or_default());
    }
    files
}

#[test]
fn reading_peaks_under_twice_the_file_size_plus_one_mib() {
    let mut checked = 0;
    for path in all_files() {
        let bytes = test_support::read(&path);
        let (failed, peak, _) = run(&bytes, models::from_bytes);
        let bound = 2 * bytes.len() + MIB;
        assert!(
            peak < bound,
            "{}: peak {peak} bytes for a {}-byte file (bound {bound})",
            path.display(),
            bytes.len()
        );
        assert!(peak > 0, "{}: nothing counted", path.display());
        // Legacy MDL samples are refused by `Mdl` (UnsupportedLayout) but read by `LegacyMdl`.
        if failed {
            let (legacy_failed, peak, _) = run(&bytes, mdl_format::LegacyMdl::from_bytes);
            assert!(!legacy_failed, "{}: does not read", path.display());
            assert!(peak < bound, "{}: legacy peak {peak}", path.display());
        }
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} files");
}

const BIG: usize = 100_000_000;

/// Asserts that `bytes` is refused by both text readers' paths without panicking, in bounded
/// memory (the input itself is not counted: it was allocated before).
fn refused_cleanly(what: &str, bytes: &[u8]) {
    let (failed, peak, time) = run(bytes, models::from_bytes);
    assert!(failed, "{what}: accepted");
    assert!(
        peak < 2 * bytes.len() + MIB,
        "{what}: peak {peak} for {} bytes",
        bytes.len()
    );
    eprintln!("{what}: refused in {time:?}, peak {peak} bytes");
}

#[test]
fn elem_hundred_megabyte_line_fails_cleanly() {
    let mut text = b"Elfreina Extension Model File\nFile Version 1.00\nMeshDataList {\n".to_vec();
    text.resize(text.len() + BIG, b'a');
    refused_cleanly("elem 100 MB line", &text);
    let mut quoted = b"Elfreina Extension Model File\nFile Version 1.00\nName=\"".to_vec();
    quoted.resize(quoted.len() + BIG, b'a');
    refused_cleanly("elem 100 MB unterminated string", &quoted);
}

#[test]
fn skm_hundred_megabyte_line_fails_cleanly() {
    let mut text = b"Vertices: 1\r\n".to_vec();
    text.resize(text.len() + BIG, b'0');
    refused_cleanly("skm 100 MB number line", &text);
    let mut name = b"Vertices: 0\r\nIndices: 0\r\nAdjacency: 0\r\nMaterials: 1\r\n\"".to_vec();
    name.resize(name.len() + BIG, b'a');
    refused_cleanly("skm 100 MB unterminated name", &name);
}

#[test]
fn elem_nesting_one_hundred_thousand_deep_fails_cleanly() {
    let mut text = String::from("Elfreina Extension Model File\nFile Version 1.00\n");
    for _ in 0..100_000 {
        text.push_str("A {\n");
    }
    for _ in 0..100_000 {
        text.push_str("}\n");
    }
    let (result, _) = measure(|| elfreina_elem::Elem::from_bytes(text.as_bytes()));
    assert!(
        matches!(result, Err(elfreina_elem::Error::LimitExceeded { .. })),
        "{result:?}"
    );
    refused_cleanly("elem 100 000 deep", text.as_bytes());
    // Unclosed, too.
    let open = text.replace("}\n", "");
    refused_cleanly("elem 100 000 deep, unclosed", open.as_bytes());
}

#[test]
fn ten_thousand_digit_numbers_fail_cleanly() {
    let digits = "9".repeat(10_000);
    let elem = format!(
        "Elfreina Extension Model File\nFile Version 1.00\nMeshDataList {{\nMeshContainerCount={digits}\n}}\n"
    );
    refused_cleanly("elem 10 000-digit count", elem.as_bytes());
    let skm = format!("Vertices: {digits}\r\n");
    refused_cleanly("skm 10 000-digit count", skm.as_bytes());
    // A 10 000-digit float where a coordinate goes: refused (or, if the reader takes it as
    // infinity, at least no panic and bounded memory).
    let skm = format!("Vertices: 1\r\n{digits} 0 0 0 0 0 0 0 0 0 0 0 0\r\n");
    let (_, peak, _) = run(skm.as_bytes(), models::from_bytes);
    assert!(peak < MIB, "skm 10 000-digit float: peak {peak}");
}
