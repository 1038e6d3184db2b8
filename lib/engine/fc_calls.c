/*
 * fc_calls.c - see fc_calls.h: the count of collective calls made and
 * checked, its record member, and the report's reading of it.
 */
#include "fc_calls.h"

#include <inttypes.h>
#include <stdio.h>

static const char *const fc_calls_names[FC_CALLS_KINDS] = { "warmup", "timed", "batched" };

const char *fc_calls_kind_name(fc_calls_kind_t kind)
{
    return (unsigned)kind < FC_CALLS_KINDS ? fc_calls_names[kind] : "?";
}

void fc_calls_add(fc_calls_t *sum, const fc_calls_t *c)
{
    for (int k = 0; k < FC_CALLS_KINDS; ++k) {
        sum->made[k] += c->made[k];
        sum->checked[k] += c->checked[k];
    }
}

void fc_calls_fold(fc_calls_t *group, const fc_calls_t *rank, int first)
{
    if (first) {
        *group = *rank;
        return;
    }
    for (int k = 0; k < FC_CALLS_KINDS; ++k) {
        if (rank->made[k] > group->made[k])
            group->made[k] = rank->made[k];
        if (rank->checked[k] < group->checked[k])
            group->checked[k] = rank->checked[k];
    }
}

int64_t fc_calls_unchecked(const fc_calls_t *c)
{
    int64_t n = 0;

    for (int k = 0; k < FC_CALLS_KINDS; ++k)
        n += c->made[k] > c->checked[k] ? c->made[k] - c->checked[k] : 0;
    return n;
}

void fc_calls_why(const fc_calls_t *c, char *buf, size_t len)
{
    int64_t made = 0;

    for (int k = 0; k < FC_CALLS_KINDS; ++k)
        made += c->made[k];
    snprintf(buf, len, "%" PRId64 " of %" PRId64 " collective calls were made but their "
             "outputs not checked (warmup %" PRId64 " of %" PRId64 ", timed %" PRId64 " of %"
             PRId64 ", batched %" PRId64 " of %" PRId64 " checked): no PASS from an unchecked "
             "call", fc_calls_unchecked(c), made, c->checked[FC_CALLS_WARMUP],
             c->made[FC_CALLS_WARMUP], c->checked[FC_CALLS_TIMED], c->made[FC_CALLS_TIMED],
             c->checked[FC_CALLS_BATCHED], c->made[FC_CALLS_BATCHED]);
}

json_t *fc_calls_json(const fc_calls_t *c)
{
    json_t *o = json_object();

    for (int k = 0; k < FC_CALLS_KINDS; ++k)
        json_object_set_new(o, fc_calls_names[k],
                            json_pack("{s:I, s:I}", "made", (json_int_t)c->made[k], "checked",
                                      (json_int_t)c->checked[k]));
    return o;
}

int fc_calls_json_unchecked(json_t *member, char *why, size_t len)
{
    fc_calls_t c;

    if (!json_is_object(member)) {
        snprintf(why, len, "no count of the collective calls made and checked, so nothing "
                 "shows that every call's output was checked");
        return 1;
    }
    for (int k = 0; k < FC_CALLS_KINDS; ++k) {
        json_t *kind = json_object_get(member, fc_calls_names[k]);
        json_t *made = json_object_get(kind, "made"), *checked = json_object_get(kind, "checked");

        if (!json_is_integer(made) || !json_is_integer(checked) ||
            json_integer_value(made) < 0 || json_integer_value(checked) < 0 ||
            json_integer_value(checked) > json_integer_value(made)) {
            snprintf(why, len, "its count of %s calls made and checked is not two whole "
                     "numbers, checked no more than made", fc_calls_names[k]);
            return 1;
        }
        c.made[k] = json_integer_value(made);
        c.checked[k] = json_integer_value(checked);
    }
    if (c.made[FC_CALLS_TIMED] == 0) {
        snprintf(why, len, "it counts no timed call made, so nothing was measured or checked");
        return 1;
    }
    if (fc_calls_unchecked(&c) == 0)
        return 0;
    fc_calls_why(&c, why, len);
    return 1;
}
