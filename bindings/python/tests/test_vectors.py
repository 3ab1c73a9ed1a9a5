"""Every shared vector file that applies to the Python API, through every call: encrypt and
decrypt, the ``*_into`` calls, and the batch calls.

One generic reader per file schema turns records into ``Case``s. Each reader names every
field it uses or deliberately ignores, and fails on any other: a field added to a file
must be looked at here. Records the API cannot express become cases that check the refusal
(AES-192 keys, nonces outside pyca's lengths) or, for short GCM tags, are skipped by name.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import gcmsiv
import pytest
from conftest import load_vectors

# Intermediate values (record keys, POLYVAL/GHASH inputs and results, counters): the Rust
# core's vector runner checks them; the Python API has no access to them.
INTERMEDIATES = {
    "record_authentication_key",
    "record_encryption_key",
    "polyval_input",
    "polyval_result",
    "polyval_result_xor_nonce",
    "polyval_result_xor_nonce_masked",
    "initial_counter",
    "h",
    "j0",
    "ghash",
}
# Provenance and prose.
DESCRIPTIVE = {"id", "section", "source", "note", "rfc8452_id", "comment", "flags", "tcId"}


@dataclass(frozen=True)
class Case:
    id: str
    algorithm: str  # the gcmsiv class name
    key: bytes
    nonce: bytes
    aad: bytes
    plaintext: bytes | None  # None where the record does not give it (failing records)
    sealed: bytes  # ciphertext || tag
    # "valid", "invalid" (must fail authentication), "bad-key" / "bad-nonce" (the API must
    # refuse them with ValueError, as pyca does), "tag-prefix" (a truncated-tag record:
    # our 16-byte tag must start with it), "skip"
    expect: str
    reason: str = ""


def fields(record: dict[str, Any], used: set[str], ignored: set[str] = frozenset()) -> dict[str, Any]:
    unknown = record.keys() - used - ignored - DESCRIPTIVE - INTERMEDIATES
    assert not unknown, f"unread fields {sorted(unknown)} in {record.get('id', record.get('tcId'))}"
    return record


def result(value: str) -> str:
    assert value in ("valid", "invalid"), f"unexpected result {value!r}"
    return value


def fields_list(records: list[dict[str, Any]], used: set[str]) -> Iterator[dict[str, Any]]:
    for r in records:
        yield fields(r, used)


def gcm_siv_cases(file: str) -> Iterator[Case]:
    """rfc8452.json and boringssl_gcm_siv.json: main fields plus optional intermediates."""
    data = load_vectors(file)
    records = data["vectors"] + data.get("additional_vectors", [])
    for r in fields_list(
        records, {"algorithm", "key_bits", "key", "nonce", "aad", "plaintext", "ciphertext", "tag", "result"}
    ):
        key = bytes.fromhex(r["key"])
        assert len(key) * 8 == r["key_bits"] and r["algorithm"] == f"AEAD_AES_{r['key_bits']}_GCM_SIV"
        sealed = bytes.fromhex(r["ciphertext"])
        assert sealed.endswith(bytes.fromhex(r["tag"])), "ciphertext must end with the tag"
        yield Case(
            id=f"{file}:{r['id']}",
            algorithm="AESGCMSIV",
            key=key,
            nonce=bytes.fromhex(r["nonce"]),
            aad=bytes.fromhex(r["aad"]),
            plaintext=bytes.fromhex(r["plaintext"]),
            sealed=sealed,
            expect=result(r["result"]),
        )


def wycheproof_cases(file: str, algorithm: str) -> Iterator[Case]:
    """Wycheproof AEAD files: groups of tests sharing key, IV and tag sizes."""
    data = load_vectors(file)
    for group in data["testGroups"]:
        fields(group, {"ivSize", "keySize", "tagSize", "type", "source", "tests"})
        assert group["type"] == "AeadTest" and group["tagSize"] == 128
        for t in group["tests"]:
            fields(t, {"key", "iv", "aad", "msg", "ct", "tag", "result"})
            key, nonce = bytes.fromhex(t["key"]), bytes.fromhex(t["iv"])
            assert len(key) * 8 == group["keySize"] and len(nonce) * 8 == group["ivSize"]
            expect = result(t["result"])
            if len(key) == 24:
                expect = "bad-key"
            elif algorithm == "AESGCM" and not 8 <= len(nonce) <= 128:
                expect = "bad-nonce"
            yield Case(
                id=f"{file}:{t['tcId']}",
                algorithm=algorithm,
                key=key,
                nonce=nonce,
                aad=bytes.fromhex(t["aad"]),
                plaintext=bytes.fromhex(t["msg"]),
                sealed=bytes.fromhex(t["ct"] + t["tag"]),
                expect=expect,
            )


def nist_gcm_cases() -> Iterator[Case]:
    """gcm_nist.json: gcm-spec and CAVP records, some with truncated tags."""
    for r in load_vectors("gcm_nist.json")["vectors"]:
        fields(
            r,
            {
                "direction",
                "key_bits",
                "key",
                "iv",
                "iv_bits",
                "aad",
                "plaintext",
                "ciphertext",
                "tag",
                "tag_bits",
                "result",
            },
        )
        key, nonce = bytes.fromhex(r["key"]), bytes.fromhex(r["iv"])
        tag = bytes.fromhex(r["tag"])
        assert (
            len(key) * 8 == r["key_bits"] and len(nonce) * 8 == r["iv_bits"] and len(tag) * 8 == r["tag_bits"]
        )
        assert r["direction"] in ("encrypt", "decrypt")
        expect, reason = result(r["result"]), ""
        if len(key) == 24:
            expect = "bad-key"
        elif not 8 <= len(nonce) <= 128:
            expect = "bad-nonce"
        elif len(tag) < 16 and expect == "valid":
            expect = "tag-prefix"
        elif len(tag) < 16:
            expect = "skip"
            reason = "a failing record with a truncated tag: AESGCM has 16-byte tags only, as pyca's"
        plaintext = None if r["plaintext"] is None else bytes.fromhex(r["plaintext"])
        assert (plaintext is None) == (r["result"] == "invalid")
        yield Case(
            id=f"gcm_nist.json:{r['id']}",
            algorithm="AESGCM",
            key=key,
            nonce=nonce,
            aad=bytes.fromhex(r["aad"]),
            plaintext=plaintext,
            sealed=bytes.fromhex(r["ciphertext"]) + tag,
            expect=expect,
            reason=reason,
        )


CASES = [
    *gcm_siv_cases("rfc8452.json"),
    *gcm_siv_cases("boringssl_gcm_siv.json"),
    *wycheproof_cases("wycheproof_aes_gcm_siv.json", "AESGCMSIV"),
    *wycheproof_cases("wycheproof_aes_gcm.json", "AESGCM"),
    *nist_gcm_cases(),
]


def cipher(case: Case) -> gcmsiv.AESGCMSIV | gcmsiv.AESGCM:
    return getattr(gcmsiv, case.algorithm)(case.key)


def test_every_file_contributes_what_it_should() -> None:
    """Exact counts, so a reader that silently drops records fails here."""
    kinds = Counter((c.id.split(":")[0], c.expect) for c in CASES)
    assert kinds == {
        ("rfc8452.json", "valid"): 51,
        ("boringssl_gcm_siv.json", "valid"): 179,
        ("wycheproof_aes_gcm_siv.json", "valid"): 136,
        ("wycheproof_aes_gcm_siv.json", "invalid"): 66,
        ("wycheproof_aes_gcm.json", "valid"): 137,
        ("wycheproof_aes_gcm.json", "invalid"): 54,
        ("wycheproof_aes_gcm.json", "bad-key"): 103,  # AES-192
        ("wycheproof_aes_gcm.json", "bad-nonce"): 22,  # IVs of 0-7 or over 128 bytes
        ("gcm_nist.json", "valid"): 48,
        ("gcm_nist.json", "invalid"): 12,
        ("gcm_nist.json", "tag-prefix"): 28,
        ("gcm_nist.json", "skip"): 12,
        ("gcm_nist.json", "bad-key"): 6,  # AES-192
        ("gcm_nist.json", "bad-nonce"): 40,  # 1-byte IVs
    }


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_one_shot(case: Case) -> None:
    if case.expect == "skip":
        pytest.skip(case.reason)
    cls = getattr(gcmsiv, case.algorithm)
    if case.expect == "bad-key":
        with pytest.raises(ValueError):
            cls(case.key)
        return
    c = cls(case.key)
    if case.expect == "bad-nonce":
        with pytest.raises(ValueError):
            c.encrypt(case.nonce, case.plaintext or b"", case.aad)
        with pytest.raises(ValueError):
            c.decrypt(case.nonce, case.sealed, case.aad)
        return
    if case.expect == "tag-prefix":
        assert case.plaintext is not None
        full = c.encrypt(case.nonce, case.plaintext, case.aad)
        assert full.startswith(case.sealed)
        return
    aads = [case.aad, None] if case.aad == b"" else [case.aad]
    for aad in aads:
        if case.expect == "valid":
            assert case.plaintext is not None
            assert c.encrypt(case.nonce, case.plaintext, aad) == case.sealed
            assert c.decrypt(case.nonce, case.sealed, aad) == case.plaintext
        else:
            with pytest.raises(gcmsiv.InvalidTag):
                c.decrypt(case.nonce, case.sealed, aad)
            if case.plaintext is not None:
                assert c.encrypt(case.nonce, case.plaintext, aad) != case.sealed


@pytest.mark.parametrize("case", [c for c in CASES if c.expect in ("valid", "invalid")], ids=lambda c: c.id)
def test_into(case: Case) -> None:
    c = cipher(case)
    plaintext = bytearray(b"\xa5" * max(0, len(case.sealed) - 16))
    if case.expect == "valid":
        assert case.plaintext is not None
        sealed = bytearray(len(case.plaintext) + 16)
        assert c.encrypt_into(case.nonce, case.plaintext, case.aad, sealed) == len(sealed)
        assert sealed == case.sealed
        assert c.decrypt_into(case.nonce, case.sealed, case.aad, plaintext) == len(plaintext)
        assert plaintext == case.plaintext
    else:
        with pytest.raises(gcmsiv.InvalidTag):
            c.decrypt_into(case.nonce, case.sealed, case.aad, plaintext)
        assert plaintext == case.sealed[:-16], "a failed decryption leaves the ciphertext, no plaintext"


def test_batches_match_vectors() -> None:
    """Every valid and invalid record, in batches per (class, key)."""
    groups: dict[tuple[str, bytes], list[Case]] = defaultdict(list)
    for case in CASES:
        if case.expect in ("valid", "invalid"):
            groups[case.algorithm, case.key].append(case)
    assert len(groups) > 50
    for (algorithm, key), cases in groups.items():
        c = getattr(gcmsiv, algorithm)(key)
        opened = c.decrypt_many([(k.nonce, k.sealed, k.aad) for k in cases])
        assert opened == [k.plaintext if k.expect == "valid" else None for k in cases]
        valid = [k for k in cases if k.expect == "valid"]
        sealed = c.encrypt_many([(k.nonce, k.plaintext, k.aad) for k in valid])
        assert sealed == [k.sealed for k in valid]
