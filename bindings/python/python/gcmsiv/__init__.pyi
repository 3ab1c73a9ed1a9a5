"""AES-GCM-SIV (RFC 8452) and AES-GCM, with the API of pyca/cryptography's AEAD classes."""

from collections.abc import Iterable
from typing import Self, final

from typing_extensions import Buffer

__version__: str
__all__ = ["AESGCM", "AESGCMSIV", "InvalidTag", "__version__", "backend", "backend_bits"]

class InvalidTag(Exception):
    """Authentication failed. Raised for every decryption failure, with no detail."""

def backend() -> str:
    """The backend a new key runs on: ``"aesni-vaes"``, ``"aesni-clmul"`` or ``"portable"``."""

def backend_bits() -> int:
    """Its widest vector registers on this CPU: 64, 128, 256 or 512."""

# (nonce, data, associated_data), as the arguments of encrypt and decrypt.
_Item = tuple[Buffer, Buffer, Buffer | None]

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
