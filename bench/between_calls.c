/*
 * between_calls.c - benchmark (prints figures, asserts nothing): what does
 * each piece of the work between two calls cost the next call? One point
 * (collective, size) is run on the engine's own calls (fc_engine_call,
 * fc_point_rank_stage, fc_backend_mpi_run_bare, as collective_overhead's
 * bare loop), with one of these between each call and the next:
 *   bare    nothing
 *   check   the engine's check of the output (fc_point_rank_check)
 *   spin    a busy wait as long as a digest of the output
 *   other   a digest of a buffer of the output's size no call touches
 *   own     a digest of half the output only: rank 0 the first half, rank
 *           1 the second (2 ranks: where Open MPI's ring all_reduce has
 *           each rank reduce its block)
 *   peers   a digest of the other half only
 * The variants are interleaved in blocks of 5 calls (the first of each
 * block, which follows another variant's work, is dropped), the block
 * order rotated cycle by cycle. A call's time is the slowest rank's, and
 * it is kept only where neither rank was switched out (getrusage's
 * context switches) from the start of its iteration to the end of the
 * call, so that a busy machine's descheduling drops samples instead of
 * skewing them. Prints each variant's median time and its ratio to bare,
 * the median over ten slices of the cycles (min-max over the slices).
 * docs/DECISIONS.md (checking at memory speed) says what it found.
 *
 *   mpirun -np 2 build/bench/between_calls COLLECTIVE MIB [cycles] [variants]
 * e.g. ... between_calls all_reduce 1 300 bare,check,spin,other,own,peers
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "fc_engine.h"
#include "fc_kernels.h"
#include "fc_log.h"
#include "fc_point_rank.h"

#define FC_NV 6
#define FC_BLOCK 5
#define FC_SLICES 10

static const char *const fc_vnames[FC_NV] = { "bare", "check", "spin", "other", "own", "peers" };
static volatile uint64_t fc_sink;

static long fc_switches(void)
{
    struct rusage u;

    getrusage(RUSAGE_THREAD, &u);
    return u.ru_nvcsw + u.ru_nivcsw;
}

static int fc_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static double fc_median(double *v, int n)
{
    if (n == 0)
        return 0;
    qsort(v, (size_t)n, sizeof(*v), fc_cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The work of variant v after the call (set, root) on this rank. */
static void fc_between(int v, fc_point_rank_t *pr, const fc_coll_call_t *call, int set,
                       const void *other, double digest_s)
{
    size_t rb = fc_point_rank_recv_bytes(pr), half = rb / 2;
    const uint8_t *out = call->recv;
    fc_mismatch_t m = { 0, 0, 0, 0 };
    uint64_t d;
    double end;

    switch (v) {
    case 1:
        fc_point_rank_check(pr, call->recv, set, call->root, &d, &m);
        if (m.wrong)
            fc_error("%llu wrong elements", (unsigned long long)m.wrong);
        break;
    case 2:
        end = MPI_Wtime() + digest_s;
        while (MPI_Wtime() < end)
            ;
        break;
    case 3: fc_sink += fc_cpu_digest(other, rb); break;
    case 4: fc_sink += fc_cpu_digest(pr->rank % 2 ? out + half : out, half); break;
    case 5: fc_sink += fc_cpu_digest(pr->rank % 2 ? out : out + half, half); break;
    default: break;
    }
}

static int fc_parse(const char *list, int *vs)
{
    char buf[256], *save = NULL;
    int n = 0;

    snprintf(buf, sizeof(buf), "%s", list);
    for (char *t = strtok_r(buf, ",", &save); t != NULL && n < FC_NV;
         t = strtok_r(NULL, ",", &save))
        for (int v = 0; v < FC_NV; ++v)
            if (strcmp(t, fc_vnames[v]) == 0)
                vs[n++] = v;
    return n;
}

int main(int argc, char **argv)
{
    int rank, nv, vs[FC_NV], cycles = argc > 3 ? atoi(argv[3]) : 300, coll = -1, k = 0;
    char host[FC_HOST_MAX] = "";
    fc_backend_t be;
    fc_engine_bufs_t bufs;
    fc_point_rank_t pr;
    fc_point_summary_t s;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    gethostname(host, sizeof(host) - 1);
    fc_log_set_identity(host, rank);
    nv = fc_parse(argc > 4 ? argv[4] : "bare,check,spin,other", vs);
    for (int c = 0; argc > 2 && c < FC_COLL_COUNT; ++c)
        if (strcmp(fc_coll_desc((fc_coll_id_t)c)->name, argv[1]) == 0)
            coll = c;
    for (int j = 0; coll >= 0 && j < nv; ++j)
        /* a reduce's check off the root needs every call checked (what
         * recv[0] holds is the rank's last output as root, fc_point_rank.h);
         * the other variants' calls leave it behind */
        if (vs[j] == 1 && fc_coll_desc((fc_coll_id_t)coll)->root_output_only) {
            if (rank == 0)
                fprintf(stderr, "between_calls: 'check' is not interleaved on %s: its check "
                        "off the root needs every call checked\n", argv[1]);
            MPI_Finalize();
            return 2;
        }
    if (coll < 0 || cycles < FC_SLICES || nv < 1 || vs[0] != 0 || atof(argv[2]) <= 0) {
        if (rank == 0)
            fprintf(stderr, "usage: between_calls COLLECTIVE MIB [cycles >= %d] "
                    "[bare,variant,...: bare first]\n", FC_SLICES);
        MPI_Finalize();
        return 2;
    }
    fc_backend_mpi_init(MPI_COMM_WORLD, &be);
    fc_engine_bufs_init(&bufs);

    const fc_coll_desc_t *d = fc_coll_desc((fc_coll_id_t)coll);
    fc_test_point_t pt = { (fc_coll_id_t)coll, FC_FLOAT32, d->reduces ? FC_OP_SUM : FC_OP_NONE,
                           (uint64_t)(atof(argv[2]) * 1048576.0), 2, 20, 11, 1 };
    fc_engine_ident_t ident = { rank, host, 1 };
    int per = nv * FC_BLOCK, n = cycles * per;
    double *t = calloc((size_t)n, sizeof(double)), *tmax = calloc((size_t)n, sizeof(double));
    long *sw = calloc((size_t)n, sizeof(long)), *swmax = calloc((size_t)n, sizeof(long));
    double *v = calloc((size_t)n, sizeof(double)), digest_s, t0;
    void *other;

    /* one run of the point reserves the buffers, as in the stages */
    fc_engine_run_point(&be, &pt, NULL, &ident, &bufs, &s);
    fc_engine_point_rank_init(&be, &pt, &pr);
    fc_point_rank_prepare(&pr, pt.op, pt.seed, bufs.send, bufs.recv);
    other = malloc(fc_point_rank_recv_bytes(&pr));
    memset(other, 1, fc_point_rank_recv_bytes(&pr));
    t0 = MPI_Wtime();
    for (int i = 0; i < 10; ++i)
        fc_sink += fc_cpu_digest(bufs.recv[0], fc_point_rank_recv_bytes(&pr));
    digest_s = (MPI_Wtime() - t0) / 10;

    for (int cy = 0; cy < cycles; ++cy)
        for (int j = 0; j < nv; ++j) {
            int var = vs[(j + cy) % nv];

            for (int b = 0; b < FC_BLOCK; ++b, ++k) {
                int at = cy * per + j * FC_BLOCK + b;
                long sw0 = fc_switches();
                fc_coll_call_t call;
                double sec = 0;

                fc_engine_call(&pt, &pr, k, &call);
                fc_point_rank_stage(&pr, call.recv, k & 1, call.root);
                fc_backend_mpi_run_bare(&be, &call, &sec);
                t[at] = sec;
                sw[at] = fc_switches() - sw0 + (b == 0);    /* the block's first: dropped */
                fc_between(var, &pr, &call, k & 1, other, digest_s);
            }
        }
    MPI_Allreduce(t, tmax, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(sw, swmax, n, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) {
        double slice[FC_NV][FC_SLICES], all[FC_NV];
        int kept = 0;

        for (int j = 0; j < nv; ++j)
            for (int sl = 0; sl <= FC_SLICES; ++sl) {
                int lo = sl < FC_SLICES ? sl * (cycles / FC_SLICES) : 0;
                int hi = sl < FC_SLICES ? lo + cycles / FC_SLICES : cycles, m = 0;

                for (int cy = lo; cy < hi; ++cy) {
                    int pos = ((j - cy) % nv + nv) % nv;    /* where variant j ran */

                    for (int b = 0; b < FC_BLOCK; ++b) {
                        int at = cy * per + pos * FC_BLOCK + b;

                        if (swmax[at] == 0)
                            v[m++] = tmax[at];
                    }
                }
                if (sl < FC_SLICES)
                    slice[j][sl] = fc_median(v, m);
                else {
                    all[j] = fc_median(v, m);
                    kept += m;
                }
            }
        printf("# %s %s, 2 ranks: %d cycles of %d calls per variant, %d of %d calls kept "
               "(neither rank switched out); a digest of the output takes %.1f us\n"
               "%-6s %10s %8s %15s\n", d->name, argv[2], cycles, FC_BLOCK, kept,
               cycles * nv * (FC_BLOCK - 1), digest_s * 1e6, "work", "median_us", "ratio",
               "(min-max)");
        for (int j = 0; j < nv; ++j) {
            double r[FC_SLICES];
            int m = 0;

            for (int sl = 0; sl < FC_SLICES; ++sl)
                if (slice[j][sl] > 0 && slice[0][sl] > 0)
                    r[m++] = slice[j][sl] / slice[0][sl];
            double med = fc_median(r, m);

            printf("%-6s %10.1f %8.3f   (%.3f-%.3f)\n", fc_vnames[vs[j]], all[j] * 1e6, med,
                   m ? r[0] : 0, m ? r[m - 1] : 0);
        }
    }
    free(other);
    free(t);
    free(tmax);
    free(sw);
    free(swmax);
    free(v);
    fc_engine_bufs_free(&be, &bufs);
    be.ops->fini_func(&be);
    MPI_Finalize();
    return 0;
}
