/*
 * fc_json_yaml.c - a JSON value written as YAML that reads back as the
 * same value (fc_cmds.h), through libfyaml's document tree and emitter:
 * keys plain where YAML reads them as themselves, every string double
 * quoted (JSON's escapes are YAML's) or, when it has several printable
 * lines, a literal block, so that no string comes back as a number or a
 * boolean (a YAML 1.1 reader, as Kubernetes' is, takes a plain "yes" for
 * true). `fabcert k8s` writes its manifest with it.
 */
#include <ctype.h>
#include <jansson.h>
#include <libfyaml.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fc_alloc.h"
#include "fc_cmds.h"

/* A multi-line string as a YAML literal block, when it reads back the
 * same: printable lines, not starting with a blank. */
static int fc_yaml_literal_ok(const char *s)
{
    if (strchr(s, '\n') == NULL || s[0] == ' ' || s[0] == '\n')
        return 0;
    for (const unsigned char *c = (const unsigned char *)s; *c; ++c)
        if ((*c < 0x20 && *c != '\n' && *c != '\t') || *c == 0x7f)
            return 0;
    return 1;
}

/* A key YAML reads back as that string when plain. */
static int fc_yaml_plain_key(const char *k)
{
    static const char *const words[] = { "y", "n", "yes", "no", "on", "off", "true", "false",
                                         "null" };

    if (!isalpha((unsigned char)k[0]))
        return 0;
    for (const char *c = k; *c; ++c)
        if (!(isalnum((unsigned char)*c) || strchr("._/-", *c)))
            return 0;
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); ++i)
        if (strcasecmp(k, words[i]) == 0)
            return 0;
    return 1;
}

/* JSON into libfyaml's tree: keys plain where safe, every string double
 * quoted (JSON's escapes are YAML's) or a literal block, so no string
 * reads back as a number or a boolean (YAML 1.1's "yes"). */
static struct fy_node *fc_yaml_node(struct fy_document *d, json_t *v)
{
    struct fy_node *n;
    const char *key;
    json_t *x;
    size_t i;
    char num[64], *text;

    switch (json_typeof(v)) {
    case JSON_OBJECT:
        n = fy_node_create_mapping(d);
        json_object_foreach(v, key, x) {
            struct fy_node *k;

            if (fc_yaml_plain_key(key)) {
                k = fy_node_create_scalar_copy(d, key, strlen(key));
            } else {
                json_t *js = json_string(key);

                text = json_dumps(js, JSON_ENCODE_ANY);     /* the document frees it */
                json_decref(js);
                k = fy_node_build_from_malloc_string(d, text, FY_NT);
            }
            fy_node_mapping_append(n, k, fc_yaml_node(d, x));
        }
        return n;
    case JSON_ARRAY:
        n = fy_node_create_sequence(d);
        json_array_foreach(v, i, x)
            fy_node_sequence_append(n, fc_yaml_node(d, x));
        return n;
    case JSON_STRING: {
        const char *s = json_string_value(v);
        size_t len = strlen(s), trail = 0, cap = 2 * len + 16, o = 0;

        if (!fc_yaml_literal_ok(s)) {
            text = json_dumps(v, JSON_ENCODE_ANY);      /* the document frees it */
            return fy_node_build_from_malloc_string(d, text, FY_NT);
        }
        while (trail < len && s[len - 1 - trail] == '\n')
            ++trail;
        text = fc_xmalloc(cap + 8, "a literal block");
        o = (size_t)sprintf(text, "|%s\n", trail == 0 ? "-" : trail == 1 ? "" : "+");
        for (const char *c = s; *c; ++c) {
            if (c == s || c[-1] == '\n')
                text[o++] = ' ', text[o++] = ' ';
            text[o++] = *c;
        }
        text[o] = '\0';
        return fy_node_build_from_malloc_string(d, text, FY_NT);
    }
    case JSON_INTEGER:
        snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return fy_node_create_scalar_copy(d, num, strlen(num));
    case JSON_REAL:
        snprintf(num, sizeof(num), "%.17g", json_real_value(v));
        return fy_node_create_scalar_copy(d, num, strlen(num));
    case JSON_TRUE:
        return fy_node_create_scalar_copy(d, "true", 4);
    case JSON_FALSE:
        return fy_node_create_scalar_copy(d, "false", 5);
    default:
        return fy_node_create_scalar_copy(d, "null", 4);
    }
}

int fc_json_write_yaml(FILE *f, json_t *value)
{
    struct fy_document *d;
    char *text;
    int rc = -1;

    if ((d = fy_document_create(NULL)) == NULL)
        return -1;
    fy_document_set_root(d, fc_yaml_node(d, value));
    text = fy_emit_document_to_string(d, FYECF_MODE_BLOCK | FYECF_INDENT_2 | FYECF_WIDTH_INF);
    if (text)
        rc = fputs(text, f) < 0 ? -1 : 0;
    free(text);
    fy_document_destroy(d);
    return rc;
}
