/*
 * fc_counters_check.c - see fc_counters_check.h. The bounds are what
 * information must leave a host, whatever the algorithm (ring, tree,
 * recursive doubling, hierarchical): its ranks' data that the other hosts'
 * results depend on. Protocol headers and retransmissions only add to what
 * the counters show, and the warm-up's calls are in the interval, so the
 * bound (the timed and warm-up calls together) can only be below what a
 * host that used the links under test moved. Counter classes are
 * fc_counters_interval.c's.
 */
#include "fc_counters_check.h"

#include <stdio.h>
#include <string.h>

#include "fc_counters_interval.h"
#include "fc_json.h"

double fc_counters_host_min_tx(const char *collective, double bytes, int nranks,
                               int host_ranks, int nhosts)
{
    double n = nranks, k = host_ranks;

    if (collective == NULL || nhosts < 2 || nranks < 2 || host_ranks < 1 ||
        host_ranks >= nranks || bytes <= 0)
        return -1;
    if (strcmp(collective, "all_reduce") == 0 || strcmp(collective, "all_reduce_inplace") == 0)
        return bytes * (nhosts - 1) / nhosts;
    if (strcmp(collective, "all_gather") == 0 || strcmp(collective, "all_gather_inplace") == 0)
        return bytes * k / n;
    if (strcmp(collective, "reduce_scatter") == 0 ||
        strcmp(collective, "reduce_scatter_inplace") == 0)
        return bytes * (n - k) / n;
    if (strcmp(collective, "all_to_all") == 0)
        return bytes * k * (n - k) / n;
    return -1;
}

double fc_counters_group_min_tx(const char *collective, double bytes, int nhosts)
{
    if (collective == NULL || nhosts < 2 || bytes <= 0 || strcmp(collective, "broadcast") != 0)
        return -1;
    return bytes * (nhosts - 1);
}

json_t *fc_counters_limits_json(const fc_counters_profile_t *cp)
{
    return json_pack("{s:f, s:o, s:o, s:b}", "max_errors", cp->max_errors, "max_drops",
                     cp->max_drops < 0 ? json_null() : json_real(cp->max_drops),
                     "max_retries", cp->max_retries < 0 ? json_null()
                     : json_real(cp->max_retries), "traffic", cp->traffic);
}

static double fc_cnum(const json_t *obj, const char *key, double dflt)
{
    json_t *v = json_object_get(obj, key);

    return json_is_number(v) ? json_number_value(v) : dflt;
}

/* "eth0" or "eth0,ib0": the links a host's interval read */
static void fc_links_text(const json_t *iv, char *buf, size_t len)
{
    const char *link;
    json_t *v;
    size_t at = 0;

    buf[0] = '\0';
    json_object_foreach(json_object_get(iv, "links"), link, v)
        if (at < len)
            at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? "," : "", link);
    if (!buf[0])
        snprintf(buf, len, "no link");
}

/* Errors, drops, retries of each link of each host against the limits:
 * FAIL reasons into reasons, the first one's link into *imp. */
static void fc_check_rises(const json_t *hosts, const json_t *limits, json_t *reasons,
                           json_t **imp)
{
    static const struct { const char *cls, *key, *what; } rules[] = {
        { "errors", "max_errors", "error" },
        { "drops", "max_drops", "drop and discard" },
        { "transport", "max_retries", "transport retry" },
    };
    const char *host, *link, *name;
    json_t *iv, *deltas, *v;

    json_object_foreach((json_t *)hosts, host, iv)
        json_object_foreach(json_object_get(iv, "links"), link, deltas)
            for (size_t r = 0; r < sizeof(rules) / sizeof(rules[0]); ++r) {
                double limit = fc_cnum(limits, rules[r].key, -1), rose = 0;
                char which[256], why[512];
                size_t at = 0;

                if (limit < 0)
                    continue;
                which[0] = '\0';
                json_object_foreach(deltas, name, v) {
                    const char *cls = fc_interval_class(name);

                    if (cls == NULL || strcmp(cls, rules[r].cls) != 0 ||
                        json_integer_value(v) <= 0)
                        continue;
                    rose += (double)json_integer_value(v);
                    if (at < sizeof(which))
                        at += (size_t)snprintf(which + at, sizeof(which) - at, "%s%s +%lld",
                                               at ? ", " : "", name,
                                               (long long)json_integer_value(v));
                }
                if (rose <= limit)
                    continue;
                snprintf(why, sizeof(why), "link %s of host %s: %s counters rose during the "
                         "point (%s), above %s %g", link, host, rules[r].what, which,
                         rules[r].key, limit);
                json_array_append_new(reasons, json_string(why));
                if (*imp == NULL)
                    *imp = json_pack("{s:s, s:s, s:s, s:b}", "part", "link", "host", host,
                                     "link", link, "quarantine", 0);
            }
}

/* The counters a host's interval could not count (fc_counters_interval.c's
 * not_counted: "LINK NAME: went down ..." after a reset, "... at the
 * maximum of its N-bit counter") whose class a rule judges: that rule saw
 * nothing of them, so a port reset mid-point (errors back to 0, bytes out
 * gone from the sum) cannot pass as a clean link: INCOMPLETE reasons. */
static void fc_check_uncounted(const json_t *hosts, const json_t *limits, int multi_host,
                               json_t *incomplete)
{
    const char *host;
    json_t *iv, *v;
    size_t i;

    json_object_foreach((json_t *)hosts, host, iv)
        json_array_foreach(json_object_get(iv, "not_counted"), i, v) {
            char link[64], name[64], why[800];
            const char *cls, *text = json_string_value(v);
            int judged;

            if (text == NULL || sscanf(text, "%63s %63[^:]:", link, name) != 2 ||
                (cls = fc_interval_class(name)) == NULL)
                continue;
            judged = strcmp(cls, "errors") == 0 ? fc_cnum(limits, "max_errors", -1) >= 0
                     : strcmp(cls, "drops") == 0 ? fc_cnum(limits, "max_drops", -1) >= 0
                     : strcmp(cls, "transport") == 0 ? fc_cnum(limits, "max_retries", -1) >= 0
                     : strcmp(cls, "tx_bytes") == 0
                         ? multi_host && json_is_true(json_object_get(limits, "traffic"))
                         : 0;
            if (!judged)
                continue;
            snprintf(why, sizeof(why), "link %s of host %s: its counter %s could not be "
                     "counted over the point (%.400s), so the point's %s were not judged on "
                     "it%s", link, host, name, text,
                     strcmp(cls, "tx_bytes") == 0 ? "bytes out" : cls,
                     strstr(text, "at the maximum") ? " (a saturated counter stays so: clear "
                     "the port's counters before the run, e.g. perfquery -R)" : "");
            json_array_append_new(incomplete, json_string(why));
        }
}

/* Each host's bytes out against the bound of its ranks: INCOMPLETE
 * reasons into incomplete, the bounds into bounds, why not into notes. */
static void fc_check_traffic(const json_t *rec, const json_t *c, json_t *incomplete,
                             json_t *bounds, json_t *notes)
{
    const char *coll = json_string_value(json_object_get(rec, "collective")), *host;
    json_t *hosts = json_object_get(c, "hosts"), *rph = json_object_get(c, "ranks_per_host");
    double bytes = fc_cnum(rec, "bytes", 0), nranks = fc_cnum(rec, "ranks", 0);
    double calls = fc_cnum(rec, "iters", 0) + fc_cnum(rec, "warmup", 0);
    int nhosts = (int)json_object_size(rph), judged = 0;
    double group = fc_counters_group_min_tx(coll, bytes, nhosts), total = 0;
    char why[512], links[128];
    json_t *v;

    if (nhosts < 2 || calls <= 0) {
        json_array_append_new(notes, json_string("traffic: the point ran on one host, so "
                                                 "nothing had to cross a link"));
        return;
    }
    json_object_foreach(rph, host, v) {
        json_t *iv = json_object_get(hosts, host), *tx = json_object_get(
            json_object_get(iv, "sum"), "tx_bytes");
        double need = fc_counters_host_min_tx(coll, bytes, (int)nranks,
                                              (int)json_integer_value(v), nhosts) * calls;
        double seen = (double)json_integer_value(tx);

        if (!json_is_integer(tx)) {
            snprintf(why, sizeof(why), "traffic: host %s: no bytes out read on links %s",
                     host, json_string_value(json_object_get(c, "nic_pattern")));
            json_array_append_new(notes, json_string(why));
            group = -1;             /* the group's sum would miss it */
            continue;
        }
        total += seen;
        if (need <= 0)
            continue;
        ++judged;
        json_object_set_new(bounds, host, json_integer((json_int_t)need));
        if (seen >= need)
            continue;
        fc_links_text(iv, links, sizeof(links));
        snprintf(why, sizeof(why), "host %s sent %.0f bytes out of its links %s (%s) during "
                 "the point, less than the %.0f bytes its %lld rank(s) must send for %.0f "
                 "calls of %s %.0f bytes across %d hosts: the traffic went elsewhere (shared "
                 "memory, another interface), so this figure does not measure the links "
                 "under test", host, seen, json_string_value(json_object_get(c, "nic_pattern")),
                 links, need, (long long)json_integer_value(v), calls, coll, bytes, nhosts);
        json_array_append_new(incomplete, json_string(why));
    }
    if (group > 0) {
        ++judged;
        json_object_set_new(bounds, "all hosts", json_integer((json_int_t)(group * calls)));
        if (total < group * calls) {
            snprintf(why, sizeof(why), "the %d hosts sent %.0f bytes out of their links %s "
                     "during the point, less than the %.0f bytes %.0f calls of %s %.0f bytes "
                     "must move between them: the traffic went elsewhere (shared memory, "
                     "another interface), so this figure does not measure the links under "
                     "test", nhosts, total, json_string_value(json_object_get(c, "nic_pattern")),
                     group * calls, calls, coll, bytes);
            json_array_append_new(incomplete, json_string(why));
        }
    }
    if (!judged && json_array_size(notes) == 0) {
        snprintf(why, sizeof(why), "traffic: no lower bound for %s", coll ? coll : "?");
        json_array_append_new(notes, json_string(why));
    }
}

json_t *fc_counters_check(const json_t *rec)
{
    json_t *c = json_object_get(rec, "counters"), *limits = json_object_get(c, "limits");
    json_t *fails = json_array(), *incomplete = json_array(), *bounds = json_object();
    json_t *notes = json_array(), *imp = NULL, *v;
    const char *verdict;
    size_t i;

    if (!json_is_object(limits)) {
        json_decref(fails);
        json_decref(incomplete);
        json_decref(bounds);
        json_decref(notes);
        return NULL;
    }
    fc_check_rises(json_object_get(c, "hosts"), limits, fails, &imp);
    /* a host of the point with no interval at all (its reading was lost
     * on the way to rank 0): neither its errors nor its bytes were seen.
     * A host whose links simply match nothing has an interval (no links)
     * and stays a note below. */
    {
        const char *host;
        json_t *n;
        char why[512];

        json_object_foreach(json_object_get(c, "ranks_per_host"), host, n)
            if (!json_is_object(json_object_get(json_object_get(c, "hosts"), host))) {
                snprintf(why, sizeof(why), "host %s: its link counters were not read over "
                         "the point (no interval from it), so its errors and bytes out were "
                         "not judged", host);
                json_array_append_new(incomplete, json_string(why));
            }
    }
    fc_check_uncounted(json_object_get(c, "hosts"), limits,
                       json_object_size(json_object_get(c, "ranks_per_host")) >= 2 &&
                       fc_cnum(rec, "iters", 0) + fc_cnum(rec, "warmup", 0) > 0, incomplete);
    if (json_is_true(json_object_get(limits, "traffic")))
        fc_check_traffic(rec, c, incomplete, bounds, notes);
    else
        json_array_append_new(notes, json_string("traffic: not judged (counters.traffic "
                                                 "false)"));
    verdict = json_array_size(fails) ? "FAIL" : json_array_size(incomplete) ? "INCOMPLETE"
              : "PASS";
    json_array_foreach(incomplete, i, v)
        json_array_append(fails, v);
    json_decref(incomplete);
    return json_pack("{s:s, s:o, s:o, s:o, s:o}", "verdict", verdict, "reasons", fails,
                     "min_tx_bytes", bounds, "notes", notes, "implicates",
                     imp ? imp : json_null());
}

int fc_counters_apply(json_t *rec)
{
    json_t *check = fc_counters_check(rec), *reasons;
    const char *cv;
    size_t i;
    json_t *v;

    if (check == NULL)
        return 0;
    json_object_set_new(json_object_get(rec, "counters"), "check", check);
    cv = json_string_value(json_object_get(check, "verdict"));
    if (strcmp(cv, "PASS") == 0 ||
        strcmp(json_string_value(json_object_get(rec, "verdict")) ?
               json_string_value(json_object_get(rec, "verdict")) : "", "PASS") != 0)
        return 0;
    reasons = json_array();
    json_array_foreach(json_object_get(check, "reasons"), i, v)
        json_array_append(reasons, v);
    json_array_foreach(json_object_get(rec, "reasons"), i, v)
        json_array_append(reasons, v);
    json_object_set_new(rec, "reasons", reasons);
    json_object_set_new(rec, "verdict", json_string(cv));
    if (strcmp(cv, "FAIL") == 0) {
        json_t *imp = json_deep_copy(json_object_get(check, "implicates"));
        json_t *rph = json_object_get(json_object_get(rec, "counters"), "ranks_per_host");

        /* the record's rack only for a host of its own group: a contention
         * phase's counters are every node's (background and other racks'
         * too), and a link of rack2's node with errors blamed rack1; any
         * other host is placed by the report, from the plan's inventory */
        if (json_object_get(rph, fc_json_str(imp, "host")) != NULL)
            json_object_set(imp, "rack", json_object_get(rec, "rack"));
        else
            json_object_set_new(imp, "rack", json_string(""));
        json_object_set_new(rec, "implicates", imp);
        if (json_object_get(rec, "status"))     /* a point's stage status */
            json_object_set_new(rec, "status", json_string("FAIL"));
        return 1;
    }
    return 2;
}

const char *fc_counters_rejudged(const json_t *rec, char *text, size_t len)
{
    json_t *check;
    const char *cv, *verdict = json_string_value(json_object_get(rec, "verdict"));
    static const char *const names[] = { "FAIL", "INCOMPLETE" };
    const char *out = NULL;

    text[0] = '\0';
    if (verdict == NULL || strcmp(verdict, "PASS") != 0 ||
        (check = fc_counters_check(rec)) == NULL)
        return NULL;
    cv = json_string_value(json_object_get(check, "verdict"));
    for (size_t k = 0; k < 2; ++k)
        if (strcmp(cv, names[k]) == 0)
            out = names[k];
    if (out)
        snprintf(text, len, "its own link counters (%s), though its verdict says 'PASS'",
                 json_string_value(json_array_get(json_object_get(check, "reasons"), 0)));
    json_decref(check);
    return out;
}
