/*
 * fc_counters_judge.c - what a node's link counters say about a burn-in
 * (fc_counters.h has the rules). The snapshot taken before the soak and
 * the one taken after are compared link by link and counter by counter;
 * every finding keeps its evidence (the link, the counter, both values)
 * and the verdict is the worst of them: FAIL for what a healthy link does
 * not do (vanish, re-initialise, count errors), INCOMPLETE for what could
 * not be seen (a saturated counter, one missing at either end, a link whose
 * error counters could be read at neither end, no link at all), PASS only
 * when every counter of every link was read at both ends and none of that
 * happened. The links judged are those present at the
 * start; one that appeared during the soak is listed, not judged.
 */
#include "fc_counters.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* What the comparison found so far, and the text that explains it. */
typedef struct fc_link_judgement {
    json_t *out;                /* the result object */
    json_t *fail_reasons;       /* what FAILs, first in "reasons" */
    json_t *other_reasons;      /* what was not seen (INCOMPLETE) */
    const char *host;
} fc_link_judgement_t;

/* A finding: with a link, one that FAILs and implicates that link; with
 * NULL, one that leaves the counters INCOMPLETE. */
__attribute__((format(printf, 3, 4)))
static void fc_judge_note(fc_link_judgement_t *j, const char *link, const char *fmt, ...)
{
    char buf[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    json_array_append_new(link ? j->fail_reasons : j->other_reasons, json_string(buf));
    if (link != NULL && json_is_null(json_object_get(j->out, "link")))
        json_object_set_new(j->out, "link", json_string(link));
}

static void fc_judge_vanished(fc_link_judgement_t *j, const char *link)
{
    json_array_append_new(json_object_get(j->out, "vanished"), json_string(link));
    fc_judge_note(j, link, "link %s of host %s vanished during the soak: present at the "
                  "start, gone at the end (a port that disappears during burn-in is a "
                  "fault, and its counters can no longer be read)", link, j->host);
}

/* One counter of a link read at both ends. */
static void fc_judge_counter(fc_link_judgement_t *j, const char *link, const char *name,
                             json_int_t b, json_int_t a, int bits, double max_delta)
{
    json_int_t max = bits < 63 ? ((json_int_t)1 << bits) - 1 : 0;

    if (a < b) {
        json_array_append_new(json_object_get(j->out, "reset"), json_pack(
            "{s:s, s:s, s:I, s:I}", "link", link, "counter", name, "before", b, "after", a));
        fc_judge_note(j, link, "link %s of host %s: %s went down from %lld to %lld during "
                      "the soak: the port was re-initialised (or its counters cleared), "
                      "and a link re-init during burn-in is a fault", link, j->host, name,
                      (long long)b, (long long)a);
        return;
    }
    if (!fc_counter_is_error(name))
        return;
    if ((double)(a - b) > max_delta) {
        fc_judge_note(j, link, "link %s of host %s: %s rose by %s%lld during the soak "
                      "(limit %.0f)", link, j->host, name, max && a == max ? "at least " : "",
                      (long long)(a - b), max_delta);
    } else if (max && a == max) {
        json_array_append_new(json_object_get(j->out, "saturated"), json_pack(
            "{s:s, s:s, s:i, s:I, s:I}", "link", link, "counter", name, "bits", bits,
            "before", b, "after", a));
        fc_judge_note(j, NULL, "link %s of host %s: %s is saturated at %lld, the maximum "
                      "of its %d-bit counter, so a rise during the soak cannot be seen: "
                      "clear the port's counters before the soak (perfquery -R) or read "
                      "64-bit counters", link, j->host, name, (long long)a, bits);
    }
}

/* Every counter of one link present before and after. */
static void fc_judge_link(fc_link_judgement_t *j, const char *link, json_t *b, json_t *a,
                          json_t *bits, double max_delta)
{
    json_t *deltas = json_object(), *v, *old;
    const char *name;
    int errors_read = 0;        /* error counters read at both ends */

    json_object_foreach(b, name, old) {
        v = json_object_get(a, name);
        if (!json_is_integer(v)) {
            fc_judge_note(j, NULL, "link %s of host %s: %s could be read before the soak "
                          "and not after it", link, j->host, name);
            continue;
        }
        errors_read += fc_counter_is_error(name) && json_is_integer(old);
        json_object_set_new(deltas, name, json_integer(json_integer_value(v) -
                                                       json_integer_value(old)));
        fc_judge_counter(j, link, name, json_integer_value(old), json_integer_value(v),
                         json_is_integer(json_object_get(bits, name))
                             ? (int)json_integer_value(json_object_get(bits, name)) : 64,
                         max_delta);
    }
    json_object_foreach(a, name, v)
        if (json_object_get(b, name) == NULL)
            fc_judge_note(j, NULL, "link %s of host %s: %s could not be read before the "
                          "soak", link, j->host, name);
    /* a link whose error counters were read at neither end (no statistics
     * or counters directory) has empty maps: nothing rose, and nothing was
     * seen either */
    if (errors_read == 0)
        fc_judge_note(j, NULL, "counters of link %s of host %s could not be read: no error "
                      "counter of it was read at both ends of the soak (no statistics or "
                      "counters in sysfs), so its errors are not known", link, j->host);
    json_object_set_new(json_object_get(j->out, "links"), link, deltas);
}

json_t *fc_counters_judge(const json_t *before, const json_t *after,
                          double max_error_delta, const char *nic_pattern,
                          const char *host)
{
    json_t *bl = json_object_get(before, "links"), *al = json_object_get(after, "links");
    json_t *bits = json_object_get(after, "bits"), *a, *b;
    fc_link_judgement_t j = { NULL, json_array(), json_array(), host };
    const char *link;

    j.out = json_pack("{s:o, s:o, s:o, s:o, s:o, s:n}", "links", json_object(), "vanished",
                      json_array(), "appeared", json_array(), "reset", json_array(),
                      "saturated", json_array(), "link");
    json_object_foreach(bl, link, b) {
        if ((a = json_object_get(al, link)) == NULL)
            fc_judge_vanished(&j, link);
        else
            fc_judge_link(&j, link, b, a, json_object_get(bits, link), max_error_delta);
    }
    /* not followed from the start, so not judged: an interface a container
     * runtime adds is not a fabric link; it is listed */
    json_object_foreach(al, link, a)
        if (json_object_get(bl, link) == NULL)
            json_array_append_new(json_object_get(j.out, "appeared"), json_string(link));
    if (json_object_size(bl) == 0 && json_object_size(al) == 0)
        fc_judge_note(&j, NULL, "no link of host %s matches nic_pattern '%s': its error "
                      "counters were not read", host, nic_pattern);
    json_object_set_new(j.out, "verdict", json_string(
        json_array_size(j.fail_reasons) ? "FAIL" :
        json_array_size(j.other_reasons) ? "INCOMPLETE" : "PASS"));
    json_array_extend(j.fail_reasons, j.other_reasons);
    json_decref(j.other_reasons);
    json_object_set_new(j.out, "reasons", j.fail_reasons);
    return j.out;
}
