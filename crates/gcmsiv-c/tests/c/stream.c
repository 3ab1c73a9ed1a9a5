/*
 * The C ABI's files, streams and nonce-managed calls from C: every vector of
 * vectors/format/manifest.txt through the streaming decryptor (released bytes
 * compared) and the random-access reader; round trips at the lengths around
 * chunk and batch boundaries, both algorithms, keys and passphrases; every
 * truncation, bit flip and trailing byte of a small file; random ranges; NULLs,
 * bad lengths and calls out of order. Usage: stream VECTORS_FORMAT_DIR [quick]
 * (quick: without the tampering sweep, for a second build of the same code).
 */
#define _POSIX_C_SOURCE 200809L
#include "gcmsiv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    uint8_t *p;
    size_t len, cap;
} bytes;

static void append(bytes *b, const uint8_t *p, size_t n) {
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        if (!b->p) abort();
    }
    if (n) memcpy(b->p + b->len, p, n);
    b->len += n;
}

static bytes read_file(const char *dir, const char *name) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    bytes b = {0};
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(2);
    }
    uint8_t buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) append(&b, buf, n);
    fclose(f);
    append(&b, (const uint8_t *)"", 0);
    return b;
}

/* Deterministic test bytes. */
static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint64_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static bytes pattern(size_t n) {
    bytes b = {0};
    b.p = malloc(n + 1);
    b.len = b.cap = n;
    for (size_t i = 0; i < n; i++) b.p[i] = (uint8_t)(i * 131 + (i >> 10) * 7 + 1);
    return b;
}

static const size_t pieces[] = {1, 1000, 65537, 7, 4096, 300000};
#define NPIECES (sizeof pieces / sizeof pieces[0])

/* Drains everything pending into out, in drains of at most cap bytes. */
static int drain_enc(gcmsiv_encryptor *e, bytes *out, size_t cap) {
    uint8_t *buf = malloc(cap);
    int rc = GCMSIV_OK;
    while (gcmsiv_encryptor_pending(e) > 0) {
        size_t n;
        rc = gcmsiv_encryptor_drain(e, buf, cap, &n);
        if (rc != GCMSIV_OK) break;
        append(out, buf, n);
    }
    free(buf);
    return rc;
}
static int drain_dec(gcmsiv_decryptor *d, bytes *out, size_t cap) {
    uint8_t *buf = malloc(cap);
    int rc = GCMSIV_OK;
    while (gcmsiv_decryptor_pending(d) > 0) {
        size_t n;
        rc = gcmsiv_decryptor_drain(d, buf, cap, &n);
        if (rc != GCMSIV_OK) break;
        append(out, buf, n);
    }
    free(buf);
    return rc;
}

/* Encrypts pt in pieces of varying sizes; returns the status. */
static int encrypt_all(const gcmsiv_secret *s, int alg, size_t chunk, const bytes *pt, bytes *file,
                       size_t drain_cap) {
    gcmsiv_encryptor *e;
    int rc = gcmsiv_encryptor_new_ex(&e, alg, chunk, 64, 1, 1, s);
    if (rc != GCMSIV_OK) return rc;
    size_t at = 0, k = 0;
    while (at < pt->len && rc == GCMSIV_OK) {
        size_t n = pieces[k++ % NPIECES];
        if (n > pt->len - at) n = pt->len - at;
        rc = gcmsiv_encryptor_push(e, pt->p + at, n);
        if (rc == GCMSIV_OK) rc = drain_enc(e, file, drain_cap);
        at += n;
    }
    if (rc == GCMSIV_OK) rc = gcmsiv_encryptor_finish(e);
    if (rc == GCMSIV_OK) rc = drain_enc(e, file, drain_cap);
    gcmsiv_encryptor_free(e);
    return rc;
}

/* Streams file through a decryptor in pieces starting at piece `phase`;
 * out gets what it released; returns the first failure, or finish's status. */
static int decrypt_all(const gcmsiv_secret *s, const uint8_t *file, size_t len, bytes *out, size_t phase) {
    gcmsiv_decryptor *d;
    int rc = gcmsiv_decryptor_new(&d, s);
    if (rc != GCMSIV_OK) return rc;
    size_t at = 0, k = phase;
    while (at < len && rc == GCMSIV_OK) {
        size_t n = pieces[k++ % NPIECES];
        if (n > len - at) n = len - at;
        rc = gcmsiv_decryptor_push(d, file + at, n);
        int drained = drain_dec(d, out, 777 + 1000 * (k % 3));
        if (drained != GCMSIV_OK) rc = drained;
        at += n;
    }
    if (rc == GCMSIV_OK) rc = gcmsiv_decryptor_finish(d);
    gcmsiv_decryptor_free(d);
    return rc;
}

/* Opens a reader over an in-memory file and verifies its final chunk. */
static int open_reader(const gcmsiv_secret *s, const bytes *file, gcmsiv_reader **r, uint64_t *plen) {
    /* The header's length from its first bytes, asked as a reader reading
     * from the start would: 7 bytes, then as many as the answer says. */
    size_t head = 7 < file->len ? 7 : file->len, needed = 0;
    for (;;) {
        *r = NULL;
        int rc = gcmsiv_file_header_needed(file->p, head, &needed);
        if (rc != GCMSIV_OK) return rc;
        if (needed <= head || head == file->len) break;
        head = needed < file->len ? needed : file->len;
    }
    int rc = gcmsiv_reader_new(r, file->p, head, file->len, s);
    if (rc != GCMSIV_OK) return rc;
    uint64_t at, n;
    rc = gcmsiv_reader_final_chunk(*r, &at, &n);
    if (rc == GCMSIV_OK) rc = gcmsiv_reader_verify_final(*r, file->p + at, (size_t)n, plen);
    if (rc != GCMSIV_OK) {
        gcmsiv_reader_free(*r);
        *r = NULL;
    }
    return rc;
}

/* Reads plaintext offset..offset+len through the reader into out. */
static int read_range(const gcmsiv_reader *r, const bytes *file, uint64_t offset, uint64_t len, bytes *out) {
    uint64_t at, n;
    int rc = gcmsiv_reader_span(r, offset, len, &at, &n);
    if (rc != GCMSIV_OK) return rc;
    uint8_t *buf = malloc(len + 1);
    size_t got = 99;
    rc = gcmsiv_reader_read(buf, len, &got, file->p + at, (size_t)n, offset, len, r);
    if (rc == GCMSIV_OK) append(out, buf, got);
    free(buf);
    return rc;
}

static int is_error(int rc) { return rc != GCMSIV_OK; }

/* ------------------------------------------------------------- vectors */

typedef struct {
    char file[256], key[256], passphrase[256], identity[256], plaintext[256], error[256], released[256];
} vec;

static gcmsiv_secret *vector_secret(const char *dir, const vec *v) {
    gcmsiv_secret *s = NULL;
    if (v->identity[0]) {
        /* Identity files, comma-separated: their texts, one after another. */
        bytes all = {0};
        char names[256];
        snprintf(names, sizeof names, "%s", v->identity);
        char *save = NULL;
        for (char *name = strtok_r(names, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
            while (*name == ' ') name++;
            bytes text = read_file(dir, name);
            append(&all, text.p, text.len);
            append(&all, (const uint8_t *)"\n", 1);
            free(text.p);
        }
        if (gcmsiv_secret_new_identities(&s, all.p, all.len) != GCMSIV_OK) s = NULL;
        free(all.p);
    } else if (v->key[0]) {
        bytes text = read_file(dir, v->key);
        if (gcmsiv_secret_new_key_file(&s, text.p, text.len) != GCMSIV_OK) s = NULL;
        free(text.p);
    } else if (gcmsiv_secret_new_passphrase(&s, (const uint8_t *)v->passphrase, strlen(v->passphrase)) !=
               GCMSIV_OK) {
        s = NULL;
    }
    return s;
}

/* The bytes `released` names: "nothing" or FILE[..N]. */
static bytes expected_release(const char *dir, const char *spec) {
    bytes b = {0};
    append(&b, (const uint8_t *)"", 0);
    if (strcmp(spec, "nothing") == 0) return b;
    char name[256];
    size_t n;
    if (sscanf(spec, "%255[^[][..%zu]", name, &n) != 2) {
        fprintf(stderr, "bad released field %s\n", spec);
        exit(2);
    }
    free(b.p);
    b = read_file(dir, name);
    if (n < b.len) b.len = n;
    return b;
}

static void run_vector(const char *dir, const vec *v) {
    gcmsiv_secret *s = vector_secret(dir, v);
    CHECK(s != NULL, "%s: secret", v->file);
    bytes file = read_file(dir, v->file);
    bytes want = v->plaintext[0] ? read_file(dir, v->plaintext) : expected_release(dir, v->released);
    for (size_t phase = 0; phase < NPIECES; phase++) {
        bytes got = {0};
        int rc = decrypt_all(s, file.p, file.len, &got, phase);
        if (v->plaintext[0]) {
            CHECK(rc == GCMSIV_OK, "%s: stream: %s", v->file, gcmsiv_stream_error_message());
        } else {
            CHECK(is_error(rc), "%s: stream accepted a bad file", v->file);
            CHECK(strstr(gcmsiv_stream_error_message(), v->error) != NULL, "%s: message '%s', want '%s'",
                  v->file, gcmsiv_stream_error_message(), v->error);
            int auth = strstr(v->error, "wrong") || strstr(v->error, "failed authentication") ||
                       strstr(v->error, "no identity matched") || strstr(v->error, "MAC does not verify");
            CHECK((rc == GCMSIV_ERR_AUTHENTICATION) == auth, "%s: status %d", v->file, rc);
        }
        CHECK(got.len == want.len && (got.len == 0 || memcmp(got.p, want.p, got.len) == 0),
              "%s: released %zu bytes, want %zu", v->file, got.len, want.len);
        free(got.p);
    }
    /* Random access: the whole file, then ranges; a bad file fails somewhere
     * and releases nothing. */
    gcmsiv_reader *r = NULL;
    uint64_t plen = 0;
    int rc = open_reader(s, &file, &r, &plen);
    if (v->plaintext[0]) {
        CHECK(rc == GCMSIV_OK, "%s: reader: %s", v->file, gcmsiv_stream_error_message());
        CHECK(plen == want.len, "%s: plaintext length %llu", v->file, (unsigned long long)plen);
        bytes all = {0};
        CHECK(read_range(r, &file, 0, plen + 10, &all) == GCMSIV_OK, "%s: whole range", v->file);
        CHECK(all.len == want.len && (all.len == 0 || memcmp(all.p, want.p, all.len) == 0), "%s: whole",
              v->file);
        free(all.p);
        for (int i = 0; i < 200 && plen > 0; i++) {
            uint64_t off = rnd() % (plen + 2), len = rnd() % 3000;
            bytes part = {0};
            CHECK(read_range(r, &file, off, len, &part) == GCMSIV_OK, "%s: range", v->file);
            uint64_t end = off + len < plen ? off + len : plen;
            uint64_t expect = off < end ? end - off : 0;
            CHECK(part.len == expect && (expect == 0 || memcmp(part.p, want.p + off, expect) == 0),
                  "%s: range %llu+%llu", v->file, (unsigned long long)off, (unsigned long long)len);
            free(part.p);
        }
    } else if (rc == GCMSIV_OK) {
        bytes all = {0};
        rc = read_range(r, &file, 0, plen, &all);
        CHECK(is_error(rc) && all.len == 0, "%s: random access accepted a bad file", v->file);
        free(all.p);
    }
    gcmsiv_reader_free(r);
    gcmsiv_secret_free(s);
    free(file.p);
    free(want.p);
}

/* Runs every vector of `name` (manifest.txt, recipients.txt) but the ASCII-armored
 * ones: armor is the tool's and the Rust library's, and these calls take the
 * binary format. Returns how many ran. */
static int run_manifest(const char *dir, const char *name) {
    bytes text = read_file(dir, name);
    append(&text, (const uint8_t *)"\n\n", 3);
    vec v;
    memset(&v, 0, sizeof v);
    int count = 0;
    char *save = NULL;
    for (char *line = strtok_r((char *)text.p, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char k[64], val[256];
        if (line[0] == '#' || sscanf(line, "%63s = %255[^\n]", k, val) != 2) continue;
        if (strcmp(k, "file") == 0) {
            if (v.file[0] && !strstr(v.file, ".asc")) {
                run_vector(dir, &v);
                count++;
            }
            memset(&v, 0, sizeof v);
        }
        char *field = strcmp(k, "file") == 0         ? v.file
                      : strcmp(k, "key") == 0        ? v.key
                      : strcmp(k, "passphrase") == 0 ? v.passphrase
                      : strcmp(k, "identity") == 0   ? v.identity
                      : strcmp(k, "plaintext") == 0  ? v.plaintext
                      : strcmp(k, "error") == 0      ? v.error
                      : strcmp(k, "released") == 0   ? v.released
                                                     : NULL;
        if (field) snprintf(field, 256, "%s", val);
    }
    if (v.file[0] && !strstr(v.file, ".asc")) {
        run_vector(dir, &v);
        count++;
    }
    free(text.p);
    return count;
}

/* ---------------------------------------------------------- round trips */

static void round_trip(const gcmsiv_secret *s, int alg, size_t chunk, size_t len) {
    bytes pt = pattern(len), file = {0}, back = {0};
    CHECK(encrypt_all(s, alg, chunk, &pt, &file, 1 + len % 70000) == GCMSIV_OK, "encrypt %zu", len);
    size_t c = chunk ? chunk : 65536, chunks = len ? (len + c - 1) / c : 1;
    CHECK(file.len == 86 + len + 20 * chunks, "file length %zu for %zu", file.len, len);
    CHECK(decrypt_all(s, file.p, file.len, &back, len % NPIECES) == GCMSIV_OK, "decrypt %zu: %s", len,
          gcmsiv_stream_error_message());
    CHECK(back.len == len && (len == 0 || memcmp(back.p, pt.p, len) == 0), "round trip %zu", len);
    gcmsiv_reader *r;
    uint64_t plen;
    CHECK(open_reader(s, &file, &r, &plen) == GCMSIV_OK && plen == len, "reader %zu", len);
    for (int i = 0; i < 50; i++) {
        uint64_t off = len ? rnd() % len : 0, n = rnd() % (3 * c);
        bytes part = {0};
        int rc = read_range(r, &file, off, n, &part);
        uint64_t expect = off + n < len ? n : len - off;
        CHECK(rc == GCMSIV_OK && part.len == expect && (expect == 0 || memcmp(part.p, pt.p + off, expect) == 0),
              "range %llu+%llu of %zu", (unsigned long long)off, (unsigned long long)n, len);
        free(part.p);
    }
    /* A 64 KiB range reads one chunk's bytes (64 KiB chunks, aligned). */
    if (c == 65536 && len >= 3 * 65536) {
        uint64_t at, n;
        CHECK(gcmsiv_reader_span(r, 65536, 65536, &at, &n) == GCMSIV_OK && at == 86 + 65556 && n == 65556,
              "one chunk's span: %llu at %llu", (unsigned long long)n, (unsigned long long)at);
    }
    gcmsiv_reader_free(r);
    free(pt.p);
    free(file.p);
    free(back.p);
}

static void round_trips(void) {
    gcmsiv_secret *key, *pass;
    uint8_t k[32];
    for (int i = 0; i < 32; i++) k[i] = (uint8_t)(i * 9 + 1);
    CHECK(gcmsiv_secret_new_key(&key, k, 32) == GCMSIV_OK, "key");
    CHECK(gcmsiv_secret_new_passphrase(&pass, (const uint8_t *)"pass phrase", 11) == GCMSIV_OK, "pass");
    static const size_t lens[] = {0, 1, 1023, 1024, 1025, 2047, 2048, 2049, 10 * 1024 + 17, 65536, 65537};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        round_trip(key, GCMSIV_AES_256_GCM_SIV, 1024, lens[i]);
        round_trip(key, GCMSIV_AES_128_GCM_SIV, 0, lens[i]);
    }
    round_trip(key, 0, 1024, (3 << 20) + 5); /* many chunks, several batches */
    round_trip(key, GCMSIV_AES_128_GCM_SIV, 65536, (5 << 20) + 65536);
    round_trip(key, 0, 1 << 20, (1 << 20) * 2);
    round_trip(pass, GCMSIV_AES_128_GCM_SIV, 1024, 5000);
    /* A file for a key does not open with a passphrase, and the reverse. */
    bytes pt = pattern(100), file = {0}, got = {0};
    CHECK(encrypt_all(key, 0, 0, &pt, &file, 4096) == GCMSIV_OK, "encrypt");
    CHECK(decrypt_all(pass, file.p, file.len, &got, 0) == GCMSIV_ERR_FORMAT && got.len == 0, "wrong mode");
    gcmsiv_secret_free(key);
    gcmsiv_secret_free(pass);
    free(pt.p);
    free(file.p);
    free(got.p);
}

/* Every truncation, bit flip and trailing byte of a three-chunk file fails,
 * and what was released is whole authenticated chunks of the plaintext. */
static void tampering(void) {
    gcmsiv_secret *s;
    uint8_t k[32] = {1};
    CHECK(gcmsiv_secret_new_key(&s, k, 32) == GCMSIV_OK, "key");
    bytes pt = pattern(2500), file = {0};
    CHECK(encrypt_all(s, 0, 1024, &pt, &file, 999) == GCMSIV_OK, "encrypt");
    for (size_t cut = 0; cut < file.len; cut++) {
        bytes got = {0};
        int rc = decrypt_all(s, file.p, cut, &got, cut % NPIECES);
        /* Shorter than the magic is not a gcmsiv file; any other cut is truncated. */
        CHECK(rc == (cut >= 6 ? GCMSIV_ERR_TRUNCATED : GCMSIV_ERR_FORMAT), "cut at %zu: %d", cut, rc);
        CHECK(got.len % 1024 == 0 && (got.len == 0 || memcmp(got.p, pt.p, got.len) == 0), "cut %zu", cut);
        free(got.p);
        bytes short_file = {file.p, cut, cut};
        gcmsiv_reader *r;
        uint64_t plen;
        bytes part = {0};
        rc = open_reader(s, &short_file, &r, &plen);
        if (rc == GCMSIV_OK) {
            rc = read_range(r, &short_file, 0, plen, &part);
            gcmsiv_reader_free(r);
        }
        CHECK(is_error(rc) && part.len == 0, "reader accepted a file cut at %zu", cut);
        free(part.p);
    }
    for (size_t at = 0; at < file.len; at++) {
        for (int bit = (int)(at % 8); bit == (int)(at % 8); bit++) {
            file.p[at] ^= (uint8_t)(1 << bit);
            bytes got = {0};
            int rc = decrypt_all(s, file.p, file.len, &got, at % NPIECES);
            CHECK(rc == GCMSIV_ERR_AUTHENTICATION || rc == GCMSIV_ERR_FORMAT || rc == GCMSIV_ERR_TRUNCATED,
                  "flip at %zu: %d", at, rc);
            CHECK(got.len % 1024 == 0 && (got.len == 0 || memcmp(got.p, pt.p, got.len) == 0), "flip %zu", at);
            free(got.p);
            gcmsiv_reader *r;
            uint64_t plen;
            bytes part = {0};
            rc = open_reader(s, &file, &r, &plen);
            if (rc == GCMSIV_OK) {
                rc = read_range(r, &file, 0, plen, &part);
                gcmsiv_reader_free(r);
            }
            CHECK(is_error(rc) && part.len == 0, "reader accepted a flip at %zu", at);
            free(part.p);
            file.p[at] ^= (uint8_t)(1 << bit);
        }
    }
    for (size_t extra = 1; extra < 30; extra++) {
        bytes longer = {0}, got = {0};
        append(&longer, file.p, file.len);
        for (size_t i = 0; i < extra; i++) append(&longer, (const uint8_t *)"x", 1);
        int rc = decrypt_all(s, longer.p, longer.len, &got, extra % NPIECES);
        CHECK(rc == GCMSIV_ERR_FORMAT && strstr(gcmsiv_stream_error_message(), "trailing"), "trailing %zu: %d",
              extra, rc);
        CHECK(got.len == 2500 && memcmp(got.p, pt.p, got.len) == 0, "trailing %zu released %zu", extra, got.len);
        gcmsiv_reader *r;
        uint64_t plen;
        bytes part = {0};
        rc = open_reader(s, &longer, &r, &plen);
        if (rc == GCMSIV_OK) {
            rc = read_range(r, &longer, 0, plen, &part);
            gcmsiv_reader_free(r);
        }
        CHECK(is_error(rc) && part.len == 0, "reader accepted %zu trailing bytes", extra);
        free(part.p);
        free(longer.p);
        free(got.p);
    }
    gcmsiv_secret_free(s);
    free(pt.p);
    free(file.p);
}

/* ----------------------------------------------------------------- misuse */

static void misuse(void) {
    uint8_t k[32] = {7}, buf[4096];
    size_t n = 5;
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)(i * 7);
    gcmsiv_secret *s = (gcmsiv_secret *)buf; /* not NULL: a failed call must set it so */
    CHECK(gcmsiv_secret_new_key(&s, k, 31) == GCMSIV_ERR_KEY_LENGTH && s == NULL, "short key");
    CHECK(gcmsiv_secret_new_key(NULL, k, 32) == GCMSIV_ERR_NULL_POINTER, "NULL out");
    CHECK(gcmsiv_secret_new_key(&s, NULL, 32) == GCMSIV_ERR_NULL_POINTER, "NULL key");
    CHECK(gcmsiv_secret_new_passphrase(&s, NULL, 0) == GCMSIV_ERR_INVALID, "empty passphrase");
    CHECK(gcmsiv_secret_new_key_file(&s, (const uint8_t *)"hello", 5) == GCMSIV_ERR_INVALID &&
              strstr(gcmsiv_stream_error_message(), "key file"),
          "not a key file: %s", gcmsiv_stream_error_message());
    CHECK(gcmsiv_secret_new_key(&s, k, 32) == GCMSIV_OK, "key");
    gcmsiv_encryptor *e = NULL;
    CHECK(gcmsiv_encryptor_new(&e, 0, 1000, s) == GCMSIV_ERR_INVALID && e == NULL, "chunk size 1000");
    CHECK(gcmsiv_encryptor_new(&e, 0, 2 << 20, s) == GCMSIV_ERR_INVALID, "chunk size 2 MiB");
    CHECK(gcmsiv_encryptor_new(&e, GCMSIV_AES_256_GCM, 0, s) == GCMSIV_ERR_ALGORITHM, "GCM file");
    CHECK(gcmsiv_encryptor_new(&e, 0, 0, NULL) == GCMSIV_ERR_NULL_POINTER, "NULL secret");
    CHECK(gcmsiv_encryptor_new_ex(&e, 0, 0, 1 << 21, 1, 1, s) == GCMSIV_ERR_INVALID, "cost checked for a key too");
    gcmsiv_secret *p;
    CHECK(gcmsiv_secret_new_passphrase(&p, (const uint8_t *)"pw", 2) == GCMSIV_OK, "passphrase");
    CHECK(gcmsiv_encryptor_new_ex(&e, 0, 0, 1 << 21, 1, 1, p) == GCMSIV_ERR_INVALID, "cost over the cap");
    CHECK(gcmsiv_encryptor_new_ex(&e, 0, 0, 64, 0, 1, p) == GCMSIV_ERR_INVALID, "zero passes");
    gcmsiv_secret_free(p);
    CHECK(gcmsiv_encryptor_new(&e, 0, 1024, s) == GCMSIV_OK, "encryptor");
    CHECK(gcmsiv_encryptor_push(e, NULL, 3) == GCMSIV_ERR_NULL_POINTER, "NULL input");
    CHECK(gcmsiv_encryptor_push(e, buf, 10) == GCMSIV_OK, "push");
    CHECK(gcmsiv_encryptor_pending(e) == 86, "header pending: %zu", gcmsiv_encryptor_pending(e));
    CHECK(gcmsiv_encryptor_push(e, buf, 10) == GCMSIV_ERR_STATE, "push while pending");
    CHECK(gcmsiv_encryptor_drain(e, buf, 10, NULL) == GCMSIV_ERR_NULL_POINTER, "NULL out_len");
    CHECK(gcmsiv_encryptor_drain(e, NULL, 10, &n) == GCMSIV_ERR_NULL_POINTER && n == 0, "NULL out");
    CHECK(gcmsiv_encryptor_drain(e, buf, 0, &n) == GCMSIV_OK && n == 0, "zero capacity");
    bytes file = {0};
    CHECK(drain_enc(e, &file, 50) == GCMSIV_OK && file.len == 86, "drained the header");
    CHECK(gcmsiv_encryptor_finish(e) == GCMSIV_OK, "finish");
    CHECK(drain_enc(e, &file, 50) == GCMSIV_OK && file.len == 86 + 30, "the final chunk");
    CHECK(gcmsiv_encryptor_push(e, buf, 1) == GCMSIV_ERR_STATE, "push after finish");
    CHECK(gcmsiv_encryptor_finish(e) == GCMSIV_ERR_STATE, "finish twice");
    gcmsiv_encryptor_free(e);
    gcmsiv_encryptor_free(NULL);
    CHECK(gcmsiv_encryptor_push(NULL, buf, 1) == GCMSIV_ERR_NULL_POINTER, "NULL encryptor");

    gcmsiv_decryptor *d;
    CHECK(gcmsiv_decryptor_new(&d, NULL) == GCMSIV_ERR_NULL_POINTER && d == NULL, "NULL secret");
    CHECK(gcmsiv_decryptor_new(&d, s) == GCMSIV_OK, "decryptor");
    CHECK(gcmsiv_decryptor_finish(d) == GCMSIV_ERR_FORMAT, "empty input");
    gcmsiv_decryptor_free(d);
    CHECK(gcmsiv_decryptor_new(&d, s) == GCMSIV_OK, "decryptor");
    CHECK(gcmsiv_decryptor_push(d, file.p, file.len) == GCMSIV_OK, "push all");
    CHECK(gcmsiv_decryptor_pending(d) == 10, "pending %zu", gcmsiv_decryptor_pending(d));
    CHECK(gcmsiv_decryptor_push(d, file.p, 0) == GCMSIV_ERR_STATE, "push while pending");
    uint8_t out[16];
    CHECK(gcmsiv_decryptor_drain(d, out, sizeof out, &n) == GCMSIV_OK && n == 10 && memcmp(out, buf, 10) == 0,
          "drain");
    CHECK(gcmsiv_decryptor_finish(d) == GCMSIV_OK, "finish");
    CHECK(gcmsiv_decryptor_push(d, buf, 1) == GCMSIV_ERR_FORMAT, "a byte after the end");
    CHECK(gcmsiv_decryptor_finish(d) == GCMSIV_ERR_FORMAT, "the failure stays");
    gcmsiv_decryptor_free(d);

    gcmsiv_reader *r;
    CHECK(gcmsiv_reader_new(&r, file.p, 40, file.len, s) == GCMSIV_ERR_TRUNCATED && r == NULL, "short header");
    CHECK(gcmsiv_reader_new(&r, file.p, 86, file.len, s) == GCMSIV_OK, "reader");
    uint64_t at, len, plen;
    CHECK(gcmsiv_reader_span(r, 0, 5, &at, &len) == GCMSIV_ERR_STATE, "span before verify");
    CHECK(gcmsiv_reader_read(out, 16, &n, file.p + 86, 30, 0, 5, r) == GCMSIV_ERR_STATE, "read before verify");
    CHECK(gcmsiv_reader_size(r, &plen) == GCMSIV_ERR_STATE, "size before verify");
    CHECK(gcmsiv_reader_final_chunk(r, &at, NULL) == GCMSIV_ERR_NULL_POINTER, "NULL len");
    CHECK(gcmsiv_reader_final_chunk(r, &at, &len) == GCMSIV_OK && at == 86 && len == 30, "final chunk");
    CHECK(gcmsiv_reader_verify_final(r, file.p + at, 29, NULL) != GCMSIV_OK, "short final chunk");
    CHECK(gcmsiv_reader_verify_final(r, file.p + at, 30, &plen) == GCMSIV_OK && plen == 10, "verify");
    CHECK(gcmsiv_reader_size(r, &plen) == GCMSIV_OK && plen == 10, "size");
    CHECK(gcmsiv_reader_span(r, 10, 5, &at, &len) == GCMSIV_OK && len == 0, "past the end");
    CHECK(gcmsiv_reader_read(out, 16, &n, NULL, 0, 10, 5, r) == GCMSIV_OK && n == 0, "read past the end");
    CHECK(gcmsiv_reader_read(out, 4, &n, file.p + 86, 30, 2, 5, r) == GCMSIV_ERR_BUFFER_TOO_SMALL, "small out");
    CHECK(gcmsiv_reader_read(out, 16, &n, file.p + 86, 29, 2, 5, r) == GCMSIV_ERR_TRUNCATED, "short stored");
    CHECK(gcmsiv_reader_read(out, 16, &n, file.p + 86, 31, 2, 5, r) == GCMSIV_ERR_INVALID, "long stored");
    CHECK(gcmsiv_reader_read(file.p + 90, 16, &n, file.p + 86, 30, 2, 5, r) == GCMSIV_ERR_OVERLAP, "overlap");
    CHECK(gcmsiv_reader_read(out, 16, &n, file.p + 86, 30, 2, 5, r) == GCMSIV_OK && n == 5 &&
              memcmp(out, buf + 2, 5) == 0,
          "read");
    file.p[100] ^= 1;
    memset(out, 0xAA, sizeof out);
    CHECK(gcmsiv_reader_read(out, 16, &n, file.p + 86, 30, 2, 5, r) == GCMSIV_ERR_AUTHENTICATION && n == 0 &&
              out[0] == 0xAA,
          "forged: nothing released");
    gcmsiv_reader_free(r);
    gcmsiv_reader_free(NULL);
    gcmsiv_secret_free(s);
    gcmsiv_secret_free(NULL);
    free(file.p);
    CHECK(strcmp(gcmsiv_strerror(GCMSIV_ERR_TRUNCATED), "unknown status code") != 0, "strerror");
}

/* ------------------------------------------------- nonce-managed messages */

static void random_nonce(int alg, size_t key_len, size_t tag_len) {
    uint8_t k[32] = {3}, m[300], c[400], out[400];
    for (size_t i = 0; i < sizeof m; i++) m[i] = (uint8_t)i;
    gcmsiv_key *key;
    CHECK(gcmsiv_key_new_ex(&key, alg, k, key_len, tag_len, GCMSIV_BACKEND_AUTO) == GCMSIV_OK, "key");
    size_t over = gcmsiv_random_nonce_overhead(key), n, n2;
    CHECK(over == 12 + tag_len && gcmsiv_random_nonce_overhead(NULL) == 0, "overhead %zu", over);
    for (size_t len = 0; len <= 260; len += 37) {
        CHECK(gcmsiv_encrypt_random_nonce(c, len + over - 1, &n, m, len, m, 3, key) == GCMSIV_ERR_BUFFER_TOO_SMALL &&
                  n == 0,
              "small c");
        CHECK(gcmsiv_encrypt_random_nonce(c, sizeof c, &n, m, len, m, 3, key) == GCMSIV_OK && n == len + over,
              "seal %zu", len);
        uint8_t c2[400];
        CHECK(gcmsiv_encrypt_random_nonce(c2, sizeof c2, &n2, m, len, m, 3, key) == GCMSIV_OK, "seal again");
        CHECK(memcmp(c, c2, 12) != 0, "fresh nonces");
        /* The same as the nonce-taking call with that nonce. */
        CHECK(gcmsiv_encrypt(c2, sizeof c2, &n2, m, len, m, 3, c, 12, key) == GCMSIV_OK &&
                  memcmp(c2, c + 12, n2) == 0,
              "as gcmsiv_encrypt");
        CHECK(gcmsiv_decrypt_random_nonce(out, sizeof out, &n2, c, n, m, 3, key) == GCMSIV_OK && n2 == len &&
                  memcmp(out, m, len) == 0,
              "open %zu", len);
        for (size_t cut = 0; cut < over; cut++)
            CHECK(gcmsiv_decrypt_random_nonce(out, sizeof out, &n2, c, cut, m, 3, key) ==
                      GCMSIV_ERR_AUTHENTICATION,
                  "too short %zu", cut);
        for (size_t at = 0; at < n; at += 5) {
            c[at] ^= 4;
            memset(out, 0x55, sizeof out);
            CHECK(gcmsiv_decrypt_random_nonce(out, sizeof out, &n2, c, n, m, 3, key) == GCMSIV_ERR_AUTHENTICATION &&
                      n2 == 0,
                  "flip %zu", at);
            for (size_t i = 0; i < len; i++) CHECK(out[i] == 0, "released plaintext at %zu", i);
            c[at] ^= 4;
        }
        CHECK(gcmsiv_decrypt_random_nonce(out, sizeof out, &n2, c, n, m, 2, key) == GCMSIV_ERR_AUTHENTICATION,
              "other ad");
        /* In place: the plaintext at c + 12. */
        memcpy(c + 12, m, len);
        CHECK(gcmsiv_encrypt_random_nonce(c, sizeof c, &n, c + 12, len, m, 3, key) == GCMSIV_OK, "in place");
        CHECK(gcmsiv_decrypt_random_nonce(c + 12, len, &n2, c, n, m, 3, key) == GCMSIV_OK &&
                  memcmp(c + 12, m, len) == 0,
              "open in place");
    }
    CHECK(gcmsiv_encrypt_random_nonce(c, sizeof c, &n, c + 5, 10, NULL, 0, key) == GCMSIV_ERR_OVERLAP, "overlap");
    CHECK(gcmsiv_encrypt_random_nonce(c, sizeof c, &n, m, 10, NULL, 0, NULL) == GCMSIV_ERR_NULL_POINTER, "NULL key");
    CHECK(gcmsiv_decrypt_random_nonce(out, sizeof out, &n, NULL, 40, NULL, 0, key) == GCMSIV_ERR_NULL_POINTER,
          "NULL c");

    /* Batches: 9 items, one forged, one too short. */
    enum { N = 9 };
    uint8_t bufs[N][200];
    gcmsiv_sealed_item items[N];
    for (int i = 0; i < N; i++) {
        size_t len = (size_t)i * 17;
        memcpy(bufs[i] + 12, m, len);
        items[i] = (gcmsiv_sealed_item){m, (size_t)i, bufs[i], len + over, 99};
    }
    CHECK(gcmsiv_encrypt_random_nonce_batch(items, N, key) == GCMSIV_OK, "seal batch");
    for (int i = 0; i < N; i++) {
        CHECK(items[i].status == GCMSIV_OK, "item %d", i);
        CHECK(gcmsiv_decrypt_random_nonce(out, sizeof out, &n, bufs[i], items[i].sealed_len, m, (size_t)i, key) ==
                      GCMSIV_OK &&
                  n == (size_t)i * 17 && memcmp(out, m, n) == 0,
              "batch item %d opens alone", i);
    }
    bufs[4][20] ^= 1;
    items[6].sealed_len = over - 1;
    CHECK(gcmsiv_decrypt_random_nonce_batch(items, N, key) == GCMSIV_OK, "open batch");
    for (int i = 0; i < N; i++) {
        int want = (i == 4 || i == 6) ? GCMSIV_ERR_AUTHENTICATION : GCMSIV_OK;
        CHECK(items[i].status == want, "item %d status %d", i, items[i].status);
        if (want == GCMSIV_OK) CHECK(memcmp(bufs[i] + 12, m, (size_t)i * 17) == 0, "item %d plaintext", i);
    }
    items[2].sealed = bufs[1] + 5;
    CHECK(gcmsiv_decrypt_random_nonce_batch(items, N, key) == GCMSIV_ERR_OVERLAP &&
              items[0].status == GCMSIV_ERR_OVERLAP,
          "overlapping items");
    items[2].sealed = bufs[2];
    items[3].sealed_len = over - 1;
    CHECK(gcmsiv_encrypt_random_nonce_batch(items, N, key) == GCMSIV_ERR_BUFFER_TOO_SMALL, "short seal item");
    CHECK(gcmsiv_encrypt_random_nonce_batch(NULL, 0, key) == GCMSIV_OK, "empty batch");
    gcmsiv_key_free(key);
}

/* ---------------------------------------------------------- recipients */

/* A new identity of `kind` as a secret, and its recipient's text in rcpt. */
static gcmsiv_secret *new_identity(int kind, char *rcpt, size_t *rcpt_len) {
    uint8_t id[256];
    size_t id_len = 0, need = 0;
    gcmsiv_secret *s = NULL;
    if (gcmsiv_identity_generate(kind, id, 10, &need) != GCMSIV_ERR_BUFFER_TOO_SMALL || need < 60 ||
        need > gcmsiv_identity_max_bytes())
        return NULL;
    if (gcmsiv_identity_generate(kind, id, sizeof id, &id_len) != GCMSIV_OK || id_len != need) return NULL;
    if (gcmsiv_identity_recipient(id, id_len, (uint8_t *)rcpt, gcmsiv_recipient_max_bytes(), rcpt_len) !=
        GCMSIV_OK)
        return NULL;
    if (gcmsiv_secret_new_identities(&s, id, id_len) != GCMSIV_OK) s = NULL;
    memset(id, 0, sizeof id);
    return s;
}

static void recipients(void) {
    size_t max = gcmsiv_recipient_max_bytes();
    char *x = calloc(1, max + 1), *pq = calloc(1, max + 1), *both = calloc(1, 2 * max + 4);
    size_t x_len = 0, pq_len = 0;
    gcmsiv_secret *alice = new_identity(GCMSIV_RECIPIENT_X25519, x, &x_len);
    gcmsiv_secret *bob = new_identity(GCMSIV_RECIPIENT_HYBRID, pq, &pq_len);
    gcmsiv_secret *carol = new_identity(GCMSIV_RECIPIENT_X25519, both, &x_len);
    CHECK(alice && bob && carol, "identities: %s", gcmsiv_stream_error_message());
    CHECK(strncmp(x, "gcmsiv1", 7) == 0 && strncmp(pq, "gcmsivpq1", 9) == 0 && pq_len == max,
          "recipient strings: %zu of %zu", pq_len, max);
    uint8_t big[128];
    size_t need = 0;
    CHECK(gcmsiv_identity_generate(7, big, sizeof big, &need) == GCMSIV_ERR_INVALID, "unknown kind");
    CHECK(gcmsiv_identity_recipient((const uint8_t *)x, strlen(x), big, sizeof big, &need) == GCMSIV_ERR_INVALID,
          "a recipient is no identity");

    /* One file to alice (X25519) and, in a second, to bob (hybrid) too, mixed knowingly. */
    gcmsiv_secret *to_x = NULL, *mixed = NULL, *to_both_refused = NULL;
    snprintf(both, 2 * max + 4, "# team\n%s\n\n%s\n", x, pq);
    CHECK(gcmsiv_secret_new_recipients(&to_x, (const uint8_t *)x, strlen(x), 0) == GCMSIV_OK, "recipient");
    CHECK(gcmsiv_secret_new_recipients(&to_both_refused, (const uint8_t *)both, strlen(both), 0) == GCMSIV_OK,
          "both kinds parse");
    CHECK(gcmsiv_secret_new_recipients(&mixed, (const uint8_t *)both, strlen(both), 1) == GCMSIV_OK, "mixed");
    gcmsiv_secret *bad = NULL;
    CHECK(gcmsiv_secret_new_recipients(&bad, (const uint8_t *)"gcmsiv1qqqq\n", 12, 0) == GCMSIV_ERR_INVALID &&
              bad == NULL && strstr(gcmsiv_stream_error_message(), "line 1"),
          "a bad recipient names its line: %s", gcmsiv_stream_error_message());
    CHECK(gcmsiv_secret_new_recipients(&bad, (const uint8_t *)"# nobody\n", 9, 0) == GCMSIV_ERR_INVALID,
          "no recipient");
    CHECK(gcmsiv_secret_new_identities(&bad, (const uint8_t *)x, strlen(x)) == GCMSIV_ERR_INVALID && bad == NULL,
          "a recipient is no identity list");
    bytes pt = pattern(150000), file = {0}, mixed_file = {0}, back = {0};
    CHECK(encrypt_all(to_x, GCMSIV_AES_256_GCM_SIV, 4096, &pt, &file, 5000) == GCMSIV_OK, "encrypt to alice: %s",
          gcmsiv_stream_error_message());
    CHECK(encrypt_all(to_both_refused, GCMSIV_AES_256_GCM_SIV, 0, &pt, &mixed_file, 5000) == GCMSIV_ERR_INVALID,
          "both kinds refused without allow_mixed: %s", gcmsiv_stream_error_message());
    free(mixed_file.p);
    mixed_file = (bytes){0};
    CHECK(encrypt_all(mixed, GCMSIV_AES_128_GCM_SIV, 0, &pt, &mixed_file, 5000) == GCMSIV_OK, "mixed: %s",
          gcmsiv_stream_error_message());
    CHECK(decrypt_all(alice, file.p, file.len, &back, 3) == GCMSIV_OK && back.len == pt.len &&
              memcmp(back.p, pt.p, pt.len) == 0,
          "alice reads hers: %s", gcmsiv_stream_error_message());
    back.len = 0;
    CHECK(decrypt_all(bob, mixed_file.p, mixed_file.len, &back, 1) == GCMSIV_OK && back.len == pt.len,
          "bob reads the mixed file: %s", gcmsiv_stream_error_message());
    back.len = 0;
    CHECK(decrypt_all(carol, file.p, file.len, &back, 0) == GCMSIV_ERR_AUTHENTICATION && back.len == 0 &&
              strstr(gcmsiv_stream_error_message(), "no identity matched"),
          "carol reads nothing: %s", gcmsiv_stream_error_message());
    CHECK(decrypt_all(to_x, file.p, file.len, &back, 0) != GCMSIV_OK && back.len == 0, "recipients cannot read");
    gcmsiv_secret *key = NULL;
    uint8_t k[32] = {1};
    CHECK(gcmsiv_secret_new_key(&key, k, 32) == GCMSIV_OK, "key");
    CHECK(decrypt_all(key, file.p, file.len, &back, 0) == GCMSIV_ERR_FORMAT && back.len == 0 &&
              strstr(gcmsiv_stream_error_message(), "identit"),
          "a key for a file to recipients: %s", gcmsiv_stream_error_message());
    /* Random access to a version 2 file: its header is longer than 86 bytes. */
    gcmsiv_reader *r = NULL;
    uint64_t plen = 0;
    CHECK(open_reader(alice, &file, &r, &plen) == GCMSIV_OK && plen == pt.len, "reader: %s",
          gcmsiv_stream_error_message());
    bytes part = {0};
    CHECK(read_range(r, &file, 70000, 9000, &part) == GCMSIV_OK && part.len == 9000 &&
              memcmp(part.p, pt.p + 70000, 9000) == 0,
          "range of a file to recipients");
    gcmsiv_reader_free(r);
    size_t needed = 0;
    CHECK(gcmsiv_file_header_needed(mixed_file.p, 7, &needed) == GCMSIV_OK && needed == 44, "fixed part: %zu",
          needed);
    CHECK(gcmsiv_file_header_needed(mixed_file.p, 44, &needed) == GCMSIV_OK && needed == 45, "first stanza: %zu",
          needed);
    for (size_t have = 45; needed == have || needed > have;) {
        have = needed;
        CHECK(gcmsiv_file_header_needed(mixed_file.p, have, &needed) == GCMSIV_OK, "stanzas at %zu", have);
        if (needed <= have) break;
    }
    CHECK(needed > 44 + 1000 && needed <= gcmsiv_file_header_max_bytes(), "two stanzas: %zu", needed);
    CHECK(gcmsiv_file_header_needed((const uint8_t *)"NOTGCM", 6, &needed) == GCMSIV_ERR_FORMAT, "not a file");
    free(part.p);
    free(pt.p);
    free(file.p);
    free(mixed_file.p);
    free(back.p);
    gcmsiv_secret_free(key);
    gcmsiv_secret_free(to_x);
    gcmsiv_secret_free(mixed);
    gcmsiv_secret_free(to_both_refused);
    gcmsiv_secret_free(alice);
    gcmsiv_secret_free(bob);
    gcmsiv_secret_free(carol);
    free(x);
    free(pq);
    free(both);
}

int main(int argc, char **argv) {
    if (argc != 2 && !(argc == 3 && strcmp(argv[2], "quick") == 0)) {
        fprintf(stderr, "usage: %s VECTORS_FORMAT_DIR [quick]\n", argv[0]);
        return 2;
    }
    int vectors = run_manifest(argv[1], "manifest.txt");
    int v2 = run_manifest(argv[1], "recipients.txt");
    recipients();
    round_trips();
    if (argc == 2) tampering();
    misuse();
    random_nonce(GCMSIV_AES_128_GCM_SIV, 16, 16);
    random_nonce(GCMSIV_AES_256_GCM_SIV, 32, 16);
    random_nonce(GCMSIV_AES_128_GCM, 16, 16);
    random_nonce(GCMSIV_AES_256_GCM, 32, 12);
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    if (vectors < 10 || v2 < 15) {
        fprintf(stderr, "only %d format vectors and %d to recipients read\n", vectors, v2);
        return 1;
    }
    printf("stream: %d format vectors, %d to recipients (the armored ones are the tool's), round trips, "
           "recipients, tampering, misuse, nonce-managed calls: ok\n",
           vectors, v2);
    return 0;
}
