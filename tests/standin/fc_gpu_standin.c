/*
 * fc_gpu_standin.c - a stand-in GPU plugin for tests on machines without a
 * GPU, loaded through FABCERT_GPU_PLUGIN=build/tests/libfc_gpu_standin.so
 * (fabcert run --env). It claims one device on every rank, so a stage
 * chooses the nccl backend. What it does then is $FC_GPU_STANDIN's:
 *
 *   (unset)  the backend's initialisation fails on every rank, the way a
 *            dead NVLink or HCA makes ncclCommInitRank fail on a real node;
 *   host     a backend on host memory that runs the nccl backend's failure
 *            protocol itself (lib/gpu/fc_gpu_agree.c: every call agreed,
 *            all ranks abort together, a local failure learnt at the next
 *            call), the "device" being the mpi backend: releasing a call's
 *            gate runs the MPI collective. $FC_GPU_STANDIN_FAIL =
 *            "rank=R,step=S,nth=N" makes the Nth local step S (fill,
 *            poison, copy, verify, untouched, digest, flip) of world rank R
 *            fail, as a GPU kernel or a bounded wait fails on one rank.
 *
 * In host mode it also has the plugin's GPU health hooks (lib/gpu/
 * fc_nvml.c and fc_gpu_health.c themselves: point $FABCERT_NVML_LIB at
 * build/tests/libfc_nvml_standin.so, whose GPUs' PCI ids are the ones
 * describe gives: 00000000:1L:00.0 for local rank L) and a burn hook:
 * double-precision GEMMs of 64 x 64 on the CPU for the time asked, C
 * digested every iteration and compared with the first, as the GPU burn
 * does; $FC_GPU_STANDIN_BURN_FLIP = "rank=R,call=N" flips a bit of C at
 * iteration 1 of world rank R's Nth burn (a GPU that computes wrongly).
 * The overlap stage's persistent GEMM burn (ABI 4) is a CPU GEMM on a host
 * thread of its own: tests/standin/fc_gemm_standin.c. The NVLink fabric
 * query (ABI 5) asks the NVML reader about local rank L's PCI id, so a
 * stand-in NVML file per host ("%h") gives each node its clique.
 *
 * $FC_GPU_STANDIN_GPUS=N gives a GPU to the first N ranks of each host alone.
 * Every rank says at its end what the protocol did to it ("stand-in GPU
 * plugin: rank R ended: calls=C aborts=A destroys=D"), for
 * tests/e2e/gpu_agree.t. Its records name the device "stand-in" and the
 * plugin's path (stage_start's gpu_plugin), so a run made with it can never
 * be taken for a GPU's: it is a test of fabcert's own protocol, not a
 * measurement of anything.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fc_gemm_standin.h"
#include "fc_log.h"
#include "fc_plugin.h"
#include "gpu/fc_gpu_agree.h"

typedef struct fc_standin {
    fc_backend_t inner;             /* the mpi backend: memory and calls */
    fc_gpu_peer_t peer;
    int world_rank, local_rank;
    double timeout_s;
    /* the call the gate holds: run by release, unless aborted */
    const fc_coll_call_t *calls;
    int n, done;
    double seconds;
    fc_status_t result;
    long ncalls, aborts, destroys;
    /* FC_GPU_STANDIN_FAIL */
    int fail_rank, fail_nth, steps;
    char fail_step[16];
    char devname[64];
} fc_standin_t;

/* ---- the communicator, for fc_gpu_agree ---------------------------------- */

static fc_gpu_poll_t fc_standin_poll(void *ctx, char *why, size_t len)
{
    fc_standin_t *sb = ctx;

    if (!sb->done)
        return FC_GPU_PENDING;      /* an aborted call never finishes */
    if (sb->result != FC_OK) {
        snprintf(why, len, "the MPI call under the stand-in failed (%s)",
                 fc_status_str(sb->result));
        return FC_GPU_ERROR;
    }
    return FC_GPU_DONE;
}

static void fc_standin_abort(void *ctx)
{
    fc_standin_t *sb = ctx;

    ++sb->aborts;
    fc_log_info("stand-in GPU plugin: ncclCommAbort on %s", sb->devname);
}

static void fc_standin_destroy(void *ctx)
{
    ++((fc_standin_t *)ctx)->destroys;
}

/* NCCL's out-of-place broadcast has a send and a recv buffer and copies
 * the root's send into its recv in the call; the mpi backend underneath
 * has one buffer (MPI_Bcast of recv): this backend (bcast_one_buffer 0)
 * is given NCCL's two, so its "device" makes NCCL's copy, and the
 * engine's check of the root's recv is the nccl backend's. */
static void fc_standin_bcast_copy(fc_standin_t *sb, const fc_coll_call_t *c)
{
    if (c->coll == FC_COLL_BROADCAST && sb->inner.rank == c->root)
        memcpy(c->recv, c->send, c->count * fc_dtype_info(c->dtype)->size);
}

/* Every rank released its gate after the same agreement: the "device"
 * runs the call (all ranks together, so the MPI collective completes). A
 * release after an abort runs nothing: the peers are not in it. */
static void fc_standin_release(void *ctx)
{
    fc_standin_t *sb = ctx;

    if (sb->peer.aborted || sb->calls == NULL || sb->done)
        return;
    /* each call of a batch has its own output: the root's copy into each,
     * before the first (the copy is the same whenever it is made) */
    for (int i = 0; i < sb->n; ++i)
        fc_standin_bcast_copy(sb, &sb->calls[i]);
    if (sb->n == 1)
        sb->result = sb->inner.ops->run_func(&sb->inner, &sb->calls[0], &sb->seconds);
    else
        sb->result = sb->inner.ops->run_batch_func(&sb->inner, sb->calls, sb->n,
                                                   &sb->seconds);
    sb->done = 1;
}

static const fc_gpu_wait_ops_t fc_standin_wait_ops = { fc_standin_poll, NULL };
static const fc_gpu_comm_ops_t fc_standin_comm_ops = { fc_standin_abort, fc_standin_destroy,
                                                       fc_standin_release };

/* ---- local steps: the mpi backend's, one of them planted to fail ---------- */

static fc_status_t fc_standin_step(fc_standin_t *sb, const char *step)
{
    if (sb->fail_rank != sb->world_rank || strcmp(step, sb->fail_step) != 0 ||
        ++sb->steps != sb->fail_nth)
        return FC_OK;
    fc_error("%s on %s failed (stand-in GPU plugin: a planted fault, its %dth %s)", step,
             sb->devname, sb->fail_nth, step);
    sb->peer.failed = 1;
    return FC_ERR_FAIL;
}

#define FC_SB(be) ((fc_standin_t *)(be)->priv)

static fc_status_t fc_standin_alloc(fc_backend_t *be, size_t bytes, void **buf_p)
{
    return FC_SB(be)->inner.ops->alloc_func(&FC_SB(be)->inner, bytes, buf_p);
}

static void fc_standin_free(fc_backend_t *be, void *buf)
{
    FC_SB(be)->inner.ops->free_func(&FC_SB(be)->inner, buf);
}

static fc_status_t fc_standin_fill(fc_backend_t *be, const fc_pattern_t *p, int32_t rank,
                                   uint64_t index_base, void *buf, size_t count)
{
    FC_CHECK(fc_standin_step(FC_SB(be), "fill"));
    return FC_SB(be)->inner.ops->fill_func(&FC_SB(be)->inner, p, rank, index_base, buf, count);
}

static fc_status_t fc_standin_poison(fc_backend_t *be, void *buf, size_t bytes, int byte)
{
    FC_CHECK(fc_standin_step(FC_SB(be), "poison"));
    return FC_SB(be)->inner.ops->poison_func(&FC_SB(be)->inner, buf, bytes, byte);
}

static fc_status_t fc_standin_copy(fc_backend_t *be, void *dst, const void *src, size_t bytes)
{
    FC_CHECK(fc_standin_step(FC_SB(be), "copy"));
    return FC_SB(be)->inner.ops->copy_func(&FC_SB(be)->inner, dst, src, bytes);
}

static fc_status_t fc_standin_verify(fc_backend_t *be, const fc_pattern_t *p, int32_t src,
                                     uint64_t index_base, const void *buf, size_t count,
                                     uint64_t pos_base, fc_mismatch_t *m)
{
    FC_CHECK(fc_standin_step(FC_SB(be), "verify"));
    return FC_SB(be)->inner.ops->verify_func(&FC_SB(be)->inner, p, src, index_base, buf, count,
                                             pos_base, m);
}

static fc_status_t fc_standin_untouched(fc_backend_t *be, const void *buf, size_t count,
                                        size_t esize, int byte, uint64_t pos_base,
                                        fc_mismatch_t *m)
{
    FC_CHECK(fc_standin_step(FC_SB(be), "untouched"));
    return FC_SB(be)->inner.ops->verify_untouched_func(&FC_SB(be)->inner, buf, count, esize,
                                                       byte, pos_base, m);
}

static fc_status_t fc_standin_digest(fc_backend_t *be, const void *buf, size_t bytes,
                                     uint64_t *digest_p)
{
    FC_CHECK(fc_standin_step(FC_SB(be), "digest"));
    return FC_SB(be)->inner.ops->digest_func(&FC_SB(be)->inner, buf, bytes, digest_p);
}

static fc_status_t fc_standin_flip(fc_backend_t *be, void *buf, size_t byte, int bit)
{
    FC_CHECK(fc_standin_step(FC_SB(be), "flip"));
    return FC_SB(be)->inner.ops->flip_bit_func(&FC_SB(be)->inner, buf, byte, bit);
}

/* ---- calls: agreed as the nccl backend's ---------------------------------- */

static fc_status_t fc_standin_run_n(fc_backend_t *be, const fc_coll_call_t *calls, int n,
                                    double *seconds_p)
{
    fc_standin_t *sb = FC_SB(be);
    fc_status_t st;

    if (sb->peer.aborted)
        return FC_ERR_FAIL;
    sb->calls = calls;
    sb->n = n;
    sb->done = 0;
    sb->seconds = 0;
    sb->result = FC_OK;
    ++sb->ncalls;
    st = fc_gpu_call(&sb->peer, FC_OK, &fc_standin_comm_ops, &fc_standin_wait_ops, sb,
                     sb->timeout_s, fc_coll_desc(calls[0].coll)->name);
    sb->calls = NULL;
    be->last_wait_s = sb->inner.last_wait_s;
    FC_CHECK(st);
    *seconds_p = sb->seconds;
    return FC_OK;
}

static fc_status_t fc_standin_run(fc_backend_t *be, const fc_coll_call_t *call,
                                  double *seconds_p)
{
    return fc_standin_run_n(be, call, 1, seconds_p);
}

static fc_status_t fc_standin_run_batch(fc_backend_t *be, const fc_coll_call_t *calls, int n,
                                        double *seconds_p)
{
    return fc_standin_run_n(be, calls, n, seconds_p);
}

static void fc_standin_fini(fc_backend_t *be)
{
    fc_standin_t *sb = FC_SB(be);

    if (sb == NULL)
        return;
    fc_gpu_fini(&sb->peer, &fc_standin_comm_ops, sb);
    fc_log_info("stand-in GPU plugin: rank %d ended: calls=%ld aborts=%ld destroys=%ld",
                sb->world_rank, sb->ncalls, sb->aborts, sb->destroys);
    fc_gpu_peer_close(&sb->peer);
    sb->inner.ops->fini_func(&sb->inner);
    free(sb);
    be->priv = NULL;
}

static const fc_backend_ops_t fc_standin_ops = {
    .name = "nccl",
    .alloc_func = fc_standin_alloc,
    .free_func = fc_standin_free,
    .fill_func = fc_standin_fill,
    .poison_func = fc_standin_poison,
    .copy_func = fc_standin_copy,
    .run_func = fc_standin_run,
    .run_batch_func = fc_standin_run_batch,
    .verify_func = fc_standin_verify,
    .verify_untouched_func = fc_standin_untouched,
    .digest_func = fc_standin_digest,
    .flip_bit_func = fc_standin_flip,
    .fini_func = fc_standin_fini,
};

/* ---- the plugin table ------------------------------------------------------ */

/* One GPU; with $FC_GPU_STANDIN_GPUS=N, one on the first N ranks of each
 * host only (Open MPI's local rank), as on a host where some ranks have no
 * GPU (a storage server, the contention stage's background). */
static int fc_standin_device_count(char *why, size_t len)
{
    const char *gpus = getenv("FC_GPU_STANDIN_GPUS");
    const char *local = getenv("OMPI_COMM_WORLD_LOCAL_RANK");

    if (gpus && local && atoi(local) >= atoi(gpus)) {
        snprintf(why, len, "no usable GPU: the stand-in GPU plugin gives local ranks below "
                 "%d one (FC_GPU_STANDIN_GPUS), not local rank %s", atoi(gpus), local);
        return 0;
    }
    return 1;
}

static fc_status_t fc_standin_init(MPI_Comm comm, int local_rank, double timeout_s,
                                   fc_backend_t *be)
{
    const char *mode = getenv("FC_GPU_STANDIN"), *fail = getenv("FC_GPU_STANDIN_FAIL");
    fc_standin_t *sb;
    int rank = -1;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (mode == NULL || strcmp(mode, "host") != 0) {
        fprintf(stderr, "fabcert: stand-in GPU plugin: ncclCommInitRank failed on rank %d "
                "(local rank %d): unhandled system error (a planted fault)\n", rank,
                local_rank);
        return FC_ERR_INTERNAL;
    }
    if ((sb = calloc(1, sizeof(*sb))) == NULL)
        return FC_ERR_INTERNAL;
    sb->world_rank = rank;
    sb->local_rank = local_rank;
    sb->timeout_s = timeout_s > 0 ? timeout_s : 60;
    sb->fail_rank = -1;
    if (fail && fail[0] && sscanf(fail, "rank=%d,step=%15[a-z],nth=%d", &sb->fail_rank, sb->fail_step,
                       &sb->fail_nth) != 3) {
        fprintf(stderr, "fabcert: stand-in GPU plugin: FC_GPU_STANDIN_FAIL is "
                "rank=R,step=S,nth=N, not '%s'\n", fail);
        free(sb);
        return FC_ERR_INVALID;
    }
    snprintf(sb->devname, sizeof(sb->devname), "stand-in GPU (rank %d)", rank);
    if (fc_backend_mpi_init(comm, &sb->inner) != FC_OK) {
        free(sb);
        return FC_ERR_INTERNAL;
    }
    memset(be, 0, sizeof(*be));
    be->ops = &fc_standin_ops;
    be->comm = comm;
    be->priv = sb;
    be->last_wait_s = -1;
    MPI_Comm_rank(comm, &be->rank);
    MPI_Comm_size(comm, &be->size);
    fc_gpu_peer_open(&sb->peer, comm, sb->devname);
    /* the communicator's init, agreed (nothing can fail here) */
    return fc_gpu_agree(&sb->peer, FC_OK, &fc_standin_comm_ops, sb, "ncclCommInitRank");
}

static fc_status_t fc_standin_describe(const fc_backend_t *be, char *json, size_t len)
{
    const fc_standin_t *sb = be->priv;

    if (sb == NULL) {
        snprintf(json, len, "{\"gpu\": \"stand-in\"}");
        return FC_OK;
    }
    snprintf(json, len, "{\"gpu\":\"stand-in\",\"device\":%d,\"visible_gpus\":1,"
             "\"uuid\":\"GPU-standin-%d\",\"pci_bus_id\":\"00000000:%02X:00.0\"}",
             sb->local_rank, sb->world_rank, 0x10 + sb->local_rank);
    return FC_OK;
}

/* ---- the burn's stand-in: a CPU GEMM, every C digested ---------------------- */

#define FC_SB_N 64

static double fc_standin_now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static uint64_t fc_standin_hash(const double *c, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    const unsigned char *b = (const unsigned char *)c;

    for (size_t i = 0; i < n * sizeof(double); ++i)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* One kind: GEMMs for about seconds (at least 2), the digest of each C
 * against the first. The figures are the plugin's (fc_burn_json's keys). */
static json_t *fc_standin_burn_kind(const char *kind, double seconds, int flip)
{
    static double a[FC_SB_N * FC_SB_N], b[FC_SB_N * FC_SB_N];
    double c[FC_SB_N * FC_SB_N], t0 = fc_standin_now(), spent;
    uint64_t first = 0;
    long iters = 0, mismatched = 0, first_bad = -1;
    char digest[24];

    for (int i = 0; i < FC_SB_N * FC_SB_N; ++i) {
        a[i] = (double)((i * 2654435761u) % 1024) / 1024 - 0.5;
        b[i] = (double)((i * 40503u) % 1024) / 1024 - 0.5;
    }
    do {
        uint64_t d;

        for (int i = 0; i < FC_SB_N; ++i)
            for (int j = 0; j < FC_SB_N; ++j) {
                double acc = 0;

                for (int k = 0; k < FC_SB_N; ++k)
                    acc += a[i * FC_SB_N + k] * b[k * FC_SB_N + j];
                c[i * FC_SB_N + j] = acc;
            }
        if (flip && iters == 1)
            ((unsigned char *)c)[77] ^= 0x10;
        d = fc_standin_hash(c, FC_SB_N * FC_SB_N);
        if (iters == 0)
            first = d;
        else if (d != first && mismatched++ == 0)
            first_bad = iters;
        ++iters;
        spent = fc_standin_now() - t0;
    } while (iters < 2 || spent < seconds);
    snprintf(digest, sizeof(digest), "%016llx", (unsigned long long)first);
    return json_pack("{s:s, s:i, s:I, s:f, s:f, s:s, s:I, s:I, s:s, s:s}", "kind", kind, "n",
                     FC_SB_N, "iterations", (json_int_t)iters, "seconds", spent, "tflops",
                     2.0 * FC_SB_N * FC_SB_N * FC_SB_N * iters / spent / 1e12, "digest", digest,
                     "mismatched_iterations", (json_int_t)mismatched, "first_bad_iteration",
                     (json_int_t)first_bad, "algo", "stand-in: CPU double GEMM, not a GPU",
                     "verdict", mismatched == 0 ? "PASS" : "FAIL");
}

static json_t *fc_standin_burn(const fc_backend_t *be, double seconds, const char *kinds,
                               char *why, size_t len)
{
    const fc_standin_t *sb = be->priv;
    const char *flip = getenv("FC_GPU_STANDIN_BURN_FLIP");
    static int calls;           /* the burn is called from one thread */
    char list[64], *save = NULL, *w;
    int rank = -1, nth = -1;
    json_t *out = json_object();

    ++calls;
    if (flip && sscanf(flip, "rank=%d,call=%d", &rank, &nth) != 2) {
        snprintf(why, len, "FC_GPU_STANDIN_BURN_FLIP is rank=R,call=N, not '%s'", flip);
        json_decref(out);
        return NULL;
    }
    snprintf(list, sizeof(list), "%s", kinds ? kinds : "bf16,fp16,fp64");
    for (w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save))
        json_object_set_new(out, w, fc_standin_burn_kind(w, seconds, rank == sb->world_rank &&
                                                                     nth == calls));
    return out;
}

/* ABI 5: the NVLink fabric of local rank L's stand-in GPU, through the
 * real NVML reader: the stand-in NVML answers for PCI 00000000:1L:00.0
 * (its G.fabric.* lines, per host with "%h" in its file's name). */
static fc_status_t fc_standin_fabric(int local_rank, fc_gpu_fabric_t *f, char *why, size_t len)
{
    char pci[32];

    snprintf(pci, sizeof(pci), "00000000:%02X:00.0", 0x10 + local_rank);
    return fc_gpu_fabric_read(pci, f, why, len);
}

const fc_gpu_plugin_t FC_GPU_PLUGIN_TABLE = {
    .abi = FC_GPU_PLUGIN_ABI,
    .device_count_func = fc_standin_device_count,
    .backend_init_func = fc_standin_init,
    .describe_func = fc_standin_describe,
    .health_snapshot_func = fc_gpu_health_snapshot,
    .health_judge_func = fc_gpu_health_judge,
    .health_limits_default_func = fc_gpu_health_limits_default,
    .burn_func = fc_standin_burn,
    .gemm_open_func = fc_gemm_standin_open,
    .gemm_start_func = fc_gemm_standin_start,
    .gemm_wait_func = fc_gemm_standin_wait,
    .gemm_close_func = fc_gemm_standin_close,
    .fabric_func = fc_standin_fabric,
};
