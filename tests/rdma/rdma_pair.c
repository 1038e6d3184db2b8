/*
 * rdma_pair.c - the verbs transport on real devices, through its ops table
 * alone (fc_nic_transport_verbs), for tests/rdma/run-rdma-checks: two MPI
 * ranks (one node: loopback through the NIC, or two nodes), one NIC each.
 *
 *     mpirun -np 2 build/tests/rdma_pair --nic mlx5_0[,mlx5_1] \
 *         [--sizes 4KiB,1MiB,64MiB] [--iters 20] [--lat-iters 1000] [--timeout 10]
 *
 * For each size and each direction, --iters RDMA writes: before each, the
 * sender fills its buffer with a pattern of its own for that size,
 * direction and iteration and the receiver poisons its own (0xA5), so a
 * transfer that did not happen cannot pass; after each, the receiver
 * checks every byte. The time of a transfer is the receiver's call (its
 * credit to the sender, the data, the immediate), the two ranks having met
 * at a barrier after filling and poisoning; the figure is the median's
 * bandwidth, in Gb/s beside the port's rate. Then the latency: pingpongs
 * of 8 B and 4 KiB, half the median round trip. TAP from rank 0: a point
 * per connection, size and direction, and latency; a rank whose NIC has
 * no usable RDMA port makes the whole run a TAP skip ("1..0 # SKIP" and
 * its reason, exit 0); bad usage exits 2; a transport error, a timeout or
 * a wrong byte is "not ok" naming the rank, the offset, the device.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "fc_counters.h"
#include "fc_log.h"
#include "fc_nic_transport.h"
#include "fc_nic_verbs.h"
#include "fc_profile.h"
#include "fc_rdma_sysfs.h"
#include "fc_tap.h"

#define MAX_SIZES 16

typedef struct rank_state {     /* what each rank tells the other */
    int32_t status;
    int32_t mismatched;         /* transfers with a wrong byte */
    int64_t first_bad;          /* the first wrong byte's offset, or -1 */
    double median_s, best_s;    /* the receiver's time per transfer */
    char host[64];
    char why[FC_NIC_WHY_MAX];
} rank_state_t;

typedef struct opts {
    char nic[2][64];
    uint64_t sizes[MAX_SIZES];
    int nsizes, iters, lat_iters;
    double timeout;
} opts_t;

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static void fill(unsigned char *buf, uint64_t bytes, uint64_t seed)
{
    uint64_t i, w;

    for (i = 0; i + 8 <= bytes; i += 8) {
        w = mix(seed ^ i);
        memcpy(buf + i, &w, 8);
    }
    w = mix(seed ^ i);
    memcpy(buf + i, &w, bytes - i);
}

/* The offset of the first byte that is not the pattern, or -1. */
static int64_t check(const unsigned char *buf, uint64_t bytes, uint64_t seed)
{
    unsigned char tail[8];
    uint64_t i, w;

    for (i = 0; i + 8 <= bytes; i += 8) {
        w = mix(seed ^ i);
        if (memcmp(buf + i, &w, 8) != 0)
            break;
    }
    w = mix(seed ^ i);
    memcpy(tail, &w, 8);
    for (; i < bytes; ++i)
        if (buf[i] != tail[i % 8])
            return (int64_t)i;
    return -1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* Both ranks' states, into all[2]; returns the worse status. */
static fc_status_t share(rank_state_t *mine, rank_state_t *all)
{
    gethostname(mine->host, sizeof(mine->host) - 1);
    MPI_Allgather(mine, sizeof(*mine), MPI_BYTE, all, sizeof(*mine), MPI_BYTE, MPI_COMM_WORLD);
    return fc_status_worst((fc_status_t)all[0].status, (fc_status_t)all[1].status);
}

static int usage(int rank, const char *msg)
{
    if (rank == 0)
        fprintf(stderr, "rdma_pair: %s\nusage: mpirun -np 2 rdma_pair --nic NIC[,NIC_OF_RANK_1] "
                "[--sizes 4KiB,1MiB,64MiB] [--iters N] [--lat-iters N] [--timeout S]\n", msg);
    MPI_Finalize();
    return FC_EXIT_USAGE;
}

static int parse(int argc, char **argv, int rank, opts_t *o)
{
    memset(o, 0, sizeof(*o));
    o->iters = 20;
    o->lat_iters = 1000;
    o->timeout = 10;
    fc_parse_size_list("sizes", "4KiB,1MiB,64MiB", MAX_SIZES, o->sizes, &o->nsizes);
    for (int i = 1; i < argc; ++i) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end;

        if (v == NULL)
            return -1;
        if (strcmp(argv[i], "--nic") == 0) {
            const char *comma = strchr(v, ',');

            snprintf(o->nic[0], sizeof(o->nic[0]), "%.*s",
                     comma ? (int)(comma - v) : (int)strlen(v), v);
            snprintf(o->nic[1], sizeof(o->nic[1]), "%s", comma ? comma + 1 : v);
        } else if (strcmp(argv[i], "--sizes") == 0) {
            if (fc_parse_size_list("sizes", v, MAX_SIZES, o->sizes, &o->nsizes) != FC_OK)
                return -1;
        } else if (strcmp(argv[i], "--iters") == 0) {
            if ((o->iters = (int)strtol(v, &end, 10)) < 1 || *end)
                return -1;
        } else if (strcmp(argv[i], "--lat-iters") == 0) {
            if ((o->lat_iters = (int)strtol(v, &end, 10)) < 1 || *end)
                return -1;
        } else if (strcmp(argv[i], "--timeout") == 0) {
            if ((o->timeout = strtod(v, &end)) <= 0 || *end)
                return -1;
        } else {
            return -1;
        }
        ++i;
    }
    return o->nic[0][0] && o->nic[1][0] ? 0 : -1;
}

/* --iters writes of `bytes` from rank `sender`; the outcome in all[2]. */
static fc_status_t writes(const fc_nic_transport_t *t, fc_nic_ep_t *ep, unsigned char *buf,
                          const opts_t *o, uint64_t bytes, int sender, int rank,
                          rank_state_t *all)
{
    rank_state_t mine;
    double *times = calloc((size_t)o->iters, sizeof(double));
    int n = 0;

    memset(&mine, 0, sizeof(mine));
    mine.first_bad = -1;
    for (int it = 0; it < o->iters; ++it) {
        uint64_t seed = mix(bytes * 131 + (uint64_t)sender * 7 + (uint64_t)it);
        int worst = mine.status;
        double t0;
        int64_t bad;

        if (rank == sender)
            fill(buf, bytes, seed);
        else
            memset(buf, 0xA5, bytes);
        /* the barrier before the timed call, and both stop at one iteration */
        MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (worst != FC_OK)
            break;
        t0 = MPI_Wtime();
        mine.status = t->transfer(ep, rank == sender, bytes, t0 + o->timeout, mine.why,
                                  sizeof(mine.why));
        if (mine.status != FC_OK || rank == sender)
            continue;
        times[n++] = MPI_Wtime() - t0;
        if ((bad = check(buf, bytes, seed)) >= 0 && mine.mismatched++ == 0) {
            mine.first_bad = bad;
            snprintf(mine.why, sizeof(mine.why), "iteration %d: byte %lld of %llu is 0x%02x, "
                     "the pattern has 0x%02x there", it, (long long)bad,
                     (unsigned long long)bytes, buf[bad], (unsigned)(mix(seed ^ (uint64_t)(bad
                     & ~7LL)) >> (8 * (bad & 7))) & 0xff);
        }
    }
    if (n > 0) {
        qsort(times, (size_t)n, sizeof(double), cmp_double);
        mine.median_s = times[n / 2];
        mine.best_s = times[0];
    }
    free(times);
    return share(&mine, all);
}

int main(int argc, char **argv)
{
    const fc_nic_transport_t *t = &fc_nic_transport_verbs;
    rank_state_t mine, all[2];
    fc_nic_ep_t *ep = NULL;
    unsigned char *buf = NULL;
    uint64_t maxb = 4096, lat_sizes[2] = {8, 4096};
    char desc[512];
    int rank, nranks, rc;
    fc_tap_t tap;
    fc_rdma_port_t port;
    opts_t o;
    fc_status_t st;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    memset(&mine, 0, sizeof(mine));
    gethostname(mine.host, sizeof(mine.host) - 1);
    fc_log_set_identity(mine.host, rank);
    if (parse(argc, argv, rank, &o) != 0)
        return usage(rank, "bad or missing option");
    if (nranks != 2)
        return usage(rank, "needs exactly 2 ranks");
    fc_tap_init(&tap, stdout, rank == 0);

    /* each rank's NIC: usable, or the whole run is a skip with the reason */
    mine.status = t->available(o.nic[rank], mine.why, sizeof(mine.why));
    if ((st = share(&mine, all)) == FC_OK) {
        for (int i = 0; i < o.nsizes; ++i)
            maxb = o.sizes[i] > maxb ? o.sizes[i] : maxb;
        if (posix_memalign((void **)&buf, 4096, maxb) != 0) {
            fprintf(stderr, "rdma_pair: rank %d: cannot allocate %llu bytes\n", rank,
                    (unsigned long long)maxb);
            MPI_Abort(MPI_COMM_WORLD, FC_EXIT_FAIL);
        }
        mine.status = t->connect(o.nic[rank], MPI_COMM_WORLD, 1 - rank, buf, maxb,
                                 MPI_Wtime() + o.timeout, &ep, mine.why, sizeof(mine.why));
        st = share(&mine, all);
    }
    if (st != FC_OK) {
        int r = all[0].status != FC_OK ? 0 : 1;

        if (rank == 0 && st == FC_ERR_SKIP && all[0].status != FC_OK && all[1].status != FC_OK)
            printf("1..0 # SKIP rank 0 on %s, NIC %s: %s; rank 1 on %s, NIC %s: %s\n",
                   all[0].host, o.nic[0], all[0].why, all[1].host, o.nic[1], all[1].why);
        else if (rank == 0 && st == FC_ERR_SKIP)
            printf("1..0 # SKIP rank %d on %s, NIC %s: %s\n", r, all[r].host, o.nic[r],
                   all[r].why);
        else if (rank == 0)
            printf("TAP version 13\n1..1\nnot ok 1 - verbs connect, rank %d on %s, NIC %s: %s\n",
                   r, all[r].host, o.nic[r], all[r].why);
        free(buf);
        MPI_Finalize();
        return st == FC_ERR_SKIP ? FC_EXIT_PASS : fc_status_exit_code(st);
    }

    fc_tap_plan(&tap, 1 + 2 * o.nsizes + 2);
    fc_tap_ok(&tap, 1, "verbs connect: %s", fc_nic_verbs_describe(ep, desc, sizeof(desc)));
    memset(&port, 0, sizeof(port));
    fc_rdma_port_find(fc_sysfs_root(), o.nic[0], &port, mine.why, sizeof(mine.why));
    for (int i = 0; i < o.nsizes && st == FC_OK; ++i)
        for (int sender = 0; sender < 2 && st == FC_OK; ++sender) {
            int recv = 1 - sender;
            char sz[32];
            double gbps;

            fc_format_size(o.sizes[i], sz, sizeof(sz));
            st = writes(t, ep, buf, &o, o.sizes[i], sender, rank, all);
            gbps = all[recv].median_s > 0 ? o.sizes[i] * 8.0 / all[recv].median_s / 1e9 : 0;
            if (st != FC_OK) {
                int r = all[0].status != FC_OK ? 0 : 1;

                fc_tap_ok(&tap, 0, "RDMA write %s rank %d -> %d: rank %d: %s", sz, sender, recv,
                          r, all[r].why);
            } else {
                fc_tap_is_int(&tap, all[recv].mismatched, 0, "RDMA write %s rank %d -> %d: %d "
                              "transfer(s), %d with a wrong byte%s%s; %.2f Gb/s (median), best "
                              "%.2f Gb/s%s%s", sz, sender, recv, o.iters, all[recv].mismatched,
                              all[recv].mismatched ? ": " : "",
                              all[recv].mismatched ? all[recv].why : "", gbps,
                              all[recv].best_s > 0 ? o.sizes[i] * 8.0 / all[recv].best_s / 1e9 : 0,
                              port.rate_text[0] ? " of the port's " : "", port.rate_text);
                fc_tap_yaml_begin(&tap);
                fc_tap_yaml_line(&tap, "bytes: %llu", (unsigned long long)o.sizes[i]);
                fc_tap_yaml_line(&tap, "gbps_median: %.3f", gbps);
                fc_tap_yaml_line(&tap, "us_median: %.2f", all[recv].median_s * 1e6);
                fc_tap_yaml_line(&tap, "us_best: %.2f", all[recv].best_s * 1e6);
                fc_tap_yaml_line(&tap, "port_gbps: %.1f", port.rate_gbps);
                fc_tap_yaml_end(&tap);
            }
        }
    for (int l = 0; l < 2; ++l) {
        int n = o.lat_iters + 10;
        double *times = calloc((size_t)n, sizeof(double));

        memset(&mine, 0, sizeof(mine));
        for (int it = 0; it < n && st == FC_OK && mine.status == FC_OK; ++it) {
            double t0 = MPI_Wtime();

            mine.status = t->pingpong(ep, rank == 0, lat_sizes[l], t0 + o.timeout, mine.why,
                                      sizeof(mine.why));
            times[it] = MPI_Wtime() - t0;
        }
        if (st == FC_OK && mine.status == FC_OK) {
            qsort(times + 10, (size_t)o.lat_iters, sizeof(double), cmp_double);
            mine.median_s = times[10 + o.lat_iters / 2] / 2;
            mine.best_s = times[10] / 2;
        }
        free(times);
        if (st != FC_OK) {
            fc_tap_skip(&tap, "an earlier transfer failed", "latency %llu B",
                        (unsigned long long)lat_sizes[l]);
            continue;
        }
        st = share(&mine, all);
        fc_tap_is_int(&tap, st, FC_OK, "latency %llu B (send/recv, half the round trip): %.2f us "
                      "median, %.2f us best, %d round trips%s%s", (unsigned long long)lat_sizes[l],
                      all[0].median_s * 1e6, all[0].best_s * 1e6, o.lat_iters, st ? ": " : "",
                      st ? all[all[0].status ? 0 : 1].why : "");
    }
    t->close(ep);
    free(buf);
    rc = fc_tap_done(&tap);
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return rc ? FC_EXIT_FAIL : FC_EXIT_PASS;
}
