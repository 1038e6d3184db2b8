/*
 * fc_comm_standin.c - see fc_comm_standin.h. Time is the monotonic clock
 * of lib/gpu/fc_gpu_wait.c; nothing here talks to another rank.
 */
#include "fc_comm_standin.h"

#include <stdio.h>
#include <string.h>

static double fc_since(const fc_comm_standin_t *s)
{
    return s->released_at > 0 ? fc_gpu_wall() - s->released_at : 0;
}

static fc_gpu_poll_t fc_standin_poll(void *ctx, char *why, size_t len)
{
    fc_comm_standin_t *s = ctx;

    if (s->aborts)
        return FC_GPU_PENDING;      /* an aborted communicator finishes nothing */
    if (strcmp(s->mine, "error") == 0 && fc_since(s) > 0.010) {
        snprintf(why, len, "cudaEventQuery: an illegal memory access was encountered "
                 "(stand-in)");
        return FC_GPU_ERROR;
    }
    if (s->all_ok && strcmp(s->mine, "ok") == 0 && fc_since(s) > 0.020)
        return FC_GPU_DONE;
    if (s->all_ok && strcmp(s->mine, "slow") == 0 && fc_since(s) > 0.300)
        return FC_GPU_DONE;
    return FC_GPU_PENDING;
}

static int fc_standin_async(void *ctx, char *why, size_t len)
{
    fc_comm_standin_t *s = ctx;

    if (strcmp(s->mine, "async") == 0 && fc_since(s) > 0.030) {
        snprintf(why, len, "NCCL reported remote process exited or there was a network "
                 "error (stand-in)");
        return 1;
    }
    return 0;
}

static void fc_standin_abort(void *ctx)
{
    ++((fc_comm_standin_t *)ctx)->aborts;
}

static void fc_standin_destroy(void *ctx)
{
    ++((fc_comm_standin_t *)ctx)->destroys;
}

static void fc_standin_release(void *ctx)
{
    fc_comm_standin_t *s = ctx;

    ++s->releases;
    s->released_at = fc_gpu_wall();
}

const fc_gpu_wait_ops_t fc_standin_wait_ops = { fc_standin_poll, fc_standin_async };
const fc_gpu_comm_ops_t fc_standin_comm_ops = { fc_standin_abort, fc_standin_destroy,
                                                fc_standin_release };

int fc_standin_init(fc_comm_standin_t *s, const char *scenarios, int rank)
{
    char list[256], *save = NULL, *w;
    int r = 0, found = 0;

    memset(s, 0, sizeof(*s));
    s->all_ok = 1;
    snprintf(list, sizeof(list), "%s", scenarios);
    for (w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save), ++r) {
        if (strcmp(w, "ok") != 0 && strcmp(w, "slow") != 0 && strcmp(w, "localfail") != 0)
            s->all_ok = 0;
        if (r == rank) {
            snprintf(s->mine, sizeof(s->mine), "%s", strcmp(w, "localfail") ? w : "ok");
            found = 1;
        }
    }
    return found ? 0 : -1;
}

void fc_standin_rearm(fc_comm_standin_t *s)
{
    s->released_at = 0;
}
