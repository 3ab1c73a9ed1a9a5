'use strict';
// Encrypted streams and files in the gcmsiv format (docs/FORMAT.md): the
// STREAM chunks of the `gcmsiv` tool, readable and writable from Node.js.
//
// - createEncryptStream(options) / createDecryptStream(options): Transforms
//   (plaintext in, file out; file in, authenticated plaintext out).
// - openEncryptedFile(pathOrFileHandle, options): random access, reading and
//   authenticating only the chunks a read touches.
// - encryptFile / decryptFile: whole files through stream.pipeline.
//
// The chunk logic is the Rust library's (src/stream.rs); this file only moves
// bytes. Sealing and opening (and Argon2id for a passphrase) run on libuv's
// thread pool, so the event loop stays free while a large file goes through.

const fs = require('node:fs');
const fsp = require('node:fs/promises');
const { Transform, pipeline } = require('node:stream');
const { promisify } = require('node:util');

const pipelineAsync = promisify(pipeline);

// index.js hands over what it shares: the addon, the error class, the
// mapping of the addon's errors, and the view of byte arguments.
module.exports = function streams({ native, GcmsivError, mapped, bytes }) {

  function fail(code, message) {
    return new GcmsivError(code, message);
  }

  // The secret in the form the addon takes: ['key', 32 bytes],
  // ['passphrase', its UTF-8 bytes], ['recipients' or 'mixedRecipients', a
  // recipients file's text] or ['identities', an identity file's text]. A
  // string's bytes are a copy of ours, wiped by wipeSecret() once the addon
  // has its own.
  function secretOf(options) {
    if (options === null || typeof options !== 'object') throw new TypeError('options must be an object');
    const { key, passphrase, recipients, identities, allowMixedRecipients = false } = options;
    const given = [key, passphrase, recipients, identities].filter((v) => v !== undefined).length;
    if (given !== 1) {
      throw new TypeError('options must give exactly one of key, passphrase, recipients and identities');
    }
    if (typeof allowMixedRecipients !== 'boolean') throw new TypeError('options.allowMixedRecipients must be a boolean');
    if (allowMixedRecipients && recipients === undefined) {
      throw new TypeError('options.allowMixedRecipients applies only to recipients');
    }
    if (recipients !== undefined) {
      const list = typeof recipients === 'string' ? [recipients] : recipients;
      if (!Array.isArray(list) || !list.every((r) => typeof r === 'string')) {
        throw new TypeError('options.recipients must be a string or an array of strings');
      }
      const kind = allowMixedRecipients ? 'mixedRecipients' : 'recipients';
      return { kind, bytes: Buffer.from(list.join('\n'), 'utf8'), owned: false };
    }
    if (identities !== undefined) {
      if (typeof identities === 'string') return { kind: 'identities', bytes: Buffer.from(identities, 'utf8'), owned: true };
      return { kind: 'identities', bytes: bytes(identities, 'options.identities'), owned: false };
    }
    if (key !== undefined) {
      const k = bytes(key, 'options.key');
      if (k.length !== 32) {
        throw fail('ERR_GCMSIV_KEY_LENGTH', `invalid key length: expected 32 bytes, got ${k.length}`);
      }
      return { kind: 'key', bytes: k, owned: false };
    }
    if (typeof passphrase === 'string') return { kind: 'passphrase', bytes: Buffer.from(passphrase, 'utf8'), owned: true };
    return { kind: 'passphrase', bytes: bytes(passphrase, 'options.passphrase'), owned: false };
  }

  function wipeSecret(secret) {
    if (secret.owned) secret.bytes.fill(0);
  }

  // Writer options: chunkSize (bytes, a power of two from 1 KiB to 1 MiB,
  // default 64 KiB), algorithm ('aes256' default, or 'aes128'), and for a
  // passphrase the Argon2id cost { memoryKib, iterations, lanes } (default
  // RFC 9106's second recommendation: 65536, 3, 4).
  function writerOptions(options) {
    const { chunkSize = 65536, algorithm = 'aes256', argon2 = {} } = options;
    const { memoryKib = 65536, iterations = 3, lanes = 4 } = argon2;
    for (const [name, value] of [['chunkSize', chunkSize], ['argon2.memoryKib', memoryKib],
      ['argon2.iterations', iterations], ['argon2.lanes', lanes]]) {
      if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) {
        throw new TypeError(`options.${name} must be a non-negative integer`);
      }
    }
    if (typeof algorithm !== 'string') throw new TypeError('options.algorithm must be a string');
    return [chunkSize, algorithm, memoryKib, iterations, lanes];
  }

  function call(promise, callback, then) {
    promise.then((value) => {
      try {
        then(value);
      } catch (err) {
        callback(err);
        return;
      }
      callback();
    }, (err) => callback(mapped(err)));
  }

  /**
   * A Transform taking plaintext and giving a gcmsiv file: the header, then
   * the chunks (a batch of about 2 MiB at a time), the final chunk when the
   * writable side ends. A file cut short of its end is reported truncated by
   * every reader.
   */
  class EncryptStream extends Transform {
    #native;
    #init;

    constructor(options) {
      const secret = secretOf(options);
      const sealer = new native.NativeSealStream();
      let init;
      try {
        init = sealer.init(secret.kind, secret.bytes, ...writerOptions(options));
      } catch (err) {
        throw mapped(err);
      } finally {
        wipeSecret(secret);
      }
      super({ highWaterMark: options.highWaterMark });
      this.#native = sealer;
      this.#init = init;
    }

    _construct(callback) {
      call(this.#init, callback, () => {});
    }

    _transform(chunk, encoding, callback) {
      call(this.#native.push(bytes(chunk, 'chunk')), callback, (out) => {
        if (out.length) this.push(out);
      });
    }

    _flush(callback) {
      call(this.#native.finish(), callback, (out) => this.push(out));
    }

    _destroy(err, callback) {
      this.#native.dispose();
      callback(err);
    }
  }

  /**
   * A Transform taking a gcmsiv file and giving its plaintext, each chunk's
   * only after that chunk authenticated. A failure destroys the stream with a
   * GcmsivError: ERR_GCMSIV_AUTHENTICATION for a wrong key or passphrase or a
   * forged chunk, ERR_GCMSIV_FORMAT for a file that is not whole (not gcmsiv,
   * truncated, reordered, trailing data, ...). What was pushed before is
   * authenticated plaintext of the chunks before the fault.
   */
  class DecryptStream extends Transform {
    #native;

    constructor(options) {
      const secret = secretOf(options);
      let opened;
      try {
        opened = new native.NativeOpenStream(secret.kind, secret.bytes);
      } catch (err) {
        throw mapped(err);
      } finally {
        wipeSecret(secret);
      }
      super({ highWaterMark: options.highWaterMark });
      this.#native = opened;
    }

    _transform(chunk, encoding, callback) {
      call(this.#native.push(bytes(chunk, 'chunk')), callback, (out) => {
        if (out.length) this.push(out);
      });
    }

    _flush(callback) {
      try {
        this.#native.finish();
      } catch (err) {
        callback(mapped(err));
        return;
      }
      callback();
    }

    _destroy(err, callback) {
      this.#native.dispose();
      callback(err);
    }
  }

  function createEncryptStream(options) {
    return new EncryptStream(options);
  }

  function createDecryptStream(options) {
    return new DecryptStream(options);
  }

  // Reads exactly `length` bytes at `position`; a file that is shorter now
  // than when it was opened is a format error.
  async function readAt(handle, position, length) {
    const buffer = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const { bytesRead } = await handle.read(buffer, done, length - done, position + done);
      if (bytesRead === 0) throw fail('ERR_GCMSIV_FORMAT', 'file is truncated (it shrank while being read)');
      done += bytesRead;
    }
    return buffer;
  }

  // Plaintext bytes one native open covers at most.
  const READ_PIECE = 16 << 20;

  function checkRange(value, name) {
    if (!Number.isSafeInteger(value)) throw new TypeError(`${name} must be a safe integer`);
    if (value < 0) throw new RangeError(`${name} must not be negative, got ${value}`);
  }

  /**
   * Random access into a gcmsiv file: `size` is the plaintext size (the
   * final chunk, authenticated when the file was opened, fixes it), and
   * `read(offset, length)` resolves to the plaintext bytes there (fewer at
   * the end, none at or past it), reading and authenticating only the chunks
   * they are in. The last chunks opened are kept for the next read.
   */
  class EncryptedFile {
    #handle;
    #owned;
    #access;
    #size;
    #kept = null; // { offset, plaintext } of the chunks opened last

    constructor(handle, owned, access, size) {
      this.#handle = handle;
      this.#owned = owned;
      this.#access = access;
      this.#size = size;
    }

    /** The plaintext size in bytes. */
    get size() {
      return this.#size;
    }

    /** Whether close() was called. */
    get closed() {
      return this.#access === null;
    }

    async read(offset, length) {
      checkRange(offset, 'offset');
      checkRange(length, 'length');
      if (this.#access === null) throw fail('ERR_GCMSIV_CLOSED', 'the encrypted file was closed');
      const n = Math.max(0, Math.min(length, this.#size - offset));
      if (n <= READ_PIECE) return this.#readPiece(offset, n);
      // A long range a piece at a time: the stored bytes in memory at once
      // stay bounded (the result is not).
      const parts = [];
      for (let at = offset; at < offset + n; at += READ_PIECE) {
        parts.push(await this.#readPiece(at, Math.min(READ_PIECE, offset + n - at)));
      }
      return Buffer.concat(parts, n);
    }

    // Plaintext offset..offset + n (within the file), from the chunks kept or
    // from those the range is in, read and opened now.
    async #readPiece(offset, n) {
      const access = this.#access;
      if (access === null) throw fail('ERR_GCMSIV_CLOSED', 'the encrypted file was closed');
      const kept = this.#kept;
      if (kept !== null && offset >= kept.offset && offset + n <= kept.offset + kept.plaintext.length) {
        return Buffer.from(kept.plaintext.subarray(offset - kept.offset, offset - kept.offset + n));
      }
      let span;
      try {
        span = access.span(offset, n);
      } catch (err) {
        throw mapped(err);
      }
      if (span === null) return Buffer.alloc(0);
      const [first, fileOffset, fileLength, skip] = span;
      const stored = await readAt(this.#handle, fileOffset, fileLength);
      let plaintext;
      try {
        plaintext = await access.open(first, stored);
      } catch (err) {
        throw mapped(err);
      }
      this.#kept = { offset: offset - skip, plaintext };
      return Buffer.from(plaintext.subarray(skip, skip + n));
    }

    /** Drops the keys; closes the file if openEncryptedFile opened it. */
    async close() {
      if (this.#access === null) return;
      this.#access.dispose();
      this.#access = null;
      this.#kept = null;
      if (this.#owned) await this.#handle.close();
    }
  }

  /**
   * Opens a gcmsiv file for random access: a path (opened and closed by the
   * EncryptedFile) or an open fs/promises FileHandle (left to its owner).
   * Checks the header with the secret and authenticates the final chunk.
   */
  async function openEncryptedFile(file, options) {
    const secret = secretOf(options);
    let access;
    try {
      access = new native.NativeRandomAccess();
      const owned = !(file && typeof file === 'object' && typeof file.read === 'function' && typeof file.stat === 'function');
      const handle = owned ? await fsp.open(file, 'r') : file;
      try {
        const { size } = await handle.stat();
        // The header's length from its first bytes: 86 for a file to a key
        // or passphrase, longer to recipients.
        let head = await readAt(handle, 0, Math.min(size, 7));
        while (head.length >= 7 && head.length < size) {
          const needed = native.headerNeeded(head);
          if (needed <= head.length) break;
          head = Buffer.concat([head, await readAt(handle, head.length, Math.min(size, needed) - head.length)]);
        }
        try {
          await access.init(head, size, secret.kind, secret.bytes);
        } finally {
          wipeSecret(secret);
        }
        const [at, len] = access.finalChunk();
        const plainSize = await access.verifyFinal(await readAt(handle, at, len));
        return new EncryptedFile(handle, owned, access, plainSize);
      } catch (err) {
        access.dispose();
        if (owned) await handle.close();
        throw err;
      }
    } catch (err) {
      throw mapped(err);
    } finally {
      wipeSecret(secret);
    }
  }

  /** Encrypts the file at `source` into a new file at `destination`. */
  async function encryptFile(source, destination, options) {
    const encrypt = createEncryptStream(options);
    await pipelineAsync(fs.createReadStream(source), encrypt, fs.createWriteStream(destination));
  }

  /**
   * Decrypts the file at `source` into `destination`; on any failure the
   * destination is removed, so that no partial plaintext is left behind.
   */
  async function decryptFile(source, destination, options) {
    const decrypt = createDecryptStream(options);
    try {
      await pipelineAsync(fs.createReadStream(source), decrypt, fs.createWriteStream(destination));
    } catch (err) {
      await fsp.rm(destination, { force: true });
      throw err;
    }
  }

  /** The 32-byte key of a key file's text (`gcmsiv-key-v1:` and 64 hex digits). */
  function parseKeyFile(text) {
    if (typeof text !== 'string') text = Buffer.from(bytes(text, 'text')).toString('utf8');
    try {
      return native.parseKeyFile(text);
    } catch (err) {
      throw mapped(err);
    }
  }

  return {
    createEncryptStream,
    createDecryptStream,
    openEncryptedFile,
    encryptFile,
    decryptFile,
    parseKeyFile,
    /** A new identity: [identity, recipient] strings; kind 'x25519' (default) or 'hybrid'. */
    generateIdentity: (kind = 'x25519') => {
      try {
        return native.generateIdentity(kind);
      } catch (err) {
        throw mapped(err);
      }
    },
    /** The recipient string of one identity string. */
    identityRecipient: (identity) => {
      try {
        return native.identityRecipient(identity);
      } catch (err) {
        throw mapped(err);
      }
    },
    EncryptStream,
    DecryptStream,
    EncryptedFile,
  };
};
