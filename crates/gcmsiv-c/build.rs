//! Gives the shared library a versioned SONAME on Linux, `libgcmsiv_c.so.0.1` for
//! version 0.1.x (the ABI may change with each 0.x minor version; from 1.0 on,
//! `libgcmsiv_c.so.1`), so programs linked against it record the ABI they were built
//! for and an installed newer, incompatible library is not picked up in its place.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("linux") {
        return;
    }
    let major = std::env::var("CARGO_PKG_VERSION_MAJOR").expect("cargo sets the version");
    let minor = std::env::var("CARGO_PKG_VERSION_MINOR").expect("cargo sets the version");
    let abi = if major == "0" { format!("0.{minor}") } else { major };
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libgcmsiv_c.so.{abi}");
}
