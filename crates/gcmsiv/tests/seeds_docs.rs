//! The seed papers' documents: docs/SEEDS.md and the reports scripts/seeds.sh
//! saves in docs/seeds/ render (every Markdown table is one block of rows of
//! one width), SEEDS.md links every saved file, and docs/seeds/bounds.md's
//! table of messages per key is what `messages_per_key_log2` computes.

use std::fs;
use std::path::{Path, PathBuf};

use gcmsiv::{NonceUse, messages_per_key_log2};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The cells of a table row, or None for a line that is not one.
fn cells(line: &str) -> Option<Vec<&str>> {
    let l = line.trim();
    (l.starts_with('|') && l.ends_with('|') && l.len() > 1)
        .then(|| l[1..l.len() - 1].split('|').map(str::trim).collect())
}

/// Every table of `text` has a header, a separator of as many cells, and
/// rows of that width, with no line between them that would end it.
fn check_tables(name: &str, text: &str) {
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let Some(head) = cells(lines[i]) else {
            i += 1;
            continue;
        };
        let sep = lines.get(i + 1).and_then(|l| cells(l)).unwrap_or_default();
        assert!(
            sep.len() == head.len() && sep.iter().all(|c| c.starts_with("---")),
            "{name}:{}: a table row with no separator of {} cells under it",
            i + 1,
            head.len()
        );
        i += 2;
        while let Some(row) = lines.get(i).and_then(|l| cells(l)) {
            assert_eq!(row.len(), head.len(), "{name}:{}: a row of another width", i + 1);
            i += 1;
        }
        // A table cut by a blank line would go on as a second one without a
        // header: the next table-like line must start a table of its own.
        if lines.get(i).is_some_and(|l| l.trim().is_empty())
            && let Some(next) = lines.get(i + 1).and_then(|l| cells(l))
        {
            let sep = lines.get(i + 2).and_then(|l| cells(l)).unwrap_or_default();
            assert!(
                sep.iter().all(|c| c.starts_with("---")) && !sep.is_empty(),
                "{name}:{}: a blank line inside a table ({})",
                i + 1,
                next.join(" | ")
            );
        }
    }
}

#[test]
fn the_seeds_documents_render_and_link_every_report() {
    let seeds = fs::read_to_string(root().join("docs/SEEDS.md")).unwrap();
    check_tables("docs/SEEDS.md", &seeds);
    let mut reports = 0;
    for entry in fs::read_dir(root().join("docs/seeds")).unwrap() {
        let path = entry.unwrap().path();
        let file = path.file_name().unwrap().to_str().unwrap().to_string();
        if file.ends_with(".md") {
            check_tables(&file, &fs::read_to_string(&path).unwrap());
            reports += 1;
        }
        if file.ends_with(".md") || file.ends_with(".svg") {
            assert!(
                seeds.contains(&format!("seeds/{file}")),
                "docs/SEEDS.md does not link docs/seeds/{file}"
            );
        }
    }
    // At least the bounds and one CPU's report.
    assert!(reports >= 2, "docs/seeds/ holds {reports} reports");
}

#[test]
fn the_bounds_report_states_the_derived_messages_per_key() {
    let text = fs::read_to_string(root().join("docs/seeds/bounds.md")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let head = lines.iter().position(|l| l.starts_with("| nonces | 16 B |")).expect("the table");
    let sizes: Vec<u64> = cells(lines[head]).unwrap()[1..]
        .iter()
        .map(|s| {
            let (n, unit) = s.split_once(' ').unwrap();
            let shift = match unit {
                "B" => 0,
                "KiB" => 10,
                "MiB" => 20,
                "GiB" => 30,
                _ => panic!("{s}"),
            };
            n.parse::<u64>().unwrap() << shift
        })
        .collect();
    let mut rows = 0;
    for line in &lines[head + 2..] {
        let Some(row) = cells(line) else { break };
        let nonces = match row[0] {
            "random nonces" => NonceUse::Random,
            "a nonce per message" => NonceUse::AtMost(1),
            "each nonce at most 256 times" => NonceUse::AtMost(256),
            "one nonce" => NonceUse::Single,
            other => panic!("{other}"),
        };
        for (cell, &len) in row[1..].iter().zip(&sizes) {
            assert_eq!(*cell, format!("2^{}", messages_per_key_log2(len, nonces)), "{}: {len} bytes", row[0]);
        }
        rows += 1;
    }
    assert_eq!(rows, 4);
}
