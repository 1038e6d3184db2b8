/*
 * fc_run_resume.c - `fabcert run --resume DIR`: carry on a run that was
 * interrupted (a signal, a batch system's time limit, a lost node that
 * took the runner down) instead of starting it again from zero.
 *
 * What is kept is decided from the records alone: a stage is finished
 * when the runner wrote its `stage_done` (after its last attempt, its
 * retest and its quarantines, and only when the run was not being
 * interrupted); every other stage of the plan is run, from its start. The
 * attempts already begun of a stage run again are superseded: the `resume`
 * record the runner writes lists them, and the verdict
 * (reports/fc_verdict_attempts.c) no longer takes their passing or
 * incomplete checks as evidence, while a failure they recorded still fails
 * its rack (a verdict never improves with less evidence). Quarantine
 * carries over from the `quarantine` records. The run keeps its id, its
 * plan record and its frozen profile and inventory.
 *
 * The resumed run must be the run that began: the profile given (or the
 * frozen profile.yaml) must hash to the plan's SHA-256, the inventory must
 * give the same hosts and racks, and the command line the same overrides
 * and launch (launcher, program, ranks). Anything else is refused with the
 * difference, exit 2, before anything runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "fc_alloc.h"
#include "fc_input.h"
#include "fc_report.h"
#include "fc_results.h"
#include "fc_run.h"
#include "fc_version.h"

/* Hold results.jsonl for this runner alone: a second runner (a resume
 * while the run still goes on, two resumes at once) is refused. The
 * descriptor stays open, close-on-exec, for the runner's life. */
int fc_run_lock_results(fc_run_state_t *st, int fd)
{
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        fprintf(stderr, "fabcert: %s: %s\n", st->results_path, errno == EWOULDBLOCK
                ? "another fabcert run is writing this directory; wait for it to end"
                : strerror(errno));
        close(fd);
        return 2;
    }
    st->lock_fd = fd;
    return 0;
}

int fc_run_resume_open(fc_run_state_t *st)
{
    json_t *rec, *records = NULL;
    size_t i;
    int torn = 0, fd, nplans = 0;

    snprintf(st->results_path, sizeof(st->results_path), "%s/results.jsonl", st->o.out_dir);
    if (fc_input_open(st->results_path, "results file", FC_INPUT_RESULTS_MAX, &fd, NULL) !=
        FC_OK) {
        fprintf(stderr, "fabcert: --resume %s: nothing to resume\n", st->o.out_dir);
        return 2;
    }
    if (fc_run_lock_results(st, fd) != 0)
        return 2;
    st->prior_bytes = fc_file_size(st->results_path);
    if (fc_results_load(st->results_path, 0, &records, &torn) != FC_OK)
        return 2;
    json_array_foreach(records, i, rec)
        if (strcmp(fc_json_str(rec, "type"), "plan") == 0 && ++nplans == 1)
            st->prior_plan = json_incref(rec);
    if (nplans != 1) {
        fprintf(stderr, "fabcert: --resume %s: results.jsonl holds %d plan records, not one: "
                "it is not one run that can be carried on\n", st->o.out_dir, nplans);
        json_decref(records);
        return 2;
    }
    if (strlen(fc_json_str(st->prior_plan, "run_id")) >= sizeof(st->o.run_id) ||
        !fc_json_str(st->prior_plan, "run_id")[0]) {
        fprintf(stderr, "fabcert: --resume %s: the plan record has no usable run_id\n",
                st->o.out_dir);
        json_decref(records);
        return 2;
    }
    snprintf(st->o.run_id, sizeof(st->o.run_id), "%s", fc_json_str(st->prior_plan, "run_id"));
    st->prior = records;
    return 0;
}

/* One member of the plan and of this invocation, which must be equal. */
static int fc_resume_same(const char *dir, const char *what, json_t *then, json_t *now)
{
    char *a, *b;

    if (json_equal(then, now))
        return 1;
    a = then ? json_dumps(then, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY) : NULL;
    b = json_dumps(now, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    fprintf(stderr, "fabcert: --resume %s: the %s differ from the run's: it began with %s, "
            "this command gives %s (give the run's options again)\n", dir, what,
            a ? a : "none", b ? b : "?");
    free(a);
    free(b);
    return 0;
}

/* The frozen copy name in DIR, when the run had that file; else "". */
static void fc_resume_frozen(const char *dir, const char *name, const char *had,
                             char *path, size_t len)
{
    if (had[0])
        snprintf(path, len, "%.*s/%s", (int)(len - 8), dir, name);
    else
        path[0] = '\0';
}

fc_status_t fc_run_resume_check(fc_run_state_t *st)
{
    fc_run_opts_t *o = &st->o;
    json_t *plan = st->prior_plan, *inv, *was = json_object_get(plan, "inventory"), *launch;
    char frozen[PATH_MAX + 32];
    fc_profile_t fp;
    int same = 1;

    snprintf(frozen, sizeof(frozen), "%s/profile.yaml", o->out_dir);
    if (strcmp(st->profile.sha256, fc_json_str(plan, "profile_sha256")) != 0) {
        fprintf(stderr, "fabcert: --resume %s: the profile %s (sha256 %.12s) is not the one "
                "the run began with (%s, sha256 %.12s): a resumed run is judged against "
                "the profile of its plan\n", o->out_dir, o->profile, st->profile.sha256,
                fc_json_str(plan, "profile"), fc_json_str(plan, "profile_sha256"));
        return FC_ERR_INVALID;
    }
    if (fc_profile_load(frozen, &fp) != FC_OK)
        return FC_ERR_INVALID;
    if (strcmp(fp.sha256, st->profile.sha256) != 0) {
        fprintf(stderr, "fabcert: --resume %s: %s (sha256 %.12s) is not the profile of the "
                "plan (sha256 %.12s): the frozen copy was changed\n", o->out_dir, frozen,
                fp.sha256, st->profile.sha256);
        return FC_ERR_INVALID;
    }
    inv = fc_inventory_json(&st->inv);
    same &= fc_resume_same(o->out_dir, "hosts", json_object_get(was, "hosts"),
                           json_object_get(inv, "hosts"));
    same &= fc_resume_same(o->out_dir, "racks", json_object_get(was, "racks"),
                           json_object_get(inv, "racks"));
    same &= fc_resume_same(o->out_dir, "hosts left out of the rack map",
                           json_object_get(was, "left_out"), json_object_get(inv, "left_out"));
    json_decref(inv);
    {
        json_t *ov = fc_run_overrides(o);

        same &= fc_resume_same(o->out_dir, "command-line overrides",
                               json_object_get(plan, "overrides"), ov);
        json_decref(ov);
    }
    {
        json_t *env = fc_run_environment(o);

        same &= fc_resume_same(o->out_dir, "environment variables that shape a measurement",
                               json_object_get(plan, "environment"), env);
        json_decref(env);
    }
    launch = fc_run_launch_json(o);
    same &= fc_resume_same(o->out_dir, "launch settings", json_object_get(plan, "launch"),
                           launch);
    json_decref(launch);
    if (!same)
        return FC_ERR_INVALID;
    /* the stages read the frozen copies, as in the run that began */
    if (strstr(o->hosts, "/hosts.resume")) {
        char hosts[PATH_MAX + 32];

        snprintf(hosts, sizeof(hosts), "%s/hosts", o->out_dir);
        if (rename(o->hosts, hosts) != 0) {
            fprintf(stderr, "fabcert: cannot rename %s: %s\n", o->hosts, strerror(errno));
            return FC_ERR_INVALID;
        }
    }
    if (strstr(o->racks, "/racks.resume"))     /* --racks-from's: the frozen copy is the same */
        unlink(o->racks);
    snprintf(o->profile_source, sizeof(o->profile_source), "%s", o->profile);
    snprintf(o->profile, sizeof(o->profile), "%.*s", (int)sizeof(o->profile) - 1, frozen);
    fc_resume_frozen(o->out_dir, "hosts", fc_json_str(was, "hosts_file"), o->hosts,
                     sizeof(o->hosts));
    fc_resume_frozen(o->out_dir, "racks", fc_json_str(was, "racks_file"), o->racks,
                     sizeof(o->racks));
    return FC_OK;
}

int fc_run_resume_plan(fc_run_state_t *st)
{
    json_t *rec, *superseded = json_array(), *kept = json_array(), *to_run = json_array();
    int attempts[FC_STAGE_COUNT] = { 0 };
    const char *last_time = "";
    size_t i;

    json_array_foreach(st->prior, i, rec) {
        const char *type = fc_json_str(rec, "type");
        int s = fc_stage_from_name(fc_json_str(rec, "stage"));

        if (fc_json_str(rec, "time")[0])
            last_time = fc_json_str(rec, "time");
        if (strcmp(fc_json_str(rec, "run_id"), st->o.run_id) != 0)
            continue;
        /* a NIC quarantined for its rail leaves its host in service */
        if (strcmp(type, "quarantine") == 0 && !json_is_string(json_object_get(rec, "nic"))) {
            int h = fc_inventory_find_host(&st->inv, fc_json_str(rec, "host"));

            if (h >= 0) {
                st->quarantined[h] = 1;
                st->healthy[h] = 0;
            }
        }
        if (s < 0)
            continue;
        if (strcmp(type, "stage_done") == 0 && strcmp(fc_json_str(rec, "source"), "runner") == 0)
            st->kept[s] = 1;
        if (strcmp(type, "stage_start") == 0)
            ++attempts[s];
    }
    for (int s = 0; s < FC_STAGE_COUNT; ++s) {
        if (!st->profile.stages[s].present || !st->o.stages[s])
            continue;
        if (st->kept[s]) {
            json_array_append_new(kept, json_string(fc_stage_name((fc_stage_id_t)s)));
            continue;
        }
        json_array_append_new(to_run, json_string(fc_stage_name((fc_stage_id_t)s)));
        if (attempts[s] == 0)
            continue;
        /* the verdict follows FC_VERDICT_MAX_ATTEMPTS attempts of a stage */
        if (attempts[s] + FC_RUN_MAX_ATTEMPTS > FC_VERDICT_MAX_ATTEMPTS) {
            fprintf(stderr, "fabcert: --resume %s: the %s stage was begun %d times already; "
                    "%d more would pass the %d attempts a verdict follows: start a new run\n",
                    st->o.out_dir, fc_stage_name((fc_stage_id_t)s), attempts[s],
                    FC_RUN_MAX_ATTEMPTS, FC_VERDICT_MAX_ATTEMPTS);
            json_decref(superseded);
            json_decref(kept);
            json_decref(to_run);
            return 2;
        }
        json_array_append_new(superseded, json_pack("{s:s, s:i}", "stage",
                              fc_stage_name((fc_stage_id_t)s), "attempts", attempts[s]));
    }
    if (json_array_size(to_run) > 0) {
        json_t *r = fc_run_record(st, "resume", NULL);

        json_object_set_new(r, "kept", json_deep_copy(kept));
        json_object_set_new(r, "to_run", json_deep_copy(to_run));
        json_object_set_new(r, "superseded", json_deep_copy(superseded));
        json_object_set_new(r, "previous_record_time", json_string(last_time));
        fc_append(st, r);
    }
    printf("fabcert %s: resuming run %s in %s (its last record %s)\n", FC_VERSION,
           st->o.run_id, st->o.out_dir, last_time);
    for (size_t k = 0; k < json_array_size(kept); ++k)
        printf("stage %s: finished before the resume: kept\n",
               json_string_value(json_array_get(kept, k)));
    for (size_t k = 0; k < json_array_size(superseded); ++k) {
        json_t *x = json_array_get(superseded, k);

        printf("stage %s: run again from its start (%d attempt(s) before the resume "
               "superseded)\n", fc_json_str(x, "stage"),
               (int)json_integer_value(json_object_get(x, "attempts")));
    }
    for (int h = 0; h < st->inv.nhosts; ++h)
        if (st->quarantined[h])
            printf("  %s stays quarantined\n", st->inv.hosts[h]);
    st->resume_runs = (int)json_array_size(to_run);
    json_decref(superseded);
    json_decref(kept);
    json_decref(to_run);
    return 0;
}
