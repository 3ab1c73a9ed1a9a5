//! Our side of the Tink interop test (scripts/test-keyset-tink.sh; the protocol
//! is described in scripts/tink_keysets.py):
//!
//!     tink_interop JOB.json ANSWERS.json
//!
//! For each keyset of the job: read it, open its ciphertexts, seal messages with
//! each of its enabled keys, and write it back in both formats, in the clear and
//! encrypted. Unless the job says `"generate": false`, the same for keysets made
//! here: every algorithm and prefix, and one rotated keyset with disabled and
//! destroyed keys. Byte strings are Base64, as in Tink's JSON.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use gcmsiv::{Aes256GcmSiv, Algorithm};
use gcmsiv_keyset::{Format, KeyStatus, Keyset, OutputPrefix, Template};
use serde_json::{Value, json};

const ALGORITHMS: [Algorithm; 4] =
    [Algorithm::Aes128GcmSiv, Algorithm::Aes256GcmSiv, Algorithm::Aes128Gcm, Algorithm::Aes256Gcm];
const PREFIXES: [OutputPrefix; 4] =
    [OutputPrefix::Tink, OutputPrefix::Legacy, OutputPrefix::Crunchy, OutputPrefix::Raw];

fn b64(value: &Value) -> Vec<u8> {
    STANDARD.decode(value.as_str().unwrap_or_default()).expect("Base64 in the job")
}

fn format_of(name: &str) -> Format {
    if name == "json" { Format::Json } else { Format::Binary }
}

fn messages() -> Vec<(Vec<u8>, Vec<u8>)> {
    vec![
        (vec![], vec![]),
        (b"a".to_vec(), b"ad".to_vec()),
        (vec![b'x'; 17], vec![]),
        ((0..1024).map(|i| i as u8).collect(), b"associated data".to_vec()),
    ]
}

/// Messages sealed by each enabled key of the keyset, as primary in turn.
fn seal_with_every_key(keyset: &Keyset, messages: &[(Vec<u8>, Vec<u8>)]) -> Vec<Value> {
    let mut out = vec![];
    for key in keyset.keys().iter().filter(|k| k.status == KeyStatus::Enabled) {
        let mut one = keyset.clone();
        one.set_primary(key.key_id).expect("an enabled key");
        for (pt, ad) in messages {
            let ct = one.encrypt(pt, ad).expect("sealing");
            out.push(
                json!({"pt": STANDARD.encode(pt), "ad": STANDARD.encode(ad), "ct": STANDARD.encode(ct)}),
            );
        }
    }
    out
}

fn written(keyset: &Keyset, kek: &Aes256GcmSiv) -> Vec<Value> {
    let mut out = vec![];
    for (name, format) in [("json", Format::Json), ("binary", Format::Binary)] {
        let clear = keyset.to_cleartext(format);
        let sealed = keyset.to_encrypted(format, kek, b"").expect("sealing the keyset");
        out.push(json!({"format": name, "encrypted": false, "keyset": STANDARD.encode(&clear[..])}));
        out.push(json!({"format": name, "encrypted": true, "keyset": STANDARD.encode(&sealed)}));
    }
    out
}

fn answer(name: &str, keyset: &Keyset, kek: &Aes256GcmSiv, messages: &[(Vec<u8>, Vec<u8>)]) -> Value {
    json!({
        "name": name,
        "errors": [],
        "opened": 0,
        "written": written(keyset, kek),
        "ciphertexts": seal_with_every_key(keyset, messages),
    })
}

fn job_case(case: &Value, kek: &Aes256GcmSiv) -> Value {
    let name = case["name"].as_str().unwrap_or("?");
    let bytes = b64(&case["keyset"]);
    let format = format_of(case["format"].as_str().unwrap_or(""));
    let read = if case["encrypted"].as_bool().unwrap_or(false) {
        Keyset::from_encrypted(&bytes, format, kek, b"")
    } else {
        Keyset::from_cleartext(&bytes, format)
    };
    let keyset = match read {
        Ok(k) => k,
        Err(e) => return json!({"name": name, "errors": [format!("reading the keyset: {e}")], "written": []}),
    };
    let mut errors = vec![];
    let mut opened = 0;
    for ct in case["ciphertexts"].as_array().into_iter().flatten() {
        match keyset.decrypt(&b64(&ct["ct"]), &b64(&ct["ad"])) {
            Ok(pt) if pt == b64(&ct["pt"]) => opened += 1,
            Ok(_) => errors.push("a ciphertext opened to the wrong plaintext".to_string()),
            Err(e) => errors.push(format!("a ciphertext did not open: {e}")),
        }
    }
    let messages: Vec<(Vec<u8>, Vec<u8>)> =
        case["plaintexts"].as_array().into_iter().flatten().map(|m| (b64(&m["pt"]), b64(&m["ad"]))).collect();
    let mut out = answer(name, &keyset, kek, &messages);
    out["errors"] = json!(errors);
    out["opened"] = json!(opened);
    out
}

/// Keysets made here: one key of each algorithm and prefix, and one rotated
/// keyset of them all, with a disabled and a destroyed key and a new primary.
fn ours(kek: &Aes256GcmSiv) -> Vec<Value> {
    let mut out = vec![];
    let mut rotated = Keyset::generate(Template::AES256_GCM_SIV).expect("a keyset");
    for algorithm in ALGORITHMS {
        for prefix in PREFIXES {
            let template = Template::new(algorithm, prefix);
            let keyset = Keyset::generate(template).expect("a keyset");
            out.push(answer(&format!("ours {algorithm:?}/{prefix}"), &keyset, kek, &messages()));
            rotated.add(template).expect("a key");
        }
    }
    let disabled = rotated.add(Template::AES128_GCM_SIV).expect("a key");
    let destroyed = rotated.add(Template::AES128_GCM).expect("a key");
    // Ciphertexts of the two keys while they could still encrypt: after the
    // rotation, neither side may open them.
    let refused: Vec<Value> = [disabled, destroyed]
        .iter()
        .flat_map(|id| {
            let mut one = rotated.clone();
            one.set_primary(*id).expect("an enabled key");
            seal_with_every_key(&only(&one, *id), &messages()[1..2])
        })
        .collect();
    rotated.disable(disabled).expect("disabling");
    rotated.destroy(destroyed).expect("destroying");
    for ct in &refused {
        let err = rotated.decrypt(&b64(&ct["ct"]), &b64(&ct["ad"])).expect_err("a disabled or destroyed key");
        assert!(matches!(err, gcmsiv_keyset::Error::KeyNotEnabled { .. }), "{err}");
    }
    let last = rotated.keys().iter().rev().find(|k| k.status == KeyStatus::Enabled).map(|k| k.key_id);
    rotated.set_primary(last.expect("an enabled key")).expect("promoting");
    let mut answer =
        answer("ours rotated (16 keys, one disabled, one destroyed)", &rotated, kek, &messages());
    answer["refused"] = json!(refused);
    out.push(answer);
    out
}

/// The keyset with only this key enabled (it being the primary).
fn only(keyset: &Keyset, key_id: u32) -> Keyset {
    let mut one = keyset.clone();
    for key in keyset.keys().iter().filter(|k| k.key_id != key_id && k.status == KeyStatus::Enabled) {
        one.disable(key.key_id).expect("disabling a key that is not primary");
    }
    one
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, job, answers] = &args[..] else {
        eprintln!("usage: tink_interop JOB.json ANSWERS.json");
        std::process::exit(2);
    };
    let job: Value =
        serde_json::from_str(&std::fs::read_to_string(job).expect("reading the job")).expect("JSON");
    let kek_bytes: [u8; 32] = (0..32)
        .map(|i| u8::from_str_radix(&job["kek"].as_str().expect("kek")[2 * i..2 * i + 2], 16).expect("hex"))
        .collect::<Vec<u8>>()
        .try_into()
        .expect("32 bytes");
    let kek = Aes256GcmSiv::new(&kek_bytes);
    let mut cases: Vec<Value> =
        job["cases"].as_array().into_iter().flatten().map(|c| job_case(c, &kek)).collect();
    if job["generate"].as_bool().unwrap_or(true) {
        cases.extend(ours(&kek));
    }
    let text = serde_json::to_string(&json!({"cases": cases})).expect("JSON");
    std::fs::write(answers, text).expect("writing the answers");
}
