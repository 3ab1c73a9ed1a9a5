#!/usr/bin/env bash
# Packs the Node.js package (bindings/node) as npm publishes it:
#
#   scripts/node-package.sh [OUT_DIR]     # default target/dist; writes gcmsiv-VERSION.tgz
#
# The tarball holds the JavaScript (CommonJS index.js, the ES module index.mjs,
# types for both), the prebuilt addon for linux-x64-gnu (named as napi-rs
# packages name them, gcmsiv.linux-x64-gnu.node; loader.js picks it by
# platform, arch and libc) and, where GCMSIV_NODE_ARM64_ADDON names the
# cross-compiled library (scripts/test-packages-arm64.sh builds it), the one for
# linux-arm64-gnu beside it, and the Rust sources of the addon, the core, the
# glue crate and the stream library (rust/, a workspace of its own with the
# repository's Cargo.lock), from which install.js builds the addon with cargo where no
# prebuilt fits. Run on linux-x64 with glibc (CI's machine).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out="${1:-target/dist}"
mkdir -p "$out"
out=$(cd "$out" && pwd)

case "$(uname -s)-$(uname -m)" in
Linux-x86_64) ;;
*) echo "node-package: the prebuilt addon is built on linux-x64 only" >&2; exit 1 ;;
esac
ldd --version 2>&1 | grep -iE 'glibc|gnu libc' > /dev/null || { echo "node-package: needs glibc (the prebuilt is linux-x64-gnu)" >&2; exit 1; }

pkg=bindings/node
cargo build -q --release --locked -p gcmsiv-node
strip --strip-debug -o "$pkg/gcmsiv.linux-x64-gnu.node" target/release/libgcmsiv_node.so
rm -f "$pkg/gcmsiv.linux-arm64-gnu.node"
if [ -n "${GCMSIV_NODE_ARM64_ADDON:-}" ]; then
    readelf -h "$GCMSIV_NODE_ARM64_ADDON" | grep 'Machine: *AArch64' > /dev/null ||
        { echo "node-package: $GCMSIV_NODE_ARM64_ADDON is not an AArch64 library" >&2; exit 1; }
    aarch64-linux-gnu-strip --strip-debug -o "$pkg/gcmsiv.linux-arm64-gnu.node" "$GCMSIV_NODE_ARM64_ADDON"
fi
cp LICENSE-MIT LICENSE-APACHE "$pkg/"

# rust/: the addon's crate and its path dependencies at their places in the
# repository, under a workspace manifest made from the repository's (its
# [workspace.package], which the crates inherit, and its profiles).
stage="$pkg/rust"
rm -rf "$stage"
mkdir -p "$stage/crates/gcmsiv" "$stage/crates/gcmsiv-glue" "$stage/crates/gcmsiv-stream" "$stage/bindings/node"
cp -r crates/gcmsiv/Cargo.toml crates/gcmsiv/README.md crates/gcmsiv/src "$stage/crates/gcmsiv/"
cp -r crates/gcmsiv-glue/Cargo.toml crates/gcmsiv-glue/src "$stage/crates/gcmsiv-glue/"
cp -r crates/gcmsiv-stream/Cargo.toml crates/gcmsiv-stream/README.md crates/gcmsiv-stream/src "$stage/crates/gcmsiv-stream/"
cp -r $pkg/Cargo.toml $pkg/build.rs $pkg/src "$stage/bindings/node/"
python3 - "$stage/Cargo.toml" <<'PY'
import re, sys
text = open("Cargo.toml").read()
sections = re.split(r"(?m)^(?=\[)", text)
keep = [s for s in sections if s.startswith(("[workspace.package]", "[profile."))]
head = ('# The Rust sources the gcmsiv npm package builds its addon from where no prebuilt\n'
        '# fits (install.js); made by scripts/node-package.sh from the repository\'s manifest.\n'
        '[workspace]\nresolver = "3"\n'
        'members = ["crates/gcmsiv", "crates/gcmsiv-glue", "crates/gcmsiv-stream", "bindings/node"]\n\n')
open(sys.argv[1], "w").write(head + "".join(keep))
PY
cp Cargo.lock "$stage/Cargo.lock"
# Cargo.lock pruned to these crates, every version kept as the repository pins it.
(cd "$stage" && cargo update -q --workspace --offline)
# The bundled sources build (checked without compiling: cargo's resolver and manifests).
(cd "$stage" && cargo metadata -q --locked --offline --format-version 1 --filter-platform x86_64-unknown-linux-gnu > /dev/null)

rm -f "$out"/gcmsiv-*.tgz
(cd "$pkg" && npm pack --silent --pack-destination "$out" > /dev/null)
ls "$out"/gcmsiv-*.tgz
