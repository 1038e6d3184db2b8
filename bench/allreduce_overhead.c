/*
 * allreduce_overhead.c - benchmark (prints figures, asserts nothing): does
 * checking leak into the timed region? For each size, the engine's
 * all_reduce (poison, barrier, timed call, digest or element-wise check)
 * against a bare loop of barrier + timed MPI_Allreduce with the same size,
 * type and iteration count, interleaved in the same run. Prints both
 * median times and their ratio (target: within 3% from 1 MiB up).
 *
 *   mpirun -np 4 build/bench/allreduce_overhead [iters]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fc_engine.h"
#include "fc_log.h"

static double bare_median(MPI_Comm comm, uint64_t bytes, int iters)
{
    size_t n = bytes / 4;
    float *in = calloc(n, 4), *out = calloc(n, 4);
    double *times = calloc((size_t)iters, sizeof(double));
    double *slowest = calloc((size_t)iters, sizeof(double));
    fc_time_stats_t st;
    int rank;

    MPI_Comm_rank(comm, &rank);
    /* real pages, not the shared zero page that calloc maps */
    for (size_t k = 0; k < n; ++k)
        in[k] = (float)(k & 0xFF);
    memset(out, 0xA5, n * 4);
    for (int it = -2; it < iters; ++it) {
        double t0;

        MPI_Barrier(comm);
        t0 = MPI_Wtime();
        MPI_Allreduce(in, out, (int)n, MPI_FLOAT, MPI_SUM, comm);
        if (it >= 0)
            times[it] = MPI_Wtime() - t0;
    }
    MPI_Allreduce(times, slowest, iters, MPI_DOUBLE, MPI_MAX, comm);
    fc_stats_compute(slowest, (size_t)iters, &st);
    free(in);
    free(out);
    free(times);
    free(slowest);
    return st.median;
}

int main(int argc, char **argv)
{
    static const uint64_t sizes[] = { 64 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20 };
    int iters = argc > 1 ? atoi(argv[1]) : 20;
    int rank, size;
    char host[FC_HOST_MAX] = "";
    fc_backend_t be;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    gethostname(host, sizeof(host) - 1);
    fc_log_set_identity(host, rank);
    fc_backend_mpi_init(MPI_COMM_WORLD, &be);
    if (rank == 0)
        printf("# all_reduce float32 sum, %d ranks, %d iterations: engine (checked) vs bare MPI loop\n"
               "%10s %14s %14s %8s\n", size, iters, "bytes", "engine_us", "bare_us", "ratio");
    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); ++z) {
        fc_engine_ident_t ident = { rank, host, 1 };
        fc_test_point_t pt = { FC_COLL_ALL_REDUCE, FC_FLOAT32, FC_OP_SUM,
                               sizes[z], 2, iters, 11 };
        fc_point_summary_t s;
        double bare_a, bare_b, engine;

        bare_a = bare_median(MPI_COMM_WORLD, sizes[z], iters);
        fc_engine_run_point(&be, &pt, NULL, &ident, &s);
        bare_b = bare_median(MPI_COMM_WORLD, sizes[z], iters);
        engine = s.time.median;
        MPI_Bcast(&engine, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (rank == 0)
            printf("%10llu %14.1f %14.1f %8.3f%s\n", (unsigned long long)sizes[z],
                   engine * 1e6, 0.5 * (bare_a + bare_b) * 1e6,
                   engine / (0.5 * (bare_a + bare_b)),
                   s.wrong ? "  (WRONG ELEMENTS)" : "");
    }
    be.ops->fini_func(&be);
    MPI_Finalize();
    return 0;
}
