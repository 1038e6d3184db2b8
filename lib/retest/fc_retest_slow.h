/*
 * fc_retest_slow.h - inside the slowness retest: the state of one
 * judgement, shared by the file that decides (lib/retest/fc_retest_slow.c: the
 * point-to-point placement and the leave-one-out) and the file that
 * writes its records (lib/retest/fc_retest_slow_records.c). The interface the
 * retest program uses is fc_retest_records.h.
 */
#ifndef FC_RETEST_SLOW_H
#define FC_RETEST_SLOW_H

#include "fc_retest_records.h"

#define FC_SLOW_FACTOR 3.0
#define FC_SLOW_TEXT 1024
#define FC_SLOW_MAX_PLACED 32

typedef struct fc_slow {
    const fc_retest_input_t *in;
    int *unit_of;               /* per rank: its unit (host, or itself) */
    int nunits;
    char (*unit_names)[FC_HOST_MAX + 16];   /* per unit: "rank 3" or its host */
    int one_host;               /* the job has one host: units are ranks */
    int nracks;                 /* racks the job's hosts are in */
    double ref_ex;              /* the lower quartile of every exchange's time */
    int np2p;                   /* units placed by point to point */
    int p2p_units[FC_SLOW_MAX_PLACED];
    int p2p_ranks[FC_SLOW_MAX_PLACED];  /* its one slow rank, or -1: the host */
    int np2p_refused;           /* units that stood apart, more than half */
    int series_unit;            /* stood apart, but alone in its rack of two
                                 * racks: in series with both uplinks, -1 */
    int loo_unit;               /* placed by leave-one-out, -1 */
    int loo_rank;               /* the one rank whose absence is fast, -1 */
    int p2p_slow, p2p_total;    /* slow exchanges, all exchanges */
    double loo_best, loo_rest_min, loo_rest_max;
    int culprits[FC_SLOW_MAX_PLACED];   /* the units placed, each with a record */
    int nculprits;
} fc_slow_t;

/* Judge the retest of in: units, the point-to-point placement, the
 * leave-one-out, the culprits (s->culprits; none when the slowness is the
 * group's, or a lone host of two racks is in series with both uplinks:
 * s->series_unit). fc_slow_free() releases s. */
void fc_slow_judge(const fc_retest_input_t *in, fc_slow_t *s);
void fc_slow_free(fc_slow_t *s);
/* Unit u's name ("rank 3" or its host), "?" past the units. */
const char *fc_slow_unit(const fc_slow_t *s, int u);
/* The host of unit u's first rank, "" when none. */
const char *fc_slow_host_of(const fc_slow_t *s, int u);
/* The rack of host (the runner's host_racks), "" when not known. */
const char *fc_slow_rack(const fc_slow_t *s, const char *host);
/* Host unit u is the only host of the job in its rack: its link and its
 * rack's uplink are in series (and, with two racks in all, the other
 * rack's uplink too). */
int fc_slow_alone_in_rack(const fc_slow_t *s, int u);
/* Exchange e took over FC_SLOW_FACTOR times the lower quartile one. */
int fc_slow_exchange(const fc_slow_t *s, const fc_exchange_t *e);
/* Exchange e was timed (not a bye). */
int fc_slow_valid(const fc_exchange_t *e);
/* Index of unit u among the point-to-point placements, or -1. */
int fc_slow_p2p_index(const fc_slow_t *s, int u);

#endif
