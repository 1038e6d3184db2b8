/*
 * fc_profile_stage.c - a profile's stages: section: one mapping per stage
 * named in lib/base/fc_stages.c, each read against the stage keys' table (what
 * to sweep, the timeout, the backend, the limit rules and the relative
 * rule, and the stage's own section: contention:, expect: or soak:).
 * Defaults are filled first, so a profile only states what differs. A
 * section the stage table says a stage never reads is refused where it
 * is written, as an unknown key is: anywhere else it would be accepted
 * and ignored.
 */
#include <stdio.h>
#include <string.h>

#include "fc_coll.h"
#include "fc_pairs_schedule.h"
#include "fc_profile_sections.h"

/* ---- limits: a list of rules, the first matching a point applies --------- */
/* (A rule that an earlier rule matches wholly would never apply, whatever
 * it says: refused, naming both, rather than dead in silence. Rules that
 * overlap in part are fine: the later one judges the points the earlier
 * does not match.) */

/* A stage whose limits judge one kind of point (the stage table's
 * judges_only: the pairs stage, sendrecv of int32) never applies a rule
 * for another collective, type or an op: refused at that key. */
static fc_status_t fc_limit_judged_kind(const fc_yaml_ctx_t *ctx, struct fy_node *map,
                                        const fc_limit_rule_t *r)
{
    const fc_stage_desc_t *d = fc_stage_desc((fc_stage_id_t)ctx->stage);
    char coll[32], dtype[32];
    const char *key = NULL, *value;
    struct fy_node *n;
    size_t len = 0;

    if (ctx->stage < 0 || d->judges_only == NULL ||
        sscanf(d->judges_only, "%31s %31s", coll, dtype) != 2)
        return FC_OK;
    if (r->coll != FC_ANY && r->coll != fc_coll_from_name(coll))
        key = "collective";
    else if (r->dtype != FC_ANY && r->dtype != fc_dtype_from_name(dtype))
        key = "dtype";
    else if (r->op != FC_ANY)
        key = "op";
    if (key == NULL)
        return FC_OK;
    n = fy_node_mapping_lookup_by_string(map, key, FY_NT);
    value = n ? fy_node_get_scalar(n, &len) : NULL;
    return fc_yaml_error(ctx, n, NULL, "a limit rule for %s '%.*s' in stage '%s' would never "
                         "be applied: the %s stage judges %s of %s alone (no op)", key,
                         value ? (int)(len < 40 ? len : 40) : 1, value ? value : "?", d->name,
                         d->name, coll, dtype);
}

static fc_status_t fc_limit_done(const fc_yaml_ctx_t *ctx, struct fy_node *k,
                                 struct fy_node *map, void *base)
{
    const fc_limit_rule_t *r = base;

    if (r->min_bytes > r->max_bytes)
        return fc_yaml_error(ctx, map, k, "a limit rule has min_bytes above max_bytes");
    return fc_limit_judged_kind(ctx, map, r);
}

static const fc_yaml_field_t fc_limit_keys[] = {
    FC_KEY_NAME("collective", fc_limit_rule_t, coll, fc_coll_from_name),
    FC_KEY_NAME("dtype", fc_limit_rule_t, dtype, fc_dtype_from_name),
    FC_KEY_NAME("op", fc_limit_rule_t, op, fc_reduce_op_from_name),
    FC_KEY_SIZE("min_bytes", fc_limit_rule_t, min_bytes),
    FC_KEY_SIZE("max_bytes", fc_limit_rule_t, max_bytes),
    FC_KEY_NUMBER("min_busbw_gbps", fc_limit_rule_t, min_busbw_gbps, 0, 1e6),
    FC_KEY_NUMBER("max_latency_us", fc_limit_rule_t, max_latency_us, 0, 1e12),
    FC_KEY_END
};

static const fc_yaml_section_t fc_limit_section = {
    .where = "a limit rule", .keys = fc_limit_keys, .done = fc_limit_done,
};

/* 1 if rule a matches every point rule b matches: then b, after a, would
 * never apply (the first matching rule does). */
static int fc_limit_covers(const fc_limit_rule_t *a, const fc_limit_rule_t *b)
{
    return (a->coll == FC_ANY || a->coll == b->coll) &&
           (a->dtype == FC_ANY || a->dtype == b->dtype) &&
           (a->op == FC_ANY || a->op == b->op) &&
           a->min_bytes <= b->min_bytes && a->max_bytes >= b->max_bytes;
}

static fc_status_t fc_limits_read(const fc_yaml_ctx_t *ctx, const fc_yaml_field_t *f,
                                  struct fy_node *k, struct fy_node *v, void *base)
{
    fc_stage_profile_t *sp = base;
    void *iter = NULL;
    struct fy_node *item;

    if (v == NULL || fy_node_get_type(v) != FYNT_SEQUENCE)
        return fc_yaml_error(ctx, v, k, "'limits' must be a list of rules");
    while ((item = fy_node_sequence_iterate(v, &iter)) != NULL) {
        void *it = NULL;
        struct fy_node_pair *first = fy_node_get_type(item) == FYNT_MAPPING
                                         ? fy_node_mapping_iterate(item, &it) : NULL;
        struct fy_node *at = first ? fy_node_pair_key(first) : k;
        fc_limit_rule_t *r;

        if (sp->nlimits == FC_PROFILE_MAX_LIMITS)
            return fc_yaml_error(ctx, item, k, "more than %d limit rules",
                                 FC_PROFILE_MAX_LIMITS);
        r = &sp->limits[sp->nlimits++];
        *r = (fc_limit_rule_t){ FC_ANY, FC_ANY, FC_ANY, 0, UINT64_MAX, -1, -1, 0, 0 };
        fc_yaml_mark(at, &r->line, &r->col);
        FC_CHECK(fc_yaml_walk(ctx, item, k, &fc_limit_section, r));
        /* a rule shadowed by an earlier one is silently dead: refused */
        for (int i = 0; i < sp->nlimits - 1; ++i)
            if (fc_limit_covers(&sp->limits[i], r))
                return fc_yaml_error(ctx, at, k, "this limit rule would never be applied: "
                                     "the rule at line %d, column %d, before it, matches "
                                     "every point it matches, and the first matching rule "
                                     "applies (put the narrower rule first)",
                                     sp->limits[i].line, sp->limits[i].col);
    }
    return FC_OK;
}

/* ---- the other stage keys that need more than a typed field -------------- */

static fc_status_t fc_sizes_read(const fc_yaml_ctx_t *ctx, const fc_yaml_field_t *f,
                                 struct fy_node *k, struct fy_node *v, void *base)
{
    fc_stage_profile_t *sp = base;
    void *iter = NULL;
    struct fy_node *item;

    if (v == NULL || fy_node_get_type(v) != FYNT_SEQUENCE)
        return fc_yaml_error(ctx, v, k, "'sizes' must be a list");
    sp->nsizes = 0;
    while ((item = fy_node_sequence_iterate(v, &iter)) != NULL) {
        if (sp->nsizes == FC_PROFILE_MAX_SIZES)
            return fc_yaml_error(ctx, item, k, "more than %d sizes", FC_PROFILE_MAX_SIZES);
        FC_CHECK(fc_yaml_size(ctx, k, item, "sizes", &sp->sizes[sp->nsizes++]));
    }
    if (sp->nsizes == 0)
        return fc_yaml_error(ctx, v, k, "'sizes' must not be empty");
    return FC_OK;
}

/* Wrong bits are never tolerated: the key stays so that profiles that
 * state it still load, and 0 is its only value. */
static fc_status_t fc_max_wrong_read(const fc_yaml_ctx_t *ctx, const fc_yaml_field_t *f,
                                     struct fy_node *k, struct fy_node *v, void *base)
{
    double d;

    FC_CHECK(fc_yaml_number(ctx, k, v, "max_wrong", 0, 1e18, &d));
    if (d != 0)
        return fc_yaml_error(ctx, v, k, "'max_wrong' is %g; wrong bits are never "
                             "tolerated, its only value is 0", d);
    ((fc_stage_profile_t *)base)->max_wrong = 0;
    return FC_OK;
}

/* ---- a stage's keys ------------------------------------------------------- */

/* relative: its keys are members of the stage's own struct. */
static const fc_yaml_field_t fc_relative_keys[] = {
    FC_KEY_NUMBER("max_below_median_pct", fc_stage_profile_t, max_below_median_pct, 0, 100),
    FC_KEY_SIZE("min_bytes", fc_stage_profile_t, relative_min_bytes),
    FC_KEY_END
};

static const fc_yaml_section_t fc_relative_section = {
    .where = "'relative'", .keys = fc_relative_keys,
};

static const fc_yaml_choice_t fc_backend_choices[] = {
    { "mpi", 0 }, { "nccl", 0 }, { "auto", 0 }, { NULL, 0 },
};

/* mode: the pairs stage's schedule (lib/stage/fc_pairs_schedule.h) */
static const fc_yaml_choice_t fc_pairs_mode_choices[] = {
    { "full", FC_PAIRS_MODE_FULL }, { "sampled", FC_PAIRS_MODE_SAMPLED },
    { "auto", FC_PAIRS_MODE_AUTO }, { NULL, 0 },
};

static const fc_yaml_field_t fc_stage_keys[] = {
    FC_KEY_BOOL("required", fc_stage_profile_t, required),
    FC_KEY_NUMBER("timeout_s", fc_stage_profile_t, timeout_s, 1, 7 * 86400.0),
    FC_KEY_INT("warmup", fc_stage_profile_t, warmup, 0, 1000000,
               .stage_section = FC_SECT_SWEEP),
    FC_KEY_INT("iters", fc_stage_profile_t, iters, 1, 1000000, .stage_section = FC_SECT_SWEEP),
    FC_KEY_FUNC("sizes", fc_sizes_read, .stage_section = FC_SECT_SWEEP),
    FC_KEY_NAMES("collectives", fc_stage_profile_t, colls, ncolls, fc_coll_from_name,
                 .stage_section = FC_SECT_KINDS),
    FC_KEY_NAMES("dtypes", fc_stage_profile_t, dtypes, ndtypes, fc_dtype_from_name,
                 .stage_section = FC_SECT_KINDS),
    FC_KEY_NAMES("ops", fc_stage_profile_t, ops, nops, fc_reduce_op_from_name,
                 .stage_section = FC_SECT_KINDS),
    FC_KEY_FUNC("max_wrong", fc_max_wrong_read),
    { .key = "relative", .type = FC_YAML_MAP, .offset = 0, .section = &fc_relative_section,
      .stage_section = FC_SECT_RELATIVE },
    FC_KEY_FUNC("limits", fc_limits_read, .stage_section = FC_SECT_LIMITS),
    FC_KEY_CHOICE_STRING("backend", fc_stage_profile_t, backend, fc_backend_choices,
                         .stage_section = FC_SECT_BACKEND),
    FC_KEY_MAP("contention", fc_stage_profile_t, cont, &fc_contention_section,
               .stage_section = FC_SECT_CONTENTION),
    FC_KEY_MAP("expect", fc_stage_profile_t, expect, &fc_expect_section,
               .stage_section = FC_SECT_EXPECT),
    FC_KEY_MAP("soak", fc_stage_profile_t, soak, &fc_soak_section,
               .stage_section = FC_SECT_SOAK),
    FC_KEY_MAP("counters", fc_stage_profile_t, counters, &fc_counters_section,
               .stage_section = FC_SECT_COUNTERS),
    FC_KEY_MAP("overlap", fc_stage_profile_t, overlap, &fc_overlap_section,
               .stage_section = FC_SECT_OVERLAP),
    FC_KEY_MAP("scaling", fc_stage_profile_t, scaling, &fc_scaling_section,
               .stage_section = FC_SECT_SCALING),
    FC_KEY_CHOICE("mode", fc_stage_profile_t, pairs_mode, fc_pairs_mode_choices,
                  .stage_section = FC_SECT_PAIRS),
    FC_KEY_INT("partners", fc_stage_profile_t, pairs_partners, 1, 100000,
               .stage_section = FC_SECT_PAIRS),
    FC_KEY_MAP("rails", fc_stage_profile_t, rails, &fc_rails_section,
               .stage_section = FC_SECT_RAILS),
    FC_KEY_END
};

/* Why stage d would never read a key of a section it does not read (the
 * stage table's words), or NULL for a stage's own section (contention:,
 * expect:, soak:), which belongs to another stage. */
static const char *fc_stage_unread_why(const fc_stage_desc_t *d, unsigned section)
{
    switch (section) {
    case FC_SECT_LIMITS: return d->no_limits;
    case FC_SECT_RELATIVE: return d->no_relative;
    case FC_SECT_SWEEP: return d->no_sweep;
    case FC_SECT_KINDS: return d->no_kinds;
    case FC_SECT_BACKEND: return d->no_backend;
    case FC_SECT_COUNTERS: return d->no_counters;
    default: return NULL;
    }
}

/* A stage's own section (contention:, expect:, soak:) is read by that
 * stage's program only: anywhere else it would be accepted and ignored,
 * so it is an error like an unknown key. So is every key the stage table
 * says a stage never reads: limits judge the points of the node, pairs,
 * rack, cluster and soak stages (preflight has no points, contention
 * judges the slowdown); a relative rule compares groups with their peers,
 * and the cluster and soak stages judge one group, the whole job, which
 * has none; preflight sweeps nothing; pairs measures sendrecv of int32
 * whatever collectives, dtypes and ops say; pairs and contention always
 * run on mpi. */
static fc_status_t fc_stage_key_admit(const fc_yaml_ctx_t *ctx, const fc_yaml_field_t *f,
                                      struct fy_node *k)
{
    const fc_stage_desc_t *d = fc_stage_desc((fc_stage_id_t)ctx->stage);
    const char *why = fc_stage_unread_why(d, f->stage_section);
    int owner = ctx->stage;

    if (f->stage_section == 0 || (d->sections & f->stage_section))
        return FC_OK;
    if (why != NULL)
        return fc_yaml_error(ctx, k, k, "'%s' in stage '%s' would never be applied: %s",
                             f->key, d->name, why);
    for (int s = 0; s < FC_STAGE_COUNT; ++s)
        if (fc_stage_desc((fc_stage_id_t)s)->sections & f->stage_section)
            owner = s;
    return fc_yaml_error(ctx, k, k, "'%s' belongs in stage '%s', not in stage '%s', "
                         "where nothing would read it", f->key,
                         fc_stage_name((fc_stage_id_t)owner), d->name);
}

int fc_sweep_min_max_only(const fc_stage_profile_t *sp, int stage)
{
    int all_reduce = sp->ncolls > 0, min_max = sp->nops > 0;

    if (!(fc_stage_desc((fc_stage_id_t)stage)->sections & FC_SECT_KINDS))
        return 0;
    for (int c = 0; c < sp->ncolls; ++c)
        all_reduce &= fc_coll_desc((fc_coll_id_t)sp->colls[c])->reduces;
    for (int o = 0; o < sp->nops; ++o)
        min_max &= sp->ops[o] == FC_OP_MIN || sp->ops[o] == FC_OP_MAX;
    return all_reduce && min_max;
}

static fc_status_t fc_stage_done(const fc_yaml_ctx_t *ctx, struct fy_node *k,
                                 struct fy_node *map, void *base)
{
    const fc_stage_profile_t *sp = base;

    /* partners: shapes the sampled schedule only: under mode: full (the
     * default) it would be read and ignored */
    if (sp->pairs_partners > 0 && sp->pairs_mode == FC_PAIRS_MODE_FULL)
        return fc_yaml_error(ctx, fy_node_mapping_lookup_by_string(map, "partners", FY_NT), k,
                             "'partners' in stage '%s' would never be applied: mode is "
                             "full (every pair is measured); say mode: sampled or auto",
                             fc_stage_name((fc_stage_id_t)ctx->stage));
    /* a reduction by min or max keeps one contribution per element: with
     * nothing else swept, a node that corrupts what it sends is seen only
     * where it holds the winning value (an outside attack: all_reduce max
     * alone PASSed such a node for 3 of 5 elements it was made to flip) */
    if (fc_sweep_min_max_only(sp, ctx->stage)) {
        struct fy_node *ops = fy_node_mapping_lookup_by_string(map, "ops", FY_NT);

        if (ops && fy_node_is_sequence(ops))    /* its first name, for the line */
            ops = fy_node_sequence_get_by_index(ops, 0);
        return fc_yaml_error(ctx, ops, k,
                             "stage '%s' sweeps only reductions by min or max: each "
                             "element keeps one rank's contribution, so wrong bits sent "
                             "by the others would never be seen; add sum or prod to "
                             "'ops', or a collective that moves data (all_gather, "
                             "broadcast, all_to_all, sendrecv)",
                             fc_stage_name((fc_stage_id_t)ctx->stage));
    }
    if (fc_stage_desc((fc_stage_id_t)ctx->stage)->sections & FC_SECT_SOAK)
        return fc_soak_stage_check(ctx, k, base);
    return FC_OK;
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
    fc_contention_defaults(&sp->cont);
    fc_expect_defaults(&sp->expect);
    fc_soak_defaults(&sp->soak);
    fc_counters_defaults(&sp->counters);
    fc_overlap_defaults(&sp->overlap);
    fc_scaling_defaults(&sp->scaling);
    fc_rails_defaults(&sp->rails);
}

/* ---- stages: -------------------------------------------------------------- */

const char *fc_profile_stage_list(void)
{
    static char list[256];

    list[0] = '\0';
    for (int s = 0; s < FC_STAGE_COUNT; ++s)
        snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
                 s ? ", " : "", fc_stage_name((fc_stage_id_t)s));
    return list;
}

fc_status_t fc_profile_stages_read(const fc_yaml_ctx_t *ctx, const fc_yaml_field_t *f,
                                   struct fy_node *k, struct fy_node *v, void *base)
{
    fc_profile_t *profile = base;
    void *iter = NULL;
    struct fy_node *sk, *sv;
    char name[128], where[160];
    int named = 0;

    for (;;) {
        fc_yaml_ctx_t stage_ctx = *ctx;
        fc_yaml_section_t sec = {
            .where = where, .keys = fc_stage_keys, .admit = fc_stage_key_admit,
            .done = fc_stage_done,
        };
        fc_stage_profile_t *sp;

        FC_CHECK(fc_yaml_map_next(ctx, v, k, "'stages'", &iter, name, sizeof(name), &sk, &sv));
        if (sk == NULL)
            break;
        if ((stage_ctx.stage = fc_stage_from_name(name)) < 0)
            return fc_yaml_unknown_key(ctx, sk, name, "'stages'", fc_profile_stage_list());
        sp = &profile->stages[stage_ctx.stage];
        fc_stage_defaults(sp);
        sp->present = 1;
        fc_yaml_mark(sk, &sp->line, &sp->col);
        named = 1;
        snprintf(where, sizeof(where), "stage '%s'", name);
        FC_CHECK(fc_yaml_walk(&stage_ctx, sv, sk, &sec, sp));
    }
    if (!named)     /* `run` would have nothing to run */
        return fc_yaml_error(ctx, NULL, k, "'stages' names no stage: a profile names "
                             "at least one of %s", fc_profile_stage_list());
    return FC_OK;
}
