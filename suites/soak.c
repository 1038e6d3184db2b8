/*
 * soak.c - the soak stage, the burn-in proper: the profile's collective set
 * in a loop across every healthy node for soak.duration_s, every run
 * checked bitwise by the engine as in any stage. Rank 0 keeps, per test
 * point, the median time of each window of soak.window_s, and judges:
 *   - wrong bits in any run, and the absolute limits on the median over
 *     the whole soak;
 *   - drift: a slowdown sustained over confirm_windows consecutive
 *     windows, against the lower quartile of the window medians, above
 *     max_drift_pct (a link that degrades, a GPU that throttles); one
 *     slow window (a busy neighbour) is recorded as a peak, not judged;
 *     and a slowdown that comes and goes: the level the slowest quarter of
 *     the windows (and at least confirm_windows of them) all reached,
 *     against the same lower quartile (lib/fc_drift.h).
 *     A drift is the whole soak group's until the runner's retest after
 *     the soak places it on a node;
 * and the lowest rank on each node reads its link error counters
 * (lib/fc_counters.h) before and after the loop: an error counter that
 * rose by more than max_error_delta, a link that vanished or a counter
 * that went down (a port re-initialised) FAILs and implicates that node's
 * link; a saturated narrow counter leaves it INCOMPLETE. On the nccl
 * backend each GPU also burns (cuBLAS GEMMs, every result checked) beside
 * the collectives, and its health is read at every window and judged
 * (lib/fc_soak_gpu.h: one soak_gpu record per GPU). Each
 * window is written to results.jsonl as it closes (type soak_window, with
 * the GPUs' health in it and, in "counters", what the links of
 * soak.nic_pattern of every node did in that window: fc_stage_counters.h,
 * shown, not judged), so a soak killed at hour five keeps its first
 * five hours.
 *
 *   mpirun --hostfile H build/suites/soak --racks F --profile P --out DIR
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "fc_alloc.h"
#include "fc_counters.h"
#include "fc_drift.h"
#include "fc_log.h"
#include "fc_soak_gpu.h"
#include "fc_stage.h"
#include "fc_stage_counters.h"
#include "fc_stats.h"

/* A sample of median times (seconds): every value until FC_SOAK_SAMPLES,
 * then a uniform reservoir sample (Vitter's algorithm R), so an hour of
 * microsecond runs does not grow without bound. */
#define FC_SOAK_SAMPLES 4096

typedef struct fc_times {
    double v[FC_SOAK_SAMPLES];
    int n;                      /* kept */
    uint64_t seen;              /* offered */
    uint64_t rng;               /* xorshift64 state */
} fc_times_t;

static void fc_times_reset(fc_times_t *t)
{
    t->n = 0;
    t->seen = 0;
    t->rng = 0x9E3779B97F4A7C15ull;
}

static void fc_times_add(fc_times_t *t, double v)
{
    uint64_t j;

    if (t->n < FC_SOAK_SAMPLES) {
        t->v[t->n++] = v;
        t->seen++;
        return;
    }
    t->rng ^= t->rng << 13;
    t->rng ^= t->rng >> 7;
    t->rng ^= t->rng << 17;
    j = t->rng % ++t->seen;
    if (j < FC_SOAK_SAMPLES)
        t->v[j] = v;
}

/* Rank 0's record of one test point over the soak. */
typedef struct fc_soak_point {
    fc_point_summary_t total;   /* every run merged; median set at the end */
    double bus_factor;          /* busbw / algbw for this collective */
    long runs;
    fc_times_t run_medians;     /* every run's median (sampled) */
    fc_times_t window;          /* the open window's runs (sampled) */
    double *windows;            /* each closed window's median */
    int nwindows;
    uint64_t window_wrong;
} fc_soak_point_t;

static double fc_times_median(const fc_times_t *t)
{
    return t->n > 0 ? fc_stats_median(t->v, (size_t)t->n) : 0;
}

/* Fold one run's summary into the point's record. */
static void fc_soak_merge(fc_soak_point_t *p, const fc_point_summary_t *s)
{
    fc_point_summary_t *t = &p->total;

    if (p->runs == 0) {
        fc_times_reset(&p->run_medians);
        fc_times_reset(&p->window);
    }
    fc_times_add(&p->run_medians, s->time.median);
    fc_times_add(&p->window, s->time.median);
    p->window_wrong += s->wrong;
    if (p->runs++ == 0) {
        *t = *s;
        /* one run's iterations would stand for hours: the soak's
         * record keeps its window medians instead */
        memset(&t->samples, 0, sizeof(t->samples));
        p->bus_factor = s->algbw > 0 ? s->busbw / s->algbw : 1;
        return;
    }
    /* every run has the profile's iterations: the record keeps them per
     * run (soak.runs counts the runs), and the mean is over runs */
    t->time.mean += (s->time.mean - t->time.mean) / (double)p->runs;
    t->time.min = fmin(t->time.min, s->time.min);
    t->time.max = fmax(t->time.max, s->time.max);
    t->time.p99 = fmax(t->time.p99, s->time.p99);
    if (s->time.max >= t->time.max) {
        t->arrival_last_rank = s->arrival_last_rank;
        memcpy(t->arrival_last_host, s->arrival_last_host, sizeof(t->arrival_last_host));
    }
    fc_point_summary_take_first_bad(t, s);
    t->wrong += s->wrong;
    fc_calls_add(&t->calls, &s->calls);     /* every run's calls, made and checked */
    if (s->bad_ranks > t->bad_ranks)
        t->bad_ranks = s->bad_ranks;
    t->digest_ranks_agree = t->digest_ranks_agree && s->digest_ranks_agree;
    t->digest_reps_agree = t->digest_reps_agree && s->digest_reps_agree && s->digest == t->digest;
    if (t->disagree_rank < 0)
        t->disagree_rank = s->disagree_rank;
    if (s->status != FC_OK)
        t->status = fc_status_worst(t->status, s->status);
}

static double fc_busbw(const fc_soak_point_t *p, double median)
{
    return median > 0 ? (double)p->total.bytes / median / 1e9 * p->bus_factor : 0;
}

/* Rank 0: close the open window of every point and write it, with what
 * the GPUs' health was in it (gpu: fc_soak_gpu_window's, taken). */
static void fc_soak_close_window(fc_stage_ctx_t *ctx, fc_soak_point_t *sp,
                                 const fc_test_point_t *points, int npoints, int w,
                                 double start_s, double end_s, long rounds, json_t *gpu,
                                 json_t *counters)
{
    json_t *rec = fc_stage_record(ctx, "soak_window"), *list = json_array();

    for (int i = 0; i < npoints; ++i) {
        fc_soak_point_t *p = &sp[i];
        double m = fc_times_median(&p->window);
        p->windows = fc_xrealloc(p->windows, (size_t)p->nwindows + 1, sizeof(*p->windows),
                                 "a soak point's windows");
        p->windows[p->nwindows++] = m;
        json_array_append_new(list, json_pack(
            "{s:s, s:s, s:s, s:I, s:I, s:f, s:f, s:I}",
            "collective", fc_coll_desc(points[i].coll)->name,
            "dtype", fc_dtype_info(points[i].dtype)->name,
            "op", fc_op_name(points[i].op), "bytes", (json_int_t)p->total.bytes,
            "runs", (json_int_t)p->window.seen, "median_us", m * 1e6,
            "busbw_gbps", fc_busbw(p, m), "wrong", (json_int_t)p->window_wrong));
        fc_times_reset(&p->window);
        p->window_wrong = 0;
    }
    json_object_set_new(rec, "window", json_integer(w));
    json_object_set_new(rec, "start_s", json_real(start_s));
    json_object_set_new(rec, "end_s", json_real(end_s));
    json_object_set_new(rec, "rounds", json_integer((json_int_t)rounds));
    {
        struct rusage ru;       /* rank 0's peak memory: constant over a soak */

        if (getrusage(RUSAGE_SELF, &ru) == 0)
            json_object_set_new(rec, "rank0_max_rss_kib", json_integer(ru.ru_maxrss));
    }
    json_object_set_new(rec, "points", list);
    if (gpu)
        json_object_set_new(rec, "gpu", gpu);
    if (counters)
        json_object_set_new(rec, "counters", counters);
    fc_results_append(&ctx->results, rec);
    fc_tap_diag(&ctx->tap, "soak window %d: %.1f-%.1f s, %ld round(s)", w, start_s,
                end_s, rounds);
}

/* Rank 0: judge and write one point over the whole soak. */
static void fc_soak_report_point(fc_stage_ctx_t *ctx, const fc_test_point_t *pt,
                                 fc_soak_point_t *p, double elapsed)
{
    const fc_soak_profile_t *cfg = &ctx->sp.soak;
    fc_point_summary_t *t = &p->total;
    fc_judgement_t j;
    fc_drift_t d;
    json_t *extra = json_object(), *wins = json_array(), *soak = json_object();
    double mean = 0, var = 0;
    int n = p->nwindows;

    t->time.median = fc_times_median(&p->run_medians);
    t->algbw = t->time.median > 0 ? (double)t->bytes / t->time.median / 1e9 : 0;
    t->busbw = fc_busbw(p, t->time.median);
    fc_judge_point(&ctx->sp, pt, t, 1, &j);
    /* the whole soak's median is thousands of runs: a limit it fails is
     * reproduced by construction */
    j.confirmed = j.status == FC_ERR_FAIL;
    for (int w = 0; w < n; ++w) {
        double m = p->windows[w];

        json_array_append_new(wins, json_pack("{s:i, s:f, s:f}", "window", w,
                                              "median_us", m * 1e6, "busbw_gbps", fc_busbw(p, m)));
        mean += m / n;
    }
    for (int w = 0; w < n; ++w)
        var += (p->windows[w] - mean) * (p->windows[w] - mean) / n;
    fc_drift_judge(p->windows, n, cfg->confirm_windows, &d);
    if (d.drift_pct >= 0 && cfg->max_drift_pct >= 0 && d.drift_pct > cfg->max_drift_pct &&
        j.nreasons < 4) {
        snprintf(j.reasons[j.nreasons++], sizeof(j.reasons[0]),
                 "sustained drift %.1f%%: windows %d to %d all ran at %.1f us or slower, "
                 "against the soak's lower quartile of %.1f us (limit %.1f%% over %d "
                 "consecutive windows)", d.drift_pct, d.from, d.to, d.sustained * 1e6,
                 d.reference * 1e6, cfg->max_drift_pct, cfg->confirm_windows);
        j.status = FC_ERR_FAIL;
        j.confirmed = 1;
    } else if (d.intermittent_pct >= 0 && cfg->max_drift_pct >= 0 &&
               d.intermittent_pct > cfg->max_drift_pct && j.nreasons < 4) {
        char list[160];
        size_t at = 0;
        int slow = 0;

        list[0] = '\0';
        for (int w = 0; w < n; ++w)
            if (p->windows[w] >= d.intermittent && ++slow <= 12)
                at += (size_t)snprintf(list + at, at < sizeof(list) ? sizeof(list) - at : 0,
                                       "%s%d", slow > 1 ? ", " : "", w);
        if (slow > 12 && at < sizeof(list))
            snprintf(list + at, sizeof(list) - at, ", ...");
        snprintf(j.reasons[j.nreasons++], sizeof(j.reasons[0]),
                 "intermittent drift %.1f%%: %d of %d windows (%s) ran at %.1f us or slower, "
                 "not in a row, against the soak's lower quartile of %.1f us (limit %.1f%% "
                 "in a quarter of the windows and at least %d)", d.intermittent_pct, slow, n,
                 list, d.intermittent * 1e6, d.reference * 1e6, cfg->max_drift_pct,
                 cfg->confirm_windows);
        j.status = FC_ERR_FAIL;
        j.confirmed = 1;
    }
    if (d.drift_pct < 0 && cfg->max_drift_pct >= 0 && j.nnotes < FC_JUDGE_NOTES)
        snprintf(j.notes[j.nnotes++], sizeof(j.notes[0]), "drift not judged: %d window(s), "
                 "and a drift must last %d consecutive windows (make window_s shorter "
                 "than the soak)", n, cfg->confirm_windows);
    if (d.drift_pct < 0)
        fc_tap_diag(&ctx->tap, "drift not judged for this point: %d window(s); make "
                    "window_s shorter than the soak", n);
    json_object_set_new(soak, "runs", json_integer((json_int_t)p->runs));
    json_object_set_new(soak, "seconds", json_real(elapsed));
    json_object_set_new(soak, "windows", wins);
    json_object_set_new(soak, "drift_pct", d.drift_pct >= 0 ? json_real(d.drift_pct) : json_null());
    json_object_set_new(soak, "drift_windows", d.drift_pct >= 0 ?
                        json_pack("[i,i]", d.from, d.to) : json_null());
    json_object_set_new(soak, "intermittent_pct", d.intermittent_pct >= 0
                        ? json_real(d.intermittent_pct) : json_null());
    json_object_set_new(soak, "intermittent_windows", d.intermittent_pct >= 0
                        ? json_integer(d.slow_windows) : json_null());
    json_object_set_new(soak, "reference_us", d.peak_pct >= 0 ? json_real(d.reference * 1e6)
                                                              : json_null());
    json_object_set_new(soak, "peak_window_pct", d.peak_pct >= 0 ? json_real(d.peak_pct)
                                                                  : json_null());
    json_object_set_new(soak, "confirm_windows", json_integer(cfg->confirm_windows));
    json_object_set_new(soak, "max_drift_pct", json_real(cfg->max_drift_pct));
    json_object_set_new(soak, "window_cv_pct", mean > 0 && n >= 2 ?
                        json_real(sqrt(var) / mean * 100) : json_null());
    json_object_set_new(extra, "soak", soak);
    fc_stage_report_judged(ctx, pt, t, &j, 1, &extra);
    json_decref(extra);
}

/* The lowest rank on each node: its link counters judged since `before`
 * (fc_counters_judge: vanished, reset, risen, saturated). */
static json_t *fc_soak_counter_judge(const fc_stage_ctx_t *ctx, json_t *before)
{
    json_t *now, *out;

    if (ctx->local_rank != 0)
        return NULL;
    now = fc_counters_snapshot(ctx->sp.soak.nic_pattern);
    out = fc_counters_judge(before, now, ctx->sp.soak.max_error_delta,
                            ctx->sp.soak.nic_pattern, ctx->host);
    json_decref(now);
    return out;
}

/* One node's soak_counters record from its judgement; TAP names the first
 * reason. A FAIL implicates the node's link (the first one at fault). */
static void fc_soak_counters_record(fc_stage_ctx_t *ctx, int r, json_t *j)
{
    const fc_soak_profile_t *cfg = &ctx->sp.soak;
    const char *host = ctx->rank_hosts[r], *rack = ctx->inv.racks[ctx->rank_racks[r]];
    const char *verdict = json_string_value(json_object_get(j, "verdict"));
    json_t *rec = fc_stage_record(ctx, "soak_counters"), *reasons = json_object_get(j, "reasons");
    int pass;

    if (verdict == NULL)
        verdict = "INCOMPLETE";
    pass = strcmp(verdict, "PASS") == 0;
    json_object_set_new(rec, "host", json_string(host));
    json_object_set_new(rec, "rack", json_string(rack));
    json_object_set_new(rec, "max_error_delta", json_real(cfg->max_error_delta));
    json_object_set_new(rec, "nic_pattern", json_string(cfg->nic_pattern));
    json_object_set(rec, "links", json_object_get(j, "links"));
    json_object_set(rec, "vanished", json_object_get(j, "vanished"));
    json_object_set(rec, "appeared", json_object_get(j, "appeared"));
    json_object_set(rec, "reset", json_object_get(j, "reset"));
    json_object_set(rec, "saturated", json_object_get(j, "saturated"));
    json_object_set(rec, "reasons", reasons);
    json_object_set_new(rec, "verdict", json_string(verdict));
    json_object_set_new(rec, "implicates", strcmp(verdict, "FAIL") != 0 ? json_null() :
                        json_pack("{s:s, s:s, s:s?, s:s, s:b}", "part", "link", "host", host,
                                  "link", json_string_value(json_object_get(j, "link")), "rack", rack,
                                  "quarantine", 1));
    if (!pass) {
        ++ctx->failed_points;
        for (size_t i = 0; i < json_array_size(reasons); ++i)
            fc_tap_diag(&ctx->tap, "%s", json_string_value(json_array_get(reasons, i)));
    }
    fc_tap_point(&ctx->tap, pass ? FC_OK : FC_ERR_FAIL,
                 "link error counters of host %s over the soak%s%s", host, pass ? "" : ": ",
                 pass ? "" : json_string_value(json_array_get(reasons, 0)));
    fc_results_append(&ctx->results, rec);
}

/* Rank 0 gathers each node's judgement and records it. */
static void fc_soak_judge_counters(fc_stage_ctx_t *ctx, json_t *mine)
{
    json_t *all = fc_stage_gather_json(mine, MPI_COMM_WORLD);

    if (ctx->world_rank != 0)
        return;
    for (int r = 0; r < ctx->world_size; ++r) {
        json_t *j = json_array_get(all, (size_t)r);

        if (json_is_object(j))      /* only the lowest rank of each node has one */
            fc_soak_counters_record(ctx, r, j);
    }
    json_decref(all);
}

static fc_status_t fc_soak_run(fc_stage_ctx_t *ctx, MPI_Comm group)
{
    const fc_soak_profile_t *cfg = &ctx->sp.soak;
    fc_engine_ident_t ident = { ctx->world_rank, ctx->host, fc_stage_comm_hosts(ctx, group) };
    fc_test_point_t *points = NULL;
    fc_soak_point_t *sp = NULL;
    fc_status_t status = FC_OK;
    fc_backend_t be;
    fc_engine_bufs_t bufs;          /* every run of every point */
    fc_soak_gpu_t *sg;              /* the GPU burn and health (nccl) */
    json_t *before = NULL;
    json_t *deltas;
    fc_stage_ival_t ival;           /* the open window's links (not judged) */
    double t0, window_start = 0, now = 0;
    unsigned long runs = 0;     /* the watchdog's work index, wrapped */
    long rounds = 0;
    int npoints, window = 0, flags[2] = { 1, 0 };     /* go on, a window closed */

    FC_CHECK(fc_stage_open_backend(ctx, group, &be));
    sg = fc_soak_gpu_start(ctx, &be);
    fc_engine_bufs_init(&bufs);
    npoints = fc_stage_points(ctx, &points);
    if (ctx->world_rank == 0)
        sp = fc_xcalloc((size_t)npoints, sizeof(*sp), "the soak points");
    if (ctx->local_rank == 0)
        before = fc_counters_snapshot(cfg->nic_pattern);
    if (ctx->world_rank == 0)
        fc_tap_diag(&ctx->tap, "soak: %d point(s) for %.0f s, windows of %.1f s",
                    npoints, cfg->duration_s, cfg->window_s);
    fc_stage_ival_open_links(ctx, &ival, cfg->nic_pattern);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (;;) {
        /* rank 0's clock decides, so every rank runs the same rounds and
         * reads its GPU's health at the same window's end */
        if (ctx->world_rank == 0) {
            now = MPI_Wtime() - t0;
            flags[1] = rounds > 0 && now - window_start >= cfg->window_s;
            flags[0] = now < cfg->duration_s;
        }
        MPI_Bcast(flags, 2, MPI_INT, 0, MPI_COMM_WORLD);
        if (flags[1]) {
            json_t *gpu = fc_soak_gpu_window(ctx, sg, window);
            json_t *counters = fc_stage_ival_close(ctx, &ival);

            fc_stage_ival_open_links(ctx, &ival, cfg->nic_pattern);
            if (ctx->world_rank == 0)
                fc_soak_close_window(ctx, sp, points, npoints, window, window_start, now,
                                     rounds, gpu, counters);
            ++window;
            window_start = now;
            rounds = 0;
        }
        if (!flags[0])
            break;
        for (int i = 0; i < npoints; ++i) {
            fc_point_summary_t mine;
            char what[128];

            fc_point_label(&points[i], what, sizeof(what));
            fc_stage_progress(ctx, (int)(runs++ % INT_MAX), what);
            status = fc_status_worst(status, fc_engine_run_point(&be, &points[i],
                                     &ctx->opts.selftest, &ident, &bufs, &mine));
            if (ctx->world_rank == 0)
                fc_soak_merge(&sp[i], &mine);
        }
        ++rounds;
    }
    /* the burn's last chunk ends inside the last window */
    fc_soak_gpu_stop(sg);
    if (rounds > 0) {       /* every rank ran the same rounds */
        json_t *gpu = fc_soak_gpu_window(ctx, sg, window);
        json_t *counters = fc_stage_ival_close(ctx, &ival);

        if (ctx->world_rank == 0)
            fc_soak_close_window(ctx, sp, points, npoints, window, window_start,
                                 MPI_Wtime() - t0, rounds, gpu, counters);
    }
    json_decref(ival.before);       /* a window opened and never run */
    if (ctx->world_rank == 0) {
        double elapsed = MPI_Wtime() - t0;

        for (int i = 0; i < npoints; ++i) {
            fc_soak_report_point(ctx, &points[i], &sp[i], elapsed);
            free(sp[i].windows);
        }
    }
    fc_soak_gpu_finish(ctx, sg);
    deltas = fc_soak_counter_judge(ctx, before);
    fc_soak_judge_counters(ctx, deltas);
    json_decref(deltas);
    json_decref(before);
    free(sp);
    free(points);
    fc_engine_bufs_free(&be, &bufs);
    be.ops->fini_func(&be);
    return status;
}

int main(int argc, char **argv)
{
    fc_stage_ctx_t ctx;
    fc_status_t status;
    MPI_Comm all;

    status = fc_stage_init(&argc, &argv, FC_STAGE_SOAK, &ctx);
    if (status != FC_OK)
        return fc_stage_exit(status);
    if (ctx.skip_reason[0])
        return fc_stage_finish(&ctx, FC_ERR_SKIP);
    status = fc_stage_whole(&ctx, &all);
    if (status == FC_OK) {
        status = fc_soak_run(&ctx, all);
        MPI_Comm_free(&all);
    }
    return fc_stage_finish(&ctx, status);
}
