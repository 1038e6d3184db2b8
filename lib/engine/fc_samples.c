/*
 * fc_samples.c - see fc_samples.h. Rounding is done on whole nanoseconds
 * in integers, so a sample's value is exact in the record and reads back
 * to the same microseconds on every machine.
 */
#include "fc_samples.h"

#include <math.h>
#include <string.h>

void fc_samples_keep(const double *times, int n, fc_samples_t *out_p)
{
    int keep = n < FC_SAMPLES_MAX ? n : FC_SAMPLES_MAX;

    memset(out_p, 0, sizeof(*out_p));
    if (times == NULL || n <= 0)
        return;
    out_p->of = n;
    out_p->n = keep;
    for (int k = 0; k < keep; ++k)
        out_p->s[k] = times[(int)((int64_t)k * n / keep)];
}

/* ns rounded to 3 significant digits, and the step it was rounded to. */
static uint64_t fc_round3(uint64_t ns, uint64_t *step_p)
{
    uint64_t step = 1;

    for (uint64_t v = ns; v >= 1000; v /= 10)
        step *= 10;
    *step_p = step;
    return (ns + step / 2) / step * step;
}

json_t *fc_samples_json(const fc_samples_t *smp)
{
    uint64_t ns[FC_SAMPLES_MAX], unit = UINT64_MAX, step;
    json_t *values;

    if (smp == NULL || smp->n <= 0)
        return NULL;
    for (int k = 0; k < smp->n; ++k) {
        double t = smp->s[k] * 1e9;

        ns[k] = fc_round3(t >= 1 && isfinite(t) ? (uint64_t)llround(t) : 1, &step);
        if (step < unit)
            unit = step;
    }
    values = json_array();
    for (int k = 0; k < smp->n; ++k)
        json_array_append_new(values, json_integer((json_int_t)(ns[k] / unit)));
    return json_pack("{s:I, s:o, s:i}", "unit_ns", (json_int_t)unit, "values", values,
                     "of", smp->of);
}

int fc_samples_read(json_t *member, double *us, int max)
{
    json_t *unit = json_object_get(member, "unit_ns"), *values, *of, *v;
    json_int_t u;
    size_t i;

    if (member == NULL || json_is_null(member))
        return 0;
    values = json_object_get(member, "values");
    of = json_object_get(member, "of");
    if (!json_is_object(member) || !json_is_integer(unit) || !json_is_array(values) ||
        !json_is_integer(of) || json_array_size(values) == 0 ||
        json_array_size(values) > (size_t)max ||
        (json_int_t)json_array_size(values) > json_integer_value(of))
        return -1;
    u = json_integer_value(unit);
    for (json_int_t p = u; p != 1; p /= 10)
        if (p <= 0 || p % 10 != 0)
            return -1;
    json_array_foreach(values, i, v) {
        if (!json_is_integer(v) || json_integer_value(v) <= 0)
            return -1;
        us[i] = (double)json_integer_value(v) * (double)u / 1000.0;
    }
    return (int)json_array_size(values);
}
