/*
 * fc_diagnose.c - see fc_diagnose.h. First each rank's account is laid
 * side by side (its watchdog report, its tear-down line, the launcher's
 * word on its end); then one of three readings applies: the timeout never
 * came (a crash), it came and some ranks were missing (a hang), or it came
 * and every rank was there (stuck: the ranks' last seconds and the probe).
 */
#include "fc_diagnose.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_diagnose_int.h"
#include "fc_exitinfo.h"
#include "fc_input.h"
#include "fc_verdict.h"
#include "fc_watchdog.h"

/* The number (1-based) of the log's first watchdog line; 0 if none. */
static int fc_diag_first_watchdog_line(const char *log)
{
    const char *tag = log ? strstr(log, FC_WATCHDOG_TAG) : NULL;
    int lineno = 1;

    if (tag == NULL)
        return 0;
    for (const char *p = log; p < tag; ++p)
        lineno += *p == '\n';
    return lineno;
}

/* Each rank's account. Returns 0 when the stage never started. */
static int fc_diag_load(fc_diag_t *d)
{
    const fc_launch_result_t *res = d->in->res;
    json_t *rec, *w, *hosts;
    size_t i;
    char *log = NULL;
    int first_wd;

    json_array_foreach(d->in->recs, i, rec)
        if (strcmp(fc_json_str(rec, "type"), "stage_start") == 0)
            d->start = rec;
    if (d->start == NULL)
        return 0;
    hosts = json_object_get(d->start, "rank_hosts");
    d->timeout_s = json_real_value(json_object_get(d->start, "timeout_s"));
    d->n = json_array_size(hosts);
    d->ranks = fc_xcalloc(d->n + 1, sizeof(*d->ranks), "the diagnosed ranks");
    for (i = 0; i < d->n; ++i)
        d->ranks[i].host = json_string_value(json_array_get(hosts, i));
    json_array_foreach(res->watchdog, i, w) {
        json_int_t r = json_integer_value(json_object_get(w, "rank"));

        if (r < 0 || (size_t)r >= d->n)
            continue;
        if (json_real_value(json_object_get(w, "late_s")) <= FC_LATE_REPORT_S) {
            d->ranks[r].wd = w;
            d->timeout_came = 1;
            d->stuck_at = fc_json_str(w, "at");
        } else {
            d->ranks[r].late = w;
        }
    }
    json_array_foreach(res->down, i, w) {
        json_int_t r = json_integer_value(json_object_get(w, "rank"));

        if (r >= 0 && (size_t)r < d->n)
            d->ranks[r].down = w;
    }
    json_array_foreach(res->mpierr, i, w) {
        json_int_t r = json_integer_value(json_object_get(w, "rank"));

        if (r >= 0 && (size_t)r < d->n && d->ranks[r].mpierr == NULL)
            d->ranks[r].mpierr = w;
    }
    fc_input_read(d->in->log_path, "stage log", FC_INPUT_DOC_MAX, &log, NULL);
    d->notes = fc_exitinfo_parse(log);
    first_wd = fc_diag_first_watchdog_line(log);
    free(log);
    /* a rank the launcher saw end after the watchdogs fired, or after it
     * aborted the step, was ended by the tear-down (srun kills a stopped
     * task with SIGKILL): that is no crash */
    json_array_foreach(d->notes, i, w) {
        json_int_t r = json_integer_value(json_object_get(w, "rank"));
        const char *kind = fc_json_str(w, "kind"), *host = fc_json_str(w, "host");

        /* a host the launcher lost before its tear-down began (after it, a
         * daemon lost as the job ends says nothing of why it ended); a
         * peer's host, each once */
        if (r < 0 && fc_diag_has_host(d, host) && strcmp(kind, "host_lost") == 0 &&
            !(first_wd > 0 && json_integer_value(json_object_get(w, "line")) > first_wd) &&
            fc_diag_lost_note(d, host) == NULL)
            json_array_append(d->lost, w);
        if (r < 0 && fc_diag_has_host(d, host) && strcmp(kind, "peer_host") == 0 &&
            !fc_diag_in_list(d->peer_hosts, host))
            json_array_append_new(d->peer_hosts, json_string(host));
        /* a rank whose MPI call failed ended the job itself (MPI_Abort):
         * the launcher's word on it is no death */
        if (r < 0 || (size_t)r >= d->n || d->ranks[r].note || d->ranks[r].ended_by_launcher ||
            d->ranks[r].mpierr)
            continue;
        if (json_is_true(json_object_get(w, "after_abort")) ||
            (first_wd > 0 && json_integer_value(json_object_get(w, "line")) > first_wd))
            d->ranks[r].ended_by_launcher = 1;
        else
            d->ranks[r].note = w;
    }
    return 1;
}

int fc_diag_has_host(const fc_diag_t *d, const char *host)
{
    for (size_t k = 0; k < d->n; ++k)
        if (d->ranks[k].host && strcmp(d->ranks[k].host, host) == 0)
            return 1;
    return 0;
}

/* Some rank's MPI call failed, and no rank is left to blame of itself:
 * after the timeout none is missing; after an early end none is dead (a
 * silent rank the launcher names, or a host whose every rank is silent;
 * a silent rank beside others of its host that spoke lost its line as
 * the abort ended the job). Then the ranks that failed observed the
 * fault. */
static int fc_diag_only_observed(const fc_diag_t *d)
{
    int failed = 0, other = 0;
    char list[256], all[256];

    for (size_t k = 0; k < d->n; ++k) {
        const fc_diag_rank_t *r = &d->ranks[k];

        failed += r->mpierr != NULL;
        if (d->timeout_came)
            other += r->wd == NULL && r->mpierr == NULL && !fc_diag_torn_early(r);
        else
            other += (fc_diag_silent(r) && r->note != NULL) ||
                     (fc_diag_first_of_host(d, k) &&
                      fc_diag_host_ranks(d, r->host, fc_diag_silent, list, sizeof(list)) ==
                          fc_diag_host_ranks(d, r->host, NULL, all, sizeof(all)));
    }
    return failed > 0 && other == 0;
}

/* A rank's watchdog report (in time or late), or NULL. */
static json_t *fc_diag_any_wd(const fc_diag_rank_t *r)
{
    return r->wd ? r->wd : r->late;
}

/* Did the rank's watchdog fire before its timeout could have come? It
 * counts from the stage's start, inside the launch; the runner's own
 * clock says how long the whole launch lasted. A report that claims the
 * timeout passed in a launch shorter than it came from a clock that
 * jumped (a node's clocksource), not from a stage that hung. */
static int fc_diag_fired_early(const fc_diag_t *d, const fc_diag_rank_t *r)
{
    json_t *w = fc_diag_any_wd(r);

    return w != NULL && d->in->res->seconds + FC_EARLY_MARGIN_S <
                            json_number_value(json_object_get(w, "timeout_s"));
}

static const fc_diag_t *fc_diag_early_d;

static int fc_diag_early_rank(const fc_diag_rank_t *r)
{
    return fc_diag_fired_early(fc_diag_early_d, r);
}

/* Name each host whose watchdogs fired early; quarantine it when it is
 * the only one (two clocks jumping at once is more likely the runner's
 * own fault: recorded, nobody quarantined). 1 when there was one. */
static int fc_diag_early(fc_diag_t *d)
{
    int hosts = 0;
    char ranks[256], why[1536];

    fc_diag_early_d = d;
    for (size_t k = 0; k < d->n; ++k)
        hosts += fc_diag_first_of_host(d, k) &&
                 fc_diag_host_ranks(d, d->ranks[k].host, fc_diag_early_rank, ranks,
                                    sizeof(ranks)) > 0;
    for (size_t k = 0; k < d->n && hosts > 0; ++k) {
        json_t *w, *rec;

        if (!fc_diag_first_of_host(d, k) ||
            fc_diag_host_ranks(d, d->ranks[k].host, fc_diag_early_rank, ranks,
                               sizeof(ranks)) == 0)
            continue;
        w = NULL;
        for (size_t j = k; j < d->n && w == NULL; ++j)
            if (strcmp(d->ranks[j].host, d->ranks[k].host) == 0 &&
                fc_diag_fired_early(d, &d->ranks[j]))
                w = fc_diag_any_wd(&d->ranks[j]);
        snprintf(why, sizeof(why), "the watchdog(s) of rank(s) %s on host %s fired early: "
                 "they reported the stage's %.0f s timeout passed (%.1f s late, a CPU window "
                 "of %.1f s), but the whole launch lasted %.1f s by the runner's clock: that "
                 "host's clock jumped, and its ranks ended the stage; the other ranks were "
                 "torn down after it%s", ranks, d->ranks[k].host,
                 json_number_value(json_object_get(w, "timeout_s")),
                 json_number_value(json_object_get(w, "late_s")),
                 json_number_value(json_object_get(w, "window_s")), d->in->res->seconds,
                 hosts > 1 ? "; more than one host's watchdogs fired early, so nobody is "
                 "quarantined" : "");
        rec = fc_diag_finding(d, "hang", d->ranks[k].host, ranks, why, "node", hosts == 1);
        json_object_set_new(rec, "evidence", json_pack("{s:O, s:f, s:s}", "watchdog", w,
                            "launch_s", d->in->res->seconds, "log", d->in->log_path));
    }
    return hosts > 0;
}

json_t *fc_diagnose_unfinished(const fc_diag_in_t *in)
{
    fc_diag_t d;
    int started;

    memset(&d, 0, sizeof(d));
    d.in = in;
    d.out = json_array();
    d.lost = json_array();
    d.peer_hosts = json_array();
    d.stuck_at = "";
    started = fc_diag_load(&d);
    if (!started)
        d.timeout_s = in->timeout_s;
    if (!started && fc_diag_cannot_start(&d)) {
        /* named there: a host where the program could not start */
    } else if (!started) {
        char why[PATH_MAX + 1536], halved[512] = "";
        json_t *r;

        json_t *e = json_array_get(in->res->mpierr, 0);
        int control = json_is_string(json_object_get(e, "control"));

        /* no rank reached main, none named: a host the launcher cannot
         * reach, found by halving (fc_diagnose_unreached.c) */
        if (!control && !in->res->timed_out && fc_diag_unreached(&d, 0, halved, sizeof(halved)))
            goto done;
        if (control)
            /* a rank ended the start-up on a control message that arrived
             * wrong (lib/base/fc_ctl.h): before the stage's first record, so no
             * attempt began for a record of it to belong to */
            snprintf(why, sizeof(why), "the stage never began: rank %lld on %s received "
                     "the control message '%s' from rank %lld wrong in its start-up (%s) "
                     "and ended the launch after %.1f s; the sender, the link or that rank "
                     "changed it (see %s)", json_integer_value(json_object_get(e, "rank")),
                     fc_json_str(e, "host"), fc_json_str(e, "control"),
                     json_integer_value(json_object_get(e, "peer")), fc_json_str(e, "error"),
                     in->res->seconds, in->log_path);
        else
            snprintf(why, sizeof(why), "the launcher %s before the stage started (see %s)%s",
                     in->res->timed_out ? "hung" : "failed", in->log_path, halved);
        r = json_pack("{s:s, s:s, s:i}", "type", "stage_error", "reason", why,
                      "exit_status", in->res->exit_status);
        json_array_append_new(d.out, r);
        if (in->res->timed_out) {
            fc_diag_never_started(&d);
            /* the probe placed nobody (it could not be launched either):
             * halving, as above */
            if (json_array_size(d.out) == 1 &&
                fc_diag_unreached(&d, 1, halved, sizeof(halved)) == 0 && halved[0])
                json_object_set_new(r, "reason", json_sprintf("%s%s", why, halved));
        }
    } else if (fc_diag_early(&d)) {
        /* a clock that jumped: named above */
    } else if (fc_diag_only_observed(&d)) {
        fc_diag_mpi_failed(&d);
    } else if (!d.timeout_came) {
        fc_diag_crashes(&d);
    } else if (!fc_diag_not_arrived(&d)) {
        fc_diag_stuck(&d);
    }
done:
    free(d.ranks);
    json_decref(d.notes);
    json_decref(d.lost);
    json_decref(d.peer_hosts);
    return d.out;
}
