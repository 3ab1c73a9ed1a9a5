/*
 * gcmsiv: AES-GCM-SIV (RFC 8452) and AES-GCM (NIST SP 800-38D) for C.
 *
 * Usage limits. AES-GCM-SIV: at most 2^36 bytes (64 GiB) of plaintext, and as
 * much associated data, per message. Random 12-byte nonces are safe: under one
 * key, 2^64 messages of up to 128 KiB each, 2^48 of up to 32 MiB, or 2^32 of up
 * to 8 GiB keep an attacker's advantage at most 2^-32 (RFC 8452 section 9; the
 * project's README has the tables for repeated nonces). A nonce that repeats
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

/* An opaque key: the expanded key and hash key, zeroized when freed. */
typedef struct gcmsiv_key gcmsiv_key;

/* Sizes, as functions so that bindings need not parse this header. */
size_t gcmsiv_keybytes(int algorithm);          /* 16 or 32; 0 for an unknown algorithm */
size_t gcmsiv_npubbytes(int algorithm);         /* 12 (AES-GCM also takes other lengths) */
size_t gcmsiv_abytes(void);                     /* 16: the default tag length */
uint64_t gcmsiv_messagebytes_max(int algorithm); /* longest plaintext of one message */
int gcmsiv_backend_available(int backend);      /* 1 or 0 */
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

#ifdef __cplusplus
}
#endif

#endif /* GCMSIV_H */
