/*
 * fc_run_stage.c - one attempt of a stage: skip it (too few healthy
 * hosts), build the launcher's argument list (mpirun with a hostfile, or
 * one srun job step), launch it bounded by the stage's timeout, run the
 * retest its pending results ask for (and the bounded retest of a host
 * common to every wrong result of the run), scan what it wrote (quarantine what
 * a confirmed finding names), print its outcome, and diagnose a stage that
 * did not end (runners/fc_diagnose.h).
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fc_alloc.h"
#include "fc_diagnose.h"
#include "fc_input.h"
#include "fc_probe.h"
#include "fc_report.h"
#include "fc_results.h"
#include "fc_retest.h"
#include "fc_retest_hosts.h"
#include "fc_run.h"
#include "fc_watchdog.h"

/* The probe for a stuck stage, launched as the stages are. */
static json_t *fc_run_probe(void *arg, json_t *hosts, char *err, size_t errlen)
{
    const fc_run_state_t *st = arg;
    fc_probe_launch_t pl = { st->o.mpirun, st->o.srun, st->o.mpirun_args,
                             st->o.nmpirun_args, st->o.out_dir, st->probe_stage, 5.0 };

    return fc_probe_run(&pl, hosts, err, errlen);
}

/* The start check of a set of hosts, for a launch whose ranks never
 * reached main (runners/fc_probe.h): 20 s to reach main. */
static json_t *fc_run_start_check(void *arg, json_t *hosts, char *err, size_t errlen)
{
    const fc_run_state_t *st = arg;
    fc_probe_launch_t pl = { st->o.mpirun, st->o.srun, st->o.mpirun_args,
                             st->o.nmpirun_args, st->o.out_dir, st->probe_stage, 20.0 };

    return fc_start_check_run(&pl, st->probe_stage, hosts, err, errlen);
}

/* What the diagnosis reads of an attempt (runners/fc_diagnose.h): its
 * records, the launcher's result and log, the healthy hosts it was
 * launched on, and where the runner asked the launcher to put each rank:
 * mpirun's hostfile lists them in inventory order and --map-by node deals
 * the ranks out one per host in turn; on this machine alone every rank is
 * here; srun places them itself (NULL). Free with fc_stage_diag_in_free. */
static void fc_stage_diag_in(fc_run_state_t *st, const char *stage, json_t *recs,
                             const fc_launch_result_t *res, const char *log_path,
                             fc_diag_in_t *in, char *placement_text, size_t len)
{
    fc_stage_id_t id = fc_stage_from_name(stage);
    size_t nhealthy;

    memset(in, 0, sizeof(*in));
    in->inv = &st->inv;
    in->stage = stage;
    in->recs = recs;
    in->res = res;
    in->log_path = log_path;
    in->probe = fc_cluster_mode(&st->o) ? fc_run_probe : NULL;
    in->start_check = fc_cluster_mode(&st->o) ? fc_run_start_check : NULL;
    in->probe_arg = st;
    in->hosts = json_array();
    in->timeout_s = st->profile.stages[id].timeout_s;
    for (int h = 0; h < st->inv.nhosts; ++h)
        if (st->healthy[h])
            json_array_append_new(in->hosts, json_string(st->inv.hosts[h]));
    nhealthy = json_array_size(in->hosts);
    in->ranks = fc_stage_ranks_planned(st, id, (int)nhealthy);
    if (st->o.srun || nhealthy == 0)
        return;
    in->placement = json_array();
    for (int r = 0; r < in->ranks; ++r)
        json_array_append(in->placement, json_array_get(in->hosts, fc_cluster_mode(&st->o)
                                                                   ? (size_t)r % nhealthy : 0));
    if (fc_cluster_mode(&st->o))
        snprintf(placement_text, len, "the hostfile's %zu host(s) in inventory order, "
                 "--map-by node, %d rank(s) per host", nhealthy, in->ranks / (int)nhealthy);
    else
        snprintf(placement_text, len, "every rank on this machine");
    in->placement_text = placement_text;
}

static void fc_stage_diag_in_free(fc_diag_in_t *in)
{
    json_decref(in->hosts);
    json_decref(in->placement);
}

/* What went wrong in an attempt, from what the ranks and the launcher
 * said (runners/fc_diagnose.h): why the stage did not end, or (after_end)
 * which rank died after it wrote its end. Appends the findings and
 * quarantines the hosts they place; returns how many. */
static int fc_diagnose_attempt(fc_run_state_t *st, const char *stage, json_t *recs,
                               const fc_launch_result_t *res, const char *log_path,
                               int after_end)
{
    static const struct { const char *type, *word; } words[] = {
        { "crash", "CRASH" }, { "hang", "HANG" }, { "probe", "PROBE" },
        { "cannot_start", "CANNOT START" },
    };
    fc_diag_in_t in;
    char placement[256];
    json_t *found, *f;
    size_t i;
    int quarantined = 0;

    fc_stage_diag_in(st, stage, recs, res, log_path, &in, placement, sizeof(placement));
    st->probe_stage = stage;
    found = after_end ? fc_diagnose_after_end(&in) : fc_diagnose_unfinished(&in);
    fc_stage_diag_in_free(&in);
    json_array_foreach(found, i, f) {
        json_t *r = fc_run_record(st, fc_json_str(f, "type"), stage);
        json_t *imp = json_object_get(f, "implicates");
        const char *why = json_string_value(json_array_get(json_object_get(f, "reasons"), 0));
        const char *type = fc_json_str(f, "type"), *word = "ERROR";

        for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); ++k)
            if (strcmp(type, words[k].type) == 0)
                word = words[k].word;
        json_object_update(r, f);
        fc_print_line(stdout, "  %s %s", word, why ? why : fc_json_str(f, "reason"));
        fc_append(st, r);
        if (json_is_true(json_object_get(imp, "quarantine"))) {
            fc_quarantine(st, stage, fc_json_str(imp, "host"), fc_json_str(imp, "part"), why);
            ++quarantined;
        }
    }
    json_decref(found);
    return quarantined;
}

/* What the runner prints for a finished attempt: the stage's own end
 * record decides, and nothing judged is never a pass. */
static const char *fc_stage_outcome(int ended, const char *status, int points, int failed,
                                    int incomplete)
{
    if (!ended)
        return "DID NOT FINISH";
    if (strcmp(status, "ok") != 0 && strcmp(status, "fail") != 0)
        return "ERROR";
    if (strcmp(status, "fail") == 0 && failed == 0 && incomplete == 0)
        return "ERROR (failed outside its checks)";
    if (points == 0)
        return "NOTHING JUDGED";
    /* a check that could not judge (a load that moved no bytes) makes its
     * racks INCOMPLETE, not FAIL: the stage's line says the same */
    return failed ? "FAIL" : incomplete ? "INCOMPLETE" : "PASS";
}

/* One attempt's launcher command line and where its files go. */
typedef struct fc_stage_launch {
    const char *args[3 * FC_MAX_PASSTHRU + 64];
    int nargs;
    int exe_at;                     /* args[exe_at] is the stage program */
    int ranks, nhealthy;
    char exe[PATH_MAX], hostfile[PATH_MAX + 64], tap[PATH_MAX + 64], log[PATH_MAX + 64];
    char np[16], nodes[64], tasks[64];
    char nodelist[65536];           /* srun: the healthy hosts */
} fc_stage_launch_t;

int fc_stage_ranks_planned(const fc_run_state_t *st, fc_stage_id_t stage, int nhealthy)
{
    const fc_run_opts_t *o = &st->o;
    fc_stage_ranks_t rule = fc_stage_desc(stage)->ranks;
    int per_node = rule == FC_RANKS_ONE ? 1 :
                   rule == FC_RANKS_ROLES ? st->profile.stages[stage].cont.fg_per_node +
                                            st->profile.stages[stage].cont.bg_per_node
                                          : o->ppn;

    if (!fc_cluster_mode(o))
        return rule == FC_RANKS_ONE ? 1 : rule == FC_RANKS_ROLES && o->np < per_node
                                          ? per_node : o->np;
    return nhealthy * per_node;
}

int fc_selftest_rank(const fc_run_opts_t *o)
{
    int worst = -1;

    for (int k = 0; k + 1 < o->nselftest_args; k += 2) {
        const char *r = strstr(o->selftest_args[k + 1], "rank=");
        int v;

        if (r && sscanf(r + 5, "%d", &v) == 1 && v > worst)
            worst = v;
    }
    return worst;
}

/* The launcher's argument list for one attempt on the healthy hosts:
 * mpirun with a hostfile (or -np on this machine alone), or one srun job
 * step; then the stage program and its options. Returns 2 when a file
 * cannot be written. */
static int fc_stage_argv(const fc_run_state_t *st, fc_stage_id_t stage, int attempt,
                         const char *suffix, fc_stage_launch_t *l)
{
    const fc_run_opts_t *o = &st->o;
    const char *name = fc_stage_name(stage);
    int cluster = fc_cluster_mode(o);
    /* ranks per node, by the stage table: one, the contention stage's
     * foreground plus background ranks, or --ppn */
    fc_stage_ranks_t rule = fc_stage_desc(stage)->ranks;
    int per_node = rule == FC_RANKS_ONE ? 1 :
                   rule == FC_RANKS_ROLES ? st->profile.stages[stage].cont.fg_per_node +
                                            st->profile.stages[stage].cont.bg_per_node
                                          : o->ppn;

    fc_path_program(name, l->exe, sizeof(l->exe));
    snprintf(l->tap, sizeof(l->tap), "%s/%s%s.tap", o->out_dir, name, suffix);
    snprintf(l->log, sizeof(l->log), "%s/%s%s.log", o->out_dir, name, suffix);
    /* on this machine alone: --np ranks, at least the roles' */
    l->ranks = fc_stage_ranks_planned(st, stage, l->nhealthy);
    snprintf(l->np, sizeof(l->np), "%d", l->ranks);
    l->nargs = 0;
    l->args[l->nargs++] = o->mpirun;
    if (o->srun) {
        /* one job step per stage on the healthy hosts; the watchdog and
         * the runner bound it, not Slurm's time limit */
        size_t len = 0;

        l->args[l->nargs++] = "--mpi=pmix";
        l->args[l->nargs++] = "--kill-on-bad-exit=0";
        l->args[l->nargs++] = "-n";
        l->args[l->nargs++] = l->np;
        l->nodelist[0] = '\0';
        for (int h = 0; h < st->inv.nhosts && (cluster || h == 0); ++h)
            if (st->healthy[h] && len + strlen(st->inv.hosts[h]) + 2 < sizeof(l->nodelist))
                len += (size_t)snprintf(l->nodelist + len, sizeof(l->nodelist) - len, "%s%s",
                                        len ? "," : "", st->inv.hosts[h]);
        snprintf(l->nodes, sizeof(l->nodes), "--nodes=%d", cluster ? l->nhealthy : 1);
        l->args[l->nargs++] = l->nodes;
        l->args[l->nargs++] = "--nodelist";
        l->args[l->nargs++] = l->nodelist;
        if (cluster) {
            snprintf(l->tasks, sizeof(l->tasks), "--ntasks-per-node=%d", per_node);
            l->args[l->nargs++] = l->tasks;
        }
    } else {
        l->args[l->nargs++] = "--oversubscribe";
        l->args[l->nargs++] = "--bind-to";
        l->args[l->nargs++] = "none";
        l->args[l->nargs++] = "-np";
        l->args[l->nargs++] = l->np;
    }
    if (cluster && !o->srun) {
        FILE *f;

        snprintf(l->hostfile, sizeof(l->hostfile), "%s/hostfile.%s%s", o->out_dir, name,
                 suffix);
        if ((f = fopen(l->hostfile, "w")) == NULL) {
            fc_write_failed(l->hostfile, errno);
            fprintf(stderr, "fabcert: cannot write %s: %s\n", l->hostfile, strerror(errno));
            return 2;
        }
        for (int h = 0; h < st->inv.nhosts; ++h)
            if (st->healthy[h])
                fprintf(f, "%s slots=%d\n", st->inv.hosts[h], per_node);
        fclose(f);
        l->args[l->nargs++] = "--hostfile";
        l->args[l->nargs++] = l->hostfile;
        l->args[l->nargs++] = "--map-by";
        l->args[l->nargs++] = "node";
    }
    for (int k = 0; k < o->nmpirun_args; ++k)
        l->args[l->nargs++] = o->mpirun_args[k];
    l->exe_at = l->nargs;
    l->args[l->nargs++] = l->exe;
    l->args[l->nargs++] = "--profile";
    l->args[l->nargs++] = o->profile;
    l->args[l->nargs++] = "--out";
    l->args[l->nargs++] = o->out_dir;
    l->args[l->nargs++] = "--run-id";
    l->args[l->nargs++] = o->run_id;
    l->args[l->nargs++] = "--hosts";
    l->args[l->nargs++] = o->hosts;
    if (o->racks[0]) {
        l->args[l->nargs++] = "--racks";
        l->args[l->nargs++] = o->racks;
    }
    for (int k = 0; k < o->nstage_args; ++k)
        l->args[l->nargs++] = o->stage_args[k];
    /* self-tests apply to a stage's first attempt only: rank numbers
     * change once hosts are quarantined */
    if (attempt == 1 && (o->selftest_stage < 0 || o->selftest_stage == (int)stage))
        for (int k = 0; k < o->nselftest_args; ++k)
            l->args[l->nargs++] = o->selftest_args[k];
    l->args[l->nargs] = NULL;
    return 0;
}

/* What an attempt wrote, for the runner's line: did it end, how, its
 * checks and failures; and quarantine every host a confirmed finding
 * names. */
typedef struct fc_stage_scan {
    int ended, points, failed, incomplete;  /* checks: FAIL, INCOMPLETE */
    char skipped[512], end_status[32], end_error[512];
    char incomplete_why[512];               /* the first INCOMPLETE check's reason */
} fc_stage_scan_t;

static void fc_stage_scan(fc_run_state_t *st, const char *name, json_t *recs,
                          fc_stage_scan_t *sc)
{
    json_t *rec;
    size_t i;

    memset(sc, 0, sizeof(*sc));
    json_array_foreach(recs, i, rec) {
        const char *type = fc_json_str(rec, "type");
        json_t *imp = json_object_get(rec, "implicates");

        if (strcmp(type, "stage_end") == 0) {
            sc->ended = 1;
            snprintf(sc->end_status, sizeof(sc->end_status), "%s", fc_json_str(rec, "status"));
            snprintf(sc->end_error, sizeof(sc->end_error), "%s", fc_json_str(rec, "error"));
            if (strcmp(fc_json_str(rec, "verdict"), "SKIP") == 0)
                snprintf(sc->skipped, sizeof(sc->skipped), "%s", fc_json_str(rec, "reason"));
        }
        if (fc_record_is_check(type)) {
            const char *verdict = fc_json_str(rec, "verdict");
            const char *what = json_string_value(json_array_get(
                json_object_get(rec, "reasons"), 0));

            ++sc->points;
            if (strcmp(verdict, "INCOMPLETE") == 0 && sc->incomplete++ == 0)
                snprintf(sc->incomplete_why, sizeof(sc->incomplete_why), "%s",
                         what ? what : "not judged");
            else if (strcmp(verdict, "PASS") != 0 && strcmp(verdict, "INCOMPLETE") != 0)
                ++sc->failed;
        }
        if (strcmp(fc_json_str(rec, "verdict"), "FAIL") == 0 &&
            json_is_true(json_object_get(imp, "quarantine"))) {
            char why[1024];
            const char *what = json_string_value(json_array_get(json_object_get(rec, "reasons"), 0));

            if (strcmp(type, "point") == 0)
                snprintf(why, sizeof(why), "%s %s%s%s %lld bytes: %s",
                         fc_json_str(rec, "collective"), fc_json_str(rec, "dtype"),
                         strcmp(fc_json_str(rec, "op"), "none") ? " " : "",
                         strcmp(fc_json_str(rec, "op"), "none") ? fc_json_str(rec, "op") : "",
                         (long long)json_integer_value(json_object_get(rec, "bytes")),
                         what ? what : "failed");
            else
                snprintf(why, sizeof(why), "%s", what ? what : "failed");
            if (json_is_string(json_object_get(imp, "nic")))
                fc_quarantine_nic(st, name, imp, why);
            else
                fc_quarantine(st, name, fc_json_str(imp, "host"), fc_json_str(imp, "part"), why);
        }
    }
}

/* Exit status 2 is a stage refusing its input (the profile, the host
 * list, the command line): it checks all of that before its stage_start,
 * and a check after it says so in its stage_end ("invalid input"). A
 * launch that ends with status 2 after the stage started without such an
 * end is a rank that ended with status 2 (a library on one node calling
 * exit(2)): a death like any other, diagnosed and placed, not bad input
 * that stops the whole run with nobody named; so is a launch whose
 * launcher names a rank that never reached main (its program could not
 * start there: Slurm gives 2 for a program it cannot execute). */
static int fc_stage_rejected_input(fc_run_state_t *st, const char *stage, json_t *recs,
                                   const fc_launch_result_t *res, const char *log_path)
{
    json_t *rec;
    size_t i;
    int started = 0, never = 0;
    fc_diag_in_t in;
    char placement[256];

    json_array_foreach(recs, i, rec) {
        const char *type = fc_json_str(rec, "type");

        if (strcmp(type, "stage_start") == 0)
            started = 1;
        else if (strcmp(type, "stage_end") == 0)
            return strcmp(fc_json_str(rec, "status"), "invalid input") == 0;
    }
    if (started)
        return 0;
    /* a stage refuses its input after its main began, on every rank: a
     * rank the launcher names that never reached main could not start */
    fc_stage_diag_in(st, stage, recs, res, log_path, &in, placement, sizeof(placement));
    never = fc_diagnose_never_reached_main(&in);
    fc_stage_diag_in_free(&in);
    return never == 0;
}

int fc_run_stage(fc_run_state_t *st, fc_stage_id_t stage, int attempt, int *hung_p)
{
    const fc_run_opts_t *o = &st->o;
    const char *name = fc_stage_name(stage);
    fc_stage_launch_t *l = fc_xcalloc(1, sizeof(*l), "the stage's launch");
    char suffix[16] = "";
    fc_launch_result_t res;
    fc_stage_scan_t sc;
    long offset;
    json_t *recs;
    int torn = 0;

    *hung_p = 0;
    for (int h = 0; h < st->inv.nhosts; ++h)
        l->nhealthy += st->healthy[h];
    if (attempt > 1)
        snprintf(suffix, sizeof(suffix), ".%d", attempt);
    if (l->nhealthy == 0 || l->nhealthy < fc_stage_desc(stage)->min_hosts) {
        json_t *r = fc_run_record(st, "stage_skip", name);
        char why[64];

        snprintf(why, sizeof(why), l->nhealthy == 0 ? "no healthy host is left"
                 : "fewer than %d healthy hosts", fc_stage_desc(stage)->min_hosts);
        json_object_set_new(r, "reason", json_string(why));
        fc_append(st, r);
        printf("stage %s: skipped: %s\n", name, why);
        free(l);
        return 0;
    }
    if (fc_stage_argv(st, stage, attempt, suffix, l) != 0) {
        free(l);
        return 2;
    }
    printf("stage %s%s: %d host(s), %d rank(s), timeout %.0f s\n", name,
           attempt > 1 ? " (again, without the hosts blamed)" : "", l->nhealthy,
           l->ranks, st->profile.stages[stage].timeout_s);
    fflush(stdout);
    offset = fc_file_size(st->results_path);
    fc_launch((char *const *)l->args, l->tap, l->log,
              st->profile.stages[stage].timeout_s + FC_LAUNCH_MARGIN_S, &res);
    /* a full disk under --out: the stage's records (and its log) could
     * not all be written; what it left is no evidence of a hang */
    if (fc_run_write_check(st, "results.jsonl")) {
        printf("stage %s: stopped after %.1f s: the disk under --out is full\n", name,
               res.seconds);
        fc_launch_result_free(&res);
        free(l);
        return 3;
    }
    /* what this attempt appended (nothing if it never opened the file) */
    if (access(st->results_path, F_OK) != 0 ||
        fc_results_load(st->results_path, offset, &recs, &torn) != FC_OK)
        recs = json_array();
    if (res.exit_status == 2 && fc_stage_rejected_input(st, name, recs, &res, l->log)) {
        char *text = NULL;

        fprintf(stderr, "fabcert: the %s stage rejected its input:\n", name);
        /* its words, without the ranks' start lines */
        if (fc_input_read(l->log, "stage log", FC_INPUT_DOC_MAX, &text, NULL) == FC_OK)
            for (char *line = text, *nl; *line; line = nl ? nl + 1 : line + strlen(line)) {
                nl = strchr(line, '\n');
                if (strncmp(line, FC_WATCHDOG_START_TAG, strlen(FC_WATCHDOG_START_TAG)) != 0)
                    fprintf(stderr, "%.*s\n", (int)(nl ? nl - line : (long)strlen(line)), line);
            }
        free(text);
        json_decref(recs);
        fc_launch_result_free(&res);
        free(l);
        return 2;
    }
    {
        /* a wrong result or a confirmed slowness implicates its group
         * until a retest places it */
        fc_retest_launch_t rt = { l->args, l->exe_at, o->out_dir, o->run_id, name, suffix,
                                  st->profile.stages[stage].timeout_s, FC_LAUNCH_MARGIN_S,
                                  &st->inv, st->results_path, offset };

        int more = fc_retest_after_stage(&rt, recs);

        /* and when wrong bits came back, the host in every group that saw
         * them, retested for longer (runners/fc_retest_hosts.h) */
        more |= fc_retest_hosts_after_stage(st, name, suffix, offset);
        if (more) {
            json_decref(recs);
            if (fc_results_load(st->results_path, offset, &recs, &torn) != FC_OK)
                recs = json_array();
        }
    }
    fc_stage_scan(st, name, recs, &sc);
    char inc[48] = "";

    if (sc.incomplete)
        snprintf(inc, sizeof(inc), ", %d incomplete (first: ", sc.incomplete);
    /* the stage's own words (its reason, its first error) may hold any
     * byte: fc_print_line keeps them to one line */
    if (sc.skipped[0])
        fc_print_line(stdout, "stage %s: SKIPPED: %s", name, sc.skipped);
    else
        fc_print_line(stdout, "stage %s: %s: %d checks, %d failed%s%s%s, %.1f s%s%s%s",
                      name, fc_stage_outcome(sc.ended, sc.end_status, sc.points, sc.failed,
                                             sc.incomplete),
                      sc.points, sc.failed, inc, sc.incomplete ? sc.incomplete_why : "",
                      sc.incomplete ? ")" : "", res.seconds,
                      res.timed_out ? " (killed at the limit)" :
                      res.interrupted ? " (stopped: the run was interrupted)" : "",
                      sc.end_error[0] ? ": " : "", sc.end_error);
    if (torn > 0)
        printf("stage %s: %d record(s) in results.jsonl could not be read: the stage "
               "is INCOMPLETE\n", name, torn);
    if (!sc.ended && res.interrupted) {
        /* an operator's stop, not a hang: nobody is quarantined */
        json_t *r = fc_run_record(st, "stage_error", name);
        char why[128];

        snprintf(why, sizeof(why), "interrupted by signal %d after %.1f s; the stage "
                 "was stopped", fc_launch_interrupted(), res.seconds);
        json_object_set_new(r, "reason", json_string(why));
        fc_append(st, r);
    } else if (!sc.ended) {
        *hung_p = fc_diagnose_attempt(st, name, recs, &res, l->log, 0) > 0;
    } else if (res.timed_out) {
        /* the stage wrote its end, but its launch hung after it (a node's
         * launcher daemon stopped: its ranks' words never came) and was
         * killed: what it measured is not a pass until the ranks' words
         * say who held it */
        json_t *r = fc_run_record(st, "stage_error", name);
        char why[256];

        snprintf(why, sizeof(why), "the stage wrote its end, but its launch did not end: "
                 "killed at the limit after %.1f s", res.seconds);
        json_object_set_new(r, "reason", json_string(why));
        fc_append(st, r);
        printf("  the stage wrote its end, but its launch did not end: killed at the limit "
               "after %.1f s\n", res.seconds);
        *hung_p = fc_diagnose_attempt(st, name, recs, &res, l->log, 0) > 0;
    } else if (res.exit_status != 0 && !res.interrupted) {
        fc_diagnose_attempt(st, name, recs, &res, l->log, 1);
    }
    json_decref(recs);
    fc_launch_result_free(&res);
    free(l);
    return 0;
}
