/*
 * fc_json.h - the two jansson helpers every part of the reports (and the
 * runner, through fc_verdict.h) reads records with: a string member that
 * is "" when absent or not a string, and whether an array holds a string.
 * A leaf: it includes nothing of the reports, so every other module can
 * use it without an include circle.
 */
#ifndef FC_JSON_H
#define FC_JSON_H

#include <jansson.h>

/* The string member `key` of a record, or "" when absent. */
const char *fc_json_str(json_t *obj, const char *key);

/* 1 if array (a JSON array, or NULL) holds the string s. */
int fc_json_has_string(json_t *array, const char *s);

#endif
