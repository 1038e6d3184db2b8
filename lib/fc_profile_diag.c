/*
 * fc_profile_diag.c - the profile sections of the diagnostics the
 * all-reduce field guide asks for (issue 19): counters: (the links a
 * stage reads over each measuring interval, lib/fc_counters_interval.h),
 * with their defaults: every link but lo, read.
 */
#include <stdio.h>
#include <string.h>

#include "fc_profile_sections.h"

/* ---- counters: ------------------------------------------------------------ */

static const fc_yaml_field_t fc_counters_keys[] = {
    FC_KEY_BOOL("read", fc_counters_profile_t, read),
    FC_KEY_STRING("nic_pattern", fc_counters_profile_t, nic_pattern,
                  "a glob such as ib* or eth*"),
    FC_KEY_END
};

const fc_yaml_section_t fc_counters_section = { .where = "'counters'",
                                                .keys = fc_counters_keys };

void fc_counters_defaults(fc_counters_profile_t *c)
{
    c->read = 1;
    snprintf(c->nic_pattern, sizeof(c->nic_pattern), "*");
}
