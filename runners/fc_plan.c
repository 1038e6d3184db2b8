/*
 * fc_plan.c - the plan of a run (fc_plan.h): for each stage of the stage
 * table the profile names, what it will run on this inventory with these
 * options, as the stage programs themselves derive it: the ranks per node
 * by the stage table's rule, the groups by its group noun (a node, a
 * rack, the job), the sweep by fc_stage_sweep_plan (the profile with the
 * run's overrides), the pairs and rails tournaments' rounds by the pairs
 * schedule, the scaling series by fc_stage_series_counts, the contention
 * stage's phases by its kinds; whether it runs at all (selected, enough
 * hosts, a backend it can use, ranks for its rails); and its estimate
 * (fc_plan_model.c). The gaps are fc_plan_gaps.c's; the text, --from and
 * the command fc_plan_text.c's.
 */
#include "fc_plan.h"

#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_coll.h"
#include "fc_pairs_schedule.h"
#include "fc_stage.h"

#define FC_PLAN_MAX_SERIES 40

/* The sweep stage s derives from the profile and the run's overrides,
 * exactly as its program does (the options the runner gives every stage). */
int fc_plan_stage_sweep(const fc_run_state_t *st, fc_stage_id_t s, fc_stage_profile_t *sp,
                        fc_test_point_t **points_p)
{
    char *argv[FC_MAX_PASSTHRU + 2];
    int argc = 0, n = 0;

    argv[argc++] = (char *)"fabcert-plan";
    for (int k = 0; k < st->o.nstage_args; ++k)
        argv[argc++] = (char *)st->o.stage_args[k];
    argv[argc] = NULL;
    if (fc_stage_sweep_plan(&st->profile, s, argc, argv, sp, points_p, &n) != FC_OK) {
        *sp = st->profile.stages[s];
        n = fc_stage_sweep_points(sp, s, st->profile.seed, points_p);
    }
    return n;
}

/* The backend stage s measures on: --backend, else the profile's; mpi for
 * a stage the stage table keeps off the GPU. */
static const char *fc_plan_backend(const fc_run_state_t *st, fc_stage_id_t s,
                                   const fc_stage_profile_t *sp)
{
    const char *b = sp->backend;

    for (int k = 0; k + 1 < st->o.nstage_args; k += 2)
        if (strcmp(st->o.stage_args[k], "--backend") == 0)
            b = st->o.stage_args[k + 1];
    return fc_stage_desc(s)->gpu_capable ? b : "mpi";
}

static int fc_plan_ranks_per_node(const fc_run_state_t *st, fc_stage_id_t s,
                                  const fc_stage_profile_t *sp)
{
    switch (fc_stage_desc(s)->ranks) {
    case FC_RANKS_ONE: return 1;
    case FC_RANKS_ROLES: return sp->cont.fg_per_node + sp->cont.bg_per_node;
    default: return st->o.local ? st->o.np : st->o.ppn;
    }
}

/* The hosts of the largest rack. */
static int fc_plan_largest_rack(const fc_inventory_t *inv)
{
    int best = 0;

    for (int r = 0; r < inv->nracks; ++r) {
        int n = 0;

        for (int h = 0; h < inv->nhosts; ++h)
            n += inv->host_rack[h] == r;
        best = n > best ? n : best;
    }
    return best;
}

static json_t *fc_plan_groups(const fc_run_state_t *st, fc_stage_id_t s,
                              const fc_stage_profile_t *sp, int hosts, int rpn)
{
    const char *g = fc_stage_desc(s)->group;
    int rack_hosts = st->o.local ? 1 : fc_plan_largest_rack(&st->inv);

    if (s == FC_STAGE_CONTENTION) {
        int fg = sp->cont.fg_per_node * (sp->cont.scope_rack ? rack_hosts : hosts);

        return json_pack("{s:s, s:i, s:i}", "kind", sp->cont.scope_rack ? "rack" : "job",
                         "count", sp->cont.scope_rack ? st->inv.nracks : 1, "largest_ranks",
                         fg);
    }
    if (g == NULL && !(fc_stage_desc(s)->sections & FC_SECT_SWEEP))    /* preflight */
        return json_pack("{s:s, s:i, s:i}", "kind", "node", "count", hosts, "largest_ranks",
                         rpn);
    if (g == NULL)
        return json_pack("{s:s, s:i, s:i}", "kind", "job", "count", 1, "largest_ranks",
                         hosts * rpn);
    if (strcmp(g, "rack") == 0)
        return json_pack("{s:s, s:i, s:i}", "kind", "rack", "count",
                         st->o.local ? 1 : st->inv.nracks, "largest_ranks", rack_hosts * rpn);
    return json_pack("{s:s, s:i, s:i}", "kind", "node", "count", hosts, "largest_ranks", rpn);
}

static json_t *fc_plan_names(const int *ids, int n, const char *(*name)(int))
{
    json_t *a = json_array();

    for (int i = 0; i < n; ++i)
        json_array_append_new(a, json_string(name(ids[i])));
    return a;
}

static const char *fc_plan_coll_name(int c) { return fc_coll_desc((fc_coll_id_t)c)->name; }
static const char *fc_plan_dtype_name(int t) { return fc_dtype_info((fc_dtype_t)t)->name; }
static const char *fc_plan_op_name(int o) { return fc_op_name((fc_op_t)o); }

static json_t *fc_plan_sweep_json(fc_stage_id_t s, const fc_stage_profile_t *sp, int npoints)
{
    const fc_stage_desc_t *d = fc_stage_desc(s);
    json_t *sw = json_object(), *sizes = json_array();

    for (int z = 0; z < sp->nsizes; ++z)
        json_array_append_new(sizes, json_integer((json_int_t)sp->sizes[z]));
    json_object_set_new(sw, "sizes", sizes);
    json_object_set_new(sw, "warmup", json_integer(sp->warmup));
    json_object_set_new(sw, "iters", json_integer(sp->iters));
    if (d->sections & FC_SECT_KINDS) {
        json_object_set_new(sw, "collectives", fc_plan_names(sp->colls, sp->ncolls,
                                                             fc_plan_coll_name));
        json_object_set_new(sw, "dtypes", fc_plan_names(sp->dtypes, sp->ndtypes,
                                                        fc_plan_dtype_name));
        json_object_set_new(sw, "ops", fc_plan_names(sp->ops, sp->nops, fc_plan_op_name));
        json_object_set_new(sw, "points", json_integer(npoints));
        json_object_set_new(sw, "batched", json_boolean(d->batched));
        json_object_set_new(sw, "calls_per_point",
                            json_integer(sp->warmup + sp->iters + (d->batched ? sp->iters : 0)));
    }
    return sw;
}

/* The stage's own figures: rounds, rails, series, phases, soak. */
static void fc_plan_own(const fc_run_state_t *st, fc_stage_id_t s, const fc_stage_profile_t *sp,
                        int hosts, int rpn, json_t *e)
{
    int *rack = fc_xcalloc((size_t)hosts + 1, sizeof(int), "the plan's racks");

    for (int h = 0; h < hosts && !st->o.local; ++h)
        rack[h] = st->inv.host_rack[h];
    if (s == FC_STAGE_PAIRS) {
        int mode = fc_pairs_mode_for(sp->pairs_mode, hosts);
        int k = sp->pairs_partners > 0 ? sp->pairs_partners : fc_pairs_default_partners(hosts);

        json_object_set_new(e, "pairs", json_pack("{s:s, s:i, s:i, s:i}", "mode",
                            fc_pairs_mode_name(mode), "partners", mode == FC_PAIRS_MODE_FULL
                            ? hosts - 1 : k, "rounds", fc_pairs_schedule_rounds(hosts, rack,
                            mode, k), "concurrent", hosts / 2));
    } else if (s == FC_STAGE_RAILS) {
        json_object_set_new(e, "rails", json_pack("{s:i, s:s, s:s, s:f, s:i}", "count",
                            sp->rails.count > 0 ? sp->rails.count : rpn, "transport",
                            sp->rails.transport, "nics", sp->rails.nmap > 0 ? sp->rails.map
                            : sp->rails.nic_pattern, "rate_gbps", sp->rails.rate_gbps,
                            "rounds", fc_pairs_schedule_rounds(hosts, rack,
                                                               FC_PAIRS_MODE_FULL, 0)));
    } else if (s == FC_STAGE_SCALING) {
        int counts[FC_PLAN_MAX_SERIES], n = fc_stage_series_counts(hosts, rpn, counts,
                                                                   FC_PLAN_MAX_SERIES);
        json_t *a = json_array();

        for (int i = 0; i < n; ++i)
            json_array_append_new(a, json_integer(counts[i]));
        json_object_set_new(e, "series", a);
    } else if (s == FC_STAGE_CONTENTION) {
        json_t *kinds = json_array();
        int nk = 0;

        for (int k = 0; k < FC_BG_KINDS; ++k)
            if (sp->cont.kinds[k].enabled) {
                json_array_append_new(kinds, json_string(fc_bg_kind_name(k)));
                ++nk;
            }
        /* clean, then each kind and a clean phase after it, then all
         * kinds together and a clean phase, when there are two or more */
        json_object_set_new(e, "contention", json_pack("{s:o, s:i, s:f, s:i, s:i}", "kinds",
                            kinds, "phases_per_point", 1 + 2 * nk + (nk >= 2 ? 2 : 0),
                            "phase_s", sp->cont.phase_s, "foreground_ranks_per_node",
                            sp->cont.fg_per_node, "background_ranks_per_node",
                            sp->cont.bg_per_node));
    } else if (s == FC_STAGE_SOAK) {
        json_object_set_new(e, "soak", json_pack("{s:f, s:f, s:s}", "duration_s",
                            sp->soak.duration_s, "window_s", sp->soak.window_s, "gpu_burn",
                            sp->soak.gpu_burn));
    } else if (s == FC_STAGE_OVERLAP) {
        json_object_set_new(e, "overlap", json_pack("{s:f}", "compute_ms",
                                                    sp->overlap.compute_ms));
    }
    free(rack);
}

/* Why a selected stage will not run on this inventory, or NULL. */
static const char *fc_plan_why_not(const fc_run_state_t *st, fc_stage_id_t s,
                                   const fc_stage_profile_t *sp, const char *backend, int hosts,
                                   int rpn, char *buf, size_t len)
{
    const fc_stage_desc_t *d = fc_stage_desc(s);

    if (!st->o.stages[s])
        return "not selected (--stages)";
    if (hosts < d->min_hosts) {
        snprintf(buf, len, "needs at least %d hosts; the inventory has %d", d->min_hosts, hosts);
        return buf;
    }
    if (d->gpu_only && strcmp(backend, "mpi") == 0)
        return "measures on nccl alone, and its backend is mpi: a skip (INCOMPLETE)";
    if (s == FC_STAGE_RAILS && sp->rails.count > 0 && rpn != sp->rails.count) {
        snprintf(buf, len, "runs one rank per rail: %d rank(s) per node, rails.count %d: a skip "
                 "(INCOMPLETE); give --ppn %d", rpn, sp->rails.count, sp->rails.count);
        return buf;
    }
    return NULL;
}

static json_t *fc_plan_stage(const fc_run_state_t *st, fc_stage_id_t s)
{
    const fc_stage_desc_t *d = fc_stage_desc(s);
    fc_stage_profile_t sp;
    fc_test_point_t *points = NULL;
    int npoints = fc_plan_stage_sweep(st, s, &sp, &points);
    int hosts = st->o.local ? 1 : st->inv.nhosts, rpn = fc_plan_ranks_per_node(st, s, &sp);
    const char *backend = fc_plan_backend(st, s, &sp), *why;
    char buf[256];
    json_t *e = json_pack("{s:s, s:s, s:b, s:b, s:s, s:f, s:i, s:i, s:i}", "name", d->name,
                          "proves", d->proves ? d->proves : "", "required", sp.required,
                          "selected", st->o.stages[s], "backend", backend, "timeout_s",
                          sp.timeout_s, "hosts", hosts, "ranks_per_node", rpn, "ranks",
                          hosts * rpn);

    free(points);
    why = fc_plan_why_not(st, s, &sp, backend, hosts, rpn, buf, sizeof(buf));
    json_object_set_new(e, "runs", json_boolean(why == NULL));
    if (why)
        json_object_set_new(e, "why_not", json_string(why));
    if (d->env)
        json_object_set_new(e, "env", json_string(d->env));
    json_object_set_new(e, "groups", fc_plan_groups(st, s, &sp, hosts, rpn));
    if (d->sections & FC_SECT_SWEEP)
        json_object_set_new(e, "sweep", fc_plan_sweep_json(s, &sp, npoints));
    fc_plan_own(st, s, &sp, hosts, rpn, e);
    json_object_set_new(e, "estimate_s", json_real(why ? 0 : fc_plan_model_stage(e, &sp, s)));
    return e;
}

json_t *fc_plan_build(const fc_run_state_t *st)
{
    json_t *plan = json_object(), *stages = json_array(), *racks = json_array();
    json_t *gaps = json_array(), *na = json_array();
    double total = 0;

    for (int r = 0; r < st->inv.nracks && !st->o.local; ++r) {
        int n = 0;

        for (int h = 0; h < st->inv.nhosts; ++h)
            n += st->inv.host_rack[h] == r;
        json_array_append_new(racks, json_pack("{s:s, s:i}", "name", st->inv.racks[r],
                                               "hosts", n));
    }
    for (int k = 0; k < FC_STAGE_COUNT; ++k) {
        json_t *e;

        if (!st->profile.stages[k].present)
            continue;
        e = fc_plan_stage(st, (fc_stage_id_t)k);
        total += json_real_value(json_object_get(e, "estimate_s"));
        json_array_append_new(stages, e);
    }
    fc_plan_gaps(st, stages, gaps, na);
    json_object_set_new(plan, "profile", json_string(st->profile.name));
    json_object_set_new(plan, "profile_path", json_string(st->o.profile));
    json_object_set_new(plan, "profile_sha256", json_string(st->profile.sha256));
    json_object_set_new(plan, "hosts", json_integer(st->o.local ? 1 : st->inv.nhosts));
    json_object_set_new(plan, "racks", racks);
    json_object_set_new(plan, "local", json_boolean(st->o.local));
    json_object_set_new(plan, st->o.local ? "np" : "ppn",
                        json_integer(st->o.local ? st->o.np : st->o.ppn));
    json_object_set_new(plan, "overrides", fc_run_overrides(&st->o));
    json_object_set_new(plan, "stages", stages);
    json_object_set_new(plan, "estimate_s", json_real(total));
    json_object_set_new(plan, "model", fc_plan_model_json());
    json_object_set_new(plan, "leaves_out", gaps);
    json_object_set_new(plan, "not_applicable", na);
    return plan;
}
