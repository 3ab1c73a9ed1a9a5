'use strict';
// Sealing speed against node:crypto's AES-GCM (OpenSSL), per message size,
// interleaved rounds, medians: node bench/bench.js (after building the addon).

const crypto = require('node:crypto');
const { AesGcmSiv, AesGcm } = require('..');

const key = crypto.randomBytes(16);
const nonce = crypto.randomBytes(12);
const siv = new AesGcmSiv(key);
const gcm = new AesGcm(key);
const impls = {
  'gcmsiv AES-GCM-SIV': (pt) => siv.encrypt(nonce, pt),
  'gcmsiv AES-GCM': (pt) => gcm.encrypt(nonce, pt),
  'node:crypto AES-GCM': (pt) => {
    const c = crypto.createCipheriv('aes-128-gcm', key, nonce);
    return Buffer.concat([c.update(pt), c.final(), c.getAuthTag()]);
  },
};

const median = (v) => v.sort((a, b) => a - b)[v.length >> 1];
console.log(`| bytes | ${Object.keys(impls).join(' ns | ')} ns | gcmsiv AES-GCM vs node:crypto |`);
console.log(`|---|${Object.keys(impls).map(() => '---|').join('')}---|`);
for (const size of [16, 64, 1024, 16384, 1 << 20]) {
  const pt = crypto.randomBytes(size);
  const iters = Math.max(1, Math.floor(2e6 / (size + 500)));
  const samples = Object.fromEntries(Object.keys(impls).map((k) => [k, []]));
  for (let round = 0; round < 15; round++) {
    for (const [name, f] of Object.entries(impls)) {
      const t = process.hrtime.bigint();
      for (let i = 0; i < iters; i++) f(pt);
      samples[name].push(Number(process.hrtime.bigint() - t) / iters);
    }
  }
  const m = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
  const cells = Object.values(m).map((x) => x.toFixed(0)).join(' | ');
  console.log(`| ${size} | ${cells} | ${(m['node:crypto AES-GCM'] / m['gcmsiv AES-GCM']).toFixed(2)}x |`);
}
