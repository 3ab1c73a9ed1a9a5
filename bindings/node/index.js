'use strict';
// gcmsiv for Node.js: AES-GCM-SIV (RFC 8452) and AES-GCM (NIST SP 800-38D).
// The native addon (built from src/lib.rs; loader.js finds the one for this
// platform) does the work; this file checks arguments and turns the addon's
// errors into GcmsivErrors.

const { loadAddon } = require('./loader.js');

const native = loadAddon();

const EMPTY = new Uint8Array(0);

/** Every error this package raises; `code` says which (ERR_GCMSIV_*). */
class GcmsivError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'GcmsivError';
    this.code = code;
  }
}

// The addon's errors ("ERR_GCMSIV_X: message") as GcmsivErrors.
function mapped(err) {
  const m = /^(ERR_GCMSIV_[A-Z_]+): (.*)$/s.exec(err && err.message);
  return m ? new GcmsivError(m[1], m[2]) : err;
}

function rethrow(err) {
  throw mapped(err);
}

const Shared = typeof SharedArrayBuffer === 'function' ? SharedArrayBuffer : function None() {};

// A Uint8Array over the value's bytes. Memory another thread may write (a
// SharedArrayBuffer) is copied first: the addon reads its inputs as
// unchanging for the length of a call.
function bytes(value, name) {
  let view;
  if (value instanceof Uint8Array) view = value;
  else if (ArrayBuffer.isView(value)) view = new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  else if (value instanceof ArrayBuffer || value instanceof Shared) view = new Uint8Array(value);
  else throw new TypeError(`${name} must be a Buffer, TypedArray, DataView or ArrayBuffer`);
  return view.buffer instanceof Shared ? Uint8Array.from(view) : view;
}

function backendName(backend) {
  if (typeof backend !== 'string') throw new TypeError('options.backend must be a string');
  return backend;
}

class Aead {
  #key;

  constructor(algorithm, key, tagLength, backend) {
    try {
      this.#key = new native.NativeKey(algorithm, bytes(key, 'key'), tagLength, backend);
    } catch (err) {
      rethrow(err);
    }
  }

  /** The code this key runs on: a name from backends() ("portable", "aesni-clmul", ...). */
  get backend() {
    try {
      return this.#key.backend;
    } catch (err) {
      return rethrow(err);
    }
  }

  /**
   * The widest vector registers this key's code uses on this CPU: 64
   * (portable), 128 (aesni-clmul, armv8-aes-pmull), 256 or 512 (aesni-vaes).
   */
  get backendBits() {
    try {
      return this.#key.backendBits;
    } catch (err) {
      return rethrow(err);
    }
  }

  /** The backend with its width, as "aesni-vaes (512-bit)". */
  get backendDescription() {
    return `${this.backend} (${this.backendBits}-bit)`;
  }

  /** Bytes a sealed message adds: the tag. */
  get tagLength() {
    try {
      return this.#key.tagLength;
    } catch (err) {
      return rethrow(err);
    }
  }

  /** Returns ciphertext || tag (a new Buffer). */
  encrypt(nonce, plaintext, aad = EMPTY) {
    try {
      return this.#key.seal(bytes(nonce, 'nonce'), bytes(plaintext, 'plaintext'), bytes(aad, 'aad'));
    } catch (err) {
      return rethrow(err);
    }
  }

  /**
   * Returns the plaintext of ciphertext || tag (a new Buffer). Throws a
   * GcmsivError with code ERR_GCMSIV_AUTHENTICATION if it is not authentic,
   * and no plaintext is released.
   */
  decrypt(nonce, sealed, aad = EMPTY) {
    try {
      return this.#key.open(bytes(nonce, 'nonce'), bytes(sealed, 'ciphertext'), bytes(aad, 'aad'));
    } catch (err) {
      return rethrow(err);
    }
  }

  /**
   * encrypt() on libuv's thread pool, for large messages that would block
   * the event loop: the inputs are copied at once (reuse them freely), and
   * the promise resolves to ciphertext || tag.
   */
  encryptAsync(nonce, plaintext, aad = EMPTY) {
    try {
      return this.#key.sealAsync(bytes(nonce, 'nonce'), bytes(plaintext, 'plaintext'), bytes(aad, 'aad')).catch(rethrow);
    } catch (err) {
      return Promise.reject(mapped(err));
    }
  }

  /** decrypt() on libuv's thread pool, as encryptAsync(); rejects as decrypt() throws. */
  decryptAsync(nonce, sealed, aad = EMPTY) {
    try {
      return this.#key.openAsync(bytes(nonce, 'nonce'), bytes(sealed, 'ciphertext'), bytes(aad, 'aad')).catch(rethrow);
    } catch (err) {
      return Promise.reject(mapped(err));
    }
  }

  /**
   * Seals many messages under this key in one call: items are
   * { nonce, plaintext, aad? }; returns ciphertext || tag for each. For
   * AES-GCM-SIV keys several short messages' set-up runs interleaved.
   * Misuse anywhere fails the whole call.
   */
  encryptMany(items) {
    const [nonces, data, aads] = unzip(items, 'plaintext');
    try {
      return this.#key.sealMany(nonces, data, aads);
    } catch (err) {
      return rethrow(err);
    }
  }

  /**
   * Opens many messages in one call: items are { nonce, ciphertext, aad? };
   * returns each plaintext, or null where a message was not authentic (or shorter than a tag).
   */
  decryptMany(items) {
    const [nonces, data, aads] = unzip(items, 'ciphertext');
    try {
      return this.#key.openMany(nonces, data, aads);
    } catch (err) {
      return rethrow(err);
    }
  }

  /**
   * Seals under a fresh random nonce from the operating system: returns
   * nonce || ciphertext || tag (28 bytes more than the plaintext with 16-byte
   * tags), so the caller never handles a nonce. With AES-GCM-SIV this is safe
   * far past AES-GCM's 2^32 messages per key (RFC 8452 section 9; see the
   * README).
   */
  encryptRandomNonce(plaintext, aad = EMPTY) {
    try {
      return this.#key.sealRandom(bytes(plaintext, 'plaintext'), bytes(aad, 'aad'));
    } catch (err) {
      return rethrow(err);
    }
  }

  /**
   * Opens what encryptRandomNonce returned. Anything not authentic (shorter
   * than a nonce and a tag included) throws ERR_GCMSIV_AUTHENTICATION, and no
   * plaintext is released.
   */
  decryptRandomNonce(sealed, aad = EMPTY) {
    try {
      return this.#key.openRandom(bytes(sealed, 'sealed'), bytes(aad, 'aad'));
    } catch (err) {
      return rethrow(err);
    }
  }

  /**
   * encryptRandomNonce for many messages in one call: items are
   * { plaintext, aad? }; the nonces come from one system call, and AES-GCM-SIV
   * keys run the batch path.
   */
  encryptRandomNonceMany(items) {
    const [data, aads] = unzipRandom(items, 'plaintext');
    try {
      return this.#key.sealRandomMany(data, aads);
    } catch (err) {
      return rethrow(err);
    }
  }

  /** decryptRandomNonce for many: items are { sealed, aad? }; null where not authentic. */
  decryptRandomNonceMany(items) {
    const [data, aads] = unzipRandom(items, 'sealed');
    try {
      return this.#key.openRandomMany(data, aads);
    } catch (err) {
      return rethrow(err);
    }
  }

  /** Drops the key now; its key material is zeroized. The object is unusable after. */
  dispose() {
    this.#key.dispose();
  }
}

function unzip(items, field) {
  if (!Array.isArray(items)) throw new TypeError('items must be an array');
  const nonces = new Array(items.length);
  const data = new Array(items.length);
  const aads = new Array(items.length);
  items.forEach((item, i) => {
    nonces[i] = bytes(item.nonce, `items[${i}].nonce`);
    data[i] = bytes(item[field], `items[${i}].${field}`);
    aads[i] = item.aad === undefined ? EMPTY : bytes(item.aad, `items[${i}].aad`);
  });
  return [nonces, data, aads];
}

function unzipRandom(items, field) {
  if (!Array.isArray(items)) throw new TypeError('items must be an array');
  const data = items.map((item, i) => bytes(item[field], `items[${i}].${field}`));
  const aads = items.map((item, i) => (item.aad === undefined ? EMPTY : bytes(item.aad, `items[${i}].aad`)));
  return [data, aads];
}

/**
 * AES-GCM-SIV (RFC 8452) with a 16- or 32-byte key: a repeated nonce reveals
 * only whether two messages (with their aad) were identical. Nonces are 12
 * bytes, tags 16. Options: { backend: 'auto' or a name from backends() }.
 */
class AesGcmSiv extends Aead {
  constructor(key, { backend = 'auto' } = {}) {
    super('aes-gcm-siv', key, 16, backendName(backend));
  }
}

/**
 * AES-GCM (NIST SP 800-38D) with a 16- or 32-byte key: never repeat a nonce.
 * Nonces of any length from 1 byte (12 is the one to use). Options:
 * { tagLength: 12..16 (default 16), backend }.
 */
class AesGcm extends Aead {
  constructor(key, { tagLength = 16, backend = 'auto' } = {}) {
    if (!Number.isInteger(tagLength)) throw new TypeError('options.tagLength must be an integer');
    if (tagLength < 12 || tagLength > 16) {
      throw new GcmsivError('ERR_GCMSIV_TAG_LENGTH', `invalid tag length: expected 12 to 16 bytes, got ${tagLength}`);
    }
    super('aes-gcm', key, tagLength, backendName(backend));
  }
}

/**
 * The backends this library knows, by name, portable first (the native
 * library's list); `available` says whether this CPU runs each.
 */
function backends() {
  return native.backendNames().map((name) => {
    let available = true;
    try {
      new native.NativeKey('aes-gcm-siv', Buffer.alloc(16), 16, name).dispose();
    } catch (err) {
      const e = mapped(err);
      if (e.code !== 'ERR_GCMSIV_BACKEND_UNAVAILABLE') throw e;
      available = false;
    }
    return { name, available };
  });
}

module.exports = { AesGcmSiv, AesGcm, GcmsivError, backends };

// Encrypted streams and files (stream.js).
Object.assign(module.exports, require('./stream.js')({ native, GcmsivError, mapped, bytes }));
