#!/usr/bin/env node
'use strict';
// The cross-language test's entry point for Node.js (the contract every
// binding implements; keys are 64 lowercase hex digits):
//
//   node bindings/node/tools/interop.js encrypt <keyhex> <chunk_size> <aes128|aes256> <in> <out>
//   node bindings/node/tools/interop.js decrypt <keyhex> <in> <out>
//   node bindings/node/tools/interop.js range <keyhex> <in> <offset> <length> <out>
//
// encrypt feeds the plaintext to createEncryptStream in pieces of 1, 1000 and
// 65537 bytes in rotation; decrypt writes exactly what createDecryptStream
// released; range reads through openEncryptedFile. A failure exits 1 with
// one line on stderr: "authentication: ..." or "format: ...".

const fs = require('node:fs');
const path = require('node:path');
const { createEncryptStream, createDecryptStream, openEncryptedFile } = require(path.join(__dirname, '..'));

const PIECES = [1, 1000, 65537];

function usage() {
  process.stderr.write('usage: interop.js encrypt KEYHEX CHUNK_SIZE aes128|aes256 IN OUT\n'
    + '       interop.js decrypt KEYHEX IN OUT\n'
    + '       interop.js range KEYHEX IN OFFSET LENGTH OUT\n');
  process.exit(2);
}

// The secret argument: a key as 64 hex digits, or recipients=PATH or
// identities=PATH (a recipients or identity file).
function secretOf(arg) {
  if (arg.startsWith('recipients=')) return { recipients: fs.readFileSync(arg.slice(11), 'utf8') };
  if (arg.startsWith('identities=')) return { identities: fs.readFileSync(arg.slice(11)) };
  if (!/^[0-9a-f]{64}$/.test(arg)) usage();
  return { key: Buffer.from(arg, 'hex') };
}

function failed(err) {
  const kind = { ERR_GCMSIV_AUTHENTICATION: 'authentication', ERR_GCMSIV_FORMAT: 'format' }[err && err.code];
  if (!kind) throw err;
  process.stderr.write(`${kind}: ${err.message}\n`);
  process.exitCode = 1;
}

// Writes `data` in rotating piece sizes, waiting for 'drain' as a writer should.
async function feed(stream, data) {
  let at = 0;
  for (let k = 0; at < data.length; k++) {
    const piece = data.subarray(at, at + PIECES[k % PIECES.length]);
    at += piece.length;
    if (!stream.write(piece)) await new Promise((resolve) => stream.once('drain', resolve));
  }
  stream.end();
}

// Runs a Transform over `input`, writing every byte it releases to `out`
// synchronously; resolves to its error, if any.
function drain(stream, out) {
  const fd = fs.openSync(out, 'w');
  return new Promise((resolve) => {
    let error = null;
    stream.on('data', (chunk) => fs.writeSync(fd, chunk));
    stream.on('error', (err) => {
      error = err;
    });
    stream.on('close', () => {
      fs.closeSync(fd);
      resolve(error);
    });
  });
}

async function main(argv) {
  const [command, ...args] = argv;
  if (command === 'encrypt' && args.length === 5) {
    const [hex, chunkSize, algorithm, input, out] = args;
    const stream = createEncryptStream({ ...secretOf(hex), chunkSize: Number(chunkSize), algorithm });
    const done = drain(stream, out);
    await feed(stream, fs.readFileSync(input));
    const err = await done;
    if (err) throw err;
  } else if (command === 'decrypt' && args.length === 3) {
    const [hex, input, out] = args;
    const stream = createDecryptStream(secretOf(hex));
    const done = drain(stream, out);
    fs.createReadStream(input).pipe(stream);
    const err = await done;
    if (err) failed(err);
  } else if (command === 'range' && args.length === 5) {
    const [hex, input, offset, length, out] = args;
    try {
      const reader = await openEncryptedFile(input, secretOf(hex));
      try {
        fs.writeFileSync(out, await reader.read(Number(offset), Number(length)));
      } finally {
        await reader.close();
      }
    } catch (err) {
      failed(err);
    }
  } else {
    usage();
  }
}

main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`internal: ${err && err.stack}\n`);
  process.exitCode = 3;
});
