/* The README's example: seal and open one message with AES-256-GCM-SIV. */
#include "gcmsiv.h"

#include <stdio.h>
#include <string.h>

int main(void) {
    uint8_t key[32] = {0};   /* in practice: 32 random bytes, kept secret */
    uint8_t nonce[12] = {0}; /* in practice: random, or a counter */
    const char *msg = "attack at dawn";
    uint8_t sealed[64], opened[64];
    size_t sealed_len, opened_len;
    gcmsiv_key *k;

    if (gcmsiv_key_new(&k, GCMSIV_AES_256_GCM_SIV, key, sizeof key) != GCMSIV_OK) return 1;
    int rc = gcmsiv_encrypt(sealed, sizeof sealed, &sealed_len, (const uint8_t *)msg, strlen(msg),
                            (const uint8_t *)"header", 6, nonce, sizeof nonce, k);
    if (rc != GCMSIV_OK) return 1;
    rc = gcmsiv_decrypt(opened, sizeof opened, &opened_len, sealed, sealed_len,
                        (const uint8_t *)"header", 6, nonce, sizeof nonce, k);
    if (rc != GCMSIV_OK) {
        fprintf(stderr, "%s\n", gcmsiv_strerror(rc)); /* "authentication failed" */
        return 1;
    }
    printf("%.*s (%zu bytes sealed, on %s, %d-bit)\n", (int)opened_len, opened, sealed_len,
           gcmsiv_key_backend(k), gcmsiv_key_backend_bits(k));
    gcmsiv_key_free(k);
    return 0;
}
