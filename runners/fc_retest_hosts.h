/*
 * fc_retest_hosts.h - the runner's side of the bounded retest of the hosts
 * common to every wrong result (lib/retest/fc_intersect.h, suites/retest_hosts.c).
 *
 * After each stage attempt (and the retest that follows it), the run's
 * records are read from the start: the wrong results no retest placed,
 * the pairs and retest exchanges that saw wrong bits. When the attempt
 * added such a sighting and they recur, the host in every one of them is
 * retested with two partners, checked point-to-point exchanges for up to
 * the profile's retest.intermittent_s (default 30 s), launched on those
 * hosts alone with the stages' ranks per node, launcher options and --env
 * variables. Its `retest` record lands in results.jsonl: a host placed is
 * quarantined like any (the runner's scan of the attempt's records), and
 * the verdicts no longer fail the other racks of the groups it explains
 * (reports/fc_verdict_retest.h). When the sightings have no host in
 * common, or the retest wrote nothing, the runner's own record says why;
 * nobody is quarantined, the groups stay implicated. On this machine alone
 * (no inventory) there is one host: nothing to intersect.
 */
#ifndef FC_RETEST_HOSTS_H
#define FC_RETEST_HOSTS_H

#include "fc_run.h"

/* After an attempt of `stage` (suffix "" or ".2"; its records from byte
 * `offset` of results.jsonl): returns 1 when records were appended. */
int fc_retest_hosts_after_stage(fc_run_state_t *st, const char *stage, const char *suffix,
                                long offset);

#endif
