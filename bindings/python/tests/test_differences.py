"""The deliberate differences from pyca/cryptography, each pinned down (the package README
lists them)."""

from __future__ import annotations

import cryptography.exceptions
import gcmsiv
import pytest
from cryptography.hazmat.primitives.ciphers import aead

NONCE = bytes(12)


@pytest.mark.parametrize("name", ["AESGCMSIV", "AESGCM"])
def test_aes192_is_not_offered(name: str) -> None:
    """The core has AES-128 and AES-256 only; pyca also takes 24-byte keys."""
    getattr(aead, name)(bytes(24))  # pyca accepts it...
    with pytest.raises(ValueError, match="128 or 256 bits"):
        getattr(gcmsiv, name)(bytes(24))  # ...we refuse it before any work
    assert len(getattr(aead, name).generate_key(192)) == 24
    with pytest.raises(ValueError, match="bit_length must be 128 or 256"):
        getattr(gcmsiv, name).generate_key(192)


@pytest.mark.parametrize("name", ["AESGCMSIV", "AESGCM"])
@pytest.mark.parametrize("size", [1, 100, 5000, 100_000])
def test_failed_decrypt_into_leaves_no_plaintext(name: str, size: int) -> None:
    """pyca leaves the unauthenticated plaintext in the buffer; we put the ciphertext back."""
    c = getattr(gcmsiv, name)(bytes(32))
    sealed = bytearray(c.encrypt(NONCE, b"\x5a" * size, None))
    sealed[-1] ^= 1
    out = bytearray(b"\xff" * size)
    with pytest.raises(gcmsiv.InvalidTag):
        c.decrypt_into(NONCE, sealed, None, out)
    assert out == sealed[:-16]
    # In place (the output shares the input's memory): a failure changes nothing.
    tampered = bytes(sealed)
    with pytest.raises(gcmsiv.InvalidTag):
        c.decrypt_into(NONCE, sealed, None, memoryview(sealed)[:-16])
    assert sealed == tampered


def test_invalid_tag_is_our_own_class() -> None:
    """gcmsiv does not depend on pyca, so its InvalidTag is a separate Exception subclass."""
    assert issubclass(gcmsiv.InvalidTag, Exception)
    assert gcmsiv.InvalidTag is not cryptography.exceptions.InvalidTag
    assert gcmsiv.InvalidTag.__module__ == "gcmsiv"
    c = gcmsiv.AESGCMSIV(bytes(16))
    with pytest.raises(gcmsiv.InvalidTag) as info:
        c.decrypt(NONCE, bytes(16), None)
    assert str(info.value) == ""  # nothing said about why


@pytest.mark.parametrize("name", ["AESGCMSIV", "AESGCM"])
def test_extras(name: str) -> None:
    """Batch and nonce-managed calls are ours only; the pyca API is all there too."""
    ours, theirs = getattr(gcmsiv, name), getattr(aead, name)
    extra = {m for m in dir(ours) if not m.startswith("_")} - {
        m for m in dir(theirs) if not m.startswith("_")
    }
    assert extra == {
        "encrypt_many",
        "decrypt_many",
        "encrypt_random_nonce",
        "decrypt_random_nonce",
        "encrypt_random_nonce_many",
        "decrypt_random_nonce_many",
    }
