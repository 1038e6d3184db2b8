/*
 * calls.c - unit tests of lib/engine/fc_calls.c, the report's reading of a
 * record's count of collective calls made and checked: a whole count with
 * every call checked shows them checked; one unchecked call, a count that
 * is not a whole number, checked above made, and a count of no timed call
 * at all (a measurement of nothing, though every one of its zero calls
 * was "checked") do not.
 */
#include <stdio.h>
#include <string.h>

#include "fc_calls.h"
#include "fc_tap.h"

/* fc_calls_json_unchecked of the member given as JSON text */
static int unchecked(const char *text, char *why, size_t len)
{
    json_t *m = json_loads(text, 0, NULL);
    int r = fc_calls_json_unchecked(m, why, len);

    json_decref(m);
    return r;
}

#define COUNT(w, t, b)                                                                     \
    "{\"warmup\":{\"made\":" #w ",\"checked\":" #w "},\"timed\":{\"made\":" #t ",\"checked\":" \
    #t "},\"batched\":{\"made\":" #b ",\"checked\":" #b "}}"

int main(void)
{
    fc_tap_t tap;
    char why[320];

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 9);
    fc_tap_is_int(&tap, unchecked(COUNT(1, 5, 5), why, sizeof(why)), 0,
                  "every call of 1 warm-up, 5 timed, 5 batched checked: shown checked");
    fc_tap_is_int(&tap, unchecked(COUNT(0, 0, 0), why, sizeof(why)), 1,
                  "no call made at all is no evidence (%s)", why);
    fc_tap_ok(&tap, strstr(why, "no timed call made") != NULL,
              "no call made at all is no evidence (%s)"
              " [names 'no timed call made']", why);
    fc_tap_is_int(&tap, unchecked(COUNT(1, 0, 5), why, sizeof(why)), 1,
                  "warm-up and batched calls but no timed one: not shown measured (%s)", why);
    fc_tap_ok(&tap, strstr(why, "no timed call made") != NULL,
              "warm-up and batched calls but no timed one: not shown measured (%s)"
              " [names 'no timed call made']", why);
    fc_tap_is_int(&tap,
                  unchecked("{\"warmup\":{\"made\":1,\"checked\":1},\"timed\":{\"made\":5,"
                            "\"checked\":4},\"batched\":{\"made\":0,\"checked\":0}}", why,
                            sizeof(why)), 1, "one timed call unchecked (%s)", why);
    fc_tap_ok(&tap, strstr(why, "1 of 6") != NULL, "one timed call unchecked (%s)"
              " [names '1 of 6']", why);
    fc_tap_is_int(&tap,
                  unchecked("{\"warmup\":{\"made\":1,\"checked\":2},\"timed\":{\"made\":5,"
                            "\"checked\":5},\"batched\":{\"made\":0,\"checked\":0}}", why,
                            sizeof(why)), 1, "checked above made (%s)", why);
    fc_tap_is_int(&tap, unchecked(NULL, why, sizeof(why)), 1, "no count (%s)", why);
    return fc_tap_done(&tap);
}
