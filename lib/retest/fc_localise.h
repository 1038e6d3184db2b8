/*
 * fc_localise.h - placing a wrong result on the part that caused it, from
 * checked point-to-point exchanges; kept apart from MPI so that the rule
 * is unit-tested.
 *
 * A collective's wrong output says only that some member of the group sent
 * or received wrong bits: a corrupted contribution spreads to every rank's
 * output, so the rank that observed it first is not the culprit. The retest
 * (suites/retest.c) makes every two ranks exchange a known pattern in both
 * directions and checks every buffer bitwise; each direction is one
 * fc_exchange_t. The rule:
 *   - a rank whose sends are wrong to every partner it sent to (at least
 *     two), or to every partner on another host (on at least two other
 *     hosts: a NIC that corrupts what leaves the node but not shared
 *     memory), is a bad sender;
 *   - with the exchanges of bad senders set aside, a rank that received
 *     wrong data from every remaining partner (same thresholds) is a bad
 *     receiver;
 *   - the result is localised when at least one rank is bad and every
 *     wrong exchange is explained by a bad sender or a bad receiver;
 *   - the same is done receivers first; when both orders explain every
 *     wrong exchange, the one that blames fewer ranks stands (two bad
 *     receivers make their healthy partner's sends all look wrong), and
 *     two different explanations of one size place nothing.
 * Two ranks alone, or two hosts whose only remote partner is each other,
 * cannot tell a bad sender from a bad receiver: that stays not localised.
 */
#ifndef FC_LOCALISE_H
#define FC_LOCALISE_H

#include <stdint.h>

/* One direction of one checked exchange. */
typedef struct fc_exchange {
    int32_t sender, receiver;   /* rank indices, 0..n-1 */
    int32_t iters;              /* buffers exchanged in this direction */
    int32_t wrong_iters;        /* of those, buffers with a wrong element */
    uint64_t wrong;             /* wrong elements, over every buffer */
    uint64_t first_index;       /* first wrong element (when wrong > 0) */
    uint64_t expected, actual;  /* its bits */
    double seconds;             /* median time of one exchange, as the
                                 * receiver timed it (the retest's timing) */
} fc_exchange_t;

typedef enum fc_blame {
    FC_BLAME_NONE = 0,
    FC_BLAME_SENDS = 1,         /* what the rank sends is wrong */
    FC_BLAME_RECEIVES = 2,      /* what the rank receives is wrong */
} fc_blame_t;

/* n ranks, host[r] the host index of rank r; nex exchanges. Sets blame[n]
 * and returns the number of wrong exchanges that no blamed rank explains
 * (so: localised when it returns 0 and some blame[r] is set). */
int fc_localise(int n, const int *host, int nex, const fc_exchange_t *ex,
                fc_blame_t *blame);

#endif
