/*
 * fc_baseline_int.h - what `fabcert baseline`'s two halves share: the
 * runs and the source profile (fc_baseline.c reads them and writes each
 * stage's sweep), and the limits and relative rule derived from their
 * figures (fc_baseline_rules.c).
 */
#ifndef FC_BASELINE_INT_H
#define FC_BASELINE_INT_H

#include <jansson.h>
#include <stdio.h>

#include "fc_baseline.h"
#include "fc_json.h"
#include "fc_profile.h"
#include "fc_stages.h"

typedef struct fc_bl_run {
    const char *dir;
    json_t *records;
    char sha256[65];
    char run_id[64];
    json_t *overrides;          /* the plan's (a copy) */
} fc_bl_run_t;

typedef struct fc_baseline {
    fc_bl_run_t *runs;
    int nruns;
    fc_profile_t src;           /* the first run's frozen profile */
    double margin;
} fc_baseline_t;

/* 1 when stage s is derived from its pair records (the stage table's
 * baseline), 0 from its points. */
static inline int fc_bl_pairs(int s)
{
    return fc_stage_desc((fc_stage_id_t)s)->baseline == FC_BASELINE_PAIRS;
}

/* The size a point's sweep asked for (records before requested_bytes
 * have only the bytes moved). */
json_int_t fc_bl_requested(json_t *rec);
/* 1 for a timed point record of stage s (not the soak's). */
int fc_bl_point_of(json_t *rec, int s);
/* A size as a profile writes it: "64KiB", or bytes. */
void fc_bl_size(uint64_t z, char *buf, size_t len);
/* The worst deviation of any group below the others of its class, at any
 * point from the stage's relative.min_bytes up, in any run (-inf when no
 * class has two members), and where it was. */
double fc_bl_relative(const fc_baseline_t *bl, int s, char *where, size_t len);
/* Stage s's "limits:" with a comment per rule. */
void fc_bl_limits(const fc_baseline_t *bl, int s, FILE *f);

#endif
