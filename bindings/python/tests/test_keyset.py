"""gcmsiv.Keyset: Tink's own keysets and ciphertexts (vectors/tink_keysets.json, made by
Tink from PyPI), rotation, the cleartext and encrypted forms, and malformed keysets."""

from __future__ import annotations

import base64
import json

import gcmsiv
import pytest
from conftest import VECTORS

TINK = json.loads((VECTORS / "tink_keysets.json").read_text())


def _b64(text: str) -> bytes:
    return base64.b64decode(text)


@pytest.mark.parametrize("case", TINK["cases"], ids=lambda c: c["name"])
def test_tink_keysets_open_tinks_ciphertexts(case: dict) -> None:
    data = _b64(case["keyset"])
    if case["format"] == "json":
        keyset = gcmsiv.Keyset.from_tink_json(data.decode())
    else:
        keyset = gcmsiv.Keyset.from_tink_binary(data)
    assert case["ciphertexts"], "the case has ciphertexts"
    for item in case["ciphertexts"]:
        assert keyset.decrypt(_b64(item["ct"]), _b64(item["ad"])) == _b64(item["pt"])
        with pytest.raises(gcmsiv.InvalidTag):
            keyset.decrypt(_b64(item["ct"]), _b64(item["ad"]) + b"!")
    # Written back and read again, the keyset is the same keyset.
    again = gcmsiv.Keyset.from_tink_json(keyset.to_tink_json())
    assert again.keys() == keyset.keys()
    item = case["ciphertexts"][0]
    assert again.decrypt(_b64(item["ct"]), _b64(item["ad"])) == _b64(item["pt"])
    assert gcmsiv.Keyset.from_tink_binary(keyset.to_tink_binary()).keys() == keyset.keys()


def test_rotation() -> None:
    keyset = gcmsiv.Keyset.generate("AES128_GCM_SIV")
    first = keyset.primary_key_id
    old = keyset.encrypt(b"old data", b"ad")
    assert old[0] == 1 and int.from_bytes(old[1:5], "big") == first  # Tink's prefix
    second = keyset.add("AES256_GCM_SIV")
    keyset.set_primary(second)
    new = keyset.encrypt(b"new data")
    assert int.from_bytes(new[1:5], "big") == second
    assert keyset.decrypt(old, b"ad") == b"old data" and keyset.decrypt(new) == b"new data"
    keyset.disable(first)
    with pytest.raises(gcmsiv.InvalidTag, match=f"key {first}"):
        keyset.decrypt(old, b"ad")
    keyset.enable(first)
    assert keyset.decrypt(old, b"ad") == b"old data"
    keyset.destroy(first)
    statuses = {k[0]: k[1] for k in keyset.keys()}
    assert statuses == {first: "DESTROYED", second: "ENABLED"}
    with pytest.raises(gcmsiv.InvalidTag, match="DESTROYED|destroyed"):
        keyset.decrypt(old, b"ad")
    with pytest.raises(ValueError):
        keyset.disable(second)  # the primary
    raw = keyset.add("AES256_GCM_RAW")
    keyset.set_primary(raw)
    assert len(keyset.encrypt(b"x")) == 12 + 1 + 16  # no prefix
    with pytest.raises(ValueError, match="unknown template"):
        keyset.add("CHACHA20_POLY1305")


def test_encrypted_keysets(tmp_path) -> None:
    keyset = gcmsiv.Keyset.generate()
    master = bytes(range(32))
    for binary in (False, True):
        sealed = keyset.to_encrypted(master_key=master, binary=binary)
        assert b"AES256" not in sealed or not binary
        back = gcmsiv.Keyset.from_encrypted(sealed, master_key=master)
        assert back.keys() == keyset.keys()
        with pytest.raises(ValueError):
            gcmsiv.Keyset.from_encrypted(sealed, master_key=bytes(32))
    key_file = tmp_path / "master.key"
    key_file.write_text("gcmsiv-key-v1:" + "ab" * 32 + "\n")
    key_file.chmod(0o600)
    sealed = keyset.to_encrypted(master_key_file=key_file)
    assert (
        gcmsiv.Keyset.from_encrypted(sealed, master_key_file=key_file).primary_key_id == keyset.primary_key_id
    )
    with pytest.raises(ValueError, match="exactly one"):
        keyset.to_encrypted()


@pytest.mark.parametrize(
    "text",
    ["", "{}", "not json", '{"primaryKeyId": 1, "key": []}', '{"primaryKeyId": 5, "key": [{"keyId": 1}]}'],
)
def test_malformed_keysets_are_value_errors(text: str) -> None:
    with pytest.raises(ValueError):
        gcmsiv.Keyset.from_tink_json(text)
