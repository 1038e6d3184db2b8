/*
 * fc_stages.h - the stage table: one entry per stage of the plan, and the
 * only place that lists them. Everything that differs between stages and
 * that another part needs to know (the runner, the stage programs, the
 * profile reader, the reports) is a field here, not a comparison with a
 * stage constant: its name (in profiles, records and suites/NAME), its
 * place in the plan (the enum's order), how many ranks it takes per node,
 * how few hosts it can run on, whether it may run on the GPU backend,
 * whether its TAP plan is known before it runs, whether its points are
 * also timed batched, which profile sections it reads, what it proves
 * (`fabcert plan` says so, and what a profile without it leaves out), the
 * hardware it needs and the environment its program sets for itself.
 * Adding a stage is one entry here, its enum value, and its program in
 * suites/.
 */
#ifndef FC_STAGES_H
#define FC_STAGES_H

typedef enum fc_stage_id {         /* in plan order */
    FC_STAGE_PREFLIGHT = 0,
    FC_STAGE_NODE,
    FC_STAGE_PAIRS,
    FC_STAGE_RACK,
    FC_STAGE_CLUSTER,
    FC_STAGE_DOMAIN,                /* the NVLink domain over multi-node NVLink */
    FC_STAGE_DOMAIN_NET,            /* ... and over the network (MNNVL off) */
    FC_STAGE_OVERLAP,
    FC_STAGE_SCALING,
    FC_STAGE_CONTENTION,
    FC_STAGE_SOAK,
    FC_STAGE_RAILS,
    FC_STAGE_COUNT
} fc_stage_id_t;

/* How many ranks a stage takes on each node. */
typedef enum fc_stage_ranks {
    FC_RANKS_PPN = 0,               /* --ppn */
    FC_RANKS_ONE,                   /* one per node (inventory, pairs) */
    FC_RANKS_ROLES,                 /* contention: foreground + background */
} fc_stage_ranks_t;

/* Profile keys and sections a stage reads (bits of
 * fc_stage_desc_t.sections); a key of a bit the stage does not read is
 * refused in its profile (lib/profile/fc_profile_stage.c), with the stage's
 * reason below (no_*), or naming the stage the section belongs to. */
enum {
    FC_SECT_LIMITS = 1 << 0,        /* limits: (absolute) */
    FC_SECT_RELATIVE = 1 << 1,      /* relative: its groups have peers */
    FC_SECT_EXPECT = 1 << 2,        /* expect: (preflight) */
    FC_SECT_CONTENTION = 1 << 3,    /* contention: */
    FC_SECT_SOAK = 1 << 4,          /* soak: */
    FC_SECT_SWEEP = 1 << 5,         /* sizes:, iters:, warmup: */
    FC_SECT_KINDS = 1 << 6,         /* collectives:, dtypes:, ops: */
    FC_SECT_BACKEND = 1 << 7,       /* backend: */
    FC_SECT_COUNTERS = 1 << 8,      /* counters: (each interval's links) */
    FC_SECT_OVERLAP = 1 << 9,       /* overlap: (compute beside the collective) */
    FC_SECT_SCALING = 1 << 10,      /* scaling: (the drop from one node count
                                     * to the next) */
    FC_SECT_PAIRS = 1 << 11,        /* mode:, partners: (the pairs stage's
                                     * schedule, lib/stage/fc_pairs_schedule.h) */
    FC_SECT_RAILS = 1 << 12,        /* rails: (the NICs that are the rails) */
};

/* How the reports show a stage's figures beside the per-point table
 * (reports/fc_html_rack.c switches on it; each plot takes that stage's
 * records only). */
typedef enum fc_stage_view {
    FC_VIEW_SWEEP = 0,              /* busbw against size, the limit drawn in */
    FC_VIEW_PAIRS,                  /* the pair matrix as a heat map */
    FC_VIEW_SOAK,                   /* window medians, with the drift limit */
    FC_VIEW_TABLE,                  /* the table alone */
    FC_VIEW_SCALING,                /* busbw against node count, the limit */
} fc_stage_view_t;

/* What `fabcert baseline` derives a stage's limits from. */
typedef enum fc_stage_baseline {
    FC_BASELINE_NONE = 0,           /* not derived (no per-iteration figures) */
    FC_BASELINE_POINTS,             /* its point records, per collective */
    FC_BASELINE_PAIRS,              /* its pair records (sendrecv, per size) */
} fc_stage_baseline_t;

/* What the report checks of a stage's records against the sweep its plan
 * gives it (the frozen profile with the plan's overrides, through the
 * stage programs' own fc_stage_sweep_plan: reports/fc_verdict_sweep.c). */
typedef enum fc_stage_sweep_check {
    FC_SWEEP_CHECK_NONE = 0,        /* no sweep (preflight) */
    FC_SWEEP_CHECK_POINTS,          /* one point record per planned point and
                                     * group of its ranks, with the planned
                                     * iters and warmup, and no other */
    FC_SWEEP_CHECK_PAIRS,           /* one pair record per pair of its hosts,
                                     * each with every planned size, no other */
    FC_SWEEP_CHECK_KINDS,           /* every record a planned point, and every
                                     * planned point measured (its groups and
                                     * background kinds are the run's) */
    FC_SWEEP_CHECK_SIZES,           /* one record of its sweep_record type per
                                     * planned size and group of its ranks,
                                     * with the planned iters and warmup, and
                                     * no other (a stage that measures one
                                     * kind of collective, whatever the
                                     * profile lists: overlap) */
    FC_SWEEP_CHECK_SERIES,          /* one record of its sweep_record type per
                                     * planned point and node count of the
                                     * series over the attempt's hosts
                                     * (fc_stage_series_counts), with the
                                     * planned iters and warmup, no other */
    FC_SWEEP_CHECK_RAILS,           /* one record of its sweep_record type per
                                     * pair of its hosts on each rail (ranks
                                     * per host), each with every planned
                                     * size, no other (the rails stage) */
} fc_stage_sweep_check_t;

typedef struct fc_stage_desc {
    fc_stage_id_t id;
    const char *name;               /* profiles, records, suites/NAME */
    fc_stage_ranks_t ranks;         /* ranks per node */
    int min_hosts;                  /* fewer healthy hosts: skipped, said why */
    int gpu_capable;                /* may run on the nccl backend */
    int gpu_foreground_only;        /* on nccl only its foreground ranks
                                     * need a GPU (lib/stage/fc_contention_role.h):
                                     * the rest stay on MPI */
    int plan_known;                 /* its TAP plan is known before it runs
                                     * (its points are the profile's sweep) */
    int batched;                    /* its points are also timed batched */
    unsigned sections;              /* FC_SECT_* it reads */
    const char *no_limits;          /* why limits: would never apply, or NULL */
    const char *no_relative;        /* why relative: would never apply, or NULL */
    const char *no_sweep;           /* why sizes/iters/warmup are not read */
    const char *no_kinds;           /* why collectives/dtypes/ops are not */
    const char *no_backend;         /* why backend: is not */
    const char *no_counters;        /* why counters: is not */
    const char *judges_only;        /* "COLLECTIVE DTYPE": the one kind of
                                     * point its limits judge (a rule for
                                     * another would never apply), or NULL:
                                     * the points of its sweep */
    fc_stage_view_t view;           /* how the reports show its figures */
    fc_stage_baseline_t baseline;   /* what a baseline derives it from */
    const char *group;              /* what one judged group of it is ("node",
                                     * "rack"), NULL: the whole job */
    fc_stage_sweep_check_t sweep_check; /* its records against the plan's sweep */
    const char *sweep_record;       /* the type of the records sweep_check
                                     * holds to the plan; NULL: the check's
                                     * own (point, pair, contention) */
    const char *proves;             /* what the stage proves, one line: the
                                     * plan prints it, and for a stage a
                                     * profile leaves out, what is lost */
    int gpu_only;                   /* measures on nccl alone: on mpi it is a
                                     * skip saying why (its figure is NVLink's) */
    int needs_mnnvl;                /* runs only where the profile's NVLink
                                     * domain spans nodes (nvlink_domain:
                                     * rack); elsewhere there is nothing for
                                     * it to measure, and a profile that names
                                     * it is refused */
    const char *env;                /* "NAME=VALUE" its program sets in its
                                     * own environment before any
                                     * communicator is made (NCCL reads it
                                     * once per process), or NULL */
} fc_stage_desc_t;

const fc_stage_desc_t *fc_stage_desc(fc_stage_id_t stage);
const char *fc_stage_name(fc_stage_id_t stage);
int fc_stage_from_name(const char *name);       /* -1 if unknown */
/* What one judged group of the stage is called ("node", "rack", "job"). */
const char *fc_stage_group_noun(fc_stage_id_t stage);

#endif
