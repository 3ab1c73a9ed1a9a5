"""Tink's side of the keyset interop test (scripts/test-keyset-tink.sh runs it).

    python tink_keysets.py vectors OUT.json       # keysets and ciphertexts made by Tink
    python tink_keysets.py interop TOOL [--verbose]   # both ways, with TOOL (our example binary)
    python tink_keysets.py tool GCMSIV            # the same keyset files through `gcmsiv keyset`

`interop` runs in three rounds:
 1. Tink makes keysets (every AES-GCM-SIV and AES-GCM template, with TINK, LEGACY,
    CRUNCHY and RAW prefixes, one at a time and all in one keyset), writes each in
    JSON and binary, in the clear and encrypted, and encrypts messages with them.
 2. TOOL reads every keyset, decrypts every Tink ciphertext, encrypts messages with
    the keysets it read and with keysets it makes itself (every template and prefix,
    and one rotated keyset with disabled and destroyed keys), and writes its keysets
    in both formats, in the clear and encrypted.
 3. Tink reads every keyset TOOL wrote and decrypts every ciphertext TOOL made (and
    refuses those of the rotated keyset's keys made before they were disabled or
    destroyed), then encrypts new messages with TOOL's keysets, which TOOL decrypts
    (round 2 again, on the answers).

Encrypted keysets use Tink's default (empty associated data) under a key-encryption
AEAD that both sides have: an AES256_GCM_SIV_RAW key of 32 known bytes (ours: the
core crate's `Aes256GcmSiv` with the same bytes).
"""

import base64
import hashlib
import hmac
import importlib.metadata
import json
import os
import subprocess
import sys
import tempfile

import tink
from tink import aead, secret_key_access
from tink.proto import aes_gcm_siv_pb2, tink_pb2

aead.register()
TOKEN = secret_key_access.TOKEN
KEK_BYTES = bytes(range(32))
SIV_URL = "type.googleapis.com/google.crypto.tink.AesGcmSivKey"
GCM_URL = "type.googleapis.com/google.crypto.tink.AesGcmKey"
PREFIXES = {"TINK": tink_pb2.TINK, "LEGACY": tink_pb2.LEGACY, "CRUNCHY": tink_pb2.CRUNCHY, "RAW": tink_pb2.RAW}
MESSAGES = [(b"", b""), (b"a", b"ad"), (b"x" * 17, b""), (bytes(range(256)) * 4, b"associated data")]


def b64(data):
    return base64.b64encode(data).decode()


def unb64(text):
    return base64.b64decode(text)


def template(algorithm, prefix):
    """Tink's template for an algorithm name (AES128_GCM_SIV, ...) with any prefix."""
    base = getattr(aead.aead_key_templates, algorithm)
    return tink_pb2.KeyTemplate(type_url=base.type_url, value=base.value, output_prefix_type=PREFIXES[prefix])


def kek_of(key_bytes):
    """A key-encryption AEAD: a RAW AES-256-GCM-SIV key of these 32 bytes."""
    key = aes_gcm_siv_pb2.AesGcmSivKey(version=0, key_value=key_bytes)
    keyset = tink_pb2.Keyset(primary_key_id=1)
    entry = keyset.key.add()
    entry.key_data.type_url = SIV_URL
    entry.key_data.value = key.SerializeToString()
    entry.key_data.key_material_type = tink_pb2.KeyData.SYMMETRIC
    entry.status = tink_pb2.ENABLED
    entry.key_id = 1
    entry.output_prefix_type = tink_pb2.RAW
    handle = tink.proto_keyset_format.parse(keyset.SerializeToString(), TOKEN)
    return handle.primitive(aead.Aead)


KEK = kek_of(KEK_BYTES)


def serialize(handle, fmt, encrypted):
    if fmt == "json":
        if encrypted:
            return tink.json_proto_keyset_format.serialize_encrypted(handle, KEK, b"").encode()
        return tink.json_proto_keyset_format.serialize(handle, TOKEN).encode()
    if encrypted:
        return tink.proto_keyset_format.serialize_encrypted(handle, KEK, b"")
    return tink.proto_keyset_format.serialize(handle, TOKEN)


def parse_with(data, fmt, kek):
    if fmt == "json":
        return tink.json_proto_keyset_format.parse_encrypted(data.decode(), kek, b"")
    return tink.proto_keyset_format.parse_encrypted(data, kek, b"")


def parse(data, fmt, encrypted):
    if fmt == "json":
        if encrypted:
            return tink.json_proto_keyset_format.parse_encrypted(data.decode(), KEK, b"")
        return tink.json_proto_keyset_format.parse(data.decode(), TOKEN)
    if encrypted:
        return tink.proto_keyset_format.parse_encrypted(data, KEK, b"")
    return tink.proto_keyset_format.parse(data, TOKEN)


def encrypt_all(handle):
    primitive = handle.primitive(aead.Aead)
    return [{"pt": b64(p), "ad": b64(a), "ct": b64(primitive.encrypt(p, a))} for p, a in MESSAGES]


def tink_keysets():
    """(name, handle, [ciphertexts]) for each algorithm and prefix, and one keyset of all."""
    out = []
    all_keys = tink_pb2.Keyset()
    all_cts = []
    for algorithm in ["AES128_GCM_SIV", "AES256_GCM_SIV", "AES128_GCM", "AES256_GCM"]:
        for prefix in PREFIXES:
            handle = tink.new_keyset_handle(template(algorithm, prefix))
            cts = encrypt_all(handle)
            out.append((f"{algorithm}/{prefix}", handle, cts))
            proto = tink_pb2.Keyset.FromString(tink.proto_keyset_format.serialize(handle, TOKEN))
            all_keys.key.extend(proto.key)
            all_keys.primary_key_id = proto.primary_key_id
            all_cts.extend(cts)
    handle = tink.proto_keyset_format.parse(all_keys.SerializeToString(), TOKEN)
    out.append(("all", handle, all_cts + encrypt_all(handle)))
    return out


def round1():
    cases = []
    for name, handle, cts in tink_keysets():
        for fmt in ["json", "binary"]:
            for encrypted in [False, True]:
                cases.append({
                    "name": f"tink {name} {fmt}{' encrypted' if encrypted else ''}",
                    "format": fmt,
                    "encrypted": encrypted,
                    "keyset": b64(serialize(handle, fmt, encrypted)),
                    "ciphertexts": cts,
                    "plaintexts": [{"pt": b64(p), "ad": b64(a)} for p, a in MESSAGES],
                })
    return {"kek": KEK_BYTES.hex(), "cases": cases}


def run_tool(tool, job):
    with tempfile.TemporaryDirectory() as tmp:
        path_in, path_out = os.path.join(tmp, "in.json"), os.path.join(tmp, "out.json")
        with open(path_in, "w") as f:
            json.dump(job, f)
        subprocess.run([tool, path_in, path_out], check=True)
        with open(path_out) as f:
            return json.load(f)


def check_answers(answers, passed, failures):
    """Tink reads each keyset the tool wrote and opens each ciphertext it made."""
    round3 = []
    for case in answers["cases"]:
        name = case["name"]
        for result in case.get("errors", []):
            failures.append(f"{name}: tool: {result}")
        for written in case["written"]:
            label = f"{name} -> ours {written['format']}{' encrypted' if written['encrypted'] else ''}"
            try:
                handle = parse(unb64(written["keyset"]), written["format"], written["encrypted"])
                primitive = handle.primitive(aead.Aead)
                for ct in case["ciphertexts"]:
                    if primitive.decrypt(unb64(ct["ct"]), unb64(ct["ad"])) != unb64(ct["pt"]):
                        raise AssertionError("wrong plaintext")
                for ct in case.get("refused", []):  # made by keys disabled or destroyed since
                    try:
                        primitive.decrypt(unb64(ct["ct"]), unb64(ct["ad"]))
                    except tink.TinkError:
                        continue
                    raise AssertionError("Tink opened a ciphertext of a disabled or destroyed key")
                passed.append(("our keysets read by Tink, our ciphertexts opened by Tink", label, len(case["ciphertexts"])))
                round3.append({
                    "name": f"{label}, Tink's ciphertexts",
                    "format": written["format"],
                    "encrypted": written["encrypted"],
                    "keyset": written["keyset"],
                    "ciphertexts": encrypt_all(handle),
                    "plaintexts": [],
                })
            except Exception as e:  # noqa: BLE001 -- every failure is reported
                failures.append(f"{label}: Tink: {type(e).__name__}: {e}")
    return round3


def interop(tool, verbose):
    passed, failures = [], []
    job = round1()
    answers = run_tool(tool, job)
    for case in answers["cases"]:
        if case["name"].startswith("tink ") and not case.get("errors"):
            passed.append(("Tink's keysets read by us, Tink's ciphertexts opened by us", case["name"], case["opened"]))
    round3 = check_answers(answers, passed, failures)
    answers = run_tool(tool, {"kek": KEK_BYTES.hex(), "cases": round3, "generate": False})
    for case in answers["cases"]:
        for result in case.get("errors", []):
            failures.append(f"{case['name']}: tool: {result}")
        if not case.get("errors"):
            passed.append(("Tink's ciphertexts under our keysets (as Tink read them) opened by us", case["name"], case["opened"]))
    print(f"Tink {importlib.metadata.version('tink')} (Python {sys.version.split()[0]})")
    for category in dict.fromkeys(c for c, _, _ in passed):
        cases = [(name, n) for c, name, n in passed if c == category]
        print(f"ok   {category}: {len(cases)} keysets, {sum(n for _, n in cases)} ciphertexts")
        if verbose:
            for name, n in cases:
                print(f"       {name} ({n})")
    for line in failures:
        print("FAIL", line)
    print(f"keysets: {len(passed)} passed, {len(failures)} failed")
    return 1 if failures else 0


def vectors(path):
    """A few Tink keysets with Tink ciphertexts, for the Rust tests without Python."""
    job = round1()
    keep = [c for c in job["cases"] if not c["encrypted"] and (c["name"].endswith(" json") or "all" in c["name"])]
    for case in keep:  # the short messages: the file stays small
        case["ciphertexts"] = [ct for ct in case["ciphertexts"] if len(unb64(ct["pt"])) < 100]
        case["plaintexts"] = []
    with open(path, "w") as f:
        json.dump({
            "source": "made by Tink (PyPI tink) through scripts/tink_keysets.py vectors",
            "kek": job["kek"],
            "cases": keep,
        }, f, indent=1)
        f.write("\n")


def key_file_kek(key_file):
    """The key-encryption AEAD of `gcmsiv keyset --master-key FILE`, as Tink sees it:
    an AES256_GCM_SIV_RAW key of HKDF-SHA-256(no salt, the file's secret, info)."""
    line = next(ln for ln in open(key_file).read().splitlines() if ln.startswith("gcmsiv-key-v1:"))
    secret = bytes.fromhex(line.split(":", 1)[1])
    prk = hmac.new(bytes(32), secret, hashlib.sha256).digest()
    okm = hmac.new(prk, b"gcmsiv keyset encryption key" + b"\x01", hashlib.sha256).digest()
    return kek_of(okm)


def tool(gcmsiv):
    gcmsiv = os.path.abspath(gcmsiv)
    """`gcmsiv keyset` and Tink on the same keyset files, encrypted under a key file."""
    passed, failures = [], []

    def run(*args, data=None):
        out = subprocess.run([gcmsiv, *args], input=data, capture_output=True, cwd=tmp)
        if out.returncode != 0:
            raise AssertionError(f"gcmsiv {' '.join(args)}: {out.stderr.decode().strip()}")
        return out.stdout

    def check(label, fn):
        try:
            fn()
            passed.append(label)
        except Exception as e:  # noqa: BLE001 -- every failure is reported
            failures.append(f"{label}: {type(e).__name__}: {e}")

    with tempfile.TemporaryDirectory() as tmp:
        run("keygen", "-o", "m.key")
        master = key_file_kek(os.path.join(tmp, "m.key"))
        mk = ["--master-key", "m.key"]
        for fmt in ["json", "binary"]:
            name = f"ks.{fmt}"

            def ours_read_by_tink():
                run("keyset", "new", *mk, "--format", fmt, "--template", "AES128_GCM_SIV", "-o", name)
                run("keyset", "add", *mk, name, "--template", "AES256_GCM", "--prefix", "crunchy", "--promote")
                run("keyset", "add", *mk, name, "--prefix", "raw")
                ct = run("keyset", "encrypt", *mk, name, "--associated-data", "ad", data=b"from the tool")
                with open(os.path.join(tmp, name), "rb") as f:
                    handle = parse_with(f.read(), fmt, master)
                primitive = handle.primitive(aead.Aead)
                assert primitive.decrypt(ct, b"ad") == b"from the tool"
                back = run("keyset", "decrypt", *mk, name, "--associated-data", "ad",
                           data=primitive.encrypt(b"from Tink", b"ad"))
                assert back == b"from Tink"

            check(f"tool keyset ({fmt}, encrypted under the key file) used by Tink, and back", ours_read_by_tink)

            def tinks_used_by_tool():
                handle = tink.new_keyset_handle(template("AES256_GCM_SIV", "TINK"))
                tname = f"tink.{fmt}"
                with open(os.path.join(tmp, tname), "wb") as f:
                    if fmt == "json":
                        f.write(tink.json_proto_keyset_format.serialize_encrypted(handle, master, b"").encode())
                    else:
                        f.write(tink.proto_keyset_format.serialize_encrypted(handle, master, b""))
                old = handle.primitive(aead.Aead).encrypt(b"old", b"")
                assert run("keyset", "decrypt", *mk, tname, data=old) == b"old"
                new_id = int(run("keyset", "add", *mk, tname, "--template", "AES128_GCM", "--promote"))
                new = run("keyset", "encrypt", *mk, tname, data=b"new")
                assert new[1:5] == new_id.to_bytes(4, "big")
                with open(os.path.join(tmp, tname), "rb") as f:
                    primitive = parse_with(f.read(), fmt, master).primitive(aead.Aead)
                assert primitive.decrypt(new, b"") == b"new" and primitive.decrypt(old, b"") == b"old"

            check(f"Tink keyset ({fmt}, encrypted under the key file) rotated by the tool, read back by Tink",
                  tinks_used_by_tool)
    for line in passed:
        print("ok  ", line)
    for line in failures:
        print("FAIL", line)
    print(f"tool: {len(passed)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    if sys.argv[1] == "vectors":
        vectors(sys.argv[2])
    elif sys.argv[1] == "tool":
        sys.exit(tool(sys.argv[2]))
    else:
        sys.exit(interop(sys.argv[2], "--verbose" in sys.argv[3:]))
