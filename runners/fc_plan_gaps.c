/*
 * fc_plan_gaps.c - what a plan leaves out of the mission (fc_plan.h): the
 * stages of the stage table the profile does not name (each with what it
 * would have proved, its .proves), or names and will not run here, or
 * does not require; a GPU profile's stage on host memory; a stage no
 * floor judges on any planned point; no collective that moves each rank's
 * data unreduced, or no integer reduction, anywhere (the corruption a sum
 * or a rounding hides, docs/DECISIONS.md); a soak shorter than a burn-in,
 * or without the GEMM burn and GPU health; pairs sampled; rails over TCP
 * on an RDMA fabric; no GPU-NIC affinity; link counters not read; a
 * background kind the contention stage does not run. A stage the
 * profile's hardware cannot run (an NVLink domain stage where the domain
 * is the node) is not a gap: it is listed as not applicable.
 */
#include "fc_plan.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fc_coll.h"
#include "fc_stage.h"

#define FC_PLAN_BURNIN_S (4 * 3600.0)   /* shorter is an acceptance soak, not a burn-in */

static void fc_gap(json_t *list, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fc_gap(json_t *list, const char *fmt, ...)
{
    char text[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    json_array_append_new(list, json_string(text));
}

static const json_t *fc_plan_entry(const json_t *stages, fc_stage_id_t s)
{
    json_t *e;
    size_t i;

    json_array_foreach(stages, i, e)
        if (strcmp(json_string_value(json_object_get(e, "name")), fc_stage_name(s)) == 0)
            return e;
    return NULL;
}

/* Does any limit rule of sp cover one of its planned points? */
static int fc_plan_floor_applies(const fc_stage_profile_t *sp, fc_stage_id_t s,
                                 const fc_test_point_t *pts, int n)
{
    if (!(fc_stage_desc(s)->sections & FC_SECT_KINDS)) {   /* pairs, rails: one kind */
        for (int z = 0; z < sp->nsizes; ++z)
            if (fc_profile_find_limit(sp, FC_COLL_SENDRECV, FC_INT32, FC_OP_NONE,
                                      sp->sizes[z]))
                return 1;
        return 0;
    }
    for (int i = 0; i < n; ++i)
        if (fc_profile_find_limit(sp, pts[i].coll, pts[i].dtype, pts[i].op, pts[i].bytes))
            return 1;
    return 0;
}

static void fc_plan_largest_size(const fc_stage_profile_t *sp, char *buf, size_t len)
{
    uint64_t big = 0;

    for (int z = 0; z < sp->nsizes; ++z)
        big = sp->sizes[z] > big ? sp->sizes[z] : big;
    fc_format_size(big, buf, len);
}

/* The stage's own gaps, for a stage that runs. */
static void fc_plan_stage_gaps(const fc_run_state_t *st, fc_stage_id_t s, const json_t *e,
                               json_t *out, int *moves, int *int_reduce, int *float_reduce)
{
    const fc_stage_desc_t *d = fc_stage_desc(s);
    const char *backend = json_string_value(json_object_get(e, "backend"));
    const fc_stage_profile_t *p = &st->profile.stages[s];
    fc_stage_profile_t sp;
    fc_test_point_t *pts = NULL;
    int n = fc_plan_stage_sweep(st, s, &sp, &pts);
    char big[32];

    if (!sp.required)
        fc_gap(out, "%s is not required: a rack that did not run it can still PASS", d->name);
    if (d->gpu_capable && !d->gpu_only && (d->sections & FC_SECT_SWEEP) &&
        strcmp(backend, "mpi") == 0 &&
        st->profile.stages[FC_STAGE_PREFLIGHT].expect.gpus > 0)
        fc_gap(out, "%s runs on mpi (host memory): the GPUs, their NVLink and GPUDirect are "
               "not in its figures", d->name);
    if ((d->sections & FC_SECT_LIMITS) && s != FC_STAGE_SOAK) {
        fc_plan_largest_size(&sp, big, sizeof(big));
        if (sp.nlimits == 0)
            fc_gap(out, "%s has no floor (limits): a fabric slow everywhere alike passes it; "
                   "only %sthe bits judge it", d->name,
                   sp.max_below_median_pct >= 0 ? "the relative rule and " : "");
        else if (!fc_plan_floor_applies(&sp, s, pts, n))
            fc_gap(out, "%s: no limit rule covers a planned point (its sizes go up to %s): "
                   "no floor judges it, only %sthe bits", d->name, big,
                   sp.max_below_median_pct >= 0 ? "the relative rule and " : "");
    }
    for (int i = 0; i < n && (d->sections & FC_SECT_KINDS) && s != FC_STAGE_OVERLAP; ++i) {
        if (!fc_coll_desc(pts[i].coll)->reduces)
            *moves = 1;
        else if (pts[i].dtype >= FC_FLOAT32)     /* the floating-point types */
            *float_reduce = 1;
        else
            *int_reduce = 1;
    }
    if ((d->sections & FC_SECT_COUNTERS) && !sp.counters.read)
        fc_gap(out, "%s reads no link counters over its points (counters: read: false)",
               d->name);
    if (s == FC_STAGE_SOAK) {
        if (sp.soak.duration_s < FC_PLAN_BURNIN_S)
            fc_gap(out, "the soak runs %s: a burn-in runs for hours (the -burnin "
                   "profiles: 8 h); a fault that takes longer to show is not provoked",
                   (fc_plan_duration(sp.soak.duration_s, big, sizeof(big)), big));
        if (strcmp(backend, "mpi") == 0)
            fc_gap(out, "the soak runs on mpi: no GEMM burn beside it, no NVML GPU health");
        else if (strcmp(sp.soak.gpu_burn, "none") == 0)
            fc_gap(out, "the soak burns no GEMM beside its collectives (gpu_burn: none)");
    }
    if (s == FC_STAGE_PAIRS) {
        json_t *pr = json_object_get(e, "pairs");

        if (strcmp(json_string_value(json_object_get(pr, "mode")), "sampled") == 0)
            fc_gap(out, "pairs is sampled: each node meets %lld partners, not all %lld "
                   "others", (long long)json_integer_value(json_object_get(pr, "partners")),
                   (long long)json_integer_value(json_object_get(e, "hosts")) - 1);
    }
    if (s == FC_STAGE_RAILS && strcmp(sp.rails.transport, "tcp") == 0 &&
        st->profile.stages[FC_STAGE_PREFLIGHT].expect.rdma_ports > 0)
        fc_gap(out, "rails run over TCP on an RDMA fabric: each NIC's RDMA path (verbs, "
               "GPUDirect) is not measured");
    if (s == FC_STAGE_CONTENTION)
        for (int k = 0; k < FC_BG_KINDS; ++k)
            if (!p->cont.kinds[k].enabled)
                fc_gap(out, "contention runs no %s background", fc_bg_kind_name(k));
    free(pts);
}

void fc_plan_gaps(const fc_run_state_t *st, const json_t *stages, json_t *out, json_t *na)
{
    const fc_preflight_profile_t *ex = &st->profile.stages[FC_STAGE_PREFLIGHT].expect;
    int moves = 0, int_reduce = 0, float_reduce = 0;

    for (int k = 0; k < FC_STAGE_COUNT; ++k) {
        fc_stage_id_t s = (fc_stage_id_t)k;
        const fc_stage_desc_t *d = fc_stage_desc(s);
        const json_t *e = fc_plan_entry(stages, s);

        if (e == NULL && d->needs_mnnvl &&
            st->profile.nvlink_domain == FC_NVLINK_DOMAIN_NODE) {
            fc_gap(na, "%s: needs an NVLink domain across nodes (nvlink_domain: rack); this "
                   "profile's is the node", d->name);
            continue;
        }
        if (e == NULL) {
            fc_gap(out, "no %s stage: %s", d->name, d->proves ? d->proves : "");
            continue;
        }
        if (!json_is_true(json_object_get(e, "runs"))) {
            fc_gap(out, "%s will not run: %s%s", d->name,
                   json_string_value(json_object_get(e, "why_not")),
                   st->profile.stages[s].required ? " (its racks INCOMPLETE)" : "");
            continue;
        }
        fc_plan_stage_gaps(st, s, e, out, &moves, &int_reduce, &float_reduce);
    }
    if (!moves)
        fc_gap(out, "no stage moves each rank's data unreduced (all_gather, all_to_all, "
               "broadcast, sendrecv): a node whose corruption cancels in a sum is not seen");
    if (float_reduce && !int_reduce)
        fc_gap(out, "no stage reduces an integer type: a contribution's low bit flipped can "
               "vanish in floating-point rounding");
    if (st->profile.stages[FC_STAGE_PREFLIGHT].present && ex->gpus > 0 &&
        !ex->affinity.enabled)
        fc_gap(out, "preflight checks no GPU-NIC affinity (expect: gpu_nic_affinity)");
}
