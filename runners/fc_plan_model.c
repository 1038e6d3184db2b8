/*
 * fc_plan_model.c - how long a stage will take, from its plan entry: a
 * model, not a measurement, and said as one in every plan (its terms in
 * fc_plan_model_json). Per backend, five constants:
 *
 *   launch_s + per_host_s x hosts   starting an attempt: the launcher,
 *                                    MPI_Init, the profile, the inventory,
 *                                    the communicators (NCCL's init on nccl)
 *   point_s                          each point or round: the gathers to rank
 *                                    0, its judgement, its records
 *   call_s                           one collective's latency
 *   busbw_gbps                       the bus bandwidth of a point no floor of
 *                                    the profile covers
 *   check_gbps                       the bitwise check, each output read once
 *
 * A call of S bytes on p ranks takes call_s + S x factor(p) / B + S / check,
 * factor being the collective's bus factor (nccl-tests' busbw = algbw x
 * factor) and B the larger of busbw_gbps and the profile's floor for that
 * point (min_busbw_gbps of the first limit rule matching it: a healthy part
 * runs at or above its floor, so a floor above the nominal errs long; one
 * far below it, a floor that only catches a dead link, says nothing of
 * the time). A point is point_s plus its
 * calls (warm-up, timed, and as many again batched where the stage also
 * times it so). Then per stage:
 *
 *   node, rack, cluster,   launch + the points on the largest group (the
 *   domain, domain_net     groups run at once)
 *   pairs, rails           launch + rounds x the sizes' transfers (warm-up
 *                          and timed, both directions, and a ping-pong each)
 *   scaling                launch + for each node count of the series, its
 *                          communicator and the points on that many nodes
 *   contention             launch + for each point, its clean phases (their
 *                          calls) and its loaded ones, each as long as its
 *                          calls or phase_s and the background's ramp-up,
 *                          whichever is longer
 *   overlap                launch + for each size, its iterations of the
 *                          collective alone, the compute alone, both
 *   soak                   launch + its duration + one pass of its points
 *   preflight              launch + reading the node (preflight_s)
 *
 * Not modelled: a confirmation alone of a slow point (only where one is
 * slow), a retest, a second attempt after a hang, a queue. `--from DIR`
 * puts an earlier run's measured times beside this.
 */
#include "fc_plan.h"

#include <stdlib.h>
#include <string.h>

#include "fc_coll.h"
#include "fc_stage.h"

typedef struct fc_plan_consts {
    const char *backend;
    double launch_s, per_host_s, point_s, call_s, busbw_gbps, check_gbps;
} fc_plan_consts_t;

/* mpi: Open MPI over TCP or UCX, host memory, a host checking the bits:
 * measured on the virtual cluster (4 nodes, 8 ranks on 2 shared cores:
 * about 4 s from launch to exit around a stage's own time, 70-160 ms a
 * point of 12 small calls), which errs long for a real cluster's small
 * messages and is near it for its large ones (those go by the floors);
 * nccl: NCCL's communicator set-up (seconds at hundreds of ranks), GPU
 * kernels checking at device-memory speed: engineering estimates. */
static const fc_plan_consts_t fc_plan_consts[] = {
    { "mpi", 4.0, 0.05, 0.08, 1e-3, 1.0, 2.0 },
    { "nccl", 10.0, 0.1, 0.05, 50e-6, 100.0, 500.0 },
};
#define FC_PLAN_PREFLIGHT_S 4.0     /* a node's inventory, sysfs, the plugin */
#define FC_PLAN_SETTLE_S 0.3        /* the contention background's ramp-up */
#define FC_PLAN_COMM_S_NCCL 2.0     /* a scaling count's NCCL communicator */

static const fc_plan_consts_t *fc_plan_consts_of(const char *backend)
{
    return strcmp(backend, "mpi") == 0 ? &fc_plan_consts[0] : &fc_plan_consts[1];
}

static int fc_plan_int(const json_t *o, const char *k)
{
    return (int)json_integer_value(json_object_get(o, k));
}

/* One call of the point on p ranks. */
static double fc_plan_call(const fc_plan_consts_t *c, const fc_stage_profile_t *sp,
                           const fc_test_point_t *pt, int p)
{
    const fc_limit_rule_t *r = fc_profile_find_limit(sp, pt->coll, pt->dtype, pt->op, pt->bytes);
    double bw = r && r->min_busbw_gbps > c->busbw_gbps ? r->min_busbw_gbps : c->busbw_gbps;
    double factor = p > 1 ? fc_coll_desc(pt->coll)->bus_factor_func(p) : 1;

    return c->call_s + (double)pt->bytes * factor / (bw * 1e9) +
           (double)pt->bytes / (c->check_gbps * 1e9);
}

/* The stage's points on p ranks: each point_s and its calls. */
static double fc_plan_points(const fc_plan_consts_t *c, const fc_stage_profile_t *sp,
                             fc_stage_id_t s, int p)
{
    fc_test_point_t *pts = NULL;
    int n = fc_stage_sweep_points(sp, s, 1, &pts);
    double t = 0;

    for (int i = 0; i < n; ++i)
        t += c->point_s + (pts[i].warmup + pts[i].iters + (pts[i].batched ? pts[i].iters : 0)) *
                              fc_plan_call(c, sp, &pts[i], p);
    free(pts);
    return t;
}

/* rounds of point-to-point transfers at every size, both directions and a
 * ping-pong, at B GB/s where no floor covers a size. */
static double fc_plan_rounds(const fc_plan_consts_t *c, const fc_stage_profile_t *sp,
                             int rounds, double bw_default)
{
    double per_round = c->point_s;

    for (int z = 0; z < sp->nsizes; ++z) {
        const fc_limit_rule_t *r = fc_profile_find_limit(sp, FC_COLL_SENDRECV, FC_INT32,
                                                         FC_OP_NONE, sp->sizes[z]);
        double bw = r && r->min_busbw_gbps > bw_default ? r->min_busbw_gbps : bw_default;

        per_round += (sp->warmup + sp->iters) *
                     (3 * c->call_s + 2 * (double)sp->sizes[z] / (bw * 1e9));
    }
    return rounds * per_round;
}

double fc_plan_model_stage(const json_t *e, const fc_stage_profile_t *sp, fc_stage_id_t s)
{
    const fc_plan_consts_t *c = fc_plan_consts_of(json_string_value(json_object_get(e,
                                                                                   "backend")));
    const fc_plan_consts_t *mpi = &fc_plan_consts[0];
    json_t *groups = json_object_get(e, "groups");
    int hosts = fc_plan_int(e, "hosts"), p = fc_plan_int(groups, "largest_ranks");
    double t = c->launch_s + c->per_host_s * hosts;

    switch (s) {
    case FC_STAGE_PREFLIGHT:
        return t + FC_PLAN_PREFLIGHT_S;
    case FC_STAGE_PAIRS:
        return mpi->launch_s + mpi->per_host_s * hosts +
               fc_plan_rounds(mpi, sp, fc_plan_int(json_object_get(e, "pairs"), "rounds"),
                              mpi->busbw_gbps);
    case FC_STAGE_RAILS: {
        json_t *r = json_object_get(e, "rails");
        double rate = json_real_value(json_object_get(r, "rate_gbps"));

        /* every rail at once: the rounds of one; a NIC at 90% of its rate
         * where the profile gives it and no floor does */
        return mpi->launch_s + mpi->per_host_s * hosts +
               fc_plan_rounds(mpi, sp, fc_plan_int(r, "rounds"),
                              rate > 0 ? 0.9 * rate / 8 : mpi->busbw_gbps);
    }
    case FC_STAGE_SCALING: {
        json_t *series = json_object_get(e, "series"), *v;
        size_t i;
        int rpn = fc_plan_int(e, "ranks_per_node");

        json_array_foreach(series, i, v)
            t += (c == mpi ? mpi->point_s : FC_PLAN_COMM_S_NCCL) +
                 fc_plan_points(c, sp, s, (int)json_integer_value(v) * rpn);
        return t;
    }
    case FC_STAGE_CONTENTION: {
        json_t *cn = json_object_get(e, "contention");
        fc_test_point_t *pts = NULL;
        int n = fc_stage_sweep_points(sp, s, 1, &pts);
        double phase_min = json_real_value(json_object_get(cn, "phase_s")) + FC_PLAN_SETTLE_S;

        /* the loaded phases (each kind, and all together where there are
         * two or more) last phase_s at least; the clean ones their calls */
        int loaded = fc_plan_int(cn, "phases_per_point") / 2;

        for (int i = 0; i < n; ++i) {
            double calls = (pts[i].warmup + pts[i].iters) * fc_plan_call(c, sp, &pts[i], p);

            t += c->point_s + loaded * (calls > phase_min ? calls : phase_min) +
                 (fc_plan_int(cn, "phases_per_point") - loaded) * calls;
        }
        free(pts);
        return t;
    }
    case FC_STAGE_OVERLAP: {
        fc_test_point_t pt = { FC_COLL_ALL_REDUCE, FC_FLOAT32, FC_OP_SUM, 0, 0, 0, 0, 0 };
        double compute = sp->overlap.compute_ms / 1000;

        for (int z = 0; z < sp->nsizes; ++z) {
            pt.bytes = sp->sizes[z];
            t += c->point_s + (sp->warmup + sp->iters) *
                                  (2 * fc_plan_call(c, sp, &pt, p) + 2 * compute);
        }
        return t;
    }
    case FC_STAGE_SOAK:
        return t + sp->soak.duration_s + fc_plan_points(c, sp, s, p);
    default:        /* the sweep stages: every group at once */
        return t + fc_plan_points(c, sp, s, p);
    }
}

json_t *fc_plan_model_json(void)
{
    json_t *consts = json_object();

    for (size_t i = 0; i < sizeof(fc_plan_consts) / sizeof(fc_plan_consts[0]); ++i) {
        const fc_plan_consts_t *c = &fc_plan_consts[i];

        json_object_set_new(consts, c->backend, json_pack("{s:f, s:f, s:f, s:f, s:f, s:f}",
                            "launch_s", c->launch_s, "per_host_s", c->per_host_s, "point_s",
                            c->point_s, "call_s", c->call_s, "busbw_gbps", c->busbw_gbps,
                            "check_gbps", c->check_gbps));
    }
    return json_pack("{s:s, s:o, s:f, s:f}", "formula",
                     "stage = launch_s + per_host_s x hosts + its work; a point = point_s + "
                     "calls x (call_s + bytes x bus_factor(ranks) / B + bytes / check_gbps), "
                     "B = the larger of busbw_gbps and the profile's floor for the point; "
                     "pairs and rails: rounds x sizes x (warmup + iters) x both directions; "
                     "contention: loaded phases of at least phase_s; soak: its duration; the "
                     "groups of a stage run at once. Not modelled: confirmations alone, "
                     "retests, a second attempt",
                     "constants", consts, "preflight_s", FC_PLAN_PREFLIGHT_S,
                     "contention_settle_s", FC_PLAN_SETTLE_S);
}
