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
 */
#ifndef FC_VERDICT_FIGURES_H
#define FC_VERDICT_FIGURES_H

#include <jansson.h>
#include <stddef.h>

/* 1 when rec's own figures show wrong bits; why says which ("wrong 3,
 * digest_ranks_agree false"). */
int fc_record_wrong_bits(json_t *rec, char *why, size_t len);

/* The verdict the report gives rec: "FAIL" when its figures show wrong
 * bits, else its own verdict ("" when it has none). */
const char *fc_record_verdict(json_t *rec);

/* 1 when rec contradicts itself, so neither its PASS nor the fault it
 * clears can be taken on trust: a retest record that is not a FAIL, or a
 * PASS whose confirmation did not clear it (its verdict other than "ok"
 * or "not_reproduced", or confirmed true). why says which. The rack it
 * concerns is INCOMPLETE, never PASS. */
int fc_record_contradiction(json_t *rec, char *why, size_t len);

#endif
