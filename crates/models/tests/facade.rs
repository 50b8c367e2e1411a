//! The facade: detection, Document, Summary, errors that name the path, safe output.

use models::{detect, Format};
use std::path::PathBuf;

const FOLDERS: [(&str, Format); 5] = [
    ("bmf", Format::Bmf),
    ("smf", Format::Smf),
    ("mdl", Format::Mdl),
    ("elem", Format::Elem),
    ("skm", Format::Skm),
];

fn every_fixture_and_sample() -> Vec<(Format, PathBuf)> {
    let mut files = Vec::new();
    for (folder, format) in FOLDERS {
        for p in test_support::fixtures(folder, folder) {
            files.push((format, p));
        }
        for p in test_support::samples(folder, folder).unwrap_or_default() {
            files.push((format, p));
        }
    }
    files
}

#[test]
fn every_fixture_and_sample_is_detected_from_its_first_64_bytes() {
    for (format, path) in every_fixture_and_sample() {
        let bytes = test_support::read(&path);
        let head = &bytes[..bytes.len().min(64)];
        assert_eq!(detect(head), Some(format), "{}", path.display());
        // Renaming does not change the answer: the extension only breaks ties.
        assert_eq!(
            models::detect_with_hint(head, "model.bmf"),
            Some(format),
            "{}",
            path.display()
        );
    }
}

#[test]
fn other_formats_sharing_the_extensions_are_not_detected() {
    let cases: [(&str, &[u8]); 7] = [
        (
            "Standard MIDI File (.smf)",
            b"MThd\0\0\0\x06\0\x01\0\x02\0\x60MTrk",
        ),
        ("Quake .mdl", b"IDPO\x06\0\0\0\0\0\x80\x3f\0\0\x80\x3f"),
        ("Source .mdl", b"IDST\x30\0\0\0\0\0\0\0\0\0\0\0"),
        ("AngelCode BMFont binary", b"BMF\x03\x01\x0e\0\0\0"),
        (
            "Temple of Elemental Evil .skm",
            b"\x02\0\0\0\x40\0\0\0\x10\0\0\0",
        ),
        ("empty", b""),
        ("text", b"hello world\n"),
    ];
    for (what, bytes) in cases {
        assert_eq!(detect(bytes), None, "{what}");
    }
}

#[test]
fn extensions_and_names() {
    assert_eq!(Format::from_path("a/b/Chara_R.BMF"), Some(Format::Bmf));
    assert_eq!(Format::from_path("x.elem"), Some(Format::Elem));
    assert_eq!(Format::from_path("x.obj"), None);
    for f in Format::ALL {
        assert_eq!(
            Format::from_path(format!("m.{}", f.extensions()[0])),
            Some(f)
        );
        assert!(f.is_enabled(), "default features enable {f}");
    }
    assert_eq!(models::MAGIC.len(), 5);
}

#[test]
fn every_fixture_and_sample_opens_and_writes_back() {
    for (format, path) in every_fixture_and_sample() {
        let bytes = test_support::read(&path);
        let doc = match models::open(&path) {
            Ok(doc) => doc,
            // The one negative sample: the 2014 development layout of MDL.
            Err(e) if path.to_string_lossy().contains("legacy") => {
                assert!(
                    e.to_string().contains("legacy") || e.to_string().contains("2014"),
                    "{e}"
                );
                assert!(e.path().is_some());
                continue;
            }
            Err(e) => panic!("{e}"),
        };
        assert_eq!(doc.format(), format);
        assert_eq!(doc.summary().format, format);
        let written = doc.to_bytes().unwrap();
        if matches!(format, Format::Bmf | Format::Smf | Format::Mdl) {
            assert!(
                written == bytes,
                "{}: binary rewrite differs",
                path.display()
            );
        } else {
            // Text formats write their canonical layout: same document, maybe other bytes.
            let again = models::from_bytes(&written).unwrap();
            assert_eq!(again.summary(), doc.summary(), "{}", path.display());
        }
    }
}

#[test]
fn bmf_summaries_follow_provenance() {
    let Some(samples) = test_support::samples("bmf", "bmf") else {
        return;
    };
    // (prefix, version, meshes, vertices, faces, bones, animations)
    let expected = [
        ("01", "BDV1.0", 1, 4176, 1968, 0, 0),
        ("03", "BDV1.0", 1, 5370, 10243, 0, 0),
        ("05", "BDV1.0", 1, 4176, 1968, 22, 1),
        ("07", "BDV1.0", 1, 84, 28, 3, 1),
        ("09", "BDV1.1", 3, 2034, 678, 0, 0),
        ("10", "BDV1.1", 3, 349, 678, 27, 1),
    ];
    for (prefix, version, meshes, vertices, faces, bones, animations) in expected {
        let path = samples
            .iter()
            .find(|p| test_support::file_name(p).starts_with(prefix))
            .unwrap();
        let s = models::open(path).unwrap().summary();
        assert_eq!(
            (
                s.version.as_str(),
                s.meshes,
                s.vertices,
                s.faces,
                s.bones,
                s.animations
            ),
            (version, meshes, vertices, faces, bones, animations),
            "{prefix}"
        );
        assert_eq!(s.materials, meshes);
        assert_eq!(s.textures.len(), 1);
    }
}

#[test]
fn errors_name_the_path_and_position() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.bmf");
    let mut bytes = test_support::read(&test_support::fixtures("bmf", "bmf")[0]);
    bytes.truncate(30);
    std::fs::write(&path, &bytes).unwrap();
    let err = models::open(&path).unwrap_err();
    assert_eq!(err.path(), Some(path.as_path()));
    assert_eq!(err.position(), Some(models::Position::Byte(16)));
    assert!(
        err.to_string().starts_with(&path.display().to_string()),
        "{err}"
    );

    let unknown = dir.path().join("notes.txt");
    std::fs::write(&unknown, "hello").unwrap();
    let err = models::open(&unknown).unwrap_err();
    assert!(err.to_string().contains("unrecognised format"), "{err}");
}

#[test]
fn summary_snapshots_of_every_fixture() {
    for (folder, _) in FOLDERS {
        for path in test_support::fixtures(folder, folder) {
            let s = models::open(&path).unwrap().summary();
            let name = format!("{folder}__{}", test_support::file_name(&path));
            insta::assert_snapshot!(
                name,
                format!(
                    "format {}\nversion {}\nmeshes {}\nvertices {}\nfaces {}\nmaterials {}\nbones {}\nanimations {}\ntextures {:?}\ndetails {}",
                    s.format, s.version, s.meshes, s.vertices, s.faces, s.materials, s.bones,
                    s.animations, s.textures, serde_json::Value::Object(s.details.clone())
                )
            );
        }
    }
}

/// The facade keeps each reader's warnings typed, and prints them as the crate does.
#[test]
fn reader_warnings_stay_typed_and_print_as_the_crate_prints_them() {
    let mut seen = 0;
    for (format, path) in every_fixture_and_sample() {
        let Ok(parsed) = models::open_with_warnings(&path) else {
            continue; // the legacy MDL sample, tested above
        };
        let bytes = test_support::read(&path);
        let own = match format {
            Format::Bmf => own_warnings::<models::bmf::Bmf>(&bytes),
            Format::Smf => own_warnings::<models::smf::Smf>(&bytes),
            Format::Mdl => own_warnings::<models::mdl::Mdl>(&bytes),
            Format::Elem => own_warnings::<models::elem::Elem>(&bytes),
            Format::Skm => own_warnings::<models::skm::Skm>(&bytes),
        };
        let facade: Vec<String> = parsed.warnings.iter().map(ToString::to_string).collect();
        assert_eq!(facade, own, "{}", path.display());
        assert!(parsed.warnings.iter().all(|w| w.format() == format));
        seen += parsed.warnings.len();
    }
    assert!(seen > 0, "no fixture or sample gave a warning to compare");
}

/// The warnings of a format crate's own reader, as text.
fn own_warnings<T: models::Model>(bytes: &[u8]) -> Vec<String> {
    let (_, warnings) = T::from_bytes_with_warnings(bytes).unwrap();
    warnings.iter().map(ToString::to_string).collect()
}
