// Types for the ES module entry point (index.mjs): those of index.d.ts.
export * from './index.js';
import * as gcmsiv from './index.js';
export default gcmsiv;
