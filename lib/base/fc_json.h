/*
 * fc_json.h - the two jansson helpers that every part reading records
 * (the reports, the runner, the retest, the counters and rails judges)
 * reads them with: a string member that is "" when absent or not a
 * string, and whether an array holds a string. A leaf of lib/base: it
 * includes nothing of fabcert.
 */
#ifndef FC_JSON_H
#define FC_JSON_H

#include <jansson.h>

/* The string member `key` of a record, or "" when absent. */
const char *fc_json_str(json_t *obj, const char *key);

/* 1 if array (a JSON array, or NULL) holds the string s. */
int fc_json_has_string(json_t *array, const char *s);

#endif
