/*
 * fc_background.c - see fc_background.h. Each kind is paced on its own,
 * the way separate jobs would be: the file kind in a thread of its own
 * (no MPI there), the network kinds as nonblocking sends and receives
 * that one loop keeps moving (MPI_Test) until this rank's stop request
 * completes. No step waits for the other kind or for an agreement, so
 * "all kinds at once" really overlaps them. After the stop each kind
 * drains what it has in flight (see fc_bg_drain_*), which is bounded by
 * the blocks already sent: the phase ends within a block's time of it.
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
#define FC_BG_NET_WINDOW 2        /* storage_net blocks in flight per client */
#define FC_BG_TAG_NET 77
#define FC_BG_TAG_TENANT 78

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
    bg->net_comm = bg->tenant_comm = MPI_COMM_NULL;
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
    MPI_Comm_dup(comm, &bg->net_comm);
    MPI_Comm_dup(comm, &bg->tenant_comm);
    /* one read-only source for every send and write; the file thread and
     * the tenant each receive into a buffer of their own */
    bg->buf_bytes = (maxblock + FC_BG_ALIGN - 1) / FC_BG_ALIGN * FC_BG_ALIGN + FC_BG_ALIGN;
    if (posix_memalign(&bg->buf, FC_BG_ALIGN, bg->buf_bytes) != 0 ||
        posix_memalign(&bg->file_rbuf, FC_BG_ALIGN, bg->buf_bytes) != 0 ||
        posix_memalign(&bg->tenant_rbuf, FC_BG_ALIGN, bg->buf_bytes) != 0) {
        fc_error("out of memory for %zu-byte background buffers", bg->buf_bytes);
        return FC_ERR_INTERNAL;
    }
    memset(bg->buf, 0x5A, bg->buf_bytes);
    memset(bg->file_rbuf, 0, bg->buf_bytes);
    memset(bg->tenant_rbuf, 0, bg->buf_bytes);

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
    /* a target keeps one receive posted per client, each into its own block */
    if (bg->nclients > 0 &&
        posix_memalign(&bg->net_rbufs, FC_BG_ALIGN, (size_t)bg->nclients * bg->buf_bytes) != 0) {
        fc_error("out of memory for %d storage_net receive buffers", bg->nclients);
        return FC_ERR_INTERNAL;
    }
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
        n = pread(bg->fd, bg->file_rbuf, len, off - (off_t)len < 0 ? 0 : off - (off_t)len);
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

/* The rate schedule: a kind may start another block while what it has
 * started so far is no more than its rate times the time it has been on
 * (the first block at once, then one per block / rate seconds). */
static int fc_bg_may_start(const fc_bg_profile_t *b, double started, double el)
{
    return started <= b->rate_mbps * 1e6 * el * b->duty;
}

static int fc_bg_is_on(const fc_bg_profile_t *b, double el)
{
    return b->duty >= 1 || fmod(el, b->period_s) < b->duty * b->period_s;
}

/* storage_net, one phase. A client keeps up to FC_BG_NET_WINDOW blocks in
 * flight to its target; a target keeps one receive posted per client. At
 * the stop a client sends an empty message after its data (MPI keeps the
 * order between one sender and one receiver), and a target receives
 * until every client's empty message has come. */
typedef struct fc_bg_incast {
    MPI_Request send[FC_BG_NET_WINDOW];
    MPI_Request *recv;              /* per client */
    int *client_done;
    int ndone;
    double posted, sent;
} fc_bg_incast_t;

/* A target's receive from its c-th client, into that client's block. */
static void fc_bg_incast_post_recv(fc_bg_t *bg, fc_bg_incast_t *in, int c)
{
    MPI_Irecv((char *)bg->net_rbufs + (size_t)c * bg->buf_bytes,
              (int)bg->cp->kinds[FC_BG_STORAGE_NET].block, MPI_BYTE, bg->clients[c],
              FC_BG_TAG_NET, bg->net_comm, &in->recv[c]);
}

static void fc_bg_incast_start(fc_bg_t *bg, fc_bg_incast_t *in)
{
    memset(in, 0, sizeof(*in));
    for (int w = 0; w < FC_BG_NET_WINDOW; ++w)
        in->send[w] = MPI_REQUEST_NULL;
    in->recv = calloc((size_t)bg->nclients + 1, sizeof(MPI_Request));
    in->client_done = calloc((size_t)bg->nclients + 1, sizeof(int));
    for (int c = 0; c < bg->nclients; ++c)
        fc_bg_incast_post_recv(bg, in, c);
}

/* Returns 1 if anything moved. */
static int fc_bg_incast_poll(fc_bg_t *bg, fc_bg_incast_t *in, int may_post, double el)
{
    const fc_bg_profile_t *b = &bg->cp->kinds[FC_BG_STORAGE_NET];
    int moved = 0, done;
    MPI_Status st;

    for (int w = 0; w < FC_BG_NET_WINDOW; ++w) {
        if (in->send[w] == MPI_REQUEST_NULL)
            continue;
        MPI_Test(&in->send[w], &done, MPI_STATUS_IGNORE);
        if (done) {
            in->sent += (double)b->block;
            moved = 1;
        }
    }
    for (int c = 0; c < bg->nclients; ++c) {
        int count = 0;

        if (in->client_done[c])
            continue;
        MPI_Test(&in->recv[c], &done, &st);
        if (!done)
            continue;
        moved = 1;
        MPI_Get_count(&st, MPI_BYTE, &count);
        if (count == 0) {
            in->client_done[c] = 1;
            in->ndone++;
            continue;
        }
        fc_bg_incast_post_recv(bg, in, c);
    }
    if (!may_post || bg->my_target < 0 || !fc_bg_is_on(b, el) ||
        !fc_bg_may_start(b, in->posted, el))
        return moved;
    for (int w = 0; w < FC_BG_NET_WINDOW; ++w)
        if (in->send[w] == MPI_REQUEST_NULL) {
            MPI_Isend(bg->buf, (int)b->block, MPI_BYTE, bg->my_target, FC_BG_TAG_NET,
                      bg->net_comm, &in->send[w]);
            in->posted += (double)b->block;
            return 1;
        }
    return moved;
}

static void fc_bg_drain_incast(fc_bg_t *bg, fc_bg_incast_t *in)
{
    MPI_Request end = MPI_REQUEST_NULL;

    if (bg->my_target >= 0)
        MPI_Isend(bg->buf, 0, MPI_BYTE, bg->my_target, FC_BG_TAG_NET, bg->net_comm, &end);
    for (;;) {
        int sending = 0;

        for (int w = 0; w < FC_BG_NET_WINDOW; ++w)
            sending |= in->send[w] != MPI_REQUEST_NULL;
        if (!sending && in->ndone == bg->nclients)
            break;
        if (!fc_bg_incast_poll(bg, in, 0, 0))
            usleep(200);
    }
    MPI_Wait(&end, MPI_STATUS_IGNORE);
    free(in->recv);
    free(in->client_done);
}

/* tenant, one phase: step k sends one block to (rank + shift_k) and
 * receives one from (rank - shift_k); all_to_all walks the shifts 1 ..
 * size-1 in turn (the pairwise-exchange schedule of an all-to-all), a
 * permutation takes a pseudo-random shift each step. Every rank computes
 * the same shifts, so step k's sends and receives match whatever pace each
 * rank keeps; a rank posts step k+1 when step k is done. */
typedef struct fc_bg_tenant {
    MPI_Request req[2];
    unsigned long step;             /* steps posted */
    double posted, sent;
} fc_bg_tenant_t;

static void fc_bg_tenant_post(fc_bg_t *bg, fc_bg_tenant_t *tn, int bytes)
{
    const fc_bg_profile_t *b = &bg->cp->kinds[FC_BG_TENANT];
    unsigned span = (unsigned)bg->size - 1;
    int shift = 1 + (int)(b->permutation ? (tn->step * 2654435761u) % span : tn->step % span);
    int to = (bg->rank + shift) % bg->size, from = (bg->rank - shift + bg->size) % bg->size;

    MPI_Irecv(bg->tenant_rbuf, (int)b->block, MPI_BYTE, from, FC_BG_TAG_TENANT,
              bg->tenant_comm, &tn->req[0]);
    MPI_Isend(bg->buf, bytes, MPI_BYTE, to, FC_BG_TAG_TENANT, bg->tenant_comm, &tn->req[1]);
    tn->step++;
    tn->posted += bytes;
}

static int fc_bg_tenant_poll(fc_bg_t *bg, fc_bg_tenant_t *tn, double el)
{
    const fc_bg_profile_t *b = &bg->cp->kinds[FC_BG_TENANT];
    int done = 1;

    if (tn->req[0] != MPI_REQUEST_NULL) {
        MPI_Testall(2, tn->req, &done, MPI_STATUSES_IGNORE);
        if (!done)
            return 0;
        tn->sent += (double)b->block;
    }
    if (bg->size < 2 || !fc_bg_is_on(b, el) || !fc_bg_may_start(b, tn->posted, el))
        return done;
    fc_bg_tenant_post(bg, tn, (int)b->block);
    return 1;
}

/* After the stop: the ranks agree on the highest step any of them posted,
 * and each finishes its steps up to it with empty sends, so every receive
 * posted by a faster rank is matched. Step k completes on every rank once
 * every rank has posted it, and a rank posts k+1 after k completes, so
 * this ends. */
static void fc_bg_drain_tenant(fc_bg_t *bg, fc_bg_tenant_t *tn)
{
    unsigned long last = 0;

    int in_flight = tn->req[0] != MPI_REQUEST_NULL;

    if (bg->size < 2)
        return;
    MPI_Allreduce(&tn->step, &last, 1, MPI_UNSIGNED_LONG, MPI_MAX, bg->tenant_comm);
    MPI_Waitall(2, tn->req, MPI_STATUSES_IGNORE);
    if (in_flight)
        tn->sent += (double)bg->cp->kinds[FC_BG_TENANT].block;
    while (tn->step < last) {
        fc_bg_tenant_post(bg, tn, 0);
        MPI_Waitall(2, tn->req, MPI_STATUSES_IGNORE);
    }
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

        if (fc_bg_is_on(b, el) && job->bg->fd >= 0 && fc_bg_may_start(b, job->bytes, el))
            job->bytes += fc_bg_file_step(job->bg);
        else
            usleep(500);
    }
    return NULL;
}

void fc_bg_run_phase(fc_bg_t *bg, unsigned mask, MPI_Request *stop, fc_bg_tally_t *tally)
{
    double t0 = fc_now();
    fc_bg_file_job_t job = { bg, 0, t0, 0 };
    fc_bg_incast_t incast;
    fc_bg_tenant_t tenant = { { MPI_REQUEST_NULL, MPI_REQUEST_NULL }, 0, 0, 0 };
    int net = ((mask >> FC_BG_STORAGE_NET) & 1) && bg->net_roles;
    int ten = (mask >> FC_BG_TENANT) & 1;
    pthread_t file_thread;
    int file_running = 0, stopped = 0;

    memset(tally, 0, sizeof(*tally));
    tally->generating[FC_BG_STORAGE_FILE] = (mask >> FC_BG_STORAGE_FILE) & 1;
    tally->generating[FC_BG_STORAGE_NET] = ((mask >> FC_BG_STORAGE_NET) & 1) && bg->my_target >= 0;
    tally->generating[FC_BG_TENANT] = ten;
    if (((mask >> FC_BG_STORAGE_FILE) & 1) &&
        pthread_create(&file_thread, NULL, fc_bg_file_thread, &job) == 0)
        file_running = 1;
    if (net)
        fc_bg_incast_start(bg, &incast);
    while (!stopped) {
        double el = fc_now() - t0;
        int moved = 0;

        MPI_Test(stop, &stopped, MPI_STATUS_IGNORE);
        if (net)
            moved |= fc_bg_incast_poll(bg, &incast, !stopped, el);
        if (ten && !stopped)
            moved |= fc_bg_tenant_poll(bg, &tenant, el);
        if (!moved && !stopped)
            usleep(200);
    }
    if (ten)
        fc_bg_drain_tenant(bg, &tenant);
    if (net) {
        fc_bg_drain_incast(bg, &incast);
        tally->bytes[FC_BG_STORAGE_NET] = incast.sent;
    }
    tally->bytes[FC_BG_TENANT] = tenant.sent;
    if (file_running) {
        atomic_store(&job.stop, 1);
        pthread_join(file_thread, NULL);
        tally->bytes[FC_BG_STORAGE_FILE] = job.bytes;
    }
    tally->seconds = fc_now() - t0;
    if ((mask >> FC_BG_STORAGE_FILE) & 1 && bg->file_error[0]) {
        snprintf(tally->error, sizeof(tally->error), "%s", bg->file_error);
        tally->error_kind = FC_BG_STORAGE_FILE;
    }
    if ((mask >> FC_BG_STORAGE_FILE) & 1 && bg->file_note[0])
        snprintf(tally->note, sizeof(tally->note), "%s", bg->file_note);
}

void fc_bg_fini(fc_bg_t *bg)
{
    if (bg->fd >= 0) {
        close(bg->fd);
        unlink(bg->path);
    }
    if (bg->net_comm != MPI_COMM_NULL)
        MPI_Comm_free(&bg->net_comm);
    if (bg->tenant_comm != MPI_COMM_NULL)
        MPI_Comm_free(&bg->tenant_comm);
    free(bg->clients);
    free(bg->buf);
    free(bg->file_rbuf);
    free(bg->tenant_rbuf);
    free(bg->net_rbufs);
    memset(bg, 0, sizeof(*bg));
    bg->fd = -1;
    bg->net_comm = bg->tenant_comm = MPI_COMM_NULL;
}
