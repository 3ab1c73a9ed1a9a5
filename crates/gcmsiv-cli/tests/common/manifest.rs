//! Reads vectors/format/manifest.txt: the file format's test vectors, one block each.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

const FIELDS: [&str; 10] = [
    "file",
    "key",
    "passphrase",
    "identity",
    "algorithm",
    "chunk_size",
    "plaintext",
    "error",
    "released",
    "source",
];

/// The folder holding the vectors: `format/` in the repository's vector folder
/// (or in the folder `$GCMSIV_VECTORS` names).
pub fn dir() -> PathBuf {
    let root = std::env::var_os("GCMSIV_VECTORS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors"));
    root.join("format")
}

/// One vector: its fields, checked to be known and complete.
#[derive(Debug)]
pub struct Vector {
    fields: BTreeMap<String, String>,
}

impl Vector {
    pub fn get(&self, field: &str) -> Option<&str> {
        assert!(FIELDS.contains(&field), "unknown field {field}");
        self.fields.get(field).map(String::as_str)
    }

    pub fn name(&self) -> &str {
        self.get("file").unwrap()
    }

    pub fn read(&self, field: &str) -> Vec<u8> {
        fs::read(dir().join(self.get(field).unwrap())).unwrap()
    }

    /// What a streaming reader releases before failing (`FILE[..N]` or `nothing`).
    pub fn released(&self) -> Vec<u8> {
        match self.get("released").unwrap() {
            "nothing" => Vec::new(),
            spec => {
                let (file, end) = spec.strip_suffix(']').and_then(|s| s.split_once("[..")).unwrap();
                fs::read(dir().join(file)).unwrap()[..end.parse::<usize>().unwrap()].to_vec()
            }
        }
    }
}

/// Every vector of format version 1 (manifest.txt).
pub fn load() -> Vec<Vector> {
    load_from("manifest.txt")
}

/// Every vector of format version 2 (recipients.txt).
pub fn load_recipients() -> Vec<Vector> {
    load_from("recipients.txt")
}

fn load_from(manifest: &str) -> Vec<Vector> {
    let text = fs::read_to_string(dir().join(manifest)).unwrap();
    let mut vectors = Vec::new();
    let mut fields = BTreeMap::new();
    for line in text.lines().chain([""]) {
        let line = line.trim();
        if line.starts_with('#') {
            continue;
        }
        if line.is_empty() {
            if !fields.is_empty() {
                vectors.push(checked(std::mem::take(&mut fields)));
            }
            continue;
        }
        let (key, value) = line.split_once(" = ").unwrap_or_else(|| panic!("bad manifest line {line:?}"));
        assert!(FIELDS.contains(&key), "unknown field {key}");
        assert!(fields.insert(key.to_string(), value.to_string()).is_none(), "field {key} twice");
    }
    assert!(vectors.len() >= 10, "the manifest lost vectors");
    vectors
}

fn checked(fields: BTreeMap<String, String>) -> Vector {
    let has = |k: &str| fields.contains_key(k);
    assert!(has("file") && has("source"), "{fields:?}");
    assert!(
        usize::from(has("key")) + usize::from(has("passphrase")) + usize::from(has("identity")) == 1,
        "exactly one of key, passphrase, identity: {fields:?}"
    );
    if has("plaintext") {
        assert!(has("algorithm") && has("chunk_size") && !has("error") && !has("released"), "{fields:?}");
    } else {
        assert!(has("error") && has("released"), "{fields:?}");
    }
    Vector { fields }
}
