/*
 * fc_drift_record.h - what the soak's drift judgement (lib/soak/fc_drift.h)
 * becomes in its point record and its reasons: the windows it was judged
 * on, the level held before and the one held after, the noise floor and
 * the tolerance (with whether the floor widened max_drift_pct), the rule
 * in words, and what confirmed the drift or contradicted it. MPI-free, so
 * unit-tested (tests/unit/soak_drift.c).
 */
#ifndef FC_DRIFT_RECORD_H
#define FC_DRIFT_RECORD_H

#include <stddef.h>

#include <jansson.h>

#include "fc_drift.h"

/* The drift members of a soak record's "soak" object: d judged over every
 * window, w the confirmation watch, o its outcome. */
void fc_drift_record(json_t *soak, const fc_drift_t *d, const fc_drift_watch_t *w,
                     fc_drift_outcome_t o);

/* The reason of a drift seen (o confirmed, contradicted or unconfirmed):
 * one sentence with both figures where there are two. */
void fc_drift_reason(const fc_drift_t *d, const fc_drift_watch_t *w, fc_drift_outcome_t o,
                     char *buf, size_t len);

/* The drift rule in words, for k windows. */
void fc_drift_rule_text(int k, char *buf, size_t len);

#endif
