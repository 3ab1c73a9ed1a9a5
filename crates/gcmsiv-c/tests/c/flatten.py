"""Writes the shared AEAD vector files as lines for the C test (vectors.c).

One line per vector: algorithm (1-4, as in gcmsiv.h), tag length, expected
result (1 valid, 0 invalid), then key, nonce, aad, plaintext, ciphertext and
tag in hex ("-" for empty). The vectors' own fields are read here and nowhere
else; the C side knows only this format.
"""

import json
import os
import sys

ALG = {("siv", 16): 1, ("siv", 32): 2, ("gcm", 16): 3, ("gcm", 32): 4}


def line(kind, key, nonce, aad, pt, ct, tag, valid):
    alg = ALG.get((kind, len(key) // 2))
    if alg is None:  # AES-192, which the library does not offer
        return
    fields = [str(alg), str(len(tag) // 2), "1" if valid else "0", key, nonce, aad, pt or "", ct, tag]
    print(" ".join(f if f else "-" for f in fields))


def main(folder):
    def load(name):
        with open(os.path.join(folder, name)) as f:
            return json.load(f)

    rfc = load("rfc8452.json")
    for v in rfc["vectors"] + rfc["additional_vectors"] + load("boringssl_gcm_siv.json")["vectors"]:
        ct = v["ciphertext"]
        line("siv", v["key"], v["nonce"], v["aad"], v["plaintext"], ct[:-32], ct[-32:], v["result"] == "valid")
    for kind, name in (("siv", "wycheproof_aes_gcm_siv.json"), ("gcm", "wycheproof_aes_gcm.json")):
        for group in load(name)["testGroups"]:
            for t in group["tests"]:
                if kind == "gcm" and not t["iv"]:
                    continue  # a zero-length IV: a misuse case, tested in vectors.c itself
                line(kind, t["key"], t["iv"], t["aad"], t["msg"], t["ct"], t["tag"], t["result"] == "valid")
    for v in load("gcm_nist.json")["vectors"]:
        line("gcm", v["key"], v["iv"], v["aad"], v["plaintext"], v["ciphertext"], v["tag"], v["result"] == "valid")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../../../vectors"))
