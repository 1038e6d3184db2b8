/*
 * profiles_cover.c - the shipped SKU profiles against the mission
 * (thresholds/SKU-acceptance.yaml and their SKU-burnin twins): every stage of
 * the stage table (lib/base/fc_stages.c, not a list kept here) that the
 * profile's hardware can run is named and required, and one it cannot (a
 * stage that needs an NVLink domain across nodes, in a profile whose
 * domain is the node) is left out; and each stage does its part of the
 * mission, not just its name: preflight checks the GPU-NIC affinity, the
 * GPU and NIC counts; the collective stages run on nccl; the rails are
 * the preflight's RDMA ports, driven over verbs; contention measures its
 * foreground on nccl with every background kind; the soak burns GEMMs
 * beside its collectives for 30 minutes; every stage that takes limits has
 * a floor. Each -burnin profile is its -acceptance twin but for the soak:
 * its duration (8 hours), window and timeout. Run from the repository's
 * root (make check does).
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_profile.h"
#include "fc_tap.h"

/* The first way profile p falls short of the mission, or "". */
static void fc_cover(const fc_profile_t *p, char *why, size_t len)
{
    const fc_preflight_profile_t *ex = &p->stages[FC_STAGE_PREFLIGHT].expect;
    const fc_stage_profile_t *rails = &p->stages[FC_STAGE_RAILS];
    const fc_stage_profile_t *soak = &p->stages[FC_STAGE_SOAK];
    const fc_stage_profile_t *cont = &p->stages[FC_STAGE_CONTENTION];

    why[0] = '\0';
    for (int s = 0; s < FC_STAGE_COUNT && !why[0]; ++s) {
        const fc_stage_desc_t *d = fc_stage_desc((fc_stage_id_t)s);
        const fc_stage_profile_t *sp = &p->stages[s];
        int can = !(d->needs_mnnvl && p->nvlink_domain == FC_NVLINK_DOMAIN_NODE);

        if (can && !(sp->present && sp->required))
            snprintf(why, len, "stage %s (its hardware can run it) is %s", d->name,
                     sp->present ? "not required" : "left out");
        else if (!can && sp->present)
            snprintf(why, len, "stage %s is named, and its hardware has no NVLink domain "
                     "across nodes", d->name);
        else if (can && d->gpu_capable && (d->sections & FC_SECT_SWEEP) &&
                 strcmp(sp->backend, "nccl") != 0)
            snprintf(why, len, "stage %s runs on %s, not the GPUs", d->name, sp->backend);
        else if (can && (d->sections & FC_SECT_LIMITS) && s != FC_STAGE_SOAK &&
                 sp->nlimits == 0 && sp->max_below_median_pct < 0)
            snprintf(why, len, "stage %s is judged by neither a floor nor a relative rule",
                     d->name);
    }
    if (why[0])
        return;
    if (ex->gpus <= 0 || ex->rdma_ports <= 0 || !ex->affinity.enabled)
        snprintf(why, len, "preflight does not expect the GPUs, the RDMA ports and their "
                 "affinity (gpus %d, rdma_ports %d, gpu_nic_affinity %s)", ex->gpus,
                 ex->rdma_ports, ex->affinity.enabled ? "on" : "off");
    else if (strcmp(rails->rails.transport, "verbs") != 0 ||
             rails->rails.count != ex->rdma_ports || rails->rails.rate_gbps <= 0)
        snprintf(why, len, "rails: %d NIC(s) over %s at %g Gb/s, not the %d RDMA ports over "
                 "verbs at their rate", rails->rails.count, rails->rails.transport,
                 rails->rails.rate_gbps, ex->rdma_ports);
    else if (cont->cont.fg_per_node != ex->gpus || cont->cont.bg_per_node < 1)
        snprintf(why, len, "contention: %d foreground rank(s) per node for %d GPUs, %d "
                 "background", cont->cont.fg_per_node, ex->gpus, cont->cont.bg_per_node);
    else if (strcmp(soak->soak.gpu_burn, "none") == 0)
        snprintf(why, len, "the soak burns no GEMM");
    for (int k = 0; k < FC_BG_KINDS && !why[0]; ++k)
        if (!cont->cont.kinds[k].enabled)
            snprintf(why, len, "contention runs no %s background", fc_bg_kind_name(k));
}

/* Stage s of a profile with what a burn-in may change and where things
 * are written taken out, for comparison. */
static void fc_twin_norm(const fc_stage_profile_t *in, fc_stage_profile_t *out)
{
    memcpy(out, in, sizeof(*out));
    out->line = out->col = 0;
    for (int i = 0; i < out->nlimits; ++i)
        out->limits[i].line = out->limits[i].col = 0;
    out->soak.duration_s = out->soak.window_s = out->timeout_s = 0;
    out->soak.window_explicit = out->soak.window_line = out->soak.window_col = 0;
}

/* The first stage in which burn-in b differs from acceptance a but for
 * the soak's length, or -1. */
static int fc_twin_diff(const fc_profile_t *a, const fc_profile_t *b)
{
    static fc_stage_profile_t x, y;

    if (a->nvlink_domain != b->nvlink_domain || a->seed != b->seed)
        return FC_STAGE_COUNT;
    for (int s = 0; s < FC_STAGE_COUNT; ++s) {
        fc_twin_norm(&a->stages[s], &x);
        fc_twin_norm(&b->stages[s], &y);
        if (s != FC_STAGE_SOAK && a->stages[s].timeout_s != b->stages[s].timeout_s)
            return s;
        if (memcmp(&x, &y, sizeof(x)) != 0)
            return s;
    }
    return -1;
}

int main(void)
{
    static fc_profile_t a, b;
    fc_tap_t tap;
    glob_t g;
    int n;

    fc_tap_init(&tap, stdout, 1);
    if (glob("thresholds/*-acceptance.yaml", 0, NULL, &g) != 0) {
        fc_tap_plan(&tap, 1);
        fc_tap_ok(&tap, 0, "no thresholds/*-acceptance.yaml here (run from the repository)");
        return fc_tap_done(&tap);
    }
    n = (int)g.gl_pathc;
    fc_tap_plan(&tap, 1 + 5 * n);
    fc_tap_ok(&tap, n >= 5, "%d acceptance profiles (H100, H200, A100, B200, GB200 NVL72)", n);
    for (int i = 0; i < n; ++i) {
        const char *path = g.gl_pathv[i];
        char twin[1024], why[512];
        int d;

        if (fc_profile_load(path, &a) != FC_OK) {
            fc_tap_ok(&tap, 0, "%s loads", path);
            fc_tap_ok(&tap, 0, "%s: its burn-in twin", path);
            fc_tap_ok(&tap, 0, "%s: its soak", path);
            continue;
        }
        fc_cover(&a, why, sizeof(why));
        fc_tap_is_int(&tap, why[0], '\0', "%s covers every stage its hardware can run "
                      "(%s)%s%s", path,
                      a.nvlink_domain ? "NVLink domain the rack"
                      : "NVLink domain the node", why[0] ? ": " : "", why);
        snprintf(twin, sizeof(twin), "%.*s-burnin.yaml",
                 (int)(strlen(path) - strlen("-acceptance.yaml")), path);
        d = fc_profile_load(twin, &b) == FC_OK ? fc_twin_diff(&a, &b) : -2;
        fc_tap_is_int(&tap, d, -1, "%s is %s but for the soak's length%s%s", twin, path,
                      d >= 0 ? ": they differ in " : d == -2 ? ": it does not load" : "",
                      d >= 0 && d < FC_STAGE_COUNT ? fc_stage_name((fc_stage_id_t)d)
                      : d == FC_STAGE_COUNT ? "the top level" : "");
        fc_tap_ok(&tap, d != -2, "%s soaks 30 minutes, its burn-in 8 hours (%g s, %g s)", path,
                  a.stages[FC_STAGE_SOAK].soak.duration_s, b.stages[FC_STAGE_SOAK].soak.duration_s);
        fc_tap_is_double(&tap, a.stages[FC_STAGE_SOAK].soak.duration_s, 1800, 0,
                         "%s soaks 30 minutes, its burn-in 8 hours (%g s, %g s)"
                         " [a.stages[FC_STAGE_SOAK].soak.duration_s]", path,
                         a.stages[FC_STAGE_SOAK].soak.duration_s,
                         b.stages[FC_STAGE_SOAK].soak.duration_s);
        fc_tap_is_double(&tap, b.stages[FC_STAGE_SOAK].soak.duration_s, 8 * 3600, 0,
                         "%s soaks 30 minutes, its burn-in 8 hours (%g s, %g s)"
                         " [b.stages[FC_STAGE_SOAK].soak.duration_s]", path,
                         a.stages[FC_STAGE_SOAK].soak.duration_s,
                         b.stages[FC_STAGE_SOAK].soak.duration_s);
    }
    globfree(&g);
    return fc_tap_done(&tap);
}
