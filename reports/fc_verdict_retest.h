/*
 * fc_verdict_retest.h - how the verdicts read the retest (suites/retest.c).
 * A failing check whose wrong result implicates its whole group
 * (implicates.localised false) fails every rack of the group, "not yet
 * localised", unless a `retest` record of the same stage and group follows
 * it (before that stage's next attempt): then the retest speaks instead. A
 * retest that confirmed a node implicates that node's rack alone; one that
 * could not place the fault implicates every rack of the group, "not
 * localised"; either is a FAIL, never a PASS. A later bounded retest of
 * the host common to every wrong result (runners/fc_retest_hosts.h) that
 * places it explains the groups that hold it: their other racks are no
 * longer failed for it (fc_retest_explained_by). (Which racks a retest record
 * concerns, and its certificate figure, are the record-type table's:
 * fc_record.h.)
 */
#ifndef FC_VERDICT_RETEST_H
#define FC_VERDICT_RETEST_H

#include <jansson.h>

/* 1 when records[at] is a pending wrong result that a later retest record
 * has judged (so the retest, not this record, fails the racks). */
int fc_retest_supersedes(json_t *records, size_t at);

/* The bounded retest's record (method "intersection", localised, a FAIL;
 * lib/retest/fc_intersect.h) that explains records[at] for rack `rack`, or NULL:
 * records[at] is a failure of a wrong result that implicates its whole
 * group (a pending check, or a retest record that placed nothing), a later
 * record of the same run placed a host of that group, one of its suspects
 * (a partner placed is a fault of its own), and lists the group (stage and
 * name) in its `explains`, and the rack is not that host's.
 * Such a record neither fails the rack nor counts as a check of it: the
 * wrong bits were the placed host's, spread into the group's output. */
json_t *fc_retest_explained_by(json_t *records, size_t at, const char *rack);

#endif
