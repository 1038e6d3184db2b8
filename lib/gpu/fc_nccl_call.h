/*
 * fc_nccl_call.h - one NCCL call of the engine's collective set on one rank
 * (one GPU): the type and op maps and the call itself, shared by the nccl
 * backend (one rank per process) and the MPI-free node check (every GPU
 * from one process, the calls wrapped in one outer NCCL group). In-place
 * variants follow NCCL's definitions (all_gather: sendbuff is this rank's
 * block of recvbuff; reduce_scatter: recvbuff is this rank's block of
 * sendbuff), which the descriptors in lib/base/fc_coll.c share; all_to_all and sendrecv are
 * grouped sends and receives (sendrecv: to the next rank of the ring, from
 * the previous one).
 */
#ifndef FC_NCCL_CALL_H
#define FC_NCCL_CALL_H

#include <cuda_runtime.h>
#include <nccl.h>

#include "fc_coll.h"

/* The maps over the engine's enums (type, op, collective) list every
 * value and have no default: a value added to an enum and forgotten here
 * is a build error (-Wswitch reports a switch without default,
 * -Wswitch-enum one with; popped at the end of this header), not a
 * run-time failure. A value that is no type or reduction gives NCCL's
 * count, which NCCL refuses (ncclInvalidArgument). */
#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wswitch"
#pragma GCC diagnostic error "-Wswitch-enum"

static inline ncclDataType_t fc_nccl_dtype(int dtype)
{
    switch ((fc_dtype_t)dtype) {
    case FC_INT32: return ncclInt32;
    case FC_INT64: return ncclInt64;
    case FC_UINT8: return ncclUint8;
    case FC_FLOAT32: return ncclFloat32;
    case FC_FLOAT64: return ncclFloat64;
    case FC_FLOAT16: return ncclFloat16;
    case FC_BFLOAT16: return ncclBfloat16;
    case FC_DTYPE_COUNT: break;
    }
    return ncclNumTypes;
}

static inline ncclRedOp_t fc_nccl_op(int op)
{
    switch ((fc_op_t)op) {
    case FC_OP_SUM: return ncclSum;
    case FC_OP_PROD: return ncclProd;
    case FC_OP_MIN: return ncclMin;
    case FC_OP_MAX: return ncclMax;
    case FC_OP_NONE:            /* no reduction: only reductions map an op */
    case FC_OP_COUNT: break;
    }
    return ncclNumOps;
}

static inline ncclResult_t fc_nccl_issue(int coll, int dtype, int op, const void *send,
                                         void *recv, size_t count, int root, int rank,
                                         int nranks, ncclComm_t comm, cudaStream_t stream)
{
    ncclDataType_t dt = fc_nccl_dtype(dtype);
    size_t esize = (size_t)fc_dtype_size(dtype);
    ncclResult_t r = ncclSuccess;

    char *at = (char *)recv + (size_t)rank * count * esize;     /* this rank's block */

    switch ((fc_coll_id_t)coll) {
    case FC_COLL_ALL_REDUCE:
        return ncclAllReduce(send, recv, count, dt, fc_nccl_op(op), comm, stream);
    case FC_COLL_ALL_REDUCE_INPLACE:
        return ncclAllReduce(recv, recv, count, dt, fc_nccl_op(op), comm, stream);
    case FC_COLL_ALL_GATHER:
        return ncclAllGather(send, recv, count, dt, comm, stream);
    case FC_COLL_ALL_GATHER_INPLACE:        /* sendbuff = recvbuff + rank * count */
        return ncclAllGather(at, recv, count, dt, comm, stream);
    case FC_COLL_REDUCE_SCATTER:
        return ncclReduceScatter(send, recv, count, dt, fc_nccl_op(op), comm, stream);
    case FC_COLL_REDUCE_SCATTER_INPLACE:    /* recvbuff = sendbuff + rank * count */
        return ncclReduceScatter(recv, at, count, dt, fc_nccl_op(op), comm, stream);
    case FC_COLL_BROADCAST:
        return ncclBroadcast(send, recv, count, dt, root, comm, stream);
    case FC_COLL_BROADCAST_INPLACE:
        return ncclBroadcast(recv, recv, count, dt, root, comm, stream);
    case FC_COLL_REDUCE:
        return ncclReduce(send, recv, count, dt, fc_nccl_op(op), root, comm, stream);
    case FC_COLL_ALL_TO_ALL:
        if ((r = ncclGroupStart()) != ncclSuccess)
            return r;
        for (int peer = 0; peer < nranks && r == ncclSuccess; ++peer) {
            r = ncclSend((const char *)send + (size_t)peer * count * esize, count, dt, peer,
                         comm, stream);
            if (r == ncclSuccess)
                r = ncclRecv((char *)recv + (size_t)peer * count * esize, count, dt, peer,
                             comm, stream);
        }
        return r == ncclSuccess ? ncclGroupEnd() : (ncclGroupEnd(), r);
    case FC_COLL_SENDRECV:
        if ((r = ncclGroupStart()) != ncclSuccess)
            return r;
        r = ncclSend(send, count, dt, fc_coll_ring_next(rank, nranks), comm, stream);
        if (r == ncclSuccess)
            r = ncclRecv(recv, count, dt, fc_coll_ring_prev(rank, nranks), comm, stream);
        return r == ncclSuccess ? ncclGroupEnd() : (ncclGroupEnd(), r);
    case FC_COLL_COUNT:
        break;
    }
    return ncclInvalidArgument;
}

#pragma GCC diagnostic pop

#endif
