#!/usr/bin/env bash
# Runs every check of the project: formatting, lints, all tests on every
# backend (including a build forced onto the portable backend) with the doc
# tests, rustdoc, the crate on AArch64, 32-bit ARM and ppc64le under qemu
# (scripts/test-cross.sh, with Debian's Rust and its multiarch standard
# libraries), the C ABI from C, the Go, Node.js, Java and Python bindings'
# tests, Tink keysets both ways with Tink itself, a bounded run of every fuzz
# target, every package installed from outside the repository, and the
# constant-time evidence. Needs Rust (rustfmt,
# clippy; rustup's nightly for the fuzz targets), a C compiler with pkg-config,
# Go, Node.js with npm, a JDK 17+ with Maven, Python 3 with venv, valgrind, and
# preferably LLVM's prebuilt libFuzzer (libclang-rt-dev).
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step's header says how long the run has taken so far (CI's budget is
# minutes: the times show where they go).
step() { printf '\n== [%dm%02ds] %s\n' "$((SECONDS / 60))" "$((SECONDS % 60))" "$*"; }
trap 'printf "\n== [%dm%02ds] done\n" "$((SECONDS / 60))" "$((SECONDS % 60))"' EXIT

step "formatting"
cargo fmt --all -- --check

# The other architectures run under emulation beside the host's steps, from
# here to before the constant-time steps (timing-sensitive): their builds use Debian's
# toolchain in a target directory of their own, and their emulated test runs
# and the host's single-threaded link and LTO steps leave a core idle that the
# other fills (on two cores this took the run from 31 to under 20 minutes).
# Their log is printed, with its own step times, where they are waited for.
cross_log=target/test-cross.log
mkdir -p target
setsid scripts/test-cross.sh >"$cross_log" 2>&1 &
cross_pid=$!
trap 'kill -- "-$cross_pid" 2>/dev/null || true; printf "\n== [%dm%02ds] done\n" "$((SECONDS / 60))" "$((SECONDS % 60))"' EXIT

step "layers: no module of the core crate, and no file of its x86-64 backend, uses one above it"
python3 scripts/check-layers.py

step "clippy (warnings denied)"
cargo clippy --all-targets --features gcmsiv/aead,gcmsiv/research -- -D warnings
cargo clippy -p gcmsiv --all-targets --all-features -- -D warnings
cargo clippy -p gcmsiv --no-default-features -- -D warnings

step "tests: every backend this CPU has (the default build picks hardware where it exists)"
cargo test --features gcmsiv/aead,gcmsiv/research

step "no secrets left on the stack (optimized build: what stays in registers is the optimizer's choice)"
cargo test --release -p gcmsiv --test residue
cargo test --release -p gcmsiv --features force-portable --test residue
# The file format's key derivation: HKDF's and HMAC's keys and blocks.
cargo test --release -p gcmsiv-stream --test residue

# The widths this host has below its widest, read from the library's own
# detection (`gcmsiv info`): on a CPU with AVX-512 the 256-bit path runs here
# exactly as on one without it, and the 128-bit one as on a CPU without VAES.
widths=$(cargo run --release --quiet -p gcmsiv-cli -- info | sed -n 's/^available: //p')
narrower=()
case "$widths" in *"(512-bit)"*) narrower+=(256 128) ;; *"(256-bit)"*) narrower+=(128) ;; esac
for width in "${narrower[@]}"; do
    step "tests capped at ${width}-bit registers (GCMSIV_MAX_WIDTH=$width at build time)"
    # The core's build script makes the cap a cfg of the core alone, so only
    # the core and what sits on it rebuild, in the usual target directory.
    export GCMSIV_MAX_WIDTH="$width"
    # The core's whole suite: vectors, differential tests, batches, the
    # all-cores path, the seed papers' variants (research); then the residue test. (The CLI and the bindings run
    # their tests at the default width: they reach the widths only through it.)
    cargo test -p gcmsiv --features research
    cargo test --release -p gcmsiv --test residue
    unset GCMSIV_MAX_WIDTH
done

step "tests: forced portable backend"
cargo test -p gcmsiv --features force-portable,research

step "no_std build"
cargo build -p gcmsiv --no-default-features


step "rustdoc (warnings denied; the doc tests ran with the tests above)"
RUSTDOCFLAGS="-D warnings" cargo doc -p gcmsiv --all-features --no-deps
# The internals' docs too, so that their links to one another stay true.
RUSTDOCFLAGS="-D warnings" cargo doc -p gcmsiv --features research --no-deps --document-private-items

step "C ABI from C: every vector file through the header, static and shared libraries"
scripts/test-c.sh

step "no legacy-SSE instruction beside 256/512-bit state (the release C library, which holds every kernel)"
python3 scripts/check-vex.py target/release/libgcmsiv_c.so

step "Go binding: every vector file through cgo and the C ABI"
scripts/test-go.sh

step "Node.js package: the N-API addon, every vector file, node:crypto cross-checks"
scripts/test-node.sh

step "Java binding: JNI, every vector file, the JDK's AES-GCM cross-check"
scripts/test-java.sh

step "Python package: fresh virtual environment, wheel, pytest"
GCMSIV_PYTHON_VENV="$PWD/target/python-venv" scripts/test-python.sh

step "Tink keysets: Tink itself (PyPI) and gcmsiv-keyset read each other's keysets (JSON and binary, clear and encrypted) and open each other's ciphertexts, every key size and prefix type"
scripts/test-keyset-tink.sh

step "files across languages: each of the tool, C, Go, Node.js, Java and Python reads every other's files, in order and by ranges, and fails alike on damage"
python3 scripts/test-interop.py --python "$PWD/target/python-venv/bin/python"

step "fuzzing: every fuzz target (Rust under AddressSanitizer, Go, Python) for 15 s after replaying its seeds; a crash fails (scripts/fuzz.sh --ci 15)"
GCMSIV_PYTHON_VENV="$PWD/target/python-venv" scripts/fuzz.sh --ci 15

step "packages: every artifact built into target/dist, installed and run in fresh projects outside the repository (linux-x64 here, linux-arm64 in a Debian arm64 root under qemu)"
scripts/test-packages.sh

step "other architectures under emulation (started at the beginning, beside the steps above): AArch64 (its backend and the portable one), 32-bit ARM, ppc64le, bare-metal AArch64"
cross_status=0
wait "$cross_pid" || cross_status=$?
cat "$cross_log"
if [ "$cross_status" -ne 0 ]; then
    echo "scripts/test-cross.sh failed (exit $cross_status); its log is above" >&2
    exit "$cross_status"
fi

step "constant time: valgrind memcheck with secrets marked undefined (ctgrind)"
crates/ctcheck/ctgrind.sh

step "constant time: dudect-style timing test"
cargo build -p ctcheck --release
target/release/ctcheck dudect

printf '\nAll checks passed.\n'
