/*
 * fc_diagnose_nostart.c - a stage program that could not start on a host
 * (see fc_diagnose.h). The launch ended before the stage began, and the
 * launcher names a rank that died without ever reaching main: every rank
 * that reaches main says so first (its FABCERT-START line, lib/base/fc_watchdog.h),
 * so a named rank without that line never ran the program (a shared
 * library or the program itself missing on its host: the loader's or the
 * shell's status 127 or 126; the launcher unable to execute it there; a
 * crash in a library's constructor, by a signal).
 *
 * Where it was: srun and Open MPI's signal and launch notices name the
 * host; Open MPI's non-zero-status paragraph names the rank alone. Then
 * the placement the runner asked for (its hostfile's order, --map-by
 * node, so many per node) says, but only when the ranks that did start
 * confirm it: each says where it is, and a single one elsewhere than
 * asked (an --mpirun-arg or an MCA setting that maps, ranks or adds
 * hosts) means the placement is not known. Then nothing is guessed: the
 * rank and the candidate hosts (those from which fewer ranks said they
 * started than were asked there) are named, nobody is quarantined.
 *
 * A placed host gets a "cannot_start" record that quarantines it (its
 * rack FAILs, the stage runs again without it). No rank that started
 * anywhere, or every host of the attempt placed, is a program broken
 * everywhere: one stage_error naming the cause, nobody quarantined (not
 * the whole cluster, one host per attempt).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_diagnose_int.h"
#include "fc_exitinfo.h"
#include "fc_input.h"
#include "fc_inventory.h"
#include "fc_verdict.h"

/* the program's own lines kept as evidence (the loader's "error while
 * loading shared libraries: ...") */
#define FC_NOSTART_STDERR_LINES 3
/* candidate hosts started alone, one after another, at most (each within
 * fc_run_start_check's limit) */
#define FC_NOSTART_CHECKS 8

/* One rank the launcher names dead that never reached main. */
typedef struct fc_nostart_rank {
    long rank;
    json_t *note;           /* the launcher's note on it */
    const char *host;       /* where it was; NULL: not known */
} fc_nostart_rank_t;

typedef struct fc_nostart {
    json_t *notes, *started;
    fc_nostart_rank_t *r;
    size_t n;
    const char *placement_why;  /* why the placement asked is not known;
                                 * "" when it is confirmed */
    char mismatch[256];
    int confirming;             /* start lines that agree with it */
} fc_nostart_t;

/* The start line of `rank`, or NULL. */
static json_t *fc_nostart_line(json_t *started, long rank)
{
    json_t *s;
    size_t i;

    json_array_foreach(started, i, s)
        if (json_integer_value(json_object_get(s, "rank")) == rank)
            return s;
    return NULL;
}

/* Did the launcher's note say the rank ended badly: a signal, a status
 * other than 0, or a process it could not launch at all? */
static int fc_nostart_death(json_t *n)
{
    return json_integer_value(json_object_get(n, "signal")) > 0 ||
           json_integer_value(json_object_get(n, "exit_code")) != 0 ||
           json_is_true(json_object_get(n, "oom")) || json_object_get(n, "start_error");
}

/* The ranks the launcher names dead without a start line; how many. */
static size_t fc_nostart_collect(fc_nostart_t *ns, size_t nranks)
{
    json_t *n;
    size_t i;

    ns->r = fc_xcalloc(json_array_size(ns->notes) + 1, sizeof(*ns->r), "the ranks not started");
    json_array_foreach(ns->notes, i, n) {
        long rank = (long)json_integer_value(json_object_get(n, "rank"));
        int seen = 0;

        if (strcmp(fc_json_str(n, "kind"), "rank") != 0 || rank < 0 ||
            (nranks > 0 && (size_t)rank >= nranks) || !fc_nostart_death(n) ||
            fc_nostart_line(ns->started, rank) != NULL)
            continue;
        for (size_t k = 0; k < ns->n; ++k)
            seen |= ns->r[k].rank == rank;
        if (!seen) {
            ns->r[ns->n].rank = rank;
            ns->r[ns->n].note = n;
            ns->r[ns->n].host = fc_json_str(n, "host")[0] ? fc_json_str(n, "host") : NULL;
            ns->n++;
        }
    }
    return ns->n;
}

/* Is the placement asked confirmed by every rank that started? Sets
 * placement_why (and mismatch) when not. */
static int fc_nostart_placement_known(const fc_diag_in_t *in, fc_nostart_t *ns)
{
    json_t *s;
    size_t i;

    ns->confirming = 0;
    if (in->placement == NULL) {
        ns->placement_why = "the launcher places the ranks itself (no placement was asked)";
        return 0;
    }
    if (json_array_size(ns->started) == 0) {
        ns->placement_why = "no rank said where it started, so the placement asked is "
                            "not confirmed";
        return 0;
    }
    json_array_foreach(ns->started, i, s) {
        long rank = (long)json_integer_value(json_object_get(s, "rank"));
        const char *asked = json_string_value(json_array_get(in->placement, (size_t)rank));

        if (rank < 0 || asked == NULL || strcmp(asked, fc_json_str(s, "host")) != 0) {
            snprintf(ns->mismatch, sizeof(ns->mismatch), "rank %ld started on %s, where "
                     "the runner asked for %s", rank, fc_json_str(s, "host"),
                     asked ? asked : "no such rank");
            ns->placement_why = ns->mismatch;
            return 0;
        }
        ns->confirming++;
    }
    ns->placement_why = "";
    return 1;
}

/* How the launcher says the rank ended, and what that means. */
static void fc_nostart_how(json_t *n, char *how, size_t hlen, char *means, size_t mlen)
{
    int sig = (int)json_integer_value(json_object_get(n, "signal"));
    int code = (int)json_integer_value(json_object_get(n, "exit_code"));
    const char *err = json_string_value(json_object_get(n, "start_error"));

    if (err) {
        snprintf(how, hlen, "could not be launched (the launcher %s)", err);
        snprintf(means, mlen, "the program missing or not executable there");
    } else if (sig > 0) {
        snprintf(how, hlen, "exited on signal %d (%s) before reaching main", sig,
                 strsignal(sig));
        snprintf(means, mlen, "a crash in its start-up there: the loader, a library's "
                 "constructor");
    } else {
        snprintf(how, hlen, "exited with status %d before reaching main", code);
        snprintf(means, mlen, "%s", code == 127 ? "the loader's or the shell's status: a "
                 "shared library, or the program, missing there" : code == 126 ? "the "
                 "shell's status: the program there cannot be executed" :
                 strcmp(fc_json_str(n, "launcher"), "srun") == 0 && (code == 2 || code == 13)
                 ? "Slurm's status for a program it could not execute there: the errno of "
                 "its execve, 2 no such file, 13 permission denied" : "an end before its "
                 "main there");
    }
}

/* '; the launcher then ...' when the runner had to stop it. */
static void fc_nostart_stopped(const fc_launch_result_t *res, char *buf, size_t len)
{
    buf[0] = '\0';
    if (res->abort_hung)
        snprintf(buf, len, "; the launcher then did not end, and was stopped %.0f s after it "
                 "said it aborts the job", FC_LAUNCH_ABORT_GRACE_S);
    else if (res->timed_out)
        snprintf(buf, len, "; the launcher then hung, and was killed at the runner's limit "
                 "after %.0f s", res->seconds);
}

/* '; the ranks wrote: "LINE"' for the first of the ranks' own lines. */
static void fc_nostart_said(json_t *said, char *buf, size_t len)
{
    buf[0] = '\0';
    if (json_array_size(said) > 0)
        snprintf(buf, len, "; the ranks wrote: \"%.300s\"",
                 json_string_value(json_array_get(said, 0)));
}

/* Up to FC_NOSTART_STDERR_LINES distinct lines of the log that are the
 * ranks' own: not the runner's tags or words, not srun's, not Open MPI's
 * ("[host:pid] ...", and its paragraphs, each between lines of dashes). */
static json_t *fc_nostart_stderr(const char *log)
{
    json_t *out = json_array();
    int in_paragraph = 0;

    while (log && *log && json_array_size(out) < FC_NOSTART_STDERR_LINES) {
        size_t len = strcspn(log, "\n"), k;
        char line[320];
        json_t *v;
        int dup = 0;

        snprintf(line, sizeof(line), "%.*s", (int)(len < sizeof(line) ? len : sizeof(line) - 1),
                 log);
        log += len + (log[len] == '\n');
        if (strncmp(line, "-----", 5) == 0) {
            in_paragraph = !in_paragraph;
            continue;
        }
        /* Open MPI's own lines start "[host:pid] "; the runner's "fabcert: " */
        if (in_paragraph || line[0] == '\0' || line[0] == '[' || strstr(line, "FABCERT-") ||
            strncmp(line, "srun: ", 6) == 0 || strncmp(line, "fabcert: ", 9) == 0)
            continue;
        json_array_foreach(out, k, v)
            dup |= strcmp(json_string_value(v), line) == 0;
        if (!dup)
            json_array_append_new(out, json_string(line));
    }
    return out;
}

/* The launch hosts from which fewer ranks said they started than the
 * placement asked for there (all of them: none asked), as "a, b". */
static void fc_nostart_candidates(const fc_diag_in_t *in, const fc_nostart_t *ns, char *buf,
                                  size_t len)
{
    json_t *h, *s, *p;
    size_t i, j;

    buf[0] = '\0';
    json_array_foreach(in->hosts, i, h) {
        int asked = 0, said = 0;

        json_array_foreach(in->placement, j, p)
            asked += strcmp(json_string_value(p), json_string_value(h)) == 0;
        json_array_foreach(ns->started, j, s)
            said += strcmp(fc_json_str(s, "host"), json_string_value(h)) == 0;
        if ((in->placement == NULL && said == 0) || said < asked)
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? ", " : "",
                     json_string_value(h));
    }
}

/* The ranks placed on `host` (NULL: those placed nowhere), as a comma
 * list; texts gets the launcher's line on each. */
static void fc_nostart_ranks_of(const fc_nostart_t *ns, const char *host, char *ranks,
                                size_t len, json_t *texts)
{
    ranks[0] = '\0';
    for (size_t k = 0; k < ns->n; ++k)
        if (host == NULL ? ns->r[k].host == NULL
                         : ns->r[k].host && strcmp(ns->r[k].host, host) == 0) {
            snprintf(ranks + strlen(ranks), len - strlen(ranks), "%s%ld", ranks[0] ? "," : "",
                     ns->r[k].rank);
            json_array_append_new(texts, json_string(fc_json_str(ns->r[k].note, "text")));
        }
}

/* Is `item` in the comma list? */
static int fc_nostart_listed(const char *list, const char *item)
{
    size_t n = strlen(item);

    for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (strncmp(p, item, n) == 0 && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}

/* Ranks asked on `host` that said nothing either (the launcher names
 * only the first rank that failed), as a comma list. */
static void fc_nostart_silent(const fc_diag_in_t *in, const fc_nostart_t *ns, const char *host,
                              const char *named, char *buf, size_t len)
{
    json_t *p;
    size_t r;

    buf[0] = '\0';
    json_array_foreach(in->placement, r, p) {
        char me[24];

        snprintf(me, sizeof(me), "%zu", r);
        if ((host == NULL || strcmp(json_string_value(p), host) == 0) &&
            fc_nostart_line(ns->started, (long)r) == NULL &&
            !fc_nostart_listed(named, me))
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%zu", buf[0] ? "," : "", r);
    }
}

/* The evidence every finding carries. */
static json_t *fc_nostart_evidence(const fc_diag_t *d, const fc_nostart_t *ns, json_t *texts,
                                   json_t *said)
{
    return json_pack("{s:o, s:O, s:i, s:i, s:s, s:s, s:i, s:f, s:s}", "launcher", texts,
                     "stderr", said, "started_ranks", (int)json_array_size(ns->started),
                     "ranks_in_stage", d->in->ranks,
                     "placement", d->in->placement_text ? d->in->placement_text : "",
                     "placement_unknown", ns->placement_why, "confirming_ranks",
                     ns->confirming, "ended_after_s", d->in->res->seconds, "log",
                     d->in->log_path);
}

/* The launcher's note that it aborts the job (Open MPI), or NULL. */
static json_t *fc_nostart_abort_note(const fc_nostart_t *ns)
{
    json_t *n;
    size_t i;

    json_array_foreach(ns->notes, i, n)
        if (strcmp(fc_json_str(n, "kind"), "job_aborted") == 0)
            return n;
    return NULL;
}

/* The program could not start on any host: one error, nobody blamed.
 * The launcher named a rank (ns->n > 0), or only said it aborts the job. */
static void fc_nostart_everywhere(fc_diag_t *d, const fc_nostart_t *ns, json_t *said,
                                  const char *hosts)
{
    char how[600] = "", means[200] = "", why[2400], words[340], named[1200], stopped[160];
    json_t *texts = json_array(), *r, *note = ns->n ? ns->r[0].note : fc_nostart_abort_note(ns);

    fc_nostart_said(said, words, sizeof(words));
    json_array_append_new(texts, json_string(fc_json_str(note, "text")));
    for (size_t k = 1; k < ns->n; ++k)
        json_array_append_new(texts, json_string(fc_json_str(ns->r[k].note, "text")));
    if (ns->n) {
        fc_nostart_how(note, how, sizeof(how), means, sizeof(means));
        snprintf(named, sizeof(named), "rank %ld%s%s %s (%s); the launcher: \"%.300s\"",
                 ns->r[0].rank, ns->r[0].host ? " on host " : "",
                 ns->r[0].host ? ns->r[0].host : "", how, means, fc_json_str(note, "text"));
    } else {
        snprintf(how, sizeof(how), " and ended with status %d", d->in->res->exit_status);
        fc_nostart_stopped(d->in->res, stopped, sizeof(stopped));
        snprintf(named, sizeof(named), "the launcher said a process failed and it aborts the "
                 "job (\"%.300s\"),%s naming no rank%s", fc_json_str(note, "text"),
                 d->in->res->exit_status < 0 ? "" : how, stopped);
    }
    snprintf(why, sizeof(why), "the stage program could not start on any host: %s; %s%s; a "
             "program broken everywhere, not one node: nobody is quarantined (see %s)",
             json_array_size(ns->started) == 0 ? "no rank of the stage reached main (no start "
             "line from any)" : "every host it was launched on has a rank that did not",
             named, words, d->in->log_path);
    r = json_pack("{s:s, s:s, s:i, s:s}", "type", "stage_error", "reason", why, "exit_status",
                  d->in->res->exit_status, "hosts", hosts);
    json_object_set_new(r, "cannot_start", fc_nostart_evidence(d, ns, texts, said));
    json_array_append_new(d->out, r);
}

/* The start check of each candidate host in the list "a, b" (at most
 * FC_NOSTART_CHECKS, and never every host the attempt was launched on: a
 * program broken everywhere is not a host's fault): a host whose program,
 * launched there alone, still does not reach main is placed, its finding
 * quarantining it; one that starts alone is cleared. `lead` says how the
 * stage's launch failed. checked gets "host: started alone|did not" per
 * host. Returns how many hosts were placed. */
static int fc_nostart_start_checks(fc_diag_t *d, const fc_nostart_t *ns, json_t *said,
                                   const char *cand, const char *lead, char *checked,
                                   size_t len)
{
    char host[256], err[512], why[3600], words[340], ranks[256];
    size_t ncand = 0, nhosts = json_array_size(d->in->hosts);
    int placed = 0;

    checked[0] = '\0';
    for (const char *p = cand; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] ? 2 : 0))
        ++ncand;
    if (d->in->start_check == NULL || ncand == 0 || ncand >= nhosts ||
        ncand > FC_NOSTART_CHECKS)
        return 0;
    fc_nostart_said(said, words, sizeof(words));
    for (const char *p = cand; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] ? 2 : 0)) {
        json_t *c, *rec, *one;

        snprintf(host, sizeof(host), "%.*s", (int)strcspn(p, ","), p);
        one = json_pack("[s]", host);
        c = d->in->start_check(d->in->probe_arg, one, err, sizeof(err));
        json_decref(one);
        if (c == NULL) {
            snprintf(checked + strlen(checked), len - strlen(checked), "%s%s: not checked "
                     "(%s)", checked[0] ? "; " : "", host, err);
            continue;
        }
        if (json_is_true(json_object_get(c, "reached_main"))) {
            snprintf(checked + strlen(checked), len - strlen(checked), "%s%s: started "
                     "alone (status %d)", checked[0] ? "; " : "", host,
                     (int)json_integer_value(json_object_get(c, "exit_status")));
            json_decref(c);
            continue;
        }
        snprintf(checked + strlen(checked), len - strlen(checked), "%s%s: did not start "
                 "alone", checked[0] ? "; " : "", host);
        fc_nostart_silent(d->in, ns, host, "", ranks, sizeof(ranks));
        snprintf(why, sizeof(why), "the stage program could not start on host %s: the "
                 "stage %s; launched again on %s alone, one rank, it still did not reach "
                 "main (no start line; the launcher %s %d after %.1f s)%s; quarantined, the "
                 "stage runs again without it (see %s and %s)", host, lead, host,
                 json_is_true(json_object_get(c, "timed_out")) ? "was stopped at its limit, "
                 "status" : "ended with status",
                 (int)json_integer_value(json_object_get(c, "exit_status")),
                 json_real_value(json_object_get(c, "seconds")), words, d->in->log_path,
                 fc_json_str(c, "log"));
        rec = fc_diag_finding(d, "cannot_start", host, ranks, why, "node", 1);
        json_object_set_new(rec, "exit_code",
                            json_integer(json_integer_value(json_object_get(c, "exit_status"))));
        json_object_set_new(rec, "evidence", fc_nostart_evidence(d, ns, json_array(), said));
        json_object_set_new(json_object_get(rec, "evidence"), "placed_by",
                            json_string("start_check"));
        json_object_set_new(json_object_get(rec, "evidence"), "start_check", c);
        ++placed;
    }
    return placed;
}

/* Ranks whose host is not known: the candidate hosts' start checks place
 * those where the program cannot start; otherwise one stage_error naming
 * the ranks (`lead` says how they failed) and the candidates, nobody
 * blamed. */
static void fc_nostart_unknown_host(fc_diag_t *d, const fc_nostart_t *ns, json_t *said,
                                    const char *ranks, const char *lead, json_t *texts)
{
    char cand[1024], why[3600], words[340], checked[1024];
    json_t *r;

    fc_nostart_candidates(d->in, ns, cand, sizeof(cand));
    if (fc_nostart_start_checks(d, ns, said, cand, lead, checked, sizeof(checked)) > 0) {
        json_decref(texts);
        return;
    }
    fc_nostart_said(said, words, sizeof(words));
    snprintf(why, sizeof(why), "the stage program %s; the host is not known: %s; candidates "
             "(fewer ranks said they started there than were asked): %s%s%s%s; nobody is "
             "quarantined (see %s)", lead, ns->placement_why, cand[0] ? cand : "none",
             checked[0] ? "; each launched alone: " : "", checked, words, d->in->log_path);
    r = json_pack("{s:s, s:s, s:i, s:s, s:s}", "type", "stage_error", "reason", why,
                  "exit_status", d->in->res->exit_status, "ranks", ranks, "candidates", cand);
    json_object_set_new(r, "cannot_start", fc_nostart_evidence(d, ns, texts, said));
    json_array_append_new(d->out, r);
}

/* The ranks the launcher named that could not be placed. */
static void fc_nostart_unplaced(fc_diag_t *d, const fc_nostart_t *ns, json_t *said)
{
    char how[600], means[200], lead[1600], ranks[256];
    json_t *texts = json_array();
    const fc_nostart_rank_t *first = NULL;

    for (size_t k = 0; k < ns->n && first == NULL; ++k)
        if (ns->r[k].host == NULL)
            first = &ns->r[k];
    fc_nostart_how(first->note, how, sizeof(how), means, sizeof(means));
    fc_nostart_ranks_of(ns, NULL, ranks, sizeof(ranks), texts);
    snprintf(lead, sizeof(lead), "could not start for rank(s) %s: rank %ld %s (%s); the "
             "launcher: \"%.300s\", which names no host", ranks, first->rank, how, means,
             fc_json_str(first->note, "text"));
    fc_nostart_unknown_host(d, ns, said, ranks, lead, texts);
}

/* The launch failed, the launcher named no rank, and some ranks never
 * reached main but not those of one host alone under a confirmed
 * placement: they are named with the candidate hosts, no blame. 1 when
 * there were such ranks. */
static int fc_nostart_unnamed_ranks(fc_diag_t *d, fc_nostart_t *ns, json_t *said)
{
    char ranks[512] = "", lead[1024], stopped[160];
    const fc_launch_result_t *res = d->in->res;

    for (int k = 0; k < d->in->ranks; ++k)
        if (fc_nostart_line(ns->started, k) == NULL && strlen(ranks) + 12 < sizeof(ranks))
            snprintf(ranks + strlen(ranks), sizeof(ranks) - strlen(ranks), "%s%d",
                     ranks[0] ? "," : "", k);
    if ((res->exit_status <= 0 && !res->timed_out && !res->abort_hung) ||
        json_array_size(ns->started) == 0 || ranks[0] == '\0')
        return 0;
    if (fc_nostart_placement_known(d->in, ns))
        ns->placement_why = "they are not the ranks of one host alone";
    fc_nostart_stopped(res, stopped, sizeof(stopped));
    snprintf(lead, sizeof(lead), "did not start for rank(s) %s (no start line), and the "
             "launcher %s%d naming no rank%s", ranks, res->exit_status > 0 ? "ended with "
             "status " : "was stopped, status ", res->exit_status, stopped);
    fc_nostart_unknown_host(d, ns, said, ranks, lead, json_array());
    return 1;
}

/* A host placed: its finding quarantines it. */
static void fc_nostart_host(fc_diag_t *d, const fc_nostart_t *ns, const char *host,
                            json_t *said, const char *others)
{
    char how[600], means[200], why[3000], ranks[256], silent[256], basis[512], words[340];
    char stopped[160];
    json_t *texts = json_array(), *rec, *note = NULL;
    long first = -1;

    fc_nostart_ranks_of(ns, host, ranks, sizeof(ranks), texts);
    for (size_t k = 0; k < ns->n && note == NULL; ++k)
        if (ns->r[k].host && strcmp(ns->r[k].host, host) == 0) {
            note = ns->r[k].note;
            first = ns->r[k].rank;
        }
    fc_nostart_how(note, how, sizeof(how), means, sizeof(means));
    fc_nostart_silent(d->in, ns, host, ranks, silent, sizeof(silent));
    fc_nostart_said(said, words, sizeof(words));
    fc_nostart_stopped(d->in->res, stopped, sizeof(stopped));
    if (fc_json_str(note, "host")[0])
        snprintf(basis, sizeof(basis), "the launcher names the host");
    else
        snprintf(basis, sizeof(basis), "rank %ld is on %s by the runner's placement (%s), "
                 "as the %d rank(s) that started confirm", first, host,
                 d->in->placement_text ? d->in->placement_text : "", ns->confirming);
    snprintf(why, sizeof(why), "the stage program could not start on host %s: rank %ld %s "
             "(%s); the launcher: \"%.300s\"; %s%s%s%s%s%s; quarantined, "
             "the stage runs again without it (see %s)", host, first, how, means,
             fc_json_str(note, "text"), basis, silent[0] ? "; rank(s) " : "", silent,
             silent[0] ? " there sent no start line either" : "", stopped, words,
             d->in->log_path);
    if (others[0])
        snprintf(why + strlen(why), sizeof(why) - strlen(why), "; rank(s) %s of other hosts "
                 "sent no start line either, but the launcher named none of them (Open MPI "
                 "names only the first rank that failed): not blamed", others);
    rec = fc_diag_finding(d, "cannot_start", host, ranks, why, "node", 1);
    if (silent[0])
        json_object_set_new(rec, "ranks_silent", json_string(silent));
    json_object_set_new(rec, "signal", json_integer(json_integer_value(json_object_get(note, "signal"))));
    json_object_set_new(rec, "exit_code", json_integer(json_integer_value(json_object_get(note, "exit_code"))));
    if (json_object_get(note, "start_error"))
        json_object_set(rec, "start_error", json_object_get(note, "start_error"));
    json_object_set_new(rec, "evidence", fc_nostart_evidence(d, ns, texts, said));
    json_object_set_new(json_object_get(rec, "evidence"), "placed_by",
                        json_string(fc_json_str(note, "host")[0] ? "launcher" : "placement"));
}

/* Is `host` one the launcher's notes or the placement put a rank on? */
static int fc_nostart_placed(const fc_nostart_t *ns, const char *host)
{
    for (size_t k = 0; k < ns->n; ++k)
        if (ns->r[k].host && strcmp(ns->r[k].host, host) == 0)
            return 1;
    return 0;
}

/* Once the placement is known: the ranks of hosts nobody named that sent
 * no start line either, as a comma list (mentioned, not blamed). */
static void fc_nostart_unnamed(const fc_diag_in_t *in, const fc_nostart_t *ns, char *buf,
                               size_t len)
{
    char named[512] = "", mine[256];
    json_t *h;
    size_t i;

    buf[0] = '\0';
    for (size_t k = 0; k < ns->n; ++k)
        snprintf(named + strlen(named), sizeof(named) - strlen(named), "%s%ld",
                 named[0] ? "," : "", ns->r[k].rank);
    json_array_foreach(in->hosts, i, h) {
        if (fc_nostart_placed(ns, json_string_value(h)))
            continue;
        fc_nostart_silent(in, ns, json_string_value(h), named, mine, sizeof(mine));
        if (mine[0] && strlen(buf) + strlen(mine) + 2 < len)
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? "," : "", mine);
    }
}

/* The launcher named no rank (Open MPI, for a process killed by a signal
 * before it registered, at times says only that the job was aborted;
 * under load it has hung in its start-up saying nothing), yet the launch
 * failed (a status, or it had to be stopped), the placement is
 * confirmed, and the ranks that never reached main are every rank it put
 * on one host and no other: that host, as a crash is placed on the one
 * host whose every rank is silent (fc_diagnose_crash.c). (A fabric that
 * holds MPI_Init up is another matter: every rank reached main, and the
 * probe places it.) 1 when placed. */
static int fc_nostart_whole_host(fc_diag_t *d, fc_nostart_t *ns, json_t *said)
{
    const char *host = NULL;
    char ranks[256] = "", why[3000], words[340], how[160], stopped[160];
    int code = d->in->res->exit_status;
    json_t *p, *rec;
    size_t r;

    /* the launch failed: a status, or it had to be stopped */
    if ((code <= 0 && !d->in->res->timed_out && !d->in->res->abort_hung) ||
        json_array_size(ns->started) == 0 || !fc_nostart_placement_known(d->in, ns))
        return 0;
    json_array_foreach(d->in->placement, r, p)
        if (host == NULL && fc_nostart_line(ns->started, (long)r) == NULL)
            host = json_string_value(p);
    if (host == NULL || json_array_size(d->in->hosts) < 2)
        return 0;
    /* every rank of that host missing, and none of another */
    json_array_foreach(d->in->placement, r, p) {
        int missing = fc_nostart_line(ns->started, (long)r) == NULL;

        if ((strcmp(json_string_value(p), host) == 0) != missing)
            return 0;
        if (missing)
            snprintf(ranks + strlen(ranks), sizeof(ranks) - strlen(ranks), "%s%zu",
                     ranks[0] ? "," : "", r);
    }
    fc_nostart_stopped(d->in->res, stopped, sizeof(stopped));
    if (code > 128)
        snprintf(how, sizeof(how), "ended with status %d (128 + %d: a process killed by "
                 "signal %d, %s)", code, code - 128, code - 128, strsignal(code - 128));
    else if (code > 0)
        snprintf(how, sizeof(how), "ended with status %d", code);
    else if (fc_nostart_abort_note(ns))
        snprintf(how, sizeof(how), "said a process failed and it aborts the job");
    else
        snprintf(how, sizeof(how), "gave no word on it");
    fc_nostart_said(said, words, sizeof(words));
    snprintf(why, sizeof(why), "the stage program could not start on host %s: none of its "
             "rank(s) %s reached main (no start line), and the launcher %s, naming no rank; "
             "every rank of every other host did (%zu), in the runner's placement (%s) that "
             "they confirm%s%s; quarantined, the stage runs again without it (see %s)",
             host, ranks, how, json_array_size(ns->started),
             d->in->placement_text ? d->in->placement_text : "", stopped, words,
             d->in->log_path);
    rec = fc_diag_finding(d, "cannot_start", host, ranks, why, "node", 1);
    json_object_set_new(rec, "signal", json_integer(code > 128 ? code - 128 : 0));
    json_object_set_new(rec, "exit_code", json_integer(code > 0 && code <= 128 ? code : 0));
    json_object_set_new(rec, "evidence", fc_nostart_evidence(d, ns, json_array(), said));
    json_object_set_new(json_object_get(rec, "evidence"), "placed_by",
                        json_string("whole_host"));
    json_object_set_new(json_object_get(rec, "evidence"), "launcher_status",
                        json_integer(code));
    return 1;
}

int fc_diag_cannot_start(fc_diag_t *d)
{
    fc_nostart_t ns = { .started = d->in->res->started, .placement_why = "" };
    char *log = NULL, hosts[1024] = "", others[256] = "";
    int known, every = 1;
    json_t *said, *h;
    size_t i;

    fc_input_read(d->in->log_path, "stage log", FC_INPUT_DOC_MAX, &log, NULL);
    ns.notes = fc_exitinfo_parse(log);
    said = fc_nostart_stderr(log);
    free(log);
    if (ns.started == NULL ||
        fc_nostart_collect(&ns, d->in->ranks > 0 ? (size_t)d->in->ranks : 0) == 0) {
        int found = ns.started && fc_nostart_whole_host(d, &ns, said);

        /* Open MPI's abort with no rank named, and no rank started */
        if (!found && ns.started && json_array_size(ns.started) == 0 &&
            fc_nostart_abort_note(&ns) != NULL) {
            fc_nostart_everywhere(d, &ns, said, "");
            found = 1;
        }
        if (!found && ns.started)
            found = fc_nostart_unnamed_ranks(d, &ns, said);
        json_decref(said);
        free(ns.r);
        json_decref(ns.notes);
        return found;
    }
    known = fc_nostart_placement_known(d->in, &ns);
    for (size_t k = 0; k < ns.n; ++k) {
        if (ns.r[k].host == NULL && known)
            ns.r[k].host = json_string_value(json_array_get(d->in->placement,
                                                            (size_t)ns.r[k].rank));
        /* a host the attempt was not launched on is no placement */
        if (ns.r[k].host && (!fc_diagnose_launched(d->in, ns.r[k].host) ||
                             fc_inventory_find_host(d->in->inv, ns.r[k].host) < 0))
            ns.r[k].host = NULL;
    }
    json_array_foreach(d->in->hosts, i, h) {
        int bad = fc_nostart_placed(&ns, json_string_value(h));

        every &= bad;
        if (bad)
            snprintf(hosts + strlen(hosts), sizeof(hosts) - strlen(hosts), "%s%s",
                     hosts[0] ? ", " : "", json_string_value(h));
    }
    if (json_array_size(ns.started) == 0 || (every && json_array_size(d->in->hosts) > 0)) {
        fc_nostart_everywhere(d, &ns, said, hosts);
    } else {
        if (known)
            fc_nostart_unnamed(d->in, &ns, others, sizeof(others));
        json_array_foreach(d->in->hosts, i, h)
            if (fc_nostart_placed(&ns, json_string_value(h)))
                fc_nostart_host(d, &ns, json_string_value(h), said, others);
        for (size_t k = 0; k < ns.n; ++k)
            if (ns.r[k].host == NULL) {
                fc_nostart_unplaced(d, &ns, said);
                break;
            }
    }
    json_decref(said);
    json_decref(ns.notes);
    free(ns.r);
    return 1;
}

int fc_diagnose_never_reached_main(const fc_diag_in_t *in)
{
    fc_nostart_t ns = { .started = in->res->started };
    char *log = NULL;
    size_t n = 0;

    if (ns.started == NULL)
        return 0;
    fc_input_read(in->log_path, "stage log", FC_INPUT_DOC_MAX, &log, NULL);
    ns.notes = fc_exitinfo_parse(log);
    free(log);
    n = fc_nostart_collect(&ns, in->ranks > 0 ? (size_t)in->ranks : 0);
    json_decref(ns.notes);
    free(ns.r);
    return (int)n;
}
