/*
 * fc_backend_mpi.c - the mpi backend: host buffers and MPI collectives.
 *
 * Runs everywhere, CI included, and exercises the fabric through whatever
 * transport Open MPI picks (UCX/verbs on a real cluster, TCP or shared
 * memory here). MPI has no float16 or bfloat16 reductions, so those use a
 * 2-byte contiguous datatype and user-defined, commutative ops that widen to
 * float32 and round back to nearest-even (exact for fabcert's data, correct
 * for any data).
 */
#include "fc_backend.h"

#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_half.h"
#include "fc_log.h"

/* The maps over the engine's enums (collective, type, op) list every
 * value and have no default: a value added to an enum and forgotten here
 * is a build error, not a run-time failure (-Wswitch reports a switch
 * without default, -Wswitch-enum one with). */
#pragma GCC diagnostic error "-Wswitch"
#pragma GCC diagnostic error "-Wswitch-enum"

typedef struct fc_backend_mpi {
    MPI_Datatype half_type;             /* 2 bytes, for (b)float16 */
    MPI_Op half_ops[2][4];              /* [bf16?][op] */
} fc_backend_mpi_t;

static float fc_apply_op(int op, float a, float b)
{
    switch (op) {
    case FC_OP_SUM:  return a + b;
    case FC_OP_PROD: return a * b;
    case FC_OP_MIN:  return a < b ? a : b;
    default:         return a > b ? a : b;
    }
}

#define FC_HALF_OP(NAME, TO_F, FROM_F, OP)                                 \
    static void NAME(void *in, void *inout, int *len, MPI_Datatype *dt)    \
    {                                                                      \
        const uint16_t *a = in;                                            \
        uint16_t *b = inout;                                               \
        (void)dt;                                                          \
        for (int k = 0; k < *len; ++k)                                     \
            b[k] = FROM_F(fc_apply_op(OP, TO_F(a[k]), TO_F(b[k])));       \
    }

FC_HALF_OP(fc_f16_sum, fc_f16_to_float, fc_float_to_f16, FC_OP_SUM)
FC_HALF_OP(fc_f16_prod, fc_f16_to_float, fc_float_to_f16, FC_OP_PROD)
FC_HALF_OP(fc_f16_min, fc_f16_to_float, fc_float_to_f16, FC_OP_MIN)
FC_HALF_OP(fc_f16_max, fc_f16_to_float, fc_float_to_f16, FC_OP_MAX)
FC_HALF_OP(fc_bf16_sum, fc_bf16_to_float, fc_float_to_bf16, FC_OP_SUM)
FC_HALF_OP(fc_bf16_prod, fc_bf16_to_float, fc_float_to_bf16, FC_OP_PROD)
FC_HALF_OP(fc_bf16_min, fc_bf16_to_float, fc_float_to_bf16, FC_OP_MIN)
FC_HALF_OP(fc_bf16_max, fc_bf16_to_float, fc_float_to_bf16, FC_OP_MAX)

/* by fc_op_t: the four reductions come first, in this order */
_Static_assert(FC_OP_SUM == 0 && FC_OP_PROD == 1 && FC_OP_MIN == 2 && FC_OP_MAX == 3 &&
               FC_OP_NONE == 4, "fc_half_funcs and half_ops are indexed by the reduction");

static MPI_User_function *const fc_half_funcs[2][4] = {
    { fc_f16_sum, fc_f16_prod, fc_f16_min, fc_f16_max },
    { fc_bf16_sum, fc_bf16_prod, fc_bf16_min, fc_bf16_max },
};

static MPI_Datatype fc_mpi_datatype(fc_backend_mpi_t *mb, fc_dtype_t dtype)
{
    switch (dtype) {
    case FC_INT32:    return MPI_INT32_T;
    case FC_INT64:    return MPI_INT64_T;
    case FC_UINT8:    return MPI_UINT8_T;
    case FC_FLOAT32:  return MPI_FLOAT;
    case FC_FLOAT64:  return MPI_DOUBLE;
    case FC_FLOAT16:
    case FC_BFLOAT16: return mb->half_type;
    case FC_DTYPE_COUNT:
        break;
    }
    FC_ASSERT((unsigned)dtype < FC_DTYPE_COUNT);
    return MPI_DATATYPE_NULL;
}

static MPI_Op fc_mpi_op(fc_backend_mpi_t *mb, fc_dtype_t dtype, fc_op_t op)
{
    FC_ASSERT((unsigned)op <= FC_OP_MAX);   /* a reduction's op: the plan never pairs none */
    if (dtype == FC_FLOAT16 || dtype == FC_BFLOAT16)
        return mb->half_ops[dtype == FC_BFLOAT16][op];
    switch (op) {
    case FC_OP_SUM:  return MPI_SUM;
    case FC_OP_PROD: return MPI_PROD;
    case FC_OP_MIN:  return MPI_MIN;
    case FC_OP_MAX:  return MPI_MAX;
    case FC_OP_NONE:
    case FC_OP_COUNT:
        break;
    }
    return MPI_OP_NULL;
}

static fc_status_t fc_mpi_alloc(fc_backend_t *be, size_t bytes, void **buf_p)
{
    void *buf;

    (void)be;
    /* a data buffer sized by the profile's message size (its input): a
     * failure is an error naming the size, which the engine turns into the
     * point's FAIL record, not the out-of-memory policy (fc_alloc.h) */
    if (posix_memalign(&buf, 4096, bytes ? bytes : 1) != 0) {
        fc_error("cannot allocate %zu bytes of host memory", bytes);
        return FC_ERR_INTERNAL;
    }
    *buf_p = buf;
    return FC_OK;
}

static void fc_mpi_free(fc_backend_t *be, void *buf)
{
    (void)be;
    free(buf);
}

static fc_status_t fc_mpi_fill(fc_backend_t *be, const fc_pattern_t *p,
                               int32_t rank, uint64_t index_base, void *buf,
                               size_t count)
{
    (void)be;
    fc_cpu_fill(p, rank, index_base, buf, count);
    return FC_OK;
}

/* A buffer the collective must not write (a reduce's non-root recv, a
 * buffer of its own), set to a known byte once per point before the
 * warm-up, outside any timing. */
static fc_status_t fc_mpi_poison(fc_backend_t *be, void *buf, size_t bytes,
                                 int byte)
{
    (void)be;
    memset(buf, byte, bytes);
    return FC_OK;
}

static fc_status_t fc_mpi_copy(fc_backend_t *be, void *dst, const void *src,
                               size_t bytes)
{
    (void)be;
    memcpy(dst, src, bytes);
    return FC_OK;
}

static int fc_mpi_call(fc_backend_t *be, const fc_coll_call_t *c)
{
    fc_backend_mpi_t *mb = be->priv;
    MPI_Datatype dt = fc_mpi_datatype(mb, c->dtype);
    int count = (int)c->count;

    /* every collective, no default: a new one that is not mapped here is a
     * build error (the pragmas above), not a run-time failure */
    switch ((fc_coll_id_t)c->coll) {
    case FC_COLL_ALL_REDUCE:
        return MPI_Allreduce(c->send, c->recv, count, dt,
                             fc_mpi_op(mb, c->dtype, c->op), be->comm);
    case FC_COLL_ALL_REDUCE_INPLACE:
        return MPI_Allreduce(MPI_IN_PLACE, c->recv, count, dt,
                             fc_mpi_op(mb, c->dtype, c->op), be->comm);
    case FC_COLL_ALL_GATHER:
        return MPI_Allgather(c->send, count, dt, c->recv, count, dt, be->comm);
    case FC_COLL_ALL_GATHER_INPLACE:
        return MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, c->recv, count, dt,
                             be->comm);
    case FC_COLL_REDUCE_SCATTER:
        return MPI_Reduce_scatter_block(c->send, c->recv, count, dt,
                                        fc_mpi_op(mb, c->dtype, c->op), be->comm);
    case FC_COLL_REDUCE_SCATTER_INPLACE:
        return MPI_Reduce_scatter_block(MPI_IN_PLACE, c->recv, count, dt,
                                        fc_mpi_op(mb, c->dtype, c->op), be->comm);
    case FC_COLL_BROADCAST:
    case FC_COLL_BROADCAST_INPLACE:
        /* MPI_Bcast has one buffer (be->bcast_one_buffer): the root's recv
         * is its input set itself, in place or not (fc_point_rank_recv);
         * the others receive into theirs */
        return MPI_Bcast(c->recv, count, dt, c->root, be->comm);
    case FC_COLL_REDUCE:
        return MPI_Reduce(c->send, c->recv, count, dt, fc_mpi_op(mb, c->dtype, c->op),
                          c->root, be->comm);
    case FC_COLL_ALL_TO_ALL:
        return MPI_Alltoall(c->send, count, dt, c->recv, count, dt, be->comm);
    case FC_COLL_SENDRECV:
        return MPI_Sendrecv(c->send, count, dt,
                            fc_coll_ring_next(be->rank, be->size), 0,
                            c->recv, count, dt,
                            fc_coll_ring_prev(be->rank, be->size), 0,
                            be->comm, MPI_STATUS_IGNORE);
    case FC_COLL_COUNT:
        break;
    }
    return MPI_ERR_OTHER;
}

/* After the timed call: MPI's in-place reduce_scatter leaves each rank's
 * block at the start of recv; the descriptor (NCCL's convention) wants it
 * at the rank's own place. */
static void fc_mpi_after(fc_backend_t *be, const fc_coll_call_t *c)
{
    size_t bytes = c->count * fc_dtype_info(c->dtype)->size;

    if (c->coll == FC_COLL_REDUCE_SCATTER_INPLACE && be->rank > 0)
        memmove((uint8_t *)c->recv + (size_t)be->rank * bytes, c->recv, bytes);
}

static fc_status_t fc_mpi_failed(const fc_coll_call_t *call, int rc)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len;

    MPI_Error_string(rc, msg, &len);
    fc_error("%s failed: %s", fc_coll_desc(call->coll)->name, msg);
    return FC_ERR_FAIL;
}

static fc_status_t fc_mpi_check_count(const fc_coll_call_t *call)
{
    if (call->count > (size_t)0x7FFFFFFF) {
        fc_error("%s of %zu elements exceeds MPI's int count",
                 fc_coll_desc(call->coll)->name, call->count);
        return FC_ERR_INVALID;
    }
    return FC_OK;
}

/* One call timed from a common start; after: fc_mpi_after's move. */
static fc_status_t fc_mpi_run_timed(fc_backend_t *be, const fc_coll_call_t *call, int after,
                                    double *seconds_p)
{
    double ta, t0, t1;
    int rc;

    FC_CHECK(fc_mpi_check_count(call));
    ta = MPI_Wtime();
    MPI_Barrier(be->comm);
    t0 = MPI_Wtime();
    rc = fc_mpi_call(be, call);
    t1 = MPI_Wtime();
    be->last_wait_s = t0 - ta;
    if (rc != MPI_SUCCESS)
        return fc_mpi_failed(call, rc);
    if (after)
        fc_mpi_after(be, call);
    *seconds_p = t1 - t0;
    return FC_OK;
}

static fc_status_t fc_mpi_run(fc_backend_t *be, const fc_coll_call_t *call,
                              double *seconds_p)
{
    return fc_mpi_run_timed(be, call, 1, seconds_p);
}

fc_status_t fc_backend_mpi_run_bare(fc_backend_t *be, const fc_coll_call_t *call,
                                    double *seconds_p)
{
    return fc_mpi_run_timed(be, call, 0, seconds_p);
}

/* The n calls calls[0..n-1] back to back, after one barrier, under one
 * timer (nccl-tests' way): *seconds_p is this rank's total; after the
 * timer, fc_mpi_after's move on each call's own output. */
static fc_status_t fc_mpi_run_batch(fc_backend_t *be, const fc_coll_call_t *calls, int n,
                                    double *seconds_p)
{
    double t0, t1;
    int rc = MPI_SUCCESS;

    FC_CHECK(fc_mpi_check_count(&calls[0]));
    MPI_Barrier(be->comm);
    t0 = MPI_Wtime();
    for (int i = 0; i < n && rc == MPI_SUCCESS; ++i)
        rc = fc_mpi_call(be, &calls[i]);
    t1 = MPI_Wtime();
    if (rc != MPI_SUCCESS)
        return fc_mpi_failed(&calls[0], rc);
    for (int i = 0; i < n; ++i)
        fc_mpi_after(be, &calls[i]);
    *seconds_p = t1 - t0;
    return FC_OK;
}

static fc_status_t fc_mpi_verify(fc_backend_t *be, const fc_pattern_t *p,
                                 int32_t src, uint64_t index_base,
                                 const void *buf, size_t count,
                                 uint64_t pos_base, fc_mismatch_t *m)
{
    (void)be;
    fc_cpu_verify(p, src, index_base, buf, count, pos_base, m);
    return FC_OK;
}

static fc_status_t fc_mpi_verify_untouched(fc_backend_t *be, const void *buf, size_t count,
                                           size_t esize, int byte, uint64_t pos_base,
                                           fc_mismatch_t *m)
{
    (void)be;
    fc_cpu_verify_untouched(buf, count, esize, byte, pos_base, m);
    return FC_OK;
}

static fc_status_t fc_mpi_digest(fc_backend_t *be, const void *buf,
                                 size_t bytes, uint64_t *digest_p)
{
    (void)be;
    *digest_p = fc_cpu_digest(buf, bytes);
    return FC_OK;
}

static fc_status_t fc_mpi_flip_bit(fc_backend_t *be, void *buf, size_t byte,
                                   int bit)
{
    (void)be;
    ((uint8_t *)buf)[byte] ^= (uint8_t)(1u << bit);
    return FC_OK;
}

static void fc_mpi_fini(fc_backend_t *be)
{
    fc_backend_mpi_t *mb = be->priv;

    if (mb == NULL)
        return;
    for (int b = 0; b < 2; ++b)
        for (int o = 0; o < 4; ++o)
            MPI_Op_free(&mb->half_ops[b][o]);
    MPI_Type_free(&mb->half_type);
    free(mb);
    be->priv = NULL;
}

static const fc_backend_ops_t fc_backend_mpi_ops = {
    .name = "mpi",
    .alloc_func = fc_mpi_alloc,
    .free_func = fc_mpi_free,
    .fill_func = fc_mpi_fill,
    .poison_func = fc_mpi_poison,
    .copy_func = fc_mpi_copy,
    .run_func = fc_mpi_run,
    .run_batch_func = fc_mpi_run_batch,
    .verify_func = fc_mpi_verify,
    .verify_untouched_func = fc_mpi_verify_untouched,
    .digest_func = fc_mpi_digest,
    .flip_bit_func = fc_mpi_flip_bit,
    .fini_func = fc_mpi_fini,
};

fc_status_t fc_backend_mpi_init(MPI_Comm comm, fc_backend_t *be)
{
    fc_backend_mpi_t *mb = fc_xcalloc(1, sizeof(*mb), "the mpi backend");

    MPI_Type_contiguous(2, MPI_BYTE, &mb->half_type);
    MPI_Type_commit(&mb->half_type);
    for (int b = 0; b < 2; ++b)
        for (int o = 0; o < 4; ++o)
            MPI_Op_create(fc_half_funcs[b][o], 1, &mb->half_ops[b][o]);
    be->ops = &fc_backend_mpi_ops;
    be->comm = comm;
    MPI_Comm_rank(comm, &be->rank);
    MPI_Comm_size(comm, &be->size);
    be->priv = mb;
    be->last_wait_s = -1;
    be->bcast_one_buffer = 1;
    return FC_OK;
}
