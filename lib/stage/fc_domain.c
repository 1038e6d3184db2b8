/*
 * fc_domain.c - the NVLink domain stages' body (fc_domain.h): each rank
 * asks the GPU plugin which NVLink fabric clique its GPU is in, rank 0
 * judges each rack's GPUs together (fc_domain_judge) and writes an
 * nvlink_domain record and TAP line per rack; then the profile's sweep runs
 * on each rack at once (fc_stage_run_sweep), with NCCL_MNNVL_ENABLE as the
 * stage table set it for this program (fc_stage_init).
 */
#include "fc_stage.h"

#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_ctl.h"
#include "fc_domain.h"
#include "fc_log.h"

/* This rank's reading: the plugin's answer, or why there is none. */
static void fc_domain_read(const fc_stage_ctx_t *ctx, fc_domain_member_t *me)
{
    memset(me, 0, sizeof(*me));
    snprintf(me->host, sizeof(me->host), "%s", ctx->host);
    me->local_rank = ctx->local_rank;
    if (ctx->gpu == NULL || ctx->gpu->fabric_func == NULL) {
        me->read = FC_ERR_SKIP;
        snprintf(me->why, sizeof(me->why), "%s", ctx->gpu == NULL ? "no GPU plugin"
                 : "the GPU plugin has no fabric query (built before ABI 5)");
        return;
    }
    me->read = ctx->gpu->fabric_func(ctx->local_rank, &me->fabric, me->why, sizeof(me->why));
}

/* Rank 0: one rack's record and TAP line. */
static void fc_domain_report(fc_stage_ctx_t *ctx, const fc_domain_member_t *m, int n,
                             const char *rack)
{
    json_t *body = fc_domain_judge(m, n, rack), *rec = fc_stage_record(ctx, "nvlink_domain");
    const char *verdict = json_string_value(json_object_get(body, "verdict"));
    int pass = strcmp(verdict, "PASS") == 0;
    json_t *cl = json_array_get(json_object_get(body, "cliques"), 0);

    json_object_update(rec, body);
    json_decref(body);
    if (!pass)
        fc_stage_count_not_pass(ctx, rec);
    fc_tap_point(&ctx->tap, pass ? FC_OK : FC_ERR_FAIL, "NVLink domain of rack %s: %d GPU(s) "
                 "in %zu clique(s)%s%s%s", rack, n,
                 json_array_size(json_object_get(rec, "cliques")), cl ? " (clique " : "",
                 cl ? json_string_value(json_object_get(cl, "cluster_uuid")) : "",
                 cl ? ")" : "");
    fc_results_append(&ctx->results, rec);
}

/* Every rank's reading to rank 0, which judges each rack. */
static void fc_domain_cliques(fc_stage_ctx_t *ctx)
{
    fc_domain_member_t me, *all = NULL, *rack_m = NULL;

    fc_domain_read(ctx, &me);
    if (me.read != FC_OK)
        fc_log_info("NVLink fabric of local rank %d not read: %s", me.local_rank, me.why);
    if (ctx->world_rank == 0) {
        all = fc_xcalloc((size_t)ctx->world_size, sizeof(*all), "the ranks' fabric readings");
        rack_m = fc_xcalloc((size_t)ctx->world_size, sizeof(*rack_m), "a rack's readings");
    }
    fc_ctl_gather(MPI_COMM_WORLD, 0, "the ranks' NVLink fabric readings", &me, sizeof(me), all);
    for (int r = 0; ctx->world_rank == 0 && r < ctx->world_size; ++r)
        fc_ctl_check(fc_ctl_str_ok(all[r].host, sizeof(all[r].host)) &&
                     fc_ctl_str_ok(all[r].why, sizeof(all[r].why)) && all[r].local_rank >= 0 &&
                     all[r].local_rank < ctx->world_size && all[r].read >= FC_OK &&
                     all[r].read <= FC_ERR_INTERNAL, "the ranks' NVLink fabric readings", r,
                     "local rank %d, status %d", all[r].local_rank, all[r].read);
    for (int k = 0; ctx->world_rank == 0 && k < ctx->inv.nracks; ++k) {
        int n = 0;

        for (int r = 0; r < ctx->world_size; ++r)
            if (ctx->rank_racks[r] == k)
                rack_m[n++] = all[r];
        if (n > 0)
            fc_domain_report(ctx, rack_m, n, ctx->inv.racks[k]);
    }
    free(all);
    free(rack_m);
}

fc_status_t fc_domain_run(fc_stage_ctx_t *ctx, int check_cliques)
{
    MPI_Comm rack;
    fc_status_t status;

    if ((status = fc_stage_split_by_rack(ctx, &rack)) != FC_OK)
        return status;
    if (check_cliques && !ctx->skip_reason[0])
        fc_domain_cliques(ctx);
    status = fc_stage_run_sweep(ctx, rack);
    MPI_Comm_free(&rack);
    return status;
}
