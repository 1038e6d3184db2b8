/*
 * fc_pairs_records.h - how the reports name and show the pairs stage's
 * records (suites/pairs.c, lib/pairs/fc_pairs_report.c): pair (a pair of
 * nodes, both directions, per size) and pairs_node (a node, against all
 * its partners; its finding names the node, fc_node_records.h). Their
 * label, certificate figure, HTML cell and rules; rows of the record table
 * in fc_record.c. The rails stage's rail_pair is shown as a pair with its
 * NICs (fc_rails_records.c) and judged by a pair's rules.
 */
#ifndef FC_PAIRS_RECORDS_H
#define FC_PAIRS_RECORDS_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

void fc_label_pair(json_t *rec, char *buf, size_t len);         /* "pair a <-> b" */
void fc_label_pairs_node(json_t *rec, char *buf, size_t len);   /* "link of h" */
void fc_figure_pair(json_t *rec, json_t *f);            /* hosts, latency, sizes */
void fc_figure_pairs_node(json_t *rec, json_t *f);      /* host, slow partners */
void fc_cell_pair(FILE *f, json_t *rec);           /* bandwidth per direction, latency */
void fc_cell_pairs_node(FILE *f, json_t *rec);     /* slow with how many partners */
void fc_rules_pair(json_t *rec, json_t *lines);            /* per size; latency */
/* Its sizes and latency judged again against its own limits: 1 with why
 * when they fail (fc_record_limits_func_t; a rail's pair too). */
int fc_limits_pair(json_t *rec, char *why, size_t len);

#endif
