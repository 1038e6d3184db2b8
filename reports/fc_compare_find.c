/*
 * fc_compare_find.c - where a slowdown `fabcert compare` found is
 * (fc_compare.h): a node when every one of its pairs (two or more), or of
 * its node-stage points, is slower beyond the noise and one at least by
 * more than the floor, while (pairs) the pairs without it are not all
 * slower: its pairs then count against its own rack alone, as the pairs
 * stage places a NIC or link. A pair beyond the floor whose other end is
 * such a node with more pairs beyond the floor is that node's evidence,
 * not this one's (a slow link's partner, its other pairs a little slower
 * beside the ranks waiting on the link, is not named for the link's
 * pair). Any other comparison slower beyond the
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

/* The other host of a pair item (its host_a or host_b that is not host). */
static const char *fc_cmp_other_end(const fc_cmp_item_t *it, const char *host)
{
    return strcmp(it->host_a, host) ? it->host_a : it->host_b;
}

/* Whether the node is the common part of its slowdowns: every compared
 * item of `part` naming host (at least `least`) significantly slower, at
 * least one of them beyond the floor, and (pairs) the items that do not
 * name it not all significantly slower, else the slowdown is everyone's.
 * Their count, how many are beyond the floor, and the range of ratios.
 * With `ahead` (a JSON object: host -> its count of pairs beyond the
 * floor, for the nodes this rule holds for), a pair beyond the floor
 * whose other end is ahead of this node (more such pairs) is not counted
 * towards "at least one beyond the floor": it is that node's. */
static int fc_cmp_node_placed(const fc_compare_t *c, const char *part, const char *host,
                              int least, json_t *ahead, int *n_p, int *slow_p, double *lo_p,
                              double *hi_p)
{
    int n = 0, sig = 0, slow = 0, own = 0, others = 0, others_sig = 0;
    json_int_t mine = json_integer_value(json_object_get(ahead, host));

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
        own += it->slower && (ahead == NULL || json_integer_value(json_object_get(
                   ahead, fc_cmp_other_end(it, host))) <= mine);
        *lo_p = fmin(*lo_p, it->r.ratio - 1);
        *hi_p = fmax(*hi_p, it->r.ratio - 1);
    }
    *n_p = n;
    *slow_p = slow;
    return n >= least && sig == n && own > 0 &&
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

/* Each host named by a slower item of part `part`, once, in BEFORE's
 * order: placed (a finding) when the rule holds for it with `ahead`;
 * with `ahead_out`, only noted there with its count beyond the floor. */
static void fc_cmp_nodes(fc_compare_t *c, const char *part, json_t *ahead, json_t *ahead_out)
{
    json_t *done = json_object();

    for (int k = 0; k < c->nitems; ++k) {
        const fc_cmp_item_t *it = &c->items[k];
        const char *hosts[2] = { it->host_a, it->host_b };

        for (int h = 0; h < 2 && it->slower && !strcmp(it->part, part); ++h) {
            int n, slow;
            double lo, hi;

            if (!hosts[h][0] || json_object_get(done, hosts[h]))
                continue;
            json_object_set_new(done, hosts[h], json_true());
            if (!fc_cmp_node_placed(c, part, hosts[h], strcmp(part, "pair") ? 1 : 2, ahead,
                                    &n, &slow, &lo, &hi))
                continue;
            if (ahead_out)
                json_object_set_new(ahead_out, hosts[h], json_integer(slow));
            else
                fc_cmp_node_finding(c, part, hosts[h], n, slow, lo, hi);
        }
    }
    json_decref(done);
}

void fc_cmp_findings(fc_compare_t *c)
{
    json_t *parts = json_object(), *v;
    const char *part;

    /* nodes, part by part in BEFORE's order: the nodes the rule holds for,
     * then those of them whose pairs beyond the floor are their own */
    for (int k = 0; k < c->nitems; ++k)
        if (c->items[k].slower)
            json_object_set_new(parts, c->items[k].part, json_true());
    json_object_foreach(parts, part, v) {
        json_t *ahead = json_object();

        fc_cmp_nodes(c, part, NULL, ahead);
        fc_cmp_nodes(c, part, ahead, NULL);
        json_decref(ahead);
    }
    json_decref(parts);
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
