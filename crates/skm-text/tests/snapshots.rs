//! Summary snapshots of every fixture (there are no real `.skm` samples to snapshot).

use skm_text::Model as _;
use skm_text::Skm;
use std::fmt::Write as _;
use test_support::{bounds, hash};

fn summary(bytes: &[u8]) -> String {
    let (doc, warnings) = Skm::from_bytes_with_warnings(bytes).unwrap();
    let mut s = String::new();
    let _ = writeln!(s, "bytes: {} (hash {})", bytes.len(), hash(bytes));
    let _ = writeln!(s, "encoding: {:?}", doc.encoding);
    let _ = writeln!(
        s,
        "vertices: {} bounds {} hash {}",
        doc.vertices.len(),
        bounds(doc.vertices.iter().map(|v| v.position)),
        hash(bytemuck::cast_slice(&doc.vertices))
    );
    let mut palette: Vec<u8> = doc.vertices.iter().flat_map(|v| v.palette()).collect();
    palette.sort_unstable();
    palette.dedup();
    let _ = writeln!(s, "palette indices used: {palette:?}");
    let _ = writeln!(
        s,
        "triangles: {} hash {}",
        doc.triangles.len(),
        hash(bytemuck::cast_slice(&doc.triangles))
    );
    let open = doc
        .adjacency
        .iter()
        .flatten()
        .filter(|&&f| f as usize >= doc.triangles.len())
        .count();
    let _ = writeln!(
        s,
        "adjacency: {} open edges {open} hash {}",
        doc.adjacency.len(),
        hash(bytemuck::cast_slice(&doc.adjacency))
    );
    for (i, m) in doc.materials.iter().enumerate() {
        let _ = writeln!(
            s,
            "material {i}: diffuse {:?} power {} texture {:?}",
            m.diffuse,
            m.power,
            m.texture.as_ref().map(|t| doc.text(t))
        );
    }
    for r in &doc.attributes {
        let _ = writeln!(
            s,
            "range: material {} faces {}+{} vertices {}+{}",
            r.material, r.face_start, r.face_count, r.vertex_start, r.vertex_count
        );
    }
    for (i, b) in doc.bones.iter().enumerate() {
        let _ = writeln!(
            s,
            "bone {i}: {:?} parent {} symmetric {} begin {:?} end {:?} rotation {:?}",
            doc.text(&b.name),
            b.parent,
            b.symmetric,
            b.begin,
            b.end,
            b.rotation
        );
    }
    for w in &warnings {
        let _ = writeln!(s, "warning: {w}");
    }
    s
}

#[test]
fn fixtures() {
    insta::glob!("../../../fixtures/skm", "*.skm", |path| {
        let bytes = std::fs::read(path).unwrap();
        insta::assert_snapshot!(summary(&bytes));
    });
}
