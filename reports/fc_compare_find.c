/*
 * fc_compare_find.c - where a slowdown `fabcert compare` found is
 * (fc_compare.h): a node when every one of its pairs (two or more), or of
 * its node-stage points, is slower beyond the noise (its pairs then count
 * against its own rack alone, as the pairs stage places a NIC or link);
 * any other slower comparison stands alone: a pair's path, a rack, the
 * cluster. Findings are made in the order of BEFORE's records, so the
 * same runs give the same findings.
 */
#include "fc_compare_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static fc_cmp_finding_t *fc_cmp_new_finding(fc_compare_t *c, const char *part)
{
    fc_cmp_finding_t *p = realloc(c->findings, (size_t)(c->nfindings + 1) * sizeof(*p));

    if (p == NULL)
        return NULL;
    c->findings = p;
    p = &c->findings[c->nfindings++];
    memset(p, 0, sizeof(*p));
    snprintf(p->part, sizeof(p->part), "%s", part);
    return p;
}

/* Whether every compared item of `part` naming host is slower (at least
 * `least` of them): the node is the common part. */
static int fc_cmp_all_slower(const fc_compare_t *c, const char *part, const char *host,
                             int least, int *n_p, double *lo_p, double *hi_p)
{
    int n = 0, slow = 0;

    *lo_p = INFINITY;
    *hi_p = -INFINITY;
    for (int k = 0; k < c->nitems; ++k) {
        const fc_cmp_item_t *it = &c->items[k];

        if (!it->compared || strcmp(it->part, part) ||
            (strcmp(it->host_a, host) && strcmp(it->host_b, host)))
            continue;
        ++n;
        slow += it->slower;
        *lo_p = fmin(*lo_p, it->r.ratio - 1);
        *hi_p = fmax(*hi_p, it->r.ratio - 1);
    }
    *n_p = n;
    return n >= least && slow == n;
}

static void fc_cmp_node_finding(fc_compare_t *c, const char *part, const char *host,
                                int n, double lo, double hi)
{
    fc_cmp_finding_t *f = fc_cmp_new_finding(c, "node");
    const char *rack = fc_json_str(c->in[0].rack_of, host);   /* "" if unknown */

    if (f == NULL)
        return;
    snprintf(f->host, sizeof(f->host), "%s", host);
    snprintf(f->rack_a, sizeof(f->rack_a), "%s", rack);
    snprintf(f->text, sizeof(f->text), "node %s: every one of its %d %s is slower beyond the "
             "noise, by %.1f%% to %.1f%%%s", host, n, !strcmp(part, "pair")
             ? "pairs (all sizes)" : "node-stage points", 100 * lo, 100 * hi,
             !strcmp(part, "pair") ? ", while pairs without it are not all slower: its "
             "NIC, link or switch port" : "");
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
            int n;
            double lo, hi;
            char key[200];

            if (!hosts[h][0])
                continue;
            snprintf(key, sizeof(key), "%s|%s", it->part, hosts[h]);
            if (json_object_get(done, key))
                continue;
            json_object_set_new(done, key, json_true());
            if (fc_cmp_all_slower(c, it->part, hosts[h], strcmp(it->part, "pair") ? 1 : 2,
                                  &n, &lo, &hi))
                fc_cmp_node_finding(c, it->part, hosts[h], n, lo, hi);
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
        if (f == NULL)
            return;
        snprintf(f->host, sizeof(f->host), "%s", it->host_a);
        snprintf(f->rack_a, sizeof(f->rack_a), "%s", it->rack_a);
        snprintf(f->rack_b, sizeof(f->rack_b), "%s", it->rack_b);
        fc_cmp_item_text(it, what, sizeof(what));
        snprintf(f->text, sizeof(f->text), "%s is %s", it->label, what);
    }
}
