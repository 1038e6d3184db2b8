/*
 * rails.c - the rails stage: every NIC of every node measured
 * against the same NIC of every other node. A GPU node has one NIC per
 * GPU, cabled rail-optimised (NIC r of every node to rail r's leaf), so
 * the pairs stage's one rank per node over whatever interface MPI picks
 * cannot see one bad NIC, cable or transceiver among eight. Here the
 * stage runs one rank per (node, rail) (--ppn = rails): local rank r
 * drives rail r's NIC (the profile's rails.map, or rails.nic_pattern by
 * name order, lib/rails/fc_rails.h) through the rails.transport
 * (lib/nic/fc_nic_transport.h: tcp, or verbs where built), each rail's
 * round-robin tournament (lib/stage/fc_pairs.h) on its own communicator and
 * every rail at once, as training traffic loads them. Per pair and size:
 * each direction's bandwidth (the sender's time until the receiver has
 * every byte), the 8-byte half round trip, every received buffer checked
 * bitwise against the sender's pattern.
 *
 * World rank 0 judges each rail as the pairs stage judges its nodes, with
 * the same functions (the endpoints being "host:nic"), confirms each
 * rail's suspects alone, every other rail quiet, as the pairs stage does
 * (lib/pairs/fc_pairs_passes.h: the majority of three, each slow
 * measurement beside a control), and then compares the rails with each
 * other (lib/rails/fc_rails_judge.c). Records and TAP: fc_rails_report.
 *
 *   mpirun --hostfile H --map-by ppr:N:node build/suites/rails --racks FILE ...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>

#include "fc_alloc.h"
#include "fc_confirm_rule.h"
#include "fc_ctl.h"
#include "fc_log.h"
#include "fc_nic_transport.h"
#include "fc_pairs.h"
#include "fc_pairs_passes.h"
#include "fc_quiet.h"
#include "fc_rails_stage.h"
#include "fc_stats.h"

#define FC_CONFIRM_TIME_SHARE 0.9
#define FC_CONFIRM_PROBES_AHEAD 1.2

/* Which NIC is rail `rail` here; "" and why when there is none. */
static void fc_rails_nic_of(const fc_rails_profile_t *rp, int rail, char *nic, char *why,
                            size_t why_len)
{
    char names[FC_RAILS_MAX * 4][FC_RAIL_NIC_MAX], rails[FC_RAILS_MAX][FC_RAIL_NIC_MAX];
    struct if_nameindex *ifs = if_nameindex(), *i;
    int n = 0, k;

    nic[0] = '\0';
    if (rp->nmap > 0) {
        char map[FC_RAILS_MAX][FC_RAIL_NIC_MAX];

        fc_rails_map_parse(rp->map, map, FC_RAILS_MAX, why, why_len);
        if (rail < rp->nmap)
            snprintf(nic, FC_RAIL_NIC_MAX, "%s", map[rail]);
        else
            snprintf(why, why_len, "rails.map names %d NIC(s); this is rail %d", rp->nmap,
                     rail);
        if (ifs != NULL)
            if_freenameindex(ifs);
        return;
    }
    for (i = ifs; i != NULL && i->if_name != NULL && n < FC_RAILS_MAX * 4; ++i)
        snprintf(names[n++], FC_RAIL_NIC_MAX, "%s", i->if_name);
    if (ifs != NULL)
        if_freenameindex(ifs);
    k = fc_rails_by_pattern(names, n, rp->nic_pattern, rails, FC_RAILS_MAX);
    if (rail < k)
        snprintf(nic, FC_RAIL_NIC_MAX, "%s", rails[rail]);
    else
        snprintf(why, why_len, "%d interface(s) match rails.nic_pattern '%s'; this is rail %d",
                 k, rp->nic_pattern, rail);
}

/* a measurement a host's CPU held is measured again after this pause,
 * doubling (as the pairs stage's: lib/pairs/fc_pairs_passes.c) */
#define FC_RAILS_CPU_AGAIN_PAUSE_S 0.25

/* Every rank: rail `rail`'s x and y measure each other alone, every other
 * NIC quiet; rank 0 gets their pair at every size into out[nz] and
 * returns whether both sides measured every size (no transport failed). */
static int fc_rails_alone(fc_rails_local_t *L, int rail, int x, int y, fc_pair_t *out)
{
    int nz = L->ctx->sp.nsizes, sides = 0, failed = 0;
    char what[96];

    snprintf(what, sizeof(what), "rails confirmation: rail %d node %d <-> node %d alone",
             rail, x, y);
    fc_stage_progress(L->ctx, 1000000, what);
    if (L->rail == rail && (L->node == x || L->node == y))
        fc_rails_pair(L, L->node == x ? y : x);
    else
        fc_rails_pair(L, -1);
    fc_rails_gather(L);
    if (L->ctx->world_rank != 0)
        return 0;
    for (int z = 0; z < nz; ++z) {
        const fc_rail_side_t *sx = NULL, *sy = NULL;

        fc_pairs_pair_new(&out[z], x, y, z);
        for (int i = 0; i < L->ctx->world_size * nz; ++i) {
            const fc_rail_side_t *rs = &L->all[i];

            if (!rs->side.valid || rs->side.size_index != z)
                continue;
            if (rs->rail == rail && rs->side.node == x && rs->side.partner == y)
                sx = rs;
            else if (rs->rail == rail && rs->side.node == y && rs->side.partner == x)
                sy = rs;
            ++sides;
            failed |= rs->failed;
        }
        if (sx != NULL && sy != NULL) {
            /* each direction held by its receiver's waits too, as rule 6
             * reads them (lib/pairs/fc_pairs_passes.c) */
            fc_rail_side_t jx, jy;

            fc_rails_sides_joined(sx, sy, &jx, &jy);
            fc_rails_merge_side(L->rr, &out[z], &jx);
            fc_rails_merge_side(L->rr, &out[z], &jy);
            /* the host whose CPU held it: a receiver's waits are its own */
            if (out[z].cpu_wait > 0)
                out[z].cpu_wait_node = jx.side.cpu_wait >= jy.side.cpu_wait ? jx.wait_node
                                                                             : jy.wait_node;
            fc_pairs_calm_figure(&out[z], &jx.side, &jy.side, L->ctx->sp.sizes[z]);
        } else {
            for (int i = 0; i < L->ctx->world_size * nz; ++i)
                if (L->all[i].side.valid && L->all[i].side.size_index == z)
                    fc_rails_merge_side(L->rr, &out[z], &L->all[i]);
        }
    }
    return sides == 2 * nz && !failed;
}

/* Rank 0: may another alone measurement start within the stage's time? */
static int fc_rails_time_left(fc_rails_local_t *L)
{
    double longest = L->measure_max_s > 0 ? L->measure_max_s : L->round_max_s;

    if (MPI_Wtime() + FC_CONFIRM_PROBES_AHEAD * longest >
        L->ctx->started_s + FC_CONFIRM_TIME_SHARE * L->ctx->sp.timeout_s)
        L->out_of_time = 1;
    return !L->out_of_time;
}

/* Rank 0's order to every rank: measure rail msg[0]'s nodes msg[1] and
 * msg[2] alone, or stop (-1s); checked on arrival (lib/base/fc_ctl.h). */
static void fc_rails_bcast_order(const fc_rails_local_t *L, int msg[3])
{
    fc_quiet_barrier(MPI_COMM_WORLD);   /* while rank 0 judges the last one */
    fc_ctl_bcast_ints(MPI_COMM_WORLD, 0, "the rails' next alone measurement", msg, 3, -1,
                      (L->nrails > L->nnodes ? L->nrails : L->nnodes) - 1);
    fc_ctl_check(msg[0] < L->nrails && msg[1] < L->nnodes && msg[2] < L->nnodes,
                 "the rails' next alone measurement", 0, "rail %d, nodes %d and %d", msg[0],
                 msg[1], msg[2]);
}

/* Rank 0: name the measurement to every rank, take it with them;
 * whether both sides measured (fc_rails_alone). */
static int fc_rails_order(fc_rails_local_t *L, int rail, int x, int y, fc_pair_t *out)
{
    int msg[3] = { rail, x, y }, measured;
    double t0 = MPI_Wtime();

    fc_rails_bcast_order(L, msg);
    measured = fc_rails_alone(L, rail, x, y, out);
    if (MPI_Wtime() - t0 > L->measure_max_s)
        L->measure_max_s = MPI_Wtime() - t0;
    return measured;
}

/* The passes' measurement on one rail (fc_pairs_measure_func_t, rank 0):
 * x <-> y on that rail alone into stored measurement s; -1 when the
 * stage's time would not hold it (none later is asked for). */
static int fc_rails_probe(void *arg, fc_pairs_run_t *run, int x, int y, int s)
{
    fc_rails_local_t *L = arg;
    int nz = L->ctx->sp.nsizes;

    if (run->confirm_out_of_time || !fc_rails_time_left(L)) {
        run->confirm_out_of_time = 1;
        run->confirm.out_of_time = 1;
        return -1;
    }
    fc_rails_order(L, (int)(run - L->rr->rails), x, y, &run->alone[(size_t)s * nz]);
    return 0;
}

/* Rank 0: confirm rail r's slow pairs alone, as the pairs stage confirms
 * its own (lib/pairs/fc_pairs_passes.h: each slow measurement beside a
 * control of its path kind, a probe slow alone where the rounds were
 * fast measured again, the tolerance never below the probes' own
 * spread). */
static void fc_rails_confirm_rail(fc_rails_local_t *L, int r)
{
    fc_pairs_run_t *run = &L->rr->rails[r];
    int n = run->nnodes, npairs = n * (n - 1) / 2, k = 0, nz = L->ctx->sp.nsizes;
    int max_measures = FC_CONFIRM_MAX_MEASURES * (4 * n + 8);
    int *a = fc_xcalloc((size_t)npairs + 1, sizeof(int), "the pairs' first NICs");
    int *b = fc_xcalloc((size_t)npairs + 1, sizeof(int), "the pairs' second NICs");
    int *slow = fc_xcalloc((size_t)npairs + 1, sizeof(int), "the slow pairs");
    double t0 = MPI_Wtime();

    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j, ++k) {
            a[k] = i;
            b[k] = j;
            for (int z = 0; z < nz; ++z) {
                const fc_pair_t *p = fc_pairs_find(run, i, j, z);

                slow[k] |= p != NULL && p->slow;
            }
        }
    run->confirm_budget = max_measures;
    run->cpu_again_pause_s = FC_RAILS_CPU_AGAIN_PAUSE_S;
    fc_pairs_confirm_passes(run, npairs, a, b, slow, max_measures, fc_rails_probe, L);
    run->confirmed = 1;
    run->confirm_seconds = MPI_Wtime() - t0;
    L->ctx->confirm_s += run->confirm_seconds;
    free(a);
    free(b);
    free(slow);
}

/* Rank 0: confirm each slow rail class alone: its pair on its rail, then
 * the same pair on the reference rail, two or three times (the majority). */
static void fc_rails_confirm_classes(fc_rails_local_t *L)
{
    fc_rails_run_t *rr = L->rr;
    int nz = L->ctx->sp.nsizes;
    double pct = L->ctx->sp.max_below_median_pct;
    fc_pair_t *mine = fc_xcalloc((size_t)nz, sizeof(*mine), "a rail's alone pair");
    fc_pair_t *ref = fc_xcalloc((size_t)nz, sizeof(*ref), "the reference rail's alone pair");

    for (int c = 0; c < rr->nrails * 2 * nz; ++c) {
        fc_rail_class_t *k = &rr->classes[c];

        k->decision = FC_CONFIRM_CLEARED;
        if (!k->slow)
            continue;
        if (k->pa < 0) {    /* no pair of it may speak for the rail */
            k->decision = FC_CONFIRM_UNMEASURED;
            continue;
        }
        k->decision = FC_CONFIRM_MORE;
        while (k->decision == FC_CONFIRM_MORE && k->nmeas < 3) {
            int ref_measured;

            if (!fc_rails_time_left(L)) {
                k->decision = FC_CONFIRM_UNMEASURED;
                break;
            }
            fc_rails_order(L, k->rail, k->pa, k->pb, mine);
            ref_measured = fc_rails_order(L, k->ref_rail, k->pa, k->pb, ref);
            k->alone_bw[k->nmeas] = mine[k->size_index].bw_gbps;
            k->alone_ref[k->nmeas] = ref[k->size_index].bw_gbps;
            /* the rail's own pair failing is slow (no bandwidth); a
             * reference that measured nothing judges nothing: a dead one
             * would make any pair look fast */
            k->meas[k->nmeas] = !ref_measured ? FC_CONFIRM_MEAS_UNDECIDED
                                : k->alone_bw[k->nmeas] < k->alone_ref[k->nmeas] * (1 - pct / 100.0)
                                    ? FC_CONFIRM_MEAS_SLOW : FC_CONFIRM_MEAS_FAST;
            k->nmeas++;
            k->decision = fc_confirm_decide(k->meas, k->nmeas);
        }
    }
    free(mine);
    free(ref);
}

/* Rank 0 leads the confirmations; the others serve its orders. */
static void fc_rails_confirm(fc_rails_local_t *L)
{
    int stop[3] = { -1, -1, -1 };

    if (L->ctx->world_rank != 0) {
        for (;;) {
            int msg[3];

            fc_rails_bcast_order(L, msg);
            if (msg[0] < 0)
                return;
            fc_rails_alone(L, msg[0], msg[1], msg[2], NULL);
        }
    }
    for (int r = 0; r < L->nrails; ++r)
        fc_rails_confirm_rail(L, r);
    fc_rails_rule(L->rr);
    fc_rails_confirm_classes(L);
    fc_rails_bcast_order(L, stop);
}

/* Every rank: the tournament of every rail at once. */
static void fc_rails_rounds(fc_rails_local_t *L)
{
    int rounds = fc_pairs_rounds(L->nnodes);
    double t0 = MPI_Wtime();

    if (L->ctx->world_rank == 0)
        fc_tap_diag(&L->ctx->tap, "rails: %d rail(s) of %d NICs, %d round(s) of %d pairs per "
                    "rail, every rail at once", L->nrails, L->nnodes, rounds, L->nnodes / 2);
    for (int r = 0; r < rounds; ++r) {
        int partner = fc_pairs_partner(L->nnodes, r, L->node);
        double r0 = MPI_Wtime();
        char what[96];

        snprintf(what, sizeof(what), "rails round %d of %d (rail %d, partner node %d)", r + 1,
                 rounds, L->rail, partner);
        fc_stage_progress(L->ctx, r, what);
        fc_rails_pair(L, partner);
        fc_rails_gather(L);
        if (L->ctx->world_rank == 0) {
            json_t *rec = fc_stage_record(L->ctx, "rails_round");

            if (MPI_Wtime() - r0 > L->round_max_s)
                L->round_max_s = MPI_Wtime() - r0;
            fc_rails_merge_round(L);
            json_object_set_new(rec, "round", json_integer(r + 1));
            json_object_set_new(rec, "rounds", json_integer(rounds));
            json_object_set_new(rec, "seconds", json_real(MPI_Wtime() - t0));
            fc_results_append(&L->ctx->results, rec);
        }
    }
    if (L->ctx->world_rank == 0)
        fc_tap_diag(&L->ctx->tap, "rails: %d round(s) measured in %.2f s", rounds,
                    MPI_Wtime() - t0);
}

/* The NIC's carrier_changes (sysfs: each time its link went down or up),
 * -1 where unreadable. */
static long long fc_rails_carrier(const char *nic)
{
    char path[256];
    long long v = -1;
    FILE *f;

    snprintf(path, sizeof(path), "/sys/class/net/%s/carrier_changes", nic);
    if ((f = fopen(path, "r")) == NULL)
        return -1;
    if (fscanf(f, "%lld", &v) != 1)
        v = -1;
    fclose(f);
    return v;
}

/* What each rank tells rank 0 about itself. */
typedef struct fc_rails_who {
    int32_t rail, node, rack, usable;
    long long carrier;      /* the NIC's carrier_changes at the start, -1 unknown */
    char host[FC_HOST_MAX];
    char nic[FC_RAIL_NIC_MAX];
    char pci[32];
    char why[FC_NIC_WHY_MAX];
} fc_rails_who_t;

/* Rank 0: every rail's pairs run over "host:nic" endpoints. */
static void fc_rails_setup(fc_rails_local_t *L, fc_rails_run_t *rr, const fc_rails_who_t *who)
{
    fc_stage_ctx_t *ctx = L->ctx;
    int n = L->nnodes, R = L->nrails, nz = ctx->sp.nsizes;

    memset(rr, 0, sizeof(*rr));
    rr->ctx = ctx;
    rr->nrails = R;
    rr->nnodes = n;
    rr->rails = fc_xcalloc((size_t)R, sizeof(*rr->rails), "the rails");
    rr->hosts = fc_xcalloc((size_t)n, FC_HOST_MAX, "the nodes' names");
    rr->nics = fc_xcalloc((size_t)(R * n), FC_RAIL_NIC_MAX, "the NICs' names");
    rr->pci = fc_xcalloc((size_t)(R * n), sizeof(rr->pci[0]), "the NICs' PCI addresses");
    rr->errs = fc_xcalloc((size_t)(R * n), sizeof(rr->errs[0]), "the NICs' failures");
    rr->undriven = fc_xcalloc((size_t)(R * n) + 1, 1, "the NICs not driven");
    rr->flapped = fc_xcalloc((size_t)(R * n) + 1, 1, "the NICs whose link went down");
    rr->dirbw = fc_xcalloc((size_t)(R * n * n * nz) + 1, sizeof(double), "each direction");
    rr->classes = fc_xcalloc((size_t)(R * 2 * nz), sizeof(*rr->classes), "the rail classes");
    for (int r = 0; r < R; ++r) {
        fc_pairs_run_t *run = &rr->rails[r];

        run->ctx = ctx;
        run->leaders = MPI_COMM_NULL;
        run->nnodes = n;
        run->node_hosts = fc_xcalloc((size_t)n, FC_HOST_MAX, "the rail's NICs");
        run->node_racks = fc_xcalloc((size_t)n, sizeof(int), "the rail's racks");
        run->pairs = fc_xcalloc((size_t)n * (size_t)n * (size_t)nz + 1, sizeof(*run->pairs),
                                "the rail's pairs");
    }
    for (int w = 0; w < ctx->world_size; ++w) {
        const fc_rails_who_t *x = &who[w];
        fc_pairs_run_t *run = &rr->rails[x->rail];

        snprintf(rr->hosts[x->node], FC_HOST_MAX, "%s", x->host);
        snprintf(rr->nics[x->rail * n + x->node], FC_RAIL_NIC_MAX, "%s", x->nic);
        snprintf(rr->pci[x->rail * n + x->node], sizeof(rr->pci[0]), "%s", x->pci);
        snprintf(run->node_hosts[x->node], FC_HOST_MAX, "%s:%s", x->host, x->nic);
        run->node_racks[x->node] = x->rack;
        if (!x->usable) {
            rr->undriven[x->rail * n + x->node] = 1;
            snprintf(rr->errs[x->rail * n + x->node], sizeof(rr->errs[0]), "%s", x->why);
            fc_tap_diag(&ctx->tap, "rails: %s rail %d cannot be driven: %s", x->host, x->rail,
                        x->why);
        }
    }
}

static void fc_rails_free(fc_rails_run_t *rr)
{
    for (int r = 0; r < rr->nrails; ++r) {
        if (rr->rails[r].confirmed)
            fc_pairs_confirm_free(&rr->rails[r].confirm);
        free(rr->rails[r].alone);
        free(rr->rails[r].alone_of);
        free(rr->rails[r].pairs);
        free(rr->rails[r].node_hosts);
        free(rr->rails[r].node_racks);
    }
    free(rr->rails);
    free(rr->hosts);
    free(rr->nics);
    free(rr->pci);
    free(rr->errs);
    free(rr->dirbw);
    free(rr->classes);
    free(rr->suspect);
    free(rr->undriven);
    free(rr->flapped);
}

/* The stage on this rank, once every node runs one rank per rail. */
static fc_status_t fc_rails_run(fc_rails_local_t *L)
{
    fc_stage_ctx_t *ctx = L->ctx;
    const fc_stage_profile_t *sp = &ctx->sp;
    fc_rails_who_t me, *who = NULL;
    fc_rails_run_t rr;
    uint64_t max_bytes = 0;

    for (int z = 0; z < sp->nsizes; ++z)
        if (sp->sizes[z] > max_bytes)
            max_bytes = sp->sizes[z];
    L->len = (size_t)max_bytes + 64;
    L->buf = malloc(L->len);
    if (L->buf == NULL) {
        fc_error("out of memory for the rails stage (%llu-byte buffers)",
                 (unsigned long long)max_bytes);
        MPI_Abort(MPI_COMM_WORLD, FC_EXIT_FAIL);
    }
    L->mine = fc_xcalloc((size_t)sp->nsizes, sizeof(*L->mine), "this NIC's sides");
    memset(&me, 0, sizeof(me));
    me.rail = L->rail;
    me.node = L->node;
    me.rack = ctx->rack;
    me.usable = L->usable;
    me.carrier = fc_rails_carrier(L->nic);
    snprintf(me.host, sizeof(me.host), "%s", ctx->host);
    snprintf(me.nic, sizeof(me.nic), "%s", L->nic);
    snprintf(me.pci, sizeof(me.pci), "%s", L->pci);
    snprintf(me.why, sizeof(me.why), "%s", L->why);
    if (ctx->world_rank == 0) {
        who = fc_xcalloc((size_t)ctx->world_size, sizeof(*who), "every NIC");
        L->all = fc_xcalloc((size_t)ctx->world_size * (size_t)sp->nsizes, sizeof(*L->all),
                            "every NIC's sides");
    }
    fc_ctl_gather(MPI_COMM_WORLD, 0, "the ranks' NICs", &me, sizeof(me), who);
    for (int w = 0; ctx->world_rank == 0 && w < ctx->world_size; ++w)
        fc_ctl_check(who[w].rail >= 0 && who[w].rail < L->nrails && who[w].node >= 0 &&
                     who[w].node < L->nnodes && who[w].rack >= 0 &&
                     who[w].rack < ctx->inv.nracks && (who[w].usable & ~1) == 0 &&
                     fc_ctl_str_ok(who[w].host, sizeof(who[w].host)) &&
                     fc_ctl_str_ok(who[w].nic, sizeof(who[w].nic)) &&
                     fc_ctl_str_ok(who[w].pci, sizeof(who[w].pci)) &&
                     fc_ctl_str_ok(who[w].why, sizeof(who[w].why)), "the ranks' NICs", w,
                     "rail %d, node %d, rack %d", (int)who[w].rail, (int)who[w].node,
                     (int)who[w].rack);
    if (ctx->world_rank == 0) {
        fc_rails_setup(L, &rr, who);
        L->rr = &rr;
    }
    fc_rails_rounds(L);
    if (ctx->world_rank == 0)
        for (int r = 0; r < L->nrails; ++r)
            fc_pairs_judge(&rr.rails[r]);
    fc_rails_confirm(L);
    /* a link that went down and up while the stage ran: a connect waits
     * out a pulled cable, so the figures alone need not show it */
    {
        long long now = fc_rails_carrier(L->nic), *all = NULL;

        if (ctx->world_rank == 0)
            all = fc_xcalloc((size_t)ctx->world_size, sizeof(*all), "the NICs' carriers");
        fc_ctl_gather(MPI_COMM_WORLD, 0, "the NICs' carrier changes", &now, sizeof(now), all);
        for (int w = 0; ctx->world_rank == 0 && w < ctx->world_size; ++w) {
            const fc_rails_who_t *x = &who[w];
            int at = x->rail * L->nnodes + x->node;

            if (x->carrier < 0 || all[w] < 0 || all[w] == x->carrier || rr.undriven[at])
                continue;
            rr.flapped[at] = 1;
            snprintf(rr.errs[at], sizeof(rr.errs[0]), "%s: its link went down and up during "
                     "the stage (carrier_changes %lld -> %lld)", x->nic, x->carrier, all[w]);
        }
        free(all);
    }
    if (ctx->world_rank == 0) {
        ctx->failed_points += fc_rails_report(&rr);
        fc_rails_free(&rr);
    }
    free(who);
    free(L->all);
    free(L->mine);
    free(L->buf);
    return FC_OK;
}

int main(int argc, char **argv)
{
    fc_stage_ctx_t ctx;
    fc_rails_local_t L;
    fc_status_t status;
    MPI_Comm node_comm;
    int per_node, lo, hi, key;

    status = fc_stage_init(&argc, &argv, FC_STAGE_RAILS, &ctx);
    if (status != FC_OK)
        return fc_stage_exit(status);
    memset(&L, 0, sizeof(L));
    L.ctx = &ctx;
    fc_stage_split_by_host(&ctx, &node_comm);
    MPI_Comm_rank(node_comm, &L.rail);
    MPI_Comm_size(node_comm, &per_node);
    fc_ctl_allreduce(MPI_COMM_WORLD, "the fewest ranks on a node", FC_CTL_INT, FC_CTL_MIN,
                     &per_node, &lo, 1);
    fc_ctl_allreduce(MPI_COMM_WORLD, "the most ranks on a node", FC_CTL_INT, FC_CTL_MAX,
                     &per_node, &hi, 1);
    fc_ctl_check(lo >= 1 && hi >= lo && hi <= ctx.world_size, "the ranks on a node", -1,
                 "%d to %d of %d", lo, hi, ctx.world_size);
    /* rail r's nodes in inventory order, the same on every rail */
    key = fc_inventory_find_host(&ctx.inv, ctx.host);
    MPI_Comm_split(MPI_COMM_WORLD, L.rail, key, &L.rail_comm);
    MPI_Comm_rank(L.rail_comm, &L.node);
    MPI_Comm_size(L.rail_comm, &L.nnodes);
    L.nrails = lo;
    L.tr = fc_nic_transport_find(ctx.sp.rails.transport);
    if (lo != hi || (ctx.sp.rails.count > 0 && lo != ctx.sp.rails.count) || L.nnodes < 2 ||
        L.tr == NULL) {
        if (ctx.world_rank == 0) {
            char why[256];

            if (L.tr == NULL)
                snprintf(why, sizeof(why), "rails.transport '%s' is not built into this binary",
                         ctx.sp.rails.transport);
            else if (lo != hi)
                snprintf(why, sizeof(why), "the nodes run %d to %d ranks: the stage needs one "
                         "rank per rail on every node (--ppn %d)", lo, hi,
                         ctx.sp.rails.count > 0 ? ctx.sp.rails.count : hi);
            else if (ctx.sp.rails.count > 0 && lo != ctx.sp.rails.count)
                snprintf(why, sizeof(why), "rails.count is %d, the nodes run %d rank(s) each: "
                         "one rank per rail (--ppn %d)", ctx.sp.rails.count, lo,
                         ctx.sp.rails.count);
            else
                snprintf(why, sizeof(why), "fewer than 2 nodes");
            fc_tap_skip(&ctx.tap, why, "rails");
            /* the stage_end record says why too */
            snprintf(ctx.skip_reason, sizeof(ctx.skip_reason), "%s", why);
        }
        status = FC_ERR_SKIP;
    } else {
        fc_rails_nic_of(&ctx.sp.rails, L.rail, L.nic, L.why, sizeof(L.why));
        if (L.nic[0] != '\0' && L.tr->available(L.nic, L.why, sizeof(L.why)) == FC_OK)
            L.usable = 1;
        if (L.nic[0] == '\0')
            snprintf(L.nic, sizeof(L.nic), "rail%d?", L.rail);
        int numa;

        fc_nic_pci_numa(L.nic, L.pci, sizeof(L.pci), &numa);
        status = fc_rails_run(&L);
    }
    {
        int agreed = (int)status;

        fc_ctl_bcast_ints(MPI_COMM_WORLD, 0, "the stage's status", &agreed, 1, FC_OK,
                          FC_ERR_INTERNAL);
        status = (fc_status_t)agreed;
    }
    MPI_Comm_free(&L.rail_comm);
    MPI_Comm_free(&node_comm);
    return fc_stage_finish(&ctx, status);
}
