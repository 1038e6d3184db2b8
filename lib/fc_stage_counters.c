/*
 * fc_stage_counters.c - see fc_stage_counters.h. The node's lowest rank is
 * local rank 0; its delta travels to rank 0 through fc_stage_gather_json,
 * and rank 0 files it under the rank's host.
 */
#include "fc_stage_counters.h"

#include <string.h>

#include "fc_counters_interval.h"
#include "fc_stages.h"

static int fc_stage_ival_reads(const fc_stage_ctx_t *ctx)
{
    return (fc_stage_desc(ctx->stage)->sections & FC_SECT_COUNTERS) && ctx->sp.counters.read;
}

void fc_stage_ival_open(const fc_stage_ctx_t *ctx, fc_stage_ival_t *iv)
{
    iv->before = NULL;
    if (fc_stage_ival_reads(ctx) && ctx->local_rank == 0)
        iv->before = fc_interval_snapshot(ctx->sp.counters.nic_pattern);
}

json_t *fc_stage_ival_close(const fc_stage_ctx_t *ctx, fc_stage_ival_t *iv)
{
    json_t *mine = NULL, *all, *by_host, *hosts, *group, *d;
    size_t r;

    if (!fc_stage_ival_reads(ctx))
        return NULL;
    if (iv->before != NULL) {
        json_t *after = fc_interval_snapshot(ctx->sp.counters.nic_pattern);

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
    hosts = json_array();
    for (r = 0; r < (size_t)ctx->world_size; ++r) {
        const char *h = ctx->rank_hosts[r];
        int seen = 0;
        size_t i;

        json_array_foreach(hosts, i, d)
            seen |= strcmp(json_string_value(d), h) == 0;
        if (!seen)
            json_array_append_new(hosts, json_string(h));
        d = json_array_get(all, r);
        if (json_is_object(d) && json_object_get(by_host, h) == NULL)
            json_object_set(by_host, h, d);
    }
    group = fc_interval_group(by_host, hosts, ctx->sp.counters.nic_pattern);
    json_decref(by_host);
    json_decref(hosts);
    json_decref(all);
    return group;
}
