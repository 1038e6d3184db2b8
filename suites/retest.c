/*
 * retest.c - the retest that places a wrong result: launched by the runner
 * right after a stage whose collective gave a wrong result, on the same
 * hosts, with the same ranks per node and the same environment (a faulty
 * NIC, or the tests' injector, acts on it as it did on the stage). Every
 * two ranks exchange a known pattern in both directions, scheduled as the
 * pairs stage's round-robin tournament (lib/fc_pairs.h: n-1 rounds of n/2
 * concurrent pairs), and every received buffer is checked bitwise against
 * the sender's pattern. Rank 0 gathers each direction's evidence (who
 * sent, who received, wrong elements, the first bad index) and places the
 * fault with lib/fc_localise.h: a rank whose sends are wrong to every
 * partner (or to every partner off its host) is the culprit, its node is
 * the part to pull. Then, for each node (each rank when the job has one
 * node), an all_reduce among all the others, checked: when only the one
 * without node X is right, X's contribution is what corrupts the
 * collective, a fault that follows the collective and not the
 * point-to-point traffic.
 *
 * For each group the runner names (--groups FILE: the stage, the groups
 * with a wrong result, what was observed), rank 0 writes one `retest`
 * record to results.jsonl: a confirmed culprit in the group implicates
 * that node alone (quarantine), otherwise the group's racks stay failed
 * ("intermittent corruption in <group>, not localised") and nobody is
 * quarantined. Every wait is bounded by the watchdog (--timeout).
 *
 *   mpirun ... build/suites/retest --out DIR --run-id ID --stage cluster \
 *       --groups DIR/retest.cluster.json [--timeout S] [--bytes N] [--iters N]
 */
#include <getopt.h>
#include <jansson.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fc_kernels.h"
#include "fc_localise.h"
#include "fc_log.h"
#include "fc_pairs.h"
#include "fc_results.h"
#include "fc_retest_records.h"
#include "fc_status.h"
#include "fc_tap.h"
#include "fc_watchdog.h"

#define FC_RETEST_TAG 4343

typedef struct fc_retest_opts {
    char out_dir[1024], run_id[64], stage[32], groups_path[1024];
    double timeout_s;
    long bytes, iters;
    unsigned seed;
} fc_retest_opts_t;

static fc_status_t fc_retest_parse(int argc, char **argv, fc_retest_opts_t *o, int quiet)
{
    static const struct option longopts[] = {
        { "out", required_argument, NULL, 'o' }, { "run-id", required_argument, NULL, 'r' },
        { "stage", required_argument, NULL, 's' }, { "groups", required_argument, NULL, 'g' },
        { "timeout", required_argument, NULL, 't' }, { "bytes", required_argument, NULL, 'b' },
        { "iters", required_argument, NULL, 'i' }, { "seed", required_argument, NULL, 'S' },
        { NULL, 0, NULL, 0 },
    };
    int c;

    memset(o, 0, sizeof(*o));
    o->timeout_s = 60;
    o->bytes = 65536;
    o->iters = 3;
    o->seed = 20261202u;
    opterr = !quiet;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': snprintf(o->out_dir, sizeof(o->out_dir), "%s", optarg); break;
        case 'r': snprintf(o->run_id, sizeof(o->run_id), "%s", optarg); break;
        case 's': snprintf(o->stage, sizeof(o->stage), "%s", optarg); break;
        case 'g': snprintf(o->groups_path, sizeof(o->groups_path), "%s", optarg); break;
        case 't': o->timeout_s = atof(optarg); break;
        case 'b': o->bytes = atol(optarg); break;
        case 'i': o->iters = atol(optarg); break;
        case 'S': o->seed = (unsigned)strtoul(optarg, NULL, 10); break;
        default: return FC_ERR_INVALID;
        }
    }
    if (!o->out_dir[0] || !o->stage[0] || !o->groups_path[0] || o->timeout_s <= 0 ||
        o->bytes < 4096 || o->bytes % 4 != 0 || o->iters < 1 || o->iters > 1000) {
        if (!quiet)
            fprintf(stderr, "usage: retest --out DIR --run-id ID --stage NAME --groups FILE "
                    "[--timeout S] [--bytes N (multiple of 4, >= 4096)] [--iters N]\n");
        return FC_ERR_INVALID;
    }
    return FC_OK;
}

/* Exchange with partner `iters` times; what this rank received from it is
 * checked against the partner's pattern and tallied into *ex. */
static void fc_retest_exchange(const fc_pattern_t *pat, int me, int partner, long iters,
                               const int32_t *sendbuf, int32_t *recvbuf, size_t count,
                               fc_exchange_t *ex)
{
    memset(ex, 0, sizeof(*ex));
    ex->sender = partner;
    ex->receiver = me;
    for (long it = 0; it < iters; ++it) {
        fc_mismatch_t m = { 0, 0, 0, 0 };

        memset(recvbuf, 0xA5, count * sizeof(int32_t));
        MPI_Sendrecv(sendbuf, (int)count, MPI_INT32_T, partner, FC_RETEST_TAG,
                     recvbuf, (int)count, MPI_INT32_T, partner, FC_RETEST_TAG,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        fc_cpu_verify(pat, partner, 0, recvbuf, count, 0, &m);
        ex->iters++;
        if (m.wrong == 0)
            continue;
        if (ex->wrong == 0) {
            ex->first_index = m.first_pos;
            ex->expected = m.expected_bits;
            ex->actual = m.actual_bits;
        }
        ex->wrong += m.wrong;
        ex->wrong_iters++;
    }
}

/* The tournament; *mine_p gets one exchange per round (iters 0: a bye). */
static fc_status_t fc_retest_tournament(const fc_retest_opts_t *o, int rank, int size,
                                        fc_exchange_t **mine_p, int *rounds_p)
{
    size_t count = (size_t)o->bytes / sizeof(int32_t);
    int rounds = fc_pairs_rounds(size);
    int32_t *sendbuf = malloc((size_t)o->bytes), *recvbuf = malloc((size_t)o->bytes);
    fc_exchange_t *mine = calloc((size_t)rounds + 1, sizeof(*mine));
    fc_pattern_t pat;

    if (sendbuf == NULL || recvbuf == NULL || mine == NULL) {
        fc_error("out of memory for the retest (%ld-byte buffers)", o->bytes);
        free(sendbuf); free(recvbuf); free(mine);
        return FC_ERR_INTERNAL;
    }
    fc_pattern_make(FC_INT32, FC_OP_NONE, size, o->seed, &pat);
    fc_cpu_fill(&pat, rank, 0, sendbuf, count);
    for (int r = 0; r < rounds; ++r) {
        int partner = fc_pairs_partner(size, r, rank);
        char what[96];

        snprintf(what, sizeof(what), "retest round %d of %d (partner rank %d)", r + 1,
                 rounds, partner);
        fc_watchdog_progress(r, what);
        if (partner >= 0)
            fc_retest_exchange(&pat, rank, partner, o->iters, sendbuf, recvbuf, count,
                               &mine[r]);
        else
            mine[r].sender = mine[r].receiver = -1;
    }
    free(sendbuf);
    free(recvbuf);
    *mine_p = mine;
    *rounds_p = rounds;
    return FC_OK;
}

/* The unit of each rank: its host, or itself when the job has one host. */
static int fc_retest_units(int size, char (*hosts)[FC_HOST_MAX], int *unit)
{
    int nhosts = 0, *host = calloc((size_t)size, sizeof(int));

    for (int r = 0; r < size && host; ++r) {
        int q = 0;

        while (q < r && strcmp(hosts[q], hosts[r]) != 0)
            ++q;
        host[r] = q == r ? nhosts++ : host[q];
    }
    for (int r = 0; r < size; ++r)
        unit[r] = nhosts <= 1 || host == NULL ? r : host[r];
    free(host);
    return nhosts <= 1 ? size : nhosts;
}

/* Leave one out: for each unit u, an all_reduce (int32 sum) among all the
 * other ranks, checked against the exact expectation; rank 0 gets in
 * wrong[u] the wrong elements summed over ranks. Places a fault that
 * follows the collective (its point-to-point traffic is right). */
static void fc_retest_leave_one_out(const fc_retest_opts_t *o, int rank, const int *unit,
                                    int nunits, uint64_t *wrong)
{
    size_t count = (size_t)o->bytes / sizeof(int32_t);
    int32_t *sendbuf = malloc((size_t)o->bytes), *recvbuf = malloc((size_t)o->bytes);

    if (sendbuf == NULL || recvbuf == NULL) {
        fc_error("out of memory for the retest (%ld-byte buffers)", o->bytes);
        MPI_Abort(MPI_COMM_WORLD, FC_EXIT_FAIL);
    }
    for (int u = 0; u < nunits; ++u) {
        MPI_Comm c;
        uint64_t mine = 0, total = 0;
        char what[96];

        snprintf(what, sizeof(what), "retest: all_reduce without unit %d of %d", u, nunits);
        fc_watchdog_progress(1000000 + u, what);
        MPI_Comm_split(MPI_COMM_WORLD, unit[rank] == u ? MPI_UNDEFINED : 0, rank, &c);
        if (c != MPI_COMM_NULL) {
            fc_pattern_t pat;
            int n, me;

            MPI_Comm_size(c, &n);
            MPI_Comm_rank(c, &me);
            fc_pattern_make(FC_INT32, FC_OP_SUM, n, o->seed + 7919u * (unsigned)u, &pat);
            fc_cpu_fill(&pat, me, 0, sendbuf, count);
            for (long it = 0; it < o->iters; ++it) {
                fc_mismatch_t m = { 0, 0, 0, 0 };

                memset(recvbuf, 0xA5, (size_t)o->bytes);
                MPI_Allreduce(sendbuf, recvbuf, (int)count, MPI_INT32_T, MPI_SUM, c);
                fc_cpu_verify(&pat, -1, 0, recvbuf, count, 0, &m);
                mine += m.wrong;
            }
            MPI_Comm_free(&c);
        }
        MPI_Reduce(&mine, &total, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0)
            wrong[u] = total;
    }
    free(sendbuf);
    free(recvbuf);
}

/* Rank 0: judge and write one record per group (fc_retest_records.c). */
static int fc_retest_report(const fc_retest_opts_t *o, int size, char (*hosts)[FC_HOST_MAX],
                            fc_exchange_t *all, int rounds, const int *unit, int nunits,
                            const uint64_t *loo_wrong, double seconds)
{
    fc_retest_input_t in;
    json_error_t jerr;
    fc_results_t results;
    fc_tap_t tap;
    int failed;

    memset(&in, 0, sizeof(in));
    in.groups = json_load_file(o->groups_path, 0, &jerr);
    if (!json_is_object(in.groups)) {
        fprintf(stderr, "fabcert: retest: %s:%d:%d: %s\n", o->groups_path, jerr.line,
                jerr.column, jerr.text);
        json_decref(in.groups);
        return -1;
    }
    if (fc_results_open(o->out_dir, &results) != FC_OK) {
        json_decref(in.groups);
        return -1;
    }
    in.run_id = o->run_id;
    in.stage = o->stage;
    in.nranks = size;
    in.rank_hosts = hosts;
    in.exchanges = all;
    in.nexchanges = size * rounds;
    in.rounds = rounds;
    in.bytes = o->bytes;
    in.iters = o->iters;
    in.seconds = seconds;
    in.unit = unit;
    in.nunits = nunits;
    in.loo_wrong = loo_wrong;
    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, -1);
    failed = fc_retest_write_records(&in, &results, &tap);
    fc_tap_done(&tap);
    fc_results_close(&results);
    json_decref(in.groups);
    return failed;
}

int main(int argc, char **argv)
{
    fc_retest_opts_t o;
    int rank = 0, size = 1, rounds = 0, rc = 0;
    char host[FC_HOST_MAX] = "", (*hosts)[FC_HOST_MAX] = NULL;
    fc_exchange_t *mine = NULL, *all = NULL;
    int *unit = NULL, nunits;
    uint64_t *loo_wrong = NULL;
    double t0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    gethostname(host, sizeof(host) - 1);
    fc_log_set_identity(host, rank);
    if (fc_retest_parse(argc, argv, &o, rank != 0) != FC_OK) {
        MPI_Finalize();
        return FC_EXIT_USAGE;
    }
    if (fc_watchdog_start(o.timeout_s, "retest", rank, host) != FC_OK) {
        MPI_Finalize();
        return FC_EXIT_FAIL;
    }
    hosts = calloc((size_t)size, FC_HOST_MAX);
    unit = calloc((size_t)size, sizeof(int));
    loo_wrong = calloc((size_t)size, sizeof(uint64_t));
    if (hosts == NULL || unit == NULL || loo_wrong == NULL) {
        fc_error("out of memory for %d host names", size);
        MPI_Abort(MPI_COMM_WORLD, FC_EXIT_FAIL);
    }
    MPI_Allgather(host, FC_HOST_MAX, MPI_CHAR, hosts, FC_HOST_MAX, MPI_CHAR, MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    if (fc_retest_tournament(&o, rank, size, &mine, &rounds) != FC_OK)
        MPI_Abort(MPI_COMM_WORLD, FC_EXIT_FAIL);
    if (rank == 0 && (all = calloc((size_t)size * (size_t)rounds + 1, sizeof(*all))) == NULL) {
        fc_error("out of memory for %d x %d retest exchanges", size, rounds);
        MPI_Abort(MPI_COMM_WORLD, FC_EXIT_FAIL);
    }
    MPI_Gather(mine, (int)(rounds * sizeof(*mine)), MPI_BYTE, all,
               (int)(rounds * sizeof(*mine)), MPI_BYTE, 0, MPI_COMM_WORLD);
    nunits = fc_retest_units(size, hosts, unit);
    fc_retest_leave_one_out(&o, rank, unit, nunits, loo_wrong);
    if (rank == 0) {
        int failed = fc_retest_report(&o, size, hosts, all, rounds, unit, nunits, loo_wrong,
                                      MPI_Wtime() - t0);

        rc = failed < 0 ? FC_EXIT_FAIL : failed > 0 ? FC_EXIT_FAIL : FC_EXIT_PASS;
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(mine);
    free(all);
    free(hosts);
    free(unit);
    free(loo_wrong);
    MPI_Finalize();
    fc_watchdog_stop();
    return rc;
}
