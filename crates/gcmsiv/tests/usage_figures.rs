//! One random-nonce figure everywhere: every document and doc comment that
//! states how many random-nonce messages a key may seal states what
//! `random_nonce_messages_log2` derives, docs/ARROW.md's table states what
//! `single_nonce_messages_log2` and `random_nonce_messages_log2` derive, and
//! the README's table of repeated nonces what `messages_per_key_log2` does.

use std::fs;
use std::path::Path;

use gcmsiv::{NonceUse, messages_per_key_log2, random_nonce_messages_log2, single_nonce_messages_log2};

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;

/// A file of the repository, by its path from the root.
fn read(path: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    // Lines joined, so a figure broken over two lines is still found.
    fs::read_to_string(root.join(path)).unwrap().split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Where the random-nonce figure is stated, and the words around it.
const STATED: [(&str, &str); 13] = [
    ("README.md", "2^{64k} random-nonce messages of up to 64 KiB"),
    ("README.md", "2^{64k} messages of up to 64 KiB each, 2^{16m} of up to 16 MiB"),
    (
        "crates/gcmsiv/src/random_nonce.rs",
        "2^{64k} messages of up to 64 KiB per key //! (2^{16m} of up to 16 MiB",
    ),
    ("crates/gcmsiv/src/lib.rs", "2^{64k} messages of up to 64 KiB, 2^{16m} of up to 16 MiB"),
    ("crates/gcmsiv-c/include/gcmsiv.h", "2^{64k} messages of up to 64 KiB each, 2^{16m} of up to 16 MiB"),
    (
        "crates/gcmsiv-c/include/gcmsiv.h",
        "2^{64k} random-nonce messages of up to 64 KiB each (2^{16m} of up * to 16 MiB)",
    ),
    ("crates/gcmsiv-c/README.md", "2^{64k} messages of up to 64 KiB"),
    ("bindings/node/README.md", "2^{64k} messages of up to 64 KiB, 2^{16m} of up to 16 MiB"),
    ("bindings/go/README.md", "2^{64k} messages of up to 64 KiB, 2^{16m} of up to 16 MiB"),
    ("bindings/go/random_nonce.go", "2^{64k} messages of up to 64 KiB each (2^{16m} of up to 16 MiB)"),
    ("bindings/go/gcmsiv.go", "2^{16m} messages of up to 16 MiB"),
    ("bindings/java/README.md", "2^{64k} messages of up to 64 KiB, 2^{16m} of up to 16 MiB"),
    ("bindings/python/README.md", "2^{64k} messages of up to 64 KiB"),
];

/// Figures that were stated before they were derived in one place.
const STALE: [&str; 7] = [
    "2^64 messages of up to 128 KiB",
    "2^64 random-nonce messages",
    "2^48 of up to 32 MiB",
    "2^48 messages of up to 32 MiB",
    "2^48 of up to 16 MiB",
    "2^48 messages of up to 16 MiB",
    "2^32 of up to 4 GiB",
];

#[test]
fn every_document_states_the_derived_random_nonce_figure() {
    let fill = |text: &str| {
        text.replace("{64k}", &random_nonce_messages_log2(64 * KIB).to_string())
            .replace("{16m}", &random_nonce_messages_log2(16 * MIB).to_string())
    };
    assert_eq!((random_nonce_messages_log2(64 * KIB), random_nonce_messages_log2(16 * MIB)), (62, 53));
    for (path, words) in STATED {
        let text = read(path);
        assert!(text.contains(&fill(words)), "{path} does not say \"{}\"", fill(words));
        for stale in STALE {
            assert!(!text.contains(stale), "{path} still says \"{stale}\"");
        }
    }
    // The Go binding's copy of the C header is the same file.
    assert_eq!(read("bindings/go/prebuilt/gcmsiv.h"), read("crates/gcmsiv-c/include/gcmsiv.h"));
}

#[test]
fn the_column_table_states_the_derived_figures() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = fs::read_to_string(root.join("docs/ARROW.md")).unwrap();
    for (label, len) in
        [("16 bytes", 16), ("64 bytes", 64), ("256 bytes", 256), ("1 KiB", KIB), ("16 KiB", 16 * KIB)]
    {
        let row = text.lines().find(|l| l.starts_with(&format!("| {label} |"))).unwrap();
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let single = format!("2^{}", single_nonce_messages_log2(len));
        let random = format!("2^{}", random_nonce_messages_log2(len));
        assert!(cells[2].split(' ').next() == Some(single.as_str()), "{row}: deterministic is {single}");
        assert_eq!(cells[3], random, "{row}");
    }
}

#[test]
fn the_readme_table_of_repeated_nonces_states_the_derived_figures() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = fs::read_to_string(root.join("README.md")).unwrap();
    for (label, len) in [("16 KiB", 16 * KIB), ("1 MiB", MIB), ("128 MiB", 128 * MIB), ("1 GiB", 1024 * MIB)]
    {
        let row = text.lines().map(str::trim).find(|l| l.starts_with(&format!("| {label} |"))).unwrap();
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        for (cell, repeats) in [(cells[2], 256), (cells[4], 1024)] {
            let ours = format!("2^{}", messages_per_key_log2(len, NonceUse::AtMost(repeats)));
            assert_eq!(cell, ours, "{row}: at most {repeats} per nonce");
        }
    }
    // The lib.rs summary states the 256-repeat column too.
    let lib = read("crates/gcmsiv/src/lib.rs");
    let at = |len| messages_per_key_log2(len, NonceUse::AtMost(256));
    let stated = format!(
        "2^{} messages of up to 16 KiB, 2^{} of up //! to 1 MiB, 2^{} of up to 128 MiB, or 2^{} of up to 1 GiB",
        at(16 * KIB),
        at(MIB),
        at(128 * MIB),
        at(1024 * MIB)
    );
    assert!(lib.contains(&stated), "lib.rs does not say \"{stated}\"");
}
