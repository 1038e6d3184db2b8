/*
 * fc_baseline_point.c - see fc_baseline_int.h: what the baseline asks of
 * a run's record (is it a stage's measured point, the size it asked for)
 * and a size as a profile writes it. A leaf: the profile writer
 * (fc_baseline.c) and its rules (fc_baseline_rules.c) both use it.
 */
#include "fc_baseline_int.h"

#include <stdio.h>
#include <string.h>

#include "fc_record.h"

json_int_t fc_bl_requested(json_t *rec)
{
    json_t *v = json_object_get(rec, "requested_bytes");

    return json_integer_value(v ? v : json_object_get(rec, "bytes"));
}

int fc_bl_point_of(json_t *rec, int s)
{
    return fc_record_id(rec) == FC_RECORD_POINT && !json_object_get(rec, "soak") &&
           strcmp(fc_json_str(rec, "stage"), fc_stage_name((fc_stage_id_t)s)) == 0 &&
           json_number_value(json_object_get(json_object_get(rec, "time_us"), "median")) > 0;
}

/* A size as a profile writes it: "64KiB" when a whole number of a
 * binary unit, else bytes. */
void fc_bl_size(uint64_t z, char *buf, size_t len)
{
    static const char *const units[] = { "GiB", "MiB", "KiB" };

    for (int u = 0; u < 3; ++u) {
        uint64_t unit = 1ull << (10 * (3 - u));

        if (z >= unit && z % unit == 0) {
            snprintf(buf, len, "%llu%s", (unsigned long long)(z / unit), units[u]);
            return;
        }
    }
    snprintf(buf, len, "%llu", (unsigned long long)z);
}
