/*
 * fc_ctl.h - the control exchanges between the ranks of a stage, checked.
 *
 * Every value one rank tells another about the run (a status the ranks
 * agree on, a count, a size, an index, a gathered report, the broadcast
 * profile or inventory, a schedule's next step, a wrong-element report)
 * goes through one of these calls instead of a bare MPI one. Each message
 * travels in a frame (lib/base/fc_ctl_frame.h: the exchange's name, the
 * sender, the length, a checksum over every byte), and the receiver
 * checks the frame before it reads a byte, and the values against the
 * range the caller gives before it uses one. Reductions are gathers of
 * framed values reduced on each rank (a reduction's result carries no
 * checksum of its own), in rank order.
 *
 * A message that fails its check ends the job from the rank that
 * received it, at once: one FABCERT-MPIERR line on stderr with
 * "control" (the exchange) and "peer" (the world rank the message came
 * from), the same line a failed MPI call gives (lib/base/fc_watchdog.h), read
 * by the runner (runners/fc_diagnose*.c: the rank is an observer, not the
 * culprit, and the stage's racks FAIL), then MPI_Abort. So a corrupted
 * control message never sends one rank down another branch than its
 * peers (a hang until the stage's timeout), never indexes a table with a
 * number no peer sent (a crash), and a stage program run alone under
 * mpirun ends within seconds too.
 *
 * Names: `what` says what the message is ("the stage's status", "the
 * ranks' host names"); it is the exchange's tag, and it is what the
 * failing rank's line says. Every rank of comm calls each exchange with
 * the same what, root, length and count.
 */
#ifndef FC_CTL_H
#define FC_CTL_H

#include <mpi.h>
#include <stddef.h>

/* The longest text one rank sends another (a rank's JSON report). */
#define FC_CTL_TEXT_MAX ((size_t)16 << 20)

typedef enum fc_ctl_type {
    FC_CTL_INT,             /* int */
    FC_CTL_INT64,           /* long long */
    FC_CTL_UINT64,          /* unsigned long long, unsigned long */
    FC_CTL_DOUBLE,          /* double */
} fc_ctl_type_t;

typedef enum fc_ctl_op { FC_CTL_MAX, FC_CTL_MIN, FC_CTL_SUM } fc_ctl_op_t;

/* len bytes at buf, from root to every rank of comm. */
void fc_ctl_bcast(MPI_Comm comm, int root, const char *what, void *buf, size_t len);
/* n ints, each in [lo, hi] (checked on every receiver). */
void fc_ctl_bcast_ints(MPI_Comm comm, int root, const char *what, int *v, int n, int lo,
                       int hi);
/* A string in a buffer of cap bytes (received: NUL-terminated in cap). */
void fc_ctl_bcast_str(MPI_Comm comm, int root, const char *what, char *s, size_t cap);
/* A text of any length up to max bytes: root's `text`; every other rank
 * gets a copy (malloc'd, NUL-terminated) through *text_p. */
void fc_ctl_bcast_text(MPI_Comm comm, int root, const char *what, size_t max, char **text_p);

/* len bytes from each rank into all (root: size * len bytes; NULL
 * elsewhere), rank r's at all + r * len. */
void fc_ctl_gather(MPI_Comm comm, int root, const char *what, const void *mine, size_t len,
                   void *all);
void fc_ctl_gather_ints(MPI_Comm comm, int root, const char *what, const int *mine, int n,
                        int *all, int lo, int hi);
/* Each rank's string of cap bytes (received: NUL-terminated in cap). */
void fc_ctl_gather_strs(MPI_Comm comm, int root, const char *what, const char *mine,
                        size_t cap, char *all);
/* Each rank's text of up to max bytes (NULL: none); root gets an array of
 * size malloc'd texts (NULL for a rank that had none), NULL elsewhere. */
char **fc_ctl_gather_texts(MPI_Comm comm, int root, const char *what, const char *mine,
                           size_t max);
void fc_ctl_allgather(MPI_Comm comm, const char *what, const void *mine, size_t len,
                      void *all);
void fc_ctl_allgather_ints(MPI_Comm comm, const char *what, const int *mine, int n, int *all,
                           int lo, int hi);
void fc_ctl_allgather_strs(MPI_Comm comm, const char *what, const char *mine, size_t cap,
                           char *all);

/* n values of type reduced over comm by op, on every rank / on root. */
void fc_ctl_allreduce(MPI_Comm comm, const char *what, fc_ctl_type_t type, fc_ctl_op_t op,
                      const void *in, void *out, int n);
void fc_ctl_reduce(MPI_Comm comm, int root, const char *what, fc_ctl_type_t type,
                   fc_ctl_op_t op, const void *in, void *out, int n);

/* The largest v over comm and the loc that came with it (the lowest loc
 * among equal v, as MPI_MAXLOC), on every rank; each loc received is
 * checked to lie in [0, loc_max]. */
void fc_ctl_allreduce_maxloc(MPI_Comm comm, const char *what, double v, int loc, int loc_max,
                             double *v_p, int *loc_p);

/* Point to point, len bytes. */
void fc_ctl_send(MPI_Comm comm, int to, int tag, const char *what, const void *buf,
                 size_t len);
void fc_ctl_recv(MPI_Comm comm, int from, int tag, const char *what, void *buf, size_t len);

/* The world rank of rank r of comm (-1 if none). */
int fc_ctl_world_rank(MPI_Comm comm, int r);
/* A received control value that cannot be (a rank out of range, a count
 * larger than the table): unless ok, end the job as a failed check does,
 * naming the exchange, the world rank it came from (-1: not known) and
 * why (printf). */
void fc_ctl_check(int ok, const char *what, int from_world, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void fc_ctl_fail(const char *what, int from_world, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));
/* Is s (cap bytes) NUL-terminated? */
int fc_ctl_str_ok(const char *s, size_t cap);

#endif
