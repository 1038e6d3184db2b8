/*
 * fc_drift_record.c - see fc_drift_record.h. Times are written in
 * microseconds, windows by their index from 0, a run of windows as
 * [first, last]. A figure reads the same in the record's reasons, in the
 * TAP diagnostics and in the report: "drift 350.0%: windows 4 to 6 all
 * ran at 900.0 us or slower, against 200.0 us held by windows 0 to 1
 * (tolerance 200.0%: max_drift_pct)".
 */
#include "fc_drift_record.h"

#include <stdio.h>

static json_t *fc_drift_run(int from, int to)
{
    return from < 0 ? json_null() : json_pack("[i,i]", from, to);
}

/* What the tolerance is: the limit, or the noise floor that widened it
 * (where the floor came from is in the record's noise_windows). */
static void fc_drift_tolerance_text(const fc_drift_t *d, char *buf, size_t len)
{
    if (d->tolerance_pct > d->limit_pct)
        snprintf(buf, len, "the windows' noise floor, wider than max_drift_pct %.1f%%",
                 d->limit_pct);
    else
        snprintf(buf, len, "max_drift_pct");
}

/* "drift X%: windows F to L all ran at S us or slower, against B us held
 * by windows b to b+k-1 (tolerance T%: ...)" */
static void fc_drift_figure(const fc_drift_t *d, char *buf, size_t len)
{
    char tol[96];

    fc_drift_tolerance_text(d, tol, sizeof(tol));
    snprintf(buf, len, "drift %.1f%%: windows %d to %d all ran at %.1f us or slower, against "
             "%.1f us held by windows %d to %d (tolerance %.1f%%: %s)", d->drift_pct, d->from,
             d->n - 1, d->sustained * 1e6, d->base * 1e6, d->base_from,
             d->base_from + d->k - 1, d->tolerance_pct, tol);
}

static json_t *fc_drift_figures_json(const fc_drift_t *d)
{
    return json_pack("{s:i, s:f, s:f, s:o, s:f, s:o, s:f}", "windows", d->n,
                     "drift_pct", d->drift_pct, "sustained_us", d->sustained * 1e6,
                     "drift_windows", fc_drift_run(d->from, d->n - 1),
                     "base_us", d->base * 1e6,
                     "base_windows", fc_drift_run(d->base_from, d->base_from + d->k - 1),
                     "tolerance_pct", d->tolerance_pct);
}

void fc_drift_rule_text(int k, char *buf, size_t len)
{
    snprintf(buf, len, "drift: the level every window from one on to the last held (%d or "
             "more), against the fastest level held over %d windows in a row before them; "
             "noise floor: the largest fall from a level held slow over %d windows to one "
             "held fast after it; judged above the larger of max_drift_pct and the noise "
             "floor, from %d windows; a drift seen is confirmed by %d more windows, judged "
             "again over all", k, k, k, fc_drift_min_windows(k), k);
}

void fc_drift_record(json_t *soak, const fc_drift_t *d, const fc_drift_watch_t *w,
                     fc_drift_outcome_t o)
{
    int judged = d->drift_pct >= 0;
    char rule[512];

    fc_drift_rule_text(d->k, rule, sizeof(rule));
    json_object_set_new(soak, "drift_rule", json_string(rule));
    json_object_set_new(soak, "drift_pct", judged ? json_real(d->drift_pct) : json_null());
    json_object_set_new(soak, "drift_windows", fc_drift_run(d->from, d->n - 1));
    json_object_set_new(soak, "sustained_us", judged ? json_real(d->sustained * 1e6)
                                                     : json_null());
    json_object_set_new(soak, "base_us", judged ? json_real(d->base * 1e6) : json_null());
    json_object_set_new(soak, "base_windows",
                        fc_drift_run(d->base_from, d->base_from + d->k - 1));
    json_object_set_new(soak, "noise_floor_pct", judged ? json_real(d->floor_pct)
                                                        : json_null());
    json_object_set_new(soak, "noise_windows", d->fall_slow < 0 ? json_null() : json_pack(
        "{s:o, s:f, s:o, s:f}", "slow", fc_drift_run(d->fall_slow, d->fall_slow + d->k - 1),
        "slow_us", d->fall_slow_s * 1e6, "fast", fc_drift_run(d->fall_fast,
                                                               d->fall_fast + d->k - 1),
        "fast_us", d->fall_fast_s * 1e6));
    json_object_set_new(soak, "tolerance_pct", judged ? json_real(d->tolerance_pct)
                                                      : json_null());
    json_object_set_new(soak, "tolerance_widened", json_boolean(
        judged && d->tolerance_pct > d->limit_pct));
    json_object_set_new(soak, "reference_us", d->peak_pct >= 0 ? json_real(d->reference * 1e6)
                                                               : json_null());
    json_object_set_new(soak, "peak_window_pct", d->peak_pct >= 0 ? json_real(d->peak_pct)
                                                                  : json_null());
    if (w->seen_at < 0 && o != FC_DRIFT_UNCONFIRMED) {
        json_object_set_new(soak, "confirmation", json_null());
        return;
    }
    json_object_set_new(soak, "confirmation", json_pack(
        "{s:s, s:o, s:o}", "outcome", fc_drift_outcome_name(o),
        "first", w->seen_at < 0 ? json_null() : fc_drift_figures_json(&w->first),
        "last", fc_drift_figures_json(d)));
}

void fc_drift_reason(const fc_drift_t *d, const fc_drift_watch_t *w, fc_drift_outcome_t o,
                     char *buf, size_t len)
{
    char now[360], first[360];

    fc_drift_figure(d, now, sizeof(now));
    if (w->seen_at >= 0)
        fc_drift_figure(&w->first, first, sizeof(first));
    switch (o) {
    case FC_DRIFT_CONFIRMED:
        snprintf(buf, len, "sustained %s; confirmed: seen over the first %d windows "
                 "(%.1f%%), still there %d windows later", now, w->seen_at,
                 w->first.drift_pct, d->n - w->seen_at);
        break;
    case FC_DRIFT_CONTRADICTED:
        snprintf(buf, len, "drift not confirmed: over the first %d windows %s; %d windows "
                 "later it is %.1f%% (tolerance %.1f%%): the windows contradict each other, "
                 "so they blame nobody", w->seen_at, first, d->n - w->seen_at,
                 d->drift_pct, d->tolerance_pct);
        break;
    case FC_DRIFT_UNCONFIRMED:
        if (w->seen_at >= 0)
            snprintf(buf, len, "drift not confirmed: %s; seen over the first %d windows, "
                     "and the soak could run only %d of the %d more windows that confirm "
                     "it in the time it may run on", now, w->seen_at, d->n - w->seen_at,
                     d->k);
        else
            snprintf(buf, len, "drift not confirmed: %s; seen only over every window, "
                     "and the soak had no time left to run the %d more that confirm it",
                     now, d->k);
        break;
    default:
        snprintf(buf, len, "no drift above the tolerance");
        break;
    }
}
