//! The JSON-lines contract of `examples/research_vectors.rs`, end to end:
//! every vector sealed and opened through the example's stdin and stdout,
//! then every kind of misuse, one answer per request, in order, exit 0.
#![cfg(feature = "research")]

mod common;

use serde_json::{Value, json};
use std::io::Write;
use std::process::{Command, Stdio};

/// The example, beside this test in target/<profile>/examples: a whole
/// `cargo test` builds it; a run of this test alone builds it here.
fn example() -> std::path::PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().unwrap().parent().unwrap();
    let path = profile_dir.join("examples").join(format!("research_vectors{}", std::env::consts::EXE_SUFFIX));
    // Cross-built and emulated (scripts/test-cross.sh), the whole `cargo test`
    // built the example for the target; a build here would make the host's.
    // scripts/test.sh runs only whole `cargo test`s, and says so with
    // GCMSIV_EXAMPLES_BUILT=1: the example there has this test's features
    // (aead, force-portable), where a build here with `--features research`
    // would compile the core once more, and replace the example with one
    // built without them.
    if common::emulated() || std::env::var_os("GCMSIV_EXAMPLES_BUILT").is_some_and(|v| v == "1") {
        assert!(path.exists(), "{} not built: run the whole `cargo test`", path.display());
        return path;
    }
    let mut build = Command::new(env!("CARGO"));
    build.args([
        "build",
        "--quiet",
        "-p",
        "gcmsiv",
        "--features",
        "research",
        "--example",
        "research_vectors",
    ]);
    if profile_dir.file_name().is_some_and(|n| n == "release") {
        build.arg("--release");
    }
    assert!(build.status().unwrap().success(), "cannot build the example");
    assert!(path.exists(), "{} not built", path.display());
    path
}

fn run(requests: &[String], args: &[&str]) -> Vec<Value> {
    let mut child =
        Command::new(example()).args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = requests.join("\n") + "\n";
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(output.status.success(), "exit status {}", output.status);
    let text = String::from_utf8(output.stdout).unwrap();
    text.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}"))).collect()
}

#[test]
fn every_vector_and_every_misuse_through_the_contract() {
    let file = common::load("seed_variants.json");
    let (mut requests, mut expected) = (Vec::new(), Vec::new());
    for (name, spec) in file["variants"].as_object().unwrap() {
        for group in spec["groups"].as_array().unwrap() {
            for v in group["vectors"].as_array().unwrap() {
                let sealed = format!("{}{}", v["ct"].as_str().unwrap(), v["tag"].as_str().unwrap());
                let request = |op: &str, msg: &str| {
                    json!({"variant": name, "op": op, "key": v["key"], "nonce": v["nonce"], "aad": v["aad"], "msg": msg})
                        .to_string()
                };
                requests.push(request("seal", v["msg"].as_str().unwrap()));
                expected.push(json!({ "out": sealed }));
                requests.push(request("open", &sealed));
                expected.push(json!({ "out": v["msg"] }));
                if !v["tag"].as_str().unwrap().is_empty() {
                    let mut forged = hex::decode(&sealed).unwrap();
                    *forged.last_mut().unwrap() ^= 1;
                    requests.push(request("open", &hex::encode(forged)));
                    expected.push(json!({ "error": "authentication" }));
                }
            }
        }
    }
    let base = json!({"variant": "draft-irtf-02", "op": "seal", "key": "00".repeat(16), "nonce": "00".repeat(16), "aad": "", "msg": "01"});
    let with = |field: &str, value: &str| {
        let mut r = base.clone();
        r[field] = json!(value);
        r.to_string()
    };
    let misuse = [
        with("key", &"00".repeat(20)),
        with("nonce", &"00".repeat(12)),
        with("variant", "rfc8452"),
        with("op", "encrypt"),
        with("msg", "0g"),
        json!({"variant": "ctr-derive-key", "op": "seal", "key": "00".repeat(16), "nonce": "00".repeat(12), "aad": "01", "msg": ""}).to_string(),
        "{\"variant\": ".to_string(),
        json!({"variant": "draft-irtf-02", "op": "open", "key": "00".repeat(16), "nonce": "00".repeat(16), "aad": "", "msg": "00"}).to_string(),
    ];
    let count = requests.len();
    requests.extend(misuse.iter().cloned());
    requests.insert(1, String::new()); // a blank line: skipped, no answer
    let answers = run(&requests, &[]);
    assert_eq!(answers.len(), count + misuse.len(), "one answer per request");
    assert_eq!(answers[..count], expected[..]);
    for (request, answer) in misuse.iter().zip(&answers[count..]) {
        let error = answer["error"].as_str().unwrap_or_else(|| panic!("{request}: {answer}"));
        assert!(error != "authentication" && !error.is_empty(), "{request}: {answer}");
        assert_eq!(answer.as_object().unwrap().len(), 1);
    }
    // The same answers on every backend.
    for backend in common::backends() {
        let answers = run(&requests[..40], &["--backend", backend.name()]);
        assert_eq!(answers[..], expected[..39], "on {backend}");
    }
}
