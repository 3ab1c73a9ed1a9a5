#!/usr/bin/env bash
# Runs every fuzz target for a bounded time.
#
#   scripts/fuzz.sh [SECONDS]        every target and variant, SECONDS each (default 60)
#   scripts/fuzz.sh --ci [SECONDS]   what scripts/test.sh runs (default 15 s each): one
#                                    cheaper build of the Rust targets (below), and the
#                                    Python harness on the package scripts/test-python.sh
#                                    installed (GCMSIV_PYTHON_VENV names its environment)
#
# The targets (SECURITY.md, "Fuzzing", says what each checks and how long they have run):
# - fuzz/ (a cargo-fuzz project: libFuzzer, AddressSanitizer): aead_differential, our
#   AES-GCM-SIV and AES-GCM on every backend against RustCrypto and aws-lc-rs; c_abi, the
#   C ABI with arbitrary lengths, NULLs and overlapping buffers; stream_decrypt, the file
#   format's readers (every in-order reader, random access) on arbitrary files, which
#   must agree and release only authenticated bytes; recipients, the recipient and
#   identity parsers; keyset, Tink keysets read in every format and ciphertexts opened
#   by a keyset of every prefix type. aead_differential runs
#   once more for each register width below the host's widest (--cfg gcmsiv_max_width).
# - bindings/go: Go's native fuzzer on FuzzOpen (the Go binding's decrypt path).
# - bindings/python/fuzz/fuzz_decrypt.py: atheris on the Python package's decrypt paths,
#   the Rust extension built with SanitizerCoverage so libFuzzer sees its edges too.
#
# --ci trades depth for a build CI can afford (SECURITY.md, "Fuzzing", has the times):
# the default width only, without aws-lc-rs (its C build), at opt-level 1 (half the
# instrumented core's compile time), linked against the distribution's prebuilt libFuzzer
# (libclang-rt-dev, which .ci/run installs) rather than compiling libFuzzer's C++; still
# one build under AddressSanitizer with SanitizerCoverage for the three targets. Atheris
# sees the Python code's coverage only there: the extension is the one the Python tests
# built, without SanitizerCoverage (its Rust code is fuzzed by the Rust targets).
#
# A crash fails the script. Its input is left in fuzz/artifacts/TARGET/ (Rust),
# bindings/go/testdata/fuzz/FuzzOpen/ (Go, which `go test` then replays) or
# target/fuzz-python/ (Python). Copy a Rust or Python one into the target's seed corpus
# (fuzz/corpus/TARGET/, bindings/python/fuzz/corpus/): every run replays the seeds first,
# so it stays a regression test. Needs rustup's nightly toolchain (installed here when
# missing; cargo-fuzz too, except with --ci), Go, and Python 3.11 with venv (PyPI).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

ci=0
if [ "${1:-}" = "--ci" ]; then
    ci=1
    shift
fi
secs=${1:-$([ "$ci" = 1 ] && echo 15 || echo 60)}

step() { printf '\n== %s\n' "$*"; }
# timed NAME LOG COMMAND...: runs COMMAND with its output in LOG; prints how long it
# took and how many inputs it ran, or, if it failed (a crash), the end of LOG.
timed() {
    local name=$1 log=$2 start=$SECONDS status=0
    shift 2
    "$@" >"$log" 2>&1 || status=$?
    if [ "$status" != 0 ]; then
        grep -vE '^#[0-9]+|^fuzz: elapsed' "$log" | tail -80
        printf 'fuzz: %s FAILED after %s s (full output: %s)\n' "$name" "$((SECONDS - start))" "$log"
        return "$status"
    fi
    printf 'fuzz: %s ran %s s, %s inputs\n' "$name" "$((SECONDS - start))" \
        "$(sed -n 's/^stat::number_of_executed_units: *//p; s/^fuzz: elapsed.*execs: \([0-9]*\).*/\1/p' "$log" | tail -1)"
}

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
    rustup toolchain install nightly --profile minimal
fi
# cargo-fuzz builds the Rust targets when it is installed (and is installed for the full
# runs); CI does without it, since building it costs more than its budget allows, and
# builds them with the flags cargo-fuzz 0.13 passes (below). Both run the same binaries.
if [ "$ci" = 0 ] && ! command -v cargo-fuzz >/dev/null 2>&1; then
    cargo install --locked cargo-fuzz
fi

# --- Rust: libFuzzer under AddressSanitizer -----------------------------------------
host=$(rustc -vV | sed -n 's/^host: //p')
features=()
[ "$ci" = 1 ] && features=(--no-default-features)
# Each variant in its own target folder: its cfg changes every crate's build.
variants=(default)
if [ "$ci" = 0 ]; then
    widths=$(cargo run --release --quiet -p gcmsiv-cli -- info | sed -n 's/^available: //p')
    case "$widths" in *"(512-bit)"*) variants+=(256) ;; esac
fi

# The target folder of a variant: --ci's build has its own flags, so its own folder.
target_dir() {
    if [ "$ci" = 1 ]; then echo fuzz/target/ci; else echo "fuzz/target/variant-$1"; fi
}

# The distribution's libFuzzer (libclang-rt-dev, any LLVM version: the interface that
# SanitizerCoverage and libfuzzer-sys use is stable), the newest found.
prebuilt_libfuzzer() {
    find /usr/lib/llvm-*/lib/clang/*/lib/linux -name 'libclang_rt.fuzzer-x86_64.a' 2>/dev/null |
        sort -V | tail -1
}

build_rust() {
    local variant=$1 flags="" dir
    dir=$(target_dir "$variant")
    [ "$variant" != default ] && flags="--cfg gcmsiv_max_width=\"$variant\""
    if [ "$ci" = 0 ]; then
        RUSTFLAGS="$flags" cargo +nightly fuzz build --fuzz-dir fuzz --target-dir "$dir" "${features[@]}"
    else
        local libfuzzer
        libfuzzer=$(prebuilt_libfuzzer)
        if [ -n "$libfuzzer" ]; then
            echo "fuzz: linking the prebuilt $libfuzzer"
            export CUSTOM_LIBFUZZER_PATH=$libfuzzer
        else
            echo "fuzz: no prebuilt libFuzzer (libclang-rt-dev): libfuzzer-sys compiles it"
        fi
        RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares -Cllvm-args=-sanitizer-coverage-stack-depth \
--cfg fuzzing -Zsanitizer=address -Ccodegen-units=1 -Copt-level=1 -Cdebug-assertions $flags" \
            cargo +nightly build --release --manifest-path fuzz/Cargo.toml --target "$host" \
            --target-dir "$dir" --bins "${features[@]}"
    fi
}

# The stream target's inputs may hold a version 2 header of 256 hybrid stanzas
# (299,340 bytes) and chunks past it; the others need a few KiB.
max_len() {
    case "$1" in
        stream_decrypt) echo 400000 ;;
        *) echo 8192 ;;
    esac
}

rust_target() {
    local variant=$1 target=$2 dir
    dir=$(target_dir "$variant")
    mkdir -p "$dir/corpus/$target"
    local dict=()
    [ -f "fuzz/dict/$target.dict" ] && dict=(-dict="fuzz/dict/$target.dict")
    # New inputs go to the first folder; the committed seeds are only read.
    "$dir/$host/release/$target" "$dir/corpus/$target" "fuzz/corpus/$target" \
        -artifact_prefix="fuzz/artifacts/$target/" \
        -max_total_time="$secs" -max_len="$(max_len "$target")" -timeout=20 -print_final_stats=1 "${dict[@]}"
}

for variant in "${variants[@]}"; do
    step "fuzz: Rust build ($variant width${features[*]:+, ${features[*]}})"
    start=$SECONDS
    build_rust "$variant"
    printf 'fuzz: build took %s s\n' "$((SECONDS - start))"
    targets=(aead_differential)
    [ "$variant" = default ] && targets+=(c_abi stream_decrypt recipients keyset)
    for target in "${targets[@]}"; do
        mkdir -p "fuzz/artifacts/$target"
        step "fuzz: $target ($variant width), $secs s"
        timed "$target/$variant" "$(target_dir "$variant")/$target.log" rust_target "$variant" "$target"
    done
done

# --- Go: go test -fuzz --------------------------------------------------------------
step "fuzz: Go binding, FuzzOpen, $secs s"
cargo build -q --release -p gcmsiv-c
mkdir -p target/fuzz-go
(cd bindings/go && timed go/FuzzOpen "$ROOT/target/fuzz-go/FuzzOpen.log" \
    go test -run '^$' -fuzz '^FuzzOpen$' -fuzztime "${secs}s" -parallel 1 .)

# --- Python: atheris ----------------------------------------------------------------
step "fuzz: Python package, atheris, $secs s"
PYTHON="${PYTHON:-python3}"
work=target/fuzz-python
mkdir -p "$work/corpus"
preload=()
if [ "$ci" = 1 ] && [ -n "${GCMSIV_PYTHON_VENV:-}" ]; then
    # The package as scripts/test-python.sh installed it (with pyca/cryptography).
    venv=$GCMSIV_PYTHON_VENV
    "$venv/bin/python" -m pip install --quiet atheris
else
    venv=$ROOT/$work/venv
    if [ ! -x "$venv/bin/python" ]; then
        "$PYTHON" -m venv "$venv"
        "$venv/bin/python" -m pip install --quiet --upgrade pip
    fi
    "$venv/bin/python" -m pip install --quiet atheris cryptography
    # SanitizerCoverage in the extension: its edges and comparisons go to the libFuzzer
    # that atheris ships (preloaded below, so the extension's hooks resolve to it).
    # (A --target build: the flags reach the extension, not build scripts or proc macros.)
    CARGO_TARGET_DIR=$ROOT/$work/cargo CARGO_BUILD_TARGET=$host \
        RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=3 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares" \
        "$venv/bin/python" -m pip install --quiet --force-reinstall --no-deps ./bindings/python
    preload=(LD_PRELOAD="$("$venv/bin/python" -c 'import atheris, pathlib; print(pathlib.Path(atheris.__file__).parent.parent / "ubsan_with_fuzzer.so")')")
fi
(cd "$work" && timed python/fuzz_decrypt fuzz_decrypt.log \
    env "${preload[@]}" "$venv/bin/python" "$ROOT/bindings/python/fuzz/fuzz_decrypt.py" \
    corpus "$ROOT/bindings/python/fuzz/corpus" -max_total_time="$secs" -max_len=4096 -timeout=20 \
    -print_final_stats=1)

printf '\nfuzz: every target ran %s s without a crash.\n' "$secs"
