/*
 * fc_profile_contention.c - the contention stage's own section: how the
 * slowdown is judged, how ranks are split between measuring and
 * generating, and one section per kind of background traffic
 * (lib/background/fc_background.h). The kinds' sections are one table,
 * fc_bg_kind_keys, made from the kinds' list (lib/background/fc_bg_kinds.h): each
 * row is the kind's name under contention:, its keys (the pace every kind
 * keeps, and its own, tables below) and its defaults. A key one kind does
 * not read is refused under it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_inventory.h"
#include "fc_profile_sections.h"

/* ---- the background kinds ------------------------------------------------- */

/* Named, so the kind runs: a kind the profile does not name is off. */
static fc_status_t fc_bg_kind_enable(const fc_yaml_ctx_t *ctx, struct fy_node *k,
                                     struct fy_node *map, void *base)
{
    ((fc_bg_profile_t *)base)->enabled = 1;
    return FC_OK;
}

/* The pace every kind keeps: block size, rate, bursts. */
#define FC_BG_RATE_KEYS                                                        \
    FC_KEY_SIZE("block", fc_bg_profile_t, block),                              \
    FC_KEY_NUMBER("rate_mbps", fc_bg_profile_t, rate_mbps, 0.001, 1e7),        \
    FC_KEY_NUMBER("duty", fc_bg_profile_t, duty, 0.01, 1),                     \
    FC_KEY_NUMBER("period_s", fc_bg_profile_t, period_s, 0.05, 60)

static const fc_yaml_choice_t fc_bg_placement_choices[] = {
    { "cross-rack", 1 }, { "any", 0 }, { NULL, 0 },
};

static const fc_yaml_choice_t fc_bg_pattern_choices[] = {
    { "all_to_all", 0 }, { "permutation", 1 }, { NULL, 0 },
};

/* A kind that reads the pace alone (fc_bg_kinds.h names it). */
static const fc_yaml_field_t fc_bg_rate_keys[] __attribute__((unused)) = {
    FC_BG_RATE_KEYS,
    FC_KEY_END
};

static const fc_yaml_field_t fc_bg_storage_file_keys[] = {
    FC_BG_RATE_KEYS,
    FC_KEY_BOOL("direct", fc_bg_profile_t, direct),
    FC_KEY_END
};

static const fc_yaml_field_t fc_bg_storage_net_keys[] = {
    FC_BG_RATE_KEYS,
    FC_KEY_INT("targets", fc_bg_profile_t, targets, 1, 100000),
    FC_KEY_CHOICE("placement", fc_bg_profile_t, cross_rack, fc_bg_placement_choices),
    FC_KEY_END
};

static const fc_yaml_field_t fc_bg_tenant_keys[] = {
    FC_BG_RATE_KEYS,
    FC_KEY_CHOICE("pattern", fc_bg_profile_t, permutation, fc_bg_pattern_choices),
    FC_KEY_END
};

/* A kind's row: its section under contention:, read into kinds[kind],
 * and its defaults (block bytes and duty; the others alike). */
#define FC_BG_KIND_KEY(kind, name, keys_, block_, duty_)                              \
    [kind] = {                                                                       \
        .key = (name), .type = FC_YAML_MAP,                                          \
        .offset = offsetof(fc_contention_profile_t, kinds[kind]),                    \
        .len = sizeof(fc_bg_profile_t),                                              \
        .section = &(const fc_yaml_section_t){ .where = (name), .keys = (keys_),     \
                                               .done = fc_bg_kind_enable },          \
        .defaults = &(const fc_bg_profile_t){ .block = (block_), .rate_mbps = 100,   \
                                              .duty = (duty_), .period_s = 0.5,      \
                                              .targets = 1, .cross_rack = 1,         \
                                              .direct = 1 },                         \
    }

static const fc_yaml_field_t fc_bg_kind_keys[FC_BG_KINDS + 1] = {
#define FC_BG_KIND_ROW(id, name, keys, block, duty) \
    FC_BG_KIND_KEY(FC_BG_##id, #name, keys, block, duty),
    FC_BG_KIND_LIST(FC_BG_KIND_ROW)
#undef FC_BG_KIND_ROW
    [FC_BG_KINDS] = FC_KEY_END
};

const char *fc_bg_kind_name(int kind)
{
    return kind >= 0 && kind < FC_BG_KINDS && fc_bg_kind_keys[kind].key
           ? fc_bg_kind_keys[kind].key : "?";
}

/* ---- contention: ---------------------------------------------------------- */

/* 0 would certify a background that was never proven to load. */
static fc_status_t fc_cont_min_background_check(const fc_yaml_ctx_t *ctx,
                                                const fc_yaml_field_t *f, struct fy_node *k,
                                                struct fy_node *v, void *base)
{
    if (((fc_contention_profile_t *)base)->min_background_pct <= 0)
        return fc_yaml_error(ctx, v, k, "'min_background_pct' is 0: the background "
                             "load must be proven, so give the share of its target "
                             "it must reach (above 0, up to 100)");
    return FC_OK;
}

/* A hostlist that expands, to at least one host (the inventory checks
 * later that each is in it). */
static fc_status_t fc_cont_background_hosts_check(const fc_yaml_ctx_t *ctx,
                                                  const fc_yaml_field_t *f,
                                                  struct fy_node *k, struct fy_node *v,
                                                  void *base)
{
    const fc_contention_profile_t *c = base;
    char (*names)[FC_INV_NAME_MAX] = NULL, err[256];
    int n = 0;

    if (fc_hostlist_expand(c->background_hosts, &names, &n, err, sizeof(err)) != FC_OK)
        return fc_yaml_error(ctx, v, k, "'background_hosts': %s", err);
    free(names);
    if (n == 0)
        return fc_yaml_error(ctx, v, k, "'background_hosts' names no host");
    return FC_OK;
}

static fc_status_t fc_cont_done(const fc_yaml_ctx_t *ctx, struct fy_node *k,
                                struct fy_node *map, void *base)
{
    const fc_contention_profile_t *c = base;

    if (c->kinds[FC_BG_STORAGE_FILE].enabled && c->storage_dir[0] == '\0')
        return fc_yaml_error(ctx, map, k, "storage_file traffic needs 'storage_dir'");
    return FC_OK;
}

static const fc_yaml_choice_t fc_cont_scope_choices[] = {
    { "cluster", 0 }, { "rack", 1 }, { NULL, 0 },
};

static const fc_yaml_field_t fc_cont_keys[] = {
    FC_KEY_CHOICE("scope", fc_contention_profile_t, scope_rack, fc_cont_scope_choices),
    FC_KEY_NUMBER("max_slowdown", fc_contention_profile_t, max_slowdown, 1, 1e9),
    FC_KEY_NUMBER("min_background_pct", fc_contention_profile_t, min_background_pct, 0, 100,
                  .check = fc_cont_min_background_check),
    FC_KEY_INT("foreground_ranks_per_node", fc_contention_profile_t, fg_per_node, 1, 1024),
    FC_KEY_INT("background_ranks_per_node", fc_contention_profile_t, bg_per_node, 1, 1024),
    FC_KEY_STRING("storage_dir", fc_contention_profile_t, storage_dir, "a directory"),
    FC_KEY_INCLUDE(fc_bg_kind_keys),    /* one section per kind (fc_bg_kinds.h) */
    FC_KEY_NUMBER("phase_s", fc_contention_profile_t, phase_s, 0.2, 600),
    FC_KEY_STRING("background_hosts", fc_contention_profile_t, background_hosts,
                  "a Slurm hostlist such as gpu[01-04]",
                  .check = fc_cont_background_hosts_check),
    FC_KEY_END
};

const fc_yaml_section_t fc_contention_section = {
    .where = "'contention'", .keys = fc_cont_keys,
    .done = fc_cont_done,
};

void fc_contention_defaults(fc_contention_profile_t *c)
{
    c->max_slowdown = -1;
    c->min_background_pct = 50;
    c->phase_s = 1.5;
    c->fg_per_node = 1;
    c->bg_per_node = 1;
    fc_yaml_defaults(fc_cont_keys, c);
}
