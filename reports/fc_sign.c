/*
 * fc_sign.c - what proves a certificate: digests, Ed25519 keys (libsodium),
 * `fabcert keygen` and `fabcert verify`.
 *
 * Two different promises, and verify says which one it gives:
 *   - intact: the file is exactly {"certificate": ..., "digest":
 *     {"algorithm": "sha256", "value": ...}} (no other member, no other
 *     algorithm), byte for byte the canonical serialisation of what it
 *     holds (read with its real length: a NUL or anything after the final
 *     newline fails), and the SHA-256 stored beside the certificate member
 *     matches it. The digest is not keyed: whoever can edit the file can
 *     recompute it, so this proves only that the file was not damaged or
 *     clumsily edited, not who wrote it;
 *   - authenticated: the detached Ed25519 signature (RACK.json.sig) over the
 *     same bytes verifies with a public key the reader trusts (--pubkey).
 * The file's name must be its rack's (RACK.json): a certificate copied
 * over another rack's file fails. Beside the verdict, verify says what
 * ran: the certificate's command-line overrides and the environment that
 * shaped the measurement, and the rack's hosts the run left out.
 * A site that signs its certificates passes --require-signature (or a
 * profile with certificates: {require_signature: true} makes the run
 * demand a key): then a certificate without a checked signature fails.
 *
 * keygen creates PREFIX.key (mode 600) and PREFIX.pub with O_EXCL |
 * O_NOFOLLOW: it never overwrites a file and never follows a symbolic link
 * planted where a key is to be written.
 */
#include "fc_sign.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fc_alloc.h"
#include "fc_input.h"
#include "fc_inventory.h"
#include "fc_json.h"
#include "fc_report_text.h"


char *fc_canonical_dump(const json_t *obj)
{
    return json_dumps(obj, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII |
                           JSON_REAL_PRECISION(6));
}

void fc_hex_encode(const unsigned char *in, size_t n, char *out)
{
    sodium_bin2hex(out, 2 * n + 1, in, n);
}

void fc_sha256_hex(const char *bytes, size_t len, char hex[65])
{
    unsigned char d[crypto_hash_sha256_BYTES];

    crypto_hash_sha256(d, (const unsigned char *)bytes, len);
    fc_hex_encode(d, sizeof(d), hex);
}

/* Exactly 2n hex digits, then the end of the text or one final newline. */
static int fc_unhex(const char *in, size_t len, unsigned char *out, size_t n)
{
    const char *end = NULL;
    size_t got = 0;

    if (len != 2 * n && !(len == 2 * n + 1 && in[2 * n] == '\n'))
        return -1;
    if (sodium_hex2bin(out, n, in, 2 * n, NULL, &got, &end) != 0 || got != n)
        return -1;
    return 0;
}

fc_status_t fc_sha256_file(const char *path, const char *what, char hex[65])
{
    crypto_hash_sha256_state h;
    unsigned char d[crypto_hash_sha256_BYTES], buf[65536];
    int fd;
    ssize_t n;

    if (fc_input_open(path, what, FC_INPUT_RESULTS_MAX, &fd, NULL) != FC_OK)
        return FC_ERR_INVALID;
    crypto_hash_sha256_init(&h);
    while ((n = read(fd, buf, sizeof(buf))) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            fprintf(stderr, "fabcert: %s: read error: %s\n", path, strerror(errno));
            close(fd);
            return FC_ERR_INVALID;
        }
        crypto_hash_sha256_update(&h, buf, (unsigned long long)n);
    }
    close(fd);
    crypto_hash_sha256_final(&h, d);
    fc_hex_encode(d, sizeof(d), hex);
    return FC_OK;
}

/* Create path for writing: never an existing file, never through a link. */
static int fc_create_excl(const char *path, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);

    if (fd < 0) {
        fprintf(stderr, "fabcert: %s: %s%s\n", path, strerror(errno),
                errno == EEXIST ? " (a file or a symbolic link is there): not "
                "overwriting it; remove it or choose another prefix" : "");
        return -1;
    }
    if (fchmod(fd, mode) != 0) {        /* exactly this mode, whatever the umask */
        fprintf(stderr, "fabcert: %s: chmod %o: %s\n", path, mode, strerror(errno));
        close(fd);
        unlink(path);
        return -1;
    }
    return fd;
}

static fc_status_t fc_write_all(int fd, const char *path, const char *text)
{
    size_t len = strlen(text);
    ssize_t n = write(fd, text, len);

    if (n != (ssize_t)len || fsync(fd) != 0) {
        fprintf(stderr, "fabcert: cannot write %s: %s\n", path,
                n < 0 ? strerror(errno) : "short write");
        return FC_ERR_INVALID;
    }
    return FC_OK;
}

fc_status_t fc_keygen(const char *prefix)
{
    unsigned char pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
    char hex[2 * crypto_sign_SECRETKEYBYTES + 1], line[300], skpath[4200], pkpath[4200];
    fc_status_t st = FC_ERR_INVALID;
    int skfd, pkfd;

    if (sodium_init() < 0) {
        fprintf(stderr, "fabcert: libsodium failed to initialise\n");
        return FC_ERR_INTERNAL;
    }
    snprintf(skpath, sizeof(skpath), "%s.key", prefix);
    snprintf(pkpath, sizeof(pkpath), "%s.pub", prefix);
    /* both files are claimed before either is written */
    if ((skfd = fc_create_excl(skpath, 0600)) < 0)
        return FC_ERR_INVALID;
    if ((pkfd = fc_create_excl(pkpath, 0644)) < 0)
        goto out_unlink;
    crypto_sign_keypair(pk, sk);
    fc_hex_encode(sk, sizeof(sk), hex);
    snprintf(line, sizeof(line), "fabcert-ed25519-secret %s\n", hex);
    sodium_memzero(sk, sizeof(sk));
    st = fc_write_all(skfd, skpath, line);
    sodium_memzero(line, sizeof(line));
    sodium_memzero(hex, sizeof(hex));
    if (st == FC_OK) {
        fc_hex_encode(pk, sizeof(pk), hex);
        snprintf(line, sizeof(line), "fabcert-ed25519-public %s\n", hex);
        st = fc_write_all(pkfd, pkpath, line);
    }
    close(pkfd);
    if (st != FC_OK)
        unlink(pkpath);
out_unlink:
    close(skfd);
    if (st != FC_OK) {
        unlink(skpath);
        return st;
    }
    printf("secret key: %s (owner only)\npublic key: %s\n", skpath, pkpath);
    return FC_OK;
}

fc_status_t fc_key_load(const char *path, int secret, unsigned char *key, size_t len)
{
    const char *tag = secret ? "fabcert-ed25519-secret " : "fabcert-ed25519-public ";
    size_t tlen = strlen(tag), n = 0;
    char *text = NULL;
    struct stat sb;
    fc_status_t st = FC_OK;

    if (fc_input_read(path, secret ? "secret key" : "public key", FC_INPUT_KEY_MAX, &text,
                      &n) != FC_OK)
        return FC_ERR_INVALID;
    if (n < tlen || memcmp(text, tag, tlen) != 0 ||
        fc_unhex(text + tlen, n - tlen, key, len) != 0) {
        fprintf(stderr, "fabcert: %s:1: not a fabcert %s key (expected '%sHEX' and "
                "nothing else)\n", path, secret ? "secret" : "public", tag);
        st = FC_ERR_INVALID;
    } else if (secret && stat(path, &sb) == 0 && (sb.st_mode & 077) != 0) {
        fprintf(stderr, "fabcert: %s: a secret key must be readable by its owner "
                "only (chmod 600)\n", path);
        st = FC_ERR_INVALID;
    }
    sodium_memzero(text, n);
    free(text);
    return st;
}

/* The file must be the canonical bytes of doc and one newline, nothing
 * more: compared on the real length, so a NUL and a suffix cannot hide. */
static int fc_cert_is_canonical(const char *path, const char *text, size_t len,
                                const char *canon)
{
    size_t n = strlen(canon), at = 0;

    if (len == n + 1 && memcmp(text, canon, n) == 0 && text[n] == '\n')
        return 1;
    while (at < n && at < len && text[at] == canon[at])
        ++at;
    if (at == n && len > n + 1 && text[n] == '\n')
        printf("%s: FAILED: %zu byte(s) after the certificate's final newline: bytes "
               "were added to the file\n", path, len - n - 1);
    else
        printf("%s: FAILED: not in canonical form (first difference at byte "
               "%zu): the file was edited after it was written\n", path, at);
    return 0;
}

/* The detached signature beside path, checked against body with pubkey. */
static fc_status_t fc_cert_check_signature(const char *path, const char *pubkey_path,
                                           const char *body)
{
    unsigned char pk[crypto_sign_PUBLICKEYBYTES], sig[crypto_sign_BYTES];
    char sigpath[4200], *sigtext = NULL;
    size_t siglen = 0;
    fc_status_t st = FC_ERR_FAIL;

    if (fc_key_load(pubkey_path, 0, pk, sizeof(pk)) != FC_OK)
        return FC_ERR_INVALID;
    snprintf(sigpath, sizeof(sigpath), "%s.sig", path);
    if (access(sigpath, F_OK) != 0) {
        printf("%s: FAILED: no signature (%s: %s)\n", path, sigpath, strerror(errno));
        return FC_ERR_FAIL;
    }
    if (fc_input_read(sigpath, "signature", FC_INPUT_KEY_MAX, &sigtext, &siglen) != FC_OK)
        return FC_ERR_FAIL;
    if (fc_unhex(sigtext, siglen, sig, sizeof(sig)) != 0)
        printf("%s: FAILED: %s is not one signature (%zu hex digits and a newline "
               "expected)\n", path, sigpath, 2 * sizeof(sig));
    else if (crypto_sign_verify_detached(sig, (const unsigned char *)body, strlen(body),
                                         pk) != 0)
        printf("%s: FAILED: signature does not match: signed by another key, "
               "or the certificate or %s was changed\n", path, sigpath);
    else {
        printf("%s: signature OK (key %s): authenticated: the holder of that key's "
               "secret signed these bytes\n", path, pubkey_path);
        st = FC_OK;
    }
    free(sigtext);
    return st;
}

/* The file is exactly {"certificate": {...}, "digest": {"algorithm":
 * "sha256", "value": 64 lower-case hex digits}}: a member beside them
 * (a "verdict" appended after the signed certificate) is outside what the
 * digest and the signature cover, so a reader could take it for the
 * verdict; another algorithm ("none") would make the digest say nothing. */
static int fc_cert_has_shape(const char *path, json_t *doc)
{
    json_t *digest = json_object_get(doc, "digest"), *v;
    const char *key, *alg = fc_json_str(digest, "algorithm");
    const char *hex = fc_json_str(digest, "value");
    size_t n = strlen(hex);

    json_object_foreach(doc, key, v)
        if (strcmp(key, "certificate") != 0 && strcmp(key, "digest") != 0) {
            printf("%s: FAILED: a member '%s' beside the certificate and its digest: "
                   "nothing outside the certificate member is covered by the digest or "
                   "the signature; the file was edited after it was written\n", path, key);
            return 0;
        }
    json_object_foreach(digest, key, v)
        if (strcmp(key, "algorithm") != 0 && strcmp(key, "value") != 0) {
            printf("%s: FAILED: the digest has a member '%s': it holds algorithm and "
                   "value only\n", path, key);
            return 0;
        }
    if (strcmp(alg, "sha256") != 0) {
        printf("%s: FAILED: digest algorithm '%s': a fabcert certificate's digest is "
               "sha256\n", path, alg);
        return 0;
    }
    if (n != 64 || strspn(hex, "0123456789abcdef") != n) {
        printf("%s: FAILED: the digest value is not 64 lower-case hex digits\n", path);
        return 0;
    }
    return 1;
}

/* Parse, then check shape, canonical form and digest; *doc_p and *body_p
 * on FC_OK. */
static fc_status_t fc_cert_check_intact(const char *path, const char *text, size_t len,
                                        json_t **doc_p, char **body_p)
{
    char *canon = NULL, *body = NULL, hex[65];
    json_t *doc, *cert;
    json_error_t jerr;
    const char *want;
    fc_status_t st = FC_ERR_FAIL;

    if (memchr(text, '\0', len) != NULL) {
        size_t at = (size_t)((const char *)memchr(text, '\0', len) - text);

        printf("%s: FAILED: a NUL byte at byte %zu of %zu: a certificate is ASCII "
               "text; bytes were added to or changed in the file\n", path, at, len);
        return FC_ERR_FAIL;
    }
    doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (doc == NULL) {
        printf("%s: FAILED: not valid JSON (line %d, column %d: %s): the file "
               "was damaged or edited\n", path, jerr.line, jerr.column, jerr.text);
        return FC_ERR_FAIL;
    }
    cert = json_object_get(doc, "certificate");
    want = json_string_value(json_object_get(json_object_get(doc, "digest"), "value"));
    if (!json_is_object(cert) || want == NULL ||
        (strcmp(fc_json_str(cert, "format"), FC_CERT_FORMAT) != 0 &&
         strcmp(fc_json_str(cert, "format"), FC_DELTA_FORMAT) != 0)) {
        printf("%s: FAILED: not a %s or %s certificate (no certificate or digest)\n",
               path, FC_CERT_FORMAT, FC_DELTA_FORMAT);
        goto out;
    }
    if (!fc_cert_has_shape(path, doc))
        goto out;
    canon = fc_canonical_dump(doc);
    if (!fc_cert_is_canonical(path, text, len, canon))
        goto out;
    body = fc_canonical_dump(cert);
    fc_sha256_hex(body, strlen(body), hex);
    if (strcmp(hex, want) != 0) {
        printf("%s: FAILED: digest mismatch: the certificate's content hashes to "
               "%s, the recorded digest is %s: its content was changed\n", path,
               hex, want);
        goto out;
    }
    st = FC_OK;
out:
    free(canon);
    if (st == FC_OK) {
        *doc_p = doc;
        *body_p = body;
    } else {
        free(body);
        json_decref(doc);
    }
    return st;
}

/* A certificate is written as RACK.json: a file named for another rack (a
 * PASS copied over a failed rack's certificate) would be read as that
 * rack's, so the name must be the rack's own, whatever the directory. */
static int fc_cert_named_for_rack(const char *path, const char *rack)
{
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    size_t n = strlen(rack);

    if (strncmp(base, rack, n) == 0 && strcmp(base + n, ".json") == 0)
        return 1;
    printf("%s: FAILED: the file is named %s, but it certifies rack %s (a certificate "
           "is RACK.json): it was copied or renamed, and would be read as another "
           "rack's\n", path, base, rack);
    return 0;
}

/* A verdict is what it is under what ran: the certificate's command-line
 * overrides and the environment that shaped the measurement, said beside
 * the verdict (a PASS of a run with --iters 1 is not the profile's). */
static void fc_cert_say_what_ran(const char *path, json_t *cert)
{
    json_t *env = json_object_get(json_object_get(cert, "plan"), "environment");
    const char *profile = fc_json_str(json_object_get(cert, "profile"), "name");
    char text[4096];

    fc_settings_text(json_object_get(cert, "overrides"), " ", text, sizeof(text));
    if (text[0])
        fc_print_line(stdout, "%s: overrides: %s (not the profile %s as written)", path, text,
                      profile);
    else
        fc_print_line(stdout, "%s: overrides: none (the profile %s as written)", path, profile);
    fc_settings_text(env, "=", text, sizeof(text));
    if (text[0])
        fc_print_line(stdout, "%s: environment: %s (set where the run was launched; they "
                      "shape what was measured and are not in the profile)", path, text);
    else
        fc_print_line(stdout, "%s: environment: %s", path, json_is_object(env)
                      ? "none that shapes the measurement" : "not recorded");
    if (json_is_object(json_object_get(cert, "rerun_of"))) {
        fc_rerun_text(json_object_get(cert, "rerun_of"), text, sizeof(text));
        fc_print_line(stdout, "%s: %s", path, text);
    }
    if (json_array_size(json_object_get(cert, "hosts_left_out")) > 0) {
        json_t *left = json_object_get(cert, "hosts_left_out"), *h;
        size_t i, used = 0, shown = 0;

        text[0] = '\0';
        json_array_foreach(left, i, h)      /* the first few: the file has them all */
            if (used + 80 < sizeof(text) / 8) {
                used += (size_t)snprintf(text + used, sizeof(text) - used, "%s%.64s",
                                         i ? ", " : "", json_is_string(h)
                                         ? json_string_value(h) : "?");
                ++shown;
            }
        fc_print_line(stdout, "%s: %zu host(s) the rack map gives the rack were left out of "
                      "the run: %s%s", path, json_array_size(left), text,
                      shown < json_array_size(left) ? ", ..." : "");
    }
}

/* A delta certificate (fabcert compare) says what it compared: both runs,
 * named by the SHA-256 of their results, and its statement. */
static void fc_cert_say_compared(const char *path, json_t *cert)
{
    static const char *const sides[2] = { "before", "after" };

    fc_print_line(stdout, "%s: delta certificate: %s", path, fc_json_str(cert, "statement"));
    for (int s = 0; s < 2; ++s) {
        json_t *in = json_object_get(cert, sides[s]);

        fc_print_line(stdout, "%s: %s: run %s, results.jsonl sha256 %s, profile %s, its own "
                      "verdict %s", path, sides[s], fc_json_str(in, "run_id"),
                      fc_json_str(in, "results_sha256"),
                      fc_json_str(json_object_get(in, "profile"), "name"),
                      json_is_string(json_object_get(in, "verdict"))
                      ? fc_json_str(in, "verdict") : "none (the rack was not in it)");
    }
}

fc_status_t fc_certificate_verify(const char *path, const char *pubkey_path,
                                  int require_signature)
{
    char *text = NULL, *body = NULL, sigpath[4200];
    json_t *doc = NULL, *cert;
    size_t len = 0;
    fc_status_t st;
    int misnamed;

    if (sodium_init() < 0 ||
        fc_input_read(path, "certificate", FC_INPUT_DOC_MAX, &text, &len) != FC_OK)
        return FC_ERR_INVALID;
    st = fc_cert_check_intact(path, text, len, &doc, &body);
    free(text);
    if (st != FC_OK)
        return st;
    cert = json_object_get(doc, "certificate");
    printf("%s: digest OK (sha256 %s): rack %s, verdict %s\n", path,
           fc_json_str(json_object_get(doc, "digest"), "value"), fc_json_str(cert, "rack"),
           fc_json_str(cert, "verdict"));
    if (strcmp(fc_json_str(cert, "format"), FC_DELTA_FORMAT) == 0)
        fc_cert_say_compared(path, cert);
    else
        fc_cert_say_what_ran(path, cert);
    misnamed = !fc_cert_named_for_rack(path, fc_json_str(cert, "rack"));
    if (pubkey_path != NULL) {
        st = fc_cert_check_signature(path, pubkey_path, body);
    } else {
        snprintf(sigpath, sizeof(sigpath), "%s.sig", path);
        printf("%s: intact, NOT AUTHENTICATED: the digest is an unkeyed SHA-256 stored "
               "in the file; anyone who can edit the file can change it and recompute "
               "the digest. Only a signature checked with --pubkey shows who wrote it%s\n",
               path, access(sigpath, F_OK) == 0 ? " (a signature file is there: give "
               "--pubkey to check it)" : " (there is no signature file)");
        if (require_signature) {
            printf("%s: FAILED: --require-signature: no public key to check a "
                   "signature with (--pubkey PUB)\n", path);
            st = FC_ERR_FAIL;
        }
    }
    if (misnamed && st != FC_ERR_INVALID)
        st = FC_ERR_FAIL;
    free(body);
    json_decref(doc);
    return st;
}
