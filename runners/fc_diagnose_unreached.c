/*
 * fc_diagnose_unreached.c - a launch in which no rank of the stage reached
 * main and the launcher named no rank (see fc_diagnose.h): it could not
 * reach some host at all (Open MPI's "unable to reliably start one or more
 * daemons" for a node whose cable is out, an ssh that is refused or hangs,
 * a node down), or the program is broken everywhere. Nothing in what it
 * said says which.
 *
 * The start check (the program launched on a set of hosts, one rank each:
 * runners/fc_probe.h) finds it by halving: the attempt's hosts are split
 * in two and each half started; a half that fails is split again, down to
 * single hosts (a half whose sibling started while their parent failed is
 * split without being started itself: the failure is in it). A host that
 * does not start alone, twice, while other hosts did start, is placed: a
 * "cannot_start" finding quarantines it and the stage runs again without
 * it, unless the only host that started is the launcher's own (its link
 * out looks the same as every other's). One bad host among N costs about
 * 2 log2 N launches; at most FC_UNREACHED_CHECKS launches are made, none
 * begun after FC_UNREACHED_BUDGET_S seconds of them. No check that
 * started, or every host failing alone, places nobody: the stage's error says what the checks found. A later stage on
 * the same hosts, after only the launcher's own host started, is not
 * halved again while two of the hosts that failed alone still do.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fc_diagnose_int.h"
#include "fc_input.h"
#include "fc_json.h"
#include "fc_launch.h"

/* start checks launched, at most (one bad host among 1000 needs about 20) */
#define FC_UNREACHED_CHECKS 24
/* and no check begun after this many seconds of them */
#define FC_UNREACHED_BUDGET_S 240.0

typedef struct fc_unreached {
    fc_diag_t *d;
    json_t *checks;         /* every check's record, in turn */
    json_t *placed;         /* hosts that did not start alone */
    json_t *alone;          /* ... and each one's own check */
    int started;            /* checks in which every host started */
    int unchecked;          /* groups left unchecked (budget, launcher) */
    double spent_s;
} fc_unreached_t;

/* Start `hosts`: 1 every host reached main, 0 not, -1 not checked (the
 * budget spent, or the launcher could not be run). */
static int fc_unreached_check(fc_unreached_t *u, json_t *hosts, json_t **rec_p)
{
    char err[512];
    json_t *c;

    *rec_p = NULL;
    if (json_array_size(u->checks) >= FC_UNREACHED_CHECKS || u->spent_s >= FC_UNREACHED_BUDGET_S)
        return -1;
    c = u->d->in->start_check(u->d->in->probe_arg, hosts, err, sizeof(err));
    if (c == NULL) {
        json_array_append_new(u->checks, json_pack("{s:O, s:s}", "hosts", hosts, "error", err));
        return -1;
    }
    u->spent_s += json_number_value(json_object_get(c, "seconds"));
    json_array_append(u->checks, c);
    *rec_p = c;
    if (json_is_true(json_object_get(c, "reached_main"))) {
        u->started++;
        return 1;
    }
    return 0;
}

/* hosts[from, to) as a new array */
static json_t *fc_unreached_slice(json_t *hosts, size_t from, size_t to)
{
    json_t *out = json_array();

    for (size_t i = from; i < to; ++i)
        json_array_append(out, json_array_get(hosts, i));
    return out;
}

/* Find the hosts of `hosts` that do not start. known_failing: its parent
 * failed and its sibling started, so it fails (not started again unless
 * it is one host). Returns 1 when every host of it started. */
static int fc_unreached_halve(fc_unreached_t *u, json_t *hosts, int known_failing)
{
    size_t n = json_array_size(hosts), half = n / 2;
    json_t *rec = NULL, *left, *right;
    int ok, left_ok;

    if (!known_failing || n == 1) {
        ok = fc_unreached_check(u, hosts, &rec);
        if (ok < 0) {
            u->unchecked++;
            return 0;
        }
        if (ok == 1) {
            json_decref(rec);
            return 1;
        }
        if (n == 1) {
            /* once more alone: a host placed has failed twice by itself */
            json_t *again = NULL;
            int ok2 = fc_unreached_check(u, hosts, &again);

            json_decref(again);
            if (ok2 == 0) {
                json_array_append(u->placed, json_array_get(hosts, 0));
                json_array_append_new(u->alone, rec);
            } else {
                u->unchecked += ok2 < 0;
                json_decref(rec);
            }
            return ok2 == 1;
        }
        json_decref(rec);
    }
    left = fc_unreached_slice(hosts, 0, half);
    right = fc_unreached_slice(hosts, half, n);
    left_ok = fc_unreached_halve(u, left, 0);
    fc_unreached_halve(u, right, left_ok);
    json_decref(left);
    json_decref(right);
    return 0;
}

/* The launcher's first words in its log (Open MPI's paragraph's first
 * line, ssh's complaint), for the record. */
static void fc_unreached_words(const char *path, char *buf, size_t len)
{
    char *text = NULL;

    buf[0] = '\0';
    if (fc_input_read(path, "stage log", FC_INPUT_DOC_MAX, &text, NULL) != FC_OK)
        return;
    for (const char *l = text; l && *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0)) {
        size_t n = strcspn(l, "\n");

        /* not the ranks' tagged lines, not the runner's own */
        if (n > 0 && strncmp(l, "-----", 5) != 0 && strstr(l, "FABCERT-") == NULL &&
            strncmp(l, "fabcert: ", 9) != 0) {
            snprintf(buf, len, "%.*s", (int)(n < 200 ? n : 200), l);
            break;
        }
    }
    free(text);
}

/* "a, b, c": the hosts of every check that started, each once */
static void fc_unreached_cleared(const fc_unreached_t *u, char *buf, size_t len)
{
    json_t *c, *h, *seen = json_array();
    size_t i, j;

    buf[0] = '\0';
    json_array_foreach(u->checks, i, c) {
        if (!json_is_true(json_object_get(c, "reached_main")))
            continue;
        json_array_foreach(json_object_get(c, "hosts"), j, h)
            if (!fc_diag_in_list(seen, json_string_value(h)))
                json_array_append(seen, h);
    }
    json_array_foreach(seen, i, h)
        if (strlen(buf) + strlen(json_string_value(h)) + 16 < len)
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? ", " : "",
                     json_string_value(h));
    json_decref(seen);
}

/* The last halving of this run that found no host reachable but the
 * launcher's own: its hosts ("a,b,c"), what it found, the stage it was
 * for, and the hosts that failed alone. */
static char fc_unreached_last_key[4096], fc_unreached_last_summary[512];
static char fc_unreached_last_stage[64];
static json_t *fc_unreached_last_failed;

/* The same hosts failed before as though the launcher's own link were
 * out: still so when two of the hosts that failed alone then still fail
 * alone (a host cut since, healthy before, is at most one of them). */
static int fc_unreached_still_cut_off(fc_unreached_t *u)
{
    int failed = 0;

    for (size_t i = 0; i < 2 && i < json_array_size(fc_unreached_last_failed); ++i) {
        json_t *one = json_pack("[O]", json_array_get(fc_unreached_last_failed, i)), *rec;

        failed += fc_unreached_check(u, one, &rec) == 0;
        json_decref(rec);
        json_decref(one);
    }
    return failed == 2;
}

static void fc_unreached_key(json_t *hosts, char *buf, size_t len)
{
    json_t *h;
    size_t i;

    buf[0] = '\0';
    json_array_foreach(hosts, i, h)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? "," : "",
                 json_string_value(h));
}

/* Did a host other than the launcher's own (where the runner, and
 * mpirun, run) start in some check? Only the launcher's host starting
 * says its own link is out as much as every other host's. The ranks'
 * start lines name their hosts as the runner names its own
 * (gethostname), whatever names the host list uses. */
static int fc_unreached_remote_started(const fc_unreached_t *u, const char *self)
{
    json_t *c, *h;
    size_t i, j;

    json_array_foreach(u->checks, i, c)
        if (json_is_true(json_object_get(c, "reached_main")))
            json_array_foreach(json_object_get(c, "started_on"), j, h)
                if (strcmp(json_string_value(h), self) != 0)
                    return 1;
    return 0;
}

/* The ranks the runner asked the launcher to put on `host`, as "2,6"
 * (empty where the launcher places them itself). */
static void fc_unreached_ranks(const fc_diag_t *d, const char *host, char *buf, size_t len)
{
    json_t *p;
    size_t r;

    buf[0] = '\0';
    json_array_foreach(d->in->placement, r, p)
        if (strcmp(json_string_value(p), host) == 0 && strlen(buf) + 24 < len)
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%zu", buf[0] ? "," : "", r);
}

void fc_diagnose_forget_unreached(void)
{
    fc_unreached_last_key[0] = '\0';
    json_decref(fc_unreached_last_failed);
    fc_unreached_last_failed = NULL;
}

int fc_diag_unreached(fc_diag_t *d, int hung, char *summary, size_t len)
{
    fc_unreached_t u = { .d = d };
    size_t nhosts = json_array_size(d->in->hosts), i;
    char words[256], cleared[1024], why[3200], ranks[256], self[256] = "", key[4096];
    int remote, placed;
    json_t *h;

    summary[0] = '\0';
    /* (a launch that failed with ranks started is read from them:
     * fc_diagnose_nostart.c; one that hung may have hung in MPI_Init,
     * every rank started, on a host it can no longer reach) */
    if (d->in->start_check == NULL || nhosts < 2 ||
        (!hung && d->in->res->started && json_array_size(d->in->res->started) > 0))
        return 0;
    /* the same hosts halved before in this run, none reachable but the
     * launcher's own: not again (a launcher broken for every stage would
     * cost each stage its checks) */
    u.checks = json_array();
    u.placed = json_array();
    u.alone = json_array();
    fc_unreached_key(d->in->hosts, key, sizeof(key));
    if (strcmp(key, fc_unreached_last_key) == 0 && fc_unreached_still_cut_off(&u)) {
        snprintf(summary, len, "; not halved again: two of the hosts that failed alone after "
                 "the %s stage, on the same hosts, still fail alone (there, %s)",
                 fc_unreached_last_stage, fc_unreached_last_summary + 2);
        json_decref(u.checks);
        json_decref(u.placed);
        json_decref(u.alone);
        return 0;
    }
    /* the stage's own launch failed on all of them: not started again */
    fc_unreached_halve(&u, d->in->hosts, 1);
    fc_unreached_words(d->in->log_path, words, sizeof(words));
    fc_unreached_cleared(&u, cleared, sizeof(cleared));
    if (d->in->launcher_host)
        snprintf(self, sizeof(self), "%s", d->in->launcher_host);
    else
        gethostname(self, sizeof(self) - 1);
    remote = fc_unreached_remote_started(&u, self);
    if (remote && json_array_size(u.placed) > 0 && json_array_size(u.placed) < nhosts) {
        json_array_foreach(u.placed, i, h) {
            json_t *c = json_array_get(u.alone, i), *rec;

            snprintf(why, sizeof(why), "the launcher could not start the stage on host %s: "
                     "its launch on %zu hosts %s, naming no rank%s%s%s; started again on "
                     "halves of the hosts, then on halves of those that failed (%zu "
                     "launches), %s alone did not reach main (the launcher %s %d after "
                     "%.1f s) while %s did: the host is down, unreachable or cannot run the "
                     "program; quarantined, the stage runs again without it (see %s and %s)",
                     json_string_value(h), nhosts, hung ? "hung before the stage began, and "
                     "a probe among them placed nobody" : "ended before any rank reached "
                     "main", words[0] ? " (\"" : "", words, words[0] ? "\")" : "",
                     json_array_size(u.checks), json_string_value(h),
                     json_is_true(json_object_get(c, "timed_out")) ? "was stopped at its "
                     "limit, status" : "ended with status",
                     (int)json_integer_value(json_object_get(c, "exit_status")),
                     json_number_value(json_object_get(c, "seconds")), cleared,
                     d->in->log_path, fc_json_str(c, "log"));
            fc_unreached_ranks(d, json_string_value(h), ranks, sizeof(ranks));
            rec = fc_diag_finding(d, "cannot_start", json_string_value(h), ranks, why, "node",
                                  1);
            json_object_set_new(rec, "exit_code",
                                json_integer(json_integer_value(json_object_get(c, "exit_status"))));
            json_object_set_new(rec, "signal", json_integer(0));
            json_object_set_new(rec, "evidence", json_pack("{s:s, s:s, s:O, s:O, s:f, s:s}",
                                "placed_by", "start_check_halving", "launcher", words,
                                "start_check", c, "checks", u.checks, "ended_after_s",
                                d->in->res->seconds, "log", d->in->log_path));
        }
    } else {
        snprintf(summary, len, "; started again on halves of the %zu hosts (%zu launches%s): "
                 "%s", nhosts, json_array_size(u.checks), u.unchecked ? ", the limit on them "
                 "reached" : "", u.started == 0 ? "no host started in any, so no host is to "
                 "blame (the program or the launcher broken everywhere)" :
                 json_array_size(u.placed) == 0 ? "every host started, the failure did not "
                 "come back" : !remote ? "only the launcher's own host started: its network, "
                 "or the launcher, is as likely at fault as every other host, so no host is "
                 "to blame" : "every host failed alone: no host is to blame");
    }
    fc_unreached_last_key[0] = '\0';
    if (summary[0] && u.started > 0 && !remote && json_array_size(u.placed) >= 2) {
        snprintf(fc_unreached_last_key, sizeof(fc_unreached_last_key), "%s", key);
        snprintf(fc_unreached_last_summary, sizeof(fc_unreached_last_summary), "%s", summary);
        snprintf(fc_unreached_last_stage, sizeof(fc_unreached_last_stage), "%s", d->in->stage);
        json_decref(fc_unreached_last_failed);
        fc_unreached_last_failed = json_deep_copy(u.placed);
    }
    placed = summary[0] == '\0' && json_array_size(u.placed) > 0;
    json_decref(u.alone);
    json_decref(u.checks);
    json_decref(u.placed);
    return placed;
}
