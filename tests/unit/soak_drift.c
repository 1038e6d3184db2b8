/*
 * soak_drift.c - unit tests of lib/fc_drift.c, the soak's drift rule: a
 * single slow window (a busy neighbour) is a peak, not a drift; a slowdown
 * held over the confirmation's windows is; a lucky fast window does not
 * make the reference; too few windows is "not judged", never 0.
 */
#include <math.h>
#include <stdio.h>

#include "fc_drift.h"
#include "fc_tap.h"

static int near(double a, double b)
{
    return fabs(a - b) < 1e-9 * (fabs(b) + 1);
}

int main(void)
{
    fc_tap_t tap;
    fc_drift_t d;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 7);

    double blip[] = { 1.0, 1.0, 5.0, 1.0, 1.0, 1.0 };
    fc_drift_judge(blip, 6, 2, &d);
    fc_tap_ok(&tap, near(d.drift_pct, 0) && near(d.peak_pct, 400),
              "one window 5 times slower: peak 400%%, sustained drift 0 (%.1f%%)", d.drift_pct);

    double degrade[] = { 1.0, 1.0, 1.0, 3.0, 3.1, 3.2 };
    fc_drift_judge(degrade, 6, 2, &d);
    fc_tap_ok(&tap, near(d.drift_pct, 210) && d.from == 4 && d.to == 5,
              "a link that degrades for the last 3 windows: 210%% sustained over windows "
              "%d-%d (%.1f%%)", d.from, d.to, d.drift_pct);

    fc_drift_judge(degrade, 6, 4, &d);
    fc_tap_ok(&tap, near(d.drift_pct, 0),
              "asked to last 4 windows, the 3-window slowdown is not a drift (%.1f%%)",
              d.drift_pct);

    double lucky[] = { 1.0, 1.0, 0.2, 1.0, 1.0, 1.0, 1.0, 1.0 };
    fc_drift_judge(lucky, 8, 2, &d);
    fc_tap_ok(&tap, near(d.reference, 1.0) && near(d.drift_pct, 0),
              "one lucky fast window does not set the reference (%.2f s)", d.reference);

    /* three windows, the last two slowed for good: the reference is the
     * fast one, not a value lifted towards the slow ones */
    double late[] = { 1.0, 600.0, 650.0 };
    fc_drift_judge(late, 3, 2, &d);
    fc_tap_ok(&tap, near(d.reference, 1.0) && near(d.drift_pct, 59900),
              "three windows, two slowed 600 times: drift %.0f%% against the fast one",
              d.drift_pct);

    double one[] = { 1.0 };
    fc_drift_judge(one, 1, 2, &d);
    fc_tap_ok(&tap, d.drift_pct < 0 && d.peak_pct < 0, "one window: not judged (-1), not 0");

    double two[] = { 1.0, 9.0 };
    fc_drift_judge(two, 2, 3, &d);
    fc_tap_ok(&tap, d.drift_pct < 0 && near(d.peak_pct, 800),
              "fewer windows than the confirmation asks: drift not judged, peak still "
              "recorded (%.0f%%)", d.peak_pct);
    return fc_tap_done(&tap);
}
