/*
 * fc_rails_judge.c - the rails stage's judgement and records (rank 0; see
 * fc_rails_stage.h). Each rail's pairs are written by the pairs stage's
 * own report (lib/pairs/fc_pairs_report.c) into a scratch file, then re-written
 * into results.jsonl with every "host:nic" endpoint split into host, nic,
 * rail and pci, the record types prefixed (rail_pair, rail_node), and a
 * NIC the confirmation blames implicated as part "nic" with its rail: the
 * NIC is quarantined for its rail, not the host (docs/DECISIONS.md). Each
 * rail_node record carries the NIC's figures (each direction's bandwidth
 * and the latency with every partner, wrong elements received). The rail
 * rule compares the rails: per size and path kind (same rack, across the
 * spine), a rail whose upper median is below max_below_median_pct of the
 * best rail's, confirmed alone (its pair against the same pair on the best
 * rail, the majority of three), names the rail: its leaf switches (inside
 * racks) or its leaves' uplinks and spine (across) - unless its NICs
 * explain it: a pair of the rail is fast against the references, every
 * slow pair has a NIC slow with every partner, and each such NIC has a
 * NIC of its own rack that is not; then those NICs are named, not the
 * rail (two bad NICs of one rail made its median slow and the leaves were
 * blamed). A suspect NIC alone in its rack on the rail cannot be told
 * from the rail's switches: both are named.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_confirm_rule.h"
#include "fc_json.h"
#include "fc_log.h"
#include "fc_rails_stage.h"
#include "fc_stats.h"

static const char *const fc_kind_name[2] = { "inside a rack", "across the spine" };

static int fc_dbl_cmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;

    return a < b ? -1 : a > b;
}

/* Does pair p of rail r have a NIC the transport could not drive? Its
 * pairs measured nothing: they say nothing of the rail's switches. */
static int fc_rails_undriven(const fc_rails_run_t *rr, int r, const fc_pair_t *p)
{
    return rr->undriven != NULL && (rr->undriven[r * rr->nnodes + p->a] ||
                                    rr->undriven[r * rr->nnodes + p->b]);
}

/* Rail r at size z: is pair p slow against its kind's reference (-1: no
 * reference for its kind)? */
static int fc_rails_pair_slow(const fc_rails_run_t *rr, int r, int z, const fc_pair_t *p)
{
    const fc_pairs_run_t *run = &rr->rails[r];
    int nz = rr->ctx->sp.nsizes, kind = run->node_racks[p->a] != run->node_racks[p->b];
    const fc_rail_class_t *c = &rr->classes[(r * 2 + kind) * nz + z];
    double ref = c->ref_rail >= 0 ? c->ref : -1;

    if (ref < 0) {      /* r is the best rail of the kind: its own median */
        if (c->members == 0 || rr->ctx->sp.max_below_median_pct < 0)
            return -1;
        ref = c->median;
    }
    return p->bw_gbps < ref * (1 - rr->ctx->sp.max_below_median_pct / 100.0);
}

/* For each slow class: do its rail's NICs explain the slow pairs? */
static void fc_rails_explain(fc_rails_run_t *rr)
{
    int nz = rr->ctx->sp.nsizes, n = rr->nnodes;

    if (rr->suspect == NULL)
        rr->suspect = fc_xcalloc((size_t)(rr->nrails * nz * n) + 1, 1, "the suspect NICs");
    for (int r = 0; r < rr->nrails; ++r)
        for (int z = 0; z < nz; ++z) {
            const fc_pairs_run_t *run = &rr->rails[r];
            unsigned char *sus = &rr->suspect[(size_t)(r * nz + z) * n];
            fc_rail_class_t *c0 = &rr->classes[(r * 2) * nz + z];
            fc_rail_class_t *c1 = &rr->classes[(r * 2 + 1) * nz + z];
            int *seen = fc_xcalloc((size_t)n + 1, sizeof(int), "the NICs' pairs");
            int *slow = fc_xcalloc((size_t)n + 1, sizeof(int), "the NICs' slow pairs");
            int fa = -1, fb = -1, covered = 1, lone = 0, how;
            double fast_bw = 0;

            memset(sus, 0, (size_t)n);
            if (!c0->slow && !c1->slow) {
                free(seen);
                free(slow);
                continue;
            }
            for (int q = 0; q < run->npairs; ++q) {
                const fc_pair_t *p = &run->pairs[q];
                int s = p->size_index == z && !fc_rails_undriven(rr, r, p)
                            ? fc_rails_pair_slow(rr, r, z, p) : -1;

                if (s < 0)
                    continue;
                seen[p->a]++, seen[p->b]++;
                slow[p->a] += s, slow[p->b] += s;
            }
            for (int v = 0; v < n; ++v)
                sus[v] = seen[v] > 0 && slow[v] == seen[v];
            for (int q = 0; q < run->npairs; ++q) {
                const fc_pair_t *p = &run->pairs[q];
                int s = p->size_index == z && !fc_rails_undriven(rr, r, p)
                            ? fc_rails_pair_slow(rr, r, z, p) : -1;

                if (s == 1 && !sus[p->a] && !sus[p->b])
                    covered = 0;
                if (s == 0 && !sus[p->a] && !sus[p->b] && p->bw_gbps > fast_bw) {
                    fast_bw = p->bw_gbps;
                    fa = p->a;
                    fb = p->b;
                }
            }
            /* each suspect needs a NIC of its rack that is not one, or the
             * rack's switch of this rail is as likely */
            for (int v = 0; v < n; ++v) {
                int mate = 0;

                for (int u = 0; sus[v] && u < n; ++u)
                    mate |= u != v && !sus[u] && run->node_racks[u] == run->node_racks[v];
                if (sus[v] && !mate) {
                    int alone = 1;

                    for (int u = 0; u < n; ++u)
                        alone &= u == v || run->node_racks[u] != run->node_racks[v];
                    lone |= alone ? 1 : 2;  /* 2: a whole rack of suspects */
                }
            }
            how = fa < 0 || !covered || (lone & 2) ? 0 : lone ? 2 : 1;
            for (int kind = 0; kind < 2; ++kind) {
                fc_rail_class_t *c = kind ? c1 : c0;

                c->explained = c->slow ? how : 0;
                c->fa = fa;
                c->fb = fb;
                c->fast_bw = fast_bw;
            }
            if (how == 0)
                memset(sus, 0, (size_t)n);
            free(seen);
            free(slow);
        }
}

void fc_rails_rule(fc_rails_run_t *rr)
{
    const fc_stage_profile_t *sp = &rr->ctx->sp;
    int nz = sp->nsizes, n = rr->nnodes;
    double *bw = fc_xcalloc((size_t)(n * n) + 1, sizeof(double), "a class's figures");

    for (int z = 0; z < nz; ++z)
        for (int kind = 0; kind < 2; ++kind) {
            int best = -1;

            for (int r = 0; r < rr->nrails; ++r) {
                fc_rail_class_t *c = &rr->classes[(r * 2 + kind) * nz + z];
                const fc_pairs_run_t *run = &rr->rails[r];
                int m = 0;

                memset(c, 0, sizeof(*c));
                c->rail = r;
                c->kind = kind;
                c->size_index = z;
                c->ref_rail = -1;
                c->pa = c->pb = -1;
                for (int q = 0; q < run->npairs; ++q) {
                    const fc_pair_t *p = &run->pairs[q];

                    if (p->size_index == z &&
                        (run->node_racks[p->a] != run->node_racks[p->b]) == kind &&
                        !fc_rails_undriven(rr, r, p))
                        bw[m++] = p->bw_gbps;
                }
                c->members = m;
                if (m == 0)
                    continue;
                qsort(bw, (size_t)m, sizeof(double), fc_dbl_cmp);
                c->median = bw[m / 2];
                if (best < 0 || c->median > rr->classes[(best * 2 + kind) * nz + z].median)
                    best = r;
            }
            if (best < 0 || sp->max_below_median_pct < 0 || sp->sizes[z] < sp->relative_min_bytes)
                continue;
            for (int r = 0; r < rr->nrails; ++r) {
                fc_rail_class_t *c = &rr->classes[(r * 2 + kind) * nz + z];
                const fc_pairs_run_t *run = &rr->rails[r];
                double worst = 1e300;

                if (r == best || c->members == 0)
                    continue;
                c->ref_rail = best;
                c->ref = rr->classes[(best * 2 + kind) * nz + z].median;
                c->slow = c->median < c->ref * (1 - sp->max_below_median_pct / 100.0);
                /* the pair to confirm it with: its slowest of the kind whose
                 * NICs no confirmation has blamed, on this rail or on the
                 * reference rail, and the transport drives on both */
                for (int q = 0; c->slow && q < run->npairs; ++q) {
                    const fc_pair_t *p = &run->pairs[q];
                    const fc_pairs_run_t *ref = &rr->rails[best];

                    if (p->size_index != z || fc_rails_undriven(rr, r, p) ||
                        fc_rails_undriven(rr, best, p) ||
                        (run->node_racks[p->a] != run->node_racks[p->b]) != kind ||
                        (run->confirmed && (run->confirm.link[p->a] || run->confirm.link[p->b])) ||
                        (ref->confirmed && (ref->confirm.link[p->a] || ref->confirm.link[p->b])))
                        continue;
                    if (p->bw_gbps < worst) {
                        worst = p->bw_gbps;
                        c->pa = p->a;
                        c->pb = p->b;
                    }
                }
            }
        }
    free(bw);
    fc_rails_explain(rr);
}

/* ---- records -------------------------------------------------------------- */

/* Split "host:nic" under key into host and nic members of obj. */
static int fc_rails_split(fc_rails_run_t *rr, int r, json_t *obj, const char *key,
                          const char *nic_key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    const char *colon = s ? strchr(s, ':') : NULL;
    char host[FC_HOST_MAX];

    if (colon == NULL)
        return 0;
    snprintf(host, sizeof(host), "%.*s", (int)(colon - s), s);
    json_object_set_new(obj, nic_key, json_string(colon + 1));
    for (int v = 0; v < rr->nnodes; ++v)
        if (strcmp(rr->rails[r].node_hosts[v], s) == 0 && rr->pci[r * rr->nnodes + v][0])
            json_object_set_new(obj, strcmp(nic_key, "nic_a") == 0 ? "pci_a"
                                     : strcmp(nic_key, "nic_b") == 0 ? "pci_b" : "pci",
                                json_string(rr->pci[r * rr->nnodes + v]));
    json_object_set_new(obj, key, json_string(host));
    return 1;
}

static void fc_rails_decorate(fc_rails_run_t *rr, int r, json_t *obj)
{
    const char *k;
    json_t *v;
    size_t i;

    if (json_is_array(obj)) {
        json_array_foreach(obj, i, v)
            fc_rails_decorate(rr, r, v);
        return;
    }
    if (!json_is_object(obj))
        return;
    json_object_foreach(obj, k, v)
        fc_rails_decorate(rr, r, v);
    fc_rails_split(rr, r, obj, "host_a", "nic_a");
    fc_rails_split(rr, r, obj, "host_b", "nic_b");
    if (fc_rails_split(rr, r, obj, "host", "nic")) {
        const char *part = json_string_value(json_object_get(obj, "part"));

        json_object_set_new(obj, "rail", json_integer(r));
        if (part != NULL && (strcmp(part, "link") == 0 || strcmp(part, "node") == 0)) {
            json_object_set_new(obj, "part", json_string("nic"));
            if (json_is_true(json_object_get(obj, "quarantine")))
                json_object_set_new(obj, "quarantine_scope", json_string("rail"));
        }
    }
}

/* NIC v of rail r's figures: per size, each direction's bandwidth with
 * each partner and the median, the latency; for its rail_node record. */
static json_t *fc_rails_figures(const fc_rails_run_t *rr, int r, int v)
{
    const fc_stage_profile_t *sp = &rr->ctx->sp;
    const fc_pairs_run_t *run = &rr->rails[r];
    int n = rr->nnodes, nz = sp->nsizes;
    json_t *sizes = json_array();
    double *out = fc_xcalloc((size_t)n, sizeof(double), "a NIC's figures");
    double *in = fc_xcalloc((size_t)n, sizeof(double), "a NIC's figures");
    double *lat = fc_xcalloc((size_t)n, sizeof(double), "a NIC's figures");

    for (int z = 0; z < nz; ++z) {
        json_t *partners = json_array();
        int m = 0, ml = 0;
        uint64_t wrong = 0;

        for (int u = 0; u < n; ++u) {
            const fc_pair_t *p = u == v ? NULL : fc_pairs_find(run, u, v, z);
            /* a pair whose transfers failed has no latency (the 1e9 the
             * measurement holds to fail every limit is not a figure) */
            int lat_measured = p != NULL && p->lat_us < 1e9;

            if (p == NULL)
                continue;
            out[m] = rr->dirbw[((size_t)(r * n + v) * n + u) * nz + z];
            in[m] = rr->dirbw[((size_t)(r * n + u) * n + v) * nz + z];
            if (lat_measured)
                lat[ml++] = p->lat_us;
            wrong += p->wrong_at[p->a == v ? 0 : 1];
            json_array_append_new(partners, json_pack(
                "{s:s, s:s, s:f, s:f, s:o}", "host", rr->hosts[u], "nic", rr->nics[r * n + u],
                "send_gbps", out[m], "recv_gbps", in[m], "latency_us",
                lat_measured ? json_real(p->lat_us) : json_null()));
            ++m;
        }
        json_array_append_new(sizes, json_pack(
            "{s:I, s:f, s:f, s:o, s:I, s:o}", "bytes", (json_int_t)sp->sizes[z],
            "send_gbps_median", m ? fc_stats_median(out, (size_t)m) : 0.0,
            "recv_gbps_median", m ? fc_stats_median(in, (size_t)m) : 0.0,
            "latency_us_median", ml ? json_real(fc_stats_median(lat, (size_t)ml)) : json_null(),
            "wrong_received", (json_int_t)wrong, "partners", partners));
    }
    free(out);
    free(in);
    free(lat);
    return sizes;
}

/* Rail r's pairs as the pairs stage writes them, decorated. */
static int fc_rails_report_pairs(fc_rails_run_t *rr, int r)
{
    fc_stage_ctx_t *ctx = rr->ctx;
    fc_results_t real = ctx->results;
    FILE *tf = tmpfile();
    char *line = NULL;
    size_t cap = 0;
    int failed;

    if (tf == NULL) {
        fc_error("rails: no scratch file for rail %d's records", r);
        MPI_Abort(MPI_COMM_WORLD, FC_EXIT_FAIL);
    }
    ctx->results.fd = fileno(tf);
    failed = fc_pairs_report(&rr->rails[r]);
    ctx->results = real;
    rewind(tf);
    while (getline(&line, &cap, tf) > 0) {
        json_t *rec = json_loads(line, 0, NULL);
        const char *type = json_string_value(json_object_get(rec, "type"));

        if (rec == NULL)
            continue;
        json_object_set_new(rec, "type", json_string(strcmp(type, "pair") == 0 ? "rail_pair"
                                                     : "rail_node"));
        json_object_set_new(rec, "rail", json_integer(r));
        fc_rails_decorate(rr, r, rec);
        if (strcmp(json_string_value(json_object_get(rec, "type")), "rail_node") == 0) {
            for (int v = 0; v < rr->nnodes; ++v)
                if (strcmp(rr->hosts[v], json_string_value(json_object_get(rec, "host"))) == 0) {
                    json_t *why = json_array_get(json_object_get(rec, "reasons"), 0);

                    json_object_set_new(rec, "figures", fc_rails_figures(rr, r, v));
                    if (rr->errs[r * rr->nnodes + v][0])
                        json_object_set_new(rec, "transport_error",
                                            json_string(rr->errs[r * rr->nnodes + v]));
                    /* a NIC not driven, or whose link went down: never a
                     * PASS in the certificate's list of NICs */
                    if ((rr->undriven[r * rr->nnodes + v] ||
                         rr->flapped[r * rr->nnodes + v]) &&
                        strcmp(fc_json_str(rec, "verdict"), "PASS") == 0) {
                        json_t *rs = json_array();

                        json_array_append_new(rs, json_string(rr->errs[r * rr->nnodes + v]));
                        json_object_set_new(rec, "reasons", rs);
                        json_object_set_new(rec, "verdict", json_string("FAIL"));
                        json_object_set_new(rec, "implicates", json_pack(
                            "{s:s, s:s, s:s, s:i, s:s, s:b}", "part", "nic", "host",
                            rr->hosts[v], "nic", rr->nics[r * rr->nnodes + v], "rail", r,
                            "rack", ctx->inv.racks[rr->rails[r].node_racks[v]], "quarantine", 0));
                        ++failed;
                        why = NULL;
                    }
                    /* a NIC blamed that the transport could not drive: say how */
                    if (rr->errs[r * rr->nnodes + v][0] && json_is_string(why)) {
                        char text[FC_REASON_MAX * 3];

                        snprintf(text, sizeof(text), "%s; its transport: %s",
                                 json_string_value(why), rr->errs[r * rr->nnodes + v]);
                        json_string_set(why, text);
                    }
                }
        }
        fc_results_append(&ctx->results, rec);
    }
    free(line);
    fclose(tf);
    return failed;
}

/* One rail record: the rail rule at every size and kind. Returns 1 on FAIL. */
static int fc_rails_report_rail(fc_rails_run_t *rr, int r)
{
    fc_stage_ctx_t *ctx = rr->ctx;
    const fc_stage_profile_t *sp = &ctx->sp;
    const fc_pairs_run_t *run = &rr->rails[r];
    int nz = sp->nsizes, n = rr->nnodes, fail = 0, open = 0;
    json_t *rec = fc_stage_record(ctx, "rail"), *kinds = json_array(), *reasons = json_array();
    json_t *impl = json_null();
    char why[FC_REASON_MAX * 2];

    for (int z = 0; z < nz; ++z)
        for (int kind = 0; kind < 2; ++kind) {
            const fc_rail_class_t *c = &rr->classes[(r * 2 + kind) * nz + z];
            json_t *alone = json_array();

            if (c->members == 0)
                continue;
            for (int i = 0; i < c->nmeas; ++i)
                json_array_append_new(alone, json_pack("{s:f, s:f, s:b}", "gbps", c->alone_bw[i],
                                                       "reference_gbps", c->alone_ref[i], "slow",
                                                       c->meas[i] == FC_CONFIRM_MEAS_SLOW));
            json_array_append_new(kinds, json_pack(
                "{s:I, s:s, s:i, s:f, s:O, s:O, s:b, s:s, s:o}", "bytes",
                (json_int_t)sp->sizes[z], "kind", fc_kind_name[kind], "pairs", c->members,
                "upper_median_gbps", c->median, "reference_rail",
                c->ref_rail >= 0 ? json_integer(c->ref_rail) : json_null(), "reference_gbps",
                c->ref_rail >= 0 ? json_real(c->ref) : json_null(), "slow", c->slow,
                "confirmation", !c->slow ? "not needed" :
                c->decision == FC_CONFIRM_SLOW ? "confirmed" :
                c->decision == FC_CONFIRM_CLEARED ? "not reproduced" :
                c->pa < 0 ? "no pair to measure" :
                c->decision == FC_CONFIRM_UNDECIDED ? "undecided" : "not measured",
                "alone", alone));
            if (!c->slow)
                continue;
            if (c->decision == FC_CONFIRM_SLOW) {
                char tally[64], names[FC_REASON_MAX] = "", what[FC_REASON_MAX + 160];
                const unsigned char *sus = &rr->suspect[(size_t)(r * nz + z) * n];
                json_t *named = json_array(), *where = json_array();

                fc_confirm_tally_text(c->meas, c->nmeas, tally, sizeof(tally));
                for (int v = 0; c->explained && v < n; ++v) {
                    const char *rk = ctx->inv.racks[run->node_racks[v]];
                    int had = 0;

                    if (!sus[v])
                        continue;
                    snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
                             names[0] ? ", " : "", run->node_hosts[v]);
                    json_array_append_new(named, json_string(run->node_hosts[v]));
                    for (size_t i = 0; i < json_array_size(where); ++i)
                        had |= strcmp(json_string_value(json_array_get(where, i)), rk) == 0;
                    if (!had)
                        json_array_append_new(where, json_string(rk));
                }
                if (c->explained == 1)
                    snprintf(what, sizeof(what), "not rail %d's %s: %s <-> %s is fast (%.4g "
                             "GB/s) and every slow pair has one of NIC(s) %s, each slow with "
                             "every partner: those NICs", r, kind ? "uplinks or spine" :
                             "leaf switches", run->node_hosts[c->fa], run->node_hosts[c->fb],
                             c->fast_bw, names);
                else if (c->explained == 2)
                    snprintf(what, sizeof(what), "rail %d's %s, or NIC(s) %s, alone in its "
                             "rack on the rail and slow with every partner: the two cannot be "
                             "told apart", r, kind ? "leaf uplinks or spine switch" :
                             "leaf switches", names);
                else
                    snprintf(what, sizeof(what), "rail %d's %s", r,
                             kind ? "leaf uplinks or spine switch" : "leaf switches");
                snprintf(why, sizeof(why), "rail %d %s: upper median %.4g GB/s of its %d "
                         "pairs at %llu bytes, below %.0f%% of rail %d's %.4g GB/s; confirmed "
                         "alone: %s <-> %s %s against the same pair on rail %d: %s",
                         r, fc_kind_name[kind], c->median, c->members,
                         (unsigned long long)sp->sizes[z], 100 - sp->max_below_median_pct,
                         c->ref_rail, c->ref, run->node_hosts[c->pa], run->node_hosts[c->pb],
                         tally, c->ref_rail, what);
                json_array_append_new(reasons, json_string(why));
                if (!fail && c->explained == 1) {
                    impl = json_pack("{s:s, s:i, s:o, s:o, s:b}", "part", "nic", "rail", r,
                                     "nics", named, "racks", where, "quarantine", 0);
                    named = where = NULL;
                } else if (!fail) {
                    impl = json_pack("{s:s, s:i, s:s, s:b}", "part", "rail", "rail", r,
                                     "where", kind ? "uplinks or spine" : "leaf switches",
                                     "quarantine", 0);
                    if (c->explained == 2) {
                        json_object_set_new(impl, "or_nics", named);
                        named = NULL;
                    }
                }
                json_decref(named);
                json_decref(where);
                fail = 1;
            } else if (c->decision != FC_CONFIRM_CLEARED) {
                snprintf(why, sizeof(why), "rail %d %s slow beside rail %d at %llu bytes "
                         "(%.4g against %.4g GB/s), not confirmed alone (%s)", r,
                         fc_kind_name[kind], c->ref_rail, (unsigned long long)sp->sizes[z],
                         c->median, c->ref,
                         c->pa < 0 ? "every pair of it has a blamed or undriven NIC"
                         : c->decision == FC_CONFIRM_UNDECIDED
                             ? "the reference rail's alone measurement failed: not judged"
                             : "the stage's time ran out");
                json_array_append_new(reasons, json_string(why));
                open = 1;
            }
        }
    if (rr->undriven != NULL) {
        char names[FC_REASON_MAX] = "";
        json_t *named = json_array(), *where = json_array();
        int k = 0;

        int flaps = 0;

        for (int v = 0; v < n; ++v) {
            int bad = rr->undriven[r * n + v] ||
                      (rr->flapped != NULL && rr->flapped[r * n + v]);

            flaps += bad && !rr->undriven[r * n + v];
            if (bad && k++ < 4)
                snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s (%.100s)",
                         names[0] ? ", " : "", run->node_hosts[v], rr->errs[r * n + v]);
            if (bad) {
                const char *rk = ctx->inv.racks[run->node_racks[v]];
                int had = 0;

                json_array_append_new(named, json_string(run->node_hosts[v]));
                for (size_t i = 0; i < json_array_size(where); ++i)
                    had |= strcmp(json_string_value(json_array_get(where, i)), rk) == 0;
                if (!had)
                    json_array_append_new(where, json_string(rk));
            }
        }
        if (k > 0) {
            snprintf(why, sizeof(why), "rail %d: %d NIC(s) %s: %s%s", r, k,
                     flaps == k ? "whose link went down during the stage (its figures may "
                     "have been taken after)" : flaps == 0 ? "the transport could not drive "
                     "(their pairs measured nothing)" : "the transport could not drive or whose "
                     "link went down (their pairs measured nothing or not throughout)", names,
                     k > 4 ? ", ..." : "");
            json_array_insert_new(reasons, 0, json_string(why));
            if (!fail) {
                json_decref(impl);
                impl = json_pack("{s:s, s:i, s:o, s:o, s:b}", "part", "nic", "rail", r, "nics",
                                 named, "racks", where, "quarantine", 0);
                named = where = NULL;
            }
            fail = 1;
        }
        json_decref(named);
        json_decref(where);
    }
    json_object_set_new(rec, "rail", json_integer(r));
    json_object_set_new(rec, "rack", json_string(""));
    /* the racks it concerns: every rack with a NIC on the rail (a rail's
     * leaves are in every rack, its spine joins them all) */
    json_t *racks = json_array();
    for (int v = 0; v < n; ++v) {
        const char *rk = ctx->inv.racks[run->node_racks[v]];
        int seen = 0;

        for (size_t i = 0; i < json_array_size(racks); ++i)
            seen |= strcmp(json_string_value(json_array_get(racks, i)), rk) == 0;
        if (!seen)
            json_array_append_new(racks, json_string(rk));
    }
    json_object_set_new(rec, "racks", racks);
    if (json_is_object(impl) && json_object_get(impl, "racks") == NULL)
        json_object_set(impl, "racks", racks);
    json_object_set_new(rec, "nics", json_integer(n));
    json_object_set_new(rec, "kinds", kinds);
    json_object_set_new(rec, "relative_pct", json_real(sp->max_below_median_pct));
    json_object_set_new(rec, "confirmation", json_pack(
        "{s:i, s:i, s:b, s:f}", "probes", run->confirmed ? run->confirm.nprobes : 0,
        "measurements", run->confirmed ? run->confirm.nmeasures : 0, "out_of_time",
        run->confirm_out_of_time, "seconds", run->confirm_seconds));
    json_object_set_new(rec, "reasons", reasons);
    json_object_set_new(rec, "implicates", impl);
    json_object_set_new(rec, "verdict", json_string(fail ? "FAIL" : open ? "INCOMPLETE" : "PASS"));
    if (sp->max_below_median_pct < 0)
        json_object_set_new(rec, "note", json_string("no relative rule in the profile: the "
                                                     "rails are not compared with each other"));
    if (fail || open)
        fc_tap_point(&ctx->tap, fail ? FC_ERR_FAIL : FC_ERR_SKIP, "%s",
                     json_string_value(json_array_get(reasons, 0)));
    else
        fc_tap_point(&ctx->tap, FC_OK, "rail %d against the other rails", r);
    fc_results_append(&ctx->results, rec);
    return fail || open;
}

int fc_rails_report(fc_rails_run_t *rr)
{
    int failed = 0;

    for (int r = 0; r < rr->nrails; ++r)
        failed += fc_rails_report_pairs(rr, r);
    for (int r = 0; r < rr->nrails; ++r)
        failed += fc_rails_report_rail(rr, r);
    return failed;
}
