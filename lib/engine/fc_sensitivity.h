/*
 * fc_sensitivity.h - how small a degradation would a judged point's
 * limits have caught, given what was measured? DESIGN's third rule asks
 * every certificate to say it. MPI-free and JSON in, JSON out, so the
 * stage that writes a record and the report that reads an older one
 * compute it the same way from the same figures.
 *
 * The degradation is a uniform slowdown of the point: every iteration's
 * time multiplied by k >= 1, so its busbw (and algbw) divided by k. The
 * point fails its limits at the smallest such k that crosses one of:
 *   min_busbw_gbps    busbw / k < limit            k = busbw / limit
 *   max_latency_us    median x k > limit           k = limit / median
 *   the relative rule figure / k < reference x (1 - pct / 100)
 *                     (the peers unchanged: one group degrades)
 *   (a pair: its bandwidth against min_bw_gbps, the relative rule's
 *   references, the same-rack and rack rules', at each size; its 8-byte
 *   latency against max_latency_us)
 * The record says it as the throughput loss 1 - 1/k (catch_loss_pct: "a
 * 12% busbw loss would have failed it"), 0 when the point already fails,
 * null when no timing rule applied to it (a loss of any size passes).
 *
 * Noise: noise_pct is 100 x the robust standard deviation of the
 * log-times of its samples (lib/engine/fc_samples.h; 1.4826 x MAD, about the
 * coefficient of variation), null without samples. A limit is flagged
 *   "inside_noise"       when the noise is at least the margin
 *                        (noise_pct >= catch_loss_pct): single iterations
 *                        of a healthy run already reach the limit, so a
 *                        slower run of the same hardware may fail it;
 *   "looser_than_noise"  when the margin is more than FC_SENS_LOOSE times
 *                        the noise (at least 1%): a limit that close to
 *                        the measurement would still sit outside its
 *                        noise, so this one lets through losses the
 *                        measurement could have shown (a hand-written
 *                        loose profile; `fabcert baseline` derives limits
 *                        from the noise instead).
 */
#ifndef FC_SENSITIVITY_H
#define FC_SENSITIVITY_H

#include <jansson.h>

#define FC_SENS_LOOSE 10.0

/* {"catch_loss_pct": X|null, "by": "which limit", "noise_pct": N|null,
 * "flag": "inside_noise"|"looser_than_noise"|null} for a point record
 * (its busbw_gbps, algbw_gbps, time_us, limit, relative, samples), a pair
 * record (its sizes and latency), or NULL for a record of another type. */
json_t *fc_sensitivity_of(json_t *rec);

/* A stage's sensitivity over its judged point and pair records (recs):
 * per group (a point's group; for a pair, each of its two nodes, since a
 * node's link slows every pair it is in) the smallest loss that fails one
 * of its records, and over the groups the largest of those: a uniform
 * loss of that size on any one group would have failed the stage.
 * {"catch_loss_pct": X|null, "least_covered": GROUP|null, "by": ...,
 * "statement": "a 12% throughput loss on any node would have failed this
 * stage ...", "groups": N, "groups_without_timing_rule": [...],
 * "judged": N, "looser_than_noise": N, "inside_noise": N,
 * "noise_unknown": N}; kind names a group ("node", "rack", "job").
 * A record's own "sensitivity" member is used when it has one; a stage
 * without point or pair records (preflight, contention) gets null. */
json_t *fc_sensitivity_stage(json_t *recs, const char *kind);

#endif
