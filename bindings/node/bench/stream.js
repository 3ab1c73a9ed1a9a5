'use strict';
// Streaming throughput through the Node.js binding, beside the Rust library's
// (crates/gcmsiv-stream/examples/throughput.rs, the same shape): MIB MiB
// (default 256) of plaintext in memory through createEncryptStream (written in
// 1 MiB pieces) and createDecryptStream (fed the file in 1 MiB pieces), 64 KiB
// chunks, AES-256-GCM-SIV; best of 3. Then one 64 KiB read at a random
// aligned offset through openEncryptedFile, with the bytes it read.
//
//   node bench/stream.js [MIB]

const { createEncryptStream, createDecryptStream, openEncryptedFile } = require('..');

const KEY = Buffer.alloc(32, 7);
const PIECE = 1 << 20;

function through(stream, data) {
  return new Promise((resolve, reject) => {
    const out = [];
    stream.on('data', (chunk) => out.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(out)));
    stream.on('error', reject);
    let at = 0;
    const feed = () => {
      while (at < data.length) {
        const piece = data.subarray(at, at + PIECE);
        at += piece.length;
        if (!stream.write(piece)) {
          stream.once('drain', feed);
          return;
        }
      }
      stream.end();
    };
    feed();
  });
}

async function main() {
  const mib = Number(process.argv[2] || 256);
  const plaintext = Buffer.alloc(mib << 20, 0x5a);
  let best = [Infinity, Infinity];
  let file;
  for (let round = 0; round < 3; round++) {
    let start = process.hrtime.bigint();
    file = await through(createEncryptStream({ key: KEY }), plaintext);
    best[0] = Math.min(best[0], Number(process.hrtime.bigint() - start) / 1e9);
    start = process.hrtime.bigint();
    const back = await through(createDecryptStream({ key: KEY }), file);
    best[1] = Math.min(best[1], Number(process.hrtime.bigint() - start) / 1e9);
    if (back.length !== plaintext.length) throw new Error('round trip');
  }
  const mb = plaintext.length / 1e6;
  console.log(`node createEncryptStream: ${(mb / best[0]).toFixed(0)} MB/s, createDecryptStream: ${(mb / best[1]).toFixed(0)} MB/s (${mib} MiB in memory, best of 3)`);

  let bytesRead = 0;
  const handle = {
    async stat() { return { size: file.length }; },
    async read(buffer, offset, length, position) {
      const n = Math.max(0, Math.min(length, file.length - position));
      file.copy(buffer, offset, position, position + n);
      bytesRead += n;
      return { bytesRead: n, buffer };
    },
  };
  const reader = await openEncryptedFile(handle, { key: KEY });
  const opened = bytesRead;
  const at = Math.floor(Math.random() * (reader.size / 65536 - 1)) * 65536;
  const start = process.hrtime.bigint();
  const got = await reader.read(at, 65536);
  const us = Number(process.hrtime.bigint() - start) / 1e3;
  console.log(`node openEncryptedFile: one 64 KiB read at ${at}: ${us.toFixed(0)} us, ${bytesRead - opened} bytes read (opening read ${opened}), ${got.length} returned`);
}

main();
