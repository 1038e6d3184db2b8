/*
 * fc_compare_item.c - see fc_compare_int.h: what the compare's findings
 * and writers ask of a compared measurement, a finding or a rack: whether
 * it concerns a rack or fails it, its change as a sentence, a rack's
 * statement. A leaf: the comparison (fc_compare.c), the placing of a
 * slowdown (fc_compare_find.c) and the writers (fc_compare_write.c) all
 * use it.
 */
#include "fc_compare_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int fc_cmp_item_in_rack(const fc_cmp_item_t *it, const char *rack)
{
    return (!it->rack_a[0] && !it->rack_b[0]) || !strcmp(it->rack_a, rack) ||
           !strcmp(it->rack_b, rack);
}

int fc_cmp_item_fails_rack(const fc_cmp_item_t *it, const char *rack)
{
    if (!it->slower || !fc_cmp_item_in_rack(it, rack))
        return 0;
    return !it->explained || !it->placed_rack[0] || !strcmp(it->placed_rack, rack);
}

int fc_cmp_finding_in_rack(const fc_cmp_finding_t *f, const char *rack)
{
    return (!f->rack_a[0] && !f->rack_b[0]) || !strcmp(f->rack_a, rack) ||
           !strcmp(f->rack_b, rack);
}

void fc_cmp_item_text(const fc_cmp_item_t *it, char *buf, size_t len)
{
    snprintf(buf, len, "%.1f%% %s (CI %.1f%% to %.1f%%; median %.4g us, was %.4g us)",
             100 * fabs(it->r.ratio - 1), it->r.ratio >= 1 ? "slower" : "faster",
             100 * (it->r.ci_lo - 1), 100 * (it->r.ci_hi - 1), it->r.median_a,
             it->r.median_b);
}

void fc_cmp_rack_statement(const fc_compare_t *c, const fc_cmp_rack_t *r, char *buf,
                           size_t len)
{
    double conf = 100 * (1 - c->o->alpha);

    if (r->slower > 0)
        snprintf(buf, len, "%d of %d comparisons slower beyond the noise (%.0f%% confidence) "
                 "and by more than %.4g%%", r->slower, r->compared, conf,
                 100 * c->o->min_slowdown);
    else if (r->compared > 0)
        snprintf(buf, len, "no regression above %.1f%% at %.0f%% confidence (%d comparisons; "
                 "the least sensitive: %s)", 100 * r->detectable, conf, r->compared,
                 c->items[r->least].label);
    else
        snprintf(buf, len, "nothing compared: no measurement of the rack has samples in "
                 "both runs");
}
