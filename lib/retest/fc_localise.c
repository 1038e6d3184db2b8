/*
 * fc_localise.c - see fc_localise.h. Two passes over the exchanges, in
 * both orders (bad senders, then bad receivers among what they do not
 * explain; and the reverse), and the simpler full explanation wins. For
 * the "every partner on another host" form the partners must sit on at
 * least two other hosts, so that one bad host cannot make its only remote
 * partner look bad in turn.
 */
#include "fc_localise.h"

#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"

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
 * skipping those the other side's blame already explains when
 * skip_blamed (a blamed sender's exchanges, for a receiver's tally; a
 * blamed receiver's, for a sender's). */
static void fc_tally(int me, int dir, const int *host, int nex,
                     const fc_exchange_t *ex, const fc_blame_t *blame,
                     int skip_blamed, int nhosts, fc_tally_t *t)
{
    char *seen = fc_xcalloc((size_t)nhosts + 1, 1, "the hosts seen");

    memset(t, 0, sizeof(*t));
    for (int i = 0; i < nex; ++i) {
        int self = dir == 0 ? ex[i].sender : ex[i].receiver;
        int other = dir == 0 ? ex[i].receiver : ex[i].sender;
        int bad = ex[i].wrong > 0;

        if (self != me || ex[i].iters <= 0)
            continue;
        if (skip_blamed && blame[other] == (dir == 0 ? FC_BLAME_RECEIVES : FC_BLAME_SENDS))
            continue;
        t->total++;
        t->wrong += bad;
        if (host[other] != host[me]) {
            t->remote++;
            t->remote_wrong += bad;
            if (!seen[host[other]]) {
                seen[host[other]] = 1;
                t->remote_hosts_seen++;
            }
        }
    }
    free(seen);
}

/* One order of the two passes: first_dir's culprits (0: senders, 1:
 * receivers), then the other kind among what they do not explain.
 * Returns the unexplained wrong exchanges; *nblamed_p the ranks blamed. */
static int fc_localise_order(int n, int nhosts, const int *host, int nex,
                             const fc_exchange_t *ex, int first_dir, fc_blame_t *blame,
                             int *nblamed_p)
{
    fc_blame_t kind[2] = { FC_BLAME_SENDS, FC_BLAME_RECEIVES };
    int unexplained = 0, nblamed = 0;
    fc_tally_t t;

    for (int r = 0; r < n; ++r)
        blame[r] = FC_BLAME_NONE;
    for (int pass = 0; pass < 2; ++pass) {
        int dir = pass == 0 ? first_dir : 1 - first_dir;

        for (int r = 0; r < n; ++r) {
            if (blame[r] != FC_BLAME_NONE)
                continue;
            fc_tally(r, dir, host, nex, ex, blame, pass == 1, nhosts, &t);
            if (t.wrong > 0 && fc_tally_all_wrong(&t)) {
                blame[r] = kind[dir];
                ++nblamed;
            }
        }
    }
    for (int i = 0; i < nex; ++i)
        if (ex[i].wrong > 0 && blame[ex[i].sender] != FC_BLAME_SENDS &&
            blame[ex[i].receiver] != FC_BLAME_RECEIVES)
            ++unexplained;
    *nblamed_p = nblamed;
    return unexplained;
}

/* The two orders can explain the same evidence differently: two bad
 * receivers make every send of their one healthy partner look wrong, and
 * senders-first blames that partner. The explanation kept is the one that
 * explains every wrong exchange with the fewest ranks; two different ones
 * of the same size cannot be told apart, and nothing is placed. */
int fc_localise(int n, const int *host, int nex, const fc_exchange_t *ex,
                fc_blame_t *blame)
{
    fc_blame_t *other = fc_xcalloc((size_t)n + 1, sizeof(*other), "the receivers-first blame");
    int nhosts = 0, un_s, un_r, nb_s = 0, nb_r = 0, same = 1;

    for (int r = 0; r < n; ++r)
        if (host[r] + 1 > nhosts)
            nhosts = host[r] + 1;
    un_s = fc_localise_order(n, nhosts, host, nex, ex, 0, blame, &nb_s);
    un_r = fc_localise_order(n, nhosts, host, nex, ex, 1, other, &nb_r);
    for (int r = 0; r < n; ++r)
        same &= blame[r] == other[r];
    if (same || (un_r > 0 && un_s == 0) || (un_s == 0 && un_r == 0 && nb_s < nb_r)) {
        free(other);
        return un_s;                /* senders first stands */
    }
    if ((un_s > 0 && un_r == 0) || (un_s == 0 && un_r == 0 && nb_r < nb_s)) {
        memcpy(blame, other, (size_t)n * sizeof(*blame));
        free(other);
        return 0;                   /* receivers first is the simpler one */
    }
    free(other);
    if (un_s > 0 && un_r > 0)
        return un_s < un_r ? un_s : un_r;     /* neither explains it all */
    for (int r = 0; r < n; ++r)
        blame[r] = FC_BLAME_NONE;   /* two explanations of one size */
    return 1;
}
