/*
 * fc_stage_world.c - a stage program's world: MPI start-up, the profile
 * (read on rank 0, broadcast), the inventory and the host of every rank,
 * the backend's choice (fc_stage_backend.c: mpi, or the GPU plugin's
 * nccl, or the reason it cannot run), the group communicators, the
 * watchdog's progress marks, and the end (the stage_end record that the
 * verdicts check, exit status). Only world rank 0 prints TAP and writes
 * results.jsonl; every other rank reports to it. Bad options or a bad
 * profile are found before any collective runs and end every rank with
 * exit status 2.
 */
#include "fc_stage.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fc_alloc.h"
#include "fc_ctl.h"
#include "fc_input.h"
#include "fc_log.h"
#include "fc_pairs.h"
#include "fc_pairs_schedule.h"
#include "fc_stage_int.h"
#include "fc_stage_mpierr.h"
#include "fc_version.h"
#include "fc_watchdog.h"

/* What the stage will do, for the runner's progress line and ETA
 * (runners/fc_progress.h): a sweep's test points, the pairs stage's rounds
 * (one rank per distinct host: its schedule, full or sampled), the soak's seconds; null
 * for a stage whose count is known only as it runs (preflight,
 * contention). */
static json_t *fc_stage_work_plan(const fc_stage_ctx_t *ctx)
{
    int hosts = 0;

    switch (ctx->stage) {
    case FC_STAGE_NODE:
    case FC_STAGE_RACK:
    case FC_STAGE_CLUSTER:
    case FC_STAGE_DOMAIN:
    case FC_STAGE_DOMAIN_NET:
        return json_pack("{s:s, s:i}", "unit", "points", "total",
                         fc_stage_point_count(&ctx->sp));
    case FC_STAGE_PAIRS:
    case FC_STAGE_RAILS: {  /* rails: every rail's full tournament at once, the
                             * same rounds (its profile has no mode: full) */
        /* the stage's schedule: full or sampled over the hosts in the
         * order of their first ranks and their racks (fc_pairs_schedule.h) */
        int *rack = fc_xcalloc((size_t)ctx->world_size + 1, sizeof(int), "the hosts' racks");
        int rounds;

        for (int r = 0; r < ctx->world_size; ++r) {
            int seen = 0;

            for (int q = 0; q < r && !seen; ++q)
                seen = strcmp(ctx->rank_hosts[q], ctx->rank_hosts[r]) == 0;
            if (!seen)
                rack[hosts++] = ctx->rank_racks[r];     /* as the stage's ctx.rack */
        }
        rounds = fc_pairs_schedule_rounds(hosts, rack, ctx->sp.pairs_mode, ctx->sp.pairs_partners);
        free(rack);
        return json_pack("{s:s, s:i}", "unit", "rounds", "total", rounds);
    }
    case FC_STAGE_SOAK:
        return json_pack("{s:s, s:f}", "unit", "seconds", "total", ctx->sp.soak.duration_s);
    default:
        return json_null();
    }
}

fc_status_t fc_stage_load_profile(fc_stage_ctx_t *ctx)
{
    int status = FC_OK;

    if (ctx->world_rank == 0) {
        status = fc_profile_load(ctx->opts.profile_path, &ctx->profile);
        if (status == FC_OK && !ctx->profile.stages[ctx->stage].present) {
            fprintf(stderr, "fabcert: %s:1:1: the profile has no stage '%s'\n",
                    ctx->opts.profile_path, fc_stage_name(ctx->stage));
            status = FC_ERR_INVALID;
        }
    }
    fc_ctl_bcast_ints(MPI_COMM_WORLD, 0, "the profile's status", &status, 1, FC_OK,
                      FC_ERR_INTERNAL);
    if (status != FC_OK)
        return (fc_status_t)status;
    fc_ctl_bcast(MPI_COMM_WORLD, 0, "the profile", &ctx->profile, sizeof(ctx->profile));
    ctx->sp = ctx->profile.stages[ctx->stage];
    fc_stage_apply_overrides(ctx);
    /* the profile's own sweep was held to this when it was loaded; the
     * command line's --collectives and --ops can still make it so */
    if (fc_sweep_min_max_only(&ctx->sp, ctx->stage)) {
        if (ctx->world_rank == 0)
            fprintf(stderr, "fabcert: --collectives/--ops leave stage '%s' sweeping only "
                    "reductions by min or max: each element keeps one rank's contribution, "
                    "so wrong bits sent by the others would never be seen; add sum or prod "
                    "to --ops, or a collective that moves data\n", fc_stage_name(ctx->stage));
        return FC_ERR_INVALID;
    }
    return FC_OK;
}

json_t *fc_stage_gather_json(json_t *mine, MPI_Comm comm)
{
    char *text = mine ? json_dumps(mine, JSON_COMPACT | JSON_SORT_KEYS) : NULL, **all;
    int size;
    json_t *docs = NULL;

    MPI_Comm_size(comm, &size);
    all = fc_ctl_gather_texts(comm, 0, "the ranks' reports", text, FC_CTL_TEXT_MAX);
    if (all != NULL) {
        docs = json_array();
        for (int r = 0; r < size; ++r) {
            json_t *d = all[r] ? json_loads(all[r], 0, NULL) : NULL;

            json_array_append_new(docs, d ? d : json_null());
            free(all[r]);
        }
    }
    free(text);
    free(all);
    return docs;
}

/* Rank 0 reads a file; every rank gets its text (NULL if no path). */
static fc_status_t fc_stage_bcast_file(const fc_stage_ctx_t *ctx, const char *what,
                                       const char *path, char **text_p)
{
    int ok = 1;
    char *text = NULL, the[64];

    *text_p = NULL;
    if (path[0] == '\0')
        return FC_OK;
    snprintf(the, sizeof(the), "the %s", what);
    if (ctx->world_rank == 0)
        ok = fc_input_read_plain(path, what, FC_INPUT_INVENTORY_MAX, &text) == FC_OK;
    fc_ctl_bcast_ints(MPI_COMM_WORLD, 0, the, &ok, 1, 0, 1);
    if (!ok)
        return FC_ERR_INVALID;
    fc_ctl_bcast_text(MPI_COMM_WORLD, 0, the, FC_INPUT_INVENTORY_MAX, &text);
    *text_p = text;
    return FC_OK;
}

/* The inventory, the host and rack of every rank, and the check that the
 * launcher put every rank on a host the inventory names. */
fc_status_t fc_stage_load_inventory(fc_stage_ctx_t *ctx)
{
    const fc_stage_opts_t *o = &ctx->opts;
    char *hosts_text = NULL, *racks_text = NULL;
    int status = FC_OK, *racks = NULL;
    size_t n = (size_t)ctx->world_size;

    if (fc_stage_bcast_file(ctx, "host list", o->hosts_path, &hosts_text) != FC_OK ||
        fc_stage_bcast_file(ctx, "rack map", o->racks_path, &racks_text) != FC_OK)
        status = FC_ERR_INVALID;
    else if (hosts_text || racks_text) {
        /* rank 0 parses first and prints; the others parse the same text */
        if (ctx->world_rank == 0)
            status = fc_inventory_parse(hosts_text, o->hosts_path, racks_text,
                                        o->racks_path, &ctx->inv);
        fc_ctl_bcast_ints(MPI_COMM_WORLD, 0, "the inventory's status", &status, 1, FC_OK,
                          FC_ERR_INTERNAL);
        if (status == FC_OK && ctx->world_rank != 0 &&
            fc_inventory_parse(hosts_text, o->hosts_path, racks_text,
                               o->racks_path, &ctx->inv) != FC_OK)
            MPI_Abort(MPI_COMM_WORLD, FC_EXIT_USAGE);
    } else {
        fc_inventory_parse(ctx->host, "(this host)", NULL, NULL, &ctx->inv);
    }
    free(hosts_text);
    free(racks_text);
    if (status != FC_OK)
        return (fc_status_t)status;

    ctx->rank_hosts = fc_xcalloc(n, FC_HOST_MAX, "the ranks' host names");
    racks = fc_xcalloc(n, sizeof(int), "the ranks' racks");
    ctx->rank_racks = racks;
    fc_ctl_allgather_strs(MPI_COMM_WORLD, "the ranks' host names", ctx->host, FC_HOST_MAX,
                          (char *)ctx->rank_hosts);
    for (size_t r = 0; r < n; ++r) {
        int h = fc_inventory_find_host(&ctx->inv, ctx->rank_hosts[r]);

        if (!o->hosts_path[0] && !o->racks_path[0])
            h = 0;              /* no inventory: this host, rack "default" */
        if (h < 0) {
            if (ctx->world_rank == 0)
                fprintf(stderr, "fabcert: %s: host '%s' (rank %zu) was given by "
                        "the launcher but is not in the inventory\n",
                        o->hosts_path[0] ? o->hosts_path : o->racks_path,
                        ctx->rank_hosts[r], r);
            status = FC_ERR_INVALID;
            continue;
        }
        racks[r] = ctx->inv.host_rack[h];
        /* records name a host as the inventory does: a host that calls
         * itself "w-0" where the list says "w-0.svc.ns.svc" (a pod) */
        if (o->hosts_path[0] || o->racks_path[0])
            snprintf(ctx->rank_hosts[r], FC_HOST_MAX, "%s", ctx->inv.hosts[h]);
    }
    if (status == FC_OK) {
        ctx->rack = racks[ctx->world_rank];
        snprintf(ctx->host, sizeof(ctx->host), "%s", ctx->rank_hosts[ctx->world_rank]);
    }
    for (int r = 0; r < ctx->world_rank; ++r)
        if (strcmp(ctx->rank_hosts[r], ctx->host) == 0)
            ctx->local_rank++;
    return (fc_status_t)status;
}

/* Out of memory or a broken invariant on one rank ends the whole job now
 * (lib/base/fc_alloc.h), rather than leaving its peers to the watchdog. */
static void fc_stage_die(void)
{
    MPI_Abort(MPI_COMM_WORLD, FC_EXIT_FAIL);
    _exit(FC_EXIT_FAIL);
}

/* The stage table's environment for this stage (NCCL_MNNVL_ENABLE for
 * the NVLink domain stages), set in this process before any communicator
 * is made: NCCL reads it once, at its first. A launch that exported
 * another value is overridden, and the stage_start record says so. */
static void fc_stage_set_env(fc_stage_ctx_t *ctx)
{
    const char *env = fc_stage_desc(ctx->stage)->env, *eq, *was;
    char name[64];

    if (env == NULL || (eq = strchr(env, '=')) == NULL)
        return;
    snprintf(name, sizeof(name), "%.*s", (int)(eq - env), env);
    if ((was = getenv(name)) != NULL && strcmp(was, eq + 1) != 0)
        snprintf(ctx->env_replaced, sizeof(ctx->env_replaced), "%s=%s", name, was);
    setenv(name, eq + 1, 1);
    snprintf(ctx->env_set, sizeof(ctx->env_set), "%s", env);
}

fc_status_t fc_stage_init(int *argc, char ***argv, fc_stage_id_t stage,
                          fc_stage_ctx_t *ctx)
{
    fc_status_t status;
    int ok;

    memset(ctx, 0, sizeof(*ctx));
    ctx->stage = stage;
    /* before MPI_Init: a rank the launcher names without this line never
     * got here (its program could not start on its host) */
    fc_watchdog_started(fc_stage_name(stage));
    MPI_Init(argc, argv);
    /* the runner's start check (runners/fc_probe.h): the program
     * reached main and MPI_Init on this host; nothing else is done */
    if (*argc == 2 && strcmp((*argv)[1], FC_STAGE_START_CHECK) == 0) {
        MPI_Finalize();
        exit(0);
    }
    ctx->started_s = MPI_Wtime();
    fc_alloc_set_die(fc_stage_die);
    MPI_Comm_rank(MPI_COMM_WORLD, &ctx->world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ctx->world_size);
    if (gethostname(ctx->host, sizeof(ctx->host) - 1) != 0)
        snprintf(ctx->host, sizeof(ctx->host), "unknown-host");
    fc_log_set_identity(ctx->host, ctx->world_rank);
    fc_watchdog_identify(fc_stage_name(stage), ctx->world_rank, ctx->host);

    status = fc_stage_parse(*argc, *argv, &ctx->opts, ctx->world_rank != 0);
    if (status != FC_OK)
        return status;
    /* a self-test on a rank this stage does not have would never fire
     * (the runner refuses one up front, so here hosts were quarantined
     * before the stage): not run, and recorded as not certified below */
    if ((ctx->opts.selftest.enabled && ctx->opts.selftest.rank >= ctx->world_size) ||
        ctx->opts.hang_rank >= ctx->world_size) {
        int hang = ctx->opts.hang_rank >= ctx->world_size;

        snprintf(ctx->selftest_unfit, sizeof(ctx->selftest_unfit), "the self-test asked "
                 "for (--selftest-%s rank=%d) could not run: the %s stage has ranks 0 to %d "
                 "only (hosts were quarantined before it), so the checker was not proven "
                 "here", hang ? "hang" : "corrupt", hang ? ctx->opts.hang_rank
                 : ctx->opts.selftest.rank, fc_stage_name(stage), ctx->world_size - 1);
        ctx->opts.selftest.enabled = 0;
        ctx->opts.hang_rank = -1;
    }
    if (ctx->opts.run_id[0] == '\0' && ctx->world_rank == 0)
        snprintf(ctx->opts.run_id, sizeof(ctx->opts.run_id), "%ld-%d",
                 (long)time(NULL), (int)getpid());
    fc_ctl_bcast_str(MPI_COMM_WORLD, 0, "the run's id", ctx->opts.run_id,
                     sizeof(ctx->opts.run_id));
    FC_CHECK(fc_stage_load_profile(ctx));
    FC_CHECK(fc_stage_load_inventory(ctx));
    fc_stage_set_env(ctx);
    fc_stage_choose_backend(ctx);
    FC_CHECK(fc_watchdog_start(ctx->sp.timeout_s, fc_stage_name(stage),
                               ctx->world_rank, ctx->host));
    /* before any communicator is derived from MPI_COMM_WORLD: they inherit it */
    fc_stage_catch_mpi_errors();

    fc_tap_init(&ctx->tap, stdout, ctx->world_rank == 0);
    ok = 1;
    if (ctx->world_rank == 0)
        ok = fc_results_open(ctx->opts.out_dir, &ctx->results) == FC_OK;
    fc_ctl_bcast_ints(MPI_COMM_WORLD, 0, "results.jsonl opened", &ok, 1, 0, 1);
    if (!ok)
        return FC_ERR_INVALID;
    if (ctx->world_rank == 0) {
        json_t *rec = fc_stage_record(ctx, "stage_start");

        json_t *hosts = json_array();

        for (int r = 0; r < ctx->world_size; ++r)
            json_array_append_new(hosts, json_string(ctx->rank_hosts[r]));
        json_object_set_new(rec, "ranks", json_integer(ctx->world_size));
        json_object_set_new(rec, "rank_hosts", hosts);
        json_object_set_new(rec, "timeout_s", json_real(ctx->sp.timeout_s));
        json_object_set_new(rec, "version", json_string(FC_VERSION));
        json_object_set_new(rec, "work", fc_stage_work_plan(ctx));
        /* whether each of its points carries its link counters
         * (fc_stage_counters.h): the report holds a point without them to it */
        if (fc_stage_desc(ctx->stage)->sections & FC_SECT_COUNTERS)
            json_object_set_new(rec, "counters_read", json_boolean(ctx->sp.counters.read));
        if (getenv("SLURM_JOB_ID"))     /* started by Slurm: which job and step */
            json_object_set_new(rec, "slurm", json_pack("{s:s, s:s}", "job_id",
                                getenv("SLURM_JOB_ID"), "step_id",
                                getenv("SLURM_STEP_ID") ? getenv("SLURM_STEP_ID") : ""));
        if (ctx->backend_note[0])
            json_object_set_new(rec, "backend_note", json_string(ctx->backend_note));
        if (ctx->env_set[0])        /* what the stage set for itself (its NCCL mode) */
            json_object_set_new(rec, "env", json_string(ctx->env_set));
        if (ctx->env_replaced[0])
            json_object_set_new(rec, "env_replaced", json_string(ctx->env_replaced));
        json_object_set_new(rec, "backend_requested", json_string(ctx->backend_requested));
        if (ctx->gpu)       /* which code measured: a plugin is a program too */
            json_object_set_new(rec, "gpu_plugin", fc_stage_plugin_json());
        fc_results_append(&ctx->results, rec);
        if (ctx->selftest_unfit[0]) {
            json_t *st = fc_stage_record(ctx, "selftest"), *racks = json_array();

            for (int r = 0; r < ctx->world_size; ++r) {
                const char *rack = ctx->inv.racks[ctx->rank_racks[r]];
                int seen = 0;

                for (size_t k = 0; k < json_array_size(racks) && !seen; ++k)
                    seen = strcmp(json_string_value(json_array_get(racks, k)), rack) == 0;
                if (!seen)
                    json_array_append_new(racks, json_string(rack));
            }
            json_object_set_new(st, "racks", racks);
            json_object_set_new(st, "reasons", json_pack("[s]", ctx->selftest_unfit));
            json_object_set_new(st, "verdict", json_string("INCOMPLETE"));
            fc_results_append(&ctx->results, st);
            fc_log_info("%s", ctx->selftest_unfit);
        }
        if (ctx->skip_reason[0]) {
            fprintf(stderr, "fabcert: stage %s skipped: %s\n", fc_stage_name(stage),
                    ctx->skip_reason);
            fprintf(stdout, "TAP version 13\n1..0 # SKIP %s\n", ctx->skip_reason);
            fflush(stdout);
            ctx->tap.active = 0;
        } else {
            /* a stage whose count depends on the nodes, the traffic kinds,
             * the links plans at the end */
            fc_tap_plan(&ctx->tap, fc_stage_desc(stage)->plan_known
                                       ? fc_stage_point_count(&ctx->sp) : -1);
        }
        if (ctx->backend_note[0])
            fc_tap_diag(&ctx->tap, "%s", ctx->backend_note);
        fc_tap_diag(&ctx->tap, "fabcert %s stage %s: run %s, %d ranks, "
                    "profile %s (sha256 %.12s)", FC_VERSION,
                    fc_stage_name(stage), ctx->opts.run_id, ctx->world_size,
                    ctx->profile.name, ctx->profile.sha256);
    }
    return FC_OK;
}

fc_status_t fc_stage_split_by_host(fc_stage_ctx_t *ctx, MPI_Comm *comm_p)
{
    char *all = fc_xcalloc((size_t)ctx->world_size, FC_HOST_MAX, "the ranks' host names");
    int color = 0;

    fc_ctl_allgather_strs(MPI_COMM_WORLD, "the ranks' host names (by host)", ctx->host,
                          FC_HOST_MAX, all);
    while (strncmp(all + (size_t)color * FC_HOST_MAX, ctx->host, FC_HOST_MAX) != 0)
        ++color;
    free(all);
    ctx->grouping = FC_GROUP_HOST;
    MPI_Comm_split(MPI_COMM_WORLD, color, ctx->world_rank, comm_p);
    return FC_OK;
}

fc_status_t fc_stage_split_by_rack(fc_stage_ctx_t *ctx, MPI_Comm *comm_p)
{
    ctx->grouping = FC_GROUP_RACK;
    MPI_Comm_split(MPI_COMM_WORLD, ctx->rack, ctx->world_rank, comm_p);
    return FC_OK;
}

fc_status_t fc_stage_whole(fc_stage_ctx_t *ctx, MPI_Comm *comm_p)
{
    ctx->grouping = FC_GROUP_ALL;
    MPI_Comm_dup(MPI_COMM_WORLD, comm_p);
    return FC_OK;
}

void fc_stage_progress(fc_stage_ctx_t *ctx, int index, const char *what)
{
    fc_watchdog_progress(index, what);
    if (ctx->opts.hang_rank == ctx->world_rank && ctx->opts.hang_index == index) {
        fc_log_info("self-test: stopping rank %d (SIGSTOP) at %s",
                    ctx->world_rank, what);
        raise(SIGSTOP);
    }
}

int fc_stage_comm_hosts(const fc_stage_ctx_t *ctx, MPI_Comm comm)
{
    int n, nhosts = 0, *world = NULL;

    MPI_Comm_size(comm, &n);
    world = fc_xcalloc((size_t)n, sizeof(int), "the communicator's world ranks");
    fc_ctl_allgather_ints(comm, "the group's world ranks", &ctx->world_rank, 1, world, 0,
                          ctx->world_size - 1);
    for (int i = 0; i < n; ++i) {
        int seen = 0;

        for (int k = 0; k < i && !seen; ++k)
            seen = strcmp(ctx->rank_hosts[world[k]], ctx->rank_hosts[world[i]]) == 0;
        nhosts += !seen;
    }
    free(world);
    return nhosts;
}

int fc_stage_finish(fc_stage_ctx_t *ctx, fc_status_t status)
{
    int failed = ctx->failed_points, done = 1, *dones = NULL;

    /* the last control messages, before the end is written: every rank
     * learns the failed points, then tells rank 0 that it is done, so a
     * message any rank received wrong ends the job before a stage_end
     * could say PASS (after the end, nothing travels but MPI_Finalize's) */
    fc_watchdog_progress(-1, "the stage's end");
    fc_ctl_bcast_ints(MPI_COMM_WORLD, 0, "the stage's failed points", &failed, 1, 0, INT_MAX);
    if (ctx->world_rank == 0)
        dones = fc_xcalloc((size_t)ctx->world_size, sizeof(int), "the ranks' ends");
    fc_ctl_gather_ints(MPI_COMM_WORLD, 0, "every rank at the stage's end", &done, 1, dones, 1, 1);
    free(dones);
    if (ctx->world_rank == 0) {
        json_t *rec = fc_stage_record(ctx, "stage_end");

        if (failed > 0)
            status = fc_status_worst(status, FC_ERR_FAIL);
        if (ctx->skip_reason[0]) {
            status = FC_ERR_SKIP;
            json_object_set_new(rec, "reason", json_string(ctx->skip_reason));
        } else if (status != FC_OK && (status != FC_ERR_FAIL || failed == 0) &&
                   fc_log_first_error()[0]) {
            /* why the stage could not judge: its first error, as logged */
            json_object_set_new(rec, "error", json_string(fc_log_first_error()));
        }
        json_object_set_new(rec, "points", json_integer(ctx->tap.current));
        /* what this stage handed to results.jsonl: the verdicts check that
         * every one of these records is there */
        json_object_set_new(rec, "judged_records", json_integer(ctx->results.judged));
        json_object_set_new(rec, "judged_not_pass", json_integer(ctx->results.judged_not_pass));
        json_object_set_new(rec, "failed_points", json_integer(failed));
        /* what the stage took, and of that its confirmations alone (what
         * confirmation before blame adds to a run) */
        json_object_set_new(rec, "seconds", json_real(MPI_Wtime() - ctx->started_s));
        json_object_set_new(rec, "confirm_seconds", json_real(ctx->confirm_s));
        json_object_set_new(rec, "status", json_string(fc_status_str(status)));
        json_object_set_new(rec, "verdict", json_string(
            status == FC_OK ? "PASS" : status == FC_ERR_SKIP ? "SKIP" : "FAIL"));
        fc_results_append(&ctx->results, rec);
        fc_results_close(&ctx->results);
        fc_tap_done(&ctx->tap);
    }
    if (failed > 0)
        status = fc_status_worst(status, FC_ERR_FAIL);
    MPI_Finalize();
    fc_watchdog_stop();     /* after MPI_Finalize, which can hang too */
    fc_inventory_free(&ctx->inv);
    free(ctx->rank_hosts);
    free(ctx->rank_racks);
    free(ctx->rank_measures);
    return fc_status_exit_code(status);
}

int fc_stage_exit(fc_status_t status)
{
    MPI_Finalize();
    return status == FC_ERR_SKIP ? FC_EXIT_PASS : fc_status_exit_code(status);
}
