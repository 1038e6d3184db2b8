/*
 * fc_record.h - the record-type table: one entry per type of record in
 * results.jsonl, saying everything the reports do with that type. Is it a
 * check (judged by its stage: a verdict, reasons, what it implicates), or
 * the runner's account of an attempt that did not end (a hang, a crash),
 * or context that is never judged (the plan, a stage's start and end, the
 * pairs schedule, a soak window)? What is its label in every report ("pair
 * a <-> b", "link of h"), what does a finding say before the reason ("node
 * h: ..."), what does it add to its figure in the certificate, what does
 * the HTML show in its "measured" cell, which rules judged its figures,
 * which racks does it concern, and is zero tolerance for wrong bits
 * applied again from its own figures? The verdicts (fc_verdict*.c) and
 * every writer (certificate, HTML, JUnit, summary) ask this table; none of
 * them tells types apart by name.
 *
 * A type the table does not name (a record of a later fabcert, a typo)
 * gets the entry FC_RECORD_UNKNOWN, which keeps what the reports always
 * did with one: it is not judged (neither evidence nor misplaced, whatever
 * writer its `source` names; its verdict member, if any, is still counted
 * against its stage's end record like any record with a verdict), its
 * label is its type name and a finding's text about it the reason alone.
 *
 * Adding a type: a name in fc_record_id_t and a row in fc_record.c's
 * table; for a judged type, its label, subject, figure, cell and, where
 * its figures have rules, its rules and limits, together in its family's
 * fc_<family>_records.c (what figures share: fc_cert_figure.h; what rules
 * share: fc_rules.h).
 *
 * A leaf beside the writers: it calls none of them, and the functions it
 * names include nothing of the reports but the leaves fc_json.h,
 * fc_html_escape.h, fc_cert_figure.h and fc_rules.h.
 */
#ifndef FC_RECORD_H
#define FC_RECORD_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

/* The type of the marker record fc_results_load puts where a line could
 * not be read: the stage whose attempt was open there is INCOMPLETE. */
#define FC_UNREADABLE_RECORD "unreadable_record"

/* Every type of record, as results.jsonl names it (fc_record.c says who
 * writes each). */
typedef enum fc_record_id {
    FC_RECORD_UNKNOWN = 0,      /* a type this table does not name */
    FC_RECORD_POINT,            /* one measured point of a sweep */
    FC_RECORD_PAIR,             /* a pair of nodes, both directions */
    FC_RECORD_PAIRS_NODE,       /* a node, against all its partners */
    FC_RECORD_CONTENTION,       /* a collective under background traffic */
    FC_RECORD_OVERLAP,          /* a collective beside host compute */
    FC_RECORD_SCALING,          /* a point on one node count of the series */
    FC_RECORD_PREFLIGHT,        /* a node's inventory against the expected */
    FC_RECORD_SOAK_COUNTERS,    /* a node's link error counters over the soak */
    FC_RECORD_SOAK_GPU,         /* a GPU's burn and health over the soak */
    FC_RECORD_RETEST,           /* the retest that places a group's fault */
    FC_RECORD_HANG,             /* ranks that stopped (the runner's account) */
    FC_RECORD_CRASH,            /* ranks that died (the runner's account) */
    FC_RECORD_SELFTEST,         /* a self-test a stage could not run */
    FC_RECORD_PROBE,            /* a host no partner reached, before a stage began */
    FC_RECORD_CANNOT_START,     /* a host where the stage program could not start */
    FC_RECORD_QUARANTINE,       /* a host taken out of the run */
    FC_RECORD_PLAN,             /* the run's plan, profile and inventory */
    FC_RECORD_STAGE_START,      /* a stage's attempt began */
    FC_RECORD_STAGE_END,        /* ... and ended, with its own counts */
    FC_RECORD_STAGE_SKIP,       /* the runner skipped a stage */
    FC_RECORD_STAGE_ERROR,      /* the runner's account of a launch that failed */
    FC_RECORD_DEVICES,          /* the devices a stage's ranks used */
    FC_RECORD_PAIRS_SCHEDULE,   /* the rounds of the pairs stage */
    FC_RECORD_PAIRS_CONFIRMATION,   /* a slow pair measured again, alone */
    FC_RECORD_PAIRS_ROUND,      /* a round of the pairs tournament ended */
    FC_RECORD_SOAK_WINDOW,      /* one window of the soak's timings */
    FC_RECORD_RETEST_LAUNCH,    /* how long the runner's retest launch took */
    FC_RECORD_STAGE_DONE,       /* the runner is done with a stage (a resume keeps it) */
    FC_RECORD_RESUME,           /* the run was resumed: attempts it superseded */
    FC_RECORD_UNREADABLE,       /* FC_UNREADABLE_RECORD: a line not read */
    FC_RECORD_RAIL_PAIR,        /* a pair of NICs on one rail, both directions */
    FC_RECORD_RAIL_NODE,        /* a NIC, against all its partners on its rail */
    FC_RECORD_RAIL,             /* a rail, against the other rails */
    FC_RECORD_RAILS_ROUND,      /* a round of the rails tournaments ended */
    FC_RECORD_NVLINK_DOMAIN,    /* a rack's GPUs against one NVLink fabric clique */
    FC_RECORD_COUNT
} fc_record_id_t;

/* Who writes a type (fc_record_type_t.writers), and how its records say
 * so: the stage program inside its attempt (no `source` member), the
 * runner ("source":"runner") or the retest program that follows a stage
 * ("source":"retest"). Only the runner's and the retest's types may
 * follow a stage's end; only the stage's own are counted against its end
 * record. */
#define FC_BY_STAGE 1
#define FC_BY_RUNNER 2
#define FC_BY_RETEST 4

/* A record's name in the reports, into buf. */
typedef void (*fc_record_name_func_t)(json_t *rec, char *buf, size_t len);
/* Add a judged record's members to its certificate figure. */
typedef void (*fc_record_figure_func_t)(json_t *rec, json_t *figure);
/* Write a judged record's "measured" HTML cell. */
typedef void (*fc_record_cell_func_t)(FILE *f, json_t *rec);
/* Append the rules that judged a record's figures to lines. */
typedef void (*fc_record_rules_func_t)(json_t *rec, json_t *lines);
/* Judge a record's figures again against its own limits: 1, with why,
 * when they fail (fc_verdict_figures.h: fc_record_limit_fails). */
typedef int (*fc_record_limits_func_t)(json_t *rec, char *why, size_t len);

typedef struct fc_record_type {
    fc_record_id_t id;              /* its row in the table */
    const char *name;               /* its "type" in results.jsonl */
    int check;                      /* judged by its stage: a verdict,
                                     * reasons, implicates; a check of the
                                     * rack it concerns */
    int stop;                       /* the runner's account of an attempt
                                     * that did not end: judged like a
                                     * check, not counted as one */
    int writers;                    /* FC_BY_* of whoever writes it */
    int names_part;                 /* a failure of it is the verdict on the
                                     * part itself: its text replaces a
                                     * measurement's in the finding */
    int bits_rejudged;              /* zero tolerance applied again from its
                                     * own figures (fc_verdict_figures.h) */
    int bits_per_size;              /* ... and from each of its `sizes` */
    int calls_counted;              /* it carries the collective calls made
                                     * and checked (lib/engine/fc_calls.h), and its
                                     * PASS needs every one checked */
    const char *rack_keys[2];       /* the members naming a rack it
                                     * concerns (NULL: unused) */
    const char *racks_key;          /* an array member naming more racks it
                                     * concerns, or NULL */
    int whole_job;                  /* with an empty `rack` (and no
                                     * racks_key member), it concerns every
                                     * rack of its attempt */
    fc_record_name_func_t label;    /* its label in every report */
    fc_record_name_func_t subject;  /* what a finding names before the
                                     * reason, or NULL: the reason alone */
    fc_record_figure_func_t figure; /* its certificate figure's members, or
                                     * NULL (a type never judged) */
    fc_record_cell_func_t cell;     /* its HTML "measured" cell, or NULL */
    fc_record_rules_func_t rules;   /* the rules of its figures, or NULL */
    fc_record_limits_func_t limits; /* its figures against its limits, or
                                     * NULL (none judged again) */
} fc_record_type_t;

/* The entry of a type name, or of FC_RECORD_UNKNOWN. */
const fc_record_type_t *fc_record_type_named(const char *type);
/* The entry of a record's type; its id. */
const fc_record_type_t *fc_record_type_of(json_t *rec);
fc_record_id_t fc_record_id(json_t *rec);

/* 1 if rec's `source` (none: the stage) is one of its type's writers; a
 * record that claims another writer is forged or misplaced. A type the
 * table does not name may come from anyone. */
int fc_record_source_ok(json_t *rec);
/* 1 if the stage program writes rec's type: its records with a verdict
 * are counted against the stage's end record (judged_records). */
int fc_record_stage_writes(json_t *rec);
/* 1 if rec may follow its stage's end: a type the runner or the retest
 * writes (a hang, a crash, a quarantine, a retest, ...), labelled so, or
 * a type the table does not name (never judged, so never misplaced). */
int fc_record_may_follow_end(json_t *rec);

/* 1 if records of this type are judged checks (they carry a verdict,
 * reasons and what they implicate): point, pair, pairs_node, contention,
 * preflight, soak_counters, soak_gpu, retest. */
int fc_record_is_check(const char *type);

/* "all_reduce float32 sum 4 KiB on rack1" for a point, "pair a <-> b",
 * "link of h" ...; a type the table does not name: its type. */
void fc_check_label(json_t *rec, char *buf, size_t len);

/* A finding's text about rec: what it measured and why it failed ("pair a
 * <-> b: why", "node h: why", or the reason alone); the reason is `reason`
 * when given, else the record's first, else its `reason` member. */
void fc_record_text(json_t *rec, const char *reason, char *buf, size_t len);

/* 1 if rec names rack among the racks it concerns (its rack_keys and
 * racks_key); whether it speaks for its whole job instead (whole_job, no
 * `rack` and no racks_key member: the verdicts then ask its attempt). */
int fc_record_names_rack(json_t *rec, const char *rack);
int fc_record_whole_job(json_t *rec);

/* The rules of a judged record's figures (fc_rules.h): an array of
 * {"applied": bool, "text": "..."}, empty for a type without rules. */
json_t *fc_rules_of(json_t *rec);
/* The lines of fc_rules_of that applied (applied 1) or did not (0), joined
 * with " | ", into buf ("" when none). */
void fc_rules_text(json_t *rec, int applied, char *buf, size_t len);

#endif
