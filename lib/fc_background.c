/*
 * fc_background.c - see fc_background.h. One loop per phase: background
 * rank 0 tests the stop request and reads the clock (on/off bursts); one
 * MPI_Allreduce agrees on stop and on which network kinds may step (a kind
 * steps when every generating rank is behind its rate schedule); then each
 * rank does its steps. The file kind is per rank and needs no agreement.
 * The file kind runs in a thread of its own. Waits are bounded by the
 * stop: the phase ends within one step of it.
 */
#define _GNU_SOURCE
#include "fc_background.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fc_log.h"

#define FC_BG_FILE_BLOCKS 16        /* the file cycles over this many blocks */
#define FC_BG_ALIGN 4096

static double fc_now(void)
{
    return MPI_Wtime();
}

static void fc_bg_open_file(fc_bg_t *bg, int rank_in_world)
{
    const fc_contention_profile_t *cp = bg->cp;
    struct stat sb;
    int flags = O_RDWR | O_CREAT | O_TRUNC;

    snprintf(bg->path, sizeof(bg->path), "%s/fabcert-bg-%s-%d.dat", cp->storage_dir,
             bg->host, rank_in_world);
    if (stat(cp->storage_dir, &sb) != 0) {
        snprintf(bg->file_error, sizeof(bg->file_error), "storage_dir %s on host %s: %s",
                 cp->storage_dir, bg->host, strerror(errno));
        return;
    }
    if (!S_ISDIR(sb.st_mode)) {
        snprintf(bg->file_error, sizeof(bg->file_error), "storage_dir %s on host %s: "
                 "not a directory", cp->storage_dir, bg->host);
        return;
    }
    if (cp->kinds[FC_BG_STORAGE_FILE].direct) {
        bg->fd = open(bg->path, flags | O_DIRECT, 0600);
        if (bg->fd < 0 && errno == EINVAL)
            snprintf(bg->file_note, sizeof(bg->file_note), "O_DIRECT is not supported "
                     "on %s (host %s): buffered I/O with fsync", cp->storage_dir, bg->host);
    }
    if (bg->fd < 0)
        bg->fd = open(bg->path, flags, 0600);
    if (bg->fd < 0)
        snprintf(bg->file_error, sizeof(bg->file_error), "storage_dir %s on host %s: "
                 "cannot create %s: %s", cp->storage_dir, bg->host, bg->path,
                 strerror(errno));
}

fc_status_t fc_bg_init(fc_bg_t *bg, MPI_Comm comm, const fc_contention_profile_t *cp,
                       const char *host, const int *racks)
{
    const fc_bg_profile_t *net = &cp->kinds[FC_BG_STORAGE_NET];
    size_t maxblock = 0;
    int world_rank, ntargets, target_rack, ok = 1;

    memset(bg, 0, sizeof(*bg));
    bg->fd = -1;
    bg->comm = comm;
    bg->cp = cp;
    bg->my_target = -1;
    snprintf(bg->host, sizeof(bg->host), "%s", host);
    MPI_Comm_rank(comm, &bg->rank);
    MPI_Comm_size(comm, &bg->size);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    for (int k = 0; k < FC_BG_KINDS; ++k)
        if (cp->kinds[k].enabled && cp->kinds[k].block > maxblock)
            maxblock = cp->kinds[k].block;
    /* tenant all-to-all sends block / size to each peer: one block each way */
    bg->buf_bytes = (maxblock + FC_BG_ALIGN - 1) / FC_BG_ALIGN * FC_BG_ALIGN + FC_BG_ALIGN;
    if (posix_memalign(&bg->buf, FC_BG_ALIGN, bg->buf_bytes) != 0 ||
        posix_memalign(&bg->buf2, FC_BG_ALIGN, bg->buf_bytes) != 0) {
        fc_error("out of memory for %zu-byte background buffers", bg->buf_bytes);
        return FC_ERR_INTERNAL;
    }
    memset(bg->buf, 0x5A, bg->buf_bytes);
    memset(bg->buf2, 0, bg->buf_bytes);

    if (cp->kinds[FC_BG_STORAGE_FILE].enabled)
        fc_bg_open_file(bg, world_rank);

    /* storage_net roles: targets are the last `targets` ranks of the last
     * rack (by background rank); clients are the ranks outside that rack
     * (cross-rack) or all the others */
    if (net->enabled && bg->size >= 2) {
        int *is_target = calloc((size_t)bg->size, sizeof(int));

        target_rack = racks[bg->size - 1];
        ntargets = 0;
        for (int r = bg->size - 1; r >= 0 && ntargets < net->targets; --r)
            if (racks[r] == target_rack && r > 0) {
                is_target[r] = 1;
                ++ntargets;
            }
        bg->storage_target = is_target[bg->rank];
        bg->clients = calloc((size_t)bg->size, sizeof(int));
        for (int r = 0, c = 0; r < bg->size; ++r) {
            int t;

            if (is_target[r] || (net->cross_rack && racks[r] == target_rack &&
                                 racks[0] != target_rack))
                continue;
            /* the c-th client sends to the (c mod ntargets)-th target */
            t = bg->size - 1;
            for (int skip = c % ntargets; t >= 0; --t)
                if (is_target[t] && skip-- == 0)
                    break;
            if (r == bg->rank)
                bg->my_target = t;
            if (t == bg->rank)
                bg->clients[bg->nclients++] = r;
            ++c;
        }
        free(is_target);
    }
    ok = bg->my_target >= 0 || bg->nclients > 0;
    MPI_Allreduce(&ok, &bg->net_roles, 1, MPI_INT, MPI_MAX, comm);
    return FC_OK;
}

/* One write + fsync, or one read, of a block: returns bytes moved. */
static double fc_bg_file_step(fc_bg_t *bg)
{
    const fc_bg_profile_t *b = &bg->cp->kinds[FC_BG_STORAGE_FILE];
    size_t len = (b->block + FC_BG_ALIGN - 1) / FC_BG_ALIGN * FC_BG_ALIGN;
    off_t off = (off_t)(bg->file_offset % FC_BG_FILE_BLOCKS) * (off_t)len;
    ssize_t n;

    if (bg->fd < 0 || len > bg->buf_bytes)
        return 0;
    if (bg->file_offset % 2 == 0) {
        n = pwrite(bg->fd, bg->buf, len, off);
        if (n > 0 && fsync(bg->fd) != 0)
            n = -1;
    } else {
        n = pread(bg->fd, bg->buf2, len, off - (off_t)len < 0 ? 0 : off - (off_t)len);
    }
    if (n < 0) {
        snprintf(bg->file_error, sizeof(bg->file_error), "storage_dir %s on host %s: "
                 "I/O on %s failed: %s", bg->cp->storage_dir, bg->host, bg->path,
                 strerror(errno));
        close(bg->fd);
        bg->fd = -1;
        return 0;
    }
    bg->file_offset++;
    return (double)n;
}

static double fc_bg_incast_step(fc_bg_t *bg)
{
    const fc_bg_profile_t *b = &bg->cp->kinds[FC_BG_STORAGE_NET];
    int n = (int)b->block;
    MPI_Request reqs[64];
    int nreq = 0;
    double moved = 0;

    if (bg->my_target >= 0) {
        MPI_Isend(bg->buf, n, MPI_BYTE, bg->my_target, 77, bg->comm, &reqs[nreq++]);
        moved = n;
    }
    for (int c = 0; c < bg->nclients && nreq < 64; ++c)
        MPI_Irecv(bg->buf2, n, MPI_BYTE, bg->clients[c], 77, bg->comm, &reqs[nreq++]);
    MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE);
    return moved;
}

static double fc_bg_tenant_step(fc_bg_t *bg)
{
    const fc_bg_profile_t *b = &bg->cp->kinds[FC_BG_TENANT];
    int per = (int)(b->block / (uint64_t)bg->size);

    if (per < 1)
        per = 1;
    if (!b->permutation) {
        MPI_Alltoall(bg->buf, per, MPI_BYTE, bg->buf2, per, MPI_BYTE, bg->comm);
        return (double)per * (bg->size - 1);
    }
    /* a permutation that changes every step: send to (rank + shift) */
    int shift = 1 + (int)(bg->steps * 2654435761u % (unsigned)(bg->size - 1 > 0 ? bg->size - 1 : 1));
    int to = (bg->rank + shift) % bg->size, from = (bg->rank - shift + bg->size) % bg->size;

    MPI_Sendrecv(bg->buf, (int)b->block, MPI_BYTE, to, 78, bg->buf2, (int)b->block,
                 MPI_BYTE, from, 78, bg->comm, MPI_STATUS_IGNORE);
    return (double)b->block;
}

/* The file kind runs in its own thread (no MPI there), so storage I/O is
 * not paced by the network kinds' lockstep, and vice versa. */
typedef struct fc_bg_file_job {
    fc_bg_t *bg;
    atomic_int stop;
    double t0;
    double bytes;
} fc_bg_file_job_t;

static void *fc_bg_file_thread(void *arg)
{
    fc_bg_file_job_t *job = arg;
    const fc_bg_profile_t *b = &job->bg->cp->kinds[FC_BG_STORAGE_FILE];

    while (!atomic_load(&job->stop)) {
        double el = fc_now() - job->t0;
        int on = b->duty >= 1 || fmod(el, b->period_s) < b->duty * b->period_s;

        if (on && job->bg->fd >= 0 &&
            job->bytes < b->rate_mbps * 1e6 * (el * b->duty) + (double)b->block)
            job->bytes += fc_bg_file_step(job->bg);
        else
            usleep(500);
    }
    return NULL;
}

void fc_bg_run_phase(fc_bg_t *bg, unsigned mask, MPI_Request *stop, fc_bg_tally_t *tally)
{
    const fc_contention_profile_t *cp = bg->cp;
    double t0 = fc_now();
    fc_bg_file_job_t job = { bg, 0, t0, 0 };
    pthread_t file_thread;
    int file_running = 0;

    memset(tally, 0, sizeof(*tally));
    tally->generating[FC_BG_STORAGE_FILE] = (mask >> FC_BG_STORAGE_FILE) & 1;
    tally->generating[FC_BG_STORAGE_NET] = ((mask >> FC_BG_STORAGE_NET) & 1) && bg->my_target >= 0;
    tally->generating[FC_BG_TENANT] = (mask >> FC_BG_TENANT) & 1;
    if (((mask >> FC_BG_STORAGE_FILE) & 1) &&
        pthread_create(&file_thread, NULL, fc_bg_file_thread, &job) == 0)
        file_running = 1;
    for (;;) {
        /* [0] stop, [1] storage_net may not step, [2] tenant may not step:
         * MAX over ranks, so a kind steps only when no rank is ahead */
        int mine[3] = { 0, 1, 1 }, agreed[3];
        double now = fc_now(), el = now - t0;
        int did = 0;

        if (bg->rank == 0) {
            int done = 0;

            MPI_Test(stop, &done, MPI_STATUS_IGNORE);
            mine[0] = done;
        }
        for (int k = FC_BG_STORAGE_NET; k <= FC_BG_TENANT; ++k) {
            const fc_bg_profile_t *b = &cp->kinds[k];
            double on = b->duty >= 1 ? 1 : fmod(el, b->period_s) < b->duty * b->period_s;
            /* the schedule: rate during the on part of each period */
            double allowed = b->rate_mbps * 1e6 * (el * b->duty + (double)b->block / (b->rate_mbps * 1e6));

            if (!((mask >> k) & 1) || !on)
                continue;
            if (!tally->generating[k] || tally->bytes[k] < allowed)
                mine[k] = 0;
        }
        MPI_Allreduce(mine, agreed, 3, MPI_INT, MPI_MAX, bg->comm);
        if (agreed[0])
            break;
        if ((mask >> FC_BG_STORAGE_NET) & 1 && !agreed[1] && bg->net_roles) {
            tally->bytes[FC_BG_STORAGE_NET] += fc_bg_incast_step(bg);
            did = 1;
        }
        if ((mask >> FC_BG_TENANT) & 1 && !agreed[2] && bg->size >= 2) {
            tally->bytes[FC_BG_TENANT] += fc_bg_tenant_step(bg);
            did = 1;
        }
        bg->steps++;
        if (!did)
            usleep(500);
    }
    MPI_Wait(stop, MPI_STATUS_IGNORE);
    if (file_running) {
        atomic_store(&job.stop, 1);
        pthread_join(file_thread, NULL);
        tally->bytes[FC_BG_STORAGE_FILE] = job.bytes;
    }
    tally->seconds = fc_now() - t0;
    if ((mask >> FC_BG_STORAGE_FILE) & 1 && bg->file_error[0])
        snprintf(tally->error, sizeof(tally->error), "%s", bg->file_error);
    if ((mask >> FC_BG_STORAGE_FILE) & 1 && bg->file_note[0])
        snprintf(tally->note, sizeof(tally->note), "%s", bg->file_note);
}

void fc_bg_fini(fc_bg_t *bg)
{
    if (bg->fd >= 0) {
        close(bg->fd);
        unlink(bg->path);
    }
    free(bg->clients);
    free(bg->buf);
    free(bg->buf2);
    memset(bg, 0, sizeof(*bg));
    bg->fd = -1;
}
