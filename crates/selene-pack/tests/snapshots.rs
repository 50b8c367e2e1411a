//! One insta snapshot per pack fixture (`cargo xtask regen-fixtures` writes them): the table
//! as read with the engine's default key (names, sizes, flags, the first bytes each entry
//! decrypts to), the warnings, and whether a rewrite gives the same bytes. Never the data.

use selene_pack::{Key, Pack};
use std::fmt::Write;
use std::path::Path;

fn summary(path: &Path) -> String {
    let bytes = test_support::read(path);
    let (pack, warnings) = Pack::from_bytes_with_warnings(&bytes, Key::new(None).unwrap())
        .expect("every pack fixture reads");
    let mut s = String::new();
    let _ = writeln!(
        s,
        "file: {} bytes, hash {}",
        bytes.len(),
        test_support::hash(&bytes)
    );
    let _ = writeln!(s, "entries: {}", pack.entries.len());
    for e in &pack.entries {
        let data = e.data();
        let _ = writeln!(
            s,
            "  {:<28} {:>5} bytes  {:<9}  NameCrc {:08x}  starts {:?}  hash {}",
            e.name(),
            e.size(),
            if e.is_encrypted() {
                "encrypted"
            } else {
                "plain"
            },
            e.name_crc(),
            String::from_utf8_lossy(data.get(..4).unwrap_or(&data)),
            test_support::hash(&data)
        );
    }
    let _ = writeln!(s, "warnings: {}", warnings.len());
    for w in &warnings {
        let _ = writeln!(s, "  {w}");
    }
    let rewritten = pack.to_bytes().expect("every pack fixture rewrites");
    let _ = writeln!(
        s,
        "rewrite: {}",
        if rewritten == bytes {
            "byte for byte".to_string()
        } else {
            format!("differs (hash {})", test_support::hash(&rewritten))
        }
    );
    s
}

#[test]
fn fixture_summaries() {
    insta::glob!("../../../fixtures/pack", "*.Pack", |path| {
        insta::assert_snapshot!(summary(path));
    });
}
