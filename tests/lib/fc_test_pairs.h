/*
 * fc_test_pairs.h - the planted pair matrix the unit tests of the pairs
 * stage's judgement share (tests/unit/pairs_judge.c: the rules;
 * tests/unit/pairs_agree.c: the agreement of the evidence, the noise
 * floor and direction): a run of the pairs stage as rank 0 holds it after
 * its rounds, no MPI, each pair's figure planted.
 */
#ifndef FC_TEST_PAIRS_H
#define FC_TEST_PAIRS_H

#include <stdio.h>
#include <string.h>

#include "fc_pairs_stage.h"

#define MAXN 12

typedef struct matrix {
    fc_stage_ctx_t ctx;
    fc_pairs_run_t run;
    char racks[4][FC_INV_NAME_MAX];
    char hosts[MAXN][FC_HOST_MAX];
    int node_racks[MAXN];
    fc_pair_t pairs[MAXN * MAXN];
} matrix_t;

/* per_rack: node counts; a 256 KiB size; relative rule pct%, from 0 bytes.
 * Pairs inside a rack move `inside` GB/s, across the spine `across`, each
 * wandering by up to +-30% (a busy machine), deterministically. */
static inline void matrix_make(matrix_t *m, const int *per_rack, int nracks, double pct,
                        double inside, double across)
{
    int n = 0;
    unsigned seed = 12345;

    memset(m, 0, sizeof(*m));
    m->ctx.sp.max_below_median_pct = pct;
    m->ctx.sp.relative_min_bytes = 0;
    m->ctx.sp.nsizes = 1;
    m->ctx.sp.sizes[0] = 256 << 10;
    m->ctx.inv.nracks = nracks;
    m->ctx.inv.racks = m->racks;
    for (int r = 0; r < nracks; ++r) {
        snprintf(m->racks[r], sizeof(m->racks[r]), "rack%d", r + 1);
        for (int k = 0; k < per_rack[r]; ++k, ++n) {
            m->node_racks[n] = r;
            snprintf(m->hosts[n], sizeof(m->hosts[n]), "n%02d", n + 1);
        }
    }
    m->run.ctx = &m->ctx;
    m->run.nnodes = n;
    m->run.node_hosts = m->hosts;
    m->run.node_racks = m->node_racks;
    m->run.pairs = m->pairs;
    for (int a = 0; a < n; ++a)
        for (int b = a + 1; b < n; ++b) {
            fc_pair_t *p = &m->pairs[m->run.npairs++];

            seed = seed * 1103515245u + 12345u;
            p->a = a;
            p->b = b;
            p->bad_node = -1;
            p->bw_gbps = (m->node_racks[a] == m->node_racks[b] ? inside : across) *
                         (0.7 + 0.6 * (double)((seed >> 16) % 1000) / 1000.0);
            p->lat_us = 20;
        }
}

#endif
