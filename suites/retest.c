/*
 * retest.c - the retest that places a wrong result: launched by the runner
 * right after a stage whose collective gave a wrong result, on the same
 * hosts, with the same ranks per node and the same environment (a faulty
 * NIC, or the tests' injector, acts on it as it did on the stage). Every
 * two ranks exchange a known pattern in both directions, scheduled as the
 * pairs stage's round-robin tournament (lib/stage/fc_pairs.h: n-1 rounds of n/2
 * concurrent pairs), and every received buffer is checked bitwise against
 * the sender's pattern. Rank 0 gathers each direction's evidence (who
 * sent, who received, wrong elements, the first bad index) and places the
 * fault with lib/retest/fc_localise.h: a rank whose sends are wrong to every
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
 * ("intermittent corruption in <group>, not localised", or "persistent"
 * when every run without one node is still wrong) and nobody is
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

#include "fc_alloc.h"
#include "fc_backend.h"
#include "fc_ctl.h"
#include "fc_ctl_check.h"
#include "fc_engine.h"
#include "fc_input.h"
#include "fc_kernels.h"
#include "fc_localise.h"
#include "fc_log.h"
#include "fc_pairs.h"
#include "fc_profile.h"
#include "fc_results.h"
#include "fc_retest_exchange.h"
#include "fc_retest_records.h"
#include "fc_stage.h"
#include "fc_stats.h"
#include "fc_status.h"
#include "fc_tap.h"
#include "fc_watchdog.h"

/* Inputs the leave-one-out checks for wrong data: the chance that two
 * flipped contributions of one host cancel in a sum is 1/2 per input, so
 * an innocent unit stays "right" for all 12 with odds 1 in 4096. */
#define FC_RETEST_LOO_SEEDS 12

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

/* The tournament; *mine_p gets one exchange per round (iters 0: a bye). */
static fc_status_t fc_retest_tournament(const fc_retest_opts_t *o, int rank, int size,
                                        fc_exchange_t **mine_p, int *rounds_p)
{
    size_t count = (size_t)o->bytes / sizeof(int32_t);
    int rounds = fc_pairs_rounds(size);
    /* the messages are sized by --bytes (the command line's): a failure is
     * said with that size, not the out-of-memory policy (fc_alloc.h) */
    int32_t *sendbuf[2] = { malloc((size_t)o->bytes), malloc((size_t)o->bytes) };
    int32_t *recvbuf = malloc((size_t)o->bytes);
    fc_exchange_t *mine;
    fc_pattern_t pat[2];

    if (sendbuf[0] == NULL || sendbuf[1] == NULL || recvbuf == NULL) {
        fc_error("out of memory for the retest (%ld-byte buffers)", o->bytes);
        free(sendbuf[0]); free(sendbuf[1]); free(recvbuf);
        return FC_ERR_INTERNAL;
    }
    mine = fc_xcalloc((size_t)rounds + 1, sizeof(*mine), "this rank's exchanges");
    for (int k = 0; k < 2; ++k) {
        fc_pattern_make(FC_INT32, FC_OP_NONE, size, fc_pattern_set_seed(o->seed, k), &pat[k]);
        fc_cpu_fill(&pat[k], rank, 0, sendbuf[k], count);
    }
    for (int r = 0; r < rounds; ++r) {
        int partner = fc_pairs_partner(size, r, rank);
        char what[96];

        snprintf(what, sizeof(what), "retest round %d of %d (partner rank %d)", r + 1,
                 rounds, partner);
        fc_watchdog_progress(r, what);
        if (partner >= 0)
            fc_retest_exchange(pat, rank, partner, o->iters, 0, sendbuf, recvbuf, count,
                               &mine[r]);
        else
            mine[r].sender = mine[r].receiver = -1;
    }
    free(sendbuf[0]);
    free(sendbuf[1]);
    free(recvbuf);
    *mine_p = mine;
    *rounds_p = rounds;
    return FC_OK;
}

/* The unit of each rank: its host, or itself when the job has one host. */
static int fc_retest_units(int size, char (*hosts)[FC_HOST_MAX], int *unit)
{
    int nhosts = 0, *host = fc_xcalloc((size_t)size, sizeof(int), "the ranks' host indices");

    for (int r = 0; r < size; ++r) {
        int q = 0;

        while (q < r && strcmp(hosts[q], hosts[r]) != 0)
            ++q;
        host[r] = q == r ? nhosts++ : host[q];
    }
    for (int r = 0; r < size; ++r)
        unit[r] = nhosts <= 1 ? r : host[r];
    free(host);
    return nhosts <= 1 ? size : nhosts;
}

/* The collectives the leave-one-out runs, one per kind of fault: for the
 * wrong results, the one the first group with a wrong result observed, in
 * int32 (exact, so one flipped bit can never round away in a float sum);
 * for the slowness, the one the first slow group observed, in its own
 * type (the kinds must not share one: a slow all_gather's leave-one-out
 * says nothing of a node corrupting all_reduce). Without a point in the
 * runner's file: int32 all_reduce sum of --bytes. Rank 0 reads the
 * groups file; every rank gets the points. */
/* The runner's groups file (NULL, with why in jerr, if it cannot be read). */
static json_t *fc_retest_load_groups(const char *path, json_error_t *jerr)
{
    char *text = NULL;
    json_t *groups;

    memset(jerr, 0, sizeof(*jerr));
    if (fc_input_read(path, "retest groups", FC_INPUT_DOC_MAX, &text, NULL) != FC_OK) {
        snprintf(jerr->text, sizeof(jerr->text), "cannot be read");
        return NULL;
    }
    groups = json_loads(text, 0, jerr);
    free(text);
    return groups;
}

static void fc_retest_loo_points(const fc_retest_opts_t *o, int rank, fc_test_point_t *wrong_pt,
                                 fc_test_point_t *slow_pt, int *any_slow_p, int *any_wrong_p)
{
    /* per kind (0 wrong, 1 slow): collective, dtype, op, seen */
    int spec[2][4] = { { FC_COLL_ALL_REDUCE, FC_INT32, FC_OP_SUM, 0 },
                       { FC_COLL_ALL_REDUCE, FC_INT32, FC_OP_SUM, 0 } };
    long long bytes[2] = { o->bytes, o->bytes };
    int found[2] = { 0, 0 };

    if (rank == 0) {
        json_error_t jerr;
        json_t *groups = fc_retest_load_groups(o->groups_path, &jerr), *g;
        size_t i;

        json_array_foreach(json_object_get(groups, "groups"), i, g) {
            int kind = fc_retest_group_is_slow(g);
            json_t *p = json_object_get(g, "point");
            int c = fc_coll_from_name(json_string_value(json_object_get(p, "collective")) ?
                                      json_string_value(json_object_get(p, "collective")) : "");
            int d = fc_dtype_from_name(json_string_value(json_object_get(p, "dtype")) ?
                                       json_string_value(json_object_get(p, "dtype")) : "");
            const char *opn = json_string_value(json_object_get(p, "op"));
            int op = opn && strcmp(opn, "none") ? fc_op_from_name(opn) : FC_OP_NONE;
            json_int_t b = json_integer_value(json_object_get(p, "bytes"));

            spec[kind][3] = 1;
            if (found[kind] || c < 0 || d < 0 || (opn && strcmp(opn, "none") && op < 0) ||
                b <= 0 || b > (1ll << 32))
                continue;
            spec[kind][0] = c;
            spec[kind][1] = kind ? d : FC_INT32;
            spec[kind][2] = op;
            bytes[kind] = b;
            found[kind] = 1;
        }
        json_decref(groups);
    }
    fc_ctl_bcast(MPI_COMM_WORLD, 0, "the retest's points", spec, sizeof(spec));
    fc_ctl_bcast(MPI_COMM_WORLD, 0, "the retest's sizes", bytes, sizeof(bytes));
    for (int k = 0; k < 2; ++k)
        fc_ctl_check(spec[k][0] >= 0 && spec[k][0] < FC_COLL_COUNT && spec[k][1] >= 0 &&
                     spec[k][1] < FC_DTYPE_COUNT && spec[k][2] >= 0 &&
                     spec[k][2] < FC_OP_COUNT && (spec[k][3] & ~1) == 0 && bytes[k] > 0 &&
                     bytes[k] <= (1ll << 32), "the retest's points", 0,
                     "collective %d, type %d, op %d, %lld bytes", spec[k][0], spec[k][1],
                     spec[k][2], bytes[k]);
    *any_wrong_p = spec[0][3];
    *any_slow_p = spec[1][3];
    *wrong_pt = (fc_test_point_t){ (fc_coll_id_t)spec[0][0], (fc_dtype_t)spec[0][1],
                                   (fc_op_t)spec[0][2], (uint64_t)bytes[0], 1, (int)o->iters,
                                   o->seed, 0 };
    *slow_pt = (fc_test_point_t){ (fc_coll_id_t)spec[1][0], (fc_dtype_t)spec[1][1],
                                  (fc_op_t)spec[1][2], (uint64_t)bytes[1], 1, (int)o->iters,
                                  o->seed, 0 };
}

/* The point on comm (NULL: this rank sits out), checked and timed by the
 * engine on the mpi backend; world rank 0 gets the summary of comm's rank
 * 0 (collective over MPI_COMM_WORLD). */
static void fc_retest_run_point(const fc_test_point_t *pt, MPI_Comm c, int rank,
                                const char *host, fc_point_summary_t *gathered,
                                int size, fc_point_summary_t *out)
{
    fc_point_summary_t mine;

    memset(&mine, 0, sizeof(mine));
    if (c != MPI_COMM_NULL) {
        fc_backend_t be;
        fc_engine_ident_t ident = { rank, host, 0 };

        if (fc_backend_mpi_init(c, &be) == FC_OK) {
            fc_engine_run_point(&be, pt, NULL, &ident, NULL, &mine);
            if (be.rank != 0)
                mine.valid = 0;
            be.ops->fini_func(&be);
        }
    }
    fc_stage_gather_summaries("the retest's summaries", &mine, gathered);
    if (rank != 0)
        return;
    memset(out, 0, sizeof(*out));
    for (int r = 0; r < size; ++r)
        if (gathered[r].valid)
            *out = gathered[r];
}

/* Leave one out: for each unit u, the observed point among all the other
 * ranks, checked against the exact expectation and timed; rank 0 gets
 * wrong[u] (wrong elements, plus one when the ranks' bits disagree) and
 * seconds[u] (its median time), and *all_s the point on every rank.
 * Places a fault that follows the collective (its point-to-point traffic
 * is right, or fast). Wrong data is looked for over `seeds` different
 * inputs, summed: two corrupted contributions can cancel in a sum (one bit
 * flipped up, one down) for one input and not for another, while the run
 * without the culprit is right for every input. */
static void fc_retest_leave_one_out(const fc_test_point_t *pt, int seeds, int rank, int size,
                                    const char *host, const int *unit, int nunits,
                                    uint64_t *wrong, double *seconds, double *all_s)
{
    fc_point_summary_t *gathered = NULL;
    fc_point_summary_t s;

    if (rank == 0)
        gathered = fc_xcalloc((size_t)size, sizeof(*gathered), "the retest's summaries");
    fc_watchdog_progress(999999, "retest: the observed collective on every rank");
    fc_retest_run_point(pt, MPI_COMM_WORLD, rank, host, gathered, size, &s);
    if (rank == 0)
        *all_s = s.valid && s.status == FC_OK ? s.time.median : 0;
    for (int k = 0; k < seeds; ++k)
        for (int u = 0; u < nunits; ++u) {
            fc_test_point_t p = *pt;
            MPI_Comm c;
            char what[96];

            p.seed += 7919u * (unsigned)k;
            if (k > 0) {            /* more inputs, for the bits only */
                p.warmup = 0;
                p.iters = 1;
            }
            snprintf(what, sizeof(what), "retest: the collective without unit %d of %d", u,
                     nunits);
            fc_watchdog_progress(1000000 + k * nunits + u, what);
            MPI_Comm_split(MPI_COMM_WORLD, unit[rank] == u ? MPI_UNDEFINED : 0, rank, &c);
            fc_retest_run_point(&p, c, rank, host, gathered, size, &s);
            if (c != MPI_COMM_NULL)
                MPI_Comm_free(&c);
            if (rank != 0)
                continue;
            wrong[u] += s.wrong + (!s.digest_ranks_agree || !s.digest_reps_agree ||
                                   s.status != FC_OK);
            if (k == 0)             /* the first input's time: all alike */
                seconds[u] = s.valid && s.status == FC_OK ? s.time.median : 0;
        }
    free(gathered);
}

/* A slowness placed on a unit of several ranks: the point without each of
 * its ranks alone, so the rank (a GPU, a core) can be named. Rank 0 has
 * the times; the ranks go into ranks[], their count is returned. */
static int fc_retest_leave_rank_out(const fc_test_point_t *pt, int rank, int size,
                                    const char *host, const int *unit, int nunits,
                                    const double *loo_seconds, int *ranks, double *seconds)
{
    fc_point_summary_t *gathered = NULL;
    fc_point_summary_t s;
    int u = -1, n = 0;

    if (rank == 0) {
        gathered = fc_xcalloc((size_t)size, sizeof(*gathered), "the retest's summaries");
        u = fc_retest_loo_fastest(loo_seconds, nunits, NULL, NULL, NULL);
    }
    fc_ctl_bcast_ints(MPI_COMM_WORLD, 0, "the unit to leave out", &u, 1, -1, size - 1);
    for (int r = 0; u >= 0 && r < size; ++r)
        if (unit[r] == u)
            ranks[n++] = r;
    if (n < 2) {
        free(gathered);
        return 0;
    }
    for (int k = 0; k < n; ++k) {
        MPI_Comm c;

        fc_watchdog_progress(2000000 + k, "retest: the collective without one rank");
        MPI_Comm_split(MPI_COMM_WORLD, rank == ranks[k] ? MPI_UNDEFINED : 0, rank, &c);
        fc_retest_run_point(pt, c, rank, host, gathered, size, &s);
        if (c != MPI_COMM_NULL)
            MPI_Comm_free(&c);
        if (rank == 0)
            seconds[k] = s.valid && s.status == FC_OK ? s.time.median : 0;
    }
    free(gathered);
    return n;
}

/* Rank 0: judge and write one record per group (fc_retest_records.c). */
static int fc_retest_report(const fc_retest_opts_t *o, int size, char (*hosts)[FC_HOST_MAX],
                            fc_exchange_t *all, int rounds, const int *unit, int nunits,
                            const uint64_t *loo_wrong, const double *loo_seconds,
                            double all_seconds, const int *loo_ranks,
                            const double *loo_rank_seconds, int nloo_ranks,
                            const fc_test_point_t *wrong_pt, const fc_test_point_t *slow_pt,
                            double seconds)
{
    fc_retest_input_t in;
    json_error_t jerr;
    fc_results_t results;
    fc_tap_t tap;
    int failed;
    char label[128];

    memset(&in, 0, sizeof(in));
    in.groups = fc_retest_load_groups(o->groups_path, &jerr);
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
    in.loo_seconds = loo_seconds;
    in.all_seconds = all_seconds;
    in.loo_ranks = loo_ranks;
    in.loo_rank_seconds = nloo_ranks ? loo_rank_seconds : NULL;
    in.nloo_ranks = nloo_ranks;
    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, -1);
    fc_point_label(wrong_pt, label, sizeof(label));
    in.loo_label = label;
    failed = fc_retest_write_records(&in, &results, &tap);
    fc_point_label(slow_pt, label, sizeof(label));
    failed += fc_retest_write_slow_records(&in, &results, &tap);
    fc_tap_done(&tap);
    fc_results_close(&results);
    json_decref(in.groups);
    return failed;
}

/* Out of memory or a broken invariant on one rank ends the retest at
 * once (lib/base/fc_alloc.h), rather than leaving its peers to the watchdog. */
static void fc_retest_die(void)
{
    MPI_Abort(MPI_COMM_WORLD, FC_EXIT_FAIL);
    _exit(FC_EXIT_FAIL);
}

int main(int argc, char **argv)
{
    fc_retest_opts_t o;
    int rank = 0, size = 1, rounds = 0, rc = 0;
    char host[FC_HOST_MAX] = "", (*hosts)[FC_HOST_MAX] = NULL;
    fc_exchange_t *mine = NULL, *all = NULL;
    int *unit = NULL, nunits;
    uint64_t *loo_wrong = NULL;
    double *loo_seconds = NULL, *loo_rank_seconds = NULL, all_seconds = 0, t0;
    int *loo_ranks = NULL, nloo_ranks = 0, any_slow = 0, any_wrong = 0;
    fc_test_point_t wrong_pt, slow_pt;
    uint64_t *unused_wrong = NULL;
    double *unused_seconds = NULL, unused_all = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    gethostname(host, sizeof(host) - 1);
    fc_log_set_identity(host, rank);
    fc_alloc_set_die(fc_retest_die);
    if (fc_retest_parse(argc, argv, &o, rank != 0) != FC_OK) {
        MPI_Finalize();
        return FC_EXIT_USAGE;
    }
    if (fc_watchdog_start(o.timeout_s, "retest", rank, host) != FC_OK) {
        MPI_Finalize();
        return FC_EXIT_FAIL;
    }
    hosts = fc_xcalloc((size_t)size, FC_HOST_MAX, "the ranks' host names");
    unit = fc_xcalloc((size_t)size, sizeof(int), "the ranks' units");
    loo_wrong = fc_xcalloc((size_t)size, sizeof(uint64_t), "the leave-one-out's wrong counts");
    loo_seconds = fc_xcalloc((size_t)size, sizeof(double), "the leave-one-out's times");
    loo_rank_seconds = fc_xcalloc((size_t)size, sizeof(double), "the leave-rank-out's times");
    loo_ranks = fc_xcalloc((size_t)size, sizeof(int), "the leave-rank-out's ranks");
    fc_ctl_allgather_strs(MPI_COMM_WORLD, "the ranks' host names", host, FC_HOST_MAX,
                          (char *)hosts);
    fc_retest_loo_points(&o, rank, &wrong_pt, &slow_pt, &any_slow, &any_wrong);
    t0 = MPI_Wtime();
    if (fc_retest_tournament(&o, rank, size, &mine, &rounds) != FC_OK)
        MPI_Abort(MPI_COMM_WORLD, FC_EXIT_FAIL);
    if (rank == 0)
        all = fc_xcalloc((size_t)size * (size_t)rounds + 1, sizeof(*all),
                         "every rank's exchanges");
    fc_ctl_gather(MPI_COMM_WORLD, 0, "the retest's exchanges", mine,
                  (size_t)rounds * sizeof(*mine), all);
    for (int i = 0; rank == 0 && i < size * rounds; ++i)
        fc_ctl_check(fc_ctl_exchange_ok(&all[i], size), "the retest's exchanges", i / rounds,
                     "an exchange from rank %d to %d", (int)all[i].sender,
                     (int)all[i].receiver);
    nunits = fc_retest_units(size, hosts, unit);
    /* one leave-one-out per kind of fault, each on its own collective */
    unused_wrong = fc_xcalloc((size_t)size, sizeof(uint64_t), "the unused wrong counts");
    unused_seconds = fc_xcalloc((size_t)size, sizeof(double), "the unused times");
    if (any_wrong || !any_slow)
        fc_retest_leave_one_out(&wrong_pt, FC_RETEST_LOO_SEEDS, rank, size, host, unit,
                                nunits, loo_wrong, any_slow ? unused_seconds : loo_seconds,
                                any_slow ? &unused_all : &all_seconds);
    if (any_slow)
        fc_retest_leave_one_out(&slow_pt, 1, rank, size, host, unit, nunits,
                                any_wrong ? unused_wrong : loo_wrong, loo_seconds,
                                &all_seconds);
    if (any_slow && nunits < size)
        nloo_ranks = fc_retest_leave_rank_out(&slow_pt, rank, size, host, unit, nunits,
                                              loo_seconds, loo_ranks, loo_rank_seconds);
    if (rank == 0) {
        int failed = fc_retest_report(&o, size, hosts, all, rounds, unit, nunits, loo_wrong,
                                      loo_seconds, all_seconds, loo_ranks, loo_rank_seconds,
                                      nloo_ranks, &wrong_pt, &slow_pt, MPI_Wtime() - t0);

        rc = failed < 0 ? FC_EXIT_FAIL : failed > 0 ? FC_EXIT_FAIL : FC_EXIT_PASS;
    }
    fc_ctl_bcast_ints(MPI_COMM_WORLD, 0, "the retest's exit status", &rc, 1, FC_EXIT_PASS,
                      FC_EXIT_USAGE);
    free(mine);
    free(all);
    free(hosts);
    free(unit);
    free(loo_wrong);
    free(loo_seconds);
    free(loo_rank_seconds);
    free(loo_ranks);
    free(unused_wrong);
    free(unused_seconds);
    MPI_Finalize();
    fc_watchdog_stop();
    return rc;
}
