/*
 * fc_profile_diag.c - the profile sections of the diagnostics the
 * all-reduce field guide asks for: counters: (the links a
 * stage reads over each measuring interval, lib/counters/fc_counters_interval.h),
 * with their defaults: every link but lo, read; overlap: (the overlap
 * stage's compute kernel beside the all_reduce, suites/overlap.c), with
 * its defaults: 20 ms of compute, at least 50% of the shorter hidden;
 * scaling: (the scaling series, suites/scaling.c): busbw may drop 25%
 * from one node count to the next, 90% from one node to two (leaving the
 * node's shared memory or NVLink for the fabric is a drop by design).
 */
#include <stdio.h>
#include <string.h>

#include "fc_profile_sections.h"

/* ---- counters: ------------------------------------------------------------ */

static const fc_yaml_field_t fc_counters_keys[] = {
    FC_KEY_BOOL("read", fc_counters_profile_t, read),
    FC_KEY_STRING("nic_pattern", fc_counters_profile_t, nic_pattern,
                  "a glob such as ib* or eth*"),
    FC_KEY_NUMBER("max_errors", fc_counters_profile_t, max_errors, 0, 1e15),
    FC_KEY_NUMBER("max_drops", fc_counters_profile_t, max_drops, 0, 1e15),
    FC_KEY_NUMBER("max_retries", fc_counters_profile_t, max_retries, 0, 1e15),
    FC_KEY_BOOL("traffic", fc_counters_profile_t, traffic),
    FC_KEY_END
};

const fc_yaml_section_t fc_counters_section = { .where = "'counters'",
                                                .keys = fc_counters_keys };

void fc_counters_defaults(fc_counters_profile_t *c)
{
    c->read = 1;
    snprintf(c->nic_pattern, sizeof(c->nic_pattern), "*");
    c->max_errors = 0;
    c->max_drops = -1;          /* congestion, not a fault: shown */
    c->max_retries = -1;
    c->traffic = 1;
}

/* ---- overlap: ------------------------------------------------------------- */

static const fc_yaml_field_t fc_overlap_keys[] = {
    FC_KEY_NUMBER("compute_ms", fc_overlap_profile_t, compute_ms, 0.1, 10000),
    FC_KEY_NUMBER("min_overlap_pct", fc_overlap_profile_t, min_overlap_pct, 0, 100),
    FC_KEY_END
};

const fc_yaml_section_t fc_overlap_section = { .where = "'overlap'",
                                               .keys = fc_overlap_keys };

void fc_overlap_defaults(fc_overlap_profile_t *o)
{
    o->compute_ms = 20;
    o->min_overlap_pct = 50;
}

/* ---- scaling: ------------------------------------------------------------- */

static const fc_yaml_field_t fc_scaling_keys[] = {
    FC_KEY_NUMBER("max_drop_pct", fc_scaling_profile_t, max_drop_pct, 0, 100),
    FC_KEY_NUMBER("max_first_drop_pct", fc_scaling_profile_t, max_first_drop_pct, 0, 100),
    FC_KEY_END
};

const fc_yaml_section_t fc_scaling_section = { .where = "'scaling'",
                                               .keys = fc_scaling_keys };

void fc_scaling_defaults(fc_scaling_profile_t *s)
{
    s->max_drop_pct = 25;
    s->max_first_drop_pct = 90;
}
