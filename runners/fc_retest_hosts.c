/*
 * fc_retest_hosts.c - see fc_retest_hosts.h. The plan (lib/retest/fc_intersect.h
 * with limit_s) is written to OUT/retest_hosts.STAGE[.N].json for the
 * program's rank 0; its TAP, log and host file go beside the stage's. The
 * hosts are the suspects then the partners, each with --ppn ranks (the
 * stages' own: a node's corrupting memory shows between its own ranks too).
 */
#include "fc_retest_hosts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_intersect.h"
#include "fc_report.h"
#include "fc_results.h"
#include "fc_retest.h"

#define FC_RH_MAX_ARGS (FC_MAX_PASSTHRU + 64)
/* the program's watchdog beyond the limit: the tournament under way when
 * the limit passes, and the report */
#define FC_RH_SLACK_S 30

/* The bounded retest's record appended from byte `offset`: its outcome
 * said in one line; 0 when it wrote none. */
static int fc_rh_written(const fc_run_state_t *st, long offset, const char *stage)
{
    json_t *recs = NULL, *r;
    size_t i;
    int torn = 0, n = 0;

    if (fc_results_load(st->results_path, offset, &recs, &torn) != FC_OK)
        return 0;
    json_array_foreach(recs, i, r)
        if (strcmp(fc_json_str(r, "type"), "retest") == 0 &&
            strcmp(fc_json_str(r, "method"), "intersection") == 0) {
            fc_print_line(stdout, "retest of the suspects after %s: %s", stage,
                          json_string_value(json_array_get(json_object_get(r, "reasons"), 0)));
            ++n;
        }
    json_decref(recs);
    return n;
}

/* The racks of a set of hosts, each once. */
static json_t *fc_rh_racks(json_t *hosts, json_t *host_racks)
{
    json_t *racks = json_array(), *h, *q;
    size_t i, k;

    json_array_foreach(hosts, i, h) {
        const char *r = fc_json_str(host_racks, json_string_value(h));
        int have = 0;

        json_array_foreach(racks, k, q)
            have |= strcmp(json_string_value(q), r) == 0;
        if (!have && r[0])
            json_array_append_new(racks, json_string(r));
    }
    return racks;
}

/* A record of the runner's: the sightings could not be retested (why), or
 * the bounded retest wrote nothing (the launcher's words). It implicates
 * `hosts` as a group, places nothing, quarantines nobody. */
static void fc_rh_note(fc_run_state_t *st, const char *stage, json_t *plan, json_t *hosts,
                       const char *group, const char *why)
{
    json_t *r = fc_run_record(st, "retest", stage);
    json_t *racks = fc_rh_racks(hosts, json_object_get(plan, "host_racks"));

    json_object_set_new(r, "kind", json_string("wrong"));
    json_object_set_new(r, "method", json_string("intersection"));
    json_object_set_new(r, "group", json_string(group));
    json_object_set_new(r, "group_hosts", json_deep_copy(hosts));
    json_object_set_new(r, "racks", racks);
    json_object_set_new(r, "evidence", json_deep_copy(json_object_get(plan, "evidence")));
    json_object_set_new(r, "localised", json_false());
    json_object_set_new(r, "reasons", json_pack("[s]", why));
    json_object_set_new(r, "implicates", json_pack("{s:s, s:s, s:s, s:O, s:O, s:b}", "part",
                        "group", "host", "", "group", group, "hosts", hosts, "racks", racks,
                        "quarantine", 0));
    json_object_set_new(r, "verdict", json_string("FAIL"));
    fc_append(st, r);
    fc_print_line(stdout, "retest of the suspects after %s: %s", stage, why);
}

/* Every host of the sightings: what a note on them implicates. */
static json_t *fc_rh_sighted(json_t *plan)
{
    json_t *all = json_array(), *e, *h;
    size_t i, k, q;

    json_array_foreach(json_object_get(plan, "evidence"), i, e)
        json_array_foreach(json_object_get(e, "hosts"), k, h) {
            int have = 0;
            json_t *x;

            json_array_foreach(all, q, x)
                have |= json_equal(x, h);
            if (!have)
                json_array_append(all, h);
        }
    return all;
}

/* Launch the retest of plan's suspects and partners; 1 when it ran. */
static int fc_rh_launch(fc_run_state_t *st, const char *stage, const char *suffix, json_t *plan)
{
    const fc_run_opts_t *o = &st->o;
    fc_launch_hosts_t *lh = fc_xcalloc(1, sizeof(*lh), "the retest's launch");
    char path[PATH_MAX + 64], tap[PATH_MAX + 64], log[PATH_MAX + 64], exe[PATH_MAX];
    char timeout[32], err[512], sus[512], par[512];
    const char *args[FC_RH_MAX_ARGS];
    json_t *hosts = json_array();
    double limit = st->profile.retest.intermittent_s;
    fc_launch_result_t res;
    long offset;
    int n, ran = 0;

    json_array_extend(hosts, json_object_get(plan, "suspects"));
    json_array_extend(hosts, json_object_get(plan, "partners"));
    json_object_set_new(plan, "limit_s", json_real(limit));
    snprintf(path, sizeof(path), "%s/retest_hosts.%s%s.json", o->out_dir, stage, suffix);
    snprintf(tap, sizeof(tap), "%s/retest_hosts.%s%s.tap", o->out_dir, stage, suffix);
    snprintf(log, sizeof(log), "%s/retest_hosts.%s%s.log", o->out_dir, stage, suffix);
    snprintf(lh->hostfile, sizeof(lh->hostfile), "%s/hostfile.retest_hosts.%s%s", o->out_dir,
             stage, suffix);
    lh->mpirun = o->mpirun;
    lh->srun = o->srun;
    lh->mpirun_args = o->mpirun_args;
    lh->nmpirun_args = o->nmpirun_args;
    lh->per_node = o->ppn;
    lh->oversubscribe = 1;
    if (json_dump_file(plan, path, JSON_INDENT(2) | JSON_SORT_KEYS) != 0) {
        int e = errno;

        fc_write_failed(path, e);
        fprintf(stderr, "fabcert: cannot write %s: %s\n", path, strerror(e));
        goto out_free;
    }
    if ((n = fc_launch_hosts_argv(lh, hosts, args, FC_RH_MAX_ARGS, err, sizeof(err))) < 0) {
        fprintf(stderr, "fabcert: %s\n", err);
        goto out_free;
    }
    fc_path_program("retest_hosts", exe, sizeof(exe));
    snprintf(timeout, sizeof(timeout), "%.0f", limit + FC_RH_SLACK_S);
    args[n++] = exe;
    args[n++] = "--out";
    args[n++] = o->out_dir;
    args[n++] = "--run-id";
    args[n++] = o->run_id;
    args[n++] = "--stage";
    args[n++] = stage;
    args[n++] = "--plan";
    args[n++] = path;
    args[n++] = "--timeout";
    args[n++] = timeout;
    args[n] = NULL;
    fc_intersect_names(json_object_get(plan, "suspects"), sus, sizeof(sus));
    fc_intersect_names(json_object_get(plan, "partners"), par, sizeof(par));
    if (par[0] == '\0')
        snprintf(par, sizeof(par), "none (among the suspects themselves)");
    printf("retest of the suspects after %s: %s in every group that saw wrong bits (%d "
           "sightings); checked exchanges with partners %s for up to %.0f s\n", stage, sus,
           (int)json_integer_value(json_object_get(plan, "sightings")), par, limit);
    fflush(stdout);
    offset = fc_file_size(st->results_path);
    fc_launch((char *const *)args, tap, log, limit + FC_RH_SLACK_S + FC_LAUNCH_MARGIN_S, &res);
    if (!fc_rh_written(st, offset, stage)) {
        char said[512], why[2048], group[600];

        fc_retest_end_text(&res, log, said, sizeof(said));
        snprintf(group, sizeof(group), "suspects %s", sus);
        snprintf(why, sizeof(why), "the retest of %s with partners %s wrote no record: %s; "
                 "nothing placed, nobody quarantined (see retest_hosts.%s%s.log)", sus, par,
                 said, stage, suffix);
        fc_rh_note(st, stage, plan, json_object_get(plan, "suspects"), group, why);
    }
    fc_retest_launch_note(o->out_dir, o->run_id, stage, "intersection",
                          (int)json_array_size(json_object_get(plan, "groups")), &res);
    fc_launch_result_free(&res);
    ran = 1;
out_free:
    json_decref(hosts);
    free(lh);
    return ran;
}

int fc_retest_hosts_after_stage(fc_run_state_t *st, const char *stage, const char *suffix,
                                long offset)
{
    json_t *all = NULL, *tail = NULL, *healthy, *racks, *plan;
    int torn = 0, ran = 0;
    size_t from;

    if (!fc_cluster_mode(&st->o) || st->profile.retest.intermittent_s <= 0)
        return 0;
    if (fc_results_load(st->results_path, 0, &all, &torn) != FC_OK)
        return 0;
    if (fc_results_load(st->results_path, offset, &tail, &torn) != FC_OK)
        tail = json_array();
    from = json_array_size(all) - json_array_size(tail);
    healthy = json_array();
    racks = json_object();
    for (int h = 0; h < st->inv.nhosts; ++h) {
        if (st->healthy[h])
            json_array_append_new(healthy, json_string(st->inv.hosts[h]));
        json_object_set_new(racks, st->inv.hosts[h],
                            json_string(st->inv.racks[st->inv.host_rack[h]]));
    }
    plan = fc_intersect_find(all, st->o.run_id, from, healthy, racks);
    if (json_integer_value(json_object_get(plan, "new_sightings")) == 0) {
        ran = 0;        /* nothing new since the last look */
    } else if (json_is_true(json_object_get(plan, "placeable"))) {
        ran = fc_rh_launch(st, stage, suffix, plan);
    } else if (json_integer_value(json_object_get(plan, "sightings")) >= 2) {
        /* wrong bits came back, and no one host explains them: said */
        json_t *hosts = fc_rh_sighted(plan);

        fc_rh_note(st, stage, plan, hosts, "wrong results not placed",
                   fc_json_str(plan, "reason"));
        json_decref(hosts);
        ran = 1;
    }
    json_decref(plan);
    json_decref(healthy);
    json_decref(racks);
    json_decref(all);
    json_decref(tail);
    return ran;
}
