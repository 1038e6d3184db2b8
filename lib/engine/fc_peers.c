/*
 * fc_peers.c - see fc_peers.h. Groups are sorted into classes by shape
 * (a short list of distinct shapes: a stage has a few), each class's
 * figures are sorted once, and every member gets its class's reference.
 * For groups (the median) a member is compared with the median of the
 * *other* members of its class: its own figure never pulls its reference
 * down, so in a class of two a slow rack is judged against its twin, not
 * against the mean of itself and its twin. Pairs keep the upper median of
 * the whole class, which already stays on the healthy side while fewer
 * than half the pairs are slow. A member never meets a figure of another
 * shape.
 */
#include "fc_peers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"

const char *fc_peer_transport(const fc_peer_shape_t *shape)
{
    return shape->nhosts <= 1 ? "intra-node" : "network";
}

int fc_peer_same_class(const fc_peer_shape_t *a, const fc_peer_shape_t *b)
{
    return a->nhosts == b->nhosts && a->nranks == b->nranks && a->path == b->path;
}

fc_peer_path_t fc_peer_pair_path(int rack_a, int rack_b)
{
    return rack_a == rack_b ? FC_PEER_PATH_SAME_RACK : FC_PEER_PATH_SPINE;
}

void fc_peer_class_text(const fc_peer_shape_t *shape, int members, const char *kind,
                        char *buf, size_t len)
{
    const char *plural = members == 1 ? "" : "s";
    char count[16] = "";

    if (members != 1)
        snprintf(count, sizeof(count), "%d ", members);
    if (shape->path != FC_PEER_PATH_NONE)
        snprintf(buf, len, "%s%s%s %s", count, kind, plural,
                 shape->path == FC_PEER_PATH_SAME_RACK ? "in the same rack"
                                                      : "across the spine");
    else
        snprintf(buf, len, "%s%s%s of %d node%s x %d rank%s (%s)", count, kind,
                 plural, shape->nhosts, shape->nhosts == 1 ? "" : "s",
                 shape->nranks, shape->nranks == 1 ? "" : "s",
                 fc_peer_transport(shape));
}

static int fc_peer_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* Median or upper median of n sorted values (n >= 1). */
static double fc_peer_stat(const double *sorted, int n, fc_peer_stat_t stat)
{
    if (stat == FC_PEER_UPPER_MEDIAN || n % 2 == 1)
        return sorted[n / 2];
    return (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

/* The median of n sorted values without one instance of `self` (n >= 2). */
static double fc_peer_median_without(const double *sorted, int n, double self)
{
    int skip = 0, m = n - 1;
    double mid[2];

    while (skip < n - 1 && sorted[skip] != self)
        ++skip;
    /* element k of the others is sorted[k] below the skipped one, k+1 above */
    for (int i = 0; i < 2; ++i) {
        int k = i == 0 ? (m - 1) / 2 : m / 2;

        mid[i] = sorted[k < skip ? k : k + 1];
    }
    return (mid[0] + mid[1]) / 2;
}

/* Class index of every group; returns the number of classes.
 * classes_p gets one representative shape per class. */
static int fc_peer_classify(const fc_peer_shape_t *shapes, int n, int *class_of,
                            fc_peer_shape_t **classes_p)
{
    fc_peer_shape_t *classes = fc_xcalloc((size_t)n + 1, sizeof(*classes), "the peer classes");
    int nclasses = 0;

    for (int g = 0; g < n; ++g) {
        int c = 0;

        while (c < nclasses && !fc_peer_same_class(&classes[c], &shapes[g]))
            ++c;
        if (c == nclasses)
            classes[nclasses++] = shapes[g];
        class_of[g] = c;
    }
    *classes_p = classes;
    return nclasses;
}

/* The reference of class c for its members, or why it has none. */
static void fc_peer_judge_class(const fc_peer_shape_t *shape, int c, const int *class_of,
                                const double *figures, const int *has_figure, int n,
                                fc_peer_stat_t stat, const char *kind, double *scratch,
                                fc_peer_ref_t *out)
{
    int members = 0, with_figure = 0;
    char text[128];     /* "13 pairs across the spine" */
    double ref = 0;

    for (int g = 0; g < n; ++g) {
        if (class_of[g] != c)
            continue;
        ++members;
        if (has_figure[g])
            scratch[with_figure++] = figures[g];
    }
    if (with_figure > 0) {
        qsort(scratch, (size_t)with_figure, sizeof(*scratch), fc_peer_cmp_double);
        ref = fc_peer_stat(scratch, with_figure, stat);
    }
    for (int g = 0; g < n; ++g) {
        fc_peer_ref_t *r = &out[g];

        if (class_of[g] != c)
            continue;
        r->members = with_figure;
        if (has_figure[g] && with_figure >= 2 && stat == FC_PEER_UPPER_MEDIAN) {
            fc_peer_class_text(shape, with_figure, kind, text, sizeof(text));
            r->applies = 1;
            r->reference = ref;
            snprintf(r->class_desc, sizeof(r->class_desc), "upper median of %s", text);
        } else if (has_figure[g] && with_figure >= 2) {
            r->applies = 1;
            r->members = with_figure - 1;
            r->reference = fc_peer_median_without(scratch, with_figure, figures[g]);
            fc_peer_class_text(shape, with_figure - 1, kind, text, sizeof(text));
            snprintf(r->class_desc, sizeof(r->class_desc), "%s%s", with_figure == 2 ?
                     "the other " : "the median of the other ", text);
        } else if (!has_figure[g]) {
            snprintf(r->why_not, sizeof(r->why_not), "it gave no figure to compare");
        } else if (members == 1) {
            fc_peer_class_text(shape, 1, kind, text, sizeof(text));
            snprintf(r->why_not, sizeof(r->why_not), "no peer of its shape: the only "
                     "%s in this stage", text);
        } else {
            fc_peer_class_text(shape, members - 1, kind, text, sizeof(text));
            snprintf(r->why_not, sizeof(r->why_not), "its peers of the same shape "
                     "(%s) gave no figure to compare", text);
        }
    }
}

void fc_peers_reference(const fc_peer_shape_t *shapes, const double *figures,
                        const int *has_figure, int n, fc_peer_stat_t stat,
                        const char *kind, fc_peer_ref_t *out)
{
    int *class_of = fc_xcalloc((size_t)n + 1, sizeof(*class_of), "the groups' peer classes");
    double *scratch = fc_xcalloc((size_t)n + 1, sizeof(*scratch), "a peer class's figures");
    fc_peer_shape_t *classes = NULL;
    int nclasses;

    memset(out, 0, (size_t)n * sizeof(*out));
    nclasses = fc_peer_classify(shapes, n, class_of, &classes);
    for (int c = 0; c < nclasses; ++c)
        fc_peer_judge_class(&classes[c], c, class_of, figures, has_figure, n, stat,
                            kind, scratch, &out[0]);
    free(classes);
    free(scratch);
    free(class_of);
}
