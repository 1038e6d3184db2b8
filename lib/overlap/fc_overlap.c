/*
 * fc_overlap.c - the overlap stage's judgement and record, the same for
 * both of its forms (suites/overlap.c: a host kernel beside MPI's
 * non-blocking all_reduce; lib/overlap/fc_overlap_gpu.c: cuBLAS GEMMs beside
 * NCCL's all_reduce). From the slowest rank's three times of each
 * iteration: overlap efficiency = (alone_coll + alone_compute - together)
 * / min(alone_coll, alone_compute), in percent, each iteration's from its
 * own three times, the median judged against overlap.min_overlap_pct, and
 * the compute's work done together as a share of its work alone
 * (compute_work_pct) against the same limit. One rank, a part under 1/10
 * of the other: INCOMPLETE; a time of 0, a wrong element, a wrong GEMM,
 * an all_reduce whose output was not checked (fc_calls.h): FAIL. See suites/overlap.c's opening paragraph for why.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_ctl.h"
#include "fc_overlap.h"
#include "fc_stage_wrong.h"

#define FC_OVL_MIN_RATIO 10     /* the shorter part at least 1/10 of the longer */

static int fc_ovl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static double fc_ovl_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), fc_ovl_cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void fc_overlap_calls_reduce(const fc_calls_t *mine, fc_calls_t *all)
{
    fc_ctl_reduce(MPI_COMM_WORLD, 0, "the collective calls made", FC_CTL_INT64, FC_CTL_MAX,
                  mine->made, all->made, FC_CALLS_KINDS);
    fc_ctl_reduce(MPI_COMM_WORLD, 0, "the collective calls checked", FC_CTL_INT64, FC_CTL_MIN,
                  mine->checked, all->checked, FC_CALLS_KINDS);
}

void fc_overlap_record(fc_stage_ctx_t *ctx, const fc_ovl_meas_t *m)
{
    /* each iteration's efficiency from its own three times, taken
     * back to back (a load that comes and goes falls on all
     * three), then the median of those and of each time */
    const fc_overlap_profile_t *op = &ctx->sp.overlap;
    int iters = m->iters, n = ctx->world_size;
    char what[96];
    double *slow = fc_xcalloc(3 * (size_t)iters, sizeof(double), "the overlap times");
    double *effs = fc_xcalloc((size_t)iters, sizeof(double), "the efficiencies");
    double c, k, both, shorter, eff;

    memcpy(slow, m->slow, 3 * (size_t)iters * sizeof(double));
    for (int i = 0; i < iters; ++i) {
        double ci = slow[i], ki = slow[iters + i], ti = slow[2 * iters + i];
        double si = ci < ki ? ci : ki;

        effs[i] = si > 0 ? 100 * (ci + ki - ti) / si : 0;
    }
    eff = fc_ovl_median(effs, iters);
    free(effs);
    c = fc_ovl_median(slow, iters);
    k = fc_ovl_median(slow + iters, iters);
    both = fc_ovl_median(slow + 2 * iters, iters);
    shorter = c < k ? c : k;
    double work_pct = m->work_pct;
    json_t *rec = fc_stage_record(ctx, "overlap"), *reasons = json_array();
    json_t *hosts = json_array(), *racks = json_array(), *impl = json_null();
    const char *verdict = "PASS";
    char why[FC_REASON_MAX];

    fc_stage_group_members(ctx, 0, hosts, racks);
    if (n < 2) {
        snprintf(why, sizeof(why), "one rank: no transport to overlap (the "
                 "all_reduce of a single rank moves nothing between ranks); run it "
                 "on two or more");
        json_array_append_new(reasons, json_string(why));
        verdict = "INCOMPLETE";
    } else if (!(c > 0 && k > 0 && both > 0)) {
        snprintf(why, sizeof(why), "a measurement gave no time (collective %.1f us, "
                 "compute %.1f us, together %.1f us): no overlap can be measured",
                 c * 1e6, k * 1e6, both * 1e6);
        json_array_append_new(reasons, json_string(why));
        verdict = "FAIL";
    } else if (shorter < (c > k ? c : k) / FC_OVL_MIN_RATIO) {
        snprintf(why, sizeof(why), "the %s (%.1f us alone) is under 1/%d of the %s "
                 "(%.1f us alone): the overlap of so short a part is within the "
                 "noise, so it is not measured; choose a size or a compute_ms that "
                 "brings them closer", c < k ? "collective" : "compute", shorter * 1e6,
                 FC_OVL_MIN_RATIO, c < k ? "compute" : "collective",
                 (c > k ? c : k) * 1e6);
        json_array_append_new(reasons, json_string(why));
        verdict = "INCOMPLETE";
    } else if (eff < op->min_overlap_pct) {
        snprintf(why, sizeof(why), "overlap %.0f%% is below the limit %.0f%%: "
                 "collective %.1f us alone, compute %.1f us alone, %.1f us together "
                 "(%.1f us if they ran one after the other)", eff,
                 op->min_overlap_pct, c * 1e6, k * 1e6, both * 1e6, (c + k) * 1e6);
        json_array_append_new(reasons, json_string(why));
        verdict = "FAIL";
    } else if (work_pct < op->min_overlap_pct) {
        snprintf(why, sizeof(why), "the compute beside the collective did %.0f%% of "
                 "its work alone in the same time, below the limit %.0f%%: the "
                 "collective ran in its place, not beside it (the wall times give "
                 "overlap %.0f%%: collective %.1f us alone, compute %.1f us alone, "
                 "%.1f us together)", work_pct, op->min_overlap_pct, eff, c * 1e6,
                 k * 1e6, both * 1e6);
        json_array_append_new(reasons, json_string(why));
        verdict = "FAIL";
    }
    if (m->wrong_all > 0) {
        snprintf(why, sizeof(why), "%lld wrong elements; most on rank %d (host %s), "
                 "first there at iteration %d, element %lld: expected %g, got %g",
                 m->wrong_all, m->first_rank, ctx->rank_hosts[m->first_rank], (int)m->det[0],
                 (long long)m->det[1], m->det[2], m->det[3]);
        json_array_append_new(reasons, json_string(why));
        verdict = "FAIL";
        impl = fc_stage_wrong_implicates(ctx, m->first_rank);
    }
    if (fc_calls_unchecked(&m->calls) > 0) {
        /* no PASS from an unchecked call */
        fc_calls_why(&m->calls, why, sizeof(why));
        json_array_append_new(reasons, json_string(why));
        verdict = "FAIL";
    }
    if (m->extra_fail) {
        json_array_append_new(reasons, json_string(m->extra_fail));
        verdict = "FAIL";
        if (json_is_null(impl) && m->extra_impl) {
            json_decref(impl);
            impl = json_incref(m->extra_impl);
        }
    }
    if (json_is_null(impl) && strcmp(verdict, "PASS") != 0 && n >= 2) {
        impl = json_pack("{s:s, s:s, s:s, s:O, s:b}", "part", "cluster", "host", "",
                         "rack", fc_stage_group_rack(ctx, 0), "racks", racks,
                         "quarantine", 0);
    }
    json_object_set_new(rec, "collective", json_string("all_reduce"));
    json_object_set_new(rec, "dtype", json_string("float32"));
    json_object_set_new(rec, "op", json_string("sum"));
    json_object_set_new(rec, "bytes", json_integer((json_int_t)m->bytes));
    json_object_set_new(rec, "requested_bytes", json_integer((json_int_t)m->requested));
    json_object_set_new(rec, "group", json_string(fc_stage_group_name(ctx, 0)));
    json_object_set_new(rec, "rack", json_string(fc_stage_group_rack(ctx, 0)));
    json_object_set_new(rec, "measured_hosts", hosts);
    json_object_set_new(rec, "racks", racks);
    json_object_set_new(rec, "kind", json_string(m->kind));
    json_object_set_new(rec, "coll_alone_us", json_real(c * 1e6));
    json_object_set_new(rec, "compute_alone_us", json_real(k * 1e6));
    json_object_set_new(rec, "together_us", json_real(both * 1e6));
    json_object_set_new(rec, "overlap_pct", json_real(eff));
    json_object_set_new(rec, "compute_work_pct", json_real(work_pct));
    json_object_set_new(rec, "min_overlap_pct", json_real(op->min_overlap_pct));
    json_object_set_new(rec, "compute_ms", json_real(op->compute_ms));
    if (m->extra)
        json_object_update(rec, m->extra);
    json_object_set_new(rec, "iters", json_integer(iters));
    json_object_set_new(rec, "warmup", json_integer(ctx->sp.warmup));
    json_object_set_new(rec, "wrong", json_integer((json_int_t)m->wrong_all));
    json_object_set_new(rec, "calls", fc_calls_json(&m->calls));
    json_object_set_new(rec, "reasons", reasons);
    json_object_set_new(rec, "implicates", impl);
    json_object_set_new(rec, "verdict", json_string(verdict));
    if (strcmp(verdict, "PASS") != 0)
        ++ctx->failed_points;
    snprintf(what, sizeof(what), "all_reduce float32 sum %llu bytes beside %s",
             (unsigned long long)m->bytes, strcmp(m->kind, "gemm") == 0 ? "GEMMs" : "compute");
    if (strcmp(verdict, "PASS") == 0)
        fc_tap_point(&ctx->tap, FC_OK, "%s", what);
    else
        fc_tap_point(&ctx->tap, FC_ERR_FAIL, "%s: %s%s", what,
                     strcmp(verdict, "INCOMPLETE") == 0 ? "INCOMPLETE: " : "",
                     json_string_value(json_array_get(reasons, 0)));
    fc_tap_yaml_begin(&ctx->tap);
    fc_tap_yaml_line(&ctx->tap, "coll_alone_us: %.1f", c * 1e6);
    fc_tap_yaml_line(&ctx->tap, "compute_alone_us: %.1f", k * 1e6);
    fc_tap_yaml_line(&ctx->tap, "together_us: %.1f", both * 1e6);
    fc_tap_yaml_line(&ctx->tap, "overlap_pct: %.1f", eff);
    fc_tap_yaml_line(&ctx->tap, "min_overlap_pct: %.1f", op->min_overlap_pct);
    fc_tap_yaml_line(&ctx->tap, "compute_work_pct: %.1f", work_pct);
    fc_tap_yaml_end(&ctx->tap);
    fc_results_append(&ctx->results, rec);
    free(slow);
    json_decref(m->extra);
}
