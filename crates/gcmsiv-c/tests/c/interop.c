/*
 * The C ABI's interop entry point for the cross-language test:
 *   interop encrypt <keyhex> <chunk_size> <aes128|aes256> <in> <out>
 *   interop decrypt <keyhex> <in> <out>
 *   interop range <keyhex> <in> <offset> <length> <out>
 * encrypt streams the plaintext through gcmsiv_encryptor in pieces of 1, 1000
 * and 65537 bytes in rotation; decrypt streams through gcmsiv_decryptor and
 * writes exactly what it released; range reads through gcmsiv_reader. Exit 0,
 * or 1 with one line on stderr, "authentication: ..." or "format: ...".
 */
#define _POSIX_C_SOURCE 200809L
#define _FILE_OFFSET_BITS 64
#include "gcmsiv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void) {
    fprintf(stderr,
            "usage: interop encrypt KEYHEX CHUNK_SIZE aes128|aes256 IN OUT\n"
            "       interop decrypt KEYHEX IN OUT\n"
            "       interop range KEYHEX IN OFFSET LENGTH OUT\n");
    return 2;
}

static int die(const char *what) {
    fprintf(stderr, "error: %s\n", what);
    return 2;
}

/* Exit 1 with the status's class and this thread's last stream message. */
static int failed(int rc) {
    const char *msg = gcmsiv_stream_error_message();
    if (!msg[0]) msg = gcmsiv_strerror(rc);
    if (rc == GCMSIV_ERR_AUTHENTICATION) {
        fprintf(stderr, "authentication: %s\n", msg);
        return 1;
    }
    if (rc == GCMSIV_ERR_FORMAT || rc == GCMSIV_ERR_TRUNCATED) {
        fprintf(stderr, "format: %s\n", msg);
        return 1;
    }
    fprintf(stderr, "error: %s\n", msg);
    return 2;
}

/* The whole of a small text file (a recipients or identity file), or NULL. */
static uint8_t *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    uint8_t *buf = malloc(1 << 20);
    *len = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    return buf;
}

/* The secret argument: 64 hex digits (a key), recipients=PATH or identities=PATH. */
static int secret_from_hex(const char *hex, gcmsiv_secret **s) {
    int recipients = strncmp(hex, "recipients=", 11) == 0, identities = strncmp(hex, "identities=", 11) == 0;
    if (recipients || identities) {
        size_t len = 0;
        uint8_t *text = slurp(hex + 11, &len);
        if (!text) return GCMSIV_ERR_INVALID;
        int rc = recipients ? gcmsiv_secret_new_recipients(s, text, len, 0) : gcmsiv_secret_new_identities(s, text, len);
        memset(text, 0, len);
        free(text);
        return rc;
    }
    uint8_t key[32];
    if (strlen(hex) != 64) return GCMSIV_ERR_KEY_LENGTH;
    for (int i = 0; i < 32; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1) return GCMSIV_ERR_KEY_LENGTH;
        key[i] = (uint8_t)v;
    }
    int rc = gcmsiv_secret_new_key(s, key, sizeof key);
    memset(key, 0, sizeof key);
    return rc;
}

static int write_all(FILE *f, const uint8_t *p, size_t n) { return n == 0 || fwrite(p, 1, n, f) == n; }

static int encrypt(gcmsiv_secret *s, size_t chunk, int alg, FILE *in, FILE *out) {
    static const size_t pieces[] = {1, 1000, 65537};
    static uint8_t buf[65537], drained[1 << 16];
    gcmsiv_encryptor *e;
    int rc = gcmsiv_encryptor_new(&e, alg, chunk, s);
    if (rc != GCMSIV_OK) return failed(rc);
    for (size_t k = 0;; k++) {
        size_t n = fread(buf, 1, pieces[k % 3], in);
        int end = n == 0;
        rc = end ? gcmsiv_encryptor_finish(e) : gcmsiv_encryptor_push(e, buf, n);
        while (rc == GCMSIV_OK && gcmsiv_encryptor_pending(e) > 0) {
            size_t got;
            rc = gcmsiv_encryptor_drain(e, drained, sizeof drained, &got);
            if (rc == GCMSIV_OK && !write_all(out, drained, got)) {
                gcmsiv_encryptor_free(e);
                return die("cannot write the output");
            }
        }
        if (rc != GCMSIV_OK || end) break;
    }
    gcmsiv_encryptor_free(e);
    if (ferror(in)) return die("cannot read the input");
    return rc == GCMSIV_OK ? 0 : failed(rc);
}

static int decrypt(gcmsiv_secret *s, FILE *in, FILE *out) {
    static uint8_t buf[1 << 16], drained[1 << 16];
    gcmsiv_decryptor *d;
    int rc = gcmsiv_decryptor_new(&d, s);
    if (rc != GCMSIV_OK) return failed(rc);
    for (;;) {
        size_t n = fread(buf, 1, sizeof buf, in);
        rc = n == 0 ? gcmsiv_decryptor_finish(d) : gcmsiv_decryptor_push(d, buf, n);
        /* What a failing push released (authenticated chunks) is written too. */
        while (gcmsiv_decryptor_pending(d) > 0) {
            size_t got;
            if (gcmsiv_decryptor_drain(d, drained, sizeof drained, &got) != GCMSIV_OK ||
                !write_all(out, drained, got)) {
                gcmsiv_decryptor_free(d);
                return die("cannot write the output");
            }
        }
        if (rc != GCMSIV_OK || n == 0) break;
    }
    memset(drained, 0, sizeof drained);
    gcmsiv_decryptor_free(d);
    if (ferror(in)) return die("cannot read the input");
    return rc == GCMSIV_OK ? 0 : failed(rc);
}

/* Reads n bytes at offset into a new buffer (NULL if the file is shorter). */
static uint8_t *read_at(FILE *f, uint64_t offset, uint64_t n) {
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf || fseeko(f, (off_t)offset, SEEK_SET) != 0 || fread(buf, 1, n, f) != n) {
        free(buf);
        return NULL;
    }
    return buf;
}

static int range(gcmsiv_secret *s, FILE *in, uint64_t offset, uint64_t len, FILE *out) {
    if (fseeko(in, 0, SEEK_END) != 0) return die("cannot seek the input");
    uint64_t size = (uint64_t)ftello(in);
    /* The header's length from its first bytes (longer than 86 for a file to recipients). */
    size_t head_len = size < 7 ? (size_t)size : 7, needed = 0;
    uint8_t *head = read_at(in, 0, head_len);
    while (head && head_len < size && gcmsiv_file_header_needed(head, head_len, &needed) == GCMSIV_OK &&
           needed > head_len) {
        free(head);
        head_len = needed < size ? needed : (size_t)size;
        head = read_at(in, 0, head_len);
    }
    if (!head) return die("cannot read the input");
    gcmsiv_reader *r;
    int rc = gcmsiv_reader_new(&r, head, head_len, size, s);
    free(head);
    if (rc != GCMSIV_OK) return failed(rc);
    uint64_t at, n, plen;
    rc = gcmsiv_reader_final_chunk(r, &at, &n);
    uint8_t *stored = rc == GCMSIV_OK ? read_at(in, at, n) : NULL;
    if (rc == GCMSIV_OK) rc = stored ? gcmsiv_reader_verify_final(r, stored, (size_t)n, &plen) : GCMSIV_ERR_TRUNCATED;
    free(stored);
    if (rc == GCMSIV_OK) rc = gcmsiv_reader_span(r, offset, len, &at, &n);
    uint8_t *plain = NULL;
    size_t got = 0;
    if (rc == GCMSIV_OK && n > 0) {
        stored = read_at(in, at, n);
        uint64_t want = offset + len < plen ? len : plen - offset;
        plain = malloc(want ? want : 1);
        rc = stored && plain ? gcmsiv_reader_read(plain, (size_t)want, &got, stored, (size_t)n, offset, len, r)
                             : GCMSIV_ERR_TRUNCATED;
        free(stored);
    }
    gcmsiv_reader_free(r);
    if (rc != GCMSIV_OK) {
        free(plain);
        return failed(rc);
    }
    int ok = write_all(out, plain, got);
    if (plain) memset(plain, 0, got);
    free(plain);
    return ok ? 0 : die("cannot write the output");
}

int main(int argc, char **argv) {
    if (argc < 2) return usage();
    const char *cmd = argv[1];
    int enc = strcmp(cmd, "encrypt") == 0, dec = strcmp(cmd, "decrypt") == 0, rng = strcmp(cmd, "range") == 0;
    if ((enc && argc != 7) || (dec && argc != 5) || (rng && argc != 7) || !(enc || dec || rng)) return usage();
    gcmsiv_secret *s;
    if (secret_from_hex(argv[2], &s) != GCMSIV_OK)
        return die("the secret must be 64 hex digits, recipients=PATH or identities=PATH");
    const char *in_path = enc ? argv[5] : argv[3];
    const char *out_path = enc ? argv[6] : dec ? argv[4] : argv[6];
    FILE *in = fopen(in_path, "rb");
    if (!in) {
        gcmsiv_secret_free(s);
        return die("cannot open the input");
    }
    FILE *out = fopen(out_path, "wb");
    if (!out) {
        fclose(in);
        gcmsiv_secret_free(s);
        return die("cannot create the output");
    }
    int status;
    if (enc) {
        int alg = strcmp(argv[4], "aes128") == 0   ? GCMSIV_AES_128_GCM_SIV
                  : strcmp(argv[4], "aes256") == 0 ? GCMSIV_AES_256_GCM_SIV
                                                   : -1;
        status = alg < 0 ? usage() : encrypt(s, (size_t)strtoull(argv[3], NULL, 10), alg, in, out);
    } else if (dec) {
        status = decrypt(s, in, out);
    } else {
        status = range(s, in, strtoull(argv[4], NULL, 10), strtoull(argv[5], NULL, 10), out);
    }
    gcmsiv_secret_free(s);
    fclose(in);
    if (fclose(out) != 0 && status == 0) status = die("cannot write the output");
    return status;
}
