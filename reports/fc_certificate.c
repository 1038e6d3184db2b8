/*
 * fc_certificate.c - per-rack certificates: what goes in, the canonical
 * form, the SHA-256 digest, Ed25519 keys and signatures (libsodium), and
 * `verify`. See fc_report.h for the format. Verification checks three
 * things in order and says which failed: the file is exactly the canonical
 * serialisation of what it holds (so no byte can change unnoticed, not
 * even white space), the digest matches the certificate member, and the
 * signature (when a public key is given) matches the same bytes.
 */
#include "fc_report.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fc_inventory.h"
#include "fc_results.h"

char *fc_canonical_dump(const json_t *obj)
{
    return json_dumps(obj, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII |
                           JSON_REAL_PRECISION(6));
}

static json_t *fc_limit_or_null(json_t *limit, const char *key)
{
    json_t *v = json_object_get(limit, key);

    return json_is_number(v) && json_number_value(v) >= 0
               ? json_real(json_number_value(v)) : json_null();
}

static json_t *fc_json_or_null(json_t *v)
{
    return v ? json_deep_copy(v) : json_null();
}

/* One judged record as the certificate shows it: figures beside limits. */
static json_t *fc_cert_figure(json_t *rec)
{
    const char *type = fc_json_str(rec, "type");
    char label[256];
    json_t *f;

    fc_check_label(rec, label, sizeof(label));
    f = json_pack("{s:s, s:s}", "check", label, "verdict", fc_json_str(rec, "verdict"));
    if (strcmp(type, "point") == 0) {
        json_t *limit = json_object_get(rec, "limit");
        json_t *rel = json_object_get(rec, "relative");

        json_object_set_new(f, "group", json_string(fc_json_str(rec, "group")));
        json_object_set_new(f, "bytes", fc_json_or_null(json_object_get(rec, "bytes")));
        json_object_set_new(f, "busbw_gbps", fc_json_or_null(json_object_get(rec, "busbw_gbps")));
        json_object_set_new(f, "time_median_us", fc_json_or_null(
            json_object_get(json_object_get(rec, "time_us"), "median")));
        if (json_is_object(json_object_get(rec, "soak"))) {
            json_t *soak = json_object_get(rec, "soak");

            json_object_set_new(f, "soak_runs", fc_json_or_null(json_object_get(soak, "runs")));
            json_object_set_new(f, "soak_windows", json_integer(
                (json_int_t)json_array_size(json_object_get(soak, "windows"))));
            json_object_set_new(f, "drift_pct", fc_json_or_null(json_object_get(soak, "drift_pct")));
            json_object_set_new(f, "max_drift_pct", fc_limit_or_null(soak, "max_drift_pct"));
        }
        json_object_set_new(f, "wrong", fc_json_or_null(json_object_get(rec, "wrong")));
        json_object_set_new(f, "min_busbw_gbps", fc_limit_or_null(limit, "min_busbw_gbps"));
        json_object_set_new(f, "max_latency_us", fc_limit_or_null(limit, "max_latency_us"));
        json_object_set_new(f, "peer_median_busbw_gbps",
                            fc_limit_or_null(rel, "peer_median_busbw_gbps"));
    } else if (strcmp(type, "pair") == 0) {
        json_object_set_new(f, "host_a", json_string(fc_json_str(rec, "host_a")));
        json_object_set_new(f, "host_b", json_string(fc_json_str(rec, "host_b")));
        json_object_set_new(f, "latency_us", fc_json_or_null(json_object_get(rec, "latency_us")));
        json_object_set_new(f, "sizes", fc_json_or_null(json_object_get(rec, "sizes")));
    } else if (strcmp(type, "contention") == 0) {
        json_object_set_new(f, "group", json_string(fc_json_str(rec, "group")));
        json_object_set_new(f, "bytes", fc_json_or_null(json_object_get(rec, "bytes")));
        json_object_set_new(f, "kind", json_string(fc_json_str(rec, "kind")));
        json_object_set_new(f, "clean_median_us", fc_json_or_null(json_object_get(rec, "clean_median_us")));
        json_object_set_new(f, "loaded_median_us", fc_json_or_null(json_object_get(rec, "loaded_median_us")));
        json_object_set_new(f, "slowdown", fc_json_or_null(json_object_get(rec, "slowdown")));
        json_object_set_new(f, "max_slowdown", fc_limit_or_null(rec, "max_slowdown"));
        json_object_set_new(f, "background", fc_json_or_null(json_object_get(rec, "background")));
        if (json_object_get(rec, "background_hosts"))
            json_object_set_new(f, "background_hosts",
                                fc_json_or_null(json_object_get(rec, "background_hosts")));
        json_object_set_new(f, "wrong", fc_json_or_null(json_object_get(rec, "wrong")));
    } else if (strcmp(type, "preflight") == 0) {
        json_object_set_new(f, "host", json_string(fc_json_str(rec, "host")));
    } else if (strcmp(type, "soak_counters") == 0) {
        json_object_set_new(f, "host", json_string(fc_json_str(rec, "host")));
        json_object_set_new(f, "counter_deltas", fc_json_or_null(json_object_get(rec, "links")));
        json_object_set_new(f, "max_error_delta", fc_json_or_null(json_object_get(rec, "max_error_delta")));
    } else if (strcmp(type, "pairs_node") == 0) {
        json_object_set_new(f, "host", json_string(fc_json_str(rec, "host")));
        json_object_set_new(f, "slow_partners", fc_json_or_null(json_object_get(rec, "slow_partners")));
        json_object_set_new(f, "partners", fc_json_or_null(json_object_get(rec, "partners")));
    } else {
        json_object_set_new(f, "host", json_string(fc_json_str(rec, "host")));
        json_object_set_new(f, "ranks", json_string(fc_json_str(rec, "ranks")));
        json_object_set_new(f, "stuck_at", json_string(fc_json_str(rec, "stuck_at")));
    }
    if (json_array_size(json_object_get(rec, "reasons")) > 0)
        json_object_set_new(f, "reasons", json_deep_copy(json_object_get(rec, "reasons")));
    return f;
}

/* A node FAILs when it was quarantined or a failing check implicates it.
 * Otherwise it PASSes only on evidence: not when a required stage did not
 * run on it, not when its rack is INCOMPLETE, and not when its rack FAILs
 * for a reason not yet placed on a host (the whole group is suspect until
 * a retest places it). */
static fc_verdict_t fc_node_verdict(const fc_rack_verdict_t *r, const char *host,
                                    int *failed_p)
{
    size_t i;
    json_t *rec;
    int failed = 0;

    json_array_foreach(r->failed_checks, i, rec)
        if (strcmp(fc_json_str(json_object_get(rec, "implicates"), "host"), host) == 0)
            ++failed;
    *failed_p = failed;
    json_array_foreach(r->quarantines, i, rec)
        if (strcmp(fc_json_str(rec, "host"), host) == 0)
            return FC_VERDICT_FAIL;
    if (failed)
        return FC_VERDICT_FAIL;
    for (int f = 0; f < r->nfindings; ++f) {
        const fc_finding_t *fd = &r->findings[f];

        if ((fd->verdict == FC_VERDICT_INCOMPLETE && strcmp(fd->host, host) == 0) ||
            (fd->verdict == FC_VERDICT_FAIL && fd->host[0] == '\0'))
            return FC_VERDICT_INCOMPLETE;
    }
    return r->verdict == FC_VERDICT_FAIL ? FC_VERDICT_PASS : r->verdict;
}

/* The backend a stage really ran on for this rack, what was asked for,
 * and why it fell back (null members when it did not start). */
static json_t *fc_backend_json(const fc_stage_verdict_t *sv)
{
    return json_pack("{s:o, s:o, s:o, s:O}",
                     "used", sv->backend[0] ? json_string(sv->backend) : json_null(),
                     "requested", sv->backend_requested[0]
                         ? json_string(sv->backend_requested) : json_null(),
                     "fallback", sv->backend_note[0]
                         ? json_string(sv->backend_note) : json_null(),
                     "gpu_plugin", sv->gpu_plugin ? sv->gpu_plugin : json_null());
}

/* What ran: the profile's stages, the ones this invocation ran, how it
 * launched, and every command-line override (an empty object when the
 * profile ran as written). */
static json_t *fc_cert_plan(const fc_run_verdict_t *v)
{
    json_t *profile_stages = json_array(), *run_stages = json_array();
    json_t *launch = json_object_get(v->plan, "launch");

    for (int s = 0; s < FC_STAGE_COUNT; ++s) {
        if (!v->planned[s])
            continue;
        json_array_append_new(profile_stages, json_string(fc_stage_name(s)));
        if (v->selected[s])
            json_array_append_new(run_stages, json_string(fc_stage_name(s)));
    }
    json_t *env = json_object_get(v->plan, "environment");

    return json_pack("{s:o, s:o, s:o, s:o}", "profile_stages", profile_stages,
                     "run_stages", run_stages, "launch",
                     launch ? json_deep_copy(launch) : json_null(), "environment",
                     env ? json_deep_copy(env) : json_null());
}

json_t *fc_certificate_build(const fc_run_verdict_t *v, const fc_rack_verdict_t *r)
{
    json_t *plan = v->plan, *nodes = json_array(), *stages = json_array();
    json_t *failures = json_array(), *inv_hosts;
    size_t i;
    json_t *h;

    inv_hosts = json_object_get(json_object_get(plan, "inventory"), "hosts");
    json_array_foreach(inv_hosts, i, h) {
        const char *host = fc_json_str(h, "host");
        json_t *node, *q, *why = json_null();
        size_t k;
        int nfail = 0;

        if (strcmp(fc_json_str(h, "rack"), r->rack) != 0)
            continue;
        json_array_foreach(r->quarantines, k, q)
            if (strcmp(fc_json_str(q, "host"), host) == 0 && json_is_null(why)) {
                json_decref(why);
                why = json_pack("{s:s, s:s, s:s}", "stage", fc_json_str(q, "stage"),
                                "part", fc_json_str(q, "part"), "reason",
                                fc_json_str(q, "reason"));
            }
        fc_verdict_t nv = fc_node_verdict(r, host, &nfail);
        json_t *inv = json_null(), *c;
        size_t ci;

        /* the node's inventory, from its latest preflight record */
        json_array_foreach(r->checks, ci, c)
            if (strcmp(fc_json_str(c, "type"), "preflight") == 0 &&
                strcmp(fc_json_str(c, "host"), host) == 0) {
                json_decref(inv);
                inv = json_deep_copy(json_object_get(c, "inventory"));
            }
        node = json_pack("{s:s, s:s, s:b, s:o, s:s, s:i, s:o}", "host", host, "rack", r->rack,
                         "quarantined", !json_is_null(why), "quarantine", why,
                         "verdict", fc_verdict_name(nv), "failed_checks", nfail,
                         "inventory", inv ? inv : json_null());
        json_array_append_new(nodes, node);
    }
    for (int s = 0; s < FC_STAGE_COUNT; ++s) {
        json_t *figures, *rec;

        if (!v->planned[s])
            continue;
        figures = json_array();
        json_array_foreach(r->checks, i, rec)
            if (strcmp(fc_json_str(rec, "stage"), fc_stage_name(s)) == 0)
                json_array_append_new(figures, fc_cert_figure(rec));
        json_array_append_new(stages, json_pack(
            "{s:s, s:b, s:b, s:b, s:s, s:i, s:i, s:o, s:o}", "stage", fc_stage_name(s),
            "required", v->required[s], "selected", v->selected[s], "ran",
            r->stages[s].ran, "verdict", fc_verdict_name(r->stages[s].verdict),
            "checks", r->stages[s].checks, "failed", r->stages[s].failed,
            "backend", fc_backend_json(&r->stages[s]), "figures", figures));
    }
    for (int f = 0; f < r->nfindings; ++f) {
        const fc_finding_t *fd = &r->findings[f];

        json_array_append_new(failures, json_pack(
            "{s:s, s:s, s:s, s:s, s:s, s:s}", "verdict", fc_verdict_name(fd->verdict),
            "stage", fd->stage, "part", fd->part, "host", fd->host, "evidence",
            fd->text, "action", fc_part_action(fd->part)));
    }
    json_t *overrides = json_object_get(plan, "overrides");

    return json_pack("{s:s, s:s, s:s, s:{s:s, s:s, s:s, s:s}, s:{s:s, s:s}, "
                     "s:o, s:o, s:o, s:i, s:i, s:o, s:o}",
                     "format", FC_CERT_FORMAT, "rack", r->rack, "verdict",
                     fc_verdict_name(r->verdict), "run", "id", v->run_id,
                     "started", v->started, "finished", v->finished,
                     "tool_version", fc_json_str(plan, "version"), "profile",
                     "name", fc_json_str(plan, "profile"), "sha256",
                     fc_json_str(plan, "profile_sha256"), "nodes", nodes,
                     "stages", stages, "failures", failures, "more_failures",
                     r->more_findings, "truncated_records", v->truncated_lines,
                     "plan", fc_cert_plan(v), "overrides",
                     overrides ? json_deep_copy(overrides) : json_object());
}

/* hex of n bytes into out (2n + 1 bytes) */
static void fc_hex(const unsigned char *in, size_t n, char *out)
{
    sodium_bin2hex(out, 2 * n + 1, in, n);
}

/* exactly 2n hex digits, then the end of the text or of the line */
static int fc_unhex(const char *in, unsigned char *out, size_t n)
{
    const char *end = NULL;
    size_t got = 0;

    if (sodium_hex2bin(out, n, in, strlen(in), NULL, &got, &end) != 0 || got != n)
        return -1;
    return *end == '\0' || *end == '\n' ? 0 : -1;
}

static void fc_sha256_hex(const char *bytes, char hex[65])
{
    unsigned char d[crypto_hash_sha256_BYTES];

    crypto_hash_sha256(d, (const unsigned char *)bytes, strlen(bytes));
    fc_hex(d, sizeof(d), hex);
}

static fc_status_t fc_write_file(const char *path, const char *text, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    size_t len = strlen(text);

    if (fd < 0 || write(fd, text, len) != (ssize_t)len || close(fd) != 0) {
        fprintf(stderr, "fabcert: cannot write %s: %s\n", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return FC_ERR_INVALID;
    }
    return FC_OK;
}

fc_status_t fc_certificate_write(const char *dir, const fc_run_verdict_t *v,
                                 const fc_rack_verdict_t *r,
                                 const unsigned char *secret_key)
{
    json_t *cert = fc_certificate_build(v, r), *doc;
    char *body = fc_canonical_dump(cert), *text, path[4200], hex[65];
    fc_status_t st;

    fc_sha256_hex(body, hex);
    doc = json_pack("{s:o, s:{s:s, s:s}}", "certificate", cert, "digest",
                    "algorithm", "sha256", "value", hex);
    text = fc_canonical_dump(doc);
    snprintf(path, sizeof(path), "%s/certificates/%s.json", dir, r->rack);
    {
        size_t n = strlen(text);
        char *line = malloc(n + 2);

        memcpy(line, text, n);
        line[n] = '\n';
        line[n + 1] = '\0';
        st = fc_write_file(path, line, 0644);
        free(line);
    }
    if (st == FC_OK && secret_key != NULL) {
        unsigned char sig[crypto_sign_BYTES];
        char sighex[2 * crypto_sign_BYTES + 2], sigpath[4300];

        crypto_sign_detached(sig, NULL, (const unsigned char *)body, strlen(body),
                             secret_key);
        fc_hex(sig, sizeof(sig), sighex);
        strcat(sighex, "\n");
        snprintf(sigpath, sizeof(sigpath), "%s.sig", path);
        st = fc_write_file(sigpath, sighex, 0644);
    }
    free(body);
    free(text);
    json_decref(doc);
    return st;
}

fc_status_t fc_keygen(const char *prefix)
{
    unsigned char pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
    char hex[2 * crypto_sign_SECRETKEYBYTES + 1], line[300], path[4200];
    fc_status_t st;

    if (sodium_init() < 0) {
        fprintf(stderr, "fabcert: libsodium failed to initialise\n");
        return FC_ERR_INTERNAL;
    }
    snprintf(path, sizeof(path), "%s.key", prefix);
    if (access(path, F_OK) == 0) {
        fprintf(stderr, "fabcert: %s exists; not overwriting a key\n", path);
        return FC_ERR_INVALID;
    }
    crypto_sign_keypair(pk, sk);
    fc_hex(sk, sizeof(sk), hex);
    snprintf(line, sizeof(line), "fabcert-ed25519-secret %s\n", hex);
    sodium_memzero(sk, sizeof(sk));
    st = fc_write_file(path, line, 0600);
    sodium_memzero(line, sizeof(line));
    if (st != FC_OK)
        return st;
    chmod(path, 0600);      /* whatever the umask */
    printf("secret key: %s (owner only)\n", path);
    snprintf(path, sizeof(path), "%s.pub", prefix);
    fc_hex(pk, sizeof(pk), hex);
    snprintf(line, sizeof(line), "fabcert-ed25519-public %s\n", hex);
    st = fc_write_file(path, line, 0644);
    if (st == FC_OK)
        printf("public key: %s\n", path);
    return st;
}

fc_status_t fc_key_load(const char *path, int secret, unsigned char *key, size_t len)
{
    const char *tag = secret ? "fabcert-ed25519-secret " : "fabcert-ed25519-public ";
    char *text = NULL;
    struct stat sb;
    fc_status_t st = FC_OK;

    if (fc_read_text_file(path, &text) != FC_OK)
        return FC_ERR_INVALID;
    if (strncmp(text, tag, strlen(tag)) != 0 || strlen(text) < strlen(tag) + 2 * len ||
        fc_unhex(text + strlen(tag), key, len) != 0) {
        fprintf(stderr, "fabcert: %s:1: not a fabcert %s key (expected '%sHEX')\n",
                path, secret ? "secret" : "public", tag);
        st = FC_ERR_INVALID;
    } else if (secret && stat(path, &sb) == 0 && (sb.st_mode & 077) != 0) {
        fprintf(stderr, "fabcert: %s: a secret key must be readable by its owner "
                "only (chmod 600)\n", path);
        st = FC_ERR_INVALID;
    }
    sodium_memzero(text, strlen(text));
    free(text);
    return st;
}

fc_status_t fc_certificate_verify(const char *path, const char *pubkey_path)
{
    char *text = NULL, *canon = NULL, *body = NULL, hex[65];
    json_t *doc = NULL, *cert;
    json_error_t jerr;
    fc_status_t st = FC_ERR_FAIL;
    const char *want;
    size_t n;

    if (sodium_init() < 0 || fc_read_text_file(path, &text) != FC_OK)
        return FC_ERR_INVALID;
    doc = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
    if (doc == NULL) {
        printf("%s: FAILED: not valid JSON (line %d, column %d: %s): the file "
               "was damaged or edited\n", path, jerr.line, jerr.column, jerr.text);
        goto out;
    }
    cert = json_object_get(doc, "certificate");
    want = json_string_value(json_object_get(json_object_get(doc, "digest"), "value"));
    if (!json_is_object(cert) || want == NULL ||
        strcmp(fc_json_str(cert, "format"), FC_CERT_FORMAT) != 0) {
        printf("%s: FAILED: not a %s certificate (no certificate or digest)\n",
               path, FC_CERT_FORMAT);
        goto out;
    }
    canon = fc_canonical_dump(doc);
    n = strlen(canon);
    if (strlen(text) != n + 1 || memcmp(text, canon, n) != 0 || text[n] != '\n') {
        size_t at = 0;

        while (at < n && text[at] == canon[at])
            ++at;
        printf("%s: FAILED: not in canonical form (first difference at byte "
               "%zu): the file was edited after it was written\n", path, at);
        goto out;
    }
    body = fc_canonical_dump(cert);
    fc_sha256_hex(body, hex);
    if (strcmp(hex, want) != 0) {
        printf("%s: FAILED: digest mismatch: the certificate's content hashes to "
               "%s, the recorded digest is %s: its content was changed\n", path,
               hex, want);
        goto out;
    }
    printf("%s: digest OK (sha256 %s): rack %s, verdict %s\n", path, hex,
           fc_json_str(cert, "rack"), fc_json_str(cert, "verdict"));
    if (pubkey_path != NULL) {
        unsigned char pk[crypto_sign_PUBLICKEYBYTES], sig[crypto_sign_BYTES];
        char sigpath[4200], *sigtext = NULL;

        if (fc_key_load(pubkey_path, 0, pk, sizeof(pk)) != FC_OK) {
            st = FC_ERR_INVALID;
            goto out;
        }
        snprintf(sigpath, sizeof(sigpath), "%s.sig", path);
        if (fc_read_text_file(sigpath, &sigtext) != FC_OK) {
            printf("%s: FAILED: no signature (%s)\n", path, sigpath);
            goto out;
        }
        if (fc_unhex(sigtext, sig, sizeof(sig)) != 0 ||
            crypto_sign_verify_detached(sig, (const unsigned char *)body,
                                        strlen(body), pk) != 0) {
            printf("%s: FAILED: signature does not match: signed by another key, "
                   "or the certificate or %s was changed\n", path, sigpath);
            free(sigtext);
            goto out;
        }
        free(sigtext);
        printf("%s: signature OK (key %s)\n", path, pubkey_path);
    }
    st = FC_OK;
out:
    free(text);
    free(canon);
    free(body);
    json_decref(doc);
    return st;
}
