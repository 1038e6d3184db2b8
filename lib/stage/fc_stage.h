/*
 * fc_stage.h - what every stage program shares: the command line, MPI
 * start-up, the host identity, the profile (loaded on rank 0, broadcast),
 * the results file and TAP on rank 0, and the driver that runs a stage's
 * collective sweep on a "group" communicator (a node, a rack, the cluster)
 * with every group at once. The inventory (--hosts, --racks) is read on
 * rank 0 and broadcast; every rank must be on a host it names. A watchdog
 * ends the stage at its timeout, whatever MPI is doing. A stage's main() is a few lines: init, make its
 * group communicator, run, finish.
 */
#ifndef FC_STAGE_H
#define FC_STAGE_H

#include <mpi.h>

#include "fc_engine.h"
#include "fc_inventory.h"
#include "fc_judge.h"
#include "fc_plugin.h"
#include "fc_profile.h"
#include "fc_results.h"
#include "fc_tap.h"

typedef struct fc_stage_opts {
    char profile_path[1024];
    char out_dir[1024];
    char run_id[64];
    char backend[16];
    uint64_t sizes[FC_PROFILE_MAX_SIZES];   /* override; nsizes 0: profile */
    int nsizes;
    int iters;                  /* override; 0: profile */
    int warmup;                 /* override; -1: profile */
    int colls[FC_COLL_COUNT];   /* override; ncolls 0: profile */
    int ncolls;
    int dtypes[FC_DTYPE_COUNT];
    int ndtypes;
    int ops[4];
    int nops;
    fc_selftest_t selftest;
    char hosts_path[1024];      /* inventory: host list, "" if none */
    char racks_path[1024];      /* inventory: rack map, "" if none */
    int hang_rank;              /* --selftest-hang: this world rank stops */
    int hang_index;             /* ... on entering this point or round */
    double soak_duration;       /* --soak-duration: override; 0: profile */
    double phase_s;             /* --contention-phase: override; 0: profile */
} fc_stage_opts_t;

/* How a stage groups its ranks; names the groups in results. */
typedef enum fc_grouping {
    FC_GROUP_HOST = 0,          /* one group per node */
    FC_GROUP_RACK,              /* one group per rack */
    FC_GROUP_ALL,               /* one group: the whole job */
} fc_grouping_t;

typedef struct fc_stage_ctx {
    fc_stage_id_t stage;
    fc_stage_opts_t opts;
    fc_profile_t profile;
    fc_stage_profile_t sp;      /* the stage's profile, overrides applied */
    int world_rank;
    int world_size;
    char host[FC_HOST_MAX];
    fc_tap_t tap;
    fc_results_t results;       /* open on world rank 0 only */
    int failed_points;
    fc_inventory_t inv;         /* one rack "default" when none was given */
    int rack;                   /* this rank's rack (index into inv.racks) */
    char (*rank_hosts)[FC_HOST_MAX];    /* host of every world rank */
    int *rank_racks;                    /* rack of every world rank */
    unsigned char *rank_measures;       /* per world rank: 1 if it is one of the
                                         * measured groups' ranks; NULL: every
                                         * rank is (the contention stage's
                                         * background and idle ranks are not) */
    fc_grouping_t grouping;     /* set by the split functions */
    int local_rank;             /* among the ranks on this host */
    const fc_gpu_plugin_t *gpu; /* the GPU plugin, when backend is nccl */
    char skip_reason[512];      /* the stage cannot run here: why */
    char selftest_unfit[512];   /* a self-test this stage cannot run: why */
    char backend_note[512];     /* --backend auto fell back to mpi: why */
    char backend_requested[16]; /* what the profile or --backend asked for */
    char env_set[128];          /* the stage table's env, as set here ("" none) */
    char env_replaced[256];     /* the value it replaced, when the launch gave
                                 * another ("" when none or the same) */
    double started_s;           /* MPI_Wtime at the start of the stage */
    double confirm_s;           /* time its confirmations alone took (rank 0) */
} fc_stage_ctx_t;

/* MPI_Init, options, profile, results, TAP plan. On FC_ERR_INVALID the
 * caller calls fc_stage_exit() with it (exit 2 on every rank). */
fc_status_t fc_stage_init(int *argc, char ***argv, fc_stage_id_t stage,
                          fc_stage_ctx_t *ctx);
/* Split the world by host name: one communicator per node. */
fc_status_t fc_stage_split_by_host(fc_stage_ctx_t *ctx, MPI_Comm *comm_p);
/* Split the world by rack: one communicator per rack. */
fc_status_t fc_stage_split_by_rack(fc_stage_ctx_t *ctx, MPI_Comm *comm_p);
/* The whole world as one group. */
fc_status_t fc_stage_whole(fc_stage_ctx_t *ctx, MPI_Comm *comm_p);
/* Entering work item `index` (point, round): tells the watchdog, and
 * stops this rank there if --selftest-hang asks for it. */
void fc_stage_progress(fc_stage_ctx_t *ctx, int index, const char *what);
/* Name of group containing world rank r under ctx->grouping; its rack
 * name ("" for the whole job). */
const char *fc_stage_group_name(const fc_stage_ctx_t *ctx, int r);
const char *fc_stage_group_rack(const fc_stage_ctx_t *ctx, int r);
/* The stage's test points in sweep order (collective, type, op, size),
 * each with its seed; malloc'ed, returns the count. */
int fc_stage_points(const fc_stage_ctx_t *ctx, fc_test_point_t **points_p);
/* The same for the sweep sp of stage (its profile with the overrides
 * applied) under a profile of that seed: the one list both the stage
 * programs run and the report checks their records against. */
int fc_stage_sweep_points(const fc_stage_profile_t *sp, fc_stage_id_t stage, uint32_t seed,
                          fc_test_point_t **points_p);
/* A stage program's sweep options (argv as the runner gives them to every
 * stage: --sizes, --iters, --warmup, --collectives, --dtypes, --ops,
 * --soak-duration, ...) applied to stage's profile sp. */
void fc_stage_profile_apply(fc_stage_profile_t *sp, const fc_stage_opts_t *o,
                            fc_stage_id_t stage);
/* What stage of profile measures under the command line argv (argv[0] a
 * program name, then the stage program's options, parsed by the stage
 * program's own parser): its sweep profile (*sp_p) and test points
 * (*points_p, malloc'ed, *npoints_p of them), exactly as the stage
 * program derives them. FC_ERR_INVALID when argv does not parse (said on
 * stderr). For the report, which checks that what was measured is what
 * the plan says (reports/fc_verdict_sweep.c). */
fc_status_t fc_stage_sweep_plan(const fc_profile_t *profile, fc_stage_id_t stage, int argc,
                                char **argv, fc_stage_profile_t *sp_p,
                                fc_test_point_t **points_p, int *npoints_p);
/* Every rank of comm gives one JSON document (NULL: none); rank 0 of comm
 * gets them in rank order, each parsed again, as a JSON array (null for
 * none or for a document that did not parse); the others get NULL. Up to
 * FC_CTL_TEXT_MAX each, checked on arrival (lib/base/fc_ctl.h). Collective
 * over comm. */
json_t *fc_stage_gather_json(json_t *mine, MPI_Comm comm);
/* Every world rank's summary of a point (a placeholder, valid 0, where it
 * is not its group's rank 0) to world rank 0, into all (world_size of
 * them; NULL elsewhere), checked on arrival (lib/base/fc_ctl.h) and for values
 * a summary can hold (ranks in range, strings ended). A group done first
 * waits for the others quietly (lib/base/fc_quiet.h), not polling beside the
 * groups still measuring. */
void fc_stage_gather_summaries(const char *what, const fc_point_summary_t *mine,
                               fc_point_summary_t *all);
/* The number of distinct hosts among comm's ranks (collective over comm). */
int fc_stage_comm_hosts(const fc_stage_ctx_t *ctx, MPI_Comm comm);
/* A results record with the stage's common fields (rank 0). */
json_t *fc_stage_record(const fc_stage_ctx_t *ctx, const char *type);
/* Rank 0: a check record rec that did not PASS counts against the stage
 * (its end record's failed points) and its reasons go to TAP. */
void fc_stage_count_not_pass(fc_stage_ctx_t *ctx, json_t *rec);
/* The stage's backend on `group`: the GPU plugin's (with a `devices`
 * record naming every rank's GPU) when the backend is nccl, else mpi. */
fc_status_t fc_stage_open_backend(fc_stage_ctx_t *ctx, MPI_Comm group, fc_backend_t *be_p);
/* The same with only some ranks in it (the contention stage's foreground):
 * every world rank calls it, those with member 0 only to take part in the
 * devices record, in which they have no line; their *be_p is untouched. */
fc_status_t fc_stage_open_backend_on(fc_stage_ctx_t *ctx, MPI_Comm group, int member,
                                     fc_backend_t *be_p);
/* Rank 0: write one point's records (extra[g], if given, merged into
 * group g's) and its TAP line from summaries already judged. */
void fc_stage_report_judged(fc_stage_ctx_t *ctx, const fc_test_point_t *pt,
                            const fc_point_summary_t *sums, const fc_judgement_t *js,
                            int ngroups, json_t *const *extra);
/* Run the stage's sweep with every group at once; rank 0 judges, writes
 * results and TAP. */
fc_status_t fc_stage_run_sweep(fc_stage_ctx_t *ctx, MPI_Comm group);
/* The node counts of the scaling series over nhosts hosts into counts
 * (at most max): 1 when every host has more than one rank (min_ranks, the
 * fewest on a host; one rank alone moves nothing), then 2, 4, ... and
 * nhosts. Returns how many. The scaling stage runs them, the report holds
 * its records to them (reports/fc_verdict_sweep.c). */
int fc_stage_series_counts(int nhosts, int min_ranks, int *counts, int max);
/* Close results and TAP, MPI_Finalize, and return the exit status. */
int fc_stage_finish(fc_stage_ctx_t *ctx, fc_status_t status);
/* For errors before the stage is set up: finalise MPI and exit 2. */
int fc_stage_exit(fc_status_t status);

#endif
