/*
 * fc_stage_counters.c - see fc_stage_counters.h. The node's lowest rank is
 * local rank 0; its delta travels to rank 0 through fc_stage_gather_json,
 * and rank 0 files it under the rank's host.
 */
#include "fc_stage_counters.h"

#include <string.h>

#include "fc_counters_check.h"
#include "fc_counters_interval.h"
#include "fc_stages.h"

void fc_stage_ival_open_links(const fc_stage_ctx_t *ctx, fc_stage_ival_t *iv,
                              const char *nic_pattern)
{
    iv->nic_pattern = nic_pattern;
    iv->on = 1;
    iv->before = NULL;
    if (ctx->local_rank == 0)
        iv->before = fc_interval_snapshot(nic_pattern);
}

void fc_stage_ival_open(const fc_stage_ctx_t *ctx, fc_stage_ival_t *iv)
{
    if ((fc_stage_desc(ctx->stage)->sections & FC_SECT_COUNTERS) && ctx->sp.counters.read) {
        fc_stage_ival_open_links(ctx, iv, ctx->sp.counters.nic_pattern);
    } else {
        iv->nic_pattern = ctx->sp.counters.nic_pattern;
        iv->on = 0;
        iv->before = NULL;
    }
}

json_t *fc_stage_ival_close_hosts(const fc_stage_ctx_t *ctx, fc_stage_ival_t *iv)
{
    json_t *mine = NULL, *all, *by_host, *d;

    if (!iv->on)
        return NULL;
    if (iv->before != NULL) {
        json_t *after = fc_interval_snapshot(iv->nic_pattern);

        mine = fc_interval_delta(iv->before, after);
        json_decref(after);
        json_decref(iv->before);
        iv->before = NULL;
    }
    all = fc_stage_gather_json(mine, MPI_COMM_WORLD);
    json_decref(mine);
    if (all == NULL)
        return NULL;
    by_host = json_object();
    for (size_t r = 0; r < (size_t)ctx->world_size; ++r) {
        const char *h = ctx->rank_hosts[r];

        d = json_array_get(all, r);
        if (json_is_object(d) && json_object_get(by_host, h) == NULL)
            json_object_set(by_host, h, d);
    }
    json_decref(all);
    return by_host;
}

/* Rank 0: the group of the world ranks r with rank_first[r] == first
 * (every rank when rank_first is NULL). */
json_t *fc_stage_ival_group(const fc_stage_ctx_t *ctx, const fc_stage_ival_t *iv,
                            const json_t *by_host, const int *rank_first, int first)
{
    json_t *hosts, *group, *d, *rph;

    if (by_host == NULL)
        return NULL;
    hosts = json_array();
    rph = json_object();
    for (int r = 0; r < ctx->world_size; ++r) {
        const char *h = ctx->rank_hosts[r];
        int seen = 0;
        size_t i;

        if (rank_first != NULL && rank_first[r] != first)
            continue;
        json_array_foreach(hosts, i, d)
            seen |= strcmp(json_string_value(d), h) == 0;
        if (!seen)
            json_array_append_new(hosts, json_string(h));
        json_object_set_new(rph, h, json_integer(
            json_integer_value(json_object_get(rph, h)) + 1));
    }
    group = fc_interval_group(by_host, hosts, iv->nic_pattern);
    json_object_set_new(group, "ranks_per_host", rph);
    json_decref(hosts);
    return group;
}

json_t *fc_stage_ival_close(const fc_stage_ctx_t *ctx, fc_stage_ival_t *iv)
{
    json_t *by_host = fc_stage_ival_close_hosts(ctx, iv), *group;

    group = fc_stage_ival_group(ctx, iv, by_host, NULL, 0);
    json_decref(by_host);
    return group;
}

json_t *fc_stage_ival_judged(const fc_stage_ctx_t *ctx, const json_t *counters, int r)
{
    json_t *c = json_deep_copy(counters), *rph = json_object();
    const char *group = fc_stage_group_name(ctx, r);

    for (int q = 0; q < ctx->world_size; ++q)
        if (strcmp(fc_stage_group_name(ctx, q), group) == 0 &&
            (!ctx->rank_measures || ctx->rank_measures[q]))
            json_object_set_new(rph, ctx->rank_hosts[q], json_integer(
                json_integer_value(json_object_get(rph, ctx->rank_hosts[q])) + 1));
    json_object_set_new(c, "ranks_per_host", rph);
    json_object_set_new(c, "limits", fc_counters_limits_json(&ctx->sp.counters));
    return c;
}
