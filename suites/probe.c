/*
 * probe.c - the runner's short point-to-point probe, not a stage: one rank
 * per host, every rank sends a small checked message to every other and
 * waits for theirs, all at once, for at most --timeout seconds. The runner
 * launches it on a stuck stage's hosts (runners/fc_probe.h) to find a host
 * whose fabric stopped forwarding: it is cut off from the others.
 *
 * Each rank prints one line on stdout when its deadline comes or every
 * message has arrived, whatever the others do (a dead or cut-off rank
 * prints nothing, which says as much):
 *
 *   FABCERT-PROBE {"rank":R,"host":H,"heard":[ranks whose message arrived
 *                  intact],"wrong":[ranks whose message arrived with wrong
 *                  bytes],"sent":[ranks that took this rank's message],
 *                  "seconds":S}
 *
 * Errors on the wire do not abort (MPI_ERRORS_RETURN); a rank with
 * anything left pending after its deadline exits without MPI_Finalize,
 * which could wait for a peer that never comes. Usage:
 *   mpirun --hostfile H --map-by node build/suites/probe [--timeout S] [--bytes N]
 */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fc_alloc.h"
#include "fc_log.h"

#define FC_PROBE_TAG 4343

typedef struct fc_probe {
    int rank, size;
    char host[256];
    int bytes;
    double timeout_s;
    unsigned char *sendbuf, *recvbuf;   /* recvbuf: size slots of bytes */
    MPI_Request *reqs;                  /* size receives, then size sends */
    int *state;                         /* per request: 0 pending, 1 done, 2 failed */
} fc_probe_t;

/* Byte i of rank src's message: computable by the receiver alone. */
static unsigned char fc_probe_byte(int src, int i)
{
    return (unsigned char)(((uint32_t)src * 2654435761u + (uint32_t)i * 40503u) >> 7);
}

static int fc_probe_parse(int argc, char **argv, fc_probe_t *p)
{
    p->bytes = 4096;
    p->timeout_s = 5.0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc)
            p->timeout_s = atof(argv[++i]);
        else if (strcmp(argv[i], "--bytes") == 0 && i + 1 < argc)
            p->bytes = atoi(argv[++i]);
        else {
            fprintf(stderr, "probe: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    if (p->timeout_s <= 0 || p->bytes < 1 || p->bytes > (1 << 24)) {
        fprintf(stderr, "probe: --timeout must be > 0 and --bytes 1 to 16 MiB\n");
        return 2;
    }
    return 0;
}

static int fc_probe_post(fc_probe_t *p)
{
    int n = p->size;

    p->reqs = fc_xcalloc(2 * (size_t)n, sizeof(MPI_Request), "the probe's requests");
    p->state = fc_xcalloc(2 * (size_t)n, sizeof(int), "the probe's request states");
    /* the messages are sized by --bytes (the command line's): a failure
     * is said with that size, not the out-of-memory policy (fc_alloc.h) */
    p->sendbuf = malloc((size_t)p->bytes);
    p->recvbuf = malloc((size_t)p->bytes * (size_t)n);
    if (!p->sendbuf || !p->recvbuf) {
        fprintf(stderr, "probe: %s rank %d: out of memory for %d-byte messages from %d "
                "ranks\n", p->host, p->rank, p->bytes, n);
        return 1;
    }
    for (int i = 0; i < p->bytes; ++i)
        p->sendbuf[i] = fc_probe_byte(p->rank, i);
    for (int r = 0; r < n; ++r) {
        p->reqs[r] = p->reqs[n + r] = MPI_REQUEST_NULL;
        if (r == p->rank) {
            p->state[r] = p->state[n + r] = 1;
            continue;
        }
        if (MPI_Irecv(p->recvbuf + (size_t)r * p->bytes, p->bytes, MPI_BYTE, r,
                      FC_PROBE_TAG, MPI_COMM_WORLD, &p->reqs[r]) != MPI_SUCCESS)
            p->state[r] = 2;
        if (MPI_Isend(p->sendbuf, p->bytes, MPI_BYTE, r, FC_PROBE_TAG, MPI_COMM_WORLD,
                      &p->reqs[n + r]) != MPI_SUCCESS)
            p->state[n + r] = 2;
    }
    return 0;
}

/* Test every pending request until all are done or the deadline passes;
 * returns how many are still pending. */
static int fc_probe_wait(fc_probe_t *p)
{
    double deadline = MPI_Wtime() + p->timeout_s;
    int pending;

    do {
        pending = 0;
        for (int k = 0; k < 2 * p->size; ++k) {
            int flag = 0;

            if (p->state[k] != 0)
                continue;
            if (MPI_Test(&p->reqs[k], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
                p->state[k] = 2;
            else if (flag)
                p->state[k] = 1;
            else
                ++pending;
        }
        if (pending)
            usleep(1000);
    } while (pending && MPI_Wtime() < deadline);
    return pending;
}

/* Did rank r's message arrive intact? */
static int fc_probe_intact(const fc_probe_t *p, int r)
{
    const unsigned char *got = p->recvbuf + (size_t)r * p->bytes;

    for (int i = 0; i < p->bytes; ++i)
        if (got[i] != fc_probe_byte(r, i))
            return 0;
    return 1;
}

/* "name":[ranks]: kind 0 heard intact, 1 heard wrong, 2 took our message */
static void fc_probe_list(const fc_probe_t *p, const char *name, int kind)
{
    int first = 1;

    printf(",\"%s\":[", name);
    for (int r = 0; r < p->size; ++r) {
        int in = r != p->rank && p->state[(kind == 2 ? p->size : 0) + r] == 1;

        if (in && kind != 2)
            in = fc_probe_intact(p, r) == (kind == 0);
        if (in) {
            printf("%s%d", first ? "" : ",", r);
            first = 0;
        }
    }
    printf("]");
}

/* Out of memory or a broken invariant ends this rank at once, as a failed
 * post does: never MPI_Finalize, which could wait for a missing peer. */
static void fc_probe_die(void)
{
    _exit(1);
}

int main(int argc, char **argv)
{
    fc_probe_t p;
    double t0;
    int pending;

    memset(&p, 0, sizeof(p));
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &p.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p.size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (gethostname(p.host, sizeof(p.host) - 1) != 0)
        snprintf(p.host, sizeof(p.host), "unknown-host");
    fc_log_set_identity(p.host, p.rank);
    fc_alloc_set_die(fc_probe_die);
    if (fc_probe_parse(argc, argv, &p) != 0) {
        MPI_Finalize();
        return 2;
    }
    t0 = MPI_Wtime();
    if (fc_probe_post(&p) != 0)
        _exit(1);
    pending = fc_probe_wait(&p);
    printf("FABCERT-PROBE {\"rank\":%d,\"host\":\"%s\"", p.rank, p.host);
    fc_probe_list(&p, "heard", 0);
    fc_probe_list(&p, "wrong", 1);
    fc_probe_list(&p, "sent", 2);
    printf(",\"seconds\":%.3f}\n", MPI_Wtime() - t0);
    fflush(stdout);
    if (pending)
        _exit(3);       /* MPI_Finalize could wait for the missing peer */
    MPI_Finalize();
    return 0;
}
