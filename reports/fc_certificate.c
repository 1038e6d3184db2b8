/*
 * fc_certificate.c - per-rack certificates (fc_certificate.h): what goes
 * in, and the file: its canonical form, its SHA-256 digest and (with a
 * secret key) its detached Ed25519 signature (fc_sign.h says the format;
 * keys, digests and `verify` are in fc_sign.c). Each judged record is one
 * figure: what every figure has is here, what its type adds comes from the
 * record-type table (fc_record.h; each family's fc_<family>_records.c).
 */
#include "fc_certificate.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fc_alloc.h"
#include "fc_record.h"
#include "fc_report_text.h"
#include "fc_sensitivity.h"
#include "fc_sign.h"
#include "fc_verdict_figures.h"
#include "fc_results.h"

/* One judged record as the certificate shows it: figures beside limits. */
static json_t *fc_cert_figure(json_t *rec)
{
    const fc_record_type_t *t = fc_record_type_of(rec);
    char label[256], why[512];
    json_t *f;

    fc_check_label(rec, label, sizeof(label));
    /* the report's verdict on the record: wrong bits in its own figures
     * fail it whatever the stage wrote, a limit they fail its PASS
     * (fc_verdict_figures.h) */
    f = json_pack("{s:s, s:s}", "check", label, "verdict", fc_record_verdict(rec));
    if (t->figure)
        t->figure(rec, f);
    /* what a confirmation alone found (DESIGN rule 2), where one ran */
    if (json_is_object(json_object_get(rec, "confirmation")))
        json_object_set_new(f, "confirmation",
                            json_deep_copy(json_object_get(rec, "confirmation")));
    if (json_array_size(json_object_get(rec, "reasons")) > 0)
        json_object_set_new(f, "reasons", json_deep_copy(json_object_get(rec, "reasons")));
    if (fc_record_rejudged(rec, why, sizeof(why))) {
        const char *text = why;

        if (json_object_get(f, "reasons") == NULL)
            json_object_set_new(f, "reasons", json_array());
        json_array_insert_new(json_object_get(f, "reasons"), 0, json_string(text));
        json_object_set_new(f, "verdict_recorded", json_string(fc_json_str(rec, "verdict")));
    }
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
                if (json_is_string(json_object_get(q, "nic"))) {    /* for its rail */
                    json_object_set(why, "nic", json_object_get(q, "nic"));
                    json_object_set(why, "rail", json_object_get(q, "rail"));
                }
            }
        fc_verdict_t nv = fc_node_verdict(r, host, &nfail);
        json_t *inv = json_null(), *c;
        size_t ci;

        /* the node's inventory, from its latest preflight record */
        json_array_foreach(r->checks, ci, c)
            if (fc_record_id(c) == FC_RECORD_PREFLIGHT &&
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
        json_t *figures, *timed, *rec;

        if (!v->planned[s])
            continue;
        figures = json_array();
        timed = json_array();
        json_array_foreach(r->checks, i, rec)
            if (strcmp(fc_json_str(rec, "stage"), fc_stage_name(s)) == 0) {
                json_array_append_new(figures, fc_cert_figure(rec));
                json_array_append(timed, rec);
            }
        json_t *st = json_pack(
            "{s:s, s:b, s:b, s:b, s:s, s:i, s:i, s:o, s:o, s:o}", "stage", fc_stage_name(s),
            "required", v->required[s], "selected", v->selected[s], "ran",
            r->stages[s].ran, "verdict", fc_verdict_name(r->stages[s].verdict),
            "checks", r->stages[s].checks, "failed", r->stages[s].failed,
            "backend", fc_backend_json(&r->stages[s]), "figures", figures,
            /* DESIGN rule 3: how small a loss its limits would have caught */
            "sensitivity", fc_sensitivity_stage(timed, fc_stage_group_noun(s)));

        /* failures of a wrong result a host placed elsewhere explains:
         * not this rack's, each with why (absent when none) */
        {
            json_t *ex = json_array(), *e;
            size_t k;

            json_array_foreach(r->explained, k, e)
                if (strcmp(fc_json_str(e, "stage"), fc_stage_name(s)) == 0)
                    json_array_append(ex, e);
            if (json_array_size(ex) > 0)
                json_object_set_new(st, "explained", ex);
            else
                json_decref(ex);
        }
        /* a sampled pairs stage says so (absent for the full matrix) */
        if (r->stages[s].coverage[0])
            json_object_set_new(st, "coverage", json_string(r->stages[s].coverage));
        json_array_append_new(stages, st);
        json_decref(timed);
    }
    for (int f = 0; f < r->nfindings; ++f) {
        const fc_finding_t *fd = &r->findings[f];

        json_array_append_new(failures, json_pack(
            "{s:s, s:s, s:s, s:s, s:s, s:s}", "verdict", fc_verdict_name(fd->verdict),
            "stage", fd->stage, "part", fd->part, "host", fd->host, "evidence",
            fd->text, "action", fc_part_action(fd->part)));
    }
    json_t *overrides = json_object_get(plan, "overrides"), *cert;

    cert = json_pack("{s:s, s:s, s:s, s:{s:s, s:s, s:s, s:s}, s:{s:s, s:s}, "
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
    /* the hosts the rack map gives the rack that the run left out: its
     * nodes are not the whole rack (absent when none were) */
    if (cert && json_array_size(r->hosts_left_out) > 0)
        json_object_set_new(cert, "hosts_left_out", json_deep_copy(r->hosts_left_out));
    /* a run carried on after an interruption says when, and what it ran
     * again (absent when it ran in one go) */
    if (cert && json_array_size(v->resumes) > 0)
        json_object_set_new(cert, "resumed", json_deep_copy(v->resumes));
    /* a rerun after a repair names the earlier run (absent otherwise) */
    if (cert && json_is_object(json_object_get(plan, "rerun_of")))
        json_object_set_new(cert, "rerun_of", json_deep_copy(json_object_get(plan, "rerun_of")));
    return cert;
}

static fc_status_t fc_write_file(const char *path, const char *text, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    size_t len = strlen(text);

    if (fd < 0 || write(fd, text, len) != (ssize_t)len || close(fd) != 0) {
        fc_write_failed(path, errno);
        fprintf(stderr, "fabcert: cannot write %s: %s\n", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return FC_ERR_INVALID;
    }
    return FC_OK;
}

fc_status_t fc_certificate_file_write(const char *path, json_t *cert,
                                      const unsigned char *secret_key)
{
    char *body = fc_canonical_dump(cert), *text, hex[65];
    json_t *doc;
    fc_status_t st;

    fc_sha256_hex(body, strlen(body), hex);
    doc = json_pack("{s:o, s:{s:s, s:s}}", "certificate", cert, "digest",
                    "algorithm", "sha256", "value", hex);
    text = fc_canonical_dump(doc);
    {
        size_t n = strlen(text);
        char *line = fc_xmalloc(n + 2, "a certificate's text");

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
        fc_hex_encode(sig, sizeof(sig), sighex);
        strcat(sighex, "\n");
        snprintf(sigpath, sizeof(sigpath), "%s.sig", path);
        st = fc_write_file(sigpath, sighex, 0644);
    }
    free(body);
    free(text);
    json_decref(doc);
    return st;
}

fc_status_t fc_certificate_write(const char *dir, const fc_run_verdict_t *v,
                                 const fc_rack_verdict_t *r,
                                 const unsigned char *secret_key)
{
    char path[4200];

    snprintf(path, sizeof(path), "%s/certificates/%s.json", dir, r->rack);
    return fc_certificate_file_write(path, fc_certificate_build(v, r), secret_key);
}
