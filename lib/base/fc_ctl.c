/*
 * fc_ctl.c - see fc_ctl.h. Each exchange seals its frames, moves them as
 * bytes with the one MPI call it replaces, and opens every frame it
 * received before it copies a payload out; a text of any length moves in
 * two parts (a frame that announces its length and checksum, then the
 * bytes), so no receiver sizes a buffer from a number it has not checked.
 */
#include "fc_ctl.h"

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fc_alloc.h"
#include "fc_ctl_frame.h"
#include "fc_log.h"
#include "fc_status.h"
#include "fc_watchdog.h"

/* A text announced by a two-part message. */
typedef struct fc_ctl_text_head {
    uint64_t len;
    uint64_t sum;
} fc_ctl_text_head_t;

int fc_ctl_world_rank(MPI_Comm comm, int r)
{
    MPI_Group g, wg;
    int w = -1;

    if (r < 0 || MPI_Comm_group(comm, &g) != MPI_SUCCESS)
        return -1;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_translate_ranks(g, 1, &r, wg, &w);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    return w == MPI_UNDEFINED ? -1 : w;
}

static void fc_ctl_vfail(const char *what, int from_world, const char *fmt, va_list ap)
    __attribute__((noreturn));

static void fc_ctl_vfail(const char *what, int from_world, const char *fmt, va_list ap)
{
    char why[512], from[48] = "";

    vsnprintf(why, sizeof(why), fmt, ap);
    if (from_world >= 0)
        snprintf(from, sizeof(from), " from rank %d", from_world);
    fc_watchdog_control_error(what, from_world, why);
    fc_error("the control message '%s'%s arrived wrong (%s): this rank received it and "
             "ends the stage", what, from, why);
    MPI_Abort(MPI_COMM_WORLD, FC_EXIT_FAIL);
    _exit(FC_EXIT_FAIL);
}

void fc_ctl_fail(const char *what, int from_world, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fc_ctl_vfail(what, from_world, fmt, ap);
}

void fc_ctl_check(int ok, const char *what, int from_world, const char *fmt, ...)
{
    va_list ap;

    if (ok)
        return;
    va_start(ap, fmt);
    fc_ctl_vfail(what, from_world, fmt, ap);
}

int fc_ctl_str_ok(const char *s, size_t cap)
{
    return cap > 0 && memchr(s, '\0', cap) != NULL;
}

/* A frame's size as an MPI count. */
static int fc_ctl_count(size_t bytes, const char *what)
{
    if (bytes > INT_MAX)
        fc_ctl_fail(what, -1, "%zu bytes are more than one MPI call can move", bytes);
    return (int)bytes;
}

/* Open the frame of rank r of comm, or end the job. */
static void fc_ctl_open(MPI_Comm comm, const void *frame, size_t size, const char *what, int r,
                        size_t len)
{
    char why[256];

    if (fc_ctl_frame_open(frame, size, what, r, len, why, sizeof(why)) != 0)
        fc_ctl_fail(what, fc_ctl_world_rank(comm, r), "%s", why);
}

static int fc_ctl_my_world(void)
{
    int w = -1;

    MPI_Comm_rank(MPI_COMM_WORLD, &w);
    return w;
}

void fc_ctl_bcast(MPI_Comm comm, int root, const char *what, void *buf, size_t len)
{
    size_t fl = FC_CTL_HEAD + len;
    unsigned char *f = fc_xmalloc(fl, "a control message");
    int rank;

    MPI_Comm_rank(comm, &rank);
    if (rank == root)
        fc_ctl_frame_seal(f, what, root, fc_ctl_my_world(), buf, len);
    MPI_Bcast(f, fc_ctl_count(fl, what), MPI_BYTE, root, comm);
    if (rank != root) {
        fc_ctl_open(comm, f, fl, what, root, len);
        memcpy(buf, f + FC_CTL_HEAD, len);
    }
    free(f);
}

void fc_ctl_bcast_ints(MPI_Comm comm, int root, const char *what, int *v, int n, int lo,
                       int hi)
{
    fc_ctl_bcast(comm, root, what, v, (size_t)n * sizeof(int));
    for (int i = 0; i < n; ++i)
        fc_ctl_check(v[i] >= lo && v[i] <= hi, what, fc_ctl_world_rank(comm, root),
                     "value %d of %d is %d, outside [%d, %d]", i + 1, n, v[i], lo, hi);
}

void fc_ctl_bcast_str(MPI_Comm comm, int root, const char *what, char *s, size_t cap)
{
    fc_ctl_bcast(comm, root, what, s, cap);
    fc_ctl_check(fc_ctl_str_ok(s, cap), what, fc_ctl_world_rank(comm, root),
                 "the string has no end in its %zu bytes", cap);
}

void fc_ctl_bcast_text(MPI_Comm comm, int root, const char *what, size_t max, char **text_p)
{
    fc_ctl_text_head_t th = { 0, 0 };
    char *text = NULL;
    int rank;

    MPI_Comm_rank(comm, &rank);
    if (rank == root) {
        th.len = strlen(*text_p);
        th.sum = fc_ctl_sum(*text_p, th.len);
    }
    fc_ctl_bcast(comm, root, what, &th, sizeof(th));
    fc_ctl_check(th.len <= max, what, fc_ctl_world_rank(comm, root),
                 "it announces %llu bytes, more than the %zu allowed",
                 (unsigned long long)th.len, max);
    if (rank != root)
        text = fc_xmalloc(th.len + 1, "a text from another rank");
    else
        text = *text_p;
    if (th.len > 0)
        MPI_Bcast(text, fc_ctl_count(th.len, what), MPI_BYTE, root, comm);
    if (rank == root)
        return;
    text[th.len] = '\0';
    if (fc_ctl_sum(text, th.len) != th.sum)
        fc_ctl_fail(what, fc_ctl_world_rank(comm, root),
                    "the checksum of its %llu bytes does not match: a bit changed on the way",
                    (unsigned long long)th.len);
    *text_p = text;
}

/* Seal mine, gather (root >= 0) or allgather (root -1) the frames, open
 * every one received and copy the payloads into all. */
static void fc_ctl_collect(MPI_Comm comm, int root, const char *what, const void *mine,
                           size_t len, void *all)
{
    size_t fl = FC_CTL_HEAD + len;
    unsigned char *f = fc_xmalloc(fl, "a control message"), *fs = NULL;
    int rank, size, count = fc_ctl_count(fl, what);

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    fc_ctl_frame_seal(f, what, rank, fc_ctl_my_world(), mine, len);
    if (root < 0 || rank == root)
        fs = fc_xcalloc((size_t)size, fl, "the control messages of every rank");
    if (root < 0)
        MPI_Allgather(f, count, MPI_BYTE, fs, count, MPI_BYTE, comm);
    else
        MPI_Gather(f, count, MPI_BYTE, fs, count, MPI_BYTE, root, comm);
    for (int r = 0; fs != NULL && r < size; ++r) {
        fc_ctl_open(comm, fs + (size_t)r * fl, fl, what, r, len);
        memcpy((unsigned char *)all + (size_t)r * len, fs + (size_t)r * fl + FC_CTL_HEAD, len);
    }
    free(fs);
    free(f);
}

void fc_ctl_gather(MPI_Comm comm, int root, const char *what, const void *mine, size_t len,
                   void *all)
{
    fc_ctl_collect(comm, root, what, mine, len, all);
}

void fc_ctl_allgather(MPI_Comm comm, const char *what, const void *mine, size_t len,
                      void *all)
{
    fc_ctl_collect(comm, -1, what, mine, len, all);
}

/* Every rank's ints in [lo, hi], and its strings ended, where they arrived. */
static void fc_ctl_check_ints(MPI_Comm comm, const char *what, const int *all, int n, int lo,
                              int hi)
{
    int size;

    MPI_Comm_size(comm, &size);
    for (int r = 0; r < size; ++r)
        for (int i = 0; i < n; ++i)
            fc_ctl_check(all[(size_t)r * n + i] >= lo && all[(size_t)r * n + i] <= hi, what,
                         fc_ctl_world_rank(comm, r), "value %d of %d is %d, outside [%d, %d]",
                         i + 1, n, all[(size_t)r * n + i], lo, hi);
}

static void fc_ctl_check_strs(MPI_Comm comm, const char *what, const char *all, size_t cap)
{
    int size;

    MPI_Comm_size(comm, &size);
    for (int r = 0; r < size; ++r)
        fc_ctl_check(fc_ctl_str_ok(all + (size_t)r * cap, cap), what,
                     fc_ctl_world_rank(comm, r), "the string has no end in its %zu bytes", cap);
}

void fc_ctl_gather_ints(MPI_Comm comm, int root, const char *what, const int *mine, int n,
                        int *all, int lo, int hi)
{
    int rank;

    fc_ctl_collect(comm, root, what, mine, (size_t)n * sizeof(int), all);
    MPI_Comm_rank(comm, &rank);
    if (rank == root)
        fc_ctl_check_ints(comm, what, all, n, lo, hi);
}

void fc_ctl_allgather_ints(MPI_Comm comm, const char *what, const int *mine, int n, int *all,
                           int lo, int hi)
{
    fc_ctl_collect(comm, -1, what, mine, (size_t)n * sizeof(int), all);
    fc_ctl_check_ints(comm, what, all, n, lo, hi);
}

void fc_ctl_gather_strs(MPI_Comm comm, int root, const char *what, const char *mine,
                        size_t cap, char *all)
{
    int rank;

    fc_ctl_collect(comm, root, what, mine, cap, all);
    MPI_Comm_rank(comm, &rank);
    if (rank == root)
        fc_ctl_check_strs(comm, what, all, cap);
}

void fc_ctl_allgather_strs(MPI_Comm comm, const char *what, const char *mine, size_t cap,
                           char *all)
{
    fc_ctl_collect(comm, -1, what, mine, cap, all);
    fc_ctl_check_strs(comm, what, all, cap);
}

char **fc_ctl_gather_texts(MPI_Comm comm, int root, const char *what, const char *mine,
                           size_t max)
{
    fc_ctl_text_head_t th = { 0, 0 }, *ths = NULL;
    int rank, size, *counts = NULL, *displs = NULL;
    char *all = NULL, **texts = NULL;
    size_t total = 0;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (mine && strlen(mine) + 1 > max) {
        fc_error("%s: this rank's text has %zu bytes, more than the %zu allowed: sent as "
                 "none", what, strlen(mine) + 1, max);
        mine = NULL;
    }
    if (mine) {
        th.len = strlen(mine) + 1;      /* 0: none; else with its NUL */
        th.sum = fc_ctl_sum(mine, th.len);
    }
    if (rank == root) {
        ths = fc_xcalloc((size_t)size, sizeof(*ths), "the announced texts");
        counts = fc_xcalloc((size_t)size, sizeof(int), "the texts' lengths");
        displs = fc_xcalloc((size_t)size, sizeof(int), "the texts' places");
    }
    fc_ctl_collect(comm, root, what, &th, sizeof(th), ths);
    if (rank == root) {
        for (int r = 0; r < size; ++r) {
            fc_ctl_check(ths[r].len <= max, what, fc_ctl_world_rank(comm, r),
                         "it announces %llu bytes, more than the %zu allowed",
                         (unsigned long long)ths[r].len, max);
            displs[r] = fc_ctl_count(total, what);
            counts[r] = (int)ths[r].len;
            total += ths[r].len;
        }
        fc_ctl_count(total, what);
        all = fc_xmalloc(total + 1, "the gathered texts");
    }
    MPI_Gatherv(mine, (int)th.len, MPI_BYTE, all, counts, displs, MPI_BYTE, root, comm);
    if (rank == root) {
        texts = fc_xcalloc((size_t)size, sizeof(*texts), "the gathered texts");
        for (int r = 0; r < size; ++r) {
            const char *t = all + displs[r];

            if (ths[r].len == 0)
                continue;
            if (fc_ctl_sum(t, ths[r].len) != ths[r].sum || t[ths[r].len - 1] != '\0')
                fc_ctl_fail(what, fc_ctl_world_rank(comm, r), "the checksum of its %llu bytes "
                            "does not match: a bit changed on the way",
                            (unsigned long long)ths[r].len);
            texts[r] = fc_xmalloc(ths[r].len, "a gathered text");
            memcpy(texts[r], t, ths[r].len);
        }
    }
    free(all);
    free(ths);
    free(counts);
    free(displs);
    return texts;
}

static size_t fc_ctl_type_size(fc_ctl_type_t type)
{
    switch (type) {
    case FC_CTL_INT: return sizeof(int);
    case FC_CTL_INT64: return sizeof(long long);
    case FC_CTL_UINT64: return sizeof(unsigned long long);
    case FC_CTL_DOUBLE: return sizeof(double);
    }
    return 0;
}

#define FC_CTL_FOLD(T, acc, v, op)                                              \
    do {                                                                        \
        T a_ = *(const T *)(acc), b_ = *(const T *)(v);                         \
        *(T *)(acc) = (op) == FC_CTL_MAX ? (a_ > b_ ? a_ : b_)                  \
                    : (op) == FC_CTL_MIN ? (a_ < b_ ? a_ : b_) : (T)(a_ + b_);  \
    } while (0)

/* acc = acc op v, for one element. */
static void fc_ctl_fold(fc_ctl_type_t type, fc_ctl_op_t op, void *acc, const void *v)
{
    switch (type) {
    case FC_CTL_INT: FC_CTL_FOLD(int, acc, v, op); break;
    case FC_CTL_INT64: FC_CTL_FOLD(long long, acc, v, op); break;
    case FC_CTL_UINT64: FC_CTL_FOLD(unsigned long long, acc, v, op); break;
    case FC_CTL_DOUBLE: FC_CTL_FOLD(double, acc, v, op); break;
    }
}

static void fc_ctl_reduce_any(MPI_Comm comm, int root, const char *what, fc_ctl_type_t type,
                              fc_ctl_op_t op, const void *in, void *out, int n)
{
    size_t es = fc_ctl_type_size(type), len = es * (size_t)n;
    unsigned char *all = NULL;
    int rank, size;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (root < 0 || rank == root)
        all = fc_xcalloc((size_t)size, len ? len : 1, "the values to reduce");
    fc_ctl_collect(comm, root, what, in, len, all);
    if (all == NULL)
        return;
    memcpy(out, all, len);
    for (int r = 1; r < size; ++r)
        for (int i = 0; i < n; ++i)
            fc_ctl_fold(type, op, (unsigned char *)out + (size_t)i * es,
                        all + (size_t)r * len + (size_t)i * es);
    free(all);
}

void fc_ctl_allreduce(MPI_Comm comm, const char *what, fc_ctl_type_t type, fc_ctl_op_t op,
                      const void *in, void *out, int n)
{
    fc_ctl_reduce_any(comm, -1, what, type, op, in, out, n);
}

void fc_ctl_reduce(MPI_Comm comm, int root, const char *what, fc_ctl_type_t type,
                   fc_ctl_op_t op, const void *in, void *out, int n)
{
    fc_ctl_reduce_any(comm, root, what, type, op, in, out, n);
}

void fc_ctl_allreduce_maxloc(MPI_Comm comm, const char *what, double v, int loc, int loc_max,
                             double *v_p, int *loc_p)
{
    struct { double v; int loc; } mine, *all;
    int size, best = 0;

    MPI_Comm_size(comm, &size);
    memset(&mine, 0, sizeof(mine));
    mine.v = v;
    mine.loc = loc;
    all = fc_xcalloc((size_t)size, sizeof(*all), "the values to reduce");
    fc_ctl_collect(comm, -1, what, &mine, sizeof(mine), all);
    for (int r = 0; r < size; ++r) {
        fc_ctl_check(all[r].loc >= 0 && all[r].loc <= loc_max, what, fc_ctl_world_rank(comm, r),
                     "its place %d is outside [0, %d]", all[r].loc, loc_max);
        if (all[r].v > all[best].v || (all[r].v == all[best].v && all[r].loc < all[best].loc))
            best = r;
    }
    *v_p = all[best].v;
    *loc_p = all[best].loc;
    free(all);
}

void fc_ctl_send(MPI_Comm comm, int to, int tag, const char *what, const void *buf,
                 size_t len)
{
    size_t fl = FC_CTL_HEAD + len;
    unsigned char *f = fc_xmalloc(fl, "a control message");
    int rank;

    MPI_Comm_rank(comm, &rank);
    fc_ctl_frame_seal(f, what, rank, fc_ctl_my_world(), buf, len);
    MPI_Send(f, fc_ctl_count(fl, what), MPI_BYTE, to, tag, comm);
    free(f);
}

void fc_ctl_recv(MPI_Comm comm, int from, int tag, const char *what, void *buf, size_t len)
{
    size_t fl = FC_CTL_HEAD + len;
    unsigned char *f = fc_xmalloc(fl, "a control message");
    MPI_Status st;
    int got = 0;

    MPI_Recv(f, fc_ctl_count(fl, what), MPI_BYTE, from, tag, comm, &st);
    MPI_Get_count(&st, MPI_BYTE, &got);
    fc_ctl_open(comm, f, got >= 0 ? (size_t)got : 0, what, from, len);
    memcpy(buf, f + FC_CTL_HEAD, len);
    free(f);
}
