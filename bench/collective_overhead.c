/*
 * collective_overhead.c - benchmark (prints figures, asserts nothing): does
 * checking leak into the timed region? For every collective of the set at
 * 64 KiB, 1, 4, 16, 64 and 256 MiB, the engine's checked point (per
 * iteration: barrier, one call, the slowest rank's median) against a bare
 * loop of the engine's own calls (barrier, the call, timed; same buffers,
 * inputs and roots, nothing in between), interleaved round by round in one
 * run so the machine's noise hits both alike, the engine first in even rounds
 * and the bare loop first in odd ones so that an order effect cancels.
 * Prints the median over rounds of each, the median ratio checked/bare
 * with its spread (the middle half of the rounds, p25-p75, and min-max),
 * and the engine's per-iteration and batched busbw side by side (medians
 * over rounds, the batched one with its spread); where a point has no
 * batched figure, the engine's reason (fc_engine_batch_none). Target:
 * ratio <= 1.03 at every size.
 *
 * A round's ratio on this 2-vCPU VM spreads about +-10% around its row's
 * (both loops alike), so 5 rounds leave the median about +-4%: a row at
 * 1.00 lands above 1.03 about one time in four. Each row therefore runs
 * at least `rounds` rounds and then more, in pairs (so each loop goes
 * first equally often), while the row has used less than budget_s
 * seconds, up to 64: small sizes get 64 rounds, 256 MiB the minimum.
 *
 *   mpirun -np 2 build/bench/collective_overhead [rounds] [iters] [max_mib]
 *                [collective,...|all] [min_mib] [reserve_mib] [budget_s]
 * e.g. only all_reduce at 16 MiB, 7 rounds: ... 7 20 16 all_reduce 16
 * reserve_mib: reserve the buffers of a stage whose largest point is that
 * size before the first row (0: grown as the rows run, as a stage does);
 * budget_s: seconds a row may take for its extra rounds (default 5; 0:
 * exactly `rounds`).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fc_engine.h"
#include "fc_log.h"
#include "fc_stats.h"

/* The bare loop: what an application's loop does, barrier + the MPI call,
 * iters times, nothing in between but what the call itself needs: the
 * engine's own calls (fc_engine_call on the engine's fc_point_rank_t: its
 * buffers, its two input sets one after the other, its root rotation, a
 * reduce's non-root recv apart from the root's, a broadcast's root
 * sending its input set where it is), and for an in-place call its input
 * staged into recv first as the engine stages it (an in-place call
 * without fresh input reduces its own output); none of the backend's work
 * after the call that only the check needs (fc_backend_mpi_run_bare: no
 * move of an in-place reduce_scatter's result), so that whatever the
 * checking leaves for the next timed call shows; the slowest rank's
 * median. The inputs are prepared as the engine prepares them. */
static double fc_bare_median(fc_backend_t *be, const fc_test_point_t *pt,
                             fc_engine_bufs_t *bufs)
{
    double *times = calloc((size_t)pt->iters, sizeof(double));
    double *slowest = calloc((size_t)pt->iters, sizeof(double));
    fc_point_rank_t pr;
    fc_time_stats_t st;

    /* the engine's run of this point reserved the buffers */
    fc_engine_point_rank_init(be, pt, &pr);
    fc_point_rank_prepare(&pr, pt->op, pt->seed, bufs->send, bufs->recv);
    for (int it = -pt->warmup; it < pt->iters; ++it) {
        int k = it + pt->warmup;
        fc_coll_call_t call;
        double s = 0;

        fc_engine_call(pt, &pr, k, &call);
        fc_point_rank_stage(&pr, call.recv, k & 1, call.root);
        fc_backend_mpi_run_bare(be, &call, &s);
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

/* median, min and max of v[0..n) (sorts v) */
static void fc_spread(double *v, int n, double *lo, double *hi, double *med)
{
    *med = fc_median(v, n);
    *lo = v[0];
    *hi = v[n - 1];
}

static int fc_wanted(const char *list, const char *name)
{
    char key[64], all[512];

    if (list == NULL || strcmp(list, "all") == 0)
        return 1;
    snprintf(all, sizeof(all), ",%s,", list);
    snprintf(key, sizeof(key), ",%s,", name);
    return strstr(all, key) != NULL;
}

#define FC_MAX_ROUNDS 64

/* p25 and p75 of v[0..n), sorted (the nearest rank) */
static void fc_quartiles(const double *v, int n, double *q1, double *q3)
{
    *q1 = v[(n - 1) / 4];
    *q3 = v[(3 * (n - 1) + 3) / 4];
}

static const uint64_t fc_sizes[] = { 64u << 10, 1u << 20, 4u << 20, 16u << 20, 64u << 20,
                                     256u << 20 };

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 3, iters = argc > 2 ? atoi(argv[2]) : 20;
    uint64_t max_bytes = (uint64_t)(argc > 3 ? atoi(argv[3]) : 256) << 20;
    const char *colls = argc > 4 ? argv[4] : "all";
    uint64_t min_bytes = (uint64_t)(argc > 5 ? atof(argv[5]) * 1048576.0 : 0);
    uint64_t reserve_bytes = (uint64_t)(argc > 6 ? atof(argv[6]) * 1048576.0 : 0);
    double budget_s = argc > 7 ? atof(argv[7]) : 5.0;
    int rank, size, rows = 0, met = 0;
    char host[FC_HOST_MAX] = "";
    fc_backend_t be;
    fc_engine_bufs_t bufs;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    gethostname(host, sizeof(host) - 1);
    fc_log_set_identity(host, rank);
    if (rounds < 1 || rounds > FC_MAX_ROUNDS || iters < 2 || budget_s < 0) {
        if (rank == 0)
            fprintf(stderr, "usage: collective_overhead [1 <= rounds <= %d] [iters >= 2] "
                    "[max_mib] [collective,... | all] [min_mib] [reserve_mib] "
                    "[budget_s >= 0]\n", FC_MAX_ROUNDS);
        MPI_Finalize();
        return 2;
    }
    fc_backend_mpi_init(MPI_COMM_WORLD, &be);
    fc_engine_bufs_init(&bufs);
    if (reserve_bytes > 0) {
        /* the buffers of a stage whose largest point is reserve_bytes */
        fc_test_point_t big = { FC_COLL_ALL_GATHER, FC_FLOAT32, FC_OP_NONE, reserve_bytes, 0, 2, 11, 1 };
        fc_engine_ident_t ident = { rank, host, 1 };
        fc_point_summary_t s;

        fc_engine_run_point(&be, &big, NULL, &ident, &bufs, &s);
    }
    if (rank == 0)
        printf("# checked point / bare loop of the same call, float32 (sum), %d ranks, "
               "%d iterations, %d or more interleaved rounds (up to %d, in pairs, while a row "
               "has used under %.0f s; the engine first in even rounds, the bare loop first "
               "in odd ones); medians over rounds, the ratio's spread p25-p75 and min-max; "
               "target ratio <= 1.03\n"
               "%-24s %10s %11s %11s %7s %13s %13s %6s %9s %9s %15s\n", size, iters, rounds,
               FC_MAX_ROUNDS, budget_s, "collective", "bytes", "checked_us", "bare_us", "ratio",
               "(p25-p75)", "(min-max)", "rounds", "busbw", "batched", "(min-max)");
    for (int c = 0; c < FC_COLL_COUNT; ++c) {
        const fc_coll_desc_t *d = fc_coll_desc((fc_coll_id_t)c);
        const char *none = NULL;

        if (!fc_wanted(colls, d->name))
            continue;
        for (size_t z = 0; z < sizeof(fc_sizes) / sizeof(fc_sizes[0]); ++z) {
            uint64_t bytes = fc_sizes[z];
            fc_test_point_t pt = { (fc_coll_id_t)c, FC_FLOAT32, d->reduces ? FC_OP_SUM : FC_OP_NONE,
                                   bytes, 2, bytes >= (64u << 20) ? iters / 2 : iters, 11, 1 };
            double checked[FC_MAX_ROUNDS], bare[FC_MAX_ROUNDS], ratio[FC_MAX_ROUNDS],
                busbw[FC_MAX_ROUNDS], batched[FC_MAX_ROUNDS], t0;
            int nr = 0, nb = 0, wrong = 0, more = 1;

            if (bytes < min_bytes || bytes > max_bytes)
                continue;
            if (pt.iters < 2)
                pt.iters = 2;
            none = fc_engine_batch_none(&be, &pt);
            t0 = MPI_Wtime();
            for (int r = 0; r < FC_MAX_ROUNDS && more; ++r) {
                fc_engine_ident_t ident = { rank, host, 1 };
                fc_point_summary_t s;

                memset(&s, 0, sizeof(s));
                /* alternate which goes first, so that an order effect
                 * (caches, the other's allocations) cancels over rounds */
                if (r % 2 == 1)
                    bare[r] = fc_bare_median(&be, &pt, &bufs);
                fc_engine_run_point(&be, &pt, NULL, &ident, &bufs, &s);
                if (r % 2 == 0)
                    bare[r] = fc_bare_median(&be, &pt, &bufs);
                MPI_Bcast(&s, sizeof(s), MPI_BYTE, 0, MPI_COMM_WORLD);
                checked[r] = s.time.median;
                ratio[r] = checked[r] / bare[r];
                busbw[r] = s.busbw;
                if (s.batch_busbw >= 0)
                    batched[nb++] = s.batch_busbw;
                wrong |= s.wrong != 0 || s.status != FC_OK;
                nr = r + 1;
                /* rank 0's clock decides for all, after an even count */
                more = nr < rounds || (nr % 2 == 1 && nr < FC_MAX_ROUNDS) ||
                       (MPI_Wtime() - t0 < budget_s && nr + 2 <= FC_MAX_ROUNDS);
                MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD);
            }
            if (rank == 0) {
                double lo, hi, med, q1, q3, bw, blo, bhi, bmed;
                char rspread[40], quart[40], bat[24] = "n/a", bspread[40] = "";

                fc_spread(ratio, nr, &lo, &hi, &med);
                fc_quartiles(ratio, nr, &q1, &q3);
                snprintf(rspread, sizeof(rspread), "(%.3f-%.3f)", lo, hi);
                snprintf(quart, sizeof(quart), "(%.3f-%.3f)", q1, q3);
                fc_spread(busbw, nr, &blo, &bhi, &bw);
                if (nb > 0) {
                    fc_spread(batched, nb, &blo, &bhi, &bmed);
                    snprintf(bat, sizeof(bat), "%.3f", bmed);
                    snprintf(bspread, sizeof(bspread), "(%.3f-%.3f)", blo, bhi);
                }
                ++rows;
                met += med <= 1.03;
                printf("%-24s %10llu %11.1f %11.1f %7.3f %13s %13s %6d %9.3f %9s %15s%s\n",
                       d->name, (unsigned long long)bytes, fc_median(checked, nr) * 1e6,
                       fc_median(bare, nr) * 1e6, med, quart, rspread, nr, bw, bat, bspread,
                       wrong ? "  WRONG ELEMENTS OR A FAILED RUN" : "");
            }
        }
        if (rank == 0 && none != NULL)
            printf("#   %s: no batched figure: %s\n", d->name, none);
    }
    if (rank == 0)
        printf("# %d of %d rows at or below 1.03\n", met, rows);
    fc_engine_bufs_free(&be, &bufs);
    be.ops->fini_func(&be);
    MPI_Finalize();
    return 0;
}
