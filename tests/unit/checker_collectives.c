/*
 * checker_collectives.c - the checker against simulated collectives, no
 * MPI: for each collective, type and op on 4 ranks, every rank's output is
 * built from the ranks' generated inputs by the collective's definition
 * (with the reference arithmetic of fc_test_reduce.h), then
 *  - the clean outputs verify with zero wrong elements on every rank, and
 *  - one bit flipped in one element of one rank's output (a random bit of a
 *    random element) is found on that rank: exactly one wrong element, at
 *    that position, with the original and the flipped bits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_coll.h"
#include "fc_pattern_host.h"
#include "fc_tap.h"
#include "fc_test_reduce.h"

#define NRANKS 4
#define BYTES 4096

static uint64_t load(const void *buf, size_t esize, size_t k)
{
    uint64_t v = 0;

    memcpy(&v, (const uint8_t *)buf + k * esize, esize);
    return v;
}

static void store(void *buf, size_t esize, size_t k, uint64_t v)
{
    memcpy((uint8_t *)buf + k * esize, &v, esize);
}

/* Build rank r's output of collective c from all inputs. */
static void simulate(const fc_coll_desc_t *d, const fc_pattern_t *p,
                     const fc_coll_counts_t *cn, void *const *in, int r,
                     void *out)
{
    size_t es = fc_dtype_info(p->dtype)->size, cnt = cn->count;
    int root = 0;

    for (size_t k = 0; k < cn->recv_elems; ++k) {
        uint64_t v = 0;

        switch (d->base) {
        case FC_COLL_ALL_REDUCE:
        case FC_COLL_REDUCE:            /* what the root receives */
        case FC_COLL_REDUCE_SCATTER: {
            /* reduce_scatter in place (NCCL's definition): the whole input
             * in recv, this rank's result in its own block */
            size_t idx = d->base != FC_COLL_REDUCE_SCATTER ? k : d->in_place ? k : r * cnt + k;

            if (d->base == FC_COLL_REDUCE_SCATTER && d->in_place && k / cnt != (size_t)r)
                break;
            v = load(in[0], es, idx);
            for (int s = 1; s < NRANKS; ++s)
                v = fc_test_combine(p->dtype, p->op, v, load(in[s], es, idx));
            break;
        }
        case FC_COLL_ALL_GATHER: v = load(in[k / cnt], es, k % cnt); break;
        case FC_COLL_BROADCAST: v = load(in[root], es, k); break;
        case FC_COLL_ALL_TO_ALL: v = load(in[k / cnt], es, r * cnt + k % cnt); break;
        case FC_COLL_SENDRECV: v = load(in[fc_coll_ring_prev(r, NRANKS)], es, k); break;
        default: break;
        }
        store(out, es, k, v);
    }
}

static fc_mismatch_t verify(const fc_coll_desc_t *d, const fc_pattern_t *p,
                            const fc_coll_counts_t *cn, int r, const void *out)
{
    size_t es = fc_dtype_info(p->dtype)->size;
    fc_mismatch_t m = { 0, 0, 0, 0 };

    for (int k = 0; k < d->block_count_func(NRANKS); ++k) {
        fc_coll_block_t b;

        d->block_func(cn, r, NRANKS, 0, k, &b);
        fc_cpu_verify(p, b.src, b.index_base, (const uint8_t *)out + b.pos * es,
                      b.len, b.pos, &m);
    }
    return m;
}

int main(void)
{
    uint64_t rng = 42;
    fc_tap_t tap;
    int points = 0;

    for (int c = 0; c < FC_COLL_COUNT; ++c)
        points += FC_DTYPE_COUNT * (fc_coll_desc(c)->reduces ? 4 : 1) * 2;
    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, points);
    for (int c = 0; c < FC_COLL_COUNT; ++c) {
        const fc_coll_desc_t *d = fc_coll_desc(c);

        for (int dt = 0; dt < FC_DTYPE_COUNT; ++dt) {
            for (int op = 0; op < (d->reduces ? 4 : 1); ++op) {
                int theop = d->reduces ? op : FC_OP_NONE;
                size_t es = fc_dtype_info(dt)->size;
                fc_coll_counts_t cn;
                fc_pattern_t p;
                void *in[NRANKS], *out[NRANKS];
                uint64_t clean_wrong = 0;
                int caught = 0;
                char label[96];

                d->counts_func(BYTES, es, NRANKS, &cn);
                fc_pattern_make(dt, theop, NRANKS, 7u + (uint32_t)c, &p);
                for (int r = 0; r < NRANKS; ++r) {
                    in[r] = malloc(cn.send_elems * es);
                    out[r] = malloc(cn.recv_elems * es);
                    fc_cpu_fill(&p, r, 0, in[r], cn.send_elems);
                }
                for (int r = 0; r < NRANKS; ++r) {
                    simulate(d, &p, &cn, in, r, out[r]);
                    clean_wrong += verify(d, &p, &cn, r, out[r]).wrong;
                }
                snprintf(label, sizeof(label), "%s %s %s", d->name,
                         fc_dtype_info(dt)->name, fc_op_name(theop));
                fc_tap_is_int(&tap, clean_wrong, 0,
                              "%s: clean outputs verify on all %d ranks (%llu wrong)", label,
                              NRANKS, (unsigned long long)clean_wrong);

                for (int r = 0; r < NRANKS; ++r) {
                    /* a random element of the output (its blocks: an in-place
                     * reduce_scatter's output is one block of recv) */
                    fc_coll_block_t blk;
                    size_t pos;
                    int bit = (int)(fc_test_rand(&rng) % (8 * es));

                    d->block_func(&cn, r, NRANKS, 0,
                                  (int)(fc_test_rand(&rng) % (uint64_t)d->block_count_func(NRANKS)),
                                  &blk);
                    pos = blk.pos + fc_test_rand(&rng) % blk.len;
                    uint64_t before = load(out[r], es, pos);
                    fc_mismatch_t m;

                    ((uint8_t *)out[r])[pos * es + bit / 8] ^= (uint8_t)(1u << (bit % 8));
                    m = verify(d, &p, &cn, r, out[r]);
                    caught += m.wrong == 1 && m.first_pos == pos &&
                              m.expected_bits == before &&
                              m.actual_bits == load(out[r], es, pos);
                    if (!(m.wrong == 1 && m.first_pos == pos))
                        fc_tap_diag(&tap, "%s rank %d: flipped bit %d of element %zu,"
                                    " checker saw %llu wrong, first at %llu",
                                    label, r, bit, pos, (unsigned long long)m.wrong,
                                    (unsigned long long)m.first_pos);
                }
                fc_tap_is_int(&tap, caught, NRANKS,
                              "%s: a flipped bit on each rank is found at its element "
                              "(%d of %d)", label, caught, NRANKS);
                for (int r = 0; r < NRANKS; ++r) {
                    free(in[r]);
                    free(out[r]);
                }
            }
        }
    }
    return fc_tap_done(&tap);
}
