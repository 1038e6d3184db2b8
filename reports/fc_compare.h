/*
 * fc_compare.h - `fabcert compare BEFORE AFTER`: is AFTER, a run of the
 * same cluster (after maintenance, say), slower than BEFORE (the run the
 * rack was accepted on) beyond the noise, and how small a slowdown could
 * the two runs have shown?
 *
 * Each measurement both runs made is one comparison: a point of the node,
 * rack and cluster stages (stage, collective, type, op, requested size,
 * group) and a pair of the pairs stage at each size (its two hosts). The
 * samples each record keeps (lib/engine/fc_samples.h) are tested with the
 * statistics of lib/engine/fc_stats_compare.h: the one-sided Mann-Whitney test,
 * Holm's step-down over every comparison of the two runs (family-wise
 * level alpha), and the bootstrap interval of the ratio of medians. A
 * comparison is SLOWER when the test rejects and the interval's lower end
 * is above 1 + min_slowdown: slower beyond the noise, and by more than the
 * floor (the noise between two runs is more than the noise within one,
 * which is all these samples show). Each comparison records the slowdown
 * it would have found with the stated power: (1 + min_slowdown) x (1 +
 * fc_cmp_mds at alpha / m) - 1, m the comparisons.
 *
 * Per rack, a delta certificate (canonical JSON, digest, optional
 * Ed25519 signature, verified by `fabcert verify` like a run's; format
 * FC_DELTA_FORMAT) naming both inputs by the SHA-256 of their
 * results.jsonl, every comparison that concerns the rack, and findings
 * (fc_compare_find.c: a node every one of whose pairs, or node-stage
 * points, is slower; a pair; a rack; the cluster). Its verdict: FAIL when a
 * comparison is slower; else INCOMPLETE when a measurement of BEFORE
 * could not be compared (AFTER lacks it, or a side has no samples: a
 * record of an older fabcert), when the rack is missing from one run,
 * when a record of either could not be read, or when either run's own
 * verdict on the rack is not PASS; else PASS. Soak and contention records
 * are not compared (the soak keeps window medians, contention its ratio).
 */
#ifndef FC_COMPARE_H
#define FC_COMPARE_H

#include "fc_sign.h"         /* FC_DELTA_FORMAT */
#include "fc_status.h"
#include "fc_verdict.h"

typedef struct fc_compare_opts {
    double alpha;           /* family-wise level: 0.05 is 95% confidence */
    double power;           /* of the detectable slowdown: 0.8 */
    double min_slowdown;    /* the floor, a fraction: 0.05 */
    const char *out_dir;    /* where the reports go */
    const char *sign_key;   /* a secret key file, or NULL */
} fc_compare_opts_t;

/* Compare the two run directories and write the reports into
 * o->out_dir: certificates/RACK.json (and .sig), summary.txt, junit.xml,
 * index.html; print the summary. *overall_p: the worst rack's verdict.
 * FC_ERR_INVALID on bad input (a directory without a readable
 * results.jsonl or plan, a bad key, or BEFORE and AFTER the same run: the
 * same run id, or the same results.jsonl bytes), nothing written. */
fc_status_t fc_compare_dirs(const char *before, const char *after,
                            const fc_compare_opts_t *o, fc_verdict_t *overall_p);

#endif
