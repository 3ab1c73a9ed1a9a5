"""AES-GCM-SIV (RFC 8452) and AES-GCM, with the API of pyca/cryptography's AEAD classes.

``AESGCMSIV`` and ``AESGCM`` take the same arguments, return the same bytes and raise the
same exception types as ``cryptography.hazmat.primitives.ciphers.aead``'s classes of the
same names, and add batch calls (``encrypt_many``, ``decrypt_many``) that release the GIL
once for many messages. See the package README for the few deliberate differences.
"""

from gcmsiv._gcmsiv import AESGCM, AESGCMSIV, InvalidTag, __version__, backend, backend_bits, backends

__all__ = ["AESGCM", "AESGCMSIV", "InvalidTag", "__version__", "backend", "backend_bits", "backends"]

# Encrypted files in the gcmsiv format (docs/FORMAT.md), in the manner of gzip.open.
from gcmsiv._stream import GcmsivFile, generate_identity, identity_recipient, open  # noqa: E402

__all__ += ["GcmsivFile", "generate_identity", "identity_recipient", "open"]
