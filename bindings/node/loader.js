'use strict';
// Finds the native addon for this platform, as napi-rs packages name them:
// gcmsiv.<platform>-<arch>[-<libc>].node (gcmsiv.linux-x64-gnu.node,
// gcmsiv.darwin-arm64.node, ...), shipped prebuilt in the package; or
// gcmsiv.node, built from the bundled Rust sources by install.js where no
// prebuilt fits. GCMSIV_NODE_ADDON names another file (the tests use it).

const fs = require('node:fs');
const path = require('node:path');

// "gnu" or "musl" on Linux (glibc reports its version in the process report);
// nothing elsewhere.
function libc() {
  if (process.platform !== 'linux') return null;
  try {
    const report = process.report && process.report.getReport();
    const header = report && (typeof report === 'string' ? JSON.parse(report).header : report.header);
    return header && header.glibcVersionRuntime ? 'gnu' : 'musl';
  } catch {
    return 'gnu';
  }
}

/** The prebuilt addon's file name for this platform, as napi-rs names it. */
function prebuiltName(platform = process.platform, arch = process.arch, c = libc()) {
  return `gcmsiv.${platform}-${arch}${c ? `-${c}` : ''}.node`;
}

/** The files tried, in order: the override, a local build, the prebuilt. */
function candidates(dir = __dirname) {
  const out = [];
  if (process.env.GCMSIV_NODE_ADDON) out.push(path.resolve(process.env.GCMSIV_NODE_ADDON));
  out.push(path.join(dir, 'gcmsiv.node'), path.join(dir, prebuiltName()));
  return out;
}

function loadAddon(dir = __dirname) {
  const failures = [];
  for (const file of candidates(dir)) {
    if (!fs.existsSync(file)) continue;
    try {
      return require(file);
    } catch (err) {
      failures.push(`${path.basename(file)}: ${err.message.split('\n')[0]}`);
    }
  }
  const platform = `${process.platform}-${process.arch}${libc() ? `-${libc()}` : ''}`;
  throw new Error(
    `gcmsiv: no native addon for ${platform}. This package ships prebuilt addons for ` +
      `linux-x64-gnu and linux-arm64-gnu; elsewhere its install step builds one from the ` +
      `bundled Rust sources, which needs a Rust toolchain (cargo, Rust 1.89+, from ` +
      `https://rustup.rs): install one and run \`npm rebuild gcmsiv\`.` +
      (failures.length ? ` Addons that failed to load: ${failures.join('; ')}` : ''),
  );
}

module.exports = { loadAddon, prebuiltName, candidates };
