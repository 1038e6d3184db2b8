/*
 * fc_profile_rails.c - the rails stage's `rails:` section (see
 * fc_rails.h) and its map: count (NICs per node, 0: as many as the map or
 * the pattern finds, one rank per rail), map ("eth0,eth1": rail r is the
 * r-th name) or nic_pattern (glob, default "eth*", rails by name order),
 * rate_gbps (each NIC's expected link rate, 0: not checked), transport
 * ("tcp", or "verbs" where it is built). A map that does not parse, or
 * that disagrees with count, is refused at its line (exit 2).
 */
#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_profile_sections.h"
#include "fc_rails.h"

int fc_rails_map_parse(const char *text, char names[][FC_RAIL_NIC_MAX], int max, char *why,
                       size_t why_len)
{
    int n = 0;
    const char *p = text;

    for (;;) {
        const char *s, *e;

        while (*p == ' ' || *p == '\t')
            ++p;
        s = p;
        while (*p != '\0' && *p != ',')
            ++p;
        e = p;
        while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
            --e;
        if (e == s) {
            snprintf(why, why_len, "rail %d has no NIC name (\"%s\")", n, text);
            return -1;
        }
        if (e - s >= FC_RAIL_NIC_MAX || e - s > 15) {
            snprintf(why, why_len, "rail %d: '%.*s' is longer than an interface name (15)",
                     n, (int)(e - s), s);
            return -1;
        }
        for (const char *c = s; c < e; ++c)
            if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-' && *c != '.') {
                snprintf(why, why_len, "rail %d: '%.*s' is not an interface name", n,
                         (int)(e - s), s);
                return -1;
            }
        if (n >= max) {
            snprintf(why, why_len, "more than %d rails", max);
            return -1;
        }
        snprintf(names[n], FC_RAIL_NIC_MAX, "%.*s", (int)(e - s), s);
        for (int i = 0; i < n; ++i)
            if (strcmp(names[i], names[n]) == 0) {
                snprintf(why, why_len, "%s is rail %d and rail %d", names[n], i, n);
                return -1;
            }
        ++n;
        if (*p == '\0')
            return n;
        ++p;
    }
}

int fc_rails_name_cmp(const char *a, const char *b)
{
    while (*a != '\0' && *b != '\0') {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            char *ea, *eb;
            unsigned long x = strtoul(a, &ea, 10), y = strtoul(b, &eb, 10);

            if (x != y)
                return x < y ? -1 : 1;
            a = ea;
            b = eb;
            continue;
        }
        if (*a != *b)
            return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        ++a;
        ++b;
    }
    return *a == *b ? 0 : *a == '\0' ? -1 : 1;
}

static int fc_rails_qcmp(const void *x, const void *y)
{
    return fc_rails_name_cmp(x, y);
}

int fc_rails_by_pattern(char names[][FC_RAIL_NIC_MAX], int n, const char *pattern,
                        char out[][FC_RAIL_NIC_MAX], int max)
{
    int k = 0;

    for (int i = 0; i < n && k < max; ++i)
        if (fnmatch(pattern, names[i], 0) == 0)
            snprintf(out[k++], FC_RAIL_NIC_MAX, "%s", names[i]);
    qsort(out, (size_t)k, FC_RAIL_NIC_MAX, fc_rails_qcmp);
    return k;
}

static const fc_yaml_choice_t fc_rails_transports[] = {
    { "tcp", 0 }, { "verbs", 1 }, { NULL, 0 },
};

static fc_status_t fc_rails_map_check(const fc_yaml_ctx_t *ctx, const fc_yaml_field_t *f,
                                      struct fy_node *k, struct fy_node *v, void *base)
{
    fc_rails_profile_t *r = base;
    char names[FC_RAILS_MAX][FC_RAIL_NIC_MAX], why[256];
    int n = fc_rails_map_parse(r->map, names, FC_RAILS_MAX, why, sizeof(why));

    if (n < 0)
        return fc_yaml_error(ctx, v, k, "'map': %s", why);
    if (r->count > 0 && n != r->count)
        return fc_yaml_error(ctx, v, k, "'map' names %d NIC(s), 'count' says %d", n, r->count);
    r->nmap = n;
    return FC_OK;
}

static fc_status_t fc_rails_count_check(const fc_yaml_ctx_t *ctx, const fc_yaml_field_t *f,
                                        struct fy_node *k, struct fy_node *v, void *base)
{
    fc_rails_profile_t *r = base;

    if (r->nmap > 0 && r->nmap != r->count)
        return fc_yaml_error(ctx, v, k, "'count' is %d, 'map' names %d NIC(s)", r->count,
                             r->nmap);
    return FC_OK;
}

static const fc_yaml_field_t fc_rails_keys[] = {
    FC_KEY_INT("count", fc_rails_profile_t, count, 1, FC_RAILS_MAX,
               .check = fc_rails_count_check),
    FC_KEY_STRING("map", fc_rails_profile_t, map, "NIC names by rail, e.g. \"eth0,eth1\"",
                  .check = fc_rails_map_check),
    FC_KEY_STRING("nic_pattern", fc_rails_profile_t, nic_pattern,
                  "a glob such as eth* or mlx5_*"),
    FC_KEY_NUMBER("rate_gbps", fc_rails_profile_t, rate_gbps, 0, 1e6),
    FC_KEY_CHOICE_STRING("transport", fc_rails_profile_t, transport, fc_rails_transports),
    FC_KEY_END
};

const fc_yaml_section_t fc_rails_section = { .where = "'rails'", .keys = fc_rails_keys };

void fc_rails_defaults(fc_rails_profile_t *r)
{
    memset(r, 0, sizeof(*r));
    snprintf(r->nic_pattern, sizeof(r->nic_pattern), "eth*");
    snprintf(r->transport, sizeof(r->transport), "tcp");
}
