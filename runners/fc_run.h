/*
 * fc_run.h - what the parts of `fabcert run` share: its options (parsed
 * in fc_run_opts.c), the run's state (the profile, the inventory, which
 * hosts are healthy; fc_run_state.c keeps it and writes the runner's own
 * records), and one attempt of a stage (fc_run_stage.c: the launcher's
 * argument list, the launch, the retest, the scan of what it wrote, the
 * diagnosis of a stage that did not end), `--resume` (fc_run_resume.c)
 * and the progress follower (fc_progress.h). The subcommands are in
 * fabcert.c.
 */
#ifndef FC_RUN_H
#define FC_RUN_H

#include <jansson.h>
#include <limits.h>
#include <stdio.h>

#include "fc_inventory.h"
#include "fc_profile.h"
#include "fc_status.h"

#define FC_MAX_PASSTHRU 128
/* mpirun's start-up and tear-down and the watchdog's grace, on top of a
 * stage's timeout */
#define FC_LAUNCH_MARGIN_S 15
/* attempts of one stage: the first, and one more without the hosts a
 * hang quarantined (the verdict follows up to FC_VERDICT_MAX_ATTEMPTS) */
#define FC_RUN_MAX_ATTEMPTS 2

typedef struct fc_run_opts {
    char profile[PATH_MAX];
    char out_dir[PATH_MAX];
    char hosts[PATH_MAX];           /* inventory host list, "" if none */
    char racks[PATH_MAX];           /* rack map, "" if none */
    char racks_from[PATH_MAX];      /* --racks-from FORMAT[:FILE], "" if none: the
                                     * rack map is made from it into out_dir */
    const char *rack_label;         /* --rack-label KEY (Kubernetes), NULL none */
    char run_id[64];
    int np;                         /* local mode: ranks */
    int ppn;                        /* cluster mode: ranks per node */
    const char *np_arg, *ppn_arg;   /* --np, --ppn as given, NULL if not:
                                     * overrides (how many ranks measure) */
    char carried_np[16], carried_ppn[16];   /* DIR's, by --rerun-failed */
    int stages[FC_STAGE_COUNT];     /* --stages filter; all 1 if not given */
    const char *mpirun;             /* the launcher's program */
    const char *mpirun_from;        /* "--mpirun", "$FABCERT_MPIRUN" or NULL
                                     * (the default, mpirun or srun) */
    int srun;                       /* launch with Slurm's srun, not mpirun */
    int local;                      /* no inventory: this machine alone */
    const char *mpirun_args[FC_MAX_PASSTHRU];   /* to the launcher */
    int nmpirun_args;
    const char *stage_args[FC_MAX_PASSTHRU];    /* sweep overrides */
    int nstage_args;
    const char *selftest_args[8];               /* self-tests */
    int nselftest_args;
    int selftest_stage;             /* stage the self-tests go to; -1 all */
    const char *sign_key;           /* secret key for the certificates */
    double soak_duration;           /* --soak-duration; 0: the profile's */
    int resume;                     /* --resume DIR: out_dir is DIR */
    char rerun_dir[PATH_MAX];       /* --rerun-failed DIR, "" if not given */
    int profile_given;              /* --profile was on the command line */
    char metrics[PATH_MAX];         /* --metrics FILE, "" if none */
    int progress;                   /* --progress: progress lines even when
                                     * stdout is not a terminal */
    const char *env[FC_MAX_PASSTHRU];   /* --env NAME[=VALUE] */
    int nenv;
    int nuser_mpirun_args;          /* of mpirun_args, given as --mpirun-arg */
    char stages_arg[256];           /* every --stages as given, "" if none */
    /* the files as the user named them; the stages read frozen copies in
     * the output directory (fc_run_freeze_inputs) */
    char profile_source[PATH_MAX], hosts_source[PATH_MAX], racks_source[PATH_MAX];
} fc_run_opts_t;

typedef struct fc_run_state {
    fc_run_opts_t o;
    fc_profile_t profile;
    fc_inventory_t inv;
    int *healthy;                   /* per inventory host */
    int *quarantined;
    char results_path[PATH_MAX + 32];
    const char *probe_stage;        /* the stage a probe is for */
    struct fc_progress *progress;   /* follows results.jsonl (fc_progress.h) */
    int lock_fd;                    /* results.jsonl, flock'ed for this runner */
    int crowded;                    /* local ranks told to yield: the CPUs
                                     * this process may use; 0 if not */
    char *hosts_text, *racks_text;  /* what the inventory was read from, frozen
                                     * as read (a --hosts <(...) pipe reads once) */
    /* --resume (fc_run_resume.c) */
    json_t *prior;                  /* the records already in results.jsonl */
    json_t *prior_plan;             /* ... its plan record */
    long prior_bytes;               /* ... the size of the file they filled */
    int kept[FC_STAGE_COUNT];       /* stages finished before: not run again */
    int resume_runs;                /* stages the resume runs */
    /* --rerun-failed DIR (fc_run_rerun.c) */
    json_t *rerun_of;               /* the plan's rerun_of: the earlier run */
    json_t *rerun_hosts;            /* the hosts of its racks that did not pass */
} fc_run_state_t;

/* ---- options (fc_run_opts.c) ----------------------------------------- */

void fc_usage(FILE *out);
/* `fabcert run`'s command line into o; 0, or the exit status (2: bad
 * usage, said on stderr). */
int fc_parse_run(int argc, char **argv, fc_run_opts_t *o);
/* Every option that changed what is measured, as given (the certificate's
 * overrides). */
json_t *fc_run_overrides(const fc_run_opts_t *o);
/* --np N, --ppn N: *out from 1 to 100000; else 2, said on stderr. */
int fc_run_parse_count(const char *what, const char *text, int *out);
/* The launching environment's variables that shape the measurement, and
 * Open MPI's parameter files that set something (path: their settings
 * and sha256; fc_run_opts.c says which files). */
json_t *fc_run_environment(const fc_run_opts_t *o);

/* ---- the run's state and records (fc_run_state.c) ------------------- */

fc_status_t fc_run_load_inventory(fc_run_state_t *st);
/* The inventory of the files o.hosts and o.racks name (either may be
 * ""), nothing written: FC_OK, or FC_ERR_INVALID with file:line said. */
fc_status_t fc_run_parse_inventory(fc_run_state_t *st);
/* The profile, with --soak-duration applied as the stage programs apply
 * it to the same profile: 0, or 2 (said). */
int fc_run_load_profile(fc_run_state_t *st);
/* A rack map of the whole cluster with a host list of part of it: say
 * what was left out. */
void fc_print_left_out(const fc_inventory_t *inv);
/* The inventory as the plan record holds it. */
json_t *fc_inventory_json(const fc_inventory_t *inv);
/* 1 when the run spans an inventory of hosts (mpirun with a hostfile or
 * srun), 0 on this machine alone. */
int fc_cluster_mode(const fc_run_opts_t *o);
/* Append rec (taken) to results.jsonl. */
void fc_append(fc_run_state_t *st, json_t *rec);
/* A record of the runner's own, with the common fields. */
json_t *fc_run_record(const fc_run_state_t *st, const char *type, const char *stage);
int fc_write_run_json(const fc_run_state_t *st, json_t *stages);
long fc_file_size(const char *path);
/* A write under --out that failed (fc_write_failure), or, when full is
 * not NULL, a filesystem under --out with no free block left (a stage's
 * own write, which this process cannot see; full names the file it could
 * not write, "" the directory): says "fabcert: disk full / write failed:
 * FILE: REASON" and that the run stopped, and gives 1; else 0. */
int fc_run_write_check(const fc_run_state_t *st, const char *full);
/* Record a quarantine (once per host) and take it out of later stages. */
/* A NIC (implicates: host, nic, rail) quarantined for its rail: a
 * quarantine record naming it; the host stays healthy. */
void fc_quarantine_nic(fc_run_state_t *st, const char *stage, json_t *imp, const char *reason);
void fc_quarantine(fc_run_state_t *st, const char *stage, const char *host,
                   const char *part, const char *why);
/* 0, or 2 when a contention stage's background_hosts names a host that is
 * not in the inventory. */
int fc_check_background_hosts(const fc_run_state_t *st);
fc_status_t fc_run_freeze_inputs(fc_run_state_t *st);
int fc_run_check_rack_names(const fc_inventory_t *inv);
int fc_run_claim_results(fc_run_state_t *st);
/* The launcher and ranks, as the plan records them ("launch"). */
json_t *fc_run_launch_json(const fc_run_opts_t *o);

/* ---- --resume DIR (fc_run_resume.c) ----------------------------------- */

/* flock results.jsonl (fd) for this runner, or 2 when another holds it. */
int fc_run_lock_results(fc_run_state_t *st, int fd);
/* Read DIR's records and plan, take the run id: 0, or 2 (said). */
int fc_run_resume_open(fc_run_state_t *st);
/* The profile, inventory, overrides and launch against the plan's, then
 * the stages pointed at the frozen copies: FC_OK, or FC_ERR_INVALID with
 * the difference said. */
fc_status_t fc_run_resume_check(fc_run_state_t *st);
/* Which stages are kept (st->kept), quarantine carried over, the resume
 * record written and the plan printed: 0, or 2 (said). */
int fc_run_resume_plan(fc_run_state_t *st);

/* ---- --rerun-failed DIR (fc_run_rerun.c) ---------------------------- */

/* Read the earlier run DIR: a finished run with a rack that did not
 * pass, whose profile this command's is; its inventory's hosts of those
 * racks (st->rerun_hosts) and what the plan says of it (st->rerun_of).
 * Nothing written. 0, or 2 (said). */
int fc_run_rerun_open(fc_run_state_t *st);
/* The new run's inventory: out_dir/hosts with those hosts and DIR's rack
 * map (or this machine alone when DIR ran on it). 0, or 2 (said). */
int fc_run_rerun_inputs(fc_run_state_t *st);
/* After the inventory is loaded: every host of it is one of DIR's. 0, or 2. */
int fc_run_rerun_check_hosts(const fc_run_state_t *st);

/* ---- one attempt of a stage (fc_run_stage.c) ------------------------- */

/* Launch one attempt of a stage on the healthy hosts. Returns 2 on bad
 * input (the caller stops), 0 otherwise; *hung_p when it did not end. */
int fc_run_stage(fc_run_state_t *st, fc_stage_id_t stage, int attempt, int *hung_p);
/* The ranks stage would run on nhealthy hosts (--np on this machine). */
int fc_stage_ranks_planned(const fc_run_state_t *st, fc_stage_id_t stage, int nhealthy);
/* The highest rank=R among the self-test options, -1 when none. */
int fc_selftest_rank(const fc_run_opts_t *o);

#endif
