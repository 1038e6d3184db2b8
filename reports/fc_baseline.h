/*
 * fc_baseline.h - `fabcert baseline RUN_DIR... --out PROFILE.yaml
 * [--margin PCT]`: a threshold profile derived from healthy runs of one
 * cluster, so that a later run of the same cluster is held to what it
 * measured rather than to limits written by hand.
 *
 * The runs must each PASS every rack (a baseline from a failing run would
 * bake the fault in; bad input otherwise). The node, pairs, rack and
 * cluster stages they ran are derived; the others (preflight, contention,
 * soak) are named in the file's header to be copied from the source
 * profile. Each derived stage keeps the source profile's `required`,
 * `timeout_s`, `backend` and `relative.min_bytes`, and sweeps what the
 * runs measured (sizes, collectives, types, ops, iterations, warm-up: the
 * runs' overrides included).
 *
 * The rule, per limit rule (a collective, type, op and size; coarser,
 * per collective and size or per size, when that would make more than
 * FC_PROFILE_MAX_LIMITS rules; for pairs per size, and one 8-byte
 * latency rule), over every figure of every group in every run it
 * covers (a median time t, a bandwidth b):
 *   m = max( ln(1 + margin),                    --margin, default 10%
 *            3 x s,     s: 1.4826 x MAD of ln(t / the median of its run)
 *                       over those figures (the spread across groups),
 *            2 x d,     d: the largest |ln(median of one run / median of
 *                       all)| (the run-to-run difference),
 *            4 x q )    q: the largest standard error of a median from
 *                       its own samples, 1.2533 x sd / sqrt(n), sd the
 *                       robust sd of its log-times (the iteration noise)
 *   max_latency_us = max t x e^m (rounded up to 4 digits)
 *   min_busbw_gbps = min b / e^m (rounded down; left out where a group's
 *                    busbw is 0: one rank)
 * So no limit is tighter than any figure the runs measured, nor than
 * twice the difference between the runs given. Relative rule (node,
 * pairs, rack): the worst deviation w of any group below the median of
 * the others of its shape (pairs: the upper median of its path kind) at
 * any point from relative.min_bytes up, in any run; max_below_median_pct
 * = 100 x (1 - (1 - w) / (1 + margin)), at least the margin, at most 95.
 * Every rule is preceded by a comment with the figures it came from and
 * the term that set its margin.
 */
#ifndef FC_BASELINE_H
#define FC_BASELINE_H

#include "fc_status.h"

/* Derive the profile from the nruns directories into out_path (named
 * name, or "baseline-SOURCE" for NULL); margin a fraction. Validates the
 * written file as check-profile does and prints its SHA-256. FC_OK, or
 * FC_ERR_INVALID on bad input (a run that does not PASS, no run with
 * measurements to derive from). */
fc_status_t fc_baseline_derive(const char *const *dirs, int nruns, const char *out_path,
                               double margin, const char *name);

#endif
