/*
 * fc_probe.c - see fc_probe.h. The probe's ranks print their answers on
 * stdout; fc_launch() keeps stdout as the attempt's "tap" file, which is
 * read back line by line. Host h is heard when some partner's "heard"
 * list holds h's rank; h hears when its own "heard" list is not empty.
 */
#include "fc_probe.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fc_input.h"
#include "fc_inventory.h"
#include "fc_json.h"
#include "fc_launch.h"
#include "fc_results.h"
#include "fc_watchdog.h"

#define FC_PROBE_TAG "FABCERT-PROBE "
/* the launcher's start-up and tear-down on top of the probe's deadline */
#define FC_PROBE_MARGIN_S 15
#define FC_PROBE_MAX_ARGS 200

/* The probe's answers in the launcher's stdout. */
static json_t *fc_probe_read(const char *path)
{
    json_t *answers = json_array();
    char *text = NULL, *line, *save = NULL;

    if (fc_input_read(path, "probe output", FC_INPUT_DOC_MAX, &text, NULL) != FC_OK)
        return answers;
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        const char *at = strstr(line, FC_PROBE_TAG);
        json_t *j;

        if (at && (j = json_loads(at + strlen(FC_PROBE_TAG), 0, NULL)) != NULL)
            json_array_append_new(answers, j);
    }
    free(text);
    return answers;
}

/* The launcher's command line for one rank on each of `hosts`, as the
 * stages are launched (mpirun --hostfile F --map-by node, or srun
 * --nodelist), its files named NAME.{hosts,out,log} in the run's
 * directory; the program and its arguments go after it. Returns how many
 * arguments, or -1 with why in err. The arguments point into *lh. */
static int fc_probe_argv(const fc_probe_launch_t *pl, const char *name, json_t *hosts,
                         fc_launch_hosts_t *lh, const char **args, char *out, char *log,
                         size_t len, char *err, size_t errlen)
{
    memset(lh, 0, sizeof(*lh));
    lh->mpirun = pl->mpirun;
    lh->srun = pl->srun;
    lh->mpirun_args = pl->mpirun_args;
    lh->nmpirun_args = pl->nmpirun_args;
    lh->per_node = 1;
    snprintf(lh->hostfile, sizeof(lh->hostfile), "%s/%s.hosts", pl->out_dir, name);
    snprintf(out, len, "%s/%s.out", pl->out_dir, name);
    snprintf(log, len, "%s/%s.log", pl->out_dir, name);
    /* room for the program and its arguments */
    return fc_launch_hosts_argv(lh, hosts, args, FC_PROBE_MAX_ARGS - 4, err, errlen);
}

json_t *fc_probe_run(const fc_probe_launch_t *pl, json_t *hosts, char *err, size_t errlen)
{
    static fc_launch_hosts_t lh;
    char out[PATH_MAX + 64], log[PATH_MAX + 64], exe[PATH_MAX], timeout[32], name[128];
    const char *args[FC_PROBE_MAX_ARGS];
    fc_launch_result_t res;
    int nargs;

    snprintf(name, sizeof(name), "probe.%s", pl->stage);
    if ((nargs = fc_probe_argv(pl, name, hosts, &lh, args, out, log, sizeof(out), err,
                               errlen)) < 0)
        return NULL;
    snprintf(timeout, sizeof(timeout), "%.1f", pl->timeout_s);
    fc_path_program("probe", exe, sizeof(exe));
    args[nargs++] = exe;
    args[nargs++] = "--timeout";
    args[nargs++] = timeout;
    args[nargs] = NULL;
    fc_launch((char *const *)args, out, log, pl->timeout_s + FC_PROBE_MARGIN_S, &res);
    fc_launch_result_free(&res);
    if (res.not_started || res.exit_status == 127 || res.exit_status == 2) {
        snprintf(err, errlen, "the probe could not be launched (exit status %d; see %s)",
                 res.exit_status, log);
        return NULL;
    }
    return json_pack("{s:O, s:o, s:f, s:s}", "hosts", hosts, "answers", fc_probe_read(out),
                     "seconds", res.seconds, "log", log);
}

json_t *fc_start_check_run(const fc_probe_launch_t *pl, const char *program, json_t *hosts,
                           char *err, size_t errlen)
{
    static fc_launch_hosts_t lh;
    char out[PATH_MAX + 64], log[PATH_MAX + 64], exe[PATH_MAX], name[512];
    const char *args[FC_PROBE_MAX_ARGS];
    const char *first = json_string_value(json_array_get(hosts, 0));
    size_t nhosts = json_array_size(hosts);
    fc_launch_result_t res;
    json_t *rec;
    int nargs;

    if (nhosts == 1)
        snprintf(name, sizeof(name), "start.%s.%s", pl->stage, first);
    else
        snprintf(name, sizeof(name), "start.%s.%s-and-%zu-more", pl->stage, first, nhosts - 1);
    /* a check of the same hosts again keeps the first one's files */
    for (int again = 2; again < 100; ++again) {
        snprintf(log, sizeof(log), "%s/%s.log", pl->out_dir, name);
        if (access(log, F_OK) != 0)
            break;
        snprintf(name + strcspn(name, "#"), sizeof(name) - strcspn(name, "#"), "#%d", again);
    }
    if ((nargs = fc_probe_argv(pl, name, hosts, &lh, args, out, log, sizeof(out), err,
                               errlen)) < 0)
        return NULL;
    fc_path_program(program, exe, sizeof(exe));
    args[nargs++] = exe;
    args[nargs++] = FC_STAGE_START_CHECK;
    args[nargs] = NULL;
    fc_launch((char *const *)args, out, log, pl->timeout_s + FC_PROBE_MARGIN_S, &res);
    if (res.not_started) {
        snprintf(err, errlen, "the start check could not be launched on %s%s (see %s)", first,
                 nhosts > 1 ? " and the others" : "", log);
        fc_launch_result_free(&res);
        return NULL;
    }
    /* one rank a host: every host reached main when as many start lines came */
    rec = json_pack("{s:O, s:b, s:i, s:i, s:b, s:f, s:s}", "hosts", hosts, "reached_main",
                    json_array_size(res.started) >= nhosts, "started_ranks",
                    (int)json_array_size(res.started), "exit_status", res.exit_status,
                    "timed_out", res.timed_out, "seconds", res.seconds, "log", log);
    if (nhosts == 1)
        json_object_set_new(rec, "host", json_string(first));
    /* where the ranks that started say they are, by their own names */
    json_object_set_new(rec, "started_on", json_array());
    for (size_t i = 0; i < json_array_size(res.started); ++i)
        json_array_append(json_object_get(rec, "started_on"),
                          json_object_get(json_array_get(res.started, i), "host"));
    fc_launch_result_free(&res);
    return rec;
}

/* The host of probe rank r: its own answer says; without one, the
 * launcher's order (one rank per host, in the host file's order). */
static const char *fc_probe_rank_host(json_t *probe, json_int_t r)
{
    json_t *a;
    size_t i;

    json_array_foreach(json_object_get(probe, "answers"), i, a)
        if (json_integer_value(json_object_get(a, "rank")) == r)
            return json_string_value(json_object_get(a, "host"));
    return json_string_value(json_array_get(json_object_get(probe, "hosts"), (size_t)r));
}

/* Does `host` hear a partner, and does a partner hear it? */
static void fc_probe_host(json_t *probe, const char *host, int *hears_p, int *heard_p)
{
    json_t *a, *v;
    size_t i, j;

    *hears_p = *heard_p = 0;
    json_array_foreach(json_object_get(probe, "answers"), i, a) {
        int mine = strcmp(fc_json_str(a, "host"), host) == 0;

        json_array_foreach(json_object_get(a, "heard"), j, v) {
            const char *from = fc_probe_rank_host(probe, json_integer_value(v));

            if (mine)
                *hears_p = 1;
            else if (from && strcmp(from, host) == 0)
                *heard_p = 1;
        }
    }
}

json_t *fc_probe_silent_hosts(json_t *probe, char *summary, size_t len)
{
    json_t *answers = json_object_get(probe, "answers"), *hosts = json_object_get(probe, "hosts");
    json_t *silent = json_array(), *a, *h;
    size_t n = json_array_size(hosts), i, arrived = 0, nsilent = 0;

    json_array_foreach(hosts, i, h) {
        int hears, heard;

        fc_probe_host(probe, json_string_value(h), &hears, &heard);
        if (!hears && !heard) {
            json_array_append(silent, h);
            ++nsilent;
        }
    }
    json_array_foreach(answers, i, a)
        arrived += json_array_size(json_object_get(a, "heard"));
    snprintf(summary, len, "%zu host(s), %zu of %zu directed exchanges arrived intact, "
             "%zu answer(s) of %zu", n, arrived, n * (n - 1), json_array_size(answers), n);
    if (n < 3 || nsilent == n) {
        json_decref(silent);
        return NULL;
    }
    return silent;
}
