/*
 * fc_attempt_records.h - how the reports name and show the records about
 * a stage's attempt rather than one measurement: hang and crash (the
 * runner's account of an attempt that did not end,
 * runners/fc_diagnose_stuck.c, runners/fc_diagnose_crash.c,
 * runners/fc_diagnose_after_end.c), retest (the retest that places a
 * group's fault: lib/retest/fc_retest_records.c, lib/retest/fc_retest_slow.c
 * for suites/retest.c, and runners/fc_retest.c; the bounded retest of a
 * host common to every wrong result) and selftest (a self-test the stage
 * could not run, lib/stage/fc_stage_world.c). Their label, certificate
 * figure and HTML cell; rows of the record table in fc_record.c.
 */
#ifndef FC_ATTEMPT_RECORDS_H
#define FC_ATTEMPT_RECORDS_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

void fc_label_hang(json_t *rec, char *buf, size_t len);      /* "arrival of h" */
void fc_label_crash(json_t *rec, char *buf, size_t len);     /* "ranks 1-3 of h (died)" */
void fc_label_retest(json_t *rec, char *buf, size_t len);    /* "retest of the ... in g" */
void fc_label_selftest(json_t *rec, char *buf, size_t len);  /* "self-test of the s stage" */
void fc_figure_stop(json_t *rec, json_t *f);            /* host, ranks, where stuck */
void fc_figure_retest(json_t *rec, json_t *f);          /* group, culprit, exchanges */
void fc_cell_stop(FILE *f, json_t *rec);           /* where it was stuck */
void fc_cell_retest(FILE *f, json_t *rec);         /* its first reason */

#endif
