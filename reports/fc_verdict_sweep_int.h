/*
 * fc_verdict_sweep_int.h - what reports/fc_verdict_sweep.c (every stage's
 * records against its planned sweep) shares with
 * reports/fc_verdict_sweep_pairs.c (the pairs stage's: its schedule, full
 * or sampled, derived again, and its pair records held to it).
 */
#ifndef FC_VERDICT_SWEEP_INT_H
#define FC_VERDICT_SWEEP_INT_H

#include "fc_verdict_scan.h"

#include "fc_stage.h"

/* One attempt's records against its planned sweep. */
struct fc_sweep_result {
    fc_stage_sweep_check_t check;
    int npoints;                /* planned points (per group), or sizes per pair */
    fc_test_point_t *points;    /* the planned points, in the stage's order */
    int iters, warmup;          /* as planned */
    int nkinds;                 /* background kinds per point (kinds), else 1 */
    char kind_names[FC_BG_KINDS + 1][32];
    fc_contention_profile_t cont;   /* the contention settings (kinds) */
    int ngroups;                /* groups (points, kinds), hosts (pairs, rails) */
    int nrails;                 /* rails: the ranks per host; else 1 */
    json_t *index;              /* a planned point's key -> its index */
    json_t *groups;             /* group (or host) name -> index */
    json_t *names;              /* index -> name */
    unsigned char *seen;        /* ngroups x npoints x nkinds, or nhosts x
                                 * nhosts (pairs), per rail (rails) */
    int pairs_mode, pairs_partners;     /* pairs: the profile's schedule */
    int sampled;                /* pairs: the schedule is the sampled plan */
    int partners;               /* pairs, sampled: K as the schedule uses it */
    long measured;              /* pairs, sampled: planned pairs met (counted
                                 * once, for every rack), or -1 */
    unsigned char *planned;     /* pairs: nhosts x nhosts, the pairs it meets;
                                 * NULL for rails (every pair on every rail) */
    json_t *problems;           /* [{hosts: [...] (none: every rack of the
                                 * attempt), kind, text}] */
};

/* Pairs of hosts (the pairs stage), or of NICs on each rail (rails). */
#define FC_BY_HOST(sw) ((sw)->check == FC_SWEEP_CHECK_PAIRS || (sw)->check == FC_SWEEP_CHECK_RAILS)

/* A problem of the attempt: hosts (none: every rack of the attempt), its
 * kind (plan, group, extra, twice, sizes, iters, warmup, mode), the text. */
void fc_sweep_problem(struct fc_sweep_result *sw, json_t *hosts, const char *kind,
                      const char *text);
/* The pairs the stage's schedule meets over the attempt's hosts:
 * sw->planned (and sampled, partners); 0, or -1 with the reason. */
int fc_sweep_pairs_plan(const fc_run_verdict_t *out, struct fc_sweep_result *sw);
/* A pair record against the schedule and the planned sweep. */
void fc_sweep_pair_record(struct fc_sweep_result *sw, json_t *rec);
/* Rails: a problem for each NIC (host, rail) of the attempt without its
 * rail_node record. */
void fc_sweep_rail_nodes(json_t *records, const fc_attempt_t *a, const fc_verdict_scan_t *scan,
                         fc_stage_id_t s, struct fc_sweep_result *sw);
/* A sampled run's coverage for rack r's stage s ("sampled: K partners per
 * node, N of M pairs measured"); nothing for the full matrix. */
void fc_sweep_pairs_coverage(struct fc_sweep_result *sw, fc_rack_verdict_t *r,
                             fc_stage_id_t s);

#endif
