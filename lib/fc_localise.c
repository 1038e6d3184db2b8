/*
 * fc_localise.c - see fc_localise.h. Two passes over the exchanges: bad
 * senders first, then bad receivers among the exchanges the senders do not
 * explain. For the "every partner on another host" form the partners must
 * sit on at least two other hosts, so that one bad host cannot make its
 * only remote partner look bad in turn.
 */
#include "fc_localise.h"

#include <stdlib.h>
#include <string.h>

/* Tallies of one rank's exchanges in one direction. */
typedef struct fc_tally {
    int total, wrong;               /* every partner */
    int remote, remote_wrong;       /* partners on other hosts */
    int remote_hosts_seen;          /* distinct other hosts among them */
} fc_tally_t;

static int fc_tally_all_wrong(const fc_tally_t *t)
{
    if (t->total >= 2 && t->wrong == t->total)
        return 1;
    return t->remote_hosts_seen >= 2 && t->remote_wrong == t->remote;
}

/* Tally rank `me`'s exchanges as sender (dir 0) or receiver (dir 1),
 * skipping those whose sender is blamed already when skip_blamed. */
static void fc_tally(int me, int dir, const int *host, int nex,
                     const fc_exchange_t *ex, const fc_blame_t *blame,
                     int skip_blamed, int nhosts, fc_tally_t *t)
{
    char *seen = calloc((size_t)nhosts + 1, 1);

    memset(t, 0, sizeof(*t));
    for (int i = 0; i < nex; ++i) {
        int self = dir == 0 ? ex[i].sender : ex[i].receiver;
        int other = dir == 0 ? ex[i].receiver : ex[i].sender;
        int bad = ex[i].wrong > 0;

        if (self != me || ex[i].iters <= 0)
            continue;
        if (skip_blamed && blame[ex[i].sender] == FC_BLAME_SENDS)
            continue;
        t->total++;
        t->wrong += bad;
        if (host[other] != host[me]) {
            t->remote++;
            t->remote_wrong += bad;
            if (seen && !seen[host[other]]) {
                seen[host[other]] = 1;
                t->remote_hosts_seen++;
            }
        }
    }
    free(seen);
}

int fc_localise(int n, const int *host, int nex, const fc_exchange_t *ex,
                fc_blame_t *blame)
{
    int nhosts = 0, unexplained = 0;
    fc_tally_t t;

    for (int r = 0; r < n; ++r) {
        blame[r] = FC_BLAME_NONE;
        if (host[r] + 1 > nhosts)
            nhosts = host[r] + 1;
    }
    for (int r = 0; r < n; ++r) {
        fc_tally(r, 0, host, nex, ex, blame, 0, nhosts, &t);
        if (t.wrong > 0 && fc_tally_all_wrong(&t))
            blame[r] = FC_BLAME_SENDS;
    }
    for (int r = 0; r < n; ++r) {
        if (blame[r] != FC_BLAME_NONE)
            continue;
        fc_tally(r, 1, host, nex, ex, blame, 1, nhosts, &t);
        if (t.wrong > 0 && fc_tally_all_wrong(&t))
            blame[r] = FC_BLAME_RECEIVES;
    }
    for (int i = 0; i < nex; ++i)
        if (ex[i].wrong > 0 && blame[ex[i].sender] != FC_BLAME_SENDS &&
            blame[ex[i].receiver] != FC_BLAME_RECEIVES)
            ++unexplained;
    return unexplained;
}
