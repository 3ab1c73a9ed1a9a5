//! The test-only register-width cap (see `src/backend/x86_64/cpu.rs`): the
//! build-time variable `GCMSIV_MAX_WIDTH` (`128` or `256`) becomes the
//! `gcmsiv_max_width` cfg of this package alone. A cfg given in `RUSTFLAGS`
//! would do the same but change every crate's flags, and so rebuild every
//! dependency in a target directory of its own; this rebuilds only the
//! crates above this one. Nothing is read at run time.

fn main() {
    println!("cargo::rerun-if-env-changed=GCMSIV_MAX_WIDTH");
    println!("cargo::rustc-check-cfg=cfg(gcmsiv_max_width, values(\"128\", \"256\"))");
    match std::env::var("GCMSIV_MAX_WIDTH").as_deref() {
        Err(_) | Ok("") => {}
        Ok(width @ ("128" | "256")) => println!("cargo::rustc-cfg=gcmsiv_max_width=\"{width}\""),
        Ok(other) => panic!("GCMSIV_MAX_WIDTH={other}: the cap is 128 or 256 (bits), or unset"),
    }
}
