/*
 * fc_stage_records.c - what a sweep point becomes on rank 0: its point
 * records in results.jsonl (figures, limits, the rules that judged it and
 * those that could not, what a failure implicates) and its TAP line with
 * the YAML block of every group's figures.
 */
#include "fc_stage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_counters_check.h"
#include "fc_judge.h"
#include "fc_log.h"
#include "fc_sensitivity.h"
#include "fc_stage_int.h"
#include "fc_stage_wrong.h"
#include "fc_version.h"

json_t *fc_stage_record(const fc_stage_ctx_t *ctx, const char *type)
{
    char now[32];

    fc_results_time(now, sizeof(now));
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "type", type,
                     "run_id", ctx->opts.run_id, "stage",
                     fc_stage_name(ctx->stage), "backend", ctx->opts.backend,
                     "profile", ctx->profile.name, "profile_sha256",
                     ctx->profile.sha256, "time", now);
}

void fc_stage_count_not_pass(fc_stage_ctx_t *ctx, json_t *rec)
{
    json_t *reasons = json_object_get(rec, "reasons");

    ++ctx->failed_points;
    for (size_t i = 0; i < json_array_size(reasons); ++i)
        fc_tap_diag(&ctx->tap, "%s", json_string_value(json_array_get(reasons, i)));
}

/* The part a failing point implicates, and whether its host is to be
 * quarantined (DESIGN rule 2: blame only after confirmation). Wrong bits
 * implicate the whole group until the runner's retest places them
 * (fc_stage_wrong.h). A timing failure that was not confirmed (alone, or
 * over soak windows) fails its group's racks and blames nobody. A
 * confirmed one on a group of one host is that node (quarantined); on a
 * group of several hosts it is the group's, pending the runner's retest,
 * which places the slowness on a node or says that it cannot: nobody is
 * named before that, least of all the rank that waited longest. */
/* What a failed group implicates. A one-host group's confirmed slowness
 * quarantines its node only when a group of the same point passed
 * (peer_passed): when every group failed the point (the machine's load,
 * a slow fabric everywhere) nothing singles this node out, and it is not
 * pulled for what all of them share. */
static json_t *fc_implicates_json(const fc_stage_ctx_t *ctx,
                                  const fc_point_summary_t *s,
                                  const fc_judgement_t *j, int peer_passed)
{
    const char *part = ctx->grouping == FC_GROUP_RACK ? "rack" : "cluster";

    if (j->status == FC_OK)
        return json_null();
    if (fc_stage_wrong_result(s))
        return fc_stage_wrong_implicates(ctx, s->first_world_rank);
    if (s->status == FC_OK && (ctx->grouping == FC_GROUP_HOST || s->nhosts == 1))
        return json_pack("{s:s, s:s, s:s, s:b}", "part", "node", "host", s->host,
                         "rack", ctx->inv.racks[ctx->rank_racks[s->first_world_rank]],
                         "quarantine", j->confirmed && peer_passed);
    if (s->status == FC_OK && j->confirmed)
        return fc_stage_slow_implicates(ctx, s->first_world_rank);
    if (ctx->grouping == FC_GROUP_HOST)
        part = "node";
    return json_pack("{s:s, s:s, s:s, s:b}", "part", part, "host",
                     ctx->grouping == FC_GROUP_HOST ? s->host : "", "rack",
                     fc_stage_group_rack(ctx, s->first_world_rank), "quarantine", 0);
}

static json_t *fc_time_json(const fc_time_stats_t *t)
{
    return json_pack("{s:f, s:f, s:f, s:f, s:f}", "min", t->min * 1e6,
                     "median", t->median * 1e6, "p99", t->p99 * 1e6, "max",
                     t->max * 1e6, "mean", t->mean * 1e6);
}

static json_t *fc_point_json(const fc_stage_ctx_t *ctx,
                             const fc_test_point_t *pt,
                             const fc_point_summary_t *s,
                             const fc_judgement_t *j, int peer_passed)
{
    json_t *rec = fc_stage_record(ctx, "point");
    json_t *reasons = json_array(), *imp;
    char digest[17];

    json_object_set_new(rec, "collective", json_string(fc_coll_desc(pt->coll)->name));
    json_object_set_new(rec, "dtype", json_string(fc_dtype_info(pt->dtype)->name));
    json_object_set_new(rec, "op", json_string(fc_op_name(pt->op)));
    json_object_set_new(rec, "bytes", json_integer((json_int_t)s->bytes));
    json_object_set_new(rec, "count", json_integer((json_int_t)s->count));
    json_object_set_new(rec, "host", json_string(s->host));
    json_object_set_new(rec, "group", json_string(fc_stage_group_name(ctx, s->first_world_rank)));
    json_object_set_new(rec, "rack", json_string(fc_stage_group_rack(ctx, s->first_world_rank)));
    json_object_set_new(rec, "ranks", json_integer(s->nranks));
    json_object_set_new(rec, "hosts", json_integer(s->nhosts));
    json_object_set_new(rec, "first_rank", json_integer(s->first_world_rank));
    json_object_set_new(rec, "iters", json_integer(s->iters));
    json_object_set_new(rec, "warmup", json_integer(s->warmup));
    json_object_set_new(rec, "seed", json_integer(pt->seed));
    json_object_set_new(rec, "time_us", fc_time_json(&s->time));
    if (s->samples.n > 0)       /* for compare and baseline (fc_samples.h) */
        json_object_set_new(rec, "samples", fc_samples_json(&s->samples));
    json_object_set_new(rec, "algbw_gbps", json_real(s->algbw));
    json_object_set_new(rec, "busbw_gbps", json_real(s->busbw));
    /* nccl-tests' way, beside the per-iteration figure the limits judge */
    json_object_set_new(rec, "batched", s->batch_time_s > 0 ? json_pack(
        "{s:f, s:f, s:i}", "time_us", s->batch_time_s * 1e6, "busbw_gbps", s->batch_busbw,
        "calls", s->batch_calls) : json_null());
    /* every call made, and checked: the warm-up's, the timed ones, the
     * batch's (and an alone confirmation's) */
    json_object_set_new(rec, "calls", fc_calls_json(&s->calls));
    json_object_set_new(rec, "arrival", s->arrival_last_rank < 0 ? json_null() : json_pack(
        "{s:i, s:s, s:i, s:f}", "last_rank", s->arrival_last_rank, "last_host",
        s->arrival_last_host, "times_last", s->arrival_last_iters, "late_us",
        s->arrival_late_s * 1e6));
    json_object_set_new(rec, "wrong", json_integer((json_int_t)s->wrong));
    json_object_set_new(rec, "bad_ranks", json_integer(s->bad_ranks));
    if (s->wrong > 0)
        json_object_set_new(rec, "first_mismatch", json_pack(
            "{s:i, s:s, s:i, s:I, s:I, s:I, s:I}", "rank", s->first_bad_rank,
            "host", s->first_bad_host, "iteration", s->first_bad_iter,
            "index", (json_int_t)s->first_bad_pos,
            "expected_bits", (json_int_t)s->first_expected,
            "actual_bits", (json_int_t)s->first_actual,
            "rank_wrong", (json_int_t)s->first_rank_wrong));
    if (s->wrong > 0)       /* the one host whose own output held them */
        json_object_set_new(json_object_get(rec, "first_mismatch"), "all_on_host",
                            json_boolean(s->bad_one_host));
    else
        json_object_set_new(rec, "first_mismatch", json_null());
    json_object_set_new(rec, "digest_ranks_agree", json_boolean(s->digest_ranks_agree));
    json_object_set_new(rec, "digest_reps_agree", json_boolean(s->digest_reps_agree));
    snprintf(digest, sizeof(digest), "%016llx", (unsigned long long)s->digest);
    json_object_set_new(rec, "digest", json_string(digest));
    json_object_set_new(rec, "max_wrong", json_integer((json_int_t)ctx->sp.max_wrong));
    if (j->limit != NULL)
        json_object_set_new(rec, "limit", json_pack(
            "{s:f, s:f, s:i}", "min_busbw_gbps", j->limit->min_busbw_gbps,
            "max_latency_us", j->limit->max_latency_us, "line", j->limit->line));
    else
        json_object_set_new(rec, "limit", json_null());
    json_object_set_new(rec, "requested_bytes", json_integer((json_int_t)pt->bytes));
    fc_judgement_set_rules(rec, j, ctx->sp.max_below_median_pct);
    for (int r = 0; r < j->nreasons; ++r)
        json_array_append_new(reasons, json_string(j->reasons[r]));
    imp = fc_implicates_json(ctx, s, j, peer_passed);
    if (j->status != FC_OK && j->confirmed && !peer_passed && !fc_stage_wrong_result(s) &&
        json_is_false(json_object_get(imp, "quarantine")) && json_object_get(imp, "host") &&
        json_string_value(json_object_get(imp, "host"))[0])
        json_array_append_new(reasons, json_string(
            "not quarantined: no other group of this point passed it, so nothing singles "
            "this node out (the stage is slow as a whole: the machine's load or the fabric)"));
    if (json_is_false(json_object_get(imp, "localised"))) {
        char pending[FC_REASON_MAX + 128];
        const char *kind = json_string_value(json_object_get(imp, "kind"));
        int slow = kind != NULL && strcmp(kind, "slow") == 0;

        fc_stage_pending_text(ctx, s->first_world_rank, slow ? "confirmed slowness" :
                              "wrong result", pending, sizeof(pending));
        snprintf(pending + strlen(pending), sizeof(pending) - strlen(pending), ": %s",
                 j->nreasons ? j->reasons[0] : slow ? "slow" : "wrong bits");
        if (j->nreasons)
            json_array_set_new(reasons, 0, json_string(pending));
        else
            json_array_append_new(reasons, json_string(pending));
    }
    json_object_set_new(rec, "reasons", reasons);
    json_object_set_new(rec, "implicates", imp);
    json_object_set_new(rec, "status", json_string(fc_status_str(j->status)));
    json_object_set_new(rec, "verdict", json_string(j->status == FC_OK ? "PASS" : "FAIL"));
    /* the smallest loss its limits would have caught (fc_sensitivity.h) */
    json_object_set_new(rec, "sensitivity", fc_sensitivity_of(rec));
    return rec;
}

void fc_stage_report_judged(fc_stage_ctx_t *ctx, const fc_test_point_t *pt,
                            const fc_point_summary_t *sums, const fc_judgement_t *js,
                            int ngroups, json_t *const *extra)
{
    fc_status_t worst = FC_OK;
    const char *kind = ctx->grouping == FC_GROUP_HOST ? "node" :
                       ctx->grouping == FC_GROUP_RACK ? "rack" : "job";
    char label[128], ctr_reason[FC_REASON_MAX] = "";
    int ctr_group = -1, ctr_verdict = 0;
    char *cvs = fc_xcalloc((size_t)ngroups + 1, 1, "the groups' counter verdicts");

    for (int g = 0; g < ngroups; ++g) {
        int peer_passed = ngroups == 1;     /* alone: nothing to compare with */

        for (int h = 0; h < ngroups && !peer_passed; ++h)
            peer_passed = h != g && sums[h].status == FC_OK && js[h].status == FC_OK;
        json_t *rec = fc_point_json(ctx, pt, &sums[g], &js[g], peer_passed);
        int cv;

        if (extra != NULL && extra[g] != NULL)
            json_object_update(rec, extra[g]);
        /* the link counters of its interval judged (fc_counters_check.h) */
        cvs[g] = (char)(cv = fc_counters_apply(rec));
        if (cv != 0 && (ctr_verdict == 0 || cv < ctr_verdict)) {
            ctr_verdict = cv;
            ctr_group = g;
            snprintf(ctr_reason, sizeof(ctr_reason), "%s", json_string_value(
                json_array_get(json_object_get(rec, "reasons"), 0)));
        }
        fc_results_append(&ctx->results, rec);
        worst = fc_status_worst(worst, js[g].status);
    }
    fc_point_label(pt, label, sizeof(label));
    if (worst != FC_OK || ctr_verdict) {
        ++ctx->failed_points;
        for (int g = 0; g < ngroups; ++g)
            for (int r = 0; r < js[g].nreasons; ++r)
                fc_tap_diag(&ctx->tap, "%s on %s %s: %s", label, kind,
                            fc_stage_group_name(ctx, sums[g].first_world_rank),
                            js[g].reasons[r]);
    }
    if (worst == FC_OK && ctr_verdict) {
        fc_tap_point(&ctx->tap, FC_ERR_FAIL, "%s on %d %s(s): %s %s: %s%s", label, ngroups,
                     kind, kind, fc_stage_group_name(ctx, sums[ctr_group].first_world_rank),
                     ctr_verdict == 2 ? "INCOMPLETE: " : "", ctr_reason);
    } else if (worst == FC_OK) {
        fc_tap_point(&ctx->tap, worst, "%s on %d %s(s)", label, ngroups, kind);
    } else {
        int g = 0;

        while (g < ngroups - 1 && js[g].status == FC_OK)
            ++g;
        fc_tap_point(&ctx->tap, worst, "%s on %d %s(s): %s %s: %s", label,
                     ngroups, kind, kind,
                     fc_stage_group_name(ctx, sums[g].first_world_rank),
                     js[g].nreasons ? js[g].reasons[0] : "failed");
    }
    fc_tap_yaml_begin(&ctx->tap);
    fc_tap_yaml_line(&ctx->tap, "bytes: %llu", (unsigned long long)sums[0].bytes);
    fc_tap_yaml_line(&ctx->tap, "groups:");
    for (int g = 0; g < ngroups; ++g) {
        const fc_point_summary_t *s = &sums[g];

        fc_tap_yaml_line(&ctx->tap, "  - group: %s", fc_stage_group_name(ctx, s->first_world_rank));
        fc_tap_yaml_line(&ctx->tap, "    host: %s", s->host);
        fc_tap_yaml_line(&ctx->tap, "    ranks: %d", s->nranks);
        fc_tap_yaml_line(&ctx->tap, "    time_us: {min: %.2f, median: %.2f, p99: %.2f, max: %.2f}",
                         s->time.min * 1e6, s->time.median * 1e6,
                         s->time.p99 * 1e6, s->time.max * 1e6);
        fc_tap_yaml_line(&ctx->tap, "    algbw_gbps: %.4f", s->algbw);
        fc_tap_yaml_line(&ctx->tap, "    busbw_gbps: %.4f", s->busbw);
        if (s->batch_time_s > 0)
            fc_tap_yaml_line(&ctx->tap, "    busbw_batched_gbps: %.4f", s->batch_busbw);
        if (s->arrival_last_rank >= 0)
            fc_tap_yaml_line(&ctx->tap, "    last_to_arrive: {rank: %d, times: %d, late_us: %.1f}",
                             s->arrival_last_rank, s->arrival_last_iters,
                             s->arrival_late_s * 1e6);
        fc_tap_yaml_line(&ctx->tap, "    wrong: %llu", (unsigned long long)s->wrong);
        if (s->wrong > 0)
            fc_tap_yaml_line(&ctx->tap, "    first_mismatch: {rank: %d, host: %s, "
                             "iteration: %d, index: %llu, expected: '0x%llx', "
                             "actual: '0x%llx'}", s->first_bad_rank,
                             s->first_bad_host, s->first_bad_iter,
                             (unsigned long long)s->first_bad_pos,
                             (unsigned long long)s->first_expected,
                             (unsigned long long)s->first_actual);
        if (js[g].peer_median_busbw >= 0)
            fc_tap_yaml_line(&ctx->tap, "    peers: '%s'", js[g].peer_class);
        for (int k = 0; k < js[g].nnotes; ++k)
            fc_tap_yaml_line(&ctx->tap, "    not_applied: '%s'", js[g].notes[k]);
        fc_tap_yaml_line(&ctx->tap, "    verdict: %s", js[g].status != FC_OK || cvs[g] == 1
                         ? "FAIL" : cvs[g] == 2 ? "INCOMPLETE" : "PASS");
    }
    fc_tap_yaml_end(&ctx->tap);
    free(cvs);
}
