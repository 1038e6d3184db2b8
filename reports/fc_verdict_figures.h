/*
 * fc_verdict_figures.h - zero tolerance for wrong bits, applied again by the
 * report from each record's own figures. A stage judges its checks and
 * writes the verdict beside the figures; the report does not take that
 * verdict on trust where the figures themselves show wrong bits: a record
 * with wrong elements (`wrong` above 0, or any size of a pair with wrong
 * elements), or whose ranks or repetitions hold different output bits
 * (`digest_ranks_agree` or `digest_reps_agree` not true), is a FAIL
 * whatever its `verdict` says. A figure that is there but is not a count
 * (a string, a negative number) cannot show that nothing was wrong, and
 * counts as wrong. Retest records are not re-judged: their wrong
 * exchanges are the evidence that places a fault, and their verdict is
 * already a FAIL.
 *
 * The absolute limits the same way: a record that says PASS while its own
 * figures fail the limit it records (a busbw below min_busbw_gbps, a
 * median above max_latency_us, a pair's size below its min_bw_gbps, a
 * soak's drift above max_drift_pct) is a FAIL, unless it carries a
 * confirmation alone that cleared it (not_reproduced, its alone figures
 * meeting the same limit by the majority rule): the stage's own rule, in
 * which an unconfirmed timing failure still fails its group. That the
 * limit it records is the one the frozen profile gives it is checked
 * where the profile is known (fc_verdict_limits.c).
 *
 * And the calls: a record that counts its collective calls (a point, a
 * contention phase, a scaling count, an overlap size: lib/engine/fc_calls.h) and
 * says PASS while its count does not show every call's output checked,
 * or has no count, is a FAIL: no PASS from an unchecked call.
 */
#ifndef FC_VERDICT_FIGURES_H
#define FC_VERDICT_FIGURES_H

#include <jansson.h>
#include <stddef.h>

/* 1 when rec's own figures show wrong bits; why says which ("wrong 3,
 * digest_ranks_agree false"). */
int fc_record_wrong_bits(json_t *rec, char *why, size_t len);

/* 1 when rec's own figures fail the limits it records (no matter its
 * verdict): a point's busbw below its limit's min_busbw_gbps (where busbw
 * means something: more than one rank, a bus factor above 0) or its
 * median above max_latency_us; a soak point's sustained drift above its
 * max_drift_pct; a pair's bandwidth at a size below that size's
 * min_bw_gbps or its latency above its latency_limit. Not when a
 * confirmation alone cleared it: its verdict not_reproduced, and its
 * alone measurements meeting the same limit by the majority rule
 * (lib/engine/fc_confirm_rule.h), as the stage decides. why says which. */
int fc_record_limit_fails(json_t *rec, char *why, size_t len);

/* 1 when rec is of a type that counts its collective calls (fc_record.h
 * calls_counted) and its "calls" member does not show every call made
 * checked (lib/engine/fc_calls.h: absent, malformed, or checked below made):
 * no PASS from an unchecked call. why says which. */
int fc_record_unchecked_calls(json_t *rec, char *why, size_t len);

/* 1 when the report's verdict on rec is FAIL though its own is not: its
 * figures show wrong bits (any verdict but FAIL), or it says PASS and its
 * figures do not show every call checked (fc_record_unchecked_calls) or
 * fail its limit (fc_record_limit_fails); text says which, in the words
 * every report uses. */
int fc_record_rejudged(json_t *rec, char *text, size_t len);

/* The verdict the report gives rec: "FAIL" when its figures show wrong
 * bits, or when it says PASS and its figures do not show every call
 * checked or fail its limit, else its own verdict ("" when it has none). */
const char *fc_record_verdict(json_t *rec);

/* 1 when rec contradicts itself, so neither its PASS nor the fault it
 * clears can be taken on trust: a retest record that is not a FAIL, or a
 * PASS whose confirmation did not clear it (its verdict other than "ok"
 * or "not_reproduced", or confirmed true). why says which. The rack it
 * concerns is INCOMPLETE, never PASS. */
int fc_record_contradiction(json_t *rec, char *why, size_t len);

#endif
