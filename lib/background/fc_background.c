/*
 * fc_background.c - the background engine (see fc_background.h): the
 * table of kinds, the shared source buffer, and the phase loop (what the
 * kinds share is fc_bg_kind.c). Each kind is paced on its own, the way
 * separate jobs would be: a kind with a poll function is moved by one
 * loop (nonblocking
 * sends and receives, MPI_Test) until this rank's stop request
 * completes; a kind without one runs in a thread of its own (storage I/O,
 * no MPI there). No step waits for another kind or for an agreement, so
 * "all kinds at once" really overlaps them. After the stop the kinds
 * drain in reverse table order (the tenant's agreement on its last step
 * first, as it always was), each bounded by the blocks it had started,
 * so the phase ends within a block's time of the stop.
 */
#include "fc_bg_kind.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fc_log.h"

/* One entry per fc_bg_kind_t, made from the kinds' list (fc_bg_kinds.h). */
static const fc_bg_kind_ops_t *const fc_bg_kinds[FC_BG_KINDS] = {
#define FC_BG_KIND_OPS(id, name, keys, block, duty) [FC_BG_##id] = &fc_bg_##name##_ops,
    FC_BG_KIND_LIST(FC_BG_KIND_OPS)
#undef FC_BG_KIND_OPS
};

const fc_bg_kind_ops_t *fc_bg_kind_ops(int kind)
{
    return kind >= 0 && kind < FC_BG_KINDS ? fc_bg_kinds[kind] : NULL;
}

fc_status_t fc_bg_init(fc_bg_t *bg, MPI_Comm comm, const fc_contention_profile_t *cp,
                       const char *host, const int *racks)
{
    size_t maxblock = 0;

    memset(bg, 0, sizeof(*bg));
    bg->comm = comm;
    bg->cp = cp;
    snprintf(bg->host, sizeof(bg->host), "%s", host);
    MPI_Comm_rank(comm, &bg->rank);
    MPI_Comm_size(comm, &bg->size);
    MPI_Comm_rank(MPI_COMM_WORLD, &bg->world_rank);
    for (int k = 0; k < FC_BG_KINDS; ++k)
        if (cp->kinds[k].enabled && cp->kinds[k].block > maxblock)
            maxblock = cp->kinds[k].block;
    /* one read-only source for every send and write; each kind receives
     * or reads into buffers of its own */
    bg->buf_bytes = fc_bg_aligned(maxblock) + FC_BG_ALIGN;
    /* sized by the profile's blocks (its input): an error naming the size,
     * not the out-of-memory policy (lib/base/fc_alloc.h) */
    if (posix_memalign(&bg->buf, FC_BG_ALIGN, bg->buf_bytes) != 0) {
        bg->buf = NULL;
        fc_error("out of memory for a %zu-byte background buffer", bg->buf_bytes);
        return FC_ERR_INTERNAL;
    }
    memset(bg->buf, 0x5A, bg->buf_bytes);
    for (int k = 0; k < FC_BG_KINDS; ++k)
        if (cp->kinds[k].enabled)
            FC_CHECK(fc_bg_kinds[k]->init_func(bg, racks, &bg->state[k]));
    return FC_OK;
}

void fc_bg_run_phase(fc_bg_t *bg, unsigned mask, MPI_Request *stop, fc_bg_tally_t *tally)
{
    double t0 = MPI_Wtime();
    int in_phase[FC_BG_KINDS], running[FC_BG_KINDS], stopped = 0;

    memset(tally, 0, sizeof(*tally));
    for (int k = 0; k < FC_BG_KINDS; ++k) {
        in_phase[k] = ((mask >> k) & 1) && bg->state[k] != NULL;
        running[k] = in_phase[k] && fc_bg_kinds[k]->start_func(bg, bg->state[k], t0);
    }
    while (!stopped) {
        double el = MPI_Wtime() - t0;
        int moved = 0;

        MPI_Test(stop, &stopped, MPI_STATUS_IGNORE);
        for (int k = 0; k < FC_BG_KINDS; ++k)
            if (running[k] && fc_bg_kinds[k]->poll_func)
                moved |= fc_bg_kinds[k]->poll_func(bg, bg->state[k], el, !stopped);
        if (!moved && !stopped)
            usleep(200);
    }
    for (int k = FC_BG_KINDS - 1; k >= 0; --k)
        if (running[k])
            fc_bg_kinds[k]->drain_func(bg, bg->state[k]);
    tally->seconds = MPI_Wtime() - t0;
    for (int k = 0; k < FC_BG_KINDS; ++k)
        if (in_phase[k])
            fc_bg_kinds[k]->tally_func(bg, bg->state[k], tally);
}

void fc_bg_fini(fc_bg_t *bg)
{
    for (int k = FC_BG_KINDS - 1; k >= 0; --k)
        if (bg->state[k] != NULL)
            fc_bg_kinds[k]->fini_func(bg, bg->state[k]);
    free(bg->buf);
    memset(bg, 0, sizeof(*bg));
}
