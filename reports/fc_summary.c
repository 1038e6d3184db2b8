/*
 * fc_summary.c - the text summary (fc_summary.h), on the terminal and in
 * summary.txt: what was not the profile as written comes first (overrides,
 * the environment, the launcher that ran, a sysfs tree, a backend that
 * fell back), then one line per rack, then
 * every finding, then per rack and stage one `note:` line when a rule was
 * not applied to some checks. Every line goes through fc_print_line, so no
 * input can add or break one.
 */
#include "fc_summary.h"

#include <stdio.h>
#include <string.h>

#include "fc_json.h"
#include "fc_record.h"
#include "fc_report_text.h"

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

/* A sampled pairs stage, once: what it measured, and what it cannot see
 * (a fault between two nodes only, in a pair it did not measure). */
static void fc_summary_coverage(FILE *out, const fc_run_verdict_t *v)
{
    for (int s = 0; s < FC_STAGE_COUNT; ++s)
        for (int k = 0; k < v->nracks; ++k) {
            const fc_stage_verdict_t *sv = &v->racks[k].stages[s];

            if (sv->coverage[0]) {
                fc_print_line(out, "%s: %s (not the full matrix: a fault between two nodes "
                              "only is seen only if that pair was measured)", fc_stage_name(s),
                              sv->coverage);
                break;
            }
        }
}

/* A sweep stage each of whose groups ran one rank (a node stage at --np 1
 * or --ppn 1) measured no traffic between ranks: its checks judged one
 * rank's copies and bits. Said once per stage, as visibly as the
 * overrides, not only in each check's rule note. */
static void fc_summary_one_rank(FILE *out, const fc_run_verdict_t *v)
{
    for (int s = 0; s < FC_STAGE_COUNT; ++s) {
        long points = 0, one = 0;

        if (fc_stage_desc((fc_stage_id_t)s)->sweep_check != FC_SWEEP_CHECK_POINTS)
            continue;
        for (int k = 0; k < v->nracks; ++k) {
            json_t *rec;
            size_t i;

            json_array_foreach(v->racks[k].checks, i, rec)
                if (fc_record_id(rec) == FC_RECORD_POINT &&
                    strcmp(fc_json_str(rec, "stage"), fc_stage_name((fc_stage_id_t)s)) == 0) {
                    ++points;
                    one += json_integer_value(json_object_get(rec, "ranks")) == 1;
                }
        }
        if (points > 0 && one == points)
            fc_print_line(out, "note: no traffic between ranks was measured in the %s stage: "
                          "each %s of it ran one rank, so its checks judged one rank's copies "
                          "and bits, not a collective between ranks",
                          fc_stage_name((fc_stage_id_t)s),
                          fc_stage_group_noun((fc_stage_id_t)s));
    }
}

/* Per stage of a rack, one short line when a rule could not judge some of
 * its figures: how many, and the first such rule with why (the HTML, JUnit
 * and the certificate have each one). */
/* One line per stage and placed host: the failures of a wrong result it
 * explains on this rack (not the rack's: fc_verdict_retest.h), with why. */
static void fc_summary_explained(FILE *out, const fc_rack_verdict_t *r)
{
    size_t i, k;
    json_t *e, *f;

    json_array_foreach(r->explained, i, e) {
        int first = 1, n = 0;

        json_array_foreach(r->explained, k, f) {
            int same = strcmp(fc_json_str(e, "stage"), fc_json_str(f, "stage")) == 0 &&
                       strcmp(fc_json_str(e, "host"), fc_json_str(f, "host")) == 0;

            first &= !(same && k < i);
            n += same;
        }
        if (first)
            fc_print_line(out, "  EXPLAINED rack %s, %s stage, %d check%s: %s", r->rack,
                          fc_json_str(e, "stage"), n, n == 1 ? "" : "s",
                          fc_json_str(e, "evidence"));
    }
}

/* The rack's NICs in the rails stage, in one line per size: how many,
 * the range of their send and receive medians and the slowest NIC (each
 * failing NIC is a finding above; every NIC's figures are in the
 * certificate and the HTML). */
static void fc_summary_nics(FILE *out, const fc_rack_verdict_t *r)
{
    for (size_t z = 0;; ++z) {
        double lo = -1, hi = -1, rlo = -1, rhi = -1;
        const char *slow_host = "", *slow_nic = "";
        long long slow_rail = 0, bytes = 0;
        int n = 0;
        json_t *rec;
        size_t i;

        json_array_foreach(r->checks, i, rec) {
            json_t *f = json_array_get(json_object_get(rec, "figures"), z);
            double s, rv;

            if (fc_record_id(rec) != FC_RECORD_RAIL_NODE || !json_is_object(f))
                continue;
            s = json_number_value(json_object_get(f, "send_gbps_median"));
            rv = json_number_value(json_object_get(f, "recv_gbps_median"));
            bytes = (long long)json_integer_value(json_object_get(f, "bytes"));
            if (n++ == 0 || s < lo) {
                lo = s;
                slow_host = fc_json_str(rec, "host");
                slow_nic = fc_json_str(rec, "nic");
                slow_rail = (long long)json_integer_value(json_object_get(rec, "rail"));
            }
            hi = hi < 0 || s > hi ? s : hi;
            rlo = rlo < 0 || rv < rlo ? rv : rlo;
            rhi = rhi < 0 || rv > rhi ? rv : rhi;
        }
        if (n == 0)
            return;
        fc_print_line(out, "  NICs rack %s, rails stage: %d NIC(s) at %lld bytes: send "
                      "%.4g to %.4g GB/s (slowest %s %s, rail %lld), receive %.4g to %.4g "
                      "GB/s (medians over each NIC's partners)", r->rack, n, bytes, lo, hi,
                      slow_host, slow_nic, slow_rail, rlo, rhi);
    }
}

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
    char overrides[4096], environment[4096];

    fc_overrides_text(v, overrides, sizeof(overrides));
    if (overrides[0])
        fc_print_line(out, "overrides: %s (not the profile %s as written)", overrides,
                      fc_json_str(v->plan, "profile"));
    fc_environment_text(v, environment, sizeof(environment));
    if (environment[0])
        fc_print_line(out, "environment: %s (set where the run was launched; they shape "
                      "what was measured and are not in the profile)", environment);
    {
        /* the launcher that ran, found along PATH: a wrapper of the same
         * name earlier in PATH (one that changes the stages' options) is
         * named, with its hash (a plan before it was recorded says none) */
        json_t *launch = json_object_get(v->plan, "launch");
        const char *resolved = json_string_value(json_object_get(launch, "resolved"));

        if (resolved && resolved[0])
            fc_print_line(out, "launcher: %s, found at %s (sha256 %.16s)",
                          fc_json_str(launch, "program"), resolved,
                          fc_json_str(launch, "sha256"));
        else if (resolved)
            fc_print_line(out, "launcher: %s, not found along PATH where the run was launched",
                          fc_json_str(launch, "program"));
    }
    if (fc_sysfs_root_of(v))
        fc_print_line(out, "sysfs: FC_SYSFS_ROOT=%s: preflight's inventory and the link "
                      "counters (the soak's, each interval's) were read from that tree, "
                      "not from /sys",
                      fc_sysfs_root_of(v));
    fc_summary_backend_notes(out, v);
    fc_summary_coverage(out, v);
    fc_summary_one_rank(out, v);
    for (size_t i = 0; i < json_array_size(v->resumes); ++i) {
        char text[FC_VERDICT_TEXT];

        fc_resume_text(json_array_get(v->resumes, i), text, sizeof(text));
        fc_print_line(out, "resumed: %s", text);
    }
    if (json_is_object(json_object_get(v->plan, "rerun_of"))) {
        char text[1024];

        fc_rerun_text(json_object_get(v->plan, "rerun_of"), text, sizeof(text));
        fc_print_line(out, "%s", text);
    }

    for (int k = 0; k < v->nracks; ++k) {
        const fc_rack_verdict_t *r = &v->racks[k];
        int nq = (int)json_array_size(r->quarantines), nics = 0;
        json_t *q;
        size_t qi;
        int nl = (int)json_array_size(r->hosts_left_out);
        char left[96] = "";

        /* "2 hosts" must not stand for a 32-node rack */
        if (nl)
            snprintf(left, sizeof(left), " of the rack map's %d, %d not in the run",
                     r->nhosts + nl, nl);
        /* a NIC quarantined for its rail is not a host taken out */
        json_array_foreach(r->quarantines, qi, q)
            nics += json_is_string(json_object_get(q, "nic"));
        if (nq && nics)
            fc_print_line(out, "rack %s: %s (%d host%s%s, %d quarantined, %d NIC%s for its rail)",
                          r->rack, fc_verdict_name(r->verdict), r->nhosts,
                          r->nhosts == 1 ? "" : "s", left, nq - nics, nics,
                          nics == 1 ? "" : "s");
        else if (nq)
            fc_print_line(out, "rack %s: %s (%d host%s%s, %d quarantined)", r->rack,
                          fc_verdict_name(r->verdict), r->nhosts, r->nhosts == 1 ? "" : "s",
                          left, nq);
        else
            fc_print_line(out, "rack %s: %s (%d host%s%s)", r->rack,
                          fc_verdict_name(r->verdict), r->nhosts, r->nhosts == 1 ? "" : "s",
                          left);
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
        fc_summary_explained(out, r);
        fc_summary_nics(out, r);
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
