/*
 * fc_summary.h - the short text summary of a run's verdicts: the overrides
 * and any backend fallback first, then one line per rack, then the
 * failures, and per rack and stage a `note:` line when a rule was not
 * applied to some checks (how many, and the first with why).
 */
#ifndef FC_SUMMARY_H
#define FC_SUMMARY_H

#include <stdio.h>

#include "fc_verdict.h"

/* The summary of v to out; with dir, a last line says where the
 * certificates and the HTML report are. */
void fc_summary_write(FILE *out, const fc_run_verdict_t *v, const char *dir);

#endif
