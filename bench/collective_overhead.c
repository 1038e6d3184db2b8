/*
 * collective_overhead.c - benchmark (prints figures, asserts nothing): does
 * checking leak into the timed region? For every collective of the set and
 * each size from 64 KiB to 256 MiB, the engine's checked point (per
 * iteration: barrier, one call, the slowest rank's median) against a bare
 * loop of the same backend call (barrier, the call, timed; same buffers
 * filled once, nothing in between), interleaved round by round in one run
 * so the machine's noise hits both alike. Prints the median over rounds of
 * each, the median ratio checked/bare with its spread (min-max over
 * rounds), and the engine's per-iteration and batched busbw side by side.
 * Target: ratio <= 1.03 at every size.
 *
 *   mpirun -np 2 build/bench/collective_overhead [rounds] [iters] [max_mib]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fc_engine.h"
#include "fc_log.h"
#include "fc_stats.h"

/* The bare loop: barrier + the backend's call, iters times, nothing in
 * between but what the call itself needs: the same buffers as the
 * engine's (its two input sets, one after the other), the same root
 * rotation, and for an in-place call its input copied into recv first
 * (an in-place call without fresh input reduces its own output), so that
 * only the checking differs; the slowest rank's median. */
static double fc_bare_median(fc_backend_t *be, const fc_test_point_t *pt,
                             const fc_engine_bufs_t *bufs, const fc_coll_counts_t *counts)
{
    const fc_coll_desc_t *d = fc_coll_desc(pt->coll);
    size_t count = counts->count;
    double *times = calloc((size_t)pt->iters, sizeof(double));
    double *slowest = calloc((size_t)pt->iters, sizeof(double));
    int rooted = d->rooted;
    fc_time_stats_t st;

    for (int it = -pt->warmup; it < pt->iters; ++it) {
        int k = it + pt->warmup;
        fc_coll_call_t call = { pt->coll, pt->dtype, pt->op, bufs->send[k & 1], bufs->recv[0],
                                count, rooted ? k % be->size : 0 };
        double s = 0;

        if (d->in_place) {
            size_t pos = 0, len = 0;

            d->stage_func(counts, be->rank, be->size, call.root, &pos, &len);
            memcpy((uint8_t *)bufs->recv[0] + pos * 4, bufs->send[k & 1], len * 4);
        }
        be->ops->run_func(be, &call, &s);
        if (it >= 0)
            times[it] = s;
    }
    MPI_Allreduce(times, slowest, pt->iters, MPI_DOUBLE, MPI_MAX, be->comm);
    fc_stats_compute(slowest, (size_t)pt->iters, &st);
    free(times);
    free(slowest);
    return st.median;
}

static int fc_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static double fc_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), fc_cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 3, iters = argc > 2 ? atoi(argv[2]) : 20;
    uint64_t max_bytes = (uint64_t)(argc > 3 ? atoi(argv[3]) : 256) << 20;
    int rank, size, rows = 0, met = 0;
    char host[FC_HOST_MAX] = "";
    fc_backend_t be;
    fc_engine_bufs_t bufs;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    gethostname(host, sizeof(host) - 1);
    fc_log_set_identity(host, rank);
    if (rounds < 1 || iters < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: collective_overhead [rounds >= 1] [iters >= 2] [max_mib]\n");
        MPI_Finalize();
        return 2;
    }
    fc_backend_mpi_init(MPI_COMM_WORLD, &be);
    fc_engine_bufs_init(&bufs);
    if (rank == 0)
        printf("# checked point / bare loop of the same call, float32 (sum), %d ranks, "
               "%d iterations, %d interleaved rounds; target ratio <= 1.03\n"
               "%-24s %10s %11s %11s %7s %15s %9s %9s\n", size, iters, rounds,
               "collective", "bytes", "checked_us", "bare_us", "ratio", "(min-max)",
               "busbw", "batched");
    for (int c = 0; c < FC_COLL_COUNT; ++c) {
        const fc_coll_desc_t *d = fc_coll_desc((fc_coll_id_t)c);

        for (uint64_t bytes = 64 << 10; bytes <= max_bytes; bytes *= bytes < (4 << 20) ? 16 : 4) {
            fc_test_point_t pt = { (fc_coll_id_t)c, FC_FLOAT32, d->reduces ? FC_OP_SUM : FC_OP_NONE,
                                   bytes, 2, bytes >= (64u << 20) ? iters / 2 : iters, 11, 1 };
            double checked[16], bare[16], ratio[16], busbw = 0, batched = 0;
            fc_coll_counts_t counts;
            int nr = rounds > 16 ? 16 : rounds;

            d->counts_func(bytes, 4, size, &counts);
            for (int r = 0; r < nr; ++r) {
                fc_engine_ident_t ident = { rank, host, 1 };
                fc_point_summary_t s;

                memset(&s, 0, sizeof(s));
                fc_engine_run_point(&be, &pt, NULL, &ident, &bufs, &s);
                /* the bare loop on the same buffers */
                bare[r] = fc_bare_median(&be, &pt, &bufs, &counts);
                MPI_Bcast(&s, sizeof(s), MPI_BYTE, 0, MPI_COMM_WORLD);
                checked[r] = s.time.median;
                ratio[r] = checked[r] / bare[r];
                busbw = s.busbw;
                batched = s.batch_busbw;
                if (s.wrong && rank == 0)
                    printf("# WRONG ELEMENTS in %s %llu\n", d->name, (unsigned long long)bytes);
            }
            if (rank == 0) {
                double rmin = 1e300, rmax = 0, rmed;

                for (int r = 0; r < nr; ++r) {
                    rmin = ratio[r] < rmin ? ratio[r] : rmin;
                    rmax = ratio[r] > rmax ? ratio[r] : rmax;
                }
                rmed = fc_median(ratio, nr);
                ++rows;
                met += rmed <= 1.03;
                char bat[32] = "n/a";   /* in place: a batch cannot re-stage */

                if (batched >= 0)
                    snprintf(bat, sizeof(bat), "%.3f", batched);
                printf("%-24s %10llu %11.1f %11.1f %7.3f   (%.3f-%.3f) %9.3f %9s\n", d->name,
                       (unsigned long long)bytes, fc_median(checked, nr) * 1e6,
                       fc_median(bare, nr) * 1e6, rmed, rmin, rmax, busbw, bat);
            }
        }
    }
    if (rank == 0)
        printf("# %d of %d rows at or below 1.03\n", met, rows);
    fc_engine_bufs_free(&be, &bufs);
    be.ops->fini_func(&be);
    MPI_Finalize();
    return 0;
}
