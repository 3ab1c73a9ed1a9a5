"""AES-GCM-SIV (RFC 8452) and AES-GCM, with the API of pyca/cryptography's AEAD classes."""

import io
import os
from collections.abc import Iterable
from typing import Any, Literal, Self, final

from typing_extensions import Buffer

__version__: str
__all__ = [
    "AESGCM",
    "AESGCMSIV",
    "GcmsivFile",
    "InvalidTag",
    "__version__",
    "backend",
    "backend_bits",
    "backends",
    "generate_identity",
    "identity_recipient",
    "open",
]

class InvalidTag(Exception):
    """Authentication failed. Raised for every decryption failure, with no detail."""

def backend() -> str:
    """The backend a new key runs on: ``"aesni-vaes"``, ``"aesni-clmul"``,
    ``"armv8-aes-pmull"`` or ``"portable"``."""

def backend_bits() -> int:
    """Its widest vector registers on this CPU: 64, 128, 256 or 512."""

def backends() -> list[tuple[str, bool]]:
    """Every backend this library knows, portable first, as ``(name, available)`` pairs."""

# (nonce, data, associated_data), as the arguments of encrypt and decrypt.
_Item = tuple[Buffer, Buffer, Buffer | None]
# (data, associated_data) and (sealed, associated_data), for the nonce-managed batches.
_RandomItem = tuple[Buffer, Buffer | None]

@final
class AESGCMSIV:
    """AES-GCM-SIV (RFC 8452) with a 16- or 32-byte key: a drop-in for pyca's AESGCMSIV."""

    def __new__(cls, key: Buffer) -> Self: ...
    @staticmethod
    def generate_key(bit_length: int) -> bytes: ...
    def encrypt(self, nonce: Buffer, data: Buffer, associated_data: Buffer | None) -> bytes: ...
    def decrypt(self, nonce: Buffer, data: Buffer, associated_data: Buffer | None) -> bytes: ...
    def encrypt_into(
        self, nonce: Buffer, data: Buffer, associated_data: Buffer | None, buf: Buffer
    ) -> int: ...
    def decrypt_into(
        self, nonce: Buffer, data: Buffer, associated_data: Buffer | None, buf: Buffer
    ) -> int: ...
    def encrypt_many(self, items: Iterable[_Item]) -> list[bytes]: ...
    def decrypt_many(self, items: Iterable[_Item]) -> list[bytes | None]: ...
    def encrypt_random_nonce(self, data: Buffer, associated_data: Buffer | None) -> bytes:
        """Seals under a fresh random nonce; returns nonce || ciphertext || tag."""
    def decrypt_random_nonce(self, sealed: Buffer, associated_data: Buffer | None) -> bytes:
        """Opens what encrypt_random_nonce returned; InvalidTag if anything is wrong."""
    def encrypt_random_nonce_many(self, items: Iterable[_RandomItem]) -> list[bytes]: ...
    def decrypt_random_nonce_many(self, items: Iterable[_RandomItem]) -> list[bytes | None]: ...

@final
class AESGCM:
    """AES-GCM with a 16- or 32-byte key and 16-byte tags: a drop-in for pyca's AESGCM."""

    def __new__(cls, key: Buffer) -> Self: ...
    @staticmethod
    def generate_key(bit_length: int) -> bytes: ...
    def encrypt(self, nonce: Buffer, data: Buffer, associated_data: Buffer | None) -> bytes: ...
    def decrypt(self, nonce: Buffer, data: Buffer, associated_data: Buffer | None) -> bytes: ...
    def encrypt_into(
        self, nonce: Buffer, data: Buffer, associated_data: Buffer | None, buf: Buffer
    ) -> int: ...
    def decrypt_into(
        self, nonce: Buffer, data: Buffer, associated_data: Buffer | None, buf: Buffer
    ) -> int: ...
    def encrypt_many(self, items: Iterable[_Item]) -> list[bytes]: ...
    def decrypt_many(self, items: Iterable[_Item]) -> list[bytes | None]: ...
    def encrypt_random_nonce(self, data: Buffer, associated_data: Buffer | None) -> bytes:
        """Seals under a fresh random nonce; returns nonce || ciphertext || tag."""
    def decrypt_random_nonce(self, sealed: Buffer, associated_data: Buffer | None) -> bytes:
        """Opens what encrypt_random_nonce returned; InvalidTag if anything is wrong."""
    def encrypt_random_nonce_many(self, items: Iterable[_RandomItem]) -> list[bytes]: ...
    def decrypt_random_nonce_many(self, items: Iterable[_RandomItem]) -> list[bytes | None]: ...

_Path = str | bytes | os.PathLike[str] | os.PathLike[bytes]

def open(
    file: _Path | Any,
    mode: Literal["rb", "r", "wb", "w", "xb", "x"] = "rb",
    *,
    key: Buffer | None = None,
    key_file: _Path | None = None,
    passphrase: str | bytes | None = None,
    recipients: str | Iterable[str] | None = None,
    identities: str | bytes | None = None,
    allow_mixed_recipients: bool = False,
    chunk_size: int | None = None,
    algorithm: Literal["aes256", "aes128"] = "aes256",
    argon2_memory_kib: int | None = None,
    argon2_iterations: int | None = None,
    argon2_lanes: int | None = None,
) -> GcmsivFile:
    """Opens a gcmsiv encrypted file (docs/FORMAT.md) for reading or writing, as gzip.open."""

def generate_identity(kind: Literal["x25519", "hybrid"] = "x25519") -> tuple[str, str]:
    """A new identity: ``(identity, recipient)`` strings (``"hybrid"``: ML-KEM-768 + X25519)."""

def identity_recipient(identity: str) -> str:
    """The recipient string of one identity string."""

class GcmsivFile(io.BufferedIOBase):
    """A gcmsiv encrypted file, read or written as plaintext; see gcmsiv.open."""

    mode: str
    name: Any
    def __init__(
        self,
        file: _Path | Any,
        mode: Literal["rb", "r", "wb", "w", "xb", "x"] = "rb",
        *,
        key: Buffer | None = None,
        key_file: _Path | None = None,
        passphrase: str | bytes | None = None,
        recipients: str | Iterable[str] | None = None,
        identities: str | bytes | None = None,
        allow_mixed_recipients: bool = False,
        chunk_size: int | None = None,
        algorithm: Literal["aes256", "aes128"] = "aes256",
        argon2_memory_kib: int | None = None,
        argon2_iterations: int | None = None,
        argon2_lanes: int | None = None,
    ) -> None: ...
    def read(self, size: int | None = -1) -> bytes: ...
    def read1(self, size: int = -1) -> bytes: ...
    def readinto(self, b: Buffer) -> int: ...
    def readinto1(self, b: Buffer) -> int: ...
    def peek(self, size: int = 0) -> bytes: ...
    def readline(self, size: int | None = -1) -> bytes: ...
    def seek(self, offset: int, whence: int = 0) -> int: ...
    def tell(self) -> int: ...
    def write(self, data: Buffer) -> int: ...
    def __enter__(self) -> Self: ...
