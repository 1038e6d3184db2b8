/*
 * pairs_schedule.c - unit tests of lib/stage/fc_pairs.c. For every n from 2 to
 * 64: n-1 rounds when n is even and n when odd, no node twice in a round,
 * every round with floor(n/2) pairs, partners symmetric, and every pair of
 * nodes meeting exactly once. Then the localisation rule on planted
 * patterns: one bad node, one bad path, a bad node plus a bad path, two
 * nodes only (nothing can be localised), and a clean matrix.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_pairs.h"
#include "fc_tap.h"

static fc_tap_t tap;

static int check_schedule(int n, char *why, size_t len)
{
    int rounds = fc_pairs_rounds(n);
    int *met = calloc((size_t)n * n, sizeof(int));
    int ok = rounds == (n % 2 ? n : n - 1);

    if (!ok)
        snprintf(why, len, "%d rounds", rounds);
    for (int r = 0; ok && r < rounds; ++r) {
        int pairs = 0;

        for (int v = 0; v < n; ++v) {
            int p = fc_pairs_partner(n, r, v);

            if (p < 0)
                continue;
            if (p == v || p >= n || fc_pairs_partner(n, r, p) != v) {
                snprintf(why, len, "round %d: node %d -> %d is not symmetric", r, v, p);
                ok = 0;
                break;
            }
            if (v < p) {
                met[v * n + p]++;
                ++pairs;
            }
        }
        if (ok && pairs != n / 2) {
            snprintf(why, len, "round %d has %d pairs", r, pairs);
            ok = 0;
        }
    }
    for (int a = 0; ok && a < n; ++a)
        for (int b = a + 1; ok && b < n; ++b)
            if (met[a * n + b] != 1) {
                snprintf(why, len, "nodes %d and %d meet %d times", a, b, met[a * n + b]);
                ok = 0;
            }
    free(met);
    return ok;
}

/* all pairs of n nodes; slow pairs from a list of (a,b) */
static void localise(int n, const int *slow_list, int nslow, int *node_bad,
                     fc_pair_part_t *part, int *a, int *b)
{
    int np = 0, slow[64] = { 0 }, node_slow[16], node_partners[16];

    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) {
            a[np] = i;
            b[np] = j;
            for (int k = 0; k < nslow; ++k)
                if (slow_list[2 * k] == i && slow_list[2 * k + 1] == j)
                    slow[np] = 1;
            ++np;
        }
    fc_pairs_localise(n, np, a, b, slow, node_bad, node_slow, node_partners, part);
}

static int pair_index(int n, int i, int j)
{
    int k = 0;

    for (int x = 0; x < n; ++x)
        for (int y = x + 1; y < n; ++y, ++k)
            if (x == i && y == j)
                return k;
    return -1;
}

int main(void)
{
    int node_bad[16], a[64], b[64];
    fc_pair_part_t part[64];
    char why[128] = "";
    int all_ok = 1;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 16);
    for (int n = 2; n <= 64; ++n)
        if (!check_schedule(n, why, sizeof(why))) {
            fc_tap_diag(&tap, "n=%d: %s", n, why);
            all_ok = 0;
        }
    fc_tap_ok(&tap, all_ok, "round-robin schedule for 2..64 nodes: O(n) rounds, "
              "n/2 disjoint pairs each, every pair exactly once");
    fc_tap_is_int(&tap, fc_pairs_rounds(1), 0,
                  "one node has no rounds; a round past the last has no partner");
    fc_tap_is_int(&tap, fc_pairs_partner(1, 0, 0), -1,
                  "one node has no rounds; a round past the last has no partner"
                  " [fc_pairs_partner(1, 0, 0)]");
    fc_tap_is_int(&tap, fc_pairs_partner(4, 3, 0), -1,
                  "one node has no rounds; a round past the last has no partner"
                  " [fc_pairs_partner(4, 3, 0)]");

    /* node 2 of 6 has a bad link: all its 5 pairs are slow */
    int bad_node[] = { 0, 2, 1, 2, 2, 3, 2, 4, 2, 5 };
    localise(6, bad_node, 5, node_bad, part, a, b);
    fc_tap_ok(&tap, node_bad[2] && !node_bad[0] && !node_bad[3],
              "a node slow with all its partners implicates its own link");
    fc_tap_is_int(&tap, part[pair_index(6, 0, 2)], FC_PAIR_NODE_B,
                  "a node slow with all its partners implicates its own link"
                  " [part[pair_index(6, 0, 2)]]");
    fc_tap_is_int(&tap, part[pair_index(6, 2, 5)], FC_PAIR_NODE_A,
                  "a node slow with all its partners implicates its own link"
                  " [part[pair_index(6, 2, 5)]]");

    /* only the path 1-4 is slow */
    int bad_path[] = { 1, 4 };
    localise(6, bad_path, 1, node_bad, part, a, b);
    int none = 1;
    for (int v = 0; v < 6; ++v)
        none &= !node_bad[v];
    fc_tap_ok(&tap, none, "a single slow pair implicates the path, not either node");
    fc_tap_is_int(&tap, part[pair_index(6, 1, 4)], FC_PAIR_PATH,
                  "a single slow pair implicates the path, not either node"
                  " [part[pair_index(6, 1, 4)]]");
    fc_tap_is_int(&tap, part[pair_index(6, 0, 1)], FC_PAIR_OK,
                  "a single slow pair implicates the path, not either node"
                  " [part[pair_index(6, 0, 1)]]");

    /* node 0 bad, plus the path 3-5 */
    int both[] = { 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 3, 5 };
    localise(6, both, 6, node_bad, part, a, b);
    fc_tap_ok(&tap, node_bad[0] && !node_bad[3] && !node_bad[5],
              "a bad node and a bad path elsewhere are told apart");
    fc_tap_is_int(&tap, part[pair_index(6, 3, 5)], FC_PAIR_PATH,
                  "a bad node and a bad path elsewhere are told apart"
                  " [part[pair_index(6, 3, 5)]]");
    fc_tap_is_int(&tap, part[pair_index(6, 0, 3)], FC_PAIR_NODE_A,
                  "a bad node and a bad path elsewhere are told apart"
                  " [part[pair_index(6, 0, 3)]]");

    /* two nodes: a slow pair cannot say which end */
    int two[] = { 0, 1 };
    localise(2, two, 1, node_bad, part, a, b);
    fc_tap_ok(&tap, !node_bad[0] && !node_bad[1],
              "with two nodes a slow pair is the path (nothing to compare)");
    fc_tap_is_int(&tap, part[0], FC_PAIR_PATH,
                  "with two nodes a slow pair is the path (nothing to compare)"
                  " [part[0]]");

    localise(4, NULL, 0, node_bad, part, a, b);
    none = 1;
    for (int k = 0; k < 6; ++k)
        none &= part[k] == FC_PAIR_OK;
    fc_tap_ok(&tap, none && !node_bad[0] && !node_bad[3], "a clean matrix implicates nothing");
    return fc_tap_done(&tap);
}
