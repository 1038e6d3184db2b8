/*
 * fc_json.c - see fc_json.h. Records come from results.jsonl, which a kill
 * can cut short and anyone can edit: a member of the wrong type reads as
 * absent, never as a crash.
 */
#include "fc_json.h"

#include <string.h>

const char *fc_json_str(json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));

    return s ? s : "";
}

int fc_json_has_string(json_t *array, const char *s)
{
    size_t i;
    json_t *v;

    json_array_foreach(array, i, v)
        if (json_is_string(v) && strcmp(json_string_value(v), s) == 0)
            return 1;
    return 0;
}
