/*
 * fc_judge.h - applies a stage's profile to the summaries of one test
 * point: zero tolerance for wrong bits, digests that must agree, absolute
 * limits (min busbw, max median latency) and the relative rule (a group
 * more than X% below the median busbw of its peers fails). Peers are the
 * groups of the same shape (lib/engine/fc_peers.h): same nodes, ranks and
 * transport. Each failure becomes one sentence that names the host, rank
 * and the part implicated; each rule that could not judge a group (no
 * peer of its shape, a bus factor of 0, a one-rank call that moves
 * nothing, a size below the rule's range) becomes a note that says so,
 * so the record shows which rules judged it.
 *
 * Sizes: every size range of a profile (a limit's min_bytes/max_bytes,
 * relative.min_bytes) is matched against the requested size, the one the
 * profile's `sizes` (or --sizes) names; the actual bytes moved (rounded
 * down to whole elements per rank, nccl-tests' convention) are reported
 * beside it.
 */
#ifndef FC_JUDGE_H
#define FC_JUDGE_H

#include <jansson.h>

#include "fc_engine.h"
#include "fc_peers.h"
#include "fc_profile.h"

#define FC_REASON_MAX 512
#define FC_JUDGE_NOTES 3

typedef struct fc_judgement {
    fc_status_t status;         /* FC_OK or FC_ERR_FAIL (or the run status) */
    int nreasons;
    char reasons[4][FC_REASON_MAX];
    const fc_limit_rule_t *limit;   /* the absolute rule applied, or NULL */
    double peer_median_busbw;       /* relative rule's reference, or -1 (of
                                     * algbw when peer_algbw) */
    int peer_algbw;                 /* 1: the rule compared algbw (busbw
                                     * says nothing for this shape) */
    int peer_count;                 /* groups in that reference */
    char peer_class[FC_PEER_TEXT_MAX];  /* "median of 2 racks of 3 nodes x
                                         * 2 ranks (network)" */
    int nnotes;                     /* rules that did not judge, and why */
    char notes[FC_JUDGE_NOTES][FC_REASON_MAX];
    int confirmed;                  /* 1: a timing failure reproduced (alone,
                                     * or sustained over soak windows); only
                                     * a confirmed failure is blamed */
} fc_judgement_t;

/* Judge each of n summaries of the same point; out has n entries. kind
 * names one group in messages ("node", "rack"). */
void fc_judge_point_kind(const fc_stage_profile_t *sp, const fc_test_point_t *pt,
                         const fc_point_summary_t *sums, int n, const char *kind,
                         fc_judgement_t *out);
/* The same with kind "group". */
void fc_judge_point(const fc_stage_profile_t *sp, const fc_test_point_t *pt,
                    const fc_point_summary_t *sums, int n, fc_judgement_t *out);
/* The bits of one summary into j: wrong elements above max_wrong, ranks
 * or repetitions holding different bits, and calls made whose outputs
 * were not checked (fc_calls.h) each fail it, with the reason. */
void fc_judge_bits(const fc_stage_profile_t *sp, const fc_point_summary_t *s,
                   fc_judgement_t *j);
/* 1 when busbw means nothing for this point on nranks ranks: one rank
 * (a bus factor of 0 for all_reduce, all_gather, reduce_scatter and
 * all_to_all; broadcast and sendrecv move nothing between ranks). */
int fc_judge_busbw_void(fc_coll_id_t coll, int nranks);
/* The figure the relative rule compares for a group of s->nranks running
 * coll: busbw, or where busbw says nothing (one rank) algbw: groups of one
 * shape running one point move the same bytes, so bytes over time compares
 * like with like (a one-rank node 40,000 times slower than its peers is
 * caught). */
double fc_judge_relative_figure(fc_coll_id_t coll, const fc_point_summary_t *s);
/* "busbw" or "algbw": the name of that figure. */
const char *fc_judge_relative_figure_name(fc_coll_id_t coll, int nranks);
/* 1 when coll on nranks ranks need move no data at all (one rank, and a
 * broadcast or an in-place variant): its algbw is bytes over the call's
 * overhead, so the relative rule does not compare it (and says "moves
 * nothing on one rank"); bits and time are still judged. */
int fc_judge_moves_nothing(fc_coll_id_t coll, int nranks);

/* Into a point record: "relative" (the reference, its peer class and the
 * allowed percentage) where the relative rule judged, and
 * "rules_not_applied" (the notes; empty when every rule judged). */
void fc_judgement_set_rules(json_t *rec, const fc_judgement_t *j,
                            double max_below_median_pct);

#endif
