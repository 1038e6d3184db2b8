/*
 * fc_contention_judge.c - the contention stage's judgement (rank 0; see
 * fc_contention_stage.h): each loaded phase of a foreground point against
 * the mean of the clean phases on either side, so drift of the machine
 * does not pass for contention. A group whose foreground point failed,
 * gave no time or whose ranks disagree in any of the three phases is FAIL
 * (its slowdown would read 0); wrong elements beyond max_wrong are FAIL
 * and implicate the group; a slowdown above max_slowdown is FAIL on the
 * rack or the cluster. A background kind that logged an error, moved no
 * byte, or reached less than min_background_pct of its target makes the
 * measurement INCOMPLETE, never a pass. The loaded phase's link counters
 * are judged with the record (fc_counters_check.h).
 */
#include "fc_contention_stage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_counters_check.h"
#include "fc_counters_interval.h"
#include "fc_judge.h"
#include "fc_stage_counters.h"
#include "fc_stage_wrong.h"

const char *fc_contention_mask_name(unsigned mask)
{
    if (mask == 0)
        return "clean";
    for (int k = 0; k < FC_BG_KINDS; ++k)
        if (mask == (1u << k))
            return fc_bg_kind_name(k);
    return "all";
}

/* Rank 0: did group g's foreground point run and give a time in each of
 * the three phases (clean, loaded, clean) with every rank holding the same
 * bits? If not, why: a point that failed has a median of 0 and would
 * otherwise show a slowdown of 0. */
static int fc_cont_fg_failed(int ngroups, const fc_phase_result_t *const ph[3],
                             int g, char *why, size_t len)
{
    for (int i = 0; i < 3; ++i) {
        const fc_point_summary_t *s;
        const char *phase = fc_contention_mask_name(ph[i]->mask);

        if (ph[i]->ngroups != ngroups || g >= ph[i]->ngroups) {
            snprintf(why, len, "the foreground point did not report from every group "
                     "in the %s phase (%d of %d groups): nothing to compare",
                     phase, ph[i]->ngroups, ngroups);
            return 1;
        }
        s = &ph[i]->sums[g];
        if (s->status != FC_OK) {
            snprintf(why, len, "the foreground point failed in the %s phase on the "
                     "group of host %s (%s): no slowdown can be measured",
                     phase, s->host, fc_status_str((fc_status_t)s->status));
            return 1;
        }
        if (!(s->time.median > 0)) {
            snprintf(why, len, "the foreground point gave no time in the %s phase on "
                     "the group of host %s", phase, s->host);
            return 1;
        }
        /* wrong elements explain differing digests, and are reported
         * with their rank and element below */
        if (s->wrong == 0 && (!s->digest_ranks_agree || !s->digest_reps_agree)) {
            snprintf(why, len, "ranks hold different output bits in the %s phase "
                     "(rank %d, group of host %s)", phase, s->disagree_rank, s->host);
            return 1;
        }
    }
    return 0;
}

/* Rank 0: a kind whose generator logged an error during the phase, or that
 * moved no byte at all, did not apply its load, however low the profile's
 * min_background_pct: the measurement under it is INCOMPLETE. */
static int fc_cont_load_unproven(const fc_phase_result_t *loaded, int k, double target,
                                 char *why, size_t len)
{
    if (loaded->error[0] && loaded->error_kind == k) {
        /* a long error is cut in this reason (the record carries it whole:
         * its background's "error"); the reason is never empty */
        return snprintf(why, len, "background %s logged an error (it reached %.3f MB/s "
                        "per rank of its %.3f MB/s target): %s: the load was not applied "
                        "as the profile says, so nothing is certified", fc_bg_kind_name(k),
                        loaded->achieved[k], target, loaded->error) > 0;
    }
    if (!(loaded->achieved[k] > 0)) {
        snprintf(why, len, "background %s moved no bytes (%d generating rank(s)): the "
                 "load was not applied, so nothing is certified", fc_bg_kind_name(k),
                 loaded->generating[k]);
        return 1;
    }
    return 0;
}

/* What a failure of the group of world rank `first` that places nothing
 * implicates: its part (rack or cluster), its racks, nobody quarantined. */
static json_t *fc_cont_group_part(fc_stage_ctx_t *ctx, const char *host, int first,
                                  json_t *racks)
{
    return json_pack("{s:s, s:s, s:s, s:O, s:b}", "part",
                     ctx->grouping == FC_GROUP_RACK ? "rack" : "cluster", "host", host, "rack",
                     fc_stage_group_rack(ctx, first), "racks", racks, "quarantine", 0);
}

/* Rank 0: judge the loaded phase p against the clean phases around it. */
void fc_contention_judge_phase(fc_stage_ctx_t *ctx, const fc_contention_profile_t *cp,
                               const fc_test_point_t *pt, const fc_phase_result_t *ph, int p)
{
    const fc_phase_result_t *loaded = &ph[p], *before = &ph[p - 1], *after = &ph[p + 1];
    int n = before->ngroups > loaded->ngroups ? before->ngroups : loaded->ngroups;
    double *ratios;
    char label[128];
    int worst_fail = 0, worst_incomplete = 0;
    char first_reason[FC_REASON_MAX] = "";

    if (after->ngroups > n)
        n = after->ngroups;
    ratios = fc_xcalloc((size_t)n + 1, sizeof(double), "the groups' slowdowns");
    fc_point_label(pt, label, sizeof(label));
    for (int g = 0; g < n; ++g) {
        const fc_point_summary_t *s = &loaded->sums[g];
        double clean = (before->sums[g].time.median + after->sums[g].time.median) / 2;
        double ratio = clean > 0 ? s->time.median / clean : 0;
        json_t *rec = fc_stage_record(ctx, "contention"), *bgj = json_object();
        json_t *reasons = json_array(), *impl = json_null();
        json_t *measured_hosts = json_array(), *measured_racks = json_array();
        const char *verdict = "PASS";
        uint64_t wrong = s->wrong + before->sums[g].wrong + after->sums[g].wrong;
        char why[FC_REASON_MAX];
        const fc_phase_result_t *const three[3] = { before, loaded, after };
        fc_calls_t calls = s->calls;    /* the three phases' calls, as wrong */

        fc_calls_add(&calls, &before->sums[g].calls);
        fc_calls_add(&calls, &after->sums[g].calls);

        fc_stage_group_members(ctx, s->first_world_rank, measured_hosts, measured_racks);
        if (fc_cont_fg_failed(n, three, g, why, sizeof(why))) {
            json_array_append_new(reasons, json_string(why));
            verdict = "FAIL";
            impl = fc_cont_group_part(ctx, s->host, s->first_world_rank, measured_racks);
            ratio = 0;
        }
        for (int k = 0; k < FC_BG_KINDS; ++k) {
            const fc_bg_profile_t *b = &cp->kinds[k];
            double target = b->rate_mbps * b->duty;

            if (!((loaded->mask >> k) & 1))
                continue;
            json_object_set_new(bgj, fc_bg_kind_name(k), json_pack(
                "{s:f, s:f, s:i}", "target_mbps", target, "achieved_mbps",
                loaded->achieved[k], "ranks", loaded->generating[k]));
            if (fc_cont_load_unproven(loaded, k, target, why, sizeof(why))) {
                /* an error or nothing moved: never a load, whatever
                 * min_background_pct says */
                if (loaded->error[0] && loaded->error_kind == k)
                    json_object_set_new(json_object_get(bgj, fc_bg_kind_name(k)), "error",
                                        json_string(loaded->error));
                json_array_append_new(reasons, json_string(why));
                if (strcmp(verdict, "FAIL") != 0)
                    verdict = "INCOMPLETE";
            } else if (loaded->achieved[k] < target * cp->min_background_pct / 100.0) {
                snprintf(why, sizeof(why), "background %s reached %.3f MB/s per rank, "
                         "below %.0f%% of its %.3f MB/s target: the load was not "
                         "applied, so nothing is certified", fc_bg_kind_name(k),
                         loaded->achieved[k], cp->min_background_pct, target);
                json_array_append_new(reasons, json_string(why));
                if (strcmp(verdict, "FAIL") != 0)
                    verdict = "INCOMPLETE";
            }
        }
        if (wrong > ctx->sp.max_wrong) {
            const fc_point_summary_t *bad = s->wrong ? s : before->sums[g].wrong
                                                              ? &before->sums[g] : &after->sums[g];

            snprintf(why, sizeof(why), "%llu wrong elements under load; first on rank %d "
                     "(host %s) at iteration %d, element %llu: expected 0x%llx, got 0x%llx",
                     (unsigned long long)wrong, bad->first_bad_rank, bad->first_bad_host,
                     bad->first_bad_iter, (unsigned long long)bad->first_bad_pos,
                     (unsigned long long)bad->first_expected,
                     (unsigned long long)bad->first_actual);
            json_array_append_new(reasons, json_string(why));
            verdict = "FAIL";
            json_decref(impl);
            /* the whole group until the runner's retest places it */
            impl = fc_stage_wrong_implicates(ctx, s->first_world_rank);
        }
        if (fc_calls_unchecked(&calls) > 0) {
            /* no PASS from an unchecked call (fc_calls.h) */
            fc_calls_why(&calls, why, sizeof(why));
            json_array_append_new(reasons, json_string(why));
            if (strcmp(verdict, "FAIL") != 0 && json_is_null(impl))
                impl = fc_cont_group_part(ctx, "", s->first_world_rank, measured_racks);
            verdict = "FAIL";
        }
        if (cp->max_slowdown > 0 && ratio > cp->max_slowdown) {
            snprintf(why, sizeof(why), "slowdown %.2fx under %s (median %.1f us loaded, "
                     "%.1f us clean) is above the limit %.2fx", ratio,
                     fc_contention_mask_name(loaded->mask), s->time.median * 1e6, clean * 1e6,
                     cp->max_slowdown);
            json_array_append_new(reasons, json_string(why));
            if (strcmp(verdict, "FAIL") != 0 && json_is_null(impl))
                impl = fc_cont_group_part(ctx, "", s->first_world_rank, measured_racks);
            verdict = "FAIL";
        }
        json_object_set_new(rec, "collective", json_string(fc_coll_desc(pt->coll)->name));
        json_object_set_new(rec, "dtype", json_string(fc_dtype_info(pt->dtype)->name));
        json_object_set_new(rec, "op", json_string(fc_op_name(pt->op)));
        json_object_set_new(rec, "bytes", json_integer((json_int_t)(s->bytes ? s->bytes : pt->bytes)));
        json_object_set_new(rec, "requested_bytes", json_integer((json_int_t)pt->bytes));
        json_object_set_new(rec, "group", json_string(fc_stage_group_name(ctx, s->first_world_rank)));
        json_object_set_new(rec, "rack", json_string(fc_stage_group_rack(ctx, s->first_world_rank)));
        /* what was measured: the foreground's hosts and their racks (not
         * the background hosts, whose racks this record does not judge) */
        json_object_set_new(rec, "measured_hosts", measured_hosts);
        json_object_set_new(rec, "racks", measured_racks);
        json_object_set_new(rec, "kind", json_string(fc_contention_mask_name(loaded->mask)));
        json_object_set_new(rec, "clean_median_us", json_real(clean * 1e6));
        json_object_set_new(rec, "loaded_median_us", json_real(s->time.median * 1e6));
        json_object_set_new(rec, "slowdown", json_real(ratio));
        json_object_set_new(rec, "max_slowdown", json_real(cp->max_slowdown));
        json_object_set_new(rec, "wrong", json_integer((json_int_t)wrong));
        json_object_set_new(rec, "calls", fc_calls_json(&calls));
        json_object_set_new(rec, "background", bgj);
        /* the links of every node in the loaded phase and in the clean
         * one before it: what the background moved beside the slowdown */
        if (loaded->counters) {     /* judged, with the foreground's ranks */
            json_object_set_new(rec, "counters", fc_stage_ival_judged(ctx, loaded->counters,
                                                                      s->first_world_rank));
            json_object_set_new(rec, "ranks", json_integer(s->nranks));
            json_object_set_new(rec, "iters", json_integer(s->iters));
            json_object_set_new(rec, "warmup", json_integer(s->warmup));
        }
        if (before->counters)
            json_object_set(rec, "clean_counters", before->counters);
        if (cp->background_hosts[0])
            json_object_set_new(rec, "background_hosts", json_string(cp->background_hosts));
        if (loaded->note[0])
            json_object_set_new(rec, "note", json_string(loaded->note));
        json_object_set_new(rec, "reasons", reasons);
        json_object_set_new(rec, "implicates", impl);
        json_object_set_new(rec, "verdict", json_string(verdict));
        switch (fc_counters_apply(rec)) {   /* the loaded phase's link counters */
        case 1: verdict = "FAIL"; break;
        case 2: verdict = "INCOMPLETE"; break;
        default: break;
        }
        if (strcmp(verdict, "PASS") != 0 && !first_reason[0])
            snprintf(first_reason, sizeof(first_reason), "%s: %s",
                     fc_stage_group_name(ctx, s->first_world_rank),
                     json_string_value(json_array_get(reasons, 0)));
        worst_fail |= strcmp(verdict, "FAIL") == 0;
        worst_incomplete |= strcmp(verdict, "INCOMPLETE") == 0;
        fc_results_append(&ctx->results, rec);
        ratios[g] = ratio;
    }
    if (worst_fail || worst_incomplete)
        ++ctx->failed_points;
    if (worst_fail)
        fc_tap_point(&ctx->tap, FC_ERR_FAIL, "%s under %s: %s", label,
                     fc_contention_mask_name(loaded->mask), first_reason);
    else if (worst_incomplete)
        fc_tap_point(&ctx->tap, FC_ERR_FAIL, "%s under %s: INCOMPLETE: %s", label,
                     fc_contention_mask_name(loaded->mask), first_reason);
    else
        fc_tap_point(&ctx->tap, FC_OK, "%s under %s", label, fc_contention_mask_name(loaded->mask));
    fc_tap_yaml_begin(&ctx->tap);
    for (int g = 0; g < n; ++g)
        fc_tap_yaml_line(&ctx->tap, "%s: {slowdown: %.3f, loaded_us: %.1f}",
                         fc_stage_group_name(ctx, loaded->sums[g].first_world_rank),
                         ratios[g], loaded->sums[g].time.median * 1e6);
    for (int k = 0; k < FC_BG_KINDS; ++k)
        if ((loaded->mask >> k) & 1)
            fc_tap_yaml_line(&ctx->tap, "%s_mbps: {target: %.3f, achieved: %.3f}",
                             fc_bg_kind_name(k), cp->kinds[k].rate_mbps *
                             cp->kinds[k].duty, loaded->achieved[k]);
    if (loaded->counters) {
        char text[512];

        fc_interval_text(loaded->counters, text, sizeof(text));
        fc_tap_yaml_line(&ctx->tap, "counters: \"%s\"", text);
        fc_interval_text(before->counters, text, sizeof(text));
        fc_tap_yaml_line(&ctx->tap, "clean_counters: \"%s\"", text);
    }
    fc_tap_yaml_end(&ctx->tap);
    free(ratios);
}
