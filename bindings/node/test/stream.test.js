'use strict';
// Encrypted streams and files: every vector of vectors/format/manifest.txt
// through the streaming reader and the random-access reader (released bytes
// compared), round trips at every chunk boundary fed in odd pieces, and every
// kind of damage (truncation, bit flips, reordering, trailing data).

const test = require('node:test');
const assert = require('node:assert');
const crypto = require('node:crypto');
const fs = require('node:fs');
const fsp = require('node:fs/promises');
const os = require('node:os');
const path = require('node:path');
const { Readable } = require('node:stream');
const gcmsiv = require('..');

const {
  createEncryptStream, createDecryptStream, openEncryptedFile, encryptFile, decryptFile, parseKeyFile,
  generateIdentity, identityRecipient,
  GcmsivError,
} = gcmsiv;

const vectors = path.join(process.env.GCMSIV_VECTORS || path.join(__dirname, '..', '..', '..', 'vectors'), 'format');
const KEY = Buffer.alloc(32, 0x5a);
const CHEAP = { memoryKib: 64, iterations: 1, lanes: 1 };
const PIECES = [1, 1000, 7, 65537, 13, 4096];

// Feeds `data` to a Transform in pieces of the sizes `pieces` rotates
// through; resolves to { out, error }: everything the stream released before
// it ended or failed.
function run(transform, data, pieces = [data.length || 1]) {
  return new Promise((resolve) => {
    const released = [];
    let error = null;
    transform.on('data', (chunk) => released.push(chunk));
    transform.on('error', (err) => {
      error = err;
    });
    transform.on('close', () => resolve({ out: Buffer.concat(released), error }));
    let at = 0;
    let k = 0;
    const feed = () => {
      while (at < data.length) {
        const piece = data.subarray(at, at + pieces[k++ % pieces.length]);
        at += piece.length;
        if (!transform.write(piece)) {
          transform.once('drain', feed);
          return;
        }
      }
      transform.end();
    };
    feed();
  });
}

async function encrypt(data, options, pieces) {
  const { out, error } = await run(createEncryptStream(options), data, pieces);
  assert.ifError(error);
  return out;
}

// A FileHandle-like object over a Buffer that counts the bytes read.
function memoryHandle(file) {
  const handle = {
    bytesRead: 0,
    async stat() {
      return { size: file.length };
    },
    async read(buffer, offset, length, position) {
      const n = Math.max(0, Math.min(length, file.length - position));
      file.copy(buffer, offset, position, position + n);
      handle.bytesRead += n;
      return { bytesRead: n, buffer };
    },
  };
  return handle;
}

function manifest(name = 'manifest.txt') {
  const text = fs.readFileSync(path.join(vectors, name), 'utf8');
  return text.split(/\n\s*\n/).map((block) => {
    const v = {};
    for (const line of block.split('\n')) {
      const m = /^(\w+) = (.*)$/.exec(line);
      if (m) v[m[1]] = m[2];
    }
    return v;
  }).filter((v) => v.file);
}

function secretOf(v) {
  if (v.identity) {
    return { identities: v.identity.split(',').map((n) => fs.readFileSync(path.join(vectors, n.trim()), 'utf8')).join('\n') };
  }
  if (v.key) return { key: parseKeyFile(fs.readFileSync(path.join(vectors, v.key), 'utf8')) };
  return { passphrase: v.passphrase };
}

function released(spec) {
  if (spec === 'nothing') return Buffer.alloc(0);
  const m = /^(.*)\[\.\.(\d+)\]$/.exec(spec);
  assert.ok(m, `released = ${spec}`);
  return fs.readFileSync(path.join(vectors, m[1])).subarray(0, Number(m[2]));
}

const isAuthentication = (message) =>
  /wrong (key|passphrase)|failed authentication|no identity matched|MAC does not verify/.test(message);

test('every vector of the format manifest, through both readers', async () => {
  const list = manifest();
  assert.ok(list.length >= 13, 'the manifest was read');
  // Files to recipients (format version 2), but the ASCII-armored ones: armor
  // is the tool's and the Rust library's; this package reads the binary format.
  const v2 = manifest('recipients.txt').filter((v) => !v.file.endsWith('.asc'));
  assert.ok(v2.length >= 15, 'recipients.txt was read');
  list.push(...v2);
  for (const v of list) {
    const name = `${v.file} (${v.key || 'passphrase'})`;
    const file = fs.readFileSync(path.join(vectors, v.file));
    const options = secretOf(v);
    for (const pieces of [[file.length || 1], [1], [7, 1000]]) {
      const { out, error } = await run(createDecryptStream(options), file, pieces);
      if (v.plaintext) {
        assert.ifError(error);
        assert.deepStrictEqual(out, fs.readFileSync(path.join(vectors, v.plaintext)), name);
      } else {
        assert.ok(error instanceof GcmsivError, `${name}: ${error}`);
        assert.ok(error.message.includes(v.error), `${name}: ${error.message}`);
        assert.strictEqual(error.code, isAuthentication(v.error) ? 'ERR_GCMSIV_AUTHENTICATION' : 'ERR_GCMSIV_FORMAT');
        assert.deepStrictEqual(out, released(v.released), `${name}: released bytes, pieces ${pieces}`);
      }
    }
    // Random access: the whole plaintext and some ranges; a bad file fails
    // when opened or on the first read, and gives no byte.
    let got = null;
    let error = null;
    try {
      const reader = await openEncryptedFile(memoryHandle(file), options);
      got = await reader.read(0, reader.size + 10);
      if (v.plaintext) {
        const want = fs.readFileSync(path.join(vectors, v.plaintext));
        assert.strictEqual(reader.size, want.length);
        for (const [at, n] of [[0, 1], [1, 1023], [1000, 100], [1023, 2], [Math.max(0, want.length - 1), 5], [want.length, 1]]) {
          assert.deepStrictEqual(await reader.read(at, n), want.subarray(at, at + n), `${name} at ${at}`);
        }
      }
      await reader.close();
    } catch (err) {
      error = err;
    }
    if (v.plaintext) {
      assert.ifError(error);
      assert.deepStrictEqual(got, fs.readFileSync(path.join(vectors, v.plaintext)), name);
    } else {
      assert.strictEqual(got, null, `${name}: random access released bytes`);
      assert.ok(error instanceof GcmsivError, `${name}: ${error}`);
      assert.strictEqual(error.code, isAuthentication(error.message) ? 'ERR_GCMSIV_AUTHENTICATION' : 'ERR_GCMSIV_FORMAT');
      if (isAuthentication(v.error)) assert.strictEqual(error.code, 'ERR_GCMSIV_AUTHENTICATION', name);
    }
  }
});

test('round trips: empty, one, two and many chunks, odd pieces, both readers', async () => {
  const C = 1024;
  for (const size of [0, 1, C - 1, C, C + 1, 2 * C, 2 * C + 1, 37 * C + 501, 3 * 1024 * 1024 + 17]) {
    const plaintext = crypto.randomBytes(size);
    for (const algorithm of ['aes256', 'aes128']) {
      const file = await encrypt(plaintext, { key: KEY, chunkSize: C, algorithm }, PIECES);
      const chunks = Math.max(1, Math.ceil(size / C) + (size % C === 0 && size > 0 ? 1 : 0));
      assert.ok(file.length >= size + 86 + 20, `size ${size}`);
      assert.ok(chunks >= 1);
      const { out, error } = await run(createDecryptStream({ key: KEY }), file, [3, 5000, 1]);
      assert.ifError(error);
      assert.ok(out.equals(plaintext), `stream, size ${size} ${algorithm}`);
      const reader = await openEncryptedFile(memoryHandle(file), { key: KEY });
      assert.strictEqual(reader.size, size);
      assert.ok((await reader.read(0, size)).equals(plaintext));
      for (let i = 0; i < 20; i++) {
        const at = crypto.randomInt(size + 2);
        const n = crypto.randomInt(3 * C);
        assert.ok((await reader.read(at, n)).equals(plaintext.subarray(at, at + n)), `read(${at}, ${n}) of ${size}`);
      }
      await reader.close();
    }
  }
});

test('a passphrase, at a given Argon2id cost and chunk size', async () => {
  const plaintext = crypto.randomBytes(5000);
  const file = await encrypt(plaintext, { passphrase: 'hunter2 but longer', chunkSize: 2048, argon2: CHEAP }, [999]);
  const { out, error } = await run(createDecryptStream({ passphrase: Buffer.from('hunter2 but longer') }), file);
  assert.ifError(error);
  assert.ok(out.equals(plaintext));
  const wrong = await run(createDecryptStream({ passphrase: 'hunter3 but longer' }), file);
  assert.strictEqual(wrong.error.code, 'ERR_GCMSIV_AUTHENTICATION');
  assert.strictEqual(wrong.out.length, 0);
  const keyed = await run(createDecryptStream({ key: KEY }), file);
  assert.strictEqual(keyed.error.code, 'ERR_GCMSIV_FORMAT');
  assert.match(keyed.error.message, /encrypted with a passphrase/);
  const reader = await openEncryptedFile(memoryHandle(file), { passphrase: 'hunter2 but longer' });
  assert.ok((await reader.read(4000, 2000)).equals(plaintext.subarray(4000)));
});

// What a reader must do with a damaged file: fail, having released only the
// plaintext of whole chunks before the damage (a prefix, at a chunk boundary).
async function damaged(file, plaintext, C, what) {
  const { out, error } = await run(createDecryptStream({ key: KEY }), file, [1000, 1, 77]);
  assert.ok(error instanceof GcmsivError, `${what}: ${error}`);
  assert.ok(['ERR_GCMSIV_AUTHENTICATION', 'ERR_GCMSIV_FORMAT'].includes(error.code), `${what}: ${error.code}`);
  assert.ok(out.equals(plaintext.subarray(0, out.length)) && out.length % C === 0, `${what}: released ${out.length}`);
  let reader = null;
  try {
    reader = await openEncryptedFile(memoryHandle(file), { key: KEY });
  } catch (err) {
    assert.ok(err instanceof GcmsivError, `${what}: ${err}`);
    return error;
  }
  // Opened (damage away from the header and the final chunk): reading over
  // the damage fails, and no read returns a byte that is not the plaintext.
  await assert.rejects(reader.read(0, plaintext.length), GcmsivError, what);
  for (let at = 0; at < plaintext.length; at += C) {
    try {
      assert.ok((await reader.read(at, C)).equals(plaintext.subarray(at, at + C)), `${what} at ${at}`);
    } catch (err) {
      assert.ok(err instanceof GcmsivError, `${what}: ${err}`);
    }
  }
  return error;
}

test('truncation, bit flips, reordering and trailing data fail in both readers', async () => {
  const C = 1024;
  const plaintext = crypto.randomBytes(4 * C + 100);
  const file = await encrypt(plaintext, { key: KEY, chunkSize: C });
  const stored = C + 20;
  for (let cut = 0; cut < file.length; cut += cut < 100 ? 1 : 97) {
    const err = await damaged(file.subarray(0, cut), plaintext, C, `cut at ${cut}`);
    assert.strictEqual(err.code, 'ERR_GCMSIV_FORMAT', `cut at ${cut}: ${err.message}`);
  }
  for (let at = 0; at < file.length; at += at < 100 ? 1 : 61) {
    for (const bit of [0x01, 0x80]) {
      const flipped = Buffer.from(file);
      flipped[at] ^= bit;
      await damaged(flipped, plaintext, C, `bit ${bit} of byte ${at}`);
    }
  }
  const swapped = Buffer.from(file);
  file.copy(swapped, 86 + stored, 86 + 2 * stored, 86 + 3 * stored);
  file.copy(swapped, 86 + 2 * stored, 86 + stored, 86 + 2 * stored);
  const err = await damaged(swapped, plaintext, C, 'chunks 1 and 2 swapped');
  assert.strictEqual(err.code, 'ERR_GCMSIV_AUTHENTICATION');
  for (const extra of [Buffer.from([0]), Buffer.from('garbage\n'), file.subarray(86, 86 + stored)]) {
    const longer = Buffer.concat([file, extra]);
    const { out, error } = await run(createDecryptStream({ key: KEY }), longer);
    assert.strictEqual(error.code, 'ERR_GCMSIV_FORMAT');
    assert.match(error.message, /trailing data|truncated/);
    assert.ok(out.equals(plaintext.subarray(0, out.length)));
    await assert.rejects(openEncryptedFile(memoryHandle(longer), { key: KEY }), { code: 'ERR_GCMSIV_FORMAT' });
  }
  // Another file's header in front of this one's chunks.
  const other = await encrypt(plaintext, { key: KEY, chunkSize: C });
  const spliced = Buffer.concat([other.subarray(0, 86), file.subarray(86)]);
  assert.strictEqual((await damaged(spliced, plaintext, C, 'spliced')).code, 'ERR_GCMSIV_AUTHENTICATION');
});

test('random access: a range longer than one piece (16 MiB) comes back whole', async () => {
  const plaintext = crypto.randomBytes(40 * 1024 * 1024 + 3);
  const file = await encrypt(plaintext, { key: KEY, chunkSize: 1 << 20 }, [8 << 20]);
  const reader = await openEncryptedFile(memoryHandle(file), { key: KEY });
  assert.ok((await reader.read(0, plaintext.length + 1)).equals(plaintext));
  assert.ok((await reader.read(12345, 33 << 20)).equals(plaintext.subarray(12345, 12345 + (33 << 20))));
  await reader.close();
});

test('random access reads only the chunks a range is in', async () => {
  const C = 4096;
  const plaintext = crypto.randomBytes(64 * C);
  const file = await encrypt(plaintext, { key: KEY, chunkSize: C });
  const handle = memoryHandle(file);
  const reader = await openEncryptedFile(handle, { key: KEY });
  const opened = handle.bytesRead;
  assert.ok(opened <= 86 + C + 20, `opening read ${opened} bytes`);
  assert.ok((await reader.read(10 * C + 5, 100)).equals(plaintext.subarray(10 * C + 5, 10 * C + 105)));
  assert.strictEqual(handle.bytesRead - opened, C + 20, 'one chunk read');
  assert.ok((await reader.read(10 * C + 200, 100)).equals(plaintext.subarray(10 * C + 200, 10 * C + 300)));
  assert.strictEqual(handle.bytesRead - opened, C + 20, 'the kept chunk served the next read');
  assert.ok((await reader.read(20 * C - 1, 2)).equals(plaintext.subarray(20 * C - 1, 20 * C + 1)));
  assert.strictEqual(handle.bytesRead - opened, 3 * (C + 20), 'a range over two chunks reads two');
});

test('concurrent reads, and streams destroyed while their keys are derived', async () => {
  const C = 1024;
  const plaintext = crypto.randomBytes(50 * C + 7);
  const file = await encrypt(plaintext, { key: KEY, chunkSize: C });
  const reader = await openEncryptedFile(memoryHandle(file), { key: KEY });
  const ranges = Array.from({ length: 64 }, () => [crypto.randomInt(plaintext.length), crypto.randomInt(4 * C)]);
  const got = await Promise.all(ranges.map(([at, n]) => reader.read(at, n)));
  ranges.forEach(([at, n], i) => assert.ok(got[i].equals(plaintext.subarray(at, at + n)), `read(${at}, ${n})`));
  await reader.close();
  for (let i = 0; i < 5; i++) {
    const early = createEncryptStream({ passphrase: 'p', argon2: { memoryKib: 4096, iterations: 2, lanes: 1 } });
    const closed = new Promise((resolve) => early.on('close', resolve));
    early.destroy();
    await closed;
    const decryptor = createDecryptStream({ key: KEY });
    decryptor.write(file);
    decryptor.destroy();
    await new Promise((resolve) => decryptor.on('close', resolve));
  }
});

test('bad arguments, closed readers and reads past the end are clear', async () => {
  const plaintext = crypto.randomBytes(3000);
  const file = await encrypt(plaintext, { key: KEY, chunkSize: 1024 });
  const reader = await openEncryptedFile(memoryHandle(file), { key: KEY });
  await assert.rejects(reader.read(-1, 10), RangeError);
  await assert.rejects(reader.read(0, -10), RangeError);
  await assert.rejects(reader.read(1.5, 10), TypeError);
  assert.strictEqual((await reader.read(3000, 10)).length, 0);
  assert.strictEqual((await reader.read(1e12, 10)).length, 0);
  assert.strictEqual((await reader.read(10, 0)).length, 0);
  assert.deepStrictEqual(await reader.read(2990, 100), plaintext.subarray(2990));
  await reader.close();
  assert.ok(reader.closed);
  await assert.rejects(reader.read(0, 10), { code: 'ERR_GCMSIV_CLOSED' });
  await reader.close();

  assert.throws(() => createEncryptStream({ key: KEY, chunkSize: 1000 }), { code: 'ERR_GCMSIV_INVALID_ARGUMENT' });
  assert.throws(() => createEncryptStream({ key: KEY, chunkSize: 2 * 1024 * 1024 }), { code: 'ERR_GCMSIV_INVALID_ARGUMENT' });
  assert.throws(() => createEncryptStream({ key: KEY, algorithm: 'aes192' }), { code: 'ERR_GCMSIV_INVALID_ARGUMENT' });
  assert.throws(() => createEncryptStream({ passphrase: 'x', argon2: { memoryKib: 4 } }), { code: 'ERR_GCMSIV_INVALID_ARGUMENT' });
  assert.throws(() => createEncryptStream({ key: Buffer.alloc(16) }), { code: 'ERR_GCMSIV_KEY_LENGTH' });
  assert.throws(() => createDecryptStream({ key: KEY, passphrase: 'x' }), TypeError);
  assert.throws(() => createDecryptStream({}), TypeError);
  assert.throws(() => createDecryptStream({ passphrase: '' }), { code: 'ERR_GCMSIV_INVALID_ARGUMENT' });
  assert.throws(() => parseKeyFile('not a key file'), { code: 'ERR_GCMSIV_KEY_FILE' });
  await assert.rejects(openEncryptedFile(memoryHandle(file), { key: Buffer.alloc(32) }), { code: 'ERR_GCMSIV_AUTHENTICATION' });
  await assert.rejects(openEncryptedFile(memoryHandle(Buffer.alloc(0)), { key: KEY }), { code: 'ERR_GCMSIV_FORMAT' });

  // A stream written to after its end, or destroyed, says so (Node's own errors).
  const encryptor = createEncryptStream({ key: KEY });
  encryptor.end();
  await new Promise((resolve) => {
    encryptor.write(Buffer.from('late'), (err) => {
      assert.strictEqual(err.code, 'ERR_STREAM_WRITE_AFTER_END');
      resolve();
    });
    encryptor.on('error', () => {});
    encryptor.resume();
  });
  const decryptor = createDecryptStream({ key: KEY });
  decryptor.destroy();
  await new Promise((resolve) => {
    decryptor.write(file, (err) => {
      assert.strictEqual(err.code, 'ERR_STREAM_DESTROYED');
      resolve();
    });
  });
});

test('files: encryptFile, decryptFile, and a reader on a path or a FileHandle', async () => {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'gcmsiv-node-'));
  try {
    const plaintext = crypto.randomBytes(300 * 1024 + 3);
    const [src, enc, dec] = ['plain', 'plain.gcmsiv', 'back'].map((n) => path.join(dir, n));
    await fsp.writeFile(src, plaintext);
    await encryptFile(src, enc, { key: KEY, chunkSize: 65536 });
    await decryptFile(enc, dec, { key: KEY });
    assert.ok((await fsp.readFile(dec)).equals(plaintext));
    const reader = await openEncryptedFile(enc, { key: KEY });
    assert.ok((await reader.read(200000, 70000)).equals(plaintext.subarray(200000, 270000)));
    await reader.close();
    const handle = await fsp.open(enc, 'r');
    const onHandle = await openEncryptedFile(handle, { key: KEY });
    assert.strictEqual(onHandle.size, plaintext.length);
    await onHandle.close();
    assert.strictEqual((await handle.stat()).size > 0, true, 'a handle given is left open');
    await handle.close();
    // A damaged file leaves no output behind.
    const bytes = await fsp.readFile(enc);
    bytes[bytes.length - 1] ^= 1;
    await fsp.writeFile(enc, bytes);
    await assert.rejects(decryptFile(enc, dec, { key: KEY }), { code: 'ERR_GCMSIV_AUTHENTICATION' });
    assert.strictEqual(fs.existsSync(dec), false);
    // Streams in a pipeline with the CLI's chunk size, from a Readable.
    const piped = await encrypt(Buffer.alloc(0), { key: KEY });
    const back = await run(createDecryptStream({ key: KEY }), piped);
    assert.strictEqual(back.out.length, 0);
    assert.ok(Readable);
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
});

test('the event loop runs while a large stream is sealed', async () => {
  const data = Buffer.alloc(32 * 1024 * 1024, 1);
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  await encrypt(data, { key: KEY }, [4 * 1024 * 1024]);
  clearInterval(timer);
  assert.ok(ticks > 0, 'timers ran during the encryption');
});

test('nonce-managed AEADs: random nonces, 28 bytes of overhead, batches', () => {
  for (const [Cls, keyLen] of [[gcmsiv.AesGcmSiv, 16], [gcmsiv.AesGcmSiv, 32], [gcmsiv.AesGcm, 16], [gcmsiv.AesGcm, 32]]) {
    const aead = new Cls(crypto.randomBytes(keyLen));
    const aad = Buffer.from('header');
    for (const size of [0, 1, 16, 100, 5000]) {
      const pt = crypto.randomBytes(size);
      const a = aead.encryptRandomNonce(pt, aad);
      const b = aead.encryptRandomNonce(pt, aad);
      assert.strictEqual(a.length, size + 28);
      assert.ok(!a.subarray(0, 12).equals(b.subarray(0, 12)), 'fresh nonces');
      assert.deepStrictEqual(aead.decryptRandomNonce(a, aad), pt);
      assert.deepStrictEqual(aead.decrypt(a.subarray(0, 12), a.subarray(12), aad), pt, 'nonce || sealed');
      assert.throws(() => aead.decryptRandomNonce(a, Buffer.from('other')), { code: 'ERR_GCMSIV_AUTHENTICATION' });
      for (const at of [0, 11, 12, a.length - 1]) {
        const bad = Buffer.from(a);
        bad[at] ^= 4;
        assert.throws(() => aead.decryptRandomNonce(bad, aad), { code: 'ERR_GCMSIV_AUTHENTICATION' });
      }
    }
    assert.deepStrictEqual(aead.decryptRandomNonce(aead.encryptRandomNonce(Buffer.from('x'))), Buffer.from('x'));
    for (const n of [0, 1, 12, 27]) {
      assert.throws(() => aead.decryptRandomNonce(Buffer.alloc(n)), { code: 'ERR_GCMSIV_AUTHENTICATION' }, `${n} bytes`);
    }
    const items = [0, 5, 300].map((n) => ({ plaintext: crypto.randomBytes(n), aad: Buffer.from([n & 0xff]) }));
    items.push({ plaintext: Buffer.from('no aad') });
    const sealed = aead.encryptRandomNonceMany(items);
    assert.strictEqual(sealed.length, items.length);
    const forged = Buffer.from(sealed[1]);
    forged[forged.length - 1] ^= 1;
    const opened = aead.decryptRandomNonceMany([
      ...sealed.map((s, i) => ({ sealed: s, aad: items[i].aad })),
      { sealed: forged, aad: items[1].aad },
      { sealed: Buffer.alloc(27) },
    ]);
    items.forEach((it, i) => assert.deepStrictEqual(opened[i], it.plaintext));
    assert.strictEqual(opened[items.length], null);
    assert.strictEqual(opened[items.length + 1], null);
    assert.throws(() => aead.encryptRandomNonceMany('x'), TypeError);
    aead.dispose();
    assert.throws(() => aead.encryptRandomNonce(Buffer.from('x')), { code: 'ERR_GCMSIV_DISPOSED' });
  }
});

test('files to recipients: identities of both kinds, mixed kinds only when asked, random access', async () => {
  const [alice, aliceR] = generateIdentity();
  const [bob, bobR] = generateIdentity('hybrid');
  const [carol] = generateIdentity('x25519');
  assert.match(aliceR, /^gcmsiv1/);
  assert.match(bobR, /^gcmsivpq1/);
  assert.strictEqual(identityRecipient(bob), bobR);
  assert.throws(() => generateIdentity('rsa'), GcmsivError);
  const plaintext = crypto.randomBytes(150000);
  const file = await encrypt(plaintext, { recipients: [aliceR], chunkSize: 4096 }, PIECES);
  const ok = await run(createDecryptStream({ identities: alice }), file, [999]);
  assert.ifError(ok.error);
  assert.deepStrictEqual(ok.out, plaintext);
  const both = await run(createDecryptStream({ identities: `${carol}\n${alice}` }), file, [5000]);
  assert.deepStrictEqual(both.out, plaintext);
  const wrong = await run(createDecryptStream({ identities: carol }), file, [5000]);
  assert.strictEqual(wrong.error.code, 'ERR_GCMSIV_AUTHENTICATION');
  assert.match(wrong.error.message, /no identity matched/);
  assert.strictEqual(wrong.out.length, 0);
  const keyed = await run(createDecryptStream({ key: KEY }), file, [5000]);
  assert.strictEqual(keyed.error.code, 'ERR_GCMSIV_FORMAT');
  const refusal = async (options, direction) => {
    try {
      const make = direction === 'encrypt' ? createEncryptStream : createDecryptStream;
      return (await run(make(options), direction === 'encrypt' ? plaintext : file, [5000])).error;
    } catch (err) {
      return err;
    }
  };
  assert.match(String((await refusal({ recipients: [aliceR, bobR] }, 'encrypt'))?.message), /recipients in one file/);
  const team = await encrypt(plaintext, { recipients: `# team\n${aliceR}\n${bobR}\n`, allowMixedRecipients: true }, PIECES);
  assert.deepStrictEqual((await run(createDecryptStream({ identities: Buffer.from(bob) }), team, [7000])).out, plaintext);
  const reader = await openEncryptedFile(memoryHandle(file), { identities: alice });
  assert.strictEqual(reader.size, plaintext.length);
  assert.deepStrictEqual(await reader.read(70000, 9000), plaintext.subarray(70000, 79000));
  await reader.close();
  assert.match(String((await refusal({ identities: aliceR }, 'decrypt'))?.message), /not a list of identities/);
  assert.match(String((await refusal({ recipients: 'gcmsiv1qqqq' }, 'encrypt'))?.message), /line 1/);
  assert.throws(() => createDecryptStream({ identities: alice, allowMixedRecipients: true }), TypeError);
});
