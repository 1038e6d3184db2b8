/*
 * fc_gemm_standin.c - the stand-in GPU plugin's persistent GEMM burn (ABI
 * 4's gemm_open_func and the three after it; tests/standin/
 * fc_gpu_standin.c has the table), for host tests of the overlap stage's
 * GPU path: a batch is double-precision GEMMs of 64 x 64 on a host thread
 * of its own (the "burn stream"), started without waiting, so that the
 * stage's collective (the mpi backend under the stand-in) runs beside it
 * as NCCL beside the GPU's GEMMs; each C is digested and compared with
 * the burn's first C, as the GPU burn does. $FC_GPU_STANDIN_GEMM_FLIP =
 * "rank=R,batch=N" flips a bit of the last C of world rank R's Nth batch
 * (a GPU that computes wrongly); "rank=R,batch=N,gemm=G" flips GEMM G's
 * instead; batch=0 flips every C of every batch (a GPU wrong the same way
 * from its first GEMM on: its own comparison sees nothing, only one with
 * the other GPUs can). Its algo says "stand-in": it measures a
 * CPU, never a GPU.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fc_plugin.h"
#include "fc_gemm_standin.h"

#define FC_GS_N 64

struct fc_gpu_gemm {
    pthread_t thread;
    int running;                /* a batch's thread was started */
    volatile int done;          /* it ended (set under lock) */
    pthread_mutex_t lock;
    long gemms, batches;
    double seconds;
    long mismatched, first_bad;
    uint64_t ref, bad;
    int have_ref, flip;
    int flip_rank, flip_batch, flip_gemm, world_rank;
    double a[FC_GS_N * FC_GS_N], b[FC_GS_N * FC_GS_N], c[FC_GS_N * FC_GS_N];
};

static double fc_gs_now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static uint64_t fc_gs_hash(const double *c)
{
    uint64_t h = 0xcbf29ce484222325ull;
    const unsigned char *p = (const unsigned char *)c;

    for (size_t i = 0; i < FC_GS_N * FC_GS_N * sizeof(double); ++i)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* The batch: gemms GEMMs, each C digested against the reference. */
static void *fc_gs_batch(void *arg)
{
    fc_gpu_gemm_t *g = arg;
    double t0 = fc_gs_now();

    for (long it = 0; it < g->gemms; ++it) {
        uint64_t d;

        for (int i = 0; i < FC_GS_N; ++i)
            for (int j = 0; j < FC_GS_N; ++j) {
                double acc = 0;

                for (int k = 0; k < FC_GS_N; ++k)
                    acc += g->a[i * FC_GS_N + k] * g->b[k * FC_GS_N + j];
                g->c[i * FC_GS_N + j] = acc;
            }
        if (g->flip && (g->flip_batch == 0 ||
                        it == (g->flip_gemm >= 0 ? g->flip_gemm : g->gemms - 1)))
            ((unsigned char *)g->c)[77] ^= 0x10;
        d = fc_gs_hash(g->c);
        if (!g->have_ref) {
            g->ref = d;
            g->have_ref = 1;
        } else if (d != g->ref && g->mismatched++ == 0) {
            g->first_bad = it;
            g->bad = d;
        }
    }
    pthread_mutex_lock(&g->lock);
    g->seconds = fc_gs_now() - t0;
    g->done = 1;
    pthread_mutex_unlock(&g->lock);
    return NULL;
}

fc_gpu_gemm_t *fc_gemm_standin_open(const fc_backend_t *be, const char *kind, char *why,
                                    size_t len)
{
    const char *flip = getenv("FC_GPU_STANDIN_GEMM_FLIP");
    fc_gpu_gemm_t *g;

    (void)be;
    if (strcmp(kind, "bf16") != 0 && strcmp(kind, "fp16") != 0 && strcmp(kind, "fp64") != 0) {
        snprintf(why, len, "no burn kind '%s' (bf16, fp16, fp64)", kind);
        return NULL;
    }
    if ((g = calloc(1, sizeof(*g))) == NULL) {
        snprintf(why, len, "out of memory for the stand-in's GEMM burn");
        return NULL;
    }
    g->flip_rank = -1;
    g->flip_gemm = -1;
    if (flip && sscanf(flip, "rank=%d,batch=%d,gemm=%d", &g->flip_rank, &g->flip_batch,
                       &g->flip_gemm) < 2) {
        snprintf(why, len, "FC_GPU_STANDIN_GEMM_FLIP is rank=R,batch=N[,gemm=G], not '%s'",
                 flip);
        free(g);
        return NULL;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &g->world_rank);
    pthread_mutex_init(&g->lock, NULL);
    for (int i = 0; i < FC_GS_N * FC_GS_N; ++i) {
        g->a[i] = (double)((i * 2654435761u) % 1024) / 1024 - 0.5;
        g->b[i] = (double)((i * 40503u) % 1024) / 1024 - 0.5;
    }
    return g;
}

fc_status_t fc_gemm_standin_start(fc_gpu_gemm_t *g, long gemms, char *why, size_t len)
{
    if (g->running || gemms < 1 || gemms > 4096) {
        snprintf(why, len, "stand-in GEMM burn: %s", g->running ? "a batch is still pending" :
                 "a batch is 1 to 4096 GEMMs");
        return FC_ERR_INVALID;
    }
    g->gemms = gemms;
    g->mismatched = 0;
    g->first_bad = -1;
    g->done = 0;
    g->flip = (++g->batches == g->flip_batch || g->flip_batch == 0) &&
              g->world_rank == g->flip_rank;
    if (pthread_create(&g->thread, NULL, fc_gs_batch, g) != 0) {
        snprintf(why, len, "stand-in GEMM burn: no thread for the batch");
        return FC_ERR_FAIL;
    }
    g->running = 1;
    return FC_OK;
}

fc_status_t fc_gemm_standin_wait(fc_gpu_gemm_t *g, double timeout_s, fc_gpu_gemm_result_t *r,
                                 char *why, size_t len)
{
    double t0 = fc_gs_now();
    int done = 0;

    memset(r, 0, sizeof(*r));
    r->first_bad = -1;
    if (!g->running) {
        snprintf(why, len, "stand-in GEMM burn: no batch is pending");
        return FC_ERR_INVALID;
    }
    while (!done) {
        pthread_mutex_lock(&g->lock);
        done = g->done;
        pthread_mutex_unlock(&g->lock);
        if (!done && fc_gs_now() - t0 > timeout_s) {
            snprintf(why, len, "stand-in GEMM burn: %ld GEMMs made no progress for %.0f s",
                     g->gemms, timeout_s);
            return FC_ERR_TIMEOUT;      /* the thread is left: the burn is unusable */
        }
        if (!done)
            usleep(100);
    }
    pthread_join(g->thread, NULL);
    g->running = 0;
    r->gemms = g->gemms;
    r->gpu_s = g->seconds;
    r->mismatched = g->mismatched;
    r->first_bad = g->first_bad;
    r->digest = g->ref;
    r->bad_digest = g->bad;
    r->n = FC_GS_N;
    snprintf(r->kind, sizeof(r->kind), "fp64");
    snprintf(r->algo, sizeof(r->algo), "stand-in: CPU double GEMM on a host thread, not a GPU");
    return FC_OK;
}

void fc_gemm_standin_close(fc_gpu_gemm_t *g)
{
    if (g == NULL || g->running)
        return;                 /* a batch that never ended keeps its memory */
    pthread_mutex_destroy(&g->lock);
    free(g);
}
