// ES module entry point: the same classes as index.js (require('gcmsiv')),
// so `import { AesGcmSiv } from 'gcmsiv'` and require() share one addon.
import gcmsiv from './index.js';

export const { AesGcmSiv, AesGcm, GcmsivError, backends } = gcmsiv;
export const {
  createEncryptStream, createDecryptStream, openEncryptedFile, encryptFile, decryptFile, parseKeyFile,
  generateIdentity, identityRecipient,
  EncryptStream, DecryptStream, EncryptedFile,
} = gcmsiv;
export default gcmsiv;
