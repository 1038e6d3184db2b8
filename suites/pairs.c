/*
 * pairs.c - the pairs stage: point-to-point bandwidth (both directions at
 * once) and latency between every two nodes, scheduled as a round-robin
 * tournament (lib/stage/fc_pairs.h): n-1 rounds of n/2 concurrent pairs, so the
 * full matrix costs O(n) rounds; or, with the profile's mode: sampled (or
 * auto, at scale), between each node and K partners inside and across
 * racks (lib/stage/fc_pairs_schedule.h): K rounds, the pairs the plan meets and
 * no other. One rank per node takes part (the lowest world rank on each
 * host); the others wait at the end.
 *
 * Every received buffer is checked bitwise against the sender's pattern
 * (kernels/fc_pattern.h, source = the sender's node index). Rank 0 gathers
 * each round's measurements, judges every pair against the profile's
 * absolute limits (collective "sendrecv": min_busbw_gbps is the bandwidth
 * of one direction, max_latency_us the 8-byte half round trip) and against
 * the upper median of the pairs of its path kind, same rack or across the
 * spine (relative rule, lib/engine/fc_peers.h). A pair slow in its round is a
 * suspicion only: the confirmation measures suspects alone, one pair at a
 * time (lib/pairs/fc_pairs_confirm.h), and only what it reproduces is blamed: a
 * rack's uplink, a node's NIC or link (quarantined), or the path between
 * two nodes. Judging and records: lib/pairs/fc_pairs_report.c.
 *
 *   mpirun --hostfile H --map-by node build/suites/pairs --racks FILE ...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_ctl.h"
#include "fc_ctl_check.h"
#include "fc_kernels.h"
#include "fc_log.h"
#include "fc_pairs.h"
#include "fc_pairs_passes.h"
#include "fc_pairs_schedule.h"
#include "fc_pairs_stage.h"
#include "fc_quiet.h"
#include "fc_runq.h"
#include "fc_stats.h"
#include "fc_watchdog.h"

#define FC_PAIRS_TAG 4242
/* the confirmation may use the stage's time up to this share of its
 * timeout (the rest: its records, the tear-down), and starts a
 * measurement only while this many times the longest so far fits */
#define FC_CONFIRM_TIME_SHARE 0.9
#define FC_CONFIRM_PROBES_AHEAD 1.2
/* a measurement a host's CPU held is measured again after this pause,
 * doubling each time (lib/pairs/fc_pairs_passes.c): 0.25 to 2 s, 3.75 s
 * at most for one held four times, about the load balancer's reach */
#define FC_PAIRS_CPU_AGAIN_PAUSE_S 0.25

/* The buffers the tournament and the confirmation measure with. */
typedef struct fc_pairs_bufs {
    fc_pairs_run_t *run;
    int32_t *sendbuf[2];    /* the two input sets' */
    int32_t *recvbuf;
    fc_pair_side_t *mine;   /* this node's sides, one per size */
    fc_pair_side_t *all;    /* rank 0: every node's */
} fc_pairs_bufs_t;

static double fc_now(void)
{
    return MPI_Wtime();
}

/* Every leader's sides of one measurement to rank 0, checked on arrival
 * (lib/base/fc_ctl.h) and for values a side can hold. The leaders done first
 * wait for the others quietly (fc_quiet.h), then exchange. */
static void fc_pairs_gather_sides(const fc_pairs_run_t *run, const char *what,
                                  fc_pairs_bufs_t *bufs)
{
    int nz = run->ctx->sp.nsizes;

    fc_quiet_barrier(run->leaders);
    fc_ctl_gather(run->leaders, 0, what, bufs->mine, (size_t)nz * sizeof(*bufs->mine),
                  run->ctx->world_rank == 0 ? bufs->all : NULL);
    for (int i = 0; run->ctx->world_rank == 0 && i < run->nnodes * nz; ++i)
        fc_ctl_check(fc_ctl_side_ok(&bufs->all[i], run->nnodes, nz), what,
                     run->leader_world[i / nz], "a side of nodes %d and %d at size %d",
                     (int)bufs->all[i].node, (int)bufs->all[i].partner,
                     (int)bufs->all[i].size_index);
}

/* Rank 0 names the pair the confirmation measures next (-1, -1: none,
 * the confirmation is over) to every leader, who waits for it quietly. */
static void fc_pairs_tell(const fc_pairs_run_t *run, int msg[2])
{
    fc_quiet_barrier(run->leaders);
    fc_ctl_bcast_ints(run->leaders, 0, "the pair to confirm alone", msg, 2, -1,
                      run->nnodes - 1);
}

/* Exchange sizes[z] bytes with partner, warmup + iters times, alternating
 * the two input sets (a buffer delivered again is wrong for the set it
 * stands in for); verify every received buffer. */
static void fc_pairs_measure(fc_pairs_run_t *run, int partner, int z,
                             int32_t *const sendbuf[2], int32_t *recvbuf,
                             fc_pair_side_t *side)
{
    const fc_stage_profile_t *sp = &run->ctx->sp;
    const fc_selftest_t *st = &run->ctx->opts.selftest;
    uint64_t bytes = sp->sizes[z];
    size_t count = (size_t)(bytes / sizeof(int32_t));
    int total = sp->warmup + sp->iters;
    double *times = fc_xcalloc((size_t)total + 1, sizeof(double), "the pair's iteration times");
    double *recv_times = fc_xcalloc((size_t)total + 1, sizeof(double),
                                    "the pair's receive times");
    double *waits = fc_xcalloc((size_t)total + 1, sizeof(double),
                               "the round trips' waits for a CPU");
    double *gap_waits = fc_xcalloc((size_t)total + 1, sizeof(double),
                                   "the exchanges' waits for a CPU, each with the gap before");
    fc_pattern_t pat[2];
    int32_t lat[FC_PAIRS_LAT_BYTES / sizeof(int32_t)];
    double wait0;                   /* the CPU wait before a round trip */
    double wait_end;                /* ... and when the last exchange ended */

    memset(side, 0, sizeof(*side));
    side->node = run->node;
    side->partner = partner;
    side->size_index = z;
    side->valid = 1;
    side->first_iter = -1;
    if (count == 0) {
        fc_error("cannot measure %llu bytes", (unsigned long long)bytes);
        MPI_Abort(MPI_COMM_WORLD, FC_EXIT_FAIL);
    }
    for (int k = 0; k < 2; ++k) {
        fc_pattern_make(FC_INT32, FC_OP_NONE, run->nnodes,
                        fc_pattern_set_seed(run->ctx->profile.seed + 104729u * (uint32_t)z, k),
                        &pat[k]);
        fc_cpu_fill(&pat[k], run->node, 0, sendbuf[k], count);
    }
    fc_watchdog_peer(run->leader_world ? run->leader_world[partner] : -1);
    MPI_Sendrecv(NULL, 0, MPI_BYTE, partner, FC_PAIRS_TAG, NULL, 0, MPI_BYTE,
                 partner, FC_PAIRS_TAG, run->leaders, MPI_STATUS_IGNORE);
    wait_end = fc_runq_wait_s();
    for (int it = 0; it < total; ++it) {
        fc_mismatch_t m = { 0, 0, 0, 0 };
        MPI_Request req[2];
        double t0;

        memset(recvbuf, 0xA5, count * sizeof(int32_t));
        t0 = fc_now();
        /* both directions at once, as one exchange; the receive's end
         * timed on its own too: the partner's direction into this node
         * (the other side times this node's direction into it) */
        MPI_Irecv(recvbuf, (int)count, MPI_INT32_T, partner, FC_PAIRS_TAG, run->leaders,
                  &req[0]);
        MPI_Isend(sendbuf[it % 2], (int)count, MPI_INT32_T, partner, FC_PAIRS_TAG,
                  run->leaders, &req[1]);
        MPI_Wait(&req[0], MPI_STATUS_IGNORE);
        recv_times[it] = fc_now() - t0;
        MPI_Wait(&req[1], MPI_STATUS_IGNORE);
        times[it] = fc_now() - t0;
        {
            double w1 = fc_runq_wait_s();

            gap_waits[it] = fc_runq_between(wait_end, w1);
            wait_end = w1;      /* the next gap holds this buffer's check */
        }
        if (st->enabled && st->rank == run->ctx->world_rank && st->iter == it) {
            uint64_t k = st->index >= 0 && (uint64_t)st->index < count
                             ? (uint64_t)st->index : count / 2;

            ((unsigned char *)&recvbuf[k])[0] ^= (unsigned char)(1u << st->bit);
        }
        fc_cpu_verify(&pat[it % 2], partner, 0, recvbuf, count, 0, &m);
        if (m.wrong > 0 && side->wrong == 0) {
            side->first_iter = it;
            side->first_pos = m.first_pos;
            side->expected = m.expected_bits;
            side->actual = m.actual_bits;
        }
        side->wrong += m.wrong;
    }
    /* the waits with the gaps before them: a side held off its core while
     * it checked the last buffer starts late, and its partner's time
     * shows it */
    fc_pairs_free_time(times + sp->warmup, gap_waits + sp->warmup, sp->iters, &side->cpu_wait,
                       &side->free_median_s);
    side->median_s = fc_stats_median(times + sp->warmup, (size_t)sp->iters);
    side->recv_median_s = fc_stats_median(recv_times + sp->warmup, (size_t)sp->iters);
    fc_samples_keep(times + sp->warmup, sp->iters, &side->samples);
    side->calm = fc_pairs_calm_bits(times + sp->warmup, gap_waits + sp->warmup, sp->iters);
    /* latency: ping-pong, the lower node serves first; each message names
     * its sender and iteration, checked like the data (a changed bit is a
     * wrong element of the pair, at element 0 or 1) */
    for (int it = 0; it < total; ++it) {
        double t0;
        uint64_t got;

        wait0 = fc_runq_wait_s();
        t0 = fc_now();

        if (run->node < partner) {
            lat[0] = run->node;
            lat[1] = it;
            MPI_Send(lat, sizeof(lat), MPI_BYTE, partner, FC_PAIRS_TAG, run->leaders);
            MPI_Recv(lat, sizeof(lat), MPI_BYTE, partner, FC_PAIRS_TAG,
                     run->leaders, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(lat, sizeof(lat), MPI_BYTE, partner, FC_PAIRS_TAG,
                     run->leaders, MPI_STATUS_IGNORE);
            got = (uint64_t)(uint32_t)lat[0] | (uint64_t)(uint32_t)lat[1] << 32;
            lat[0] = run->node;
            lat[1] = it;
            MPI_Send(lat, sizeof(lat), MPI_BYTE, partner, FC_PAIRS_TAG, run->leaders);
            lat[0] = (int32_t)(uint32_t)got;
            lat[1] = (int32_t)(uint32_t)(got >> 32);
        }
        times[it] = fc_now() - t0;
        waits[it] = fc_runq_between(wait0, fc_runq_wait_s());
        if (lat[0] != partner || lat[1] != it) {
            if (side->wrong == 0) {
                side->first_iter = it;
                side->first_pos = lat[0] != partner ? 0 : 1;
                side->expected = (uint32_t)(lat[0] != partner ? partner : it);
                side->actual = (uint32_t)(lat[0] != partner ? lat[0] : lat[1]);
            }
            side->wrong += (lat[0] != partner) + (lat[1] != it);
        }
    }
    fc_pairs_free_time(times + sp->warmup, waits + sp->warmup, sp->iters, &side->lat_cpu_wait,
                       &side->free_lat_us);
    if (side->free_lat_us > 0)
        side->free_lat_us = side->free_lat_us / 2 * 1e6;
    side->lat_us = fc_stats_median(times + sp->warmup, (size_t)sp->iters) / 2 * 1e6;
    fc_watchdog_peer(-1);
    free(times);
    free(recv_times);
    free(waits);
    free(gap_waits);
}

/* Rank 0: merge the two sides of each pair measured in a round. */
static void fc_pairs_merge(fc_pairs_run_t *run, const fc_pair_side_t *sides,
                           int nsides)
{
    for (int i = 0; i < nsides; ++i) {
        const fc_pair_side_t *s = &sides[i];
        fc_pair_t *p;

        if (!s->valid)
            continue;
        if ((p = fc_pairs_find(run, s->node, s->partner, s->size_index)) == NULL) {
            p = &run->pairs[run->npairs++];
            fc_pairs_pair_new(p, s->node, s->partner, s->size_index);
        }
        fc_pairs_merge_side(run, p, s);
    }
}

/* Every leader: one alone measurement of x <-> y at every size while the
 * others wait; rank 0 gets it into alone[index * nsizes + z] (judged by
 * lib/pairs/fc_pairs_passes.c). */
static void fc_pairs_probe_step(fc_pairs_bufs_t *bufs, int x, int y, int index)
{
    fc_pairs_run_t *run = bufs->run;
    int nz = run->ctx->sp.nsizes;
    char what[96];

    snprintf(what, sizeof(what), "pairs confirmation: node %d <-> node %d alone", x, y);
    fc_stage_progress(run->ctx, 1000000 + index, what);
    for (int z = 0; z < nz; ++z) {
        if (run->node == x || run->node == y)
            fc_pairs_measure(run, run->node == x ? y : x, z, bufs->sendbuf, bufs->recvbuf,
                             &bufs->mine[z]);
        else
            memset(&bufs->mine[z], 0, sizeof(bufs->mine[z]));
    }
    /* the leaders not in the probe wait without spinning (fc_quiet.h):
     * the probe is alone on the hosts' cores too, not only on the wire */
    fc_pairs_gather_sides(run, "the sides of a pair measured alone", bufs);
    if (run->ctx->world_rank != 0)
        return;
    for (int z = 0; z < nz; ++z)
        fc_pairs_pair_new(&run->alone[index * nz + z], x, y, z);
    for (int i = 0; i < run->nnodes * nz; ++i)
        if (bufs->all[i].valid)
            fc_pairs_merge_side(run, &run->alone[index * nz + bufs->all[i].size_index],
                                &bufs->all[i]);
    /* the exchanges calm on both sides, x's and y's sides side by side */
    for (int z = 0; z < nz; ++z) {
        const fc_pair_side_t *sx = &bufs->all[x * nz + z], *sy = &bufs->all[y * nz + z];

        if (sx->valid && sy->valid && sx->node == x && sx->partner == y && sy->node == y &&
            sy->partner == x)
            fc_pairs_calm_figure(&run->alone[index * nz + z], sx, sy, run->ctx->sp.sizes[z]);
    }
}

/* Rank 0's measurement for the confirmation (fc_pairs_measure_func_t):
 * name the pair to every leader, then measure it once with them into
 * stored measurement s. Bounded in time: a measurement starts only while
 * 1.2 times the longest alone so far (before the first: the slowest
 * round) ends before the share of the stage's timeout the confirmation
 * may use; else it and every later one are not made (the pairs left
 * UNCONFIRMED: never a pass, never a quarantine), and what was measured
 * is kept, where running past the timeout (a lossy link's
 * retransmissions) lost it all. A measurement already started is not cut
 * short. */
static int fc_pairs_probe(void *arg, fc_pairs_run_t *run, int x, int y, int s)
{
    fc_pairs_bufs_t *bufs = arg;
    int msg[2] = { x, y };
    double t0 = MPI_Wtime(), longest = run->measure_max_s > 0 ? run->measure_max_s
                                                               : run->round_max_s;

    if (run->confirm_out_of_time ||
        t0 + FC_CONFIRM_PROBES_AHEAD * longest >
            run->ctx->started_s + FC_CONFIRM_TIME_SHARE * run->ctx->sp.timeout_s) {
        run->confirm_out_of_time = 1;
        run->confirm.out_of_time = 1;
        return -1;
    }
    fc_pairs_tell(run, msg);
    fc_pairs_probe_step(bufs, x, y, s);
    if (MPI_Wtime() - t0 > run->measure_max_s)
        run->measure_max_s = MPI_Wtime() - t0;
    return 0;
}

/* Rank 0: confirm the tournament's slow pairs alone (fc_pairs_confirm.h);
 * the other leaders serve its probes until it says stop. */
static void fc_pairs_confirm_alone(fc_pairs_bufs_t *bufs)
{
    fc_pairs_run_t *run = bufs->run;
    int n = run->nnodes, npairs, nslow = 0, *a, *b;
    int max_measures = FC_CONFIRM_MAX_MEASURES * (4 * n + 8), stop[2] = { -1, -1 };

    if (run->ctx->world_rank != 0) {
        for (int index = 0;; ++index) {
            int msg[2];

            fc_pairs_tell(run, msg);
            if (msg[0] < 0)
                return;
            fc_pairs_probe_step(bufs, msg[0], msg[1], index);
        }
    }
    /* the pairs the rounds measured (sampled: the plan's, not every pair):
     * the same list, in the same order, as fc_pairs_report's */
    npairs = fc_pairs_measured(run, &a, &b);
    int *slow = fc_xcalloc((size_t)npairs + 1, sizeof(int), "the slow pairs");
    double t0 = MPI_Wtime();

    run->confirm_budget = max_measures;
    for (int k = 0; k < npairs; ++k) {
        for (int z = 0; z < run->ctx->sp.nsizes; ++z) {
            const fc_pair_t *p = fc_pairs_find(run, a[k], b[k], z);

            slow[k] |= p != NULL && p->slow;
        }
        nslow += slow[k];
    }
    fc_pairs_confirm_passes(run, npairs, a, b, slow, max_measures, fc_pairs_probe, bufs);
    run->confirmed = 1;
    fc_pairs_tell(run, stop);
    run->confirm_seconds = MPI_Wtime() - t0;
    run->ctx->confirm_s += run->confirm_seconds;
    if (nslow > 0)
        fc_tap_diag(&run->ctx->tap, "pairs: %d slow pair(s) in the rounds; confirmation: %d "
                    "pair(s) probed alone (%d measurements) in %.2f s%s", nslow,
                    run->confirmed ? run->confirm.nprobes : 0,
                    run->confirmed ? run->nalone : 0, run->confirm_seconds,
                    run->confirm_out_of_time ? " (the stage's time ran out: the probes "
                    "left were not made)" : run->confirm.exhausted ? " (the probes ran out)" : "");
    free(a);
    free(b);
    free(slow);
}

static fc_status_t fc_pairs_run(fc_pairs_run_t *run)
{
    fc_stage_ctx_t *ctx = run->ctx;
    const fc_stage_profile_t *sp = &ctx->sp;
    int rounds, nz = sp->nsizes;
    uint64_t max_bytes = 0;
    fc_pairs_bufs_t bufs = { .run = run };
    fc_pairs_schedule_t sched;
    int *racks = fc_xcalloc((size_t)run->nnodes, sizeof(int), "the nodes' racks");
    char why[160];

    /* every leader derives the same schedule from every node's rack */
    fc_ctl_allgather_ints(run->leaders, "the nodes' racks", &ctx->rack, 1, racks, 0,
                          ctx->inv.nracks - 1);
    if (fc_pairs_schedule_init(&sched, run->nnodes, racks, sp->pairs_mode, sp->pairs_partners,
                               why, sizeof(why)) != 0) {
        fc_error("pairs: %s", why);
        MPI_Abort(MPI_COMM_WORLD, FC_EXIT_FAIL);
    }
    free(racks);
    rounds = sched.rounds;
    run->sampled = sched.sampled;
    run->partners = sched.partners;
    {
        unsigned char *planned = fc_xcalloc((size_t)run->nnodes * (size_t)run->nnodes + 1, 1,
                                            "the planned pairs");

        run->planned_pairs = fc_pairs_schedule_pairs(&sched, planned);
        free(planned);
    }

    for (int z = 0; z < nz; ++z)
        if (sp->sizes[z] > max_bytes)
            max_bytes = sp->sizes[z];
    bufs.mine = fc_xcalloc((size_t)nz, sizeof(*bufs.mine), "this node's pair sides");
    if (ctx->world_rank == 0) {
        bufs.all = fc_xcalloc((size_t)run->nnodes * (size_t)nz, sizeof(*bufs.all),
                              "the round's pair sides");
        run->pairs = fc_xcalloc((size_t)run->nnodes * (size_t)run->nnodes * (size_t)nz + 1,
                                sizeof(*run->pairs), "the pairs");
    }
    /* the data buffers are sized by the profile's largest size (its
     * input): a failure is said with that size, not the out-of-memory
     * policy (lib/base/fc_alloc.h) */
    bufs.sendbuf[0] = malloc(max_bytes + 64);
    bufs.sendbuf[1] = malloc(max_bytes + 64);
    bufs.recvbuf = malloc(max_bytes + 64);
    if (bufs.sendbuf[0] == NULL || bufs.sendbuf[1] == NULL || bufs.recvbuf == NULL) {
        fc_error("out of memory for the pairs stage (%llu-byte buffers)",
                 (unsigned long long)max_bytes);
        MPI_Abort(MPI_COMM_WORLD, FC_EXIT_FAIL);
    }
    double t0 = MPI_Wtime();

    if (ctx->world_rank == 0 && !run->sampled)
        fc_tap_diag(&ctx->tap, "pairs: %d nodes, %d rounds of %d pairs%s%s%s", run->nnodes,
                    rounds, run->nnodes / 2, sched.full_why[0] ? " (every pair, not sampled: "
                    : "", sched.full_why, sched.full_why[0] ? ")" : "");
    else if (ctx->world_rank == 0)
        fc_tap_diag(&ctx->tap, "pairs: %d nodes, sampled: %d partners per node (%d rounds "
                    "inside racks, %d across; %d racks padded to %d), %ld of %d pairs",
                    run->nnodes, run->partners, sched.plan.intra, sched.plan.inter,
                    sched.plan.racks, sched.plan.per_rack, run->planned_pairs,
                    run->nnodes * (run->nnodes - 1) / 2);
    for (int r = 0; r < rounds; ++r) {
        int partner = fc_pairs_schedule_partner(&sched, r, run->node);
        char what[96];
        double r0 = MPI_Wtime();

        snprintf(what, sizeof(what), "pairs round %d of %d (partner node %d)",
                 r + 1, rounds, partner);
        fc_stage_progress(ctx, r, what);
        for (int z = 0; z < nz; ++z) {
            if (partner >= 0)
                fc_pairs_measure(run, partner, z, bufs.sendbuf, bufs.recvbuf, &bufs.mine[z]);
            else
                memset(&bufs.mine[z], 0, sizeof(bufs.mine[z]));
        }
        fc_pairs_gather_sides(run, "the sides of a round's pairs", &bufs);
        if (ctx->world_rank == 0) {
            /* each round as it ends: the runner's progress and ETA
             * (runners/fc_progress.h) follow these */
            json_t *rec = fc_stage_record(ctx, "pairs_round");

            if (MPI_Wtime() - r0 > run->round_max_s)
                run->round_max_s = MPI_Wtime() - r0;
            fc_pairs_merge(run, bufs.all, run->nnodes * nz);
            json_object_set_new(rec, "round", json_integer(r + 1));
            json_object_set_new(rec, "rounds", json_integer(rounds));
            json_object_set_new(rec, "seconds", json_real(MPI_Wtime() - t0));
            fc_results_append(&ctx->results, rec);
        }
    }
    if (ctx->world_rank == 0) {
        double took = MPI_Wtime() - t0;
        json_t *rec = fc_stage_record(ctx, "pairs_schedule");

        json_object_set_new(rec, "nodes", json_integer(run->nnodes));
        json_object_set_new(rec, "rounds", json_integer(rounds));
        json_object_set_new(rec, "pairs", json_integer(run->planned_pairs));
        json_object_set_new(rec, "all_pairs", json_integer(run->nnodes * (run->nnodes - 1) / 2));
        json_object_set_new(rec, "mode", json_string(run->sampled ? "sampled" : "full"));
        json_object_set_new(rec, "partners", json_integer(run->partners));
        json_object_set_new(rec, "min_partners",
                            json_integer(fc_pairs_schedule_min_partners(&sched)));
        if (sched.full_why[0])
            json_object_set_new(rec, "full_because", json_string(sched.full_why));
        if (run->sampled)
            json_object_set_new(rec, "plan", json_pack(
                "{s:i, s:i, s:i, s:i}", "racks", sched.plan.racks, "per_rack",
                sched.plan.per_rack, "intra", sched.plan.intra, "inter", sched.plan.inter));
        json_object_set_new(rec, "seconds", json_real(took));
        fc_results_append(&ctx->results, rec);
        fc_tap_diag(&ctx->tap, "pairs: %d rounds measured in %.2f s", rounds, took);
        fc_pairs_judge(run);
    }
    /* what a round found slow is confirmed alone before anything is blamed */
    fc_pairs_confirm_alone(&bufs);
    if (ctx->world_rank == 0) {
        json_t *rec = fc_stage_record(ctx, "pairs_confirmation");

        json_object_set_new(rec, "probes", json_integer(run->confirmed ? run->confirm.nprobes : 0));
        json_object_set_new(rec, "measurements", json_integer(run->confirmed ? run->nalone : 0));
        json_object_set_new(rec, "passes", json_integer(run->alone_passes));
        json_object_set_new(rec, "tolerance", run->confirmed
                                ? fc_pairs_alone_tolerance_json(run) : json_null());
        json_object_set_new(rec, "max_measurements", json_integer(run->confirm_budget));
        json_object_set_new(rec, "exhausted", json_boolean(run->confirm.exhausted));
        json_object_set_new(rec, "out_of_time", json_boolean(run->confirm_out_of_time));
        json_object_set_new(rec, "common_node",
                            run->confirmed && run->confirm.common_node >= 0
                                ? json_string(run->node_hosts[run->confirm.common_node])
                                : json_null());
        json_object_set_new(rec, "seconds", json_real(run->confirm_seconds));
        fc_results_append(&ctx->results, rec);
        ctx->failed_points += fc_pairs_report(run);
    }
    if (run->confirmed)
        fc_pairs_confirm_free(&run->confirm);
    fc_pairs_schedule_free(&sched);
    free(run->alone);
    free(run->alone_of);
    free(bufs.mine); free(bufs.all); free(bufs.recvbuf);
    free(bufs.sendbuf[0]); free(bufs.sendbuf[1]);
    return FC_OK;
}

int main(int argc, char **argv)
{
    fc_stage_ctx_t ctx;
    fc_pairs_run_t run;
    fc_status_t status;
    MPI_Comm node_comm;
    int node_rank;

    status = fc_stage_init(&argc, &argv, FC_STAGE_PAIRS, &ctx);
    if (status != FC_OK)
        return fc_stage_exit(status);
    memset(&run, 0, sizeof(run));
    run.ctx = &ctx;
    run.cpu_again_pause_s = FC_PAIRS_CPU_AGAIN_PAUSE_S;
    fc_stage_split_by_host(&ctx, &node_comm);
    MPI_Comm_rank(node_comm, &node_rank);
    MPI_Comm_split(MPI_COMM_WORLD, node_rank == 0 ? 0 : MPI_UNDEFINED,
                   ctx.world_rank, &run.leaders);
    if (run.leaders != MPI_COMM_NULL) {
        char host[FC_HOST_MAX];

        MPI_Comm_rank(run.leaders, &run.node);
        MPI_Comm_size(run.leaders, &run.nnodes);
        run.leader_world = fc_xcalloc((size_t)run.nnodes, sizeof(int), "the leaders' ranks");
        fc_ctl_allgather_ints(run.leaders, "the leaders' world ranks", &ctx.world_rank, 1,
                              run.leader_world, 0, ctx.world_size - 1);
        if (ctx.world_rank == 0) {
            run.node_hosts = fc_xcalloc((size_t)run.nnodes, FC_HOST_MAX, "the nodes' names");
            run.node_racks = fc_xcalloc((size_t)run.nnodes, sizeof(int), "the nodes' racks");
        }
        snprintf(host, sizeof(host), "%s", ctx.host);
        fc_ctl_gather_strs(run.leaders, 0, "the nodes' names", host, FC_HOST_MAX,
                           (char *)run.node_hosts);
        fc_ctl_gather_ints(run.leaders, 0, "the nodes' racks", &ctx.rack, 1, run.node_racks, 0,
                           ctx.inv.nracks - 1);
        if (run.nnodes < 2) {
            if (ctx.world_rank == 0) {
                fc_tap_skip(&ctx.tap, "fewer than 2 nodes", "pairs");
                status = FC_ERR_SKIP;
            }
        } else {
            status = fc_pairs_run(&run);
        }
        MPI_Comm_free(&run.leaders);
    }
    /* the ranks that are not their node's leader wait here the whole
     * stage: quietly, not beside the measured ranks on their cores */
    fc_quiet_barrier(MPI_COMM_WORLD);
    {
        int agreed = (int)status;

        fc_ctl_bcast_ints(MPI_COMM_WORLD, 0, "the stage's status", &agreed, 1, FC_OK,
                          FC_ERR_INTERNAL);
        status = (fc_status_t)agreed;
    }
    MPI_Comm_free(&node_comm);
    free(run.node_hosts);
    free(run.node_racks);
    free(run.leader_world);
    free(run.pairs);
    return fc_stage_finish(&ctx, status);
}
