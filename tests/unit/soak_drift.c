/*
 * soak_drift.c - unit tests of lib/soak/fc_drift.c and lib/soak/fc_drift_record.c,
 * the soak's drift rule, on series of window medians: a single slow
 * window is a peak, not a drift; a step or a trend that holds to the end
 * is a drift; windows that swing both ways (a busy host: the series that
 * failed every rack on a clean virtual cluster) are not, whatever their
 * spread; a limit tighter than the windows' own swing back is widened to
 * that noise floor, and the record says so; one lucky fast window is no
 * level; too few windows is "not judged", never 0. The confirmation: a
 * drift seen asks for k more windows and is confirmed when it holds,
 * contradicted when they come back fast (both figures in the reason),
 * unconfirmed when the time runs out.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fc_drift.h"
#include "fc_drift_record.h"
#include "fc_tap.h"

/* How near a figure must be to b, as fc_tap_is_double's tol: the largest
 * double below 1e-6 of b (plus one), so that its <= is the < these checks
 * asked for */
static double near_tol(double b)
{
    return nextafter(1e-6 * (fabs(b) + 1), 0);
}

/* The watch stepped as the soak does at its end: over the first `at`
 * windows, then each one more up to n; the number of steps that asked for
 * more, and the outcome over all n. */
static fc_drift_outcome_t watch(const double *m, int at, int n, int k, double limit,
                                fc_drift_watch_t *w, fc_drift_t *d, int *more_p)
{
    int more = 0;

    fc_drift_watch_init(w);
    for (int i = at; i <= n; ++i)
        if (fc_drift_watch_step(w, m, i, k, limit))
            ++more;
        else
            break;
    fc_drift_judge(m, n, k, limit, d);
    *more_p = more;
    return fc_drift_watch_outcome(w, d);
}

int main(void)
{
    fc_tap_t tap;
    fc_drift_t d;
    fc_drift_watch_t w;
    int more;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 66);

    double blip[] = { 1.0, 1.0, 5.0, 1.0, 1.0, 1.0 };
    fc_drift_judge(blip, 6, 2, 10, &d);
    fc_tap_is_double(&tap, d.peak_pct, 400, near_tol(400),
                     "one window 5 times slower: a peak of 400%%");
    fc_tap_is_double(&tap, d.drift_pct, 0, near_tol(0), "... no drift");
    fc_tap_is_int(&tap, fc_drift_seen(&d), 0, "... none seen");

    double degrade[] = { 1.0, 1.0, 1.0, 3.0, 3.1, 3.2 };
    fc_drift_judge(degrade, 6, 2, 100, &d);
    fc_tap_is_double(&tap, d.drift_pct, 210, near_tol(210),
                     "a step that persists: %.1f%% from window %d to the end against windows "
                     "%d-%d", d.drift_pct, d.from, d.base_from, d.base_from + 1);
    fc_tap_is_int(&tap, d.from, 4,
                  "a step that persists: %.1f%% from window %d to the end against windows %d-%d"
                  " [d.from]", d.drift_pct, d.from, d.base_from, d.base_from + 1);
    fc_tap_is_int(&tap, d.base_from, 0,
                  "a step that persists: %.1f%% from window %d to the end against windows %d-%d"
                  " [d.base_from]", d.drift_pct, d.from, d.base_from, d.base_from + 1);
    fc_tap_is_double(&tap, d.base, 1.0, near_tol(1.0), "... its base 1 s");
    fc_tap_is_double(&tap, d.floor_pct, 0, near_tol(0), "... no noise floor");
    fc_tap_is_int(&tap, fc_drift_seen(&d), 1, "... a drift seen");

    double trend[] = { 1.0, 1.05, 1.1, 1.2, 1.3, 1.45, 1.6, 1.8 };
    fc_drift_judge(trend, 8, 2, 10, &d);
    fc_tap_is_double(&tap, d.drift_pct, (1.6 / 1.05 - 1) * 100, near_tol((1.6 / 1.05 - 1) * 100),
                     "a slow monotone trend, no window faster than one before: drift %.1f%%",
                     d.drift_pct);
    fc_tap_is_double(&tap, d.floor_pct, 0, near_tol(0), "... no noise floor");
    fc_tap_is_int(&tap, fc_drift_seen(&d), 1, "... a drift seen");

    double three_late[] = { 1.0, 1.0, 1.0, 1.0, 1.0, 3.0, 3.0, 3.0 };
    fc_drift_judge(three_late, 8, 4, 10, &d);
    fc_tap_is_double(&tap, d.drift_pct, 0, near_tol(0),
                     "asked to hold 4 windows, a 3-window slowdown at the end is no drift");

    double lucky[] = { 1.0, 1.0, 0.2, 1.0, 1.0, 1.0, 1.0, 1.0 };
    fc_drift_judge(lucky, 8, 2, 10, &d);
    fc_tap_is_double(&tap, d.base, 1.0, near_tol(1.0), "one lucky fast window is no level: "
                     "base 1 s");
    fc_tap_is_double(&tap, d.drift_pct, 0, near_tol(0), "... no drift");

    /* the clean virtual cluster under load that failed every rack:
     * windows that swing both ways are no drift, at any limit */
    double busy[] = { 0.0516, 0.0661, 0.0103, 0.0085, 0.0757 };
    double busy2[] = { 0.0493, 0.1672, 0.1041, 0.0118 };
    double alternating[] = { 1.0, 10.0, 1.0, 10.0, 1.0, 10.0, 1.0, 10.0 };
    fc_drift_judge(busy, 5, 2, 0, &d);
    fc_tap_is_double(&tap, d.drift_pct, 0, near_tol(0), "windows that swing both ways (51.6 "
                     "66.1 10.3 8.5 75.7 ms): no drift even at a 0%% limit");
    fc_tap_is_int(&tap, fc_drift_seen(&d), 0, "... none seen");
    fc_drift_judge(busy2, 4, 2, 0, &d);
    fc_tap_is_double(&tap, d.drift_pct, 0, near_tol(0), "... nor in 49.3 167.2 104.1 11.8 ms");
    fc_tap_is_int(&tap, fc_drift_seen(&d), 0, "... none seen");
    fc_drift_judge(alternating, 8, 2, 0, &d);
    fc_tap_is_double(&tap, d.drift_pct, 0, near_tol(0), "... nor in 1x/10x alternating");
    fc_tap_is_double(&tap, d.peak_pct, 900, near_tol(900), "... its peak 900%%");

    /* a limit tighter than the windows' own swing back is widened */
    double swing[] = { 1.0, 1.0, 3.0, 3.0, 1.0, 1.0, 2.5, 2.6 };
    fc_drift_judge(swing, 8, 2, 10, &d);
    fc_tap_is_double(&tap, d.floor_pct, 200, near_tol(200),
                     "held at 3 then back at 1: noise floor %.0f%% (windows %d and %d), the 10%% "
                     "limit widened to it; the 150%% at the end is within it", d.floor_pct,
                     d.fall_slow, d.fall_fast);
    fc_tap_is_double(&tap, d.tolerance_pct, 200, near_tol(200), "... the limit widened to 200%%");
    fc_tap_is_int(&tap, d.fall_slow, 2,
                  "held at 3 then back at 1: noise floor %.0f%% (windows %d and %d), the 10%% "
                  "limit widened to it; the 150%% at the end is within it"
                  " [d.fall_slow]", d.floor_pct, d.fall_slow, d.fall_fast);
    fc_tap_is_int(&tap, d.fall_fast, 4,
                  "held at 3 then back at 1: noise floor %.0f%% (windows %d and %d), the 10%% "
                  "limit widened to it; the 150%% at the end is within it"
                  " [d.fall_fast]", d.floor_pct, d.fall_slow, d.fall_fast);
    fc_tap_is_double(&tap, d.drift_pct, 150, near_tol(150), "... 150%% at the end");
    fc_tap_is_int(&tap, fc_drift_seen(&d), 0, "... within it: no drift seen");
    double noswing[] = { 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 2.5, 2.6 };
    fc_drift_judge(noswing, 8, 2, 10, &d);
    fc_tap_is_double(&tap, d.floor_pct, 0, near_tol(0),
                     "the same end without the swing: no noise floor");
    fc_tap_is_double(&tap, d.tolerance_pct, 10, near_tol(10), "... the 10%% limit as it is");
    fc_tap_is_double(&tap, d.drift_pct, 150, near_tol(150), "... 150%% at the end");
    fc_tap_is_int(&tap, fc_drift_seen(&d), 1, "... a drift");
    double blip_early[] = { 1.0, 5.0, 1.0, 1.0, 1.0, 1.0, 3.0, 3.0 };
    fc_drift_judge(blip_early, 8, 2, 10, &d);
    fc_tap_is_double(&tap, d.floor_pct, 0, near_tol(0),
                     "one slow window early does not widen the tolerance: no noise floor");
    fc_tap_is_double(&tap, d.drift_pct, 200, near_tol(200), "... a later drift of 200%%");
    fc_tap_is_int(&tap, fc_drift_seen(&d), 1, "... still seen");

    double late[] = { 1.0, 600.0, 650.0 };
    fc_drift_judge(late, 3, 2, 10, &d);
    double one[] = { 1.0 };
    fc_drift_judge(one, 1, 2, 10, &d);
    fc_tap_is_double(&tap, d.drift_pct, -1, 0, "one window: not judged (-1)");
    fc_tap_is_double(&tap, d.peak_pct, -1, 0, "... no peak either (-1)");
    fc_drift_judge(late, 3, 2, 10, &d);
    fc_tap_is_double(&tap, d.drift_pct, -1, 0, "3 windows with k = 2 (a drift needs %d): not "
                     "judged (-1)", fc_drift_min_windows(2));
    fc_tap_is_int(&tap, fc_drift_seen(&d), 0, "... no drift seen");
    fc_tap_ok(&tap, d.peak_pct > 0, "... the peak still recorded (%.0f%%)", d.peak_pct);

    /* confirmation: seen over the first 6 windows, held over 2 more */
    double held[] = { 1.0, 1.0, 1.0, 1.0, 5.0, 5.0, 5.2, 4.9 };
    fc_drift_outcome_t o = watch(held, 6, 8, 2, 100, &w, &d, &more);
    fc_tap_is_int(&tap, o, FC_DRIFT_CONFIRMED,
                  "a drift seen at the end runs %d more windows and is confirmed (%.0f%%, first "
                  "%.0f%%)", more, d.drift_pct, w.first.drift_pct);
    fc_tap_is_int(&tap, w.seen_at, 6,
                  "a drift seen at the end runs %d more windows and is confirmed (%.0f%%, first "
                  "%.0f%%)"
                  " [w.seen_at]", more, d.drift_pct, w.first.drift_pct);
    fc_tap_is_int(&tap, more, 2,
                  "a drift seen at the end runs %d more windows and is confirmed (%.0f%%, first "
                  "%.0f%%)"
                  " [more]", more, d.drift_pct, w.first.drift_pct);
    fc_tap_is_double(&tap, d.drift_pct, 390, near_tol(390), "... drift 390%% over all 8");

    /* a clean run under load that looked like a step: the next windows
     * come back fast and contradict it */
    double clean[] = { 0.0596, 0.0102, 0.1225, 0.1714, 0.0101, 0.0098 };
    double soon[] = { 0.0101, 0.0102, 0.1225, 0.1714, 0.0101, 0.0098 };
    o = watch(soon, 4, 6, 2, 200, &w, &d, &more);
    char reason[512];
    fc_drift_reason(&d, &w, o, reason, sizeof(reason));
    fc_tap_is_int(&tap, o, FC_DRIFT_CONTRADICTED, "a step contradicted by the next 2 windows: %s",
                  reason);
    fc_tap_is_int(&tap, w.seen_at, 4, "a step contradicted by the next 2 windows: %s"
                  " [w.seen_at]", reason);
    fc_tap_is_double(&tap, d.drift_pct, 0, near_tol(0), "... no drift over all 6");
    fc_tap_ok(&tap, strstr(reason, "over the first 4 windows drift 1101.0%") != NULL,
              "... the reason gives the first figure, 1101.0%%");
    fc_tap_ok(&tap, strstr(reason, "2 windows later it is 0.0%") != NULL,
              "... and the one 2 windows later, 0.0%%");
    o = watch(clean, 4, 6, 2, 200, &w, &d, &more);
    fc_tap_is_int(&tap, o, FC_DRIFT_NONE,
                  "59.6 10.2 122.5 171.4 ms (one lucky window, no level): nothing to confirm");
    fc_tap_ok(&tap, w.seen_at < 0,
              "59.6 10.2 122.5 171.4 ms (one lucky window, no level): nothing to confirm"
              " [w.seen_at < 0]");
    fc_tap_is_int(&tap, more, 0,
                  "59.6 10.2 122.5 171.4 ms (one lucky window, no level): nothing to confirm"
                  " [more]");

    /* too few windows at the end: more asked for, then judged */
    double few[] = { 1.0, 1.1, 1.0, 1.05 };
    o = watch(few, 3, 4, 2, 10, &w, &d, &more);
    fc_tap_is_int(&tap, more, 1,
                  "3 windows of the 4 a drift needs: one more asked for, then no drift");
    fc_tap_is_int(&tap, o, FC_DRIFT_NONE,
                  "3 windows of the 4 a drift needs: one more asked for, then no drift"
                  " [o]");

    /* the time ran out one window into the confirmation */
    o = watch(held, 6, 7, 2, 100, &w, &d, &more);
    fc_drift_reason(&d, &w, o, reason, sizeof(reason));
    fc_tap_is_int(&tap, o, FC_DRIFT_UNCONFIRMED,
                  "seen, and only 1 of 2 confirming windows ran: unconfirmed (%s)", reason);
    fc_tap_ok(&tap, strstr(reason, "could run only 1 of the 2 more windows") != NULL,
              "seen, and only 1 of 2 confirming windows ran: unconfirmed (%s)"
              " [strstr(reason, \"could run only 1 of the 2 more windows\")...]", reason);

    /* the record: the windows' floor, the widened tolerance, the rule and
     * what confirmed it */
    json_t *soak = json_object();
    o = watch(held, 6, 8, 2, 100, &w, &d, &more);
    fc_drift_record(soak, &d, &w, o);
    json_t *c = json_object_get(soak, "confirmation");
    const char *rule = json_string_value(json_object_get(soak, "drift_rule"));
    fc_tap_is_double(&tap, json_real_value(json_object_get(soak, "tolerance_pct")), 100,
                     near_tol(100), "the record of a confirmed drift: its tolerance, 100%%");
    fc_tap_ok(&tap, json_is_false(json_object_get(soak, "tolerance_widened")),
              "... not widened");
    fc_tap_is_str(&tap, json_string_value(json_object_get(c, "outcome")), "confirmed",
                  "... the confirmation's outcome");
    fc_tap_is_int(&tap, json_integer_value(json_object_get(json_object_get(c, "first"),
                                                           "windows")), 6,
                  "... its first figure over 6 windows");
    fc_tap_is_int(&tap, json_integer_value(json_object_get(json_object_get(c, "last"),
                                                           "windows")), 8,
                  "... its last over 8");
    fc_tap_ok(&tap, rule != NULL && strstr(rule, "confirmed by 2 more windows") != NULL,
              "... the rule says it was confirmed by 2 more windows (%s)", rule ? rule : "none");
    json_decref(soak);
    soak = json_object();
    fc_drift_judge(swing, 8, 2, 10, &d);
    fc_drift_watch_init(&w);
    fc_drift_record(soak, &d, &w, fc_drift_watch_outcome(&w, &d));
    json_t *nw = json_object_get(soak, "noise_windows");
    fc_tap_ok(&tap, json_is_true(json_object_get(soak, "tolerance_widened")),
              "the record of a limit under the windows' swing: its tolerance widened");
    fc_tap_is_double(&tap, json_real_value(json_object_get(soak, "noise_floor_pct")), 200,
                     near_tol(200), "... the noise floor, 200%%");
    fc_tap_is_int(&tap, json_integer_value(json_array_get(json_object_get(nw, "slow"), 0)), 2,
                  "the record: tolerance, widened or not, the noise windows, the rule, the "
                  "confirmation's first and last figures"
                  " [json_integer_value(json_array_get(json_object_get(nw, \"sl...]");
    fc_tap_is_int(&tap, json_integer_value(json_array_get(json_object_get(nw, "fast"), 0)), 4,
                  "the record: tolerance, widened or not, the noise windows, the rule, the "
                  "confirmation's first and last figures"
                  " [json_integer_value(json_array_get(json_object_get(nw, \"fa...]");
    fc_tap_ok(&tap, json_is_null(json_object_get(soak, "confirmation")),
              "the record: tolerance, widened or not, the noise windows, the rule, the "
              "confirmation's first and last figures"
              " [json_is_null(json_object_get(soak, \"confirmation\"))]");
    json_decref(soak);
    return fc_tap_done(&tap);
}
