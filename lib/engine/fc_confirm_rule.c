/*
 * fc_confirm_rule.c - see fc_confirm_rule.h: two alone measurements that
 * agree decide, two that disagree ask for a third, three decide by their
 * majority.
 */
#include "fc_confirm_rule.h"

#include <stdio.h>

int fc_confirm_slow_count(const int *slow, int n)
{
    int count = 0;

    for (int i = 0; i < n; ++i)
        count += slow[i] == FC_CONFIRM_MEAS_SLOW;
    return count;
}

/* Measurements of slow[0..n-1] judged fast. */
static int fc_confirm_fast_count(const int *slow, int n)
{
    int count = 0;

    for (int i = 0; i < n; ++i)
        count += slow[i] == FC_CONFIRM_MEAS_FAST;
    return count;
}

fc_confirm_decision_t fc_confirm_decide(const int *slow, int n)
{
    int count, fast;

    for (int i = 0; i < n; ++i)
        if (slow[i] < 0)
            return FC_CONFIRM_UNMEASURED;
    if (n < FC_CONFIRM_MIN_MEASURES)
        return FC_CONFIRM_MORE;
    count = fc_confirm_slow_count(slow, n);
    fast = fc_confirm_fast_count(slow, n);
    if (n < FC_CONFIRM_MAX_MEASURES) {
        if (count == n)
            return FC_CONFIRM_SLOW;
        if (fast == n)
            return FC_CONFIRM_CLEARED;
        return count + fast == 0 ? FC_CONFIRM_UNDECIDED : FC_CONFIRM_MORE;
    }
    return 2 * count > n ? FC_CONFIRM_SLOW : 2 * fast > n ? FC_CONFIRM_CLEARED
                                                          : FC_CONFIRM_UNDECIDED;
}

void fc_confirm_tally_text(const int *slow, int n, char *buf, size_t len)
{
    int undecided = n - fc_confirm_slow_count(slow, n) - fc_confirm_fast_count(slow, n);

    if (fc_confirm_decide(slow, n) == FC_CONFIRM_UNMEASURED)
        snprintf(buf, len, "not measured");
    else if (undecided > 0)
        snprintf(buf, len, "slow in %d of %d alone measurements, undecided in %d (no "
                 "honest reference)", fc_confirm_slow_count(slow, n), n, undecided);
    else
        snprintf(buf, len, "slow in %d of %d alone measurements",
                 fc_confirm_slow_count(slow, n), n);
}

double fc_confirm_spread_pct(const double *figures, int n)
{
    double lo = 0, hi = 0;
    int count = 0;

    for (int i = 0; i < n; ++i) {
        if (!(figures[i] > 0) || figures[i] >= 1e300)
            continue;
        lo = count == 0 || figures[i] < lo ? figures[i] : lo;
        hi = count == 0 || figures[i] > hi ? figures[i] : hi;
        ++count;
    }
    return count < 2 ? 0 : 100.0 * (1.0 - lo / hi);
}

double fc_confirm_tolerance(double profile_pct, double spread_pct)
{
    return profile_pct < 0 || spread_pct <= profile_pct ? profile_pct : spread_pct;
}
