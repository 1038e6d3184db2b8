/*
 * fc_profile_soak.c - two stages' own sections: the soak stage's soak:
 * (how long, the drift windows and their rule, the link error counters,
 * the GPU burn beside the collectives)
 * and the preflight stage's expect: (what every node must have), with
 * their defaults; and the rules that tie a soak's duration, window and
 * timeout together, which the loader and `fabcert run --soak-duration`
 * both apply.
 */
#include <stdio.h>
#include <string.h>

#include "fc_profile_sections.h"

/* ---- expect: -------------------------------------------------------------- */

static const fc_yaml_field_t fc_expect_keys[] = {
    FC_KEY_STRING("nic_pattern", fc_preflight_profile_t, nic_pattern,
                  "a glob such as ib* or eth*"),
    FC_KEY_INT("nics", fc_preflight_profile_t, nics, 0, 1024),
    FC_KEY_INT("mtu", fc_preflight_profile_t, mtu, 68, 65536),
    FC_KEY_NUMBER("min_speed_mbps", fc_preflight_profile_t, min_speed_mbps, 0, 1e7),
    FC_KEY_INT("rdma_ports", fc_preflight_profile_t, rdma_ports, 0, 1024),
    FC_KEY_INT("gpus", fc_preflight_profile_t, gpus, 0, 1024),
    FC_KEY_BOOL("same_versions", fc_preflight_profile_t, same_versions),
    FC_KEY_MAP("gpu_nic_affinity", fc_preflight_profile_t, affinity, &fc_affinity_section),
    FC_KEY_END
};

const fc_yaml_section_t fc_expect_section = { .where = "'expect'", .keys = fc_expect_keys };

void fc_expect_defaults(fc_preflight_profile_t *e)
{
    snprintf(e->nic_pattern, sizeof(e->nic_pattern), "*");
    e->nics = -1;
    e->mtu = -1;
    e->min_speed_mbps = -1;
    e->rdma_ports = -1;
    e->gpus = -1;
    e->same_versions = 1;
    fc_affinity_defaults(&e->affinity);
}

/* ---- soak: ---------------------------------------------------------------- */

/* window_s was stated, and where: a later --soak-duration names it. */
static fc_status_t fc_soak_window_mark(const fc_yaml_ctx_t *ctx, const fc_yaml_field_t *f,
                                       struct fy_node *k, struct fy_node *v, void *base)
{
    fc_soak_profile_t *s = base;

    s->window_explicit = 1;
    fc_yaml_mark(v, &s->window_line, &s->window_col);
    return FC_OK;
}

/* gpu_burn: a comma list of bf16, fp16, fp64 (each once), or none. */
static fc_status_t fc_soak_burn_check(const fc_yaml_ctx_t *ctx, const fc_yaml_field_t *f,
                                      struct fy_node *k, struct fy_node *v, void *base)
{
    fc_soak_profile_t *s = base;
    char list[sizeof(s->gpu_burn)], *save = NULL, *w;
    int seen[3] = { 0, 0, 0 }, n = 0;
    static const char *const kinds[] = { "bf16", "fp16", "fp64" };

    if (strcmp(s->gpu_burn, "none") == 0)
        return FC_OK;
    snprintf(list, sizeof(list), "%s", s->gpu_burn);
    for (w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save), ++n) {
        int kind = -1;

        for (int i = 0; i < 3; ++i)
            if (strcmp(w, kinds[i]) == 0)
                kind = i;
        if (kind < 0 || seen[kind]++)
            return fc_yaml_error(ctx, v, k, "'gpu_burn' is a comma list of bf16, fp16 and "
                                 "fp64, each once, or none; not '%s'", s->gpu_burn);
    }
    if (n == 0)
        return fc_yaml_error(ctx, v, k, "'gpu_burn' is empty: name the kinds, or none");
    return FC_OK;
}

static const fc_yaml_field_t fc_soak_keys[] = {
    FC_KEY_NUMBER("duration_s", fc_soak_profile_t, duration_s, 1, 7 * 86400.0),
    FC_KEY_NUMBER("window_s", fc_soak_profile_t, window_s, 0.1, 86400,
                  .check = fc_soak_window_mark),
    FC_KEY_NUMBER("max_drift_pct", fc_soak_profile_t, max_drift_pct, 0, 1e6),
    FC_KEY_NUMBER("max_error_delta", fc_soak_profile_t, max_error_delta, 0, 1e18),
    FC_KEY_STRING("nic_pattern", fc_soak_profile_t, nic_pattern,
                  "a glob such as ib* or eth*"),
    FC_KEY_INT("confirm_windows", fc_soak_profile_t, confirm_windows, 1, 1000),
    FC_KEY_STRING("gpu_burn", fc_soak_profile_t, gpu_burn, "bf16, fp16, fp64 or none",
                  .check = fc_soak_burn_check),
    FC_KEY_END
};

const fc_yaml_section_t fc_soak_section = { .where = "'soak'", .keys = fc_soak_keys };

void fc_soak_defaults(fc_soak_profile_t *s)
{
    s->duration_s = 3600;
    s->window_s = 0;                    /* 0: a tenth of the duration */
    s->max_drift_pct = 10;
    s->confirm_windows = 2;
    s->max_error_delta = 0;
    snprintf(s->nic_pattern, sizeof(s->nic_pattern), "*");
    snprintf(s->gpu_burn, sizeof(s->gpu_burn), "bf16,fp16,fp64");
}

int fc_soak_min_windows(const fc_stage_profile_t *sp)
{
    return sp->soak.confirm_windows + 1 > 2 ? sp->soak.confirm_windows + 1 : 2;
}

fc_status_t fc_soak_stage_check(const fc_yaml_ctx_t *ctx, struct fy_node *k,
                                fc_stage_profile_t *sp)
{
    /* the watchdog must not end a soak that is only doing its job */
    if (sp->timeout_s < sp->soak.duration_s + 60)
        return fc_yaml_error(ctx, NULL, k, "stage 'soak': timeout_s (%g) must exceed "
                             "soak.duration_s (%g) by at least 60 s", sp->timeout_s,
                             sp->soak.duration_s);
    if (sp->soak.window_s <= 0)
        sp->soak.window_s = sp->soak.duration_s / 10;
    /* drift is a slowdown held over confirm_windows windows against the
     * others: with fewer windows than that and one more it could never
     * be judged */
    if (sp->soak.window_s > sp->soak.duration_s / fc_soak_min_windows(sp)) {
        fprintf(stderr, "fabcert: %s:%d:%d: 'window_s' (%g) leaves fewer than %d "
                "windows in soak.duration_s (%g): drift must last confirm_windows "
                "(%d) windows beside at least one other, so it would never be "
                "judged\n", ctx->path, sp->soak.window_line, sp->soak.window_col,
                sp->soak.window_s, fc_soak_min_windows(sp), sp->soak.duration_s,
                sp->soak.confirm_windows);
        return FC_ERR_INVALID;
    }
    return FC_OK;
}

fc_status_t fc_soak_duration_check(const char *profile_path, const fc_stage_profile_t *sp,
                                   double seconds)
{
    if (!sp->soak.window_explicit || sp->soak.window_s <= seconds / fc_soak_min_windows(sp))
        return FC_OK;
    fprintf(stderr, "fabcert: --soak-duration %g s: the profile's window_s (%g s, %s:%d:%d) "
            "leaves fewer than %d windows in it, and drift must last confirm_windows (%d) "
            "windows beside at least one other: give a longer duration or a profile with a "
            "shorter window\n", seconds, sp->soak.window_s, profile_path,
            sp->soak.window_line, sp->soak.window_col, fc_soak_min_windows(sp),
            sp->soak.confirm_windows);
    return FC_ERR_INVALID;
}

void fc_soak_set_duration(fc_stage_profile_t *sp, double seconds)
{
    sp->soak.duration_s = seconds;
    if (!sp->soak.window_explicit || sp->soak.window_s > seconds / fc_soak_min_windows(sp))
        sp->soak.window_s = seconds / 10;
    if (sp->timeout_s < seconds + 60)
        sp->timeout_s = seconds + 120;
}
