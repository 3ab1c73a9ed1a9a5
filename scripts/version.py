#!/usr/bin/env python3
"""The one version of every gcmsiv package.

The version is set in one place, `[workspace.package] version` in the root
Cargo.toml. Every other package states it too, because its own tools read it
there: the Python package (bindings/python/Cargo.toml, which maturin reads; it
is not in the workspace), the npm package (bindings/node/package.json), the
Maven artifact (bindings/java/pom.xml), the Go module (Version in
bindings/go/gcmsiv.go), and the pinned dependencies of the published crates
on one another.

    scripts/version.py            # check that they all agree (scripts/test.sh runs this)
    scripts/version.py 0.2.0      # set the version everywhere

After setting, rebuild what records it (scripts/go-prebuilt.sh for the Go
module's library) and run the tests.
"""

import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?$")


def section(text, name):
    """The body of a TOML table (up to the next table header)."""
    m = re.search(r"(?ms)^\[" + re.escape(name) + r"\]\n(.*?)(?=^\[|\Z)", text)
    if not m:
        raise SystemExit(f"version: no [{name}] table")
    return m


# Each place: (file, a pattern whose group 1 is the version, a description).
# The patterns are anchored to what only that place holds.
PLACES = [
    ("bindings/python/Cargo.toml", r'(?ms)\A.*?^\[package\]\n(?:[^\[]*?\n)?version = "([^"]+)"', "Python package"),
    ("bindings/node/package.json", None, "npm package"),
    (
        "bindings/java/pom.xml",
        r"(?s)<artifactId>gcmsiv</artifactId>\s*<version>([^<]+)</version>",
        "Maven artifact",
    ),
    ("bindings/go/gcmsiv.go", r'(?m)^const Version = "([^"]+)"', "Go module"),
    ("crates/gcmsiv-cli/Cargo.toml", r'(?m)^gcmsiv = \{ path = "\.\./gcmsiv", version = "=([^"]+)" \}', "CLI's core"),
    (
        "crates/gcmsiv-cli/Cargo.toml",
        r'(?m)^gcmsiv-stream = \{ path = "\.\./gcmsiv-stream", version = "=([^"]+)" \}',
        "CLI's stream library",
    ),
    (
        "crates/gcmsiv-cli/Cargo.toml",
        r'(?m)^gcmsiv-keyset = \{ path = "\.\./gcmsiv-keyset", version = "=([^"]+)" \}',
        "CLI's keyset library",
    ),
    ("crates/gcmsiv-stream/Cargo.toml", r'(?m)^gcmsiv = \{ path = "\.\./gcmsiv", version = "=([^"]+)" \}', "stream library's core"),
    ("crates/gcmsiv-keyset/Cargo.toml", r'(?m)^gcmsiv = \{ path = "\.\./gcmsiv", version = "=([^"]+)" \}', "keyset library's core"),
]


def workspace_version():
    text = (ROOT / "Cargo.toml").read_text()
    body = section(text, "workspace.package").group(1)
    m = re.search(r'(?m)^version = "([^"]+)"', body)
    if not m:
        raise SystemExit("version: no version in [workspace.package] of Cargo.toml")
    return m.group(1)


def read(path, pattern):
    text = (ROOT / path).read_text()
    if pattern is None:
        return json.loads(text)["version"]
    m = re.search(pattern, text)
    if not m:
        raise SystemExit(f"version: {path}: the version is not where scripts/version.py looks for it")
    return m.group(1)


def write(path, pattern, version):
    file = ROOT / path
    text = file.read_text()
    if pattern is None:
        data = json.loads(text)
        data["version"] = version
        file.write_text(json.dumps(data, indent=2) + "\n")
        return
    m = re.search(pattern, text)
    if not m:
        raise SystemExit(f"version: {path}: the version is not where scripts/version.py looks for it")
    file.write_text(text[: m.start(1)] + version + text[m.end(1) :])


def set_version(version):
    if not SEMVER.match(version):
        raise SystemExit(f"version: {version!r} is not a semantic version (MAJOR.MINOR.PATCH)")
    cargo = ROOT / "Cargo.toml"
    text = cargo.read_text()
    m = section(text, "workspace.package")
    body = re.sub(r'(?m)^version = "[^"]+"', f'version = "{version}"', m.group(1), count=1)
    cargo.write_text(text[: m.start(1)] + body + text[m.end(1) :])
    for path, pattern, _ in PLACES:
        write(path, pattern, version)


def check():
    want = workspace_version()
    wrong = []
    for path, pattern, what in PLACES:
        got = read(path, pattern)
        if got != want:
            wrong.append(f"  {path} ({what}): {got}")
    if wrong:
        print(f"version: the workspace is {want}, but:", *wrong, sep="\n", file=sys.stderr)
        print("run scripts/version.py VERSION to set one version everywhere", file=sys.stderr)
        return 1
    print(f"version: {want} in Cargo.toml and all {len(PLACES)} other places")
    return 0


def main(argv):
    if len(argv) == 1:
        return check()
    if len(argv) == 2 and not argv[1].startswith("-"):
        set_version(argv[1])
        return check()
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
