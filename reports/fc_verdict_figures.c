/*
 * fc_verdict_figures.c - see fc_verdict_figures.h. The figures read are
 * the ones the stages write: a point's and a contention record's `wrong`
 * and digest agreement, a pair's `wrong` per size, a soak_gpu record's
 * burn results that differed. Which types are judged
 * again, and which per size, the record-type table says (bits_rejudged,
 * bits_per_size in fc_record.h).
 */
#include "fc_verdict_figures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    if (t->bits_per_size)
        json_array_foreach(sizes, i, z)
            if (fc_count_wrong(json_object_get(z, "wrong"))) {
                char what[64];

                snprintf(what, sizeof(what), "wrong at %lld bytes",
                         (long long)json_integer_value(json_object_get(z, "bytes")));
                fc_why_add(why, len, what, json_object_get(z, "wrong"));
            }
    return why[0] != '\0';
}

const char *fc_record_verdict(json_t *rec)
{
    char why[256];

    return fc_record_wrong_bits(rec, why, sizeof(why)) ? "FAIL" : fc_json_str(rec, "verdict");
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
