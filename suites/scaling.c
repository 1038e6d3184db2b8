/*
 * scaling.c - the scaling series: does busbw hold as the job grows from
 * one node to all of them? The job's hosts are ordered to fill a rack
 * before the next (the inventory's rack order, then the host list's), and
 * the profile's collective sweep runs on the first 1, 2, 4, ... nodes of
 * that order and on all of them (a sub-communicator per node count,
 * MPI_Comm_split of the world by the prefix), one count after the other,
 * each with the engine's point loop. A series that starts on one node
 * needs more than one rank there (one rank alone moves nothing); with
 * --ppn 1 it starts at two (fc_stage_series_counts, which the report
 * holds the records to). Each (node count, point) is a `scaling`
 * record with its busbw; from the second count on it is judged against
 * the count before at the same point, each on its best iteration's busbw
 * (`peak_busbw`: a busy host's stalls slow some iterations, a slow spine
 * slows every one, so the fastest is the fabric's): it may drop at most
 * scaling.max_drop_pct (scaling.max_first_drop_pct on the step from one
 * node to two, which leaves the node's shared memory or NVLink for the
 * fabric, a drop by design). A drop beyond the limit is FAIL, naming
 * where it appeared and no single node (nothing is quarantined):
 *
 *   1 -> 2 nodes            the NICs of the node added (part "nic")
 *   a step that brings in   the spine and the uplinks of the racks the
 *   another rack            series now spans (part "spine"), FAIL on each
 *   another step            the links of the nodes added (part "links")
 *
 * A wrong element is FAIL naming the rank and host, as in every sweep.
 * Runs on the stage's backend: mpi, or nccl (the GPU plugin's backend on
 * each count's communicator: the GPU series, NVLink inside a node, then
 * the fabric).
 *
 *   mpirun --hostfile H build/suites/scaling --racks FILE --profile FILE --out DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_ctl.h"
#include "fc_log.h"
#include "fc_stage.h"
#include "fc_stage_wrong.h"

#define FC_SCL_MAX_COUNTS 40

typedef struct fc_scl {
    int nhosts;                 /* the job's hosts, in series order */
    int *host_of_rank;          /* world rank -> index in the order */
    int *order_rank;            /* index -> its first world rank */
    int ncounts, counts[FC_SCL_MAX_COUNTS];
} fc_scl_t;

/* The job's hosts in series order: by rack (the inventory's order), then
 * by their first rank (the host list's order). */
static void fc_scl_order(const fc_stage_ctx_t *ctx, fc_scl_t *sc)
{
    int n = ctx->world_size, min_ranks = n;

    sc->host_of_rank = fc_xcalloc((size_t)n, sizeof(int), "the series' host order");
    sc->order_rank = fc_xcalloc((size_t)n, sizeof(int), "the series' host order");
    for (int rack = 0; rack < ctx->inv.nracks; ++rack)
        for (int r = 0; r < n; ++r) {
            int first = r;

            if (ctx->rank_racks[r] != rack)
                continue;
            for (int q = 0; q < r && first == r; ++q)
                if (strcmp(ctx->rank_hosts[q], ctx->rank_hosts[r]) == 0)
                    first = q;
            if (first == r)
                sc->order_rank[sc->nhosts++] = r;
            sc->host_of_rank[r] = first == r ? sc->nhosts - 1 : sc->host_of_rank[first];
        }
    for (int h = 0; h < sc->nhosts; ++h) {
        int on = 0;

        for (int r = 0; r < n; ++r)
            on += sc->host_of_rank[r] == h;
        min_ranks = on < min_ranks ? on : min_ranks;
    }
    /* 1 (when every node has more than one rank), 2, 4, ..., all */
    sc->ncounts = fc_stage_series_counts(sc->nhosts, min_ranks, sc->counts, FC_SCL_MAX_COUNTS);
}

static const char *fc_scl_rack(const fc_stage_ctx_t *ctx, const fc_scl_t *sc, int h)
{
    return ctx->inv.racks[ctx->rank_racks[sc->order_rank[h]]];
}

/* The racks of hosts [from, to) of the order, each once, into racks;
 * their number. */
static int fc_scl_racks(const fc_stage_ctx_t *ctx, const fc_scl_t *sc, int from, int to,
                        json_t *racks)
{
    for (int h = from; h < to; ++h) {
        const char *rack = fc_scl_rack(ctx, sc, h);
        int seen = 0;
        size_t i;
        json_t *v;

        json_array_foreach(racks, i, v)
            seen |= strcmp(json_string_value(v), rack) == 0;
        if (!seen)
            json_array_append_new(racks, json_string(rack));
    }
    return (int)json_array_size(racks);
}

static void fc_scl_join(json_t *names, char *buf, size_t len)
{
    size_t used = 0, i;
    json_t *v;

    buf[0] = '\0';
    json_array_foreach(names, i, v)
        if (used + 2 < len)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
                                     json_string_value(v));
}

/* The busbw of the fastest timed iteration (busbw scales with 1/time). */
static double fc_scl_peak(const fc_point_summary_t *s)
{
    return s->time.min > 0 ? s->busbw * s->time.median / s->time.min : s->busbw;
}

/* Rank 0: the record of count ci at point pt, judged against prev (the
 * summary of the count before, NULL for the first). */
static int fc_scl_record(fc_stage_ctx_t *ctx, const fc_scl_t *sc, int ci,
                         const fc_test_point_t *pt, const fc_point_summary_t *s,
                         const fc_point_summary_t *prev, int prev_failed)
{
    const fc_scaling_profile_t *lim = &ctx->sp.scaling;
    int k = sc->counts[ci], pk = ci ? sc->counts[ci - 1] : 0;
    json_t *rec = fc_stage_record(ctx, "scaling"), *hosts = json_array(), *racks = json_array();
    json_t *added = json_array(), *reasons = json_array(), *impl = json_null();
    json_t *prev_racks = json_array(), *added_racks = json_array();
    double limit = pk == 1 ? lim->max_first_drop_pct : lim->max_drop_pct, drop = 0;
    int crosses = 0;
    const char *verdict = "PASS";
    char why[FC_REASON_MAX], what[160], group[32], rlist[256], alist[256], hlist[512];
    const fc_limit_rule_t *rule = fc_profile_find_limit(&ctx->sp, (int)pt->coll,
                                                        (int)pt->dtype, (int)pt->op, pt->bytes);
    double floor_gbps = rule ? rule->min_busbw_gbps : -1;

    for (int h = 0; h < k; ++h)
        json_array_append_new(hosts, json_string(ctx->rank_hosts[sc->order_rank[h]]));
    for (int h = pk; h < k && ci > 0; ++h)
        json_array_append_new(added, json_string(ctx->rank_hosts[sc->order_rank[h]]));
    fc_scl_racks(ctx, sc, 0, k, racks);
    fc_scl_racks(ctx, sc, pk, k, added_racks);
    crosses = ci > 0 && fc_scl_racks(ctx, sc, 0, pk, prev_racks) < (int)json_array_size(racks);
    fc_scl_join(racks, rlist, sizeof(rlist));
    fc_scl_join(added, alist, sizeof(alist));
    fc_scl_join(hosts, hlist, sizeof(hlist));
    snprintf(group, sizeof(group), "%d nodes", k);
    double peak = fc_scl_peak(s), prev_peak = prev ? fc_scl_peak(prev) : 0;

    if (prev != NULL && prev_peak > 0)
        drop = 100 * (prev_peak - peak) / prev_peak;
    if (s->status != FC_OK) {
        snprintf(why, sizeof(why), "the point did not run on %d nodes (%s)", k,
                 fc_status_str((fc_status_t)s->status));
        json_array_append_new(reasons, json_string(why));
        verdict = "FAIL";
        impl = json_pack("{s:s, s:s, s:s, s:O, s:b}", "part", "cluster", "host", "", "rack",
                         "", "racks", racks, "quarantine", 0);
    } else if (fc_stage_wrong_result(s)) {
        snprintf(why, sizeof(why), "%llu wrong elements on %d nodes; first on rank %d (host "
                 "%s), iteration %d, element %llu", (unsigned long long)s->wrong, k,
                 s->first_bad_rank, s->first_bad_host, s->first_bad_iter,
                 (unsigned long long)s->first_bad_pos);
        json_array_append_new(reasons, json_string(why));
        verdict = "FAIL";
        impl = fc_stage_wrong_implicates(ctx, s->first_bad_rank >= 0 ? s->first_bad_rank : 0);
    } else if (fc_calls_unchecked(&s->calls) > 0) {
        /* no PASS from an unchecked call (fc_calls.h) */
        fc_calls_why(&s->calls, why, sizeof(why));
        json_array_append_new(reasons, json_string(why));
        verdict = "FAIL";
        impl = json_pack("{s:s, s:s, s:s, s:O, s:b}", "part", "cluster", "host", "", "rack",
                         "", "racks", racks, "quarantine", 0);
    } else if (floor_gbps >= 0 && peak < floor_gbps) {
        snprintf(why, sizeof(why), "busbw %.3f GB/s on %d nodes is below the floor %g GB/s "
                 "(limits: min_busbw_gbps, profile line %d; the count's fastest iteration): "
                 "a link or node of %.300s; no single node is blamed", peak, k, floor_gbps,
                 rule->line, hlist);
        json_array_append_new(reasons, json_string(why));
        verdict = "FAIL";
        impl = json_pack("{s:s, s:s, s:s, s:O, s:O, s:b}", "part", "links", "host", "",
                         "rack", "", "racks", racks, "hosts", hosts, "quarantine", 0);
    } else if (rule && rule->max_latency_us >= 0 && s->time.median * 1e6 > rule->max_latency_us) {
        snprintf(why, sizeof(why), "median %.1f us on %d nodes is above max_latency_us %g "
                 "(limits:, profile line %d): a link or node of %.300s; no single node is "
                 "blamed", s->time.median * 1e6, k, rule->max_latency_us, rule->line, hlist);
        json_array_append_new(reasons, json_string(why));
        verdict = "FAIL";
        impl = json_pack("{s:s, s:s, s:s, s:O, s:O, s:b}", "part", "links", "host", "",
                         "rack", "", "racks", racks, "hosts", hosts, "quarantine", 0);
    } else if (ci == 0 && sc->ncounts == 1) {
        snprintf(why, sizeof(why), "a series of one node count (%d nodes): nothing was "
                 "compared, so no step was judged; run it on more hosts", k);
        json_array_append_new(reasons, json_string(why));
        verdict = "INCOMPLETE";
    } else if (prev != NULL && prev_failed) {
        snprintf(why, sizeof(why), "judged against a count that had failed (%d nodes): its "
                 "busbw is no reference, so the step %d -> %d nodes is not judged", pk, pk, k);
        json_array_append_new(reasons, json_string(why));
        verdict = "INCOMPLETE";
    } else if (prev != NULL && prev_peak > 0 && drop > limit) {
        const char *part = crosses ? "spine-or-links" : pk == 1 ? "nic" : "links";
        char where[512], prl[256];

        fc_scl_join(added_racks, prl, sizeof(prl));
        if (crosses)
            snprintf(where, sizeof(where), "the drop appears where the series crosses the "
                     "spine (racks %s): the spine or the uplinks of racks %s, or the links "
                     "of the nodes added (%s), until a retest places it", rlist, rlist, alist);
        else if (pk == 1)
            snprintf(where, sizeof(where), "the drop appears on leaving the node: the NICs "
                     "and links of %s (added) and %s", alist,
                     ctx->rank_hosts[sc->order_rank[0]]);
        else
            snprintf(where, sizeof(where), "the drop appears inside rack %s: the links of "
                     "%s (added)", fc_scl_rack(ctx, sc, pk), alist);
        snprintf(why, sizeof(why), "busbw %.3f GB/s on %d nodes is %.0f%% below %.3f GB/s on "
                 "%d nodes (limit %.0f%%; each count's fastest iteration): %.300s; no single "
                 "node is blamed", peak, k, drop, prev_peak, pk, limit, where);
        json_array_append_new(reasons, json_string(why));
        verdict = "FAIL";
        impl = json_pack("{s:s, s:s, s:s, s:O, s:O, s:b}", "part", part, "host",
                         crosses || pk != 1 ? "" : ctx->rank_hosts[sc->order_rank[1]],
                         "rack", crosses ? "" : fc_scl_rack(ctx, sc, pk), "racks",
                         crosses ? racks : added_racks, "hosts", added, "quarantine", 0);
    }
    json_object_set_new(rec, "collective", json_string(fc_coll_desc(pt->coll)->name));
    json_object_set_new(rec, "dtype", json_string(fc_dtype_info(pt->dtype)->name));
    json_object_set_new(rec, "op", json_string(fc_op_name(pt->op)));
    json_object_set_new(rec, "bytes", json_integer((json_int_t)s->bytes));
    json_object_set_new(rec, "requested_bytes", json_integer((json_int_t)pt->bytes));
    json_object_set_new(rec, "group", json_string(group));
    json_object_set_new(rec, "rack", json_string(""));
    json_object_set_new(rec, "nodes", json_integer(k));
    json_object_set_new(rec, "ranks", json_integer(s->nranks));
    json_object_set_new(rec, "measured_hosts", hosts);
    json_object_set_new(rec, "racks", strcmp(verdict, "FAIL") == 0 && json_is_object(impl) &&
                        json_object_get(impl, "racks") ? json_incref(json_object_get(impl,
                        "racks")) : json_incref(racks));
    json_object_set_new(rec, "series_racks", racks);
    json_object_set_new(rec, "added_hosts", added);
    json_object_set_new(rec, "crosses_spine", json_boolean(crosses));
    json_object_set_new(rec, "busbw", json_real(s->busbw));
    json_object_set_new(rec, "peak_busbw", json_real(peak));
    json_object_set_new(rec, "algbw", json_real(s->algbw));
    json_object_set_new(rec, "median_us", json_real(s->time.median * 1e6));
    json_object_set_new(rec, "prev_nodes", ci ? json_integer(pk) : json_null());
    json_object_set_new(rec, "prev_peak_busbw", prev ? json_real(prev_peak) : json_null());
    json_object_set_new(rec, "drop_pct", prev && prev_peak > 0 ? json_real(drop)
                        : json_null());
    json_object_set_new(rec, "max_drop_pct", ci ? json_real(limit) : json_null());
    json_object_set_new(rec, "iters", json_integer(s->iters));
    json_object_set_new(rec, "warmup", json_integer(s->warmup));
    json_object_set_new(rec, "wrong", json_integer((json_int_t)s->wrong));
    json_object_set_new(rec, "calls", fc_calls_json(&s->calls));
    json_object_set_new(rec, "reasons", reasons);
    json_object_set_new(rec, "implicates", impl);
    json_object_set_new(rec, "verdict", json_string(verdict));
    json_object_set_new(rec, "limit", rule ? json_pack("{s:f, s:f, s:i}", "min_busbw_gbps",
                        rule->min_busbw_gbps, "max_latency_us", rule->max_latency_us, "line",
                        rule->line) : json_null());
    if (ci == 0)
        json_object_set_new(rec, "note", json_string(floor_gbps >= 0
            ? "the first count of the series: no step, judged against the floor alone"
            : "the first count of the series: no step and no floor (limits: min_busbw_gbps), "
              "so nothing judges it; a slow node here is seen only by the steps after"));
    json_decref(prev_racks);
    json_decref(added_racks);
    if (strcmp(verdict, "PASS") != 0)
        ++ctx->failed_points;
    fc_point_label(pt, what, sizeof(what));
    if (strcmp(verdict, "PASS") == 0)
        fc_tap_point(&ctx->tap, FC_OK, "%s on %d nodes", what, k);
    else
        fc_tap_point(&ctx->tap, FC_ERR_FAIL, "%s on %d nodes: %s", what, k,
                     json_string_value(json_array_get(reasons, 0)));
    fc_tap_yaml_begin(&ctx->tap);
    fc_tap_yaml_line(&ctx->tap, "nodes: %d", k);
    fc_tap_yaml_line(&ctx->tap, "racks: %s", rlist);
    fc_tap_yaml_line(&ctx->tap, "busbw_gbs: %.4f", s->busbw);
    fc_tap_yaml_line(&ctx->tap, "peak_busbw_gbs: %.4f", peak);
    if (prev != NULL)
        fc_tap_yaml_line(&ctx->tap, "drop_pct: %.1f", drop);
    fc_tap_yaml_end(&ctx->tap);
    fc_results_append(&ctx->results, rec);
    return strcmp(verdict, "PASS") != 0;
}

int main(int argc, char **argv)
{
    fc_stage_ctx_t ctx;
    fc_status_t status;
    fc_scl_t sc = { 0 };
    fc_test_point_t *points = NULL;
    fc_point_summary_t *prev = NULL, *cur = NULL, mine, *all = NULL;
    int npoints, index = 0, *prev_bad = NULL, *cur_bad = NULL;

    status = fc_stage_init(&argc, &argv, FC_STAGE_SCALING, &ctx);
    if (status != FC_OK)
        return fc_stage_exit(status);
    if (ctx.skip_reason[0])
        return fc_stage_finish(&ctx, FC_ERR_SKIP);
    ctx.grouping = FC_GROUP_ALL;
    fc_scl_order(&ctx, &sc);
    npoints = fc_stage_points(&ctx, &points);
    if (ctx.world_rank == 0) {
        char counts[256] = "";
        size_t used = 0;

        for (int c = 0; c < sc.ncounts; ++c)
            used += (size_t)snprintf(counts + used, sizeof(counts) - used, "%s%d",
                                     c ? ", " : "", sc.counts[c]);
        fc_tap_diag(&ctx.tap, "scaling: %d hosts, node counts %s, %d points each, limit "
                    "%.0f%% (%.0f%% from one node to two)", sc.nhosts, counts, npoints,
                    ctx.sp.scaling.max_drop_pct, ctx.sp.scaling.max_first_drop_pct);
        all = fc_xcalloc((size_t)ctx.world_size, sizeof(*all), "the ranks' summaries");
        prev = fc_xcalloc((size_t)npoints + 1, sizeof(*prev), "the previous count's figures");
        cur = fc_xcalloc((size_t)npoints + 1, sizeof(*cur), "this count's figures");
        prev_bad = fc_xcalloc((size_t)npoints + 1, sizeof(int), "the previous count's verdicts");
        cur_bad = fc_xcalloc((size_t)npoints + 1, sizeof(int), "this count's verdicts");
    }
    for (int ci = 0; ci < sc.ncounts; ++ci) {
        int member = sc.host_of_rank[ctx.world_rank] < sc.counts[ci];
        MPI_Comm sub;
        fc_backend_t be;
        fc_engine_bufs_t bufs;
        fc_engine_ident_t ident = { ctx.world_rank, ctx.host, sc.counts[ci] };

        fc_status_t st;
        int up, all_up;

        MPI_Comm_split(MPI_COMM_WORLD, member ? 0 : MPI_UNDEFINED, ctx.world_rank, &sub);
        /* the stage's backend on this count's ranks: mpi, or nccl through
         * the GPU plugin (a communicator per count, its devices recorded);
         * every world rank takes part, and all agree it started */
        st = fc_stage_open_backend_on(&ctx, sub, member, &be);
        up = st == FC_OK;
        fc_ctl_allreduce(MPI_COMM_WORLD, "the backend started on every rank", FC_CTL_INT,
                         FC_CTL_MIN, &up, &all_up, 1);
        fc_ctl_check(all_up == 0 || all_up == 1, "the backend started on every rank", -1,
                     "%d", all_up);
        if (!all_up) {
            if (member && up)
                be.ops->fini_func(&be);
            if (member)
                MPI_Comm_free(&sub);
            fc_error("stage scaling: the %s backend could not start on %d nodes (%s on this "
                     "rank); the series stops there", ctx.opts.backend, sc.counts[ci],
                     fc_status_str(st));
            status = fc_status_worst(status, up ? FC_ERR_INTERNAL : st);
            break;
        }
        fc_engine_bufs_init(&bufs);
        for (int p = 0; p < npoints; ++p, ++index) {
            char what[160];

            fc_point_label(&points[p], what, sizeof(what));
            snprintf(what + strlen(what), sizeof(what) - strlen(what), " on %d nodes",
                     sc.counts[ci]);
            fc_stage_progress(&ctx, index, what);
            memset(&mine, 0, sizeof(mine));
            if (member) {
                status = fc_status_worst(status, fc_engine_run_point(&be, &points[p],
                                         &ctx.opts.selftest, &ident, &bufs, &mine));
                if (be.rank != 0)
                    mine.valid = 0;
            }
            fc_stage_gather_summaries("the points' summaries", &mine, all);
            if (ctx.world_rank != 0)
                continue;
            for (int r = 0; r < ctx.world_size; ++r)
                if (all[r].valid)
                    cur[p] = all[r];
            cur_bad[p] = fc_scl_record(&ctx, &sc, ci, &points[p], &cur[p],
                                       ci ? &prev[p] : NULL, ci ? prev_bad[p] : 0);
        }
        if (ctx.world_rank == 0) {
            memcpy(prev, cur, sizeof(*cur) * (size_t)npoints);
            memcpy(prev_bad, cur_bad, sizeof(*cur_bad) * (size_t)npoints);
        }
        if (member) {
            fc_engine_bufs_free(&be, &bufs);
            be.ops->fini_func(&be);
            MPI_Comm_free(&sub);
        }
    }
    free(points);
    free(all);
    free(prev);
    free(cur);
    free(prev_bad);
    free(cur_bad);
    free(sc.host_of_rank);
    free(sc.order_rank);
    return fc_stage_finish(&ctx, status);
}
