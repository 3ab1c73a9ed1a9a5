#!/usr/bin/env bash
# Every package for linux-arm64, cross-compiled on x86-64 and proven in an
# AArch64 userland under emulation. scripts/test-packages.sh runs it twice:
#
#   scripts/test-packages-arm64.sh build DIST        before it packs: the AArch64
#       libraries (the C library, the Node.js addon and the JNI library, one
#       cargo build, which the npm tarball and the JAR then carry beside the
#       x86-64 ones) and the manylinux aarch64 wheel, into DIST
#   scripts/test-packages-arm64.sh test DIST WORK    at its end: each package
#       installed and run (a round trip, a forgery, the RFC 8452 vector) on
#       AArch64, with the programs test-packages.sh wrote into WORK for x86-64
#
# The AArch64 userland is a Debian arm64 root (bookworm: python3, nodejs,
# openjdk-17-jre-headless and what they depend on), unpacked by mmdebstrap
# without running any package's scripts (its "extract" variant: about 10 s and
# 400 MB, where debootstrap's second stage would configure every package under
# emulation), kept in target/arm64-root and made again only when the list
# below changes. Programs run in it by chroot, through qemu-user-static's
# binfmt_misc entry; the root's own loader and libc serve every program, so
# nothing mixes the cross toolchain's loader with another libc (see
# scripts/test-cross.sh). Needs root (chroot; without it, or without binfmt_misc,
# the test says SKIPPED and runs nothing), Debian's Rust with the AArch64
# standard library, gcc-aarch64-linux-gnu, qemu-user-static, mmdebstrap and
# the Debian mirror; .ci/run installs them.
#
#   C        `make install TARGET=aarch64-unknown-linux-gnu`: a program built with
#            aarch64-linux-gnu-gcc and pkg-config, against the shared and the
#            static library
#   Go       the module with cgo (GOARCH=arm64, its prebuilt linux_arm64 library)
#            and with CGO_ENABLED=0
#   Python   the manylinux aarch64 wheel (maturin --zig), `auditwheel show` and its
#            glibc floor, pip install in a fresh venv in the root
#   Node.js  the npm tarball installed; its install step (install.js) run in the
#            root finds the linux-arm64-gnu prebuilt; require() and import
#   Java     the JAR on a class path in the root's JRE: the library for
#            linux-aarch64 unpacked from it, through the JCA provider
set -euo pipefail
cd "$(dirname "$0")/.."
root_dir=$PWD
target=aarch64-unknown-linux-gnu
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
# The cross-compiled libraries: target/arm64-packages/aarch64-unknown-linux-gnu/release.
build_dir="$root_dir/target/arm64-packages"
release="$build_dir/$target/release"
# The oldest glibc the wheels need: manylinux2014 (glibc 2.17), as pyca/cryptography's.
wheel_compat=manylinux2014
wheel_glibc=2.17
# ziglang is the linker maturin --zig uses: pinned, since it decides the wheels' bytes.
ziglang=ziglang==0.17.1

step() { printf '\n== packages (linux-arm64): %s\n' "$*"; }
t0=$SECONDS
took() { printf '   (%ss)\n' "$((SECONDS - t0))"; t0=$SECONDS; }

# Debian's toolchain (rustup's cargo has no AArch64 standard library).
export RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-1}"
[ -x /usr/bin/cargo ] && [ -x "$RUSTC" ] || {
    echo "test-packages-arm64.sh: needs Debian's rustc-web and cargo-web in /usr/bin (.ci/run installs them)" >&2
    exit 1
}

# The highest GLIBC_ symbol version the shared objects in a wheel need.
glibc_floor() {
    local dir
    dir=$(mktemp -d)
    python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$1" "$dir"
    find "$dir" -name '*.so' -exec readelf -W --dyn-syms {} + | grep -o '@GLIBC_[0-9.]*' | sed 's/@GLIBC_//' | sort -Vu | tail -1
    rm -rf "$dir"
}

# A wheel's tags and glibc floor, checked: auditwheel's verdict and the symbols.
check_wheel() {
    local wheel=$1 arch=$2 tools=$3 floor
    "$tools/bin/auditwheel" show "$wheel" > "$wheel.auditwheel" 2>&1 || { cat "$wheel.auditwheel" >&2; exit 1; }
    tr -s ' \n' ' ' < "$wheel.auditwheel" | grep -o "consistent with the following platform tag: \"[^\"]*\"" |
        tee "$wheel.verdict"
    grep "\"manylinux_${wheel_glibc/./_}_$arch\"" "$wheel.verdict" > /dev/null ||
        { echo "$(basename "$wheel"): not manylinux_${wheel_glibc/./_}_$arch" >&2; exit 1; }
    floor=$(glibc_floor "$wheel")
    echo "$(basename "$wheel"): needs glibc $floor at most (GLIBC_$floor is its newest versioned symbol)"
    [ "$(printf '%s\n%s\n' "$floor" "$wheel_glibc" | sort -V | tail -1)" = "$wheel_glibc" ] ||
        { echo "$(basename "$wheel") needs glibc $floor, newer than $wheel_glibc" >&2; exit 1; }
    rm -f "$wheel.auditwheel" "$wheel.verdict"
}

# A venv with maturin, ziglang and auditwheel: the caller's (GCMSIV_PY_TOOLS), or one made here.
py_tools() {
    if [ -n "${GCMSIV_PY_TOOLS:-}" ]; then
        echo "$GCMSIV_PY_TOOLS"
        return
    fi
    local tools="$root_dir/target/packages-tools"
    [ -x "$tools/bin/maturin" ] && [ -x "$tools/bin/auditwheel" ] && "$tools/bin/python" -m ziglang version > /dev/null 2>&1 || {
        python3 -m venv "$tools"
        "$tools/bin/pip" install -q --disable-pip-version-check maturin auditwheel "$ziglang"
    }
    echo "$tools"
}

build() {
    local dist=$1 tools
    mkdir -p "$dist"
    step "build: the C library, the Node.js addon and the JNI library for $target (Debian's cargo)"
    CARGO_TARGET_DIR="$build_dir" nice -n 10 /usr/bin/cargo build -q --release --locked --target $target \
        -p gcmsiv-c -p gcmsiv-node -p gcmsiv-java
    for lib in libgcmsiv_c.a libgcmsiv_c.so libgcmsiv_node.so libgcmsiv_java.so; do
        [ -e "$release/$lib" ] || { echo "no $release/$lib" >&2; exit 1; }
    done
    readelf -h "$release/libgcmsiv_node.so" | grep 'Machine: *AArch64' > /dev/null
    took

    step "build: the Python wheel for manylinux aarch64 (maturin --zig --compatibility $wheel_compat)"
    tools=$(py_tools)
    # maturin runs `cargo` and `rustc` from the PATH: Debian's, first; and links
    # with zig, which it does not where a linker for the target is already named.
    mkdir -p "$build_dir/debian-rust-bin"
    ln -sf /usr/bin/cargo /usr/bin/rustc /usr/bin/rustdoc "$build_dir/debian-rust-bin/"
    rm -f "$dist"/gcmsiv-*-manylinux*_aarch64.whl
    (cd bindings/python && unset CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER &&
        PATH="$build_dir/debian-rust-bin:$tools/bin:$PATH" CARGO_TARGET_DIR="$build_dir/python" nice -n 10 \
        maturin build --release --zig --target $target --compatibility $wheel_compat --out "$dist" \
        > "$build_dir/maturin.log" 2>&1) || { cat "$build_dir/maturin.log" >&2; exit 1; }
    check_wheel "$(ls "$dist"/gcmsiv-"$version"-cp311-abi3-manylinux*_aarch64.whl)" aarch64 "$tools"
    took
}

# The Debian arm64 root, made again only when what it holds changes.
root="$root_dir/target/arm64-root"
root_packages=python3,python3-venv,nodejs,openjdk-17-jre-headless
root_suite=bookworm
root_mirror="${GCMSIV_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
java_bin=/usr/lib/jvm/java-17-openjdk-arm64/bin/java

make_root() {
    local stamp="$root_suite $root_packages"
    if [ "$(cat "$root/.gcmsiv-root" 2>/dev/null)" = "$stamp" ]; then
        echo "the root in target/arm64-root is current ($stamp)"
        return
    fi
    rm -rf "$root" "$root.new"
    nice -n 10 mmdebstrap --quiet --variant=extract --arch=arm64 --include="$root_packages" \
        "$root_suite" "$root.new" "$root_mirror"
    echo "$stamp" > "$root.new/.gcmsiv-root"
    mv "$root.new" "$root"
    echo "made the root: $(du -sh "$root" | cut -f1)"
}

# Runs a program in the root (no shell there: every path absolute), with the
# vector's fields, the NAME=VALUE arguments before it, and nothing else from
# this environment.
in_root() {
    local vars=()
    mapfile -t vars < <(env | grep '^GCMSIV_VEC_')
    while [[ "${1:-}" == *=* ]]; do vars+=("$1"); shift; done
    env -i PATH=/usr/bin:/bin HOME=/work LANG=C.UTF-8 "${vars[@]}" "$(command -v chroot)" "$root" "$@"
}

test_packages() {
    local dist=$1 work=$2
    # Where the root cannot be entered (no root privileges for chroot, or no
    # binfmt_misc entry for qemu), the packages are built but not run: said
    # loudly, as scripts/test-cross.sh says what it skips.
    if [ "$(id -u)" -ne 0 ]; then
        echo "SKIPPED: the linux-arm64 packages were built but not run: entering the arm64 root (chroot) needs root" >&2
        return
    fi
    local fmt=/proc/sys/fs/binfmt_misc
    [ -e "$fmt/register" ] || mount -t binfmt_misc binfmt_misc "$fmt" 2> /dev/null || true
    [ -e "$fmt/qemu-aarch64" ] || cat /usr/lib/binfmt.d/qemu-aarch64.conf > "$fmt/register" 2> /dev/null || true
    if [ ! -e "$fmt/qemu-aarch64" ]; then
        echo "SKIPPED: the linux-arm64 packages were built but not run: binfmt_misc has no qemu-aarch64 entry and cannot get one" >&2
        return
    fi
    for f in app.c app.py go-app/main.go node-app/check.js node-app/check.mjs; do
        [ -e "$work/$f" ] || { echo "test-packages-arm64.sh test: $work/$f missing (scripts/test-packages.sh writes it)" >&2; exit 1; }
    done

    step "an AArch64 userland: Debian $root_suite arm64 ($root_packages)"
    make_root
    rm -rf "$root/work" && mkdir -p "$root/work"
    [ "$(in_root /usr/bin/python3 -c 'import platform; print(platform.machine())')" = aarch64 ]
    took

    step "C: make install TARGET=$target, pkg-config, aarch64-linux-gnu-gcc; run in the root"
    make -s -C crates/gcmsiv-c install PREFIX=/work/c-prefix DESTDIR="$root" TARGET=$target \
        TARGET_DIR="$build_dir" NO_BUILD=1 > /dev/null
    (
        cd "$root/work" && export PKG_CONFIG_SYSROOT_DIR="$root" PKG_CONFIG_LIBDIR="$root/work/c-prefix/lib/pkgconfig"
        [ "$(pkg-config --modversion gcmsiv)" = "$version" ]
        # shellcheck disable=SC2046
        aarch64-linux-gnu-gcc -std=c11 -Wall -Werror "$work/app.c" $(pkg-config --cflags --libs gcmsiv) -o app-shared
        # shellcheck disable=SC2046
        aarch64-linux-gnu-gcc -std=c11 -Wall -Werror "$work/app.c" $(pkg-config --cflags gcmsiv) \
            "$root/work/c-prefix/lib/libgcmsiv_c.a" $(pkg-config --static --libs-only-l gcmsiv | sed 's/-lgcmsiv_c//') \
            -o app-static
        aarch64-linux-gnu-readelf -d app-static | grep 'libgcmsiv' > /dev/null &&
            { echo "the static build links the shared library" >&2; exit 1; }
        true
    )
    in_root LD_LIBRARY_PATH=/work/c-prefix/lib /work/app-shared
    in_root /work/app-static
    took

    step "Go: the module with cgo (GOARCH=arm64, prebuilt/linux_arm64) and pure Go; run in the root"
    (
        cd "$work/go-app" && export GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local GOPATH="$work/gopath" GOOS=linux GOARCH=arm64
        CGO_ENABLED=1 CC=aarch64-linux-gnu-gcc go build -o "$root/work/go-cgo" .
        CGO_ENABLED=0 go build -o "$root/work/go-purego" .
    )
    in_root /work/go-cgo | tee "$root/work/go-cgo.out"
    grep -v purego "$root/work/go-cgo.out" > /dev/null || { echo "the cgo build did not link the C library" >&2; exit 1; }
    in_root /work/go-purego | grep purego
    # And the binding's own tests (every vector file, batches, streams, misuse) on the linux_arm64 library.
    (cd bindings/go && GOARCH=arm64 CGO_ENABLED=1 CC=aarch64-linux-gnu-gcc go test -c -o "$root/work/go-binding.test" .)
    cp -r "${GCMSIV_VECTORS:-vectors}" "$root/work/vectors"
    in_root GCMSIV_VECTORS=/work/vectors /work/go-binding.test -test.count=1 | tail -1 | grep -x PASS
    took

    step "Python: the aarch64 wheel in a fresh venv in the root"
    local wheel pip_wheel
    wheel=$(ls "$dist"/gcmsiv-"$version"-cp311-abi3-manylinux*_aarch64.whl)
    cp "$wheel" "$work/app.py" "$root/work/"
    # pip from the root's own wheel of it (python3-pip-whl), run from the wheel:
    # ensurepip, which copies it into the venv, takes 40 s under emulation.
    pip_wheel=$(cd "$root" && ls usr/share/python-wheels/pip-*.whl)
    in_root /usr/bin/python3 -m venv --without-pip /work/py
    in_root /work/py/bin/python "/$pip_wheel/pip" install -q --disable-pip-version-check --no-index "/work/$(basename "$wheel")"
    in_root /work/py/bin/python /work/app.py
    took

    step "Node.js: the npm tarball, its install step in the root finds the linux-arm64-gnu prebuilt"
    local tarball="$dist/gcmsiv-$version.tgz"
    tar tzf "$tarball" | grep -x package/gcmsiv.linux-arm64-gnu.node > /dev/null ||
        { echo "$tarball has no linux-arm64-gnu addon" >&2; exit 1; }
    mkdir -p "$root/work/node-app"
    cp "$work/node-app/check.js" "$work/node-app/check.mjs" "$root/work/node-app/"
    # npm (JavaScript) unpacks the tarball here; its install script runs in the root, as npm would run it there.
    (cd "$root/work/node-app" && npm init -y > /dev/null && npm_config_cache="$work/npm-cache" \
        npm install --silent --no-audit --no-fund --ignore-scripts "$tarball")
    in_root /usr/bin/node /work/node-app/node_modules/gcmsiv/install.js
    [ ! -e "$root/work/node-app/node_modules/gcmsiv/gcmsiv.node" ] ||
        { echo "install.js built from source where the prebuilt fits" >&2; exit 1; }
    in_root /usr/bin/node /work/node-app/check.js | tee "$root/work/node.out"
    in_root /usr/bin/node /work/node-app/check.mjs
    took

    step "Java: the JAR on a class path in the root's JRE, the JCA provider"
    local jar="$dist/gcmsiv-$version.jar"
    jar tf "$jar" | grep -x 'dev/gcmsiv/native/linux-aarch64/libgcmsiv_java.so' > /dev/null ||
        { echo "$jar has no linux-aarch64 library" >&2; exit 1; }
    mkdir -p "$root/work/java"
    cp "$jar" "$root/work/java/gcmsiv.jar"
    cat > "$root/work/java/Check.java" <<'EOF'
import java.util.Arrays;
import java.util.HexFormat;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

public class Check {
    static byte[] env(String name) {
        return HexFormat.of().parseHex(System.getenv("GCMSIV_VEC_" + name));
    }

    public static void main(String[] args) throws Exception {
        java.security.Security.addProvider(new dev.gcmsiv.GcmsivProvider());
        SecretKeySpec key = new SecretKeySpec(env("KEY"), "AES");
        GCMParameterSpec spec = new GCMParameterSpec(128, env("NONCE"));
        Cipher c = Cipher.getInstance("AES/GCM-SIV/NoPadding");
        if (!c.getProvider().getName().equals("Gcmsiv")) throw new AssertionError(c.getProvider().getName());
        c.init(Cipher.ENCRYPT_MODE, key, spec);
        c.updateAAD(env("AAD"));
        byte[] sealed = c.doFinal(env("PT"));
        if (!Arrays.equals(sealed, env("CT"))) throw new AssertionError("RFC 8452 vector");
        c.init(Cipher.DECRYPT_MODE, key, spec);
        c.updateAAD(env("AAD"));
        if (!Arrays.equals(c.doFinal(sealed), env("PT"))) throw new AssertionError("round trip");
        sealed[0] ^= 1;
        c.init(Cipher.DECRYPT_MODE, key, spec);
        c.updateAAD(env("AAD"));
        try {
            c.doFinal(sealed);
            throw new AssertionError("a forgery opened");
        } catch (AEADBadTagException expected) {
            // the forgery refused
        }
        System.out.println("ok: JAR on " + System.getProperty("os.arch") + ", JCA provider "
                + c.getProvider().getName() + ", " + new dev.gcmsiv.AesGcmSiv(env("KEY")).backend());
    }
}
EOF
    javac --release 17 -d "$root/work/java" -cp "$root/work/java/gcmsiv.jar" "$root/work/java/Check.java"
    in_root "$java_bin" -cp /work/java/gcmsiv.jar:/work/java Check 2> "$root/work/java.err" ||
        { cat "$root/work/java.err" >&2; exit 1; }
    took
}

case "${1:-}" in
build) build "${2:?usage: test-packages-arm64.sh build DIST}" ;;
test) test_packages "${2:?usage: test-packages-arm64.sh test DIST WORK}" "${3:?usage: test-packages-arm64.sh test DIST WORK}" ;;
*)
    echo "usage: scripts/test-packages-arm64.sh build DIST | test DIST WORK (scripts/test-packages.sh runs both)" >&2
    exit 2
    ;;
esac
