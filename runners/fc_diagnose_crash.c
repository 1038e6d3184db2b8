/*
 * fc_diagnose_crash.c - ranks that died, told apart from ranks that hung
 * (see fc_diagnose.h). A rank that the launcher tears down says so (its
 * FABCERT-DOWN line); one that died cannot. So after an early end the
 * silent ranks are the dead ones, confirmed by the launcher's notice
 * (Open MPI names the first rank that died, srun each) or, without one, by
 * every rank of their host being silent while every other host spoke.
 * A host that goes as a whole is named by the launcher (Open MPI lost its
 * daemon there, Slurm declared the node failed) or, when it was shut
 * down, by ranks that wrote their tear-down line although the launcher
 * did not end them (it reports them ended by SIGTERM before its own
 * tear-down began). After the timeout, the ranks that did not report in
 * time either died (the launcher says so) or hung.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "fc_diagnose_int.h"
#include "fc_verdict.h"

static int fc_diag_torn_down(const fc_diag_rank_t *r)
{
    return (r->down != NULL || r->ended_by_launcher) && r->wd == NULL && r->late == NULL;
}

static int fc_diag_silent_named(const fc_diag_rank_t *r)
{
    return fc_diag_silent(r) && r->note != NULL;
}

static int fc_diag_silent_unnamed(const fc_diag_rank_t *r)
{
    return fc_diag_silent(r) && r->note == NULL;
}

/* Did not report in time: no watchdog report by its deadline, and no
 * tear-down line that came before its own deadline (fc_diag_torn_early). */
static int fc_diag_missing(const fc_diag_rank_t *r)
{
    return r->wd == NULL && !fc_diag_torn_early(r) && r->mpierr == NULL;
}

/* Wrote its tear-down line (SIGTERM), and the launcher reports it ended
 * by that signal before the launcher's own tear-down began: Open MPI
 * names no rank it ended itself, srun names those after it aborted the
 * step. Someone else sent the SIGTERM: a node shutting down, an
 * operator. */
static int fc_diag_ended_outside(const fc_diag_rank_t *r)
{
    return r->down != NULL && r->note != NULL && r->wd == NULL && r->late == NULL &&
           json_integer_value(json_object_get(r->note, "signal")) ==
               json_integer_value(json_object_get(r->down, "signal"));
}

/* The hosts whose every rank said nothing (the launcher naming none of
 * them), in *first_p the first of them. */
static int fc_diag_wholly_silent(const fc_diag_t *d, const char **first_p)
{
    char list[256], all[256];
    int n = 0;

    *first_p = NULL;
    for (size_t k = 0; k < d->n; ++k)
        if (fc_diag_first_of_host(d, k) &&
            fc_diag_host_ranks(d, d->ranks[k].host, fc_diag_silent_unnamed, list,
                               sizeof(list)) ==
                fc_diag_host_ranks(d, d->ranks[k].host, NULL, all, sizeof(all))) {
            if (n++ == 0)
                *first_p = d->ranks[k].host;
        }
    return n;
}

/* The launcher's notes on the silent ranks of `host`, and the first. */
static json_t *fc_diag_host_notes(const fc_diag_t *d, const char *host, json_t **first_p)
{
    json_t *texts = json_array();

    *first_p = NULL;
    for (size_t k = 0; k < d->n; ++k)
        if (strcmp(d->ranks[k].host, host) == 0 && fc_diag_silent_named(&d->ranks[k])) {
            if (*first_p == NULL)
                *first_p = d->ranks[k].note;
            json_array_append_new(texts, json_string(fc_json_str(d->ranks[k].note, "text")));
        }
    return texts;
}

/* Where the torn-down ranks were, e.g. " in all_reduce float32 sum 4 KiB". */
static const char *fc_diag_torn_at(const fc_diag_t *d)
{
    for (size_t k = 0; k < d->n; ++k)
        if (d->ranks[k].down)
            return fc_json_str(d->ranks[k].down, "at");
    return "";
}

static void fc_diag_crash_fields(json_t *rec, json_t *note, json_t *texts, int torn,
                                 const fc_diag_t *d)
{
    json_object_set_new(rec, "signal", json_integer(note ? json_integer_value(json_object_get(note, "signal")) : 0));
    json_object_set_new(rec, "exit_code", json_integer(note ? json_integer_value(json_object_get(note, "exit_code")) : 0));
    json_object_set_new(rec, "oom", json_boolean(note && json_is_true(json_object_get(note, "oom"))));
    json_object_set_new(rec, "evidence", json_pack("{s:o, s:i, s:i, s:f, s:b, s:s, s:s}",
        "launcher", texts, "torn_down_ranks", torn, "ranks_in_stage", (int)d->n,
        "ended_after_s", d->in->res->seconds, "timeout_came", d->timeout_came,
        "at", fc_diag_torn_at(d), "log", d->in->log_path));
}

/* One host with silent ranks after an early end; `lost`: silent ranks of
 * other hosts, not blamed beside a confirmed death (see fc_diag_crashes). */
static void fc_diag_crash_host(fc_diag_t *d, const char *host, int torn, const char *lost)
{
    char silent[256], named[256], why[1536], how[96] = "";
    json_t *note, *texts = fc_diag_host_notes(d, host, &note), *rec;
    int nsilent = fc_diag_host_ranks(d, host, fc_diag_silent, silent, sizeof(silent));
    int nall = fc_diag_host_ranks(d, host, NULL, named, sizeof(named));
    int nnamed = fc_diag_host_ranks(d, host, fc_diag_silent_named, named, sizeof(named));
    const char *only;
    /* the one host whose every rank is silent while every other host
     * spoke (a rank silent beside others of its host that spoke lost its
     * line as the job ended) */
    int whole = nsilent == nall && fc_diag_wholly_silent(d, &only) == 1;
    char ended[160];

    snprintf(ended, sizeof(ended), "the launch ended after %.1f s, before any rank's "
             "watchdog fired (the stage's timeout is %.0f s)", d->in->res->seconds,
             d->timeout_s);
    if (note)
        fc_diag_note_text(note, how, sizeof(how));
    if (nnamed > 0)
        snprintf(why, sizeof(why), "rank%s %s on host %s died: the launcher reports rank%s "
                 "%s %s%s; %d other rank(s) were torn down (their own word or the launcher's)%s%s; %s",
                 nsilent > 1 ? "s" : "", silent, host, nnamed > 1 ? "s" : "", named, how,
                 nsilent > nnamed ? ", and the host's other ranks said nothing either" : "",
                 torn, fc_diag_torn_at(d)[0] ? " in " : "", fc_diag_torn_at(d), ended);
    else if (whole)
        snprintf(why, sizeof(why), "rank%s %s on host %s died: every rank of the host ended "
                 "without a word (no watchdog report, no tear-down line), the only host so, "
                 "while %d rank(s) of the others were torn down (their own word or the "
                 "launcher's)%s%s; the launcher named no rank "
                 "(see %s); %s", nsilent > 1 ? "s" : "", silent, host, torn,
                 fc_diag_torn_at(d)[0] ? " in " : "", fc_diag_torn_at(d), d->in->log_path,
                 ended);
    else
        snprintf(why, sizeof(why), "rank%s %s on host %s ended without a word, but the "
                 "launcher named no dead rank on it and other ranks were silent too: not "
                 "placed, nobody quarantined (see %s); %s", nsilent > 1 ? "s" : "", silent,
                 host, d->in->log_path, ended);
    rec = fc_diag_finding(d, "crash", host, silent, why, nnamed > 0 || whole ? "node" : "cluster",
                          nnamed > 0 || whole);
    if (nnamed == 0 && !whole)
        json_object_set_new(rec, "implicates", json_pack("{s:s, s:s, s:s, s:b}", "part",
                            "cluster", "host", "", "rack", "", "quarantine", 0));
    fc_diag_crash_fields(rec, note, texts, torn, d);
    if (lost[0]) {
        snprintf(why + strlen(why), sizeof(why) - strlen(why), "; rank(s) %s of other hosts "
                 "sent no word either, but the launcher named none of them (their tear-down "
                 "lines may have been lost; Open MPI names only the first rank that died): "
                 "not blamed", lost);
        json_array_set_new(json_object_get(rec, "reasons"), 0, json_string(why));
        json_object_set_new(json_object_get(rec, "evidence"), "silent_not_blamed",
                            json_string(lost));
    }
}

/* The silent ranks of hosts the launcher names no dead rank on. */
static void fc_diag_unnamed_hosts(const fc_diag_t *d, char *lost, size_t len)
{
    char list[256], named[256];

    lost[0] = '\0';
    for (size_t k = 0; k < d->n; ++k)
        if (fc_diag_first_of_host(d, k) &&
            fc_diag_host_ranks(d, d->ranks[k].host, fc_diag_silent_named, named, sizeof(named)) == 0 &&
            fc_diag_host_ranks(d, d->ranks[k].host, fc_diag_silent, list, sizeof(list)) > 0)
            snprintf(lost + strlen(lost), len - strlen(lost), "%s%s", lost[0] ? "," : "", list);
}

/* The hosts the evidence names gone as a whole: the launcher lost them,
 * or their ranks were ended from outside it. */
static json_t *fc_diag_gone_hosts(const fc_diag_t *d)
{
    json_t *hosts = json_array(), *w;
    size_t i;
    char list[256];

    json_array_foreach(d->lost, i, w)
        json_array_append_new(hosts, json_string(fc_json_str(w, "host")));
    for (size_t k = 0; k < d->n; ++k)
        if (fc_diag_first_of_host(d, k) && fc_diag_lost_note(d, d->ranks[k].host) == NULL &&
            fc_diag_host_ranks(d, d->ranks[k].host, fc_diag_ended_outside, list,
                               sizeof(list)) > 0)
            json_array_append_new(hosts, json_string(d->ranks[k].host));
    return hosts;
}

/* The weak witnesses, for the record and its text: the hosts Open MPI
 * named as a disconnected peer, and the host whose ranks' tear-down lines
 * came first by their own deadlines (before_deadline_ms: the smallest of
 * the host's lines, against the largest of every other host's). Neither
 * places a host alone: the launcher tears its own host's ranks down
 * first, so after any death both point there; and a host whose ranks
 * started late looks early by as much. */
/* The smallest and largest before_deadline_ms of host's tear-down lines;
 * 0 when it has none. */
static int fc_diag_down_range(const fc_diag_t *d, const char *host, long long *lo_p,
                              long long *hi_p)
{
    int n = 0;

    for (size_t j = 0; j < d->n; ++j) {
        long long ms;

        if (strcmp(d->ranks[j].host, host) != 0 || d->ranks[j].down == NULL)
            continue;
        ms = json_integer_value(json_object_get(d->ranks[j].down, "before_deadline_ms"));
        *lo_p = n == 0 || ms < *lo_p ? ms : *lo_p;
        *hi_p = n == 0 || ms > *hi_p ? ms : *hi_p;
        ++n;
    }
    return n;
}

static json_t *fc_diag_weak(const fc_diag_t *d, char *text, size_t len)
{
    const char *top = NULL;
    long long best = 0, next = 0, lo, hi;
    int have_next = 0;

    for (size_t k = 0; k < d->n; ++k)
        if (fc_diag_first_of_host(d, k) && fc_diag_down_range(d, d->ranks[k].host, &lo, &hi) &&
            (top == NULL || lo > best)) {
            top = d->ranks[k].host;
            best = lo;
        }
    for (size_t k = 0; k < d->n && top; ++k)
        if (fc_diag_first_of_host(d, k) && strcmp(d->ranks[k].host, top) != 0 &&
            fc_diag_down_range(d, d->ranks[k].host, &lo, &hi) && (!have_next || hi > next)) {
            next = hi;
            have_next = 1;
        }
    if (!have_next || best <= next)
        top = NULL;
    text[0] = '\0';
    if (json_array_size(d->peer_hosts) > 0) {
        json_t *h;
        size_t i;

        snprintf(text, len, "Open MPI named ");
        json_array_foreach(d->peer_hosts, i, h)
            snprintf(text + strlen(text), len - strlen(text), "%s%s", i ? ", " : "",
                     json_string_value(h));
        snprintf(text + strlen(text), len - strlen(text), " as a disconnected peer");
    }
    if (top)
        snprintf(text + strlen(text), len - strlen(text), "%s%s's ranks' tear-down lines came "
                 "first, %.1f s ahead of the next host's by their own deadlines",
                 text[0] ? "; " : "", top, (double)(best - next) / 1000.0);
    return json_pack("{s:O, s:s?, s:f}", "peer_hosts", d->peer_hosts, "first_torn_down", top,
                     "lead_s", top ? (double)(best - next) / 1000.0 : 0.0);
}

/* The one host the evidence names gone: it died, or was shut down.
 * Every rank of it is named; silent ranks of other hosts lost their
 * lines as the job ended, and are not blamed. */
static void fc_diag_host_gone(fc_diag_t *d, const char *host)
{
    json_t *lost = fc_diag_lost_note(d, host), *note = NULL, *texts = json_array(), *rec, *weak;
    char ranks[256], outside[256], silent[256], others[512] = "", weak_text[512], how[96] = "";
    char why[2560], ended[200];
    int nout = fc_diag_host_ranks(d, host, fc_diag_ended_outside, outside, sizeof(outside));
    int torn = 0;

    for (size_t k = 0; k < d->n; ++k)
        torn += strcmp(d->ranks[k].host, host) != 0 && fc_diag_torn_down(&d->ranks[k]);
    fc_diag_host_ranks(d, host, NULL, ranks, sizeof(ranks));
    fc_diag_host_ranks(d, host, fc_diag_silent, silent, sizeof(silent));
    for (size_t k = 0; k < d->n; ++k)
        if (strcmp(d->ranks[k].host, host) != 0 && fc_diag_silent(&d->ranks[k]))
            snprintf(others + strlen(others), sizeof(others) - strlen(others), "%s%zu",
                     others[0] ? "," : "", k);
    for (size_t k = 0; k < d->n && note == NULL; ++k)
        if (strcmp(d->ranks[k].host, host) == 0 && fc_diag_ended_outside(&d->ranks[k]))
            note = d->ranks[k].note;
    weak = fc_diag_weak(d, weak_text, sizeof(weak_text));
    snprintf(ended, sizeof(ended), "the launch ended after %.1f s, before any rank's watchdog "
             "fired (the stage's timeout is %.0f s)", d->in->res->seconds, d->timeout_s);
    if (lost) {
        json_array_append_new(texts, json_string(fc_json_str(lost, "text")));
        snprintf(why, sizeof(why), "host %s died (or its launcher daemon did): the launcher "
                 "lost it (\"%s\"); its rank(s) %s%s%s; %d rank(s) of the others were torn "
                 "down (their own word or the launcher's)%s%s; %s", host,
                 fc_json_str(lost, "text"), ranks, silent[0] ? " said nothing" : " were ended",
                 nout ? " (ended by SIGTERM from outside the launcher)" : "", torn,
                 fc_diag_torn_at(d)[0] ? " in " : "", fc_diag_torn_at(d), ended);
    } else {
        json_array_append_new(texts, json_string(fc_json_str(note, "text")));
        fc_diag_note_text(note, how, sizeof(how));
        char downs[256];

        fc_diag_host_ranks(d, host, fc_diag_torn_down, downs, sizeof(downs));
        snprintf(why, sizeof(why), "rank(s) %s on host %s were ended from outside the "
                 "launcher (a node shutting down, an operator's kill): rank(s) %s wrote their "
                 "tear-down line (SIGTERM) and the launcher reports rank %lld %s before its own "
                 "tear-down began (it names no rank it ended itself); %d rank(s) of the others "
                 "were torn down after%s%s; %s", ranks, host, downs,
                 (long long)json_integer_value(json_object_get(note, "rank")), how, torn,
                 fc_diag_torn_at(d)[0] ? " in " : "", fc_diag_torn_at(d), ended);
    }
    if (weak_text[0])
        snprintf(why + strlen(why), sizeof(why) - strlen(why), " (%s)", weak_text);
    if (others[0])
        snprintf(why + strlen(why), sizeof(why) - strlen(why), "; rank(s) %s of other hosts "
                 "sent no word either (their lines lost as the job ended): not blamed", others);
    rec = fc_diag_finding(d, "crash", host, ranks, why, "node", 1);
    fc_diag_crash_fields(rec, lost ? NULL : note, texts, torn, d);
    json_object_set_new(json_object_get(rec, "evidence"), "host_lost", json_boolean(lost != NULL));
    json_object_set_new(json_object_get(rec, "evidence"), "ended_outside", json_string(outside));
    json_object_set_new(json_object_get(rec, "evidence"), "silent_not_blamed", json_string(others));
    json_object_set_new(json_object_get(rec, "evidence"), "weak", weak);
}

/* The evidence names several hosts gone: not placed on one. */
static void fc_diag_hosts_gone(fc_diag_t *d, json_t *gone)
{
    char list[512] = "", why[1536], weak_text[512];
    json_t *h, *rec, *weak = fc_diag_weak(d, weak_text, sizeof(weak_text));
    size_t i;

    json_array_foreach(gone, i, h)
        snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
                 json_string_value(h));
    snprintf(why, sizeof(why), "the launcher lost, or saw ended from outside it, more than one "
             "host (%s) after %.1f s, before any rank's watchdog fired (timeout %.0f s): not "
             "placed on one host, nobody quarantined (see %s)%s%s", list,
             d->in->res->seconds, d->timeout_s, d->in->log_path, weak_text[0] ? "; " : "",
             weak_text);
    rec = fc_diag_finding(d, "crash", "", "", why, "cluster", 0);
    json_object_set_new(rec, "evidence", json_pack("{s:O, s:o, s:s}", "hosts", gone, "weak",
                        weak, "log", d->in->log_path));
}

void fc_diag_crashes(fc_diag_t *d)
{
    int torn = 0, silent = 0, hosts = 0, confirmed = 0;
    char why[1536], lost[512] = "", weak_text[512];
    const char *whole;
    json_t *gone;

    for (size_t k = 0; k < d->n; ++k) {
        torn += fc_diag_torn_down(&d->ranks[k]);
        silent += fc_diag_silent(&d->ranks[k]);
    }
    if (silent == (int)d->n) {
        snprintf(why, sizeof(why), "the launch ended after %.1f s, before any rank's watchdog "
                 "fired (timeout %.0f s), and no rank said anything (no watchdog report, no tear-down line): the "
                 "launcher or the whole job failed (exit status %d, see %s); no host is to "
                 "blame", d->in->res->seconds, d->timeout_s, d->in->res->exit_status,
                 d->in->log_path);
        fc_diag_finding(d, "hang", "", "", why, "cluster", 0);
        return;
    }
    /* Beside a death the launcher confirms, the silence of ranks it does
     * not name is most likely a tear-down line lost on the way (the
     * launcher stops forwarding as it ends the job): mentioned, not
     * blamed. A second death among them shows up in the re-run. */
    for (size_t k = 0; k < d->n; ++k)
        confirmed += fc_diag_silent_named(&d->ranks[k]);
    /* Else a host that went as a whole, named by the launcher: placed
     * when the evidence names one host */
    gone = fc_diag_gone_hosts(d);
    if (!confirmed && json_array_size(gone) > 0) {
        if (json_array_size(gone) == 1)
            fc_diag_host_gone(d, json_string_value(json_array_get(gone, 0)));
        else
            fc_diag_hosts_gone(d, gone);
        json_decref(gone);
        return;
    }
    json_decref(gone);
    if (confirmed)
        fc_diag_unnamed_hosts(d, lost, sizeof(lost));
    else if (fc_diag_wholly_silent(d, &whole) == 1) {
        /* the one host all silent: the others' silent ranks lost their
         * lines */
        for (size_t k = 0; k < d->n; ++k)
            if (strcmp(d->ranks[k].host, whole) != 0 && fc_diag_silent(&d->ranks[k]))
                snprintf(lost + strlen(lost), sizeof(lost) - strlen(lost), "%s%zu",
                         lost[0] ? "," : "", k);
        fc_diag_crash_host(d, whole, torn, lost);
        return;
    }
    for (size_t k = 0; k < d->n; ++k) {
        char list[256];

        if (!fc_diag_first_of_host(d, k) ||
            fc_diag_host_ranks(d, d->ranks[k].host, fc_diag_silent, list, sizeof(list)) == 0 ||
            (confirmed && fc_diag_host_ranks(d, d->ranks[k].host, fc_diag_silent_named, list,
                                             sizeof(list)) == 0))
            continue;
        fc_diag_crash_host(d, d->ranks[k].host, torn, lost);
        ++hosts;
    }
    if (hosts == 0) {
        json_t *rec, *weak = fc_diag_weak(d, weak_text, sizeof(weak_text));

        snprintf(why, sizeof(why), "the launcher ended the stage after %.1f s, before any "
                 "rank's watchdog fired (timeout %.0f s; exit status %d), and every rank reported being torn down%s%s:"
                 " no rank died or hung alone, and the launcher named no host it lost (see "
                 "%s)%s%s%s", d->in->res->seconds, d->timeout_s,
                 d->in->res->exit_status, fc_diag_torn_at(d)[0] ? " in " : "",
                 fc_diag_torn_at(d), d->in->log_path, weak_text[0] ? "; " : "", weak_text,
                 weak_text[0] ? ", which alone places nobody (the launcher's own host is torn "
                 "down first after any death)" : "");
        rec = fc_diag_finding(d, "hang", "", "", why, "cluster", 0);
        json_object_set_new(rec, "evidence", json_pack("{s:o}", "weak", weak));
    }
}

int fc_diag_not_arrived(fc_diag_t *d)
{
    int named = 0;

    for (size_t k = 0; k < d->n; ++k) {
        const char *host = d->ranks[k].host;
        char ranks[256], dead[256], why[1536], how[96] = "";
        int n, ndead;
        json_t *note, *texts, *rec;

        if (!fc_diag_first_of_host(d, k) ||
            (n = fc_diag_host_ranks(d, host, fc_diag_missing, ranks, sizeof(ranks))) == 0)
            continue;
        ++named;
        ndead = fc_diag_host_ranks(d, host, fc_diag_silent_named, dead, sizeof(dead));
        if (ndead == 0) {
            char early[256], also[384] = "";

            if (fc_diag_host_ranks(d, NULL, fc_diag_torn_early, early, sizeof(early)) > 0)
                snprintf(also, sizeof(also), "; ranks %s were torn down before their own "
                         "deadline came (they started later) and are not counted", early);
            snprintf(why, sizeof(why), "rank%s %s on host %s did not arrive: no report by "
                     "the stage's %.0f s timeout%s%s%s%s", n > 1 ? "s" : "", ranks, host,
                     d->timeout_s, d->stuck_at[0] ? " (the others were in " : "",
                     d->stuck_at, d->stuck_at[0] ? ")" : "", also);
            rec = fc_diag_finding(d, "hang", host, ranks, why, "node", 1);
            json_object_set_new(rec, "stuck_at", json_string(d->stuck_at));
            continue;
        }
        texts = fc_diag_host_notes(d, host, &note);
        fc_diag_note_text(note, how, sizeof(how));
        snprintf(why, sizeof(why), "rank%s %s on host %s died, not hung: the launcher "
                 "reports rank%s %s %s; the others waited for it until the stage's %.0f s "
                 "timeout%s%s%s", n > 1 ? "s" : "", ranks, host, ndead > 1 ? "s" : "", dead,
                 how, d->timeout_s, d->stuck_at[0] ? " (in " : "", d->stuck_at,
                 d->stuck_at[0] ? ")" : "");
        rec = fc_diag_finding(d, "crash", host, ranks, why, "node", 1);
        fc_diag_crash_fields(rec, note, texts, 0, d);
    }
    return named;
}
