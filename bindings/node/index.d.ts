/// <reference types="node" />

import { Transform } from 'node:stream';
import { PathLike } from 'node:fs';
import { FileHandle } from 'node:fs/promises';

export type Bytes = Uint8Array | ArrayBufferView | ArrayBuffer;
/** 'auto', or a name from `backends()` ('portable', 'aesni-clmul', ...). */
export type BackendName = string;

/** The backends this library knows, portable first, and whether this CPU runs each. */
export function backends(): { name: string; available: boolean }[];

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
    | 'ERR_GCMSIV_INTERNAL'
    | 'ERR_GCMSIV_RANDOM_SOURCE'
    | 'ERR_GCMSIV_FORMAT'
    | 'ERR_GCMSIV_INVALID_ARGUMENT'
    | 'ERR_GCMSIV_KEY_FILE'
    | 'ERR_GCMSIV_CLOSED'
    | 'ERR_GCMSIV_IO';
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
  /**
   * Seals under a fresh random nonce from the operating system: nonce || ciphertext || tag
   * (28 bytes more than the plaintext with 16-byte tags).
   */
  encryptRandomNonce(plaintext: Bytes, aad?: Bytes): Buffer;
  /** Opens what encryptRandomNonce returned; throws ERR_GCMSIV_AUTHENTICATION if not authentic (or too short). */
  decryptRandomNonce(sealed: Bytes, aad?: Bytes): Buffer;
  /** encryptRandomNonce for many messages (one system call for the nonces). */
  encryptRandomNonceMany(items: { plaintext: Bytes; aad?: Bytes }[]): Buffer[];
  /** decryptRandomNonce for many: null where a message was not authentic. */
  decryptRandomNonceMany(items: { sealed: Bytes; aad?: Bytes }[]): (Buffer | null)[];
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

/** The secret of a gcmsiv file: exactly one of a 32-byte key (what a key file holds) or a passphrase. */
export type FileSecret =
  | { key: Bytes; passphrase?: undefined; recipients?: undefined; identities?: undefined }
  | { passphrase: string | Bytes; key?: undefined; recipients?: undefined; identities?: undefined }
  /** Recipient strings (gcmsiv1... or gcmsivpq1...), or a recipients file's text; writes only.
   *  X25519 and hybrid together only with allowMixedRecipients. */
  | { recipients: string | string[]; allowMixedRecipients?: boolean; key?: undefined; passphrase?: undefined; identities?: undefined }
  /** An identity file's text (GCMSIV-SECRET-KEY-... lines); reads, and writes to their recipients. */
  | { identities: string | Bytes; key?: undefined; passphrase?: undefined; recipients?: undefined };

/** A new identity: [identity (keep it secret), recipient]; 'hybrid' is ML-KEM-768 + X25519. */
export function generateIdentity(kind?: 'x25519' | 'hybrid'): [string, string];
/** The recipient string of one identity string. */
export function identityRecipient(identity: string): string;

/** How a new file is laid out. */
export interface EncryptOptions {
  /** Plaintext bytes per chunk: a power of two from 1024 to 1048576 (default 65536). */
  chunkSize?: number;
  /** The chunks' AEAD (default 'aes256'). */
  algorithm?: 'aes256' | 'aes128';
  /** Argon2id cost for a passphrase (default 65536 KiB, 3 passes, 4 lanes). */
  argon2?: { memoryKib?: number; iterations?: number; lanes?: number };
  /** The Transform's highWaterMark. */
  highWaterMark?: number;
}

export type EncryptStreamOptions = FileSecret & EncryptOptions;
export type DecryptStreamOptions = FileSecret & { highWaterMark?: number };

/** Plaintext in, gcmsiv file out (the final chunk when the writable side ends). */
export class EncryptStream extends Transform {}

/**
 * gcmsiv file in, plaintext out, each chunk's only after it authenticated. Fails with a
 * GcmsivError: ERR_GCMSIV_AUTHENTICATION (wrong secret, forged chunk) or ERR_GCMSIV_FORMAT
 * (not gcmsiv, truncated, reordered, trailing data, ...).
 */
export class DecryptStream extends Transform {}

export function createEncryptStream(options: EncryptStreamOptions): EncryptStream;
export function createDecryptStream(options: DecryptStreamOptions): DecryptStream;

/** Random access into a gcmsiv file. */
export class EncryptedFile {
  /** The plaintext size (authenticated). */
  readonly size: number;
  /** Whether close() was called. */
  readonly closed: boolean;
  /**
   * The plaintext bytes offset..offset + length (fewer at the end, none at or past it), reading
   * and authenticating only the chunks they are in. Negative arguments are RangeErrors; a closed
   * file rejects with ERR_GCMSIV_CLOSED.
   */
  read(offset: number, length: number): Promise<Buffer>;
  /** Drops the keys; closes the file if it was opened from a path. */
  close(): Promise<void>;
}

/** Opens a gcmsiv file (a path, or a FileHandle left open) for random access. */
export function openEncryptedFile(file: PathLike | FileHandle, options: FileSecret): Promise<EncryptedFile>;
/** Encrypts the file at source into destination. */
export function encryptFile(source: PathLike, destination: PathLike, options: EncryptStreamOptions): Promise<void>;
/** Decrypts the file at source into destination, which is removed if anything fails. */
export function decryptFile(source: PathLike, destination: PathLike, options: FileSecret): Promise<void>;
/** The 32-byte key of a key file's text (gcmsiv-key-v1: and 64 hex digits). */
export function parseKeyFile(text: string | Bytes): Buffer;
