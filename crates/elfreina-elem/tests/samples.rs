//! The synthetic samples in ../shared/samples/elem: they parse with the counts and warnings
//! listed in their PROVENANCE.md, and `parse(write(doc)) == doc`.

use elfreina_elem::Model as _;
use elfreina_elem::{Elem, Item, WarningKind};
use test_support::{file_name, read, samples};

/// file, top-level scopes, containers, meshes, vertices, faces, triangles, materials, bones,
/// hierarchy nodes, rendering meshes, animations.
type Row = (
    &'static str,
    &'static [&'static str],
    usize,
    usize,
    usize,
    usize,
    usize,
    usize,
    usize,
    usize,
    usize,
    usize,
);

const EXPECTED: &[Row] = &[
    (
        "SYNTHETIC_01_static_quad_crlf_tabs.elem",
        &["Setting", "MeshDataList"],
        1,
        1,
        4,
        2,
        2,
        1,
        0,
        0,
        0,
        0,
    ),
    (
        "SYNTHETIC_02_skinned_animated.elem",
        &[
            "Setting",
            "MeshDataList",
            "HierarchyList",
            "RenderingMeshList",
            "AnimationList",
        ],
        1,
        1,
        3,
        1,
        1,
        1,
        2,
        2,
        1,
        1,
    ),
    (
        "SYNTHETIC_03_spec_style_variant_lf.elem",
        &["MeshDatas"],
        1,
        1,
        4,
        1,
        2,
        2,
        0,
        0,
        0,
        0,
    ),
    (
        "SYNTHETIC_04_edge_cases_bom_noindent.elem",
        &["MeshDataList", "CustomThing"],
        1,
        1,
        3,
        1,
        1,
        0,
        0,
        0,
        0,
        0,
    ),
];

/// Equality with NaN compared by bits: the canonical writer output (which spells every NaN
/// by sign and quiet bit) must match, and the documents must be equal once the NaNs of the
/// vertex arrays are replaced by a marker.
fn same(a: &Elem, b: &Elem) -> bool {
    fn denan(doc: &Elem) -> Elem {
        let mut doc = doc.clone();
        let fix = |v: &mut f64| {
            if v.is_nan() {
                *v = 12345.0 + (v.to_bits() >> 51) as f64;
            }
        };
        for c in doc.mesh_data.iter_mut().flat_map(|m| &mut m.containers) {
            for m in &mut c.meshes {
                m.positions.iter_mut().flatten().for_each(fix);
                m.normals.iter_mut().flatten().for_each(fix);
                m.diffuse.iter_mut().flatten().for_each(fix);
                m.uv_sets.iter_mut().flatten().flatten().for_each(fix);
            }
        }
        doc
    }
    a.to_bytes().unwrap() == b.to_bytes().unwrap() && denan(a) == denan(b)
}

#[test]
fn samples_parse_with_provenance_counts() {
    let Some(files) = samples("elem", "elem") else {
        return;
    };
    assert_eq!(files.len(), EXPECTED.len(), "sample set changed");
    for path in &files {
        let name = file_name(path);
        let row = EXPECTED
            .iter()
            .find(|r| r.0 == name)
            .unwrap_or_else(|| panic!("no expectation for {name}"));
        let bytes = read(path);
        assert!(elfreina_elem::sniff(&bytes), "{name}: sniff");
        let tree = elfreina_elem::Tree::from_bytes(&bytes).unwrap();
        let tags: Vec<&str> = tree.items.iter().map(Item::name).collect();
        assert_eq!(tags, row.1, "{name}: top-level scopes");
        assert_eq!(tree.version.text, "1.00");

        let (doc, warnings) =
            Elem::from_bytes_with_warnings(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let containers = doc.containers();
        let meshes: Vec<_> = containers.iter().flat_map(|c| &c.meshes).collect();
        assert_eq!(containers.len(), row.2, "{name}: containers");
        assert_eq!(meshes.len(), row.3, "{name}: meshes");
        assert_eq!(
            meshes.iter().map(|m| m.vertex_count()).sum::<usize>(),
            row.4,
            "{name}: vertices"
        );
        assert_eq!(
            meshes.iter().map(|m| m.face_count()).sum::<usize>(),
            row.5,
            "{name}: faces"
        );
        assert_eq!(
            meshes.iter().map(|m| m.triangle_count()).sum::<usize>(),
            row.6,
            "{name}: triangles"
        );
        assert_eq!(
            containers
                .iter()
                .map(|c| c.material_list().len())
                .sum::<usize>(),
            row.7,
            "{name}: materials"
        );
        assert_eq!(
            containers.iter().map(|c| c.bone_count()).sum::<usize>(),
            row.8,
            "{name}: bones"
        );
        assert_eq!(doc.hierarchy.node_count(), row.9, "{name}: hierarchy nodes");
        assert_eq!(
            doc.rendering_meshes().len(),
            row.10,
            "{name}: rendering meshes"
        );
        assert_eq!(doc.animations().len(), row.11, "{name}: animations");

        // Warnings, as PROVENANCE.md lists them.
        let kinds: Vec<&WarningKind> = warnings.iter().map(|w| &w.kind).collect();
        match &name[..12] {
            "SYNTHETIC_01" => assert!(kinds.is_empty(), "{name}: {warnings:?}"),
            "SYNTHETIC_02" => {
                assert_eq!(kinds.len(), 3, "{name}: {warnings:?}");
                assert!(
                    kinds
                        .iter()
                        .all(|k| matches!(k, WarningKind::UvKeyWidth { .. })),
                    "{name}: {warnings:?}"
                );
            }
            "SYNTHETIC_03" => assert_eq!(kinds, [&WarningKind::MeshDatasTag], "{name}"),
            "SYNTHETIC_04" => {
                assert_eq!(kinds.len(), 4, "{name}: {warnings:?}");
                let non_finite: Vec<&str> = kinds
                    .iter()
                    .filter_map(|k| match k {
                        WarningKind::NonFinite { text } => Some(text.as_str()),
                        _ => None,
                    })
                    .collect();
                assert_eq!(non_finite, ["1.#QNAN", "1.#INF"], "{name}");
                assert!(kinds.contains(&&WarningKind::NoAttributes));
                assert!(kinds.contains(&&WarningKind::Unknown {
                    name: "CustomThing".into()
                }));
            }
            _ => unreachable!(),
        }

        // parse(write(doc)) == doc, and the canonical output is a fixed point.
        let written = doc.to_bytes().unwrap();
        let back = Elem::from_bytes(&written)
            .unwrap_or_else(|e| panic!("{name}: rewrite does not parse: {e}"));
        assert!(same(&back, &doc), "{name}: parse(write(doc)) != doc");
        if !name.starts_with("SYNTHETIC_04") {
            assert_eq!(back, doc, "{name}");
        }
        assert_eq!(
            back.to_bytes().unwrap(),
            written,
            "{name}: canonical output is not a fixed point"
        );
        // The six-decimal style also reads back (lossy in general, exact for these values).
        let six = doc
            .to_bytes_with(&elfreina_elem::WriteOptions::six_decimals())
            .unwrap();
        Elem::from_bytes(&six).unwrap();
    }
}

#[test]
fn sample_details() {
    let Some(files) = samples("elem", "elem") else {
        return;
    };
    let docs: Vec<Elem> = files
        .iter()
        .map(|p| Elem::from_bytes(&read(p)).unwrap())
        .collect();
    let [d1, d2, d3, d4] = &docs[..] else {
        panic!("expected 4 samples")
    };

    // 01: material a:r:g:b and relative texture path.
    let c = &d1.containers()[0];
    let mat = &c.material_list()[0];
    assert_eq!(mat.diffuse, Some([1.0, 0.8, 0.8, 0.8]));
    assert_eq!(mat.texture_filename.as_deref(), Some("tex\\quad.png"));
    assert_eq!(c.vertex_format, ["Position", "Normal", "Texture"]);
    assert_eq!(d1.setting.soft_version, Some(1.1));
    assert_eq!(d1.setting.load_type.as_deref(), Some("View"));
    let faces: Vec<&[u32]> = c.meshes[0].faces().collect();
    assert_eq!(faces, [&[0, 2, 1][..], &[0, 3, 2][..]]);
    assert_eq!(c.meshes[0].uv_sets[0].len(), 4);

    // 02: skinning, hierarchy, animation.
    let c = &d2.containers()[0];
    assert_eq!(c.bone_names, ["Root", "Tip"]);
    assert_eq!(c.offset_matrices[1][13], -2.0);
    assert_eq!(c.material_list()[0].name.as_deref(), Some("白"));
    let parts = &c.meshes[0].blend_list.parts;
    assert_eq!(parts.len(), 2);
    assert_eq!(parts[1].transform_index, Some(1));
    assert_eq!(parts[1].vertex_blends[0].vertex, 1);
    assert_eq!(parts[1].vertex_blends[0].weight, 0.5);
    assert_eq!(d2.setting.is_right_hand, Some(false));
    let root = &d2.hierarchy.nodes[0];
    assert_eq!(root.children[0].name.as_deref(), Some("Tip"));
    assert_eq!(root.children[0].init_posture.unwrap()[13], 2.0);
    assert_eq!(d2.rendering_meshes()[0].hierarchy_names, ["Root", "Tip"]);
    let a = &d2.animations()[0];
    assert_eq!(
        (a.time_ms, a.frames_per_second, a.looped),
        (Some(1000), Some(60), Some(true))
    );
    let part = &a.bone_animation.parts[0];
    assert_eq!(part.interpolation_type.as_deref(), Some("Linear"));
    assert_eq!(part.rotate_keys[1], [0.0, 0.0, 0.382683, 0.92388]);
    assert_eq!(a.uv_animation.parts[0].trans_keys[1], [0.5, 0.0, 0.0]);

    // 03: MeshDatas, name with colon, quad, two UV sets, vertex colours, exponent, -0.
    let c = &d3.containers()[0];
    assert_eq!(c.name.as_deref(), Some("ルーン"));
    assert_eq!(c.material_list()[0].name.as_deref(), Some("a b:c"));
    let m = &c.meshes[0];
    assert_eq!(m.positions[0][0], -1.5e-5);
    assert!(m.positions[2][1] == 0.0 && m.positions[2][1].is_sign_negative());
    assert_eq!(m.face_sizes, [4]);
    assert_eq!(m.triangle_count(), 2);
    assert_eq!(m.diffuse[0], [1.0, 1.0, 0.0, 0.0]);
    assert_eq!((m.uv_sets[0].len(), m.uv_sets[1].len()), (4, 4));
    assert_eq!(m.attributes, [1]);

    // 04: NaN / Inf, unknown scope kept verbatim.
    let m = &d4.containers()[0].meshes[0];
    assert!(m.positions[1][1].is_nan());
    assert_eq!(m.positions[2][2], f64::INFINITY);
    assert!(m.attributes.is_empty());
    let Item::Scope(custom) = &d4.extra[0] else {
        panic!()
    };
    assert_eq!(custom.tag, "CustomThing");
    let Item::Entry(baz) = &custom.items[1] else {
        panic!()
    };
    let groups: Vec<Vec<&str>> = baz
        .values
        .groups()
        .map(|g| g.iter().map(|a| a.text.as_str()).collect())
        .collect();
    assert_eq!(groups, [vec!["1"], vec!["2", "3"], vec!["4"]]);
    assert_eq!((baz.pos.line, baz.pos.column), (36, 1));
}
