'use strict';
// Streaming throughput through the Node.js binding, beside the Rust library's
// (crates/gcmsiv-stream/examples/memory_throughput.rs, the same shape): MIB MiB
// (default 256) of plaintext in memory through createEncryptStream (written in
// 1 MiB pieces, the file joined in memory as the Rust figure "into a Vec") and
// createDecryptStream (fed the file in 1 MiB pieces, the output counted), 64 KiB
// chunks, AES-256-GCM-SIV; best of 3. Then 64 KiB reads at nine
// aligned offsets through openEncryptedFile, with the bytes they read.
//
//   node bench/stream.js [MIB]

const { createEncryptStream, createDecryptStream, openEncryptedFile } = require('..');

const KEY = Buffer.alloc(32, 7);
const PIECE = 1 << 20;

// Writes `data` through `stream`; resolves to the output (joined if `keep`,
// else only counted, as the Rust decryptor's figure is).
function through(stream, data, keep) {
  return new Promise((resolve, reject) => {
    const out = [];
    let length = 0;
    stream.on('data', (chunk) => {
      if (keep) out.push(chunk);
      length += chunk.length;
    });
    stream.on('end', () => resolve(keep ? Buffer.concat(out) : length));
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
    file = await through(createEncryptStream({ key: KEY }), plaintext, true);
    best[0] = Math.min(best[0], Number(process.hrtime.bigint() - start) / 1e9);
    start = process.hrtime.bigint();
    const back = await through(createDecryptStream({ key: KEY }), file, false);
    best[1] = Math.min(best[1], Number(process.hrtime.bigint() - start) / 1e9);
    if (back !== plaintext.length) throw new Error('round trip');
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
  // One 64 KiB-aligned read at each of 9 offsets: the fastest, and the bytes read each.
  const chunks = Math.floor(reader.size / 65536);
  let fastest = Infinity;
  const before = bytesRead;
  for (let k = 1; k <= 9; k++) {
    const at = Math.floor((chunks * k) / 10) * 65536;
    const start = process.hrtime.bigint();
    await reader.read(at, 65536);
    fastest = Math.min(fastest, Number(process.hrtime.bigint() - start) / 1e3);
  }
  console.log(`node openEncryptedFile: a 64 KiB-aligned read: ${fastest.toFixed(0)} us (fastest of 9), ${(bytesRead - before) / 9} bytes read each (opening read ${opened})`);
}

main();
