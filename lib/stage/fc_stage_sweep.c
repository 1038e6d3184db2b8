/*
 * fc_stage_sweep.c - a sweep stage's loop (node, rack, cluster): every
 * point on every group at once, judged on rank 0, a timing failure
 * confirmed alone (fc_stage_confirm.h), then written. One set of buffers
 * serves every point. Where the stage reads counters (rack, cluster), each
 * point's record carries the link counters of its group's nodes over the
 * point's measured run (fc_stage_counters.h), read before and after the
 * run and not over its confirmation.
 */
#include "fc_stage.h"

#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_counters_check.h"
#include "fc_ctl.h"
#include "fc_ctl_check.h"
#include "fc_judge.h"
#include "fc_log.h"
#include "fc_stage_confirm.h"
#include "fc_stage_counters.h"
#include "fc_stage_int.h"

fc_status_t fc_stage_run_sweep(fc_stage_ctx_t *ctx, MPI_Comm group)
{
    fc_engine_ident_t ident = { ctx->world_rank, ctx->host, fc_stage_comm_hosts(ctx, group) };
    fc_point_summary_t mine, *all = NULL;
    fc_judgement_t *js = NULL;
    json_t **extra = NULL, **ctrs = NULL;  /* rank 0: each group's record additions */
    fc_backend_t be;
    fc_engine_bufs_t bufs;          /* one set of buffers for every point */
    fc_status_t status = FC_OK;
    int ngroups_max = ctx->world_size, npoints, my_first = ctx->world_rank;
    fc_test_point_t *points = NULL;
    int *rank_first = NULL;         /* rank 0: each world rank's group */

    if (ctx->skip_reason[0])
        return FC_ERR_SKIP;
    if ((status = fc_stage_open_backend(ctx, group, &be)) != FC_OK) {
        fc_error("stage %s: the %s backend could not start on this rank (%s); "
                 "nothing was measured", fc_stage_name(ctx->stage), ctx->opts.backend,
                 fc_status_str(status));
        return status;
    }
    /* names this rank's group */
    fc_ctl_bcast_ints(group, 0, "the group's first rank", &my_first, 1, 0, ctx->world_size - 1);
    if (ctx->world_rank == 0)
        rank_first = fc_xcalloc((size_t)ngroups_max, sizeof(int), "the ranks' groups");
    fc_ctl_gather_ints(MPI_COMM_WORLD, 0, "the ranks' groups", &my_first, 1, rank_first, 0,
                       ctx->world_size - 1);
    fc_engine_bufs_init(&bufs);
    if (ctx->world_rank == 0) {
        all = fc_xcalloc((size_t)ngroups_max, sizeof(*all), "the groups' summaries");
        js = fc_xcalloc((size_t)ngroups_max, sizeof(*js), "the groups' judgements");
        extra = fc_xcalloc((size_t)ngroups_max, sizeof(*extra), "the groups' extra records");
        ctrs = fc_xcalloc((size_t)ngroups_max, sizeof(*ctrs), "the groups' counters");
    }
    npoints = fc_stage_points(ctx, &points);
    for (int i = 0; i < npoints; ++i) {
        const fc_test_point_t *pt = &points[i];
        char what[128];
        int ngroups = 0;
        fc_stage_ival_t ival;
        json_t *by_host;

        fc_point_label(pt, what, sizeof(what));
        fc_stage_progress(ctx, i, what);
        fc_stage_ival_open(ctx, &ival);
        status = fc_status_worst(status, fc_engine_run_point(&be, pt, &ctx->opts.selftest,
                                                             &ident, &bufs, &mine));
        by_host = fc_stage_ival_close_hosts(ctx, &ival);
        if (be.rank != 0)
            mine.valid = 0;
        /* a group done first waits quietly beside those still measuring */
        fc_stage_gather_summaries("the points' summaries", &mine, all);
        if (ctx->world_rank == 0) {
            for (int r = 0; r < ctx->world_size; ++r)
                if (all[r].valid)
                    all[ngroups++] = all[r];
            fc_judge_point_kind(&ctx->sp, pt, all, ngroups,
                                ctx->grouping == FC_GROUP_HOST ? "node" :
                                ctx->grouping == FC_GROUP_RACK ? "rack" : "group", js);
            for (int g = 0; g < ngroups && by_host != NULL; ++g) {
                json_t *c = fc_stage_ival_group(ctx, &ival, by_host, rank_first,
                                                all[g].first_world_rank);

                /* judged with the record (fc_stage_records.c) */
                if (c != NULL)
                    json_object_set_new(c, "limits",
                                        fc_counters_limits_json(&ctx->sp.counters));
                ctrs[g] = json_pack("{s:o}", "counters", c);
            }
        }
        json_decref(by_host);
        /* a timing failure is re-measured alone before it is believed */
        fc_stage_confirm_point(ctx, &be, &bufs, my_first, &ident, i, pt, all, js, ngroups,
                               extra);
        if (ctx->world_rank != 0)
            continue;
        for (int g = 0; g < ngroups; ++g)
            if (ctrs[g] != NULL) {
                if (extra[g] == NULL)
                    extra[g] = json_object();
                json_object_update(extra[g], ctrs[g]);
            }
        fc_stage_report_judged(ctx, pt, all, js, ngroups, extra);
        for (int g = 0; g < ngroups; ++g) {
            json_decref(extra[g]);
            json_decref(ctrs[g]);
            extra[g] = ctrs[g] = NULL;
        }
    }
    free(points);
    free(rank_first);
    free(all);
    free(js);
    free(extra);
    free(ctrs);
    fc_engine_bufs_free(&be, &bufs);
    be.ops->fini_func(&be);
    return status;
}
