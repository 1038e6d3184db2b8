/*
 * fc_hostlist.c - Slurm hostlist expressions (fc_inventory.h), as
 * scontrol show hostnames expands them: a bracket holds numbers and
 * ranges separated by commas, "lo-hi" keeps lo's zero padding, several
 * brackets in one name multiply out, and top-level commas separate names.
 * At most FC_HOSTLIST_MAX hosts from one expression.
 */
#include "fc_inventory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"

#define FC_HOSTLIST_MAX 100000      /* hosts from one expression */

typedef struct fc_namebuf {
    char (*names)[FC_INV_NAME_MAX];
    int count, cap;
} fc_namebuf_t;

static void fc_namebuf_push(fc_namebuf_t *b, const char *name)
{
    if (b->count == b->cap) {
        int cap = b->cap ? 2 * b->cap : 16;

        b->names = fc_xrealloc(b->names, (size_t)cap, FC_INV_NAME_MAX, "a host list's names");
        b->cap = cap;
    }
    snprintf(b->names[b->count++], FC_INV_NAME_MAX, "%s", name);
}

int fc_name_char_ok(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

/* Expand one term (no top-level comma): prefix, then brackets. */
static fc_status_t fc_hostlist_term(const char *prefix, const char *rest,
                                    fc_namebuf_t *out, char *err, size_t errlen)
{
    const char *open = strchr(rest, '[');
    char head[FC_INV_NAME_MAX * 2], item[64];
    const char *close, *p;

    if (open == NULL) {
        snprintf(head, sizeof(head), "%s%s", prefix, rest);
        if (strlen(head) >= FC_INV_NAME_MAX) {
            snprintf(err, errlen, "host name '%s' is longer than %d characters",
                     head, FC_INV_NAME_MAX - 1);
            return FC_ERR_INVALID;
        }
        for (p = head; *p; ++p)
            if (!fc_name_char_ok(*p)) {
                snprintf(err, errlen, "'%c' is not allowed in host name '%s'",
                         *p, head);
                return FC_ERR_INVALID;
            }
        if (head[0] == '\0') {
            snprintf(err, errlen, "empty host name");
            return FC_ERR_INVALID;
        }
        if (out->count >= FC_HOSTLIST_MAX) {
            snprintf(err, errlen, "more than %d hosts", FC_HOSTLIST_MAX);
            return FC_ERR_INVALID;
        }
        fc_namebuf_push(out, head);
        return FC_OK;
    }
    close = strchr(open, ']');
    if (close == NULL || memchr(open + 1, '[', (size_t)(close - open - 1))) {
        snprintf(err, errlen, "unbalanced '[' in '%s'", rest);
        return FC_ERR_INVALID;
    }
    if (close == open + 1) {
        snprintf(err, errlen, "empty range '[]'");
        return FC_ERR_INVALID;
    }
    p = open + 1;
    while (p < close) {
        const char *comma = memchr(p, ',', (size_t)(close - p));
        const char *end = comma ? comma : close;
        const char *dash;
        size_t len = (size_t)(end - p);
        unsigned long lo, hi;
        int width;
        char *e;

        if (len == 0 || len >= sizeof(item)) {
            snprintf(err, errlen, "empty or overlong item in range '%.*s'",
                     (int)(close - open + 1), open);
            return FC_ERR_INVALID;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        dash = strchr(item, '-');
        if (item[0] < '0' || item[0] > '9')
            goto bad_item;
        lo = strtoul(item, &e, 10);
        width = (int)(e - item);
        if (dash) {
            if (e != dash || dash[1] < '0' || dash[1] > '9')
                goto bad_item;
            hi = strtoul(dash + 1, &e, 10);
        } else {
            hi = lo;
        }
        if (*e != '\0')
            goto bad_item;
        if (hi < lo || hi - lo >= FC_HOSTLIST_MAX) {
            snprintf(err, errlen, "range '%s' runs backwards or is too long",
                     item);
            return FC_ERR_INVALID;
        }
        for (unsigned long v = lo; v <= hi; ++v) {
            snprintf(head, sizeof(head), "%s%.*s%0*lu", prefix,
                     (int)(open - rest), rest, width, v);
            if (strlen(head) >= FC_INV_NAME_MAX) {
                snprintf(err, errlen, "host name '%s' is too long", head);
                return FC_ERR_INVALID;
            }
            FC_CHECK(fc_hostlist_term(head, close + 1, out, err, errlen));
        }
        p = comma ? comma + 1 : close;
        if (comma && p == close) {
            snprintf(err, errlen, "range ends with ','");
            return FC_ERR_INVALID;
        }
        continue;
bad_item:
        snprintf(err, errlen, "'%s' in a range is not N or N-M", item);
        return FC_ERR_INVALID;
    }
    return FC_OK;
}

fc_status_t fc_hostlist_expand(const char *expr, char (**names_p)[FC_INV_NAME_MAX],
                               int *count_p, char *err, size_t errlen)
{
    fc_namebuf_t out = { NULL, 0, 0 };
    size_t n = strlen(expr);
    char *copy = fc_xstrdup(expr, "a host list");
    size_t start = 0;
    int depth = 0;

    for (size_t i = 0; i <= n; ++i) {
        char c = copy[i];

        if (c == '[')
            ++depth;
        else if (c == ']' && --depth < 0)
            break;
        if ((c == ',' && depth == 0) || c == '\0') {
            copy[i] = '\0';
            if (fc_hostlist_term("", copy + start, &out, err, errlen) != FC_OK)
                goto fail;
            start = i + 1;
        }
    }
    if (depth != 0) {
        snprintf(err, errlen, "unbalanced brackets in '%s'", expr);
        goto fail;
    }
    free(copy);
    *names_p = out.names;
    *count_p = out.count;
    return FC_OK;
fail:
    free(copy);
    free(out.names);
    return FC_ERR_INVALID;
}
