/*
 * fc_calls.h - how many collective calls a measurement made and how many
 * of their outputs it checked, by kind: the warm-up's, the timed
 * iterations', the batched timing's. No PASS from an unchecked call: a
 * point, a contention phase, a scaling count or an overlap size whose
 * checked calls fall short of its made ones is not a PASS, in the stage's
 * judgement (lib/engine/fc_judge.c and the stages' own judges) and again in the
 * report's, from the record alone (reports/fc_verdict_figures.c), where a
 * record of those types without the count cannot show it either.
 * MPI-free (the reports read it).
 *
 * In a record: "calls": {"warmup": {"made": M, "checked": C}, "timed":
 * {...}, "batched": {...}}: a rank's calls (every rank makes the same
 * ones), the checked ones on the rank that checked fewest.
 */
#ifndef FC_CALLS_H
#define FC_CALLS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

typedef enum fc_calls_kind {
    FC_CALLS_WARMUP,
    FC_CALLS_TIMED,
    FC_CALLS_BATCHED,
    FC_CALLS_KINDS
} fc_calls_kind_t;

typedef struct fc_calls {
    int64_t made[FC_CALLS_KINDS];
    int64_t checked[FC_CALLS_KINDS];
} fc_calls_t;

/* "warmup", "timed", "batched" */
const char *fc_calls_kind_name(fc_calls_kind_t kind);

/* sum += c (the soak's runs, a contention record's phases). */
void fc_calls_add(fc_calls_t *sum, const fc_calls_t *c);
/* Fold one rank's count into a group's: made the most, checked the
 * fewest of any rank (first: the group's first rank, taken as it is). */
void fc_calls_fold(fc_calls_t *group, const fc_calls_t *rank, int first);

/* Calls whose output was not checked (0 when every one was). */
int64_t fc_calls_unchecked(const fc_calls_t *c);
/* "3 of 11 collective calls were made but their outputs not checked
 * (warmup 1 of 1, timed 5 of 5, batched 2 of 5 checked)" */
void fc_calls_why(const fc_calls_t *c, char *buf, size_t len);

/* The record member (above). */
json_t *fc_calls_json(const fc_calls_t *c);
/* The report's reading of a record's "calls" member: 1 when it does not
 * show every call checked (absent, malformed, a count that is not a whole
 * number of 0 or more, checked below or above made) or shows no timed
 * call made (a measurement of nothing), with why. */
int fc_calls_json_unchecked(json_t *member, char *why, size_t len);

#endif
