//! Validation errors with their positions, warnings, and the accepted spellings.

use skm_text::Model as _;
use skm_text::{Encoding, Error, Name, Skm, Warning};

/// A small valid document: 3 vertices, 1 triangle, 1 material, 1 range, 2 bones.
const BASE: &str = "\
Vertices: 3
0 0 0 0 1 0 0 0 0 0 -1 0 0
1 1 0 0 1 0 0 0 0 0 -1 1 0
2 0 1 0 1 0 0 0x0100 0 0 -1 0 1
Indices: 3
0 1 2
Adjacency: 1
-1 4294967295 0xFFFFFFFF
Materials: 1
0
1 1 1 1
0 0 0 1
0 0 0 1
0 0 0 1
5
\"(NULL)\"
Attributes: 1
0 0 1 0 3
Bone: 2
\"root\"
0 -1 -1
0 0 0 0 1 0
0 0 0 1
\"child bone\"
1 0 4294967295
0 1 0 0 2 0
0 0 0 1
";

fn parse(text: &str) -> Result<(Skm, Vec<Warning>), Error> {
    Skm::from_bytes_with_warnings(text.as_bytes())
}

/// Replaces the one occurrence of `from` on line `line` (1-based) of BASE.
fn edit(line: usize, from: &str, to: &str) -> String {
    BASE.lines()
        .enumerate()
        .map(|(i, l)| {
            if i + 1 == line {
                assert!(l.contains(from), "line {line} {l:?} has no {from:?}");
                l.replacen(from, to, 1)
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

#[test]
fn the_base_reads_without_warnings() {
    let (doc, warnings) = parse(BASE).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(doc.vertices[2].blend_indices, 0x100);
    assert_eq!(doc.vertices[2].palette(), [0, 1, 0, 0]);
    assert_eq!(doc.adjacency, [[u32::MAX; 3]]);
    assert_eq!(doc.neighbour(0, 0), None);
    assert_eq!(doc.bones[1].name.raw, b"child bone");
    assert_eq!(doc.bones[1].symmetric, -1);
    assert_eq!(doc.bones[1].parent_index(), Some(0));
    assert_eq!(doc.bones[0].parent_index(), None);
    assert!(doc.materials[0].texture.is_none());
    // The canonical rewrite reads back as the same document.
    let out = doc.to_bytes().unwrap();
    assert_eq!(Skm::from_bytes(&out).unwrap(), doc);
    assert_eq!(doc.to_bytes().unwrap(), out);
}

#[test]
fn every_validation_rule_reports_its_kind_and_position() {
    // (text, kind, line, column)
    let cases: Vec<(String, &str, u32, u32)> = vec![
        ("vertices: 3\n".into(), "NotThisFormat", 1, 1),
        ("\n\n   ".into(), "NotThisFormat", 3, 4),
        (edit(5, "Indices:", "Indexes:"), "MissingPart", 5, 1),
        (edit(7, "Adjacency:", "Indices:"), "MissingPart", 7, 1),
        (edit(19, "Bone:", "Bonez:"), "MissingPart", 19, 1),
        (edit(1, "3", "4"), "CountMismatch", 5, 1),
        (edit(1, "3", "2"), "CountMismatch", 4, 1),
        (edit(5, "3", "6"), "CountMismatch", 7, 1),
        (edit(9, "1", "2"), "CountMismatch", 17, 1),
        (edit(17, "1", "0"), "CountMismatch", 18, 1),
        (edit(19, "2", "1"), "TrailingData", 24, 1),
        (edit(5, "3", "4"), "BadSize", 5, 10),
        (edit(7, "1", "2"), "CountMismatch", 7, 12),
        (edit(6, "1", "3"), "IndexOutOfRange", 6, 3),
        (edit(18, "0 0 1 0 3", "1 0 1 0 3"), "IndexOutOfRange", 18, 1),
        (edit(18, "0 0 1 0 3", "0 1 1 0 3"), "IndexOutOfRange", 18, 3),
        (edit(18, "0 0 1 0 3", "0 0 1 1 3"), "IndexOutOfRange", 18, 7),
        (edit(25, "1 0 ", "1 2 "), "IndexOutOfRange", 25, 3),
        (edit(25, "1 0 ", "1 -2 "), "IndexOutOfRange", 25, 3),
        (edit(21, "0 -1", "0 1"), "IndexOutOfRange", 21, 3),
        (edit(4, "0x0100", "0x02"), "IndexOutOfRange", 4, 15),
        (edit(2, "0 0 0 0 1", "0 0 0.0.1 0 1"), "BadNumber", 2, 5),
        (edit(4, "0x0100", "0x"), "BadNumber", 4, 15),
        (edit(4, "0x0100", "0x100000000"), "BadNumber", 4, 15),
        (edit(6, "1", "-1"), "BadNumber", 6, 3),
        (edit(6, "1", "1.0"), "BadNumber", 6, 3),
        (edit(1, "3", "three"), "BadNumber", 1, 11),
        (edit(1, "3", "-3"), "BadNumber", 1, 11),
        (edit(15, "5", "\"5\""), "BadNumber", 15, 1),
        (edit(20, "\"root\"", "\"root"), "Syntax", 20, 1),
        (edit(20, "\"root\"", "\"root\"x"), "Syntax", 20, 7),
        (edit(20, "\"root\"", "ro\"ot"), "Syntax", 20, 3),
        (format!("{BASE}0\n"), "CountMismatch", 28, 1),
        (format!("{BASE}extra\n"), "TrailingData", 28, 1),
        (BASE.replace("Bone: 2", "Bone: 3"), "Truncated", 28, 1),
        (BASE[..BASE.len() - 5].to_string(), "Truncated", 27, 4),
        ("Vertices:".into(), "Truncated", 1, 10),
        ("Vertices: 1\n0 1 2".into(), "Truncated", 1, 11),
        (
            "Vertices: 1\n0 1 2 3 4 5 6 7 8 9 10 11".into(),
            "Truncated",
            2,
            26,
        ),
        (
            BASE.split("Indices").next().unwrap().to_string(),
            "MissingPart",
            5,
            1,
        ),
    ];
    for (text, kind, line, column) in cases {
        let err = match parse(&text) {
            Ok(_) => panic!("accepted ({kind} {line}:{column}):\n{text}"),
            Err(e) => e,
        };
        let name = format!("{err:?}");
        assert!(
            name.starts_with(kind),
            "expected {kind} at {line}:{column}, got {err}\n{text}"
        );
        assert_eq!(err.position(), Some((line, column)), "{err}\n{text}");
        let message = err.to_string();
        assert!(message.starts_with(&format!("at line {line}, column {column}: ")));
    }
}

#[test]
fn a_parent_cycle_is_refused() {
    let text = edit(21, "0 -1", "0 1");
    let text = text.replacen("1 0 4294967295", "1 0 -1", 1);
    let err = parse(&text).unwrap_err();
    assert!(matches!(err, Error::IndexOutOfRange { .. }), "{err}");
    assert!(err.to_string().contains("loops"), "{err}");
    // A self-parent is a cycle too.
    let err = parse(&edit(21, "0 -1", "0 0")).unwrap_err();
    assert!(
        err.to_string().contains("bone 0: its parent chain loops"),
        "{err}"
    );
    assert_eq!(err.position(), Some((21, 3)));
}

#[test]
fn warnings_are_returned_not_fatal() {
    let kinds = |text: &str| -> Vec<String> {
        let (_, w) = parse(text).unwrap();
        w.iter()
            .map(|w| {
                format!("{w:?}")
                    .split([' ', '{'])
                    .next()
                    .unwrap()
                    .to_string()
            })
            .collect()
    };
    assert_eq!(kinds(&edit(19, "Bone:", "Bones:")), ["BonesSpelling"]);
    let static_mesh = BASE.split("Bone:").next().unwrap();
    let (doc, w) = parse(static_mesh).unwrap();
    assert!(doc.bones.is_empty());
    assert!(matches!(w.as_slice(), [Warning::NoBoneSection { .. }]));
    // A static mesh writes `Bone: 0` and reads back equal.
    assert_eq!(Skm::from_bytes(&doc.to_bytes().unwrap()).unwrap(), doc);
    assert_eq!(kinds(&edit(3, "1 1 0", "7 1 0")), ["IndexColumn"]);
    assert_eq!(kinds(&edit(10, "0", "3")), ["IndexColumn"]);
    assert_eq!(
        kinds(&edit(25, "1 0 4294967295", "9 0 4294967295")),
        ["IndexColumn"]
    );
    assert_eq!(kinds(&edit(25, "4294967295", "7")), ["SymmetricOutOfRange"]);
    assert_eq!(kinds(&edit(2, "0 1 0 0", "0 0.75 0.5 0")), ["BadWeights"]);
    assert_eq!(kinds(&edit(2, "0 1 0 0", "0 -0.5 0 0")), ["BadWeights"]);
    let (doc, w) = parse(&edit(2, "0 0 0 0 1", "0 1.#QNAN0 -1.#IND00 1.#INF00 1")).unwrap();
    assert!(
        matches!(w.as_slice(), [Warning::NonFinite { count: 3, .. }]),
        "{w:?}"
    );
    let p = doc.vertices[0].position;
    assert!(p[0].is_nan() && p[1].is_nan() && p[2] == f32::INFINITY);
    assert_eq!(p[1].to_bits(), 0xFFC0_0000);
    let text = w[0].to_string();
    assert!(text.starts_with("at line 2, column 3: "), "{text}");

    // Repeated warnings are counted, not repeated.
    let many = BASE.replace(" 0 -1 ", " 0 -1.#IND ");
    let (_, w) = parse(&many).unwrap();
    assert!(
        matches!(w.as_slice(), [Warning::NonFinite { count: 3, .. }]),
        "{w:?}"
    );
}

#[test]
fn accepted_spellings_read_as_the_same_document() {
    let (doc, _) = parse(BASE).unwrap();
    let variants = [
        BASE.replace('\n', "\r\n"),
        BASE.replace('\n', "\r"),
        BASE.replace('\n', " \t\n  "),
        BASE.replace("child bone", "child\u{1}bone")
            .replace(' ', "\n")
            .replace('\u{1}', " "),
        BASE.replace("Vertices: 3", "Vertices:3")
            .replace("Bone: 2", "Bone:\n2"),
        BASE.replace("0x0100", "256")
            .replace("-1 4294967295", "0xffffffff -1"),
        BASE.replace("\"(NULL)\"", "(null)"),
        BASE.replace(" 1 0 0 0 0 0 -1 ", " +1. 0e0 0 0 .0 -0x0p0 -1E0 "),
        BASE.replace("\"root\"", "root"),
        format!("\u{feff}{BASE}"),
    ];
    for text in variants {
        let (other, _) = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let mut other = other;
        if text.starts_with('\u{feff}') {
            assert_eq!(other.encoding, Encoding::Utf8);
            other.encoding = Encoding::ShiftJis;
        }
        // `-0x0p0` is negative zero: compare the rest, then that value's bits.
        if text.contains("-0x0p0") {
            assert_eq!(other.vertices[0].normal[1].to_bits(), 0x8000_0000);
            assert_eq!(other.vertices[1].normal[1].to_bits(), 0x8000_0000);
            for v in &mut other.vertices {
                v.normal[1] = 0.0;
            }
        }
        assert_eq!(other, doc, "{text}");
    }
}

#[test]
fn names_keep_their_bytes_in_either_encoding() {
    // Shift-JIS bytes, no BOM.
    let sjis = BASE.replace("\"root\"", "\"\u{0}\"");
    let sjis = sjis.replace('\u{0}', "__ROOT__");
    let mut bytes = sjis.into_bytes();
    let at = bytes.windows(8).position(|w| w == b"__ROOT__").unwrap();
    bytes.splice(at..at + 8, [0x8D, 0x9C, b' ', 0x5C]); // "骨 \" in Shift-JIS
    let doc = Skm::from_bytes(&bytes).unwrap();
    assert_eq!(doc.encoding, Encoding::ShiftJis);
    assert_eq!(doc.bones[0].name.raw, [0x8D, 0x9C, b' ', 0x5C]);
    assert_eq!(doc.text(&doc.bones[0].name), "骨 \\");
    let out = doc.to_bytes().unwrap();
    assert!(out
        .windows(6)
        .any(|w| w == [b'"', 0x8D, 0x9C, b' ', 0x5C, b'"']));

    // UTF-8 without a BOM: decoded as UTF-8 with a warning, written with a BOM.
    let utf8 = BASE.replace("\"root\"", "\"骨\"");
    let (doc, w) = parse(&utf8).unwrap();
    assert_eq!(doc.encoding, Encoding::Utf8);
    assert!(matches!(w.as_slice(), [Warning::Utf8Text { .. }]), "{w:?}");
    assert_eq!(doc.text(&doc.bones[0].name), "骨");
    let out = doc.to_bytes().unwrap();
    assert!(out.starts_with(b"\xEF\xBB\xBF"));
    assert_eq!(Skm::from_bytes(&out).unwrap(), doc);
    assert!(skm_text::sniff(&out));
}

#[test]
fn the_writer_refuses_what_would_not_read_back() {
    let (doc, _) = parse(BASE).unwrap();
    let refuse = |d: &Skm, kind: &str| {
        let err = d.to_bytes().unwrap_err();
        assert!(format!("{err:?}").starts_with(kind), "{err}");
        assert_eq!(err.position(), None);
        assert!(err.to_string().starts_with("in the document: "), "{err}");
    };
    let mut d = doc.clone();
    d.bones[0].name = Name::from_raw(b"a\"b".to_vec());
    refuse(&d, "BadString");
    let mut d = doc.clone();
    d.bones[0].name = Name::from_raw(b"a\r\nb".to_vec());
    refuse(&d, "BadString");
    let mut d = doc.clone();
    d.materials[0].texture = Some(Name::from_raw(b"(Null)".to_vec()));
    refuse(&d, "BadString");
    let mut d = doc.clone();
    d.bones[0].name = Name::encode("骨", Encoding::Utf8).unwrap();
    refuse(&d, "BadString");
    d.encoding = Encoding::Utf8;
    assert_eq!(Skm::from_bytes(&d.to_bytes().unwrap()).unwrap(), d);
    let mut d = doc.clone();
    d.triangles[0][1] = 3;
    refuse(&d, "IndexOutOfRange");
    let mut d = doc.clone();
    d.adjacency.push([0; 3]);
    refuse(&d, "CountMismatch");
    let mut d = doc.clone();
    d.attributes[0].vertex_count = 4;
    refuse(&d, "IndexOutOfRange");
    let mut d = doc.clone();
    d.bones[1].parent = 1;
    refuse(&d, "IndexOutOfRange");
    let mut d = doc.clone();
    d.bones[1].parent = -2;
    refuse(&d, "IndexOutOfRange");
    let mut d = doc.clone();
    d.vertices[0].blend_indices = 2;
    refuse(&d, "IndexOutOfRange");
    // An unused influence may carry any index.
    let mut d = doc.clone();
    d.vertices[0].blend_indices = 0xFFFF_FF00;
    assert_eq!(Skm::from_bytes(&d.to_bytes().unwrap()).unwrap(), d);
}

#[test]
fn io_entry_points() {
    let (doc, _) = parse(BASE).unwrap();
    let dir = std::env::temp_dir().join(format!("skm-text-io-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("base.skm");
    doc.save(&path).unwrap();
    assert_eq!(Skm::from_path(&path).unwrap(), doc);
    let missing = Skm::from_path(dir.join("missing.skm")).unwrap_err();
    assert!(matches!(missing, Error::Io(_)));
    assert_eq!(missing.position(), None);
    std::fs::remove_dir_all(&dir).unwrap();
}
