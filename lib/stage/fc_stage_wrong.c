/*
 * fc_stage_wrong.c - see fc_stage_wrong.h. The group's hosts and racks are
 * read from the stage's rank table: the ranks whose group (under the
 * stage's grouping) is that of rank r.
 */
#include "fc_stage_wrong.h"

#include <stdio.h>
#include <string.h>

int fc_stage_wrong_result(const fc_point_summary_t *s)
{
    return s->wrong > 0 || !s->digest_ranks_agree || !s->digest_reps_agree;
}

static int fc_json_has(json_t *array, const char *s)
{
    size_t i;
    json_t *v;

    json_array_foreach(array, i, v)
        if (strcmp(json_string_value(v), s) == 0)
            return 1;
    return 0;
}

void fc_stage_group_members(const fc_stage_ctx_t *ctx, int r, json_t *hosts, json_t *racks)
{
    const char *group = fc_stage_group_name(ctx, r);

    for (int q = 0; q < ctx->world_size; ++q) {
        const char *rack = ctx->inv.racks[ctx->rank_racks[q]];

        if (strcmp(fc_stage_group_name(ctx, q), group) != 0 ||
            (ctx->rank_measures && !ctx->rank_measures[q]))
            continue;
        if (!fc_json_has(hosts, ctx->rank_hosts[q]))
            json_array_append_new(hosts, json_string(ctx->rank_hosts[q]));
        if (!fc_json_has(racks, rack))
            json_array_append_new(racks, json_string(rack));
    }
}

json_t *fc_stage_wrong_implicates(const fc_stage_ctx_t *ctx, int r)
{
    json_t *hosts = json_array(), *racks = json_array();
    int one_host, one_rack;

    fc_stage_group_members(ctx, r, hosts, racks);
    one_host = json_array_size(hosts) == 1;
    one_rack = json_array_size(racks) == 1;
    return json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:b, s:b}",
                     "part", one_host ? "node" : "group",
                     "host", one_host ? json_string_value(json_array_get(hosts, 0)) : "",
                     "rack", one_rack ? json_string_value(json_array_get(racks, 0)) : "",
                     "group", fc_stage_group_name(ctx, r), "hosts", hosts, "racks", racks,
                     "quarantine", 0, "localised", 0);
}

json_t *fc_stage_slow_implicates(const fc_stage_ctx_t *ctx, int r)
{
    json_t *imp = fc_stage_wrong_implicates(ctx, r);

    json_object_set_new(imp, "kind", json_string("slow"));
    return imp;
}

void fc_stage_pending_text(const fc_stage_ctx_t *ctx, int r, const char *what, char *buf,
                           size_t len)
{
    json_t *hosts = json_array(), *racks = json_array();
    size_t n;

    fc_stage_group_members(ctx, r, hosts, racks);
    n = json_array_size(hosts);
    snprintf(buf, len, "%s in %s (%zu host%s), not yet localised", what,
             fc_stage_group_name(ctx, r), n, n == 1 ? "" : "s");
    json_decref(hosts);
    json_decref(racks);
}
