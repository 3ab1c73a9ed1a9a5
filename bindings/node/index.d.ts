/// <reference types="node" />

export type Bytes = Uint8Array | ArrayBufferView | ArrayBuffer;
export type BackendName = 'auto' | 'portable' | 'aesni-clmul' | 'aesni-vaes';

/** Every error this package raises; `code` says which. */
export class GcmsivError extends Error {
  constructor(code: GcmsivError['code'], message: string);
  readonly code:
    | 'ERR_GCMSIV_AUTHENTICATION'
    | 'ERR_GCMSIV_KEY_LENGTH'
    | 'ERR_GCMSIV_NONCE_LENGTH'
    | 'ERR_GCMSIV_TAG_LENGTH'
    | 'ERR_GCMSIV_TOO_LONG'
    | 'ERR_GCMSIV_BACKEND_UNAVAILABLE'
    | 'ERR_GCMSIV_ALGORITHM'
    | 'ERR_GCMSIV_BATCH'
    | 'ERR_GCMSIV_DISPOSED'
    | 'ERR_GCMSIV_INTERNAL';
}

declare class Aead {
  /** The code this key runs on. */
  readonly backend: string;
  /** The widest vector registers it uses on this CPU: 64, 128, 256 or 512. */
  readonly backendBits: number;
  /** The backend with its width, as "aesni-vaes (512-bit)". */
  readonly backendDescription: string;
  /** Bytes a sealed message adds: the tag. */
  readonly tagLength: number;
  /** ciphertext || tag, a new Buffer. */
  encrypt(nonce: Bytes, plaintext: Bytes, aad?: Bytes): Buffer;
  /** The plaintext; throws GcmsivError ERR_GCMSIV_AUTHENTICATION if not authentic. */
  decrypt(nonce: Bytes, sealed: Bytes, aad?: Bytes): Buffer;
  /** encrypt() on libuv's thread pool; the inputs are copied at once. */
  encryptAsync(nonce: Bytes, plaintext: Bytes, aad?: Bytes): Promise<Buffer>;
  /** decrypt() on libuv's thread pool; rejects with GcmsivError as decrypt() throws. */
  decryptAsync(nonce: Bytes, sealed: Bytes, aad?: Bytes): Promise<Buffer>;
  encryptMany(items: { nonce: Bytes; plaintext: Bytes; aad?: Bytes }[]): Buffer[];
  /** Each plaintext, or null where a message was not authentic (or shorter than a tag). */
  decryptMany(items: { nonce: Bytes; ciphertext: Bytes; aad?: Bytes }[]): (Buffer | null)[];
  /** Drops (and zeroizes) the key now. */
  dispose(): void;
}

/** AES-GCM-SIV (RFC 8452): 16- or 32-byte keys, 12-byte nonces, 16-byte tags. */
export class AesGcmSiv extends Aead {
  constructor(key: Bytes, options?: { backend?: BackendName });
}

/** AES-GCM (SP 800-38D): nonces of 1 byte or more (use 12), tags of 12-16 bytes. */
export class AesGcm extends Aead {
  constructor(key: Bytes, options?: { tagLength?: number; backend?: BackendName });
}
