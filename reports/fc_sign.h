/*
 * fc_sign.h - what proves a certificate: its format, its canonical form,
 * its SHA-256 digest, Ed25519 keys and signatures (libsodium), and
 * `fabcert verify`. A certificate file is {"certificate": {...},
 * "digest": {"algorithm": "sha256", "value": HEX}}, written in canonical
 * form: keys sorted, no whitespace, reals with 6 significant digits,
 * ASCII, one final newline. The digest is the SHA-256 of the canonical
 * bytes of the "certificate" member; the signature signs those same
 * bytes. The certificate writer (fc_certificate.c) builds on these; this
 * module reads no verdict.
 */
#ifndef FC_SIGN_H
#define FC_SIGN_H

#include <jansson.h>
#include <stddef.h>

#include "fc_status.h"

#define FC_CERT_FORMAT "fabcert-certificate/1"
/* `fabcert compare`'s per-rack delta certificate (fc_compare.h): the same
 * file format, digest and signature; verify checks it the same way. */
#define FC_DELTA_FORMAT "fabcert-delta-certificate/1"

/* Canonical serialisation (malloc'ed, no trailing newline). */
char *fc_canonical_dump(const json_t *obj);

/* Key files: one line "fabcert-ed25519-secret HEX" / "...-public HEX".
 * keygen never overwrites a file nor follows a link. */
fc_status_t fc_keygen(const char *prefix);
fc_status_t fc_key_load(const char *path, int secret, unsigned char *key,
                        size_t len);
/* Lower-case hex of n bytes into out (2n + 1 bytes); SHA-256 as hex. */
void fc_hex_encode(const unsigned char *in, size_t n, char *out);
void fc_sha256_hex(const char *bytes, size_t len, char hex[65]);
/* SHA-256 of a file's bytes (compare and baseline name their input runs
 * by their results.jsonl's); says why on failure (FC_ERR_INVALID). */
fc_status_t fc_sha256_file(const char *path, const char *what, char hex[65]);

/* Verify a certificate file, read as bytes with its real length:
 * canonical form, digest (intact), and with a public key its .sig
 * (authenticated). Without a key it says the file is intact but not
 * authenticated; require_signature then fails it. Prints what passed and
 * what failed. Returns FC_OK, FC_ERR_FAIL (tampered, or not signed when
 * required) or FC_ERR_INVALID (missing file, bad key). */
fc_status_t fc_certificate_verify(const char *path, const char *pubkey_path,
                                  int require_signature);

#endif
