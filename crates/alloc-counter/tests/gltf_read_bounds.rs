//! The glTF reader's memory bound: decoded data and the JSON's own objects together within
//! `gltf::ALLOCATION_FACTOR` (32) × the input + 1 MiB, measured with the counting allocator on
//! files that are all JSON objects: `{}` is three bytes of a `nodes` array and about 750 bytes
//! once read. Before `gltf/read/json_cost.rs`, 100 000 empty materials (300 KB) took 86 MB.
//!
//! Each family repeats one kind of object (or list element) `n` times. Every size must read
//! within the bound or be refused; at the edge (the most objects a family may have) the read
//! is the closest to the bound, so that is measured too. The figures (`--nocapture`) are where
//! `json_cost.rs`'s costs come from.

use alloc_counter::{measure, Counting};
use models::bytes::heap_only;
use models::gltf::{read_glb, ReadError, ALLOCATION_FACTOR};

#[global_allocator]
static ALLOC: Counting = Counting;

fn bound(len: usize) -> usize {
    ALLOCATION_FACTOR as usize * len + (1 << 20)
}

fn gltf(body: &str) -> Vec<u8> {
    format!("{{\"asset\":{{\"version\":\"2.0\"}},{body}}}").into_bytes()
}

fn rep(item: &str, n: usize) -> String {
    vec![item; n].join(",")
}

type Family = (&'static str, fn(usize) -> Vec<u8>);

/// One kind of object or element, `n` times. (Channels need samplers, samplers accessors: a
/// list of them fails on the first's reference, so they are measured with their parents.)
fn families() -> Vec<Family> {
    vec![
        ("nodes {}", |n| {
            gltf(&format!("\"nodes\":[{}]", rep("{}", n)))
        }),
        ("nodes with a name", |n| {
            gltf(&format!("\"nodes\":[{}]", rep("{\"name\":\"\"}", n)))
        }),
        ("nodes with extras", |n| {
            gltf(&format!("\"nodes\":[{}]", rep("{\"extras\":{}}", n)))
        }),
        ("nodes with a camera", |n| {
            let camera = "{\"type\":\"perspective\",\"perspective\":{\"yfov\":1,\"znear\":1}}";
            gltf(&format!(
                "\"cameras\":[{camera}],\"nodes\":[{}]",
                rep("{\"camera\":0}", n)
            ))
        }),
        ("materials {}", |n| {
            gltf(&format!("\"materials\":[{}]", rep("{}", n)))
        }),
        ("materials with textures", |n| {
            let m = "{\"occlusionTexture\":{\"index\":0},\"emissiveTexture\":{\"index\":0},\
                     \"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}}}";
            gltf(&format!("\"materials\":[{}]", rep(m, n)))
        }),
        ("meshes", |n| {
            gltf(&format!("\"meshes\":[{}]", rep("{\"primitives\":[]}", n)))
        }),
        ("primitives", |n| {
            let p = rep("{\"attributes\":{}}", n);
            gltf(&format!("\"meshes\":[{{\"primitives\":[{p}]}}]"))
        }),
        ("points primitives", |n| {
            let p = rep("{\"attributes\":{},\"mode\":0}", n);
            gltf(&format!("\"meshes\":[{{\"primitives\":[{p}]}}]"))
        }),
        ("morph targets", |n| {
            let t = rep("{}", n);
            gltf(&format!(
                "\"meshes\":[{{\"primitives\":[{{\"attributes\":{{}},\"targets\":[{t}]}}]}}]"
            ))
        }),
        ("attributes", |n| {
            let a: Vec<String> = (0..n).map(|i| format!("\"_{i}\":0")).collect();
            gltf(&format!(
                "\"meshes\":[{{\"primitives\":[{{\"attributes\":{{{}}}}}]}}]",
                a.join(",")
            ))
        }),
        ("accessors", |n| {
            let a = "{\"componentType\":5126,\"count\":0,\"type\":\"SCALAR\"}";
            gltf(&format!("\"accessors\":[{}]", rep(a, n)))
        }),
        ("accessor min", |n| {
            let min = rep("0", n);
            gltf(&format!("\"accessors\":[{{\"componentType\":5126,\"count\":0,\"type\":\"SCALAR\",\"min\":[{min}]}}]"))
        }),
        ("buffer views", |n| {
            let buffer =
                "{\"byteLength\":4,\"uri\":\"data:application/octet-stream;base64,AAAAAA==\"}";
            let views = rep("{\"buffer\":0,\"byteLength\":0}", n);
            gltf(&format!("\"buffers\":[{buffer}],\"bufferViews\":[{views}]"))
        }),
        ("images {}", |n| {
            gltf(&format!("\"images\":[{}]", rep("{}", n)))
        }),
        ("textures {}", |n| {
            gltf(&format!("\"textures\":[{}]", rep("{}", n)))
        }),
        ("samplers {}", |n| {
            gltf(&format!("\"samplers\":[{}]", rep("{}", n)))
        }),
        ("cameras", |n| {
            gltf(&format!("\"cameras\":[{}]", rep("{\"type\":\"x\"}", n)))
        }),
        ("skins", |n| {
            gltf(&format!(
                "\"nodes\":[{{}}],\"skins\":[{}]",
                rep("{\"joints\":[]}", n)
            ))
        }),
        ("skin joints", |n| {
            gltf(&format!(
                "\"nodes\":[{{}}],\"skins\":[{{\"joints\":[{}]}}]",
                rep("0", n)
            ))
        }),
        ("animations", |n| {
            let a = rep("{\"channels\":[],\"samplers\":[]}", n);
            gltf(&format!("\"nodes\":[{{}}],\"animations\":[{a}]"))
        }),
        ("scenes", |n| {
            gltf(&format!(
                "\"nodes\":[{{}}],\"scenes\":[{}]",
                rep("{\"nodes\":[]}", n)
            ))
        }),
        ("scene roots", |n| {
            gltf(&format!(
                "\"nodes\":[{{}}],\"scenes\":[{{\"nodes\":[{}]}}]",
                rep("0", n)
            ))
        }),
        ("node weights", |n| {
            gltf(&format!("\"nodes\":[{{\"weights\":[{}]}}]", rep("0", n)))
        }),
        ("extras numbers", |n| {
            gltf(&format!(
                "\"nodes\":[{{\"extras\":{{\"a\":[{}]}}}}]",
                rep("0", n)
            ))
        }),
        ("extras arrays", |n| {
            gltf(&format!(
                "\"nodes\":[{{\"extras\":{{\"a\":[{}]}}}}]",
                rep("[]", n)
            ))
        }),
        ("extras objects", |n| {
            gltf(&format!(
                "\"nodes\":[{{\"extras\":{{\"a\":[{}]}}}}]",
                rep("{}", n)
            ))
        }),
        ("extras strings", |n| {
            gltf(&format!(
                "\"nodes\":[{{\"extras\":{{\"a\":[{}]}}}}]",
                rep("\"\"", n)
            ))
        }),
        ("extras members", |n| {
            let members: Vec<String> = (0..n).map(|i| format!("\"{i}\":0")).collect();
            gltf(&format!(
                "\"nodes\":[{{\"extras\":{{{}}}}}]",
                members.join(",")
            ))
        }),
        ("extensionsUsed", |n| {
            gltf(&format!("\"extensionsUsed\":[{}]", rep("\"\"", n)))
        }),
        ("extensions", |n| {
            gltf(&format!(
                "\"nodes\":[{{\"extensions\":{{\"a\":[{}]}}}}]",
                rep("{}", n)
            ))
        }),
        ("long name", |n| {
            gltf(&format!(
                "\"nodes\":[{{\"name\":\"{}\"}}]",
                "x".repeat(3 * n)
            ))
        }),
        ("unknown member", |n| {
            gltf(&format!("\"zzz\":[{}]", rep("{}", n)))
        }),
    ]
}

/// Reads `bytes`, asserting the bound; true when it read.
fn read_within_bound(name: &str, n: usize, bytes: &[u8]) -> bool {
    let (read, peak) = heap_only(|| measure(|| read_glb(bytes).map(|r| r.scene.nodes.len())));
    let limit = bound(bytes.len());
    assert!(
        peak <= limit,
        "{name} × {n}: {peak} bytes at the peak, over {limit} for {} bytes",
        bytes.len()
    );
    match read {
        Ok(_) => true,
        Err(ReadError::JsonTooLarge { .. }) => false,
        // Some families are refused for what they are, past their first objects.
        Err(e) => {
            assert!(!e.to_string().is_empty());
            false
        }
    }
}

#[test]
fn json_objects_read_within_the_bound_or_are_refused() {
    for (name, make) in families() {
        let mut read = 0;
        let mut refused = None;
        for n in [1_000, 10_000, 100_000] {
            if read_within_bound(name, n, &make(n)) {
                read = n;
            } else if refused.is_none() {
                refused = Some(n);
            }
        }
        // The edge: the most objects read, to within 2 %.
        if let Some(mut high) = refused.filter(|&r| r > read) {
            let mut low = read;
            while high - low > high / 50 {
                let mid = (low + high) / 2;
                if read_within_bound(name, mid, &make(mid)) {
                    low = mid;
                } else {
                    high = mid;
                }
            }
            read = low;
        }
        // The figures behind json_cost.rs's costs: memory per object, against its text.
        let (small, large) = (make(read / 2), make(read));
        let ((_, at_small), (_, at_large)) = heap_only(|| {
            (
                measure(|| read_glb(&small).map(|r| r.scene.nodes.len())),
                measure(|| read_glb(&large).map(|r| r.scene.nodes.len())),
            )
        });
        let objects = (read - read / 2).max(1) as f64;
        println!(
            "{name:24} read up to {read:>6}: {:7.1} bytes each in memory, {:5.1} in the file",
            (at_large as f64 - at_small as f64) / objects,
            (large.len() - small.len()) as f64 / objects,
        );
    }
}

#[test]
fn a_file_of_empty_nodes_is_refused_where_its_objects_pass_the_bound() {
    let bytes = gltf(&format!("\"nodes\":[{}]", rep("{}", 1_000_000)));
    let (read, peak) = heap_only(|| measure(|| read_glb(&bytes).map(|_| ())));
    assert!(
        peak < 1 << 20,
        "refused before anything is built: {peak} bytes"
    );
    match read {
        Err(ReadError::JsonTooLarge {
            line,
            column,
            at,
            needed,
            limit,
        }) => {
            assert_eq!(limit, bound(bytes.len()) as u64);
            assert!(needed > limit);
            assert_eq!(line, 1);
            assert!(at.starts_with("nodes["), "{at}");
            let index: usize = at["nodes[".len()..at.len() - 1].parse().unwrap();
            // The place is the node being read when the limit was passed.
            assert_eq!(bytes.get(column - 1), Some(&b'{'));
            let before = &bytes[..column - 1];
            assert_eq!(before.windows(2).filter(|w| w == b"{}").count(), index);
        }
        other => panic!("{other:?}"),
    }
}
