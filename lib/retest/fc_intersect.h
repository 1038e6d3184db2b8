/*
 * fc_intersect.h - placing an intermittent wrong result by intersection
 * (no MPI: the runner and the retest program call it, and
 * tests/unit/intersect.c tests it on fixture records).
 *
 * A part that flips a bit now and then (a NIC, a DIMM) makes a collective's
 * output wrong for its whole group, and the retest that follows the stage
 * (suites/retest.c) may not see it again in its few exchanges. Each time
 * the wrong bits come back, though, they name a set of hosts one of which
 * is at fault: the group whose output was wrong, the two nodes of a pair,
 * the sender and receiver of a retest exchange. The host in every set is
 * the suspect. The ranks that saw the wrong bits narrow it where the
 * groups cannot: a bit flipped in what a node receives shows on that
 * node's own output; one flipped in what it sends shows on its partners'.
 *
 * fc_intersect_find reads the run's records and returns the retest to run:
 *   {placeable, reason, suspects: [host...], partners: [host...],
 *    narrowed (by the observers), sightings (count), new_sightings (from
 *    record index `from` on), evidence: [{stage, what, hosts, observers,
 *    points}], groups: [{stage, group, hosts, racks}] (every failing
 *    record of a wrong result not yet placed), host_racks: {host: rack}}.
 * A sighting placed already (a group holding a host that a retest or the
 * pairs stage placed for wrong data) is left out: that host explains it.
 * Not placeable: no sighting, one sighting only (nothing recurs), no host
 * in every sighting (two faults, or a fault off the groups), every such
 * host out of the run, or too few hosts for a retest (the suspect and two
 * partners). The partners are healthy hosts outside the suspects, first
 * those in no failing group, from other racks than the suspects' and than
 * each other's.
 *
 * fc_intersect_judge judges the bounded retest of the suspects with their
 * partners: every directed host pair's checked exchanges, summed. The
 * fault is placed on host X when X is in every wrong exchange, and either
 * X's wrong exchanges span two partner hosts or more, or one was inside X
 * itself (no other host's part on that path); and some exchange without X
 * was checked right. What it receives is wrong when X received every
 * wrong one, what it sends when X sent them. Anything else places nothing
 * and says why; no wrong exchange at all is "not reproduced", never a
 * pass.
 */
#ifndef FC_INTERSECT_H
#define FC_INTERSECT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* The retest to run from the records of run `run_id` (records: an array,
 * in file order); `healthy`: the hosts still in the run; `host_racks`:
 * {host: rack} of the inventory. Returns a new object (see above). */
json_t *fc_intersect_find(json_t *records, const char *run_id, size_t from, json_t *healthy,
                          json_t *host_racks);

/* "a, b, c": a JSON array of names, into buf. */
void fc_intersect_names(json_t *set, char *buf, size_t len);

/* One directed host pair of the bounded retest: what `sender`'s ranks sent
 * to `receiver`'s, checked bitwise on arrival, summed over its ranks and
 * sweeps (the same host for the exchanges inside one node). */
typedef struct fc_host_exchange {
    int sender, receiver;           /* host indices */
    long exchanges, wrong_exchanges;
    uint64_t wrong;                 /* wrong elements, over every buffer */
    uint64_t bytes;                 /* checked */
    uint64_t first_index, expected, actual;     /* the first wrong element */
} fc_host_exchange_t;

typedef enum fc_intersect_outcome {
    FC_INTERSECT_PLACED = 0,        /* `host` is the fault */
    FC_INTERSECT_NOT_REPRODUCED,    /* every exchange right */
    FC_INTERSECT_NOT_PLACED,        /* wrong exchanges, no one host to blame */
} fc_intersect_outcome_t;

typedef struct fc_intersect_verdict {
    fc_intersect_outcome_t outcome;
    int host;                       /* placed: its index, else -1 */
    const char *direction;          /* placed: "receive", "send", "send and
                                     * receive", or "within the node" */
    int counterparts;               /* partner hosts in its wrong exchanges */
    long exchanges, wrong_exchanges, controls_right;
    char why[1024];                 /* the confirmation, or why not */
} fc_intersect_verdict_t;

/* Judge nex directed pairs among nhosts hosts named names[]. */
void fc_intersect_judge(int nhosts, const char *const *names, int nex,
                        const fc_host_exchange_t *ex, fc_intersect_verdict_t *v);

/* The `retest` record of a bounded retest: the plan (fc_intersect_find's
 * object, with limit_s), the stage it follows, the judged exchanges and
 * their verdict, its time. Placed: implicates that node (quarantine),
 * `explains` the plan's groups that hold it; otherwise implicates the
 * suspects as a group, nobody quarantined, "not reproduced in N s of
 * checked exchanges with partners A, B: ... stays implicated with its
 * group". Always a FAIL. */
json_t *fc_intersect_record(json_t *plan, const char *run_id, const char *stage, int nhosts,
                            const char *const *names, int nex, const fc_host_exchange_t *ex,
                            const fc_intersect_verdict_t *v, long bytes, int ranks,
                            long sweeps, double seconds);

#endif
