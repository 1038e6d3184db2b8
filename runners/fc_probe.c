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

#include "fc_alloc.h"
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

/* The probe's exchanges, by host index (the probe's "hosts" order). */
typedef struct fc_probe_matrix {
    size_t n;
    unsigned char *arrived;     /* [s * n + r]: r heard s's message intact */
    unsigned char *answered;    /* [h]: h's rank gave an answer */
} fc_probe_matrix_t;

/* The index of host name `host` in `hosts`; -1 when not among them. */
static int fc_probe_host_index(json_t *hosts, const char *host)
{
    json_t *h;
    size_t i;

    json_array_foreach(hosts, i, h)
        if (host && json_is_string(h) && strcmp(json_string_value(h), host) == 0)
            return (int)i;
    return -1;
}

/* The host index of each probe rank 0..n-1: its own answer names its host;
 * without one (or with a name not in the list), the launcher's order (one
 * rank per host, in the host file's order). */
static int *fc_probe_rank_hosts(json_t *probe, size_t n)
{
    json_t *hosts = json_object_get(probe, "hosts"), *a;
    int *idx = fc_xcalloc(n ? n : 1, sizeof(*idx), "the probe's ranks");
    size_t i;

    for (size_t r = 0; r < n; ++r)
        idx[r] = json_is_string(json_array_get(hosts, r)) ? (int)r : -1;
    json_array_foreach(json_object_get(probe, "answers"), i, a) {
        json_int_t r = json_integer_value(json_object_get(a, "rank"));

        int h;

        /* a name the host list does not hold (a full domain name, an
         * address) leaves the launcher's order */
        if (json_is_integer(json_object_get(a, "rank")) && r >= 0 && (size_t)r < n &&
            (h = fc_probe_host_index(hosts, fc_json_str(a, "host"))) >= 0)
            idx[r] = h;
    }
    return idx;
}

/* Read the answers into a matrix. What a host that gave no answer heard
 * is not known (answered[h] == 0): its exchanges in are left out of every
 * count, neither arrived nor failed. */
static void fc_probe_matrix(json_t *probe, fc_probe_matrix_t *m)
{
    size_t n = json_array_size(json_object_get(probe, "hosts")), i, j;
    int *idx = fc_probe_rank_hosts(probe, n);
    json_t *a, *v;

    m->n = n;
    m->arrived = fc_xcalloc(n > 0 ? n * n : 1, 1, "the probe's exchanges");
    m->answered = fc_xcalloc(n ? n : 1, 1, "the probe's answers");
    json_array_foreach(json_object_get(probe, "answers"), i, a) {
        json_int_t ar = json_integer_value(json_object_get(a, "rank"));
        int r;

        if (!json_is_integer(json_object_get(a, "rank")) || ar < 0 || (size_t)ar >= n ||
            (r = idx[ar]) < 0)
            continue;
        m->answered[r] = 1;
        json_array_foreach(json_object_get(a, "heard"), j, v) {
            json_int_t vs = json_integer_value(v);
            int s;

            if (json_is_integer(v) && vs >= 0 && (size_t)vs < n && (s = idx[vs]) >= 0 && s != r)
                m->arrived[(size_t)s * n + (size_t)r] = 1;
        }
    }
    free(idx);
}

static void fc_probe_matrix_free(fc_probe_matrix_t *m)
{
    free(m->arrived);
    free(m->answered);
}

/* Host h's exchanges with its partners among `in` (NULL: all) whose
 * outcome is known: of those that answered, how many heard it; and, when h
 * answered, how many of them it heard. */
typedef struct fc_probe_counts {
    size_t asked_out, heard_by;     /* partners that answered; those that heard h */
    size_t asked_in, hears;         /* partners h could hear (0 when h gave no
                                     * answer); those it heard */
} fc_probe_counts_t;

static fc_probe_counts_t fc_probe_count(const fc_probe_matrix_t *m, size_t h,
                                        const unsigned char *in)
{
    fc_probe_counts_t c = { 0, 0, 0, 0 };

    for (size_t p = 0; p < m->n; ++p) {
        if (p == h || (in && !in[p]))
            continue;
        if (m->answered[p]) {
            ++c.asked_out;
            c.heard_by += m->arrived[h * m->n + p];
        }
        if (m->answered[h]) {
            ++c.asked_in;
            c.hears += m->arrived[p * m->n + h];
        }
    }
    return c;
}

void fc_probe_host_text(json_t *probe, const char *host, char *text, size_t len)
{
    fc_probe_matrix_t m;
    int h = fc_probe_host_index(json_object_get(probe, "hosts"), host);

    fc_probe_matrix(probe, &m);
    if (h < 0 || m.n < 2) {
        snprintf(text, len, "not among the probe's hosts");
    } else {
        fc_probe_counts_t c = fc_probe_count(&m, (size_t)h, NULL);

        if (c.heard_by == 0 && c.hears == 0)
            snprintf(text, len, "answering no partner (%zu of them said so%s)", c.asked_out,
                     m.answered[h] ? "" : "; it gave no answer");
        else if (!m.answered[h])
            snprintf(text, len, "heard by %zu of the %zu partners that answered, and giving "
                     "no answer", c.heard_by, c.asked_out);
        else
            snprintf(text, len, "heard by %zu of the %zu partners that answered and hearing "
                     "%zu of %zu", c.heard_by, c.asked_out, c.hears, c.asked_in);
    }
    fc_probe_matrix_free(&m);
}

/* One, or the share 1/part of n where that is more: how many of n a rule
 * allows. */
static size_t fc_probe_share(size_t n, size_t part)
{
    return n / part > 1 ? n / part : 1;
}

/* Is every pair of hosts among `in` talking both ways, but for a few
 * failed exchanges per host (one, or an eighth of its known ones: its
 * partners' among `in` that answered, its own answer's)? Outcomes not
 * known (no answer) count neither way. */
static int fc_probe_nearly_whole(const fc_probe_matrix_t *m, const unsigned char *in)
{
    for (size_t h = 0; h < m->n; ++h) {
        fc_probe_counts_t c;
        size_t known, failed;

        if (!in[h])
            continue;
        c = fc_probe_count(m, h, in);
        known = c.asked_out + c.asked_in;
        failed = known - c.heard_by - c.hears;
        if (failed > fc_probe_share(known, 8))
            return 0;
    }
    return 1;
}

/* Is h cut off from the hosts among `in`: of at least three that answered,
 * at most one (or a quarter) heard it; or, by its own answer, of at least
 * three it heard at most one (or a quarter)? */
static int fc_probe_cut_off(const fc_probe_matrix_t *m, size_t h, const unsigned char *in)
{
    fc_probe_counts_t c = fc_probe_count(m, h, in);

    return (c.asked_out >= 3 && c.heard_by <= fc_probe_share(c.asked_out, 4)) ||
           (c.asked_in >= 3 && c.hears <= fc_probe_share(c.asked_in, 4));
}

json_t *fc_probe_silent_hosts(json_t *probe, char *summary, size_t len)
{
    json_t *hosts = json_object_get(probe, "hosts"), *placed;
    fc_probe_matrix_t m;
    size_t n = json_array_size(hosts), arrived = 0, known = 0, nsilent = 0, nrest = 0, ncut = 0;
    unsigned char *silent, *rest, *left;
    const char *why = "";

    fc_probe_matrix(probe, &m);
    for (size_t s = 0; s < n; ++s)
        for (size_t r = 0; r < n; ++r)
            if (s != r && m.answered[r]) {
                ++known;
                arrived += m.arrived[s * n + r];
            }
    snprintf(summary, len, "%zu host(s), %zu of %zu directed exchanges arrived intact, "
             "%zu answer(s) of %zu", n, arrived, known,
             json_array_size(json_object_get(probe, "answers")), n);
    if (n < 3) {
        fc_probe_matrix_free(&m);
        return NULL;
    }
    silent = fc_xcalloc(n, 1, "the probe's hosts");
    rest = fc_xcalloc(n, 1, "the probe's hosts");
    left = fc_xcalloc(n, 1, "the probe's hosts");
    /* 1. a host that answers no partner: of two or more partners that
     * answered, none heard it, and it heard none (or gave no answer) */
    for (size_t h = 0; h < n; ++h) {
        fc_probe_counts_t c = fc_probe_count(&m, h, NULL);

        silent[h] = c.asked_out >= 2 && c.heard_by == 0 && c.hears == 0;
        rest[h] = !silent[h];
        nsilent += silent[h];
        nrest += rest[h];
    }
    /* 2. among the others, a host cut off one way or both (fc_probe_cut_off:
     * its link nearly dead), placed only when the hosts left, two or more
     * and at least twice as many, all talk to each other both ways
     * (fc_probe_nearly_whole), and no two cut-off hosts talk to each other
     * both ways: hosts cut off together (a rack behind a dead uplink, or
     * the rest of the cluster behind one) are not told apart from the
     * others by the probe */
    if (nrest >= 4) {
        for (size_t h = 0; h < n; ++h) {
            if (!rest[h])
                continue;
            if (fc_probe_cut_off(&m, h, rest))
                ++ncut;
            else
                left[h] = 1;
        }
        if (ncut > 0 && (nrest - ncut < 2 || 2 * ncut > nrest - ncut)) {
            why = "; too many hosts cut off to tell which side is at fault";
            ncut = 0;
        } else if (ncut > 0 && !fc_probe_nearly_whole(&m, left)) {
            why = "; the hosts not cut off do not all talk to each other";
            ncut = 0;
        }
        for (size_t x = 0; x < n && ncut > 0; ++x)
            for (size_t y = x + 1; y < n && ncut > 0; ++y)
                if (rest[x] && rest[y] && !left[x] && !left[y] &&
                    m.arrived[x * n + y] && m.arrived[y * n + x]) {
                    why = "; the hosts cut off talk to each other: cut off together (an "
                          "uplink, a switch), not each on its own";
                    ncut = 0;
                }
    }
    placed = json_array();
    for (size_t h = 0; h < n; ++h)
        if (json_is_string(json_array_get(hosts, h)) &&
            ((nsilent < n && silent[h]) || (ncut > 0 && rest[h] && !left[h])))
            json_array_append(placed, json_array_get(hosts, h));
    if (ncut > 0)
        snprintf(summary + strlen(summary), len - strlen(summary), "; %zu host(s) cut off "
                 "one way or both, every other pair talking", ncut);
    else if (arrived < known && json_array_size(placed) == 0)
        snprintf(summary + strlen(summary), len - strlen(summary),
                 "; the exchanges that failed single out no host%s", why);
    free(silent);
    free(rest);
    free(left);
    fc_probe_matrix_free(&m);
    return placed;
}
