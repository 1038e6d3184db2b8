/*
 * fc_sweep_records.h - how the reports name and show the records of the
 * collective sweeps: point (one measured point: the node, rack, cluster
 * and soak stages, lib/stage/fc_stage_records.c), contention (a collective
 * under background traffic, lib/background/fc_contention_judge.c for
 * suites/contention.c), overlap (a collective beside host compute,
 * lib/overlap/fc_overlap.c for suites/overlap.c) and scaling (a point on
 * one node count of the series, suites/scaling.c). Their label, finding
 * subject, certificate figure, HTML cell and rules; rows of the record
 * table in fc_record.c. A soak point's windows and drift are the soak's
 * (fc_soak_records.h).
 */
#ifndef FC_SWEEP_RECORDS_H
#define FC_SWEEP_RECORDS_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

/* "all_reduce float32 sum 4 KiB on rack1" (label: the size as people
 * read it; subject: as the stage wrote it, "4096 bytes"), then " under
 * storage" (contention) or " beside compute" (overlap); a scaling point's
 * group is "N nodes", its subject a point's. */
void fc_label_point(json_t *rec, char *buf, size_t len);
void fc_subject_point(json_t *rec, char *buf, size_t len);
void fc_label_contention(json_t *rec, char *buf, size_t len);
void fc_subject_contention(json_t *rec, char *buf, size_t len);
void fc_label_overlap(json_t *rec, char *buf, size_t len);
void fc_subject_overlap(json_t *rec, char *buf, size_t len);
void fc_label_scaling(json_t *rec, char *buf, size_t len);

void fc_figure_point(json_t *rec, json_t *f);           /* busbw, time, limits, soak drift */
void fc_figure_contention(json_t *rec, json_t *f);      /* slowdown, background load */
void fc_figure_overlap(json_t *rec, json_t *f);         /* the three times, overlap */
void fc_figure_scaling(json_t *rec, json_t *f);         /* busbw, the drop */

void fc_cell_point(FILE *f, json_t *rec);          /* busbw, median, wrong, MB out, soak drift */
void fc_cell_contention(FILE *f, json_t *rec);     /* slowdown, background achieved */
void fc_cell_overlap(FILE *f, json_t *rec);        /* the three times, overlap */
void fc_cell_scaling(FILE *f, json_t *rec);        /* busbw, the drop */

void fc_rules_point(json_t *rec, json_t *lines);           /* limits, relative, drift */
void fc_rules_contention(json_t *rec, json_t *lines);      /* max slowdown */
void fc_rules_overlap(json_t *rec, json_t *lines);         /* min overlap */
void fc_rules_scaling(json_t *rec, json_t *lines);         /* max drop, limits */

/* The figures judged again against the record's own limits, as its stage
 * judged them: 1 with why when they fail (fc_record_limits_func_t). */
int fc_limits_point(json_t *rec, char *why, size_t len);       /* limit, drift, counters */
int fc_limits_contention(json_t *rec, char *why, size_t len);  /* max slowdown, counters */
int fc_limits_overlap(json_t *rec, char *why, size_t len);     /* min overlap, work */
int fc_limits_scaling(json_t *rec, char *why, size_t len);     /* floor, max drop */

#endif
