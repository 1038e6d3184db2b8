/*
 * fc_compare_find.c - where a slowdown `fabcert compare` found is
 * (fc_compare.h): a node when every one of its pairs (two or more), or of
 * its node-stage points, is slower beyond the noise and one at least by
 * more than the floor, while (pairs) the pairs without it are not all
 * slower: its pairs then count against its own rack alone, as the pairs
 * stage places a NIC or link. Any other comparison slower beyond the
 * floor stands alone: a pair's path, a rack, the cluster. Findings are
 * made in the order of BEFORE's records, so the same runs give the same
 * findings.
 */
#include "fc_compare_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"

static fc_cmp_finding_t *fc_cmp_new_finding(fc_compare_t *c, const char *part)
{
    fc_cmp_finding_t *p;

    c->findings = fc_xrealloc(c->findings, (size_t)c->nfindings + 1, sizeof(*c->findings),
                              "the comparison's findings");
    p = &c->findings[c->nfindings++];
    memset(p, 0, sizeof(*p));
    snprintf(p->part, sizeof(p->part), "%s", part);
    return p;
}

/* Significantly slower: Holm rejected "not slower" (the floor aside). */
static int fc_cmp_sig(const fc_cmp_item_t *it)
{
    return it->compared && it->rejected && it->r.ratio > 1;
}

/* Whether the node is the common part of its slowdowns: every compared
 * item of `part` naming host (at least `least`) significantly slower, at
 * least one of them beyond the floor, and (pairs) the items that do not
 * name it not all significantly slower, else the slowdown is everyone's.
 * Their count, how many are beyond the floor, and the range of ratios. */
static int fc_cmp_node_placed(const fc_compare_t *c, const char *part, const char *host,
                              int least, int *n_p, int *slow_p, double *lo_p, double *hi_p)
{
    int n = 0, sig = 0, slow = 0, others = 0, others_sig = 0;

    *lo_p = INFINITY;
    *hi_p = -INFINITY;
    for (int k = 0; k < c->nitems; ++k) {
        const fc_cmp_item_t *it = &c->items[k];

        if (!it->compared || strcmp(it->part, part))
            continue;
        if (strcmp(it->host_a, host) && strcmp(it->host_b, host)) {
            ++others;
            others_sig += fc_cmp_sig(it);
            continue;
        }
        ++n;
        sig += fc_cmp_sig(it);
        slow += it->slower;
        *lo_p = fmin(*lo_p, it->r.ratio - 1);
        *hi_p = fmax(*hi_p, it->r.ratio - 1);
    }
    *n_p = n;
    *slow_p = slow;
    return n >= least && sig == n && slow > 0 &&
           (strcmp(part, "pair") || others == 0 || others_sig < others);
}

static void fc_cmp_node_finding(fc_compare_t *c, const char *part, const char *host,
                                int n, int slow, double lo, double hi)
{
    fc_cmp_finding_t *f = fc_cmp_new_finding(c, "node");
    const char *rack = fc_json_str(c->in[0].rack_of, host);   /* "" if unknown */

    snprintf(f->host, sizeof(f->host), "%s", host);
    snprintf(f->rack_a, sizeof(f->rack_a), "%s", rack);
    snprintf(f->text, sizeof(f->text), "node %s: every one of its %d %s is slower beyond the "
             "noise (%d by more than the %.4g%% floor), by %.1f%% to %.1f%%%s", host, n,
             !strcmp(part, "pair") ? "pairs (all sizes)" : "node-stage points", slow,
             100 * c->o->min_slowdown, 100 * lo, 100 * hi, !strcmp(part, "pair")
             ? ", and the pairs without it are not: its NIC, link or switch port" : "");
    for (int k = 0; k < c->nitems; ++k) {
        fc_cmp_item_t *it = &c->items[k];

        if (it->slower && !strcmp(it->part, part) &&
            (!strcmp(it->host_a, host) || !strcmp(it->host_b, host))) {
            it->explained = 1;
            snprintf(it->placed_host, sizeof(it->placed_host), "%s", host);
            snprintf(it->placed_rack, sizeof(it->placed_rack), "%s", rack);
        }
    }
}

void fc_cmp_findings(fc_compare_t *c)
{
    json_t *done = json_object();

    /* nodes: each host named by a slower item, once */
    for (int k = 0; k < c->nitems; ++k) {
        const fc_cmp_item_t *it = &c->items[k];
        const char *hosts[2] = { it->host_a, it->host_b };

        for (int h = 0; h < 2 && it->slower; ++h) {
            int n, slow;
            double lo, hi;
            char key[200];

            if (!hosts[h][0])
                continue;
            snprintf(key, sizeof(key), "%s|%s", it->part, hosts[h]);
            if (json_object_get(done, key))
                continue;
            json_object_set_new(done, key, json_true());
            if (fc_cmp_node_placed(c, it->part, hosts[h], strcmp(it->part, "pair") ? 1 : 2,
                                   &n, &slow, &lo, &hi))
                fc_cmp_node_finding(c, it->part, hosts[h], n, slow, lo, hi);
        }
    }
    json_decref(done);
    /* the rest stand alone: a path, a rack, the cluster */
    for (int k = 0; k < c->nitems; ++k) {
        const fc_cmp_item_t *it = &c->items[k];
        fc_cmp_finding_t *f;
        char what[300];

        if (!it->slower || it->explained)
            continue;
        f = fc_cmp_new_finding(c, !strcmp(it->part, "pair") ? "path" : it->part);
        snprintf(f->host, sizeof(f->host), "%s", it->host_a);
        snprintf(f->rack_a, sizeof(f->rack_a), "%s", it->rack_a);
        snprintf(f->rack_b, sizeof(f->rack_b), "%s", it->rack_b);
        fc_cmp_item_text(it, what, sizeof(what));
        snprintf(f->text, sizeof(f->text), "%s is %s", it->label, what);
    }
}
