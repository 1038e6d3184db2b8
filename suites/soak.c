/*
 * soak.c - the soak stage, the burn-in proper: the profile's collective set
 * in a loop across every healthy node for soak.duration_s, every run
 * checked bitwise by the engine as in any stage. Rank 0 keeps, per test
 * point, the median time of each window of soak.window_s, and judges:
 *   - wrong bits in any run, and the absolute limits on the median over
 *     the whole soak;
 *   - drift (lib/soak/fc_drift.h): a step or a trend that holds to the last
 *     window, k (confirm_windows) windows or more, against the fastest
 *     level held over k windows before it, above max_drift_pct or, where
 *     the windows swing back down by more (a busy host), above that noise
 *     floor; one slow window is a peak, recorded, not judged. A drift seen
 *     when the soak's time is up is confirmed before it blames: the loop
 *     runs k more windows and the drift, judged again over every window,
 *     must still be there; if they contradict it the point is INCOMPLETE
 *     with both figures and blames nobody. A soak with fewer than 2k
 *     windows at its end (rounds that outlast window_s) runs on too. That
 *     extension is bounded by a third of what the stage's timeout leaves
 *     beyond the duration, in windows short enough to fit. A confirmed
 *     drift is the whole soak group's until the runner's retest after the
 *     soak places it on a node;
 * and the lowest rank on each node reads its link error counters
 * (lib/counters/fc_counters.h) before and after the loop: an error counter that
 * rose by more than max_error_delta, a link that vanished or a counter
 * that went down (a port re-initialised) FAILs and implicates that node's
 * link; a saturated narrow counter leaves it INCOMPLETE. On the nccl
 * backend each GPU also burns (cuBLAS GEMMs, every result checked) beside
 * the collectives, and its health is read at every window and judged
 * (lib/soak/fc_soak_gpu.h: one soak_gpu record per GPU). Each
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
#include "fc_ctl.h"
#include "fc_drift.h"
#include "fc_drift_record.h"
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
    fc_drift_watch_t watch;     /* a drift seen at the end, until confirmed */
} fc_soak_point_t;

/* Rank 0's view of the loop: when it ends, and why it ran on. */
typedef struct fc_soak_clock {
    double end_s;               /* the open stretch ends here (duration_s, then
                                 * each extension window's end) */
    double limit_s;             /* duration_s and the most it may run on */
    double ext_window_s;        /* the windows past duration_s */
    const char *open_why;       /* why the open window is past duration_s:
                                 * "windows" or "confirm"; NULL: within it */
} fc_soak_clock_t;

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
 * the GPUs' health was in it (gpu: fc_soak_gpu_window's, taken) and, past
 * soak.duration_s, why the soak ran on (why: "windows" or "confirm"). */
static void fc_soak_close_window(fc_stage_ctx_t *ctx, fc_soak_point_t *sp,
                                 const fc_test_point_t *points, int npoints, int w,
                                 double start_s, double end_s, long rounds, json_t *gpu,
                                 json_t *counters, const char *why)
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
    if (why)
        json_object_set_new(rec, "after_duration", json_string(why));
    if (gpu)
        json_object_set_new(rec, "gpu", gpu);
    if (counters)
        json_object_set_new(rec, "counters", counters);
    fc_results_append(&ctx->results, rec);
    fc_tap_diag(&ctx->tap, "soak window %d: %.1f-%.1f s, %ld round(s)%s%s", w, start_s,
                end_s, rounds, why ? ", past the duration: " : "", why ? why : "");
}

/* Rank 0: judge and write one point over the whole soak; nominal: the
 * windows that began within soak.duration_s. A drift confirmed FAILs and
 * is blamed (on the group, until the retest places it); one contradicted
 * or left unconfirmed blames nobody: INCOMPLETE, unless a limit failed. */
static void fc_soak_report_point(fc_stage_ctx_t *ctx, const fc_test_point_t *pt,
                                 fc_soak_point_t *p, double elapsed, int nominal)
{
    const fc_soak_profile_t *cfg = &ctx->sp.soak;
    fc_point_summary_t *t = &p->total;
    fc_judgement_t j;
    fc_drift_t d;
    fc_drift_outcome_t o;
    json_t *extra = json_object(), *wins = json_array(), *soak = json_object();
    double mean = 0, var = 0;
    int n = p->nwindows, incomplete = 0;

    t->time.median = fc_times_median(&p->run_medians);
    t->algbw = t->time.median > 0 ? (double)t->bytes / t->time.median / 1e9 : 0;
    t->busbw = fc_busbw(p, t->time.median);
    fc_judge_point(&ctx->sp, pt, t, 1, &j);
    /* the whole soak's median is thousands of runs: a limit it fails is
     * reproduced by construction */
    j.confirmed = j.status == FC_ERR_FAIL;
    for (int w = 0; w < n; ++w) {
        double m = p->windows[w];
        json_t *win = json_pack("{s:i, s:f, s:f}", "window", w, "median_us", m * 1e6,
                                "busbw_gbps", fc_busbw(p, m));

        if (w >= nominal)
            json_object_set_new(win, "after_duration", json_true());
        json_array_append_new(wins, win);
        mean += m / n;
    }
    for (int w = 0; w < n; ++w)
        var += (p->windows[w] - mean) * (p->windows[w] - mean) / n;
    fc_drift_judge(p->windows, n, cfg->confirm_windows, cfg->max_drift_pct, &d);
    o = fc_drift_watch_outcome(&p->watch, &d);
    if (o == FC_DRIFT_CONFIRMED || o == FC_DRIFT_CONTRADICTED || o == FC_DRIFT_UNCONFIRMED) {
        if (j.nreasons < 4)
            fc_drift_reason(&d, &p->watch, o, j.reasons[j.nreasons++], sizeof(j.reasons[0]));
        incomplete = o != FC_DRIFT_CONFIRMED && j.status == FC_OK;
        j.confirmed = o == FC_DRIFT_CONFIRMED || j.confirmed;
        j.status = FC_ERR_FAIL;
    }
    if (o == FC_DRIFT_NOT_JUDGED && cfg->max_drift_pct >= 0) {
        if (j.nnotes < FC_JUDGE_NOTES)
            snprintf(j.notes[j.nnotes++], sizeof(j.notes[0]), "drift not judged: %d "
                     "window(s), and a drift is judged from %d (%d held fast, %d held "
                     "slow; make window_s shorter than the soak)", n,
                     fc_drift_min_windows(cfg->confirm_windows), cfg->confirm_windows,
                     cfg->confirm_windows);
        fc_tap_diag(&ctx->tap, "drift not judged for this point: %d window(s) of the %d it "
                    "needs; make window_s shorter than the soak", n,
                    fc_drift_min_windows(cfg->confirm_windows));
    }
    json_object_set_new(soak, "runs", json_integer((json_int_t)p->runs));
    json_object_set_new(soak, "seconds", json_real(elapsed));
    /* how long it ran on for its drift (a last round's overrun is not) */
    json_object_set_new(soak, "extended_s", json_real(n > nominal ? fmax(0, elapsed -
                                                                     cfg->duration_s) : 0));
    json_object_set_new(soak, "nominal_windows", json_integer(nominal));
    json_object_set_new(soak, "windows", wins);
    fc_drift_record(soak, &d, &p->watch, o);
    json_object_set_new(soak, "confirm_windows", json_integer(cfg->confirm_windows));
    json_object_set_new(soak, "max_drift_pct", json_real(cfg->max_drift_pct));
    json_object_set_new(soak, "window_cv_pct", mean > 0 && n >= 2 ?
                        json_real(sqrt(var) / mean * 100) : json_null());
    json_object_set_new(extra, "soak", soak);
    if (incomplete) {       /* the windows contradict themselves: no verdict, no blame */
        json_object_set_new(extra, "verdict", json_string("INCOMPLETE"));
        json_object_set_new(extra, "implicates", json_null());
    }
    fc_stage_report_judged(ctx, pt, t, &j, 1, &extra);
    json_decref(extra);
}

/* Rank 0, when the soak's time is up: whether the drift of some point is
 * unsettled (fewer than 2k windows, or a drift seen fewer than k windows
 * ago), judging its closed windows and the open one as it stands (it is
 * closed next either way). NULL: settled; else "windows" or "confirm". */
static const char *fc_soak_unsettled(const fc_stage_ctx_t *ctx, fc_soak_point_t *sp,
                                     int npoints)
{
    const fc_soak_profile_t *cfg = &ctx->sp.soak;
    const char *why = NULL;

    for (int i = 0; i < npoints; ++i) {
        fc_soak_point_t *p = &sp[i];
        int n = p->nwindows + (p->window.n > 0);
        double *m = fc_xcalloc((size_t)n + 1, sizeof(*m), "a soak point's windows");

        memcpy(m, p->windows, (size_t)p->nwindows * sizeof(*m));
        if (p->window.n > 0)
            m[p->nwindows] = fc_times_median(&p->window);
        if (fc_drift_watch_step(&p->watch, m, n, cfg->confirm_windows, cfg->max_drift_pct))
            why = p->watch.seen_at >= 0 ? "confirm" : why ? why : "windows";
        free(m);
    }
    return why;
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

/* Rank 0's clock: the soak's duration, then at most a third of what the
 * timeout leaves beyond it (the rest is for start-up and the judgement),
 * in windows of window_s or shorter, so that the 3k windows the drift may
 * still need (k to reach 2k, k to confirm) fit. */
static void fc_soak_clock_init(const fc_stage_ctx_t *ctx, fc_soak_clock_t *c)
{
    const fc_soak_profile_t *cfg = &ctx->sp.soak;
    double spare = fmax(0, (ctx->sp.timeout_s - cfg->duration_s) / 3);

    c->end_s = cfg->duration_s;
    c->limit_s = cfg->duration_s + spare;
    c->ext_window_s = fmin(cfg->window_s, spare / (3.0 * cfg->confirm_windows));
    c->open_why = NULL;
}

/* Rank 0, before each round: whether a window closes (flags[1]) and the
 * loop goes on (flags[0]). At the end of the time, a drift still
 * unsettled runs the loop on by one more window, until the limit; the
 * window open then closes at once, so that the judgement that asked for
 * more saw the windows it will be judged on. */
static void fc_soak_tick(fc_stage_ctx_t *ctx, fc_soak_point_t *sp, int npoints,
                         fc_soak_clock_t *c, double now, double open_s, long rounds,
                         int flags[2])
{
    const char *why;

    flags[1] = rounds > 0 && open_s >= ctx->sp.soak.window_s;
    flags[0] = now < c->end_s;
    if (flags[0])
        return;
    why = now < c->limit_s ? fc_soak_unsettled(ctx, sp, npoints) : NULL;
    if (why == NULL)
        return;         /* settled: the open window closes after the loop */
    if (c->open_why == NULL || strcmp(c->open_why, why) != 0)
        fc_tap_diag(&ctx->tap, "soak: the time is up with the drift unsettled (%s): "
                    "running on in windows of %.1f s, until %.0f s at most", why,
                    c->ext_window_s, c->limit_s);
    flags[0] = 1;
    flags[1] = rounds > 0;
    c->end_s = fmin(now + c->ext_window_s, c->limit_s);
    c->open_why = why;
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
    fc_soak_clock_t clock;          /* rank 0's: when the loop ends */
    const char *why = NULL;         /* why the closing window ran past the end */
    double t0, window_start = 0, now = 0;
    unsigned long runs = 0;     /* the watchdog's work index, wrapped */
    long rounds = 0;
    int npoints, window = 0, nominal = -1, flags[2] = { 1, 0 };    /* go on, a window closed */

    FC_CHECK(fc_stage_open_backend(ctx, group, &be));
    sg = fc_soak_gpu_start(ctx, &be);
    fc_engine_bufs_init(&bufs);
    npoints = fc_stage_points(ctx, &points);
    if (ctx->world_rank == 0) {
        sp = fc_xcalloc((size_t)npoints, sizeof(*sp), "the soak points");
        for (int i = 0; i < npoints; ++i)
            fc_drift_watch_init(&sp[i].watch);
    }
    if (ctx->local_rank == 0)
        before = fc_counters_snapshot(cfg->nic_pattern);
    fc_soak_clock_init(ctx, &clock);
    if (ctx->world_rank == 0)
        fc_tap_diag(&ctx->tap, "soak: %d point(s) for %.0f s, windows of %.1f s (then, "
                    "while a drift is unsettled, up to %.0f s more in windows of %.1f s)",
                    npoints, cfg->duration_s, cfg->window_s, clock.limit_s - cfg->duration_s,
                    clock.ext_window_s);
    fc_stage_ival_open_links(ctx, &ival, cfg->nic_pattern);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (;;) {
        /* rank 0's clock decides, so every rank runs the same rounds and
         * reads its GPU's health at the same window's end */
        if (ctx->world_rank == 0) {
            now = MPI_Wtime() - t0;
            why = clock.open_why;
            fc_soak_tick(ctx, sp, npoints, &clock, now, now - window_start, rounds, flags);
            if (nominal < 0 && (clock.open_why || !flags[0]))
                nominal = window + (flags[1] || (!flags[0] && rounds > 0));
        }
        fc_ctl_bcast_ints(MPI_COMM_WORLD, 0, "the soak's next round", flags, 2, 0, 1);
        if (flags[1]) {
            json_t *gpu = fc_soak_gpu_window(ctx, sg, window);
            json_t *counters = fc_stage_ival_close(ctx, &ival);

            fc_stage_ival_open_links(ctx, &ival, cfg->nic_pattern);
            if (ctx->world_rank == 0)
                fc_soak_close_window(ctx, sp, points, npoints, window, window_start, now,
                                     rounds, gpu, counters, why);
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
                                 MPI_Wtime() - t0, rounds, gpu, counters, clock.open_why);
    }
    json_decref(ival.before);       /* a window opened and never run */
    if (ctx->world_rank == 0) {
        double elapsed = MPI_Wtime() - t0;

        for (int i = 0; i < npoints; ++i) {
            fc_soak_report_point(ctx, &points[i], &sp[i], elapsed, nominal);
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
