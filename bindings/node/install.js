'use strict';
// npm's install step for the gcmsiv package. Where the prebuilt addon for this
// platform loads, there is nothing to do. Otherwise, if cargo is on the PATH,
// the addon is built from the Rust sources bundled in rust/ and saved as
// gcmsiv.node (loader.js prefers it). Otherwise the install fails with what
// to do. GCMSIV_NODE_BUILD_FROM_SOURCE=1 builds from source even where a
// prebuilt fits.

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { prebuiltName } = require('./loader.js');

const here = __dirname;
const rust = path.join(here, 'rust');

function prebuiltLoads() {
  const file = path.join(here, prebuiltName());
  if (!fs.existsSync(file)) return false;
  try {
    require(file);
    return true;
  } catch (err) {
    console.warn(`gcmsiv: the prebuilt ${path.basename(file)} does not load here (${err.message.split('\n')[0]})`);
    return false;
  }
}

function hasCargo() {
  const probe = spawnSync('cargo', ['--version'], { stdio: 'ignore' });
  return probe.status === 0;
}

// The file cargo makes for a cdylib named gcmsiv_node on this platform.
function builtLibrary(dir) {
  if (process.platform === 'win32') return path.join(dir, 'gcmsiv_node.dll');
  if (process.platform === 'darwin') return path.join(dir, 'libgcmsiv_node.dylib');
  return path.join(dir, 'libgcmsiv_node.so');
}

function buildFromSource() {
  if (!fs.existsSync(path.join(rust, 'Cargo.toml'))) {
    throw new Error('gcmsiv: this copy of the package has no Rust sources (rust/) to build from');
  }
  const target = path.join(rust, 'target');
  console.log('gcmsiv: building the native addon from source with cargo (a few minutes) ...');
  const build = spawnSync('cargo', ['build', '--release', '--locked', '-p', 'gcmsiv-node'], {
    cwd: rust,
    stdio: 'inherit',
    env: { ...process.env, CARGO_TARGET_DIR: target },
  });
  if (build.status !== 0) {
    throw new Error(`gcmsiv: cargo build failed (exit status ${build.status}); see its output above`);
  }
  fs.copyFileSync(builtLibrary(path.join(target, 'release')), path.join(here, 'gcmsiv.node'));
  // The build folder is large and no longer needed.
  fs.rmSync(target, { recursive: true, force: true });
  require(path.join(here, 'gcmsiv.node'));
  console.log('gcmsiv: built gcmsiv.node');
}

function main() {
  // In the repository's checkout (no bundled sources): scripts/test-node.sh builds the addon.
  if (!fs.existsSync(rust) && fs.existsSync(path.join(here, '..', '..', 'crates', 'gcmsiv'))) return;
  const forced = process.env.GCMSIV_NODE_BUILD_FROM_SOURCE === '1';
  if (!forced && prebuiltLoads()) return;
  if (!hasCargo()) {
    throw new Error(
      `gcmsiv: no prebuilt addon for ${prebuiltName().slice(7, -5)} (this package ships ` +
        `linux-x64-gnu and linux-arm64-gnu) and no Rust toolchain to build one: install ` +
        `Rust 1.89+ (https://rustup.rs) so that cargo is on the PATH, then run \`npm rebuild gcmsiv\`.`,
    );
  }
  buildFromSource();
}

try {
  main();
} catch (err) {
  console.error(err.message);
  process.exit(1);
}
