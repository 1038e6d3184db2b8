/*
 * fc_rails_records.h - how the reports name and show the rails stage's
 * records (suites/rails.c, lib/rails/fc_rails_judge.c): rail_pair (a pair of
 * NICs on one rail), rail_node (one NIC against its partners, with its
 * figures) and rail (one rail against the others). Rows of the record
 * table in fc_record.c.
 */
#ifndef FC_RAILS_RECORDS_H
#define FC_RAILS_RECORDS_H

#include <jansson.h>
#include <stdio.h>

void fc_label_rail_pair(json_t *rec, char *buf, size_t len);  /* "rail 1 pair a eth1 <-> b eth1" */
void fc_label_rail_node(json_t *rec, char *buf, size_t len);  /* "NIC eth1 of a (rail 1)" */
void fc_subject_rail_node(json_t *rec, char *buf, size_t len);    /* "NIC a eth1" */
void fc_label_rail(json_t *rec, char *buf, size_t len);       /* "rail 1" */
void fc_figure_rail_pair(json_t *rec, json_t *f);
void fc_figure_rail_node(json_t *rec, json_t *f);    /* host, nic, pci, rail, per-size figures */
void fc_figure_rail(json_t *rec, json_t *f);
void fc_cell_rail_pair(FILE *f, json_t *rec);
void fc_cell_rail_node(FILE *f, json_t *rec);        /* send/recv medians, latency */
void fc_cell_rail(FILE *f, json_t *rec);             /* each kind's median against the best */

#endif
