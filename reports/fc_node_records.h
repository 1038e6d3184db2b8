/*
 * fc_node_records.h - how the reports name and show the records of the
 * hardware as found: preflight (a node's inventory against the expected,
 * suites/preflight.c) and nvlink_domain (a rack's GPUs against one NVLink
 * fabric clique, NVML's word, lib/stage/fc_domain.c for suites/domain.c).
 * Their label, finding subject, certificate figure and HTML cell; rows of
 * the record table in fc_record.c. A finding about a node (preflight, the
 * pairs stage's pairs_node) names it "node h".
 */
#ifndef FC_NODE_RECORDS_H
#define FC_NODE_RECORDS_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

void fc_label_preflight(json_t *rec, char *buf, size_t len);     /* "inventory of h" */
void fc_subject_node(json_t *rec, char *buf, size_t len);        /* "node h" */
void fc_label_nvlink_domain(json_t *rec, char *buf, size_t len); /* "NVLink domain of rack r" */
void fc_figure_host(json_t *rec, json_t *f);            /* the host (preflight) */
void fc_figure_nvlink_domain(json_t *rec, json_t *f);   /* GPUs, hosts, cliques */
void fc_cell_preflight(FILE *f, json_t *rec);      /* cores, memory, GPUs, NICs, affinity */
void fc_cell_nvlink_domain(FILE *f, json_t *rec);  /* GPUs per NVLink clique */

#endif
