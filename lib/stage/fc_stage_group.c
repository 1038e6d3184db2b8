/*
 * fc_stage_group.c - see fc_stage.h: the name and the rack of a rank's
 * group (its host, its rack, or the cluster), by the stage's grouping. A
 * leaf: the world sets the grouping up, the records and the wrong-result
 * findings name groups by it.
 */
#include "fc_stage.h"

const char *fc_stage_group_name(const fc_stage_ctx_t *ctx, int r)
{
    switch (ctx->grouping) {
    case FC_GROUP_HOST: return ctx->rank_hosts[r];
    case FC_GROUP_RACK: return ctx->inv.racks[ctx->rank_racks[r]];
    default: return "cluster";
    }
}

const char *fc_stage_group_rack(const fc_stage_ctx_t *ctx, int r)
{
    return ctx->grouping == FC_GROUP_ALL ? "" : ctx->inv.racks[ctx->rank_racks[r]];
}
