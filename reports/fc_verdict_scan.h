/*
 * fc_verdict_scan.h - how the files of the verdict (fc_verdict.h) share
 * their work, for them alone. fc_verdict_setup.c reads the plan and the
 * racks; a first pass over the records (fc_verdict_attempts.c) finds each
 * stage's attempts (a stage_start opens one, its stage_end closes it) and
 * the records that are no evidence of any; then, rack by rack, the
 * rack's records are judged into findings (fc_verdict_findings.c), each
 * stage is checked for what is missing (fc_verdict_attempts.c), and what
 * holds for the whole run is added (fc_verdict.c).
 */
#ifndef FC_VERDICT_SCAN_H
#define FC_VERDICT_SCAN_H

#include "fc_record.h"
#include "fc_verdict.h"


typedef struct fc_attempt {
    json_t *hosts;          /* rank_hosts of its stage_start */
    json_t *host_set;       /* the same as an object host -> true (a rack's
                             * hosts are looked up in it once per rack and
                             * record: a list of 8,192 ranks' hosts was
                             * scanned for each); freed with the scan */
    json_t *start;          /* its stage_start record */
    int ended, skipped;     /* its stage_end was read; it said SKIP */
    const char *reason;     /* why it was skipped */
    const char *status;     /* its stage_end's status: ok, fail, ... */
    const char *error;      /* the stage's first error, when it gave one */
    const char *end_verdict;    /* its stage_end's verdict */
    /* its stage_end's counts, each a whole number >= 0, or -1 when it is
     * missing or not one (the end record then contradicts itself) */
    json_int_t failed_points;   /* TAP points that failed */
    json_int_t points;          /* TAP points */
    json_int_t judged_written;  /* records with a verdict it wrote */
    json_int_t judged_np_written;   /* ... of which not PASS */
    int unreadable;         /* records of its time that could not be read */
    long not_pass;          /* its own check records that did not pass */
    long judged_seen;       /* its own records with a verdict, as read */
    long judged_np_seen;    /* ... of which not PASS */
    int other_profile;      /* it judged against another profile's bytes */
    int superseded;         /* a resume ran the stage again from its start
                             * (a `resume` record): its passing and
                             * incomplete checks are no evidence, its
                             * failures still are */
    json_t *devices;        /* its devices record (the nccl backend's GPU
                             * of every rank, and how many each host has
                             * visible), or NULL */
    size_t first, end;      /* where it lies in the records: its
                             * stage_start, and its stage_end (the end of
                             * the records when it did not end) */
    struct fc_sweep_result *sweep;  /* its records against the sweep the
                             * plan gives it (fc_verdict_sweep.c), or NULL
                             * (not checked: no sweep, not finished, no
                             * frozen profile) */
} fc_attempt_t;

typedef struct fc_stage_attempts {
    fc_attempt_t a[FC_VERDICT_MAX_ATTEMPTS];    /* in the order they began */
    int n;                  /* attempts in a[] */
    int beyond;             /* stage_starts past FC_VERDICT_MAX_ATTEMPTS: their
                             * records are not followed, so the stage
                             * cannot be judged whole */
} fc_stage_attempts_t;

/* What the first pass over the records found, for every rack's pass. */
typedef struct fc_verdict_scan {
    fc_stage_attempts_t att[FC_STAGE_COUNT];    /* each stage's attempts */
    const char *skip_reason[FC_STAGE_COUNT];    /* why the runner skipped a
                                                 * stage or could not launch it */
    int unreadable_early;   /* unreadable records before any stage */
    int misplaced;          /* records of another run, or judged records
                             * outside any attempt of a known stage */
    int forged;             /* records whose `source` names a writer that
                             * does not write their type (fc_record.h) */
    unsigned char *ignored; /* per record: misplaced, not evidence */
    unsigned char *unplaced;    /* per record: names no rack of the plan
                                 * (1 failing, 2 INCOMPLETE) */
    /* per record, found once for every rack's pass (at 128 racks the
     * pass over 50,000 records spent most of its time finding them again):
     * its type's entry, its stage (-1: none) and whether it is another
     * run's */
    const fc_record_type_t **type;
    signed char *stage;
    unsigned char *other_run;
    json_t *limits;         /* records judged against another limit than
                             * the frozen profile's, or whose figures fail
                             * it: index -> {verdict, text}
                             * (fc_verdict_limits.c); NULL: none */
} fc_verdict_scan_t;

/* fc_verdict_setup.c: the plan record (exactly one, unambiguous) and the
 * racks of its inventory into out (FC_ERR_INVALID with a message); and
 * which hosts are a rack's. */
fc_status_t fc_verdict_setup(json_t *records, fc_run_verdict_t *out);

/* 1 if host is one of rack r's. */
int fc_rack_has_host(const fc_rack_verdict_t *r, const char *host);
/* 1 if the attempt ran on a host of rack r; on host. */
int fc_attempt_includes(const fc_attempt_t *at, const fc_rack_verdict_t *r);
int fc_attempt_ran_on(const fc_attempt_t *at, const char *host);

/* fc_verdict_attempts.c: the first pass into scan (whose ignored and
 * unplaced arrays hold one byte per record, zeroed). */
void fc_verdict_scan(json_t *records, const fc_run_verdict_t *out, fc_verdict_scan_t *scan);
/* Stage s on rack r, after its records were judged: left out, not run,
 * not finished, judged nothing, records unreadable... a finding each
 * (last_index: the latest attempt that included the rack, or -1;
 * last_checks: its checks of the rack). Also notes the backend it ran on. */
void fc_verdict_stage_completeness(const fc_run_verdict_t *out, fc_rack_verdict_t *r,
                                   fc_stage_id_t s, const fc_stage_attempts_t *att,
                                   int last_index, int last_checks,
                                   const char *skip_reason);

/* fc_verdict_sweep.c: each finished attempt of a stage that sweeps, its
 * records against the sweep the frozen profile (NULL: none, nothing is
 * checked) and the plan's overrides give it, into its sweep; per rack,
 * what of that concerns the rack as an INCOMPLETE finding of stage s
 * (last: the attempt that speaks for the rack). */
void fc_verdict_sweep_scan(json_t *records, const fc_run_verdict_t *out,
                           const fc_profile_t *profile, fc_verdict_scan_t *scan);
void fc_verdict_sweep_findings(fc_rack_verdict_t *r, fc_stage_id_t s, const fc_attempt_t *last);
void fc_verdict_sweep_free(fc_verdict_scan_t *scan);

/* fc_verdict_limits.c: each point and pair record's limits against the
 * frozen profile's (NULL: none, nothing is checked) into scan->limits; the
 * issue of record i ("FAIL" or "INCOMPLETE", its text in *text_p), or
 * NULL. */
void fc_verdict_limits_scan(json_t *records, const fc_run_verdict_t *out,
                            const fc_profile_t *profile, fc_verdict_scan_t *scan);
const char *fc_verdict_limit_issue(const fc_verdict_scan_t *scan, size_t i, const char **text_p);

/* fc_verdict_findings.c: a finding against rack r; findings of the same
 * verdict, stage, part and host are one, with a count. primary: the text
 * is the verdict on the part itself (a quarantine, a node's localisation,
 * a hang) and replaces a measurement's text. */
void fc_add_finding(fc_rack_verdict_t *r, fc_verdict_t verdict, const char *stage,
                    const char *part, const char *host, const char *text, int primary);
/* Mark in scan->unplaced the records that name no rack of the plan. */
void fc_verdict_find_unplaced(json_t *records, const fc_run_verdict_t *out,
                              fc_verdict_scan_t *scan);
/* Judge every record against rack r, each against the attempt it belongs
 * to (last: per stage, the latest attempt that included r); counts into
 * last_checks each stage's checks of r in that attempt. */
void fc_verdict_judge_rack(json_t *records, const fc_run_verdict_t *out,
                           const fc_verdict_scan_t *scan, fc_rack_verdict_t *r,
                           const int last[FC_STAGE_COUNT], int last_checks[FC_STAGE_COUNT]);

#endif
