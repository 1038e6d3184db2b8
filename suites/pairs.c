/*
 * pairs.c - the pairs stage: point-to-point bandwidth (both directions at
 * once) and latency between every two nodes, scheduled as a round-robin
 * tournament (lib/fc_pairs.h): n-1 rounds of n/2 concurrent pairs, so the
 * full matrix costs O(n) rounds. One rank per node takes part (the lowest
 * world rank on each host); the others wait at the end.
 *
 * Every received buffer is checked bitwise against the sender's pattern
 * (kernels/fc_pattern.h, source = the sender's node index). Rank 0 gathers
 * each round's measurements, judges every pair against the profile's
 * absolute limits (collective "sendrecv": min_busbw_gbps is the bandwidth
 * of one direction, max_latency_us the 8-byte half round trip) and against
 * the upper median of the pairs of its path kind, same rack or across the
 * spine (relative rule, lib/fc_peers.h), then localises: a node
 * slow with most of its partners implicates its NIC or link and is
 * quarantined; a lone slow pair implicates the path between the two.
 *
 *   mpirun --hostfile H --map-by node build/suites/pairs --racks FILE ...
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_judge.h"
#include "fc_kernels.h"
#include "fc_localise.h"
#include "fc_log.h"
#include "fc_pairs.h"
#include "fc_peers.h"
#include "fc_stage.h"
#include "fc_stats.h"

#define FC_PAIRS_LAT_BYTES 8
#define FC_PAIRS_TAG 4242

/* One side's measurement of one pair at one size. */
typedef struct fc_pair_side {
    int32_t node, partner, size_index, valid;
    double median_s;        /* median time of one exchange */
    double lat_us;          /* half round trip, 8 bytes */
    uint64_t wrong;         /* wrong elements received */
    int32_t first_iter;
    uint64_t first_pos, expected, actual;
} fc_pair_side_t;

/* How the relative rule met a pair at one size. */
typedef enum fc_pair_rel {
    FC_PAIR_REL_OFF = 0,    /* the profile has no relative rule */
    FC_PAIR_REL_APPLIED,    /* compared with the upper median of its class */
    FC_PAIR_REL_ALONE,      /* no other pair of its path kind */
    FC_PAIR_REL_SMALL,      /* size below relative.min_bytes */
} fc_pair_rel_t;

/* A pair at one size, both sides merged (rank 0). */
typedef struct fc_pair {
    int a, b, size_index;
    double bw_gbps;         /* per direction, from the slower side */
    double lat_us;
    uint64_t wrong;
    uint64_t wrong_at[2];   /* of those, received by a, by b */
    int bad_node;           /* the node that received wrong data, or -1 */
    fc_pair_side_t first;   /* the side that saw the first mismatch */
    int slow;
    char reasons[3][FC_REASON_MAX];
    int nreasons;
    double limit_bw, limit_lat;
    int limit_line;
    fc_pair_rel_t rel;      /* the relative rule: reference or why none */
    double ref;             /* the upper median of its peer class */
    int ref_members;        /* pairs in that class */
} fc_pair_t;

typedef struct fc_pairs_run {
    fc_stage_ctx_t *ctx;
    MPI_Comm leaders;       /* one rank per node; MPI_COMM_NULL elsewhere */
    int node, nnodes;
    char (*node_hosts)[FC_HOST_MAX];    /* rank 0 */
    int *node_racks;                    /* rank 0 */
    fc_pair_t *pairs;                   /* rank 0: every pair, every size */
    int npairs;
} fc_pairs_run_t;

static double fc_now(void)
{
    return MPI_Wtime();
}

/* Exchange sizes[z] bytes with partner, warmup + iters times; verify every
 * received buffer. */
static void fc_pairs_measure(fc_pairs_run_t *run, int partner, int z,
                             int32_t *sendbuf, int32_t *recvbuf,
                             fc_pair_side_t *side)
{
    const fc_stage_profile_t *sp = &run->ctx->sp;
    const fc_selftest_t *st = &run->ctx->opts.selftest;
    uint64_t bytes = sp->sizes[z];
    size_t count = (size_t)(bytes / sizeof(int32_t));
    int total = sp->warmup + sp->iters;
    double *times = calloc((size_t)total + 1, sizeof(double));
    fc_pattern_t pat;
    char lat[FC_PAIRS_LAT_BYTES] = { 0 };

    memset(side, 0, sizeof(*side));
    side->node = run->node;
    side->partner = partner;
    side->size_index = z;
    side->valid = 1;
    side->first_iter = -1;
    if (times == NULL || count == 0) {
        fc_error("cannot measure %llu bytes", (unsigned long long)bytes);
        MPI_Abort(MPI_COMM_WORLD, FC_EXIT_FAIL);
    }
    fc_pattern_make(FC_INT32, FC_OP_NONE, run->nnodes,
                    run->ctx->profile.seed + 104729u * (uint32_t)z, &pat);
    fc_cpu_fill(&pat, run->node, 0, sendbuf, count);
    MPI_Sendrecv(NULL, 0, MPI_BYTE, partner, FC_PAIRS_TAG, NULL, 0, MPI_BYTE,
                 partner, FC_PAIRS_TAG, run->leaders, MPI_STATUS_IGNORE);
    for (int it = 0; it < total; ++it) {
        fc_mismatch_t m = { 0, 0, 0, 0 };
        double t0;

        memset(recvbuf, 0xA5, count * sizeof(int32_t));
        t0 = fc_now();
        MPI_Sendrecv(sendbuf, (int)count, MPI_INT32_T, partner, FC_PAIRS_TAG,
                     recvbuf, (int)count, MPI_INT32_T, partner, FC_PAIRS_TAG,
                     run->leaders, MPI_STATUS_IGNORE);
        times[it] = fc_now() - t0;
        if (st->enabled && st->rank == run->ctx->world_rank && st->iter == it) {
            uint64_t k = st->index >= 0 && (uint64_t)st->index < count
                             ? (uint64_t)st->index : count / 2;

            ((unsigned char *)&recvbuf[k])[0] ^= (unsigned char)(1u << st->bit);
        }
        fc_cpu_verify(&pat, partner, 0, recvbuf, count, 0, &m);
        if (m.wrong > 0 && side->wrong == 0) {
            side->first_iter = it;
            side->first_pos = m.first_pos;
            side->expected = m.expected_bits;
            side->actual = m.actual_bits;
        }
        side->wrong += m.wrong;
    }
    side->median_s = fc_stats_median(times + sp->warmup, (size_t)sp->iters);
    /* latency: ping-pong, the lower node serves first */
    for (int it = 0; it < total; ++it) {
        double t0 = fc_now();

        if (run->node < partner) {
            MPI_Send(lat, sizeof(lat), MPI_BYTE, partner, FC_PAIRS_TAG, run->leaders);
            MPI_Recv(lat, sizeof(lat), MPI_BYTE, partner, FC_PAIRS_TAG,
                     run->leaders, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(lat, sizeof(lat), MPI_BYTE, partner, FC_PAIRS_TAG,
                     run->leaders, MPI_STATUS_IGNORE);
            MPI_Send(lat, sizeof(lat), MPI_BYTE, partner, FC_PAIRS_TAG, run->leaders);
        }
        times[it] = fc_now() - t0;
    }
    side->lat_us = fc_stats_median(times + sp->warmup, (size_t)sp->iters) / 2 * 1e6;
    free(times);
}

/* Rank 0: merge the two sides of each pair measured in a round. */
static void fc_pairs_merge(fc_pairs_run_t *run, const fc_pair_side_t *sides,
                           int nsides)
{
    const fc_stage_profile_t *sp = &run->ctx->sp;

    for (int i = 0; i < nsides; ++i) {
        const fc_pair_side_t *s = &sides[i];
        fc_pair_t *p = NULL;

        if (!s->valid)
            continue;
        for (int k = 0; k < run->npairs; ++k) {
            fc_pair_t *q = &run->pairs[k];

            if (q->size_index == s->size_index &&
                ((q->a == s->node && q->b == s->partner) ||
                 (q->b == s->node && q->a == s->partner)))
                p = q;
        }
        if (p == NULL) {
            p = &run->pairs[run->npairs++];
            memset(p, 0, sizeof(*p));
            p->a = s->node < s->partner ? s->node : s->partner;
            p->b = s->node < s->partner ? s->partner : s->node;
            p->size_index = s->size_index;
            p->bad_node = -1;
            p->bw_gbps = 1e300;
        }
        double bw = fc_stats_algbw(sp->sizes[s->size_index], s->median_s);

        if (bw < p->bw_gbps)
            p->bw_gbps = bw;
        if (s->lat_us > p->lat_us)
            p->lat_us = s->lat_us;
        if (s->wrong > 0 && p->wrong == 0) {
            p->bad_node = s->node;
            p->first = *s;
        }
        p->wrong += s->wrong;
        p->wrong_at[s->node == p->a ? 0 : 1] += s->wrong;
    }
}

static void fc_pair_fail(fc_pair_t *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void fc_pair_fail(fc_pair_t *p, const char *fmt, ...)
{
    va_list ap;

    if (p->nreasons == 3)
        return;
    va_start(ap, fmt);
    vsnprintf(p->reasons[p->nreasons++], FC_REASON_MAX, fmt, ap);
    va_end(ap);
}

/* Rank 0: the relative rule's reference of every pair measured at size z:
 * the upper median of its peer class (same rack, or across the spine), so
 * that up to half the pairs of a class being slow does not drag the
 * reference down. Returns 0 when out of memory. */
static int fc_pairs_reference(fc_pairs_run_t *run, int z)
{
    const fc_stage_profile_t *sp = &run->ctx->sp;
    int n = run->npairs, k = 0, *idx = calloc((size_t)n + 1, sizeof(int));
    int *has = calloc((size_t)n + 1, sizeof(int));
    double *bw = calloc((size_t)n + 1, sizeof(double));
    fc_peer_shape_t *shapes = calloc((size_t)n + 1, sizeof(*shapes));
    fc_peer_ref_t *refs = calloc((size_t)n + 1, sizeof(*refs));
    int ok = idx && has && bw && shapes && refs;

    for (int q = 0; ok && q < n; ++q) {
        const fc_pair_t *p = &run->pairs[q];

        if (p->size_index != z)
            continue;
        shapes[k] = (fc_peer_shape_t){ 2, 2, fc_peer_pair_path(run->node_racks[p->a],
                                                               run->node_racks[p->b]) };
        bw[k] = p->bw_gbps;
        has[k] = 1;
        idx[k++] = q;
    }
    if (ok)
        fc_peers_reference(shapes, bw, has, k, FC_PEER_UPPER_MEDIAN, "pair", refs);
    for (int i = 0; ok && i < k; ++i) {
        fc_pair_t *p = &run->pairs[idx[i]];

        p->rel = sp->max_below_median_pct < 0 ? FC_PAIR_REL_OFF :
                 sp->sizes[z] < sp->relative_min_bytes ? FC_PAIR_REL_SMALL :
                 refs[i].applies ? FC_PAIR_REL_APPLIED : FC_PAIR_REL_ALONE;
        p->ref = refs[i].applies ? refs[i].reference : -1;
        p->ref_members = refs[i].members;
    }
    free(idx); free(has); free(bw); free(shapes); free(refs);
    return ok;
}

/* "upper median of 13 pairs in the same rack" */
static void fc_pairs_class_text(const fc_pairs_run_t *run, const fc_pair_t *p,
                                int members, char *buf, size_t len)
{
    fc_peer_shape_t shape = { 2, 2, fc_peer_pair_path(run->node_racks[p->a],
                                                      run->node_racks[p->b]) };

    fc_peer_class_text(&shape, members, "pair", buf, len);
}

/* Rank 0: absolute limits, the relative rule against the pair's peer
 * class, and wrong data. */
static void fc_pairs_judge(fc_pairs_run_t *run)
{
    const fc_stage_profile_t *sp = &run->ctx->sp;

    for (int z = 0; z < sp->nsizes; ++z) {
        const fc_limit_rule_t *rule = fc_profile_find_limit(
            sp, FC_COLL_SENDRECV, FC_INT32, FC_OP_NONE, sp->sizes[z]);
        const fc_limit_rule_t *lat_rule = fc_profile_find_limit(
            sp, FC_COLL_SENDRECV, FC_INT32, FC_OP_NONE, FC_PAIRS_LAT_BYTES);

        if (!fc_pairs_reference(run, z))
            fc_error("out of memory: the relative rule of the pairs stage is not "
                     "applied at %llu bytes", (unsigned long long)sp->sizes[z]);
        for (int k = 0; k < run->npairs; ++k) {
            fc_pair_t *p = &run->pairs[k];

            if (p->size_index != z)
                continue;
            p->limit_bw = rule ? rule->min_busbw_gbps : -1;
            p->limit_lat = lat_rule ? lat_rule->max_latency_us : -1;
            p->limit_line = rule ? rule->line : 0;
            if (rule && rule->min_busbw_gbps >= 0 && p->bw_gbps < rule->min_busbw_gbps) {
                p->slow = 1;
                fc_pair_fail(p, "bandwidth %.4f GB/s per direction is below the "
                             "limit %.4f GB/s (profile line %d)", p->bw_gbps,
                             rule->min_busbw_gbps, rule->line);
            }
            if (z == 0 && lat_rule && lat_rule->max_latency_us >= 0 &&
                p->lat_us > lat_rule->max_latency_us) {
                p->slow = 1;
                fc_pair_fail(p, "latency %.1f us is above the limit %.1f us "
                             "(profile line %d)", p->lat_us,
                             lat_rule->max_latency_us, lat_rule->line);
            }
            if (p->rel == FC_PAIR_REL_APPLIED &&
                p->bw_gbps < p->ref * (1.0 - sp->max_below_median_pct / 100.0)) {
                char peers[128];

                fc_pairs_class_text(run, p, p->ref_members, peers, sizeof(peers));
                p->slow = 1;
                fc_pair_fail(p, "bandwidth %.4f GB/s is %.0f%% below the upper median "
                             "of %s (%.4f GB/s; allowed %.0f%%)",
                             p->bw_gbps, 100.0 * (1.0 - p->bw_gbps / p->ref), peers,
                             p->ref, sp->max_below_median_pct);
            }
            if (p->wrong > sp->max_wrong)
                fc_pair_fail(p, "%llu wrong elements received on %s (rank of "
                             "node %d) from %s, first at element %llu of iteration %d: "
                             "expected 0x%08llx, got 0x%08llx",
                             (unsigned long long)p->wrong,
                             run->node_hosts[p->bad_node], p->bad_node,
                             run->node_hosts[p->first.partner],
                             (unsigned long long)p->first.first_pos,
                             p->first.first_iter,
                             (unsigned long long)p->first.expected,
                             (unsigned long long)p->first.actual);
        }
    }
}

/* The relative rule as it met pair p, into its size entry: the reference
 * and its class, or why the rule did not apply. */
static void fc_pairs_relative_json(const fc_pairs_run_t *run, const fc_pair_t *p,
                                   json_t *entry)
{
    const fc_stage_profile_t *sp = &run->ctx->sp;
    char peers[128], why[FC_REASON_MAX], size[32], from[32];

    if (p->rel == FC_PAIR_REL_OFF)
        return;
    if (p->rel == FC_PAIR_REL_APPLIED) {
        fc_pairs_class_text(run, p, p->ref_members, peers, sizeof(peers));
        json_object_set_new(entry, "relative", json_pack(
            "{s:f, s:f, s:s, s:i}", "peer_upper_median_gbps", p->ref,
            "max_below_median_pct", sp->max_below_median_pct, "class", peers,
            "peers", p->ref_members));
        return;
    }
    fc_format_size(sp->sizes[p->size_index], size, sizeof(size));
    fc_format_size(sp->relative_min_bytes, from, sizeof(from));
    fc_pairs_class_text(run, p, p->ref_members, peers, sizeof(peers));
    if (p->rel == FC_PAIR_REL_SMALL)
        snprintf(why, sizeof(why), "relative rule not applied: %s is below "
                 "relative.min_bytes (%s)", size, from);
    else
        snprintf(why, sizeof(why), "relative rule not applied: no peer of its path "
                 "kind (%s); judged on the absolute limits alone", peers);
    json_object_set_new(entry, "rules_not_applied", json_pack("[s]", why));
}

/* Rank 0: which node's data is wrong, from the pairs' checked exchanges
 * (both directions of every pair, over every size): lib/fc_localise.h,
 * one rank per node. */
static void fc_pairs_blame_data(const fc_pairs_run_t *run, int npairs, const int *a,
                                const int *b, fc_blame_t *blame)
{
    fc_exchange_t *ex = calloc((size_t)npairs * 2 + 1, sizeof(*ex));
    int *host = calloc((size_t)run->nnodes + 1, sizeof(int));

    for (int v = 0; v < run->nnodes && host; ++v)
        host[v] = v;
    for (int v = 0; v < run->nnodes; ++v)
        blame[v] = FC_BLAME_NONE;
    if (ex == NULL || host == NULL) {
        free(ex);
        free(host);
        return;
    }
    for (int k = 0; k < npairs; ++k) {
        ex[2 * k] = (fc_exchange_t){ .sender = a[k], .receiver = b[k], .iters = 1 };
        ex[2 * k + 1] = (fc_exchange_t){ .sender = b[k], .receiver = a[k], .iters = 1 };
        for (int q = 0; q < run->npairs; ++q)
            if (run->pairs[q].a == a[k] && run->pairs[q].b == b[k]) {
                ex[2 * k].wrong += run->pairs[q].wrong_at[1];
                ex[2 * k + 1].wrong += run->pairs[q].wrong_at[0];
            }
    }
    fc_localise(run->nnodes, host, npairs * 2, ex, blame);
    free(ex);
    free(host);
}

/* Wrong data between nodes a and b: the node the exchanges confirm
 * (quarantined), else both, pending the runner's retest. */
static json_t *fc_pairs_wrong_implicates(const fc_pairs_run_t *run, int a, int b,
                                         const fc_blame_t *blame)
{
    const char *ra = run->ctx->inv.racks[run->node_racks[a]];
    const char *rb = run->ctx->inv.racks[run->node_racks[b]];
    int v = blame[a] != FC_BLAME_NONE ? a : blame[b] != FC_BLAME_NONE ? b : -1;
    char group[2 * FC_HOST_MAX + 16];

    if (v >= 0)
        return json_pack("{s:s, s:s, s:s, s:b}", "part", "node", "host",
                         run->node_hosts[v], "rack",
                         run->ctx->inv.racks[run->node_racks[v]], "quarantine", 1);
    snprintf(group, sizeof(group), "pair %s <-> %s", run->node_hosts[a], run->node_hosts[b]);
    return json_pack("{s:s, s:s, s:s, s:s, s:[s,s], s:o, s:b, s:b}", "part", "group",
                     "host", "", "rack", "", "group", group, "hosts", run->node_hosts[a],
                     run->node_hosts[b], "racks", strcmp(ra, rb) ? json_pack("[s,s]", ra, rb)
                                                                 : json_pack("[s]", ra),
                     "quarantine", 0, "localised", 0);
}

/* Rank 0: localise, write records and TAP. Returns failed checks. */
static int fc_pairs_report(fc_pairs_run_t *run)
{
    fc_stage_ctx_t *ctx = run->ctx;
    const fc_stage_profile_t *sp = &ctx->sp;
    int n = run->nnodes, npairs = n * (n - 1) / 2, failed = 0;
    int *a = calloc((size_t)npairs + 1, sizeof(int));
    int *b = calloc((size_t)npairs + 1, sizeof(int));
    int *slow = calloc((size_t)npairs + 1, sizeof(int));
    int *node_bad = calloc((size_t)n, sizeof(int));
    int *node_slow = calloc((size_t)n, sizeof(int));
    int *node_partners = calloc((size_t)n, sizeof(int));
    fc_pair_part_t *part = calloc((size_t)npairs + 1, sizeof(*part));
    fc_blame_t *blame = calloc((size_t)n, sizeof(*blame));
    int k = 0;

    /* one entry per pair of nodes: slow at any size */
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j, ++k) {
            a[k] = i;
            b[k] = j;
            for (int q = 0; q < run->npairs; ++q)
                if (run->pairs[q].a == i && run->pairs[q].b == j && run->pairs[q].slow)
                    slow[k] = 1;
        }
    fc_pairs_localise(n, npairs, a, b, slow, node_bad, node_slow,
                      node_partners, part);
    fc_pairs_blame_data(run, npairs, a, b, blame);

    for (k = 0; k < npairs; ++k) {
        const char *ha = run->node_hosts[a[k]], *hb = run->node_hosts[b[k]];
        json_t *rec = fc_stage_record(ctx, "pair"), *sizes = json_array();
        json_t *reasons = json_array(), *impl = json_null();
        int bad = 0, wrong_node = -1;
        char first_reason[FC_REASON_MAX + 40];
        double lat = 0;

        for (int q = 0; q < run->npairs; ++q) {
            const fc_pair_t *p = &run->pairs[q];

            if (p->a != a[k] || p->b != b[k])
                continue;
            json_t *entry = json_pack(
                "{s:I, s:f, s:f, s:i, s:I}", "bytes",
                (json_int_t)sp->sizes[p->size_index], "bw_gbps", p->bw_gbps,
                "min_bw_gbps", p->limit_bw, "limit_line", p->limit_line,
                "wrong", (json_int_t)p->wrong);

            fc_pairs_relative_json(run, p, entry);
            json_array_append_new(sizes, entry);
            for (int r = 0; r < p->nreasons; ++r) {
                char size[32], msg[FC_REASON_MAX + 40];

                fc_format_size(sp->sizes[p->size_index], size, sizeof(size));
                snprintf(msg, sizeof(msg), "%s: %s", size, p->reasons[r]);
                json_array_append_new(reasons, json_string(msg));
            }
            if (p->nreasons > 0)
                bad = 1;
            if (p->wrong > 0)
                wrong_node = p->bad_node;
            if (p->size_index == 0)
                lat = p->lat_us;
        }
        if (wrong_node >= 0) {
            impl = fc_pairs_wrong_implicates(run, a[k], b[k], blame);
            if (json_is_true(json_object_get(impl, "quarantine"))) {
                int v = blame[a[k]] != FC_BLAME_NONE ? a[k] : b[k];
                char why[FC_REASON_MAX];

                snprintf(why, sizeof(why), "wrong data %s %s, confirmed with every one of "
                         "its %d partners (both directions checked)",
                         blame[v] == FC_BLAME_SENDS ? "sent by" : "received by",
                         run->node_hosts[v], n - 1);
                json_array_insert_new(reasons, 0, json_string(why));
            }
        } else if (part[k] == FC_PAIR_NODE_A || part[k] == FC_PAIR_NODE_B) {
            int v = part[k] == FC_PAIR_NODE_A ? a[k] : b[k];

            impl = json_pack("{s:s, s:s, s:s, s:b}", "part", "link", "host",
                             run->node_hosts[v], "rack",
                             ctx->inv.racks[run->node_racks[v]], "quarantine", 0);
        } else if (part[k] == FC_PAIR_PATH)
            impl = json_pack("{s:s, s:[s,s], s:[s,s], s:b}", "part", "path",
                             "hosts", ha, hb, "racks",
                             ctx->inv.racks[run->node_racks[a[k]]],
                             ctx->inv.racks[run->node_racks[b[k]]],
                             "quarantine", 0);
        json_object_set_new(rec, "host_a", json_string(ha));
        json_object_set_new(rec, "host_b", json_string(hb));
        json_object_set_new(rec, "rack_a", json_string(ctx->inv.racks[run->node_racks[a[k]]]));
        json_object_set_new(rec, "rack_b", json_string(ctx->inv.racks[run->node_racks[b[k]]]));
        json_object_set_new(rec, "sizes", sizes);
        json_object_set_new(rec, "latency_us", json_real(lat));
        json_object_set_new(rec, "reasons", reasons);
        json_object_set_new(rec, "implicates", impl);
        json_object_set_new(rec, "verdict", json_string(bad ? "FAIL" : "PASS"));
        snprintf(first_reason, sizeof(first_reason), "%s",
                 bad ? json_string_value(json_array_get(reasons, 0)) : "");
        fc_results_append(&ctx->results, rec);     /* takes rec */
        failed += bad;
        if (bad)
            fc_tap_point(&ctx->tap, FC_ERR_FAIL, "pair %s <-> %s: %s%s", ha, hb,
                         first_reason,
                         part[k] == FC_PAIR_PATH ? " (implicates the path between them)" :
                         part[k] != FC_PAIR_OK ? " (explained by a node's link)" : "");
        else
            fc_tap_point(&ctx->tap, FC_OK, "pair %s <-> %s", ha, hb);
        fc_tap_yaml_begin(&ctx->tap);
        fc_tap_yaml_line(&ctx->tap, "latency_us: %.2f", lat);
        for (int q = 0; q < run->npairs; ++q)
            if (run->pairs[q].a == a[k] && run->pairs[q].b == b[k])
                fc_tap_yaml_line(&ctx->tap, "bw_gbps_%llu: %.4f",
                                 (unsigned long long)sp->sizes[run->pairs[q].size_index],
                                 run->pairs[q].bw_gbps);
        fc_tap_yaml_end(&ctx->tap);
    }

    for (int v = 0; v < n; ++v) {
        json_t *rec = fc_stage_record(ctx, "pairs_node");

        json_object_set_new(rec, "host", json_string(run->node_hosts[v]));
        json_object_set_new(rec, "rack", json_string(ctx->inv.racks[run->node_racks[v]]));
        json_object_set_new(rec, "slow_partners", json_integer(node_slow[v]));
        json_object_set_new(rec, "partners", json_integer(node_partners[v]));
        if (blame[v] != FC_BLAME_NONE) {
            char why[FC_REASON_MAX];

            snprintf(why, sizeof(why), "%s wrong data with every partner (%d, both "
                     "directions checked): the node (its NIC or memory) is implicated",
                     blame[v] == FC_BLAME_SENDS ? "sent" : "received", n - 1);
            json_object_set_new(rec, "reasons", json_pack("[s]", why));
            json_object_set_new(rec, "implicates", json_pack(
                "{s:s, s:s, s:s, s:b}", "part", "node", "host",
                run->node_hosts[v], "rack", ctx->inv.racks[run->node_racks[v]],
                "quarantine", 1));
            json_object_set_new(rec, "verdict", json_string("FAIL"));
            fc_tap_point(&ctx->tap, FC_ERR_FAIL, "node %s data: %s",
                         run->node_hosts[v], why);
            ++failed;
        } else if (node_bad[v]) {
            char why[FC_REASON_MAX];

            snprintf(why, sizeof(why), "slow with %d of its %d partners: its "
                     "NIC or link is implicated", node_slow[v], node_partners[v]);
            json_object_set_new(rec, "reasons", json_pack("[s]", why));
            json_object_set_new(rec, "implicates", json_pack(
                "{s:s, s:s, s:s, s:b}", "part", "link", "host",
                run->node_hosts[v], "rack", ctx->inv.racks[run->node_racks[v]],
                "quarantine", 1));
            json_object_set_new(rec, "verdict", json_string("FAIL"));
            fc_tap_point(&ctx->tap, FC_ERR_FAIL, "node %s link: %s",
                         run->node_hosts[v], why);
            ++failed;
        } else {
            json_object_set_new(rec, "reasons", json_array());
            json_object_set_new(rec, "implicates", json_null());
            json_object_set_new(rec, "verdict", json_string("PASS"));
            fc_tap_point(&ctx->tap, FC_OK, "node %s link (slow with %d of %d partners)",
                         run->node_hosts[v], node_slow[v], node_partners[v]);
        }
        fc_results_append(&ctx->results, rec);
    }
    free(a); free(b); free(slow); free(node_bad); free(node_slow);
    free(node_partners); free(part); free(blame);
    return failed;
}

static fc_status_t fc_pairs_run(fc_pairs_run_t *run)
{
    fc_stage_ctx_t *ctx = run->ctx;
    const fc_stage_profile_t *sp = &ctx->sp;
    int rounds = fc_pairs_rounds(run->nnodes), nz = sp->nsizes;
    uint64_t max_bytes = 0;
    fc_pair_side_t *mine, *all = NULL;
    int32_t *sendbuf, *recvbuf;

    for (int z = 0; z < nz; ++z)
        if (sp->sizes[z] > max_bytes)
            max_bytes = sp->sizes[z];
    mine = calloc((size_t)nz, sizeof(*mine));
    sendbuf = malloc(max_bytes + 64);
    recvbuf = malloc(max_bytes + 64);
    if (ctx->world_rank == 0) {
        all = calloc((size_t)run->nnodes * (size_t)nz, sizeof(*all));
        run->pairs = calloc((size_t)run->nnodes * (size_t)run->nnodes * (size_t)nz + 1,
                            sizeof(*run->pairs));
    }
    if (mine == NULL || sendbuf == NULL || recvbuf == NULL ||
        (ctx->world_rank == 0 && (all == NULL || run->pairs == NULL))) {
        fc_error("out of memory for the pairs stage (%llu-byte buffers)",
                 (unsigned long long)max_bytes);
        MPI_Abort(MPI_COMM_WORLD, FC_EXIT_FAIL);
    }
    double t0 = MPI_Wtime();

    if (ctx->world_rank == 0)
        fc_tap_diag(&ctx->tap, "pairs: %d nodes, %d rounds of %d pairs", run->nnodes,
                    rounds, run->nnodes / 2);
    for (int r = 0; r < rounds; ++r) {
        int partner = fc_pairs_partner(run->nnodes, r, run->node);
        char what[96];

        snprintf(what, sizeof(what), "pairs round %d of %d (partner node %d)",
                 r + 1, rounds, partner);
        fc_stage_progress(ctx, r, what);
        for (int z = 0; z < nz; ++z) {
            if (partner >= 0)
                fc_pairs_measure(run, partner, z, sendbuf, recvbuf, &mine[z]);
            else
                memset(&mine[z], 0, sizeof(mine[z]));
        }
        MPI_Gather(mine, (int)(nz * sizeof(*mine)), MPI_BYTE, all,
                   (int)(nz * sizeof(*mine)), MPI_BYTE, 0, run->leaders);
        if (ctx->world_rank == 0)
            fc_pairs_merge(run, all, run->nnodes * nz);
    }
    if (ctx->world_rank == 0) {
        double took = MPI_Wtime() - t0;
        json_t *rec = fc_stage_record(ctx, "pairs_schedule");

        json_object_set_new(rec, "nodes", json_integer(run->nnodes));
        json_object_set_new(rec, "rounds", json_integer(rounds));
        json_object_set_new(rec, "pairs", json_integer(run->nnodes * (run->nnodes - 1) / 2));
        json_object_set_new(rec, "seconds", json_real(took));
        fc_results_append(&ctx->results, rec);
        fc_tap_diag(&ctx->tap, "pairs: %d rounds measured in %.2f s", rounds, took);
        fc_pairs_judge(run);
        ctx->failed_points += fc_pairs_report(run);
    }
    free(mine); free(all); free(sendbuf); free(recvbuf);
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
    fc_stage_split_by_host(&ctx, &node_comm);
    MPI_Comm_rank(node_comm, &node_rank);
    MPI_Comm_split(MPI_COMM_WORLD, node_rank == 0 ? 0 : MPI_UNDEFINED,
                   ctx.world_rank, &run.leaders);
    if (run.leaders != MPI_COMM_NULL) {
        char host[FC_HOST_MAX];

        MPI_Comm_rank(run.leaders, &run.node);
        MPI_Comm_size(run.leaders, &run.nnodes);
        if (ctx.world_rank == 0) {
            run.node_hosts = calloc((size_t)run.nnodes, FC_HOST_MAX);
            run.node_racks = calloc((size_t)run.nnodes, sizeof(int));
        }
        snprintf(host, sizeof(host), "%s", ctx.host);
        MPI_Gather(host, FC_HOST_MAX, MPI_CHAR, run.node_hosts, FC_HOST_MAX,
                   MPI_CHAR, 0, run.leaders);
        MPI_Gather(&ctx.rack, 1, MPI_INT, run.node_racks, 1, MPI_INT, 0,
                   run.leaders);
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
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Comm_free(&node_comm);
    free(run.node_hosts);
    free(run.node_racks);
    free(run.pairs);
    return fc_stage_finish(&ctx, status);
}
