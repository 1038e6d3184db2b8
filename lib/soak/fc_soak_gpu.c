/*
 * fc_soak_gpu.c - the rank's side of fc_soak_gpu.h: the burn thread, the
 * health readings and their judgement window by window, and this GPU's
 * summary at the end; fc_soak_gpu_record.c turns every rank's summary
 * into the soak_gpu records on rank 0. The burn thread calls nothing but
 * the plugin's burn (no MPI: only the stage's thread makes MPI calls);
 * its chunks are kept under a lock and read once it has been joined.
 */
#include "fc_soak_gpu.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_log.h"
#include "fc_soak_gpu_int.h"
#include "fc_stats.h"

/* a chunk of one kind lasts this long at most, so that the end of the
 * soak waits no longer for the burn */
#define FC_SOAK_BURN_CHUNK_S 30.0
#define FC_SOAK_BURN_MIN_CHUNK_S 0.2

struct fc_soak_gpu {
    const fc_gpu_plugin_t *gpu;
    const fc_backend_t *be;
    json_t *dev;                /* the plugin's describe: device, uuid, pci_bus_id */
    /* health */
    fc_gpu_health_limits_t limits;
    json_t *first, *prev;       /* the soak's first reading, the last one */
    char health_why[512];       /* why there is none ("" when read) */
    json_t *windows;            /* each window's judgement that was not PASS */
    int judged;                 /* windows judged */
    /* the burn */
    char kinds[64];
    double chunk_s;
    pthread_t thread;
    int running, stop;
    pthread_mutex_t lock;
    json_t *chunks;             /* [{kind, chunk, ...the plugin's figures}] */
    char burn_why[512];         /* why it did not run or stopped ("" when fine) */
};

static void *fc_soak_burn_main(void *arg)
{
    fc_soak_gpu_t *sg = arg;
    char list[64], *save = NULL, *w, why[512];
    int chunk = 0;

    while (!__atomic_load_n(&sg->stop, __ATOMIC_ACQUIRE)) {
        snprintf(list, sizeof(list), "%s", sg->kinds);
        for (w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
            json_t *r;

            if (__atomic_load_n(&sg->stop, __ATOMIC_ACQUIRE))
                break;
            why[0] = '\0';
            r = sg->gpu->burn_func(sg->be, sg->chunk_s, w, why, sizeof(why));
            pthread_mutex_lock(&sg->lock);
            if (r == NULL)
                snprintf(sg->burn_why, sizeof(sg->burn_why), "the burn stopped at chunk %d "
                         "(%s): %s", chunk, w, why[0] ? why : "no reason given");
            else {
                json_t *c = json_deep_copy(json_object_get(r, w));

                if (json_is_object(c)) {
                    json_object_set_new(c, "chunk", json_integer(chunk));
                    json_array_append_new(sg->chunks, c);
                } else {
                    json_decref(c);
                }
            }
            pthread_mutex_unlock(&sg->lock);
            if (r == NULL)
                return NULL;
            json_decref(r);
        }
        ++chunk;
    }
    return NULL;
}

/* Read this GPU's health now; NULL with health_why set when it cannot be. */
static json_t *fc_soak_gpu_read(fc_soak_gpu_t *sg, const char *when)
{
    char why[512] = "";
    json_t *snap;

    snap = sg->gpu->health_snapshot_func(fc_json_str_or(sg->dev, "pci_bus_id", NULL), why,
                                         sizeof(why));
    if (snap == NULL)
        snprintf(sg->health_why, sizeof(sg->health_why), "GPU health could not be read %s: "
                 "%s", when, why[0] ? why : "no reason given");
    else if (json_is_integer(json_object_get(sg->dev, "device")))
        /* read by PCI id, NVML's index is not asked for: the judge names
         * the GPU by the index CUDA gave this rank */
        json_object_set(json_array_get(json_object_get(snap, "gpus"), 0), "index",
                        json_object_get(sg->dev, "device"));
    return snap;
}

fc_soak_gpu_t *fc_soak_gpu_start(fc_stage_ctx_t *ctx, const fc_backend_t *be)
{
    const fc_soak_profile_t *cfg = &ctx->sp.soak;
    fc_soak_gpu_t *sg;
    char desc[1024] = "{}";
    int nkinds = 1;

    if (ctx->gpu == NULL)
        return NULL;
    sg = fc_xcalloc(1, sizeof(*sg), "the soak's GPU side");
    sg->gpu = ctx->gpu;
    sg->be = be;
    if (ctx->gpu->describe_func(be, desc, sizeof(desc)) != FC_OK ||
        (sg->dev = json_loads(desc, 0, NULL)) == NULL)
        sg->dev = json_object();
    sg->windows = json_array();
    sg->chunks = json_array();
    pthread_mutex_init(&sg->lock, NULL);
    /* health: the plugin's NVML reader and judge */
    if (ctx->gpu->health_snapshot_func == NULL || ctx->gpu->health_judge_func == NULL ||
        ctx->gpu->health_limits_default_func == NULL)
        snprintf(sg->health_why, sizeof(sg->health_why), "GPU health could not be read: the "
                 "GPU plugin (%s) has no health reader", fc_plugin_path(NULL));
    else {
        ctx->gpu->health_limits_default_func(&sg->limits);
        if ((sg->first = fc_soak_gpu_read(sg, "at the start of the soak")) != NULL)
            sg->prev = json_incref(sg->first);
    }
    /* the burn, beside the collectives */
    snprintf(sg->kinds, sizeof(sg->kinds), "%s", cfg->gpu_burn);
    for (const char *c = sg->kinds; *c; ++c)
        nkinds += *c == ',';
    sg->chunk_s = fmin(FC_SOAK_BURN_CHUNK_S, fmax(FC_SOAK_BURN_MIN_CHUNK_S,
                                                   cfg->window_s / nkinds / 2));
    if (strcmp(cfg->gpu_burn, "none") == 0)
        snprintf(sg->burn_why, sizeof(sg->burn_why), "not asked for (soak.gpu_burn: none)");
    else if (ctx->gpu->burn_func == NULL)
        snprintf(sg->burn_why, sizeof(sg->burn_why), "the GPU plugin (%s) has no burn",
                 fc_plugin_path(NULL));
    else if (pthread_create(&sg->thread, NULL, fc_soak_burn_main, sg) != 0)
        snprintf(sg->burn_why, sizeof(sg->burn_why), "the burn thread could not be started");
    else
        sg->running = 1;
    return sg;
}

void fc_soak_gpu_stop(fc_soak_gpu_t *sg)
{
    if (sg == NULL || !sg->running)
        return;
    __atomic_store_n(&sg->stop, 1, __ATOMIC_RELEASE);
    pthread_join(sg->thread, NULL);
    sg->running = 0;
}

/* This GPU's health since the last reading: judged, kept when not PASS;
 * what the soak_window record shows of it. */
static json_t *fc_soak_gpu_judge_window(fc_stage_ctx_t *ctx, fc_soak_gpu_t *sg, int window)
{
    json_t *mine = json_pack("{s:i, s:s, s:O?, s:O?}", "rank", ctx->world_rank, "host",
                             ctx->host, "device", json_object_get(sg->dev, "device"), "uuid",
                             json_object_get(sg->dev, "uuid"));
    json_t *now, *j;
    char when[64];

    if (sg->prev == NULL) {
        json_object_set_new(mine, "verdict", json_string("INCOMPLETE"));
        json_object_set_new(mine, "reasons", json_pack("[s]", sg->health_why));
        return mine;
    }
    snprintf(when, sizeof(when), "at the end of soak window %d", window);
    if ((now = fc_soak_gpu_read(sg, when)) == NULL) {
        /* keep the last reading: the next window is judged from it */
        j = json_pack("{s:s, s:[s]}", "verdict", "INCOMPLETE", "reasons", sg->health_why);
        sg->health_why[0] = '\0';
    } else {
        j = sg->gpu->health_judge_func(sg->prev, now, &sg->limits, ctx->host);
        json_decref(sg->prev);
        sg->prev = now;
    }
    ++sg->judged;
    json_object_set(mine, "verdict", json_object_get(j, "verdict"));
    json_object_set(mine, "reasons", json_object_get(j, "reasons"));
    if (strcmp(fc_json_str_or(j, "verdict", ""), "PASS") != 0) {
        json_object_set_new(j, "window", json_integer(window));
        json_object_del(j, "deltas");
        json_array_append(sg->windows, j);
    }
    json_decref(j);
    return mine;
}

json_t *fc_soak_gpu_window(fc_stage_ctx_t *ctx, fc_soak_gpu_t *sg, int window)
{
    json_t *mine, *all;

    if (sg == NULL)
        return ctx->world_rank == 0 ? json_pack("{s:b, s:s}", "applies", 0, "why",
            "the soak ran on the mpi backend: the GPU burn and GPU health apply on nccl") : NULL;
    mine = fc_soak_gpu_judge_window(ctx, sg, window);
    all = fc_stage_gather_json(mine, MPI_COMM_WORLD);
    json_decref(mine);
    if (ctx->world_rank != 0)
        return NULL;
    return json_pack("{s:b, s:o}", "applies", 1, "gpus", all);
}

static double fc_soak_min(const double *v, int n)
{
    double m = n > 0 ? v[0] : 0;

    for (int i = 1; i < n; ++i)
        m = v[i] < m ? v[i] : m;
    return m;
}

/* The chunks of one kind folded: iterations, time, TFLOPS (median and
 * lowest over chunks), mismatches inside chunks and chunks whose first
 * digest differs from the first chunk's of the same algorithm. */
static json_t *fc_soak_burn_kind(const json_t *chunks, const char *kind)
{
    double tf[4096];
    int n = 0, differ = 0;
    json_int_t iters = 0, mismatched = 0;
    double seconds = 0;
    const json_t *first = NULL, *c;
    json_t *out, *bad = json_null();
    size_t i;

    json_array_foreach(chunks, i, c) {
        if (strcmp(fc_json_str_or(c, "kind", ""), kind) != 0)
            continue;
        if (first == NULL)
            first = c;
        if (n < 4096)
            tf[n++] = json_real_value(json_object_get(c, "tflops"));
        iters += json_integer_value(json_object_get(c, "iterations"));
        seconds += json_real_value(json_object_get(c, "seconds"));
        mismatched += json_integer_value(json_object_get(c, "mismatched_iterations"));
        if (json_is_null(bad) && json_integer_value(json_object_get(c, "mismatched_iterations")))
            bad = json_pack("{s:O, s:O, s:s}", "chunk", json_object_get(c, "chunk"),
                            "iteration", json_object_get(c, "first_bad_iteration"), "why",
                            "a GEMM's C differed from its chunk's first");
        if (c != first &&
            strcmp(fc_json_str_or(c, "algo", ""), fc_json_str_or(first, "algo", "")) == 0 &&
            json_integer_value(json_object_get(c, "n")) ==
                json_integer_value(json_object_get(first, "n")) &&
            strcmp(fc_json_str_or(c, "digest", ""), fc_json_str_or(first, "digest", "")) != 0) {
            if (differ++ == 0 && json_is_null(bad))
                bad = json_pack("{s:O, s:s, s:s, s:s}", "chunk", json_object_get(c, "chunk"),
                                "digest", fc_json_str_or(c, "digest", ""), "first_digest",
                                fc_json_str_or(first, "digest", ""), "why",
                                "a chunk's C differed from the first chunk's");
        }
    }
    if (first == NULL) {
        json_decref(bad);
        return NULL;
    }
    out = json_pack("{s:i, s:I, s:f, s:f, s:f, s:O, s:O, s:O, s:I, s:i, s:o, s:s}",
                    "chunks", n, "iterations", iters, "seconds", seconds,
                    "tflops_median", fc_stats_median(tf, (size_t)n),
                    "tflops_min", fc_soak_min(tf, n), "n", json_object_get(first, "n"),
                    "digest", json_object_get(first, "digest"), "algo",
                    json_object_get(first, "algo"), "mismatched_iterations", mismatched,
                    "chunks_differing", differ, "first_bad", bad,
                    "verdict", mismatched == 0 && differ == 0 && iters >= 2 ? "PASS" : "FAIL");
    return out;
}

/* This GPU's summary, for fc_soak_gpu_records on rank 0. */
static json_t *fc_soak_gpu_summary(fc_stage_ctx_t *ctx, fc_soak_gpu_t *sg)
{
    json_t *s = json_pack("{s:i, s:s, s:O}", "rank", ctx->world_rank, "host", ctx->host,
                          "device", sg->dev);
    json_t *health = json_object(), *burn = json_object(), *kinds = json_object();
    char list[64], *save = NULL, *w;

    /* health */
    json_object_set_new(health, "read", json_boolean(sg->first != NULL));
    if (sg->first == NULL)
        json_object_set_new(health, "why", json_string(sg->health_why));
    else {
        json_t *whole = sg->gpu->health_judge_func(sg->first, sg->prev, &sg->limits, ctx->host);

        json_object_set_new(health, "library", json_deep_copy(json_object_get(sg->first,
                                                                              "library")));
        json_object_set_new(health, "driver", json_deep_copy(json_object_get(sg->first,
                                                                             "driver")));
        json_object_set_new(health, "windows_judged", json_integer(sg->judged));
        json_object_set(health, "windows", sg->windows);
        json_object_set_new(health, "whole", whole);
        json_object_set_new(health, "limits", fc_soak_gpu_limits_json(&sg->limits));
        json_object_set_new(health, "first", json_incref(sg->first));
        json_object_set_new(health, "last", json_incref(sg->prev));
    }
    json_object_set_new(s, "health", health);
    /* the burn */
    json_object_set_new(burn, "asked", json_string(sg->kinds));
    json_object_set_new(burn, "chunk_s", json_real(sg->chunk_s));
    if (sg->burn_why[0])
        json_object_set_new(burn, "why", json_string(sg->burn_why));
    snprintf(list, sizeof(list), "%s", strcmp(sg->kinds, "none") ? sg->kinds : "");
    for (w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        json_t *k = fc_soak_burn_kind(sg->chunks, w);

        if (k)
            json_object_set_new(kinds, w, k);
    }
    json_object_set_new(burn, "kinds", kinds);
    json_object_set_new(s, "burn", burn);
    return s;
}

void fc_soak_gpu_finish(fc_stage_ctx_t *ctx, fc_soak_gpu_t *sg)
{
    json_t *mine, *all;

    if (sg == NULL)
        return;
    fc_soak_gpu_stop(sg);
    mine = fc_soak_gpu_summary(ctx, sg);
    all = fc_stage_gather_json(mine, MPI_COMM_WORLD);
    json_decref(mine);
    if (ctx->world_rank == 0)
        fc_soak_gpu_records(ctx, all);
    json_decref(all);
    json_decref(sg->dev);
    json_decref(sg->first);
    json_decref(sg->prev);
    json_decref(sg->windows);
    json_decref(sg->chunks);
    pthread_mutex_destroy(&sg->lock);
    free(sg);
}
