/*
 * fc_pairs_agree.c - see fc_pairs_agree.h: the agreement of a probe with
 * its round, and a confirmed node's direction.
 */
#include "fc_pairs_agree.h"

#include <stdio.h>

#include "fc_pairs_evidence.h"

/* The slowest size of stored measurement m (its figure in the texts). */
static const fc_pair_t *fc_agree_figure(const fc_pairs_run_t *run, int m)
{
    const fc_pair_t *worst = NULL;

    for (int z = 0; z < run->ctx->sp.nsizes; ++z) {
        const fc_pair_t *p = fc_pairs_alone_at(run, m, z);

        if (worst == NULL || (p->slow && !worst->slow) ||
            (p->slow == worst->slow && p->bw_gbps < worst->bw_gbps))
            worst = p;
    }
    return worst;
}

size_t fc_pairs_series_text(const fc_pairs_run_t *run, const fc_pairs_probe_t *pr, int from,
                            int to, char *buf, size_t len)
{
    size_t at = 0;

    if (len > 0)
        buf[0] = '\0';
    for (int k = from; k < to; ++k)
        at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%s%.4f", k > from ? ", " : "",
                               fc_agree_figure(run, pr->first + k)->bw_gbps);
    return at;
}

double fc_pairs_round_gbps(const fc_pairs_run_t *run, int x, int y)
{
    double worst = -1;

    for (int z = 0; z < run->ctx->sp.nsizes; ++z) {
        const fc_pair_t *p = fc_pairs_find(run, x, y, z);

        if (p != NULL && (worst < 0 || p->bw_gbps < worst))
            worst = p->bw_gbps;
    }
    return worst;
}

json_t *fc_pairs_agreement_json(const fc_pairs_run_t *run, const fc_pairs_probe_t *pr)
{
    json_t *first = json_array(), *again = json_array();

    if (pr->again <= 0)
        return json_null();
    for (int k = 0; k < pr->nmeasures; ++k)
        json_array_append_new(k < pr->again ? first : again,
                              json_real(fc_agree_figure(run, pr->first + k)->bw_gbps));
    return json_pack("{s:f, s:o, s:o, s:s, s:b, s:f}", "round_gbps",
                     fc_pairs_round_gbps(run, pr->x, pr->y), "alone_gbps", first,
                     "measured_again_gbps", again, "result",
                     pr->slow == FC_CONFIRM_MEAS_FAST ? "fast when measured again: the first "
                     "series was noise" : "slow again: the evidence disagrees with the round",
                     "agrees", pr->slow == FC_CONFIRM_MEAS_FAST, "tolerance_pct",
                     fc_pairs_alone_at(run, pr->first, 0)->allowed_pct);
}

/* v's send and receive direction slow in most slow measurements of probe
 * pr (the series that decided it); -1 when a direction was not timed. */
static int fc_agree_probe_dirs(const fc_pairs_run_t *run, const fc_pairs_probe_t *pr, int v,
                               int *sends_p, int *receives_p)
{
    int from = pr->again > 0 ? pr->again : 0, nslow = 0, s = 0, r = 0;

    for (int k = from; k < pr->nmeasures; ++k) {
        int ms = 0, mr = 0, slow = 0;

        for (int z = 0; z < run->ctx->sp.nsizes; ++z) {
            const fc_pair_t *p = fc_pairs_alone_at(run, pr->first + k, z);
            int out = v == p->a ? 0 : 1;    /* dir_gbps[0] is a -> b */

            if (!p->slow)
                continue;
            if (p->dir_slow[0] < 0 || p->dir_slow[1] < 0)
                return -1;
            slow = 1;
            ms |= p->dir_slow[out];
            mr |= p->dir_slow[1 - out];
        }
        nslow += slow;
        s += ms;
        r += mr;
    }
    *sends_p = nslow > 0 && 2 * s > nslow;
    *receives_p = nslow > 0 && 2 * r > nslow;
    return 0;
}

fc_pairs_dir_t fc_pairs_node_direction(const fc_pairs_run_t *run, int v)
{
    const fc_pairs_confirm_t *c = &run->confirm;
    int all_s = 1, all_r = 1, any = 0;

    for (int k = 0; k < FC_CONFIRM_PARTNER_TRIES; ++k) {
        int i = c->partner_probe[v][k], s, r;

        if (i < 0 || c->probes[i].slow != FC_CONFIRM_MEAS_SLOW)
            continue;       /* an undecided probe beside the slow ones says nothing */
        if (fc_agree_probe_dirs(run, &c->probes[i], v, &s, &r) < 0)
            return FC_PAIRS_DIR_UNKNOWN;
        any = 1;
        all_s &= s;
        all_r &= r;
    }
    if (!any)
        return FC_PAIRS_DIR_UNKNOWN;
    return all_s && !all_r ? FC_PAIRS_DIR_SENDS : all_r && !all_s ? FC_PAIRS_DIR_RECEIVES
                                                               : FC_PAIRS_DIR_BOTH;
}

const char *fc_pairs_dir_name(fc_pairs_dir_t d)
{
    switch (d) {
    case FC_PAIRS_DIR_SENDS: return "sends";
    case FC_PAIRS_DIR_RECEIVES: return "receives";
    case FC_PAIRS_DIR_BOTH: return "both";
    default: return "unknown";
    }
}

void fc_pairs_dir_text(const fc_pairs_run_t *run, int v, fc_pairs_dir_t d, char *buf,
                       size_t len)
{
    const fc_pairs_confirm_t *c = &run->confirm;
    double out = 1e300, in = 1e300;

    buf[0] = '\0';
    if (d != FC_PAIRS_DIR_SENDS && d != FC_PAIRS_DIR_RECEIVES)
        return;
    /* the slowest figure of each direction over its partner probes */
    for (int k = 0; k < FC_CONFIRM_PARTNER_TRIES; ++k) {
        const fc_pairs_probe_t *pr;
        int i = c->partner_probe[v][k];

        if (i < 0 || c->probes[i].slow != FC_CONFIRM_MEAS_SLOW)
            continue;
        pr = &c->probes[i];
        for (int m = pr->again > 0 ? pr->again : 0; m < pr->nmeasures; ++m)
            for (int z = 0; z < run->ctx->sp.nsizes; ++z) {
                const fc_pair_t *p = fc_pairs_alone_at(run, pr->first + m, z);
                int o = v == p->a ? 0 : 1;

                out = p->dir_gbps[o] < out ? p->dir_gbps[o] : out;
                in = p->dir_gbps[1 - o] < in ? p->dir_gbps[1 - o] : in;
            }
    }
    snprintf(buf, len, " in what it %s only (alone, %.4f GB/s at the slowest from it to its "
             "partners, %.4f GB/s from them to it: each direction judged on its own)",
             d == FC_PAIRS_DIR_SENDS ? "sends" : "receives", out, in);
}
