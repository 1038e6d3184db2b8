/*
 * fc_counters_check.h - a measuring interval's link counters judged, not
 * only shown, from the figures a record carries, so the stage
 * that writes the record and the report that reads it judge alike:
 *
 *   - traffic: a point that spans more than one host must have moved, out
 *     of each host's links, at least what its collective must send between
 *     hosts (fc_counters_host_min_tx, a lower bound, times the calls of the
 *     interval); a host whose links moved less sent the traffic elsewhere
 *     (shared memory, another interface than the links read): the figure
 *     does not measure the fabric under test, INCOMPLETE naming the host,
 *     its links and the bytes seen against the bound;
 *   - errors (rx/tx errors, carrier changes, InfiniBand symbol, link
 *     downed, ... errors) that rose by more than counters.max_errors on a
 *     link (default 0), drops and discards above max_drops, transport
 *     retries above max_retries (both not judged by default: drops are
 *     congestion, and a shaped link's queue drops them by design): FAIL
 *     naming the host, the link and the counter;
 *   - a counter of a judged class that could not be counted over the
 *     point (it went down: the port or its statistics were reset; or it
 *     sat at its narrow file's maximum: fc_counters_interval.c's
 *     not_counted) judged nothing on that link: INCOMPLETE naming the
 *     host, the link and the counter (without it a reset mid-point read as
 *     errors +0 and a host with no bytes out to judge: a PASS).
 *
 * What a record needs: collective, bytes, iters, warmup (the interval is
 * the point's whole run), hosts, and counters {hosts: {host: {sum, links}},
 * ranks_per_host: {host: n}, limits: {max_errors, max_drops, max_retries,
 * traffic}} (fc_counters_limits_json). A record without counters.limits is
 * not judged here (counters not read, or an older fabcert).
 *
 * MPI-free (the reports judge records again with it).
 */
#ifndef FC_COUNTERS_CHECK_H
#define FC_COUNTERS_CHECK_H

#include <stddef.h>

#include <jansson.h>

#include "fc_profile.h"

/* The bytes a host holding host_ranks of nranks ranks (over nhosts hosts)
 * must send out of its links per call of the collective named (size
 * bytes, in nccl-tests' sense: fc_coll.h): all_reduce (in place too)
 * (nhosts-1)/nhosts of the buffer (its reduce-scatter share; every
 * algorithm sends at least the buffer); all_gather its ranks' blocks,
 * host_ranks/nranks of the output; reduce_scatter the other hosts' blocks
 * of its input, (nranks-host_ranks)/nranks; all_to_all its ranks' blocks
 * for the other hosts' ranks, host_ranks*(nranks-host_ranks)/nranks of a
 * buffer. -1 when no bound applies to one host (one host; broadcast,
 * whose tree may spare any host but the root's; reduce, sendrecv). */
double fc_counters_host_min_tx(const char *collective, double bytes, int nranks,
                               int host_ranks, int nhosts);

/* The bytes all nhosts hosts together must send per call: broadcast
 * (nhosts-1) buffers (every other host receives it); -1 otherwise. */
double fc_counters_group_min_tx(const char *collective, double bytes, int nhosts);

/* The profile's counters limits as records carry them: {"max_errors": N,
 * "max_drops": N or null (not judged), "max_retries": N or null,
 * "traffic": true|false}. */
json_t *fc_counters_limits_json(const fc_counters_profile_t *cp);

/* Judge rec's counters: NULL when it carries none to judge (no
 * counters.limits); else {"verdict": "PASS"|"FAIL"|"INCOMPLETE",
 * "reasons": [...] (FAIL reasons first), "min_tx_bytes": {host: N} (the
 * bound each host was held to, over the interval), "notes": [why a rule
 * did not judge], "implicates": {"part": "link", "host", "link"} of the
 * first FAIL, or null}. */
json_t *fc_counters_check(const json_t *rec);

/* The stage's side: judge rec (fc_counters_check), keep the judgement as
 * rec's counters.check and, when rec says PASS and the counters do not,
 * make rec say so: verdict FAIL (reasons first, implicates the link) or
 * INCOMPLETE (reasons first). Returns rec's verdict after it: 0 PASS or
 * unchanged, 1 FAIL, 2 INCOMPLETE (by the counters). */
int fc_counters_apply(json_t *rec);

/* The report's side: when rec says PASS and its counters judged again
 * say otherwise, the verdict they give ("FAIL", "INCOMPLETE") and why in
 * text; else NULL. */
const char *fc_counters_rejudged(const json_t *rec, char *text, size_t len);

#endif
