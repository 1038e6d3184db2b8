/*
 * fc_bg_storage_file.c - the storage_file kind of background traffic:
 * large-block writes, each followed by fsync, and reads back, to one file
 * per rank in the profile's storage_dir (O_DIRECT where the filesystem
 * takes it; the fallback to buffered I/O is reported as a note). The file
 * cycles over FC_BG_FILE_BLOCKS blocks. The I/O runs in a thread of its
 * own (no MPI there), so storage is not paced by the network kinds'
 * loop, and vice versa. A storage_dir that is missing, not a directory or
 * not writable, or I/O that fails, is this kind's error: it is logged,
 * and every phase's tally carries it, so the load is never taken as
 * proven.
 */
#define _GNU_SOURCE
#include "fc_bg_kind.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fc_alloc.h"
#include "fc_log.h"

#define FC_BG_FILE_BLOCKS 16        /* the file cycles over this many blocks */

typedef struct fc_bg_file {
    fc_bg_t *bg;                    /* the engine, for the thread */
    const fc_bg_profile_t *b;       /* the kind's settings */
    int fd;                         /* this rank's file, -1 if none */
    char path[700];                 /* its name, removed at fini */
    char error[FC_BG_ERROR_MAX];    /* why it cannot run, or failed */
    char note[FC_BG_ERROR_MAX];     /* the O_DIRECT fallback */
    void *rbuf;                     /* reads land here */
    uint64_t steps;                 /* blocks moved: even ones write, odd read */
    pthread_t thread;               /* the phase's I/O */
    atomic_int stop;                /* set at the stop, read by the thread */
    double t0;                      /* the phase's start (MPI_Wtime) */
    double bytes;                   /* moved this phase */
} fc_bg_file_t;

static void fc_bg_file_open(fc_bg_file_t *f, const fc_bg_t *bg)
{
    const char *dir = bg->cp->storage_dir;
    int flags = O_RDWR | O_CREAT | O_TRUNC;
    struct stat sb;

    snprintf(f->path, sizeof(f->path), "%s/fabcert-bg-%s-%d.dat", dir, bg->host,
             bg->world_rank);
    if (stat(dir, &sb) != 0) {
        snprintf(f->error, sizeof(f->error), "storage_dir %s on host %s: %s", dir, bg->host,
                 strerror(errno));
        return;
    }
    if (!S_ISDIR(sb.st_mode)) {
        snprintf(f->error, sizeof(f->error), "storage_dir %s on host %s: not a directory",
                 dir, bg->host);
        return;
    }
    if (f->b->direct) {
        f->fd = open(f->path, flags | O_DIRECT, 0600);
        if (f->fd < 0 && errno == EINVAL)
            snprintf(f->note, sizeof(f->note), "O_DIRECT is not supported on %s (host %s): "
                     "buffered I/O with fsync", dir, bg->host);
    }
    if (f->fd < 0)
        f->fd = open(f->path, flags, 0600);
    if (f->fd < 0)
        snprintf(f->error, sizeof(f->error), "storage_dir %s on host %s: cannot create %s: %s",
                 dir, bg->host, f->path, strerror(errno));
}

static fc_status_t fc_bg_file_init(fc_bg_t *bg, const int *racks, void **state_p)
{
    fc_bg_file_t *f = fc_xcalloc(1, sizeof(*f), "the storage_file state");

    *state_p = f;
    f->fd = -1;
    f->bg = bg;
    f->b = &bg->cp->kinds[FC_BG_STORAGE_FILE];
    /* sized by the profile's block (its input): an error naming the size,
     * not the out-of-memory policy (lib/base/fc_alloc.h) */
    if (posix_memalign(&f->rbuf, FC_BG_ALIGN, bg->buf_bytes) != 0) {
        f->rbuf = NULL;
        fc_error("out of memory for a %zu-byte storage_file read buffer", bg->buf_bytes);
        return FC_ERR_INTERNAL;
    }
    memset(f->rbuf, 0, bg->buf_bytes);
    fc_bg_file_open(f, bg);
    if (f->error[0])
        fc_error("storage_file traffic cannot run: %s", f->error);
    return FC_OK;
}

/* One write + fsync, or one read, of a block: returns bytes moved. */
static double fc_bg_file_step(fc_bg_file_t *f)
{
    size_t len = fc_bg_aligned(f->b->block);
    off_t off = (off_t)(f->steps % FC_BG_FILE_BLOCKS) * (off_t)len;
    ssize_t n;

    if (f->fd < 0 || len > f->bg->buf_bytes)
        return 0;
    if (f->steps % 2 == 0) {
        n = pwrite(f->fd, f->bg->buf, len, off);
        if (n > 0 && fsync(f->fd) != 0)
            n = -1;
    } else {
        n = pread(f->fd, f->rbuf, len, off - (off_t)len < 0 ? 0 : off - (off_t)len);
    }
    if (n < 0) {
        snprintf(f->error, sizeof(f->error), "storage_dir %s on host %s: I/O on %s failed: %s",
                 f->bg->cp->storage_dir, f->bg->host, f->path, strerror(errno));
        close(f->fd);
        f->fd = -1;
        return 0;
    }
    f->steps++;
    return (double)n;
}

static void *fc_bg_file_thread(void *arg)
{
    fc_bg_file_t *f = arg;

    while (!atomic_load(&f->stop)) {
        double el = MPI_Wtime() - f->t0;

        if (fc_bg_is_on(f->b, el) && f->fd >= 0 && fc_bg_may_start(f->b, f->bytes, el))
            f->bytes += fc_bg_file_step(f);
        else
            usleep(500);
    }
    return NULL;
}

static int fc_bg_file_start(fc_bg_t *bg, void *state, double t0)
{
    fc_bg_file_t *f = state;

    atomic_store(&f->stop, 0);
    f->t0 = t0;
    f->bytes = 0;
    return pthread_create(&f->thread, NULL, fc_bg_file_thread, f) == 0;
}

static void fc_bg_file_drain(fc_bg_t *bg, void *state)
{
    fc_bg_file_t *f = state;

    atomic_store(&f->stop, 1);
    pthread_join(f->thread, NULL);
}

static void fc_bg_file_tally(fc_bg_t *bg, void *state, fc_bg_tally_t *tally)
{
    fc_bg_file_t *f = state;

    tally->generating[FC_BG_STORAGE_FILE] = 1;
    tally->bytes[FC_BG_STORAGE_FILE] = f->bytes;
    fc_bg_tally_error(tally, FC_BG_STORAGE_FILE, f->error);
    if (f->note[0])
        fc_bg_tally_note(tally, f->note);
}

static void fc_bg_file_fini(fc_bg_t *bg, void *state)
{
    fc_bg_file_t *f = state;

    if (f->fd >= 0) {
        close(f->fd);
        unlink(f->path);
    }
    free(f->rbuf);
    free(f);
}

const fc_bg_kind_ops_t fc_bg_storage_file_ops = {
    .name = "storage_file",
    .init_func = fc_bg_file_init,
    .start_func = fc_bg_file_start,
    .poll_func = NULL,              /* paced by its own thread */
    .drain_func = fc_bg_file_drain,
    .tally_func = fc_bg_file_tally,
    .fini_func = fc_bg_file_fini,
};
