/*
 * fc_rails_measure.c - the rails stage's measurement (see
 * fc_rails_stage.h): one NIC against its partner's over the profile's
 * transport, at every size each direction in turn (the sender's time
 * until the receiver has every byte, every received buffer checked
 * bitwise against the sender's pattern) and the 8-byte latency; a
 * transport failure (a dead NIC, a peer gone) is kept with its reason and
 * counts as no bandwidth. Rank 0 merges the sides into each rail's pairs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_ctl.h"
#include "fc_ctl_check.h"
#include "fc_kernels.h"
#include "fc_pattern_host.h"
#include "fc_quiet.h"
#include "fc_rails_stage.h"
#include "fc_runq.h"
#include "fc_stats.h"

#define FC_RAILS_CALL_MAX_S 60.0

static double fc_rails_deadline(const fc_stage_ctx_t *ctx)
{
    double end = ctx->started_s + ctx->sp.timeout_s, d = MPI_Wtime() + FC_RAILS_CALL_MAX_S;

    return d < end ? d : end;
}

static void fc_rails_failed(fc_rail_side_t *s, const char *why)
{
    if (!s->failed && s->why != why)
        snprintf(s->why, sizeof(s->why), "%.159s", why);
    s->failed = 1;
    s->side.median_s = 1e9;     /* no bandwidth: slow against any limit */
    s->side.lat_us = 1e9;
}

/* Both directions and the latency at size z over ep with partner. */
static void fc_rails_measure(fc_rails_local_t *L, fc_nic_ep_t *ep, int partner, int z,
                             fc_rail_side_t *out)
{
    const fc_stage_profile_t *sp = &L->ctx->sp;
    uint64_t bytes = sp->sizes[z];
    size_t count = (size_t)(bytes / sizeof(int32_t));
    int total = sp->warmup + sp->iters, lower = L->node < partner;
    double *times = fc_xcalloc((size_t)total + 1, sizeof(double), "the pair's times");
    /* each transfer's time on this side, sending and receiving, and its
     * wait for a CPU with the gap since the last transfer ended */
    double *took[2], *waits[2], wait_end;
    char why[FC_NIC_WHY_MAX];
    fc_pattern_t pat[2];
    fc_pair_side_t *side = &out->side;

    for (int k = 0; k < 2; ++k)
        fc_pattern_make(FC_INT32, FC_OP_NONE, L->nnodes,
                        fc_pattern_set_seed(L->ctx->profile.seed + 104729u * (uint32_t)z +
                                            7919u * (uint32_t)L->rail, k), &pat[k]);
    for (int k = 0; k < 2; ++k) {
        took[k] = fc_xcalloc((size_t)total + 1, sizeof(double), "the transfers' times");
        waits[k] = fc_xcalloc((size_t)total + 1, sizeof(double), "the transfers' waits");
    }
    wait_end = fc_runq_wait_s();
    for (int phase = 0; phase < 2 && !out->failed; ++phase) {
        int sending = (phase == 0) == lower;

        for (int it = 0; it < total; ++it) {
            fc_status_t st;
            double t0, w1;

            if (sending)
                fc_cpu_fill(&pat[it % 2], L->node, 0, L->buf, count);
            else
                memset(L->buf, 0xA5, count * sizeof(int32_t));
            t0 = MPI_Wtime();
            st = L->tr->transfer(ep, sending, count * sizeof(int32_t), fc_rails_deadline(L->ctx),
                                 why, sizeof(why));
            took[sending][it] = MPI_Wtime() - t0;
            w1 = fc_runq_wait_s();
            waits[sending][it] = fc_runq_between(wait_end, w1);
            wait_end = w1;
            if (sending)
                times[it] = took[1][it];
            if (st != FC_OK) {
                fc_rails_failed(out, why);
                break;
            }
            if (!sending) {
                const fc_selftest_t *self = &L->ctx->opts.selftest;
                fc_mismatch_t m = { 0, 0, 0, 0 };

                /* --selftest-corrupt: one bit of what this NIC received,
                 * after the transport and before the check */
                if (self->enabled && self->rank == L->ctx->world_rank && self->iter == it) {
                    uint64_t k = self->index >= 0 && (uint64_t)self->index < count
                                     ? (uint64_t)self->index : count / 2;

                    ((unsigned char *)L->buf)[k * sizeof(int32_t)] ^=
                        (unsigned char)(1u << self->bit);
                }

                fc_cpu_verify(&pat[it % 2], partner, 0, L->buf, count, 0, &m);
                if (m.wrong > 0 && side->wrong == 0) {
                    side->first_iter = it;
                    side->first_pos = m.first_pos;
                    side->expected = m.expected_bits;
                    side->actual = m.actual_bits;
                }
                side->wrong += m.wrong;
            }
        }
    }
    if (!out->failed) {
        side->median_s = fc_stats_median(times + sp->warmup, (size_t)sp->iters);
        fc_samples_keep(times + sp->warmup, sp->iters, &side->samples);
        fc_pairs_free_time(took[1] + sp->warmup, waits[1] + sp->warmup, sp->iters,
                           &side->cpu_wait, &side->free_median_s);
        side->calm = fc_pairs_calm_bits(took[1] + sp->warmup, waits[1] + sp->warmup, sp->iters);
        fc_pairs_free_time(took[0] + sp->warmup, waits[0] + sp->warmup, sp->iters,
                           &out->recv_wait, &(double){ 0 });
        out->recv_calm = fc_pairs_calm_bits(took[0] + sp->warmup, waits[0] + sp->warmup,
                                            sp->iters);
        for (int it = 0; it < total; ++it) {
            double t0 = MPI_Wtime();

            if (L->tr->pingpong(ep, lower, FC_PAIRS_LAT_BYTES, fc_rails_deadline(L->ctx), why,
                                sizeof(why)) != FC_OK) {
                fc_rails_failed(out, why);
                break;
            }
            times[it] = MPI_Wtime() - t0;
        }
        if (!out->failed)
            side->lat_us = fc_stats_median(times + sp->warmup, (size_t)sp->iters) / 2 * 1e6;
    }
    for (int k = 0; k < 2; ++k) {
        free(took[k]);
        free(waits[k]);
    }
    free(times);
}

/* This NIC against partner's, every size (both call it), into L->mine. */
void fc_rails_pair(fc_rails_local_t *L, int partner)
{
    int nz = L->ctx->sp.nsizes;
    fc_nic_ep_t *ep = NULL;
    char why[FC_NIC_WHY_MAX] = "";
    fc_status_t st;

    memset(L->mine, 0, (size_t)nz * sizeof(*L->mine));
    if (partner < 0)
        return;
    for (int z = 0; z < nz; ++z) {
        fc_pair_side_t *s = &L->mine[z].side;

        s->node = L->node;
        s->partner = partner;
        s->size_index = z;
        s->valid = 1;
        s->first_iter = -1;
        s->lat_cpu_wait = s->free_lat_us = -1;    /* the round trips' waits: not read */
        L->mine[z].recv_wait = -1;
        L->mine[z].rail = L->rail;
    }
    st = L->tr->connect(L->nic, L->rail_comm, partner, L->buf, L->len, fc_rails_deadline(L->ctx),
                        &ep, why, sizeof(why));
    for (int z = 0; z < nz; ++z) {
        if (st != FC_OK)
            fc_rails_failed(&L->mine[z], why);
        else if (!L->mine[0].failed)
            fc_rails_measure(L, ep, partner, z, &L->mine[z]);
        else
            fc_rails_failed(&L->mine[z], "the connection failed at a smaller size");
    }
    if (ep != NULL)
        L->tr->close(ep);
}

void fc_rails_gather(fc_rails_local_t *L)
{
    int nz = L->ctx->sp.nsizes;

    /* the NICs done first (or not in an alone measurement) wait without
     * spinning: the ones still measuring share their hosts' cores */
    fc_quiet_barrier(MPI_COMM_WORLD);
    fc_ctl_gather(MPI_COMM_WORLD, 0, "the rails' sides", L->mine, (size_t)nz * sizeof(*L->mine),
                  L->ctx->world_rank == 0 ? L->all : NULL);
    for (int i = 0; L->ctx->world_rank == 0 && i < L->ctx->world_size * nz; ++i)
        fc_ctl_check(fc_ctl_side_ok(&L->all[i].side, L->nnodes, nz) &&
                     (!L->all[i].side.valid || (L->all[i].rail >= 0 &&
                                                L->all[i].rail < L->nrails)) &&
                     (L->all[i].failed & ~1) == 0 &&
                     (L->all[i].recv_wait == -1 ||
                      (L->all[i].recv_wait >= 0 && L->all[i].recv_wait <= 1)) &&
                     fc_ctl_str_ok(L->all[i].why, sizeof(L->all[i].why)), "the rails' sides",
                     i / nz, "a side of rail %d, nodes %d and %d at size %d",
                     (int)L->all[i].rail, (int)L->all[i].side.node,
                     (int)L->all[i].side.partner, (int)L->all[i].side.size_index);
}

/* Rank 0: one side into its pair (the slower direction is the pair's),
 * as the pairs stage merges it, and the first reason a NIC failed. */
void fc_rails_merge_side(fc_rails_run_t *rr, fc_pair_t *p, const fc_rail_side_t *rs)
{
    const fc_pair_side_t *s = &rs->side;

    fc_pairs_merge_side(&rr->rails[rs->rail], p, s);
    /* each side here is a direction joined with its receiver's waits
     * (fc_rails_sides_joined), not one host's own: no host's share to
     * compare, so rule 6's alike waits say nothing on the rails */
    p->side_cpu_wait[0] = p->side_cpu_wait[1] = -1;
    p->side_lat_cpu_wait[0] = p->side_lat_cpu_wait[1] = -1;
    if (rs->failed && rr->errs[rs->rail * rr->nnodes + s->node][0] == '\0')
        snprintf(rr->errs[rs->rail * rr->nnodes + s->node], sizeof(rr->errs[0]), "%s", rs->why);
}

/* x's sending side with receiver y's waits joined (fc_rails_sides_joined). */
static void fc_rails_join(const fc_rail_side_t *x, const fc_rail_side_t *y, fc_rail_side_t *o)
{
    fc_pair_side_t *s = &o->side;

    *o = *x;
    o->wait_node = x->side.node;
    s->calm = x->side.calm & y->recv_calm;
    if (x->side.cpu_wait < 0 || y->recv_wait < 0) {
        s->cpu_wait = s->free_median_s = -1;
        s->calm = 0;
    } else if (y->recv_wait > x->side.cpu_wait) {
        /* the receiver held the sends longer than the sender: its share
         * of the time taken out of the sender's median */
        s->cpu_wait = y->recv_wait;
        s->free_median_s = x->side.median_s * fmax(1 - y->recv_wait, 0.01);
        o->wait_node = y->side.node;
    }
}

void fc_rails_sides_joined(const fc_rail_side_t *x, const fc_rail_side_t *y,
                           fc_rail_side_t *ox, fc_rail_side_t *oy)
{
    fc_rails_join(x, y, ox);
    fc_rails_join(y, x, oy);
}

/* Rank 0: a round's sides into every rail's tournament. */
void fc_rails_merge_round(fc_rails_local_t *L)
{
    fc_rails_run_t *rr = L->rr;
    int nz = L->ctx->sp.nsizes, n = rr->nnodes;

    for (int i = 0; i < L->ctx->world_size * nz; ++i) {
        const fc_rail_side_t *rs = &L->all[i];
        const fc_pair_side_t *s = &rs->side;
        fc_pairs_run_t *run;
        fc_pair_t *p;

        if (!s->valid)
            continue;
        run = &rr->rails[rs->rail];
        if ((p = fc_pairs_find(run, s->node, s->partner, s->size_index)) == NULL) {
            p = &run->pairs[run->npairs++];
            fc_pairs_pair_new(p, s->node, s->partner, s->size_index);
        }
        fc_rails_merge_side(rr, p, rs);
        rr->dirbw[((size_t)(rs->rail * n + s->node) * n + s->partner) * nz + s->size_index] =
            fc_stats_algbw(L->ctx->sp.sizes[s->size_index], s->median_s);
    }
}
