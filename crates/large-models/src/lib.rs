//! Deterministic generators of large models in every format, as file bytes.
//!
//! The benches of the five format crates and of the facade, and `cargo xtask gen-large`
//! (which writes them into `target/large/`), all use these, so every figure in
//! `BENCHMARKS.md` is measured on the same content:
//!
//! * **static**: 1 000 000 vertices and 2 000 000 triangles (16 tori of 250 × 250 vertices),
//!   as 16 meshes where the format caps indices at 16 bits (BMF), one mesh elsewhere;
//! * **skinned**: 100 000 vertices (4 tubes of 100 rings × 250) blended over 72 bones, with
//!   100 animation keys per bone and channel (SKM stores no animation);
//! * **OBJ**: the static content as `%.6f` Wavefront text, for the `tobj` baseline;
//! * **character**: the skinned SMF's bones and clip on 2 592 vertices, about 0.6 MB, the size
//!   of a real game character, for the whole-process comparison;
//! * **mid**: 40 000-vertex static models for the batch-conversion figures.
//!
//! Every generator returns bytes (never a format crate's types), so format crates can use
//! this crate as a dev-dependency without type clashes.

#[cfg(feature = "bench")]
pub mod bench;
pub mod bmf;
pub mod elem;
mod filter;
pub mod geometry;
pub mod mdl;
pub mod obj;
pub mod skm;
pub mod smf;

/// Any generator failure (a writer refusing the model, a count that does not fit).
pub type Error = Box<dyn std::error::Error + Send + Sync>;

pub use filter::bench_filter;

/// A named generator of one file.
#[derive(Clone, Copy)]
pub struct Generator {
    /// File name (`static.bmf`, `skinned.smf`, …).
    pub file: &'static str,
    /// Produces the bytes.
    pub generate: fn() -> Result<Vec<u8>, Error>,
}

/// Every large file, in format order.
pub const LARGE: &[Generator] = &[
    Generator {
        file: "static.bmf",
        generate: bmf::large_static,
    },
    Generator {
        file: "skinned.bmf",
        generate: bmf::skinned,
    },
    Generator {
        file: "static.smf",
        generate: smf::large_static,
    },
    Generator {
        file: "skinned.smf",
        generate: smf::skinned,
    },
    Generator {
        file: "character.smf",
        generate: smf::character,
    },
    Generator {
        file: "static.mdl",
        generate: mdl::large_static,
    },
    Generator {
        file: "skinned.mdl",
        generate: mdl::skinned,
    },
    Generator {
        file: "static.elem",
        generate: elem::large_static,
    },
    Generator {
        file: "skinned.elem",
        generate: elem::skinned,
    },
    Generator {
        file: "static.skm",
        generate: skm::large_static,
    },
    Generator {
        file: "skinned.skm",
        generate: skm::skinned,
    },
    Generator {
        file: "static.obj",
        generate: obj_large_static,
    },
];

fn obj_large_static() -> Result<Vec<u8>, Error> {
    Ok(obj::large_static())
}

/// Number of mid-size files for the batch-conversion figures.
pub const MID_COUNT: u32 = 200;

/// Mid-size file `index` (0-based): the formats take turns, and each file is shifted a little
/// so that no two are identical. Returns the file name and its bytes.
pub fn mid(index: u32) -> Result<(String, Vec<u8>), Error> {
    let g = geometry::mid_static(index);
    let (ext, bytes) = match index % 5 {
        0 => ("bmf", bmf::static_from(&g)?),
        1 => ("smf", smf::static_from(&g)?),
        2 => ("mdl", mdl::static_from(&g)?),
        3 => ("elem", elem::static_from(&g)?),
        _ => ("skm", skm::static_from(&g)?),
    };
    Ok((format!("mid{index:03}.{ext}"), bytes))
}

#[cfg(test)]
mod tests {
    use super::geometry as geo;

    #[test]
    fn static_counts_match_the_issue() {
        let g = geo::large_static();
        assert_eq!(g.positions.len(), 1_000_000);
        assert_eq!(g.triangles.len(), 2_000_000);
        assert!(g.parts.iter().all(|p| p.vertices.len() <= 65_536));
        let max = g.triangles.iter().flatten().max().copied();
        assert_eq!(max, Some(999_999));
    }

    #[test]
    fn skinned_counts_match_the_issue() {
        let g = geo::skinned();
        assert_eq!(g.positions.len(), 100_000);
        assert_eq!(g.influences.len(), 100_000);
        let max_bone = g.influences.iter().flatten().map(|(b, _)| *b).max();
        assert_eq!(max_bone, Some(geo::BONES as u8 - 1));
        for part in &g.parts {
            assert!(part.bones(&g).len() <= 32, "MDL allows 32 connectors");
        }
        for inf in &g.influences {
            assert!((inf[0].1 + inf[1].1 - 1.0).abs() < 1e-9);
        }
    }

    #[test]
    fn torus_adjacency_is_closed_and_symmetric() {
        let g = geo::tori(1, 6, 5, 0.0);
        let adj = geo::adjacency(&g);
        for (f, row) in adj.iter().enumerate() {
            for &n in row {
                assert_ne!(n, u32::MAX, "a torus has no border");
                assert!(adj[n as usize].contains(&(f as u32)));
            }
        }
    }

    #[test]
    fn mid_files_read_back_with_the_right_counts() {
        // The one trait every format crate re-exports.
        use bmf_block::Model as _;
        for i in 0..5 {
            let (name, bytes) = super::mid(i).expect("generates");
            let vertices = match i {
                0 => bmf_block::Bmf::from_bytes(&bytes)
                    .map(|d| d.meshes.iter().map(|m| m.vertices.len()).sum::<usize>())
                    .ok(),
                1 => selene_smf::Smf::from_bytes(&bytes)
                    .map(|d| d.meshes[0].vertices.len())
                    .ok(),
                2 => mdl_format::Mdl::from_bytes(&bytes)
                    .map(|d| d.meshes[0].divided[0].vertices.len())
                    .ok(),
                3 => elfreina_elem::Elem::from_bytes(&bytes)
                    .map(|d| {
                        d.mesh_data
                            .map_or(0, |m| m.containers[0].meshes[0].positions.len())
                    })
                    .ok(),
                _ => skm_text::Skm::from_bytes(&bytes)
                    .map(|d| d.vertices.len())
                    .ok(),
            };
            assert_eq!(vertices, Some(40_000), "{name}");
        }
    }

    #[test]
    fn obj_has_one_line_per_datum() {
        let g = geo::tori(1, 4, 3, 0.0);
        let text = String::from_utf8(super::obj::from(&g)).expect("ascii");
        assert_eq!(text.lines().filter(|l| l.starts_with("v ")).count(), 12);
        assert_eq!(text.lines().filter(|l| l.starts_with("f ")).count(), 24);
        assert!(text.contains("v -11.000000 0.000000 -15.000000"));
    }
}
