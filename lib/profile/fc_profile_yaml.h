/*
 * fc_profile_yaml.h - the profile reader's YAML machinery (private to the
 * lib/profile/fc_profile*.c files): a section of a profile is a table of keys,
 * each a name and either a typed field (where it goes in the section's
 * struct, its type, its range) or a handler function, and one walker reads
 * any mapping against such a table. Keys are matched by name, never by
 * their place in the table, so a key added anywhere in a table routes no
 * other. An unknown key, a wrong type or a bad value is an error naming
 * file:line:column (fc_yaml_error), and the loader returns FC_ERR_INVALID.
 */
#ifndef FC_PROFILE_YAML_H
#define FC_PROFILE_YAML_H

#include <libfyaml.h>
#include <stddef.h>
#include <stdint.h>

#include "fc_status.h"

/* What is being read, for messages and for rules that depend on where. */
typedef struct fc_yaml_ctx {
    const char *path;               /* the profile's file */
    int stage;                      /* fc_stage_id_t of the stage being read,
                                     * -1 outside a stage */
} fc_yaml_ctx_t;

typedef struct fc_yaml_field fc_yaml_field_t;

/* A key's handler, or a rule checked after its typed read: base is the
 * section's struct (the field's offset is from there), k the key's node,
 * v the value's (NULL for an empty value). */
typedef fc_status_t (*fc_yaml_field_func_t)(const fc_yaml_ctx_t *ctx, const fc_yaml_field_t *f,
                                            struct fy_node *k, struct fy_node *v, void *base);
/* A section's rule on a key before it is read (may refuse it here). */
typedef fc_status_t (*fc_yaml_admit_func_t)(const fc_yaml_ctx_t *ctx, const fc_yaml_field_t *f,
                                            struct fy_node *k);
/* A section's rule across its keys, once the whole mapping is read: k is
 * the section's key (NULL for the top level), map its value. */
typedef fc_status_t (*fc_yaml_done_func_t)(const fc_yaml_ctx_t *ctx, struct fy_node *k,
                                           struct fy_node *map, void *base);

/* How a key's value is read and where it goes. */
typedef enum fc_yaml_type {
    FC_YAML_BOOL = 0,               /* int: true or false */
    FC_YAML_NUMBER,                 /* double in [lo, hi] */
    FC_YAML_INT,                    /* int, a whole number in [lo, hi] */
    FC_YAML_SIZE,                   /* uint64_t: a positive size, "64KiB" */
    FC_YAML_STRING,                 /* char[len]: printable text; offset
                                     * FC_YAML_NOT_KEPT: checked, not kept */
    FC_YAML_CHOICE,                 /* int: the value of the name among
                                     * choices; with len, char[len]: the name */
    FC_YAML_NAME,                   /* int: one name mapped by from_name,
                                     * or "any" (FC_ANY) */
    FC_YAML_NAMES,                  /* int[max] and an int count: a list of
                                     * distinct names mapped by from_name */
    FC_YAML_MAP,                    /* a struct: a mapping read through section */
    FC_YAML_FUNC,                   /* anything else: parse reads it */
    FC_YAML_INCLUDE,                /* not a key: the rows of another table
                                     * (include), accepted and listed here */
} fc_yaml_type_t;

#define FC_YAML_NOT_KEPT SIZE_MAX

/* One accepted value of an FC_YAML_CHOICE key. */
typedef struct fc_yaml_choice {
    const char *name;               /* as written in the profile; NULL ends */
    int value;                      /* what the int member gets */
} fc_yaml_choice_t;

/* A section: the keys one mapping accepts, and its rules. */
typedef struct fc_yaml_section {
    const char *where;              /* in messages: "'soak'", "a limit rule" */
    const fc_yaml_field_t *keys;    /* ends at a NULL key */
    fc_yaml_admit_func_t admit;     /* before each key is read, or NULL */
    fc_yaml_done_func_t done;       /* after the mapping is read, or NULL */
} fc_yaml_section_t;

/* One key of a section. Only the members its type names are read. */
struct fc_yaml_field {
    const char *key;                /* the key's name; NULL ends a table */
    fc_yaml_type_t type;            /* how its value is read */
    size_t offset;                  /* of its member in the section's struct */
    size_t len;                     /* STRING, CHOICE: the char member's size;
                                     * MAP: the member's size */
    double lo, hi;                  /* NUMBER, INT: the accepted range */
    const char *what;               /* STRING: what the value must be, for
                                     * messages ("a directory") */
    const fc_yaml_choice_t *choices;    /* CHOICE: the accepted names */
    int (*from_name)(const char *name); /* NAME, NAMES: name to id, -1 unknown */
    size_t count_offset;            /* NAMES: of the int count member */
    int max;                        /* NAMES: the most names */
    const fc_yaml_section_t *section;   /* MAP: the member's own keys */
    const void *defaults;           /* MAP: the member's values before the
                                     * profile's (fc_yaml_defaults), or NULL */
    fc_yaml_field_func_t parse;     /* FUNC: reads the value */
    const fc_yaml_field_t *include; /* INCLUDE: the table spliced in */
    fc_yaml_field_func_t check;     /* after any read: a further rule, or NULL */
    unsigned stage_section;         /* stage keys: the FC_SECT_* bit the key
                                     * is, 0 for a key every stage reads */
};

/* Table rows. T is the section's struct, m its member; the optional last
 * arguments are further designated initialisers (.check = ...). */
#define FC_KEY_BOOL(k, T, m, ...) \
    { .key = (k), .type = FC_YAML_BOOL, .offset = offsetof(T, m), __VA_ARGS__ }
#define FC_KEY_NUMBER(k, T, m, l, h, ...) \
    { .key = (k), .type = FC_YAML_NUMBER, .offset = offsetof(T, m), .lo = (l), .hi = (h), \
      __VA_ARGS__ }
#define FC_KEY_INT(k, T, m, l, h, ...) \
    { .key = (k), .type = FC_YAML_INT, .offset = offsetof(T, m), .lo = (l), .hi = (h), \
      __VA_ARGS__ }
#define FC_KEY_SIZE(k, T, m, ...) \
    { .key = (k), .type = FC_YAML_SIZE, .offset = offsetof(T, m), __VA_ARGS__ }
#define FC_KEY_STRING(k, T, m, w, ...) \
    { .key = (k), .type = FC_YAML_STRING, .offset = offsetof(T, m), \
      .len = sizeof(((T *)0)->m), .what = (w), __VA_ARGS__ }
#define FC_KEY_TEXT(k, n, w) \
    { .key = (k), .type = FC_YAML_STRING, .offset = FC_YAML_NOT_KEPT, .len = (n), .what = (w) }
#define FC_KEY_CHOICE(k, T, m, c, ...) \
    { .key = (k), .type = FC_YAML_CHOICE, .offset = offsetof(T, m), .choices = (c), \
      __VA_ARGS__ }
#define FC_KEY_CHOICE_STRING(k, T, m, c, ...) \
    { .key = (k), .type = FC_YAML_CHOICE, .offset = offsetof(T, m), \
      .len = sizeof(((T *)0)->m), .choices = (c), __VA_ARGS__ }
#define FC_KEY_NAME(k, T, m, fn, ...) \
    { .key = (k), .type = FC_YAML_NAME, .offset = offsetof(T, m), .from_name = (fn), \
      __VA_ARGS__ }
#define FC_KEY_NAMES(k, T, m, count, fn, ...) \
    { .key = (k), .type = FC_YAML_NAMES, .offset = offsetof(T, m), \
      .count_offset = offsetof(T, count), \
      .max = (int)(sizeof(((T *)0)->m) / sizeof(((T *)0)->m[0])), .from_name = (fn), \
      __VA_ARGS__ }
#define FC_KEY_MAP(k, T, m, sec, ...) \
    { .key = (k), .type = FC_YAML_MAP, .offset = offsetof(T, m), .section = (sec), \
      __VA_ARGS__ }
#define FC_KEY_FUNC(k, fn, ...) \
    { .key = (k), .type = FC_YAML_FUNC, .parse = (fn), __VA_ARGS__ }
#define FC_KEY_INCLUDE(table) { .key = "", .type = FC_YAML_INCLUDE, .include = (table) }
#define FC_KEY_END { .key = NULL }

/* "fabcert: FILE:LINE:COL: message" to stderr, at node n if it is a
 * scalar, else at key (a collection, or an empty value, is reported at
 * its key); returns FC_ERR_INVALID. */
__attribute__((format(printf, 4, 5)))
fc_status_t fc_yaml_error(const fc_yaml_ctx_t *ctx, struct fy_node *n, struct fy_node *key,
                          const char *fmt, ...);
/* The 1-based line and column of a scalar node (0, 0 for none). */
void fc_yaml_mark(struct fy_node *n, int *line_p, int *col_p);

/* Set every MAP member of base that has defaults to them. */
void fc_yaml_defaults(const fc_yaml_field_t *keys, void *base);
/* Read a mapping against a section: every key must be in its tables. */
fc_status_t fc_yaml_walk(const fc_yaml_ctx_t *ctx, struct fy_node *map, struct fy_node *mapkey,
                         const fc_yaml_section_t *sec, void *base);
/* For a mapping whose keys no table lists (stages:): the next key, by
 * name, and its value; *k_p is NULL after the last. Errors if map is not
 * a mapping or a key is not a name ("WHERE must be a mapping"). */
fc_status_t fc_yaml_map_next(const fc_yaml_ctx_t *ctx, struct fy_node *map,
                             struct fy_node *mapkey, const char *where, void **iter_p,
                             char *name, size_t len, struct fy_node **k_p,
                             struct fy_node **v_p);
/* "unknown key 'NAME' in WHERE (expected one of: EXPECTED)". */
fc_status_t fc_yaml_unknown_key(const fc_yaml_ctx_t *ctx, struct fy_node *k, const char *name,
                                const char *where, const char *expected);

/* Scalar readers, for handlers; key names the key in messages. */
fc_status_t fc_yaml_number(const fc_yaml_ctx_t *ctx, struct fy_node *k, struct fy_node *v,
                           const char *key, double lo, double hi, double *out);
fc_status_t fc_yaml_size(const fc_yaml_ctx_t *ctx, struct fy_node *k, struct fy_node *v,
                         const char *key, uint64_t *out);

#endif
