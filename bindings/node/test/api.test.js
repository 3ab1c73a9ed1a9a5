'use strict';
// The API's contract: input types, misuse, batches, dispose.

const test = require('node:test');
const assert = require('node:assert');
const { AesGcmSiv, AesGcm, GcmsivError, backends } = require('..');

const key = Buffer.alloc(32, 7);
const nonce = Buffer.alloc(12, 1);

test('any byte view in, Buffers out; the same bytes whatever the view', () => {
  const aead = new AesGcmSiv(key);
  const pt = Buffer.from('attack at dawn');
  const sealed = aead.encrypt(nonce, pt, Buffer.from('hdr'));
  assert.ok(Buffer.isBuffer(sealed));
  assert.strictEqual(sealed.length, pt.length + 16);
  const view = new DataView(new Uint8Array([0, ...pt, 0]).buffer, 1, pt.length);
  assert.deepStrictEqual(aead.encrypt(new Uint8Array(nonce), view, new TextEncoder().encode('hdr')), sealed);
  assert.deepStrictEqual(aead.decrypt(nonce.buffer.slice(nonce.byteOffset, nonce.byteOffset + 12), sealed, Buffer.from('hdr')), pt);
  assert.throws(() => aead.encrypt('nonce', pt), TypeError);
  assert.strictEqual(aead.tagLength, 16);
  const names = backends().map((b) => b.name);
  assert.deepStrictEqual(names.slice(0, 4), ['portable', 'aesni-clmul', 'aesni-vaes', 'armv8-aes-pmull']);
  assert.ok(backends()[0].available, 'portable is always available');
  assert.ok(names.includes(aead.backend));
  const widths = { portable: [64], 'aesni-clmul': [128], 'aesni-vaes': [256, 512], 'armv8-aes-pmull': [128] };
  for (const backend of names) {
    let keyed;
    try {
      keyed = new AesGcmSiv(key, { backend });
    } catch (err) {
      assert.strictEqual(err.code, 'ERR_GCMSIV_BACKEND_UNAVAILABLE');
      continue;
    }
    assert.ok(widths[backend].includes(keyed.backendBits), `${backend}: ${keyed.backendBits}`);
    assert.strictEqual(keyed.backendDescription, `${backend} (${keyed.backendBits}-bit)`);
  }
});

test('misuse is a GcmsivError with its code', () => {
  const code = (code) => (err) => err instanceof GcmsivError && err.code === code;
  assert.throws(() => new AesGcmSiv(Buffer.alloc(24)), code('ERR_GCMSIV_KEY_LENGTH'));
  assert.throws(() => new AesGcmSiv(key, { backend: 'quantum' }), code('ERR_GCMSIV_BACKEND_UNAVAILABLE'));
  assert.throws(() => new AesGcm(key, { tagLength: 11 }), code('ERR_GCMSIV_TAG_LENGTH'));
  const aead = new AesGcmSiv(key);
  assert.throws(() => aead.encrypt(Buffer.alloc(11), Buffer.alloc(3)), code('ERR_GCMSIV_NONCE_LENGTH'));
  // Shorter than a tag: the attacker's choice, so the one authentication failure.
  for (const length of [0, 1, 15]) {
    assert.throws(() => aead.decrypt(nonce, Buffer.alloc(length)), code('ERR_GCMSIV_AUTHENTICATION'));
  }
  assert.throws(() => aead.decrypt(Buffer.alloc(11), Buffer.alloc(15)), code('ERR_GCMSIV_NONCE_LENGTH'));
  assert.throws(() => aead.decrypt(nonce, Buffer.alloc(40)), code('ERR_GCMSIV_AUTHENTICATION'));
  aead.dispose();
  assert.throws(() => aead.encrypt(nonce, Buffer.alloc(3)), code('ERR_GCMSIV_DISPOSED'));
  const gcm = new AesGcm(key, { tagLength: 12 });
  const sealed = gcm.encrypt(Buffer.alloc(7), Buffer.from('seven-byte IV'));
  assert.strictEqual(sealed.length, 13 + 12);
  assert.deepStrictEqual(gcm.decrypt(Buffer.alloc(7), sealed).toString(), 'seven-byte IV');
});

test('a repeated nonce reveals only equality (AES-GCM-SIV)', () => {
  const aead = new AesGcmSiv(key);
  const a = aead.encrypt(nonce, Buffer.from('message one'));
  assert.deepStrictEqual(aead.encrypt(nonce, Buffer.from('message one')), a);
  const b = aead.encrypt(nonce, Buffer.from('message two'));
  assert.notDeepStrictEqual(a.subarray(0, 11), b.subarray(0, 11));
});

test('batches: the same bytes as one call each; one bad message does not fail the others', () => {
  for (const aead of [new AesGcmSiv(key), new AesGcm(key), new AesGcm(key.subarray(0, 16), { tagLength: 12 })]) {
    const items = Array.from({ length: 40 }, (_, i) => ({
      nonce: Buffer.alloc(12, i),
      plaintext: Buffer.alloc([0, 16, 32, 64, 100, 1000][i % 6], i),
      aad: i % 3 ? Buffer.alloc(i, 9) : undefined,
    }));
    const sealed = aead.encryptMany(items);
    items.forEach((it, i) => assert.deepStrictEqual(sealed[i], aead.encrypt(it.nonce, it.plaintext, it.aad)));
    sealed[5][0] ^= 1;
    const opened = aead.decryptMany(items.map((it, i) => ({ nonce: it.nonce, ciphertext: sealed[i], aad: it.aad })));
    opened.forEach((pt, i) => (i === 5 ? assert.strictEqual(pt, null) : assert.deepStrictEqual(pt, items[i].plaintext)));
    const bad = items.map((it) => ({ ...it }));
    bad[9].nonce = Buffer.alloc(0);
    assert.throws(() => aead.encryptMany(bad), { code: 'ERR_GCMSIV_NONCE_LENGTH' });
    assert.deepStrictEqual(aead.encryptMany([]), []);
  }
});

test('argument checks, shared memory, other views, dispose', () => {
  assert.throws(() => new AesGcm(key, { tagLength: 12.5 }), TypeError);
  assert.throws(() => new AesGcm(key, { tagLength: '16' }), TypeError);
  assert.throws(() => new AesGcm(key, { tagLength: 2 ** 32 + 16 }), { code: 'ERR_GCMSIV_TAG_LENGTH' });
  assert.throws(() => new AesGcmSiv(key, { backend: 3 }), TypeError);
  const aead = new AesGcmSiv(key);
  const pt = Buffer.from('shared memory is copied first');
  const shared = new Uint8Array(new SharedArrayBuffer(pt.length));
  shared.set(pt);
  const sealed = aead.encrypt(nonce, shared);
  assert.deepStrictEqual(sealed, aead.encrypt(nonce, pt));
  const wide = new Uint16Array(new Uint8Array([...pt, 0]).buffer, 0, pt.length >> 1);
  assert.deepStrictEqual(aead.encrypt(nonce, wide), aead.encrypt(nonce, pt.subarray(0, wide.byteLength)));
  // A ciphertext shorter than a tag in a batch is not authentic, and only it; the others keep
  // their own nonces and associated data (AES-GCM too, with 12-byte tags).
  for (const cipher of [aead, new AesGcm(key, { tagLength: 12 })]) {
    const items = Array.from({ length: 7 }, (_, i) => ({
      nonce: Buffer.alloc(12, i + 1),
      plaintext: Buffer.from(`message ${i}`.repeat(i + 1)),
      aad: Buffer.alloc(i, i),
    }));
    const sealedItems = cipher.encryptMany(items);
    const short = new Set([0, 3, 6]);
    const opened = cipher.decryptMany(items.map((it, i) => ({
      nonce: it.nonce,
      ciphertext: short.has(i) ? sealedItems[i].subarray(0, i) : sealedItems[i],
      aad: it.aad,
    })));
    assert.deepStrictEqual(opened, items.map((it, i) => (short.has(i) ? null : it.plaintext)));
  }
  assert.throws(
    () => aead.decryptMany([{ nonce, ciphertext: sealed }, { nonce: nonce.subarray(1), ciphertext: Buffer.alloc(15) }]),
    { code: 'ERR_GCMSIV_NONCE_LENGTH' },
  );
  aead.dispose();
  for (const use of [() => aead.backend, () => aead.tagLength, () => aead.encryptMany([{ nonce, plaintext: pt }])]) {
    assert.throws(use, { code: 'ERR_GCMSIV_DISPOSED' });
  }
});

test('async calls: the same bytes, rejections with the same codes', async () => {
  const aead = new AesGcmSiv(key);
  const big = Buffer.alloc(3 << 20, 5);
  const sealed = await aead.encryptAsync(nonce, big, Buffer.from('ad'));
  assert.deepStrictEqual(sealed, aead.encrypt(nonce, big, Buffer.from('ad')));
  assert.deepStrictEqual(await aead.decryptAsync(nonce, sealed, Buffer.from('ad')), big);
  sealed[7] ^= 1;
  await assert.rejects(aead.decryptAsync(nonce, sealed, Buffer.from('ad')), { name: 'GcmsivError', code: 'ERR_GCMSIV_AUTHENTICATION' });
  await assert.rejects(aead.encryptAsync(Buffer.alloc(3), big), { code: 'ERR_GCMSIV_NONCE_LENGTH' });
  await assert.rejects(aead.decryptAsync(nonce, Buffer.alloc(15)), { code: 'ERR_GCMSIV_AUTHENTICATION' });
  await assert.rejects(aead.encryptAsync('x', big), TypeError);
  // Disposed while a call is in flight: the call completes on its own reference.
  const pending = aead.encryptAsync(nonce, Buffer.from('late'));
  aead.dispose();
  assert.deepStrictEqual((await pending).length, 4 + 16);
  await assert.rejects(aead.encryptAsync(nonce, Buffer.from('x')), { code: 'ERR_GCMSIV_DISPOSED' });
});
