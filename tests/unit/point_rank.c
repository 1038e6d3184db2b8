/*
 * point_rank.c - one rank's check contract (lib/engine/fc_point_rank.h), which
 * the engine and the single-process GPU check share, driven as both drive
 * it (two input sets, roots rotated, in-place inputs staged, a reduce's
 * non-root recv left alone) over 1 to 4 simulated ranks in one process,
 * on host memory with the CPU kernels. The collectives are simulated here
 * from their definitions (what each rank's recv holds after the call,
 * NCCL's in-place conventions, a root honoured), so the "fabric" is
 * outside the code under test, and faults are planted in it:
 *  - healthy: every collective (reduce, broadcast and the four in-place
 *    ones included) passes on every rank at every iteration;
 *  - a root ignored (the call always roots at rank 0, what the old node
 *    check did): caught for every rooted collective from 2 ranks up;
 *  - a reduce that writes its result into a non-root's recv too: caught on
 *    that rank as changed elements of a buffer it had to leave alone (its
 *    recv[0], holding the known byte before its first turn as root and its
 *    own last output after it: rank 0 at iteration 1, after its turn at 0);
 *  - a call that writes nothing (the previous output left): caught at
 *    every iteration, a reduce's root on an even number of ranks too
 *    (whose turns as root once all had the same input set, so that the
 *    output its previous turn left was right again);
 *  - the self-test's flip at fc_point_rank_flip_index: caught at that
 *    element, on that rank, first (a flip in a reduce's recv off the root
 *    is counted once: the buffer is set back to the known byte after it);
 *  - a broadcast whose root has one buffer (bcast_one_buffer, the mpi
 *    backend's, and an in-place broadcast on either backend):
 *    the root's output is its input set itself, off the root recv[0]; the
 *    checks above hold there too, a call that writes into the root's
 *    buffer is caught on the root, and a flip in the root's buffer,
 *    flipped back after the check as the engine does, is one wrong
 *    element (left there, the root's next turn with that set, on 2 ranks,
 *    would send it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_point_rank.h"
#include "fc_tap.h"
#include "fc_test_reduce.h"

#define MAXR 4
#define BYTES 1024
#define ITERS 6
/* a call that writes nothing is planted at each iteration before this */
#define NOWRITE_LAST ITERS

enum { F_NONE, F_ROOT0, F_SCRIBBLE, F_NOWRITE, F_ROOTWRITE };

/* the broadcast's buffers of every run (fc_point_rank_t.bcast_one_buffer) */
static int one_buffer;
/* run's calls whose root's output was not where fc_point_rank_recv must
 * put it (send[set] with one buffer, else recv[0]) */
static int misplaced;

static fc_status_t m_fill(void *ctx, const fc_pattern_t *p, int32_t rank, uint64_t base,
                          void *buf, size_t count)
{
    fc_cpu_fill(p, rank, base, buf, count);
    return FC_OK;
}

static fc_status_t m_poison(void *ctx, void *buf, size_t bytes, int byte)
{
    memset(buf, byte, bytes);
    return FC_OK;
}

static fc_status_t m_copy(void *ctx, void *dst, const void *src, size_t bytes)
{
    memcpy(dst, src, bytes);
    return FC_OK;
}

static fc_status_t m_verify(void *ctx, const fc_pattern_t *p, int32_t src, uint64_t base,
                            const void *buf, size_t count, uint64_t pos, fc_mismatch_t *m)
{
    fc_cpu_verify(p, src, base, buf, count, pos, m);
    return FC_OK;
}

static fc_status_t m_untouched(void *ctx, const void *buf, size_t count, size_t esize, int byte,
                               uint64_t pos, fc_mismatch_t *m)
{
    fc_cpu_verify_untouched(buf, count, esize, byte, pos, m);
    return FC_OK;
}

static fc_status_t m_digest(void *ctx, const void *buf, size_t bytes, uint64_t *d)
{
    *d = fc_cpu_digest(buf, bytes);
    return FC_OK;
}

static const fc_point_mem_ops_t host_ops = { m_fill, m_poison, m_copy, m_verify, m_untouched,
                                             m_digest };

static uint64_t ld(const void *b, size_t es, size_t k)
{
    uint64_t v = 0;

    memcpy(&v, (const uint8_t *)b + k * es, es);
    return v;
}

static void st(void *b, size_t es, size_t k, uint64_t v)
{
    memcpy((uint8_t *)b + k * es, &v, es);
}

/* Rank r's input of a call: send, or where an in-place call reads it. */
static const void *input_of(const fc_coll_desc_t *d, const fc_coll_counts_t *cn, size_t es,
                            void *const *send, void *const *recv, int r)
{
    if (!d->in_place)
        return send[r];
    if (d->base == FC_COLL_ALL_GATHER)
        return (const uint8_t *)recv[r] + (size_t)r * cn->count * es;
    return recv[r];
}

/* One call of collective d on n ranks by its definition; fault plants. */
static void call(const fc_coll_desc_t *d, int dtype, int op, const fc_coll_counts_t *cn, int n,
                 int root, void *const *send, void *const *recv, int fault)
{
    size_t es = fc_dtype_info(dtype)->size, cnt = cn->count;
    const void *in[MAXR];
    void *out[MAXR];

    if (fault == F_NOWRITE)
        return;
    if (fault == F_ROOT0)
        root = 0;
    for (int r = 0; r < n; ++r) {
        in[r] = input_of(d, cn, es, send, recv, r);
        out[r] = malloc(cn->recv_elems * es);
        memcpy(out[r], recv[r], cn->recv_elems * es);
    }
    for (int r = 0; r < n; ++r)
        for (size_t k = 0; k < cn->recv_elems; ++k) {
            uint64_t v;

            switch (d->base) {
            case FC_COLL_ALL_REDUCE:
            case FC_COLL_REDUCE:
            case FC_COLL_REDUCE_SCATTER: {
                size_t idx = d->base == FC_COLL_REDUCE_SCATTER && !d->in_place ? r * cnt + k : k;

                if (d->base == FC_COLL_REDUCE && r != root && fault != F_SCRIBBLE)
                    continue;
                if (d->base == FC_COLL_REDUCE_SCATTER && d->in_place && k / cnt != (size_t)r)
                    continue;
                v = ld(in[0], es, idx);
                for (int s = 1; s < n; ++s)
                    v = fc_test_combine(dtype, op, v, ld(in[s], es, idx));
                break;
            }
            case FC_COLL_ALL_GATHER: v = ld(in[k / cnt], es, k % cnt); break;
            case FC_COLL_BROADCAST: v = ld(in[root], es, k); break;
            case FC_COLL_ALL_TO_ALL: v = ld(in[k / cnt], es, r * cnt + k % cnt); break;
            default: v = ld(in[fc_coll_ring_prev(r, n)], es, k); break;
            }
            st(out[r], es, k, v);
        }
    for (int r = 0; r < n; ++r) {
        memcpy(recv[r], out[r], cn->recv_elems * es);
        free(out[r]);
    }
    /* the call writes one bit into the root's output after the rest
     * (which, with one buffer, is the root's input set: it sent it, it
     * must stay as it was) */
    if (fault == F_ROOTWRITE)
        ((uint8_t *)recv[root])[0] ^= 4;
}

/* A point on n ranks as the engine drives it: wrong elements, all ranks
 * and iterations; the rank and iteration of the first in *bad_p. The
 * fault is planted from iteration 1 on, F_NOWRITE at fault_iter alone. With
 * flip_rank >= 0 that rank flips bit 3 of fc_point_rank_flip_index at
 * iteration flip_iter, and *flip_pos_p gets the element. */
static uint64_t run(int coll, int dtype, int op, int n, int fault, int fault_iter,
                    int flip_rank, int flip_iter, int *bad_rank_p, int *bad_iter_p,
                    uint64_t *first_pos_p, uint64_t *flip_pos_p)
{
    fc_point_rank_t pr[MAXR];
    void *send[MAXR][2], *recv[MAXR][2], *cs[MAXR], *cr[MAXR];
    uint64_t wrong = 0;

    *bad_rank_p = *bad_iter_p = -1;
    for (int r = 0; r < n; ++r) {
        fc_point_rank_init(&pr[r], &host_ops, NULL, r, n, (fc_coll_id_t)coll, (fc_dtype_t)dtype,
                           BYTES);
        pr[r].bcast_one_buffer = one_buffer;
        for (int k = 0; k < 2; ++k) {
            send[r][k] = calloc(1, fc_point_rank_send_bytes(&pr[r]) + 1);
            recv[r][k] = calloc(1, fc_point_rank_recv_bytes(&pr[r]) + 1);
        }
        fc_point_rank_prepare(&pr[r], (fc_op_t)op, 11, send[r], recv[r]);
    }
    for (int it = 0; it < ITERS; ++it) {
        int set = it & 1, root = fc_point_rank_root(&pr[0], it);

        for (int r = 0; r < n; ++r) {
            int sends = r == root && (coll == FC_COLL_BROADCAST_INPLACE ||
                                      (one_buffer && coll == FC_COLL_BROADCAST));

            cs[r] = pr[r].send[set];
            cr[r] = fc_point_rank_recv(&pr[r], set, root);
            misplaced += fc_point_rank_is_output(&pr[r], root) &&
                         cr[r] != (sends ? pr[r].send[set] : pr[r].recv[0]);
            fc_point_rank_stage(&pr[r], cr[r], set, root);
        }
        call(pr[0].desc, dtype, op, &pr[0].counts, n, root, cs, cr,
             it >= 1 && (fault != F_NOWRITE || it == fault_iter) &&
             (fault != F_ROOTWRITE || it == fault_iter) ? fault : F_NONE);
        for (int r = 0; r < n; ++r) {
            fc_mismatch_t m = { 0, 0, 0, 0 };
            uint64_t digest;
            int flipped = r == flip_rank && it == flip_iter;

            if (flipped) {
                *flip_pos_p = fc_point_rank_flip_index(&pr[r], root, -1);
                ((uint8_t *)cr[r])[*flip_pos_p * pr[r].esize] ^= 8;
            }
            fc_point_rank_check(&pr[r], cr[r], set, root, &digest, &m);
            /* as the engine (fc_engine_after_call): a flip in an input set
             * is taken out after the check */
            if (flipped && fc_point_rank_is_input(&pr[r], cr[r]))
                ((uint8_t *)cr[r])[*flip_pos_p * pr[r].esize] ^= 8;
            if (m.wrong && wrong == 0) {
                *bad_rank_p = r;
                *bad_iter_p = it;
                *first_pos_p = m.first_pos;
            }
            wrong += m.wrong;
        }
    }
    for (int r = 0; r < n; ++r)
        for (int k = 0; k < 2; ++k) {
            free(send[r][k]);
            free(recv[r][k]);
        }
    return wrong;
}

/* The root of iteration it on n ranks. */
static int root_of(int coll, int n, int it)
{
    fc_point_rank_t pr;

    fc_point_rank_init(&pr, &host_ops, NULL, 0, n, (fc_coll_id_t)coll, FC_INT32, BYTES);
    return fc_point_rank_root(&pr, it);
}

/* A broadcast whose root's output is its input set (one buffer: the mpi
 * backend's, in place or not; an in-place one on either backend): the
 * contract's checks, and a write into the root's buffer. */
static void one_buffer_broadcast(fc_tap_t *tap, const int (*types)[2], size_t ntypes)
{
    static const int kinds[][2] = { { FC_COLL_BROADCAST, 1 }, { FC_COLL_BROADCAST_INPLACE, 0 },
                                    { FC_COLL_BROADCAST_INPLACE, 1 } };
    int cases = 0, ok = 0, br, bi;
    uint64_t pos = 0, fpos = 0, w;

    for (size_t kd = 0; kd < sizeof(kinds) / sizeof(kinds[0]); ++kd) {
        for (size_t t = 0; t < ntypes; ++t)
            for (int n = 1; n <= MAXR; ++n) {
                int dt = types[t][0], c = kinds[kd][0], r2 = root_of(c, n, 2),
                    r1 = root_of(c, n, 1);

                one_buffer = kinds[kd][1];
                cases += 3;
                ok += run(c, dt, FC_OP_NONE, n, F_NONE, 0, -1, -1, &br, &bi, &pos, &fpos) == 0;
                w = run(c, dt, FC_OP_NONE, n, F_ROOTWRITE, 2, -1, -1, &br, &bi, &pos, &fpos);
                ok += w > 0 && br == r2 && bi == 2 && pos == 0;
                w = run(c, dt, FC_OP_NONE, n, F_NONE, 0, r1, 1, &br, &bi, &pos, &fpos);
                ok += w == 1 && br == r1 && bi == 1 && pos == fpos;
                if (n >= 2) {
                    ++cases;
                    w = run(c, dt, FC_OP_NONE, n, F_ROOT0, 0, -1, -1, &br, &bi, &pos, &fpos);
                    ok += w > 0 && bi == 1;
                }
                for (int at = 1; n >= 2 && at < NOWRITE_LAST; ++at) {
                    ++cases;
                    w = run(c, dt, FC_OP_NONE, n, F_NOWRITE, at, -1, -1, &br, &bi, &pos, &fpos);
                    ok += w > 0 && bi == at;
                }
            }
    }
    one_buffer = 0;
    fc_tap_is_int(tap, ok, cases, "a broadcast whose root has one buffer (the "
                  "mpi backend's, and an in-place one on either backend): the root's output is its "
                  "input set (%d misplaced), a healthy call "
                  "passes, a call that writes into the root's buffer is caught on the root, a "
                  "flip there (taken out after the check) is one element, an ignored root and a "
                  "call that writes nothing are caught, on 1 to 4 ranks (%d of %d)", misplaced, ok,
                  cases);
    fc_tap_is_int(tap, misplaced, 0, "a broadcast whose root has one buffer (the "
                  "mpi backend's, and an in-place one on either backend): the root's output is its "
                  "input set (%d misplaced), a healthy call "
                  "passes, a call that writes into the root's buffer is caught on the root, a "
                  "flip there (taken out after the check) is one element, an ignored root and a "
                  "call that writes nothing are caught, on 1 to 4 ranks (%d of %d)"
                  " [misplaced]", misplaced, ok, cases);
}

int main(void)
{
    static const int types[][2] = { { FC_INT32, FC_OP_SUM }, { FC_FLOAT32, FC_OP_MAX },
                                    { FC_FLOAT16, FC_OP_SUM } };
    fc_tap_t tap;
    int healthy_bad = 0, healthy = 0, root0 = 0, root0_caught = 0, nowrite = 0,
        nowrite_caught = 0, flips = 0, flips_caught = 0, scribble_ok = 0;
    int br, bi;
    uint64_t pos, fpos = 0;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 8);
    for (int c = 0; c < FC_COLL_COUNT; ++c) {
        const fc_coll_desc_t *d = fc_coll_desc((fc_coll_id_t)c);

        for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); ++t)
            for (int n = 1; n <= MAXR; ++n) {
                int dt = types[t][0], op = d->reduces ? types[t][1] : FC_OP_NONE;
                uint64_t w;

                ++healthy;
                if ((w = run(c, dt, op, n, F_NONE, 0, -1, -1, &br, &bi, &pos, &fpos)) != 0) {
                    ++healthy_bad;
                    fc_tap_diag(&tap, "%s %s on %d rank(s): %llu wrong, first on rank %d at "
                                "iteration %d", d->name, fc_dtype_info(dt)->name, n,
                                (unsigned long long)w, br, bi);
                }
                if (d->rooted && n >= 2) {
                    ++root0;
                    w = run(c, dt, op, n, F_ROOT0, 0, -1, -1, &br, &bi, &pos, &fpos);
                    root0_caught += w > 0 && bi == 1;
                }
                for (int at = 1; n >= 2 && at < NOWRITE_LAST; ++at) {
                    ++nowrite;
                    w = run(c, dt, op, n, F_NOWRITE, at, -1, -1, &br, &bi, &pos, &fpos);
                    nowrite_caught += w > 0 && bi == at;
                }
                ++flips;
                w = run(c, dt, op, n, F_NONE, 0, n - 1, 4, &br, &bi, &pos, &fpos);
                flips_caught += w >= 1 && br == n - 1 && bi == 4 && pos == fpos;
            }
    }
    fc_tap_is_int(&tap, healthy_bad, 0, "healthy collectives pass the shared contract on 1 to 4 "
                  "ranks, reduce, broadcast and the in-place ones included (%d of %d points)",
                  healthy - healthy_bad, healthy);
    fc_tap_ok(&tap, root0 > 0, "a call that ignores the rotated root "
              "(always rank 0) is caught at iteration 1 (%d of %d points)", root0_caught, root0);
    fc_tap_is_int(&tap, root0_caught, root0, "a call that ignores the rotated root "
                  "(always rank 0) is caught at iteration 1 (%d of %d points)"
                  " [root0_caught]", root0_caught, root0);
    for (int n = 2; n <= MAXR; ++n) {
        uint64_t w = run(FC_COLL_REDUCE, FC_INT32, FC_OP_SUM, n, F_SCRIBBLE, 0, -1, -1, &br,
                         &bi, &pos, &fpos);

        /* iteration 1's root is rank 1: rank 0's untouched recv was written */
        scribble_ok += w > 0 && br == 0 && bi == 1 && pos == 0;
    }
    fc_tap_is_int(&tap, scribble_ok, MAXR - 1, "a reduce that writes into a non-root's recv is "
                  "caught on that rank, from its first element (%d of %d rank counts)",
                  scribble_ok, MAXR - 1);
    fc_tap_is_int(&tap, nowrite_caught, nowrite, "a call that writes nothing (the previous "
                  "output left) is caught at that call, from 2 ranks up (%d of %d points and "
                  "iterations)", nowrite_caught, nowrite);
    fc_tap_is_int(&tap, flips_caught, flips, "the self-test's flip is caught at its element, on "
                  "its rank and iteration, first (%d of %d points)", flips_caught, flips);
    one_buffer_broadcast(&tap, types, sizeof(types) / sizeof(types[0]));
    return fc_tap_done(&tap);
}

