/*
 * fc_verdict_retest.h - how the verdicts read the retest (suites/retest.c).
 * A failing check whose wrong result implicates its whole group
 * (implicates.localised false) fails every rack of the group, "not yet
 * localised", unless a `retest` record of the same stage and group follows
 * it (before that stage's next attempt): then the retest speaks instead. A
 * retest that confirmed a node implicates that node's rack alone; one that
 * could not place the fault implicates every rack of the group, "not
 * localised"; either is a FAIL, never a PASS. (Which racks a retest record
 * concerns, and its certificate figure, are the record-type table's:
 * fc_record.h.)
 */
#ifndef FC_VERDICT_RETEST_H
#define FC_VERDICT_RETEST_H

#include <jansson.h>

/* 1 when records[at] is a pending wrong result that a later retest record
 * has judged (so the retest, not this record, fails the racks). */
int fc_retest_supersedes(json_t *records, size_t at);

#endif
