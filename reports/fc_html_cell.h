/*
 * fc_html_cell.h - the "measured" cell of a check in a rack page's table
 * of checks, one function per type of judged record: the figures a person
 * reads first (busbw and time, a pair's bandwidth, a slowdown, the counters
 * that moved, the inventory). The record-type table (fc_record.h) names
 * one per type; the rack page (fc_html_rack.c) writes the rest of the row.
 */
#ifndef FC_HTML_CELL_H
#define FC_HTML_CELL_H

#include <jansson.h>
#include <stdio.h>

/* Each writes the cell's contents (escaped) for its type's record rec. */
void fc_cell_soak_counters(FILE *f, json_t *rec);  /* the counters that moved */
void fc_cell_soak_gpu(FILE *f, json_t *rec);       /* burn TFLOPS, health windows */

#endif
