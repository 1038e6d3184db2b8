/*
 * fc_pairs.c - see fc_pairs.h. Circle method: node m-1 (m = n rounded up
 * to even) stays put and meets node `round`; every other node i meets
 * (2*round - i) mod (m-1). A partner equal to n (odd n) is the bye.
 */
#include "fc_pairs.h"

#include <string.h>

int fc_pairs_rounds(int n)
{
    return n < 2 ? 0 : (n % 2 == 0 ? n - 1 : n);
}

int fc_pairs_partner(int n, int round, int node)
{
    int m = n + (n & 1);
    int p;

    if (n < 2 || round < 0 || round >= m - 1 || node < 0 || node >= n)
        return -1;
    if (node == m - 1)
        p = round;
    else if (node == round)
        p = m - 1;
    else
        p = ((2 * round - node) % (m - 1) + (m - 1)) % (m - 1);
    return p >= n ? -1 : p;
}

void fc_pairs_localise(int n, int npairs, const int *a, const int *b,
                       const int *slow, int *node_bad, int *node_slow,
                       int *node_partners, fc_pair_part_t *part)
{
    memset(node_bad, 0, (size_t)n * sizeof(int));
    memset(node_slow, 0, (size_t)n * sizeof(int));
    memset(node_partners, 0, (size_t)n * sizeof(int));
    for (int i = 0; i < npairs; ++i) {
        node_partners[a[i]]++;
        node_partners[b[i]]++;
        if (slow[i]) {
            node_slow[a[i]]++;
            node_slow[b[i]]++;
        }
    }
    for (int v = 0; v < n; ++v)
        node_bad[v] = node_slow[v] >= 2 && 2 * node_slow[v] > node_partners[v];
    for (int i = 0; i < npairs; ++i) {
        if (!slow[i])
            part[i] = FC_PAIR_OK;
        else if (node_bad[a[i]])
            part[i] = FC_PAIR_NODE_A;
        else if (node_bad[b[i]])
            part[i] = FC_PAIR_NODE_B;
        else
            part[i] = FC_PAIR_PATH;
    }
}
