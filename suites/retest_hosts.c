/*
 * retest_hosts.c - the bounded retest of the hosts common to every wrong
 * result (lib/retest/fc_intersect.h): launched by the runner after a stage when
 * wrong bits came back in several stages, groups or points and one host
 * (or a few) sits in every group that saw them, on those suspects and two
 * partners, with the stages' ranks per node and environment (a faulty
 * NIC, or the tests' injector, acts on it as it did on the stages).
 *
 * Every two ranks exchange a known pattern in both directions, scheduled
 * as the pairs stage's round-robin tournament (lib/stage/fc_pairs.h), one
 * exchange per pair and round, and every buffer that arrives is checked
 * bitwise (lib/retest/fc_retest_exchange.h); the tournament is run again and
 * again, its rounds shuffled alike on every rank and the two input sets
 * alternating, for up to the profile's
 * retest.intermittent_s: an intermittent fault need not come back in a
 * few exchanges. After each tournament rank 0 gathers every rank's tallies
 * (who sent, who received, how many buffers, how many wrong) and judges
 * them per directed host pair (fc_intersect_judge); it stops as soon as a
 * host is placed by its exchanges with two partners, or at the limit. Rank 0 appends one `retest` record
 * (method "intersection"): the host placed, what it explains, and every
 * pair's exchanges; or "not reproduced in N s of checked exchanges with
 * partners A, B", the suspects staying implicated with their groups. Every
 * wait is bounded by the watchdog (--timeout).
 *
 *   mpirun ... build/suites/retest_hosts --out DIR --run-id ID --stage NAME \
 *       --plan DIR/retest_hosts.NAME.json [--timeout S] [--bytes N]
 */
#include <getopt.h>
#include <jansson.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fc_alloc.h"
#include "fc_ctl.h"
#include "fc_ctl_check.h"
#include "fc_engine.h"
#include "fc_intersect.h"
#include "fc_log.h"
#include "fc_pairs.h"
#include "fc_results.h"
#include "fc_retest_exchange.h"
#include "fc_status.h"
#include "fc_tap.h"
#include "fc_watchdog.h"

/* The longest retest a plan may ask for (the profile's bound on
 * retest.intermittent_s). */
#define FC_RH_LIMIT_MAX 3600

typedef struct fc_rh_opts {
    char out_dir[1024], run_id[64], stage[32], plan_path[1024];
    double timeout_s;
    long bytes;
    unsigned seed;
} fc_rh_opts_t;

static fc_status_t fc_rh_parse(int argc, char **argv, fc_rh_opts_t *o, int quiet)
{
    static const struct option longopts[] = {
        { "out", required_argument, NULL, 'o' }, { "run-id", required_argument, NULL, 'r' },
        { "stage", required_argument, NULL, 's' }, { "plan", required_argument, NULL, 'p' },
        { "timeout", required_argument, NULL, 't' }, { "bytes", required_argument, NULL, 'b' },
        { NULL, 0, NULL, 0 },
    };
    int c;

    memset(o, 0, sizeof(*o));
    o->timeout_s = 90;
    o->bytes = 65536;
    o->seed = 20261203u;
    opterr = !quiet;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': snprintf(o->out_dir, sizeof(o->out_dir), "%s", optarg); break;
        case 'r': snprintf(o->run_id, sizeof(o->run_id), "%s", optarg); break;
        case 's': snprintf(o->stage, sizeof(o->stage), "%s", optarg); break;
        case 'p': snprintf(o->plan_path, sizeof(o->plan_path), "%s", optarg); break;
        case 't': o->timeout_s = atof(optarg); break;
        case 'b': o->bytes = atol(optarg); break;
        default: return FC_ERR_INVALID;
        }
    }
    if (!o->out_dir[0] || !o->stage[0] || !o->plan_path[0] || o->timeout_s <= 0 ||
        o->bytes < 4096 || o->bytes % 4 != 0) {
        if (!quiet)
            fprintf(stderr, "usage: retest_hosts --out DIR --run-id ID --stage NAME --plan FILE "
                    "[--timeout S] [--bytes N (multiple of 4, >= 4096)]\n");
        return FC_ERR_INVALID;
    }
    return FC_OK;
}

/* Rank 0: every rank's tallies after `sweeps` tournaments, checked before
 * anything counts them: all[r * size + p] is what rank r received from p,
 * at most one buffer per tournament. */
static void fc_rh_check(int size, const fc_exchange_t *all, long sweeps)
{
    for (int r = 0; r < size; ++r)
        for (int p = 0; p < size; ++p) {
            const fc_exchange_t *e = &all[r * size + p];

            fc_ctl_check(fc_ctl_exchange_ok(e, size) && e->iters <= sweeps &&
                         (e->iters == 0 || (e->sender == p && e->receiver == r)),
                         "the retest's tallies", r, "what rank %d received from rank %d "
                         "(%d buffers, %d wrong, after %ld tournaments)", r, p,
                         (int)e->iters, (int)e->wrong_iters, sweeps);
        }
}

/* Rank 0: the runner's plan, and its limit (0 when it cannot be read). */
static json_t *fc_rh_plan(const char *path, double *limit_p)
{
    json_error_t jerr;
    json_t *plan = json_load_file(path, 0, &jerr);
    double limit = json_number_value(json_object_get(plan, "limit_s"));

    if (!json_is_object(plan) || !json_is_array(json_object_get(plan, "suspects")) ||
        !(limit > 0 && limit <= FC_RH_LIMIT_MAX)) {
        fprintf(stderr, "fabcert: retest_hosts: %s:%d:%d: %s\n", path, jerr.line, jerr.column,
                plan ? "not a plan of suspects with a limit_s in (0, 3600]" : jerr.text);
        json_decref(plan);
        *limit_p = 0;
        return NULL;
    }
    *limit_p = limit;
    return plan;
}

/* Each rank's host index, hosts in the order of their first rank. */
static int fc_rh_hosts(int size, char (*hosts)[FC_HOST_MAX], int *hidx, const char **names)
{
    int n = 0;

    for (int r = 0; r < size; ++r) {
        int h = 0;

        while (h < n && strcmp(names[h], hosts[r]) != 0)
            ++h;
        if (h == n)
            names[n++] = hosts[r];
        hidx[r] = h;
    }
    return n;
}

/* Rank 0: every rank's tallies (all[r * size + p]: what r received from p)
 * summed per directed host pair, into hex (compacted); returns their
 * count. */
static int fc_rh_fold(int size, const fc_exchange_t *all, const int *hidx, int nhosts,
                      long bytes, fc_host_exchange_t *hex)
{
    fc_host_exchange_t *grid = fc_xcalloc((size_t)nhosts * nhosts, sizeof(*grid),
                                          "the host pairs' tallies");
    int n = 0;

    for (int r = 0; r < size; ++r)
        for (int p = 0; p < size; ++p) {
            const fc_exchange_t *e = &all[r * size + p];
            fc_host_exchange_t *g = &grid[hidx[p] * nhosts + hidx[r]];

            if (e->iters <= 0)
                continue;
            if (g->wrong == 0 && e->wrong > 0) {
                g->first_index = e->first_index;
                g->expected = e->expected;
                g->actual = e->actual;
            }
            g->exchanges += e->iters;
            g->wrong_exchanges += e->wrong_iters;
            g->wrong += e->wrong;
            g->bytes += (uint64_t)e->iters * (uint64_t)bytes;
        }
    for (int s = 0; s < nhosts; ++s)
        for (int r = 0; r < nhosts; ++r)
            if (grid[s * nhosts + r].exchanges > 0) {
                hex[n] = grid[s * nhosts + r];
                hex[n].sender = s;
                hex[n].receiver = r;
                ++n;
            }
    free(grid);
    return n;
}

/* Rank 0: append the record, say it in TAP. */
static void fc_rh_report(const fc_rh_opts_t *o, json_t *plan, int nhosts, const char **names,
                         int nex, const fc_host_exchange_t *hex,
                         const fc_intersect_verdict_t *v, int size, long sweeps,
                         double seconds)
{
    fc_results_t results;
    fc_tap_t tap;
    json_t *rec = fc_intersect_record(plan, o->run_id, o->stage, nhosts, names, nex, hex, v,
                                      o->bytes, size, sweeps, seconds);
    char why[1024];

    snprintf(why, sizeof(why), "%s",
             json_string_value(json_array_get(json_object_get(rec, "reasons"), 0)));
    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, -1);
    fc_tap_point(&tap, FC_ERR_FAIL, "retest of %s: %s", json_string_value(
                 json_object_get(rec, "group")), why);
    fc_tap_done(&tap);
    if (fc_results_open(o->out_dir, &results) != FC_OK) {
        json_decref(rec);
        return;
    }
    fc_results_append(&results, rec);      /* takes rec */
    fc_results_close(&results);
}

/* The rounds of tournament `sweep` in an order every rank draws alike (a
 * shuffle seeded with the tournament's number): a fault that strikes every
 * Nth call meets every partner, whatever N and the number of rounds. */
static void fc_rh_order(int *order, int rounds, long sweep)
{
    uint64_t x = 0x9E3779B97F4A7C15ull * (uint64_t)(sweep + 1);

    for (int k = 0; k < rounds; ++k)
        order[k] = k;
    for (int k = rounds - 1; k > 0; --k) {
        int j, t;

        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        j = (int)((x * 0x2545F4914F6CDD1Dull >> 33) % (uint64_t)(k + 1));
        t = order[k];
        order[k] = order[j];
        order[j] = t;
    }
}

static void fc_rh_die(void)
{
    MPI_Abort(MPI_COMM_WORLD, FC_EXIT_FAIL);
    _exit(FC_EXIT_FAIL);
}

int main(int argc, char **argv)
{
    fc_rh_opts_t o;
    int rank = 0, size = 1, nhosts, nex = 0, rounds, step = 0, stop = 0;
    char host[FC_HOST_MAX] = "", (*hosts)[FC_HOST_MAX];
    const char **names;
    int *hidx, *order;
    fc_exchange_t *mine, *all = NULL;
    fc_host_exchange_t *hex = NULL;
    fc_intersect_verdict_t v;
    fc_pattern_t pat[2];
    int32_t *sendbuf[2], *recvbuf;
    json_t *plan = NULL;
    double limit = 0, t0, elapsed = 0;
    long sweeps = 0;
    size_t count;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    gethostname(host, sizeof(host) - 1);
    fc_log_set_identity(host, rank);
    fc_alloc_set_die(fc_rh_die);
    if (fc_rh_parse(argc, argv, &o, rank != 0) != FC_OK) {
        MPI_Finalize();
        return FC_EXIT_USAGE;
    }
    if (fc_watchdog_start(o.timeout_s, "retest_hosts", rank, host) != FC_OK) {
        MPI_Finalize();
        return FC_EXIT_FAIL;
    }
    if (rank == 0)
        plan = fc_rh_plan(o.plan_path, &limit);
    fc_ctl_bcast(MPI_COMM_WORLD, 0, "the retest's limit", &limit, sizeof(limit));
    fc_ctl_check(limit >= 0 && limit <= FC_RH_LIMIT_MAX, "the retest's limit", 0,
                 "%g s", limit);
    if (limit <= 0) {
        fc_watchdog_stop();
        MPI_Finalize();
        return FC_EXIT_USAGE;
    }
    hosts = fc_xcalloc((size_t)size, FC_HOST_MAX, "the ranks' host names");
    names = fc_xcalloc((size_t)size, sizeof(*names), "the host names");
    hidx = fc_xcalloc((size_t)size, sizeof(int), "the ranks' host indices");
    mine = fc_xcalloc((size_t)size, sizeof(*mine), "this rank's tallies");
    fc_ctl_allgather_strs(MPI_COMM_WORLD, "the ranks' host names", host, FC_HOST_MAX,
                          (char *)hosts);
    nhosts = fc_rh_hosts(size, hosts, hidx, names);
    if (rank == 0) {
        all = fc_xcalloc((size_t)size * size, sizeof(*all), "every rank's tallies");
        hex = fc_xcalloc((size_t)nhosts * nhosts, sizeof(*hex), "the host pairs");
    }
    count = (size_t)o.bytes / sizeof(int32_t);
    /* sized by --bytes: said with that size, not the out-of-memory policy */
    sendbuf[0] = malloc((size_t)o.bytes);
    sendbuf[1] = malloc((size_t)o.bytes);
    recvbuf = malloc((size_t)o.bytes);
    if (sendbuf[0] == NULL || sendbuf[1] == NULL || recvbuf == NULL) {
        fc_error("out of memory for the retest (%ld-byte buffers)", o.bytes);
        fc_rh_die();
    }
    for (int k = 0; k < 2; ++k) {
        fc_pattern_make(FC_INT32, FC_OP_NONE, size, fc_pattern_set_seed(o.seed, k), &pat[k]);
        fc_cpu_fill(&pat[k], rank, 0, sendbuf[k], count);
    }
    rounds = fc_pairs_rounds(size);
    order = fc_xcalloc((size_t)rounds + 1, sizeof(int), "the rounds' order");
    t0 = MPI_Wtime();
    while (!stop) {
        fc_rh_order(order, rounds, sweeps);
        for (int k = 0; k < rounds; ++k) {
            int r = order[k], partner = fc_pairs_partner(size, r, rank);
            char what[96];

            snprintf(what, sizeof(what), "retest of the suspects: tournament %ld, round %d "
                     "(partner rank %d)", sweeps + 1, k + 1, partner);
            fc_watchdog_progress(step++, what);
            if (partner >= 0)
                fc_retest_exchange(pat, rank, partner, 1, (int)(sweeps % 2), sendbuf, recvbuf,
                                   count, &mine[partner]);
        }
        ++sweeps;
        fc_ctl_gather(MPI_COMM_WORLD, 0, "the retest's tallies", mine,
                      (size_t)size * sizeof(*mine), all);
        if (rank == 0) {
            fc_rh_check(size, all, sweeps);
            nex = fc_rh_fold(size, all, hidx, nhosts, o.bytes, hex);
            fc_intersect_judge(nhosts, names, nex, hex, &v);
            elapsed = MPI_Wtime() - t0;
            /* placed on partners alone stops it; on the node's own
             * exchanges alone it goes on, to tell what it sends from what
             * it receives */
            stop = (v.outcome == FC_INTERSECT_PLACED && v.counterparts >= 2) || elapsed >= limit;
        }
        fc_ctl_bcast_ints(MPI_COMM_WORLD, 0, "the retest's stop", &stop, 1, 0, 1);
    }
    if (rank == 0)
        fc_rh_report(&o, plan, nhosts, names, nex, hex, &v, size, sweeps, elapsed);
    fc_watchdog_stop();
    free(sendbuf[0]);
    free(sendbuf[1]);
    free(recvbuf);
    free(hosts);
    free(names);
    free(hidx);
    free(order);
    free(mine);
    free(all);
    free(hex);
    json_decref(plan);
    MPI_Finalize();
    return FC_EXIT_FAIL;        /* a wrong result was observed, whatever it found */
}
