/*
 * localise.c - unit tests of lib/retest/fc_localise.c on planted exchange
 * patterns, each built as the retest builds them (every two ranks once,
 * both directions): one rank corrupting every send, every rank of one host
 * corrupting what it sends (the injector, or a node), a NIC that corrupts
 * only what leaves its host, a rank whose receives are wrong, one wrong
 * exchange alone (intermittent: not localised), two ranks (cannot tell
 * sender from receiver), two hosts with a NIC fault (the same), and a
 * clean matrix (nothing blamed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_localise.h"
#include "fc_tap.h"

#define MAXR 32

static fc_exchange_t ex[MAXR * MAXR];
static int nex;

/* Every ordered pair once; bad(s, r) decides which directions are wrong. */
static void build(int n, const int *host, int (*bad)(int s, int r, const int *host))
{
    nex = 0;
    for (int a = 0; a < n; ++a)
        for (int b = 0; b < n; ++b) {
            if (a == b)
                continue;
            memset(&ex[nex], 0, sizeof(ex[nex]));
            ex[nex].sender = a;
            ex[nex].receiver = b;
            ex[nex].iters = 3;
            if (bad(a, b, host)) {
                ex[nex].wrong = 3;
                ex[nex].wrong_iters = 3;
            }
            ++nex;
        }
}

static int bad_rank2_sends(int s, int r, const int *h) { return s == 2; }
static int bad_host1_sends(int s, int r, const int *h) { return h[s] == 1; }
static int bad_host1_nic(int s, int r, const int *h) { return h[s] == 1 && h[r] != 1; }
static int bad_rank3_receives(int s, int r, const int *h) { return r == 3; }
static int one_wrong(int s, int r, const int *h) { return s == 1 && r == 4; }
static int none(int s, int r, const int *h) { return 0; }
static int bad_hosts12_receive(int s, int r, const int *h) { return h[r] == 1 || h[r] == 2; }

static int only(const fc_blame_t *blame, int n, fc_blame_t what, int lo, int hi_excl,
                const int *host, int by_host)
{
    for (int r = 0; r < n; ++r) {
        int in = by_host ? host[r] == lo : (r >= lo && r < hi_excl);

        if ((in && blame[r] != what) || (!in && blame[r] != FC_BLAME_NONE))
            return 0;
    }
    return 1;
}

int main(void)
{
    fc_tap_t tap;
    fc_blame_t blame[MAXR];
    int single[4] = { 0, 0, 0, 0 };
    int six[12] = { 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5 };    /* --map-by node */
    int two[2] = { 0, 1 };
    int twohosts[4] = { 0, 1, 0, 1 };
    int u;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 22);

    build(4, single, bad_rank2_sends);
    u = fc_localise(4, single, nex, ex, blame);
    fc_tap_is_int(&tap, u, 0,
                  "one node, rank 2 corrupting its sends: rank 2 is the bad sender, "
                  "not the ranks that received from it");
    fc_tap_ok(&tap, only(blame, 4, FC_BLAME_SENDS, 2, 3, single, 0),
              "one node, rank 2 corrupting its sends: rank 2 is the bad sender, "
              "not the ranks that received from it"
              " [only(blame, 4, FC_BLAME_SENDS, 2, 3, single, 0)]");

    build(12, six, bad_host1_sends);
    u = fc_localise(12, six, nex, ex, blame);
    fc_tap_is_int(&tap, u, 0, "6 hosts x 2 ranks, host 1 corrupting every send: both its ranks "
                  "and nothing else");
    fc_tap_ok(&tap, only(blame, 12, FC_BLAME_SENDS, 1, 0, six, 1),
              "6 hosts x 2 ranks, host 1 corrupting every send: both its ranks "
              "and nothing else"
              " [only(blame, 12, FC_BLAME_SENDS, 1, 0, six, 1)]");

    build(12, six, bad_host1_nic);
    u = fc_localise(12, six, nex, ex, blame);
    fc_tap_is_int(&tap, u, 0, "a NIC corrupting only what leaves host 1 (shared memory right): "
                  "host 1's ranks are the bad senders");
    fc_tap_ok(&tap, only(blame, 12, FC_BLAME_SENDS, 1, 0, six, 1),
              "a NIC corrupting only what leaves host 1 (shared memory right): "
              "host 1's ranks are the bad senders"
              " [only(blame, 12, FC_BLAME_SENDS, 1, 0, six, 1)]");

    build(12, six, bad_rank3_receives);
    u = fc_localise(12, six, nex, ex, blame);
    fc_tap_is_int(&tap, u, 0, "rank 3 receiving wrong data from everyone: a bad receiver");
    fc_tap_ok(&tap, only(blame, 12, FC_BLAME_RECEIVES, 3, 4, six, 0),
              "rank 3 receiving wrong data from everyone: a bad receiver"
              " [only(blame, 12, FC_BLAME_RECEIVES, 3, 4, six, 0)]");

    build(12, six, one_wrong);
    u = fc_localise(12, six, nex, ex, blame);
    fc_tap_is_int(&tap, u, 1,
                  "one wrong exchange alone: not localised, nobody blamed (%d unexplained)", u);
    fc_tap_ok(&tap, only(blame, 12, FC_BLAME_NONE, -1, -1, six, 0),
              "one wrong exchange alone: not localised, nobody blamed (%d unexplained)"
              " [only(blame, 12, FC_BLAME_NONE, -1, -1, six, 0)]", u);

    build(2, two, bad_host1_sends);
    u = fc_localise(2, two, nex, ex, blame);
    fc_tap_is_int(&tap, u, 1, "two ranks: a wrong direction cannot be placed on either end");
    fc_tap_is_int(&tap, blame[0], FC_BLAME_NONE,
                  "two ranks: a wrong direction cannot be placed on either end"
                  " [blame[0]]");
    fc_tap_is_int(&tap, blame[1], FC_BLAME_NONE,
                  "two ranks: a wrong direction cannot be placed on either end"
                  " [blame[1]]");

    build(4, twohosts, bad_host1_nic);
    u = fc_localise(4, twohosts, nex, ex, blame);
    fc_tap_ok(&tap, u > 0 && only(blame, 4, FC_BLAME_NONE, -1, -1, twohosts, 0),
              "two hosts, a NIC fault: sender and receiver cannot be told apart");

    build(4, twohosts, bad_host1_sends);
    u = fc_localise(4, twohosts, nex, ex, blame);
    fc_tap_is_int(&tap, u, 0,
                  "two hosts, every send of host 1 wrong (shared memory too): host 1");
    fc_tap_ok(&tap, only(blame, 4, FC_BLAME_SENDS, 1, 0, twohosts, 1),
              "two hosts, every send of host 1 wrong (shared memory too): host 1"
              " [only(blame, 4, FC_BLAME_SENDS, 1, 0, twohosts, 1)]");

    /* two bad receivers make every send of their one healthy partner look
     * wrong: the simpler explanation (the two receivers) stands */
    int three[6] = { 0, 1, 2, 0, 1, 2 };
    int ok2 = 1;

    build(6, three, bad_hosts12_receive);
    u = fc_localise(6, three, nex, ex, blame);
    for (int r = 0; r < 6; ++r)
        ok2 &= blame[r] == (three[r] == 0 ? FC_BLAME_NONE : FC_BLAME_RECEIVES);
    fc_tap_is_int(&tap, u, 0, "racks of one node, hosts 1 and 2 receiving wrong data: "
                  "they are the bad receivers, host 0 (all of whose sends look wrong) is not");
    fc_tap_ok(&tap, ok2, "racks of one node, hosts 1 and 2 receiving wrong data: "
              "they are the bad receivers, host 0 (all of whose sends look wrong) is not"
              " [ok2]");
    ok2 = 1;
    build(12, six, bad_hosts12_receive);
    u = fc_localise(12, six, nex, ex, blame);
    for (int r = 0; r < 12; ++r)
        ok2 &= blame[r] == (six[r] == 1 || six[r] == 2 ? FC_BLAME_RECEIVES : FC_BLAME_NONE);
    fc_tap_is_int(&tap, u, 0, "6 hosts, 2 of them receiving wrong data: those 2, as "
                  "receivers");
    fc_tap_ok(&tap, ok2, "6 hosts, 2 of them receiving wrong data: those 2, as "
              "receivers"
              " [ok2]");

    build(12, six, none);
    u = fc_localise(12, six, nex, ex, blame);
    fc_tap_is_int(&tap, u, 0, "a clean matrix blames nobody");
    fc_tap_ok(&tap, only(blame, 12, FC_BLAME_NONE, -1, -1, six, 0),
              "a clean matrix blames nobody"
              " [only(blame, 12, FC_BLAME_NONE, -1, -1, six, 0)]");
    return fc_tap_done(&tap);
}
