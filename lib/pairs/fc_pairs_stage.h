/*
 * fc_pairs_stage.h - what the pairs stage's program (suites/pairs.c: the
 * measurements over MPI) and its judgement share (lib/pairs/fc_pairs_judge.c:
 * limits, the relative and rack rules; lib/pairs/fc_pairs_alone.c: the same for
 * a pair measured alone, against references its nodes do not set;
 * lib/pairs/fc_pairs_report.c: the confirmation's verdicts, records and TAP).
 * Rank 0 holds every pair at every size measured in the tournament
 * (`pairs`) and every pair measured alone by the confirmation (`alone`,
 * one entry per measurement and size, in measurement order: a probe's
 * two or three measurements follow each other).
 */
#ifndef FC_PAIRS_STAGE_H
#define FC_PAIRS_STAGE_H

#include "fc_judge.h"
#include "fc_peers.h"
#include "fc_pairs_confirm.h"
#include "fc_samples.h"
#include "fc_stage.h"

#define FC_PAIRS_LAT_BYTES 8

/* One side's measurement of one pair at one size. */
typedef struct fc_pair_side {
    int32_t node, partner, size_index, valid;
    double median_s;        /* median time of one exchange */
    double recv_median_s;   /* median time until this side had received
                             * its partner's data: the partner's direction
                             * into this node; 0 when not timed apart */
    double lat_us;          /* half round trip, 8 bytes */
    double cpu_wait;        /* share of the timed exchanges' time this
                             * side's thread waited for a CPU in them and in
                             * the gaps before them (lib/base/fc_runq.h), 0
                             * to 1; -1 not known */
    double free_median_s;   /* the median over the timed exchanges of each
                             * one's time less those waits (at most its
                             * time); -1 not known */
    double lat_cpu_wait;    /* the same two over the timed round trips ... */
    double free_lat_us;     /* ... (half the median round trip, in us) */
    uint64_t wrong;         /* wrong elements received */
    int32_t first_iter;
    uint64_t first_pos, expected, actual;
    fc_samples_t samples;   /* each timed exchange's time (fc_samples.h) */
    uint64_t calm;          /* bit k: in sample k's exchange, and in the gap
                             * before it, this side waited for a CPU at
                             * most FC_PAIRS_CALM_WAIT of the exchange's
                             * time (both sides keep the same iterations) */
} fc_pair_side_t;

/* An iteration is calm on a side when that side's thread waited for a CPU
 * at most this share of the iteration's time (lib/base/fc_runq.h) */
#define FC_PAIRS_CALM_WAIT 0.05

/* How the relative rule met a pair at one size. */
typedef enum fc_pair_rel {
    FC_PAIR_REL_OFF = 0,    /* the profile has no relative rule */
    FC_PAIR_REL_APPLIED,    /* compared with the upper median of its class */
    FC_PAIR_REL_ALONE,      /* no other pair of its path kind */
    FC_PAIR_REL_SMALL,      /* size below relative.min_bytes */
} fc_pair_rel_t;

/* How the same-rack rule met a pair inside a rack at one size. */
typedef enum fc_pair_same {
    FC_PAIR_SAME_OFF = 0,   /* across the spine, or no relative rule here */
    FC_PAIR_SAME_NONE,      /* no other rack has pairs inside it: nothing to
                             * compare its rack's pairs with */
    FC_PAIR_SAME_CLEAR,     /* its rack's pairs, as a median, are not slow
                             * beside those inside the other racks */
    FC_PAIR_SAME_APPLIED,   /* they are: it is judged against the latter */
} fc_pair_same_t;

/* How the two-racks rule met a pair across the spine at one size
 * (lib/pairs/fc_pairs_spine.c). */
typedef enum fc_pair_two {
    FC_PAIR_TWO_OFF = 0,    /* inside a rack, three racks or more, or no
                             * relative rule here */
    FC_PAIR_TWO_SHARED,     /* two racks of two nodes or more: the rack rule
                             * (three racks) cannot apply, the class's does */
    FC_PAIR_TWO_NONE,       /* two racks of one node: no pair inside a rack */
    FC_PAIR_TWO_APPLIED,    /* two racks, one of them one node: judged
                             * against the pairs inside the other rack */
} fc_pair_two_t;

/* A pair at one size, both sides merged (rank 0). */
typedef struct fc_pair {
    int a, b, size_index;
    double bw_gbps;         /* per direction, from the slower side */
    double dir_gbps[2];     /* each direction on its own, from its receiver's
                             * end: [0] a -> b, [1] b -> a; 0 when not timed
                             * apart */
    int dir_slow[2];        /* alone: each direction judged on its own, by the
                             * same limits and references (1 slow, 0 not, -1
                             * not timed apart) */
    int slow_abs;           /* an absolute limit found it slow */
    int control;            /* alone: the stored measurement of the control
                             * pair measured right after it, -1 */
    int control_cleared;    /* alone: 1 slow by the references of the rounds,
                             * not beside its control: not slow; 2 failed a
                             * limit its control failed too: undecided */
    double allowed_pct;     /* the relative tolerance it was judged by: the
                             * profile's, or alone the probes' own spread
                             * when larger (fc_pairs_alone_tolerance) */
    fc_samples_t samples;   /* the slower side's exchange times */
    double lat_us;
    /* the side that waited longer for a CPU holds both ends (an exchange
     * is as slow as its slower end), so it speaks for the pair: */
    double cpu_wait;        /* the higher share of its sides' (0: neither
                             * waited, or neither could say) ... */
    int wait_unknown;       /* a side could not say (no schedstat): the
                             * waits do not speak for the pair */
    int cpu_wait_node;      /* ... that side's node, -1 ... */
    double free_bw_gbps;    /* ... and its bandwidth without its waits
                             * (from its free_median_s), -1 not known */
    double lat_cpu_wait;    /* the same over the round trips */
    int lat_wait_node;
    double free_lat_us;
    double side_cpu_wait[2];    /* each side's share over the exchanges,
                                 * [0] node a's, [1] node b's; -1 not known */
    double side_lat_cpu_wait[2];    /* ... and over the round trips */
    int cpu_held;           /* alone: slow as measured, not slow once the
                             * time its ranks waited for a CPU is taken out:
                             * the host's processors, not the fabric, so
                             * undecided (lib/pairs/fc_pairs_passes.c) ... */
    int held_node;          /* ... the node whose side's waits those were */
    int cpu_again;          /* alone: measured again this many times in place
                             * of measurements so held ... */
    int cpu_again_node;     /* ... the last of them held by this node's CPU */
    /* alone: the exchanges neither side waited for a CPU in (calm on
     * both: their times are the fabric's; fc_pairs_calm_figure) */
    int calm_n, calm_of;    /* so many of the samples both sides kept ... */
    double calm_bw_gbps;    /* ... the slower side's median bandwidth over
                             * all of them with each exchange not calm
                             * counted the slowest: fast only when most of
                             * them were calm and fast; -1 unless most
                             * were calm ... */
    double calm_slow_gbps;  /* ... and with each counted the fastest: slow
                             * only when most were calm and slow; -1 none */
    int calm_looked;        /* alone, judged: its calm exchanges were looked at */
    int cpu_cleared;        /* alone: slow as measured, not slow on its calm
                             * exchanges: the host's CPU, not the fabric,
                             * and not slow (fc_pairs_passes.c) */
    int held_last;          /* alone: measured again in place of one held
                             * and held again: its waits hold it only where
                             * its sides waited unalike ... */
    int waits_alike;        /* ... and they did not: slow as measured, the
                             * fabric's (fc_pairs_passes.c) */
    uint64_t wrong;
    uint64_t wrong_at[2];   /* of those, received by a, by b */
    int bad_node;           /* the node that received wrong data, or -1 */
    fc_pair_side_t first;   /* the side that saw the first mismatch */
    int slow;
    char reasons[3][FC_REASON_MAX];
    int nreasons;
    int ntiming;            /* reasons[0..ntiming-1] are about its timing */
    double limit_bw, limit_lat;
    int limit_line, lat_line;
    fc_pair_rel_t rel;      /* the relative rule: reference or why none */
    double ref;             /* the upper median of its peer class */
    int ref_members;        /* pairs in that class (less ref_without's) */
    int class_members;      /* pairs in the whole class (the rounds) */
    /* the rack rule (three racks or more, fc_pairs_rack_rule): a pair
     * across the spine leaving a rack whose every pair of racks is slow
     * beside the fastest pair of racks without it is judged against the
     * latter, so bad uplinks slowing most pairs across the spine do not
     * set their class's upper median */
    int rack_rule_rack;     /* that rack's index, or -1 */
    double rack_median;     /* the fastest median of its pairs of racks */
    double rack_ref;        /* the fastest median of a pair of racks without it */
    int rack_ref_members;   /* pairs between that pair of racks */
    int rack_ref_a, rack_ref_b;     /* that pair of racks */
    /* the same-rack rule (fc_pairs_same_rack_rule): a pair inside a rack
     * whose pairs inside it are, as a median, slow beside the pairs inside
     * the other racks is judged against the latter's upper median, so a
     * slow switch of a rack holding most of the same-rack pairs does not
     * set their class's upper median */
    fc_pair_same_t same;
    double same_median;     /* the median of the pairs inside its rack */
    double same_ref;        /* the upper median of the pairs inside the others */
    int same_ref_members;   /* those pairs */
    int same_ref_racks;     /* the racks they are inside */
    int same_ref_rack;      /* the one such rack when there is one, else -1 */
    /* measured alone (fc_pairs_judge_alone): references its own two nodes
     * do not set. ref and ref_members above are then the class's upper
     * median over the pairs of the rounds that leave out ref_without (one
     * of its nodes: the one whose leaving out gives the higher figure;
     * slowness only lowers a figure, so the higher is clean of the slower
     * node). In the rounds the same, where higher than the whole class's
     * upper median and over 3 pairs or more (fc_pairs_judge.c); -1 when
     * the whole class's stands. A pair inside a rack is also judged against
     * across_ref: the higher of its two nodes' upper medians of their
     * pairs across the spine in the rounds (a pair inside a rack crosses
     * fewer links and must not be slower); 0 when none. */
    int ref_without;
    double across_ref;
    int across_node;        /* the node whose pairs across set it */
    int across_members;     /* those pairs */
    fc_pair_two_t two;      /* the two-racks rule (across the spine) */
    double two_ref;         /* APPLIED: upper median of the pairs inside ... */
    int two_members;        /* ... (that many) ... */
    int two_rack;           /* ... this rack (index); */
    int two_lone;           /* the node alone in its rack, every pair across
                             * the spine's (APPLIED, NONE: one of them), or -1 */
    int undecided;          /* alone: the relative rule would judge this
                             * size, no reference above (nor the same-rack
                             * or rack rule) could, and no limit found it
                             * slow: neither fast nor slow */
} fc_pair_t;

typedef struct fc_pairs_run {
    fc_stage_ctx_t *ctx;
    MPI_Comm leaders;       /* one rank per node; MPI_COMM_NULL elsewhere */
    int node, nnodes;
    int *leader_world;      /* world rank of each node's leader (its peer
                             * in an exchange, for the MPI error line) */
    char (*node_hosts)[FC_HOST_MAX];    /* rank 0 */
    int *node_racks;                    /* rank 0 */
    fc_pair_t *pairs;                   /* rank 0: every pair, every size */
    int npairs;
    fc_pair_t *alone;                   /* rank 0: stored measurement m, size
                                         * z at m*nsizes+z */
    int *alone_of;                      /* rank 0: the confirmation's measurement
                                         * number -> its stored measurement (a
                                         * pass of the confirmation replays what
                                         * an earlier one measured); NULL: the same */
    int nalone;                         /* stored measurements */
    int alone_widened;                  /* alone_pct, not the profile's, judges */
    double alone_pct;                   /* the alone judgement's tolerance then */
    double alone_spread_pct;            /* the spread of the alone measurements
                                         * (fc_pairs_alone_spread) */
    int spread_pairs;                   /* the pairs (and sizes) it is over */
    int spread_a, spread_b, spread_size;    /* the pair at that spread, -1 */
    double spread_lo, spread_hi;        /* ... its lowest and highest figures */
    int alone_passes;                   /* passes of the confirmation */
    fc_pairs_confirm_t confirm;         /* rank 0: the confirmation's verdicts */
    int confirmed;                      /* 1 once confirm holds them */
    double confirm_seconds;
    double round_max_s;                 /* rank 0: the slowest round */
    double measure_max_s;               /* rank 0: the slowest alone measurement */
    double cpu_again_pause_s;           /* rank 0: the pause before the first
                                         * measurement again of one a host's
                                         * CPU held, doubling each time (0:
                                         * none; fc_pairs_passes.c) ... */
    double cpu_again_paused_s;          /* ... and those pauses so far */
    int confirm_out_of_time;            /* rank 0: a probe was not started, the
                                         * stage's time would not hold it */
    int confirm_budget;                 /* rank 0: the measurements a pass may make */
    int sampled;                        /* the rounds are the sampled plan's
                                         * (lib/stage/fc_pairs_schedule.h), not
                                         * the full tournament */
    int partners;                       /* sampled: K partners per node */
    long planned_pairs;                 /* the pairs its rounds meet */
} fc_pairs_run_t;

/* Rank 0: judge every tournament pair (limits, relative rule, wrong data). */
void fc_pairs_judge(fc_pairs_run_t *run);
/* Rank 0: the limits and the relative rules on p, its references already
 * set (lib/pairs/fc_pairs_judge.c; the rounds' and the alone judgements share it). */
void fc_pairs_judge_timing(const fc_pairs_run_t *run, fc_pair_t *p);
/* Rank 0: judge p (measured alone) by the limits, the same-rack and rack
 * rules of the tournament's pair of the same nodes at the same size, and
 * the class's reference its two nodes do not set (and, inside a rack, its
 * nodes' pairs across the spine); sets p->slow, or p->undecided when no
 * such reference could judge it. */
void fc_pairs_judge_alone(const fc_pairs_run_t *run, fc_pair_t *p);
/* Rank 0: stored alone measurement of the confirmation's measurement
 * number m, at size z. */
fc_pair_t *fc_pairs_alone_at(const fc_pairs_run_t *run, int m, int z);
/* Rank 0: the spread the alone measurements show: for each pair of nodes
 * measured alone more than once and each size, 1 - lowest / highest of its
 * figures, in percent; their upper median (one pair caught in a burst does
 * not set it), with its pair, size and figures into run->spread_*; 0 when
 * no pair was measured twice. */
double fc_pairs_alone_spread(fc_pairs_run_t *run);
/* Rank 0: the confirmation's tolerance as JSON: the profile's, the probes'
 * spread, the one used and why (null without a relative rule). */
json_t *fc_pairs_alone_tolerance_json(const fc_pairs_run_t *run);
/* Rank 0: 1 when the alone measurements first .. first + n - 1
 * (confirmation numbers) of x <-> y, judged slow, each lie below the
 * rounds' figure of x <-> y by more than the tolerance at a size where
 * they are slow and the rounds judged it fast: evidence that contradicts
 * itself (a pair the rounds measured beside others cannot be faster than
 * alone). */
int fc_pairs_alone_contradicts(const fc_pairs_run_t *run, int x, int y, int first, int n);
/* Rank 0: the distinct pairs of nodes measured in the rounds (at any
 * size), a < b, in order of a then b (under the full tournament: every
 * pair); *a_p and *b_p are allocated (free them). Returns how many. */
int fc_pairs_measured(const fc_pairs_run_t *run, int **a_p, int **b_p);
/* Rank 0: an empty pair of nodes x, y at size z (the pairs stage's and
 * each rail's): no figure yet (bandwidth 1e300 until a side is merged),
 * no wait or calm figure known (-1), no node blamed. */
void fc_pairs_pair_new(fc_pair_t *p, int x, int y, int z);
/* Rank 0: one side's measurement into its pair (the pairs stage's and
 * each rail's): the slower direction's bandwidth and samples, the higher
 * latency, the wrong elements counted per side, the first one kept. */
void fc_pairs_merge_side(const fc_pairs_run_t *run, fc_pair_t *p, const fc_pair_side_t *s);

/* One side's timed iterations (times, and each one's wait for a CPU in
 * it and the gap before it, seconds; lib/base/fc_runq.h): the share of
 * their time spent waiting into *share_p, the median of each time less
 * its wait (1% of the time at least) into *free_p; both -1 when a wait is
 * not known (suites/pairs.c, lib/rails/fc_rails_measure.c). */
void fc_pairs_free_time(const double *times, const double *waits, int n, double *share_p,
                        double *free_p);
/* Which of the n iterations kept as samples (fc_samples_keep's rule: bit k
 * for sample k) were calm: a wait of at most FC_PAIRS_CALM_WAIT of the
 * iteration's time; none when a wait is not known. */
uint64_t fc_pairs_calm_bits(const double *times, const double *waits, int n);

/* The two sides a and b of one measurement of a pair at `bytes`: the
 * samples calm on both into p->calm_n of p->calm_of (0 of 0 when their
 * samples are not the same iterations), and the slower side's median
 * bandwidth over all the samples, those not calm counted the slowest,
 * into p->calm_bw_gbps, and counted the fastest into p->calm_slow_gbps
 * (both -1 unless most samples are calm on both sides, and -1 where the
 * median falls on one not calm). The samples not calm count against
 * whatever is concluded. */
void fc_pairs_calm_figure(fc_pair_t *p, const fc_pair_side_t *a, const fc_pair_side_t *b,
                          uint64_t bytes);
/* Rank 0: the tournament's entry for nodes (a, b) at size z, or NULL. */
fc_pair_t *fc_pairs_find(const fc_pairs_run_t *run, int a, int b, int z);
/* The upper median at size z of the pairs of the rounds of path kind
 * `path` that touch node `with` (when >= 0) and do not touch node
 * `without` (when >= 0), into *ref_p (scratch: room for every pair);
 * returns how many. */
int fc_pairs_upper_of(const fc_pairs_run_t *run, int z, fc_peer_path_t path, int with,
                      int without, double *scratch, double *ref_p);
/* The same-rack rule's reference of p as a phrase: "upper median of the
 * 3 pairs inside rack rack2". */
void fc_pairs_same_rack_text(const fc_pairs_run_t *run, const fc_pair_t *p, char *buf,
                             size_t len);
/* Rank 0: the references p (measured alone) was judged against, as a
 * phrase ("the upper median of the 4 pairs across the spine not touching
 * n01 (0.3301 GB/s)"; "no reference its two nodes do not set: undecided"). */
void fc_pairs_alone_reference_text(const fc_pairs_run_t *run, const fc_pair_t *p, char *buf,
                                   size_t len);
/* Rank 0: the two-racks rule at size z (lib/pairs/fc_pairs_spine.c): on two
 * racks the rack rule cannot apply; where one rack is one node, every pair
 * across the spine is that node's, so their class cannot judge them: each
 * is judged against the upper median of the pairs inside the other rack. */
void fc_pairs_two_racks_rule(fc_pairs_run_t *run, int z);
/* Rank 0: "the upper median of the 3 pairs inside rack rack1". */
void fc_pairs_two_racks_text(const fc_pairs_run_t *run, const fc_pair_t *p, char *buf,
                             size_t len);
/* p's peer class as a phrase: "13 pairs in the same rack" (members of
 * them). */
void fc_pairs_class_text(const fc_pairs_run_t *run, const fc_pair_t *p, int members,
                         char *buf, size_t len);
/* Rank 0: localise (the confirmation's verdicts), write the records and
 * TAP. Returns the failed checks. */
int fc_pairs_report(fc_pairs_run_t *run);

#endif
