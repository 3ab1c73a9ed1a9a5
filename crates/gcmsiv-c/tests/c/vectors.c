/*
 * The C ABI from C: every AEAD vector (as lines from flatten.py on stdin) on
 * every backend this CPU runs, through the combined, detached and in-place
 * calls, plus the misuse cases a C caller can make. Exits non-zero on the
 * first failure, saying which vector.
 */
#include "gcmsiv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_HEX 8192

static int failures;

#define CHECK(cond, ...)                                                                         \
    do {                                                                                         \
        if (!(cond)) {                                                                           \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                      \
            fprintf(stderr, __VA_ARGS__);                                                        \
            fprintf(stderr, "\n");                                                               \
            failures++;                                                                          \
            return;                                                                              \
        }                                                                                        \
    } while (0)

typedef struct {
    uint8_t bytes[MAX_HEX / 2];
    size_t len;
} buf;

static int unhex(const char *hex, buf *out) {
    out->len = 0;
    if (strcmp(hex, "-") == 0) return 1;
    size_t n = strlen(hex);
    if (n % 2 || n / 2 > sizeof out->bytes) return 0;
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1) return 0;
        out->bytes[i] = (uint8_t)v;
    }
    out->len = n / 2;
    return 1;
}

typedef struct {
    int alg, valid;
    size_t tag_len;
    buf key, nonce, aad, pt, ct, tag;
} vector;

static gcmsiv_key *make_key(const vector *v, int backend) {
    gcmsiv_key *k = NULL;
    int rc = v->tag_len >= 12
                 ? gcmsiv_key_new_ex(&k, v->alg, v->key.bytes, v->key.len, v->tag_len, backend)
                 : gcmsiv_key_new_gcm_short_tag_hazardous(&k, v->alg, v->key.bytes, v->key.len,
                                                          v->tag_len, backend);
    return rc == GCMSIV_OK ? k : NULL;
}

static void check_vector(const vector *v, int backend, int line) {
    static uint8_t out[MAX_HEX], sealed[MAX_HEX], work[MAX_HEX];
    gcmsiv_key *k = make_key(v, backend);
    CHECK(k != NULL, "line %d: key", line);
    CHECK(gcmsiv_key_tag_bytes(k) == v->tag_len, "line %d", line);
    size_t sealed_len = v->ct.len + v->tag_len;
    memcpy(sealed, v->ct.bytes, v->ct.len);
    memcpy(sealed + v->ct.len, v->tag.bytes, v->tag_len);
    size_t n = 12345;
    if (v->valid) {
        /* Combined, separate buffers. */
        int rc = gcmsiv_encrypt(out, sizeof out, &n, v->pt.bytes, v->pt.len, v->aad.bytes,
                                v->aad.len, v->nonce.bytes, v->nonce.len, k);
        CHECK(rc == GCMSIV_OK && n == sealed_len && memcmp(out, sealed, n) == 0,
              "line %d backend %d: encrypt (%s)", line, backend, gcmsiv_strerror(rc));
        rc = gcmsiv_decrypt(out, sizeof out, &n, sealed, sealed_len, v->aad.bytes, v->aad.len,
                            v->nonce.bytes, v->nonce.len, k);
        CHECK(rc == GCMSIV_OK && n == v->pt.len && memcmp(out, v->pt.bytes, n) == 0,
              "line %d backend %d: decrypt", line, backend);
        /* In place, both ways. */
        memcpy(work, v->pt.bytes, v->pt.len);
        rc = gcmsiv_encrypt(work, sizeof work, &n, work, v->pt.len, v->aad.bytes, v->aad.len,
                            v->nonce.bytes, v->nonce.len, k);
        CHECK(rc == GCMSIV_OK && memcmp(work, sealed, sealed_len) == 0, "line %d: in place", line);
        rc = gcmsiv_decrypt(work, sizeof work, &n, work, sealed_len, v->aad.bytes, v->aad.len,
                            v->nonce.bytes, v->nonce.len, k);
        CHECK(rc == GCMSIV_OK && memcmp(work, v->pt.bytes, v->pt.len) == 0, "line %d", line);
        /* Detached. */
        uint8_t mac[16];
        rc = gcmsiv_encrypt_detached(out, mac, v->tag_len, v->pt.bytes, v->pt.len, v->aad.bytes,
                                     v->aad.len, v->nonce.bytes, v->nonce.len, k);
        CHECK(rc == GCMSIV_OK && memcmp(out, v->ct.bytes, v->ct.len) == 0 &&
                  memcmp(mac, v->tag.bytes, v->tag_len) == 0,
              "line %d: detached", line);
        rc = gcmsiv_decrypt_detached(out, v->ct.bytes, v->ct.len, v->tag.bytes, v->tag_len,
                                     v->aad.bytes, v->aad.len, v->nonce.bytes, v->nonce.len, k);
        CHECK(rc == GCMSIV_OK && memcmp(out, v->pt.bytes, v->pt.len) == 0, "line %d", line);
        /* A flipped bit anywhere is rejected; in place, the ciphertext comes back. */
        sealed[sealed_len / 2] ^= 0x10;
    }
    memset(out, 0xa5, sizeof out);
    int rc = gcmsiv_decrypt(out, sizeof out, &n, sealed, sealed_len, v->aad.bytes, v->aad.len,
                            v->nonce.bytes, v->nonce.len, k);
    CHECK(rc == GCMSIV_ERR_AUTHENTICATION && n == 0, "line %d backend %d: forgery accepted", line,
          backend);
    for (size_t i = 0; i < v->ct.len; i++) CHECK(out[i] == 0, "line %d: output not wiped", line);
    memcpy(work, sealed, sealed_len);
    rc = gcmsiv_decrypt(work, sizeof work, &n, work, sealed_len, v->aad.bytes, v->aad.len,
                        v->nonce.bytes, v->nonce.len, k);
    CHECK(rc == GCMSIV_ERR_AUTHENTICATION && memcmp(work, sealed, sealed_len) == 0,
          "line %d: in place, the ciphertext again", line);
    gcmsiv_key_free(k);
}

static void check_misuse(void) {
    uint8_t key[32] = {0}, nonce[12] = {0}, data[64] = {0};
    gcmsiv_key *k = NULL;
    CHECK(gcmsiv_key_new(&k, GCMSIV_AES_256_GCM_SIV, key, 16) == GCMSIV_ERR_KEY_LENGTH && !k, "key");
    CHECK(gcmsiv_key_new(&k, 0, key, 16) == GCMSIV_ERR_ALGORITHM, "algorithm");
    CHECK(gcmsiv_key_new(&k, GCMSIV_AES_128_GCM, key, 16) == GCMSIV_OK, "gcm key");
    size_t n = 1;
    /* A zero-length IV (Wycheproof's invalid AES-GCM cases) is misuse, refused. */
    CHECK(gcmsiv_encrypt(data, sizeof data, &n, data, 8, NULL, 0, nonce, 0, k) ==
                  GCMSIV_ERR_NONCE_LENGTH && n == 0,
          "empty IV");
    gcmsiv_key_free(k);
    CHECK(gcmsiv_key_new(&k, GCMSIV_AES_128_GCM_SIV, key, 16) == GCMSIV_OK, "siv key");
    CHECK(gcmsiv_encrypt(data, sizeof data, &n, data, 8, NULL, 0, nonce, 11, k) ==
              GCMSIV_ERR_NONCE_LENGTH,
          "nonce");
    CHECK(gcmsiv_encrypt(data, 23, &n, data, 8, NULL, 0, nonce, 12, k) ==
              GCMSIV_ERR_BUFFER_TOO_SMALL,
          "room for the tag");
    CHECK(gcmsiv_encrypt(data + 1, 40, &n, data, 16, NULL, 0, nonce, 12, k) == GCMSIV_ERR_OVERLAP,
          "overlap");
    CHECK(gcmsiv_decrypt(data, sizeof data, &n, data, 15, NULL, 0, nonce, 12, k) ==
              GCMSIV_ERR_TOO_SHORT,
          "short ciphertext");
    CHECK(gcmsiv_encrypt(data, sizeof data, &n, NULL, 0, NULL, 0, nonce, 12, k) == GCMSIV_OK &&
              n == 16,
          "empty message, NULL input");
    CHECK(gcmsiv_decrypt(NULL, 0, &n, data, 16, NULL, 0, nonce, 12, k) == GCMSIV_OK && n == 0,
          "empty message back");
    CHECK(strcmp(gcmsiv_strerror(GCMSIV_ERR_AUTHENTICATION), "authentication failed") == 0, "text");
    gcmsiv_key_free(k);
    gcmsiv_key_free(NULL);
}

int main(void) {
    static char fields[9][MAX_HEX + 2];
    static vector vs[4096];
    int count = 0, line = 0;
    while (count < 4096 && scanf("%d %zu %d %8193s %8193s %8193s %8193s %8193s %8193s",
                                 &vs[count].alg, &vs[count].tag_len, &vs[count].valid, fields[3],
                                 fields[4], fields[5], fields[6], fields[7], fields[8]) == 9) {
        vector *v = &vs[count];
        line++;
        if (!unhex(fields[3], &v->key) || !unhex(fields[4], &v->nonce) ||
            !unhex(fields[5], &v->aad) || !unhex(fields[6], &v->pt) || !unhex(fields[7], &v->ct) ||
            !unhex(fields[8], &v->tag)) {
            fprintf(stderr, "bad line %d\n", line);
            return 2;
        }
        count++;
    }
    if (!feof(stdin)) {
        fprintf(stderr, "stopped reading at line %d: a malformed line, or more than 4096\n", line + 1);
        return 2;
    }
    if (count < 700) {
        fprintf(stderr, "only %d vectors read: is flatten.py's output on stdin?\n", count);
        return 2;
    }
    int backends = 0;
    for (int b = GCMSIV_BACKEND_PORTABLE; b <= GCMSIV_BACKEND_AESNI_VAES; b++) {
        if (!gcmsiv_backend_available(b)) continue;
        backends++;
        for (int i = 0; i < count; i++) check_vector(&vs[i], b, i + 1);
    }
    check_misuse();
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("C ABI %s: %d vectors on %d backends, and the misuse cases: ok\n", gcmsiv_version(), count,
           backends);
    return 0;
}
