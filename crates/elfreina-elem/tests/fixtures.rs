//! Fixtures (canonical files written by `cargo xtask regen-fixtures`): exact round trip,
//! truncation sweep, hostile inputs, every validation rule with its position, writer errors.

use elfreina_elem::Model as _;
use elfreina_elem::{Elem, Error, FloatStyle, LineEnding, Tree, WarningKind, WriteOptions};
use test_support::{file_name, fixtures, read, samples, truncation_sweep};

const HEAD: &str = "Elfreina Extension Model File\r\nFile Version 1.00\r\n";

fn parse(text: &str) -> Result<Elem, Error> {
    Elem::from_bytes(text.as_bytes())
}

fn warnings(text: &str) -> Vec<WarningKind> {
    let (_, w) = Elem::from_bytes_with_warnings(text.as_bytes()).unwrap();
    w.into_iter().map(|w| w.kind).collect()
}

/// A minimal container around `mesh_body` (one material).
fn with_mesh(mesh_body: &str) -> String {
    format!(
        "{HEAD}MeshDataList {{\nMeshContainer {{\nMaterials {{\nMaterialCount=1\nMaterial {{\n}}\n}}\nMesh {{\n{mesh_body}\n}}\n}}\n}}\n"
    )
}

const TRI: &str =
    "VertexCount=3\nFaceCount=1\nPositions {\n0:0:0\n1:0:0\n0:1:0\n}\nVertexIndices {\n3,0:1:2\n}\nAttributes {\n0\n}";

#[test]
fn fixtures_round_trip_byte_for_byte() {
    let files = fixtures("elem", "elem");
    assert_eq!(files.len(), 4);
    for path in &files {
        let name = file_name(path);
        let bytes = read(path);
        assert!(elfreina_elem::sniff(&bytes), "{name}");
        let (doc, warnings) = Elem::from_bytes_with_warnings(&bytes).unwrap();
        assert!(warnings.is_empty(), "{name}: {warnings:?}");
        // write(parse(file)) == file: the fixtures are in the canonical style.
        assert_eq!(doc.to_bytes().unwrap(), bytes, "{name}: rewrite differs");
        // parse(write(doc)) == doc.
        assert_eq!(
            Elem::from_bytes(&doc.to_bytes().unwrap()).unwrap(),
            doc,
            "{name}"
        );
        // The scope tree writes the same canonical text.
        assert_eq!(
            Tree::from_bytes(&bytes).unwrap().to_bytes().unwrap(),
            bytes,
            "{name}"
        );
        // Other styles read back to the same document.
        for opts in [
            WriteOptions {
                bom: true,
                line_ending: LineEnding::Lf,
                indent: false,
                ..WriteOptions::default()
            },
            WriteOptions {
                line_ending: LineEnding::Cr,
                ..WriteOptions::default()
            },
        ] {
            let other = doc.to_bytes_with(&opts).unwrap();
            assert_ne!(other, bytes);
            assert_eq!(Elem::from_bytes(&other).unwrap(), doc, "{name}: {opts:?}");
        }
    }
}

#[test]
fn fixture_contents() {
    let docs: Vec<(String, Elem)> = fixtures("elem", "elem")
        .iter()
        .map(|p| (file_name(p).to_owned(), Elem::from_bytes(&read(p)).unwrap()))
        .collect();
    let get = |n: &str| &docs.iter().find(|(name, _)| name == n).unwrap().1;

    let cube = get("static_textured.elem");
    let m = &cube.containers()[0].meshes[0];
    assert_eq!((m.vertex_count(), m.face_count()), (24, 12));
    assert_eq!(
        cube.containers()[0].material_list()[0]
            .texture_filename
            .as_deref(),
        Some("tex\\crate.png")
    );

    let arm = get("skinned_animated.elem");
    assert_eq!(arm.hierarchy.node_count(), 3);
    assert_eq!(arm.containers()[0].bone_count(), 3);
    assert_eq!(arm.animations()[0].bone_animation.parts.len(), 2);
    assert_eq!(
        arm.animations()[0].uv_animation.parts[0].rotate_keys[1],
        [0.5]
    );
    assert_eq!(arm.rendering_meshes()[0].hierarchy_names.len(), 3);

    let grid = get("uv2_colors_quads.elem");
    let m = &grid.containers()[0].meshes[0];
    assert!(m.face_sizes.iter().all(|n| n == 4));
    assert_eq!((m.face_count(), m.triangle_count()), (9, 18));
    assert_eq!(
        (m.uv_sets[0].len(), m.uv_sets[1].len(), m.diffuse.len()),
        (16, 16, 16)
    );
    // 1/3 survives the shortest round-trip spelling exactly.
    assert_eq!(m.uv_sets[0][1][0], 1.0 / 3.0);

    let ja = get("japanese_names.elem");
    assert_eq!(
        ja.containers()[0].name.as_deref(),
        Some("聖剣エクスカリバー")
    );
    assert_eq!(ja.hierarchy.nodes[0].name.as_deref(), Some("剣"));
}

#[test]
fn truncations_are_errors_or_smaller_documents() {
    let mut files = fixtures("elem", "elem");
    files.extend(samples("elem", "elem").unwrap_or_default());
    for path in &files {
        let name = file_name(path);
        let bytes = read(path);
        let full = Elem::from_bytes(&bytes).unwrap();
        let full_len = full.to_bytes().unwrap().len();
        truncation_sweep(name, &bytes, Elem::from_bytes, |_, doc: &Elem| {
            doc.to_bytes().is_ok_and(|b| b.len() <= full_len)
        });
    }
}

#[test]
fn deep_nesting_fails_cleanly() {
    let depth = 100_000;
    let mut text = String::from(HEAD);
    for _ in 0..depth {
        text.push_str("Node {\n");
    }
    for _ in 0..depth {
        text.push_str("}\n");
    }
    let err = parse(&text).unwrap_err();
    assert!(
        matches!(err, Error::LimitExceeded { limit: 256, .. }),
        "{err}"
    );
    assert_eq!(err.position(), Some((2 + 257, 1)));
    assert!(Tree::from_bytes(text.as_bytes()).is_err());

    // A Node chain right at the limit parses, and writes back.
    let mut text = format!("{HEAD}HierarchyList {{\n");
    for i in 0..elfreina_elem::MAX_DEPTH - 1 {
        text.push_str(&format!("Node {{\nNodeName=\"n{i}\"\n"));
    }
    for _ in 0..elfreina_elem::MAX_DEPTH {
        text.push_str("}\n");
    }
    let doc = parse(&text).unwrap();
    assert_eq!(doc.hierarchy.node_count(), 255);
    assert_eq!(parse(&doc.to_text().unwrap()).unwrap(), doc);

    // One deeper is an error, in the reader and in the writer.
    let mut deeper = doc.clone();
    let mut node = &mut deeper.hierarchy.nodes[0];
    while !node.children.is_empty() {
        node = &mut node.children[0];
    }
    node.children.push(elfreina_elem::Node::default());
    assert!(matches!(
        deeper.to_bytes(),
        Err(Error::LimitExceeded { .. })
    ));
}

#[test]
fn hostile_counts_fail_fast() {
    let cases = [
        ("VertexCount=4000000000", "CountMismatch"),
        ("VertexCount=99999999999999999999999", "BadNumber"),
        ("VertexCount=-1", "BadCount"),
        ("FaceCount=4294967295", "CountMismatch"),
    ];
    for (key, kind) in cases {
        let text = with_mesh(&format!("{key}\nPositions {{\n0:0:0\n}}"));
        let err = parse(&text).unwrap_err();
        assert!(format!("{err:?}").starts_with(kind), "{key}: {err:?}");
        assert_eq!(err.position().map(|p| p.0), Some(11), "{key}: {err}");
    }
    let text = format!("{HEAD}MeshDataList {{\nMeshContainerCount=9223372036854775807\n}}\n");
    assert!(matches!(
        parse(&text),
        Err(Error::CountMismatch {
            declared: 9_223_372_036_854_775_807,
            found: 0,
            ..
        })
    ));
    let text = text.replace("807", "808");
    assert!(matches!(parse(&text), Err(Error::BadNumber { .. })));
    let text = format!("{HEAD}AnimationList {{\nAnimationCount=3\nAnimationData {{\n}}\n}}\n");
    assert!(matches!(
        parse(&text),
        Err(Error::CountMismatch {
            line: 4,
            column: 1,
            ..
        })
    ));
}

fn err(text: &str) -> (Error, (u32, u32)) {
    let e = parse(text).unwrap_err();
    let pos = e.position().unwrap_or((0, 0));
    (e, pos)
}

#[test]
fn errors_carry_kind_and_position() {
    // Header and version.
    let (e, pos) = err("Elfreina Extension Model Fil\r\nFile Version 1.00\r\n");
    assert!(
        matches!(e, Error::NotThisFormat { .. }) && pos == (1, 1),
        "{e}"
    );
    assert!(matches!(err("").0, Error::NotThisFormat { .. }));
    let (e, pos) = err("Elfreina Extension Model File\nFile Version 2.00\n");
    assert!(
        matches!(e, Error::UnsupportedVersion { .. }) && pos == (2, 14),
        "{e}"
    );
    let (e, pos) = err("Elfreina Extension Model File\nFile Versio 1.00\n");
    assert!(matches!(e, Error::Syntax { .. }) && pos == (2, 1), "{e}");
    assert!(matches!(
        err("Elfreina Extension Model File\n").0,
        Error::Syntax { .. }
    ));

    // Braces and strings.
    let (e, pos) = err(&format!("{HEAD}Setting {{\n}}\n}}\n"));
    assert!(matches!(e, Error::Syntax { .. }) && pos == (5, 1), "{e}");
    let (e, pos) = err(&format!("{HEAD}Setting {{\n  Foo {{\n}}\n"));
    assert!(matches!(e, Error::Syntax { .. }) && pos == (3, 1), "{e}");
    let (e, pos) = err(&format!("{HEAD}Setting {{\n\tLoadType=\"View\n}}\n"));
    assert!(matches!(e, Error::Syntax { .. }) && pos == (4, 11), "{e}");
    let (e, _) = err(&format!("{HEAD}Setting {{ x\n}}\n"));
    assert!(matches!(e, Error::Syntax { .. }), "{e}");
    let (e, _) = err(&format!("{HEAD}Setting {{\n}} x\n"));
    assert!(matches!(e, Error::Syntax { .. }), "{e}");
    let (e, pos) = err(&format!("{HEAD}Setting {{\n\tIsRightHand=Maybe\n}}\n"));
    assert!(matches!(e, Error::Syntax { .. }) && pos == (4, 14), "{e}");

    // Numbers.
    let (e, pos) = err(&with_mesh("VertexCount=1\nPositions {\n  0:1.2.3:0\n}"));
    assert!(
        matches!(e, Error::BadNumber { .. }) && pos == (13, 5),
        "{e}"
    );
    let (e, _) = err(&with_mesh("VertexCount=1\nPositions {\n0:nan:0\n}"));
    assert!(matches!(e, Error::BadNumber { .. }), "{e}");
    let (e, _) = err(&with_mesh("VertexCount=1.0\nPositions {\n0:0:0\n}"));
    assert!(matches!(e, Error::BadNumber { .. }), "{e}");

    // Row widths.
    let (e, pos) = err(&with_mesh("Positions {\n0:0\n}"));
    assert!(
        matches!(e, Error::BadRowWidth { found: 2, .. }) && pos == (12, 1),
        "{e}"
    );
    let (e, _) = err(&with_mesh(&TRI.replace("3,0:1:2", "4,0:1:2")));
    assert!(matches!(e, Error::BadRowWidth { .. }), "{e}");
    let (e, _) = err(&with_mesh(&TRI.replace("3,0:1:2", "2,0:1")));
    assert!(matches!(e, Error::BadRowWidth { .. }), "{e}");

    // Indices.
    let (e, pos) = err(&with_mesh(&TRI.replace("3,0:1:2", "3,0:1:3")));
    assert!(
        matches!(
            e,
            Error::IndexOutOfRange {
                index: 3,
                len: 3,
                ..
            }
        ) && pos == (19, 7),
        "{e}"
    );
    let (e, _) = err(&with_mesh(
        &TRI.replace("Attributes {\n0", "Attributes {\n1"),
    ));
    assert!(
        matches!(
            e,
            Error::IndexOutOfRange {
                index: 1,
                len: 1,
                ..
            }
        ),
        "{e}"
    );
    let (e, _) = err(&with_mesh(&format!(
        "{TRI}\nBlendList {{\nBlendPart {{\nTransformIndex=0\n}}\n}}"
    )));
    assert!(matches!(e, Error::IndexOutOfRange { len: 0, .. }), "{e}");

    // Counts.
    let (e, pos) = err(&with_mesh(&TRI.replace("FaceCount=1", "FaceCount=2")));
    assert!(
        matches!(
            e,
            Error::CountMismatch {
                declared: 2,
                found: 1,
                ..
            }
        ) && pos == (12, 1),
        "{e}"
    );
    let (e, _) = err(&with_mesh(&format!("{TRI}\nNormals {{\n0:1:0\n}}")));
    assert!(matches!(e, Error::CountMismatch { .. }), "{e}");
    let (e, _) = err(&with_mesh("VertexCount=2"));
    assert!(matches!(e, Error::MissingPart { .. }), "{e}");

    // Duplicates and wrong forms.
    let (e, _) = err(&with_mesh(&format!("{TRI}\nName=\"a\"\nName=\"b\"")));
    assert!(matches!(e, Error::UnexpectedPart { .. }), "{e}");
    let (e, _) = err(&with_mesh(&format!(
        "{TRI}\nTextureUV {{\n0:0\n0:0\n0:0\n}}\nTexture1UV {{\n0:0\n0:0\n0:0\n}}"
    )));
    assert!(matches!(e, Error::UnexpectedPart { .. }), "{e}");
    let (e, _) = err(&with_mesh("Positions=1:2:3"));
    assert!(matches!(e, Error::UnexpectedPart { .. }), "{e}");

    // Bone animation key lists of different lengths.
    let anim = format!(
        "{HEAD}AnimationList {{\nAnimationData {{\nBoneAnimation {{\nAnimationPart {{\nTimeKeys {{\n0\n1\n}}\nScaleKeys {{\n1:1:1\n}}\n}}\n}}\n}}\n}}\n"
    );
    assert!(matches!(err(&anim).0, Error::CountMismatch { .. }));
}

#[test]
fn tolerant_reading() {
    // LF, CR, blank lines, no indentation, spaces, BOM, empty scopes, exponents.
    let text = "\u{FEFF}\n\nElfreina Extension Model File\rFile Version 1.00\r\r  Setting   {\r\r    ElfreinaSoftVersion = 1.5E+0\r    Empty {\r  }\r}\r";
    assert!(elfreina_elem::sniff(text.as_bytes()));
    let (doc, w) = Elem::from_bytes_with_warnings(text.as_bytes()).unwrap();
    assert_eq!(doc.setting.soft_version, Some(1.5));
    assert_eq!(w.len(), 1, "{w:?}"); // the unknown `Empty` scope
    let doc = parse(&with_mesh(
        "VertexCount=3\r\nPositions {\r\n+1:.5:-1.5e-05\r\n1.:2e3:-0\r\n0:0:0\r\n}\r\nVertexIndices {\n3,0:1:2\n}\nAttributes {\n0\n}\nFaceCount=1",
    ))
    .unwrap();
    let p = &doc.containers()[0].meshes[0].positions;
    assert_eq!(p[0], [1.0, 0.5, -1.5e-5]);
    assert_eq!(p[1][..2], [1.0, 2000.0]);
    assert!(p[1][2].is_sign_negative());

    // MSVC spellings with warnings.
    let text = with_mesh(&TRI.replace("1:0:0", "-1.#IND00:1.#QNAN0:-1.#INF00"));
    let w = warnings(&text);
    assert_eq!(
        w.iter()
            .filter(|k| matches!(k, WarningKind::NonFinite { .. }))
            .count(),
        3
    );
    let doc = parse(&text).unwrap();
    let p = doc.containers()[0].meshes[0].positions[1];
    assert!(p[0].is_nan() && p[0].is_sign_negative() && p[1].is_nan());
    assert_eq!(p[2], f64::NEG_INFINITY);
    // Written back in the MSVC spelling, bit for bit.
    let back = parse(&doc.to_text().unwrap()).unwrap();
    let q = back.containers()[0].meshes[0].positions[1];
    assert_eq!(p.map(f64::to_bits), q.map(f64::to_bits));
    // … or refused on request.
    let strict = WriteOptions {
        reject_non_finite: true,
        ..WriteOptions::default()
    };
    assert!(matches!(
        doc.to_bytes_with(&strict),
        Err(Error::BadNumber { .. })
    ));

    // Rule 10 / 18 / 24 / 25 / 27 warnings.
    let w = warnings(&format!(
        "{HEAD}MeshDatas {{\nMeshContainer {{\nMesh {{\nPositions {{\n0:0:0\n0:0:0\n0:0:0\n}}\nVertexIndices {{\n3,0:1:2\n}}\n}}\n}}\n}}\nSetting {{\nIsRightHand=true\n}}\n"
    ));
    for expected in [
        WarningKind::MeshDatasTag,
        WarningKind::CountInferred {
            key: "MeshContainerCount",
        },
        WarningKind::CountInferred { key: "MeshCount" },
        WarningKind::CountInferred { key: "VertexCount" },
        WarningKind::CountInferred { key: "FaceCount" },
        WarningKind::NoAttributes,
        WarningKind::BoolCase {
            text: "true".into(),
        },
    ] {
        assert!(w.contains(&expected), "{expected:?} not in {w:?}");
    }
    assert!(
        warnings(&format!("{HEAD}File Version 1.00\n")).contains(&WarningKind::Unknown {
            name: String::new()
        })
    );
    let w = warnings("Elfreina Extension Model File\nFile Version 1.10\n");
    assert_eq!(
        w,
        [WarningKind::VersionNot100 {
            version: "1.10".into()
        }]
    );

    // Invalid UTF-8 is decoded as CP932 with a warning.
    let mut bytes = b"Elfreina Extension Model File\r\nFile Version 1.00\r\nMeshDataList {\r\nMeshContainer {\r\nName=\"".to_vec();
    bytes.extend_from_slice(&[0x8C, 0x95]); // 剣 in Shift-JIS
    bytes.extend_from_slice(b"\"\r\n}\r\n}\r\n");
    let (doc, w) = Elem::from_bytes_with_warnings(&bytes).unwrap();
    assert_eq!(doc.containers()[0].name.as_deref(), Some("剣"));
    assert!(w.iter().any(|w| w.kind == WarningKind::DecodedAsCp932));
}

#[test]
fn writer_refuses_what_the_reader_would_refuse() {
    let doc = parse(&with_mesh(TRI)).unwrap();

    let mut bad = doc.clone();
    bad.mesh_data.as_mut().unwrap().containers[0].name = Some("say \"hi\"".into());
    assert!(matches!(bad.to_bytes(), Err(Error::BadString { .. })));
    bad.mesh_data.as_mut().unwrap().containers[0].name = Some("two\nlines".into());
    let e = bad.to_bytes().unwrap_err();
    assert!(matches!(e, Error::BadString { .. }) && e.position().is_none());

    let mut bad = doc.clone();
    bad.mesh_data.as_mut().unwrap().containers[0].meshes[0].normals = vec![[0.0; 3]];
    assert!(matches!(bad.to_bytes(), Err(Error::CountMismatch { .. })));

    let mut bad = doc.clone();
    bad.mesh_data.as_mut().unwrap().containers[0].meshes[0].face_indices[2] = 7;
    assert!(matches!(bad.to_bytes(), Err(Error::IndexOutOfRange { .. })));

    let mut bad = doc.clone();
    bad.version = "2.00".into();
    assert!(matches!(
        bad.to_bytes(),
        Err(Error::UnsupportedVersion { .. })
    ));
}

#[test]
fn number_styles() {
    let mut doc = parse(&with_mesh(TRI)).unwrap();
    doc.mesh_data.as_mut().unwrap().containers[0].meshes[0].positions[1] = [0.1, 1e-7, 1e21];
    let text = doc.to_text().unwrap();
    assert!(
        text.contains("\t\t\t\t0.1:0.0000001:1000000000000000000000\r\n"),
        "{text}"
    );
    assert_eq!(parse(&text).unwrap(), doc);
    let six = doc.to_bytes_with(&WriteOptions::six_decimals()).unwrap();
    let six = String::from_utf8(six).unwrap();
    assert!(six.contains("\t\t\t\t0.100000:0.000000:1000000000000000000000.000000\r\n"));
    assert_eq!(
        WriteOptions::six_decimals().float_style,
        FloatStyle::SixDecimals
    );
}

#[test]
fn sniff_rules() {
    assert!(elfreina_elem::sniff(
        b"Elfreina Extension Model File\r\nFile"
    ));
    assert!(elfreina_elem::sniff(
        b"\xEF\xBB\xBFElfreina Extension Model File\n"
    ));
    assert!(elfreina_elem::sniff(
        b"\r\n\r\nElfreina Extension Model File \r"
    ));
    assert!(!elfreina_elem::sniff(b"Elfreina Extension Model Files\r\n"));
    assert!(!elfreina_elem::sniff(b"Elfreina Extension Model File"));
    assert!(!elfreina_elem::sniff(b"xof 0303txt 0032"));
    assert!(!elfreina_elem::sniff(b""));
}

/// Issue 12: repeated warnings are one warning with a count; each vertex-level kind is one
/// warning whatever the vertex; unknown items stay in order in `extra`; tokens are quoted
/// short.
#[test]
fn repeated_warnings_are_grouped_and_counted() {
    let text = format!(
        "{HEAD}A=1\nB=2\nA=3\nMeshDataList {{\nC=1\nC=2\n}}\nA=4\n1:2\n3:4\n{}\n",
        "Z=1\n".repeat(3)
    );
    let (doc, w) = Elem::from_bytes_with_warnings(text.as_bytes()).unwrap();
    let summary: Vec<(String, u32, u64)> = w
        .iter()
        .map(|w| (w.kind.to_string(), w.line, w.count))
        .collect();
    assert_eq!(
        summary,
        [
            ("unknown part A (kept verbatim)".to_string(), 3, 3),
            ("unknown part B (kept verbatim)".to_string(), 4, 1),
            ("unexpected data line (kept verbatim)".to_string(), 11, 2),
            ("unknown part Z (kept verbatim)".to_string(), 13, 3),
            ("unknown part C (kept verbatim)".to_string(), 7, 2),
        ]
    );
    assert_eq!(
        w[0].to_string(),
        "line 3, column 1: unknown part A (kept verbatim) (3 times; the first is shown)"
    );
    assert_eq!(
        w[1].to_string(),
        "line 4, column 1: unknown part B (kept verbatim)"
    );
    // Nothing is lost: every unknown item is kept, in file order.
    let names: Vec<&str> = doc.extra.iter().map(|i| i.name()).collect();
    assert_eq!(names, ["A", "B", "A", "A", "", "", "Z", "Z", "Z"]);
    let list = doc.mesh_data.as_ref().unwrap();
    assert_eq!(list.extra.len(), 2);

    // More than MAX_SUBJECTS names: the rest are counted on the last one listed.
    let many: String = (0..40).map(|i| format!("K{i}=1\n")).collect();
    let (_, w) = Elem::from_bytes_with_warnings(format!("{HEAD}{many}").as_bytes()).unwrap();
    assert_eq!(w.len(), elfreina_elem::MAX_SUBJECTS);
    assert_eq!(
        w.last().unwrap().others,
        40 - elfreina_elem::MAX_SUBJECTS as u64
    );
    assert!(
        w.last()
            .unwrap()
            .to_string()
            .ends_with("; 24 more of this kind about other names or values"),
        "{}",
        w.last().unwrap()
    );

    // A long token is quoted short, with its length.
    let long = "x".repeat(1000);
    let err = parse(&format!("{HEAD}Setting {{\nIsRightHand={long}\n}}\n")).unwrap_err();
    let message = err.to_string();
    assert!(message.len() < 150, "{message}");
    assert!(message.contains("… (1000 bytes)"), "{message}");
}
