/*
 * fc_profile_yaml.c - see fc_profile_yaml.h: the walker that reads a
 * mapping against a table of keys, and the readers of each field type, on
 * libfyaml's document tree. Positions come from the scalar tokens (a
 * mapping or sequence is reported at its key). Every reader takes the
 * key's name for its messages, so one message reads the same wherever
 * the key is.
 */
#include "fc_profile_yaml.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_profile.h"

void fc_yaml_mark(struct fy_node *n, int *line_p, int *col_p)
{
    struct fy_token *t = n ? fy_node_get_scalar_token(n) : NULL;
    const struct fy_mark *m = t ? fy_token_start_mark(t) : NULL;

    *line_p = m ? m->line + 1 : 0;
    *col_p = m ? m->column + 1 : 0;
}

fc_status_t fc_yaml_error(const fc_yaml_ctx_t *ctx, struct fy_node *n, struct fy_node *key,
                          const char *fmt, ...)
{
    char msg[1024];
    int line, col;
    va_list ap;

    fc_yaml_mark(n && fy_node_is_scalar(n) ? n : key, &line, &col);
    if (line == 0)          /* an empty value (`stages:`) has no token: its key */
        fc_yaml_mark(key, &line, &col);
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "fabcert: %s:%d:%d: %s\n", ctx->path, line, col, msg);
    return FC_ERR_INVALID;
}

static const char *fc_yaml_scalar(struct fy_node *n, char *buf, size_t len)
{
    size_t slen;
    const char *s = fy_node_get_scalar(n, &slen);

    if (s == NULL)
        return NULL;
    if (slen >= len)
        slen = len - 1;
    memcpy(buf, s, slen);
    buf[slen] = '\0';
    return buf;
}

/* The value of key as text in buf (cut to len). No value may hold a
 * control character: a name or description is printed in the summary,
 * and a newline there would forge a line ("rack r01: PASS"). */
static fc_status_t fc_yaml_text(const fc_yaml_ctx_t *ctx, struct fy_node *k, struct fy_node *v,
                                const char *key, const char *what, char *buf, size_t len)
{
    size_t slen = 0;
    const char *s;

    if (v == NULL || !fy_node_is_scalar(v) || !fc_yaml_scalar(v, buf, len))
        return fc_yaml_error(ctx, v, k, "'%s' must be %s", key, what);
    s = fy_node_get_scalar(v, &slen);
    for (size_t i = 0; i < slen; ++i)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return fc_yaml_error(ctx, v, k, "'%s' holds a control character (byte 0x%02x "
                                 "at offset %zu): profile values are printed in the "
                                 "reports, and must be printable text", key,
                                 (unsigned char)s[i], i);
    return FC_OK;
}

static fc_status_t fc_yaml_bool(const fc_yaml_ctx_t *ctx, struct fy_node *k, struct fy_node *v,
                                const char *key, int *out)
{
    char buf[64];

    FC_CHECK(fc_yaml_text(ctx, k, v, key, "true or false", buf, sizeof(buf)));
    if (strcmp(buf, "true") == 0)
        *out = 1;
    else if (strcmp(buf, "false") == 0)
        *out = 0;
    else
        return fc_yaml_error(ctx, v, k, "'%s' must be true or false, not '%s'", key, buf);
    return FC_OK;
}

fc_status_t fc_yaml_number(const fc_yaml_ctx_t *ctx, struct fy_node *k, struct fy_node *v,
                           const char *key, double lo, double hi, double *out)
{
    char buf[64], *end;
    double d;

    FC_CHECK(fc_yaml_text(ctx, k, v, key, "a number", buf, sizeof(buf)));
    errno = 0;
    d = strtod(buf, &end);
    if (buf[0] == '\0' || *end != '\0' || errno != 0 || !isfinite(d))
        return fc_yaml_error(ctx, v, k, "'%s' must be a number, not '%s'", key, buf);
    if (d < lo || d > hi)
        return fc_yaml_error(ctx, v, k, "'%s' is %s; it must be between %g and %g",
                             key, buf, lo, hi);
    *out = d;
    return FC_OK;
}

static fc_status_t fc_yaml_int(const fc_yaml_ctx_t *ctx, struct fy_node *k, struct fy_node *v,
                               const char *key, int lo, int hi, int *out)
{
    double d = 0;

    FC_CHECK(fc_yaml_number(ctx, k, v, key, lo, hi, &d));
    if (d != floor(d))
        return fc_yaml_error(ctx, v, k, "'%s' must be a whole number", key);
    *out = (int)d;
    return FC_OK;
}

fc_status_t fc_yaml_size(const fc_yaml_ctx_t *ctx, struct fy_node *k, struct fy_node *v,
                         const char *key, uint64_t *out)
{
    char buf[64];

    FC_CHECK(fc_yaml_text(ctx, k, v, key, "a size", buf, sizeof(buf)));
    if (fc_parse_size(buf, out) != 0 || *out == 0)
        return fc_yaml_error(ctx, v, k,
                             "'%s' must be a positive size such as 4096, 64KiB or 1MiB, not '%s'",
                             key, buf);
    return FC_OK;
}

/* One of f->choices: "a or b", "a, b or c" in messages. */
static fc_status_t fc_yaml_choice(const fc_yaml_ctx_t *ctx, const fc_yaml_field_t *f,
                                  struct fy_node *k, struct fy_node *v, void *member)
{
    char buf[64], names[256] = "";
    int n = 0;

    while (f->choices[n].name != NULL)
        ++n;
    for (int c = 0; c < n; ++c)
        snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
                 c == 0 ? "" : c == n - 1 ? " or " : ", ", f->choices[c].name);
    FC_CHECK(fc_yaml_text(ctx, k, v, f->key, names, buf, sizeof(buf)));
    for (int c = 0; c < n; ++c) {
        if (strcmp(buf, f->choices[c].name) != 0)
            continue;
        if (f->len > 0)
            snprintf(member, f->len, "%s", buf);
        else
            *(int *)member = f->choices[c].value;
        return FC_OK;
    }
    return fc_yaml_error(ctx, v, k, "'%s' must be %s, not '%s'", f->key, names, buf);
}

/* One name, or "any". */
static fc_status_t fc_yaml_name(const fc_yaml_ctx_t *ctx, const fc_yaml_field_t *f,
                                struct fy_node *k, struct fy_node *v, int *out)
{
    char buf[64];

    FC_CHECK(fc_yaml_text(ctx, k, v, f->key, "a name", buf, sizeof(buf)));
    if (strcmp(buf, "any") == 0)
        *out = FC_ANY;
    else if ((*out = f->from_name(buf)) < 0)
        return fc_yaml_error(ctx, v, k, "unknown %s '%s'", f->key, buf);
    return FC_OK;
}

/* A sequence of distinct names, none "any". */
static fc_status_t fc_yaml_names(const fc_yaml_ctx_t *ctx, const fc_yaml_field_t *f,
                                 struct fy_node *k, struct fy_node *v, int *out, int *count_p)
{
    void *iter = NULL;
    struct fy_node *item;
    char buf[64];
    int count = 0;

    if (v == NULL || fy_node_get_type(v) != FYNT_SEQUENCE)
        return fc_yaml_error(ctx, v, k, "'%s' must be a list", f->key);
    while ((item = fy_node_sequence_iterate(v, &iter)) != NULL) {
        int id;

        FC_CHECK(fc_yaml_text(ctx, k, item, f->key, "a list of names", buf, sizeof(buf)));
        id = f->from_name(buf);
        if (id < 0)
            return fc_yaml_error(ctx, item, k, "unknown name '%s' in '%s'", buf, f->key);
        for (int c = 0; c < count; ++c)
            if (out[c] == id)
                return fc_yaml_error(ctx, item, k, "'%s' is listed twice in '%s'", buf,
                                     f->key);
        if (count == f->max)
            return fc_yaml_error(ctx, item, k, "too many entries in '%s'", f->key);
        out[count++] = id;
    }
    if (count == 0)
        return fc_yaml_error(ctx, v, k, "'%s' must not be empty", f->key);
    *count_p = count;
    return FC_OK;
}

/* Read one key's value into its member of base, by its type. */
static fc_status_t fc_yaml_read(const fc_yaml_ctx_t *ctx, const fc_yaml_field_t *f,
                                struct fy_node *k, struct fy_node *v, void *base)
{
    void *member = (char *)base + (f->offset == FC_YAML_NOT_KEPT ? 0 : f->offset);
    char buf[512];

    switch (f->type) {
    case FC_YAML_BOOL:
        return fc_yaml_bool(ctx, k, v, f->key, member);
    case FC_YAML_NUMBER:
        return fc_yaml_number(ctx, k, v, f->key, f->lo, f->hi, member);
    case FC_YAML_INT:
        return fc_yaml_int(ctx, k, v, f->key, (int)f->lo, (int)f->hi, member);
    case FC_YAML_SIZE:
        return fc_yaml_size(ctx, k, v, f->key, member);
    case FC_YAML_STRING:
        FC_CHECK(fc_yaml_text(ctx, k, v, f->key, f->what, buf,
                              f->len < sizeof(buf) ? f->len : sizeof(buf)));
        if (f->offset != FC_YAML_NOT_KEPT)
            snprintf(member, f->len, "%s", buf);
        return FC_OK;
    case FC_YAML_CHOICE:
        return fc_yaml_choice(ctx, f, k, v, member);
    case FC_YAML_NAME:
        return fc_yaml_name(ctx, f, k, v, member);
    case FC_YAML_NAMES:
        return fc_yaml_names(ctx, f, k, v, member, (int *)((char *)base + f->count_offset));
    case FC_YAML_MAP:
        return fc_yaml_walk(ctx, v, k, f->section, member);
    case FC_YAML_FUNC:
        return f->parse(ctx, f, k, v, base);
    case FC_YAML_INCLUDE:
        break;
    }
    return fc_yaml_error(ctx, v, k, "'%s' has no reader (internal error)", f->key);
}

fc_status_t fc_yaml_map_next(const fc_yaml_ctx_t *ctx, struct fy_node *map,
                             struct fy_node *mapkey, const char *where, void **iter_p,
                             char *name, size_t len, struct fy_node **k_p,
                             struct fy_node **v_p)
{
    struct fy_node_pair *pair;
    struct fy_node *k;

    *k_p = *v_p = NULL;
    if (map == NULL || fy_node_get_type(map) != FYNT_MAPPING)
        return fc_yaml_error(ctx, map, mapkey, "%s must be a mapping", where);
    if ((pair = fy_node_mapping_iterate(map, iter_p)) == NULL)
        return FC_OK;
    k = fy_node_pair_key(pair);
    if (k == NULL || !fy_node_is_scalar(k) || !fc_yaml_scalar(k, name, len))
        return fc_yaml_error(ctx, k, k, "%s has a key that is not a name", where);
    *k_p = k;
    *v_p = fy_node_pair_value(pair);
    return FC_OK;
}

fc_status_t fc_yaml_unknown_key(const fc_yaml_ctx_t *ctx, struct fy_node *k, const char *name,
                                const char *where, const char *expected)
{
    return fc_yaml_error(ctx, k, k, "unknown key '%s' in %s (expected one of: %s)", name,
                         where, expected);
}

static const fc_yaml_field_t *fc_yaml_find(const fc_yaml_field_t *keys, const char *name)
{
    for (const fc_yaml_field_t *f = keys; f->key; ++f) {
        const fc_yaml_field_t *found = f->type == FC_YAML_INCLUDE
                                       ? fc_yaml_find(f->include, name)
                                       : strcmp(f->key, name) == 0 ? f : NULL;

        if (found)
            return found;
    }
    return NULL;
}

/* "a, b, c": a table's keys, in table order, after what buf holds. */
static void fc_yaml_key_list(const fc_yaml_field_t *keys, char *buf, size_t len)
{
    for (const fc_yaml_field_t *f = keys; f->key; ++f) {
        if (f->type == FC_YAML_INCLUDE)
            fc_yaml_key_list(f->include, buf, len);
        else
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? ", " : "",
                     f->key);
    }
}

void fc_yaml_defaults(const fc_yaml_field_t *keys, void *base)
{
    for (const fc_yaml_field_t *f = keys; f->key; ++f) {
        if (f->type == FC_YAML_INCLUDE)
            fc_yaml_defaults(f->include, base);
        else if (f->type == FC_YAML_MAP && f->defaults)
            memcpy((char *)base + f->offset, f->defaults, f->len);
    }
}

fc_status_t fc_yaml_walk(const fc_yaml_ctx_t *ctx, struct fy_node *map, struct fy_node *mapkey,
                         const fc_yaml_section_t *sec, void *base)
{
    void *iter = NULL;
    struct fy_node *k, *v;
    char name[128], expected[512];

    for (;;) {
        const fc_yaml_field_t *f;

        FC_CHECK(fc_yaml_map_next(ctx, map, mapkey, sec->where, &iter, name, sizeof(name),
                                  &k, &v));
        if (k == NULL)
            break;
        f = fc_yaml_find(sec->keys, name);
        if (f == NULL) {
            expected[0] = '\0';
            fc_yaml_key_list(sec->keys, expected, sizeof(expected));
            return fc_yaml_unknown_key(ctx, k, name, sec->where, expected);
        }
        if (sec->admit)
            FC_CHECK(sec->admit(ctx, f, k));
        FC_CHECK(fc_yaml_read(ctx, f, k, v, base));
        if (f->check)
            FC_CHECK(f->check(ctx, f, k, v, base));
    }
    return sec->done ? sec->done(ctx, mapkey, map, base) : FC_OK;
}
