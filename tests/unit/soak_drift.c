/*
 * soak_drift.c - unit tests of lib/fc_drift.c, the soak's drift rule: a
 * single slow window (a busy neighbour) is a peak, not a drift; a slowdown
 * held over the confirmation's windows is; a lucky fast window does not
 * make the reference; too few windows is "not judged", never 0. A
 * slowdown that comes and goes (windows alternating 1x and 10x, never two
 * slow in a row) is caught by the intermittent condition, while one noisy
 * window among eight stays harmless under it too.
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
    fc_tap_plan(&tap, 12);

    double blip[] = { 1.0, 1.0, 5.0, 1.0, 1.0, 1.0 };
    fc_drift_judge(blip, 6, 2, &d);
    fc_tap_ok(&tap, near(d.drift_pct, 0) && near(d.peak_pct, 400) &&
                  near(d.intermittent_pct, 0) && near(fc_drift_worst_pct(&d), 0),
              "one window 5 times slower: peak 400%%, sustained drift 0 (%.1f%%), "
              "intermittent 0 (%.1f%%)", d.drift_pct, d.intermittent_pct);

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

    /* a slowdown that comes and goes: never two slow windows in a row */
    double alternating[] = { 1.0, 10.0, 1.0, 10.0, 1.0, 10.0, 1.0, 10.0 };
    fc_drift_judge(alternating, 8, 2, &d);
    fc_tap_ok(&tap, near(d.drift_pct, 0) && near(d.intermittent_pct, 900) &&
                  d.slow_windows == 2 && near(fc_drift_worst_pct(&d), 900),
              "windows alternating 1x and 10x: sustained drift %.1f%%, intermittent %.1f%% "
              "(the slowest %d windows)", d.drift_pct, d.intermittent_pct, d.slow_windows);

    /* the same over a short soak: 3 windows, two of them slow, apart */
    double apart[] = { 10.0, 1.0, 10.0 };
    fc_drift_judge(apart, 3, 2, &d);
    fc_tap_ok(&tap, near(d.drift_pct, 0) && near(d.intermittent_pct, 900),
              "3 windows, the first and the last 10 times slower: intermittent %.1f%%",
              d.intermittent_pct);

    /* one noisy window among eight: harmless under both conditions */
    double outlier[] = { 1.0, 1.1, 1.0, 0.9, 10.0, 1.0, 1.1, 1.0 };
    fc_drift_judge(outlier, 8, 2, &d);
    fc_tap_ok(&tap, d.intermittent_pct < 20 && d.drift_pct < 20 && near(d.peak_pct, 900),
              "one outlier window of 8: drift %.1f%%, intermittent %.1f%%, peak %.0f%%",
              d.drift_pct, d.intermittent_pct, d.peak_pct);

    /* a quarter of many windows slow, scattered: caught; fewer: not */
    double scattered[16];
    for (int w = 0; w < 16; ++w)
        scattered[w] = w % 4 == 1 ? 8.0 : 1.0;
    fc_drift_judge(scattered, 16, 2, &d);
    int quarter = near(d.intermittent_pct, 700) && d.slow_windows == 4 && near(d.drift_pct, 0);
    scattered[13] = 1.0;
    fc_drift_judge(scattered, 16, 2, &d);
    fc_tap_ok(&tap, quarter && near(d.intermittent_pct, 0),
              "16 windows: 4 slow ones scattered fail (700%%), 3 do not (%.1f%%)",
              d.intermittent_pct);

    /* asked for k = 4 consecutive windows: the intermittent condition
     * asks for at least 4 slow ones too */
    double three_of_eight[] = { 1.0, 5.0, 1.0, 5.0, 1.0, 5.0, 1.0, 1.0 };
    fc_drift_judge(three_of_eight, 8, 4, &d);
    fc_tap_ok(&tap, d.slow_windows == 4 && near(d.intermittent_pct, 0),
              "confirm_windows 4: 3 slow windows are not an intermittent drift (%.1f%%)",
              d.intermittent_pct);
    return fc_tap_done(&tap);
}
