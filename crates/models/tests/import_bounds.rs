//! The way back is bounded: a format writer makes at most 16 × the scene's cost + 16 MiB
//! (`scene/budget.rs`, `writing_limit`). The scene counts a shared key list or index list once,
//! but the formats have no sharing of their own (SMF keys, every format's index ranges), so
//! these scenes — small, and what the glTF reader makes of a small `.glb` whose animations or
//! primitives share accessors — used to ask the writers for hundreds of megabytes.

#![cfg(all(feature = "smf", feature = "mdl", feature = "bmf", feature = "elem"))]

use models::scene::{
    Animation, Channel, ChannelPath, ImportOptions, Indices, Interpolation, Keys, Mesh, Node,
    Primitive, Scene, Vertices,
};
use models::{Document, Error, Format};
use std::sync::Arc;

/// One node and `clips` animations that all play the same rotation key lists of `keys` keys
/// (as the glTF reader gives clips whose samplers share accessors: MDL clips of one source).
fn shared_clips(clips: usize, keys: usize) -> Scene {
    let times = Keys::from((0..keys).map(|k| k as f32 / 30.0).collect::<Vec<_>>());
    let values = Keys::from([0.0, 0.0, 0.0, 1.0].repeat(keys));
    let channel = Channel {
        node: 0,
        path: ChannelPath::Rotation,
        interpolation: Interpolation::Linear,
        times,
        values,
    };
    Scene {
        nodes: vec![Node {
            name: "bone".into(),
            ..Node::default()
        }],
        roots: vec![0],
        animations: (0..clips)
            .map(|c| Animation {
                name: format!("clip{c}"),
                channels: vec![channel.clone()],
                ..Animation::default()
            })
            .collect(),
        ..Scene::default()
    }
}

/// One mesh of one triangle's three vertices whose `primitives` each take the whole of one
/// shared list of `triangles` copies of that triangle.
fn overlapping_primitives(primitives: usize, triangles: usize) -> Scene {
    let list = Arc::new(models::scene::Array::from([0u32, 1, 2].repeat(triangles)));
    let whole = Indices::shared(&list, 0..list.len()).expect("the range is in the list");
    Scene {
        nodes: vec![Node {
            name: "mesh".into(),
            mesh: Some(0),
            ..Node::default()
        }],
        roots: vec![0],
        meshes: vec![Mesh {
            name: "m".into(),
            vertices: Vertices {
                positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]].into(),
                ..Vertices::default()
            },
            primitives: (0..primitives)
                .map(|_| Primitive {
                    indices: whole.clone(),
                    material: None,
                })
                .collect(),
            ..Mesh::default()
        }],
        ..Scene::default()
    }
}

fn import(format: Format, scene: Scene) -> Result<Document, Error> {
    Document::import_scene(format, scene, None, &ImportOptions::default()).map(|i| i.document)
}

fn assert_over_budget(result: Result<Document, Error>, place: &str) {
    match result {
        Err(Error::BudgetExceeded {
            place: p,
            needed,
            limit,
            ..
        }) => {
            assert!(p.contains(place), "{p}");
            assert!(needed > limit, "{needed} ≤ {limit}");
        }
        Err(other) => panic!("expected a budget error at {place}, got {other}"),
        Ok(doc) => panic!("expected a budget error at {place}, got a {}", doc.format()),
    }
}

/// 300 clips of one 40 000-key list: MDL writes one source that every clip plays (as the file
/// such a `.glb` came from did), not 300 copies (~300 MB).
#[test]
fn clips_playing_the_same_keys_share_one_mdl_source() {
    let doc = import(Format::Mdl, shared_clips(300, 40_000)).expect("imports");
    let Document::Mdl(mdl) = doc else {
        panic!("not an MDL document");
    };
    assert_eq!(mdl.clips.len(), 300);
    assert_eq!(mdl.animation_sources.len(), 1);
    assert!(mdl.clips.iter().all(|c| c.source_index == 0));
    assert_eq!(mdl.animation_sources[0].curves.len(), 3);
    assert!(mdl.animation_sources[0]
        .curves
        .iter()
        .all(|c| c.keys.len() == 40_000));
}

/// Two clips that play different key lists still get a source each.
#[test]
fn clips_with_their_own_keys_keep_their_own_mdl_sources() {
    let mut scene = shared_clips(2, 10);
    scene.animations[1].channels[0].times =
        Keys::from((0..10).map(|k| k as f32 / 30.0).collect::<Vec<_>>());
    let Document::Mdl(mdl) = import(Format::Mdl, scene).expect("imports") else {
        panic!("not an MDL document");
    };
    assert_eq!(mdl.animation_sources.len(), 2);
    assert_eq!(
        mdl.clips.iter().map(|c| c.source_index).collect::<Vec<_>>(),
        [0, 1]
    );
}

/// SMF has no shared keys: the same scene would be 300 × 40 000 × 20 bytes (240 MB) of keys
/// from a scene of about 1 MB. Refused, naming the animation where the limit is passed.
#[test]
fn smf_refuses_keys_multiplied_past_the_writing_limit() {
    assert_over_budget(
        import(Format::Smf, shared_clips(300, 40_000)),
        "smf animation",
    );
}

/// ELEM writes each clip's key rows as text (up to 11 numbers a key): refused the same way.
/// Before the limit, this scene's ELEM took minutes and gigabytes.
#[test]
fn elem_refuses_keys_multiplied_past_the_writing_limit() {
    let mut scene = shared_clips(300, 40_000);
    scene.nodes[0].name = "root".into();
    assert_over_budget(import(Format::Elem, scene), "elem animation");
}

/// A few clips sharing keys are well within the limit.
#[test]
fn smf_writes_a_few_clips_sharing_keys() {
    let Document::Smf(smf) = import(Format::Smf, shared_clips(3, 1_000)).expect("imports") else {
        panic!("not an SMF document");
    };
    assert_eq!(smf.animation_sets.len(), 3);
}

/// 200 primitives over one shared list of 300 000 indices (1.2 MB, counted once in the scene's
/// cost) would be 240 MB of copied ranges: every writer refuses before copying.
#[test]
fn overlapping_index_ranges_are_refused_past_the_writing_limit() {
    for format in [Format::Smf, Format::Mdl, Format::Bmf] {
        assert_over_budget(
            import(format, overlapping_primitives(200, 100_000)),
            "mesh 0",
        );
    }
}

/// Three overlapping primitives of a small list convert into every format.
#[test]
fn a_few_overlapping_index_ranges_convert() {
    for format in [Format::Smf, Format::Mdl, Format::Bmf] {
        let doc = import(format, overlapping_primitives(3, 1_000));
        assert!(doc.is_ok(), "{format}: {:?}", doc.err());
    }
}

/// Our own `.glb` of each `amplifying-overlap` regression file (hundreds of material ranges
/// over one shared index list, written as one buffer view with an accessor per range) reads
/// back, and gives the file back byte for byte. The glTF reader decodes such a view once and
/// makes each primitive a range of it; decoding it accessor by accessor went past the reader's
/// limit of 32 × the input and refused the file.
#[cfg(feature = "skm")]
#[test]
fn overlapping_index_accessors_read_back_byte_for_byte() {
    use models::gltf::{read_glb, to_glb, GltfOptions};
    use models::scene::validate;
    for format in [Format::Bmf, Format::Smf, Format::Skm] {
        let ext = format.extensions()[0];
        let path = test_support::workspace_root().join(format!(
            "fixtures/regressions/{ext}/amplifying-overlap.{ext}"
        ));
        let bytes = std::fs::read(&path).unwrap();
        let doc = models::from_bytes(&bytes).unwrap();
        let scene = validate(Scene::from_document(&doc).unwrap().scene).scene;
        let glb = to_glb(&scene, &GltfOptions::default()).unwrap();
        let read = read_glb(&glb).unwrap_or_else(|e| panic!("{ext}: {e}"));
        // Every primitive a range of one list, as in the scene it was written from.
        let mesh = &read.scene.meshes[0];
        assert!(mesh.primitives.len() > 100, "{ext}");
        assert!(
            mesh.primitives
                .iter()
                .all(|p| Arc::ptr_eq(p.indices.list(), mesh.primitives[0].indices.list())),
            "{ext}"
        );
        let back = Document::import_scene(format, read.scene, None, &ImportOptions::default())
            .unwrap_or_else(|e| panic!("{ext}: {e}"));
        assert_eq!(back.document.to_bytes().unwrap(), bytes, "{ext}");
    }
}
