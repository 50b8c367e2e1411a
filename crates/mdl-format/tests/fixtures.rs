//! Generated fixtures (round trip, expected warnings), every validation rule with its offset,
//! hostile counts, truncation sweeps over fixtures and samples, and the writer's checks.

use mdl_format::*;
use std::time::{Duration, Instant};
use test_support::{file_name, fixtures, read, samples, truncation_sweep};

#[test]
fn fixtures_round_trip() {
    let files = fixtures("mdl", "mdl");
    assert_eq!(files.len(), 4);
    for path in &files {
        let name = file_name(path);
        let bytes = read(path);
        assert!(sniff(&bytes), "{name}");
        let (doc, warnings) =
            Mdl::from_bytes_with_warnings(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(doc.to_bytes().unwrap(), bytes, "{name}: round trip");
        if name != "quirks_v2.mdl" {
            assert!(warnings.is_empty(), "{name}: {warnings:?}");
        }
    }
}

fn fixture(name: &str) -> Vec<u8> {
    let path = fixtures("mdl", "mdl")
        .into_iter()
        .find(|p| file_name(p) == name)
        .unwrap_or_else(|| panic!("fixture {name} missing"));
    read(&path)
}

#[test]
fn skinned_arm_content() {
    for (file, version) in [("skinned_arm_v1.mdl", 1), ("skinned_arm_v2.mdl", 2)] {
        let doc = Mdl::from_bytes(&fixture(file)).unwrap();
        assert_eq!(doc.version, version);
        let names: Vec<String> = doc.bones.iter().map(|b| b.name.to_string()).collect();
        assert_eq!(names, ["RootNode", "上腕", "肘", "手"]);
        assert_eq!(
            doc.bones.iter().map(|b| b.parent).collect::<Vec<_>>(),
            [-1, 0, 1, 2]
        );
        assert_eq!(doc.bones[2].rotation_order, RotationOrder::ZXY);
        let mesh = &doc.meshes[0];
        assert_eq!(mesh.divided.len(), 2);
        let bones: Vec<Vec<i32>> = mesh
            .divided
            .iter()
            .map(|d| d.connectors.iter().map(|c| c.bone_index).collect())
            .collect();
        assert_eq!(bones, [[1, 2], [2, 3]]);
        assert_eq!(mesh.materials.len(), 3);
        assert_eq!(mesh.materials[2].raw_type(), 1);
        assert!(
            matches!(&mesh.materials[2], Material::External { path } if *path == "マテリアル/金属.mat")
        );
        let interps: std::collections::BTreeSet<i32> = doc
            .animation_sources
            .iter()
            .flat_map(|s| &s.curves)
            .flat_map(|c| &c.keys)
            .map(|k| k.interpolation.0)
            .collect();
        assert_eq!(interps.into_iter().collect::<Vec<_>>(), [1, 2, 3]);
        let target = doc.animation_sources[0].curves[0].parse_target().unwrap();
        assert_eq!(target.node, "肘");
        assert_eq!(target.channel, Channel::Rotation);
        assert_eq!(target.axis, Axis::X);
        assert_eq!(doc.clips.len(), 2);
        assert_eq!(doc.clips[1].name, "待機");
    }
}

#[test]
fn quirks_fixture_warnings_and_surrogates() {
    let bytes = fixture("quirks_v2.mdl");
    let (doc, warnings) = Mdl::from_bytes_with_warnings(&bytes).unwrap();
    assert_eq!(doc.bones[1].name.units, [0x41, 0xD800, 0x42]);
    assert!(!doc.bones[1].name.is_well_formed());
    assert_eq!(doc.bones[1].name.to_string_lossy(), "A\u{FFFD}B");
    let kinds: Vec<String> = warnings
        .iter()
        .map(|w| {
            format!("{w:?}")
                .split([' ', '{'])
                .next()
                .unwrap_or("")
                .to_owned()
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "RotationOrder",
            "UnpairedSurrogate",
            "RotationOrder",
            "WeightSum",
            "UnknownMaterialType",
            "UnknownInterpolation",
            "DecreasingTimes",
            "TargetNotABone",
            "MalformedTarget",
        ],
        "{warnings:#?}"
    );
    // Bone 0's rotation order sits after the magic, version, count, "RootNode" and parent.
    assert_eq!(warnings[0].offset(), 8 + 4 + 4 + 16 + 4);
    assert!(warnings
        .iter()
        .all(|w| !w.to_string().is_empty() && w.to_string().starts_with("at byte 0x")));
    assert!(matches!(
        warnings[3],
        Warning::WeightSum {
            vertices: 1,
            first_sum: 200,
            ..
        }
    ));
}

/// A small valid version-2 document with one of everything; its byte layout is:
/// 8 bone count, 12 "R", 18 parent, 22 rotation order, 26 TRS, 66 mesh count,
/// 70 divided count, 74 vertex count, 78 vertices, 282 face count, 286 face, 298 run count,
/// 302 run, 310 connector count, 314 connector, 382 material count, 386 material type,
/// 390 three empty strings, 402 source count, 406 "S", 412 curve count, 416 "R.pos.x",
/// 434 key count, 438 key, 466 clip count, 470 "C", 476 source index, 480 end.
fn tiny() -> Mdl {
    let v = |x: f32| Vertex {
        position: [x, 0.0, 0.0],
        weights: [255, 0, 0, 0],
        ..Vertex::default()
    };
    Mdl {
        version: 2,
        bones: vec![Bone {
            name: "R".into(),
            parent: -1,
            rotation_order: RotationOrder::XYZ,
            transform: BoneTransform::Trs {
                translation: [0.0; 3].into(),
                rotation: [0.0; 4].into(),
                scaling: [1.0; 3].into(),
            },
        }],
        meshes: vec![Mesh {
            divided: vec![DividedMesh {
                vertices: vec![v(0.0), v(1.0), v(2.0)],
                faces: vec![Face([0, 1, 2])],
                material_runs: vec![MaterialRun {
                    material_index: 0,
                    face_count: 1,
                }],
                connectors: vec![BoneConnector {
                    bone_index: 0,
                    offset: Matrix44::IDENTITY,
                }],
            }],
            materials: vec![Material::with_color("")],
        }],
        animation_sources: vec![AnimationSource {
            name: "S".into(),
            curves: vec![Curve {
                target: "R.pos.x".into(),
                keys: vec![Keyframe::new(0.0, 1.0, Interpolation::LINEAR)],
            }],
        }],
        clips: vec![AnimationClip {
            name: "C".into(),
            source_index: 0,
        }],
    }
}

fn err_of(doc: &Mdl) -> Error {
    let bytes = doc.to_bytes().expect("writer accepts it");
    Mdl::from_bytes(&bytes).expect_err("reader must reject it")
}

fn patched(offset: usize, value: i32) -> Vec<u8> {
    let mut bytes = tiny().to_bytes().unwrap();
    bytes[offset..offset + 4].copy_from_slice(&value.to_le_bytes());
    bytes
}

#[test]
fn tiny_is_valid_and_laid_out_as_documented() {
    let bytes = tiny().to_bytes().unwrap();
    assert_eq!(bytes.len(), 480);
    let (doc, warnings) = Mdl::from_bytes_with_warnings(&bytes).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(doc, tiny());
    assert_eq!(&bytes[476..480], 0i32.to_le_bytes());
    assert_eq!(&bytes[434..438], 1i32.to_le_bytes());
}

#[track_caller]
fn assert_index_error(err: Error, want_offset: u64, want_index: i64) {
    match &err {
        Error::IndexOutOfRange { offset, index, .. } => {
            assert_eq!((*offset, *index), (want_offset, want_index), "{err}")
        }
        other => panic!("expected IndexOutOfRange, got {other:?}"),
    }
    assert!(err
        .to_string()
        .starts_with(&format!("at byte {want_offset:#x}:")));
}

#[test]
fn index_errors_carry_their_offsets() {
    let mut d = tiny();
    d.bones[0].parent = 0;
    assert_index_error(err_of(&d), 18, 0);

    let mut d = tiny();
    d.meshes[0].divided[0].faces[0] = Face([0, 1, 3]);
    assert_index_error(err_of(&d), 286 + 8, 3);

    let mut d = tiny();
    d.meshes[0].divided[0].faces[0] = Face([-1, 1, 2]);
    assert_index_error(err_of(&d), 286, -1);

    let mut d = tiny();
    d.meshes[0].divided[0].material_runs[0].material_index = 1;
    assert_index_error(err_of(&d), 302, 1);

    let mut d = tiny();
    d.meshes[0].divided[0].connectors[0].bone_index = 1;
    assert_index_error(err_of(&d), 314, 1);

    let mut d = tiny();
    d.meshes[0].divided[0].vertices[1].bone_indices = [1, 0, 0, 0];
    assert_index_error(err_of(&d), 78 + 68 + 60, 1);
    // With a zero weight the slot is meaningless and accepted.
    d.meshes[0].divided[0].vertices[1].weights = [0, 255, 0, 0];
    d.meshes[0].divided[0].vertices[1].bone_indices = [9, 0, 0, 0];
    Mdl::from_bytes(&d.to_bytes().unwrap()).unwrap();

    let mut d = tiny();
    d.clips[0].source_index = 1;
    assert_index_error(err_of(&d), 476, 1);
}

#[test]
fn parent_must_come_first() {
    let mut d = tiny();
    let mut child = d.bones[0].clone();
    child.parent = 1;
    d.bones.push(child);
    // Bone 1 starts at 66 (after bone 0); its parent is after its 1-unit name.
    assert_index_error(err_of(&d), 66 + 6, 1);
    d.bones[1].parent = 0;
    Mdl::from_bytes(&d.to_bytes().unwrap()).unwrap();
}

#[test]
fn runs_must_sum_to_the_face_count() {
    let mut d = tiny();
    d.meshes[0].divided[0].material_runs[0].face_count = 2;
    match err_of(&d) {
        Error::CountMismatch {
            offset,
            expected,
            found,
            ..
        } => assert_eq!((offset, expected, found), (298, 1, 2)),
        other => panic!("{other:?}"),
    }
    let mut d = tiny();
    d.meshes[0].divided[0].material_runs[0].face_count = -1;
    assert!(matches!(
        err_of(&d),
        Error::BadCount {
            offset: 306,
            count: -1,
            ..
        }
    ));
}

#[test]
fn header_errors() {
    assert!(matches!(
        Mdl::from_bytes(&patched(4, 3)),
        Err(Error::UnsupportedVersion {
            offset: 4,
            found: 3
        })
    ));
    assert!(matches!(
        Mdl::from_bytes(&patched(4, 0)),
        Err(Error::UnsupportedVersion {
            offset: 4,
            found: 0
        })
    ));
    for magic in [b"IDPO", b"IDST", b"MDL7", b"MDL5", b"mdl\0"] {
        let mut bytes = tiny().to_bytes().unwrap();
        bytes[..4].copy_from_slice(magic);
        assert!(!sniff(&bytes), "{magic:?}");
        assert!(
            matches!(
                Mdl::from_bytes(&bytes),
                Err(Error::NotThisFormat { offset: 0, .. })
            ),
            "{magic:?}"
        );
    }
    assert!(matches!(
        Mdl::from_bytes(b""),
        Err(Error::NotThisFormat { .. })
    ));
    assert!(matches!(
        Mdl::from_bytes(b"MDL\0\x02\0"),
        Err(Error::Truncated { offset: 4, .. })
    ));
    assert!(sniff(b"MDL\0\x01\0\0\0"));
    assert!(sniff(b"MDL\0\x02\0\0\0"));
    assert!(!sniff(b"MDL\0\x02\0\0"));
    assert!(!sniff(b"MDL\0\xff\xff\xff\xff"));
}

#[test]
fn negative_counts_and_trailing_data() {
    for at in [
        8, 12, 66, 70, 74, 282, 298, 310, 382, 402, 406, 412, 416, 434, 466, 470,
    ] {
        let err = Mdl::from_bytes(&patched(at, -1)).unwrap_err();
        match err {
            Error::BadCount {
                offset, count: -1, ..
            } => assert_eq!(offset, at as u64),
            other => panic!("count at {at}: {other:?}"),
        }
    }
    let mut bytes = tiny().to_bytes().unwrap();
    bytes.push(0);
    assert!(matches!(
        Mdl::from_bytes(&bytes),
        Err(Error::TrailingData {
            offset: 480,
            count: 1
        })
    ));
}

#[test]
fn hostile_counts_fail_fast() {
    // Every count and string length of the tiny file, set to 2^31 - 1.
    for at in [
        8, 12, 66, 70, 74, 282, 298, 310, 382, 402, 406, 412, 416, 434, 466, 470,
    ] {
        let bytes = patched(at, i32::MAX);
        let start = Instant::now();
        let err = Mdl::from_bytes(&bytes).unwrap_err();
        // A hang guard, not a timing assertion: the claim is refused at its offset (below)
        // before any loop over it; a reader looping over 2^31 - 1 elements would take longer.
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "count at {at}: hung"
        );
        match err {
            Error::Truncated { offset, needed, .. } => {
                assert_eq!(offset, at as u64, "{err}");
                assert!(needed >= i32::MAX as u64, "{err}");
            }
            other => panic!("count at {at}: {other:?}"),
        }
    }
    // A 16-byte file claiming 2^31 - 1 bones.
    let mut small = b"MDL\0\x01\0\0\0".to_vec();
    small.extend_from_slice(&i32::MAX.to_le_bytes());
    small.extend_from_slice(&[0; 4]);
    assert!(matches!(
        Mdl::from_bytes(&small),
        Err(Error::Truncated { offset: 8, .. })
    ));
}

/// A bone whose fixed part (parent, rotation order, transform) is cut short fails as one
/// record, at the byte where that record starts.
#[test]
fn a_truncated_bone_record_names_its_start() {
    for (version, size) in [(1i32, 72u64), (2, 48)] {
        let mut bytes = b"MDL\0".to_vec();
        bytes.extend_from_slice(&version.to_le_bytes());
        bytes.extend_from_slice(&1i32.to_le_bytes()); // one bone
        bytes.extend_from_slice(&10i32.to_le_bytes()); // a 10-unit name
        bytes.extend_from_slice(&[b'a', 0].repeat(10));
        let start = bytes.len() as u64;
        // Enough for the bone count check (name + the fixed part of a smaller bone), too
        // little for this version's bone record.
        bytes.extend_from_slice(&vec![0; size as usize - 4]);
        match Mdl::from_bytes(&bytes) {
            Err(Error::Truncated {
                offset,
                what,
                needed,
                available,
            }) => {
                assert_eq!((offset, what), (start, "bone"), "version {version}");
                assert_eq!((needed, available), (size, size - 4), "version {version}");
            }
            other => panic!("version {version}: {other:?}"),
        }
    }
}

#[test]
fn every_truncation_is_an_error() {
    let mut inputs: Vec<(String, Vec<u8>)> = fixtures("mdl", "mdl")
        .iter()
        .map(|p| (file_name(p).to_owned(), read(p)))
        .collect();
    inputs.push(("tiny".into(), tiny().to_bytes().unwrap()));
    if let Some(files) = samples("mdl", "mdl") {
        inputs.extend(files.iter().map(|p| (file_name(p).to_owned(), read(p))));
    }
    for (name, bytes) in &inputs {
        truncation_sweep(name, bytes, Mdl::from_bytes, |_, _| false);
        if LegacyMdl::from_bytes(bytes).is_ok() {
            truncation_sweep(name, bytes, LegacyMdl::from_bytes, |_, _| false);
        }
    }
}

#[test]
fn legacy_layout_is_recognised_in_a_built_file() {
    // magic, version 1, one mesh group { one mesh { 0 vertices, 0 faces, 0 runs, 0 offsets },
    // one bone { "B", -1, 12, two matrices }, one material { 0, "", "", "" } },
    // 0 sources, 0 clips.
    let mut b = b"MDL\0\x01\0\0\0".to_vec();
    let i = |b: &mut Vec<u8>, v: i32| b.extend_from_slice(&v.to_le_bytes());
    i(&mut b, 1);
    i(&mut b, 1);
    for _ in 0..4 {
        i(&mut b, 0);
    }
    i(&mut b, 1);
    i(&mut b, 1);
    b.extend_from_slice(&[b'B', 0]);
    i(&mut b, -1);
    i(&mut b, 12);
    b.extend_from_slice(&[0; 128]);
    i(&mut b, 1);
    for _ in 0..4 {
        i(&mut b, 0);
    }
    i(&mut b, 0);
    i(&mut b, 0);
    let err = Mdl::from_bytes(&b).unwrap_err();
    assert!(
        matches!(err, Error::UnsupportedLayout { offset: 8, layout } if layout == LEGACY_LAYOUT),
        "{err:?}"
    );
    let legacy = LegacyMdl::from_bytes(&b).unwrap();
    assert_eq!(legacy.mesh_groups[0].bones[0].name, "B");
    assert_eq!(legacy.to_bytes().unwrap(), b);
    // The same bytes marked version 2 are not the legacy layout.
    b[4] = 2;
    assert!(!matches!(
        Mdl::from_bytes(&b),
        Err(Error::UnsupportedLayout { .. })
    ));
}

#[test]
fn writer_checks() {
    let mut d = tiny();
    d.version = 1;
    assert!(matches!(
        d.to_bytes(),
        Err(Error::UnexpectedPart { offset: 26, .. })
    ));
    let mut d = tiny();
    d.version = 3;
    assert!(matches!(
        d.to_bytes(),
        Err(Error::UnsupportedVersion { found: 3, .. })
    ));
    let mut d = tiny();
    d.meshes[0].materials[0] = Material::Internal {
        raw_type: 1,
        color: "".into(),
        normal: "".into(),
        metalness: "".into(),
    };
    assert!(matches!(
        d.to_bytes(),
        Err(Error::UnexpectedPart { offset: 386, .. })
    ));
}

#[test]
fn io_entry_points() {
    let doc = tiny();
    let mut out = Vec::new();
    doc.write(&mut out).unwrap();
    assert_eq!(Mdl::read(out.as_slice()).unwrap(), doc);
    let path = std::env::temp_dir().join(format!("mdl-format-io-{}.mdl", std::process::id()));
    doc.save(&path).unwrap();
    assert_eq!(Mdl::from_path(&path).unwrap(), doc);
    std::fs::remove_file(&path).unwrap();
    let missing = Mdl::from_path(path.with_extension("missing")).unwrap_err();
    assert!(matches!(missing, Error::Io(_)));
    assert_eq!(missing.offset(), None);
}

#[test]
fn curve_targets() {
    let t = CurveTarget::parse("Arm.L.rot.w").unwrap();
    assert_eq!(
        (t.node.as_str(), t.channel, t.axis),
        ("Arm.L", Channel::Rotation, Axis::W)
    );
    let t = CurveTarget::parse("骨.scl.z").unwrap();
    assert_eq!(
        (t.node.as_str(), t.channel, t.axis),
        ("骨", Channel::Scale, Axis::Z)
    );
    assert_eq!(CurveTarget::parse(".pos.x").unwrap().node, "");
    for bad in ["", "x", "pos.x", "Bone.pos", "Bone.rot.v", "Bone.move.x"] {
        assert!(CurveTarget::parse(bad).is_none(), "{bad}");
    }
}

#[test]
fn error_is_send_sync_static() {
    fn check<T: Send + Sync + 'static + std::error::Error>() {}
    check::<Error>();
}

/// Deterministic byte corruption of every fixture: the reader may accept or reject, but must
/// never panic, and whatever it accepts must write back to the same bytes.
#[test]
fn corrupted_fixtures_never_panic() {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for path in fixtures("mdl", "mdl") {
        let original = read(&path);
        for _ in 0..2000 {
            let mut bytes = original.clone();
            for _ in 0..1 + next() % 4 {
                let at = (next() % bytes.len() as u64) as usize;
                bytes[at] = match next() % 3 {
                    0 => 0xFF,
                    1 => 0x7F,
                    _ => next() as u8,
                };
            }
            let result = std::panic::catch_unwind(|| Mdl::from_bytes(&bytes));
            match result {
                Err(_) => panic!("{}: panic on corrupted input", file_name(&path)),
                Ok(Ok(doc)) => assert_eq!(doc.to_bytes().unwrap(), bytes),
                Ok(Err(e)) => assert!(e.offset().is_some_and(|o| o <= bytes.len() as u64)),
            }
        }
    }
}
