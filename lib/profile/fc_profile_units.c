/*
 * fc_profile_units.c - the sizes, durations and lists a profile and the
 * command line write as text: "256KiB" and back ("256 KiB"), "30m",
 * "all_reduce,all_gather", "4KiB,1MiB". Each parser says what was wrong
 * with the text it was given; the callers name the option or the key.
 */
#include "fc_profile.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fc_parse_size(const char *text, uint64_t *bytes_p)
{
    static const struct { const char *suffix; uint64_t mult; } units[] = {
        { "GiB", 1ull << 30 }, { "MiB", 1ull << 20 }, { "KiB", 1ull << 10 },
        { "G", 1ull << 30 },   { "M", 1ull << 20 },   { "K", 1ull << 10 },
        { "B", 1 },            { "", 1 },
    };
    char *end;
    unsigned long long v;

    if (text[0] < '0' || text[0] > '9')
        return -1;
    errno = 0;
    v = strtoull(text, &end, 10);
    if (errno != 0)
        return -1;
    for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); ++u) {
        if (strcmp(end, units[u].suffix) == 0) {
            if (v > UINT64_MAX / units[u].mult)
                return -1;
            *bytes_p = v * units[u].mult;
            return 0;
        }
    }
    return -1;
}

void fc_format_size(uint64_t bytes, char *buf, size_t len)
{
    if (bytes >= (1ull << 30) && bytes % (1ull << 30) == 0)
        snprintf(buf, len, "%llu GiB", (unsigned long long)(bytes >> 30));
    else if (bytes >= (1ull << 20) && bytes % (1ull << 20) == 0)
        snprintf(buf, len, "%llu MiB", (unsigned long long)(bytes >> 20));
    else if (bytes >= (1ull << 10) && bytes % (1ull << 10) == 0)
        snprintf(buf, len, "%llu KiB", (unsigned long long)(bytes >> 10));
    else
        snprintf(buf, len, "%llu B", (unsigned long long)bytes);
}

fc_status_t fc_parse_name_list(const char *what, const char *text,
                               int (*from_name)(const char *), int max,
                               int *out, int *count_p)
{
    char buf[1024], *save = NULL;
    int count = 0;

    snprintf(buf, sizeof(buf), "%s", text);
    for (char *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        int id = from_name(tok);

        if (id < 0 || count == max) {
            fprintf(stderr, "fabcert: --%s: unknown or repeated '%s'\n", what,
                    tok);
            return FC_ERR_INVALID;
        }
        out[count++] = id;
    }
    if (count == 0) {
        fprintf(stderr, "fabcert: --%s: empty list\n", what);
        return FC_ERR_INVALID;
    }
    *count_p = count;
    return FC_OK;
}

fc_status_t fc_parse_size_list(const char *what, const char *text, int max,
                               uint64_t *out, int *count_p)
{
    char buf[1024], *save = NULL;
    int count = 0;

    snprintf(buf, sizeof(buf), "%s", text);
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (count == max || fc_parse_size(t, &out[count]) != 0 || out[count] == 0) {
            fprintf(stderr, "fabcert: --%s: bad size '%s'\n", what, t);
            return FC_ERR_INVALID;
        }
        count++;
    }
    *count_p = count;
    return FC_OK;
}

fc_status_t fc_parse_duration(const char *what, const char *text, double *seconds_p)
{
    char *end = NULL;
    double v = strtod(text, &end), unit = *end == 'm' ? 60 : *end == 'h' ? 3600 :
                                          *end == 'd' ? 86400 : 1;

    if (end == text || !isfinite(v) || v <= 0 ||
        (*end != '\0' && (strchr("smhd", *end) == NULL || end[1] != '\0')) ||
        v * unit > 7 * 86400.0) {
        fprintf(stderr, "fabcert: --%s '%s': expected seconds, or a number with s, m, h "
                "or d, up to 7 days\n", what, text);
        return FC_ERR_INVALID;
    }
    if (v * unit < 1) {         /* the least soak.duration_s a profile may say */
        if (strcmp(what, "soak-duration") == 0)
            fprintf(stderr, "fabcert: --%s '%s': below the least soak duration, 1 s (the "
                    "profile's soak.duration_s is 1 s or more)\n", what, text);
        else
            fprintf(stderr, "fabcert: --%s '%s': below the least duration, 1 s\n", what,
                    text);
        return FC_ERR_INVALID;
    }
    *seconds_p = v * unit;
    return FC_OK;
}
