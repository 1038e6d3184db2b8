/*
 * fc_cert_figure.h - what every record family's certificate figure
 * shares (a stage's "figures" in the certificate): the measured values
 * beside the limits they were judged against, copied from the record, null
 * where the record has none, so a missing figure is seen as missing. Each
 * family's own figure function lives with its label and cell
 * (fc_<family>_records.c) and is named by the record-type table
 * (fc_record.h); the certificate (fc_certificate.c) adds what every figure
 * has: the check's label, the report's verdict, the reasons, a
 * confirmation, and what the zero tolerance for wrong bits found. A leaf:
 * it includes nothing of the reports but fc_json.h.
 */
#ifndef FC_CERT_FIGURE_H
#define FC_CERT_FIGURE_H

#include <jansson.h>

/* A copy of a record's member v, or null where it has none. */
json_t *fc_figure_or_null(json_t *v);
/* The limit `key` of limit as a real, or null where the profile did not
 * set it (absent or negative). */
json_t *fc_figure_limit(json_t *limit, const char *key);
/* The smallest loss its limits would have caught: the record's own, or
 * (a record of an older fabcert) computed from its figures. */
json_t *fc_figure_sensitivity(json_t *rec);

#endif
