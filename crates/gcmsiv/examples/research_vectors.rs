//! The seed variants for outside checks, as JSON lines on stdin and stdout.
//!
//! ```sh
//! echo '{"variant":"draft-irtf-02","op":"seal","key":"ee8e1ed9ff2540ae8f2ba9f50bc2f27c","nonce":"752abad3e0afb5f434dc4310f71f3d21","aad":"6578616d706c65","msg":"48656c6c6f20776f726c64"}' \
//!   | cargo run --release --quiet -p gcmsiv --features research --example research_vectors
//! {"out":"810649724764545b3625ff010a10f4942710781d2948ac0192572f"}
//! ```
//!
//! One request per line: `{"variant": NAME, "op": "seal"|"open", "key": HEX,
//! "nonce": HEX, "aad": HEX, "msg": HEX}` (for `open`, `msg` is ciphertext
//! || tag). One answer per request, in order: `{"out": HEX}` (seal:
//! ciphertext || tag, for `ctr-derive-key` the ciphertext alone; open: the
//! plaintext), `{"error": "authentication"}` when a tag does not verify, or
//! `{"error": "..."}` for misuse (a line that is not such a request, a wrong
//! key or nonce length, an unknown variant or op, associated data for
//! `ctr-derive-key`). Hex out is lowercase. Blank lines are skipped. Exits 0
//! at the end of input (1 only if stdin or stdout fails).
//!
//! `--backend NAME` (`portable`, `aesni-clmul`, `aesni-vaes`) picks the
//! backend; the default is the fastest this CPU has. Historical variants for
//! research, not for production: see `gcmsiv::research`.

use gcmsiv::Backend;
use gcmsiv::research::{SeedCipher, Variant};
use serde_json::{Value, json};
use std::io::{BufRead, Write};

/// One request's answer: the output bytes, or the error message.
fn answer(line: &str, backend: Backend) -> Result<Vec<u8>, String> {
    let request: Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    let field = |name: &str| -> Result<&str, String> {
        request.get(name).and_then(Value::as_str).ok_or_else(|| format!("missing string field \"{name}\""))
    };
    let bytes = |name: &str| -> Result<Vec<u8>, String> {
        hex::decode(field(name)?).map_err(|e| format!("field \"{name}\" is not hex: {e}"))
    };
    let name = field("variant")?;
    let variant = Variant::from_name(name).ok_or_else(|| format!("unknown variant \"{name}\""))?;
    let op = field("op")?;
    if op != "seal" && op != "open" {
        return Err(format!("unknown op \"{op}\" (seal or open)"));
    }
    let (key, nonce, aad, msg) = (bytes("key")?, bytes("nonce")?, bytes("aad")?, bytes("msg")?);
    let cipher = SeedCipher::with_backend(variant, &key, backend).map_err(|e| e.to_string())?;
    let result = if op == "seal" { cipher.seal(&nonce, &aad, &msg) } else { cipher.open(&nonce, &aad, &msg) };
    result.map_err(|e| match e {
        gcmsiv::Error::Authentication => "authentication".to_string(),
        gcmsiv::Error::AadTooLong if variant == Variant::CtrDeriveKey => {
            "ctr-derive-key takes no associated data".to_string()
        }
        e => e.to_string(),
    })
}

fn backend_from_args() -> Result<Backend, String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [] => Ok(Backend::select()),
        [flag, name] if flag == "--backend" => Backend::available()
            .into_iter()
            .flatten()
            .find(|b| b.name() == name)
            .ok_or_else(|| format!("--backend {name}: not a backend this CPU has")),
        _ => Err("usage: research_vectors [--backend NAME] < requests.jsonl".to_string()),
    }
}

fn main() -> std::process::ExitCode {
    let backend = match backend_from_args() {
        Ok(b) => b,
        Err(why) => {
            eprintln!("research_vectors: {why}");
            return std::process::ExitCode::from(2);
        }
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else {
            eprintln!("research_vectors: cannot read stdin");
            return std::process::ExitCode::FAILURE;
        };
        if line.trim().is_empty() {
            continue;
        }
        let reply = match answer(&line, backend) {
            Ok(bytes) => json!({ "out": hex::encode(bytes) }),
            Err(message) => json!({ "error": message }),
        };
        if writeln!(out, "{reply}").and_then(|()| out.flush()).is_err() {
            return std::process::ExitCode::FAILURE;
        }
    }
    std::process::ExitCode::SUCCESS
}
