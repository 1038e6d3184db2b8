/*
 * fc_report.c - `fabcert report DIR`: load results.jsonl, compute the
 * verdicts (fc_verdict.c), and write the certificates, HTML, JUnit and
 * the summary (fc_report.h lists the files). Also the helpers the writers
 * share: labels for checks and the action a technician takes per part.
 */
#include "fc_report.h"

#include <errno.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_results.h"
#include "fc_verdict_plan.h"

void fc_check_label(json_t *rec, char *buf, size_t len)
{
    const char *type = fc_json_str(rec, "type");

    if (strcmp(type, "point") == 0 || strcmp(type, "contention") == 0) {
        const char *op = fc_json_str(rec, "op");
        char size[32];
        int contention = strcmp(type, "contention") == 0;

        fc_format_size((uint64_t)json_integer_value(json_object_get(rec, "bytes")),
                       size, sizeof(size));
        snprintf(buf, len, "%s %s%s%s %s on %s%s%s", fc_json_str(rec, "collective"),
                 fc_json_str(rec, "dtype"), strcmp(op, "none") ? " " : "",
                 strcmp(op, "none") ? op : "", size, fc_json_str(rec, "group"),
                 contention ? " under " : "", contention ? fc_json_str(rec, "kind") : "");
    } else if (strcmp(type, "pair") == 0) {
        snprintf(buf, len, "pair %s <-> %s", fc_json_str(rec, "host_a"),
                 fc_json_str(rec, "host_b"));
    } else if (strcmp(type, "pairs_node") == 0) {
        snprintf(buf, len, "link of %s", fc_json_str(rec, "host"));
    } else if (strcmp(type, "preflight") == 0) {
        snprintf(buf, len, "inventory of %s", fc_json_str(rec, "host"));
    } else if (strcmp(type, "soak_counters") == 0) {
        snprintf(buf, len, "link error counters of %s", fc_json_str(rec, "host"));
    } else if (strcmp(type, "retest") == 0) {
        snprintf(buf, len, "retest of the %s in %s", strcmp(fc_json_str(rec, "kind"), "slow")
                 ? "wrong result" : "slowness", fc_json_str(rec, "group")[0]
                 ? fc_json_str(rec, "group") : "the stage");
    } else if (strcmp(type, "hang") == 0) {
        snprintf(buf, len, "arrival of %s", fc_json_str(rec, "host")[0]
                 ? fc_json_str(rec, "host") : "every rank");
    } else if (strcmp(type, "crash") == 0) {
        snprintf(buf, len, "ranks %s of %s (died)", fc_json_str(rec, "ranks"),
                 fc_json_str(rec, "host")[0] ? fc_json_str(rec, "host") : "the job");
    } else {
        snprintf(buf, len, "%s", type);
    }
}

/* Append text to buf, control characters shown as '?' (an override's value
 * must not fake a line of the summary), at most max bytes of it. */
static size_t fc_append_visible(char *buf, size_t used, size_t len, const char *text,
                                size_t max)
{
    size_t n = 0;

    for (; *text && n < max && used + 1 < len; ++text, ++n)
        buf[used++] = (unsigned char)*text < 0x20 || *text == 0x7f ? '?' : *text;
    if (*text && used + 4 < len) {
        memcpy(buf + used, "...", 3);       /* cut: the certificate has it whole */
        used += 3;
    }
    buf[used] = '\0';
    return used;
}

void fc_print_line(FILE *out, const char *fmt, ...)
{
    va_list ap, again;
    char *line;
    int n;

    va_start(ap, fmt);
    va_copy(again, ap);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    line = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (line)
        vsnprintf(line, (size_t)n + 1, fmt, again);
    va_end(again);
    if (line == NULL)
        return;
    for (int i = 0; i < n; ++i)
        if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
            line[i] = '?';
    fprintf(out, "%s\n", line);
    free(line);
}

void fc_overrides_text(const fc_run_verdict_t *v, char *buf, size_t len)
{
    json_t *ov = json_object_get(v->plan, "overrides"), *val;
    const char *key;
    size_t used = 0;

    buf[0] = '\0';
    /* every option is named, however long the values: each value is cut to
     * its first 120 characters here */
    json_object_foreach(ov, key, val) {
        json_t *items = json_is_array(val) ? val : NULL, *item;
        size_t n = items ? json_array_size(items) : 1;

        for (size_t i = 0; i < n && used + 8 < len; ++i) {
            item = items ? json_array_get(items, i) : val;
            used = fc_append_visible(buf, used, len, used ? ", " : "", 2);
            used = fc_append_visible(buf, used, len, key, 40);
            used = fc_append_visible(buf, used, len, " ", 1);
            used = fc_append_visible(buf, used, len, json_is_string(item)
                                     ? json_string_value(item) : "?", 120);
        }
    }
}

const char *fc_sysfs_root_of(const fc_run_verdict_t *v)
{
    json_t *env = json_object_get(json_object_get(v->plan, "overrides"), "--env"), *e;
    const char *root = json_string_value(json_object_get(
        json_object_get(v->plan, "environment"), "FC_SYSFS_ROOT"));
    size_t i;

    json_array_foreach(env, i, e)       /* --env wins: it is what the ranks got */
        if (json_is_string(e) && strncmp(json_string_value(e), "FC_SYSFS_ROOT=", 14) == 0)
            root = json_string_value(e) + 14;
    return root && root[0] ? root : NULL;
}

const char *fc_part_action(const char *part)
{
    if (strcmp(part, "link") == 0 || strcmp(part, "NIC") == 0)
        return "check the node's NIC, its cable and its switch port (swap the "
               "cable first), then re-run the pairs stage";
    if (strcmp(part, "uplink") == 0)
        return "check the rack's uplinks to the spine (cables, optics and the ports "
               "at both ends); the rack's nodes are fast with each other";
    if (strcmp(part, "path") == 0)
        return "check the switch path between the two hosts (ports, uplinks, "
               "routing); both nodes are fine with other partners";
    if (strcmp(part, "GPU") == 0)
        return "take the node out of service; run the GPU vendor's diagnostics "
               "and replace the GPU that produced wrong bits";
    if (strcmp(part, "node") == 0)
        return "take the node out of service and run its diagnostics (memory, "
               "PCIe, GPUs); it produced wrong data, was slow or did not respond";
    if (strcmp(part, "rack") == 0)
        return "check the rack's ToR switch and uplinks; the suspect host is "
               "the slowest one";
    if (strcmp(part, "cluster") == 0)
        return "check the spine and the links between racks; every rack that "
               "took part was slowed";
    if (strcmp(part, "group") == 0)
        return "a wrong result or a confirmed slowness in this group was not placed on "
               "one node; check the evidence (its switch, its uplinks), re-run, and "
               "retest the group's nodes in pairs";
    if (strcmp(part, "stage") == 0)
        return "re-run: the stage did not complete on this rack, so nothing is "
               "certified for it";
    if (strcmp(part, "measurement") == 0)
        return "fix what kept the measurement from meeting the profile (for "
               "background traffic: its target directory, its ranks, its rates) "
               "and re-run the stage";
    if (strcmp(part, "unplaced") == 0)
        return "a check failed without naming a rack or host of this run's inventory, so "
               "no rack of its stage is certified: read the record in results.jsonl, "
               "find the part it measured and re-run the stage";
    return "inspect the evidence";
}

/* Each stage that ran on another backend than it was asked to, once. */
static void fc_summary_backend_notes(FILE *out, const fc_run_verdict_t *v)
{
    for (int s = 0; s < FC_STAGE_COUNT; ++s)
        for (int k = 0; k < v->nracks; ++k) {
            const fc_stage_verdict_t *sv = &v->racks[k].stages[s];

            if (sv->backend_note[0]) {
                fc_print_line(out, "backend: the %s stage ran on %s: %s", fc_stage_name(s),
                              sv->backend, sv->backend_note);
                break;
            }
        }
}

/* Per stage of a rack, one short line when a rule could not judge some of
 * its figures: how many, and the first such rule with why (the HTML, JUnit
 * and the certificate have each one). */
static void fc_summary_rules_not_applied(FILE *out, const fc_rack_verdict_t *r)
{
    for (int s = 0; s < FC_STAGE_COUNT; ++s) {
        char first[1024] = "", text[1024];
        int n = 0, checks = 0;
        size_t i;
        json_t *rec;

        json_array_foreach(r->checks, i, rec) {
            if (strcmp(fc_json_str(rec, "stage"), fc_stage_name((fc_stage_id_t)s)) != 0)
                continue;
            ++checks;
            fc_rules_text(rec, 0, text, sizeof(text));
            if (text[0] && n++ == 0)
                snprintf(first, sizeof(first), "%s", text);
        }
        if (n > 0)
            fc_print_line(out, "  note: rack %s, %s stage: a rule was not applied to %d of "
                          "%d check(s) (each named in the HTML, JUnit and certificate); "
                          "first: %.300s", r->rack, fc_stage_name((fc_stage_id_t)s), n,
                          checks, first);
    }
}

void fc_summary_write(FILE *out, const fc_run_verdict_t *v, const char *dir)
{
    int failed = 0, incomplete = 0;
    char overrides[4096];

    fc_overrides_text(v, overrides, sizeof(overrides));
    if (overrides[0])
        fc_print_line(out, "overrides: %s (not the profile %s as written)", overrides,
                      fc_json_str(v->plan, "profile"));
    if (fc_sysfs_root_of(v))
        fc_print_line(out, "sysfs: FC_SYSFS_ROOT=%s: preflight's inventory and the soak's "
                      "link counters were read from that tree, not from /sys",
                      fc_sysfs_root_of(v));
    fc_summary_backend_notes(out, v);

    for (int k = 0; k < v->nracks; ++k) {
        const fc_rack_verdict_t *r = &v->racks[k];
        int nq = (int)json_array_size(r->quarantines);

        if (nq)
            fc_print_line(out, "rack %s: %s (%d host%s, %d quarantined)", r->rack,
                          fc_verdict_name(r->verdict), r->nhosts, r->nhosts == 1 ? "" : "s",
                          nq);
        else
            fc_print_line(out, "rack %s: %s (%d host%s)", r->rack, fc_verdict_name(r->verdict),
                          r->nhosts, r->nhosts == 1 ? "" : "s");
        failed += r->verdict == FC_VERDICT_FAIL;
        incomplete += r->verdict == FC_VERDICT_INCOMPLETE;
    }
    for (int k = 0; k < v->nracks; ++k) {
        const fc_rack_verdict_t *r = &v->racks[k];

        for (int f = 0; f < r->nfindings; ++f) {
            const fc_finding_t *fd = &r->findings[f];

            if (strcmp(fd->part, "stage") == 0)
                fc_print_line(out, "  %s rack %s, %s stage: %s", fc_verdict_name(fd->verdict),
                              r->rack, fd->stage, fd->text);
            else
                fc_print_line(out, "  %s rack %s, %s stage, %s%s%s: %s",
                              fc_verdict_name(fd->verdict), r->rack, fd->stage, fd->part,
                              fd->host[0] ? " " : "", fd->host, fd->text);
        }
        if (r->more_findings)
            fc_print_line(out, "  ... and %d more findings on rack %s", r->more_findings,
                          r->rack);
        fc_summary_rules_not_applied(out, r);
    }
    if (v->truncated_lines)
        fc_print_line(out, "  note: %d record(s) in results.jsonl were cut off (a killed run)",
                      v->truncated_lines);
    fc_print_line(out, "verdict: %s (%d rack%s: %d pass, %d fail, %d incomplete)",
                  fc_verdict_name(v->overall), v->nracks, v->nracks == 1 ? "" : "s",
                  v->nracks - failed - incomplete, failed, incomplete);
    if (dir)
        fc_print_line(out, "certificates: %s/certificates/, report: %s/report/index.html",
                      dir, dir);
}

/* Under a profile with certificates: {require_signature: true} (the run's
 * plan record says so) a report without a key writes no certificate: an
 * unsigned one would look signed off. The rest is written; the run is not
 * certified and the exit status is not 0. */
static int fc_report_unsigned_refused(const fc_run_verdict_t *v, const unsigned char *key)
{
    return key == NULL && json_is_true(json_object_get(v->plan, "require_signature"));
}

static void fc_summary_unsigned(FILE *out, const fc_run_verdict_t *v)
{
    fc_print_line(out, "NOT CERTIFIED: profile %s requires signed certificates (certificates: "
                  "require_signature: true) and no --sign-key was given: no certificate was "
                  "written; sign them with: fabcert report DIR --sign-key KEY",
                  fc_json_str(v->plan, "profile"));
}

fc_status_t fc_report_dir(const char *dir, const char *sign_key_path, int quiet,
                          fc_verdict_t *overall_p)
{
    unsigned char sk[crypto_sign_SECRETKEYBYTES], *key = NULL;
    char path[4200];
    json_t *records = NULL;
    fc_run_verdict_t v;
    fc_status_t st;
    FILE *f;
    int bad = 0;

    if (sodium_init() < 0)
        return FC_ERR_INTERNAL;
    if (sign_key_path) {
        if (fc_key_load(sign_key_path, 1, sk, sizeof(sk)) != FC_OK)
            return FC_ERR_INVALID;
        key = sk;
    }
    snprintf(path, sizeof(path), "%s/results.jsonl", dir);
    if ((st = fc_results_load(path, 0, &records, &bad)) != FC_OK)
        goto out_key;
    if ((st = fc_verdict_compute(records, &v)) != FC_OK)
        goto out_records;
    v.truncated_lines = bad;
    /* the plan's stages and required flags, against the profile it names */
    fc_verdict_check_plan_profile(&v, dir);
    snprintf(path, sizeof(path), "%s/certificates", dir);
    if ((st = fc_mkdir_p(path)) != FC_OK)
        goto out_verdict;
    for (int k = 0; k < v.nracks && st == FC_OK && !fc_report_unsigned_refused(&v, key); ++k)
        st = fc_certificate_write(dir, &v, &v.racks[k], key);
    if (st == FC_OK) {
        snprintf(path, sizeof(path), "%s/junit.xml", dir);
        st = fc_junit_write(path, &v);
    }
    if (st == FC_OK)
        st = fc_html_write(dir, &v);
    if (st == FC_OK) {
        snprintf(path, sizeof(path), "%s/summary.txt", dir);
        if ((f = fopen(path, "w")) == NULL) {
            fprintf(stderr, "fabcert: cannot write %s: %s\n", path, strerror(errno));
            st = FC_ERR_INVALID;
        } else {
            fc_summary_write(f, &v, NULL);
            if (fc_report_unsigned_refused(&v, key))
                fc_summary_unsigned(f, &v);
            fclose(f);
        }
    }
    if (st == FC_OK && !quiet) {
        fc_summary_write(stdout, &v, dir);
        if (fc_report_unsigned_refused(&v, key))
            fc_summary_unsigned(stdout, &v);
    }
    if (overall_p)      /* not certified is never a pass */
        *overall_p = fc_report_unsigned_refused(&v, key) && v.overall == FC_VERDICT_PASS
                         ? FC_VERDICT_INCOMPLETE : v.overall;
out_verdict:
    fc_verdict_free(&v);
out_records:
    json_decref(records);
out_key:
    sodium_memzero(sk, sizeof(sk));
    return st;
}
