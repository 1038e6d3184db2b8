/*
 * fc_verdict.h - from results.jsonl to verdicts: per stage and per rack,
 * PASS, FAIL or INCOMPLETE, each FAIL with the part it implicates.
 *
 * The input is the record stream alone (results.jsonl holds the inventory,
 * every stage attempt's start and end, every judged measurement, hangs and
 * quarantines), so the run command and the report command reach the same
 * verdicts from the same directory. Rules, per rack (docs/verdicts.md, "How a verdict
 * is reached", says them in words):
 *   - FAIL if a host of the rack was quarantined, or a failing record of
 *     any stage implicates the rack or one of its hosts (a cluster-wide
 *     slowdown implicates every rack that took part; a slow path between
 *     two racks implicates both); a record whose own figures show wrong
 *     bits is failing whatever its verdict says, and so is a PASS whose
 *     figures fail the limit it records (a busbw below min_busbw_gbps, a
 *     median above max_latency_us, a pair's size below its min_bw_gbps,
 *     a soak's drift above max_drift_pct) unless a confirmation alone
 *     cleared it by the majority rule (fc_verdict_figures.h); a record's
 *     limit is held to the one the frozen profile gives it
 *     (fc_verdict_limits.c): another one is INCOMPLETE, and a PASS its
 *     figures fail against the profile's is failing;
 *     a failing record that implicates no rack of the plan (a rack or host
 *     of no inventory, an implicates without host or rack) fails every
 *     rack of its attempt (INCOMPLETE for such a record marked
 *     INCOMPLETE);
 *   - otherwise INCOMPLETE if the rack map gives the rack hosts that the
 *     run left out (not in the host list, or outside the Slurm
 *     allocation): it is tested in part (a rack none of whose hosts ran
 *     is not reported at all);
 *     or if a required stage of the profile
 *       - was left out of the run (--stages),
 *       - has no finished attempt that included a host of the rack (not
 *         run, skipped, killed, or every host quarantined before it),
 *       - ended with an error, or FAIL without a failing check (its own
 *         stage_end record says so: the backend could not start, ...),
 *       - has a stage_end that contradicts itself or its records (a count
 *         missing or not a whole number; judged records, or those not
 *         PASS, other than results.jsonl holds; more points than records;
 *         more failed points than points; failures it does not hold),
 *       - or, on the nccl backend, ran fewer ranks on a host of the rack
 *         than the GPUs it has visible (its devices record): the GPUs
 *         not tested are named (any nccl stage that ran, optional too);
 *       - or judged no check that concerns the rack (a contention record
 *         judges the racks of its measured hosts, `racks`: a rack of
 *         background_hosts alone is not judged by it);
 *     or if an optional stage that ran on the rack did not finish, ended
 *     with an error or FAIL without a failing check, was judged against
 *     another profile, or has an end record that contradicts its records
 *     (what is missing may be its failure);
 *     or if a record of any stage's attempt that included the rack could
 *     not be read (a torn line, a NUL, a key given twice: its checks
 *     cannot all be known), or a record before the first stage could not
 *     be read;
 *     or if the attempt of a stage that speaks for the rack did not
 *     measure what the plan says (fc_verdict_sweep.c): the sweep the
 *     frozen profile and the plan's overrides give it, derived by the
 *     stage programs' own fc_stage_sweep_plan, against its records
 *     (node, rack, cluster, soak: every planned point on every group of
 *     its ranks, with the planned iters and warmup, nothing else; pairs:
 *     every pair of its hosts at every planned size; contention: only
 *     planned points, each measured);
 *     or if results.jsonl holds another run's records, or judged records
 *     outside an attempt (before its stage_start), or after a stage_end
 *     a record of its stage of a type neither the runner nor the retest
 *     writes (its checks, its context, a second stage_end: misplaced,
 *     never evidence; fc_record.h's writers), or a record whose `source`
 *     names a writer that never writes its type (forged: not evidence, and
 *     a stage's record inside its attempt is counted against its end
 *     record whatever it claims), or judged records of a stage the plan
 *     does not have, or
 *     a stage with more attempts than FC_VERDICT_MAX_ATTEMPTS (8; the
 *     runner makes FC_RUN_MAX_ATTEMPTS, 2): "too many attempts", for every
 *     rack;
 *   - otherwise PASS.
 *   - and `fabcert report` (fc_verdict_plan.h) leaves every rack
 *     INCOMPLETE when the plan's stages, required flags, selection or
 *     require_signature do not match the frozen profile.yaml of the
 *     output directory, or that file is missing or does not load; and
 *     whether certificates must be signed is that profile's word; and
 *     a rack INCOMPLETE on which a stage whose frozen profile says
 *     backend: nccl ran on another backend (--backend lifted it);
 * Command-line overrides (the sweep options, --stages, --backend, --np and
 * --ppn, --env, the launcher) never change a verdict by themselves: the
 * reports say them beside it, and a sweep stage every group of which ran
 * one rank is said in the summary ("no traffic between ranks was
 * measured"); what they made a stage measure is held to the plan above.
 * For each stage the latest attempt that included a rack's hosts speaks
 * for that rack (the runner re-runs a stage once, without the hosts a
 * hang quarantined: FC_RUN_MAX_ATTEMPTS is 2), never one that a `resume`
 * record superseded (`fabcert run --resume` ran the stage again from its
 * start): a superseded attempt's failures still count, its passing and
 * incomplete checks do not.
 * What each type of record is (a check, the runner's account of a hang,
 * context) and which racks it concerns is the record-type table's
 * (fc_record.h).
 */
#ifndef FC_VERDICT_H
#define FC_VERDICT_H

#include <jansson.h>

#include "fc_json.h"
#include "fc_profile.h"
#include "fc_status.h"

/* Attempts of one stage the verdict follows; records of attempts past it
 * are not judged, and the stage is INCOMPLETE ("too many attempts"). The
 * runner makes FC_RUN_MAX_ATTEMPTS (2, runners/fc_run.h), which must not
 * exceed it (runners/fabcert.c checks at compile time): more in a
 * results.jsonl means it was edited or merged from several runs. */
#define FC_VERDICT_MAX_ATTEMPTS 8
#define FC_VERDICT_MAX_REASONS 32
#define FC_VERDICT_NAME 64
#define FC_VERDICT_TEXT 512

typedef enum fc_verdict {
    FC_VERDICT_PASS = 0,
    FC_VERDICT_INCOMPLETE,
    FC_VERDICT_FAIL,
} fc_verdict_t;

const char *fc_verdict_name(fc_verdict_t v);

/* One finding against a rack: a failure or the reason it is incomplete. */
typedef struct fc_finding {
    fc_verdict_t verdict;           /* FAIL, or INCOMPLETE */
    char stage[16];                 /* the stage it is about, or "run" */
    char part[16];                  /* link, NIC, GPU, node, rack, path, ... */
    char host[FC_VERDICT_NAME];     /* the host to pull, "" if none */
    char text[FC_VERDICT_TEXT];     /* the evidence, one line ("... [and 3
                                     * more]" when it stands for several) */
} fc_finding_t;

typedef struct fc_stage_verdict {
    fc_verdict_t verdict;           /* the stage's, on this rack */
    int ran;                        /* a finished attempt included the rack */
    int checks, failed;             /* judged records for this rack */
    char backend[16];               /* what the stage really ran on ("" if
                                     * it did not start on the rack) */
    char backend_requested[16];     /* what the profile or --backend asked */
    char backend_note[FC_VERDICT_TEXT]; /* why it fell back, if it did, or
                                     * that its GPU plugin is not the build's */
    json_t *gpu_plugin;             /* path, origin and sha256 of the plugin
                                     * that measured (nccl), else NULL */
    char coverage[FC_VERDICT_TEXT]; /* pairs, sampled: "sampled: 4 partners
                                     * per node, 9 of 15 pairs measured";
                                     * "" for the full matrix */
} fc_stage_verdict_t;

typedef struct fc_rack_verdict {
    char rack[FC_VERDICT_NAME];     /* its name in the plan's inventory */
    int nhosts;                     /* hosts in hosts[] */
    char (*hosts)[FC_VERDICT_NAME]; /* its hosts, in inventory order */
    json_t *hosts_left_out;         /* the hosts the rack map gives it that
                                     * the run left out (not in the host
                                     * list or the allocation), or NULL */
    fc_verdict_t verdict;           /* the worst of its findings */
    fc_stage_verdict_t stages[FC_STAGE_COUNT];  /* per stage, by id */
    int nfindings;                  /* findings in findings[] */
    fc_finding_t findings[FC_VERDICT_MAX_REASONS];  /* in the order found */
    int more_findings;              /* findings beyond the array */
    json_t *checks;                 /* the judged records (checks, hangs and
                                     * crashes: fc_record.h) that measured
                                     * or implicate this rack, in order */
    json_t *quarantines;            /* quarantine records of its hosts */
    json_t *failed_checks;          /* those of checks that fail the rack
                                     * (same objects) */
    json_t *incomplete_checks;      /* measured but not certifiable */
    json_t *explained;              /* failures of a wrong result that a host
                                     * placed elsewhere explains: {stage,
                                     * check, host, rack, evidence}, neither
                                     * failing the rack nor counted as its
                                     * checks (fc_verdict_retest.h) */
} fc_rack_verdict_t;

typedef struct fc_run_verdict {
    int nracks;                     /* racks in racks[] */
    fc_rack_verdict_t *racks;       /* in the inventory's order */
    int planned[FC_STAGE_COUNT];    /* stage in the profile's plan */
    int selected[FC_STAGE_COUNT];   /* and run by this invocation (not left
                                     * out by --stages) */
    int required[FC_STAGE_COUNT];   /* and required by the profile */
    fc_verdict_t overall;           /* the worst rack's verdict */
    json_t *plan;                   /* the runner's plan record */
    char run_id[64];                /* the plan's run id */
    char started[32], finished[32]; /* the first and last record times */
    int truncated_lines;            /* records cut off by a kill */
    json_t *resumes;                /* the run's `resume` records, in order
                                     * (empty: it ran in one go) */
    int plan_legacy;                /* the plan predates recording overrides
                                     * and stage selection */
    int require_signature;          /* certificates must be signed: the
                                     * frozen profile.yaml says so
                                     * (fc_verdict_plan.h), or the plan
                                     * does where that cannot be read */
} fc_run_verdict_t;

/* 1 if a rack name can name a certificate file (letters, digits, '-', '_'
 * and '.', not first, not empty); the runner refuses others up front. */
int fc_rack_name_ok(const char *name);

/* Read results.jsonl, from byte offset `from`, into an array of records.
 * A line that is not a JSON object (cut off by a kill, a full disk) is
 * counted in *bad_lines_p and left in place as a marker record of type
 * FC_UNREADABLE_RECORD (fc_record.h) with its line number. */
fc_status_t fc_results_load(const char *path, long from, json_t **records_p,
                            int *bad_lines_p);

/* Verdicts from the records; the plan (stages and which are required)
 * comes from the `plan` record the runner writes. profile: the frozen
 * profile of the run's directory, against which what each stage measured
 * is checked (its sweep, its limits); NULL when it could not be read (the
 * plan check then leaves every rack INCOMPLETE: fc_verdict_plan.h).
 * FC_ERR_INVALID when the records hold no inventory. */
fc_status_t fc_verdict_compute(json_t *records, const fc_profile_t *profile,
                               fc_run_verdict_t *out);
void fc_verdict_free(fc_run_verdict_t *v);

/* A finding of the whole run (stage "run", part "results") on every rack;
 * the racks' and the run's verdicts stay the worst of their findings. */
void fc_verdict_add_run_finding(fc_run_verdict_t *v, fc_verdict_t verdict, const char *text);
/* A finding of stage s on rack r (part: "backend", ...); the stage's, the
 * rack's and the run's verdicts stay the worst of their findings. */
void fc_verdict_add_stage_finding(fc_run_verdict_t *v, fc_rack_verdict_t *r, fc_stage_id_t s,
                                  fc_verdict_t verdict, const char *part, const char *text);

#endif
