/*
 * fc_run_rerun.c - `fabcert run --rerun-failed DIR --out NEW`: after a
 * repair, a new run of the racks that did not pass in the finished run
 * DIR, on their hosts only (the hosts it quarantined among them: they are
 * what was repaired; and those its host list left out, or the rack would
 * be INCOMPLETE again), under DIR's profile, every stage DIR selected,
 * with DIR's --np and --ppn unless others are given.
 *
 * DIR is read as `fabcert report` reads it (fc_verdict_of_dir), so a
 * rack is run again exactly when DIR's certificate for it is not PASS.
 * Its hosts are those of DIR's frozen host list and rack map, checked
 * against its plan record (fc_verdict_plan_inventory) before anything is
 * written. The new run's host list is those racks' hosts, with
 * DIR's frozen rack map: the racks that passed are then left out of the
 * new run entirely (the inventory's rule for racks none of whose hosts is
 * in the list), so the new run says nothing of them and their
 * certificates stay DIR's. Stages that need partners (pairs, cluster) run
 * among the new run's hosts only (docs/DECISIONS.md says why). The plan
 * record names DIR's run (rerun_of: its id, directory, results.jsonl
 * SHA-256, the racks run again and every rack's verdict there), and the
 * certificates, summary, HTML and `verify` say it.
 *
 * Refused, exit 2, nothing written: DIR is not one run's directory, it is
 * still being written or was interrupted (carry it on with --resume), its
 * plan record does not match its frozen host list and rack map, no rack
 * of it failed or was incomplete, or the profile given is not the one its
 * plan records.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "fc_input.h"
#include "fc_inventory.h"
#include "fc_report.h"
#include "fc_results.h"
#include "fc_run.h"
#include "fc_verdict_plan.h"

/* A finished run: every stage its plan selected has the runner's
 * stage_done (a run interrupted before it has none for the stage that
 * was going). The first stage without one, or NULL. */
static const char *fc_rerun_unfinished(json_t *records, json_t *plan)
{
    json_t *stage, *rec;
    size_t i, j;

    json_array_foreach(json_object_get(plan, "stages"), i, stage) {
        int done = 0;

        if (!json_is_true(json_object_get(stage, "selected")))
            continue;
        json_array_foreach(records, j, rec)
            if (strcmp(fc_json_str(rec, "type"), "stage_done") == 0 &&
                strcmp(fc_json_str(rec, "source"), "runner") == 0 &&
                strcmp(fc_json_str(rec, "stage"), fc_json_str(stage, "name")) == 0 &&
                strcmp(fc_json_str(rec, "run_id"), fc_json_str(plan, "run_id")) == 0)
                done = 1;
        if (!done)
            return fc_json_str(stage, "name");
    }
    return NULL;
}

/* DIR's --stages, when it had one and this command gives none: the rerun
 * runs the stages DIR ran (recorded as the same override). */
static void fc_rerun_stages(fc_run_opts_t *o, json_t *plan)
{
    const char *was = json_string_value(json_object_get(json_object_get(plan, "overrides"),
                                                        "--stages"));
    char buf[256], *save = NULL;

    if (o->stages_arg[0] || was == NULL || strlen(was) >= sizeof(o->stages_arg))
        return;
    snprintf(o->stages_arg, sizeof(o->stages_arg), "%s", was);
    snprintf(buf, sizeof(buf), "%s", was);
    for (int s = 0; s < FC_STAGE_COUNT; ++s)
        o->stages[s] = 0;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
        if (fc_stage_from_name(t) >= 0)
            o->stages[fc_stage_from_name(t)] = 1;
}

/* A run still being written holds results.jsonl with flock. 0, or 2. */
static int fc_rerun_not_running(const char *dir, const char *path)
{
    int fd, busy;

    if (fc_input_open(path, "results file", FC_INPUT_RESULTS_MAX, &fd, NULL) != FC_OK) {
        fprintf(stderr, "fabcert: --rerun-failed %s: not a run's output directory\n", dir);
        return 2;
    }
    busy = flock(fd, LOCK_SH | LOCK_NB) != 0;
    close(fd);
    if (busy) {
        fprintf(stderr, "fabcert: --rerun-failed %s: a fabcert run is still writing it: wait "
                "for it to end\n", dir);
        return 2;
    }
    return 0;
}

/* From DIR's verdicts: the racks that did not pass (names, into rerun_of)
 * and every host its frozen inventory (inv: the plan's, checked) gives
 * them (st->rerun_hosts): the hosts it ran, then those its host list left
 * out (rerun_of's hosts_left_out, said in a note); every rack's verdict
 * there. The number of racks run again. */
static int fc_rerun_racks(fc_run_state_t *st, const fc_run_verdict_t *v,
                          const fc_inventory_t *inv)
{
    json_t *racks = json_array(), *verdicts = json_array(), *back = json_array();

    st->rerun_hosts = json_array();
    for (int k = 0; k < v->nracks; ++k) {
        const fc_rack_verdict_t *r = &v->racks[k];
        char names[512] = "";
        size_t used = 0;

        json_array_append_new(verdicts, json_pack("{s:s, s:s}", "rack", r->rack, "verdict",
                                                  fc_verdict_name(r->verdict)));
        if (r->verdict == FC_VERDICT_PASS)
            continue;
        json_array_append_new(racks, json_string(r->rack));
        for (int h = 0; h < inv->nhosts; ++h)
            if (strcmp(inv->racks[inv->host_rack[h]], r->rack) == 0)
                json_array_append_new(st->rerun_hosts, json_string(inv->hosts[h]));
        /* a rack certificate needs the whole rack: the hosts DIR left out
         * run now, or the rack would be INCOMPLETE again, every time */
        for (int h = 0; h < inv->nleft_out; ++h) {
            if (strcmp(inv->racks[inv->left_out_rack[h]], r->rack) != 0)
                continue;
            json_array_append_new(st->rerun_hosts, json_string(inv->left_out[h]));
            json_array_append_new(back, json_string(inv->left_out[h]));
            if (used < sizeof(names))
                used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s",
                                         used ? ", " : "", inv->left_out[h]);
        }
        if (used)
            fc_print_line(stdout, "note: run %s left %s's %s out of its host list (%s was %s "
                          "there): a rerun runs every host its rack map %s/racks gives the "
                          "racks it runs again, so it runs them now", v->run_id, r->rack,
                          names, r->rack, fc_verdict_name(r->verdict), st->o.rerun_dir);
    }
    json_object_set_new(st->rerun_of, "racks", racks);
    json_object_set_new(st->rerun_of, "verdicts", verdicts);
    json_object_set_new(st->rerun_of, "hosts_left_out", back);
    return (int)json_array_size(racks);
}

/* DIR's --np and --ppn, when it had them and this command gives none:
 * the rerun measures with as many ranks as DIR did (recorded as the same
 * overrides; one given that differs is said in the note on overrides). */
static int fc_rerun_ranks(fc_run_opts_t *o, json_t *plan)
{
    json_t *ov = json_object_get(plan, "overrides");
    const char *np = json_string_value(json_object_get(ov, "--np"));
    const char *ppn = json_string_value(json_object_get(ov, "--ppn"));

    if (np && !o->np_arg) {
        if (strlen(np) >= sizeof(o->carried_np) || fc_run_parse_count("--np", np, &o->np))
            return 2;
        o->np_arg = strcpy(o->carried_np, np);
    }
    if (ppn && !o->ppn_arg) {
        if (strlen(ppn) >= sizeof(o->carried_ppn) || fc_run_parse_count("--ppn", ppn, &o->ppn))
            return 2;
        o->ppn_arg = strcpy(o->carried_ppn, ppn);
    }
    return 0;
}

int fc_run_rerun_open(fc_run_state_t *st)
{
    const char *dir = st->o.rerun_dir, *unfinished;
    char path[PATH_MAX + 32], hex[65], abs[PATH_MAX];
    char what[400];
    json_t *records = NULL, *rec, *plan = NULL, *launch;
    fc_run_verdict_t v;
    fc_inventory_t inv;
    int bad = 0, nplans = 0, nracks, rc = 2;
    size_t i;

    snprintf(path, sizeof(path), "%s/results.jsonl", dir);
    if (fc_rerun_not_running(dir, path) != 0)
        return 2;
    if (fc_sha256_file(path, "results file", hex) != FC_OK || fc_results_load(path, 0, &records, &bad) != FC_OK)
        return 2;
    json_array_foreach(records, i, rec)
        if (strcmp(fc_json_str(rec, "type"), "plan") == 0 && ++nplans == 1)
            plan = rec;
    if (nplans != 1 || !fc_json_str(plan, "run_id")[0]) {
        fprintf(stderr, "fabcert: --rerun-failed %s: results.jsonl holds %d plan records, not "
                "one with a run id: not one run's output directory\n", dir, nplans);
        goto out;
    }
    if ((unfinished = fc_rerun_unfinished(records, plan)) != NULL) {
        fprintf(stderr, "fabcert: --rerun-failed %s: run %s did not finish: its %s stage never "
                "ended (interrupted); carry it on first: fabcert run --resume %s\n", dir,
                fc_json_str(plan, "run_id"), unfinished, dir);
        goto out;
    }
    if (strcmp(st->profile.sha256, fc_json_str(plan, "profile_sha256")) != 0) {
        fprintf(stderr, "fabcert: --rerun-failed %s: the profile %s (sha256 %.12s) is not run "
                "%s's (%s, sha256 %.12s): a rerun is judged against the earlier run's "
                "profile (leave out --profile: %s/profile.yaml)\n", dir, st->o.profile,
                st->profile.sha256, fc_json_str(plan, "run_id"), fc_json_str(plan, "profile"),
                fc_json_str(plan, "profile_sha256"), dir);
        goto out;
    }
    /* which hosts each rack has: DIR's frozen host list and rack map, as
     * its plan record says (a host added to a rack in one of them alone
     * is refused here, naming DIR's files, before NEW is made) */
    if (fc_verdict_plan_inventory(plan, dir, &inv, what, sizeof(what)) != 0) {
        fprintf(stderr, "fabcert: --rerun-failed %s: %s: the plan record of run %s does not "
                "match its frozen inventory (%s/hosts, %s/racks): %s: which hosts its racks "
                "have cannot be known, so none is run again\n", dir, path,
                fc_json_str(plan, "run_id"), dir, dir, what);
        goto out;
    }
    if (fc_verdict_of_dir(dir, records, bad, &v) != FC_OK) {
        fprintf(stderr, "fabcert: --rerun-failed %s: its verdicts cannot be computed "
                "(above)\n", dir);
        fc_inventory_free(&inv);
        goto out;
    }
    /* the directory as a path that names it from anywhere */
    if (realpath(dir, abs) == NULL)
        snprintf(abs, sizeof(abs), "%s", dir);
    launch = json_object_get(plan, "launch");
    st->rerun_of = json_pack("{s:s, s:s, s:s, s:s, s:b}", "run_id",
                             fc_json_str(plan, "run_id"), "dir", abs, "results_sha256", hex,
                             "profile_sha256", fc_json_str(plan, "profile_sha256"), "local",
                             json_object_get(launch, "ranks") != NULL);
    json_object_set(st->rerun_of, "overrides", json_object_get(plan, "overrides")
                    ? json_object_get(plan, "overrides") : json_null());
    nracks = fc_rerun_racks(st, &v, &inv);
    fc_inventory_free(&inv);
    if (nracks == 0)
        fprintf(stderr, "fabcert: --rerun-failed %s: every rack of run %s passed (%d rack(s)): "
                "there is nothing to run again\n", dir, v.run_id, v.nracks);
    else if (json_array_size(st->rerun_hosts) == 0)
        fprintf(stderr, "fabcert: --rerun-failed %s: the racks of run %s that did not pass "
                "have no host in its inventory\n", dir, v.run_id);
    else if (fc_rerun_ranks(&st->o, plan) != 0)
        fprintf(stderr, "fabcert: --rerun-failed %s: %s: run %s's plan records a rank count "
                "(above) that cannot be carried over\n", dir, path, v.run_id);
    else {
        json_t *ov;

        fc_rerun_stages(&st->o, plan);
        ov = fc_run_overrides(&st->o);
        /* said, not refused: a repair may change what a run is given
         * (--env), and each run's certificate shows its own overrides */
        if (!json_equal(ov, json_object_get(plan, "overrides"))) {
            char *a = json_dumps(json_object_get(plan, "overrides"), JSON_COMPACT |
                                 JSON_SORT_KEYS | JSON_ENCODE_ANY);
            char *b = json_dumps(ov, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);

            fc_print_line(stdout, "note: the overrides differ from run %s's: it ran with %s, "
                          "this run with %s", v.run_id, a ? a : "none", b ? b : "?");
            free(a);
            free(b);
        }
        json_decref(ov);
        rc = 0;
    }
    fc_verdict_free(&v);
out:
    json_decref(records);
    return rc;
}

int fc_run_rerun_inputs(fc_run_state_t *st)
{
    json_t *h;
    char path[PATH_MAX + 32];
    size_t i;
    FILE *f;

    if (json_is_true(json_object_get(st->rerun_of, "local")))
        return 0;       /* this machine alone, as DIR ran (checked after) */
    snprintf(path, sizeof(path), "%s/hosts", st->o.out_dir);
    if ((f = fopen(path, "w")) == NULL) {
        fc_write_failed(path, errno);
        fprintf(stderr, "fabcert: cannot write %s: %s\n", path, strerror(errno));
        return 2;
    }
    fprintf(f, "# the hosts of the racks that did not pass in run %s (%s)\n",
            fc_json_str(st->rerun_of, "run_id"), st->o.rerun_dir);
    json_array_foreach(st->rerun_hosts, i, h)
        fprintf(f, "%s\n", json_string_value(h));
    if (fclose(f) != 0) {
        fc_write_failed(path, errno);
        fprintf(stderr, "fabcert: cannot write %s: %s\n", path, strerror(errno));
        return 2;
    }
    snprintf(st->o.hosts, sizeof(st->o.hosts), "%.*s", (int)sizeof(st->o.hosts) - 1, path);
    /* DIR's frozen rack map, when it had one: the racks that passed are in
     * it, none of their hosts in the list, and so left out of this run */
    snprintf(path, sizeof(path), "%s/racks", st->o.rerun_dir);
    if (access(path, R_OK) == 0)
        snprintf(st->o.racks, sizeof(st->o.racks), "%.*s", (int)sizeof(st->o.racks) - 1, path);
    return 0;
}

int fc_run_rerun_check_hosts(const fc_run_state_t *st)
{
    for (int h = 0; h < st->inv.nhosts; ++h) {
        json_t *x;
        size_t i;
        int found = 0;

        json_array_foreach(st->rerun_hosts, i, x)
            found |= strcmp(json_string_value(x), st->inv.hosts[h]) == 0;
        if (!found) {
            fprintf(stderr, "fabcert: --rerun-failed %s: host %s is not one of run %s's "
                    "racks that did not pass (a rerun runs where that run ran: on this "
                    "machine alone, the same machine)\n", st->o.rerun_dir, st->inv.hosts[h],
                    fc_json_str(st->rerun_of, "run_id"));
            return 2;
        }
    }
    return 0;
}
