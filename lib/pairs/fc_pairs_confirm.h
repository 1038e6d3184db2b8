/*
 * fc_pairs_confirm.h - confirmation before blame for the pairs stage
 * (DESIGN, rule 2). The tournament measures n/2 pairs at once, so a pair
 * can be slow because of what ran beside it: on a busy host, on a shared
 * spine. Nothing measured in a round is blamed until it is reproduced
 * alone: every other pair idle, one pair measured at a time.
 *
 * Given the tournament's slow pairs and a measurement (x <-> y alone, judged
 * by the same limits), fc_pairs_confirm() decides, in this order. Each
 * probe below is decided by the rule of lib/engine/fc_confirm_rule.h: two alone
 * measurements, and a third when they disagree (the majority of three);
 * every measurement is kept.
 *
 *  1. A rack uplink: every pair that crosses from rack R (two nodes or
 *     more) to another rack was slow; it is confirmed when, alone, a node
 *     of R is slow with a node outside R and fast with a node of R. Its
 *     cross pairs are explained by it. With only two racks the two
 *     uplinks (and a one-node rack's link) are in series: both racks are
 *     marked, as the spine between them, and nobody is quarantined.
 *  2. A node's NIC or link: a node with slow pairs left is probed alone
 *     with up to two known-good partners (one in its own rack first, so an
 *     uplink is not mistaken for a NIC, then one in another rack), each
 *     partner vouched for by being fast alone with a third node. Slow with
 *     every partner (two or more) confirms it; its pairs are explained by
 *     it. A partner whose probe is undecided (a CPU held it every time)
 *     beside a slow one is replaced by one of the same kind (its own
 *     rack, or across), one more at most: the undecided probe neither
 *     confirms nor clears, the two slow ones do. A node alone in
 *     its rack has only partners across the spine: its
 *     link and its rack's uplink are in series, and the record says so.
 *  3. Every slow pair not explained so far is measured again alone: slow
 *     again, its path (the cable, a switch port between the two) is
 *     implicated; fast, it was not reproduced and passes, with both
 *     measurements on record; undecided, it stays a suspicion (neither
 *     passed nor blamed).
 *  4. A rack's switch (top of rack): a rack of three nodes or more whose
 *     every pair inside it was slow in its round and slow alone, each of
 *     its nodes fast alone with a partner outside the rack (one probe
 *     more for a node not yet measured so): its nodes' links and its
 *     uplink carry fast traffic, so what the slow pairs share is the
 *     switch between them. Its pairs are explained by it; nobody is
 *     quarantined. When a node could not be shown fast outside the rack
 *     (slow there too, or no partner), the pairs stay what step 3 made
 *     them and the rack's tor_unshown names that node.
 *
 * A probe is slow or fast only by a judgement (lib/pairs/fc_pairs_judge.c,
 * fc_pairs_judge_alone) against references its own two nodes do not set;
 * a probe no such reference could judge is undecided, which is neither
 * slow nor fast here: it confirms no node, clears no node, vouches for no
 * partner and shows no uplink.
 *
 * Evidence must agree before it blames. A probe slow alone whose pair the
 * rounds measured faster by more than the tolerance (beside other pairs,
 * which only slows a pair; the contradicts callback compares the figures)
 * contradicts its own record: it is measured again, two or three more
 * times by the same rule. Fast then, the probe is fast (the rounds and the
 * second series agree); slow again, it disagrees (FC_PROBE_DISAGREES):
 * like undecided it confirms, clears and vouches for nothing, and a node
 * whose confirmation it stopped is disputed (fc_confirm_disputed: its
 * rack INCOMPLETE with both figures, never a quarantine).
 *
 * Nodes are visited most open suspicion first, counted again after each
 * confirmation: a pair already explained by a node's confirmed link, or
 * whose other end was slow alone with every partner it was measured with,
 * does not make its other end a suspect. One bad node among n costs about
 * four probes (eight measurements), not n. At most max_measures
 * measurements are made, a probe starting only while its three fit; what
 * is left then is UNCONFIRMED: never a pass, never a quarantine. Pure
 * logic: the measurement is a callback (suites/pairs.c measures over MPI;
 * tests/unit/pairs_confirm.c simulates a fabric).
 */
#ifndef FC_PAIRS_CONFIRM_H
#define FC_PAIRS_CONFIRM_H

#include "fc_confirm_rule.h"

/* Measure x <-> y alone once and judge it (FC_CONFIRM_MEAS_*): 1 slow, 0
 * fast, 2 undecided (measured, but no reference its two nodes do not set
 * could judge it: it neither clears nor confirms), -1 not measured. It is
 * measurement number c->nmeasures (from 0) of the run. */
typedef int (*fc_pairs_probe_func_t)(void *arg, int x, int y);
/* 1 when measurements first .. first + n - 1 of x <-> y, a series judged
 * slow alone, contradict the rounds: the rounds measured the pair faster
 * than each of them by more than the tolerance; else 0. */
typedef int (*fc_pairs_contradicts_func_t)(void *arg, int x, int y, int first, int n);

/* What became of a pair of the tournament. */
typedef enum fc_pair_verdict {
    FC_PAIR_V_OK = 0,           /* fast in its round */
    FC_PAIR_V_NOT_REPRODUCED,   /* slow in its round, fast alone: passes */
    FC_PAIR_V_NODE_A,           /* explained by node a's confirmed link */
    FC_PAIR_V_NODE_B,           /* explained by node b's confirmed link */
    FC_PAIR_V_UPLINK,           /* explained by a confirmed rack uplink */
    FC_PAIR_V_SPINE,            /* explained by the spine between its two
                                 * racks: one of their uplinks, which no
                                 * third rack's node could tell apart */
    FC_PAIR_V_PATH,             /* slow alone too; both ends are fast alone
                                 * with another partner: the path between */
    FC_PAIR_V_UNPLACED,         /* slow alone too; an end is slow with its
                                 * other partners too, which could not be
                                 * shown good (or has none): several slow
                                 * links, or two nodes in all, not placed */
    FC_PAIR_V_UNCONFIRMED,      /* slow in its round, the probes ran out */
    FC_PAIR_V_SWITCH,           /* inside a rack whose every pair is slow
                                 * alone, each node fast alone with a
                                 * partner outside it: the rack's switch */
    FC_PAIR_V_UNDECIDED,        /* slow in its round; measured alone, but no
                                 * honest reference could judge it: neither
                                 * passed nor blamed */
} fc_pair_verdict_t;

/* A probe's decision beside FC_CONFIRM_MEAS_*: slow alone twice over
 * where the rounds measured the pair fast. */
#define FC_PROBE_DISAGREES 3
/* measurements a probe may hold: its series and, when it contradicts the
 * rounds, the series measured again */
#define FC_PROBE_MAX_MEASURES (2 * FC_CONFIRM_MAX_MEASURES)

/* One probe: a pair measured alone two or three times, and the decision. */
typedef struct fc_pairs_probe {
    int x, y;
    int slow;                   /* the decision: 1 slow, 0 fast, 2 undecided,
                                 * 3 disagrees with the rounds, -1 not measured */
    int first;                  /* its measurements are numbers first .. */
    int nmeasures;              /* ... first + nmeasures - 1, in order */
    int meas[FC_PROBE_MAX_MEASURES];    /* each one's judgement (1, 0, 2, -1) */
    int again;                  /* measurements of the first series when it was
                                 * measured again (meas[again..] the second), else 0 */
    int first_slow;             /* the first series' decision (FC_CONFIRM_MEAS_*) */
} fc_pairs_probe_t;

/* A node's link is confirmed by slow probes with this many known-good
 * partners ... */
#define FC_CONFIRM_PARTNERS 2
/* ... out of at most this many tried: a probe left undecided (no honest
 * reference judged it, or a host's CPU held it every time) is no
 * evidence either way, so a partner of the same kind is tried in its
 * place */
#define FC_CONFIRM_PARTNER_TRIES 3

typedef struct fc_pairs_confirm {
    int n, npairs, nracks;
    fc_pairs_probe_t *probes;   /* every probe, in order */
    int nprobes;
    int nmeasures, max_measures;    /* alone measurements made, allowed */
    int exhausted;              /* a probe did not fit in max_measures */
    int out_of_time;            /* set by the caller's measurement: the
                                 * stage's time would not hold more */
    int common_node;            /* two or more pairs judged paths, every
                                 * one with this node at an end (a link
                                 * slow now and then, which its own probes
                                 * cleared): noticed, not blamed; -1 */
    /* per node */
    int *link;                  /* 1: its NIC or link is confirmed */
    int *alone_in_rack;         /* its partners were all across the spine */
    int (*partner_probe)[FC_CONFIRM_PARTNER_TRIES];     /* probes with its partners, -1 */
    int (*vouch_probe)[FC_CONFIRM_PARTNER_TRIES];       /* each slow partner's vouching
                                                         * probe, -1 */
    int *probed;                /* 1: the node was probed with partners */
    int *slow_all;              /* 1: slow alone with two partners or more and
                                 * fast or disputed with none (an undecided
                                 * probe beside them says nothing), vouched for
                                 * or not */
    /* per rack */
    int *uplink;                /* 1: the rack's uplink is confirmed */
    int spine_pair;             /* two racks in all: their uplinks (and a
                                 * one-node rack's link) are in series, both
                                 * marked, not told apart */
    int (*uplink_probe)[3];     /* across, inside, the across partner's voucher */
    int *tor;                   /* 1: the rack's switch explains its pairs (step 4) */
    int *tor_unshown;           /* every pair inside the rack slow alone, but
                                 * this node not shown fast outside it; -1 */
    int *outside_probe;         /* per node, for step 4: a probe fast with a
                                 * partner outside its rack, -1 */
    /* per pair (index into the a[], b[] lists) */
    fc_pair_verdict_t *verdict;
    int *alone_probe;           /* its own alone re-measure, -1 */
    int (*spine_probe)[3];      /* FC_PAIR_V_SPINE: across, inside each rack */
} fc_pairs_confirm_t;

/* n nodes in racks rack[v] (0..nracks-1), npairs pairs (a[k], b[k]) of the
 * tournament with slow[k]; max_measures bounds the alone measurements
 * (probe calls); contradicts (NULL: nothing contradicts) and probe take
 * arg. */
void fc_pairs_confirm(int n, const int *rack, int nracks, int npairs, const int *a,
                      const int *b, const int *slow, int max_measures,
                      fc_pairs_probe_func_t probe, fc_pairs_contradicts_func_t contradicts,
                      void *arg, fc_pairs_confirm_t *c);
void fc_pairs_confirm_free(fc_pairs_confirm_t *c);

/* Node v was fast alone with one of its partners at least. */
int fc_confirm_clear(const fc_pairs_confirm_t *c, int v);

/* Node x was fast alone with a partner on the way toward node y: any
 * partner when y is in x's rack; one in another rack than x's when y is
 * across the spine (x's link and its rack's uplink then carry fast
 * traffic). rack: each node's rack, as given to fc_pairs_confirm. */
int fc_confirm_clear_toward(const fc_pairs_confirm_t *c, const int *rack, int x, int y);

/* Node v was probed, neither confirmed nor cleared, and a probe of its
 * (with a partner, or one vouching for a partner) disagrees with the
 * rounds: the probe's index, else -1. */
int fc_confirm_disputed(const fc_pairs_confirm_t *c, int v);

/* "not_reproduced", "node_a", ... for records. */
const char *fc_pair_verdict_name(fc_pair_verdict_t v);

#endif
