/*
 * fc_stage_backend.c - which backend a stage measures on, and opening it:
 * mpi, or the GPU plugin's nccl when every rank that needs one has the
 * plugin and a GPU (the contention stage: its foreground ranks alone),
 * else the reason it cannot (--backend auto falls back to mpi and says
 * why; --backend nccl skips the stage; a stage that measures on nccl
 * alone, the NVLink domain, skips on mpi). The stage_start record names the
 * plugin that measured (its path and SHA-256), and opening the backend on
 * nccl writes the devices record naming every member's GPU. The choice
 * is made once at start-up (fc_stage_init, fc_stage_world.c); each stage
 * program opens the backend on its own groups.
 */
#include "fc_stage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sodium.h>

#include "fc_alloc.h"
#include "fc_contention_role.h"
#include "fc_ctl.h"
#include "fc_stage_int.h"

/* --backend nccl or auto: every rank must have the GPU plugin and a GPU
 * (the contention stage: every foreground rank; its background stays on
 * MPI). nccl without them skips the stage (with the reason of the first
 * rank that lacks them); auto falls back to mpi and says why. The pairs
 * stage measures the network between hosts and uses MPI. */
void fc_stage_choose_backend(fc_stage_ctx_t *ctx)
{
    char why[512] = "";
    const fc_gpu_plugin_t *pl = NULL;
    int ok, first_bad, mine, needs = 1;
    int wants_gpu;

    if (ctx->opts.backend[0] == '\0')
        snprintf(ctx->opts.backend, sizeof(ctx->opts.backend), "%s", ctx->sp.backend);
    snprintf(ctx->backend_requested, sizeof(ctx->backend_requested), "%s",
             ctx->opts.backend[0] ? ctx->opts.backend : "mpi");
    wants_gpu = strcmp(ctx->opts.backend, "mpi") != 0 && fc_stage_desc(ctx->stage)->gpu_capable;
    if (!wants_gpu && fc_stage_desc(ctx->stage)->gpu_only) {
        /* its figure is NVLink's: on host memory it would measure the
         * rack stage again and pass for the NVLink domain */
        snprintf(ctx->skip_reason, sizeof(ctx->skip_reason), "the %s stage measures the "
                 "NVLink domain through NCCL; backend %s cannot reach it (run it with "
                 "--backend nccl)", fc_stage_name(ctx->stage), ctx->backend_requested);
        snprintf(ctx->opts.backend, sizeof(ctx->opts.backend), "mpi");
        return;
    }
    if (!wants_gpu) {
        if (strcmp(ctx->backend_requested, "mpi") != 0)
            snprintf(ctx->backend_note, sizeof(ctx->backend_note), "the %s stage measures "
                     "the network between hosts: mpi, not %s", fc_stage_name(ctx->stage),
                     ctx->backend_requested);
        snprintf(ctx->opts.backend, sizeof(ctx->opts.backend), "mpi");
        return;
    }
    if (fc_stage_desc(ctx->stage)->gpu_foreground_only)
        needs = fc_contention_role(&ctx->sp.cont, ctx->host, ctx->local_rank) == FC_ROLE_FG;
    pl = fc_plugin_load(why, sizeof(why));
    ok = !needs || (pl != NULL && pl->device_count_func(why, sizeof(why)) > 0);
    mine = ok ? ctx->world_size : ctx->world_rank;
    fc_ctl_allreduce(MPI_COMM_WORLD, "the first rank without a GPU backend", FC_CTL_INT,
                     FC_CTL_MIN, &mine, &first_bad, 1);
    fc_ctl_check(first_bad >= 0 && first_bad <= ctx->world_size, "the first rank without a "
                 "GPU backend", -1, "rank %d of %d", first_bad, ctx->world_size);
    if (first_bad == ctx->world_size) {
        ctx->gpu = pl;
        snprintf(ctx->opts.backend, sizeof(ctx->opts.backend), "nccl");
        return;
    }
    fc_ctl_bcast_str(MPI_COMM_WORLD, first_bad, "why a rank has no GPU backend", why,
                     sizeof(why));
    if (strcmp(ctx->opts.backend, "auto") == 0)
        snprintf(ctx->backend_note, sizeof(ctx->backend_note), "--backend auto: "
                 "using mpi, as host %s (rank %d) cannot use nccl: %s",
                 ctx->rank_hosts[first_bad], first_bad, why);
    else
        snprintf(ctx->skip_reason, sizeof(ctx->skip_reason), "--backend nccl: host "
                 "%s (rank %d) cannot run it: %s", ctx->rank_hosts[first_bad],
                 first_bad, why);
    snprintf(ctx->opts.backend, sizeof(ctx->opts.backend), "mpi");
}

/* The SHA-256 of a file's bytes as hex, "" when it cannot be read. */
static void fc_stage_file_sha256(const char *path, char hex[2 * crypto_hash_sha256_BYTES + 1])
{
    unsigned char digest[crypto_hash_sha256_BYTES], chunk[65536];
    crypto_hash_sha256_state hs;
    FILE *f = fopen(path, "rb");
    size_t n;

    hex[0] = '\0';
    if (f == NULL)
        return;
    crypto_hash_sha256_init(&hs);
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        crypto_hash_sha256_update(&hs, chunk, n);
    fclose(f);
    crypto_hash_sha256_final(&hs, digest);
    sodium_bin2hex(hex, 2 * crypto_hash_sha256_BYTES + 1, digest, sizeof(digest));
}

/* The GPU plugin that ran: its path, whether it is the one built beside
 * the program, and the SHA-256 of its bytes; for one from elsewhere
 * ($FABCERT_GPU_PLUGIN), the SHA-256 of the one built beside the program
 * too, where there is one, so the report can say they differ. */
json_t *fc_stage_plugin_json(void)
{
    char hex[2 * crypto_hash_sha256_BYTES + 1], built[4096];
    int bundled = 0;
    const char *path = fc_plugin_path(&bundled);
    json_t *j;

    fc_stage_file_sha256(path, hex);
    j = json_pack("{s:s, s:b, s:s}", "path", path, "beside_program", bundled, "sha256", hex);
    fc_plugin_built_path(built, sizeof(built));
    if (!bundled && access(built, R_OK) == 0) {
        fc_stage_file_sha256(built, hex);
        json_object_set_new(j, "built", json_pack("{s:s, s:s}", "path", built, "sha256", hex));
    }
    return j;
}

fc_status_t fc_stage_open_backend(fc_stage_ctx_t *ctx, MPI_Comm group, fc_backend_t *be_p)
{
    return fc_stage_open_backend_on(ctx, group, 1, be_p);
}

fc_status_t fc_stage_open_backend_on(fc_stage_ctx_t *ctx, MPI_Comm group, int member,
                                     fc_backend_t *be_p)
{
    /* the devices record has a line per member whose backend started (a
     * rank outside: the contention stage's background; none when the
     * members' init failed, which they agreed on) */
    static const char outside[] = "{\"outside\":true}";
    char desc[512], *all_desc = NULL;
    fc_status_t st = FC_OK;

    snprintf(desc, sizeof(desc), "%s", outside);
    if (member && strcmp(ctx->opts.backend, "nccl") == 0) {
        /* a call stuck for a quarter of the stage's time is aborted and
         * named by the backend, before the watchdog ends the whole rank */
        double call_timeout = ctx->sp.timeout_s / 4 > 10 ? ctx->sp.timeout_s / 4 : 10;

        /* a member the plugin does not know of stays 0 (fc_backend.h) */
        memset(be_p, 0, sizeof(*be_p));
        st = ctx->gpu->backend_init_func(group, ctx->local_rank, call_timeout, be_p);
        if (st == FC_OK && ctx->gpu->describe_func(be_p, desc, sizeof(desc)) != FC_OK)
            snprintf(desc, sizeof(desc), "{}");
    } else if (member) {
        st = fc_backend_mpi_init(group, be_p);
    }
    /* every world rank (the backend's name is the same on all; a rank
     * outside the group may have no plugin), so that a member whose init
     * failed does not leave the others in the gather */
    if (strcmp(ctx->opts.backend, "nccl") != 0)
        return st;
    if (ctx->world_rank == 0)
        all_desc = fc_xcalloc((size_t)ctx->world_size, sizeof(desc),
                              "the ranks' device descriptions");
    fc_ctl_gather_strs(MPI_COMM_WORLD, 0, "the ranks' devices", desc, sizeof(desc), all_desc);
    if (ctx->world_rank == 0 && all_desc) {
        json_t *list = json_array();

        for (int r = 0; r < ctx->world_size; ++r) {
            const char *text = all_desc + (size_t)r * sizeof(desc);
            json_t *d;

            if (strcmp(text, outside) == 0)
                continue;
            if ((d = json_loads(text, 0, NULL)) == NULL)
                d = json_object();
            json_object_set_new(d, "rank", json_integer(r));
            json_object_set_new(d, "host", json_string(ctx->rank_hosts[r]));
            json_array_append_new(list, d);
        }
        if (json_array_size(list)) {
            json_t *rec = fc_stage_record(ctx, "devices");

            json_object_set_new(rec, "devices", list);
            fc_results_append(&ctx->results, rec);
        } else {
            json_decref(list);
        }
    }
    free(all_desc);
    return st;
}
