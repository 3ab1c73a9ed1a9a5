//! The committed format vectors decrypt with the tool exactly as the manifest says:
//! a change that breaks format version 1 or 2 fails here.

mod common;

use common::*;

#[test]
fn the_tool_reads_every_committed_vector() {
    for vector in manifest::load() {
        check(&vector);
    }
}

#[test]
fn the_tool_reads_every_committed_version_2_and_armored_vector() {
    for vector in manifest::load_recipients() {
        check(&vector);
    }
}

fn check(vector: &manifest::Vector) {
    let mut cmd = gcmsiv();
    cmd.args(["decrypt", "-q"]).arg(manifest::dir().join(vector.name()));
    match (vector.get("key"), vector.get("passphrase"), vector.get("identity")) {
        (Some(key), None, None) => {
            cmd.arg("-k").arg(manifest::dir().join(key));
        }
        (None, Some(pass), None) => {
            cmd.args(["--passphrase-env", PASS_VAR]).env(PASS_VAR, pass);
        }
        (None, None, Some(identities)) => {
            for identity in identities.split(',') {
                cmd.arg("-i").arg(manifest::dir().join(identity));
            }
        }
        _ => unreachable!("checked by the manifest reader"),
    }
    let out = run(cmd);
    match vector.get("error") {
        None => {
            assert_ok(&out);
            assert!(out.stdout == vector.read("plaintext"), "{}: wrong plaintext", vector.name());
        }
        Some(message) => {
            assert_fails(&out, 1, message);
            assert!(out.stdout == vector.released(), "{}: released the wrong bytes", vector.name());
        }
    }
}
