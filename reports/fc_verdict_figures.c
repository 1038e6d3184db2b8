/*
 * fc_verdict_figures.c - see fc_verdict_figures.h. The figures read are
 * the ones the stages write: a point's and a contention record's `wrong`
 * and digest agreement, a pair's `wrong` per size, a soak_gpu record's
 * burn results that differed. Which types are judged
 * again, and which per size, the record-type table says (bits_rejudged,
 * bits_per_size in fc_record.h). The limits are each record family's
 * own, beside its rules (the table's `limits`: a point's limit, soak
 * drift and link counters, a contention record's slowdown, an overlap's
 * and a scaling count's figures in fc_sweep_records.c; a pair's sizes and
 * latency in fc_pairs_records.c; the drift rule in fc_soak_records.c);
 * here only what applies to every type: the calls a record checked, and
 * a verdict its own confirmation contradicts.
 */
#include "fc_verdict_figures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_calls.h"
#include "fc_json.h"
#include "fc_record.h"

/* A count of wrong elements that is not a whole number 0 (absent is 0). */
static int fc_count_wrong(json_t *v)
{
    return v != NULL && !json_is_null(v) &&
           !(json_is_integer(v) && json_integer_value(v) == 0);
}

static void fc_why_add(char *why, size_t len, const char *what, json_t *v)
{
    char *text = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    size_t used = strlen(why);

    snprintf(why + used, len - used, "%s%s %s", used ? ", " : "", what,
             text ? text : "missing");
    free(text);
}

int fc_record_wrong_bits(json_t *rec, char *why, size_t len)
{
    static const char *const digests[] = { "digest_ranks_agree", "digest_reps_agree" };
    const fc_record_type_t *t = fc_record_type_of(rec);
    json_t *sizes = json_object_get(rec, "sizes"), *z;
    size_t i;

    why[0] = '\0';
    if (!t->bits_rejudged)
        return 0;
    if (fc_count_wrong(json_object_get(rec, "wrong")))
        fc_why_add(why, len, "wrong", json_object_get(rec, "wrong"));
    for (size_t d = 0; d < sizeof(digests) / sizeof(digests[0]); ++d) {
        json_t *v = json_object_get(rec, digests[d]);

        if (v != NULL && !json_is_true(v))
            fc_why_add(why, len, digests[d], v);
    }
    if (t->id == FC_RECORD_SOAK_GPU) {
        /* the GPU burn's results that differed: wrong bits of a GEMM */
        json_t *k;
        const char *kind;

        json_object_foreach(json_object_get(json_object_get(rec, "burn"), "kinds"), kind, k)
            for (size_t c = 0; c < 2; ++c) {
                static const char *const counts[] = { "mismatched_iterations",
                                                      "chunks_differing" };
                char what[64];

                snprintf(what, sizeof(what), "burn %s %s", kind, counts[c]);
                if (fc_count_wrong(json_object_get(k, counts[c])))
                    fc_why_add(why, len, what, json_object_get(k, counts[c]));
            }
    }
    if (t->bits_per_size) {
        /* each size's count, absent included (nothing shows it checked),
         * and each direction's: which receiver saw wrong bits */
        json_array_foreach(sizes, i, z)
            if (fc_count_wrong(json_object_get(z, "wrong")) ||
                json_object_get(z, "wrong") == NULL) {
                char what[64];

                snprintf(what, sizeof(what), "wrong at %lld bytes",
                         (long long)json_integer_value(json_object_get(z, "bytes")));
                fc_why_add(why, len, what, json_object_get(z, "wrong"));
            }
        json_array_foreach(json_object_get(rec, "exchanges"), i, z)
            if (fc_count_wrong(json_object_get(z, "wrong")) ||
                strcmp(fc_json_str(z, "verdict"), "wrong") == 0) {
                char what[160];

                snprintf(what, sizeof(what), "wrong from %.60s to %.60s",
                         fc_json_str(z, "sender_host"), fc_json_str(z, "receiver_host"));
                fc_why_add(why, len, what, json_object_get(z, "wrong"));
            }
    }
    return why[0] != '\0';
}

int fc_record_limit_fails(json_t *rec, char *why, size_t len)
{
    const fc_record_type_t *t = fc_record_type_of(rec);

    why[0] = '\0';
    if (t->limits == NULL || !t->limits(rec, why, len)) {
        why[0] = '\0';
        return 0;
    }
    return 1;
}

int fc_record_unchecked_calls(json_t *rec, char *why, size_t len)
{
    json_t *iters = json_object_get(rec, "iters");
    json_int_t timed = json_integer_value(json_object_get(json_object_get(
        json_object_get(rec, "calls"), "timed"), "made"));

    why[0] = '\0';
    if (!fc_record_type_of(rec)->calls_counted)
        return 0;
    if (fc_calls_json_unchecked(json_object_get(rec, "calls"), why, len))
        return 1;
    /* a point times every one of its iterations (a soak's, every run's) */
    if (fc_record_id(rec) == FC_RECORD_POINT && json_is_integer(iters) &&
        timed < json_integer_value(iters)) {
        snprintf(why, len, "it counts %lld timed calls made for its %lld iterations",
                 (long long)timed, (long long)json_integer_value(iters));
        return 1;
    }
    return 0;
}

int fc_record_rejudged(json_t *rec, char *text, size_t len)
{
    char why[320];
    const char *verdict = fc_json_str(rec, "verdict");

    text[0] = '\0';
    if (strcmp(verdict, "FAIL") == 0)
        return 0;
    if (fc_record_wrong_bits(rec, why, sizeof(why)))
        snprintf(text, len, "its own figures show wrong bits (%s), though its verdict says "
                 "'%s': wrong bits are never tolerated", why, verdict);
    else if (strcmp(verdict, "PASS") == 0 && fc_record_unchecked_calls(rec, why, sizeof(why)))
        snprintf(text, len, "its own figures do not show every call checked (%s), though "
                 "its verdict says 'PASS'", why);
    else if (strcmp(verdict, "PASS") == 0 && fc_record_limit_fails(rec, why, sizeof(why)))
        snprintf(text, len, "its own figures fail its limit (%s), though its verdict says "
                 "'%s' and no confirmation alone cleared it", why, verdict);
    return text[0] != '\0';
}

const char *fc_record_verdict(json_t *rec)
{
    char why[320];

    /* a PASS its own figures contradict: wrong bits, whatever it says; a
     * call whose output it does not show checked; a limit it fails that no
     * confirmation alone cleared */
    return fc_record_wrong_bits(rec, why, sizeof(why)) ||
           (strcmp(fc_json_str(rec, "verdict"), "PASS") == 0 &&
            (fc_record_unchecked_calls(rec, why, sizeof(why)) ||
             fc_record_limit_fails(rec, why, sizeof(why)))) ? "FAIL"
                                                            : fc_json_str(rec, "verdict");
}

int fc_record_contradiction(json_t *rec, char *why, size_t len)
{
    const fc_record_type_t *t = fc_record_type_of(rec);
    const char *verdict = fc_json_str(rec, "verdict");
    json_t *conf = json_object_get(rec, "confirmation");
    const char *cv = fc_json_str(conf, "verdict");

    why[0] = '\0';
    if (t->id == FC_RECORD_RETEST && strcmp(verdict, "FAIL") != 0)
        snprintf(why, len, "a retest record whose verdict is '%s': a retest follows an "
                 "observed fault and is always a FAIL", verdict);
    else if (strcmp(verdict, "PASS") == 0 && json_is_object(conf) && cv[0] &&
             strcmp(cv, "ok") != 0 && strcmp(cv, "not_reproduced") != 0)
        snprintf(why, len, "it passes though its confirmation says '%s'", cv);
    else if (strcmp(verdict, "PASS") == 0 && json_is_true(json_object_get(conf, "confirmed")))
        snprintf(why, len, "it passes though its confirmation confirmed the fault");
    return why[0] != '\0';
}
