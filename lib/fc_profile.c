/*
 * fc_profile.c - strict YAML profile loader on libfyaml's document tree.
 *
 * Each mapping is walked key by key against a fixed list of accepted keys;
 * anything else is an error at the key's position. Positions come from the
 * scalar tokens (a mapping or sequence is reported at its key). Defaults
 * are filled first, so a profile only states what differs.
 */
#include "fc_profile.h"

#include <errno.h>
#include <libfyaml.h>
#include <math.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_inventory.h"

int fc_parse_size(const char *text, uint64_t *bytes_p)
{
    static const struct { const char *suffix; uint64_t mult; } units[] = {
        { "GiB", 1ull << 30 }, { "MiB", 1ull << 20 }, { "KiB", 1ull << 10 },
        { "G", 1ull << 30 },   { "M", 1ull << 20 },   { "K", 1ull << 10 },
        { "B", 1 },            { "", 1 },
    };
    char *end;
    unsigned long long v;

    if (text[0] < '0' || text[0] > '9')
        return -1;
    errno = 0;
    v = strtoull(text, &end, 10);
    if (errno != 0)
        return -1;
    for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); ++u) {
        if (strcmp(end, units[u].suffix) == 0) {
            if (v > UINT64_MAX / units[u].mult)
                return -1;
            *bytes_p = v * units[u].mult;
            return 0;
        }
    }
    return -1;
}

void fc_format_size(uint64_t bytes, char *buf, size_t len)
{
    if (bytes >= (1ull << 30) && bytes % (1ull << 30) == 0)
        snprintf(buf, len, "%llu GiB", (unsigned long long)(bytes >> 30));
    else if (bytes >= (1ull << 20) && bytes % (1ull << 20) == 0)
        snprintf(buf, len, "%llu MiB", (unsigned long long)(bytes >> 20));
    else if (bytes >= (1ull << 10) && bytes % (1ull << 10) == 0)
        snprintf(buf, len, "%llu KiB", (unsigned long long)(bytes >> 10));
    else
        snprintf(buf, len, "%llu B", (unsigned long long)bytes);
}

/* ---- parsing context ---------------------------------------------------- */

typedef struct fc_yaml_ctx {
    const char *path;
} fc_yaml_ctx_t;

static void fc_node_mark(struct fy_node *n, int *line_p, int *col_p)
{
    struct fy_token *t = n ? fy_node_get_scalar_token(n) : NULL;
    const struct fy_mark *m = t ? fy_token_start_mark(t) : NULL;

    *line_p = m ? m->line + 1 : 0;
    *col_p = m ? m->column + 1 : 0;
}

/* Error at node n (a scalar) or, for a collection, at its key. */
__attribute__((format(printf, 4, 5)))
static fc_status_t fc_yaml_error(const fc_yaml_ctx_t *ctx, struct fy_node *n,
                                 struct fy_node *key, const char *fmt, ...)
{
    char msg[1024];
    int line, col;
    va_list ap;

    fc_node_mark(n && fy_node_is_scalar(n) ? n : key, &line, &col);
    if (line == 0)          /* an empty value (`stages:`) has no token: its key */
        fc_node_mark(key, &line, &col);
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "fabcert: %s:%d:%d: %s\n", ctx->path, line, col, msg);
    return FC_ERR_INVALID;
}

static const char *fc_scalar(struct fy_node *n, char *buf, size_t len)
{
    size_t slen;
    const char *s = fy_node_get_scalar(n, &slen);

    if (s == NULL)
        return NULL;
    if (slen >= len)
        slen = len - 1;
    memcpy(buf, s, slen);
    buf[slen] = '\0';
    return buf;
}

/* buf holds the key's name on entry and the value on FC_OK. No value may
 * hold a control character: a name or description is printed in the
 * summary, and a newline there would forge a line ("rack r01: PASS"). */
static fc_status_t fc_yaml_expect_scalar(const fc_yaml_ctx_t *ctx,
                                         struct fy_node *v, struct fy_node *k,
                                         const char *what, char *buf,
                                         size_t len)
{
    char key[64];
    size_t slen = 0;
    const char *s;

    snprintf(key, sizeof(key), "%s", buf);
    if (v == NULL || !fy_node_is_scalar(v) || !fc_scalar(v, buf, len))
        return fc_yaml_error(ctx, v, k, "'%s' must be %s", key, what);
    s = fy_node_get_scalar(v, &slen);
    for (size_t i = 0; i < slen; ++i)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return fc_yaml_error(ctx, v, k, "'%s' holds a control character (byte 0x%02x "
                                 "at offset %zu): profile values are printed in the "
                                 "reports, and must be printable text", key,
                                 (unsigned char)s[i], i);
    return FC_OK;
}

static fc_status_t fc_yaml_bool(const fc_yaml_ctx_t *ctx, struct fy_node *k,
                                struct fy_node *v, const char *key, int *out)
{
    char buf[64];

    snprintf(buf, sizeof(buf), "%s", key);
    FC_CHECK(fc_yaml_expect_scalar(ctx, v, k, "true or false", buf, sizeof(buf)));
    if (strcmp(buf, "true") == 0)
        *out = 1;
    else if (strcmp(buf, "false") == 0)
        *out = 0;
    else
        return fc_yaml_error(ctx, v, k, "'%s' must be true or false, not '%s'",
                             key, buf);
    return FC_OK;
}

/* A number in [lo, hi]. */
static fc_status_t fc_yaml_number(const fc_yaml_ctx_t *ctx, struct fy_node *k,
                                  struct fy_node *v, const char *key,
                                  double lo, double hi, double *out)
{
    char buf[64], *end;
    double d;

    snprintf(buf, sizeof(buf), "%s", key);
    FC_CHECK(fc_yaml_expect_scalar(ctx, v, k, "a number", buf, sizeof(buf)));
    errno = 0;
    d = strtod(buf, &end);
    if (buf[0] == '\0' || *end != '\0' || errno != 0 || !isfinite(d))
        return fc_yaml_error(ctx, v, k, "'%s' must be a number, not '%s'",
                             key, buf);
    if (d < lo || d > hi)
        return fc_yaml_error(ctx, v, k, "'%s' is %s; it must be between %g and %g",
                             key, buf, lo, hi);
    *out = d;
    return FC_OK;
}

static fc_status_t fc_yaml_int(const fc_yaml_ctx_t *ctx, struct fy_node *k,
                               struct fy_node *v, const char *key, int lo,
                               int hi, int *out)
{
    double d = 0;

    FC_CHECK(fc_yaml_number(ctx, k, v, key, lo, hi, &d));
    if (d != floor(d))
        return fc_yaml_error(ctx, v, k, "'%s' must be a whole number", key);
    *out = (int)d;
    return FC_OK;
}

static fc_status_t fc_yaml_size(const fc_yaml_ctx_t *ctx, struct fy_node *k,
                                struct fy_node *v, const char *key,
                                uint64_t *out)
{
    char buf[64];

    snprintf(buf, sizeof(buf), "%s", key);
    FC_CHECK(fc_yaml_expect_scalar(ctx, v, k, "a size", buf, sizeof(buf)));
    if (fc_parse_size(buf, out) != 0 || *out == 0)
        return fc_yaml_error(ctx, v, k,
                             "'%s' must be a positive size such as 4096, 64KiB or 1MiB, not '%s'",
                             key, buf);
    return FC_OK;
}

/* A sequence of names, each mapped by from_name; "any" allowed if any_ok. */
static fc_status_t fc_yaml_name_list(const fc_yaml_ctx_t *ctx,
                                     struct fy_node *k, struct fy_node *v,
                                     const char *key,
                                     int (*from_name)(const char *),
                                     int max, int *out, int *count_p)
{
    void *iter = NULL;
    struct fy_node *item;
    char buf[64];
    int count = 0;

    if (v == NULL || fy_node_get_type(v) != FYNT_SEQUENCE)
        return fc_yaml_error(ctx, v, k, "'%s' must be a list", key);
    while ((item = fy_node_sequence_iterate(v, &iter)) != NULL) {
        int id;

        snprintf(buf, sizeof(buf), "%s", key);
        FC_CHECK(fc_yaml_expect_scalar(ctx, item, k, "a list of names", buf,
                                       sizeof(buf)));
        id = from_name(buf);
        if (id < 0)
            return fc_yaml_error(ctx, item, k, "unknown name '%s' in '%s'",
                                 buf, key);
        for (int c = 0; c < count; ++c)
            if (out[c] == id)
                return fc_yaml_error(ctx, item, k, "'%s' is listed twice in '%s'",
                                     buf, key);
        if (count == max)
            return fc_yaml_error(ctx, item, k, "too many entries in '%s'", key);
        out[count++] = id;
    }
    if (count == 0)
        return fc_yaml_error(ctx, v, k, "'%s' must not be empty", key);
    *count_p = count;
    return FC_OK;
}

/* Walk a mapping: for each key, find it in keys[] (error if absent) and
 * call handle(ctx, index, key node, value node, arg). */
typedef fc_status_t (*fc_yaml_key_func_t)(const fc_yaml_ctx_t *ctx, int index,
                                          struct fy_node *k, struct fy_node *v,
                                          void *arg);

static fc_status_t fc_yaml_walk_map(const fc_yaml_ctx_t *ctx,
                                    struct fy_node *map, struct fy_node *mapkey,
                                    const char *where,
                                    const char *const *keys,
                                    fc_yaml_key_func_t handle, void *arg)
{
    void *iter = NULL;
    struct fy_node_pair *pair;
    char name[128], expected[512];

    if (map == NULL || fy_node_get_type(map) != FYNT_MAPPING)
        return fc_yaml_error(ctx, map, mapkey, "%s must be a mapping", where);
    while ((pair = fy_node_mapping_iterate(map, &iter)) != NULL) {
        struct fy_node *k = fy_node_pair_key(pair);
        struct fy_node *v = fy_node_pair_value(pair);
        int index = -1;

        if (k == NULL || !fy_node_is_scalar(k) ||
            !fc_scalar(k, name, sizeof(name)))
            return fc_yaml_error(ctx, k, k, "%s has a key that is not a name",
                                 where);
        for (int i = 0; keys[i] != NULL; ++i)
            if (strcmp(keys[i], name) == 0)
                index = i;
        if (index < 0) {
            expected[0] = '\0';
            for (int i = 0; keys[i] != NULL; ++i)
                snprintf(expected + strlen(expected),
                         sizeof(expected) - strlen(expected), "%s%s",
                         i ? ", " : "", keys[i]);
            return fc_yaml_error(ctx, k, k,
                                 "unknown key '%s' in %s (expected one of: %s)",
                                 name, where, expected);
        }
        FC_CHECK(handle(ctx, index, k, v, arg));
    }
    return FC_OK;
}

/* ---- limits ------------------------------------------------------------- */

static const char *const fc_limit_keys[] = {
    "collective", "dtype", "op", "min_bytes", "max_bytes", "min_busbw_gbps",
    "max_latency_us", NULL,
};

static fc_status_t fc_limit_key(const fc_yaml_ctx_t *ctx, int index,
                                struct fy_node *k, struct fy_node *v, void *arg)
{
    fc_limit_rule_t *r = arg;
    char buf[64];
    int (*const lookups[3])(const char *) = {
        fc_coll_from_name, fc_dtype_from_name, fc_reduce_op_from_name,
    };
    int *const targets[3] = { &r->coll, &r->dtype, &r->op };

    switch (index) {
    case 0: case 1: case 2:
        snprintf(buf, sizeof(buf), "%s", fc_limit_keys[index]);
        FC_CHECK(fc_yaml_expect_scalar(ctx, v, k, "a name", buf, sizeof(buf)));
        if (strcmp(buf, "any") == 0) {
            *targets[index] = FC_ANY;
        } else if ((*targets[index] = lookups[index](buf)) < 0) {
            return fc_yaml_error(ctx, v, k, "unknown %s '%s'",
                                 fc_limit_keys[index], buf);
        }
        return FC_OK;
    case 3: return fc_yaml_size(ctx, k, v, "min_bytes", &r->min_bytes);
    case 4: return fc_yaml_size(ctx, k, v, "max_bytes", &r->max_bytes);
    case 5: return fc_yaml_number(ctx, k, v, "min_busbw_gbps", 0, 1e6,
                                  &r->min_busbw_gbps);
    default: return fc_yaml_number(ctx, k, v, "max_latency_us", 0, 1e12,
                                   &r->max_latency_us);
    }
}

static fc_status_t fc_profile_limits(const fc_yaml_ctx_t *ctx,
                                     struct fy_node *k, struct fy_node *v,
                                     fc_stage_profile_t *sp)
{
    void *iter = NULL;
    struct fy_node *item;
    int col;

    if (v == NULL || fy_node_get_type(v) != FYNT_SEQUENCE)
        return fc_yaml_error(ctx, v, k, "'limits' must be a list of rules");
    while ((item = fy_node_sequence_iterate(v, &iter)) != NULL) {
        fc_limit_rule_t *r;

        if (sp->nlimits == FC_PROFILE_MAX_LIMITS)
            return fc_yaml_error(ctx, item, k, "more than %d limit rules",
                                 FC_PROFILE_MAX_LIMITS);
        r = &sp->limits[sp->nlimits++];
        *r = (fc_limit_rule_t){ FC_ANY, FC_ANY, FC_ANY, 0, UINT64_MAX, -1, -1,
                                0 };
        fc_node_mark(k, &r->line, &col);
        FC_CHECK(fc_yaml_walk_map(ctx, item, k, "a limit rule", fc_limit_keys,
                                  fc_limit_key, r));
        if (r->min_bytes > r->max_bytes)
            return fc_yaml_error(ctx, item, k,
                                 "a limit rule has min_bytes above max_bytes");
    }
    return FC_OK;
}

/* ---- stages ------------------------------------------------------------- */

static const char *const fc_relative_keys[] = {
    "max_below_median_pct", "min_bytes", NULL,
};

static fc_status_t fc_relative_key(const fc_yaml_ctx_t *ctx, int index,
                                   struct fy_node *k, struct fy_node *v,
                                   void *arg)
{
    fc_stage_profile_t *sp = arg;

    if (index == 1)
        return fc_yaml_size(ctx, k, v, "min_bytes", &sp->relative_min_bytes);
    return fc_yaml_number(ctx, k, v, "max_below_median_pct", 0, 100,
                          &sp->max_below_median_pct);
}

static const char *const fc_stage_keys[] = {
    "required", "timeout_s", "warmup", "iters", "sizes", "collectives",
    "dtypes", "ops", "max_wrong", "relative", "limits", "backend",
    "contention", "expect", "soak", NULL,
};

/* ---- the contention stage's background traffic --------------------------- */

static const char *const fc_bg_names[FC_BG_KINDS] = {
    "storage_file", "storage_net", "tenant",
};

const char *fc_bg_kind_name(int kind)
{
    return kind >= 0 && kind < FC_BG_KINDS ? fc_bg_names[kind] : "?";
}

static const char *const fc_bg_keys[] = {
    "block", "rate_mbps", "duty", "period_s", "targets", "placement", "direct",
    "pattern", NULL,
};

static fc_status_t fc_bg_key(const fc_yaml_ctx_t *ctx, int index, struct fy_node *k,
                             struct fy_node *v, void *arg)
{
    fc_bg_profile_t *b = arg;
    char buf[64];

    switch (index) {
    case 0: return fc_yaml_size(ctx, k, v, "block", &b->block);
    case 1: return fc_yaml_number(ctx, k, v, "rate_mbps", 0.001, 1e7, &b->rate_mbps);
    case 2: return fc_yaml_number(ctx, k, v, "duty", 0.01, 1, &b->duty);
    case 3: return fc_yaml_number(ctx, k, v, "period_s", 0.05, 60, &b->period_s);
    case 4: return fc_yaml_int(ctx, k, v, "targets", 1, 100000, &b->targets);
    case 5:
        snprintf(buf, sizeof(buf), "placement");
        FC_CHECK(fc_yaml_expect_scalar(ctx, v, k, "cross-rack or any", buf, sizeof(buf)));
        if (strcmp(buf, "cross-rack") != 0 && strcmp(buf, "any") != 0)
            return fc_yaml_error(ctx, v, k, "'placement' must be cross-rack or any, not '%s'", buf);
        b->cross_rack = strcmp(buf, "cross-rack") == 0;
        return FC_OK;
    case 6: return fc_yaml_bool(ctx, k, v, "direct", &b->direct);
    default:
        snprintf(buf, sizeof(buf), "pattern");
        FC_CHECK(fc_yaml_expect_scalar(ctx, v, k, "all_to_all or permutation", buf, sizeof(buf)));
        if (strcmp(buf, "all_to_all") != 0 && strcmp(buf, "permutation") != 0)
            return fc_yaml_error(ctx, v, k, "'pattern' must be all_to_all or permutation, not '%s'", buf);
        b->permutation = strcmp(buf, "permutation") == 0;
        return FC_OK;
    }
}

static const char *const fc_cont_keys[] = {
    "scope", "max_slowdown", "min_background_pct", "foreground_ranks_per_node",
    "background_ranks_per_node", "storage_dir", "storage_file", "storage_net",
    "tenant", "phase_s", "background_hosts", NULL,
};

static const char *const fc_expect_keys[] = {
    "nic_pattern", "nics", "mtu", "min_speed_mbps", "rdma_ports", "gpus",
    "same_versions", NULL,
};

static fc_status_t fc_expect_key(const fc_yaml_ctx_t *ctx, int index, struct fy_node *k,
                                 struct fy_node *v, void *arg)
{
    fc_preflight_profile_t *e = arg;
    char buf[64];

    switch (index) {
    case 0:
        snprintf(buf, sizeof(buf), "nic_pattern");
        FC_CHECK(fc_yaml_expect_scalar(ctx, v, k, "a glob such as ib* or eth*", buf, sizeof(buf)));
        snprintf(e->nic_pattern, sizeof(e->nic_pattern), "%s", buf);
        return FC_OK;
    case 1: return fc_yaml_int(ctx, k, v, "nics", 0, 1024, &e->nics);
    case 2: return fc_yaml_int(ctx, k, v, "mtu", 68, 65536, &e->mtu);
    case 3: return fc_yaml_number(ctx, k, v, "min_speed_mbps", 0, 1e7, &e->min_speed_mbps);
    case 4: return fc_yaml_int(ctx, k, v, "rdma_ports", 0, 1024, &e->rdma_ports);
    case 5: return fc_yaml_int(ctx, k, v, "gpus", 0, 1024, &e->gpus);
    default: return fc_yaml_bool(ctx, k, v, "same_versions", &e->same_versions);
    }
}

static const char *const fc_soak_keys[] = {
    "duration_s", "window_s", "max_drift_pct", "max_error_delta", "nic_pattern",
    "confirm_windows", NULL,
};

static fc_status_t fc_soak_key(const fc_yaml_ctx_t *ctx, int index, struct fy_node *k,
                               struct fy_node *v, void *arg)
{
    fc_soak_profile_t *s = arg;
    char buf[64];

    switch (index) {
    case 0: return fc_yaml_number(ctx, k, v, "duration_s", 1, 7 * 86400.0, &s->duration_s);
    case 1:
        s->window_explicit = 1;
        fc_node_mark(v, &s->window_line, &s->window_col);
        return fc_yaml_number(ctx, k, v, "window_s", 0.1, 86400, &s->window_s);
    case 2: return fc_yaml_number(ctx, k, v, "max_drift_pct", 0, 1e6, &s->max_drift_pct);
    case 3: return fc_yaml_number(ctx, k, v, "max_error_delta", 0, 1e18, &s->max_error_delta);
    case 5: return fc_yaml_int(ctx, k, v, "confirm_windows", 1, 1000, &s->confirm_windows);
    default:
        snprintf(buf, sizeof(buf), "nic_pattern");
        FC_CHECK(fc_yaml_expect_scalar(ctx, v, k, "a glob such as ib* or eth*", buf, sizeof(buf)));
        snprintf(s->nic_pattern, sizeof(s->nic_pattern), "%s", buf);
        return FC_OK;
    }
}

static fc_status_t fc_cont_key(const fc_yaml_ctx_t *ctx, int index, struct fy_node *k,
                               struct fy_node *v, void *arg)
{
    fc_contention_profile_t *c = arg;
    char buf[512];

    switch (index) {
    case 0:
        snprintf(buf, sizeof(buf), "scope");
        FC_CHECK(fc_yaml_expect_scalar(ctx, v, k, "cluster or rack", buf, sizeof(buf)));
        if (strcmp(buf, "cluster") != 0 && strcmp(buf, "rack") != 0)
            return fc_yaml_error(ctx, v, k, "'scope' must be cluster or rack, not '%s'", buf);
        c->scope_rack = strcmp(buf, "rack") == 0;
        return FC_OK;
    case 1: return fc_yaml_number(ctx, k, v, "max_slowdown", 1, 1e9, &c->max_slowdown);
    case 2:
        FC_CHECK(fc_yaml_number(ctx, k, v, "min_background_pct", 0, 100,
                                &c->min_background_pct));
        /* 0 would certify a background that was never proven to load */
        if (c->min_background_pct <= 0)
            return fc_yaml_error(ctx, v, k, "'min_background_pct' is 0: the background "
                                 "load must be proven, so give the share of its target "
                                 "it must reach (above 0, up to 100)");
        return FC_OK;
    case 3: return fc_yaml_int(ctx, k, v, "foreground_ranks_per_node", 1, 1024, &c->fg_per_node);
    case 4: return fc_yaml_int(ctx, k, v, "background_ranks_per_node", 1, 1024, &c->bg_per_node);
    case 5:
        snprintf(buf, sizeof(buf), "storage_dir");
        FC_CHECK(fc_yaml_expect_scalar(ctx, v, k, "a directory", buf, sizeof(buf)));
        snprintf(c->storage_dir, sizeof(c->storage_dir), "%s", buf);
        return FC_OK;
    case 9: return fc_yaml_number(ctx, k, v, "phase_s", 0.2, 600, &c->phase_s);
    case 10: {
        char (*names)[FC_INV_NAME_MAX] = NULL, err[256];
        int n = 0;

        snprintf(buf, sizeof(buf), "background_hosts");
        FC_CHECK(fc_yaml_expect_scalar(ctx, v, k, "a Slurm hostlist such as gpu[01-04]",
                                       buf, sizeof(buf)));
        if (fc_hostlist_expand(buf, &names, &n, err, sizeof(err)) != FC_OK)
            return fc_yaml_error(ctx, v, k, "'background_hosts': %s", err);
        free(names);
        if (n == 0)
            return fc_yaml_error(ctx, v, k, "'background_hosts' names no host");
        snprintf(c->background_hosts, sizeof(c->background_hosts), "%s", buf);
        return FC_OK;
    }
    default: {
        fc_bg_profile_t *b = &c->kinds[index - 6];

        b->enabled = 1;
        return fc_yaml_walk_map(ctx, v, k, fc_bg_names[index - 6], fc_bg_keys, fc_bg_key, b);
    }
    }
}

/* The stage being read, for fc_stage_key. */
typedef struct fc_stage_walk {
    fc_stage_profile_t *sp;
    int stage;                  /* fc_stage_id_t */
} fc_stage_walk_t;

/* A stage's own section (contention:, expect:, soak:) is read by that
 * stage's program only: anywhere else it would be accepted and ignored,
 * so it is an error like an unknown key. So are rules a stage never
 * applies: limits judge the points of the node, pairs, rack, cluster and
 * soak stages (preflight has no points, contention judges the slowdown);
 * a relative rule compares groups with their peers, and the cluster and
 * soak stages judge one group, the whole job, which has none. */
static fc_status_t fc_stage_section_placed(const fc_yaml_ctx_t *ctx, int index,
                                           int stage, struct fy_node *k)
{
    const fc_stage_desc_t *d = fc_stage_desc((fc_stage_id_t)stage);
    unsigned want = index == 12 ? FC_SECT_CONTENTION : index == 13 ? FC_SECT_EXPECT
                  : index == 14 ? FC_SECT_SOAK : 0;
    int owner = stage;

    if (index == 10 && !(d->sections & FC_SECT_LIMITS))
        return fc_yaml_error(ctx, k, k, "'limits' in stage '%s' would never be applied: %s",
                             d->name, d->no_limits);
    if (index == 9 && !(d->sections & FC_SECT_RELATIVE))
        return fc_yaml_error(ctx, k, k, "'relative' in stage '%s' would never be applied: "
                             "%s", d->name, d->no_relative);
    if (want == 0 || (d->sections & want))
        return FC_OK;
    for (int s = 0; s < FC_STAGE_COUNT; ++s)
        if (fc_stage_desc((fc_stage_id_t)s)->sections & want)
            owner = s;
    return fc_yaml_error(ctx, k, k, "'%s' belongs in stage '%s', not in stage '%s', "
                         "where nothing would read it", fc_stage_keys[index],
                         fc_stage_name((fc_stage_id_t)owner), d->name);
}

static fc_status_t fc_stage_key(const fc_yaml_ctx_t *ctx, int index,
                                struct fy_node *k, struct fy_node *v, void *arg)
{
    const fc_stage_walk_t *w = arg;
    fc_stage_profile_t *sp = w->sp;
    double d;

    FC_CHECK(fc_stage_section_placed(ctx, index, w->stage, k));
    switch (index) {
    case 0: return fc_yaml_bool(ctx, k, v, "required", &sp->required);
    case 1: return fc_yaml_number(ctx, k, v, "timeout_s", 1, 7 * 86400.0,
                                  &sp->timeout_s);
    case 2: return fc_yaml_int(ctx, k, v, "warmup", 0, 1000000, &sp->warmup);
    case 3: return fc_yaml_int(ctx, k, v, "iters", 1, 1000000, &sp->iters);
    case 4: {
        void *iter = NULL;
        struct fy_node *item;

        if (v == NULL || fy_node_get_type(v) != FYNT_SEQUENCE)
            return fc_yaml_error(ctx, v, k, "'sizes' must be a list");
        sp->nsizes = 0;
        while ((item = fy_node_sequence_iterate(v, &iter)) != NULL) {
            if (sp->nsizes == FC_PROFILE_MAX_SIZES)
                return fc_yaml_error(ctx, item, k, "more than %d sizes",
                                     FC_PROFILE_MAX_SIZES);
            FC_CHECK(fc_yaml_size(ctx, k, item, "sizes",
                                  &sp->sizes[sp->nsizes++]));
        }
        if (sp->nsizes == 0)
            return fc_yaml_error(ctx, v, k, "'sizes' must not be empty");
        return FC_OK;
    }
    case 5: return fc_yaml_name_list(ctx, k, v, "collectives", fc_coll_from_name,
                                     FC_COLL_COUNT, sp->colls, &sp->ncolls);
    case 6: return fc_yaml_name_list(ctx, k, v, "dtypes", fc_dtype_from_name,
                                     FC_DTYPE_COUNT, sp->dtypes, &sp->ndtypes);
    case 7: return fc_yaml_name_list(ctx, k, v, "ops", fc_reduce_op_from_name,
                                     4, sp->ops, &sp->nops);
    case 8:
        /* wrong bits are never tolerated: the key stays so that profiles
         * that state it still load, and 0 is its only value */
        FC_CHECK(fc_yaml_number(ctx, k, v, "max_wrong", 0, 1e18, &d));
        if (d != 0)
            return fc_yaml_error(ctx, v, k, "'max_wrong' is %g; wrong bits are never "
                                 "tolerated, its only value is 0", d);
        sp->max_wrong = 0;
        return FC_OK;
    case 9:
        return fc_yaml_walk_map(ctx, v, k, "'relative'", fc_relative_keys,
                                fc_relative_key, sp);
    case 13:
        return fc_yaml_walk_map(ctx, v, k, "'expect'", fc_expect_keys, fc_expect_key,
                                &sp->expect);
    case 14:
        return fc_yaml_walk_map(ctx, v, k, "'soak'", fc_soak_keys, fc_soak_key, &sp->soak);
    case 12:
        FC_CHECK(fc_yaml_walk_map(ctx, v, k, "'contention'", fc_cont_keys, fc_cont_key,
                                  &sp->cont));
        if (sp->cont.kinds[FC_BG_STORAGE_FILE].enabled && sp->cont.storage_dir[0] == '\0')
            return fc_yaml_error(ctx, v, k, "storage_file traffic needs 'storage_dir'");
        return FC_OK;
    case 11: {
        char buf[16];

        snprintf(buf, sizeof(buf), "backend");
        FC_CHECK(fc_yaml_expect_scalar(ctx, v, k, "mpi, nccl or auto", buf, sizeof(buf)));
        if (strcmp(buf, "mpi") != 0 && strcmp(buf, "nccl") != 0 && strcmp(buf, "auto") != 0)
            return fc_yaml_error(ctx, v, k, "'backend' must be mpi, nccl or auto, not '%s'", buf);
        snprintf(sp->backend, sizeof(sp->backend), "%s", buf);
        return FC_OK;
    }
    default:
        return fc_profile_limits(ctx, k, v, sp);
    }
}

static void fc_stage_defaults(fc_stage_profile_t *sp)
{
    static const uint64_t sizes[] = { 4096, 256 << 10, 1 << 20 };

    memset(sp, 0, sizeof(*sp));
    sp->required = 1;
    sp->timeout_s = 600;
    sp->warmup = 2;
    sp->iters = 10;
    memcpy(sp->sizes, sizes, sizeof(sizes));
    sp->nsizes = 3;
    for (int c = 0; c < FC_COLL_COUNT; ++c)
        sp->colls[sp->ncolls++] = c;
    for (int t = 0; t < FC_DTYPE_COUNT; ++t)
        sp->dtypes[sp->ndtypes++] = t;
    for (int o = 0; o < 4; ++o)
        sp->ops[sp->nops++] = o;
    sp->max_wrong = 0;
    sp->max_below_median_pct = -1;
    snprintf(sp->backend, sizeof(sp->backend), "mpi");
    sp->cont.max_slowdown = -1;
    sp->cont.min_background_pct = 50;
    sp->cont.phase_s = 1.5;
    snprintf(sp->expect.nic_pattern, sizeof(sp->expect.nic_pattern), "*");
    sp->expect.nics = -1;
    sp->expect.mtu = -1;
    sp->expect.min_speed_mbps = -1;
    sp->expect.rdma_ports = -1;
    sp->expect.gpus = -1;
    sp->expect.same_versions = 1;
    sp->cont.fg_per_node = 1;
    sp->cont.bg_per_node = 1;
    sp->soak.duration_s = 3600;
    sp->soak.window_s = 0;              /* 0: a tenth of the duration */
    sp->soak.max_drift_pct = 10;
    sp->soak.confirm_windows = 2;
    sp->soak.max_error_delta = 0;
    snprintf(sp->soak.nic_pattern, sizeof(sp->soak.nic_pattern), "*");
    for (int b = 0; b < FC_BG_KINDS; ++b) {
        fc_bg_profile_t *bg = &sp->cont.kinds[b];

        bg->block = b == FC_BG_TENANT ? 256 << 10 : 1 << 20;
        bg->rate_mbps = 100;
        bg->duty = b == FC_BG_STORAGE_NET ? 0.7 : 1.0;
        bg->period_s = 0.5;
        bg->targets = 1;
        bg->cross_rack = 1;
        bg->direct = 1;
    }
}

static fc_status_t fc_stages_key(const fc_yaml_ctx_t *ctx, int index,
                                 struct fy_node *k, struct fy_node *v,
                                 void *arg)
{
    fc_profile_t *profile = arg;
    fc_stage_profile_t *sp = &profile->stages[index];
    fc_stage_walk_t w = { sp, index };
    char where[64];

    fc_stage_defaults(sp);
    sp->present = 1;
    snprintf(where, sizeof(where), "stage '%s'", fc_stage_name((fc_stage_id_t)index));
    FC_CHECK(fc_yaml_walk_map(ctx, v, k, where, fc_stage_keys, fc_stage_key, &w));
    if (fc_stage_desc((fc_stage_id_t)index)->sections & FC_SECT_SOAK) {
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
    }
    return FC_OK;
}

static int fc_profile_has_stage(const fc_profile_t *profile)
{
    for (int s = 0; s < FC_STAGE_COUNT; ++s)
        if (profile->stages[s].present)
            return 1;
    return 0;
}

static const char *fc_stage_list(void)
{
    static char list[128];

    list[0] = '\0';
    for (int s = 0; s < FC_STAGE_COUNT; ++s)
        snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
                 s ? ", " : "", fc_stage_name((fc_stage_id_t)s));
    return list;
}

static const char *const fc_top_keys[] = {
    "name", "description", "seed", "stages", "certificates", NULL,
};

/* certificates: {require_signature: true}: a site that signs (fc_sign.c). */
static const char *const fc_cert_keys[] = { "require_signature", NULL };

static fc_status_t fc_cert_key(const fc_yaml_ctx_t *ctx, int index,
                               struct fy_node *k, struct fy_node *v, void *arg)
{
    return fc_yaml_bool(ctx, k, v, "require_signature", &((fc_profile_t *)arg)->require_signature);
}

static fc_status_t fc_top_key(const fc_yaml_ctx_t *ctx, int index,
                              struct fy_node *k, struct fy_node *v, void *arg)
{
    fc_profile_t *profile = arg;
    static const char *stage_keys[FC_STAGE_COUNT + 1];
    char buf[sizeof(profile->name)];
    double d;

    switch (index) {
    case 0:
        snprintf(buf, sizeof(buf), "name");
        FC_CHECK(fc_yaml_expect_scalar(ctx, v, k, "a string", buf, sizeof(buf)));
        snprintf(profile->name, sizeof(profile->name), "%s", buf);
        return FC_OK;
    case 1:
        snprintf(buf, sizeof(buf), "description");
        return fc_yaml_expect_scalar(ctx, v, k, "a string", buf, sizeof(buf));
    case 2:
        FC_CHECK(fc_yaml_number(ctx, k, v, "seed", 0, 4294967295.0, &d));
        profile->seed = (uint32_t)d;
        return FC_OK;
    case 4:
        return fc_yaml_walk_map(ctx, v, k, "'certificates'", fc_cert_keys, fc_cert_key,
                                profile);
    default:
        for (int s = 0; s < FC_STAGE_COUNT; ++s)
            stage_keys[s] = fc_stage_name((fc_stage_id_t)s);
        stage_keys[FC_STAGE_COUNT] = NULL;
        FC_CHECK(fc_yaml_walk_map(ctx, v, k, "'stages'", stage_keys,
                                  fc_stages_key, profile));
        if (!fc_profile_has_stage(profile))     /* `run` would have nothing to run */
            return fc_yaml_error(ctx, NULL, k, "'stages' names no stage: a profile names "
                                 "at least one of %s", fc_stage_list());
        return FC_OK;
    }
}

static fc_status_t fc_profile_hash(const char *path, char *hex, size_t len)
{
    unsigned char digest[crypto_hash_sha256_BYTES], chunk[65536];
    crypto_hash_sha256_state st;
    FILE *f = fopen(path, "rb");
    size_t n;

    if (f == NULL) {
        fprintf(stderr, "fabcert: %s: cannot open profile: %m\n", path);
        return FC_ERR_INVALID;
    }
    crypto_hash_sha256_init(&st);
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        crypto_hash_sha256_update(&st, chunk, n);
    fclose(f);
    crypto_hash_sha256_final(&st, digest);
    sodium_bin2hex(hex, len, digest, sizeof(digest));
    return FC_OK;
}

fc_status_t fc_profile_load(const char *path, fc_profile_t *profile_p)
{
    struct fy_diag_cfg dcfg;
    struct fy_diag *diag = NULL;
    struct fy_parse_cfg cfg;
    struct fy_document *doc = NULL;
    fc_yaml_ctx_t ctx = { path };
    fc_profile_t *profile = calloc(1, sizeof(*profile));
    fc_status_t status = FC_ERR_INVALID;

    if (profile == NULL) {
        fprintf(stderr, "fabcert: out of memory loading %s\n", path);
        return FC_ERR_INTERNAL;
    }
    snprintf(profile->path, sizeof(profile->path), "%s", path);
    profile->seed = 1;
    if (fc_profile_hash(path, profile->sha256, sizeof(profile->sha256)) != FC_OK)
        goto out_free;

    fy_diag_cfg_default(&dcfg);
    dcfg.fp = NULL;
    dcfg.colorize = false;
    diag = fy_diag_create(&dcfg);
    if (diag == NULL)
        goto out_free;
    fy_diag_set_collect_errors(diag, true);
    memset(&cfg, 0, sizeof(cfg));
    cfg.flags = FYPCF_QUIET;
    cfg.diag = diag;
    doc = fy_document_build_from_file(&cfg, path);
    if (doc == NULL) {
        void *iter = NULL;
        struct fy_diag_error *err = fy_diag_errors_iterate(diag, &iter);

        if (err != NULL)
            fprintf(stderr, "fabcert: %s:%d:%d: malformed YAML: %s\n", path,
                    err->line + 1, err->column + 1, err->msg);
        else
            fprintf(stderr, "fabcert: %s:1:1: the profile is empty or not YAML\n", path);
        goto out_diag;
    }
    if (fy_document_root(doc) == NULL) {
        fprintf(stderr, "fabcert: %s:1:1: the profile is empty\n", path);
        goto out_doc;
    }
    status = fc_yaml_walk_map(&ctx, fy_document_root(doc), NULL, "the profile",
                              fc_top_keys, fc_top_key, profile);
    if (status == FC_OK && profile->name[0] == '\0') {
        fprintf(stderr, "fabcert: %s:1:1: the profile has no 'name'\n", path);
        status = FC_ERR_INVALID;
    }
    if (status == FC_OK && !fc_profile_has_stage(profile)) {
        fprintf(stderr, "fabcert: %s:1:1: the profile has no 'stages': it names at least "
                "one of %s\n", path, fc_stage_list());
        status = FC_ERR_INVALID;
    }
    if (status == FC_OK)
        *profile_p = *profile;
out_doc:
    fy_document_destroy(doc);
out_diag:
    fy_diag_destroy(diag);
out_free:
    free(profile);
    return status;
}

const fc_limit_rule_t *fc_profile_find_limit(const fc_stage_profile_t *sp,
                                             int coll, int dtype, int op,
                                             uint64_t bytes)
{
    for (int i = 0; i < sp->nlimits; ++i) {
        const fc_limit_rule_t *r = &sp->limits[i];

        if ((r->coll == FC_ANY || r->coll == coll) &&
            (r->dtype == FC_ANY || r->dtype == dtype) &&
            (r->op == FC_ANY || r->op == op) &&
            bytes >= r->min_bytes && bytes <= r->max_bytes)
            return r;
    }
    return NULL;
}

fc_status_t fc_parse_name_list(const char *what, const char *text,
                               int (*from_name)(const char *), int max,
                               int *out, int *count_p)
{
    char buf[1024], *save = NULL;
    int count = 0;

    snprintf(buf, sizeof(buf), "%s", text);
    for (char *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        int id = from_name(tok);

        if (id < 0 || count == max) {
            fprintf(stderr, "fabcert: --%s: unknown or repeated '%s'\n", what,
                    tok);
            return FC_ERR_INVALID;
        }
        out[count++] = id;
    }
    if (count == 0) {
        fprintf(stderr, "fabcert: --%s: empty list\n", what);
        return FC_ERR_INVALID;
    }
    *count_p = count;
    return FC_OK;
}

fc_status_t fc_parse_size_list(const char *what, const char *text, int max,
                               uint64_t *out, int *count_p)
{
    char buf[1024], *save = NULL;
    int count = 0;

    snprintf(buf, sizeof(buf), "%s", text);
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (count == max || fc_parse_size(t, &out[count]) != 0 || out[count] == 0) {
            fprintf(stderr, "fabcert: --%s: bad size '%s'\n", what, t);
            return FC_ERR_INVALID;
        }
        count++;
    }
    *count_p = count;
    return FC_OK;
}

fc_status_t fc_parse_duration(const char *what, const char *text, double *seconds_p)
{
    char *end = NULL;
    double v = strtod(text, &end), unit = *end == 'm' ? 60 : *end == 'h' ? 3600 :
                                          *end == 'd' ? 86400 : 1;

    if (end == text || !isfinite(v) || v <= 0 ||
        (*end != '\0' && (strchr("smhd", *end) == NULL || end[1] != '\0')) ||
        v * unit > 7 * 86400.0) {
        fprintf(stderr, "fabcert: --%s '%s': expected seconds, or a number with s, m, h "
                "or d, up to 7 days\n", what, text);
        return FC_ERR_INVALID;
    }
    if (v * unit < 1) {         /* the least soak.duration_s a profile may say */
        fprintf(stderr, "fabcert: --%s '%s': below the least soak duration, 1 s (the "
                "profile's soak.duration_s is 1 s or more)\n", what, text);
        return FC_ERR_INVALID;
    }
    *seconds_p = v * unit;
    return FC_OK;
}

int fc_soak_min_windows(const fc_stage_profile_t *sp)
{
    return sp->soak.confirm_windows + 1 > 2 ? sp->soak.confirm_windows + 1 : 2;
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
