/*
 * fc_soak_records.h - how the reports name and show the soak stage's
 * records (suites/soak.c): soak_counters (a node's link error counters
 * over the soak), soak_gpu (a GPU's burn and health over the soak,
 * lib/soak/fc_soak_gpu_record.c on the nccl backend; its reasons name the
 * GPU and host themselves), and the soak block of a soak point (its runs,
 * windows and drift, lib/soak/fc_drift_record.c), which a point's figure,
 * cell and rules (fc_sweep_records.h) add. Their label, certificate
 * figure, HTML cell and rules; rows of the record table in fc_record.c.
 */
#ifndef FC_SOAK_RECORDS_H
#define FC_SOAK_RECORDS_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

void fc_label_soak_counters(json_t *rec, char *buf, size_t len); /* "link error counters of h" */
void fc_label_soak_gpu(json_t *rec, char *buf, size_t len);      /* "GPU 0 (uuid) of h" */
void fc_figure_soak_counters(json_t *rec, json_t *f);   /* counter deltas, limit */
void fc_figure_soak_gpu(json_t *rec, json_t *f);        /* the GPU, burn, health */
void fc_cell_soak_counters(FILE *f, json_t *rec);  /* the counters that moved */
void fc_cell_soak_gpu(FILE *f, json_t *rec);       /* burn TFLOPS, health windows */
void fc_rules_soak_counters(json_t *rec, json_t *lines);   /* max error delta */
void fc_rules_soak_gpu(json_t *rec, json_t *lines);        /* GPU health limits, burn */

/* A soak point's `soak` member (nothing where it is not an object): its
 * runs, windows and drift added to the point's figure f, written to its
 * cell, and its drift rule appended to lines (notes: the point's
 * rules_not_applied, which may say why itself). */
void fc_figure_soak_drift(json_t *soak, json_t *f);
void fc_cell_soak_drift(FILE *f, json_t *soak);
void fc_rules_soak_drift(json_t *lines, json_t *soak, json_t *notes);
/* A soak point's drift judged again from its windows (1 with why when it
 * fails; the rule is in fc_soak_records.c). */
int fc_soak_drift_fails(json_t *soak, char *why, size_t len);

#endif
