/*
 * gcmsiv: AES-GCM-SIV (RFC 8452) and AES-GCM (NIST SP 800-38D) for C.
 *
 * Usage limits. AES-GCM-SIV: at most 2^36 bytes (64 GiB) of plaintext, and as
 * much associated data, per message. Random 12-byte nonces are safe: under one
 * key, 2^62 messages of up to 64 KiB each, 2^53 of up to 16 MiB, or 2^37 of up
 * to 4 GiB (plaintext and associated data together) keep an attacker's
 * advantage at most 2^-32 (RFC 8452 section 9's bounds, derived in the Rust
 * crate's random_nonce_messages_log2; the project's README has the tables for
 * repeated nonces). A nonce that repeats
 * reveals only whether the two messages (with their associated data) were
 * identical. AES-GCM: never repeat a nonce under a key (one repeat leaks the XOR
 * of the messages and lets an attacker forge); with random 12-byte nonces, at
 * most 2^32 messages per key (SP 800-38D). Limit or rate-limit failed
 * decryptions on long-lived keys.
 *
 * The calls. Make a key once (gcmsiv_key_new), use it from any number of threads
 * at once, free it (gcmsiv_key_free zeroizes it). Every call returns an int:
 * GCMSIV_OK (0), or a negative GCMSIV_ERR_* (gcmsiv_strerror describes it).
 * Misuse (a wrong key, nonce or tag length, an input over the limits, a buffer
 * too small, a NULL pointer for a non-empty buffer, overlapping buffers) is
 * reported before any work, with the outputs untouched. Every authentication
 * failure is GCMSIV_ERR_AUTHENTICATION, and no unauthenticated plaintext is
 * ever released: a separate output buffer is zeroed, and a buffer decrypted in
 * place holds the ciphertext again. Arguments come in one order everywhere:
 * output, input, associated data, nonce, key. Inputs of length 0 may be NULL.
 * In place means the output pointer equal to the input pointer; an output may
 * share no other byte with any input (associated data and nonce included) or
 * with another output. Inputs may share bytes with one another.
 *
 * Nothing unwinds into C: an internal error (none is known) is
 * GCMSIV_ERR_INTERNAL.
 *
 * Link with -lgcmsiv_c (static: also -lpthread -ldl -lm as your platform needs).
 */
#ifndef GCMSIV_H
#define GCMSIV_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define GCMSIV_WARN_UNUSED __attribute__((warn_unused_result))
#else
#define GCMSIV_WARN_UNUSED
#endif

/* Algorithms. */
#define GCMSIV_AES_128_GCM_SIV 1
#define GCMSIV_AES_256_GCM_SIV 2
#define GCMSIV_AES_128_GCM 3
#define GCMSIV_AES_256_GCM 4

/* Backends: AUTO picks the fastest this CPU supports. */
#define GCMSIV_BACKEND_AUTO 0
#define GCMSIV_BACKEND_PORTABLE 1    /* constant-time portable code, always available */
#define GCMSIV_BACKEND_AESNI_CLMUL 2 /* x86-64 AES-NI and PCLMULQDQ */
#define GCMSIV_BACKEND_AESNI_VAES 3  /* and VAES, VPCLMULQDQ, AVX2 */
#define GCMSIV_BACKEND_ARMV8_AES_PMULL 4 /* AArch64 AES and PMULL (ARMv8 Crypto) */
/* The list, for bindings: gcmsiv_backend_count(), gcmsiv_backend_name(n),
 * gcmsiv_backend_bits(n) for n from 1. */

/* Status codes. */
#define GCMSIV_OK 0
#define GCMSIV_ERR_AUTHENTICATION (-1)   /* wrong key, nonce, data or tag */
#define GCMSIV_ERR_KEY_LENGTH (-2)
#define GCMSIV_ERR_NONCE_LENGTH (-3)
#define GCMSIV_ERR_TAG_LENGTH (-4)
#define GCMSIV_ERR_TOO_LONG (-5)         /* plaintext, associated data or ciphertext */
#define GCMSIV_ERR_TOO_SHORT (-6)        /* ciphertext shorter than a tag */
#define GCMSIV_ERR_BUFFER_TOO_SMALL (-7)
#define GCMSIV_ERR_BACKEND_UNAVAILABLE (-8)
#define GCMSIV_ERR_ALGORITHM (-9)
#define GCMSIV_ERR_NULL_POINTER (-10)
#define GCMSIV_ERR_OVERLAP (-11)
#define GCMSIV_ERR_INTERNAL (-12)
#define GCMSIV_ERR_RANDOM_SOURCE (-13)  /* the operating system's random number generator failed */
/* The streaming calls' own (files in the gcmsiv format, docs/FORMAT.md). A file
 * that does not authenticate (wrong key or passphrase, a forged, reordered or
 * spliced chunk) is GCMSIV_ERR_AUTHENTICATION, as above. */
#define GCMSIV_ERR_FORMAT (-14)     /* not a gcmsiv file, or a malformed one (bad version,
                                       header field or chunk length, trailing data, the
                                       other kind of secret) */
#define GCMSIV_ERR_TRUNCATED (-15)  /* the file ends before its final chunk */
#define GCMSIV_ERR_INVALID (-16)    /* an argument the format does not allow (chunk size,
                                       Argon2id cost, empty passphrase, not a key file) */
#define GCMSIV_ERR_STATE (-17)      /* out of order: output pending, stream finished,
                                       final chunk not verified */

/* An opaque key: the expanded key and hash key, zeroized when freed. */
typedef struct gcmsiv_key gcmsiv_key;

/* Sizes, as functions so that bindings need not parse this header. */
size_t gcmsiv_keybytes(int algorithm);          /* 16 or 32; 0 for an unknown algorithm */
size_t gcmsiv_npubbytes(int algorithm);         /* 12 (AES-GCM also takes other lengths) */
size_t gcmsiv_abytes(void);                     /* 16: the default tag length */
uint64_t gcmsiv_messagebytes_max(int algorithm); /* longest plaintext of one message */
int gcmsiv_backend_available(int backend);      /* 1 or 0 */
int gcmsiv_backend_count(void);                 /* backends numbered 1 to this */
const char *gcmsiv_backend_name(int backend);   /* "portable", ...; "" if unknown */
int gcmsiv_backend_bits(int backend);           /* its registers here; 0 if unknown */
const char *gcmsiv_version(void);
const char *gcmsiv_strerror(int status);

/* A key for `algorithm` with 16-byte tags, on the fastest backend. */
int gcmsiv_key_new(gcmsiv_key **key_out, int algorithm, const uint8_t *key, size_t key_len)
    GCMSIV_WARN_UNUSED;
/* The same with a tag length (0 for 16; AES-GCM takes 12 to 16; AES-GCM-SIV
 * only 16) and a backend. *key_out is NULL after a failure. */
int gcmsiv_key_new_ex(gcmsiv_key **key_out, int algorithm, const uint8_t *key, size_t key_len,
                      size_t tag_len, int backend) GCMSIV_WARN_UNUSED;
/* An AES-GCM key with 4- or 8-byte tags. Hazardous: SP 800-38D Appendix C
 * allows them only with a bound on each message's length and on the failed
 * decryptions per key, which the caller must enforce. */
int gcmsiv_key_new_gcm_short_tag_hazardous(gcmsiv_key **key_out, int algorithm, const uint8_t *key,
                                           size_t key_len, size_t tag_len, int backend)
    GCMSIV_WARN_UNUSED;
void gcmsiv_key_free(gcmsiv_key *key);                   /* NULL is ignored */
size_t gcmsiv_key_tag_bytes(const gcmsiv_key *key);      /* tag length of this key */
const char *gcmsiv_key_backend(const gcmsiv_key *key);   /* "portable", "aesni-clmul", ... */
int gcmsiv_key_backend_bits(const gcmsiv_key *key);      /* its registers: 64, 128, 256 or 512 */

/* Combined: c = ciphertext || tag, m_len + tag bytes (c_cap at least that).
 * *c_len (may be NULL) gets the length written, 0 on failure. c may be m. */
int gcmsiv_encrypt(uint8_t *c, size_t c_cap, size_t *c_len,
                   const uint8_t *m, size_t m_len,
                   const uint8_t *ad, size_t ad_len,
                   const uint8_t *npub, size_t npub_len,
                   const gcmsiv_key *key) GCMSIV_WARN_UNUSED;

/* Decrypts ciphertext || tag into m (c_len - tag bytes; m_cap at least that).
 * *m_len (may be NULL) gets the plaintext length, 0 on failure. m may be c. */
int gcmsiv_decrypt(uint8_t *m, size_t m_cap, size_t *m_len,
                   const uint8_t *c, size_t c_len,
                   const uint8_t *ad, size_t ad_len,
                   const uint8_t *npub, size_t npub_len,
                   const gcmsiv_key *key) GCMSIV_WARN_UNUSED;

/* Detached: m_len bytes of ciphertext into c (may be m), the tag (mac_len
 * bytes, the key's tag length) into mac. */
int gcmsiv_encrypt_detached(uint8_t *c, uint8_t *mac, size_t mac_len,
                            const uint8_t *m, size_t m_len,
                            const uint8_t *ad, size_t ad_len,
                            const uint8_t *npub, size_t npub_len,
                            const gcmsiv_key *key) GCMSIV_WARN_UNUSED;

/* Decrypts c_len bytes into m (may be c) if the tag at mac authenticates them. */
int gcmsiv_decrypt_detached(uint8_t *m,
                            const uint8_t *c, size_t c_len,
                            const uint8_t *mac, size_t mac_len,
                            const uint8_t *ad, size_t ad_len,
                            const uint8_t *npub, size_t npub_len,
                            const gcmsiv_key *key) GCMSIV_WARN_UNUSED;

/* Batches: many independent messages under one key, each in place with its own
 * nonce and associated data. For AES-GCM-SIV keys the per-message set-up of
 * several short messages runs interleaved (2x the messages per second of one
 * call each for 16- to 64-byte messages on CPUs with VAES); AES-GCM keys run
 * one message at a time. Misuse anywhere (including data buffers that overlap
 * one another, any item's nonce or associated data, or the items array) fails
 * the whole call before any item is touched, and sets every item's status to
 * the call's. */
typedef struct gcmsiv_batch_item {
    const uint8_t *npub;
    size_t npub_len;
    const uint8_t *ad;
    size_t ad_len;
    uint8_t *data;      /* data_len bytes, encrypted or decrypted in place */
    size_t data_len;
    uint8_t tag[16];    /* written by encrypt, read by decrypt (the key's tag length) */
    int status;         /* set by the call: GCMSIV_OK, GCMSIV_ERR_AUTHENTICATION, or the
                           call's own status when it fails as a whole */
} gcmsiv_batch_item;

int gcmsiv_encrypt_batch(gcmsiv_batch_item *items, size_t count, const gcmsiv_key *key)
    GCMSIV_WARN_UNUSED;
/* Returns GCMSIV_OK when the call ran; each item's status then says whether it
 * was authentic (a failed item holds its ciphertext again; the others are not
 * affected). */
int gcmsiv_decrypt_batch(gcmsiv_batch_item *items, size_t count, const gcmsiv_key *key)
    GCMSIV_WARN_UNUSED;

/* ------------------------------------------------------------------------
 * Nonce-managed messages: the library draws each nonce (12 random bytes from
 * the operating system) and puts it in front, so callers never handle one.
 * Sealed = nonce || ciphertext || tag, m_len + gcmsiv_random_nonce_overhead(key)
 * bytes (28 with 16-byte tags). For AES-GCM-SIV this is safe far past AES-GCM's
 * 2^32 messages per key: a repeated nonce reveals only that two messages were
 * equal, and RFC 8452 section 9's bounds keep the attacker's advantage within
 * 2^-32 for up to 2^62 random-nonce messages of up to 64 KiB each (2^53 of up
 * to 16 MiB) per key.
 * With AES-GCM keys, keep to 2^32 messages per key. Every algorithm of the key
 * type works. In place: the plaintext at c + 12 (encrypt), the plaintext left
 * at c + 12 (decrypt, m = c + 12). A sealed message shorter than the overhead
 * is GCMSIV_ERR_AUTHENTICATION (an attacker sets that length). */
size_t gcmsiv_random_nonce_overhead(const gcmsiv_key *key); /* 12 + tag bytes; 0 for NULL */

int gcmsiv_encrypt_random_nonce(uint8_t *c, size_t c_cap, size_t *c_len,
                                const uint8_t *m, size_t m_len,
                                const uint8_t *ad, size_t ad_len,
                                const gcmsiv_key *key) GCMSIV_WARN_UNUSED;

int gcmsiv_decrypt_random_nonce(uint8_t *m, size_t m_cap, size_t *m_len,
                                const uint8_t *c, size_t c_len,
                                const uint8_t *ad, size_t ad_len,
                                const gcmsiv_key *key) GCMSIV_WARN_UNUSED;

/* Nonce-managed batches: each item one buffer, sealed or opened in place.
 * Encrypt: sealed_len = plaintext + overhead, the plaintext at sealed + 12; the
 * buffer receives nonce || ciphertext || tag (all nonces from one system call;
 * AES-GCM-SIV keys interleave the set-up as gcmsiv_encrypt_batch does). Decrypt:
 * the plaintext is left at sealed + 12 (sealed_len - overhead bytes); an item
 * shorter than the overhead, or forged, gets GCMSIV_ERR_AUTHENTICATION and holds
 * its ciphertext again. Misuse (an encrypt item shorter than the overhead,
 * buffers overlapping one another, any associated data or the items array)
 * fails the whole call before any item is touched, every status set to it. */
typedef struct gcmsiv_sealed_item {
    const uint8_t *ad;
    size_t ad_len;
    uint8_t *sealed;
    size_t sealed_len;
    int status;
} gcmsiv_sealed_item;

int gcmsiv_encrypt_random_nonce_batch(gcmsiv_sealed_item *items, size_t count, const gcmsiv_key *key)
    GCMSIV_WARN_UNUSED;
int gcmsiv_decrypt_random_nonce_batch(gcmsiv_sealed_item *items, size_t count, const gcmsiv_key *key)
    GCMSIV_WARN_UNUSED;

/* ------------------------------------------------------------------------
 * Files and streams in the gcmsiv file format (docs/FORMAT.md: a key-committing
 * header, then the plaintext in chunks sealed with AES-GCM-SIV in the STREAM
 * construction), byte-compatible with the gcmsiv tool and every binding. These
 * calls do no I/O: you read and write, they transform bytes, in bounded memory.
 *
 * Encrypt: gcmsiv_encryptor_new, then push plaintext and drain file bytes in
 * turn (a push is refused with GCMSIV_ERR_STATE while output is pending, so a
 * handle holds at most one push and one batch of chunks, about 2 MiB), then
 * gcmsiv_encryptor_finish and drain the rest. A file that is not finished reads
 * as truncated.
 *
 * Decrypt: gcmsiv_decryptor_new, push file bytes, drain plaintext: only ever that
 * of chunks that authenticated. When the input ends, gcmsiv_decryptor_finish
 * says whether the file was whole (GCMSIV_ERR_TRUNCATED if not): count the data
 * good only then. After a failure, what authenticated before it can still be
 * drained, and every later push and finish returns the failure again.
 *
 * Random access: gcmsiv_reader_new with the header (86 bytes for a file to a key
 * or passphrase; gcmsiv_file_header_needed says) and the file's size;
 * read the bytes gcmsiv_reader_final_chunk names and verify them (this fixes the
 * plaintext length); then for any range, read the bytes gcmsiv_reader_span names
 * and pass them to gcmsiv_reader_read, which authenticates only those chunks.
 *
 * Failures are status codes; gcmsiv_stream_error_message says more ("chunk 3
 * failed authentication"), as errno does: read it right after the failing
 * call, on the same thread. Messages never say anything about the secret. A
 * handle may move between threads but not be used by two at once, except
 * gcmsiv_reader_span/_read/_size after the final chunk verified. Every *_free
 * ignores NULL and zeroizes the keys; the decryptor wipes the plaintext it held.
 */
typedef struct gcmsiv_secret gcmsiv_secret;
typedef struct gcmsiv_encryptor gcmsiv_encryptor;
typedef struct gcmsiv_decryptor gcmsiv_decryptor;
typedef struct gcmsiv_reader gcmsiv_reader;

size_t gcmsiv_file_header_bytes(void);            /* 86: version 1's (to a key or passphrase) */
const char *gcmsiv_stream_error_message(void);    /* this thread's last stream failure, or "" */

/* Secrets, copied into each handle made from them (free them when you like). A
 * 32-byte key (what a key file holds; else GCMSIV_ERR_KEY_LENGTH), a key file's
 * text, or a passphrase (bytes; UTF-8 for text; not empty), stretched with
 * Argon2id at the cost a file's header records. */
int gcmsiv_secret_new_key(gcmsiv_secret **secret_out, const uint8_t *key, size_t key_len)
    GCMSIV_WARN_UNUSED;
int gcmsiv_secret_new_key_file(gcmsiv_secret **secret_out, const uint8_t *text, size_t text_len)
    GCMSIV_WARN_UNUSED;
int gcmsiv_secret_new_passphrase(gcmsiv_secret **secret_out, const uint8_t *passphrase,
                                 size_t passphrase_len) GCMSIV_WARN_UNUSED;
void gcmsiv_secret_free(gcmsiv_secret *secret);

/* Public-key recipients (format version 2, docs/FORMAT.md): write a file to the
 * recipients in a recipients file's text (one gcmsiv1... or gcmsivpq1... string a
 * line; empty lines and # comments allowed; 1 to 256). X25519 and hybrid
 * (ML-KEM-768 + X25519) recipients together are refused when the file is made
 * unless allow_mixed is 1: such a file is only as safe as X25519 against a quantum
 * computer. Read a file with identities: an identity file's text
 * (GCMSIV-SECRET-KEY-... lines). GCMSIV_ERR_INVALID for text that is neither; the
 * message names the line, never quoting an identity. A file to recipients read
 * with a key or passphrase, or the reverse, is GCMSIV_ERR_FORMAT, with a message
 * saying which secret the file needs; identities none of which the file names,
 * GCMSIV_ERR_AUTHENTICATION ("no identity matched"). */
#define GCMSIV_RECIPIENT_X25519 1
#define GCMSIV_RECIPIENT_HYBRID 2
int gcmsiv_secret_new_recipients(gcmsiv_secret **secret_out, const uint8_t *text, size_t text_len,
                                 int allow_mixed) GCMSIV_WARN_UNUSED;
int gcmsiv_secret_new_identities(gcmsiv_secret **secret_out, const uint8_t *text, size_t text_len)
    GCMSIV_WARN_UNUSED;
/* A new identity (kind GCMSIV_RECIPIENT_*) as its string, and the recipient of an
 * identity string: no NUL; *out_len the length, also when out_cap is too small
 * (GCMSIV_ERR_BUFFER_TOO_SMALL). The _max_bytes sizes always fit. */
int gcmsiv_identity_generate(int kind, uint8_t *out, size_t out_cap, size_t *out_len) GCMSIV_WARN_UNUSED;
int gcmsiv_identity_recipient(const uint8_t *identity, size_t identity_len, uint8_t *out, size_t out_cap,
                              size_t *out_len) GCMSIV_WARN_UNUSED;
size_t gcmsiv_identity_max_bytes(void);
size_t gcmsiv_recipient_max_bytes(void);

/* algorithm: GCMSIV_AES_256_GCM_SIV (or 0) or GCMSIV_AES_128_GCM_SIV; chunk_size a
 * power of two from 1024 to 1048576 (0: 65536). _ex: the Argon2id cost for a
 * passphrase (all 0: 65536 KiB, 3 passes, 4 lanes; memory 8 x lanes to 1048576
 * KiB, 1 to 16 passes, 1 to 16 lanes), checked for a key too but used only for a
 * passphrase. */
int gcmsiv_encryptor_new(gcmsiv_encryptor **enc_out, int algorithm, size_t chunk_size,
                         const gcmsiv_secret *secret) GCMSIV_WARN_UNUSED;
int gcmsiv_encryptor_new_ex(gcmsiv_encryptor **enc_out, int algorithm, size_t chunk_size,
                            uint32_t argon2_memory_kib, uint32_t argon2_iterations,
                            uint32_t argon2_lanes, const gcmsiv_secret *secret) GCMSIV_WARN_UNUSED;
int gcmsiv_encryptor_push(gcmsiv_encryptor *enc, const uint8_t *in, size_t in_len) GCMSIV_WARN_UNUSED;
int gcmsiv_encryptor_finish(gcmsiv_encryptor *enc) GCMSIV_WARN_UNUSED;
size_t gcmsiv_encryptor_pending(const gcmsiv_encryptor *enc);   /* bytes to drain */
int gcmsiv_encryptor_drain(gcmsiv_encryptor *enc, uint8_t *out, size_t out_cap, size_t *out_len)
    GCMSIV_WARN_UNUSED;
void gcmsiv_encryptor_free(gcmsiv_encryptor *enc);

int gcmsiv_decryptor_new(gcmsiv_decryptor **dec_out, const gcmsiv_secret *secret) GCMSIV_WARN_UNUSED;
int gcmsiv_decryptor_push(gcmsiv_decryptor *dec, const uint8_t *in, size_t in_len) GCMSIV_WARN_UNUSED;
int gcmsiv_decryptor_finish(gcmsiv_decryptor *dec) GCMSIV_WARN_UNUSED;
size_t gcmsiv_decryptor_pending(const gcmsiv_decryptor *dec);   /* plaintext bytes to drain */
int gcmsiv_decryptor_drain(gcmsiv_decryptor *dec, uint8_t *out, size_t out_cap, size_t *out_len)
    GCMSIV_WARN_UNUSED;
void gcmsiv_decryptor_free(gcmsiv_decryptor *dec);

/* A file's header length, from its first bytes: call with what you have read
 * until *needed is at most that (86 for version 1; version 2's depends on its
 * recipients, up to gcmsiv_file_header_max_bytes()). A prefix that is no gcmsiv
 * file, or a hostile header, fails here. */
int gcmsiv_file_header_needed(const uint8_t *prefix, size_t prefix_len, size_t *needed) GCMSIV_WARN_UNUSED;
size_t gcmsiv_file_header_max_bytes(void);
/* header: the file's first header_len bytes (its whole header: gcmsiv_file_header_needed). */
int gcmsiv_reader_new(gcmsiv_reader **reader_out, const uint8_t *header, size_t header_len,
                      uint64_t file_size, const gcmsiv_secret *secret) GCMSIV_WARN_UNUSED;
int gcmsiv_reader_final_chunk(const gcmsiv_reader *reader, uint64_t *offset, uint64_t *len);
int gcmsiv_reader_verify_final(gcmsiv_reader *reader, const uint8_t *stored, size_t stored_len,
                               uint64_t *plaintext_len) GCMSIV_WARN_UNUSED;
int gcmsiv_reader_size(const gcmsiv_reader *reader, uint64_t *plaintext_len);
/* The stored bytes holding plaintext offset..offset+len (cut at the end): file_len
 * bytes at file_offset (0 and 0 for an empty range or one past the end). */
int gcmsiv_reader_span(const gcmsiv_reader *reader, uint64_t offset, uint64_t len,
                       uint64_t *file_offset, uint64_t *file_len);
/* Authenticates exactly the span's stored bytes and writes plaintext offset..
 * offset+len (cut at the end) to out, its length to *out_len. All or nothing: on
 * failure *out_len is 0 and out is untouched. out may not overlap stored. */
int gcmsiv_reader_read(uint8_t *out, size_t out_cap, size_t *out_len,
                       const uint8_t *stored, size_t stored_len,
                       uint64_t offset, uint64_t len,
                       const gcmsiv_reader *reader) GCMSIV_WARN_UNUSED;
void gcmsiv_reader_free(gcmsiv_reader *reader);

#ifdef __cplusplus
}
#endif

#endif /* GCMSIV_H */
