/*
 * fc_diagnose_crash.c - ranks that died, told apart from ranks that hung
 * (see fc_diagnose.h). A rank that the launcher tears down says so (its
 * FABCERT-DOWN line); one that died cannot. So after an early end the
 * silent ranks are the dead ones, confirmed by the launcher's notice
 * (Open MPI names the first rank that died, srun each) or, without one, by
 * every rank of their host being silent while every other rank spoke.
 * After the timeout, the ranks that did not report in time either died
 * (the launcher says so) or hung.
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

/* Silent ranks that the launcher does not name, off `host`. */
static int fc_diag_unnamed_elsewhere(const fc_diag_t *d, const char *host)
{
    int n = 0;

    for (size_t k = 0; k < d->n; ++k)
        n += strcmp(d->ranks[k].host, host) != 0 && fc_diag_silent_unnamed(&d->ranks[k]);
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
    int whole = nsilent == nall && fc_diag_unnamed_elsewhere(d, host) == 0;
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
                 "without a word (no watchdog report, no tear-down line) while the %d other "
                 "rank(s) were torn down (their own word or the launcher's)%s%s; the launcher named no rank "
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

void fc_diag_crashes(fc_diag_t *d)
{
    int torn = 0, silent = 0, hosts = 0, confirmed = 0;
    char why[1024], lost[512] = "";

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
    if (confirmed)
        fc_diag_unnamed_hosts(d, lost, sizeof(lost));
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
        snprintf(why, sizeof(why), "the launcher ended the stage after %.1f s, before any "
                 "rank's watchdog fired (timeout %.0f s; exit status %d), and every rank reported being torn down%s%s:"
                 " no rank died or hung alone (see %s)", d->in->res->seconds, d->timeout_s,
                 d->in->res->exit_status, fc_diag_torn_at(d)[0] ? " in " : "",
                 fc_diag_torn_at(d), d->in->log_path);
        fc_diag_finding(d, "hang", "", "", why, "cluster", 0);
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
