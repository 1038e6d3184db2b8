/*
 * fc_diagnose_stuck.c - every rank reported at the timeout, inside the
 * same call (see fc_diagnose.h). Two witnesses, each able to place the
 * fault without the other:
 *
 *   the probe: a fresh point-to-point exchange among the stage's hosts
 *   (fc_probe.h). A host cut off from the others (answering no partner,
 *   or nearly none one way or both, while every other pair talks) has a
 *   fabric that stopped forwarding (NIC, cable, switch port): part "link".
 *   the ranks' last seconds: each watchdog report says how much CPU its
 *   main thread used over the last few seconds and how many calls it
 *   completed. Ranks waiting inside MPI poll and use CPU; the ranks of a
 *   host whose processes stopped (a wedged driver, device or library) use
 *   none. When some ranks are idle (a minority of the ranks, unless
 *   they are whole hosts), the busy ones used clearly more, the hosts of
 *   the idle ranks are named, the idle ranks with them: part "node". One
 *   stopped process among a host's several (one GPU's of eight) is
 *   placed as well as a whole host.
 *
 * When neither places it the record says what each found and nobody is
 * quarantined; the stage's racks FAIL as a group.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_diagnose_int.h"
#include "fc_probe.h"
#include "fc_verdict.h"

/* One rank's share of a core over its window, or -1 if it did not say. */
static double fc_diag_cpu_frac(const fc_diag_rank_t *r)
{
    double window = json_number_value(json_object_get(r->wd, "window_s"));
    double cpu = json_number_value(json_object_get(r->wd, "cpu_s"));

    if (r->wd == NULL || window < 1.0 || cpu < 0 || json_object_get(r->wd, "cpu_s") == NULL)
        return -1.0;
    return cpu / window;
}

static int fc_diag_idle(const fc_diag_rank_t *r)
{
    double f = fc_diag_cpu_frac(r);

    return f >= 0 && f < FC_STALL_CPU_FRAC &&
           json_integer_value(json_object_get(r->wd, "done_in_window")) == 0;
}

/* Every rank's account, for the record. */
static json_t *fc_diag_accounts(const fc_diag_t *d)
{
    json_t *list = json_array();

    for (size_t k = 0; k < d->n; ++k) {
        json_t *wd = d->ranks[k].wd;

        json_array_append_new(list, json_pack("{s:i, s:s, s:f, s:f, s:I, s:I, s:I}",
            "rank", (int)k, "host", d->ranks[k].host,
            "cpu_pct", 100.0 * fc_diag_cpu_frac(&d->ranks[k]),
            "window_s", json_number_value(json_object_get(wd, "window_s")),
            "calls_entered", json_integer_value(json_object_get(wd, "calls_entered")),
            "calls_done", json_integer_value(json_object_get(wd, "calls_done")),
            "done_in_window", json_integer_value(json_object_get(wd, "done_in_window"))));
    }
    return list;
}

/* The hosts whose every rank was idle while every other rank was busy,
 * or NULL; *summary says what the accounts show either way. */
static json_t *fc_diag_stalled_hosts(const fc_diag_t *d, char *summary, size_t len)
{
    double idle_max = 0, busy_min = 1e9, busy_max = 0, window = 0;
    int nidle = 0, unknown = 0, partial = 0;
    char ranks[512] = "";
    json_t *hosts = json_array();

    for (size_t k = 0; k < d->n; ++k) {
        double f = fc_diag_cpu_frac(&d->ranks[k]);

        if (f < 0) {
            ++unknown;
            continue;
        }
        window = json_number_value(json_object_get(d->ranks[k].wd, "window_s"));
        if (fc_diag_idle(&d->ranks[k])) {
            idle_max = f > idle_max ? f : idle_max;
            snprintf(ranks + strlen(ranks), sizeof(ranks) - strlen(ranks), "%s%zu",
                     nidle++ ? "," : "", k);
        } else {
            busy_min = f < busy_min ? f : busy_min;
            busy_max = f > busy_max ? f : busy_max;
        }
    }
    if (unknown) {
        snprintf(summary, len, "%d rank(s) gave no account of their CPU", unknown);
        goto none;
    }
    if (nidle == 0) {
        snprintf(summary, len, "every rank's main thread was busy in the last %.1f s "
                 "(%.1f-%.1f%% of a core): they waited together", window, 100 * busy_min,
                 100 * busy_max);
        goto none;
    }
    if (nidle == (int)d->n) {
        snprintf(summary, len, "no rank's main thread used CPU in the last %.1f s (MPI "
                 "waits without polling here): the accounts cannot tell the ranks apart",
                 window);
        goto none;
    }
    for (size_t k = 0; k < d->n; ++k) {
        char all[256], idle[256];

        if (!fc_diag_first_of_host(d, k) ||
            fc_diag_host_ranks(d, d->ranks[k].host, fc_diag_idle, idle, sizeof(idle)) == 0)
            continue;
        partial += fc_diag_host_ranks(d, d->ranks[k].host, NULL, all, sizeof(all)) !=
                   fc_diag_host_ranks(d, d->ranks[k].host, fc_diag_idle, idle, sizeof(idle));
        json_array_append_new(hosts, json_string(d->ranks[k].host));
    }
    /* idle ranks scattered over hosts beside busy ones of the same host:
     * stopped processes are few; when most ranks are idle the library
     * may wait without polling for some of them */
    if (partial && 2 * nidle > (int)d->n) {
        snprintf(summary, len, "ranks %s were idle in the last %.1f s, more than half of "
                 "the %zu, beside busy ranks of their own hosts: not a stall of a few "
                 "processes", ranks, window, d->n);
        goto none;
    }
    if (busy_min < FC_BUSY_MIN_FRAC || busy_min < FC_BUSY_RATIO * idle_max) {
        snprintf(summary, len, "ranks %s used at most %.2f%% of a core in the last %.1f s, "
                 "the others %.2f-%.1f%%: too close to tell", ranks, 100 * idle_max, window,
                 100 * busy_min, 100 * busy_max);
        goto none;
    }
    snprintf(summary, len, "ranks %s used at most %.2f%% of a core in the last %.1f s and "
             "completed no call, while the %d other rank(s), waiting in the same call, used "
             "%.1f-%.1f%%", ranks, 100 * idle_max, window, (int)d->n - nidle,
             100 * busy_min, 100 * busy_max);
    return hosts;
none:
    json_decref(hosts);
    return NULL;
}

/* The stage's hosts, each once. */
static json_t *fc_diag_hosts(const fc_diag_t *d)
{
    json_t *hosts = json_array();

    for (size_t k = 0; k < d->n; ++k)
        if (fc_diag_first_of_host(d, k))
            json_array_append_new(hosts, json_string(d->ranks[k].host));
    return hosts;
}

/* Run the probe; the hosts it places (maybe empty) or NULL. lead says why,
 * on the runner's output (NULL: stuck, or never started). */
static json_t *fc_diag_probe(const fc_diag_t *d, json_t *hosts, json_t **probe_p,
                             char *summary, size_t len, const char *lead)
{
    char err[512] = "";

    *probe_p = NULL;
    if (d->in->probe == NULL) {
        snprintf(summary, len, "no probe on a single host");
        return NULL;
    }
    printf("  %s%s: probing the %zu host(s) point to point\n",
           lead ? lead : d->start ? "every rank is stuck in " : "the stage never started",
           lead ? "" : d->start ? d->stuck_at : "", json_array_size(hosts));
    fflush(stdout);
    *probe_p = d->in->probe(d->in->probe_arg, hosts, err, sizeof(err));
    if (*probe_p == NULL) {
        snprintf(summary, len, "the probe did not run: %s", err);
        return NULL;
    }
    return fc_probe_silent_hosts(*probe_p, summary, len);
}

static void fc_diag_stuck_evidence(json_t *rec, const fc_diag_t *d, json_t *probe,
                                   const char *psum, const char *ssum)
{
    json_object_set_new(rec, "stuck_at", json_string(d->stuck_at));
    json_object_set_new(rec, "evidence", json_pack("{s:s, s:O?, s:s, s:o}", "probe", psum,
                        "probe_answers", json_object_get(probe, "answers"), "accounts", ssum,
                        "ranks", fc_diag_accounts(d)));
}

void fc_diag_stuck(fc_diag_t *d)
{
    char psum[512], ssum[768], why[2048], ranks[256], early[256] = "", said[160];
    json_t *hosts = fc_diag_hosts(d), *probe = NULL, *h, *rec;
    json_t *by_probe = fc_diag_probe(d, hosts, &probe, psum, sizeof(psum), NULL);
    json_t *by_stall = fc_diag_stalled_hosts(d, ssum, sizeof(ssum));
    json_t *placed = json_array_size(by_probe) > 0 ? by_probe : by_stall;
    size_t i;

    if (fc_diag_host_ranks(d, NULL, fc_diag_torn_early, early, sizeof(early)) > 0)
        snprintf(ssum + strlen(ssum), sizeof(ssum) - strlen(ssum), " (ranks %s were torn "
                 "down before their own deadline came: they started later than the first "
                 "to report, and gave no account)", early);

    json_array_foreach(placed, i, h) {
        const char *host = json_string_value(h);

        /* the probe names a host; the accounts its idle ranks */
        if (placed == by_probe)
            fc_diag_host_ranks(d, host, NULL, ranks, sizeof(ranks));
        else
            fc_diag_host_ranks(d, host, fc_diag_idle, ranks, sizeof(ranks));
        if (placed == by_probe) {
            fc_probe_host_text(probe, host, said, sizeof(said));
            snprintf(why, sizeof(why), "every rank reported at the stage's %.0f s timeout, "
                     "stuck in %s; a point-to-point probe among the %zu hosts found %s "
                     "%s (%s): its fabric stopped forwarding; the ranks' own accounts: %s",
                     d->timeout_s, d->stuck_at, json_array_size(hosts), host, said, psum,
                     ssum);
        } else
            snprintf(why, sizeof(why), "every rank reported at the stage's %.0f s timeout, "
                     "stuck in %s; the process(es) of rank(s) %s on host %s stopped making "
                     "progress: %s; %s%s", d->timeout_s, d->stuck_at, ranks, host, ssum,
                     probe ? "a point-to-point probe placed no host: " : "",
                     psum);
        rec = fc_diag_finding(d, "hang", host, ranks, why,
                              placed == by_probe ? "link" : "node", 1);
        fc_diag_stuck_evidence(rec, d, probe, psum, ssum);
    }
    if (json_array_size(placed) == 0) {
        snprintf(why, sizeof(why), "the stage did not finish within %.0f s; every rank "
                 "reported%s, stuck in %s, and nothing places it: the probe: %s; the ranks' "
                 "own accounts: %s; nobody is quarantined", d->timeout_s,
                 early[0] ? " or was torn down before its own deadline" : "",
                 d->stuck_at[0] ? d->stuck_at : "(unknown)", psum, ssum);
        rec = fc_diag_finding(d, "hang", "", "", why, "cluster", 0);
        fc_diag_stuck_evidence(rec, d, probe, psum, ssum);
    }
    json_decref(by_probe);
    json_decref(by_stall);
    json_decref(probe);
    json_decref(hosts);
}

void fc_diag_never_started(fc_diag_t *d)
{
    char psum[512], why[1536], said[160];
    json_t *probe = NULL, *h, *rec;
    json_t *silent = fc_diag_probe(d, d->in->hosts, &probe, psum, sizeof(psum), NULL);
    size_t i;

    d->timeout_s = d->in->timeout_s;
    json_array_foreach(silent, i, h) {
        fc_probe_host_text(probe, json_string_value(h), said, sizeof(said));
        snprintf(why, sizeof(why), "the stage never started: its launch hung in start-up "
                 "until the runner's limit; a point-to-point probe among the %zu hosts found "
                 "%s %s (%s): its fabric stopped forwarding",
                 json_array_size(d->in->hosts), json_string_value(h), said, psum);
        /* no attempt began, so no "hang" of one: the probe's own record
         * (the quarantine that follows fails the host's rack) */
        rec = fc_diag_finding(d, "probe", json_string_value(h), "", why, "link", 1);
        json_object_set_new(rec, "evidence", json_pack("{s:s, s:O?}", "probe", psum,
                            "probe_answers", json_object_get(probe, "answers")));
    }
    json_decref(silent);
    json_decref(probe);
}

/* "rank 3 on b1 (in all_reduce float32 sum 64 KiB, peer rank 4 on c1:
 * MPI_ERR_OTHER: known error not in list)" for each rank whose MPI call
 * failed, or "rank 3 on b1 (in start-up, the control message 'the
 * profile' from rank 0 on a1: its checksum does not match...)" for each
 * rank that received a control message wrong (lib/base/fc_ctl.h), and their
 * lines for the record; *control_p: 1 when every line is of the second
 * kind. */
static json_t *fc_diag_failed_calls(const fc_diag_t *d, char *text, size_t len, char *ranks,
                                    size_t rlen, int *control_p)
{
    json_t *hosts = json_object_get(d->start, "rank_hosts"), *lines = json_array();
    size_t at = 0;
    int n = 0;

    *control_p = 1;

    text[0] = ranks[0] = '\0';
    for (size_t k = 0; k < d->n; ++k) {
        json_t *e = d->ranks[k].mpierr;
        json_int_t peer;
        char peer_text[320] = "", ctl[160] = "";

        if (e == NULL)
            continue;
        json_array_append(lines, e);
        *control_p &= json_is_string(json_object_get(e, "control"));
        snprintf(ranks + strlen(ranks), rlen - strlen(ranks), "%s%zu", n ? "," : "", k);
        if (++n > 4)
            continue;
        peer = json_integer_value(json_object_get(e, "peer"));
        if (json_is_integer(json_object_get(e, "peer")) && peer >= 0 &&
            (size_t)peer < json_array_size(hosts))
            snprintf(peer_text, sizeof(peer_text), "%s rank %lld on %s",
                     json_is_string(json_object_get(e, "control")) ? "from" : "its peer",
                     (long long)peer, json_string_value(json_array_get(hosts, (size_t)peer)));
        else
            snprintf(peer_text, sizeof(peer_text), "no peer named (a collective)");
        if (json_is_string(json_object_get(e, "control")))
            snprintf(ctl, sizeof(ctl), "the control message '%s' ", fc_json_str(e, "control"));
        at += (size_t)snprintf(text + at, at < len ? len - at : 0, "%srank %zu on %s (in %s, "
                               "%s%s: %s)", n > 1 ? "; " : "", k, d->ranks[k].host,
                               fc_json_str(e, "at"), ctl, peer_text, fc_json_str(e, "error"));
    }
    if (n > 4 && at < len)
        snprintf(text + at, len - at, "; and %d more", n - 4);
    return lines;
}

void fc_diag_mpi_failed(fc_diag_t *d)
{
    char psum[512], calls[1024], failed[256], why[2816], ranks[256], lead[300], lost[256];
    char said[160];
    char lost_text[384] = "";
    json_t *hosts = fc_diag_hosts(d), *probe = NULL, *h, *rec;
    int control;
    json_t *lines = fc_diag_failed_calls(d, calls, sizeof(calls), failed, sizeof(failed),
                                         &control);
    json_t *by_probe;
    /* a control message that arrived wrong (lib/base/fc_ctl.h): the rank that
     * received it says so; the sender, the link or the receiver changed it */
    const char *what = control ? "a control message between the ranks arrived wrong"
                               : "an MPI call failed";
    size_t i;

    lost[0] = '\0';
    snprintf(lead, sizeof(lead), "%s on rank(s) %s", what, failed);
    by_probe = fc_diag_probe(d, hosts, &probe, psum, sizeof(psum), lead);
    /* ranks that said nothing beside their host's others: their line was
     * lost as the abort ended the job (fc_diag_only_observed) */
    if (fc_diag_host_ranks(d, NULL, fc_diag_silent, lost, sizeof(lost)) > 0)
        snprintf(lost_text, sizeof(lost_text), "; rank(s) %s said nothing (their tear-down "
                 "line lost as the job ended; others of their host spoke): not blamed", lost);

    json_array_foreach(by_probe, i, h) {
        const char *host = json_string_value(h);

        fc_diag_host_ranks(d, host, NULL, ranks, sizeof(ranks));
        fc_probe_host_text(probe, host, said, sizeof(said));
        snprintf(why, sizeof(why), "%s and ended the stage after %.1f s: "
                 "%s; those ranks observed the fault, they did not cause it: a "
                 "point-to-point probe among the %zu hosts found %s %s "
                 "(%s): its fabric stopped forwarding%s", what, d->in->res->seconds, calls,
                 json_array_size(hosts), host, said, psum, lost_text);
        rec = fc_diag_finding(d, "hang", host, ranks, why, "link", 1);
        json_object_set_new(rec, "evidence", json_pack("{s:s, s:O, s:s, s:O?, s:s}", "failed_ranks",
                            failed, "mpi_errors", lines, "probe", psum, "probe_answers",
                            json_object_get(probe, "answers"), "silent_not_blamed", lost));
    }
    if (json_array_size(by_probe) == 0) {
        snprintf(why, sizeof(why), "%s and ended the stage after %.1f s: "
                 "%s; those ranks observed a fault, they did not cause it, and the probe "
                 "places none: %s%s; nobody is quarantined", what, d->in->res->seconds, calls,
                 psum, lost_text);
        rec = fc_diag_finding(d, "hang", "", "", why, "cluster", 0);
        json_object_set_new(rec, "evidence", json_pack("{s:s, s:O, s:s, s:O?, s:s}", "failed_ranks",
                            failed, "mpi_errors", lines, "probe", psum, "probe_answers",
                            json_object_get(probe, "answers"), "silent_not_blamed", lost));
    }
    json_decref(lines);
    json_decref(by_probe);
    json_decref(probe);
    json_decref(hosts);
}
