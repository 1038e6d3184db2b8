/*
 * fc_pairs_agree.h - inside the pairs stage's report (rank 0): whether the
 * confirmation's evidence agrees with itself, and what it says of
 * direction (lib/pairs/fc_pairs_agree.c). A probe slow alone where the rounds
 * measured the pair faster was measured again (lib/pairs/fc_pairs_confirm.h);
 * its two series and the round's figure are said together. A confirmed
 * node's slowness is placed by direction from its partner probes, each
 * direction judged on its own (lib/pairs/fc_pairs_alone.c): what it sends, what
 * it receives, or both.
 */
#ifndef FC_PAIRS_AGREE_H
#define FC_PAIRS_AGREE_H

#include <jansson.h>

#include "fc_pairs_stage.h"

typedef enum fc_pairs_dir {
    FC_PAIRS_DIR_UNKNOWN = 0,   /* the directions were not timed apart */
    FC_PAIRS_DIR_SENDS,         /* slow in what it sends, not in what it receives */
    FC_PAIRS_DIR_RECEIVES,      /* slow in what it receives, not in what it sends */
    FC_PAIRS_DIR_BOTH,          /* slow both ways */
} fc_pairs_dir_t;

/* Node v's confirmed slowness by direction (its partner probes' slow
 * measurements: a direction is slow for a probe when most of them find it
 * slow; the node's when every probe's is, and the other direction not). */
fc_pairs_dir_t fc_pairs_node_direction(const fc_pairs_run_t *run, int v);
/* "sends", "receives", "both", "unknown" for records. */
const char *fc_pairs_dir_name(fc_pairs_dir_t d);
/* " (what it sends: 0.0006 GB/s to its partners alone, 0.15 GB/s from
 * them)", "" for both or unknown: appended to a sentence naming v. */
void fc_pairs_dir_text(const fc_pairs_run_t *run, int v, fc_pairs_dir_t d, char *buf,
                       size_t len);
/* The figures (its slowest size) of measurements from .. to - 1 of probe
 * pr: "0.0017, 0.0028"; returns the length written (as snprintf). */
size_t fc_pairs_series_text(const fc_pairs_run_t *run, const fc_pairs_probe_t *pr, int from,
                            int to, char *buf, size_t len);
/* The rounds' figure of x <-> y (its slowest size), -1 when not measured. */
double fc_pairs_round_gbps(const fc_pairs_run_t *run, int x, int y);
/* Probe pr's agreement with the rounds as JSON: the round's figure,
 * whether the first series contradicted it, what measuring again gave;
 * null when it was not measured again. */
json_t *fc_pairs_agreement_json(const fc_pairs_run_t *run, const fc_pairs_probe_t *pr);

#endif
