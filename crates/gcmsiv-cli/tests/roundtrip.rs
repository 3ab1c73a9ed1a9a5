//! Round trips through the real binary: every size class, both key sizes, both key
//! modes, files and pipes, and the exact ciphertext size the format prescribes.

mod common;

use std::fs;

use common::*;

const CHUNK: usize = 64 * 1024;

fn expected_len(plain: usize, chunk: usize) -> usize {
    let chunks = plain.div_ceil(chunk).max(1);
    HEADER_LEN + plain + chunks * CHUNK_OVERHEAD
}

#[test]
fn every_size_both_algorithms_both_key_modes() {
    let scratch = Scratch::new();
    let sizes = [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 5, (5 << 20) + 3];
    for algorithm in ["aes256", "aes128"] {
        for secret in [scratch.secret(), Secret::Passphrase("correct horse battery staple")] {
            for &size in &sizes {
                let plain = data(size);
                let sealed = scratch.encrypt(&plain, secret, &["--algorithm", algorithm]);
                assert_eq!(sealed.len(), expected_len(size, CHUNK), "{algorithm} {secret:?} {size}");
                assert_eq!(sealed[7], if algorithm == "aes256" { 31 } else { 30 });
                let out = scratch.decrypt_stdout(&sealed, secret);
                assert_ok(&out);
                assert!(out.stdout == plain, "{algorithm} {secret:?} {size}: round trip differs");
            }
        }
    }
}

#[test]
fn small_chunks_and_every_thread_count_agree() {
    let scratch = Scratch::new();
    for exp in [10usize, 12, 20] {
        let chunk = 1 << exp;
        for size in [chunk - 1, chunk, 7 * chunk + 1] {
            let plain = data(size);
            let sealed =
                scratch.encrypt(&plain, scratch.secret(), &["--chunk-size-exp", &exp.to_string(), "-j", "2"]);
            assert_eq!(sealed.len(), expected_len(size, chunk));
            assert_eq!(sealed[9] as usize, exp);
            for threads in ["1", "2", "5"] {
                let mut cmd = gcmsiv();
                cmd.args(["decrypt", "-j", threads, "-k"]).arg(&scratch.key);
                let out = run_with_input(cmd, &sealed);
                assert_ok(&out);
                assert!(out.stdout == plain);
            }
        }
    }
}

#[test]
fn files_pipes_and_dash_all_work() {
    let scratch = Scratch::new();
    let plain = data(300_000);
    let input = scratch.write("in.bin", &plain);

    // stdin to stdout, with "-" spelled out.
    let mut cmd = gcmsiv();
    cmd.args(["encrypt", "-k"]).arg(&scratch.key).args(["-o", "-", "-"]);
    let sealed = run_with_input(cmd, &plain);
    assert_ok(&sealed);

    // file to file.
    let mut cmd = gcmsiv();
    cmd.args(["decrypt", "-k"]).arg(&scratch.key).arg("-o").arg(scratch.path("out.bin"));
    assert_ok(&run_with_input(cmd, &sealed.stdout));
    assert!(fs::read(scratch.path("out.bin")).unwrap() == plain);

    // file to stdout and back.
    let mut cmd = gcmsiv();
    cmd.args(["encrypt", "-k"]).arg(&scratch.key).arg(&input);
    let sealed2 = run(cmd);
    assert_ok(&sealed2);
    assert_ne!(sealed.stdout, sealed2.stdout, "every file has a fresh salt");
    let out = scratch.decrypt_stdout(&sealed2.stdout, scratch.secret());
    assert_ok(&out);
    assert!(out.stdout == plain);
}

#[test]
fn output_files_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let scratch = Scratch::new();
    let input = scratch.write("in.txt", b"secret stuff\n");
    let mut cmd = gcmsiv();
    cmd.args(["encrypt", "-k"]).arg(&scratch.key).arg("-o").arg(scratch.path("x.gcmsiv")).arg(&input);
    assert_ok(&run(cmd));
    let mut cmd = gcmsiv();
    cmd.args(["decrypt", "-k"])
        .arg(&scratch.key)
        .arg("-o")
        .arg(scratch.path("x.txt"))
        .arg(scratch.path("x.gcmsiv"));
    assert_ok(&run(cmd));
    for name in ["x.gcmsiv", "x.txt", "test.key"] {
        let mode = fs::metadata(scratch.path(name)).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{name}");
    }
    assert_eq!(fs::read(scratch.path("x.txt")).unwrap(), b"secret stuff\n");
}
