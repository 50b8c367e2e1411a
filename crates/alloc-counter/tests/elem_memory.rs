//! Issue 12: the ELEM reader's memory stays within [`elfreina_elem::TREE_BUDGET_FACTOR`] ×
//! the input + 1 MiB on any input (hostile shapes generated here: millions of tiny unknown
//! items, data lines, values, scopes, names), repeated warnings are one warning with a count,
//! and no message quotes more than about 60 bytes of a token.

use alloc_counter::{measure, Counting};
use elfreina_elem::Model as _;
use elfreina_elem::{Elem, Error, Warning, WarningKind, MAX_SUBJECTS, TREE_BUDGET_FACTOR};

#[global_allocator]
static ALLOC: Counting = Counting;

const MIB: usize = 1 << 20;
const HEAD: &str = "Elfreina Extension Model File\nFile Version 1.00\n";

/// `HEAD`, then `before`, `line(i)` for `i` in `0..n`, then `after`.
fn file(before: &str, n: usize, line: impl Fn(usize) -> String, after: &str) -> Vec<u8> {
    let mut t = String::from(HEAD);
    t.push_str(before);
    for i in 0..n {
        t.push_str(&line(i));
    }
    t.push_str(after);
    t.into_bytes()
}

/// Reads `bytes`, asserting the memory budget and short messages; returns the result.
fn read_bounded(what: &str, bytes: &[u8]) -> Result<Vec<Warning>, Error> {
    let (result, peak) = measure(|| Elem::from_bytes_with_warnings(bytes).map(|(_, w)| w));
    let budget = TREE_BUDGET_FACTOR * bytes.len() + MIB;
    eprintln!(
        "{what}: {} bytes, peak {peak} ({:.1} x), {}",
        bytes.len(),
        peak as f64 / bytes.len() as f64,
        match &result {
            Ok(w) => format!("{} warning(s)", w.len()),
            Err(e) => e.to_string(),
        }
    );
    assert!(peak <= budget, "{what}: peak {peak} > budget {budget}");
    match &result {
        Ok(warnings) => {
            assert!(
                warnings.len() <= 4 * MAX_SUBJECTS,
                "{what}: {}",
                warnings.len()
            );
            for w in warnings {
                assert!(w.to_string().len() < 300, "{what}: {w}");
            }
        }
        Err(e) => assert!(e.to_string().len() < 300, "{what}: {e}"),
    }
    result
}

#[test]
fn millions_of_tiny_items_stay_within_the_budget() {
    let n = 1_000_000;
    // Unknown `K=1` entries at the top level and deep inside a material (each 4-byte line
    // costs a 56-byte node and a 40-byte value, and three nodes while its list grows): read
    // with one warning, or refused once the tree would exceed the budget.
    for (what, before, after) in [
        ("top-level K=1", "", ""),
        (
            "K=1 in a Material",
            "MeshDataList {\nMeshContainer {\nMaterials {\nMaterial {\n",
            "}\n}\n}\n}\n",
        ),
    ] {
        for lines in [n, n + n / 4] {
            let bytes = file(before, lines, |_| "K=1\n".into(), after);
            match read_bounded(what, &bytes) {
                Ok(w) => {
                    let unknown: Vec<_> = w
                        .iter()
                        .filter(|w| w.kind == WarningKind::Unknown { name: "K".into() })
                        .collect();
                    assert_eq!(unknown.len(), 1, "{what}: {w:?}");
                    assert_eq!(unknown[0].count, lines as u64, "{what}");
                }
                Err(e) => assert!(matches!(e, Error::TooLarge { .. }), "{what}: {e}"),
            }
        }
    }
    let bytes = file("A {\n", n, |_| "1\n".into(), "}\n");
    assert!(matches!(
        read_bounded("one-value data lines", &bytes),
        Err(Error::TooLarge { .. })
    ));
    // Shapes that fit: one long line of values, empty scopes, distinct unknown names.
    let bytes = file("", n, |_| "1,".into(), "1\n");
    let w = read_bounded("a million values on a line", &bytes).unwrap();
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].count, 1);
    let bytes = file("", n, |_| "A {\n}\n".into(), "");
    let w = read_bounded("a million empty unknown scopes", &bytes).unwrap();
    assert_eq!((w.len(), w[0].count), (1, n as u64), "{w:?}");
    assert!(w[0].to_string().contains(&format!("{n} times")), "{}", w[0]);
    let bytes = file("", n / 2, |i| format!("K{i}=1\n"), "");
    let w = read_bounded("distinct unknown names", &bytes).unwrap();
    assert_eq!(w.len(), MAX_SUBJECTS, "one warning per listed name");
    let others: u64 = w.iter().map(|w| w.others).sum();
    let counted: u64 = w.iter().map(|w| w.count).sum();
    assert_eq!(
        counted + others,
        (n / 2) as u64,
        "every occurrence is counted"
    );
    assert_eq!(w.last().map(|w| w.others), Some(others));
}

#[test]
fn the_small_file_that_made_millions_of_warnings_now_makes_one() {
    // The case, scaled down to stay under the budget (a `K=1` line costs about 50
    // times its 4 bytes while its list grows): every line is one occurrence of one warning.
    let n = 10_000;
    let bytes = file("", n, |_| "K=1\n".into(), "");
    let w = read_bounded("K=1 x 10 000", &bytes).unwrap();
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].kind, WarningKind::Unknown { name: "K".into() });
    assert_eq!((w[0].line, w[0].count), (3, n as u64));
    // Non-finite spellings in a mesh: one warning per spelling, with its count.
    let n = 100_000;
    let mesh = "MeshDataList {\nMeshContainer {\nMesh {\nPositions {\n";
    let bytes = file(
        mesh,
        n,
        |i| {
            if i % 2 == 0 {
                "1.#QNAN:0:0\n".into()
            } else {
                "1.#INF:0:0\n".into()
            }
        },
        "}\n}\n}\n}\n",
    );
    let w = read_bounded("NaN rows", &bytes).unwrap();
    let non_finite: Vec<(&WarningKind, u64)> = w
        .iter()
        .filter(|w| matches!(w.kind, WarningKind::NonFinite { .. }))
        .map(|w| (&w.kind, w.count))
        .collect();
    assert_eq!(
        non_finite,
        [
            (
                &WarningKind::NonFinite {
                    text: "1.#QNAN".into()
                },
                n as u64 / 2
            ),
            (
                &WarningKind::NonFinite {
                    text: "1.#INF".into()
                },
                n as u64 / 2
            )
        ]
    );
}

#[test]
fn messages_quote_at_most_sixty_bytes_of_a_token() {
    let long = "a".repeat(10_000_000);
    // A 10 MB unknown key: kept whole in the document, quoted short in the warning.
    let bytes = format!("{HEAD}{long}=1\n").into_bytes();
    let w = read_bounded("10 MB key", &bytes).unwrap();
    let WarningKind::Unknown { name } = &w[0].kind else {
        panic!("{w:?}")
    };
    assert!(name.starts_with("aaaa") && name.len() < 100, "{name}");
    assert!(name.ends_with("(10000000 bytes)"), "{name}");
    // A 10 MB bad number, tag, version, boolean: each error is short.
    for text in [
        format!("{HEAD}MeshDataList {{\nMeshContainerCount={long}x\n}}\n"),
        format!("{HEAD}{long} x {{\n}}\n"),
        format!("{HEAD}}}{long}\n"),
        format!("Elfreina Extension Model File\nFile Version {long}\n"),
        format!("{long}\n"),
        format!("{HEAD}Setting {{\nIsRightHand={long}\n}}\n"),
        format!("{HEAD}{long}{{\n"),
    ] {
        let err = read_bounded("10 MB token", text.as_bytes()).unwrap_err();
        assert!(err.to_string().contains("aaaa"), "{err}");
    }
}

/// Issue 18: rows of bulk data cost no tree node each. Reading a mesh of plain rows takes
/// little more than the typed arrays it makes (before, one node per line took about three
/// times as much again, and the peak was the tree).
#[test]
fn bulk_rows_cost_about_their_arrays() {
    let n = 200_000;
    let mut t = String::from(HEAD);
    t.push_str("MeshDataList {\nMeshContainer {\nMaterials {\nMaterial {\n}\n}\nMesh {\n");
    t.push_str("Positions {\n");
    for i in 0..n {
        // A blank line now and then: a run of rows goes on across it.
        let blank = if i % 1000 == 0 { "\n" } else { "" };
        t.push_str(&format!("\t{i}.5:-1.25:{i}\r\n{blank}"));
    }
    t.push_str("}\nVertexIndices {\n");
    for i in 0..n - 2 {
        t.push_str(&format!("3,{i}:{}:{}\n", i + 1, i + 2));
    }
    t.push_str("}\nAttributes {\n");
    t.push_str(&"0\n".repeat(n - 2));
    t.push_str("}\n}\n}\n}\n");
    let bytes = t.into_bytes();
    let (doc, peak) = measure(|| Elem::from_bytes(&bytes).unwrap());
    let mesh = &doc.containers()[0].meshes[0];
    assert_eq!((mesh.positions.len(), mesh.face_sizes.len()), (n, n - 2));
    let arrays = mesh.positions.len() * 24
        + (mesh.face_sizes.len() + mesh.face_indices.len() + mesh.attributes.len()) * 4;
    eprintln!("{} bytes, arrays {arrays}, peak {peak}", bytes.len());
    assert!(
        peak < arrays + arrays / 8 + MIB,
        "peak {peak}, arrays {arrays}"
    );
}
