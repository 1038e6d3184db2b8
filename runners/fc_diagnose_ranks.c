/*
 * fc_diagnose_ranks.c - see fc_diagnose_int.h: what every reading of an
 * unfinished stage asks of the ranks' accounts (was a host launched on,
 * its rack, its ranks for which a test holds, the first rank of a host,
 * a rank silent or torn down early, the launcher's note on a host and
 * its words) and the finding it adds. A leaf: the diagnosis
 * (fc_diagnose.c) and its readings (fc_diagnose_crash.c,
 * fc_diagnose_stuck.c, fc_diagnose_nostart.c) all use it.
 */
#include "fc_diagnose.h"

#include <stdio.h>
#include <string.h>

#include "fc_diagnose_int.h"
#include "fc_verdict.h"
#include "fc_watchdog.h"

int fc_diag_in_list(json_t *list, const char *s)
{
    json_t *v;
    size_t i;

    json_array_foreach(list, i, v)
        if (strcmp(json_string_value(v), s) == 0)
            return 1;
    return 0;
}

int fc_diagnose_launched(const fc_diag_in_t *in, const char *host)
{
    return fc_diag_in_list(in->hosts, host);
}

const char *fc_diag_rack(const fc_diag_t *d, const char *host)
{
    int h = fc_inventory_find_host(d->in->inv, host);

    return h >= 0 ? d->in->inv->racks[d->in->inv->host_rack[h]] : "";
}

json_t *fc_diag_finding(fc_diag_t *d, const char *type, const char *host,
                        const char *ranks, const char *why, const char *part,
                        int quarantine)
{
    json_t *r = json_pack("{s:s, s:s, s:s, s:s, s:f, s:[s], s:{s:s, s:s, s:s, s:b}, s:s}",
        "type", type, "host", host, "rack", host[0] ? fc_diag_rack(d, host) : "",
        "ranks", ranks, "timeout_s", d->timeout_s, "reasons", why, "implicates",
        "part", part, "host", host, "rack", host[0] ? fc_diag_rack(d, host) : "",
        "quarantine", quarantine, "verdict", "FAIL");

    json_array_append_new(d->out, r);
    return r;
}

/* Comma list of the ranks of `host` for which keep(rank) holds. */
int fc_diag_host_ranks(const fc_diag_t *d, const char *host,
                              int (*keep)(const fc_diag_rank_t *), char *buf, size_t len)
{
    int n = 0;

    buf[0] = '\0';
    for (size_t k = 0; k < d->n; ++k)
        if (d->ranks[k].host && (host == NULL || strcmp(d->ranks[k].host, host) == 0) &&
            (keep == NULL || keep(&d->ranks[k]))) {
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%zu", n ? "," : "", k);
            ++n;
        }
    return n;
}

/* Is this the first rank of its host (so each host is seen once)? */
int fc_diag_first_of_host(const fc_diag_t *d, size_t k)
{
    for (size_t j = 0; j < k; ++j)
        if (strcmp(d->ranks[j].host, d->ranks[k].host) == 0)
            return 0;
    return 1;
}

/* Said nothing at all: no watchdog report, no tear-down line, no failed
 * MPI call. */
int fc_diag_silent(const fc_diag_rank_t *r)
{
    return r->wd == NULL && r->late == NULL && r->down == NULL && r->mpierr == NULL &&
           !r->ended_by_launcher;
}

int fc_diag_torn_early(const fc_diag_rank_t *r)
{
    json_t *ms = json_object_get(r->down, "before_deadline_ms");
    json_t *gap = json_object_get(r->down, "since_sample_ms");

    return r->wd == NULL && r->late == NULL && r->down != NULL && json_is_integer(ms) &&
           (double)json_integer_value(ms) / 1000.0 > -FC_LATE_REPORT_S &&
           json_is_integer(gap) && json_integer_value(gap) >= 0 &&
           (double)json_integer_value(gap) / 1000.0 <= FC_LATE_REPORT_S;
}

json_t *fc_diag_lost_note(const fc_diag_t *d, const char *host)
{
    json_t *w;
    size_t i;

    json_array_foreach(d->lost, i, w)
        if (strcmp(fc_json_str(w, "host"), host) == 0)
            return w;
    return NULL;
}

/* How the launcher says a rank ended, e.g. "exited on signal 9 (Killed)". */
void fc_diag_note_text(json_t *note, char *buf, size_t len)
{
    int sig = (int)json_integer_value(json_object_get(note, "signal"));

    if (json_is_true(json_object_get(note, "oom")))
        snprintf(buf, len, "was killed for lack of memory (OOM)");
    else if (sig > 0)
        snprintf(buf, len, "exited on signal %d (%s)", sig, strsignal(sig));
    else if (json_integer_value(json_object_get(note, "exit_code")) != 0)
        snprintf(buf, len, "exited with status %lld",
                 (long long)json_integer_value(json_object_get(note, "exit_code")));
    else
        snprintf(buf, len, "exited without finalising MPI");
}
